//! fairyzero-model: what the network sees, the network itself, and how search talks to it.
//!
//! One architecture serves every variant, 5x5 to 18x18, with any number of piece types and any
//! kind of move (see [`encoding`] and `net`):
//!
//! - [`encoding`]: positions and legal moves from the side to move's point of view (pure Rust);
//! - [`identity`]: stable piece identities, so that embeddings transfer between variants;
//! - [`evaluator`]: the inference contract used by search, with a mock and a cache (pure Rust);
//! - [`config`]: network sizes and the checkpoint header (plain data);
//! - with the `torch` feature (default): `net` (the network and its loss), `checkpoint`,
//!   `optim` (AdamW with savable state), `torch_evaluator` (batched inference on one thread)
//!   and [`runtime_info`].
//!
//! # Features
//!
//! - `torch` (default): everything that links libtorch. Crates that must not link it (selfplay)
//!   depend on this crate with `default-features = false` and get the encoding, the evaluator
//!   trait and [`evaluator::MockEvaluator`].
//!
//! ```
//! use std::sync::Arc;
//! use fairyzero_model::{
//!     encoding::StandardEncoding,
//!     evaluator::{EvalRequest, Evaluator, MockEvaluator},
//! };
//! use fairyzero_rules::{MoveList, Position, Variant};
//!
//! let v = Variant::load("scirocco").unwrap();
//! let mut pos = Position::start(Arc::clone(&v));
//! let mut moves = MoveList::new();
//! pos.legal_moves(&mut moves);
//!
//! let batch = StandardEncoding::new(Arc::clone(&v)).encode_batch([(&pos, moves.as_slice())]);
//! assert_eq!(batch.pieces().shape(), &[1, 10, 10]);
//!
//! let eval = MockEvaluator::uniform().evaluate(&[EvalRequest { position: &pos, moves: &moves }]);
//! assert_eq!(eval[0].policy.len(), moves.len());
//! ```

pub mod config;
pub mod encoding;
pub mod evaluator;
pub mod identity;
pub mod synthetic;

#[cfg(feature = "torch")]
pub mod checkpoint;
#[cfg(feature = "torch")]
pub mod net;
#[cfg(feature = "torch")]
pub mod optim;
#[cfg(feature = "torch")]
mod runtime;
#[cfg(feature = "torch")]
pub mod torch_evaluator;

pub use config::NetConfig;
pub use encoding::{EncodedBatch, Encoding, MoveFeatures, StandardEncoding};
pub use evaluator::{CachedEvaluator, EvalRequest, Evaluation, Evaluator, EvaluatorInfo, MockEvaluator, MockValue};
#[cfg(feature = "torch")]
pub use net::{Net, NetInput, NetOutput};
#[cfg(feature = "torch")]
pub use runtime::{default_device, require_device, runtime_info, set_threads, DeviceError, RuntimeInfo};
/// Re-exported so that callers name devices without depending on tch themselves.
#[cfg(feature = "torch")]
pub use tch::Device;
#[cfg(feature = "torch")]
pub use torch_evaluator::{TorchEvaluator, TorchEvaluatorOptions};
