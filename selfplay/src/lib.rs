//! fairyzero-selfplay: Monte Carlo tree search, many self-play games at once with batched
//! network evaluation, and the game records they produce.
//!
//! - [`search`]: PUCT (AlphaZero) and Gumbel AlphaZero over one game, driven step by step so
//!   that the leaves of many games share one backend batch; tree reuse between moves.
//! - [`runner`]: `threads` workers, each driving many [`game::SelfPlayGame`]s, with one batch
//!   at a time through a blocking [`Backend`](fairyzero_model::backend::Backend) or several in
//!   flight through an inference service; a training run's long session swaps nets as it goes;
//!   [`runner::Ramp`] admits a run's games gradually at its start (`selfplay.ramp_secs`).
//! - [`analyse`]: one position at a time with node/time limits and a stop flag.
//! - [`record`]: versioned, compressed, atomically written chunk files; replay rebuilds the
//!   training positions. [`export`] prints games and exports PGN.
//! - [`config`]: the `[selfplay]` section of a run configuration; [`limits`]: the largest
//!   counts a user may ask for.
//! - [`bench`]: the evaluator's raw throughput, the reference for self-play's.
//!
//! The crate has no libtorch dependency: the network comes in through the `Backend` trait,
//! and the tests use `MockBackend`.
//!
//! ```
//! use fairyzero_model::backend::MockBackend;
//! use fairyzero_rules::{Position, Variant};
//! use fairyzero_selfplay::analyse::{Analyzer, Limits};
//! use fairyzero_selfplay::search::SearchParams;
//! use std::sync::atomic::AtomicBool;
//!
//! let pos = Position::from_fen(Variant::load("chess").unwrap(), "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1").unwrap();
//! let mock = MockBackend::uniform();
//! let mut analyzer = Analyzer::new(pos, SearchParams::puct(), &mock);
//! let analysis = analyzer.go(&Limits { nodes: 300, time: None }, &AtomicBool::new(false));
//! assert_eq!(analysis.best.as_deref(), Some("a1a8"));
//! ```

pub mod analyse;
pub mod bench;
pub mod config;
pub mod export;
pub mod game;
pub mod gumbel;
pub mod limits;
pub mod progress;
pub mod record;
pub mod runner;
pub mod search;
pub mod tree;

pub use config::{SearchKind, SelfPlayConfig};
pub use record::{GameRecord, MoveRecord};
pub use runner::{
    run_selfplay, run_selfplay_session, run_selfplay_until, run_selfplay_with, CurrentNet, Evaluator, GameEnd, Ramp,
    RunOptions, Summary,
};
pub use search::{Search, SearchOptions, SearchParams};
