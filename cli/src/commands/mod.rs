//! The subcommands, one file each.
//!
//! To add a subcommand `foo`:
//! 1. write `foo.rs` with a `#[derive(clap::Args)] pub struct FooArgs` (its doc comments are
//!    the `--help` text) and `pub fn run(args: FooArgs) -> anyhow::Result<()>`;
//! 2. add `mod foo;` below, a `Foo(foo::FooArgs)` variant to [`Command`] (its doc comment is
//!    the one-line summary in `fairyzero --help`) and its arms in [`Command::run`] and
//!    [`Command::libtorch_use`].
//!
//! A command that needs a network gets it from the [`NetRuntime`] passed to `run` (only the
//! `fairyzero-torch` helper has a real one) and must say so in [`Command::libtorch_use`], so
//! that the lean `fairyzero` hands it to the helper.
//!
//! Several related subcommands may share a file (e.g. `rules.rs` for `variants`, `perft`,
//! `moves`). Return errors with context (`anyhow::Context`) rather than panicking: `main`
//! prints them as `error: …` with their causes and exits non-zero.

pub mod analyse;
pub mod bench;
pub mod compare;
pub mod designer;
pub mod info;
pub mod ladder;
pub mod matches;
pub mod model;
pub mod play;
pub mod report;
pub mod rules;
pub mod selfplay;
pub mod show_game;
pub mod train;
pub mod uci;
pub mod xboard;

use clap::Subcommand;
use fairyzero_evaluator::PlayerSpec;

use crate::network::NetRuntime;

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
    /// Rate a player on an engine's scale of fixed depths (e.g. Fairy-Stockfish 1, 2, 3, ...): ladder.{md,json,png}
    Ladder(ladder::LadderArgs),
    /// A training run on one self-contained HTML page: summary, rating curve, losses, throughput, ranking, latest games
    Report(report::ReportArgs),
    /// Rate every player of a run from its stored games: ranking.md, ranking.json, ranking.png
    Rank(matches::RankArgs),
    /// Rating curves of several runs on one scale (shared baselines): Elo against wall-clock and games, compare.{md,json,png}
    Compare(compare::CompareArgs),
    /// Benchmarks: `bench net` times the network forward pass at several batch sizes
    Bench(bench::BenchArgs),
    /// First-player balance of a variant (or per initial array) by self-play (last line: `first-player W D L score S ci LO HI`)
    Balance(designer::BalanceArgs),
    /// Piece values by material-imbalance matches: piece-values.{csv,md,png}
    PieceValues(designer::PieceValuesArgs),
    /// Train: self-play, optimisation, checkpoints and evaluation until the run's budget is spent (resumable)
    Train(train::TrainArgs),
    /// The learner of a run split across machines: trains on the games that workers publish to the store, publishes checkpoints and ratings (docs/distributed.md)
    Learn(train::LearnArgs),
    /// A self-play worker of a run split across machines: plays with the newest checkpoint in the store and publishes its games there (docs/distributed.md)
    Worker(train::WorkerArgs),
    /// Export a run's checkpoint as a shippable net folder (weights, header, config, provenance, manifest), e.g. under models/
    ExportModel(model::ExportModelArgs),
    /// Play as a UCI engine on stdin/stdout, with a net or the alpha-beta player behind it (docs/engines.md)
    Uci(uci::UciArgs),
    /// Play as an XBoard (CECP v2) engine on stdin/stdout, with a net or the alpha-beta player behind it (docs/engines.md)
    Xboard(xboard::XboardArgs),
    /// Play against a net or a baseline player on a local web page (click a piece, click a target); games saved for show-game
    Play(play::PlayArgs),
}

/// What a parsed command needs of libtorch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LibtorchUse {
    /// Nothing: the lean `fairyzero` runs it.
    None,
    /// It reports on libtorch (`--version`, `info`): the helper runs it when present, else the
    /// lean program reports what it can.
    Reports,
    /// A network: only the helper can run it.
    Needs,
}

impl Command {
    /// Whether this command, with these arguments, loads or builds a network.
    pub fn libtorch_use(&self) -> LibtorchUse {
        let needs = |yes: bool| if yes { LibtorchUse::Needs } else { LibtorchUse::None };
        let checkpoint = |spec: &PlayerSpec| matches!(spec, PlayerSpec::Checkpoint { .. });
        match self {
            Command::Info(_) => LibtorchUse::Reports,
            Command::Variants(_)
            | Command::Moves(_)
            | Command::Perft(_)
            | Command::ShowGame(_)
            | Command::Report(_)
            | Command::Compare(_)
            | Command::ExportModel(_) => LibtorchUse::None,
            Command::Selfplay(args) => needs(args.net.is_some()),
            Command::Analyse(args) => needs(args.net.is_some()),
            Command::Match(args) => needs(checkpoint(&args.a) || checkpoint(&args.b)),
            Command::Ladder(args) => needs(checkpoint(&args.player)),
            Command::Balance(args) => needs(checkpoint(&args.player)),
            Command::PieceValues(args) => {
                needs(args.method.contains(&designer::Method::Probe) || args.player.as_ref().is_some_and(checkpoint))
            }
            Command::Bench(args) => args.libtorch_use(),
            Command::Train(_) | Command::Learn(_) | Command::Worker(_) => LibtorchUse::Needs,
            // A store other than a run directory is read through the trainer's store layer.
            Command::Rank(args) => needs(args.store.is_some()),
            Command::Uci(args) => needs(args.engine.net.is_some()),
            Command::Xboard(args) => needs(args.engine.net.is_some()),
            Command::Play(args) => needs(args.needs_libtorch()),
        }
    }

    pub fn run(self, net: &dyn NetRuntime) -> anyhow::Result<()> {
        match self {
            Command::Info(args) => info::run(args, net),
            Command::Variants(args) => rules::variants(args),
            Command::Moves(args) => rules::moves(args),
            Command::Perft(args) => rules::perft_command(args),
            Command::Selfplay(args) => selfplay::run(args, net),
            Command::Analyse(args) => analyse::run(args, net),
            Command::ShowGame(args) => show_game::run(args),
            Command::Report(args) => report::run(args),
            Command::Match(args) => matches::run_match_command(args, net),
            Command::Ladder(args) => ladder::run(args, net),
            Command::Rank(args) if args.store.is_some() => net.rank_store(args),
            Command::Rank(args) => matches::run_rank_command(args),
            Command::Compare(args) => compare::run(args),
            Command::Bench(args) => bench::run(args, net),
            Command::Train(args) => net.train(args),
            Command::Learn(args) => net.learn(args),
            Command::Worker(args) => net.worker(args),
            Command::Balance(args) => designer::balance(args, net),
            Command::PieceValues(args) => designer::piece_values(args, net),
            Command::ExportModel(args) => model::run(args),
            Command::Uci(args) => uci::run(args, net),
            Command::Xboard(args) => xboard::run(args, net),
            Command::Play(args) => play::run(args, net),
        }
    }
}
