//! Criterion benchmark of the Battleship decision itself (no I/O): random valid and invalid
//! 10×10 fields with the classic fleet, under both rule sets.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use puzzlebench::battleship::generate::{flip_random_cell, random_fleet};
use puzzlebench::battleship::{validate, Field, Fleet, Rules};
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

criterion_group!(benches, battleship);
criterion_main!(benches);
