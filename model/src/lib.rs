//! fairyzero-model: what the network sees and how search talks to it, without libtorch.
//!
//! One architecture serves every variant, 5x5 to 18x18, with any number of piece types and any
//! kind of move (see [`encoding`] and `net`):
//!
//! - [`encoding`]: positions and legal moves from the side to move's point of view (pure Rust);
//! - [`identity`]: stable piece identities, so that embeddings transfer between variants;
//! - [`mirror`]: the left-right mirror of encoded positions (training's data augmentation);
//! - [`training`]: a training batch with its targets, before it becomes tensors;
//! - [`backend`]: the inference contract used by search ([`Backend`]), with a mock and a cache;
//! - [`config`]: network sizes and the checkpoint header (plain data).
//!
//! The network itself, its checkpoints, optimizer and the batched libtorch inference thread are
//! in `fairyzero-torch`, the only crate that links libtorch: search, self-play, matches and the
//! designer tools see a net only as an `Arc<dyn Backend>` handed to them.
//!
//! ```
//! use std::sync::Arc;
//! use fairyzero_model::{
//!     encoding::StandardEncoding,
//!     backend::{Backend, EvalOutput, EvalRequest, MockBackend},
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
//! let mut out = EvalOutput::new();
//! MockBackend::uniform().evaluate(&[EvalRequest { position: &pos, moves: &moves }], &mut out);
//! assert_eq!(out.get(0).policy.len(), moves.len());
//! ```

pub mod backend;
pub mod config;
pub mod encoding;
pub mod identity;
pub mod mirror;
pub mod service;
pub mod training;

pub use backend::{
    recycle_requests, Backend, BackendInfo, CachedBackend, EvalOutput, EvalRequest, EvalView, Evaluation, MockBackend,
    MockValue,
};
pub use config::{HeaderError, NetConfig, NetSizeError, Precision, PrecisionSetting};
pub use encoding::{ActionFeatures, EncodedBatch, Encoding, MoveFeatures, StandardEncoding};
pub use training::TrainBatch;
