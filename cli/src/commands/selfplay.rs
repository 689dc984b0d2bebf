//! `fairyzero selfplay`: many games at once with batched network evaluation, written as
//! compressed record chunks. Also home of the `--net` option shared with `analyse`.

use std::{path::PathBuf, sync::Arc, time::Duration};

use anyhow::{bail, Context, Result};
use fairyzero_model::{
    backend::{Backend, MockBackend},
    encoding::StandardEncoding,
    PrecisionSetting,
};
use fairyzero_rules::Variant;
use fairyzero_selfplay::{
    bench::{self, RawComparison},
    config::RunSelfPlay,
    run_selfplay, RunOptions, SelfPlayConfig, Summary,
};

use crate::{
    limits,
    network::{BackendOptions, NetRuntime, NetSpec},
};

#[derive(Debug, clap::Args)]
pub struct SelfPlayArgs {
    /// Run configuration (TOML): the top-level `variant` and the `[selfplay]` section are used
    /// (see configs/runs/selfplay-example.toml)
    #[arg(long)]
    pub config: PathBuf,

    /// Network: a checkpoint directory, or `random:SIZE` for an untrained net (tiny, small,
    /// base or BLOCKSxCHANNELS). Default: the uniform mock (uniform priors, draw values)
    #[arg(long)]
    pub net: Option<String>,

    /// Number of games to play (at most 10,000,000)
    #[arg(long, value_parser = limits::count::<u64>(1, limits::MAX_GAMES))]
    pub games: u64,

    /// Directory for the game record chunks (created if missing)
    #[arg(long)]
    pub out: PathBuf,

    /// Variant, overriding the run configuration's
    #[arg(long)]
    pub variant: Option<String>,

    /// Run seed (game i plays with a seed derived from it); default: from the clock
    #[arg(long)]
    pub seed: Option<u64>,

    /// Simulations per full search, overriding the configuration (at most 10,000,000)
    #[arg(long, value_parser = limits::count::<u32>(1, limits::MAX_SIMULATIONS))]
    pub simulations: Option<u32>,

    #[command(flatten)]
    pub overrides: SelfPlayOverrides,

    /// After the run, also time the network alone for this many seconds, back to back from one
    /// thread at the run's mean batch per forward, and report self-play's evaluations/s as a
    /// share of that raw rate (more than 0, at most 1,000,000)
    #[arg(long, value_name = "SECONDS", value_parser = limits::seconds)]
    pub bench_raw: Option<f64>,

    /// Forward precision of --net: auto (bf16 on CUDA, fp32 on the CPU), fp32 or bf16
    #[arg(long, default_value = "auto", requires = "net")]
    pub precision: PrecisionSetting,

    /// libtorch intra-op threads of the inference thread. 1 leaves the other cores to the
    /// search threads; more makes OpenMP spin against them (70x slower on a busy 2-core box;
    /// at most 1,024)
    #[arg(long, default_value_t = 1, value_parser = limits::count::<usize>(1, limits::MAX_THREADS))]
    pub torch_threads: usize,
}

/// The evaluator named by `--net` (default: the uniform mock), and its id for records. A
/// `random:SIZE` net is initialised from `init_seed`, so that the same seed plays the same
/// games.
pub fn evaluator_for(
    net: Option<&str>,
    variant: &Arc<Variant>,
    options: &BackendOptions,
    runtime: &dyn NetRuntime,
) -> Result<(Box<dyn Backend>, String)> {
    let Some(text) = net else {
        return Ok((Box::new(MockBackend::uniform()), "uniform".to_string()));
    };
    let spec = NetSpec::parse(text)?;
    runtime.search_backend(&spec, variant, options)
}

