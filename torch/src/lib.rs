//! fairyzero-torch: the libtorch backend, and the only crate of the workspace that links libtorch.
//!
//! - [`net`]: the policy/value network (one definition for every board size and piece set) and
//!   its loss;
//! - [`checkpoint`]: saving and loading nets as safetensors plus a JSON header and manifest,
//!   with transfer between variants;
//! - [`optim`]: AdamW with savable state;
//! - [`training`]: one optimizer step on a [`fairyzero_model::TrainBatch`] (loss, AdamW,
//!   clipping, the step's statistics);
//! - [`backend`]: [`serve`] and [`serve_checkpoint`], a net behind the batching
//!   [`fairyzero_model::service::InferenceService`], which is the [`fairyzero_model::Backend`]
//!   every search uses;
//! - [`executor`]: [`TorchExecutor`], a net on a device as the service's executor: each batch
//!   packed into two reused host buffers, uploaded through page-locked staging without
//!   blocking on CUDA, channels-last on CUDA, softmaxes on the device, one copy back;
//! - the runtime: devices, threads, seeds and what libtorch this program runs on.
//!
//! Everything else (encoding, the backend contract, piece identities, network sizes) is plain
//! Rust in `fairyzero-model`, so that search, self-play and matches build without libtorch.

pub mod backend;
pub mod checkpoint;
pub mod executor;
pub mod net;
pub mod optim;
mod runtime;
pub mod training;

pub use backend::{serve, serve_checkpoint};
pub use executor::{ConvLayout, DeviceStaging, ExecutorOptions, TorchExecutor};
pub use fairyzero_model::{Precision, PrecisionSetting};
pub use net::{resolve_precision, HostTensors, Net, NetInput, NetOutput};
pub use runtime::{
    configure_cuda, default_device, manual_seed, require_device, runtime_info, set_threads, DeviceError, RuntimeInfo,
};
/// Re-exported so that callers name devices without depending on tch themselves.
pub use tch::Device;
