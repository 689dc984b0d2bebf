//! Nets as search backends: an [`InferenceService`] (many search threads submit and wait on
//! tickets, one service thread batches them, docs/plans/batching.md §2) in front of a
//! [`TorchExecutor`] (the forward, the softmaxes on the device, one device-to-host copy per
//! batch).
//!
//! `Tensor` is `Send` but not `Sync`, and libtorch's grad mode is per thread, so the net lives
//! on the service's thread, which owns it (as KataGo's NN server and lc0's backends do).
//! Callers that search one leaf at a time (matches, `analyse`) use the service as a plain
//! blocking [`fairyzero_model::Backend`]; self-play keeps several submissions in flight.

use std::{path::Path, sync::Arc};

use fairyzero_model::{
    config::NetConfig,
    encoding::StandardEncoding,
    service::{InferenceService, ServiceConfig},
};
use fairyzero_rules::Variant;
use tch::Device;

use crate::{
    checkpoint::{self, CheckpointError},
    executor::{ExecutorOptions, TorchExecutor},
    net::Net,
    runtime::configure_cuda,
};

/// Serves `net` on its device: a [`fairyzero_model::Backend`] whose forwards batch the
/// submissions of every thread, up to `config.max_batch` positions (`accelerated_max_batch` on
/// CUDA, when set), computed as `options` say.
/// Applies [`configure_cuda`] first when the net is on CUDA. Swap the net later with
/// `service.swap_executor(Box::new(TorchExecutor::with_options(net, service.max_batch(),
/// options)))`.
pub fn serve(net: Net, mut config: ServiceConfig, options: ExecutorOptions) -> InferenceService {
    configure_cuda(net.device());
    config.max_batch = config.max_batch_on(net.device().is_cuda());
    let encoding = Arc::new(StandardEncoding::new(Arc::clone(net.variant())));
    let executor = TorchExecutor::with_options(net, config.max_batch.max(1), options);
    InferenceService::start(Box::new(executor), encoding, config)
}

/// Loads a checkpoint (refusing another variant or architecture) and [`serve`]s it.
pub fn serve_checkpoint(
    dir: &Path,
    variant: Arc<Variant>,
    architecture: Option<&NetConfig>,
    device: Device,
    config: ServiceConfig,
    options: ExecutorOptions,
) -> Result<InferenceService, CheckpointError> {
    let loaded = checkpoint::load(dir, variant, architecture, device, false)?;
    Ok(serve(loaded.net, config, options))
}
