//! Battleship: the validator against an independent exact-cover decision on random fields,
//! hand-made tricky fields, counting, and the command line end to end.

mod common;

use std::ops::ControlFlow;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use common::{assert_none, cell, parse_csv, run};
use puzzlebench::battleship::generate::{flip_random_cell, random_cells, random_fleet};
use puzzlebench::battleship::{
    validate, validate_within, Field, FieldFormat, Fleet, Reason, Rules,
};
use puzzlebench::budget::{Budget, Meter};
use puzzlebench::exact_cover::DlxBuilder;

/// Readings of the field as the fleet, found independently of the validator: an exact
/// cover with one item per ship cell and one per ship of the fleet (identical ships are
/// distinct items, so each reading is found once per ordering of them), one option per
/// straight placement of a ship on ship cells. Under separated rules only readings whose
/// ships do not touch, even at a corner, count.
fn readings_by_exact_cover(field: &Field, fleet: &Fleet, rules: Rules) -> u64 {
    let (width, height) = (field.width(), field.height());
    let cells: Vec<(usize, usize)> = (0..height)
        .flat_map(|r| (0..width).map(move |c| (r, c)))
        .filter(|&(r, c)| field.get(r, c))
        .collect();
    let index = |r: usize, c: usize| cells.iter().position(|&cell| cell == (r, c));
    let ships = fleet.lengths();
    let mut builder = DlxBuilder::new(cells.len() + ships.len(), 0);
    let mut placements: Vec<Vec<(usize, usize)>> = Vec::new();
    for (ship, &len) in ships.iter().enumerate() {
        for &(r, c) in &cells {
            for across in [true, false] {
                if len == 1 && !across {
                    continue;
                }
                let span: Vec<(usize, usize)> = (0..len)
                    .map(|k| if across { (r, c + k) } else { (r + k, c) })
                    .collect();
                let items: Option<Vec<usize>> = span
                    .iter()
                    .map(|&(r, c)| {
                        if r < height && c < width {
                            index(r, c)
                        } else {
                            None
                        }
                    })
                    .collect();
                if let Some(mut items) = items {
                    items.push(cells.len() + ship);
                    builder.add_option(&items).unwrap();
                    placements.push(span);
                }
            }
        }
    }
    let mut dlx = builder.build();
    let mut labelled = 0u64;
    dlx.search(|options| {
        let touching = options.iter().enumerate().any(|(i, &a)| {
            options[i + 1..].iter().any(|&b| {
                placements[a].iter().any(|&(r1, c1)| {
                    placements[b]
                        .iter()
                        .any(|&(r2, c2)| r1.abs_diff(r2) <= 1 && c1.abs_diff(c2) <= 1)
                })
            })
        });
        if rules == Rules::Touching || !touching {
            labelled += 1;
        }
        ControlFlow::Continue(())
    });
    let orderings: u64 = (1..=fleet.longest())
        .map(|len| (1..=fleet.count(len) as u64).product::<u64>())
        .product();
    assert_eq!(labelled % orderings, 0);
    labelled / orderings
}

/// Random fields: fleets placed with and without touching, the same with one cell flipped,
/// and fields of random cells.
fn random_field(rng: &mut ChaCha8Rng, width: usize, height: usize, fleet: &Fleet) -> Field {
    let kind = rng.gen_range(0..5);
    let rules = if kind % 2 == 0 {
        Rules::Touching
    } else {
        Rules::Separated
    };
    match kind {
        0 | 1 => random_fleet(width, height, fleet, rules, rng).unwrap(),
        2 | 3 => {
            let mut field = random_fleet(width, height, fleet, rules, rng).unwrap();
            flip_random_cell(&mut field, rng);
            field
        }
        _ => random_cells(
            width,
            height,
            fleet.cells() as f64 / (width * height) as f64,
            rng,
        ),
    }
}

