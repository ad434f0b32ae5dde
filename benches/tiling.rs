//! Criterion benchmark of tiling counts: the 12 pentominoes on 6×10 (all 9,356 solutions,
//! counted with the symmetries and enumerated plainly) and the seed's checkerboard stones
//! (when the shared corpora are beside the repository), on each exact-cover engine, one
//! thread.

use std::path::Path;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use puzzlebench::tiling::{parse_pieces, pentominoes, Board, Color, Engine, Symmetry, Tiling};

fn tiling(c: &mut Criterion) {
    let mut group = c.benchmark_group("tiling/count");
    group.sample_size(10);
    let mut problems = vec![(
        "pentominoes-6x10",
        Board::rectangle(6, 10, None).expect("a valid board"),
        pentominoes(),
    )];
    let stones = Path::new("../shared/datasets/checkerboard/8x8_1.txt");
    if let Ok(text) = std::fs::read_to_string(stones) {
        let pieces = parse_pieces(&text).expect("the seed's stones parse");
        let board = Board::rectangle(8, 8, Some(Color::Black)).expect("a valid board");
        problems.push(("checkerboard-8x8_1", board, pieces));
    }
    for (name, board, pieces) in &problems {
        for (engine_name, engine) in [("bits", Engine::BitMasks), ("dlx", Engine::DancingLinks)] {
            for (symmetry_name, symmetry) in
                [("derived", Symmetry::Derived), ("plain", Symmetry::Ignored)]
            {
                let tiling = Tiling::configured(board, pieces, symmetry, engine)
                    .expect("the pieces fit the board");
                let id = format!("{name}/{engine_name}/{symmetry_name}");
                group.bench_function(BenchmarkId::from_parameter(id), |b| {
                    b.iter(|| tiling.count())
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, tiling);
criterion_main!(benches);
