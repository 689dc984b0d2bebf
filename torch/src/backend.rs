//! The libtorch [`Backend`]: many searches share one net on one inference thread.
//!
//! `Tensor` is `Send` but not `Sync`, and libtorch's grad mode is per thread, so the net lives
//! on a dedicated thread that owns it (as KataGo's `nneval` and lc0's backends do):
//!
//! 1. [`TorchBackend::evaluate`] encodes its requests in the caller's thread (so encoding runs
//!    in parallel across search threads) and sends the batch over a channel;
//! 2. the inference thread takes the first waiting batch, merges whatever else is waiting (up to
//!    `max_batch` positions, optionally waiting `gather_wait` for more), runs one `no_grad`
//!    forward pass and replies to each caller with its own evaluations.
//!
//! [`TorchBackend::service`] is its successor: an [`InferenceService`] (many search threads
//! submit and wait on tickets, one service thread batches them) in front of a
//! [`TorchExecutor`] (device-side softmax, one device-to-host copy per batch). Callers move to
//! it one by one; this direct backend stays until they have.

use std::{
    path::Path,
    sync::{
        atomic::{AtomicU64, Ordering},
        mpsc, Arc,
    },
    thread::JoinHandle,
    time::{Duration, Instant},
};

use fairyzero_rules::Variant;
use tch::Device;

use fairyzero_model::{
    backend::{Backend, BackendInfo, EvalOutput, EvalRequest},
    config::NetConfig,
    encoding::{EncodedBatch, Encoding, StandardEncoding},
    service::{InferenceService, ServiceConfig},
};

use crate::{
    checkpoint::{self, CheckpointError},
    executor::{ExecutorOptions, TorchExecutor},
    net::{probabilities, Net, NetInput},
    runtime::configure_cuda,
};

/// How the inference thread batches and computes.
#[derive(Clone, Debug)]
pub struct TorchBackendOptions {
    /// Most positions in one forward pass.
    pub max_batch: usize,
    /// After the first request arrives, wait up to this long for more before running (0: run
    /// with whatever is already waiting).
    pub gather_wait: Duration,
    /// libtorch intra-op threads for the inference thread (`None`: leave libtorch's setting).
    pub threads: Option<usize>,
}

impl Default for TorchBackendOptions {
    fn default() -> Self {
        TorchBackendOptions { max_batch: 256, gather_wait: Duration::ZERO, threads: None }
    }
}

struct Job {
    batch: EncodedBatch,
    reply: mpsc::SyncSender<EvalOutput>,
}

#[derive(Default)]
struct Stats {
    forward_passes: AtomicU64,
    positions: AtomicU64,
}

pub struct TorchBackend {
    encoding: Arc<StandardEncoding>,
    sender: Option<mpsc::Sender<Job>>,
    worker: Option<JoinHandle<()>>,
    options: TorchBackendOptions,
    name: String,
    stats: Arc<Stats>,
}

impl TorchBackend {
    /// Starts the inference thread, which takes ownership of `net`.
    pub fn new(net: Net, options: TorchBackendOptions) -> TorchBackend {
        assert!(options.max_batch >= 1, "max_batch must be at least 1");
        let encoding = Arc::new(StandardEncoding::new(Arc::clone(net.variant())));
        let name = format!("torch({} {} on {:?})", net.variant().name, net.config(), net.device());
        let (sender, receiver) = mpsc::channel::<Job>();
        let stats = Arc::new(Stats::default());
        let worker = {
            let options = options.clone();
            let stats = Arc::clone(&stats);
            std::thread::Builder::new()
                .name("fairyzero-inference".into())
                .spawn(move || inference_loop(net, receiver, options, stats))
                .expect("spawn the inference thread")
        };
        TorchBackend { encoding, sender: Some(sender), worker: Some(worker), options, name, stats }
    }

    /// Loads a checkpoint (refusing another variant or architecture) and starts serving it.
    pub fn from_checkpoint(
        dir: &Path,
        variant: Arc<Variant>,
        architecture: Option<&NetConfig>,
        device: Device,
        options: TorchBackendOptions,
    ) -> Result<TorchBackend, CheckpointError> {
        let loaded = checkpoint::load(dir, variant, architecture, device, false)?;
        Ok(TorchBackend::new(loaded.net, options))
    }