fn agree_on_random_fields(width: usize, height: usize, fleet: &Fleet, fields: u64) {
    let disagreements: Vec<String> = (0..fields)
        .into_par_iter()
        .filter_map(|seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let field = random_field(&mut rng, width, height, fleet);
            for rules in [Rules::Touching, Rules::Separated] {
                let verdict = validate(&field, fleet, rules, true);
                let expected = readings_by_exact_cover(&field, fleet, rules);
                if verdict.readings != Some(expected) || verdict.is_valid() != (expected > 0) {
                    return Some(format!(
                        "{rules:?} {field}: {verdict:?}, exact cover {expected}"
                    ));
                }
            }
            None
        })
        .collect();
    assert_none(&disagreements);
}

#[test]
fn validator_agrees_with_exact_cover_on_100000_classic_fields() {
    agree_on_random_fields(10, 10, &Fleet::classic(), 100_000);
}

#[test]
fn validator_agrees_with_exact_cover_on_another_fleet_and_board() {
    agree_on_random_fields(8, 6, &Fleet::parse("3,2,2,1,1").unwrap(), 20_000);
    agree_on_random_fields(12, 9, &Fleet::parse("5,4,3,3,2").unwrap(), 10_000);
}

/// A classic-fleet field drawn as rows of `#` and `.`.
fn field(rows: &[&str]) -> Field {
    Field::parse(&rows.join(" "), FieldFormat::Line, None).unwrap()
}

fn check(rows: &[&str], rules: Rules) -> (bool, Option<Reason>, u64) {
    let verdict = validate(&field(rows), &Fleet::classic(), rules, true);
    (
        verdict.is_valid(),
        verdict.reason,
        verdict.readings.unwrap(),
    )
}

#[test]
fn seed_field_is_valid_when_ships_may_touch() {
    let seed = "1000000000 1110000010 1100000010 1100000000 1100000010 1100111000 1000000010 0000000000 0000000000 0000000000";
    let field = Field::parse(seed, FieldFormat::Auto, None).unwrap();
    assert!(validate(&field, &Fleet::classic(), Rules::Touching, false).is_valid());
    assert!(!validate(&field, &Fleet::classic(), Rules::Separated, false).is_valid());
}

#[test]
fn a_run_of_five_is_a_four_and_a_one() {
    let rows = [
        "#####.###.",
        "..........",
        "###.##.##.",
        "..........",
        "##.#.#.#..",
        "..........",
        "..........",
        "..........",
        "..........",
        "..........",
    ];
    let (valid, _, readings) = check(&rows, Rules::Touching);
    assert!(valid);
    assert_eq!(readings, 2, "4+1 or 1+4");
    let (valid, reason, _) = check(&rows, Rules::Separated);
    assert!(!valid);
    assert_eq!(
        reason.unwrap(),
        Reason::WrongShips {
            found: vec![5, 3, 3, 2, 2, 2, 1, 1, 1]
        }
    );
}

#[test]
fn two_runs_of_four_need_one_split() {
    let rows = [
        "####.####.",
        "..........",
        "###.##.##.",
        "..........",
        "##.#.#.#..",
        "..........",
        "..........",
        "..........",
        "..........",
        "..........",
    ];
    // 4 + 4 + 3 + 2 + 2 + 2 + 1 + 1 + 1 = 20: one run of 4 must be a 3 and a 1.
    let (valid, _, readings) = check(&rows, Rules::Touching);
    assert!(valid);
    assert_eq!(readings, 4, "either run splits, the 1 at either end");
    assert!(!check(&rows, Rules::Separated).0);
}

#[test]
fn an_l_shape_breaks_at_the_corner() {
    let rows = [
        "###.......",
        "..#.####..",
        "..#.......",
        "......###.",
        "##........",
        "...##..#.#",
        "..........",
        "#.........",
        "..........",
        "#.........",
    ];
    let (valid, _, readings) = check(&rows, Rules::Touching);
    assert!(valid, "the L is a 3 and a 2, or a 2 and a 3");
    assert_eq!(readings, 2);
    let (valid, reason, _) = check(&rows, Rules::Separated);
    assert!(!valid);
    assert!(matches!(reason, Some(Reason::NotStraight { ref cells }) if cells.len() == 5));
}

