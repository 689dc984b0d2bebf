//! The libtorch [`Executor`]: runs a [`Net`] on one device behind the
//! [`InferenceService`](fairyzero_model::service::InferenceService), which batches the
//! submissions of many search threads (docs/plans/batching.md §2, docs/network.md "Inference
//! path").
//!
//! One batch is: pack the slot's [`EncodedBatch`] into two reusable host buffers (`i32` index
//! columns, `f32` features: [`HostTensors`]), copy them to the device (on CUDA through
//! page-locked staging tensors, without blocking: [`DeviceStaging`]), one `no_grad` forward,
//! the softmax over each position's legal moves and the WDL softmax **on the device**, both
//! concatenated into one `f32` vector `[moves + 3 * positions]`, then **one** device-to-host
//! copy (into page-locked memory on CUDA) and a copy of each position's range into the
//! [`EvalOutput`]. No per-position allocation once the buffers are warm.
//!
//! On CUDA the net runs channels-last by default ([`ConvLayout::Auto`]): with cuDNN's
//! autotuning ([`crate::configure_cuda`]) that made a 15x192 forward 1.4x faster in fp32 on an
//! H200 (docs/performance.md, "Where a GPU forward goes").

use fairyzero_model::{backend::EvalOutput, encoding::EncodedBatch, service::Executor, Precision};
use tch::{Device, Kind, Tensor};

use crate::net::{move_log_softmax, HostTensors, Net, NetInput, NetOutput};

/// How a [`TorchExecutor`] computes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExecutorOptions {
    /// libtorch intra-op threads of the thread that runs the batches (`None`: libtorch's
    /// setting).
    pub threads: Option<usize>,
    /// The forward's precision ([`Net::forward_with`]); the softmaxes are fp32 either way.
    pub precision: Precision,
}

/// The memory layout of an executor's convolutions ([`TorchExecutor::with_layout`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ConvLayout {
    /// Channels-last on CUDA (NHWC kernels, what cuDNN and tensor cores want), NCHW elsewhere
    /// (oneDNN on the CPU gained nothing measurable from it).
    #[default]
    Auto,
    /// Contiguous NCHW weights and activations, libtorch's default.
    Nchw,
    /// Channels-last ([`Net::set_channels_last`]) on any device.
    ChannelsLast,
}

impl ConvLayout {
    /// Whether a net on `device` runs channels-last.
    pub fn is_channels_last(self, device: Device) -> bool {
        match self {
            ConvLayout::Auto => device.is_cuda(),
            ConvLayout::Nchw => false,
            ConvLayout::ChannelsLast => true,
        }
    }
}

/// Runs a [`Net`] for an inference service; see the module doc.
pub struct TorchExecutor {
    net: Net,
    max_batch: usize,
    options: ExecutorOptions,
    /// Whether `options.threads` was applied on the service thread (before its first batch).
    threads_set: bool,
    /// The batch packed on the host, reused from batch to batch.
    packed: HostTensors,
    staging: DeviceStaging,
    /// The batch's probabilities on the host: policies of every move, then WDL triples.
    host: Vec<f32>,
}

impl TorchExecutor {
    /// Serves `net` on its own device, in batches of at most `max_batch` positions, in fp32,
    /// laid out as [`ConvLayout::Auto`] says.
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
        let staging = DeviceStaging::new(net.device());
        TorchExecutor {
            net,
            max_batch,
            options,
            threads_set: false,
            packed: HostTensors::new(),
            staging,
            host: Vec::new(),
        }
        .with_layout(ConvLayout::Auto)
    }

    /// Lays the net out as `layout` says (the executor owns its net: callers give it a copy,
    /// so the training net's weights keep their layout).
    pub fn with_layout(mut self, layout: ConvLayout) -> TorchExecutor {
        let channels_last = layout.is_channels_last(self.net.device());
        if channels_last != self.net.is_channels_last() {
            if channels_last {
                self.net.set_channels_last();
            } else {
                self.net.set_nchw();
            }
        }
        self
    }

    /// The net it serves.
    pub fn net(&self) -> &Net {
        &self.net
    }

    /// Whether the inputs reach the device through page-locked staging buffers (CUDA, once
    /// pinning worked).
    pub fn is_pinned(&self) -> bool {
        self.staging.is_pinned()
    }
}

