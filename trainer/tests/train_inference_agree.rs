//! The trainer's forward pass and the inference path see the same positions the same way
//! (docs/plans/scirocco-learning.md §5.5 "X0", result in §5.6).
//!
//! One self-play game is played, its training samples are built with the trainer's own code
//! (`game_samples`, mirror off and on), and every sample goes through
//! - the **training** path: the batch as the sampler assembles it (samples appended, mirrored
//!   ones rewritten by `mirror_left_right`), `BatchTensors` (the learner's tensors), the forward
//!   and the loss of `train_step_with` (the learner's step, at learning rate 0);
//! - the **inference** path: the positions replayed from the record here, independently of
//!   `GameRecord::replay`, encoded by the inference service (`StandardEncoding`) and run by the
//!   `TorchExecutor` behind it, as self-play and `analyse` use them. A mirrored sample goes to
//!   the executor as the mirror of that encoding, after the mirror has been checked against
//!   the encoding of the mirrored position (`Position::mirrored`, which has no history).
//!
//! WDL and the policy over the legal moves must agree to 1e-4, and the losses the step reports
//! must equal the cross-entropies of the targets against the inference probabilities. The
//! moves are matched by their features. The value target of each sample is checked against the record's winner
//! and the side to move, computed here.

use std::sync::{atomic::AtomicBool, Arc};

use fairyzero_model::{
    backend::{Backend, EvalOutput, EvalRequest, MockBackend},
    encoding::global,
    mirror::mirror_left_right,
    service::{Executor, ServiceConfig},
    EncodedBatch, MoveFeatures, NetConfig, Precision, StandardEncoding, TrainBatch,
};
use fairyzero_rules::{MoveList, Position, Variant};
use fairyzero_selfplay::{record::GameRecord, run_selfplay, RunOptions, SelfPlayConfig};
use fairyzero_torch::{
    executor::ExecutorOptions,
    net::move_log_softmax,
    optim::{AdamW, AdamWConfig},
    serve,
    training::{train_step_with, BatchTensors, StepConfig},
    Device, Net, TorchExecutor,
};
use fairyzero_trainer::{
    replay::{game_samples, Sample, SampleOptions},
    symmetry::MirrorRules,
};

const TOLERANCE: f32 = 1e-4;

/// A tiny net with a fixed seed and its residual scales woken (they start at 0, which would
/// leave the tower out of the comparison).
fn net(variant: &Arc<Variant>) -> Net {
    let mut net = Net::seeded(&NetConfig::tiny(), Arc::clone(variant), Device::Cpu, 11);
    let vs = net.var_store_mut();
    vs.freeze();
    for (name, mut t) in vs.variables() {
        if name.ends_with(".scale") {
            let _ = t.fill_(0.5);
        }
    }
    vs.unfreeze();
    net
}

/// A copy of `net`'s weights (the executor owns its net). Copied rather than made again from
/// the seed: libtorch's generator is global, and the tests of this file run in parallel.
fn copy(net: &Net) -> Net {
    let mut copy = Net::new(net.config(), Arc::clone(net.variant()), Device::Cpu);
    copy.var_store_mut().copy(net.var_store()).expect("same architecture");
    copy
}

/// One self-play game with a uniform mock net (4 simulations: policy targets on searched
/// moves), playing the setup phase where the variant has one.
fn one_game(variant: &Arc<Variant>, seed: u64) -> GameRecord {
    let config = SelfPlayConfig { simulations: 4, games_in_parallel: 1, threads: 1, ..SelfPlayConfig::default() };
    let options = RunOptions { games: 1, seed, net: "mock".into(), out_dir: None, progress: false };
    let mut out = Vec::new();
    run_selfplay(variant, &config, &MockBackend::uniform(), &options, &AtomicBool::new(false), |g| out.push(g.clone()))
        .expect("self-play");
    out.pop().expect("one game")
}

/// The positions of the record and their legal moves, replayed here by move text (not by
/// `GameRecord::replay`, which `game_samples` uses).
fn replay_positions(record: &GameRecord, variant: &Arc<Variant>) -> Vec<(Position, MoveList)> {
    let mut pos = record.start_position(variant).expect("start position");
    let mut out = Vec::new();
    for (ply, rec) in record.moves.iter().enumerate() {
        let mut legal = MoveList::new();
        pos.legal_moves(&mut legal);
        let played =
            *legal.iter().find(|m| pos.move_to_string(m) == rec.mv).unwrap_or_else(|| panic!("ply {ply}: {}", rec.mv));
        out.push((pos.clone(), legal));
        pos.make(played);
    }
    out
}