#[test]
fn a_square_and_a_plus_sign() {
    // The 2×2 square is two 2s, side by side or one above the other.
    let square = [
        "##..####..",
        "##........",
        "......###.",
        "###.......",
        "........##",
        "#.#.#.....",
        "..........",
        "#.........",
        "..........",
        "..........",
    ];
    let (valid, _, readings) = check(&square, Rules::Touching);
    assert!(valid);
    assert_eq!(readings, 2);
    // The plus is a 3 with a 1 on each side of its middle, either way round.
    let plus = [
        ".#..####..",
        "###.......",
        ".#....###.",
        "..........",
        "##.##.##..",
        "..........",
        "#.#.......",
        "..........",
        "..........",
        "..........",
    ];
    let (valid, _, readings) = check(&plus, Rules::Touching);
    assert!(valid);
    assert_eq!(readings, 2);
    assert!(!check(&plus, Rules::Separated).0);
}

#[test]
fn a_diagonal_of_singles_touches_only_at_corners() {
    let rows = [
        "#.........",
        ".#........",
        "..#.......",
        "...#......",
        "......####",
        "###.......",
        ".....###..",
        "##........",
        "....##....",
        "........##",
    ];
    let (valid, _, readings) = check(&rows, Rules::Touching);
    assert!(valid);
    assert_eq!(readings, 1);
    let (valid, reason, _) = check(&rows, Rules::Separated);
    assert!(!valid);
    assert_eq!(
        reason.unwrap(),
        Reason::CornerTouch {
            cells: [(0, 0), (1, 1)]
        }
    );
}

#[test]
fn rows_do_not_wrap() {
    // Two cells at the end of row 1 and two at the start of row 2 would be a 4 only if the
    // row wrapped into the next.
    let fleet = Fleet::parse("4").unwrap();
    let field = Field::parse("00011 11000", FieldFormat::Line, None).unwrap();
    for rules in [Rules::Touching, Rules::Separated] {
        assert!(!validate(&field, &fleet, rules, false).is_valid());
    }
    let flat = Field::parse("0001111000", FieldFormat::Line, Some((5, 2))).unwrap();
    assert_eq!(flat, field);
    assert!(!validate(&flat, &fleet, Rules::Touching, false).is_valid());
}

#[test]
fn wrong_cell_counts_and_the_empty_grid() {
    let full = [
        "####.###..",
        "..........",
        "###.##.##.",
        "..........",
        "##.#.#.#.#",
        "..........",
        "..........",
        "..........",
        "..........",
        "..........",
    ];
    assert!(check(&full, Rules::Touching).0);
    let mut nineteen = full;
    nineteen[4] = "##.#.#.#..";
    assert_eq!(
        check(&nineteen, Rules::Touching).1,
        Some(Reason::CellCount {
            found: 19,
            expected: 20
        })
    );
    let mut twenty_one = full;
    twenty_one[9] = "#.........";
    assert_eq!(
        check(&twenty_one, Rules::Separated).1,
        Some(Reason::CellCount {
            found: 21,
            expected: 20
        })
    );
    let empty = [".........."; 10];
    let (valid, reason, readings) = check(&empty, Rules::Touching);
    assert!(!valid);
    assert_eq!(readings, 0);
    assert_eq!(
        reason.unwrap().describe(&Fleet::classic()),
        "0 ship cells, the fleet has 20"
    );
}