    /// An [`InferenceService`] serving `net` on its device: a [`fairyzero_model::Backend`] whose
    /// forwards batch the submissions of every thread, up to `config.max_batch` positions,
    /// computed as `options` say. Applies [`configure_cuda`] first when the net is on CUDA.
    /// Swap the net later with `service.swap_executor(Box::new(TorchExecutor::with_options(net,
    /// service.max_batch(), options)))`.
    pub fn service(net: Net, config: ServiceConfig, options: ExecutorOptions) -> InferenceService {
        configure_cuda(net.device());
        let encoding = Arc::new(StandardEncoding::new(Arc::clone(net.variant())));
        let executor = TorchExecutor::with_options(net, config.max_batch.max(1), options);
        InferenceService::start(Box::new(executor), encoding, config)
    }

    /// `(forward passes, positions evaluated)` so far; their ratio is the mean batch size.
    pub fn stats(&self) -> (u64, u64) {
        (self.stats.forward_passes.load(Ordering::Relaxed), self.stats.positions.load(Ordering::Relaxed))
    }

    fn sender(&self) -> &mpsc::Sender<Job> {
        self.sender.as_ref().expect("the sender lives until drop")
    }
}

impl Backend for TorchBackend {
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut EvalOutput) {
        let variant = self.encoding.variant();
        let mut replies = Vec::new();
        for chunk in batch.chunks(self.options.max_batch) {
            for r in chunk {
                let v = r.position.variant();
                assert!(
                    Arc::ptr_eq(v, variant) || v.hash == variant.hash,
                    "a position of variant {} sent to a net for {}",
                    v.name,
                    variant.name
                );
            }
            let encoded = self.encoding.encode_batch(chunk.iter().map(|r| (r.position, r.moves)));
            let (reply, answer) = mpsc::sync_channel(1);
            self.sender()
                .send(Job { batch: encoded, reply })
                .expect("the inference thread stopped (see its panic above)");
            replies.push(answer);
        }
        out.clear();
        for answer in replies {
            out.extend_from(&answer.recv().expect("the inference thread stopped (see its panic above)"));
        }
    }

    fn info(&self) -> BackendInfo {
        BackendInfo { name: self.name.clone(), preferred_batch: self.options.max_batch }
    }
}

impl Drop for TorchBackend {
    fn drop(&mut self) {
        // Closing the channel ends the inference loop.
        self.sender = None;
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

fn inference_loop(net: Net, receiver: mpsc::Receiver<Job>, options: TorchBackendOptions, stats: Arc<Stats>) {
    if let Some(n) = options.threads {
        tch::set_num_threads(n as i32);
    }
    // Grad mode is per thread: this thread never records gradients.
    let _no_grad = tch::no_grad_guard();
    let device = net.device();
    let mut pending: Option<Job> = None;
    loop {
        let Some(first) = pending.take().or_else(|| receiver.recv().ok()) else { break };
        let mut size = first.batch.len();
        let mut jobs = vec![first];
        let deadline = Instant::now() + options.gather_wait;
        while size < options.max_batch {
            let next = if options.gather_wait.is_zero() {
                receiver.try_recv().ok()
            } else {
                receiver.recv_timeout(deadline.saturating_duration_since(Instant::now())).ok()
            };
            let Some(job) = next else { break };
            if size + job.batch.len() > options.max_batch {
                pending = Some(job);
                break;
            }
            size += job.batch.len();
            jobs.push(job);
        }

        let batches: Vec<&EncodedBatch> = jobs.iter().map(|j| &j.batch).collect();
        let input = NetInput::from_batches(&batches, device);
        let output = net.forward(&input);
        let (policies, wdl) = probabilities(&output, &input.offsets);
        stats.forward_passes.fetch_add(1, Ordering::Relaxed);
        stats.positions.fetch_add(size as u64, Ordering::Relaxed);

        let mut results = policies.iter().zip(wdl);
        for job in jobs {
            let mut mine = EvalOutput::new();
            for (policy, wdl) in results.by_ref().take(job.batch.len()) {
                mine.push(policy, wdl);
            }
            // A caller that gave up is no reason to stop serving the others.
            let _ = job.reply.send(mine);
        }
    }
}
