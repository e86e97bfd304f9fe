//! `cargo bench` runs the same benchmark as `chiffon bench`; flags go after `--`
//! (e.g. `cargo bench -- --sizes 128,256 --json out.json`).

use clap::Parser;

#[derive(Parser)]
#[command(name = "bench", about = "chiffon's headless compute benchmark")]
struct Cli {
    #[command(flatten)]
    args: chiffon::tools::cli::BenchArgs,
}

fn main() -> anyhow::Result<()> {
    // cargo passes `--bench` to harness-less benches; it is not one of ours.
    let cli = Cli::parse_from(std::env::args().filter(|a| a != "--bench"));
    cli.args.run()?;
    Ok(())
}
