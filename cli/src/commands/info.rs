//! `fairyzero info`: what the program runs on.

use clap::Args;

// The subcommand's help text is the doc comment of `Command::Info`.
#[derive(Debug, Args)]
pub struct InfoArgs {}

pub fn run(_args: InfoArgs) -> anyhow::Result<()> {
    let info = fairyzero_torch::runtime_info();
    tracing::debug!(?info, "queried libtorch");
    println!("fairyzero:         {}", env!("CARGO_PKG_VERSION"));
    println!("{info}");
    Ok(())
}
