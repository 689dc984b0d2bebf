//! The libtorch [`Executor`]: runs a [`Net`] on one device behind the
//! [`InferenceService`](fairyzero_model::service::InferenceService), which batches the
//! submissions of many search threads (docs/plans/batching.md §2, docs/network.md "Inference
//! service").
//!
//! One batch is: build the net's input from the slot's [`EncodedBatch`] (host to device), one
//! `no_grad` forward, the softmax over each position's legal moves and the WDL softmax **on the
//! device**, both concatenated into one `f32` vector `[moves + 3 * positions]`, then **one**
//! device-to-host copy (into page-locked memory on CUDA) and a copy of each position's range
//! into the [`EvalOutput`]. No per-position allocation once the buffers are warm.

use fairyzero_model::{backend::EvalOutput, encoding::EncodedBatch, service::Executor, Precision};
use tch::{Device, Kind, Tensor};

use crate::net::{move_log_softmax, Net, NetInput, NetOutput};

/// How a [`TorchExecutor`] computes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExecutorOptions {
    /// libtorch intra-op threads of the thread that runs the batches (`None`: libtorch's
    /// setting).
    pub threads: Option<usize>,
    /// The forward's precision ([`Net::forward_with`]); the softmaxes are fp32 either way.
    pub precision: Precision,
}

/// Runs a [`Net`] for an inference service; see the module doc.
pub struct TorchExecutor {
    net: Net,
    max_batch: usize,
    options: ExecutorOptions,
    /// Whether `options.threads` was applied on the service thread (before its first batch).
    threads_set: bool,
    name: String,
    staging: HostStaging,
    /// The batch's probabilities on the host: policies of every move, then WDL triples.
    host: Vec<f32>,
}

impl TorchExecutor {
    /// Serves `net` on its own device, in batches of at most `max_batch` positions.
    ///
    /// # Panics
    /// When `max_batch` is 0.
    pub fn new(net: Net, max_batch: usize) -> TorchExecutor {
        TorchExecutor::with_options(net, max_batch, ExecutorOptions::default())
    }

    /// Like [`TorchExecutor::new`], with threads and precision.
    ///
    /// # Panics
    /// When `max_batch` is 0.
    pub fn with_options(net: Net, max_batch: usize, options: ExecutorOptions) -> TorchExecutor {
        assert!(max_batch >= 1, "TorchExecutor: max_batch must be at least 1");
        let precision = match options.precision {
            Precision::Fp32 => "",
            Precision::Bf16 => " bf16",
        };
        let name = format!("torch({} {} on {:?}{precision})", net.variant().name, net.config(), net.device());
        let staging = HostStaging::new(net.device());
        TorchExecutor { net, max_batch, options, threads_set: false, name, staging, host: Vec::new() }
    }

    /// The net it serves.
    pub fn net(&self) -> &Net {
        &self.net
    }
}

impl Executor for TorchExecutor {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn max_batch(&self) -> usize {
        self.max_batch
    }

    fn run(&mut self, batch: &EncodedBatch, out: &mut EvalOutput) {
        out.clear();
        if batch.is_empty() {
            return;
        }
        if !self.threads_set {
            if let Some(n) = self.options.threads {
                crate::runtime::set_threads(n);
            }
            self.threads_set = true;
        }
        let probabilities = tch::no_grad(|| {
            let input = NetInput::new(batch, self.net.device());
            let output = self.net.forward_with(&input, self.options.precision);
            device_probabilities(&output, &input)
        });
        self.staging.copy_to_host(&probabilities, &mut self.host);

        let moves = batch.moves().len();
        let (policy, wdl) = self.host.split_at(moves);
        assert_eq!(
            wdl.len(),
            3 * batch.len(),
            "TorchExecutor: the net answered {} values for {} positions",
            wdl.len(),
            batch.len()
        );
        for (w, range) in wdl.chunks_exact(3).zip(batch.offsets().windows(2)) {
            out.push(&policy[range[0]..range[1]], [w[0], w[1], w[2]]);
        }
    }
}

/// The softmax over each position's legal moves and the WDL softmax, computed where the net
/// ran, as one `f32` vector: `[moves]` policies, then `[3 * positions]` WDL.
pub fn device_probabilities(output: &NetOutput, input: &NetInput) -> Tensor {
    let policy = move_log_softmax(&output.move_logits, &input.move_batch, input.batch).exp().to_kind(Kind::Float);
    let wdl = output.wdl_logits.softmax(-1, Kind::Float).reshape([-1]);
    Tensor::cat(&[policy, wdl], 0)
}

/// Where device results land on the host: on CUDA a page-locked tensor (grown by doubling),
/// so that the copy is one DMA without a bounce buffer; on the CPU nothing (the result is
/// already host memory).
struct HostStaging {
    device: Device,
    pinned: Option<Tensor>,
}

impl HostStaging {
    fn new(device: Device) -> HostStaging {
        HostStaging { device, pinned: None }
    }

    /// Copies the 1-D `f32` tensor `src` into `dst` (resized to its length).
    fn copy_to_host(&mut self, src: &Tensor, dst: &mut Vec<f32>) {
        let n = src.numel();
        dst.resize(n, 0.0);
        if n == 0 {
            return;
        }
        if let Some(staging) = self.staging(n) {
            // Synchronous (`copy_` is blocking), so the data is in place afterwards.
            let mut view = staging.narrow(0, 0, n as i64);
            view.copy_(src);
            view.copy_data(dst, n);
        } else {
            src.copy_data(dst, n);
        }
    }

    /// A page-locked buffer of at least `n` floats, on CUDA only; `None` when the device is
    /// not CUDA or libtorch could not pin (then `copy_data` copies through pageable memory).
    fn staging(&mut self, n: usize) -> Option<&Tensor> {
        if !self.device.is_cuda() {
            return None;
        }
        if self.pinned.as_ref().is_none_or(|t| t.numel() < n) {
            let capacity = n.next_power_of_two().max(4096) as i64;
            // `_pin_memory`: `pin_memory` warns that passing a device is deprecated, and tch
            // always passes one.
            self.pinned = Tensor::empty([capacity], (Kind::Float, Device::Cpu)).f_internal_pin_memory(self.device).ok();
        }
        self.pinned.as_ref()
    }
}
