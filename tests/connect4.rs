//! Connect Four validation: the bitboard against a plain reference validator on generated
//! games, every verdict and error kind, mirroring, and the command line end to end.

mod common;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use common::{assert_none, cell, parse_csv, run, without_micros};
use puzzlebench::connect4::generate::{
    break_game, random_game, write_game, GameNotation, WriteFault,
};
use puzzlebench::connect4::{replay, AfterEnd, GameLog, InvalidKind, Notation, Status, Verdict};

/// A verdict boiled down for comparison: status, winner, ply, invalid kind, sorted cells.
type Outline = (
    Status,
    Option<u8>,
    usize,
    Option<InvalidKind>,
    Vec<(usize, usize)>,
);
/// How a game ended: status, winner, ply, sorted cells.
type Ending = (Status, Option<u8>, usize, Vec<(usize, usize)>);

/// The reference: a 2-D grid, scanned in all four directions after every move, as the seed
/// articles do. Returns status, winner, ply, the invalid kind, and the sorted cells of the
/// winner's lines of four or more through the last stone.
fn reference(log: &GameLog, width: usize, height: usize) -> Outline {
    let mut grid = vec![vec![0u8; height]; width];
    let mut ended: Option<Ending> = None;
    for (i, &column) in log.columns.iter().enumerate() {
        let ply = i + 1;
        if ended.is_some() {
            return (
                Status::Invalid,
                None,
                ply,
                Some(InvalidKind::AfterEnd),
                vec![],
            );
        }
        if let Some(colors) = &log.colors {
            if i > 0 && colors[i] == colors[i - 1] {
                return (Status::Invalid, None, ply, Some(InvalidKind::Turn), vec![]);
            }
        }
        if column < 1 || column > width {
            return (
                Status::Invalid,
                None,
                ply,
                Some(InvalidKind::Column),
                vec![],
            );
        }
        let col = column - 1;
        let Some(row) = grid[col].iter().position(|&v| v == 0) else {
            return (Status::Invalid, None, ply, Some(InvalidKind::Full), vec![]);
        };
        let player = (i % 2) as u8 + 1;
        grid[col][row] = player;
        // Scan the whole board for runs of four or more of this player.
        let mut cells = Vec::new();
        for (dc, dr) in [(0i32, 1i32), (1, 0), (1, 1), (1, -1)] {
            for c in 0..width as i32 {
                for r in 0..height as i32 {
                    let at = |k: i32| {
                        let (x, y) = (c + k * dc, r + k * dr);
                        x >= 0
                            && y >= 0
                            && x < width as i32
                            && y < height as i32
                            && grid[x as usize][y as usize] == player
                    };
                    // (c, r) starts a maximal run.
                    if !at(0) || at(-1) {
                        continue;
                    }
                    let mut len = 0;
                    while at(len) {
                        len += 1;
                    }
                    let run: Vec<(usize, usize)> = (0..len)
                        .map(|k| ((c + k * dc) as usize, (r + k * dr) as usize))
                        .collect();
                    if len >= 4 && run.contains(&(col, row)) {
                        cells.extend(run);
                    }
                }
            }
        }
        if !cells.is_empty() {
            cells.sort_unstable();
            cells.dedup();
            ended = Some((Status::Win, Some(player), ply, cells));
        } else if ply == width * height {
            ended = Some((Status::Draw, None, ply, vec![]));
        }
    }
    match ended {
        Some((status, winner, ply, cells)) => (status, winner, ply, None, cells),
        None => (Status::Unfinished, None, log.columns.len(), None, vec![]),
    }
}

fn summary(verdict: &Verdict) -> Outline {
    let mut cells: Vec<(usize, usize)> = verdict.lines().iter().flatten().copied().collect();
    cells.sort_unstable();
    cells.dedup();
    (
        verdict.status,
        verdict.winner,
        verdict.ply,
        verdict.invalid.as_ref().map(|(kind, _)| *kind),
        cells,
    )
}

fn bitboard(log: &GameLog, width: usize, height: usize) -> Verdict {
    if width * (height + 1) <= 64 {
        replay::<u64>(log, width, height, AfterEnd::Error)
    } else {
        replay::<u128>(log, width, height, AfterEnd::Error)
    }
}

/// A generated game, broken with probability 0.3, written and read back.
fn generated(seed: u64, width: usize, height: usize) -> Result<GameLog, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let notation = if rng.gen_bool(0.5) {
        GameNotation::Digits
    } else {
        GameNotation::Colors
    };
    let mut moves = random_game(width, height, &mut rng);
    let fault = if rng.gen_bool(0.3) {
        break_game(&mut moves, width, height, notation, &mut rng)
    } else {
        WriteFault::None
    };
    let text = write_game(&moves, width, notation, fault);
    GameLog::parse(&text, Notation::Auto).map_err(|e| e.to_string())
}

