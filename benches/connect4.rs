//! Criterion benchmark of the Connect Four bitboard itself (no I/O): replaying and checking
//! random complete 7×6 games; and `connect4/stages`, each stage of `connect4 validate` on
//! its own, one thread, over the repository's `games-1k.txt` and `colors-500.txt`: parsing
//! the logs, replaying them, formatting the rows, and the whole batch run (writing to
//! nowhere), so that a regression in any stage shows.

#[path = "common/batch_stage.rs"]
mod batch_stage;

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use puzzlebench::batch::{Cell, InputSpec, RowFormatter};
use puzzlebench::connect4::generate::random_game;
use puzzlebench::connect4::{replay, AfterEnd, GameLog, Notation, ValidatePuzzle};
use puzzlebench::puzzle::Puzzle;
use puzzlebench::report::CsvFormat;
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

/// The stages of `connect4 validate` on one thread, for each notation.
fn stages(c: &mut Criterion) {
    for (name, file) in [("digits", "games-1k.txt"), ("colors", "colors-500.txt")] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("datasets/connect4")
            .join(file);
        let text = std::fs::read_to_string(&path).expect("the repository's datasets");
        let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        let logs: Vec<GameLog> = (lines.iter())
            .filter_map(|l| GameLog::parse(l, Notation::Auto).ok())
            .collect();
        let mut group = c.benchmark_group(format!("connect4/stages-{name}"));
        group.throughput(Throughput::Elements(lines.len() as u64));
        let mut log = GameLog::default();
        group.bench_function("parse", |b| {
            b.iter(|| {
                (lines.iter())
                    .filter(|line| log.parse_into(line, Notation::Auto).is_ok())
                    .count()
            })
        });
        group.bench_function("replay", |b| {
            b.iter(|| {
                (logs.iter())
                    .map(|log| replay::<u64>(log, 7, 6, AfterEnd::Error).ply)
                    .sum::<usize>()
            })
        });
        let mut out = Vec::with_capacity(1 << 20);
        group.bench_function("format", |b| {
            b.iter(|| {
                out.clear();
                for i in 0..lines.len() as u64 {
                    let row = [
                        Cell::Int(i + 1),
                        Cell::Text("win"),
                        Cell::Int(1 + i % 2),
                        Cell::Text(""),
                        Cell::Int(20 + i % 20),
                        Cell::Text("D1 E1 F1 G1"),
                        Cell::Text(""),
                        Cell::Micros(345 + i),
                    ];
                    CsvFormat.format_row(&row, &mut out);
                }
                out.len()
            })
        });
        let input = InputSpec::new(&path, None);
        let job = ValidatePuzzle::job(
            &Default::default(),
            "bitboard",
            std::slice::from_ref(&input),
        )
        .expect("a job");
        batch_stage::bench_batch(&mut group, &job, &input);
        group.finish();
    }
}

criterion_group!(benches, connect4, stages);
criterion_main!(benches);
