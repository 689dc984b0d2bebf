//! A long self-play session on a thread of its own, shared by the two roles that play: `train`
//! (self-play beside the learner, in one process) and `worker` (self-play only, publishing to a
//! store another machine's learner reads).
//!
//! One [`run_selfplay_session`] lives for the whole start of the process (KataGo's way): its
//! games are not stopped at an iteration's end, and a new net is swapped into the session's
//! inference service between two forwards ([`SelfPlaySession::swap`]); each record names the net
//! current at its game's start. Finished games come out of a channel ([`SelfPlaySession::next`]).

use std::{
    sync::{atomic::AtomicBool, atomic::Ordering, mpsc, Arc},
    time::Duration,
};

use anyhow::{bail, Context};
use fairyzero_model::service::InferenceService;
use fairyzero_rules::Variant;
use fairyzero_selfplay::{
    run_selfplay_session, runner::SelfPlayError, CurrentNet, Evaluator, GameEnd, GameRecord, RunOptions,
    SelfPlayConfig, Summary,
};
use fairyzero_torch::{serve, ExecutorOptions, Net, TorchExecutor};

use crate::config::RunConfig;

/// What [`SelfPlaySession::next`] found.
pub enum Next {
    /// A finished game.
    Game(Box<GameRecord>, GameEnd),
    /// None within the wait.
    Idle,
    /// The session has ended: its games budget is played, or it was stopped (or it failed:
    /// [`SelfPlaySession::join`] says how).
    Ended,
}

/// How a run's self-play executors run on `device` (the first one and every swapped-in one):
/// `output.inference_threads` and the `precision` resolved for the device.
pub fn executor_options(config: &RunConfig, device: fairyzero_torch::Device) -> ExecutorOptions {
    let threads = (config.output.inference_threads > 0).then_some(config.output.inference_threads);
    ExecutorOptions { threads, precision: config.precision.resolve(device.is_cuda()) }
}

/// The inference service that every self-play thread of a session shares, around `net`.
pub fn selfplay_service(config: &RunConfig, net: Net, executor: ExecutorOptions) -> InferenceService {
    let device = net.device();
    let service = serve(net, config.selfplay.service_config(), executor);
    // The first thing to check when a GPU runs slower than expected (docs/performance.md).
    tracing::info!(
        "self-play: {} games at once on {} search threads, forwards of at most {} positions on {device:?}",
        config.selfplay.games_in_parallel,
        config.selfplay.threads,
        service.max_batch()
    );
    service
}

/// What a session plays.
pub struct SessionPlan {
    /// The first net's id in the records (a checkpoint name).
    pub net: String,
    /// Games to play; `u64::MAX`: until stopped.
    pub games: u64,
    /// Run seed (game `i` plays from `game_seed(seed, i)`): distinct per process and restart.
    pub seed: u64,
}

/// The self-play of one process: games on a thread of its own, coming out through a channel.
pub struct SelfPlaySession {
    pub service: Arc<InferenceService>,
    /// The id of the net in the service (what new games record).
    pub net: CurrentNet,
    executor: ExecutorOptions,
    /// The session's own stop (time budget, a failure, the end); the `interrupt` flag given to
    /// [`SelfPlaySession::start`] stops it too.
    pub stop: Arc<AtomicBool>,
    games: mpsc::Receiver<(Box<GameRecord>, GameEnd)>,
    thread: Option<std::thread::JoinHandle<Result<Summary, SelfPlayError>>>,
}

impl SelfPlaySession {
    /// Starts playing `plan.games` games with `net`, which records as `plan.net`.
    pub fn start(
        variant: &Arc<Variant>,
        config: &RunConfig,
        net: Net,
        plan: SessionPlan,
        executor: ExecutorOptions,
        interrupt: Arc<AtomicBool>,
    ) -> anyhow::Result<SelfPlaySession> {
        let service = Arc::new(selfplay_service(config, net, executor));
        let name = CurrentNet::new(plan.net.clone());
        let options = RunOptions { games: plan.games, seed: plan.seed, net: plan.net, out_dir: None, progress: false };
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, games) = mpsc::channel();
        let thread = {
            let (service, name, stop) = (Arc::clone(&service), name.clone(), Arc::clone(&stop));
            let (variant, selfplay): (Arc<Variant>, SelfPlayConfig) = (Arc::clone(variant), config.selfplay.clone());
            std::thread::Builder::new()
                .name("selfplay".into())
                .spawn(move || {
                    let evaluator = Evaluator::Service(&service);
                    run_selfplay_session(
                        &variant,
                        &selfplay,
                        evaluator,
                        &options,
                        &name,
                        &[&stop, &interrupt],
                        |g, end| {
                            // The receiver is gone only when the process ends on an error.
                            let _ = tx.send((Box::new(g.clone()), end));
                        },
                    )
                })
                .context("starting the self-play thread")?
        };
        Ok(SelfPlaySession { service, net: name, executor, stop, games, thread: Some(thread) })
    }

    /// The next finished game, waiting up to `wait`.
    pub fn next(&self, wait: Duration) -> Next {
        match self.games.recv_timeout(wait) {
            Ok((record, end)) => Next::Game(record, end),
            Err(mpsc::RecvTimeoutError::Timeout) => Next::Idle,
            Err(mpsc::RecvTimeoutError::Disconnected) => Next::Ended,
        }
    }

    /// Every game finished and not yet taken, once the session has stopped (blocks until its
    /// thread ends, within a batch of the stop).
    pub fn drain(&self) -> Vec<(Box<GameRecord>, GameEnd)> {
        self.games.iter().collect()
    }

    /// Puts `net` (named `name`) in the service from its next forward on; the games in progress
    /// go on with it, the games started from now on record `name`.
    pub fn swap(&self, net: Net, name: &str) {
        let executor = TorchExecutor::with_options(net, self.service.max_batch(), self.executor);
        self.service.swap_executor(Box::new(executor));
        self.net.set(name);
    }

    /// Waits for the session's thread (it has ended or been stopped) and returns its error.
    pub fn join(&mut self) -> anyhow::Result<()> {
        let Some(thread) = self.thread.take() else { return Ok(()) };
        match thread.join() {
            Ok(result) => result.map(drop).context("self-play"),
            Err(_) => bail!("the self-play thread panicked"),
        }
    }
}

impl Drop for SelfPlaySession {
    /// A process that ends on an error stops its self-play rather than leaving it playing.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