/// The batch the sampler would draw if it drew these samples in order, every mirror-exact one
/// mirrored (`Sampler::batch`, with the coin always heads).
fn batch_of(samples: &[Sample]) -> TrainBatch {
    let first = &samples[0].encoded;
    let mut encoded = EncodedBatch::with_capacity(first.width(), first.height(), samples.len(), 64);
    for s in samples {
        encoded.append(&s.encoded);
    }
    let mirrored: Vec<bool> = samples.iter().map(|s| s.mirror_ok).collect();
    mirror_left_right(&mut encoded, &mirrored);
    TrainBatch {
        encoded,
        policy: samples.iter().map(|s| s.policy.clone()).collect(),
        wdl: samples.iter().map(|s| s.wdl).collect(),
        mirrored,
    }
}

/// The training forward of `batch`: per position the WDL softmax and the softmax over its legal
/// moves, from the learner's tensors.
fn training_probabilities(net: &Net, batch: &TrainBatch) -> (Vec<[f32; 3]>, Vec<Vec<f32>>) {
    let tensors = BatchTensors::new(batch, Device::Cpu);
    let output = net.forward_with(&tensors.input, Precision::Fp32);
    let policy = move_log_softmax(&output.move_logits, &tensors.input.move_batch, tensors.input.batch).exp();
    let policy = Vec::<f32>::try_from(policy.detach().reshape([-1])).unwrap();
    let wdl =
        Vec::<f32>::try_from(output.wdl_logits.softmax(-1, output.wdl_logits.kind()).detach().reshape([-1])).unwrap();
    let offsets = batch.encoded.offsets();
    let policies = offsets.windows(2).map(|w| policy[w[0]..w[1]].to_vec()).collect();
    (wdl.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect(), policies)
}

fn close(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= TOLERANCE)
}

