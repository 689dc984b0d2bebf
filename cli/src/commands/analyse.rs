//! `fairyzero analyse`: search one position and print the principal variation, win/draw/loss
//! and the top moves with visits and priors.

use std::{
    path::{Path, PathBuf},
    sync::{atomic::AtomicBool, Arc},
    time::Duration,
};

use anyhow::{Context, Result};
use fairyzero_selfplay::{
    analyse::{Analyzer, Limits},
    config::{RunSelfPlay, SearchKind},
    SearchParams,
};

use super::{rules::PositionArgs, selfplay::evaluator_for};
use crate::{
    limits,
    network::{BackendOptions, NetRuntime},
};
use fairyzero_model::{service::ServiceConfig, PrecisionSetting};

#[derive(Debug, clap::Args)]
pub struct AnalyseArgs {
    #[command(flatten)]
    pub position: PositionArgs,

    /// Network: a checkpoint directory or `random:SIZE`; default: the uniform mock
    #[arg(long)]
    pub net: Option<String>,

    /// Simulations to run (at most 10,000,000)
    #[arg(long, value_parser = limits::count::<u32>(1, limits::MAX_SIMULATIONS))]
    pub nodes: u32,

    /// Stop after this many seconds even if --nodes is not reached (more than 0, at most
    /// 1,000,000)
    #[arg(long, value_name = "SECONDS", value_parser = limits::seconds)]
    pub time: Option<f64>,

    /// Search: puct or gumbel (default: the run configuration's, else puct)
    #[arg(long, value_parser = ["puct", "gumbel"])]
    pub search: Option<String>,

    /// Run configuration whose [selfplay] section gives the search parameters (default: an
    /// exported --net's own config.toml, see export-model; else PUCT defaults)
    #[arg(long)]
    pub config: Option<PathBuf>,

    /// Leaves evaluated per batch (virtual loss; at most 16,384)
    #[arg(long, default_value_t = 8, value_parser = limits::count::<u32>(1, limits::MAX_BATCH))]
    pub batch: u32,

    /// How many root moves to list (at most 10,000)
    #[arg(long, default_value_t = 10, value_parser = limits::count::<usize>(0, limits::MAX_ROWS))]
    pub top: usize,

    /// Forward precision of --net: auto (bf16 on CUDA, fp32 on the CPU), fp32 or bf16
    #[arg(long, default_value = "auto", requires = "net")]
    pub precision: PrecisionSetting,

    /// libtorch intra-op threads of the network (at most 1,024). 1, as for `selfplay`: on a few
    /// cores libtorch's default (one per core) makes OpenMP spin against the search thread
    #[arg(long, default_value_t = 1, value_parser = limits::count::<usize>(1, limits::MAX_THREADS))]
    pub torch_threads: usize,
}

pub fn run(args: AnalyseArgs, runtime: &dyn NetRuntime) -> Result<()> {
    let pos = args.position.position()?;
    let variant = Arc::clone(pos.variant());
    // An exported net carries the config of the run that trained it (see `match --config`).
    let carried = match (&args.config, &args.net) {
        (None, Some(net)) => super::matches::carried_config(Path::new(net)),
        _ => None,
    };
    let mut params = match args.config.as_deref().or(carried.as_deref()) {
        Some(path) => SearchParams::from_config(&RunSelfPlay::load(path)?.selfplay),
        None => SearchParams::puct(),
    };
    match args.search.as_deref() {
        Some("gumbel") => params.kind = SearchKind::Gumbel,
        Some("puct") => params.kind = SearchKind::Puct,
        _ => {}
    }
    params.leaves_per_round = args.batch;
    // A fixed initialisation seed: analysing with `random:SIZE` twice gives the same net.
    // One search: its batch is one forward, launched as soon as it is submitted.
    let service = ServiceConfig {
        max_batch: (params.leaves_per_round as usize).max(1),
        max_wait: Duration::ZERO,
        ..ServiceConfig::default()
    };
    let options = BackendOptions {
        service,
        threads: Some(args.torch_threads),
        precision: args.precision,
        ..BackendOptions::default()
    };
    let (evaluator, _) =
        evaluator_for(args.net.as_deref(), &variant, &options, runtime).context("setting up the network")?;
    let mut analyzer = Analyzer::new(pos, params, evaluator.as_ref());
    let limits = Limits { nodes: args.nodes, time: args.time.map(Duration::from_secs_f64) };
    let analysis = analyzer.go(&limits, &AtomicBool::new(false));
    print!("{}", analysis.to_text(args.top));
    Ok(())
}
