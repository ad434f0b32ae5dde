//! Connect Four solve lines (`<moves> [<score>]`, `<moves> [<board>] <label>`, `-`):
//! parsing and solving under a node budget, on the classic board and on small ones where
//! whole games are solved. Exact and weak searches that both finish agree on win, draw or
//! loss, and the best moves are legal columns.
#![no_main]

use libfuzzer_sys::fuzz_target;
use puzzlebench::batch::{InputSpec, Job, Record, RecordContent, Value};
use puzzlebench::budget::{Budget, Meter};
use puzzlebench::connect4::{board_fits, IdleThreads, SolveJob};

/// Enough for whole games on the small boards and for positions a few moves from the end on
/// the others; a larger budget only repeats the same code (at 5,000 nodes the two searches
/// took four fifths of each execution, and a fuzzer ran a third as many executions).
const BUDGET: Budget = Budget {
    timeout: None,
    max_nodes: Some(1_500),
};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let (width, height) = [
        (7, 6),
        (4, 4),
        (5, 4),
        (4, 5),
        (7, 6),
        (6, 5),
        (8, 7),
        (9, 7),
    ][usize::from(selector & 7)];
    let fits_u64 = board_fits(width, height).expect("a supported size");
    let score_only = selector & 8 == 0;
    let mut results = Vec::new();
    for weak in [false, true] {
        let job = SolveJob {
            width,
            height,
            fits_u64,
            weak,
            // The smallest table (2¹⁴ entries): a fresh 1 MiB table cost each execution
            // more than its two searches.
            table_mb: 0,
            score_only,
            book: None,
            idle: IdleThreads::default(),
        };
        let mut worker = job.new_worker();
        let layout = job
            .layout(&InputSpec::new("-", None), None)
            .expect("a line input always has a layout");
        let record = Record {
            line: 1,
            content: RecordContent::Line(text),
        };
        let outcome = match job.process(&mut worker, &layout, &record, &mut Meter::start(BUDGET)) {
            Ok(outcome) => outcome,
            Err(error) => {
                let message = error.to_string();
                assert!(
                    !message.is_empty() && message.chars().count() < 600,
                    "{message}"
                );
                return;
            }
        };
        assert!(outcome.error.chars().count() < 600, "{outcome:?}");
        assert_eq!(outcome.values.len(), job.columns(&layout).len());
        if outcome.status != "ok" {
            assert!(!outcome.error.is_empty(), "{outcome:?}");
            continue;
        }
        if let Value::Text(best) = &outcome.values[2] {
            assert!(!best.is_empty(), "no best move: {outcome:?}");
            for column in best.split(' ') {
                let column: usize = column.parse().expect("a column number");
                assert!((1..=width).contains(&column), "{outcome:?}");
            }
        } else {
            assert!(score_only, "no best moves: {outcome:?}");
        }
        results.push(outcome.values[0].to_text());
    }
    if let [exact, weak] = &results[..] {
        assert_eq!(
            exact, weak,
            "the exact and weak searches disagree on {text:?}"
        );
    }
});
