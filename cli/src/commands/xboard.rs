//! `fairyzero xboard`: fairyzero as an XBoard (CECP v2) engine on stdin/stdout
//! (docs/engines.md). The player options are those of `fairyzero uci`.

use std::{io, sync::Arc};

use anyhow::Result;

use crate::{
    engine::{self, Engine, EngineOptions},
    network::NetRuntime,
};

#[derive(Debug, clap::Args)]
pub struct XboardArgs {
    #[command(flatten)]
    pub engine: super::uci::EngineArgs,
}

pub fn run(args: XboardArgs, runtime: &dyn NetRuntime) -> Result<()> {
    let (setup, who) = args.engine.setup()?;
    let mut engine = Engine::new(runtime, setup, &args.engine.variant, EngineOptions::default())?;
    let name = format!("fairyzero {} {who}", env!("CARGO_PKG_VERSION"));
    let out = Arc::new(engine::uci::Output::new(io::stdout()));
    engine::xboard::run(&mut engine, &name, io::BufReader::new(io::stdin()), out);
    Ok(())
}
