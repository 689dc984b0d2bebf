//! `fairyzero analyse`: search one position and print the principal variation, win/draw/loss
//! and the top moves with visits and priors.

use std::{
    path::PathBuf,
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

#[derive(Debug, clap::Args)]
pub struct AnalyseArgs {
    #[command(flatten)]
    pub position: PositionArgs,

    /// Network: a checkpoint directory or `random:SIZE`; default: the uniform mock
    #[arg(long)]
    pub net: Option<String>,

    /// Simulations to run
    #[arg(long)]
    pub nodes: u32,

    /// Stop after this many seconds even if --nodes is not reached
    #[arg(long)]
    pub time: Option<f64>,

    /// Search: puct or gumbel (default: the run configuration's, else puct)
    #[arg(long, value_parser = ["puct", "gumbel"])]
    pub search: Option<String>,

    /// Run configuration whose [selfplay] section gives the search parameters
    #[arg(long)]
    pub config: Option<PathBuf>,

    /// Leaves evaluated per batch (virtual loss)
    #[arg(long, default_value_t = 8)]
    pub batch: u32,

    /// How many root moves to list
    #[arg(long, default_value_t = 10)]
    pub top: usize,
}

pub fn run(args: AnalyseArgs) -> Result<()> {
    let pos = args.position.position()?;
    let variant = Arc::clone(pos.variant());
    let mut params = match &args.config {
        Some(path) => SearchParams::from_config(&RunSelfPlay::load(path)?.selfplay),
        None => SearchParams::puct(),
    };
    match args.search.as_deref() {
        Some("gumbel") => params.kind = SearchKind::Gumbel,
        Some("puct") => params.kind = SearchKind::Puct,
        _ => {}
    }
    params.leaves_per_round = args.batch.max(1);
    let (evaluator, _) = evaluator_for(args.net.as_deref(), &variant, params.leaves_per_round as usize, None)
        .context("setting up the network")?;
    let mut analyzer = Analyzer::new(pos, params, evaluator.as_ref());
    let limits = Limits { nodes: args.nodes, time: args.time.map(Duration::from_secs_f64) };
    let analysis = analyzer.go(&limits, &AtomicBool::new(false));
    print!("{}", analysis.to_text(args.top));
    Ok(())
}
