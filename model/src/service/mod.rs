//! The inference service: many search threads, one executor, batches as large as the device
//! wants (lc0's multi-gather, KataGo's NN server; docs/plans/batching.md §2).
//!
//! A search thread [`InferenceService::submit`]s its leaves and gets a [`Ticket`]; the leaves
//! are encoded in that thread (encoding is parallel across threads, the service's lock is held
//! only for a memcpy), then appended to the slot being filled. It searches on and later
//! [`InferenceService::wait`]s for its own answers only. One service thread hands slots to the
//! [`Executor`]: a slot is launched when it holds `max_batch` positions, or when the executor
//! is idle and `max_wait` has passed since the slot's first submission (0: launch as soon as it
//! is idle). While one batch runs the next one fills, so submission overlaps execution and
//! the batch size settles where gathering a batch takes as long as running one.
//!
//! [`InferenceService`] implements [`Backend`] (submit, then wait), so existing search code uses
//! it unchanged.
//!
//! ```
//! use std::sync::Arc;
//! use fairyzero_model::{
//!     backend::{EvalOutput, EvalRequest},
//!     encoding::StandardEncoding,
//!     service::{InferenceService, ServiceConfig, UniformExecutor},
//! };
//! use fairyzero_rules::{MoveList, Position, Variant};
//!
//! let v = Variant::load("scirocco").unwrap();
//! let mut pos = Position::start(Arc::clone(&v));
//! let mut moves = MoveList::new();
//! pos.legal_moves(&mut moves);
//! let encoding = Arc::new(StandardEncoding::new(v));
//! let service = InferenceService::start(Box::new(UniformExecutor::new(256)), encoding, ServiceConfig::default());
//!
//! let ticket = service.submit(&[EvalRequest { position: &pos, moves: &moves }]);
//! // ... gather and submit the leaves of other games meanwhile ...
//! let mut out = EvalOutput::new();
//! service.wait(ticket, &mut out);
//! assert_eq!(out.get(0).policy.len(), moves.len());
//! assert_eq!(service.stats().positions, 1);
//! ```
//!
//! Simplifications against the plan's day-one interfaces (§7.1), to be lifted by the torch
//! executor work:
//! - slots carry the encoding's own [`EncodedBatch`] (owned copies of the submitters' encoded
//!   chunks) instead of pinned column buffers (`HostBatch`, `ColumnsBuf`), and an executor
//!   answers into an [`EvalOutput`]: [`Executor::run`] takes the batch, not `HostInputs`;
//! - `in_flight` is the number of slots made at start; when all are busy a submission adds a
//!   slot rather than wait (a submitter may hold the unread answers that would free one), so
//!   it is not a cap;
//! - no `DeviceQueue` shared by services of one device, and `Backend` has no `stats` method
//!   yet: read [`InferenceService::stats`];
//! - a submission is cut into chunks of at most `max_batch` positions, each in one slot; a
//!   slot closes early when the next chunk does not fit.

mod mock;
mod slots;
mod stats;

use std::{
    panic::{catch_unwind, AssertUnwindSafe},
    sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError},
    thread::JoinHandle,
    time::{Duration, Instant},
};

pub use mock::{LatencyExecutor, UniformExecutor};
use slots::{Next, Part, Readiness, Slots};
pub use stats::{ServiceStats, HISTOGRAM_BUCKETS};

use crate::{
    backend::{Backend, BackendInfo, EvalOutput, EvalRequest},
    encoding::{EncodedBatch, Encoding},
};

/// How the service batches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceConfig {
    /// Most positions in one forward (also capped by [`Executor::max_batch`]).
    pub max_batch: usize,
    /// How long a non-empty batch may wait for more positions once the executor is idle.
    pub max_wait: Duration,
    /// Slots made at start (filling, queued, running, being read out); see the module doc.
    pub in_flight: usize,
    /// Capacity hint for each slot's move buffer.
    pub moves_per_position: usize,
    /// `max_batch` when the executor runs on an accelerator (CUDA), where a forward of a few
    /// hundred positions costs little more than one of 64; `None`: `max_batch` on every device.
    /// The backend that knows the device applies it (`fairyzero_torch::serve`).
    pub accelerated_max_batch: Option<usize>,
}

