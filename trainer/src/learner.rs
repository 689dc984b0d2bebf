//! One optimizer step: a drawn batch through the net, the model crate's loss (policy
//! cross-entropy against the search targets over each position's legal moves, WDL value
//! cross-entropy), AdamW with decoupled weight decay, the learning-rate schedule and gradient
//! clipping.

use fairyzero_torch::{
    net::{loss, move_log_softmax, Targets},
    optim::{AdamW, AdamWConfig},
    Net, NetInput,
};
use serde::Serialize;
use tch::Kind;

use crate::{config::TrainConfig, replay::TrainBatch, symmetry::mirror_input};

/// What one step measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct StepStats {
    pub loss: f64,
    pub policy_loss: f64,
    pub value_loss: f64,
    /// Mean entropy (nats) of the net's policy over the legal moves, before the update.
    pub policy_entropy: f64,
    /// Mean entropy of the policy targets (where present).
    pub target_entropy: f64,
    /// Global gradient norm before clipping.
    pub grad_norm: f64,
    pub lr: f64,
    /// Positions of the batch mirrored.
    pub mirrored: usize,
}

impl StepStats {
    /// Running mean of several steps.
    pub fn mean(steps: &[StepStats]) -> StepStats {
        let n = steps.len().max(1) as f64;
        let sum = |f: fn(&StepStats) -> f64| steps.iter().map(f).sum::<f64>() / n;
        StepStats {
            loss: sum(|s| s.loss),
            policy_loss: sum(|s| s.policy_loss),
            value_loss: sum(|s| s.value_loss),
            policy_entropy: sum(|s| s.policy_entropy),
            target_entropy: sum(|s| s.target_entropy),
            grad_norm: sum(|s| s.grad_norm),
            lr: steps.last().map_or(0.0, |s| s.lr),
            mirrored: steps.iter().map(|s| s.mirrored).sum(),
        }
    }
}

/// The net being trained, its optimizer and the step count.
pub struct Learner {
    pub net: Net,
    pub optimizer: AdamW,
    pub config: TrainConfig,
    /// The fraction of the run's budget used, for a schedule over the budget.
    pub progress: f64,
}

impl Learner {
    pub fn new(net: Net, config: TrainConfig) -> Learner {
        let optimizer = AdamW::new(
            &net,
            AdamWConfig {
                learning_rate: config.lr,
                beta1: config.beta1,
                beta2: config.beta2,
                eps: config.eps,
                weight_decay: config.weight_decay,
            },
        );
        Learner { net, optimizer, config, progress: 0.0 }
    }

    /// Optimizer updates applied so far (the training step).
    pub fn step(&self) -> u64 {
        self.optimizer.step_count()
    }

    /// Trains on one batch.
    pub fn train_step(&mut self, batch: &TrainBatch) -> StepStats {
        let device = self.net.device();
        let mut input = NetInput::new(&batch.encoded, device);
        mirror_input(&mut input, &batch.mirror);
        let targets = Targets::new(&batch.encoded, &batch.policy, &batch.wdl, device);
        let output = self.net.forward(&input);
        let losses = loss(&output, &input, &targets, self.config.value_weight);

        let (policy_entropy, target_entropy) = tch::no_grad(|| {
            let logp = move_log_softmax(&output.move_logits.detach(), &input.move_batch, input.batch);
            let ent = -(logp.exp() * &logp).sum(Kind::Float) / input.batch as f64;
            let with_target = batch.policy.iter().filter(|p| !p.is_empty()).count().max(1) as f64;
            let t = &targets.policy;
            let tent = -(t * t.clamp_min(1e-12).log()).sum(Kind::Float) / with_target;
            (f64::try_from(ent).unwrap_or(f64::NAN), f64::try_from(tent).unwrap_or(f64::NAN))
        });

        let lr = self.config.lr_at_progress(self.optimizer.step_count(), self.progress);
        self.optimizer.set_learning_rate(lr);
        // The schedule owns the rate; the other hyper-parameters follow the configuration (a
        // resumed optimizer brings the values it was saved with).
        self.optimizer.config.weight_decay = self.config.weight_decay;
        self.optimizer.zero_grad();
        losses.total.backward();
        let grad_norm = if self.config.grad_clip > 0.0 {
            self.optimizer.clip_grad_norm(self.config.grad_clip)
        } else {
            self.optimizer.clip_grad_norm(f64::INFINITY)
        };
        self.optimizer.step();
        StepStats {
            loss: f64::try_from(&losses.total).unwrap_or(f64::NAN),
            policy_loss: f64::try_from(&losses.policy).unwrap_or(f64::NAN),
            value_loss: f64::try_from(&losses.value).unwrap_or(f64::NAN),
            policy_entropy,
            target_entropy,
            grad_norm,
            lr,
            mirrored: batch.mirror.iter().filter(|&&m| m).count(),
        }
    }
}