/// Flags that replace the run file's `[selfplay]` values, for `selfplay` and `bench selfplay`.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct SelfPlayOverrides {
    /// Search threads, overriding the configuration (at most 1,024)
    #[arg(long, value_parser = limits::count::<u32>(1, limits::MAX_THREADS))]
    pub threads: Option<u32>,

    /// Games in parallel, overriding the configuration (at most 65,536)
    #[arg(long, value_parser = limits::count::<u32>(1, limits::MAX_PARALLEL))]
    pub parallel: Option<u32>,

    /// Most positions in one forward, overriding `[selfplay.batching] max_batch` (at most
    /// 16,384; `selfplay` never goes below one search thread's leaves per round)
    #[arg(long, value_parser = limits::count::<u32>(1, limits::MAX_BATCH))]
    pub max_batch: Option<u32>,

    /// Microseconds a non-empty batch may wait for more leaves once the network is idle,
    /// overriding `[selfplay.batching] max_wait_us` (0: launch at once; at most 10,000,000)
    #[arg(long, value_parser = limits::count::<u64>(0, limits::MAX_WAIT_US))]
    pub max_wait_us: Option<u64>,
}

impl SelfPlayOverrides {
    /// The flags given, in place of the run file's values.
    pub fn apply(&self, config: &mut SelfPlayConfig) {
        if let Some(t) = self.threads {
            config.threads = t;
        }
        if let Some(p) = self.parallel {
            config.games_in_parallel = p;
        }
        if let Some(b) = self.max_batch {
            config.batching.max_batch = b;
        }
        if let Some(w) = self.max_wait_us {
            config.batching.max_wait_us = w;
        }
    }
}

/// The command line's values in place of the run file's.
fn apply_overrides(args: &SelfPlayArgs, config: &mut SelfPlayConfig) {
    if let Some(s) = args.simulations {
        config.simulations = s;
    }
    args.overrides.apply(config);
}

/// `--bench-raw`: the evaluator of the finished run timed alone at the run's mean batch. A
/// network's service is dropped first and a fresh executor of the same net (same seed, same
/// checkpoint) is timed without a service, back to back from this thread, as `bench net`
/// times it: encoding is outside the timing, as self-play encodes in the search threads. The
/// uniform mock has no service: it is called as self-play called it.
fn bench_raw(
    summary: &Summary,
    evaluator: Box<dyn Backend>,
    spec: Option<&NetSpec>,
    variant: &Arc<Variant>,
    options: &BackendOptions,
    runtime: &dyn NetRuntime,
    duration: Duration,
) -> Result<RawComparison> {
    let Some(spec) = spec else {
        return Ok(RawComparison::new(summary, |batch| {
            bench::raw_throughput(evaluator.as_ref(), variant, batch, duration)
        }));
    };
    drop(evaluator);
    let mut options = options.clone();
    options.service.max_batch = options.service.max_batch.max(RawComparison::raw_batch(summary));
    let mut net = runtime.executor(spec, variant, &options).context("--bench-raw: building the network again")?;
    tracing::info!("--bench-raw: timing {} alone for {:.1} s", net.executor.name(), duration.as_secs_f64());
    let encoding = StandardEncoding::new(Arc::clone(variant));
    Ok(RawComparison::new(summary, |batch| {
        bench::raw_executor_throughput(net.executor.as_mut(), &encoding, variant, batch, duration)
    }))
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
}