#[test]
fn cli_validates_with_reasons_counts_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fields.txt");
    let seed = "1000000000 1110000010 1100000010 1100000000 1100000010 1100111000 1000000010 0000000000 0000000000 0000000000";
    std::fs::write(
        &path,
        format!(
            "{seed}\n# a bad one\n{}\n10?0\n",
            seed.replacen('1', "0", 1)
        ),
    )
    .unwrap();
    let output = run(&["battleship", "validate", path.to_str().unwrap(), "--count"]);
    assert_eq!(output.status.code(), Some(1));
    let (header, rows) = parse_csv(&String::from_utf8(output.stdout).unwrap());
    assert_eq!(
        header,
        [
            "line",
            "status",
            "size",
            "ship_cells",
            "reason",
            "readings",
            "error",
            "micros"
        ]
    );
    assert_eq!(rows.len(), 3);
    assert_eq!(cell(&header, &rows[0], "status"), "valid");
    // The seed field's blob of cells reads as the fleet in many ways; the count agrees
    // with the independent exact cover.
    let seed_field = Field::parse(seed, FieldFormat::Auto, None).unwrap();
    let expected = readings_by_exact_cover(&seed_field, &Fleet::classic(), Rules::Touching);
    assert_eq!(cell(&header, &rows[0], "readings"), expected.to_string());
    assert_eq!(cell(&header, &rows[1], "line"), "3");
    assert_eq!(cell(&header, &rows[1], "status"), "invalid");
    assert_eq!(
        cell(&header, &rows[1], "reason"),
        "19 ship cells, the fleet has 20"
    );
    assert_eq!(cell(&header, &rows[2], "status"), "error");
    assert!(cell(&header, &rows[2], "error").starts_with("bad character '?' at row 2, column 1"));
    let separated = run(&[
        "battleship",
        "validate",
        path.to_str().unwrap(),
        "--rules",
        "separated",
    ]);
    let (header, rows) = parse_csv(&String::from_utf8(separated.stdout).unwrap());
    assert_eq!(cell(&header, &rows[0], "status"), "invalid");
    assert!(cell(&header, &rows[0], "reason").contains("not straight"));
}

#[test]
fn cli_reads_blocks_and_json_and_generates_reproducibly() {
    let dir = tempfile::tempdir().unwrap();
    let blocks = dir.path().join("blocks.txt");
    std::fs::write(&blocks, "1100\n0000\n0010\n\n1000\n1000\n0000\n0001\n").unwrap();
    let output = run(&[
        "battleship",
        "validate",
        blocks.to_str().unwrap(),
        "--format",
        "blocks",
        "--fleet",
        "2,1",
    ]);
    assert_eq!(output.status.code(), Some(0));
    let (header, rows) = parse_csv(&String::from_utf8(output.stdout).unwrap());
    assert_eq!(rows.len(), 2);
    assert_eq!(cell(&header, &rows[1], "line"), "5");
    assert_eq!(cell(&header, &rows[1], "size"), "4x4");
    let json = dir.path().join("fields.json");
    std::fs::write(&json, "[[1, 1, 0], [0, 0, 0], [0, 0, 1]]\n").unwrap();
    let output = run(&[
        "battleship",
        "validate",
        json.to_str().unwrap(),
        "--fleet",
        "2,1",
    ]);
    assert_eq!(output.status.code(), Some(0));

    let generate = |seed: &str| {
        let output = run(&[
            "battleship",
            "generate",
            "--count",
            "200",
            "--seed",
            seed,
            "--faults",
            "0.3",
        ]);
        assert_eq!(output.status.code(), Some(0));
        String::from_utf8(output.stdout).unwrap()
    };
    let first = generate("7");
    assert_eq!(first, generate("7"));
    assert_ne!(first, generate("8"));
    assert_eq!(first.lines().count(), 200);
    let file = dir.path().join("generated.txt");
    std::fs::write(&file, &first).unwrap();
    let output = run(&["battleship", "validate", file.to_str().unwrap()]);
    let (header, rows) = parse_csv(&String::from_utf8(output.stdout).unwrap());
    let valid = rows
        .iter()
        .filter(|r| cell(&header, r, "status") == "valid")
        .count();
    assert!(
        (100..200).contains(&valid),
        "{valid} valid of 200 with 30% faults"
    );
}

