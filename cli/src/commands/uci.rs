//! `fairyzero uci`: fairyzero as a UCI engine on stdin/stdout (docs/engines.md).

use std::{io, sync::Arc};

use anyhow::Result;
use fairyzero_evaluator::PlayerSpec;
use fairyzero_model::PrecisionSetting;

use crate::{
    engine::{self, Engine, EngineOptions, PlayerSetup},
    limits,
    network::NetRuntime,
};

/// The player behind an engine front end (`uci`, `xboard`): a net or an alpha-beta player.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("behind").required(true).args(["net", "player"])))]
pub struct EngineArgs {
    /// Network behind the engine: `DIR[@SIMS]` (a checkpoint or exported net folder) or
    /// `random:SIZE[@SIMS]`; SIMS (default 100) are the simulations of a move searched without
    /// a node, time or depth limit
    #[arg(long, value_name = "NET[@SIMS]")]
    pub net: Option<String>,

    /// Alpha-beta player behind the engine instead of a net: `alphabeta:DEPTH[:nodes=N][:ms=N][:values=SOURCE]`
    /// (as in `match`); its limits are those of a move searched without limits
    #[arg(long, value_name = "alphabeta:...", conflicts_with = "net")]
    pub player: Option<String>,

    /// Variant at start-up (a built-in name or a TOML file); the protocol's variant command
    /// (UCI_Variant, XBoard's `variant`) changes it
    #[arg(long, default_value = "chess")]
    pub variant: String,

    /// Run configuration whose [selfplay] section gives the net's search (default: an exported
    /// net's own config.toml, else Gumbel defaults)
    #[arg(long, requires = "net")]
    pub config: Option<std::path::PathBuf>,

    /// Search of the net: puct or gumbel (default: the configuration's)
    #[arg(long, value_parser = ["puct", "gumbel"], requires = "net")]
    pub search: Option<String>,

    /// Leaves evaluated per network batch (virtual loss above 1; at most 16,384)
    #[arg(long, default_value_t = 8, value_parser = limits::count::<u32>(1, limits::MAX_BATCH), requires = "net")]
    pub batch: u32,

    /// Forward precision of the net: auto (bf16 on CUDA, fp32 on the CPU), fp32 or bf16
    #[arg(long, default_value = "auto", requires = "net")]
    pub precision: PrecisionSetting,
}

impl EngineArgs {
    /// The engine's player, and how to name it (`NET@SIMS` or the alpha-beta spec).
    pub fn setup(&self) -> Result<(PlayerSetup, String)> {
        match (&self.net, &self.player) {
            (Some(net), _) => {
                let (net, simulations) = engine::split_simulations(net)?;
                // The search an exported net carries (its config.toml), as `match` plays it.
                let spec = if net.starts_with("random:") {
                    PlayerSpec::Random
                } else {
                    PlayerSpec::Checkpoint { path: net.clone().into(), simulations }
                };
                let mut search = super::matches::player_search(&spec, self.config.as_deref(), self.search.as_deref())?;
                search.params.leaves_per_round = self.batch;
                let who = format!("{net}@{simulations}");
                Ok((PlayerSetup::Net { net, simulations, params: search.params, precision: self.precision }, who))
            }
            (None, Some(player)) => Ok((PlayerSetup::alpha_beta(player)?, player.clone())),
            (None, None) => anyhow::bail!("give --net NET[@SIMS] or --player alphabeta:..."),
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct UciArgs {
    #[command(flatten)]
    pub engine: EngineArgs,
}

pub fn run(args: UciArgs, runtime: &dyn NetRuntime) -> Result<()> {
    let (setup, _) = args.engine.setup()?;
    let mut engine = Engine::new(runtime, setup, &args.engine.variant, EngineOptions::default())?;
    let out = Arc::new(engine::uci::Output::new(io::stdout()));
    engine::uci::run(&mut engine, io::BufReader::new(io::stdin()), out);
    Ok(())
}
