//! Mixed precision on CPU: the `precision` switch is honoured (a bf16 forward computes in
//! bfloat16 and differs from fp32 by a small, bounded amount), a bf16 training step keeps fp32
//! master weights, and `auto` resolves to fp32 on a CPU.

#[path = "../../model/tests/common/mod.rs"]
mod common;
mod support;

use std::sync::Arc;

use fairyzero_model::{EncodedBatch, NetConfig, Precision, PrecisionSetting, StandardEncoding, TrainBatch};
use fairyzero_rules::{MoveList, Position, Variant};
use fairyzero_torch::{
    net::probabilities,
    optim::{AdamW, AdamWConfig},
    resolve_precision,
    training::{train_step_with, StepConfig},
    Net, NetInput,
};
use tch::{Device, Kind};

const CPU: Device = Device::Cpu;

/// 16 positions of seeded random play.
fn fixed_batch(variant: &Arc<Variant>) -> EncodedBatch {
    let positions = common::random_positions(variant, 4, 16, 7);
    assert!(positions.len() >= 16, "{}: {} positions", variant.name, positions.len());
    let positions = &positions[..16];
    let moves: Vec<MoveList> = positions.iter().map(common::legal).collect();
    StandardEncoding::new(Arc::clone(variant))
        .encode_batch(positions.iter().zip(&moves).map(|(p, m)| (p, m.as_slice())))
}

/// Largest |Δ| of policy probabilities, largest |Δ| of the value (win - loss), and the mean and
/// largest KL(fp32 || bf16) of the policies.
fn compare(net: &Net, batch: &EncodedBatch) -> (f32, f32, f64, f64) {
    let input = NetInput::new(batch, CPU);
    let (p32, w32) = tch::no_grad(|| probabilities(&net.forward_with(&input, Precision::Fp32), &input.offsets));
    let (p16, w16) = tch::no_grad(|| probabilities(&net.forward_with(&input, Precision::Bf16), &input.offsets));
    let mut dp = 0f32;
    let (mut kl_sum, mut kl_max) = (0f64, 0f64);
    for (a, b) in p32.iter().zip(&p16) {
        let mut kl = 0f64;
        for (&x, &y) in a.iter().zip(b) {
            dp = dp.max((x - y).abs());
            if x > 0.0 {
                kl += x as f64 * ((x as f64).ln() - (y.max(1e-30) as f64).ln());
            }
        }
        kl_sum += kl;
        kl_max = kl_max.max(kl);
    }
    let dv = w32.iter().zip(&w16).map(|(a, b)| ((a[0] - a[2]) - (b[0] - b[2])).abs()).fold(0f32, f32::max);
    (dp, dv, kl_sum / p32.len() as f64, kl_max)
}

