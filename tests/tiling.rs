//! Tilings: known pentomino counts, and every checkerboard stones file's three counts
//! checked against a brute-force search written here without the engine.

mod common;

use std::collections::HashSet;

use common::{corpora, run};
use puzzlebench::tiling::{
    parse_pieces, pentominoes, Board, Color, Counts, Engine, Piece, Symmetry, Tiling,
};

fn counts(board: &Board, pieces: &[Piece]) -> Counts {
    Tiling::new(board, pieces).unwrap().count()
}

/// The three counts as `u64`s (all the counts here fit).
fn small(counts: &Counts) -> (u64, u64, u64) {
    (
        u64::try_from(&counts.labelled).unwrap(),
        u64::try_from(counts.tilings).unwrap(),
        u64::try_from(counts.up_to_symmetry).unwrap(),
    )
}

#[test]
fn pentomino_rectangles_and_the_holed_square() {
    let rectangle = |w, h| counts(&Board::rectangle(w, h, None).unwrap(), &pentominoes());
    let c = rectangle(10, 6);
    assert_eq!(small(&c), (9356, 9356, 2339));
    assert_eq!(rectangle(12, 5).up_to_symmetry, 1010);
    assert_eq!(rectangle(15, 4).up_to_symmetry, 368);
    assert_eq!(rectangle(20, 3).up_to_symmetry, 2);
    let holed = Board::parse(
        "########\n########\n########\n###..###\n###..###\n########\n########\n########\n",
    )
    .unwrap();
    assert_eq!(counts(&holed, &pentominoes()).up_to_symmetry, 65);
}

/// A cell of the brute-force search's board: hole, or a cell of a colour (or none).
type Cell = Option<Option<Color>>;
/// A piece's cells in one orientation.
type Shape = Vec<((i32, i32), Option<Color>)>;
/// A symmetry of a `height × width` board: (row, col, height, width) to (row, col).
type BoardMap = fn(i32, i32, i32, i32) -> (i32, i32);

/// Every orientation of a piece, made here by rotating and mirroring directly.
fn orientations(piece: &Piece) -> Vec<Shape> {
    let mut shapes = Vec::new();
    let mut shape = piece.cells.clone();
    for mirror in 0..2 {
        for _ in 0..4 {
            shape = shape.iter().map(|&((r, c), k)| ((c, -r), k)).collect();
            let top = shape.iter().map(|x| x.0 .0).min().unwrap();
            let left = shape.iter().map(|x| x.0 .1).min().unwrap();
            let mut normal: Vec<_> = shape
                .iter()
                .map(|&((r, c), k)| ((r - top, c - left), k))
                .collect();
            normal.sort();
            if !shapes.contains(&normal) {
                shapes.push(normal);
            }
        }
        if mirror == 0 {
            shape = shape.iter().map(|&((r, c), k)| ((r, -c), k)).collect();
        }
    }
    shapes
}

/// Brute force: fill the first empty cell in row-major order with each unused piece in each
/// orientation whose first cell lands there. Returns every solution as the grid of piece
/// indices.
fn brute_force(width: usize, height: usize, board: &[Cell], pieces: &[Piece]) -> Vec<Vec<usize>> {
    let shapes: Vec<_> = pieces.iter().map(orientations).collect();
    let mut grid = vec![usize::MAX; width * height];
    let mut used = vec![false; pieces.len()];
    let mut solutions = Vec::new();
    fn go(
        width: usize,
        height: usize,
        board: &[Cell],
        shapes: &[Vec<Shape>],
        grid: &mut Vec<usize>,
        used: &mut Vec<bool>,
        solutions: &mut Vec<Vec<usize>>,
    ) {
        let Some(first) =
            (0..width * height).find(|&i| board[i].is_some() && grid[i] == usize::MAX)
        else {
            solutions.push(grid.clone());
            return;
        };
        let (r0, c0) = ((first / width) as i32, (first % width) as i32);
        for piece in 0..shapes.len() {
            if used[piece] {
                continue;
            }
            for shape in &shapes[piece] {
                let ((ar, ac), _) = shape[0];
                let cells: Option<Vec<usize>> = shape
                    .iter()
                    .map(|&((r, c), color)| {
                        let (r, c) = (r0 + r - ar, c0 + c - ac);
                        if r < 0 || c < 0 || r as usize >= height || c as usize >= width {
                            return None;
                        }
                        let i = r as usize * width + c as usize;
                        match board[i] {
                            Some(cell)
                                if grid[i] == usize::MAX && (color.is_none() || cell == color) =>
                            {
                                Some(i)
                            }
                            _ => None,
                        }
                    })
                    .collect();
                if let Some(cells) = cells {
                    cells.iter().for_each(|&i| grid[i] = piece);
                    used[piece] = true;
                    go(width, height, board, shapes, grid, used, solutions);
                    used[piece] = false;
                    cells.iter().for_each(|&i| grid[i] = usize::MAX);
                }
            }
        }
    }
    go(
        width,
        height,
        board,
        &shapes,
        &mut grid,
        &mut used,
        &mut solutions,
    );
    solutions
}

