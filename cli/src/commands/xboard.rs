//! `fairyzero xboard`: fairyzero as an XBoard (CECP v2) engine on stdin/stdout
//! (docs/engines.md). The player options are those of `fairyzero uci`.

use std::{io, sync::Arc};

use anyhow::Result;
use fairyzero_evaluator::PlayerSpec;
use fairyzero_model::PrecisionSetting;

use crate::{
    engine::{self, Engine, EngineOptions, PlayerSetup},
    limits,
    network::NetRuntime,
};

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("behind").required(true).args(["net", "player"])))]
pub struct XboardArgs {
    /// Network behind the engine: `DIR[@SIMS]` (a checkpoint or exported net folder) or
    /// `random:SIZE[@SIMS]`; SIMS (default 100) are the simulations of a move without `st`,
    /// `sd` or a clock
    #[arg(long, value_name = "NET[@SIMS]")]
    pub net: Option<String>,

    /// Alpha-beta player behind the engine instead of a net: `alphabeta:DEPTH[:nodes=N][:ms=N][:values=SOURCE]`
    /// (as in `match`); its limits are those of a move without `st`, `sd` or a clock
    #[arg(long, value_name = "alphabeta:...", conflicts_with = "net")]
    pub player: Option<String>,

    /// Variant at start-up and after `new` (a built-in name or a TOML file); XBoard's `variant`
    /// command changes it
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

pub fn run(args: XboardArgs, runtime: &dyn NetRuntime) -> Result<()> {
    let (setup, who) = match (&args.net, &args.player) {
        (Some(net), _) => {
            let (net, simulations) = engine::split_simulations(net)?;
            // The search an exported net carries (its config.toml), as `match` plays it.
            let spec = if net.starts_with("random:") {
                PlayerSpec::Random
            } else {
                PlayerSpec::Checkpoint { path: net.clone().into(), simulations }
            };
            let mut search = super::matches::player_search(&spec, args.config.as_deref(), args.search.as_deref())?;
            search.params.leaves_per_round = args.batch;
            let who = format!("{net}@{simulations}");
            (PlayerSetup::Net { net, simulations, params: search.params, precision: args.precision }, who)
        }
        (None, Some(player)) => (PlayerSetup::alpha_beta(player)?, player.clone()),
        (None, None) => anyhow::bail!("give --net NET[@SIMS] or --player alphabeta:..."),
    };
    let mut engine = Engine::new(runtime, setup, &args.variant, EngineOptions::default())?;
    let name = format!("fairyzero {} {who}", env!("CARGO_PKG_VERSION"));
    let out = Arc::new(engine::uci::Output::new(io::stdout()));
    engine::xboard::run(&mut engine, &name, io::BufReader::new(io::stdin()), out);
    Ok(())
}