/// Checks one game of `variant` with mirror augmentation `mirror`; returns how many samples
/// were mirrored.
fn check(variant_name: &str, seed: u64, mirror: bool) -> usize {
    let v = Variant::load(variant_name).unwrap();
    let encoding = StandardEncoding::new(Arc::clone(&v));
    let rules = MirrorRules::new(&v);
    let record = one_game(&v, seed);
    let options = SampleOptions { search_value_weight: 0.0, mirror };
    let samples = game_samples(&record, &v, &encoding, &rules, &options).unwrap();
    let positions = replay_positions(&record, &v);
    assert_eq!(samples.len(), positions.len());
    assert!(samples.len() >= 10, "{variant_name}: a game of {} plies", samples.len());

    // A decisive game, so that the value targets' sign is tested.
    assert!(record.result.winner.is_some(), "{variant_name} seed {seed}: {:?}", record.result);
    // Value targets: the game's result from the side to move's view, derived here.
    for (k, (s, (pos, _))) in samples.iter().zip(&positions).enumerate() {
        let expected = match record.result.winner {
            None => [0.0, 1.0, 0.0],
            Some(c) if c == pos.side_to_move() => [1.0, 0.0, 0.0],
            Some(_) => [0.0, 0.0, 1.0],
        };
        assert_eq!(s.wdl, expected, "{variant_name} ply {k}: value target against {:?}", record.result);
    }

    // The inference path: the service and executor that self-play and `analyse` use, on the
    // replayed positions (mirrored where the sample is), one position per request as `analyse`
    // sends them.
    let training_net = net(&v);
    let service = serve(copy(&training_net), ServiceConfig::default(), ExecutorOptions::default());
    let mut executor = TorchExecutor::new(copy(&training_net), 64);
    let batch = batch_of(&samples);
    let (train_wdl, train_policy) = training_probabilities(&training_net, &batch);
    let mut out = EvalOutput::new();
    let (mut value_ce, mut policy_ce) = (0.0f64, 0.0f64);
    for (k, (pos, legal)) in positions.iter().enumerate() {
        let direct = encoding.encode_batch([(pos, legal.as_slice())]);
        if batch.mirrored[k] {
            // `Position::mirrored` has no history: its image has ply 0 and no repetitions. So
            // the mirrored position is checked against the encoding of the image (every input
            // but those history features, which the mirror must leave as they were), and
            // evaluated by the executor as the inference-side encoding, mirrored.
            let mut mirrored = direct.clone();
            mirror_left_right(&mut mirrored, &[true]);
            let image = pos.mirrored().expect("mirror-safe").expect("a mirrored position");
            let mut image_legal = MoveList::new();
            image.clone().legal_moves(&mut image_legal);
            let of_image = encoding.encode_batch([(&image, image_legal.as_slice())]);
            assert_eq!(mirrored.pieces(), of_image.pieces(), "{variant_name} ply {k}: mirrored pieces");
            assert_eq!(mirrored.planes(), of_image.planes(), "{variant_name} ply {k}: mirrored planes");
            let sorted = |b: &EncodedBatch| {
                let mut m = b.moves_of(0).to_vec();
                m.sort_unstable();
                m
            };
            assert_eq!(sorted(&mirrored), sorted(&of_image), "{variant_name} ply {k}: mirrored moves");
            let history = [global::REPEATED_ONCE, global::REPEATED_TWICE, global::MOVE_CAP_PROGRESS];
            for g in 0..global::COUNT {
                let expected = if history.contains(&g) { direct.global()[[0, g]] } else { of_image.global()[[0, g]] };
                assert_eq!(mirrored.global()[[0, g]], expected, "{variant_name} ply {k}: mirrored global {g}");
            }
            executor.run(&mirrored, &mut out);
        } else {
            service.evaluate(&[EvalRequest { position: pos, moves: legal.as_slice() }], &mut out);
        }
        let direct = if batch.mirrored[k] {
            let mut m = direct;
            mirror_left_right(&mut m, &[true]);
            m
        } else {
            direct
        };
        let e = out.get(0);
        assert!(
            close(&e.wdl, &train_wdl[k]),
            "{variant_name} ply {k} (mirrored {}): WDL {:?} inference, {:?} training",
            batch.mirrored[k],
            e.wdl,
            train_wdl[k]
        );
        // The training batch's move `i` is the inference's move `index[i]`: the same features
        // (the mirror keeps the sample's move order; the mirrored position generates its own).
        let features: &[MoveFeatures] = batch.encoded.moves_of(k);
        let index: Vec<usize> = features
            .iter()
            .map(|f| direct.moves_of(0).iter().position(|g| g == f).expect("a training move missing from inference"))
            .collect();
        assert_eq!(index.len(), e.policy.len(), "{variant_name} ply {k}: legal move counts");
        let mapped: Vec<f32> = index.iter().map(|&j| e.policy[j]).collect();
        assert!(close(&mapped, &train_policy[k]), "{variant_name} ply {k} (mirrored {}): policy", batch.mirrored[k]);
        // The losses' terms, from the inference probabilities.
        value_ce -= batch.wdl[k].iter().zip(&e.wdl).map(|(&t, &p)| f64::from(t) * f64::from(p).ln()).sum::<f64>();
        policy_ce -=
            batch.policy[k].iter().map(|&(i, t)| f64::from(t) * f64::from(mapped[i as usize]).ln()).sum::<f64>();
    }
    let n = samples.len() as f64;
    let (value_ce, policy_ce) = (value_ce / n, policy_ce / n);

    // The learner's step itself (learning rate and weight decay 0: the net does not move).
    let mut optimizer = AdamW::new(&training_net, AdamWConfig::default());
    let step = StepConfig { learning_rate: 0.0, weight_decay: 0.0, value_weight: 1.0, grad_clip: 0.0 };
    let losses = train_step_with(&training_net, &mut optimizer, &batch, &step, Precision::Fp32);
    assert!(
        (losses.value_loss - value_ce).abs() < 1e-4 * value_ce.max(1.0),
        "{variant_name}: value loss {} in training, {value_ce} through inference",
        losses.value_loss
    );
    assert!(
        (losses.policy_loss - policy_ce).abs() < 1e-4 * policy_ce.max(1.0),
        "{variant_name}: policy loss {} in training, {policy_ce} through inference",
        losses.policy_loss
    );
    batch.mirrored.iter().filter(|&&m| m).count()
}

#[test]
fn scirocco_training_and_inference_agree() {
    assert_eq!(check("scirocco", 5, false), 0);
    let mirrored = check("scirocco", 5, true);
    assert!(mirrored > 0, "no Scirocco position was mirrored");
}

#[test]
fn antilosalamos_training_and_inference_agree() {
    assert_eq!(check("antilosalamos", 2, false), 0);
    let mirrored = check("antilosalamos", 2, true);
    assert!(mirrored > 0, "no Anti-Los Alamos position was mirrored");
}
