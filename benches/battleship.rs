//! Criterion benchmark of the Battleship decision itself (no I/O): random valid and invalid
//! 10×10 fields with the classic fleet, under both rule sets; and `battleship/stages`, each
//! stage of `battleship validate` on its own, one thread, over the repository's
//! `touching-1k.txt`: parsing the fields, validating them, formatting the rows, and the
//! whole batch run (writing to nowhere), so that a regression in any stage shows.

#[path = "common/batch_stage.rs"]
mod batch_stage;

use std::path::Path;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use puzzlebench::batch::{Cell, InputSpec, RowFormatter};
use puzzlebench::battleship::generate::{flip_random_cell, random_fleet};
use puzzlebench::battleship::{validate, Field, FieldFormat, Fleet, Rules, ValidatePuzzle};
use puzzlebench::puzzle::Puzzle;
use puzzlebench::report::CsvFormat;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// 10,000 fields: fleets placed with and without touching, a third of them with one cell
/// flipped.
fn fields(fleet: &Fleet) -> Vec<Field> {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    (0..10_000)
        .map(|i| {
            let rules = if i % 2 == 0 {
                Rules::Touching
            } else {
                Rules::Separated
            };
            let mut field = random_fleet(10, 10, fleet, rules, &mut rng).expect("fits");
            if rng.gen_bool(1.0 / 3.0) {
                flip_random_cell(&mut field, &mut rng);
            }
            field
        })
        .collect()
}

fn battleship(c: &mut Criterion) {
    let fleet = Fleet::classic();
    let fields = fields(&fleet);
    let mut group = c.benchmark_group("battleship/validate-10x10");
    group.throughput(Throughput::Elements(fields.len() as u64));
    for (name, rules) in [
        ("touching", Rules::Touching),
        ("separated", Rules::Separated),
    ] {
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                fields
                    .iter()
                    .filter(|field| validate(field, &fleet, rules, false).is_valid())
                    .count()
            })
        });
    }
    group.finish();
}

/// The stages of `battleship validate` on one thread.
fn stages(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/battleship/touching-1k.txt");
    let text = std::fs::read_to_string(&path).expect("the repository's datasets");
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    let fleet = Fleet::classic();
    let fields: Vec<Field> = (lines.iter())
        .filter_map(|l| Field::parse(l, FieldFormat::Auto, None).ok())
        .collect();
    let mut group = c.benchmark_group("battleship/stages");
    group.throughput(Throughput::Elements(lines.len() as u64));
    group.bench_function("parse", |b| {
        b.iter(|| {
            (lines.iter())
                .filter_map(|l| Field::parse(l, FieldFormat::Auto, None).ok())
                .map(|field| field.ship_cells())
                .sum::<usize>()
        })
    });
    group.bench_function("validate", |b| {
        b.iter(|| {
            (fields.iter())
                .filter(|field| validate(field, &fleet, Rules::Touching, false).is_valid())
                .count()
        })
    });
    let mut out = Vec::with_capacity(1 << 20);
    group.bench_function("format", |b| {
        b.iter(|| {
            out.clear();
            for i in 0..lines.len() as u64 {
                let row = [
                    Cell::Int(i + 1),
                    Cell::Text("valid"),
                    Cell::Text("10x10"),
                    Cell::Int(20),
                    Cell::Text(""),
                    Cell::Text(""),
                    Cell::Micros(678 + i),
                ];
                CsvFormat.format_row(&row, &mut out);
            }
            out.len()
        })
    });
    let input = InputSpec::new(&path, None);
    let job = ValidatePuzzle::job(&Default::default(), "bitmask", std::slice::from_ref(&input))
        .expect("a job");
    batch_stage::bench_batch(&mut group, &job, &input);
    group.finish();
}

criterion_group!(benches, battleship, stages);
criterion_main!(benches);
