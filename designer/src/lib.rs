//! fairyzero-designer: measurements for people who design variants rather than train players.
//!
//! A designer asks two questions of a variant, and both are answered by games of a fixed
//! player (no training needed: `alphabeta:DEPTH` plays well enough to show a clear imbalance;
//! a trained checkpoint gives sharper answers):
//!
//! - **Is it balanced?** [`run_balance`] plays a player against itself and reports the first
//!   player's score with its 95% interval, overall and, for a variant with a setup phase, per
//!   initial array ([`SetupSelection`]), most balanced first.
//! - **What are its pieces worth?** Three methods, each a table in units of a reference piece
//!   (pawn by default) with 95% intervals:
//!   - material-imbalance matches ([`run_piece_values`]): games with one piece removed from
//!     (or, for a type the start lacks, added to) one side, the score turned into Elo;
//!   - a value-net probe ([`probe_values`]): a trained net's opinion of positions from
//!     self-play games with and without one piece;
//!   - a least-squares fit ([`fit_values`]): game results regressed on material over
//!     self-play games.
//!
//! Games accumulate in `OUT/matches/*.jsonl` (the evaluator's [`ResultStore`]): a rerun adds
//! games and the intervals shrink. Every table is written as CSV, Markdown and a PNG bar chart
//! ([`write_method_files`], [`write_comparison`]).
//!
//! The crate sits on top of `fairyzero-evaluator` (players, openings, the results store) and
//! does not link libtorch: a checkpoint player comes in as a [`Contestant`] built with the
//! caller's `CheckpointLoader`, and the probe's net as a `&dyn Backend` (the CLI loads both).
//! The commands are `fairyzero balance` and `fairyzero piece-values` (docs/designer.md).
//!
//! - [`balance`]: balance, overall and per initial array;
//! - [`imbalance`]: piece values by material-imbalance matches;
//! - [`material`]: piece values by the probe and the fit, from self-play records;
//! - [`games`]: the games both match-based measurements play and accumulate;
//! - [`tables`]: the CSV, Markdown and PNG files of every measurement.
//!
//! [`ResultStore`]: fairyzero_evaluator::ResultStore
//! [`Contestant`]: fairyzero_evaluator::Contestant

use std::path::PathBuf;

pub mod balance;
pub mod games;
pub mod imbalance;
pub mod material;
pub mod tables;

pub use balance::{all_setups, run_balance, sample_setups, BalanceReport, BalanceRow, SetupSelection, MAX_SETUPS};
pub use games::{DesignOptions, DesignProgress, Tally};
pub use imbalance::{check_piece_value_player, run_piece_values, Imbalance, PieceValueReport, PieceValueRow};
pub use material::{fit_values, load_games, probe_values, MaterialOptions, MethodReport, MethodRow};
pub use tables::{write_comparison, write_method_files};

/// Why a measurement could not be made, or its results not be written. A cause is either in
/// the message or, for the transparent variants, the inner error's: never both, so that a chain
/// printer (the CLI's anyhow) does not print it twice.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The player knows the values it is asked to measure.
    #[error(
        "player {spec:?}: piece-values needs values=uniform or values=mobility: the nominal values would be circular"
    )]
    CircularPlayer { spec: String },
    #[error("no piece {token:?} in variant {variant}")]
    UnknownPiece { token: String, variant: String },
    #[error("the reference piece {token} is royal")]
    RoyalReference { token: String },
    #[error("the reference piece {token} is not in the start position")]
    ReferenceNotInStart { token: String },
    #[error("variant {variant} draws its start array by chance (a start generator): {hint}")]
    DrawnStart { variant: String, hint: &'static str },
    #[error("variant {variant} has no setup phase: --setups does not apply")]
    NoSetupPhase { variant: String },
    #[error("bad setup selection {text:?} (expected all, sample:K with K from 1 to {MAX_SETUPS}, or setup:<hex>)")]
    SetupSelection { text: String },
    #[error(transparent)]
    SetupMask(#[from] fairyzero_rules::SetupMaskError),
    #[error("{experiment}: no opening that does not end the game")]
    NoOpening { experiment: String },
    #[error("--games 0 reports stored games, and none of {player} is stored for this measurement: give --games N")]
    NothingStored { player: String },
    #[error("cannot start the game threads: {0}")]
    Threads(rayon::ThreadPoolBuildError),
    #[error(transparent)]
    Records(#[from] fairyzero_selfplay::record::RecordError),
    #[error("{}: no self-play games of variant {variant} ({hash}) ({files} files read, {skipped} skipped)", dir.display())]
    NoGames { dir: PathBuf, variant: String, hash: String, files: usize, skipped: usize },
    #[error("probe: the reference {reference} was removable in fewer than 2 of {positions} sampled positions")]
    ProbeReferenceUnseen { reference: String, positions: usize },
    #[error("fit: {games} usable games; at least 2 are needed")]
    FitTooFewGames { games: usize },
    #[error("fit: the two sides never had different numbers of the reference {reference} in {games} games")]
    FitReferenceNeverTraded { reference: String, games: usize },
    #[error("fit: the normal equations are singular")]
    FitSingular,
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: std::io::Error },
    #[error("plot {}: {message}", path.display())]
    Plot { path: PathBuf, message: String },
    /// The results store, a player or a checkpoint (the evaluator's errors).
    #[error(transparent)]
    Evaluator(#[from] fairyzero_evaluator::Error),
}
