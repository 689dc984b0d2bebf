//! One optimizer step on a [`TrainBatch`]: the batch through the net, the loss (policy
//! cross-entropy against the search targets over each position's legal moves, WDL value
//! cross-entropy), AdamW with decoupled weight decay and gradient clipping, and what the step
//! measured. The schedule (which learning rate when) is the caller's: it comes in as a number.

use fairyzero_model::{Precision, TrainBatch};
use tch::{Device, Kind};

use crate::{
    net::{loss, move_log_softmax, Losses, Targets},
    optim::AdamW,
    Net, NetInput,
};

/// The hyper-parameters of one step, filled by the trainer from its configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepConfig {
    /// Learning rate of this step (the schedule's value).
    pub learning_rate: f64,
    /// AdamW's decoupled weight decay. Set on every step: a resumed optimizer brings the value
    /// it was saved with, and the configuration wins.
    pub weight_decay: f64,
    /// Weight of the value loss in the total.
    pub value_weight: f64,
    /// Largest global gradient norm; 0 or less: no clipping (the norm is still measured).
    pub grad_clip: f64,
}

/// What one step measured, as numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct StepLosses {
    pub loss: f64,
    pub policy_loss: f64,
    pub value_loss: f64,
    /// Mean entropy (nats) of the net's policy over the legal moves, before the update.
    pub policy_entropy: f64,
    /// Mean entropy of the policy targets (over the positions that have one).
    pub target_entropy: f64,
    /// Global gradient norm before clipping.
    pub grad_norm: f64,
}

/// A batch on the device: the net's input and the loss's targets.
pub struct BatchTensors {
    pub input: NetInput,
    pub targets: Targets,
    /// Positions with a policy target (at least 1, a divisor).
    with_policy: usize,
}

impl BatchTensors {
    pub fn new(batch: &TrainBatch, device: Device) -> BatchTensors {
        BatchTensors {
            input: NetInput::new(&batch.encoded, device),
            targets: Targets::new(&batch.encoded, &batch.policy, &batch.wdl, device),
            with_policy: batch.with_policy_target().max(1),
        }
    }
}

/// The forward pass and the loss, recording gradients; also the move logits, for the entropy.
fn forward_loss(net: &Net, tensors: &BatchTensors, value_weight: f64, precision: Precision) -> (Losses, tch::Tensor) {
    let output = net.forward_with(&tensors.input, precision);
    let losses = loss(&output, &tensors.input, &tensors.targets, value_weight);
    (losses, output.move_logits)
}

/// Forward pass, loss and backward pass without the optimizer: gradients of the loss of
/// `tensors` are accumulated into the net's variables. Returns the total loss. What the training
/// benchmark times next to a full step.
pub fn backward(net: &Net, tensors: &BatchTensors, value_weight: f64) -> f64 {
    let (losses, _) = forward_loss(net, tensors, value_weight, Precision::Fp32);
    losses.total.backward();
    f64::try_from(&losses.total).unwrap_or(f64::NAN)
}

/// Trains `net` on one batch with `optimizer`, in fp32.
pub fn train_step(net: &Net, optimizer: &mut AdamW, batch: &TrainBatch, config: &StepConfig) -> StepLosses {
    train_step_with(net, optimizer, batch, config, Precision::Fp32)
}

