//! `fairyzero train`: the main job (see docs/training.md). Its arguments; the trainer links
//! libtorch, so the helper runs it (`NetRuntime::train`, torch-cli/src/main.rs).

use std::path::PathBuf;

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

    /// Continue a run from one of its checkpoint folders (weights, optimizer state, step,
    /// iteration and elapsed time), e.g. a committed copy when the run directory is lost. Only
    /// into a run directory without checkpoints; the replay window starts empty and self-play
    /// refills it
    #[arg(long, value_name = "CHECKPOINT", conflicts_with = "transfer")]
    pub continue_from: Option<PathBuf>,

    /// Print the resolved configuration and exit
    #[arg(long)]
    pub print_config: bool,
}
