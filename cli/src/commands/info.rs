//! `fairyzero info`: what the program runs on.

use clap::Args;

use crate::network::NetRuntime;

// The subcommand's help text is the doc comment of `Command::Info`.
#[derive(Debug, Args)]
pub struct InfoArgs {}

pub fn run(_args: InfoArgs, net: &dyn NetRuntime) -> anyhow::Result<()> {
    println!("fairyzero:         {}", env!("CARGO_PKG_VERSION"));
    println!("{}", net.info());
    Ok(())
}
