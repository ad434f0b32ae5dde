//! `bench` suite files: arbitrary text parsed as a suite, with every puzzle kind. An answer,
//! never a panic; a refused suite says why, and a suite accepted has a name, thread counts
//! and at least one set.
#![no_main]

use libfuzzer_sys::fuzz_target;
use puzzlebench::bench::Suite;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let kinds = puzzlebench::kinds::all();
    match Suite::parse(text, "fuzzed.toml", &kinds) {
        Err(error) => assert!(!error.to_string().is_empty()),
        Ok(suite) => {
            assert!(!suite.threads.is_empty());
            assert!(!suite.sets.is_empty());
        }
    }
});
