//! The seam between the commands and libtorch: [`NetRuntime`], implemented by the
//! `fairyzero-torch` helper (torch-cli/), and [`WithoutLibtorch`], what the lean `fairyzero`
//! has. The lean program hands every command that needs a network to the helper before it
//! runs (see [`crate::Command::libtorch_use`]), so [`WithoutLibtorch`]'s errors are a safety
//! net, never the normal path.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use anyhow::{bail, Context, Result};
use fairyzero_evaluator::CheckpointLoader;
use fairyzero_model::{
    service::{Executor, ServiceConfig},
    Backend, NetConfig, Precision, PrecisionSetting,
};
use fairyzero_rules::Variant;

use crate::commands::{
    bench::NetBenchArgs,
    matches::RankArgs,
    train::{LearnArgs, TrainArgs, WorkerArgs},
};

/// A network for search, as `--net` names it.
#[derive(Clone, Debug, PartialEq)]
pub enum NetSpec {
    /// `random:SIZE`: an untrained net of that size, initialised from a seed.
    Random(NetConfig),
    /// A checkpoint directory.
    Checkpoint(PathBuf),
}

impl NetSpec {
    /// Parses `--net`; a checkpoint must be an existing directory.
    pub fn parse(text: &str) -> Result<NetSpec> {
        if let Some(size) = text.strip_prefix("random:") {
            let config = NetConfig::parse(size).with_context(|| format!("--net {text}"))?;
            return Ok(NetSpec::Random(config));
        }
        let dir = Path::new(text);
        if !dir.exists() {
            bail!("--net {text}: no such checkpoint directory (or use random:SIZE for an untrained net)");
        }
        Ok(NetSpec::Checkpoint(dir.to_path_buf()))
    }
}

/// How a search backend is set up.
#[derive(Clone, Debug, Default)]
pub struct BackendOptions {
    /// How the inference service batches the searches' leaves.
    pub service: ServiceConfig,
    /// Intra-op threads of the inference thread (`None`: the runtime's default).
    pub threads: Option<usize>,
    /// The forward's precision (`auto`: bf16 on CUDA, fp32 on the CPU).
    pub precision: PrecisionSetting,
    /// Seed of a `random:` net's initial weights.
    pub init_seed: u64,
}

/// A network's executor on its own, without a service around it: what `bench selfplay` serves
/// itself and what the raw rates (`selfplay --bench-raw`, `bench selfplay --raw`) time alone.
pub struct NetExecutor {
    pub executor: Box<dyn Executor>,
    /// Its id for game records, as [`NetRuntime::search_backend`] gives it.
    pub id: String,
    /// The device it runs on, for reports (`Cpu`, `Cuda(0)`).
    pub device: String,
    /// The precision `auto` resolved to on that device.
    pub precision: Precision,
}

/// What the commands need from libtorch.
pub trait NetRuntime {
    /// The lines after `fairyzero VERSION` in `--version`: the libtorch build and the device.
    fn version_lines(&self) -> Vec<String>;

    /// `info`'s report after the fairyzero line: versions, device, threads, CPU back-ends.
    fn info(&self) -> String;

    /// `spec` as a backend for search, and its id for game records.
    fn search_backend(
        &self,
        spec: &NetSpec,
        variant: &Arc<Variant>,
        options: &BackendOptions,
    ) -> Result<(Box<dyn Backend>, String)>;

    /// `spec`'s executor alone, batching up to `options.service.max_batch` positions (the
    /// rest of `options.service` is the caller's to use). Each call builds the net anew (a
    /// `random:` net from `options.init_seed`, so the same net each time).
    fn executor(&self, spec: &NetSpec, variant: &Arc<Variant>, options: &BackendOptions) -> Result<NetExecutor>;

    /// Loads checkpoint players for matches and the designer tools; `None`: checkpoint players
    /// are refused (the evaluator's `NoLoader` error).
    fn checkpoint_loader(&self, threads: Option<usize>) -> Option<Box<dyn CheckpointLoader>>;

    /// `fairyzero train`.
    fn train(&self, args: TrainArgs) -> Result<()>;

    /// `fairyzero learn`: the learner of a split run.
    fn learn(&self, args: LearnArgs) -> Result<()>;

