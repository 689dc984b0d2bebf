//! The torch executor behind the inference service, on CPU: it answers like the direct
//! backend's forward (`Net` + host softmax) for submissions of several threads, and a net
//! swapped in between forwards is the one that answers afterwards; bf16 is honoured.

// Positions from seeded random play: the model crate's test helper, shared rather than copied.
#[path = "../../model/tests/common/mod.rs"]
mod common;

use std::{
    sync::{Arc, Mutex, PoisonError},
    time::Duration,
};

use fairyzero_model::{
    service::{Executor, ServiceConfig},
    Backend, EncodedBatch, EvalOutput, EvalRequest, Evaluation, NetConfig, Precision, StandardEncoding,
};
use fairyzero_rules::{MoveList, Position, Variant};
use fairyzero_torch::{executor::ConvLayout, net::probabilities, ExecutorOptions, Net, NetInput, TorchExecutor};
use tch::Device;

const CPU: Device = Device::Cpu;
/// Same positions in the same batch: only the softmax moved (host to device).
const SAME_BATCH: f32 = 1e-6;
/// Batches cut differently (several submitters): libtorch's CPU kernels round differently by
/// batch size (2.3e-6 seen here; torch/tests/net.rs saw 1e-5 fail once in 25 runs), while an
/// answer routed to the wrong position would be off by far more.
const OTHER_BATCH: f32 = 1e-4;

/// A seeded tiny net whose residual scales are woken (SkipInit starts them at 0), so that the
/// tower matters.
fn tiny_net(variant: &Arc<Variant>, seed: u64) -> Net {
    // `Net::seeded` seeds libtorch's global generator, which the tests share: one at a time.
    static SEEDING: Mutex<()> = Mutex::new(());
    let _seeding = SEEDING.lock().unwrap_or_else(PoisonError::into_inner);
    let net = Net::seeded(&NetConfig::tiny(), Arc::clone(variant), CPU, seed);
    tch::no_grad(|| {
        for (name, mut t) in net.var_store().variables() {
            if name.ends_with(".scale") {
                let _ = t.fill_(0.5);
            }
        }
    });
    net
}

/// What the direct backend computes: the forward, then the host softmax of `probabilities`.
fn reference(net: &Net, positions: &[Position], moves: &[MoveList]) -> Vec<Evaluation> {
    reference_in(net, positions, moves, Precision::Fp32)
}

/// [`reference`] with the forward in `precision`.
fn reference_in(net: &Net, positions: &[Position], moves: &[MoveList], precision: Precision) -> Vec<Evaluation> {
    let encoding = StandardEncoding::new(Arc::clone(net.variant()));
    let batch = encoding.encode_batch(positions.iter().zip(moves).map(|(p, m)| (p, m.as_slice())));
    let (policies, wdl) = tch::no_grad(|| {
        let input = NetInput::new(&batch, net.device());
        probabilities(&net.forward_with(&input, precision), &input.offsets)
    });
    let mut out = EvalOutput::new();
    for (p, w) in policies.iter().zip(wdl) {
        out.push(p, w);
    }
    out.to_vec()
}

fn assert_close(got: &Evaluation, want: &Evaluation, tolerance: f32, what: &str) {
    assert_eq!(got.policy.len(), want.policy.len(), "{what}: policy length");
    for (a, b) in got.policy.iter().zip(&want.policy).chain(got.wdl.iter().zip(&want.wdl)) {
        assert!((a - b).abs() <= tolerance, "{what}: {a} vs {b}\n got {got:?}\nwant {want:?}");
    }
}

fn requests<'a>(positions: &'a [Position], moves: &'a [MoveList]) -> Vec<EvalRequest<'a>> {
    positions.iter().zip(moves).map(|(p, m)| EvalRequest { position: p, moves: m }).collect()
}

/// One libtorch thread per service: the harness runs tests in parallel on few cores.
const ONE_THREAD: ExecutorOptions = ExecutorOptions { threads: Some(1), precision: Precision::Fp32 };

const THREADS: usize = 3;
const ROUNDS: usize = 6;