/// The three counts from brute-force solutions: identical pieces (same canonical shape and
/// colours) are merged; symmetries are the square's eight that keep the board's cells.
fn three_counts(
    width: usize,
    height: usize,
    board: &[Cell],
    pieces: &[Piece],
    solutions: &[Vec<usize>],
) -> (u64, u64, u64) {
    let canonical: Vec<_> = pieces
        .iter()
        .map(|p| orientations(p).into_iter().min().unwrap())
        .collect();
    let class: Vec<usize> = (0..pieces.len())
        .map(|i| (0..=i).find(|&j| canonical[j] == canonical[i]).unwrap())
        .collect();
    let (w, h) = (width as i32, height as i32);
    let maps: [BoardMap; 8] = [
        |r, c, _, _| (r, c),
        |r, c, h, _| (h - 1 - r, c),
        |r, c, _, w| (r, w - 1 - c),
        |r, c, h, w| (h - 1 - r, w - 1 - c),
        |r, c, _, _| (c, r),
        |r, c, h, w| (w - 1 - c, h - 1 - r),
        |r, c, h, _| (c, h - 1 - r),
        |r, c, _, w| (w - 1 - c, r),
    ];
    let symmetries: Vec<Vec<usize>> = maps
        .iter()
        .filter_map(|map| {
            let mut perm = Vec::new();
            for r in 0..h {
                for c in 0..w {
                    let (tr, tc) = map(r, c, h, w);
                    if tr < 0 || tc < 0 || tr >= h || tc >= w {
                        return None;
                    }
                    let (i, j) = ((r * w + c) as usize, (tr * w + tc) as usize);
                    if board[i] != board[j] {
                        return None;
                    }
                    perm.push(j);
                }
            }
            Some(perm)
        })
        .collect();
    // A tiling as, per cell, (class of its piece, the piece's smallest cell).
    let signature = |grid: &[usize], perm: &[usize]| {
        let mut out = vec![(usize::MAX, usize::MAX); grid.len()];
        for (piece, &piece_class) in class.iter().enumerate() {
            let cells: Vec<usize> = (0..grid.len())
                .filter(|&i| grid[i] == piece)
                .map(|i| perm[i])
                .collect();
            let first = *cells.iter().min().unwrap();
            for cell in cells {
                out[cell] = (piece_class, first);
            }
        }
        out
    };
    let identity: Vec<usize> = (0..grid_len(width, height)).collect();
    let tilings: HashSet<_> = solutions.iter().map(|g| signature(g, &identity)).collect();
    let orbits: HashSet<_> = solutions
        .iter()
        .map(|g| symmetries.iter().map(|p| signature(g, p)).min().unwrap())
        .collect();
    (
        solutions.len() as u64,
        tilings.len() as u64,
        orbits.len() as u64,
    )
}

fn grid_len(width: usize, height: usize) -> usize {
    width * height
}

