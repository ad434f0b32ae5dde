//! The `puzzlebench` command: parse the arguments, run the library, choose the exit code.

mod cli;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

/// Checks standard input, output and error before the Rust runtime starts: it opens
/// `/dev/null` on a closed one, so that `puzzlebench … <&-` would read an empty input and
/// exit 0, `>&-` would lose every row, and `2>&-` would lose the summary.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static CHECK_STDOUT_AT_START: extern "C" fn() = {
    extern "C" fn check() {
        // SAFETY: F_GETFD only reads the descriptor's flags.
        if unsafe { libc::fcntl(libc::STDIN_FILENO, libc::F_GETFD) } == -1 {
            puzzlebench::batch::stdin_was_closed();
        }
        // SAFETY: as above.
        if unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_GETFD) } == -1 {
            puzzlebench::report::stdout_was_closed();
        }
        // SAFETY: as above.
        if unsafe { libc::fcntl(libc::STDERR_FILENO, libc::F_GETFD) } == -1 {
            puzzlebench::report::stderr_was_closed();
        }
    }
    check
};

fn main() -> ExitCode {
    match cli::Cli::parse().run() {
        Ok(code) => code,
        Err(error) => {
            if is_broken_pipe(&error) {
                // The reader of our output went away (`| head`): nothing left to say.
                return ExitCode::SUCCESS;
            }
            // Best effort: with standard error full or closed, the exit code still says it.
            let _ = writeln!(std::io::stderr().lock(), "puzzlebench: {}", message(&error));
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