impl ServiceConfig {
    /// The cap of a forward on an executor that runs on an accelerator or not.
    pub fn max_batch_on(&self, accelerator: bool) -> usize {
        match (accelerator, self.accelerated_max_batch) {
            (true, Some(accelerated)) => accelerated,
            _ => self.max_batch,
        }
    }
}

impl Default for ServiceConfig {
    fn default() -> ServiceConfig {
        ServiceConfig {
            max_batch: 64,
            max_wait: Duration::ZERO,
            in_flight: 3,
            moves_per_position: 128,
            accelerated_max_batch: None,
        }
    }
}

/// What runs batches: a network on a device, or a mock.
pub trait Executor: Send + 'static {
    /// For logs and [`BackendInfo`].
    fn name(&self) -> String;

    /// The largest batch it accepts.
    fn max_batch(&self) -> usize;

    /// Evaluates every position of `batch`: `out` is cleared, then holds one evaluation per
    /// position, in order, with a policy over exactly that position's moves.
    fn run(&mut self, batch: &EncodedBatch, out: &mut EvalOutput);
}

/// The answers to one [`InferenceService::submit`], redeemed with [`InferenceService::wait`].
/// Dropping it unread releases its share of the batch.
#[must_use = "a ticket is redeemed with `wait`"]
pub struct Ticket {
    shared: Arc<Shared>,
    /// The chunks in submission order; `first` avoids an allocation for the usual single chunk.
    first: Option<Part>,
    rest: Vec<Part>,
}

impl Ticket {
    fn parts(&mut self) -> impl Iterator<Item = Part> + '_ {
        self.first.take().into_iter().chain(self.rest.drain(..))
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if self.first.is_none() && self.rest.is_empty() {
            return;
        }
        let shared = Arc::clone(&self.shared);
        let mut state = shared.lock();
        for part in self.parts() {
            state.slots.release(part);
        }
    }
}

struct State {
    slots: Slots,
    /// Set by `Drop`: the service thread runs what is submitted, then ends.
    shutdown: bool,
    /// Why the executor failed (it panicked or answered wrongly): every later batch fails too.
    failure: Option<String>,
    /// An executor to use from the next forward on.
    replacement: Option<Box<dyn Executor>>,
    executor_name: String,
    stats: ServiceStats,
}

struct Shared {
    state: Mutex<State>,
    /// Wakes the service thread: a slot closed, a first submission, shutdown.
    work: Condvar,
    /// Wakes waiters: a slot finished.
    done: Condvar,
    encoding: Arc<dyn Encoding>,
    max_wait: Duration,
    moves_per_position: usize,
    started: Instant,
    /// Encoding buffers for submitters, so that a submission allocates nothing once warm.
    scratch: Mutex<Vec<EncodedBatch>>,
}

