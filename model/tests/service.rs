//! The inference service: answers reach exactly their submitter, batches merge across threads,
//! `max_wait` bounds latency, executor failures reach the waiters and dropping joins the thread.

mod common;

use std::{
    hash::{DefaultHasher, Hash, Hasher},
    panic::{catch_unwind, AssertUnwindSafe},
    sync::{
        mpsc::{channel, Receiver, Sender},
        Arc, Barrier, Mutex,
    },
    thread,
    time::{Duration, Instant},
};

use common::{legal, random_positions};
use fairyzero_model::{
    backend::{Backend, EvalOutput, EvalRequest, Evaluation, MockBackend},
    encoding::{EncodedBatch, StandardEncoding},
    service::{Executor, InferenceService, LatencyExecutor, ServiceConfig, UniformExecutor},
};
use fairyzero_rules::{MoveList, Position, Variant};

/// Positions of one variant with their legal moves.
struct Leaves {
    positions: Vec<Position>,
    moves: Vec<MoveList>,
}

impl Leaves {
    fn new(variant: &str, games: usize, seed: u64) -> Leaves {
        let v = Variant::load(variant).unwrap();
        let positions = random_positions(&v, games, 40, seed);
        let moves = positions.iter().map(legal).collect();
        Leaves { positions, moves }
    }

    fn requests(&self, range: std::ops::Range<usize>) -> Vec<EvalRequest<'_>> {
        range.map(|i| EvalRequest { position: &self.positions[i], moves: &self.moves[i] }).collect()
    }

    fn encoding(&self) -> Arc<StandardEncoding> {
        Arc::new(StandardEncoding::new(Arc::clone(self.positions[0].variant())))
    }
}

fn config(max_batch: usize, max_wait: Duration) -> ServiceConfig {
    ServiceConfig { max_batch, max_wait, in_flight: 3, moves_per_position: 64, accelerated_max_batch: None }
}

/// Answers that are a hash of each encoded position and move, so that an answer delivered to
/// the wrong request, or out of order, cannot match the one computed for it alone.
struct FingerprintExecutor;

fn fingerprint(value: impl Hash) -> f32 {
    let mut h = DefaultHasher::new();
    value.hash(&mut h);
    (h.finish() >> 40) as f32
}

impl Executor for FingerprintExecutor {
    fn name(&self) -> String {
        "fingerprint".into()
    }

    fn max_batch(&self) -> usize {
        usize::MAX
    }

    fn run(&mut self, batch: &EncodedBatch, out: &mut EvalOutput) {
        out.clear();
        let squares = batch.squares();
        let (pieces, _, global) = batch.raw();
        for i in 0..batch.len() {
            let moves = batch.moves_of(i);
            let position = fingerprint((&pieces[i * squares..(i + 1) * squares], global[i * 12].to_bits()));
            out.push_with(moves.len(), [position, 0.0, 0.0], |policy| {
                for (p, m) in policy.iter_mut().zip(moves) {
                    *p = fingerprint(m);
                }
            });
        }
    }
}

