//! `fairyzero uci`: fairyzero as a UCI engine on stdin/stdout (docs/engines.md).

use std::{io, sync::Arc};

use anyhow::{Context, Result};
use fairyzero_evaluator::PlayerSpec;
use fairyzero_model::PrecisionSetting;

use crate::{
    engine::{self, Engine, EngineOptions, PlayerSetup},
    limits,
    network::NetRuntime,
};

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("behind").required(true).args(["net", "player"])))]
pub struct UciArgs {
    /// Network behind the engine: `DIR[@SIMS]` (a checkpoint or exported net folder) or
    /// `random:SIZE[@SIMS]`; SIMS (default 100) are the simulations of a `go` without limits
    #[arg(long, value_name = "NET[@SIMS]")]
    pub net: Option<String>,

    /// Alpha-beta player behind the engine instead of a net: `alphabeta:DEPTH[:nodes=N][:ms=N][:values=SOURCE]`
    /// (as in `match`); its limits are those of a `go` without limits
    #[arg(long, value_name = "alphabeta:...", conflicts_with = "net")]
    pub player: Option<String>,

    /// Variant at start-up (a built-in name or a TOML file); `setoption name UCI_Variant` changes it
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

/// `DIR@SIMS` split into the net and its simulations (default [`fairyzero_evaluator::player::DEFAULT_SIMULATIONS`]).
fn split_simulations(text: &str) -> Result<(String, u32)> {
    match text.rsplit_once('@') {
        Some((net, sims)) if !sims.is_empty() && sims.bytes().all(|b| b.is_ascii_digit()) => {
            let n: u64 = sims.parse().with_context(|| format!("--net {text}: bad simulation count"))?;
            anyhow::ensure!(
                (1..=limits::MAX_SIMULATIONS).contains(&n),
                "--net {text}: simulations must be from 1 to {}",
                limits::MAX_SIMULATIONS
            );
            Ok((net.to_string(), n as u32))
        }
        _ => Ok((text.to_string(), fairyzero_evaluator::player::DEFAULT_SIMULATIONS)),
    }
}

pub fn run(args: UciArgs, runtime: &dyn NetRuntime) -> Result<()> {
    let setup = match (&args.net, &args.player) {
        (Some(net), _) => {
            let (net, simulations) = split_simulations(net)?;
            // The search an exported net carries (its config.toml), as `match` plays it.
            let spec = if net.starts_with("random:") {
                PlayerSpec::Random
            } else {
                PlayerSpec::Checkpoint { path: net.clone().into(), simulations }
            };
            let mut search = super::matches::player_search(&spec, args.config.as_deref(), args.search.as_deref())?;
            search.params.leaves_per_round = args.batch;
            PlayerSetup::Net { net, simulations, params: search.params, precision: args.precision }
        }
        (None, Some(player)) => PlayerSetup::alpha_beta(player)?,
        (None, None) => anyhow::bail!("give --net NET[@SIMS] or --player alphabeta:..."),
    };
    let mut engine = Engine::new(runtime, setup, &args.variant, EngineOptions::default())?;
    let out = Arc::new(engine::uci::Output::new(io::stdout()));
    engine::uci::run(&mut engine, io::BufReader::new(io::stdin()), out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simulations_follow_the_last_at_sign() {
        assert_eq!(split_simulations("models/a@b@400").unwrap(), ("models/a@b".into(), 400));
        assert_eq!(split_simulations("random:tiny").unwrap(), ("random:tiny".into(), 100));
        assert_eq!(split_simulations("dir@").unwrap(), ("dir@".into(), 100));
        assert!(split_simulations("dir@0").is_err());
        assert!(split_simulations("dir@99999999999").is_err());
    }
}
