//! Playing Connect Four: a scripted game through the command line, and the computer
//! players against each other.

mod common;

use std::io;
use std::sync::Arc;

use rayon::prelude::*;

use common::{cell, corpora, parse_csv, run};
use puzzlebench::connect4::ai::Level;
use puzzlebench::connect4::play::{play_game, GameEnd, GameOptions, PlayerKind};
use puzzlebench::connect4::solve::Book;

#[test]
fn a_scripted_game_ends_with_the_winner_and_a_log_that_validates() {
    use std::io::Write;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("games.txt");
    // Bad inputs (a line that is not UTF-8 among them) and a full column are asked again;
    // `u` takes back Red's 5; Red then wins on the bottom row (the last line of the
    // script is never read).
    let script = b"4\n4\n9\nx\n\xff\n5\nu\n5\n5\n6\n6\n4\n4\n4\n4\n4\n3\n7\n";
    let mut child = common::puzzlebench()
        .args(["connect4", "play", "--red", "human", "--yellow", "human"])
        .args(["--log", log.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(script).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("\"9\" is not a column: type a number from 1 to 7."));
    assert!(text.contains("\"x\" is not a column"));
    assert!(text.contains("\"\u{fffd}\" is not a column"), "{text}");
    assert!(text.contains("Undone: back to move 3."));
    assert!(text.contains("Column 4 is full; pick another."));
    // Plain characters when standard output is not a terminal; the line in brackets.
    assert!(!text.contains('\x1b'));
    assert!(text.contains("| .  . [X][X][X][X] . |"), "{text}");
    assert!(
        text.trim_end()
            .ends_with("Red wins with move 11 (C1 D1 E1 F1)!"),
        "{text}"
    );
    let logged = std::fs::read_to_string(&log).unwrap();
    assert_eq!(logged, "44556644443\n");
    let output = run(&["connect4", "validate", log.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0));
    let (header, rows) = parse_csv(&String::from_utf8(output.stdout).unwrap());
    assert_eq!(
        (
            cell(&header, &rows[0], "status"),
            cell(&header, &rows[0], "winner"),
            cell(&header, &rows[0], "cells")
        ),
        ("win", "1", "C1 D1 E1 F1")
    );
}

/// An answer is read to a bounded length: a long wrong answer is quoted cut short, and
/// input without line ends (`< /dev/zero`) ends the game instead of filling the memory.
#[test]
fn long_answers_are_cut_short_and_endless_input_ends_the_game() {
    use std::io::Write;
    use std::process::Stdio;
    let play = |input: &[u8]| {
        let mut child = common::puzzlebench()
            .args(["connect4", "play", "--red", "human", "--yellow", "human"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // The game may end before reading it all: a broken pipe here is no failure.
        let _ = stdin.write_all(input);
        drop(stdin);
        let output = child.wait_with_output().unwrap();
        (
            output.status.code(),
            String::from_utf8(output.stdout).unwrap(),
        )
    };
    let mut long = vec![b'x'; 1000];
    long.extend_from_slice(b"\n4\n");
    let (code, text) = play(&long);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("… (1000 bytes) is not a column"), "{text}");
    assert!(
        text.len() < 2000,
        "the answer is not quoted whole: {} bytes",
        text.len()
    );
    assert!(
        text.trim_end().ends_with("game abandoned after 1 move."),
        "{text}"
    );
    let (code, text) = play(&vec![0; 1 << 20]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("An answer of over 1024 bytes without a line end is no move"),
        "{text}"
    );
    assert!(
        text.trim_end().ends_with("game abandoned after 0 moves."),
        "{text}"
    );
}

#[test]
fn input_ending_mid_game_bad_logs_and_table_sizes_are_reported() {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = common::puzzlebench()
        .args(["connect4", "play", "--red", "human", "--yellow", "human"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"4\n").unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.trim_end()
            .ends_with("The input ended: game abandoned after 1 move."),
        "{text}"
    );
    // A log that cannot be written stops the command before the first move.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("no-such-folder").join("games.txt");
    let output = run(&[
        "connect4",
        "play",
        "--red",
        "random",
        "--yellow",
        "random",
        "--log",
        log.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let message = String::from_utf8(output.stderr).unwrap();
    assert!(message.contains("cannot open the log"), "{message}");
    for command in [&["play"][..], &["book", "--depth", "2", "-o", "x.book"]] {
        for size in ["0", "100000000"] {
            let mut args = vec!["connect4"];
            args.extend(command);
            args.extend(["--table-mb", size]);
            let output = run(&args);
            assert_eq!(output.status.code(), Some(2), "{args:?}");
            let message = String::from_utf8(output.stderr).unwrap();
            assert!(message.contains("from 1 to 65536"), "{message}");
        }
    }
}

#[test]
fn perfect_players_with_a_weak_book_play_5x4_games_to_their_values() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("5x4-weak.book");
    let log = dir.path().join("games.txt");
    let size = ["--width", "5", "--height", "4"];
    let mut args = vec!["connect4", "book", "--weak", "--depth", "6"];
    args.extend(size);
    args.extend(["-o", book.to_str().unwrap()]);
    assert_eq!(run(&args).status.code(), Some(0));
    // The empty 5×4 board is a draw: perfect players reach it whatever they choose among
    // equal moves, with the book's signs for the opening and exact search beyond.
    for seed in ["1", "2", "3"] {
        let mut args = vec![
            "connect4", "play", "--red", "perfect", "--yellow", "perfect",
        ];
        args.extend(size);
        args.extend(["--seed", seed, "--book", book.to_str().unwrap()]);
        args.extend(["--log", log.to_str().unwrap()]);
        let output = run(&args);
        assert_eq!(output.status.code(), Some(0));
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(
            text.trim_end().ends_with("Draw: the board is full."),
            "{text}"
        );
    }
    let mut args = vec!["connect4", "validate", log.to_str().unwrap()];
    args.extend(size);
    let output = run(&args);
    assert_eq!(output.status.code(), Some(0));
    let (header, rows) = parse_csv(&String::from_utf8(output.stdout).unwrap());
    assert_eq!(rows.len(), 3);
    assert!(rows
        .iter()
        .all(|row| cell(&header, row, "status") == "draw"));
    // After 1 2, Red (to move) loses: inside the book Red can only resist, Yellow wins.
    let mut args = vec![
        "connect4", "play", "--red", "perfect", "--yellow", "perfect",
    ];
    args.extend(size);
    args.extend(["--start", "12", "--book", book.to_str().unwrap()]);
    let output = run(&args);
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("Yellow wins with move"), "{text}");
}

/// Plays a game between two computer players; returns the winner (0 or 1) or `None`.
fn computer_game(
    players: [Level; 2],
    seed: u64,
    opening: Vec<usize>,
    book: Option<Arc<Book<u64>>>,
) -> Option<usize> {
    let options = GameOptions {
        width: 7,
        height: 6,
        players: players.map(PlayerKind::Computer),
        seed,
        colour: false,
        announce_thinking: false,
        table_mb: 16,
        opening,
        moves_so_far: None,
    };
    let record =
        play_game::<u64>(&options, book, &mut io::empty(), &mut io::sink()).expect("the game runs");
    match record.end {
        GameEnd::Win { player, .. } => Some(player),
        GameEnd::Draw => None,
        GameEnd::Quit | GameEnd::InputEnded => panic!("computer players never quit"),
    }
}

#[test]
fn heuristic_depth_4_beats_random_in_95_of_100_games() {
    let heuristic = Level::Heuristic { depth: 4 };
    // Half the games as the first player, half as the second.
    let wins = (0..100u64)
        .into_par_iter()
        .filter(|&seed| {
            let first = seed % 2 == 0;
            let players = if first {
                [heuristic, Level::Random]
            } else {
                [Level::Random, heuristic]
            };
            computer_game(players, seed, Vec::new(), None) == Some(if first { 0 } else { 1 })
        })
        .count();
    assert!(wins >= 95, "the heuristic player won only {wins} of 100");
}

#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn perfect_player_wins_every_won_position_against_the_heuristic() {
    let Some(corpora) = corpora("perfect_player_wins_every_won_position_against_the_heuristic")
    else {
        return;
    };
    // The first 20 Begin-Easy positions (at most 14 stones) that the side to move wins.
    let text = std::fs::read_to_string(corpora.join("connect4/pons/Test_L1_R1.txt")).unwrap();
    let openings: Vec<Vec<usize>> = text
        .lines()
        .filter_map(|line| {
            let (moves, score) = line.split_once(' ')?;
            (score.parse::<i32>().ok()? > 0)
                .then(|| moves.bytes().map(|b| usize::from(b - b'0')).collect())
        })
        .take(20)
        .collect();
    assert_eq!(openings.len(), 20);
    let heuristic = Level::Heuristic { depth: 4 };
    let lost: Vec<String> = openings
        .into_par_iter()
        .enumerate()
        .filter_map(|(seed, opening)| {
            let perfect = opening.len() % 2;
            let mut players = [heuristic; 2];
            players[perfect] = Level::Perfect;
            let winner = computer_game(players, seed as u64, opening.clone(), None);
            (winner != Some(perfect)).then(|| format!("{opening:?}: winner {winner:?}"))
        })
        .collect();
    assert!(lost.is_empty(), "{lost:?}");
}

/// The 7×6 book of every position with up to 8 stones, win/draw/loss only, made by
/// `connect4 book --depth 8 --weak` (see `datasets/README.md`).
const BOOK_7X6: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/datasets/connect4/7x6-depth8-weak.book"
);

