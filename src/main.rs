//! The `puzzlebench` command: parse the arguments, run the library, choose the exit code.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    match cli::Cli::parse().run() {
        Ok(code) => code,
        Err(error) => {
            if is_broken_pipe(&error) {
                // The reader of our output went away (`| head`): nothing left to say.
                return ExitCode::SUCCESS;
            }
            eprintln!("puzzlebench: {}", message(&error));
            ExitCode::from(2)
        }
    }
}

/// The error and its causes, joined by `: `, leaving out a cause whose text the message
/// already holds (a library error that quotes its source).
fn message(error: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in error.chain() {
        let part = cause.to_string();
        if !text.contains(&part) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&part);
        }
    }
    text
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
