//! `fairyzero bench net`: network forward speed at several batch sizes, and what encoding the
//! batch costs next to it. A benchmark, not a test: figures go to docs/performance.md. Its
//! arguments; the helper, which links libtorch, runs it (torch-cli/src/bench.rs).
//!
//! `fairyzero bench selfplay`: self-play on an inference service after a warm-up, against the
//! executor alone at the same batch (docs/plans/batching.md §6). Its executor is the uniform
//! mock or a latency model of a device (no libtorch: the lean program runs it), or a network,
//! `random:SIZE` or a checkpoint, from the [`NetRuntime`] (the helper runs it).

use std::{path::PathBuf, time::Duration};

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use fairyzero_model::{
    service::{Executor, LatencyExecutor, UniformExecutor},
    PrecisionSetting,
};
use fairyzero_rules::Variant;
use fairyzero_selfplay::{bench::bench_selfplay, config::RunSelfPlay};

use super::{selfplay::SelfPlayOverrides, LibtorchUse};
use crate::{
    limits,
    network::{BackendOptions, NetRuntime, NetSpec},
};

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
    /// Self-play throughput on the inference service: evaluations, positions and simulations
    /// per second, mean batch, device busy share, and the executor alone at that batch (one
    /// Markdown table row on stdout)
    Selfplay(SelfPlayBenchArgs),
}

impl BenchArgs {
    /// `bench net` builds a network; `bench selfplay` too unless its executor is a mock.
    pub fn libtorch_use(&self) -> LibtorchUse {
        match &self.what {
            BenchWhat::Net(_) => LibtorchUse::Needs,
            BenchWhat::Selfplay(args) if mock_executor(&args.net) => LibtorchUse::None,
            BenchWhat::Selfplay(_) => LibtorchUse::Needs,
        }
    }
}