#[test]
fn perfect_player_moving_first_wins_every_game_from_the_empty_board() {
    let file = std::fs::File::open(BOOK_7X6).expect("the repository's 7x6 book");
    let book = Arc::new(Book::<u64>::read(&mut io::BufReader::new(file), 7, 6).unwrap());
    let heuristic = Level::Heuristic { depth: 4 };
    let lost: Vec<String> = (0..20u64)
        .into_par_iter()
        .filter_map(|seed| {
            let players = [Level::Perfect, heuristic];
            let winner = computer_game(players, seed, Vec::new(), Some(Arc::clone(&book)));
            (winner != Some(0)).then(|| format!("seed {seed}: winner {winner:?}"))
        })
        .collect();
    assert!(lost.is_empty(), "the perfect player did not win: {lost:?}");
}

#[test]
fn an_empty_start_is_the_empty_board() {
    let output = common::run_with_stdin(
        &[
            "connect4", "play", "--red", "human", "--yellow", "human", "--start", "",
        ],
        b"4\nq\n",
    );
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("Red"), "{text}");
    assert!(
        !String::from_utf8_lossy(&output.stderr).contains("no moves"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Red's 4 was the first move: Yellow is to move next.
    assert!(text.contains("Yellow (O), your move"), "{text}");
}

/// A log whose last game has no line end gets the next game on a line of its own (the two
/// were read as one game); a named pipe is refused before the game (opening it waited for
/// a reader); a log that cannot be written says why and gives the moves.
#[test]
fn a_log_ending_inside_a_line_a_pipe_and_a_full_device() {
    let dir = tempfile::tempdir().unwrap();
    let play = |log: &std::path::Path| {
        common::run_with_stdin(
            &[
                "connect4",
                "play",
                "--red",
                "human",
                "--yellow",
                "human",
                "--log",
                log.to_str().unwrap(),
            ],
            b"4\n5\nq\n",
        )
    };
    let unended = dir.path().join("games.txt");
    std::fs::write(&unended, "4455").unwrap();
    assert_eq!(play(&unended).status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&unended).unwrap(), "4455\n45\n");
    let pipe = dir.path().join("pipe");
    common::make_fifo(&pipe);
    let refused = play(&pipe);
    assert_eq!(refused.status.code(), Some(2));
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(
        message.contains("it is a named pipe or a socket, not a file"),
        "{message}"
    );
    let full = play(std::path::Path::new("/dev/full"));
    assert_eq!(full.status.code(), Some(2));
    let message = String::from_utf8_lossy(&full.stderr);
    assert!(
        message.contains("No space left on device")
            && message.contains("the game's moves, to keep by hand: 45"),
        "{message}"
    );
}
