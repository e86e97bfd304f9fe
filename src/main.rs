//! The `chiffon` command line: info, simulate, conform.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            // One line naming the problem, with its causes.
            eprintln!("chiffon: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
