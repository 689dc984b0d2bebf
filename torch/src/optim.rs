//! AdamW over the net's variables, written on tch tensors so that its state can be saved:
//! tch's own optimizers (libtorch's C++ ones) cannot serialise their moments, and resuming
//! without them causes loss spikes.
//!
//! Decoupled weight decay applies to weight matrices and convolution kernels (variables with
//! two or more dimensions), not to biases and the residual scales.

use std::path::Path;

use tch::{Device, Kind, Tensor};

use fairyzero_model::config::OptimizerRecord;

use crate::{
    checkpoint::{read_safetensors, write_safetensors, CheckpointError},
    net::Net,
};

/// AdamW hyper-parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdamWConfig {
    pub learning_rate: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    pub weight_decay: f64,
}

impl Default for AdamWConfig {
    fn default() -> Self {
        AdamWConfig { learning_rate: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weight_decay: 1e-4 }
    }
}

struct Param {
    name: String,
    var: Tensor,
    m: Tensor,
    v: Tensor,
    decay: bool,
}

pub struct AdamW {
    pub config: AdamWConfig,
    step: u64,
    params: Vec<Param>,
}

impl AdamW {
    /// An optimizer for every trainable variable of `net`, with zero moments.
    pub fn new(net: &Net, config: AdamWConfig) -> AdamW {
        let mut vars: Vec<(String, Tensor)> =
            net.var_store().variables().into_iter().filter(|(_, t)| t.requires_grad()).collect();
        vars.sort_by(|a, b| a.0.cmp(&b.0));
        let params = vars
            .into_iter()
            .map(|(name, var)| Param { m: var.zeros_like(), v: var.zeros_like(), decay: var.dim() >= 2, name, var })
            .collect();
        AdamW { config, step: 0, params }
    }

    /// Updates applied so far.
    pub fn step_count(&self) -> u64 {
        self.step
    }

    pub fn set_learning_rate(&mut self, lr: f64) {
        self.config.learning_rate = lr;
    }

    /// Clears the gradients of every variable.
    pub fn zero_grad(&mut self) {
        for p in &mut self.params {
            p.var.zero_grad();
        }
    }

    /// Scales the gradients so that their global L2 norm is at most `max_norm`; returns the norm
    /// before clipping.
    pub fn clip_grad_norm(&mut self, max_norm: f64) -> f64 {
        tch::no_grad(|| {
            let grads: Vec<Tensor> = self.params.iter().map(|p| p.var.grad()).filter(|g| g.defined()).collect();
            if grads.is_empty() {
                return 0.0;
            }
            let sq: Vec<Tensor> = grads.iter().map(|g| g.pow_tensor_scalar(2).sum(Kind::Float)).collect();
            let norm = f64::try_from(Tensor::stack(&sq, 0).sum(Kind::Float).sqrt()).unwrap_or(f64::NAN);
            if norm.is_finite() && norm > max_norm {
                let scale = max_norm / (norm + 1e-6);
                for mut g in grads {
                    let _ = g.g_mul_scalar_(scale);
                }
            }
            norm
        })
    }

    /// Applies one update from the current gradients.
    pub fn step(&mut self) {
        self.step += 1;
        let AdamWConfig { learning_rate: lr, beta1: b1, beta2: b2, eps, weight_decay: wd } = self.config;
        let t = self.step as i32;
        let bc1 = 1.0 - b1.powi(t);
        let bc2 = 1.0 - b2.powi(t);
        tch::no_grad(|| {
            for p in &mut self.params {
                let g = p.var.grad();
                if !g.defined() {
                    continue;
                }
                let _ = p.m.g_mul_scalar_(b1);
                let _ = p.m.g_add_(&(&g * (1.0 - b1)));
                let _ = p.v.g_mul_scalar_(b2);
                let _ = p.v.g_add_(&(&g * &g * (1.0 - b2)));
                if p.decay && wd > 0.0 {
                    let _ = p.var.g_mul_scalar_(1.0 - lr * wd);
                }
                let denom = (&p.v / bc2).sqrt() + eps;
                let update = &p.m / denom * (-lr / bc1);
                let _ = p.var.g_add_(&update);
            }
        });
    }

    /// Writes the moments to `path` and returns the record for the checkpoint header.
    pub fn save(&self, path: &Path, file_name: &str) -> Result<OptimizerRecord, CheckpointError> {
        let mut named = Vec::with_capacity(2 * self.params.len());
        for p in &self.params {
            named.push((format!("m.{}", p.name), p.m.to_device(Device::Cpu).contiguous()));
            named.push((format!("v.{}", p.name), p.v.to_device(Device::Cpu).contiguous()));
        }
        write_safetensors(&named, path)?;
        let c = self.config;
        Ok(OptimizerRecord {
            kind: "adamw".into(),
            step: self.step,
            learning_rate: c.learning_rate,
            beta1: c.beta1,
            beta2: c.beta2,
            eps: c.eps,
            weight_decay: c.weight_decay,
            file: file_name.to_string(),
        })
    }

    /// Restores the state saved beside a checkpoint (`dir` is the checkpoint directory). The
    /// hyper-parameters come from the record; moments of variables the file lacks, or whose
    /// shape changed (after a transfer), stay zero. Returns the names restored.
    pub fn load(&mut self, dir: &Path, record: &OptimizerRecord) -> Result<Vec<String>, CheckpointError> {
        if record.kind != "adamw" {
            return Err(CheckpointError::Invalid {
                path: dir.display().to_string(),
                message: format!("optimizer kind {:?} is not adamw", record.kind),
            });
        }
        let stored = read_safetensors(&dir.join(&record.file))?;
        let mut restored = Vec::new();
        tch::no_grad(|| {
            for p in &mut self.params {
                let (m, v) = (stored.get(&format!("m.{}", p.name)), stored.get(&format!("v.{}", p.name)));
                if let (Some(m), Some(v)) = (m, v) {
                    if m.size() == p.m.size() && v.size() == p.v.size() {
                        p.m.copy_(m);
                        p.v.copy_(v);
                        restored.push(p.name.clone());
                    }
                }
            }
        });
        self.step = record.step;
        self.config = AdamWConfig {
            learning_rate: record.learning_rate,
            beta1: record.beta1,
            beta2: record.beta2,
            eps: record.eps,
            weight_decay: record.weight_decay,
        };
        Ok(restored)
    }
}