pub fn run(args: SelfPlayArgs, runtime: &dyn NetRuntime) -> Result<()> {
    // Before the start-up log line, so that a Ctrl-C after it always stops cleanly.
    let stop = crate::interrupt::stop_flag();
    let run = RunSelfPlay::load(&args.config)?;
    let mut config = run.selfplay;
    apply_overrides(&args, &mut config);
    config.validate()?;
    let Some(variant_name) = args.variant.or(run.variant) else {
        bail!("{}: no `variant` key; set one or pass --variant", args.config.display());
    };
    let variant = Variant::load(&variant_name).context("loading the variant")?;
    let seed = args.seed.unwrap_or_else(clock_seed);
    // The network batches the leaves of all workers together (docs/plans/batching.md §1: a
    // cap of one worker's batch kept two workers' leaves from ever sharing a forward), and
    // never less than one worker's batch.
    let service = config.service_config();
    let batches = match service.accelerated_max_batch {
        Some(accelerated) => format!("{} on a CPU, {accelerated} on CUDA", service.max_batch),
        None => service.max_batch.to_string(),
    };
    let backend_options =
        BackendOptions { service, threads: Some(args.torch_threads), precision: args.precision, init_seed: seed };
    let (evaluator, net_id) = evaluator_for(args.net.as_deref(), &variant, &backend_options, runtime)?;
    tracing::info!(
        "self-play: {} games of {} with {} ({:?}, {} simulations, {} games at once on {} threads, batches of at most {}), seed {seed}",
        args.games,
        variant.name,
        evaluator.info().name,
        config.search,
        config.simulations,
        config.games_in_parallel,
        config.threads,
        batches,
    );
    let options = RunOptions { games: args.games, seed, net: net_id, out_dir: Some(args.out.clone()), progress: true };
    let summary = run_selfplay(&variant, &config, evaluator.as_ref(), &options, &stop, |_| {})?;
    let interrupted = stop.load(std::sync::atomic::Ordering::Relaxed);
    if interrupted {
        println!(
            "interrupted: the {} games finished so far are written, the {} in progress are dropped",
            summary.games,
            summary.abandoned()
        );
    }
    println!("{summary}");
    match args.bench_raw {
        Some(_) if interrupted => println!("--bench-raw: skipped, the run was interrupted"),
        Some(_) if summary.evaluated() == 0 => println!("--bench-raw: skipped, nothing was evaluated"),
        Some(secs) => {
            let duration = Duration::from_secs_f64(secs);
            let spec = args.net.as_deref().map(NetSpec::parse).transpose()?;
            let report = bench_raw(&summary, evaluator, spec.as_ref(), &variant, &backend_options, runtime, duration)?;
            println!("{report}");
        }
        None => {}
    }
    println!("records: {} file(s) in {}", summary.files.len(), args.out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        commands::{
            analyse::{self, AnalyseArgs},
            show_game::{self, ShowGameArgs},
        },
        network::WithoutLibtorch,
    };

    /// `selfplay` with the uniform mock writes records that `show-game` reads; `analyse` runs.
    #[test]
    fn selfplay_show_game_and_analyse_run_end_to_end() {
        let dir = std::env::temp_dir().join(format!("fairyzero-cli-selfplay-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let config = dir.join("run.toml");
        std::fs::write(
            &config,
            "variant = \"gardner\"\n[selfplay]\nsimulations = 4\ngames_in_parallel = 2\nmove_cap = 20\n",
        )
        .unwrap();
        let out = dir.join("games");
        let args = SelfPlayArgs {
            config,
            net: None,
            games: 3,
            out: out.clone(),
            variant: None,
            seed: Some(1),
            simulations: None,
            overrides: SelfPlayOverrides { max_batch: Some(4), max_wait_us: Some(0), ..SelfPlayOverrides::default() },
            // The uniform mock timed alone after the run, at the run's mean batch per call.
            bench_raw: Some(0.05),
            precision: PrecisionSetting::Auto,
            torch_threads: 1,
        };
        run(args, &WithoutLibtorch).unwrap();
        let files: Vec<PathBuf> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().path()).collect();
        assert_eq!(files.len(), 1);
        for pgn in [false, true] {
            show_game::run(ShowGameArgs { file: files[0].clone(), game: Some(2), pgn, details: true, html: None })
                .unwrap();
        }
        let err = show_game::run(ShowGameArgs {
            file: files[0].clone(),
            game: Some(3),
            pgn: false,
            details: false,
            html: None,
        })
        .unwrap_err();
        assert!(err.to_string().contains("holds 3 games"), "{err}");
        // The viewer page of a self-play game carries the search's values and targets.
        let page = dir.join("game.html");
        let html =
            |game| ShowGameArgs { file: files[0].clone(), game, pgn: false, details: false, html: Some(page.clone()) };
        let err = show_game::run(html(None)).unwrap_err();
        assert!(err.to_string().contains("pass --game N"), "{err}");
        show_game::run(html(Some(1))).unwrap();
        let text = std::fs::read_to_string(&page).unwrap();
        assert!(
            text.contains("\"simulations\":4") && text.contains("\"targets\":[["),
            "values and targets in the page"
        );
        #[derive(clap::Parser)]
        struct Analyse {
            #[command(flatten)]
            args: AnalyseArgs,
        }
        let parsed = <Analyse as clap::Parser>::try_parse_from([
            "analyse",
            "--variant",
            "gardner",
            "--moves",
            "a2a3",
            "--nodes",
            "50",
            "--search",
            "gumbel",
            "--top",
            "3",
        ])
        .unwrap();
        analyse::run(parsed.args, &WithoutLibtorch).unwrap();
        let gardner = Variant::load("gardner").unwrap();
        let err = evaluator_for(Some("/nonexistent/ckpt"), &gardner, &BackendOptions::default(), &WithoutLibtorch)
            .err()
            .unwrap();
        assert!(err.to_string().contains("no such checkpoint directory"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[derive(clap::Parser)]
    struct SelfPlay {
        #[command(flatten)]
        args: SelfPlayArgs,
    }

    fn parse(extra: &[&str]) -> Result<SelfPlayArgs, clap::Error> {
        let base = ["selfplay", "--config", "c.toml", "--games", "1", "--out", "o"];
        <SelfPlay as clap::Parser>::try_parse_from(base.iter().chain(extra)).map(|p| p.args)
    }

    /// The batching and precision flags parse into their fields, default to the run file's
    /// values (none given) and `auto`.
    #[test]
    fn batching_and_precision_flags_parse() {
        let args = parse(&[]).unwrap();
        assert_eq!(
            (args.overrides.max_batch, args.overrides.max_wait_us, args.precision),
            (None, None, PrecisionSetting::Auto)
        );
        let args = parse(&["--max-batch", "256", "--max-wait-us", "0", "--net", "random:tiny", "--precision", "bf16"])
            .unwrap();
        assert_eq!(
            (args.overrides.max_batch, args.overrides.max_wait_us, args.precision),
            (Some(256), Some(0), PrecisionSetting::Bf16)
        );
        let args =
            parse(&["--max-batch", "16384", "--max-wait-us", "10000000", "--net", "x", "--precision", "fp32"]).unwrap();
        assert_eq!(
            (args.overrides.max_batch, args.overrides.max_wait_us, args.precision),
            (Some(16_384), Some(10_000_000), PrecisionSetting::Fp32)
        );
        // The uniform mock has no precision: the flag is refused rather than ignored.
        let err = parse(&["--precision", "bf16"]).expect_err("--precision without --net accepted");
        assert_eq!(err.kind(), clap::error::ErrorKind::MissingRequiredArgument, "{err}");
        assert!(err.to_string().contains("--net"), "{err}");
    }

    /// A bad value is refused before any work, by clap, naming the flag.
    #[test]
    fn bad_batching_and_precision_values_name_their_flag() {
        for (flag, value) in [
            ("--max-batch", "0"),
            ("--max-batch", "16385"),
            ("--max-batch", "many"),
            ("--max-wait-us", "10000001"),
            ("--max-wait-us", "-1"),
            ("--precision", "fp16"),
            ("--bench-raw", "0"),
            ("--bench-raw", "inf"),
        ] {
            let err = parse(&[&format!("{flag}={value}")]).err().unwrap_or_else(|| panic!("{flag} {value} accepted"));
            assert_eq!(err.kind(), clap::error::ErrorKind::ValueValidation, "{flag} {value}: {err}");
            assert!(err.to_string().contains(flag), "{flag} {value}: {err}");
        }
    }

    /// The flags replace the run file's `[selfplay.batching]` keys; the others stay.
    #[test]
    fn batching_flags_override_the_run_file() {
        let run = RunSelfPlay::parse(
            "run.toml",
            "[selfplay]\nsimulations = 2\n[selfplay.batching]\nmax_batch = 32\nmax_wait_us = 700\ngroups = 3\n",
        )
        .unwrap();
        let mut config = run.selfplay.clone();
        apply_overrides(&parse(&[]).unwrap(), &mut config);
        assert_eq!(config, run.selfplay);
        apply_overrides(
            &parse(&["--max-batch", "512", "--max-wait-us", "0", "--simulations", "9"]).unwrap(),
            &mut config,
        );
        assert_eq!((config.batching.max_batch, config.batching.max_wait_us), (512, 0));
        assert_eq!((config.batching.groups, config.simulations), (3, 9));
    }
}