#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn checkerboard_counts_agree_with_brute_force_on_every_shared_file() {
    let Some(corpora) = corpora("checkerboard_counts_agree_with_brute_force_on_every_shared_file")
    else {
        return;
    };
    let dir = corpora.join("checkerboard");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 7);
    for path in files {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let pieces = parse_pieces(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let (w, h) = name.split('_').next().unwrap().split_once('x').unwrap();
        let (width, height) = (w.parse().unwrap(), h.parse().unwrap());
        let board = Board::rectangle(width, height, Some(Color::Black)).unwrap();
        let cells: Vec<Cell> = (0..height as i32)
            .flat_map(|r| (0..width as i32).map(move |c| (r, c)))
            .map(|(r, c)| board.cell(r, c))
            .collect();
        let solutions = brute_force(width, height, &cells, &pieces);
        let expected = three_counts(width, height, &cells, &pieces, &solutions);
        let ours = counts(&board, &pieces);
        assert_eq!(small(&ours), expected, "{name}");
        assert!(small(&ours).0 > 0, "{name}");
        // Both engines, with and without the symmetries and merged identical stones.
        for engine in [Engine::BitMasks, Engine::DancingLinks] {
            for symmetry in [Symmetry::Derived, Symmetry::Ignored] {
                let other = Tiling::configured(&board, &pieces, symmetry, engine)
                    .unwrap()
                    .count();
                assert_eq!(other, ours, "{name} {engine:?} {symmetry:?}");
            }
        }
    }
}

#[test]
fn identical_pieces_count_every_labelling_and_each_tiling_once() {
    // Two identical coloured L-trominoes, a domino, an I-tromino and a monomino on a 4×3
    // chessboard: the pair is searched once per tiling, every labelling still counted.
    let pieces = parse_pieces("B,W\nW,_\n===\nW,_\nB,W\n===\nB,W\n===\nB,W,B\n===\nB\n").unwrap();
    let board = Board::rectangle(4, 3, Some(Color::Black)).unwrap();
    let cells: Vec<Cell> = (0..3)
        .flat_map(|r| (0..4).map(move |c| (r, c)))
        .map(|(r, c)| board.cell(r, c))
        .collect();
    let solutions = brute_force(4, 3, &cells, &pieces);
    let (labelled, tilings, up_to_symmetry) = three_counts(4, 3, &cells, &pieces, &solutions);
    assert!(tilings > 1);
    assert_eq!(labelled, 2 * tilings);
    let ours = counts(&board, &pieces);
    assert_eq!(small(&ours), (labelled, tilings, up_to_symmetry));
    // solve hands out both labellings of every tiling: the brute force's solutions.
    let mut tiling = Tiling::new(&board, &pieces).unwrap();
    let placements = tiling.placements().to_vec();
    let mut grids = Vec::new();
    tiling.solve(|used| {
        let mut grid = vec![usize::MAX; 12];
        for placement in used.iter().map(|&p| &placements[p]) {
            placement
                .cells
                .iter()
                .for_each(|&c| grid[c] = placement.piece);
        }
        grids.push(grid);
        std::ops::ControlFlow::Continue(())
    });
    grids.sort();
    let mut expected = solutions;
    expected.sort();
    assert_eq!(grids, expected);
}

