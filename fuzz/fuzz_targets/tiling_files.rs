//! Tiling pieces (stones) files and board files: `<pieces file>\0<board file>`, parsed,
//! and when both parse and the problem is small, counted three ways. The derived counts
//! (identical pieces merged, the board's symmetries used) equal the plain exact cover's,
//! with either engine; breaking the symmetries keeps the count up to symmetry.
#![no_main]

use libfuzzer_sys::fuzz_target;
use puzzlebench::tiling::{parse_pieces, Board, Engine, Symmetry, Tiling};

fuzz_target!(|data: &[u8]| {
    let (pieces_bytes, board_bytes) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &b"###\n###\n"[..]),
    };
    let (Ok(pieces_text), Ok(board_text)) = (
        std::str::from_utf8(pieces_bytes),
        std::str::from_utf8(board_bytes),
    ) else {
        return;
    };
    let pieces = match parse_pieces(pieces_text) {
        Ok(pieces) => pieces,
        Err(error) => {
            assert!(!error.to_string().is_empty());
            return;
        }
    };
    assert!(!pieces.is_empty());
    for piece in &pieces {
        assert!(!piece.cells.is_empty(), "an empty piece");
        let orientations = piece.orientations();
        assert!((1..=8).contains(&orientations.len()));
        assert!(orientations.contains(&piece.canonical()));
    }
    let board = match Board::parse(board_text) {
        Ok(board) => board,
        Err(error) => {
            assert!(!error.to_string().is_empty());
            return;
        }
    };
    assert!(board.cell_count() >= 1 && board.cell_count() <= board.width() * board.height());
    // Small problems only: the plain exact cover enumerates every labelling.
    if board.cell_count() > 20 || pieces.len() > 6 {
        return;
    }
    let derived = match Tiling::new(&board, &pieces) {
        Ok(tiling) => tiling.count(),
        Err(error) => {
            assert!(!error.to_string().is_empty());
            return;
        }
    };
    assert!(derived.tilings >= derived.up_to_symmetry);
    assert!(derived.labelled >= derived.tilings.into());
    for engine in [Engine::DancingLinks, Engine::BitMasks] {
        let plain = Tiling::configured(&board, &pieces, Symmetry::Ignored, engine)
            .expect("the same problem")
            .count();
        assert_eq!(plain.labelled, derived.labelled, "{engine:?}: labelled");
        let broken = Tiling::configured(&board, &pieces, Symmetry::Broken, engine)
            .expect("the same problem")
            .count();
        assert_eq!(broken.up_to_symmetry, derived.up_to_symmetry, "{engine:?}");
    }
});
