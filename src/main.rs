//! The `chiffon` command line: demo, info, simulate, conform, bench, study.

use std::process::ExitCode;

use clap::Parser;

use chiffon::tools::cli::{Cli, run, usage_error};

fn main() -> ExitCode {
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
