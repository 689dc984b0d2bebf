//! fairyzero-evaluator: how strong is a player? Matches between players, fixed baselines that
//! need no network, Elo ratings with confidence intervals, SPRT gating and the ranking of a
//! run's checkpoints.
//!
//! - [`player`]: the [`Player`] trait, [`PlayerSpec`] (`random`, `greedy`, `alphabeta:DEPTH`,
//!   `alphabeta:ms=N`, `uci:PATH:depth=N`, `xboard:PATH:depth=N`, `PATH@SIMS`) and
//!   [`Contestant`] (a player factory, one player per game, marked CPU-bound or not);
//! - [`external`]: external UCI and CECP engines as players (`uci:PATH:depth=N:Option=value`,
//!   `xboard:PATH:depth=N`), their variant check, timeouts and crashes (a forfeit with its
//!   reason);
//! - [`values`]: piece values (the variant's, estimated from mobility, or uniform);
//! - [`alphabeta`]: the alpha-beta baseline engine;
//! - [`search_player`]: a checkpoint as a player (the self-play crate's search with a net that
//!   the caller loads through a [`CheckpointLoader`]; this crate does not link libtorch);
//! - [`matches`](mod@matches): openings, games, many games at once (checkpoint players batched
//!   by their inference service, CPU-bound moves on `cpu_threads` permits), [`MatchGame`]s, the
//!   match report;
//! - [`store`]: the append-only results store `DIR/matches/*.jsonl` of a run directory;
//! - [`ratings`]: Bradley–Terry maximum likelihood, bootstrap or likelihood intervals;
//! - [`sprt`]: the sequential probability ratio test for gating;
//! - [`ranking`] and [`plot`]: `ranking.md`, `ranking.json` and `ranking.png` of a run.
//!
//! ```
//! use fairyzero_evaluator::{run_match, MatchOptions, PlayerSpec, SearchPlayerConfig};
//! use fairyzero_rules::Variant;
//!
//! let v = Variant::load("gardner").unwrap();
//! let player = |s: &str| PlayerSpec::parse(s).unwrap().contestant(&v, None, &SearchPlayerConfig::default()).unwrap();
//! let options = MatchOptions { games: 4, seed: 1, ..MatchOptions::default() };
//! let report = run_match(&v, &player("greedy"), &player("random"), &options, None).unwrap();
//! assert_eq!(report.games(), 4);
//! assert!(report.result_line().starts_with("result "));
//! ```

pub mod alphabeta;
pub mod external;
pub mod matches;
pub mod player;
pub mod plot;
pub mod ranking;
pub mod ratings;
pub mod search_player;
pub mod sprt;
pub mod store;
pub mod values;

pub use alphabeta::{AlphaBeta, AlphaBetaConfig, SearchResult};
pub use external::{EngineSpec, Protocol};
pub use matches::{
    generate_openings, play_game, run_match, run_sprt_match, Adjudication, GameResult, MatchGame, MatchOptions,
    MatchReport, Opening,
};
pub use player::{
    CheckpointLoader, Contestant, GameContext, LoadError, LoadProblem, LoadedCheckpoint, Player, PlayerSpec,
};
pub use ranking::{rank_run, Ranking};
pub use ratings::{rate_records, CiMethod, RatingOptions, Ratings};
pub use search_player::{SearchPlayer, SearchPlayerConfig};
pub use sprt::{SprtDecision, SprtError, SprtParams, SprtStatus};
pub use store::ResultStore;
pub use values::{PieceValues, ValueSource};

/// Search settings of checkpoint players, and why a game ended, re-exported so that callers
/// need not depend on the self-play crate.
pub use fairyzero_selfplay::{config::SearchKind, record::Termination, search::SearchParams};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("player {spec:?}: {message}")]
    PlayerSpec { spec: String, message: String },
    #[error(transparent)]
    Load(#[from] LoadError),
    /// An external engine that cannot play this match (it did not start, lacks an option,
    /// does not know the variant).
    #[error("engine {player}: {message}")]
    Engine { player: String, message: String },
    #[error("match: {0}")]
    Match(String),
    #[error("{path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("plot {0}")]
    Plot(String),
}