#[test]
fn bf16_forward_computes_in_bf16_and_stays_close_to_fp32() {
    fairyzero_torch::set_threads(1);
    // Typhoon (the GPU run's variant) and Jupiter (doubled turns: second actions and removed
    // squares go through the index_add paths).
    for name in ["typhoon", "jupiter"] {
        let variant = Variant::load(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        let net = Net::new(&NetConfig::tiny(), Arc::clone(&variant), CPU);
        support::deterministic_weights(&net);
        let batch = fixed_batch(&variant);
        let input = NetInput::new(&batch, CPU);
        tch::no_grad(|| {
            assert_eq!(net.trunk_with(&input, Precision::Fp32).kind(), Kind::Float);
            assert_eq!(net.trunk_with(&input, Precision::Bf16).kind(), Kind::BFloat16, "{name}: the switch is ignored");
            let out = net.forward_with(&input, Precision::Bf16);
            assert_eq!((out.move_logits.kind(), out.wdl_logits.kind()), (Kind::Float, Kind::Float), "{name}");
        });
        // The variables are not touched by a bf16 pass.
        assert!(net.var_store().variables().values().all(|t| t.kind() == Kind::Float), "{name}");
        let (dp, dv, kl_mean, kl_max) = compare(&net, &batch);
        println!(
            "{name}: bf16 vs fp32 on 16 positions: max |dp| {dp:.5}, max |dvalue| {dv:.5}, policy KL mean {kl_mean:.2e} max {kl_max:.2e}"
        );
        assert!(dp > 0.0 || dv > 0.0, "{name}: bf16 gave exactly the fp32 outputs");
        assert!(dp < 0.02 && dv < 0.03, "{name}: bf16 too far from fp32: |dp| {dp}, |dvalue| {dv}");
        assert!(kl_max < 1e-2, "{name}: policy KL {kl_max}");
    }
}

#[test]
fn a_bf16_training_step_updates_fp32_weights() {
    fairyzero_torch::set_threads(1);
    fairyzero_torch::manual_seed(5);
    let variant = Variant::load("gardner").unwrap();
    let net = Net::new(&NetConfig::tiny(), Arc::clone(&variant), CPU);
    let mut optimizer = AdamW::new(&net, AdamWConfig::default());
    let enc = StandardEncoding::new(Arc::clone(&variant));
    let start = Position::start(Arc::clone(&variant));
    let moves = common::legal(&start);
    let batch = TrainBatch {
        encoded: enc.encode_batch([(&start, moves.as_slice())]),
        policy: vec![vec![(0, 0.75), (1, 0.25)]],
        wdl: vec![[1.0, 0.0, 0.0]],
        mirrored: vec![false],
    };
    let before: Vec<f32> = Vec::try_from(net.var_store().variables()["policy.out.weight"].reshape([-1])).unwrap();
    let config = StepConfig { learning_rate: 1e-2, weight_decay: 0.0, value_weight: 1.0, grad_clip: 0.0 };
    let first = train_step_with(&net, &mut optimizer, &batch, &config, Precision::Bf16);
    let mut last = first;
    for _ in 0..10 {
        last = train_step_with(&net, &mut optimizer, &batch, &config, Precision::Bf16);
    }
    for s in [first, last] {
        assert!(s.loss.is_finite() && s.policy_loss.is_finite() && s.value_loss.is_finite(), "{s:?}");
        assert!(s.grad_norm.is_finite() && s.grad_norm > 0.0, "{s:?}");
    }
    assert!(last.loss < first.loss, "{first:?} -> {last:?}");
    let vars = net.var_store().variables();
    assert!(vars.values().all(|t| t.kind() == Kind::Float), "a variable left fp32");
    let after: Vec<f32> = Vec::try_from(vars["policy.out.weight"].reshape([-1])).unwrap();
    assert_ne!(before, after, "the step did not update the fp32 weights");
}

#[test]
fn auto_precision_is_fp32_on_the_cpu() {
    assert_eq!(resolve_precision(PrecisionSetting::Auto, CPU), Precision::Fp32);
    assert_eq!(resolve_precision(PrecisionSetting::Bf16, CPU), Precision::Bf16);
    assert_eq!(resolve_precision(PrecisionSetting::Auto, Device::Cuda(0)), Precision::Bf16);
}

/// Channels-last weights and stem input give the default layout's outputs (float rounding
/// only), in fp32 and bf16, and the variables keep their values.
#[test]
fn channels_last_gives_the_same_outputs() {
    fairyzero_torch::set_threads(1);
    let variant = Variant::load("typhoon").unwrap();
    let mut net = Net::new(&NetConfig::tiny(), Arc::clone(&variant), CPU);
    support::deterministic_weights(&net);
    let batch = fixed_batch(&variant);
    let input = NetInput::new(&batch, CPU);
    let logits = |net: &Net, precision| {
        tch::no_grad(|| {
            let out = net.forward_with(&input, precision);
            (
                Vec::<f32>::try_from(&out.move_logits).unwrap(),
                Vec::<f32>::try_from(out.wdl_logits.reshape([-1])).unwrap(),
            )
        })
    };
    let before = [logits(&net, Precision::Fp32), logits(&net, Precision::Bf16)];
    let stem = net.var_store().variables()["input.stem.weight"].copy();
    net.set_channels_last();
    let weights = net.var_store().variables()["input.stem.weight"].shallow_clone();
    assert!(!weights.is_contiguous(), "the stem's weights are not laid out channels-last");
    assert!(weights.equal(&stem), "channels-last changed the weights' values");
    assert!(net.is_channels_last());
    let after = [logits(&net, Precision::Fp32), logits(&net, Precision::Bf16)];
    for ((precision, tolerance), (b, a)) in
        [("fp32", 1e-5f32), ("bf16", 0.1)].into_iter().zip(before.iter().zip(&after))
    {
        for (x, y) in b.0.iter().chain(&b.1).zip(a.0.iter().chain(&a.1)) {
            assert!((x - y).abs() <= tolerance, "{precision}: logit {x} in NCHW, {y} channels-last");
        }
    }
}