#[test]
fn counts_of_one_are_singular_in_messages() {
    let ragged = Field::parse("[[1,0],[0]]", FieldFormat::Auto, None).unwrap_err();
    assert_eq!(ragged.to_string(), "row 2 has 1 cell, row 1 has 2");
    let ragged = Field::parse("[[1],[0,1]]", FieldFormat::Auto, None).unwrap_err();
    assert_eq!(ragged.to_string(), "row 2 has 2 cells, row 1 has 1");
    let short = Field::parse("1", FieldFormat::Line, Some((2, 1))).unwrap_err();
    assert_eq!(short.to_string(), "1 cell on the line, a 2x1 field has 2");
    let one_cell = Reason::CellCount {
        found: 1,
        expected: 2,
    };
    assert_eq!(
        one_cell.describe(&Fleet::parse("2").unwrap()),
        "1 ship cell, the fleet has 2"
    );
    let two_cells = Reason::CellCount {
        found: 2,
        expected: 1,
    };
    assert_eq!(
        two_cells.describe(&Fleet::parse("1").unwrap()),
        "2 ship cells, the fleet has 1"
    );
}

#[test]
fn a_long_bad_fleet_is_quoted_cut_short() {
    let ones = vec!["1"; 5000].join(",");
    let message = Fleet::parse(&ones).unwrap_err().to_string();
    let cut = "1,".repeat(40);
    assert_eq!(
        message,
        format!("bad fleet \"{cut}\"… (9999 bytes): at most 255 ships of one length")
    );
    let output = run(&["battleship", "validate", "--fleet", &ones]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.len() < 400, "{stderr}");
    assert!(stderr.contains("… (9999 bytes)"), "{stderr}");
}

#[test]
fn every_field_generated_with_a_fault_is_invalid() {
    use puzzlebench::battleship::generate::{write_fields, FieldBatch};
    // One-cell ships moved to open water stay a valid fleet: the generator must notice
    // and break the field some other way.
    for (fleet, rules, size) in [
        ("1,1,1,1", Rules::Touching, (10, 10)),
        ("1,1,1,1,1,1", Rules::Separated, (6, 6)),
        ("4,3,3,2,2,2,1,1,1,1", Rules::Separated, (10, 10)),
        ("2,2,1", Rules::Touching, (3, 3)),
    ] {
        let fleet = Fleet::parse(fleet).unwrap();
        let batch = FieldBatch {
            count: 300,
            seed: 11,
            rules,
            fleet: fleet.clone(),
            size,
            faults: 1.0,
        };
        let mut out = Vec::new();
        write_fields(&batch, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.lines().count(), 300);
        for line in text.lines() {
            if let Ok(field) = Field::parse(line, FieldFormat::Auto, Some(size)) {
                let verdict = validate(&field, &fleet, rules, false);
                assert!(!verdict.is_valid(), "{fleet} {rules:?}: {line}");
            }
        }
    }
}

#[test]
fn a_fleet_the_generator_cannot_place_at_random_is_not_said_not_to_fit() {
    use puzzlebench::battleship::generate::{write_fields, FieldBatch};
    // 28 ships of 56 on 56×56 fit, separated, on every other row, but random tries do not
    // find that.
    let mut batch = FieldBatch {
        count: 1,
        seed: 0,
        rules: Rules::Separated,
        fleet: Fleet::parse(&vec!["56"; 28].join(",")).unwrap(),
        size: (56, 56),
        faults: 0.0,
    };
    let message = write_fields(&batch, &mut Vec::new())
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with("no placement of the fleet "),
        "{message}"
    );
    assert!(
        message.ends_with(
            " on a 56x56 field was found in 1000 random tries (the fleet may still fit)"
        ),
        "{message}"
    );
    // One ship more cannot fit with the gaps it needs: that is proved, and said.
    batch.fleet = Fleet::parse(&vec!["56"; 29].join(",")).unwrap();
    let message = write_fields(&batch, &mut Vec::new())
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("does not fit on a 56x56 field: "),
        "{message}"
    );
    // So are more ship cells than the field has, and a ship longer than its sides.
    batch.rules = Rules::Touching;
    batch.size = (3, 3);
    batch.fleet = Fleet::parse("3,3,3,1").unwrap();
    let message = write_fields(&batch, &mut Vec::new())
        .unwrap_err()
        .to_string();
    assert!(
        message.ends_with(
            "does not fit on a 3x3 field: its 10 ship cells are more than the field's 9"
        ),
        "{message}"
    );
    batch.fleet = Fleet::parse("4").unwrap();
    let message = write_fields(&batch, &mut Vec::new())
        .unwrap_err()
        .to_string();
    assert!(
        message.ends_with("a ship of 4 cells is longer than the field's sides"),
        "{message}"
    );
    // A fleet that fits is written.
    batch.fleet = Fleet::parse("3,3,3").unwrap();
    let mut out = Vec::new();
    write_fields(&batch, &mut out).unwrap();
    assert_eq!(out, b"111 111 111\n");
}