#[derive(Debug, Args)]
pub struct SelfPlayBenchArgs {
    /// Run configuration: the top-level `variant` and the `[selfplay]` section (with
    /// `[selfplay.batching]`) are used
    #[arg(long, default_value = "configs/runs/selfplay-bench.toml")]
    pub config: PathBuf,
    /// Variant, overriding the configuration's
    #[arg(long)]
    pub variant: Option<String>,
    /// Executor: `mock` (uniform priors, draws, no cost), `latency:PER_BATCH+PER_POSITION`
    /// (sleeps like a device, e.g. `latency:20ms+10us`; answers like the mock), `random:SIZE`
    /// (an untrained net: tiny, small, base or BLOCKSxCHANNELS) or a checkpoint directory
    #[arg(long, default_value = "mock")]
    pub net: String,
    /// Forward precision of a network: auto (bf16 on CUDA, fp32 on the CPU), fp32 or bf16
    #[arg(long, default_value = "auto")]
    pub precision: PrecisionSetting,
    /// libtorch intra-op threads of the network (at most 1,024). 1, as for `selfplay`, leaves
    /// the other cores to the search threads
    #[arg(long, default_value_t = 1, value_parser = limits::count::<usize>(1, limits::MAX_THREADS))]
    pub torch_threads: usize,
    #[command(flatten)]
    pub overrides: SelfPlayOverrides,
    /// Seconds of warm-up before measuring (more than 0, at most 1,000,000)
    #[arg(long, default_value_t = 5.0, value_parser = limits::seconds)]
    pub warmup: f64,
    /// Seconds measured (more than 0, at most 1,000,000)
    #[arg(long, default_value_t = 20.0, value_parser = limits::seconds)]
    pub seconds: f64,
    /// Also time the executor alone (a second one, once self-play has stopped) at the measured
    /// mean batch, back to back from one thread, for as long as `--seconds`; fills the `raw
    /// evaluations/s` and `ratio` columns
    #[arg(long)]
    pub raw: bool,
    /// Run seed
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// `latency:20ms+10us` as (per batch, per position).
fn parse_latency(text: &str) -> Result<(Duration, Duration)> {
    fn duration(part: &str) -> Option<Duration> {
        let (number, scale) = [("us", 1e-6), ("ms", 1e-3), ("s", 1.0)]
            .iter()
            .find_map(|(unit, scale)| part.strip_suffix(unit).map(|n| (n, *scale)))?;
        let value: f64 = number.trim().parse().ok()?;
        (value.is_finite() && (0.0..=60.0).contains(&(value * scale))).then(|| Duration::from_secs_f64(value * scale))
    }
    let spec = text.strip_prefix("latency:").unwrap_or("20ms+10us");
    let parsed = spec.split_once('+').and_then(|(b, p)| Some((duration(b)?, duration(p)?)));
    parsed.with_context(|| {
        format!("--net {text}: expected latency:PER_BATCH+PER_POSITION with units us, ms or s (at most 60 s each), e.g. latency:20ms+10us")
    })
}

/// Whether `--net` names an executor that needs no libtorch.
fn mock_executor(net: &str) -> bool {
    net == "mock" || net.starts_with("latency")
}

/// What runs `bench selfplay`'s forwards: a mock, or a network from the runtime.
enum BenchExecutor {
    Uniform,
    Latency { per_batch: Duration, per_position: Duration },
    Net { spec: NetSpec, options: BackendOptions },
}

/// The executor of one run, with the device and precision for the table (`-` for mocks).
struct Built {
    executor: Box<dyn Executor>,
    device: String,
    precision: String,
}

impl BenchExecutor {
    fn build(&self, variant: &std::sync::Arc<Variant>, max_batch: usize, runtime: &dyn NetRuntime) -> Result<Built> {
        let mock = |executor: Box<dyn Executor>| Built { executor, device: "-".into(), precision: "-".into() };
        Ok(match self {
            BenchExecutor::Uniform => mock(Box::new(UniformExecutor::new(max_batch))),
            BenchExecutor::Latency { per_batch, per_position } => {
                mock(Box::new(LatencyExecutor { per_batch: *per_batch, per_position: *per_position, max_batch }))
            }
            BenchExecutor::Net { spec, options } => {
                let mut options = options.clone();
                options.service.max_batch = max_batch;
                let net = runtime.executor(spec, variant, &options)?;
                Built { executor: net.executor, device: net.device, precision: net.precision.to_string() }
            }
        })
    }
}

fn bench_selfplay_row(args: SelfPlayBenchArgs, runtime: &dyn NetRuntime) -> Result<()> {
    let run = RunSelfPlay::load(&args.config)?;
    let mut config = run.selfplay;
    args.overrides.apply(&mut config);
    config.validate()?;
    let Some(variant_name) = args.variant.or(run.variant) else {
        bail!("{}: no `variant` key; set one or pass --variant", args.config.display());
    };
    let variant = Variant::load(&variant_name).context("loading the variant")?;
    let service = config.service_config();
    let max_batch = service.max_batch;
    let kind = if args.net == "mock" {
        BenchExecutor::Uniform
    } else if args.net.starts_with("latency") {
        let (per_batch, per_position) = parse_latency(&args.net)?;
        BenchExecutor::Latency { per_batch, per_position }
    } else {
        let spec = NetSpec::parse(&args.net)?;
        let options = BackendOptions {
            service,
            threads: Some(args.torch_threads),
            precision: args.precision,
            init_seed: args.seed,
        };
        BenchExecutor::Net { spec, options }
    };
    let built = kind.build(&variant, max_batch, runtime).with_context(|| format!("--net {}", args.net))?;
    let (device, precision, max_batch) = (built.device, built.precision, built.executor.max_batch());
    tracing::info!(
        "bench selfplay: {} on {}, {:.1} s warm-up, {:.1} s measured",
        built.executor.name(),
        variant.name,
        args.warmup,
        args.seconds
    );
    let mut b = bench_selfplay(
        &variant,
        &config,
        built.executor,
        args.seed,
        Duration::from_secs_f64(args.warmup),
        Duration::from_secs_f64(args.seconds),
    )?;
    if args.raw {
        // The self-play service is gone: the second executor has the device to itself.
        let mut raw = kind.build(&variant, max_batch.max(b.raw_batch()), runtime)?;
        b.measure_raw(raw.executor.as_mut(), &variant, Duration::from_secs_f64(args.seconds));
    }
    let missing = || "-".to_string();
    println!("| variant | net | device | precision | games at once | threads | max batch | evaluations/s | positions/s | simulations/s | mean batch | busy | search waiting | raw evaluations/s | ratio |");
    println!("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    println!(
        "| {} | {} | {device} | {precision} | {} | {} | {} | {:.0} | {} | {} | {:.1} | {:.1}% | {:.1}% | {} | {} |",
        variant.name,
        args.net,
        config.games_in_parallel,
        config.threads,
        max_batch,
        b.evaluations_per_sec,
        b.positions_per_sec.map_or_else(missing, |p| format!("{p:.1}")),
        b.simulations_per_sec.map_or_else(missing, |s| format!("{s:.0}")),
        b.service.mean_batch(),
        100.0 * b.service.busy_share(),
        100.0 * b.search_wait,
        b.raw_per_sec.map_or_else(missing, |r| format!("{r:.0}")),
        b.ratio().map_or_else(missing, |r| format!("{r:.2}")),
    );
    Ok(())
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
        BenchWhat::Selfplay(args) => bench_selfplay_row(args, net),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::WithoutLibtorch;

    #[derive(clap::Parser)]
    struct Bench {
        #[command(flatten)]
        args: BenchArgs,
    }

    fn parse(args: &[&str]) -> Result<BenchArgs, clap::Error> {
        <Bench as clap::Parser>::try_parse_from(std::iter::once(&"bench").chain(args)).map(|b| b.args)
    }

    /// Mocks run in the lean program; a network goes to the helper, which links libtorch.
    #[test]
    fn bench_selfplay_with_a_network_is_handed_to_the_helper() {
        let ckpt = std::env::temp_dir();
        let cases: &[(&[&str], LibtorchUse)] = &[
            (&["selfplay"], LibtorchUse::None),
            (&["selfplay", "--net", "mock"], LibtorchUse::None),
            (&["selfplay", "--net", "latency:20ms+10us"], LibtorchUse::None),
            (&["selfplay", "--net", "random:tiny"], LibtorchUse::Needs),
            (&["selfplay", "--net", "random:tiny", "--precision", "bf16", "--raw"], LibtorchUse::Needs),
            (&["selfplay", "--net", ckpt.to_str().unwrap()], LibtorchUse::Needs),
            (&["net"], LibtorchUse::Needs),
        ];
        for (args, expected) in cases {
            assert_eq!(parse(args).unwrap().libtorch_use(), *expected, "{args:?}");
        }
    }

    /// Bad values are refused by clap, naming the flag.
    #[test]
    fn bad_bench_selfplay_values_name_their_flag() {
        for bad in ["--precision=fp16", "--max-batch=0", "--max-wait-us=10000001", "--torch-threads=0", "--seconds=0"] {
            let err = parse(&["selfplay", bad]).err().unwrap_or_else(|| panic!("{bad} accepted"));
            let flag = bad.split('=').next().unwrap();
            assert!(err.to_string().contains(flag), "{bad}: {err}");
        }
        let args = parse(&["selfplay", "--precision", "fp32", "--raw"]).unwrap();
        let BenchWhat::Selfplay(args) = args.what else { panic!("not bench selfplay") };
        assert_eq!((args.precision, args.raw, args.torch_threads), (PrecisionSetting::Fp32, true, 1));
    }

    #[test]
    fn latency_specs_parse_and_bad_ones_are_named() {
        assert_eq!(parse_latency("latency:20ms+10us").unwrap(), (Duration::from_millis(20), Duration::from_micros(10)));
        assert_eq!(parse_latency("latency").unwrap(), (Duration::from_millis(20), Duration::from_micros(10)));
        for bad in ["latency:20+10us", "latency:20ms", "latency:1000s+1us", "latency:-1ms+1us"] {
            let err = parse_latency(bad).unwrap_err().to_string();
            assert!(err.contains(bad), "{err}");
        }
    }

    /// The benchmark runs end to end on the uniform mock and on a latency executor.
    #[test]
    fn bench_selfplay_prints_a_row() {
        let dir = std::env::temp_dir().join(format!("fairyzero-cli-bench-selfplay-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let config = dir.join("run.toml");
        std::fs::write(&config, "variant = \"gardner\"\n[selfplay]\nsimulations = 4\ngames_in_parallel = 8\n").unwrap();
        for net in ["mock", "latency:1ms+1us"] {
            let args = SelfPlayBenchArgs {
                config: config.clone(),
                variant: None,
                net: net.into(),
                overrides: SelfPlayOverrides { max_batch: Some(16), ..SelfPlayOverrides::default() },
                precision: PrecisionSetting::Auto,
                torch_threads: 1,
                warmup: 0.2,
                seconds: 0.3,
                raw: true,
                seed: 1,
            };
            bench_selfplay_row(args, &WithoutLibtorch).unwrap();
        }
        let args = SelfPlayBenchArgs {
            config: config.clone(),
            variant: None,
            net: "random:tiny".into(),
            overrides: SelfPlayOverrides::default(),
            precision: PrecisionSetting::Bf16,
            torch_threads: 1,
            warmup: 0.1,
            seconds: 0.1,
            raw: false,
            seed: 1,
        };
        // The lean runtime refuses a network, naming the flag and the helper.
        let err = format!("{:#}", bench_selfplay_row(args, &WithoutLibtorch).unwrap_err());
        assert!(err.starts_with("--net random:tiny") && err.contains("fairyzero-torch"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
