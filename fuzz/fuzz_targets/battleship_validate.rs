//! Battleship fields in every format (line, rows, JSON list, block), with the classic
//! fleet or one read from the input (`<lengths>|<field>`), validated under both rules
//! with and without counting, under a node budget. A parsed field writes back to a line
//! that parses to it; searches that finish agree with each other; a field legal with
//! ships apart is legal with ships touching.
#![no_main]

use libfuzzer_sys::fuzz_target;
use puzzlebench::batch::{Job, Record, RecordContent};
use puzzlebench::battleship::{validate_within, Field, FieldFormat, Fleet, Rules, ValidateJob};
use puzzlebench::budget::{Budget, Meter};

const BUDGET: Budget = Budget {
    timeout: None,
    max_nodes: Some(5_000),
};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let (fleet, text) = match text.split_once('|') {
        Some((lengths, field)) => match Fleet::parse(lengths) {
            Ok(fleet) => (fleet, field),
            Err(error) => {
                assert!(!error.to_string().is_empty());
                return;
            }
        },
        None => (Fleet::classic(), text),
    };
    let format = [
        FieldFormat::Auto,
        FieldFormat::Line,
        FieldFormat::Json,
        FieldFormat::Blocks,
    ][usize::from(selector & 3)];
    let size = (selector & 4 != 0).then_some((10, 10));
    for count in [false, true] {
        let job = ValidateJob {
            rules: if selector & 8 == 0 {
                Rules::Touching
            } else {
                Rules::Separated
            },
            fleet: fleet.clone(),
            size,
            format,
            count,
        };
        let record = Record {
            line: 1,
            content: RecordContent::Line(text),
        };
        let mut worker = job.new_worker();
        match job.process(&mut worker, &None, &record, &mut Meter::start(BUDGET)) {
            Ok(outcome) => assert_eq!(outcome.values.len(), job.columns(&None).len()),
            Err(error) => {
                let message = error.to_string();
                assert!(
                    !message.is_empty() && message.chars().count() < 600,
                    "{message}"
                );
            }
        }
    }
    let Ok(field) = Field::parse(text, format, size) else {
        return;
    };
    let size = (field.width(), field.height());
    let line = field.to_line();
    let again = Field::parse(&line, FieldFormat::Line, Some(size)).expect("its own line parses");
    assert_eq!(again, field, "to_line does not round-trip: {line}");
    let verdict =
        |rules, count| validate_within(&field, &fleet, rules, count, &mut Meter::start(BUDGET));
    let mut valid = Vec::new();
    for rules in [Rules::Touching, Rules::Separated] {
        let first = verdict(rules, false);
        let counted = verdict(rules, true);
        for v in [&first, &counted] {
            if v.stopped.is_none() && v.is_valid() {
                assert_eq!(field.ship_cells(), fleet.cells(), "{rules:?}: {v:?}");
            }
        }
        if let Some(readings) = counted.readings.filter(|_| counted.stopped.is_none()) {
            assert_eq!(readings > 0, counted.is_valid(), "{rules:?}: {counted:?}");
            if rules == Rules::Separated {
                assert!(readings <= 1, "{counted:?}");
            }
        }
        if first.stopped.is_none() && counted.stopped.is_none() {
            assert_eq!(first.is_valid(), counted.is_valid(), "{rules:?}");
            valid.push((rules, first.is_valid()));
        }
    }
    if let [(_, touching), (_, separated)] = valid[..] {
        assert!(
            touching || !separated,
            "legal apart but not touching: {line}"
        );
    }
});
