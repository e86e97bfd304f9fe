//! The `chiffon` command line: demo, info, simulate, conform, bench, study.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = chiffon::tools::cli::Cli::parse();
    match chiffon::tools::cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            // One line naming the problem, with its causes.
            eprintln!("chiffon: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