impl Shared {
    /// The state; a panic elsewhere never leaves it half-updated (no code panics under the
    /// lock on purpose), so a poisoned lock is still usable.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Batches evaluations of many search threads for one executor; see the module doc.
pub struct InferenceService {
    shared: Arc<Shared>,
    max_batch: usize,
    thread: Option<JoinHandle<()>>,
}

impl InferenceService {
    /// Starts the service thread. `encoding` encodes the submitted positions (all of its
    /// variant).
    pub fn start(executor: Box<dyn Executor>, encoding: Arc<dyn Encoding>, config: ServiceConfig) -> InferenceService {
        let max_batch = config.max_batch.min(executor.max_batch());
        assert!(
            max_batch >= 1,
            "max_batch must be at least 1 (service {}, executor {})",
            config.max_batch,
            executor.max_batch()
        );
        let dims = encoding.variant().dims;
        let slots = Slots::new(
            config.in_flight.max(1),
            dims.width as usize,
            dims.height as usize,
            max_batch,
            config.moves_per_position,
        );
        let executor_name = executor.name();
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                slots,
                shutdown: false,
                failure: None,
                replacement: None,
                executor_name: executor_name.clone(),
                stats: ServiceStats::default(),
            }),
            work: Condvar::new(),
            done: Condvar::new(),
            encoding,
            max_wait: config.max_wait,
            moves_per_position: config.moves_per_position,
            started: Instant::now(),
            scratch: Mutex::new(Vec::new()),
        });
        let thread = std::thread::Builder::new()
            .name(format!("inference {executor_name}"))
            .spawn({
                let shared = Arc::clone(&shared);
                move || serve(&shared, executor)
            })
            .expect("spawning the inference service thread");
        InferenceService { shared, max_batch, thread: Some(thread) }
    }

    /// Most positions in one forward.
    pub fn max_batch(&self) -> usize {
        self.max_batch
    }

    /// Encodes `requests` in this thread and queues them; never waits for a forward.
    pub fn submit(&self, requests: &[EvalRequest<'_>]) -> Ticket {
        let shared = &self.shared;
        let mut ticket = Ticket { shared: Arc::clone(shared), first: None, rest: Vec::new() };
        if requests.is_empty() {
            return ticket;
        }
        let mut chunk = shared.scratch.lock().unwrap_or_else(PoisonError::into_inner).pop().unwrap_or_else(|| {
            let dims = shared.encoding.variant().dims;
            EncodedBatch::with_capacity(
                dims.width as usize,
                dims.height as usize,
                requests.len().min(self.max_batch),
                shared.moves_per_position,
            )
        });
        for requests in requests.chunks(self.max_batch) {
            chunk.clear();
            for r in requests {
                chunk.push(&*shared.encoding, r.position, r.moves);
            }
            let (part, wake) = shared.lock().slots.append(&chunk, Instant::now());
            if wake {
                shared.work.notify_one();
            }
            match ticket.first {
                None => ticket.first = Some(part),
                Some(_) => ticket.rest.push(part),
            }
        }
        shared.scratch.lock().unwrap_or_else(PoisonError::into_inner).push(chunk);
        ticket
    }

    /// Blocks until the ticket's answers are in, then puts them in `out` (cleared first), in
    /// the submitted order.
    ///
    /// # Panics
    /// When the ticket is another service's, or the executor failed on its batch.
    pub fn wait(&self, mut ticket: Ticket, out: &mut EvalOutput) {
        assert!(Arc::ptr_eq(&ticket.shared, &self.shared), "a ticket of another inference service");
        out.clear();
        let shared = Arc::clone(&self.shared);
        let mut state = shared.lock();
        // Popped from the back, so that unread parts stay in the ticket for its `Drop`.
        ticket.rest.reverse();
        while let Some(part) = ticket.first.take().or_else(|| ticket.rest.pop()) {
            loop {
                match state.slots.readiness(&part) {
                    Readiness::Done => {
                        state.slots.read(part, out);
                        break;
                    }
                    Readiness::Failed => {
                        state.slots.release(part);
                        let why = state.failure.clone().unwrap_or_default();
                        drop(state);
                        drop(ticket);
                        panic!("inference service: the executor failed: {why}");
                    }
                    Readiness::Pending => state = shared.done.wait(state).unwrap_or_else(PoisonError::into_inner),
                }
            }
        }
    }

    /// Uses `executor` from the next forward on (a new net after training); batches already
    /// running finish with the old one.
    ///
    /// # Panics
    /// When `executor` accepts smaller batches than this service makes.
    pub fn swap_executor(&self, executor: Box<dyn Executor>) {
        assert!(
            executor.max_batch() >= self.max_batch,
            "executor {} takes batches of {}, the service makes {}",
            executor.name(),
            executor.max_batch(),
            self.max_batch
        );
        self.shared.lock().replacement = Some(executor);
        self.shared.work.notify_one();
    }

    /// Counters since the start.
    pub fn stats(&self) -> ServiceStats {
        let mut stats = self.shared.lock().stats;
        stats.elapsed = self.shared.started.elapsed();
        stats
    }

    /// Number of slots (the `in_flight` ones made at start, plus any added under load).
    pub fn slot_count(&self) -> usize {
        self.shared.lock().slots.count()
    }
}

