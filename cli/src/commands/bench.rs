//! `fairyzero bench net`: network forward speed at several batch sizes, and what encoding the
//! batch costs next to it. A benchmark, not a test: figures go to docs/performance.md. Its
//! arguments; the helper, which links libtorch, runs it (torch-cli/src/bench.rs).

use clap::{Args, Subcommand};

use crate::{limits, network::NetRuntime};

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: BenchWhat,
}

#[derive(Debug, Subcommand)]
pub enum BenchWhat {
    /// Forward positions per second of a freshly initialised network at several batch sizes,
    /// with the cost of encoding each batch (a Markdown table on stdout)
    Net(NetBenchArgs),
}

#[derive(Debug, Args)]
pub struct NetBenchArgs {
    /// Variant: a built-in name, a TOML path, or `synthetic:WxH:N` (N piece types)
    #[arg(long, default_value = "scirocco")]
    pub variant: String,
    /// Network size: tiny (4x32), small (6x64), base (10x128) or BLOCKSxCHANNELS
    #[arg(long, default_value = "small")]
    pub size: String,
    /// Batch sizes to time, comma-separated (each at most 16,384)
    #[arg(long, value_delimiter = ',', default_value = "1,16,64,256",
          value_parser = limits::count::<usize>(1, limits::MAX_BATCH))]
    pub batches: Vec<usize>,
    /// libtorch intra-op threads (default: libtorch's choice; at most 1,024)
    #[arg(long, value_parser = limits::count::<usize>(1, limits::MAX_THREADS))]
    pub threads: Option<usize>,
    /// Device: cpu, cuda, cuda:N or auto (CUDA when available)
    #[arg(long, default_value = "auto")]
    pub device: String,
    /// Seconds of timing per batch size (after a warm-up; more than 0, at most 1,000,000)
    #[arg(long, default_value_t = 3.0, value_parser = limits::seconds)]
    pub seconds: f64,
    /// Positions to draw batches from, reached by seeded random play (at most 100,000)
    #[arg(long, default_value_t = 512, value_parser = limits::count::<usize>(1, limits::MAX_POSITIONS))]
    pub positions: usize,
    /// Forward precision: fp32, bf16, or auto (bf16 on CUDA, fp32 on CPU)
    #[arg(long, default_value = "fp32")]
    pub precision: fairyzero_model::PrecisionSetting,
    /// Also time the forward's parts apart (host packing, copies to the device, trunk, heads,
    /// copies back with the softmax), synchronising the device between them
    #[arg(long)]
    pub breakdown: bool,
    /// Let cuDNN autotune its convolution algorithms (CUDA only; tuned once per batch shape)
    #[arg(long)]
    pub cudnn_benchmark: bool,
    /// Lay out the convolutions' weights and inputs channels-last (NHWC)
    #[arg(long)]
    pub channels_last: bool,
    /// Also compare bf16 with fp32 on one fixed batch of the first batch size (max and mean
    /// |Δpolicy|, max |Δvalue|, policy KL)
    #[arg(long)]
    pub precision_check: bool,
}

pub fn run(args: BenchArgs, net: &dyn NetRuntime) -> anyhow::Result<()> {
    match args.what {
        BenchWhat::Net(args) => net.bench_net(args),
    }
}
