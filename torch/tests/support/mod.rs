//! Helpers shared by the torch crate's integration tests that need libtorch (the plain-Rust
//! ones are `model/tests/common`).

use fairyzero_torch::Net;
use tch::Tensor;

/// Fills every variable from a fixed formula (no RNG), in name order; residual scales 0.5 so
/// that the tower contributes. The golden outputs of `net.rs` are computed with these weights.
pub fn deterministic_weights(net: &Net) {
    let mut vars: Vec<(String, Tensor)> = net.var_store().variables().into_iter().collect();
    vars.sort_by(|a, b| a.0.cmp(&b.0));
    tch::no_grad(|| {
        for (k, (name, mut t)) in vars.into_iter().enumerate() {
            let size = t.size();
            let fan_in = if size.len() >= 2 { size[1..].iter().product::<i64>() as f32 } else { 1.0 };
            let scale = if name.ends_with(".scale") { 0.5 } else { 1.0 / fan_in.sqrt() };
            let values: Vec<f32> =
                (0..t.numel()).map(|i| scale * ((i as f32 * 0.7548 + k as f32 * 1.3).sin())).collect();
            t.copy_(&Tensor::from_slice(&values).view(size.as_slice()));
        }
    });
}