/// Every game written in either notation reads back as its moves, on boards up to 9
/// columns and wider, games of one move included (`12` on a wide board was read as the
/// moves 1 and 2; it is now written `12,`).
#[test]
fn written_games_read_back_as_their_moves_on_every_width() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for (width, height) in [(7, 6), (9, 4), (10, 10), (16, 7)] {
        let mut games: Vec<Vec<usize>> = (1..=width).map(|column| vec![column]).collect();
        games.extend((0..300).map(|_| random_game(width, height, &mut rng)));
        for moves in games {
            for notation in [GameNotation::Digits, GameNotation::Colors] {
                let text = write_game(&moves, width, notation, WriteFault::None);
                let log = GameLog::parse(&text, Notation::Auto).unwrap();
                assert_eq!(log.columns, moves, "{width}x{height}: {text:?}");
            }
        }
    }
}

#[test]
fn bitboard_agrees_with_the_reference_on_200000_games() {
    for (width, height, games) in [
        (7, 6, 80_000u64),
        (8, 7, 40_000),
        (9, 7, 40_000),
        (10, 10, 40_000),
    ] {
        let mismatches: Vec<String> = (0..games)
            .into_par_iter()
            .filter_map(|seed| {
                let log = generated(seed, width, height).ok()?;
                let ours = summary(&bitboard(&log, width, height));
                let theirs = reference(&log, width, height);
                (ours != theirs)
                    .then(|| format!("{width}x{height} seed {seed}: {ours:?} vs {theirs:?}"))
            })
            .collect();
        assert_none(&mismatches);
    }
}

#[test]
fn mirroring_the_columns_changes_nothing() {
    for seed in 0..20_000 {
        let Ok(log) = generated(seed, 7, 6) else {
            continue;
        };
        let mut mirrored = log.clone();
        for column in &mut mirrored.columns {
            if (1..=7).contains(column) {
                *column = 8 - *column;
            }
        }
        let (a, b) = (bitboard(&log, 7, 6), bitboard(&mirrored, 7, 6));
        assert_eq!(
            (a.status, a.winner, a.ply),
            (b.status, b.winner, b.ply),
            "seed {seed}"
        );
    }
}

/// The first generated 7×6 game (unbroken) whose verdict satisfies `wanted`.
fn find_game(wanted: impl Fn(&Verdict) -> bool) -> (Vec<usize>, Verdict) {
    for seed in 0..1_000_000u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let moves = random_game(7, 6, &mut rng);
        let log = GameLog::parse(
            &write_game(&moves, 7, GameNotation::Digits, WriteFault::None),
            Notation::Digits,
        )
        .unwrap();
        let verdict = bitboard(&log, 7, 6);
        if wanted(&verdict) {
            assert_eq!(summary(&verdict), reference(&log, 7, 6));
            return (moves, verdict);
        }
    }
    panic!("no such game in a million");
}

fn verdict_of(text: &str) -> Verdict {
    bitboard(&GameLog::parse(text, Notation::Auto).unwrap(), 7, 6)
}

#[test]
fn the_seed_game_is_won_by_red_on_two_diagonals() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/connect4/seed-game.txt"),
    )
    .unwrap();
    let line = text.lines().find(|l| !l.starts_with('#')).unwrap();
    let verdict = verdict_of(line);
    assert_eq!(verdict.status, Status::Win);
    assert_eq!((verdict.winner, verdict.ply), (Some(2), 22));
    assert_eq!(
        verdict.lines(),
        vec![
            vec![(2, 0), (3, 1), (4, 2), (5, 3)],
            vec![(3, 3), (4, 2), (5, 1), (6, 0)]
        ]
    );
    let log = GameLog::parse(line, Notation::Auto).unwrap();
    assert_eq!(log.color_names, vec!["Yellow", "Red"]);
}

#[test]
fn a_four_on_the_42nd_move_is_a_win() {
    let (_, verdict) = find_game(|v| v.status == Status::Win && v.ply == 42);
    assert_eq!(verdict.winner, Some(2));
    let (_, draw) = find_game(|v| v.status == Status::Draw);
    assert_eq!(draw.ply, 42);
}

#[test]
fn two_fours_with_one_move_and_a_line_of_five() {
    let (_, two) = find_game(|v| v.lines().len() >= 2);
    assert_eq!(two.status, Status::Win);
    let (_, five) = find_game(|v| v.lines().iter().any(|line| line.len() >= 5));
    assert!(five.lines().iter().any(|line| line.len() >= 5));
}