impl Backend for InferenceService {
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut EvalOutput) {
        let ticket = self.submit(batch);
        self.wait(ticket, out);
    }

    fn info(&self) -> BackendInfo {
        let name = self.shared.lock().executor_name.clone();
        BackendInfo { name: format!("service({name})"), preferred_batch: self.max_batch }
    }

    fn as_service(&self) -> Option<&InferenceService> {
        Some(self)
    }
}

impl Drop for InferenceService {
    /// Runs what was submitted, then joins the service thread.
    fn drop(&mut self) {
        self.shared.lock().shutdown = true;
        self.shared.work.notify_one();
        if let Some(thread) = self.thread.take() {
            // The thread catches executor panics, so an error here is a bug already reported
            // by the panic hook; dropping must not panic on top of it.
            let _ = thread.join();
        }
    }
}

/// The service thread: runs slots as they become due, until shutdown with nothing left.
fn serve(shared: &Shared, mut executor: Box<dyn Executor>) {
    let mut state = shared.lock();
    // Waiters of the last batch are woken only once the next one is launched (or none is
    // due): woken threads would otherwise compete with this one for the lock and a core.
    let mut wake_waiters = false;
    loop {
        if let Some(next) = state.replacement.take() {
            executor = next;
            state.executor_name = executor.name();
        }
        let now = Instant::now();
        let flush = state.shutdown;
        let next = state.slots.next(shared.max_wait, flush, now);
        if wake_waiters && !matches!(next, Next::Run(..)) {
            shared.done.notify_all();
            wake_waiters = false;
        }
        match next {
            Next::Run(slot, mut buffers) => {
                let mut failure = state.failure.clone();
                drop(state);
                if std::mem::take(&mut wake_waiters) {
                    shared.done.notify_all();
                }
                let started = Instant::now();
                if failure.is_none() {
                    failure = run_checked(&mut *executor, &buffers.batch, &mut buffers.output).err();
                }
                let busy = started.elapsed();
                state = shared.lock();
                if failure.is_none() {
                    state.stats.record(buffers.batch.len(), buffers.batch.moves().len(), busy);
                } else if state.failure.is_none() {
                    state.failure = failure.clone();
                }
                state.slots.finish(slot, buffers, failure.is_none());
                wake_waiters = true;
            }
            Next::WaitUntil(due) => {
                state = shared.work.wait_timeout(state, due - now).unwrap_or_else(PoisonError::into_inner).0;
            }
            Next::Idle if flush => return,
            Next::Idle => state = shared.work.wait(state).unwrap_or_else(PoisonError::into_inner),
        }
    }
}

/// Runs one batch, turning a panic or a malformed answer into an error message.
fn run_checked(executor: &mut dyn Executor, batch: &EncodedBatch, out: &mut EvalOutput) -> Result<(), String> {
    catch_unwind(AssertUnwindSafe(|| executor.run(batch, out))).map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string());
        format!("{} panicked: {message}", executor.name())
    })?;
    let name = || executor.name();
    if out.len() != batch.len() {
        return Err(format!("{} answered {} positions of a batch of {}", name(), out.len(), batch.len()));
    }
    if let Some(i) = (0..batch.len()).find(|&i| out.get(i).policy.len() != batch.moves_of(i).len()) {
        return Err(format!(
            "{} gave position {i} a policy of {} entries for {} moves",
            name(),
            out.get(i).policy.len(),
            batch.moves_of(i).len()
        ));
    }
    Ok(())
}