/// What `FingerprintExecutor` answers for `requests` run on their own.
fn fingerprints_alone(leaves: &Leaves, requests: &[EvalRequest<'_>]) -> Vec<Evaluation> {
    let batch = leaves.encoding().encode_batch(requests.iter().map(|r| (r.position, r.moves)));
    let mut out = EvalOutput::new();
    FingerprintExecutor.run(&batch, &mut out);
    out.to_vec()
}

#[test]
fn answers_equal_the_mock_backend_for_three_submitting_threads() {
    let leaves = Leaves::new("chess", 6, 1);
    assert!(leaves.positions.len() >= 150, "{} positions", leaves.positions.len());
    let service = InferenceService::start(
        Box::new(UniformExecutor::new(1024)),
        leaves.encoding(),
        config(16, Duration::from_micros(200)),
    );
    thread::scope(|s| {
        for t in 0..3 {
            let (leaves, service) = (&leaves, &service);
            s.spawn(move || {
                let mut out = EvalOutput::new();
                let mut expected = EvalOutput::new();
                // Batch sizes 1..=37 cross the service's max_batch of 16 (chunks in two slots).
                for (round, size) in (1..=37).step_by(3).enumerate() {
                    let start = (t * 50 + round * 7) % (leaves.positions.len() - size);
                    let requests = leaves.requests(start..start + size);
                    service.evaluate(&requests, &mut out);
                    MockBackend::uniform().evaluate(&requests, &mut expected);
                    assert_eq!(out, expected, "thread {t}, batch of {size}");
                }
            });
        }
    });
    let stats = service.stats();
    assert_eq!(stats.positions, 3 * (1..=37).step_by(3).sum::<usize>() as u64);
    assert!(stats.forwards >= 3 * 13 / 2, "{stats:?}");
}

#[test]
fn a_submitter_gets_exactly_its_own_answers_in_its_order() {
    let leaves = Leaves::new("scirocco", 8, 2);
    let n = leaves.positions.len();
    let service = InferenceService::start(
        Box::new(FingerprintExecutor),
        leaves.encoding(),
        config(24, Duration::from_micros(300)),
    );
    thread::scope(|s| {
        for t in 0..4 {
            let (leaves, service) = (&leaves, &service);
            s.spawn(move || {
                let mut out = EvalOutput::new();
                for round in 0..25 {
                    // Two tickets in flight, redeemed in the other order.
                    let a = leaves.requests((t * 31 + round * 5) % (n - 20)..(t * 31 + round * 5) % (n - 20) + 13);
                    let b = leaves.requests((t * 17 + round * 11) % (n - 40)..(t * 17 + round * 11) % (n - 40) + 29);
                    let (ticket_a, ticket_b) = (service.submit(&a), service.submit(&b));
                    service.wait(ticket_b, &mut out);
                    assert_eq!(out.to_vec(), fingerprints_alone(leaves, &b), "thread {t}, round {round}, second");
                    service.wait(ticket_a, &mut out);
                    assert_eq!(out.to_vec(), fingerprints_alone(leaves, &a), "thread {t}, round {round}, first");
                }
            });
        }
    });
    assert_eq!(service.stats().positions, 4 * 25 * (13 + 29));
}

#[test]
fn a_large_submission_rolls_over_into_new_slots() {
    let leaves = Leaves::new("chess", 1, 3);
    let mut config = config(8, Duration::from_millis(800));
    config.in_flight = 1;
    let service = InferenceService::start(Box::new(FingerprintExecutor), leaves.encoding(), config);
    let requests = leaves.requests(0..20);
    let ticket = service.submit(&requests);
    // Chunks of 8, 8 and 4: each full chunk closed its slot; none is free until read.
    assert_eq!(service.slot_count(), 3);
    let mut out = EvalOutput::new();
    let started = Instant::now();
    service.wait(ticket, &mut out);
    assert!(started.elapsed() >= Duration::from_millis(700), "the last chunk of 4 waits for max_wait");
    assert_eq!(out.to_vec(), fingerprints_alone(&leaves, &requests));
    let stats = service.stats();
    assert_eq!((stats.forwards, stats.positions), (3, 20));
    assert_eq!((stats.batch_histogram[3], stats.batch_histogram[2]), (2, 1));
}

#[test]
fn eight_threads_fill_batches_and_keep_the_executor_busy() {
    // 5x5 boards: the submitters encode in debug builds on 2 shared cores, and encoding must stay
    // well below the executor's time for the executor (not the CPU) to be the bottleneck, as
    // it is with a device.
    let leaves = Leaves::new("gardner", 12, 4);
    assert!(leaves.positions.len() >= 128);
    let executor = LatencyExecutor {
        per_batch: Duration::from_millis(20),
        per_position: Duration::from_micros(10),
        max_batch: 1024,
    };
    let service = InferenceService::start(Box::new(executor), leaves.encoding(), config(1024, Duration::ZERO));
    let warmup = Duration::from_millis(300);
    let run = Duration::from_millis(2300);
    let start = Instant::now();
    let (stats_at_warmup, stats_at_end) = thread::scope(|s| {
        for t in 0..8 {
            let (leaves, service) = (&leaves, &service);
            s.spawn(move || {
                // Two groups of 64 leaves: one is evaluated while the other is submitted.
                let group_a = leaves.requests(t..t + 64);
                let group_b = leaves.requests(t + 64..t + 128);
                let mut out = EvalOutput::new();
                let mut ticket_a = service.submit(&group_a);
                while start.elapsed() < run {
                    let ticket_b = service.submit(&group_b);
                    service.wait(ticket_a, &mut out);
                    assert_eq!(out.len(), 64);
                    ticket_a = service.submit(&group_a);
                    service.wait(ticket_b, &mut out);
                    assert_eq!(out.len(), 64);
                }
                service.wait(ticket_a, &mut out);
            });
        }
        thread::sleep(warmup);
        let at_warmup = service.stats();
        thread::sleep(run - warmup - Duration::from_millis(100));
        (at_warmup, service.stats())
    });
    let interval = stats_at_end.since(&stats_at_warmup);
    println!(
        "{} forwards, mean batch {:.0}, busy {:.1}%, histogram {:?}",
        interval.forwards,
        interval.mean_batch(),
        100.0 * interval.busy_share(),
        interval.batch_histogram
    );
    assert!(interval.mean_batch() >= 256.0, "{interval:?}");
    assert!(interval.busy_share() >= 0.90, "{interval:?}");
}

#[test]
fn max_wait_bounds_the_latency_of_a_lone_small_batch() {
    let leaves = Leaves::new("chess", 1, 5);
    let requests = leaves.requests(0..3);
    let mut out = EvalOutput::new();
    for max_wait in [Duration::ZERO, Duration::from_millis(40)] {
        let service =
            InferenceService::start(Box::new(UniformExecutor::new(1024)), leaves.encoding(), config(1024, max_wait));
        let started = Instant::now();
        service.evaluate(&requests, &mut out);
        let latency = started.elapsed();
        assert_eq!(out.len(), 3);
        assert!(latency >= max_wait, "answered after {latency:?}, before max_wait {max_wait:?}");
        assert!(latency < max_wait + Duration::from_millis(500), "answered after {latency:?}, max_wait {max_wait:?}");
    }
}

/// Holds its first batch until released, reporting each batch's size.
struct GatedExecutor {
    started: Sender<usize>,
    release: Mutex<Receiver<()>>,
    first: bool,
}

impl Executor for GatedExecutor {
    fn name(&self) -> String {
        "gated".into()
    }

    fn max_batch(&self) -> usize {
        1024
    }

    fn run(&mut self, batch: &EncodedBatch, out: &mut EvalOutput) {
        self.started.send(batch.len()).unwrap();
        if std::mem::take(&mut self.first) {
            self.release.lock().unwrap().recv().unwrap();
        }
        UniformExecutor::new(1024).run(batch, out);
    }
}

#[test]
fn the_next_batch_fills_while_one_runs() {
    let leaves = Leaves::new("chess", 1, 6);
    let (started_tx, started) = channel();
    let (release, release_rx) = channel();
    let executor = GatedExecutor { started: started_tx, release: Mutex::new(release_rx), first: true };
    let service = InferenceService::start(Box::new(executor), leaves.encoding(), config(1024, Duration::ZERO));
    let first = service.submit(&leaves.requests(0..1));
    assert_eq!(started.recv_timeout(Duration::from_secs(5)).unwrap(), 1);
    // The executor holds batch 1: these submissions return at once and share batch 2.
    let second = service.submit(&leaves.requests(1..3));
    let third = service.submit(&leaves.requests(3..6));
    assert!(started.recv_timeout(Duration::from_millis(50)).is_err(), "batch 2 started while batch 1 ran");
    release.send(()).unwrap();
    let mut out = EvalOutput::new();
    service.wait(third, &mut out);
    assert_eq!(out.len(), 3);
    service.wait(first, &mut out);
    assert_eq!(out.len(), 1);
    service.wait(second, &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(started.recv_timeout(Duration::from_secs(5)).unwrap(), 5);
    assert_eq!(service.stats().forwards, 2);
}

struct PanickingExecutor;

impl Executor for PanickingExecutor {
    fn name(&self) -> String {
        "panicking".into()
    }

    fn max_batch(&self) -> usize {
        64
    }

    fn run(&mut self, _: &EncodedBatch, _: &mut EvalOutput) {
        panic!("device lost");
    }
}

#[test]
fn an_executor_panic_reaches_every_waiter_and_the_service_still_shuts_down() {
    let leaves = Leaves::new("chess", 1, 7);
    let service = InferenceService::start(Box::new(PanickingExecutor), leaves.encoding(), config(64, Duration::ZERO));
    let barrier = Barrier::new(3);
    let messages: Vec<String> = thread::scope(|s| {
        let handles: Vec<_> = (0..3)
            .map(|t| {
                let (leaves, service, barrier) = (&leaves, &service, &barrier);
                s.spawn(move || {
                    barrier.wait();
                    let requests = leaves.requests(t..t + 2);
                    let mut out = EvalOutput::new();
                    let err = catch_unwind(AssertUnwindSafe(|| service.evaluate(&requests, &mut out))).unwrap_err();
                    err.downcast_ref::<String>().cloned().unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for message in messages {
        assert!(message.contains("panicking panicked: device lost"), "{message}");
    }
    assert_eq!(service.stats().forwards, 0);
    drop(service);
}

#[test]
fn dropping_the_service_runs_what_was_submitted_and_joins_its_thread() {
    let leaves = Leaves::new("chess", 1, 8);
    let (done, finished) = channel();
    let worker = thread::spawn(move || {
        let service = InferenceService::start(
            Box::new(UniformExecutor::new(1024)),
            leaves.encoding(),
            config(1024, Duration::from_secs(60)),
        );
        let mut out = EvalOutput::new();
        service.evaluate(&[], &mut out);
        assert!(out.is_empty());
        // Unread tickets, one dropped before the service and one after: neither may hang it.
        let before = service.submit(&leaves.requests(0..4));
        let after = service.submit(&leaves.requests(4..5));
        drop(before);
        let started = Instant::now();
        drop(service);
        drop(after);
        done.send(started.elapsed()).unwrap();
    });
    let took = finished.recv_timeout(Duration::from_secs(10)).expect("dropping the service hung");
    assert!(took < Duration::from_secs(5), "drop waited for max_wait: {took:?}");
    worker.join().unwrap();
}

#[test]
fn a_swapped_executor_answers_the_next_batches() {
    let leaves = Leaves::new("chess", 1, 9);
    let service =
        InferenceService::start(Box::new(UniformExecutor::new(64)), leaves.encoding(), config(32, Duration::ZERO));
    let requests = leaves.requests(0..5);
    let mut out = EvalOutput::new();
    service.evaluate(&requests, &mut out);
    assert_eq!(out.get(0).wdl, [0.0, 1.0, 0.0]);
    assert!(service.info().name.starts_with("service(uniform"));
    service.swap_executor(Box::new(UniformExecutor { wdl: [1.0, 0.0, 0.0], max_batch: 32 }));
    service.evaluate(&requests, &mut out);
    assert!(out.iter().all(|e| e.wdl == [1.0, 0.0, 0.0]));
    assert_eq!(service.info().preferred_batch, 32);
}
