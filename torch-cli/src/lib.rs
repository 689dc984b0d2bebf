//! The libtorch side of the `fairyzero` command line: [`TorchRuntime`], the
//! [`NetRuntime`] that builds and loads networks, loads checkpoint players, trains and benchmarks
//! the net. The commands themselves (their arguments, their output) are the `fairyzero-cli`
//! library's; the `fairyzero-torch` binary runs them with this runtime.

mod bench;

use std::{path::Path, sync::Arc, time::Duration};

use anyhow::Context;
use fairyzero_cli::{
    commands::{
        bench::NetBenchArgs,
        matches::RankArgs,
        train::{LearnArgs, TrainArgs, WorkerArgs},
    },
    network::{BackendOptions, NetExecutor, NetSpec},
    NetRuntime,
};
use fairyzero_evaluator::{CheckpointLoader, LoadError, LoadProblem, LoadedCheckpoint};
use fairyzero_model::Backend;
use fairyzero_model::{service::ServiceConfig, PrecisionSetting};
use fairyzero_rules::Variant;
use fairyzero_torch::{serve, serve_checkpoint, Device, ExecutorOptions, Net, TorchExecutor};
use fairyzero_trainer::{
    config::RunConfig,
    run::{LearnerOptions, Role, TrainOptions},
    store::ObjectStoreBackend,
    worker::{run_worker, WorkerOptions},
};

/// Networks on libtorch, on the default device (the first CUDA device, else the CPU).
pub struct TorchRuntime;

impl NetRuntime for TorchRuntime {
    fn version_lines(&self) -> Vec<String> {
        let info = fairyzero_torch::runtime_info();
        vec![format!("libtorch {}", info.torch_summary()), format!("device: {}", info.device_summary())]
    }

    fn info(&self) -> String {
        let info = fairyzero_torch::runtime_info();
        tracing::debug!(?info, "queried libtorch");
        info.to_string()
    }

    fn search_backend(
        &self,
        spec: &NetSpec,
        variant: &Arc<Variant>,
        options: &BackendOptions,
    ) -> anyhow::Result<(Box<dyn Backend>, String)> {
        let device = fairyzero_torch::default_device();
        let (net, id) = build_net(spec, variant, device, options.init_seed)?;
        Ok((Box::new(serve(net, options.service.clone(), executor_options(options, device))), id))
    }

    fn executor(
        &self,
        spec: &NetSpec,
        variant: &Arc<Variant>,
        options: &BackendOptions,
    ) -> anyhow::Result<NetExecutor> {
        let device = fairyzero_torch::default_device();
        let (net, id) = build_net(spec, variant, device, options.init_seed)?;
        // What `serve` sets up before it starts its service.
        fairyzero_torch::configure_cuda(device);
        let executor_options = executor_options(options, device);
        let precision = executor_options.precision;
        // As `serve` would: the accelerator's own cap where the configuration gives one.
        let max_batch = options.service.max_batch_on(device.is_cuda());
        let executor = TorchExecutor::with_options(net, max_batch.max(1), executor_options);
        Ok(NetExecutor { executor: Box::new(executor), id, device: format!("{device:?}"), precision })
    }

    fn checkpoint_loader(&self, threads: Option<usize>) -> Option<Box<dyn CheckpointLoader>> {
        Some(Box::new(TorchLoader { threads }))
    }

    fn train(&self, args: TrainArgs) -> anyhow::Result<()> {
        let config = RunConfig::load(&args.config, &args.overrides)?;
        run_training(args, config, Role::Whole)
    }

    fn learn(&self, args: LearnArgs) -> anyhow::Result<()> {
        let mut config = RunConfig::load(&args.run.config, &args.run.overrides)?;
        if let Some(store) = args.store {
            config.store = store;
        }
        if let Some(dir) = args.run_dir {
            config.run_dir = dir;
        }
        if config.store.is_empty() {
            anyhow::bail!(
                "learn: no store: pass --store URL (file:///shared/dir or s3://bucket/prefix), the store the workers \
                 publish to, or set `store` in {}",
                args.run.config.display()
            );
        }
        let role = Role::Learner(LearnerOptions {
            lease_ttl: Duration::from_secs(args.lease_secs),
            poll: Duration::from_secs_f64(args.poll_secs),
            ..LearnerOptions::default()
        });
        run_training(args.run, config, role)
    }