/// Fields made so that the search meets the same positions by many orders of the ships
/// above them are decided in polynomial time: the positions that failed are remembered.
/// 49 dominoes on a 10×10 square without two opposite corners took exponential time
/// (still running after 30 s); each case here must end well inside a node budget, and
/// counts must stay exact while positions are remembered.
#[test]
fn positions_that_failed_are_remembered_and_verdicts_and_counts_stay_exact() {
    let budget = Budget {
        max_nodes: Some(2_000_000),
        ..Budget::UNLIMITED
    };
    let field = |text: &str| Field::parse(text, FieldFormat::Auto, None).unwrap();
    let dominoes = |n: usize| Fleet::from_lengths(&vec![2; n]).unwrap();
    let full = |side: usize| vec!["1".repeat(side); side].join(" ");
    let mut mutilated: Vec<String> = vec!["1".repeat(10); 10];
    mutilated[0].replace_range(0..1, "0");
    mutilated[9].replace_range(9..10, "0");
    // (field, fleet, count the readings, valid, readings)
    let cases = [
        (field(&mutilated.join(" ")), dominoes(49), false, false, 0),
        (field(&full(10)), dominoes(50), false, true, 1),
        (field(&full(6)), dominoes(18), true, true, 6728),
    ];
    for (index, (field, fleet, count, valid, readings)) in cases.into_iter().enumerate() {
        let mut meter = Meter::start(budget);
        let verdict = validate_within(&field, &fleet, Rules::Touching, count, &mut meter);
        assert_eq!(
            verdict.stopped,
            None,
            "case {index}: {} ships tried",
            meter.spent()
        );
        assert_eq!(verdict.is_valid(), valid, "case {index}");
        if count {
            // The 6×6 square's domino tilings: 6,728.
            assert_eq!(verdict.readings.unwrap(), readings, "case {index}");
        }
    }
}

/// A reason lists at most 24 cells or lengths, then how many there are in all: a group of
/// 4,096 cells made a reason of tens of kilobytes.
#[test]
fn long_reasons_are_cut_short_with_their_count() {
    let fleet = Fleet::classic();
    let cells: Vec<(usize, usize)> = (0..64).flat_map(|r| (0..64).map(move |c| (r, c))).collect();
    let text = Reason::NotStraight { cells }.describe(&fleet);
    assert!(text.starts_with("ship cells A1 B1 C1 "), "{text}");
    assert!(
        text.ends_with(" … (4096 in all) form a group that is not straight"),
        "{text}"
    );
    assert!(text.len() < 200, "{text}");
    let found = vec![2; 30];
    let text = Reason::WrongShips { found }.describe(&fleet);
    let listed = ["2"; 24].join(",");
    assert!(
        text.starts_with(&format!(
            "ships of lengths {listed},… (30 in all) instead of "
        )),
        "{text}"
    );
    let text = Reason::WrongShips { found: vec![4, 3] }.describe(&fleet);
    assert!(
        text.starts_with("ships of lengths 4,3 instead of "),
        "{text}"
    );
    let text = Reason::WrongShips { found: vec![2] }.describe(&fleet);
    assert!(text.starts_with("a ship of length 2 instead of "), "{text}");
    // The fleet is cut the same way.
    let large = Fleet::from_lengths(&[1; 30]).unwrap();
    let text = Reason::NoSplit.describe(&large);
    let ones = ["1"; 24].join(",");
    assert!(
        text.ends_with(&format!("of lengths {ones},… (30 in all)")),
        "{text}"
    );
}
