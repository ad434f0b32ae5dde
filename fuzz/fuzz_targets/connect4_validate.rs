//! Connect Four game logs: parsing a line in every notation, then replaying it on a board
//! of any supported size. The `u64` and `u128` bitboards agree, the verdict's fields fit
//! its status, ignoring moves after the end only ever turns an after-the-end error into
//! the win or draw before it, and the batch job's record path (line and CSV) gives a row.
#![no_main]

use libfuzzer_sys::fuzz_target;
use puzzlebench::batch::{InputSpec, Job, Record, RecordContent};
use puzzlebench::budget::Meter;
use puzzlebench::connect4::{
    board_fits, replay, AfterEnd, GameLog, InvalidKind, Notation, Status, ValidateJob, Verdict,
    MAX_SIDE, MIN_SIDE,
};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    // The classic board half of the time, else any supported size.
    let span = MAX_SIDE - MIN_SIDE + 1;
    let (width, height) = match selector & 1 {
        0 => (7, 6),
        _ => (
            MIN_SIDE + usize::from(selector >> 1 & 0xF) % span,
            MIN_SIDE + usize::from(selector >> 4) % span,
        ),
    };
    // Sides up to 16 whose board still fits a u128 mask.
    let Ok(fits_u64) = board_fits(width, height) else {
        return;
    };
    for notation in [Notation::Auto, Notation::Digits, Notation::Colors] {
        let Ok(log) = GameLog::parse(text, notation) else {
            continue;
        };
        assert!(!log.columns.is_empty(), "{notation:?}: a log without moves");
        if let Some(colors) = &log.colors {
            assert_eq!(colors.len(), log.columns.len());
        }
        let strict = replay::<u128>(&log, width, height, AfterEnd::Error);
        let ignoring = replay::<u128>(&log, width, height, AfterEnd::Ignore);
        if fits_u64 {
            assert_eq!(replay::<u64>(&log, width, height, AfterEnd::Error), strict);
            assert_eq!(
                replay::<u64>(&log, width, height, AfterEnd::Ignore),
                ignoring
            );
        }
        check_verdict(&strict, log.columns.len());
        check_verdict(&ignoring, log.columns.len());
        assert_eq!(strict.trailing, 0);
        match &strict.invalid {
            Some((InvalidKind::AfterEnd, _)) => {
                assert!(matches!(ignoring.status, Status::Win | Status::Draw));
                assert!(ignoring.trailing > 0 && ignoring.ply < strict.ply);
            }
            _ => assert_eq!(
                (strict.status, strict.winner, strict.ply),
                (ignoring.status, ignoring.winner, ignoring.ply)
            ),
        }
    }
    for after_end in [AfterEnd::Error, AfterEnd::Ignore] {
        let job = ValidateJob {
            width,
            height,
            fits_u64,
            notation: Notation::Auto,
            after_end,
            column: Some("moves".into()),
        };
        let fields: Vec<&str> = text.split(',').collect();
        for (content, header) in [
            (RecordContent::Line(text), None),
            (
                RecordContent::Fields(&fields),
                Some(vec!["id".to_string(), "moves".to_string()]),
            ),
        ] {
            let Ok(layout) = job.layout(&InputSpec::new("-", None), header.as_deref()) else {
                continue;
            };
            let record = Record { line: 3, content };
            let outcome = job
                .process(
                    &mut job.new_worker(),
                    &layout,
                    &record,
                    &mut Meter::unlimited(),
                )
                .expect("a game log always gives a row");
            assert_eq!(outcome.values.len(), job.columns(&layout).len());
            if outcome.failed {
                assert!(!outcome.error.is_empty(), "{outcome:?}");
            }
            // About 80 quoted characters of any text of the record, at most.
            assert!(outcome.error.chars().count() < 600, "{outcome:?}");
        }
    }
});

fn check_verdict(verdict: &Verdict, moves: usize) {
    let (width, height) = verdict.board;
    assert!(verdict.ply <= moves, "{verdict:?}");
    match verdict.status {
        Status::Win => {
            let winner = verdict.winner.expect("a winner");
            assert_eq!(usize::from(winner), 2 - verdict.ply % 2, "{verdict:?}");
            let lines = verdict.lines();
            assert!(!lines.is_empty(), "a win without a line: {verdict:?}");
            for line in lines {
                assert!(line.len() >= 4, "{verdict:?}");
                assert!(line.iter().all(|&(c, r)| c < width && r < height));
            }
        }
        Status::Draw => assert_eq!(verdict.ply, width * height, "{verdict:?}"),
        Status::Unfinished => assert_eq!(verdict.ply, moves, "{verdict:?}"),
        Status::Invalid => {
            let (_, message) = verdict.invalid.as_ref().expect("a reason");
            assert!(!message.is_empty());
            assert!(verdict.ply >= 1);
        }
    }
    if verdict.status != Status::Invalid {
        assert!(verdict.invalid.is_none(), "{verdict:?}");
    }
    if verdict.status != Status::Win {
        assert!(verdict.winner.is_none(), "{verdict:?}");
    }
}
