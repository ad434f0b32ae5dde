//! The processor features that the hot searches have a second build for (Sudoku `fast`
//! and the big-grid search, the Connect Four negamax): each is compiled once for any
//! x86-64 CPU and once for these features, and the second is taken where they exist.

use std::sync::OnceLock;

/// Whether the CPU has population count, leading and trailing zero counts, BMI1, BMI2
/// and AVX2 (x86-64 CPUs of about the last decade), detected once per process.
pub(crate) fn has_modern_features() -> bool {
    // Once, rather than five detections per puzzle: they were a third of a percent of an
    // easy Sudoku corpus's run.
    static MODERN: OnceLock<bool> = OnceLock::new();
    *MODERN.get_or_init(|| {
        is_x86_feature_detected!("popcnt")
            && is_x86_feature_detected!("lzcnt")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
            && is_x86_feature_detected!("avx2")
    })
}
