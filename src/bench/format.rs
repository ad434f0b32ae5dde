//! How benchmark figures are written: medians, rates with thousands separators, thread
//! counts.

/// The median of `samples` (the mean of the middle two for an even count); 0 when empty.
pub fn median(samples: &[f64]) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[middle]
    } else {
        (sorted[middle - 1] + sorted[middle]) / 2.0
    }
}

/// A thread count as the tables show it: `process` for an external program.
pub fn threads_text(threads: Option<usize>) -> String {
    match threads {
        Some(n) => n.to_string(),
        None => "process".into(),
    }
}

/// `12345.6` as `12,346`.
pub fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
