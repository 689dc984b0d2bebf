//! fairyzero-trainer: the training loop, the project's main job (`fairyzero train`).
//!
//! Self-play games with the current net, a replay window of their positions, optimisation of
//! the policy and value heads against the search targets and the game results, checkpoints,
//! evaluation of the checkpoints by the evaluator crate, until a budget of games, steps or
//! wall-clock time is spent. A run is resumable at any moment and keeps its artifacts in a
//! store that other machines can share. docs/training.md is the user's guide.
//!
//! - [`config`]: the run configuration (`configs/runs/*.toml`), `-o key=value` overrides;
//! - [`run`]: the loop ([`run::train`]), resume, progress and the final summary; the same loop
//!   is the learner of a split run ([`run::Role::Learner`], `fairyzero learn`);
//! - [`session`]: a long self-play session on its own thread (the loop's, a worker's);
//! - [`worker`]: a self-play worker of a split run (`fairyzero worker`), publishing to the store;
//! - [`feed`]: the learner's reading of the games workers publish;
//! - [`replay`]: training samples from game records, the window, weighted sampling;
//! - [`symmetry`]: the left-right mirror, where the rules make it exact;
//! - [`learner`]: one optimizer step (loss, AdamW, schedule, clipping);
//! - [`evaluation`]: matches, SPRT gating and rankings through the evaluator crate;
//! - [`store`]: the [`store::Store`] trait and its object_store implementation;
//! - [`artifacts`]: names, publication and reading of games, checkpoints and match results;
//! - [`lock`]: one `train` process per run directory;
//! - [`lease`]: one learner per store, by a lease of immutable objects in the store itself;
//! - [`index`]: the SQLite index of checkpoints and match results, rebuilt from the store;
//! - [`metrics`] and [`tfevents`]: `metrics.jsonl` and TensorBoard event files.

pub mod artifacts;
pub mod config;
mod eval_worker;
pub mod evaluation;
pub mod feed;
pub mod index;
pub mod learner;
pub mod lease;
pub mod lock;
pub mod metrics;
pub mod replay;
pub mod run;
pub mod session;
pub mod store;
pub mod symmetry;
pub mod tfevents;
pub mod worker;

pub use config::RunConfig;
pub use run::{train, RunSummary, TrainOptions};