impl Executor for TorchExecutor {
    fn name(&self) -> String {
        let precision = match self.options.precision {
            Precision::Fp32 => "",
            Precision::Bf16 => " bf16",
        };
        let layout = if self.net.is_channels_last() { " channels-last" } else { "" };
        format!(
            "torch({} {} on {:?}{precision}{layout})",
            self.net.variant().name,
            self.net.config(),
            self.net.device()
        )
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
        self.packed.pack(&[batch]);
        let (net, packed, staging, precision) = (&self.net, &self.packed, &mut self.staging, self.options.precision);
        let probabilities = tch::no_grad(|| {
            let input = staging.upload(packed);
            let output = net.forward_with(&input, precision);
            device_probabilities(&output, &input)
        });
        self.staging.download(&probabilities, &mut self.host);

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

/// The executor's copies between host and device. On CUDA, three page-locked host tensors
/// (index columns, features, results), each grown by doubling and reused, so that a copy is one
/// DMA without libtorch's bounce buffer; the inputs go up **without blocking** the host. On the
/// CPU it copies nothing: the packed buffers become the input tensors, and results are read in
/// place.
///
/// Filling a pinned tensor costs one host memcpy more than the ideal (the buffer is first
/// wrapped by `Tensor::from_slice`, since writing into a tensor's memory from Rust needs
/// `unsafe`, docs/plans/batching.md Q1); `bench net --breakdown` shows it under "to device".
///
/// Correctness of the asynchronous copy: the host must not refill a staging tensor while a copy
/// from it may still be running. [`DeviceStaging::download`] blocks until the device has done
/// everything queued before it, the uploads included, so a run that ends with a download
/// leaves the buffers free; any other upload after an upload first synchronises the device.
pub struct DeviceStaging {
    device: Device,
    ints: Option<Tensor>,
    floats: Option<Tensor>,
    results: Option<Tensor>,
    /// libtorch refused to pin (no CUDA driver for it, or page-locked memory exhausted): copy
    /// through pageable memory from then on instead of retrying every batch.
    pin_failed: bool,
    /// An asynchronous upload may still be reading `ints` or `floats`.
    in_flight: bool,
}

impl DeviceStaging {
    /// Staging for `device` (buffers are made at the first batch that needs them).
    pub fn new(device: Device) -> DeviceStaging {
        DeviceStaging { device, ints: None, floats: None, results: None, pin_failed: false, in_flight: false }
    }

    /// Whether copies go through page-locked buffers (on CUDA, after the first upload, unless
    /// pinning failed).
    pub fn is_pinned(&self) -> bool {
        self.device.is_cuda() && !self.pin_failed && self.ints.is_some()
    }

    /// `host`'s batch on the device. On CUDA the copies are queued and the host goes on; the
    /// tensors are valid for any op queued afterwards (the device runs them in order).
    pub fn upload(&mut self, host: &HostTensors) -> NetInput {
        if !self.device.is_cuda() {
            return host.to_device(self.device);
        }
        if self.in_flight {
            synchronize(self.device);
            self.in_flight = false;
        }
        let device = self.device;
        let (ints, floats) = (host.ints(), host.floats());
        let Some(ints_pinned) = pinned(&mut self.ints, &mut self.pin_failed, Kind::Int, ints.len(), device) else {
            return host.to_device(device);
        };
        let ints_up = fill_and_send(ints_pinned, &Tensor::from_slice(ints), device);
        let Some(floats_pinned) = pinned(&mut self.floats, &mut self.pin_failed, Kind::Float, floats.len(), device)
        else {
            // The index copy is queued from pinned memory: it must finish before a refill.
            self.in_flight = true;
            let floats_up = Tensor::from_slice(floats).to_device(device);
            return host.input_from(&ints_up, &floats_up);
        };
        let floats_up = fill_and_send(floats_pinned, &Tensor::from_slice(floats), device);
        self.in_flight = true;
        host.input_from(&ints_up, &floats_up)
    }

    /// Copies the 1-D `f32` tensor `src` into `dst` (resized to its length); blocks until the
    /// values are there, which also ends every earlier upload.
    pub fn download(&mut self, src: &Tensor, dst: &mut Vec<f32>) {
        let n = src.numel();
        dst.resize(n, 0.0);
        let device = self.device;
        let staged = if device.is_cuda() && n > 0 {
            pinned(&mut self.results, &mut self.pin_failed, Kind::Float, n, device)
        } else {
            None
        };
        if let Some(staging) = staged {
            // `copy_` is blocking: the values are in place afterwards.
            let mut view = staging.narrow(0, 0, n as i64);
            view.copy_(src);
            view.copy_data(dst, n);
        } else if n > 0 {
            src.copy_data(dst, n);
        } else if device.is_cuda() {
            synchronize(device);
        }
        self.in_flight = false;
    }
}

/// Copies `values` (a CPU tensor) into the front of the pinned tensor `staging` and queues
/// its copy to `device` without blocking the host.
fn fill_and_send(staging: &Tensor, values: &Tensor, device: Device) -> Tensor {
    let mut front = staging.narrow(0, 0, values.numel() as i64);
    front.copy_(values);
    front.to_device_(device, values.kind(), true, false)
}

/// The page-locked tensor in `slot`, of `kind` and at least `n` elements, made or grown (to
/// the next power of two, at least 4,096) as needed; `None` once pinning has failed.
fn pinned<'a>(
    slot: &'a mut Option<Tensor>,
    failed: &mut bool,
    kind: Kind,
    n: usize,
    device: Device,
) -> Option<&'a Tensor> {
    if *failed {
        return None;
    }
    if slot.as_ref().is_none_or(|t| t.numel() < n) {
        // Drop the old buffer first: page-locked memory is scarce.
        *slot = None;
        let capacity = n.next_power_of_two().max(4096) as i64;
        // `_pin_memory`: `pin_memory` warns that passing a device is deprecated, and tch
        // always passes one.
        match Tensor::empty([capacity], (kind, Device::Cpu)).f_internal_pin_memory(device) {
            Ok(t) => *slot = Some(t),
            Err(_) => {
                *failed = true;
                return None;
            }
        }
    }
    slot.as_ref()
}

/// Waits for the device's queued work; nothing on a CPU.
fn synchronize(device: Device) {
    if let Device::Cuda(index) = device {
        tch::Cuda::synchronize(index as i64);
    }
}
