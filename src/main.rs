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
            eprintln!("puzzlebench: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
