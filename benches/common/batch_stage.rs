//! The "batch" stage shared by the per-puzzle benches: the whole runner (read, cut, parse,
//! solve, format, write to a sink) over one input file on one thread.

use criterion::measurement::WallTime;
use criterion::BenchmarkGroup;
use puzzlebench::batch::{run, InputSpec, Job, NoProgress, RunOptions};
use puzzlebench::report::{row_writer, OutputFormat};

/// Benchmarks `job` over `input` as a "batch" function of `group`.
pub fn bench_batch<J: Job>(group: &mut BenchmarkGroup<'_, WallTime>, job: &J, input: &InputSpec) {
    let inputs = std::slice::from_ref(input);
    let options = RunOptions {
        threads: 1,
        ..RunOptions::default()
    };
    group.bench_function("batch", |b| {
        b.iter(|| {
            let mut sink = row_writer(OutputFormat::Csv, Box::new(std::io::sink()));
            run(job, inputs, &mut *sink, &NoProgress, &options)
                .unwrap()
                .records
        })
    });
}