    fn worker(&self, args: WorkerArgs) -> anyhow::Result<()> {
        let options = WorkerOptions {
            store: args.store,
            cache: args.cache,
            games: args.games,
            poll: Duration::from_secs_f64(args.poll_secs),
            overrides: args.overrides,
            stop: Some(fairyzero_cli::interrupt::stop_flag()),
        };
        let summary = run_worker(&options).context("self-play worker")?;
        println!(
            "worker {}: {} games ({} positions) published to {} in {:.0} s with {}; stopped: {}",
            summary.worker,
            summary.games,
            summary.positions,
            summary.store,
            summary.elapsed_secs,
            if summary.checkpoints.is_empty() { "no net".to_string() } else { summary.checkpoints.join(", ") },
            summary.reason
        );
        Ok(())
    }

    fn rank_store(&self, args: RankArgs) -> anyhow::Result<()> {
        let url = args.store.clone().context("rank --store: no URL")?;
        let store = ObjectStoreBackend::open(&url)?;
        let ranking = fairyzero_trainer::evaluation::rank_store(&store, &args.rating_options())
            .with_context(|| format!("ranking the matches in {url}"))?;
        if ranking.games == 0 {
            tracing::warn!("no stored match results under {url}/matches/");
        }
        if let Some(out) = &args.out {
            fairyzero_evaluator::ranking::write_outputs(out, &ranking)?;
        }
        fairyzero_cli::commands::matches::print_ranking(&ranking, args.out.as_deref());
        Ok(())
    }

    fn bench_net(&self, args: NetBenchArgs) -> anyhow::Result<()> {
        bench::bench_net(args)
    }
}

/// `train` and `learn`: the run to the end of its budget, and its summary.
fn run_training(args: TrainArgs, config: RunConfig, role: Role) -> anyhow::Result<()> {
    if args.print_config {
        print!("{}", config.to_toml());
        return Ok(());
    }
    let what = if matches!(role, Role::Whole) { "training" } else { "learning" };
    let summary = fairyzero_trainer::train(
        config,
        &TrainOptions {
            rebuild_index: args.rebuild_index,
            stop: Some(fairyzero_cli::interrupt::stop_flag()),
            transfer: args.transfer,
            continue_from: args.continue_from,
            role,
        },
    )
    .context(what)?;
    print!("{}", summary.to_markdown());
    println!("\nrun directory: {} (metrics.jsonl, tensorboard/, ranking.md, summary.md)", summary.run_dir);
    Ok(())
}

/// The net `spec` names on `device`, and its id for game records.
fn build_net(spec: &NetSpec, variant: &Arc<Variant>, device: Device, init_seed: u64) -> anyhow::Result<(Net, String)> {
    match spec {
        NetSpec::Random(config) => {
            Ok((Net::seeded(config, Arc::clone(variant), device, init_seed), format!("random-{config}")))
        }
        NetSpec::Checkpoint(dir) => {
            let loaded = fairyzero_torch::checkpoint::load(dir, Arc::clone(variant), None, device, false)
                .with_context(|| format!("loading the checkpoint {}", dir.display()))?;
            let id = dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
            Ok((loaded.net, id))
        }
    }
}

fn executor_options(options: &BackendOptions, device: Device) -> ExecutorOptions {
    ExecutorOptions { threads: options.threads, precision: options.precision.resolve(device.is_cuda()) }
}

/// Largest forward of a checkpoint player's service: matches play at most this many games at
/// once in practice (one leaf each at a time).
const CHECKPOINT_PLAYER_MAX_BATCH: usize = 1024;

/// Loads checkpoints with libtorch for the evaluator and designer crates (which do not link it).
struct TorchLoader {
    threads: Option<usize>,
}

impl CheckpointLoader for TorchLoader {
    fn load(&self, path: &Path, variant: &Arc<Variant>) -> Result<LoadedCheckpoint, LoadError> {
        if !path.is_dir() {
            return Err(LoadError::new(path, LoadProblem::NotADirectory));
        }
        let device = fairyzero_torch::default_device();
        let executor =
            ExecutorOptions { threads: self.threads, precision: PrecisionSetting::Auto.resolve(device.is_cuda()) };
        // The games of a match share the service; a lone search is never kept waiting for
        // company (`max_wait` 0), and parallel games fill the next batch while one runs.
        let service = ServiceConfig {
            max_batch: CHECKPOINT_PLAYER_MAX_BATCH,
            max_wait: Duration::ZERO,
            ..ServiceConfig::default()
        };
        let eval = serve_checkpoint(path, Arc::clone(variant), None, device, service, executor)
            .map_err(|e| LoadError::unreadable(path, e))?;
        Ok(LoadedCheckpoint { backend: Arc::new(eval), step: None })
    }
}