#[test]
fn cli_counts_and_clear_errors() {
    let output = run(&["tiling", "count", "--board", "20x3", "--json"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap().trim(),
        r#"{"labelled":8,"tilings":8,"up_to_symmetry":2}"#
    );
    // The plain exact cover on either engine counts the same.
    for engine in ["dlx", "bits"] {
        let output = run(&[
            "tiling",
            "count",
            "--board",
            "20x3",
            "--json",
            "--no-symmetry",
            "--engine",
            engine,
        ]);
        assert_eq!(output.status.code(), Some(0));
        assert_eq!(
            String::from_utf8(output.stdout).unwrap().trim(),
            r#"{"labelled":8,"tilings":8,"up_to_symmetry":2}"#
        );
    }
    // Pieces that cannot cover the board: 0 tilings is the answer (exit code 0), the
    // reason on standard error.
    let zero = "labelled: 0\ntilings: 0\nup_to_symmetry: 0\n";
    let output = run(&["tiling", "count", "--board", "10x5"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8(output.stdout).unwrap(), zero);
    assert_eq!(
        String::from_utf8(output.stderr).unwrap().trim(),
        "puzzlebench: no tiling: the pieces cover 60 cells, the board has 50"
    );
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("4x4_bad.txt");
    std::fs::write(&bad, "B,W\nB\n===\n").unwrap();
    let output = run(&["checkerboard", "count", bad.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8(output.stderr)
        .unwrap()
        .contains("stone 1, line 2: 1 cell, the stone's first row has 2"));
    // Two one-colour dominoes on a 2×2 chessboard: a B,B stone fits nowhere.
    let stones = dir.path().join("2x2_1.txt");
    std::fs::write(&stones, "B,B\n===\nW,W\n===\n").unwrap();
    let output = run(&["checkerboard", "count", stones.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8(output.stdout).unwrap(), zero);
    assert_eq!(
        String::from_utf8(output.stderr).unwrap().trim(),
        "puzzlebench: no tiling: piece 1 has no legal placement on this board"
    );
    // A size in the name too large for any board is said to be one.
    let huge = "99999999999999999999";
    let stones = dir.path().join(format!("{huge}x{huge}_1.txt"));
    std::fs::write(&stones, "B,W\n===\n").unwrap();
    for command in ["count", "solve"] {
        let output = run(&["checkerboard", command, stones.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(2));
        assert_eq!(
            String::from_utf8(output.stderr).unwrap().trim(),
            format!(
                "puzzlebench: the board size in the name {} is too large (a board has 1 to \
                 4,096 cells)",
                stones.display()
            )
        );
    }
    let output = run(&["tiling", "count", "--board", &format!("{huge}x2")]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8(output.stderr).unwrap().contains(&format!(
        "size \"{huge}x2\" is too large (a board has 1 to 4,096 cells)"
    )));
    // Colour counts that cannot match.
    let stones = dir.path().join("2x2_2.txt");
    std::fs::write(&stones, "B\n===\nB\n===\nB,W\n===\n").unwrap();
    let output = run(&["checkerboard", "count", stones.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8(output.stdout).unwrap(), zero);
    assert_eq!(
        String::from_utf8(output.stderr).unwrap().trim(),
        "puzzlebench: no tiling: the pieces have 3 black and 1 white cells, more of a colour \
         than the board's 2 and 2"
    );
    // `checkerboard solve` has no solution to print: exit code 1, with the reason.
    let output = run(&["checkerboard", "solve", stones.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(String::from_utf8(output.stdout).unwrap(), "");
    assert_eq!(
        String::from_utf8(output.stderr).unwrap().trim(),
        "puzzlebench: the pieces have 3 black and 1 white cells, more of a colour than the \
         board's 2 and 2"
    );
    // Stones of coloured and uncoloured cells together: the uncoloured cells take the
    // colours the coloured ones leave (this was refused as a colour mismatch, count 0).
    let mixed = dir.path().join("2x1_mixed.txt");
    std::fs::write(&mixed, "B\n=\n#\n").unwrap();
    let output = run(&["checkerboard", "count", mixed.to_str().unwrap(), "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
    let counts: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(counts["labelled"], 1, "{counts}");
    let output = run(&["checkerboard", "solve", mixed.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
}

#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn every_printed_solution_is_a_legal_cover() {
    let Some(corpora) = corpora("every_printed_solution_is_a_legal_cover") else {
        return;
    };
    for name in ["4x4_2.txt", "5x5_1.txt", "8x8_1.txt"] {
        let path = corpora.join("checkerboard").join(name);
        let pieces = parse_pieces(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let side: usize = name[..1].parse().unwrap();
        let board = Board::rectangle(side, side, Some(Color::Black)).unwrap();
        let output = run(&[
            "checkerboard",
            "solve",
            path.to_str().unwrap(),
            "--output-format",
            "jsonl",
        ]);
        assert_eq!(output.status.code(), Some(0));
        let text = String::from_utf8(output.stdout).unwrap();
        let solutions: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(
            solutions.len() as u64,
            small(&counts(&board, &pieces)).0,
            "{name}"
        );
        for solution in &solutions {
            let mut covered = vec![0; side * side];
            for placement in solution["placements"].as_array().unwrap() {
                let stone = placement["stone"].as_u64().unwrap() as usize - 1;
                let mut cells: Vec<(i32, i32)> = placement["cells"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| (c[0].as_i64().unwrap() as i32, c[1].as_i64().unwrap() as i32))
                    .collect();
                cells.sort();
                for &(r, c) in &cells {
                    covered[r as usize * side + c as usize] += 1;
                }
                // The cells, with the board's colours, are one orientation of the stone.
                let top = cells.iter().map(|x| x.0).min().unwrap();
                let left = cells.iter().map(|x| x.1).min().unwrap();
                let mut placed: Vec<((i32, i32), Option<Color>)> = cells
                    .iter()
                    .map(|&(r, c)| ((r - top, c - left), board.cell(r, c).unwrap()))
                    .collect();
                placed.sort();
                assert!(
                    orientations(&pieces[stone]).contains(&placed),
                    "{name}: stone {} misplaced",
                    stone + 1
                );
            }
            assert!(covered.iter().all(|&n| n == 1), "{name}: every cell once");
        }
    }
}

#[test]
fn thread_counts_do_not_change_the_counts() {
    let board = Board::rectangle(15, 4, None).unwrap();
    let tiling = Tiling::new(&board, &pentominoes()).unwrap();
    let single = tiling.count();
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let parts = std::sync::Mutex::new(Vec::new());
        let parallel = tiling.count_parallel(&pool, |done, total, _| {
            parts.lock().unwrap().push((done, total))
        });
        assert_eq!(parallel, single, "{threads} threads");
        let parts = parts.into_inner().unwrap();
        let total = parts[0].1;
        assert!(total > 1);
        assert_eq!(parts.iter().map(|p| p.0).max(), Some(total));
    }
}

#[test]
fn both_engines_count_the_same_with_and_without_symmetries() {
    let holed = Board::parse(
        "########\n########\n########\n###..###\n###..###\n########\n########\n########\n",
    )
    .unwrap();
    for board in [
        Board::rectangle(20, 3, None).unwrap(),
        Board::rectangle(4, 15, None).unwrap(),
        holed,
    ] {
        let expected = counts(&board, &pentominoes());
        let mut broken = Vec::new();
        for engine in [Engine::BitMasks, Engine::DancingLinks] {
            for symmetry in [Symmetry::Derived, Symmetry::Ignored] {
                let tiling = Tiling::configured(&board, &pentominoes(), symmetry, engine).unwrap();
                assert_eq!(tiling.count(), expected, "{engine:?} {symmetry:?}");
            }
            let tiling =
                Tiling::configured(&board, &pentominoes(), Symmetry::Broken, engine).unwrap();
            broken.push(tiling.count());
        }
        // Broken symmetry: the same solutions searched whichever the engine.
        assert_eq!(broken[0], broken[1]);
        assert_eq!(broken[0].up_to_symmetry, expected.up_to_symmetry);
    }
}

#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn breaking_symmetry_keeps_the_count_up_to_symmetry() {
    let holed = Board::parse(
        "########\n########\n########\n###..###\n###..###\n########\n########\n########\n",
    )
    .unwrap();
    for (board, expected) in [
        (Board::rectangle(20, 3, None).unwrap(), 2),
        (Board::rectangle(15, 4, None).unwrap(), 368),
        (holed, 65),
    ] {
        let broken = Tiling::with_symmetry_broken(&board, &pentominoes())
            .unwrap()
            .count();
        assert_eq!(broken.up_to_symmetry, expected);
        assert!(broken.labelled < counts(&board, &pentominoes()).labelled);
    }
    let Some(corpora) = corpora("breaking_symmetry_keeps_the_count_up_to_symmetry") else {
        return;
    };
    let path = corpora.join("checkerboard/8x8_1.txt");
    let pieces = parse_pieces(&std::fs::read_to_string(path).unwrap()).unwrap();
    let board = Board::rectangle(8, 8, Some(Color::Black)).unwrap();
    let broken = Tiling::with_symmetry_broken(&board, &pieces)
        .unwrap()
        .count();
    assert_eq!(broken.up_to_symmetry, 26);
}