/// [`train_step`] with the forward pass in `precision` (see [`Net::forward_with`]): the loss,
/// its softmaxes, the gradients of the fp32 variables and AdamW stay fp32; bf16 needs no loss
/// scaling.
pub fn train_step_with(
    net: &Net,
    optimizer: &mut AdamW,
    batch: &TrainBatch,
    config: &StepConfig,
    precision: Precision,
) -> StepLosses {
    let tensors = BatchTensors::new(batch, net.device());
    let (losses, move_logits) = forward_loss(net, &tensors, config.value_weight, precision);
    let input = &tensors.input;

    // The statistics stay on the device until one copy at the end: every copy to the host
    // waits for the device's queue (inference shares it), the optimizer's norm is the only other.
    let (policy_entropy, target_entropy) = tch::no_grad(|| {
        let logp = move_log_softmax(&move_logits.detach(), &input.move_batch, input.batch);
        let entropy = -(logp.exp() * &logp).sum(Kind::Float) / input.batch as f64;
        let t = &tensors.targets.policy;
        let target = -(t * t.clamp_min(1e-12).log()).sum(Kind::Float) / tensors.with_policy as f64;
        (entropy, target)
    });

    optimizer.set_learning_rate(config.learning_rate);
    optimizer.config.weight_decay = config.weight_decay;
    optimizer.zero_grad();
    losses.total.backward();
    let max_norm = if config.grad_clip > 0.0 { config.grad_clip } else { f64::INFINITY };
    let grad_norm = optimizer.clip_grad_norm(max_norm);
    optimizer.step();
    let stats = tch::Tensor::stack(
        &[losses.total.detach(), losses.policy.detach(), losses.value.detach(), policy_entropy, target_entropy],
        0,
    );
    let stats = Vec::<f64>::try_from(stats.to_kind(Kind::Double)).unwrap_or_else(|_| vec![f64::NAN; 5]);
    StepLosses {
        loss: stats[0],
        policy_loss: stats[1],
        value_loss: stats[2],
        policy_entropy: stats[3],
        target_entropy: stats[4],
        grad_norm,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use fairyzero_model::{mirror::mirror_left_right, NetConfig, StandardEncoding};
    use fairyzero_rules::{MoveList, Position, Variant};

    use super::*;
    use crate::optim::AdamWConfig;

    fn batch(variant: &Arc<Variant>) -> TrainBatch {
        let enc = StandardEncoding::new(Arc::clone(variant));
        let mut pos = Position::start(Arc::clone(variant));
        let (mut first, mut second) = (MoveList::new(), MoveList::new());
        pos.legal_moves(&mut first);
        let start = pos.clone();
        pos.make(first[0]);
        pos.legal_moves(&mut second);
        let encoded = enc.encode_batch([(&start, first.as_slice()), (&pos, second.as_slice())]);
        TrainBatch {
            encoded,
            // The second position trains the value only.
            policy: vec![vec![(0, 0.75), (1, 0.25)], vec![]],
            wdl: vec![[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
            mirrored: vec![false, false],
        }
    }

    /// Repeated steps on one batch lower its loss; the statistics are finite and in range.
    #[test]
    fn steps_lower_the_loss_of_the_batch() {
        crate::manual_seed(3);
        let v = Variant::load("gardner").unwrap();
        let net = Net::new(&NetConfig::tiny(), Arc::clone(&v), Device::Cpu);
        let mut optimizer = AdamW::new(&net, AdamWConfig::default());
        let config = StepConfig { learning_rate: 3e-3, weight_decay: 1e-4, value_weight: 1.0, grad_clip: 1.0 };
        let batch = batch(&v);
        let first = train_step(&net, &mut optimizer, &batch, &config);
        let mut last = first;
        for _ in 0..30 {
            last = train_step(&net, &mut optimizer, &batch, &config);
        }
        assert_eq!(optimizer.step_count(), 31);
        assert!(last.loss < first.loss * 0.8, "{first:?} -> {last:?}");
        assert!((first.loss - (first.policy_loss + first.value_loss)).abs() < 1e-4, "{first:?}");
        // The one target is 0.75/0.25: entropy 0.562 nats, counted over one position, not two.
        assert!((first.target_entropy - 0.5623).abs() < 1e-3, "{first:?}");
        assert!(first.policy_entropy > 0.0 && first.grad_norm > 0.0 && first.grad_norm.is_finite());
        assert_eq!(optimizer.config.learning_rate, 3e-3);
    }

    /// A mirrored batch (the trainer's augmentation, done before tensors exist) goes through the
    /// net like any other.
    #[test]
    fn a_mirrored_batch_trains() {
        let v = Variant::load("antilosalamos").unwrap();
        let net = Net::new(&NetConfig::tiny(), Arc::clone(&v), Device::Cpu);
        let mut optimizer = AdamW::new(&net, AdamWConfig::default());
        let mut batch = batch(&v);
        mirror_left_right(&mut batch.encoded, &[true, true]);
        batch.mirrored = vec![true, true];
        let config = StepConfig { learning_rate: 1e-3, weight_decay: 0.0, value_weight: 0.5, grad_clip: 0.0 };
        let stats = train_step(&net, &mut optimizer, &batch, &config);
        assert!(stats.loss.is_finite() && stats.grad_norm.is_finite(), "{stats:?}");
    }
}
