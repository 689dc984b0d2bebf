//! The learner: the net being trained, its optimizer, and the schedule that sets each step's
//! hyper-parameters from the run's configuration. The step itself (loss, AdamW with decoupled
//! weight decay, gradient clipping) is tensor code and lives in the torch backend
//! ([`fairyzero_torch::training`]); the batch comes in drawn and augmented (see `replay.rs`).

use fairyzero_model::{Precision, TrainBatch};
use fairyzero_torch::{
    optim::{AdamW, AdamWConfig},
    training::{train_step_with, StepConfig, StepLosses},
    Net,
};
use serde::Serialize;

use crate::config::TrainConfig;

/// What one step measured: the backend's losses plus what the trainer chose for the step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct StepStats {
    #[serde(flatten)]
    pub losses: StepLosses,
    pub lr: f64,
    /// Positions of the batch mirrored.
    pub mirrored: usize,
}

impl StepStats {
    /// Running mean of several steps.
    pub fn mean(steps: &[StepStats]) -> StepStats {
        let n = steps.len().max(1) as f64;
        let sum = |f: fn(&StepLosses) -> f64| steps.iter().map(|s| f(&s.losses)).sum::<f64>() / n;
        StepStats {
            losses: StepLosses {
                loss: sum(|s| s.loss),
                policy_loss: sum(|s| s.policy_loss),
                value_loss: sum(|s| s.value_loss),
                policy_entropy: sum(|s| s.policy_entropy),
                target_entropy: sum(|s| s.target_entropy),
                grad_norm: sum(|s| s.grad_norm),
            },
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

    /// Trains on one batch, the forward in `precision` (the loss, the gradients and AdamW stay
    /// fp32).
    pub fn train_step(&mut self, batch: &TrainBatch, precision: Precision) -> StepStats {
        let lr = self.config.lr_at_progress(self.optimizer.step_count(), self.progress);
        let step = StepConfig {
            learning_rate: lr,
            weight_decay: self.config.weight_decay,
            value_weight: self.config.value_weight,
            grad_clip: self.config.grad_clip,
        };
        let losses = train_step_with(&self.net, &mut self.optimizer, batch, &step, precision);
        StepStats { losses, lr, mirrored: batch.mirrored_count() }
    }
}
