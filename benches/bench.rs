//! `cargo bench` runs the same benchmark as `chiffon bench`; flags go after `--`
//! (e.g. `cargo bench -- --quick`, CI's; `cargo bench -- --sizes 128,256 --json out.json`).
//! It is the only benchmark target (`bench = false` on the lib and the bin in Cargo.toml), so
//! the flags reach no libtest harness.

use clap::Parser;

#[derive(Parser)]
#[command(name = "bench", about = "chiffon's headless compute benchmark")]
struct Cli {
    #[command(flatten)]
    args: chiffon::tools::cli::BenchArgs,
}

fn main() -> std::process::ExitCode {
    // cargo passes `--bench` to harness-less benches; it is not one of ours.
    let cli = Cli::parse_from(std::env::args().filter(|a| a != "--bench"));
    match cli.args.run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            // One line naming the problem, as `chiffon bench` says it.
            eprintln!("bench: error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