#[test]
fn every_invalid_kind() {
    let full = verdict_of("1111111");
    assert_eq!((full.status, full.ply), (Status::Invalid, 7));
    assert_eq!(full.invalid.unwrap().1, "full: column 1 is full (ply 7)");
    let outside = verdict_of("448");
    assert_eq!(
        outside.invalid.unwrap().1,
        "column: column 8 is outside the board (1 to 7) (ply 3)"
    );
    let zero = verdict_of("40");
    assert_eq!(zero.invalid.unwrap().0, InvalidKind::Column);
    let turn = verdict_of("D_Yellow, C_Red, E_red");
    assert_eq!(turn.ply, 3);
    assert_eq!(
        turn.invalid.unwrap().1,
        "turn: Red moved twice in a row (ply 3)"
    );
    let after_win = verdict_of("12121213");
    assert_eq!(
        after_win.invalid.unwrap().1,
        "after-end: a move after the game was won at ply 7 (ply 8)"
    );
    let (mut moves, _) = find_game(|v| v.status == Status::Draw);
    moves.push(4);
    let text: String = moves.iter().map(usize::to_string).collect();
    let after_draw = verdict_of(&text);
    assert_eq!(after_draw.ply, 43);
    assert_eq!(
        after_draw.invalid.unwrap().1,
        "after-end: a move after the game was drawn at ply 42 (ply 43)"
    );
}

#[test]
fn short_games_cases_and_unreadable_lines() {
    let one = verdict_of("4");
    assert_eq!((one.status, one.ply), (Status::Unfinished, 1));
    let lower = verdict_of("d_yellow, c_RED, D_Yellow");
    assert_eq!(lower.status, Status::Unfinished);
    assert_eq!(
        GameLog::parse("", Notation::Auto).unwrap_err().to_string(),
        "the line has no moves"
    );
    assert_eq!(
        GameLog::parse("D_Yellow, X-Red", Notation::Auto)
            .unwrap_err()
            .to_string(),
        "token 2 (\"X-Red\") is not a move like F_Yellow: no underscore"
    );
    // Ignoring moves after the end: the first four decides.
    let log = GameLog::parse("121212133", Notation::Auto).unwrap();
    let ignored = replay::<u64>(&log, 7, 6, AfterEnd::Ignore);
    assert_eq!(
        (
            ignored.status,
            ignored.winner,
            ignored.ply,
            ignored.trailing
        ),
        (Status::Win, Some(1), 7, 2)
    );
}

#[test]
fn cli_csv_carries_columns_through_and_threads_do_not_change_results() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("games.csv");
    std::fs::write(
        &csv,
        "id,moves,event\ng1,4455667,final\ng2,1111111,\ng3,44x,semi\n",
    )
    .unwrap();
    let output = run(&[
        "connect4",
        "validate",
        csv.to_str().unwrap(),
        "--column",
        "moves",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let (header, rows) = parse_csv(&String::from_utf8(output.stdout).unwrap());
    assert_eq!(
        header,
        [
            "line",
            "status",
            "id",
            "event",
            "winner",
            "winner_name",
            "ply",
            "cells",
            "error",
            "micros"
        ]
    );
    assert_eq!(
        rows[0][..8],
        ["2", "win", "g1", "final", "1", "", "7", "D1 E1 F1 G1"]
    );
    assert_eq!(cell(&header, &rows[1], "status"), "invalid");
    assert_eq!(cell(&header, &rows[2], "status"), "error");
    assert_eq!(
        cell(&header, &rows[2], "error"),
        "column \"moves\": character 'x' at column 3 is not a column number"
    );
    assert_eq!(cell(&header, &rows[2], "id"), "g3");

    let games = dir.path().join("games.txt");
    let output = run(&[
        "connect4",
        "generate",
        "--count",
        "20000",
        "--seed",
        "5",
        "--faults",
        "0.2",
        "-o",
        games.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0));
    let validate = |threads: &str| {
        let out = dir.path().join(format!("out-{threads}.csv"));
        run(&[
            "connect4",
            "validate",
            games.to_str().unwrap(),
            "--threads",
            threads,
            "-o",
            out.to_str().unwrap(),
        ]);
        without_micros(&std::fs::read_to_string(out).unwrap())
    };
    let one = validate("1");
    assert_eq!(one.lines().count(), 20_001);
    assert_eq!(one, validate("2"));
}

#[test]
fn an_empty_moves_cell_is_named_by_its_column() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("games.csv");
    std::fs::write(&csv, "id,moves,extra\ng2,,b\n").unwrap();
    let output = run(&[
        "connect4",
        "validate",
        csv.to_str().unwrap(),
        "--column",
        "moves",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let (header, rows) = parse_csv(&String::from_utf8(output.stdout).unwrap());
    assert_eq!(
        cell(&header, &rows[0], "error"),
        "column \"moves\" holds no moves"
    );
}
