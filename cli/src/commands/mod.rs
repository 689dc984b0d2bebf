//! The subcommands, one file each.
//!
//! To add a subcommand `foo`:
//! 1. write `foo.rs` with a `#[derive(clap::Args)] pub struct FooArgs` (its doc comments are
//!    the `--help` text) and `pub fn run(args: FooArgs) -> anyhow::Result<()>`;
//! 2. add `mod foo;` below, a `Foo(foo::FooArgs)` variant to [`Command`] (its doc comment is
//!    the one-line summary in `fairyzero --help`) and its arm in [`Command::run`].
//!
//! Several related subcommands may share a file (e.g. `rules.rs` for `variants`, `perft`,
//! `moves`). Return errors with context (`anyhow::Context`) rather than panicking: `main`
//! prints them as `error: …` with their causes and exits non-zero.

mod analyse;
mod bench;
mod designer;
mod info;
mod matches;
mod rules;
mod selfplay;
mod show_game;
mod train;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print runtime information: versions, device, threads, OpenMP/MKL availability
    Info(info::InfoArgs),
    /// List the built-in variants
    Variants(rules::VariantsArgs),
    /// Print every legal move of a position, one per line
    Moves(rules::MovesArgs),
    /// Count the leaf nodes of the legal move tree (last line: `nodes N`)
    Perft(rules::PerftArgs),
    /// Play self-play games with batched network evaluation and write their records
    Selfplay(selfplay::SelfPlayArgs),
    /// Search a position: principal variation, win/draw/loss, top moves with visits and priors
    Analyse(analyse::AnalyseArgs),
    /// Print the games of a record file in move notation (or as PGN)
    ShowGame(show_game::ShowGameArgs),
    /// Play a match between two players (last line: `result W D L score S ci LO HI`)
    Match(matches::MatchArgs),
    /// Rate every player of a run from its stored games: ranking.md, ranking.json, ranking.png
    Rank(matches::RankArgs),
    /// Benchmarks: `bench net` times the network forward pass at several batch sizes
    Bench(bench::BenchArgs),
    /// First-player balance of a variant (or per initial array) by self-play (last line: `first-player W D L score S ci LO HI`)
    Balance(designer::BalanceArgs),
    /// Piece values by material-imbalance matches: piece-values.{csv,md,png}
    PieceValues(designer::PieceValuesArgs),
    /// Train: self-play, optimisation, checkpoints and evaluation until the run's budget is spent (resumable)
    Train(train::TrainArgs),
}

impl Command {
    pub fn run(self) -> anyhow::Result<()> {
        match self {
            Command::Info(args) => info::run(args),
            Command::Variants(args) => rules::variants(args),
            Command::Moves(args) => rules::moves(args),
            Command::Perft(args) => rules::perft_command(args),
            Command::Selfplay(args) => selfplay::run(args),
            Command::Analyse(args) => analyse::run(args),
            Command::ShowGame(args) => show_game::run(args),
            Command::Match(args) => matches::run_match_command(args),
            Command::Rank(args) => matches::run_rank_command(args),
            Command::Bench(args) => bench::run(args),
            Command::Train(args) => train::run(args),
            Command::Balance(args) => designer::balance(args),
            Command::PieceValues(args) => designer::piece_values(args),
        }
    }
}