/// Positions that thread `t` submits in `round`.
fn slice_len(t: usize, round: usize) -> usize {
    1 + (t + 2 * round) % 7
}

/// Three threads submit overlapping slices of the positions (one to seven at a time) and check
/// every answer against the reference of a net with the same seed.
fn three_submitters(service: &dyn Backend, requests: &[EvalRequest<'_>], want: &[Evaluation], what: &str) {
    std::thread::scope(|s| {
        for t in 0..THREADS {
            s.spawn(move || {
                let mut out = EvalOutput::new();
                for round in 0..ROUNDS {
                    let start = (t * 11 + round * 5) % requests.len();
                    let len = slice_len(t, round);
                    let idx: Vec<usize> = (start..start + len).map(|i| i % requests.len()).collect();
                    let batch: Vec<EvalRequest<'_>> = idx.iter().map(|&i| requests[i]).collect();
                    service.evaluate(&batch, &mut out);
                    assert_eq!(out.len(), batch.len(), "{what}");
                    for (k, &i) in idx.iter().enumerate() {
                        assert_close(
                            &out.get(k).to_evaluation(),
                            &want[i],
                            OTHER_BATCH,
                            &format!("{what}: thread {t}, position {i}"),
                        );
                    }
                }
            });
        }
    });
}

#[test]
fn the_service_answers_like_the_net_on_several_variants() {
    fairyzero_torch::set_threads(1);
    for (k, name) in ["scirocco", "chess", "typhoon"].into_iter().enumerate() {
        let variant = Variant::load(name).unwrap();
        let positions = common::random_positions(&variant, 3, 12, 40 + k as u64);
        let moves: Vec<MoveList> = positions.iter().map(common::legal).collect();
        let seed = 100 + k as u64;
        let want = reference(&tiny_net(&variant, seed), &positions, &moves);
        let requests = requests(&positions, &moves);

        assert!(positions.len() <= 64, "{name}: {} positions do not fit one batch", positions.len());
        let config = ServiceConfig { max_batch: 64, max_wait: Duration::from_micros(200), ..ServiceConfig::default() };
        let service = fairyzero_torch::serve(tiny_net(&variant, seed), config, ONE_THREAD);
        three_submitters(&service, &requests, &want, name);
        // One submission from one thread is one batch, exactly the reference's.
        let mut out = EvalOutput::new();
        service.evaluate(&requests, &mut out);
        for (i, want) in want.iter().enumerate() {
            assert_close(&out.get(i).to_evaluation(), want, SAME_BATCH, &format!("{name}: whole set, position {i}"));
        }
        let stats = service.stats();
        let submitted: usize = (0..THREADS).flat_map(|t| (0..ROUNDS).map(move |r| slice_len(t, r))).sum();
        assert_eq!(stats.positions, (submitted + requests.len()) as u64, "{name}: {stats:?}");
    }
}

#[test]
fn a_swapped_net_answers_from_the_next_forward_on() {
    fairyzero_torch::set_threads(1);
    let variant = Variant::load("scirocco").unwrap();
    let positions = common::random_positions(&variant, 2, 10, 7);
    let moves: Vec<MoveList> = positions.iter().map(common::legal).collect();
    let requests = requests(&positions, &moves);
    let want_a = reference(&tiny_net(&variant, 1), &positions, &moves);
    let want_b = reference(&tiny_net(&variant, 2), &positions, &moves);
    // The two nets really differ, so the check below can tell them apart.
    assert!(want_a.iter().zip(&want_b).any(|(a, b)| (a.wdl[0] - b.wdl[0]).abs() > 1e-3));

    let config = ServiceConfig { max_batch: 64, max_wait: Duration::ZERO, ..ServiceConfig::default() };
    let service = fairyzero_torch::serve(tiny_net(&variant, 1), config, ONE_THREAD);
    let mut out = EvalOutput::new();
    service.evaluate(&requests, &mut out);
    for (i, want) in want_a.iter().enumerate() {
        assert_close(&out.get(i).to_evaluation(), want, SAME_BATCH, &format!("before the swap, position {i}"));
    }
    service.swap_executor(Box::new(TorchExecutor::new(tiny_net(&variant, 2), service.max_batch())));
    service.evaluate(&requests, &mut out);
    for (i, want) in want_b.iter().enumerate() {
        assert_close(&out.get(i).to_evaluation(), want, SAME_BATCH, &format!("after the swap, position {i}"));
    }
}

#[test]
fn the_executor_alone_fills_the_output_in_order() {
    fairyzero_torch::set_threads(1);
    let variant = Variant::load("chess").unwrap();
    let positions = common::random_positions(&variant, 2, 8, 3);
    let moves: Vec<MoveList> = positions.iter().map(common::legal).collect();
    let want = reference(&tiny_net(&variant, 5), &positions, &moves);
    let encoding = StandardEncoding::new(Arc::clone(&variant));
    let batch: EncodedBatch = encoding.encode_batch(positions.iter().zip(&moves).map(|(p, m)| (p, m.as_slice())));

    let mut executor = TorchExecutor::new(tiny_net(&variant, 5), 64);
    assert_eq!(executor.max_batch(), 64);
    assert!(executor.name().contains("chess"), "{}", executor.name());
    let mut out = EvalOutput::new();
    // Twice through the same buffers: the second answer is not appended to the first.
    for _ in 0..2 {
        executor.run(&batch, &mut out);
        assert_eq!(out.len(), positions.len());
        for (i, want) in want.iter().enumerate() {
            let got = out.get(i).to_evaluation();
            assert_close(&got, want, SAME_BATCH, &format!("position {i}"));
            let sum: f32 = got.policy.iter().sum();
            assert!((sum - 1.0).abs() < 1e-5, "position {i}: policy sums to {sum}");
        }
    }
    executor.run(&EncodedBatch::with_capacity(8, 8, 0, 0), &mut out);
    assert!(out.is_empty());
}

#[test]
fn bf16_is_honoured() {
    fairyzero_torch::set_threads(1);
    let variant = Variant::load("scirocco").unwrap();
    let positions = common::random_positions(&variant, 2, 12, 11);
    let moves: Vec<MoveList> = positions.iter().map(common::legal).collect();
    let fp32 = reference(&tiny_net(&variant, 9), &positions, &moves);
    let bf16 = reference_in(&tiny_net(&variant, 9), &positions, &moves, Precision::Bf16);

    let config = ServiceConfig { max_batch: 64, max_wait: Duration::ZERO, ..ServiceConfig::default() };
    let options = ExecutorOptions { precision: Precision::Bf16, ..ONE_THREAD };
    let service = fairyzero_torch::serve(tiny_net(&variant, 9), config, options);
    assert!(service.info().name.contains("bf16"), "{}", service.info().name);
    let mut out = EvalOutput::new();
    service.evaluate(&requests(&positions, &moves), &mut out);
    let mut off_fp32 = 0f32;
    for (i, (want, fp32)) in bf16.iter().zip(&fp32).enumerate() {
        let got = out.get(i).to_evaluation();
        // The net's own bf16 forward (its accuracy against fp32 is tests/precision.rs's).
        assert_close(&got, want, SAME_BATCH, &format!("bf16, position {i}"));
        let diffs = got.policy.iter().zip(&fp32.policy).chain(got.wdl.iter().zip(&fp32.wdl));
        off_fp32 = diffs.map(|(a, b)| (a - b).abs()).fold(off_fp32, f32::max);
    }
    assert!(off_fp32 > 1e-4, "bf16 answered like fp32 ({off_fp32}): the precision is ignored");
}

/// Channels-last is the CUDA default and NCHW the CPU's; either answers like the other
/// (float rounding only), and the layout can be switched back and forth.
#[test]
fn channels_last_answers_like_nchw() {
    fairyzero_torch::set_threads(1);
    assert!(ConvLayout::Auto.is_channels_last(Device::Cuda(0)));
    assert!(!ConvLayout::Auto.is_channels_last(CPU));
    let variant = Variant::load("typhoon").unwrap();
    let positions = common::random_positions(&variant, 2, 10, 13);
    let moves: Vec<MoveList> = positions.iter().map(common::legal).collect();
    let encoding = StandardEncoding::new(Arc::clone(&variant));
    let batch: EncodedBatch = encoding.encode_batch(positions.iter().zip(&moves).map(|(p, m)| (p, m.as_slice())));
    let answers = |executor: &mut TorchExecutor| {
        let mut out = EvalOutput::new();
        executor.run(&batch, &mut out);
        out.to_vec()
    };

    let mut nchw = TorchExecutor::new(tiny_net(&variant, 21), 64);
    assert!(!nchw.net().is_channels_last(), "the CPU default is NCHW");
    let want = answers(&mut nchw);
    let mut last = TorchExecutor::new(tiny_net(&variant, 21), 64).with_layout(ConvLayout::ChannelsLast);
    assert!(last.net().is_channels_last());
    assert!(last.name().contains("channels-last"), "{}", last.name());
    let stem = &last.net().var_store().variables()["input.stem.weight"];
    assert!(!stem.is_contiguous(), "the weights are not laid out channels-last");
    for (i, (got, want)) in answers(&mut last).iter().zip(&want).enumerate() {
        assert_close(got, want, 1e-5, &format!("channels-last, position {i}"));
    }
    let mut back = last.with_layout(ConvLayout::Nchw);
    assert!(!back.net().is_channels_last());
    assert!(back.net().var_store().variables()["input.stem.weight"].is_contiguous());
    for (i, (got, want)) in answers(&mut back).iter().zip(&want).enumerate() {
        assert_close(got, want, SAME_BATCH, &format!("back to NCHW, position {i}"));
    }
}

/// `accelerated_max_batch` (what `max_batch = 0` chooses for CUDA) is the cap on CUDA only.
#[test]
fn the_accelerated_cap_applies_on_cuda_only() {
    let variant = Variant::load("scirocco").unwrap();
    let config = ServiceConfig { max_batch: 64, accelerated_max_batch: Some(512), ..ServiceConfig::default() };
    let service = fairyzero_torch::serve(tiny_net(&variant, 3), config.clone(), ONE_THREAD);
    assert_eq!(service.max_batch(), 64);
    if fairyzero_torch::require_device(Device::Cuda(0)).is_ok() {
        let mut net = tiny_net(&variant, 3);
        net.var_store_mut().set_device(Device::Cuda(0));
        assert_eq!(fairyzero_torch::serve(net, config, ONE_THREAD).max_batch(), 512);
    }
}

/// On a GPU the executor runs channels-last with page-locked copies, and answers like the CPU.
#[test]
#[ignore = "needs CUDA"]
fn the_cuda_executor_answers_like_the_cpu() {
    let cuda = Device::Cuda(0);
    fairyzero_torch::require_device(cuda).expect("a CUDA device");
    fairyzero_torch::configure_cuda(cuda);
    let variant = Variant::load("typhoon").unwrap();
    let positions = common::random_positions(&variant, 3, 20, 17);
    let moves: Vec<MoveList> = positions.iter().map(common::legal).collect();
    let want = reference(&tiny_net(&variant, 23), &positions, &moves);
    let encoding = StandardEncoding::new(Arc::clone(&variant));
    let batch: EncodedBatch = encoding.encode_batch(positions.iter().zip(&moves).map(|(p, m)| (p, m.as_slice())));

    let mut net = tiny_net(&variant, 23);
    net.var_store_mut().set_device(cuda);
    let mut executor = TorchExecutor::new(net, 64);
    assert!(executor.net().is_channels_last(), "CUDA's default layout is channels-last");
    let mut out = EvalOutput::new();
    // Several batches through the same staging buffers.
    for round in 0..3 {
        executor.run(&batch, &mut out);
        assert!(executor.is_pinned(), "the inputs did not go through page-locked memory");
        for (i, want) in want.iter().enumerate() {
            // TF32 convolutions on the card: looser than the CPU's rounding.
            assert_close(&out.get(i).to_evaluation(), want, 2e-3, &format!("round {round}, position {i}"));
        }
    }
}
