//! The `chiffon` command line: demo, info, simulate, conform, bench, study.

use std::process::ExitCode;

use clap::Parser;

use chiffon::tools::cli::{Cli, run, usage_error};

fn main() -> ExitCode {
    // `chiffon ... | head` closes the pipe early: end quietly, as Unix tools do, rather than
    // panic in println! (Rust ignores SIGPIPE, so every write after would fail).
    #[cfg(unix)]
    // SAFETY: restoring a signal's default disposition at startup, before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let args = match Cli::try_parse() {
        Ok(args) => args,
        Err(e) => return usage_error(e),
    };
    match run(args) {
        Ok(code) => code,
        Err(e) => {
            // One line naming the problem, with its causes.
            eprintln!("chiffon: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
