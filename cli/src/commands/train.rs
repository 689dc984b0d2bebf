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

/// `fairyzero learn`: the learner of a run split across machines (docs/distributed.md): `train`'s
/// arguments and where the workers' store is.
#[derive(Debug, clap::Args)]
pub struct LearnArgs {
    #[command(flatten)]
    pub run: TrainArgs,

    /// The run's store, shared with the workers: file:///shared/dir or s3://bucket/prefix
    /// (credentials and endpoint from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION,
    /// AWS_ENDPOINT_URL). Default: the configuration's `store`
    #[arg(long, value_name = "URL")]
    pub store: Option<String>,

    /// This learner's local directory (index, metrics, TensorBoard, scratch). Default: the
    /// configuration's `run_dir`
    #[arg(long, value_name = "DIR")]
    pub run_dir: Option<PathBuf>,

    /// Seconds the store's learner lease lives without renewal: a learner killed without
    /// releasing it keeps another from starting for this long (at most 86,400)
    #[arg(long, default_value_t = 60, value_parser = crate::limits::count::<u64>(2, 86_400))]
    pub lease_secs: u64,

    /// How often the store is listed for the workers' new games, in seconds (at most 1,000,000)
    #[arg(long, default_value_t = 1.0, value_parser = crate::limits::seconds)]
    pub poll_secs: f64,
}

/// `fairyzero worker`: a self-play worker of a run split across machines (docs/distributed.md).
#[derive(Debug, clap::Args)]
pub struct WorkerArgs {
    /// The run's store, as the learner was given it (file:///shared/dir or s3://bucket/prefix)
    #[arg(long, value_name = "URL")]
    pub store: String,

    /// Where fetched checkpoints are kept. Default: ~/.cache/fairyzero/worker
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,

    /// Stop after this many games (at most 10,000,000). Default: until the learner finishes
    /// the run (or a signal)
    #[arg(long, value_parser = crate::limits::count::<u64>(1, crate::limits::MAX_GAMES))]
    pub games: Option<u64>,

    /// How often the store is checked for a new checkpoint and for the run's end, in seconds
    /// (at most 1,000,000)
    #[arg(long, default_value_t = 5.0, value_parser = crate::limits::seconds)]
    pub poll_secs: f64,

    /// Override how this worker plays: `selfplay.*`, `device`, `output.inference_threads`
    /// (e.g. `-o selfplay.threads=8 -o device="cuda"`); the rest is the learner's configuration
    #[arg(short = 'o', long = "set", value_name = "KEY=VALUE")]
    pub overrides: Vec<String>,
}
