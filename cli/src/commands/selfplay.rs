//! `fairyzero selfplay`: many games at once with batched network evaluation, written as
//! compressed record chunks. Also home of the `--net` option shared with `analyse`.

use std::{path::PathBuf, sync::Arc, time::Duration};

use anyhow::{bail, Context, Result};
use fairyzero_model::backend::{Backend, MockBackend};
use fairyzero_rules::Variant;
use fairyzero_selfplay::{bench, config::RunSelfPlay, run_selfplay, RunOptions};

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

    /// Search threads, overriding the configuration (at most 1,024)
    #[arg(long, value_parser = limits::count::<u32>(1, limits::MAX_THREADS))]
    pub threads: Option<u32>,

    /// Games in parallel, overriding the configuration (at most 65,536)
    #[arg(long, value_parser = limits::count::<u32>(1, limits::MAX_PARALLEL))]
    pub parallel: Option<u32>,

    /// Also measure the network's raw throughput at the self-play batch size (back-to-back
    /// batches from one thread, for this many seconds) and report self-play's share of it
    /// (more than 0, at most 1,000,000)
    #[arg(long, value_name = "SECONDS", value_parser = limits::seconds)]
    pub bench_raw: Option<f64>,

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

fn clock_seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
}

pub fn run(args: SelfPlayArgs, runtime: &dyn NetRuntime) -> Result<()> {
    // Before the start-up log line, so that a Ctrl-C after it always stops cleanly.
    let stop = crate::interrupt::stop_flag();
    let run = RunSelfPlay::load(&args.config)?;
    let mut config = run.selfplay;
    if let Some(s) = args.simulations {
        config.simulations = s;
    }
    if let Some(t) = args.threads {
        config.threads = t;
    }
    if let Some(p) = args.parallel {
        config.games_in_parallel = p;
    }
    config.validate()?;
    let Some(variant_name) = args.variant.or(run.variant) else {
        bail!("{}: no `variant` key; set one or pass --variant", args.config.display());
    };
    let variant = Variant::load(&variant_name).context("loading the variant")?;
    let per_batch = (config.games_in_parallel / config.threads.max(1) * config.leaves_per_game) as usize;
    let seed = args.seed.unwrap_or_else(clock_seed);
    // The network batches the leaves of all workers together (docs/plans/batching.md §1: a
    // cap of one worker's batch kept two workers' leaves from ever sharing a forward), and
    // never less than one worker's batch.
    let mut service = config.batching.service_config();
    service.max_batch = service.max_batch.max(per_batch);
    let backend_options =
        BackendOptions { service, threads: Some(args.torch_threads), init_seed: seed, ..BackendOptions::default() };
    let (evaluator, net_id) = evaluator_for(args.net.as_deref(), &variant, &backend_options, runtime)?;
    tracing::info!(
        "self-play: {} games of {} with {} ({:?}, {} simulations, {} games at once on {} threads), seed {seed}",
        args.games,
        variant.name,
        evaluator.info().name,
        config.search,
        config.simulations,
        config.games_in_parallel,
        config.threads
    );
    let raw = args.bench_raw.map(|secs| {
        let rate = bench::raw_throughput(evaluator.as_ref(), &variant, per_batch, Duration::from_secs_f64(secs));
        tracing::info!("raw network throughput at batch {per_batch}: {rate:.0} positions/s");
        rate
    });
    let options = RunOptions { games: args.games, seed, net: net_id, out_dir: Some(args.out.clone()), progress: true };
    let summary = run_selfplay(&variant, &config, evaluator.as_ref(), &options, &stop, |_| {})?;
    if stop.load(std::sync::atomic::Ordering::Relaxed) {
        println!(
            "interrupted: the {} games finished so far are written, the {} in progress are dropped",
            summary.games,
            summary.abandoned()
        );
    }
    println!("{summary}");
    if let Some(raw) = raw {
        let inside = summary.evaluated() as f64 / summary.elapsed.as_secs_f64().max(1e-9);
        println!(
            "evaluator inside self-play: {inside:.0} positions/s = {:.2} x the raw {raw:.0} positions/s at batch {per_batch}",
            inside / raw
        );
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
            threads: None,
            parallel: None,
            bench_raw: None,
            torch_threads: 1,
        };
        run(args, &WithoutLibtorch).unwrap();
        let files: Vec<PathBuf> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().path()).collect();
        assert_eq!(files.len(), 1);
        for pgn in [false, true] {
            show_game::run(ShowGameArgs { file: files[0].clone(), game: Some(2), pgn, details: true }).unwrap();
        }
        let err = show_game::run(ShowGameArgs { file: files[0].clone(), game: Some(3), pgn: false, details: false })
            .unwrap_err();
        assert!(err.to_string().contains("holds 3 games"), "{err}");
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
}
