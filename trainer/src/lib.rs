//! fairyzero-trainer: the training loop, the project's main job (`fairyzero train`).
//!
//! Self-play games with the current net, a replay window of their positions, optimisation of
//! the policy and value heads against the search targets and the game results, checkpoints,
//! evaluation of the checkpoints by the evaluator crate, until a budget of games, steps or
//! wall-clock time is spent. A run is resumable at any moment and keeps its artifacts in a
//! store that other machines can share. docs/training.md is the user's guide.
//!
//! - [`config`]: the run configuration (`configs/runs/*.toml`), `-o key=value` overrides;
//! - [`run`]: the loop ([`run::train`]), resume, progress and the final summary;
//! - [`replay`]: training samples from game records, the window, weighted sampling;
//! - [`symmetry`]: the left-right mirror, where the rules make it exact;
//! - [`learner`]: one optimizer step (loss, AdamW, schedule, clipping);
//! - [`evaluation`]: matches, SPRT gating and rankings through the evaluator crate;
//! - [`store`]: the [`store::Store`] trait and its object_store implementation;
//! - [`artifacts`]: names, publication and reading of games, checkpoints and match results;
//! - [`lock`]: one `train` process per run directory;
//! - [`index`]: the SQLite index of checkpoints and match results, rebuilt from the store;
//! - [`metrics`] and [`tfevents`]: `metrics.jsonl` and TensorBoard event files.

pub mod artifacts;
pub mod config;
mod eval_worker;
pub mod evaluation;
pub mod index;
pub mod learner;
pub mod lock;
pub mod metrics;
pub mod replay;
pub mod run;
pub mod store;
pub mod symmetry;
pub mod tfevents;

pub use config::RunConfig;
pub use run::{train, RunSummary, TrainOptions};