    /// `fairyzero worker`: a self-play worker of a split run.
    fn worker(&self, args: WorkerArgs) -> Result<()>;

    /// `fairyzero rank --store URL` (the store layer lives in the trainer, beside libtorch).
    fn rank_store(&self, args: RankArgs) -> Result<()>;

    /// `fairyzero bench net`.
    fn bench_net(&self, args: NetBenchArgs) -> Result<()>;
}

/// The lean `fairyzero`'s runtime: it reports that libtorch lives in the helper.
pub struct WithoutLibtorch;

impl WithoutLibtorch {
    fn refuse(what: &str) -> anyhow::Error {
        let helper = crate::helper::path().map_or_else(|e| format!("({e})"), |p| p.display().to_string());
        anyhow::anyhow!("{what} needs libtorch, which this program does not link: run it with {helper}")
    }

    fn helper_state() -> String {
        match crate::helper::path() {
            Ok(path) if path.is_file() => format!("in {}", path.display()),
            Ok(path) => crate::helper::missing(&path),
            Err(e) => format!("helper not found ({e:#})"),
        }
    }
}

impl NetRuntime for WithoutLibtorch {
    fn version_lines(&self) -> Vec<String> {
        vec![format!("libtorch: not linked into this program; networks run {}", Self::helper_state())]
    }

    fn info(&self) -> String {
        format!("libtorch:          not linked into this program; networks run {}", Self::helper_state())
    }

    fn search_backend(
        &self,
        spec: &NetSpec,
        _: &Arc<Variant>,
        _: &BackendOptions,
    ) -> Result<(Box<dyn Backend>, String)> {
        Err(Self::refuse(&format!("the network {spec:?}")))
    }

    fn executor(&self, spec: &NetSpec, _: &Arc<Variant>, _: &BackendOptions) -> Result<NetExecutor> {
        Err(Self::refuse(&format!("the network {spec:?}")))
    }

    fn checkpoint_loader(&self, _threads: Option<usize>) -> Option<Box<dyn CheckpointLoader>> {
        None
    }

    fn train(&self, _args: TrainArgs) -> Result<()> {
        Err(Self::refuse("`train`"))
    }

    fn learn(&self, _args: LearnArgs) -> Result<()> {
        Err(Self::refuse("`learn`"))
    }

    fn worker(&self, _args: WorkerArgs) -> Result<()> {
        Err(Self::refuse("`worker`"))
    }

    fn rank_store(&self, _args: RankArgs) -> Result<()> {
        Err(Self::refuse("`rank --store`"))
    }

    fn bench_net(&self, _args: NetBenchArgs) -> Result<()> {
        Err(Self::refuse("`bench net`"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn net_specs_parse() {
        assert_eq!(NetSpec::parse("random:tiny").unwrap(), NetSpec::Random(NetConfig::tiny()));
        let dir = std::env::temp_dir();
        assert_eq!(NetSpec::parse(dir.to_str().unwrap()).unwrap(), NetSpec::Checkpoint(dir.clone()));
        let err = NetSpec::parse("/nonexistent/ckpt").unwrap_err();
        assert!(err.to_string().contains("no such checkpoint directory"), "{err}");
        let err = format!("{:#}", NetSpec::parse("random:huge").unwrap_err());
        assert!(err.starts_with("--net random:huge"), "{err}");
    }

    /// The lean program's runtime refuses, naming the helper, rather than panicking.
    #[test]
    fn the_lean_runtime_names_the_helper() {
        let v = Variant::load("gardner").unwrap();
        let options = BackendOptions::default();
        let err = WithoutLibtorch.search_backend(&NetSpec::Random(NetConfig::tiny()), &v, &options).err().unwrap();
        assert!(err.to_string().contains("fairyzero-torch"), "{err}");
        let err = WithoutLibtorch.executor(&NetSpec::Random(NetConfig::tiny()), &v, &options).err().unwrap();
        assert!(err.to_string().contains("fairyzero-torch"), "{err}");
        assert!(WithoutLibtorch.checkpoint_loader(Some(1)).is_none());
        assert!(WithoutLibtorch.version_lines()[0].contains("fairyzero-torch"));
    }
}
