//! Criterion benchmark of the Connect Four bitboard itself (no I/O): replaying and checking
//! random complete 7×6 games.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use puzzlebench::connect4::generate::random_game;
use puzzlebench::connect4::{replay, AfterEnd, GameLog};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn connect4(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let games: Vec<GameLog> = (0..10_000)
        .map(|_| GameLog {
            columns: random_game(7, 6, &mut rng),
            colors: None,
            color_names: Vec::new(),
        })
        .collect();
    let mut group = c.benchmark_group("connect4/replay-7x6");
    group.throughput(Throughput::Elements(games.len() as u64));
    group.bench_function("u64", |b| {
        b.iter(|| {
            games
                .iter()
                .map(|game| replay::<u64>(game, 7, 6, AfterEnd::Error).ply)
                .sum::<usize>()
        })
    });
    group.bench_function("u128", |b| {
        b.iter(|| {
            games
                .iter()
                .map(|game| replay::<u128>(game, 7, 6, AfterEnd::Error).ply)
                .sum::<usize>()
        })
    });
    group.finish();
}

criterion_group!(benches, connect4);
criterion_main!(benches);
