//! `fairyzero train`: the main job (see docs/training.md).

use std::path::PathBuf;

use anyhow::Context;
use fairyzero_trainer::{config::RunConfig, run::TrainOptions};

#[derive(Debug, clap::Args)]
pub struct TrainArgs {
    /// Run configuration (TOML), e.g. configs/runs/default.toml; every key is documented there
    #[arg(long)]
    pub config: PathBuf,

    /// Override a configuration key, e.g. `-o train.lr=0.001 -o budget.minutes=5`
    /// (dotted key, TOML value; repeatable)
    #[arg(short = 'o', long = "set", value_name = "KEY=VALUE")]
    pub overrides: Vec<String>,

    /// Rebuild the run's SQLite index from its store before starting
    #[arg(long)]
    pub rebuild_index: bool,

    /// Warm-start a new run from this checkpoint directory: of any variant, board size or net
    /// size (variables are matched by name and shape, piece embeddings by piece identity). Only
    /// into a run directory without checkpoints
    #[arg(long, value_name = "CHECKPOINT")]
    pub transfer: Option<PathBuf>,

    /// Print the resolved configuration and exit
    #[arg(long)]
    pub print_config: bool,
}

pub fn run(args: TrainArgs) -> anyhow::Result<()> {
    let config = RunConfig::load(&args.config, &args.overrides)?;
    if args.print_config {
        print!("{}", config.to_toml());
        return Ok(());
    }
    let summary = fairyzero_trainer::train(
        config,
        &TrainOptions {
            rebuild_index: args.rebuild_index,
            stop: Some(crate::interrupt::stop_flag()),
            transfer: args.transfer,
        },
    )
    .context("training")?;
    print!("{}", summary.to_markdown());
    println!("\nrun directory: {} (metrics.jsonl, tensorboard/, ranking.md, summary.md)", summary.run_dir);
    Ok(())
}
