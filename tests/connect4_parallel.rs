//! Searching one Connect Four position with helper threads (lazy SMP over a shared table,
//! children another thread is searching left for last, the first thread to finish a
//! window giving its value) gives exactly the serial answer: on whole small boards, exact
//! and weak, on Pascal Pons's Begin sets, and through the command line, where `-j2` on a
//! single position lends it the idle worker.

mod common;

use puzzlebench::budget::Meter;
use puzzlebench::connect4::solve::Solver;

use common::{corpora, parse_csv, run};

/// The score and best moves of `moves` (1-based columns) alone and with `helpers` helpers,
/// each on a fresh solver.
fn serial_and_helped(
    width: usize,
    height: usize,
    moves: &[usize],
    helpers: usize,
    weak: bool,
) -> [(i32, Vec<usize>); 2] {
    searched(width, height, moves, helpers, weak).map(|(answer, _)| answer)
}

/// The answers and node counts behind [`serial_and_helped`].
fn searched(
    width: usize,
    height: usize,
    moves: &[usize],
    helpers: usize,
    weak: bool,
) -> [((i32, Vec<usize>), u64); 2] {
    [0, helpers].map(|helpers| {
        let mut solver = Solver::<u64>::new(width, height, 64);
        let position = solver.position(moves).expect("a position to solve");
        let analysis =
            solver.search_within(&position, weak, &mut Meter::unlimited(), helpers, true);
        assert!(analysis.stopped.is_none());
        ((analysis.score, analysis.best_moves), analysis.nodes)
    })
}

#[test]
fn helpers_give_the_serial_answer_on_whole_boards() {
    for (width, height, helpers) in [(6, 5, 1), (5, 6, 1), (7, 4, 3), (4, 7, 2)] {
        for weak in [false, true] {
            let [serial, helped] = serial_and_helped(width, height, &[], helpers, weak);
            assert_eq!(
                serial, helped,
                "{width}×{height}, {helpers} helpers, weak {weak}"
            );
        }
    }
    // The known value (docs/connect4.md's table): 6×5 is a draw whatever the first move.
    // The helper really searched: the nodes (every thread's) are not the serial count, in
    // one of three tries at least (a helper the system never ran would leave them equal).
    let mut helper_searched = false;
    for _ in 0..3 {
        let [(_, serial_nodes), (helped, helped_nodes)] = searched(6, 5, &[], 1, false);
        assert_eq!(helped, (0, vec![0, 1, 2, 3, 4, 5]));
        helper_searched |= serial_nodes != helped_nodes;
    }
    assert!(helper_searched);
}

#[test]
fn one_position_with_two_threads_through_the_command_line() {
    let rows = [1, 2].map(|threads| {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("empty.txt");
        std::fs::write(&input, "-\n").unwrap();
        let threads = threads.to_string();
        let args = [
            "connect4", "solve", "--width", "6", "--height", "5", "-j", &threads,
        ];
        let output = run(&[&args[..], &[input.to_str().unwrap()]].concat());
        assert_eq!(output.status.code(), Some(0));
        let (header, rows) = parse_csv(&String::from_utf8(output.stdout).unwrap());
        assert_eq!(rows.len(), 1);
        // Nodes count every thread's and time varies: the rest must be equal.
        let keep: Vec<usize> = (0..header.len())
            .filter(|&i| header[i] != "nodes" && header[i] != "micros")
            .collect();
        keep.iter().map(|&i| rows[0][i].clone()).collect::<Vec<_>>()
    });
    assert_eq!(rows[0], rows[1]);
    assert_eq!(rows[0][..4], ["1", "ok", "draw", "0"]);
}

#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn helpers_give_the_serial_answers_on_pons_begin_sets() {
    let Some(corpora) = corpora("helpers_give_the_serial_answers_on_pons_begin_sets") else {
        return;
    };
    let pons = corpora.join("connect4/pons");
    for (set, count) in [("Test_L1_R1.txt", 40), ("Test_L1_R2.txt", 8)] {
        let text = std::fs::read_to_string(pons.join(set)).unwrap();
        for line in text.lines().take(count) {
            let (moves, expected) = line.split_once(' ').unwrap();
            let moves: Vec<usize> = moves.bytes().map(|b| usize::from(b - b'0')).collect();
            let [serial, helped] = serial_and_helped(7, 6, &moves, 1, false);
            assert_eq!(serial, helped, "{set}: {line}");
            assert_eq!(helped.0, expected.parse::<i32>().unwrap(), "{set}: {line}");
        }
    }
}
