//! `fairyzero balance` and `fairyzero piece-values`: variant-design measurements by self-play
//! of a fixed player (library side: the `fairyzero-designer` crate). Results accumulate in
//! `OUT/matches/*.jsonl`: rerunning adds games and narrows the intervals.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use anyhow::{bail, Context, Result};
use fairyzero_designer::{
    fit_values, load_games, probe_values, run_balance, run_piece_values, write_comparison, write_method_files,
    DesignOptions, MaterialOptions, MethodReport, SetupSelection,
};
use fairyzero_evaluator::{store::ensure_writable_dir, LoadError, LoadProblem, PlayerSpec, ResultStore};
use fairyzero_rules::Variant;

use crate::{limits, network::NetRuntime};

#[derive(Debug, clap::Args)]
pub struct BalanceArgs {
    /// Variant: a built-in name or alias (`fairyzero variants`) or a path to a TOML file
    #[arg(long)]
    pub variant: String,

    /// The player, playing both sides: random, greedy[:values=SOURCE], alphabeta:DEPTH[:values=SOURCE]
    /// or a checkpoint directory [@SIMULATIONS]
    /// or an engine, uci:PATH:depth=N|nodes=N|movetime=MS[:Option=value...] (xboard:PATH:... for CECP)
    #[arg(long, value_parser = PlayerSpec::parse)]
    pub player: PlayerSpec,

    /// New games (per initial array with --setups; at most 10,000,000); 0 reports the games
    /// already stored in --out
    #[arg(long, default_value_t = 100, value_parser = limits::count::<usize>(0, limits::MAX_GAMES))]
    pub games: usize,

    /// Per initial array of a variant with a setup phase: all, sample:K (K at most 65,536), or
    /// the one array of a mask setup:<hex>
    #[arg(long)]
    pub setups: Option<SetupSelection>,

    /// With --setups: play and report an array and its left-right mirror image as one (where
    /// the mirror is a symmetry of the game: symmetric pieces, no castling)
    #[arg(long, requires = "setups")]
    pub merge_mirrors: bool,

    /// Output directory (results store, balance.{csv,md,png}); rerunning into it adds games
    #[arg(long)]
    pub out: PathBuf,

    #[command(flatten)]
    pub play: PlayArgs,
}

/// How the design tools' games are played (shared by `balance` and `piece-values`).
#[derive(Debug, clap::Args)]
pub struct PlayArgs {
    /// Random plies of each opening (after the setup phase; at most 100,000)
    #[arg(long, default_value_t = 4, value_parser = limits::count::<u32>(0, limits::MAX_PLIES))]
    pub plies: u32,

    /// Seed of the openings, of the players' random choices and of the probe's sampling
    #[arg(long, default_value_t = 0)]
    pub seed: u64,

    /// Plies after the opening before a draw (default: the variant's move cap; at most 100,000)
    #[arg(long, value_parser = limits::count::<u32>(1, limits::MAX_PLIES))]
    pub move_cap: Option<u32>,

    /// Games played in parallel (default 0: one per core; at most 1,024)
    #[arg(long, default_value_t = 0, value_parser = limits::count::<usize>(0, limits::MAX_THREADS))]
    pub threads: usize,
}

impl PlayArgs {
    fn options(&self, games: usize) -> DesignOptions {
        DesignOptions {
            games,
            random_plies: self.plies,
            seed: self.seed,
            move_cap: self.move_cap,
            threads: self.threads,
            batch: 32,
            stop: Some(crate::interrupt::stop_flag()),
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct PieceValuesArgs {
    /// Variant: a built-in name or alias (`fairyzero variants`) or a path to a TOML file (one with a setup phase is measured
    /// from its default array)
    #[arg(long)]
    pub variant: String,

    /// Methods, comma-separated: matches (material-imbalance games of --player), probe (value
    /// change of --net on positions of --records), fit (least squares of results on material
    /// of --records)
    #[arg(long, value_delimiter = ',', default_value = "matches")]
    pub method: Vec<Method>,

    /// The player of `matches`, both sides: alphabeta/greedy need values=uniform or
    /// values=mobility; or a checkpoint directory [@SIMULATIONS]
    /// or an engine, uci:PATH:depth=N|nodes=N|movetime=MS[:Option=value...] (xboard:PATH:... for CECP)
    #[arg(long, value_parser = PlayerSpec::parse)]
    pub player: Option<PlayerSpec>,

    /// The net of `probe` (a checkpoint directory; default: the --player checkpoint)
    #[arg(long)]
    pub net: Option<PathBuf>,

    /// Self-play games of `probe` and `fit`: a directory of *.games.zst (a run's games/, or the
    /// output of `fairyzero selfplay`)
    #[arg(long)]
    pub records: Option<PathBuf>,

    /// Positions sampled from the records by `probe` (at most 100,000)
    #[arg(long, default_value_t = 2000, value_parser = limits::count::<usize>(1, limits::MAX_POSITIONS))]
    pub positions: usize,

    /// Plies at the start of each game left out of `fit` (at most 100,000)
    #[arg(long, default_value_t = 0, value_parser = limits::count::<usize>(0, limits::MAX_PLIES))]
    pub skip_plies: usize,

    /// Bootstrap resamples of the `probe` and `fit` intervals (at most 1,000,000)
    #[arg(long, default_value_t = 1000, value_parser = limits::count::<usize>(1, limits::MAX_RESAMPLES))]
    pub resamples: usize,

    /// Piece tokens to measure, comma-separated (default: every non-royal type in the start)
    #[arg(long, value_delimiter = ',')]
    pub pieces: Option<Vec<String>>,

    /// The reference piece (value 1)
    #[arg(long, default_value = "P")]
    pub reference: String,

    /// New games per piece type (half with Blue handicapped, half with Tan; at most
    /// 10,000,000); 0 reports the games already stored in --out
    #[arg(long, default_value_t = 100, value_parser = limits::count::<usize>(0, limits::MAX_GAMES))]
    pub games: usize,

    /// Output directory (results store, piece-values.{csv,md,png})
    #[arg(long)]
    pub out: PathBuf,

    #[command(flatten)]
    pub play: PlayArgs,
}

fn interrupted() -> bool {
    crate::interrupt::stop_flag().load(std::sync::atomic::Ordering::Relaxed)
}

/// A method of `piece-values`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Method {
    Matches,
    Probe,
    Fit,
}

fn player(spec: &PlayerSpec, v: &Arc<Variant>, net: &dyn NetRuntime) -> Result<fairyzero_evaluator::Contestant> {
    let loader = net.checkpoint_loader(Some(1));
    // An exported net plays with the search of the run that trained it.
    let search = super::matches::player_search(spec, None, None)?;
    Ok(spec.contestant(v, loader.as_deref(), &search)?)
}

/// Refuses an output directory that cannot take the results, before any game is played.
fn ensure_out_writable(out: &Path) -> Result<()> {
    let check = || -> Result<(), fairyzero_evaluator::Error> {
        ensure_writable_dir(out)?;
        ResultStore::new(out).ensure_writable()
    };
    check().with_context(|| format!("--out {}: the results could not be written there", out.display()))
}

pub fn balance(args: BalanceArgs, net: &dyn NetRuntime) -> Result<()> {
    let variant = Variant::load(&args.variant).context("loading the variant")?;
    let p = player(&args.player, &variant, net)?;
    ensure_out_writable(&args.out)?;
    let options = args.play.options(args.games);
    let bar = fairyzero_selfplay::progress::bar(args.games as u64, true);
    let progress = |n: usize, total: usize| {
        bar.set_length(total as u64);
        bar.set_position(n as u64);
    };
    let report = run_balance(&variant, &p, args.setups, args.merge_mirrors, &options, &args.out, Some(&progress))?;
    bar.finish_and_clear();
    println!("balance of {} ({} against itself), results in {}", report.variant, report.player, args.out.display());
    if !report.arrays.is_empty() {
        match report.mirrors_merged {
            Some(n) => println!(
                "{} rows ({n} arrays merged with their mirror image), most balanced first:",
                report.arrays.len()
            ),
            None => println!("{} arrays (mirror images not merged), most balanced first:", report.arrays.len()),
        }
        for r in report.arrays.iter().take(20) {
            println!("  {}  {}", r.line(), r.array);
        }
        println!("tables: {}", args.out.join("balance.md").display());
    }
    if interrupted() {
        println!("interrupted: the results above cover the games stored so far");
    }
    println!("{}", report.overall.line());
    Ok(())
}

pub fn piece_values(args: PieceValuesArgs, net: &dyn NetRuntime) -> Result<()> {
    let variant = Variant::load(&args.variant).context("loading the variant")?;
    let wants = |m: Method| args.method.contains(&m);
    if args.net.is_some() && !wants(Method::Probe) {
        bail!("--net is used by --method probe only (add probe to --method)");
    }
    if args.records.is_some() && !wants(Method::Probe) && !wants(Method::Fit) {
        bail!("--records is used by --method probe and fit only (add them to --method)");
    }
    if wants(Method::Matches) && args.player.is_none() {
        bail!("--method matches needs --player (alphabeta:DEPTH:values=mobility, or a checkpoint)");
    }
    if (wants(Method::Probe) || wants(Method::Fit)) && args.records.is_none() {
        bail!("--method probe and fit need --records DIR (self-play games of this variant)");
    }
    ensure_out_writable(&args.out)?;
    let mut matches_report = None;
    if wants(Method::Matches) {
        let Some(spec) = &args.player else {
            bail!("--method matches needs --player (alphabeta:DEPTH:values=mobility, or a checkpoint)");
        };
        let p = player(spec, &variant, net)?;
        let options = args.play.options(args.games);
        let bar = fairyzero_selfplay::progress::bar(args.games as u64, true);
        let progress = |n: usize, total: usize| {
            bar.set_length(total as u64);
            bar.set_position(n as u64);
        };
        let report = run_piece_values(
            &variant,
            spec,
            &p,
            args.pieces.as_deref(),
            &args.reference,
            &options,
            &args.out,
            Some(&progress),
        )?;
        bar.finish_and_clear();
        println!(
            "piece values of {} by material-imbalance matches ({} against itself), in units of {}:",
            report.variant, report.player, report.reference
        );
        for r in &report.rows {
            println!(
                "  {:>4}  {:.2} ({:.2} to {:.2})  elo {:+.0}  games {}",
                r.piece, r.value, r.value_ci.0, r.value_ci.1, r.elo, r.games
            );
        }
        for (piece, why) in &report.skipped {
            println!("  {piece}: not measured ({why})");
        }
        println!("table: {}", args.out.join("piece-values.md").display());
        if interrupted() {
            println!("interrupted: the values above cover the games stored so far (rerun to add more)");
        }
        matches_report = Some(report);
    }
    let mut others: Vec<MethodReport> = Vec::new();
    if wants(Method::Probe) || wants(Method::Fit) {
        let Some(dir) = &args.records else {
            bail!("--method probe and fit need --records DIR (self-play games of this variant)");
        };
        let games = load_games(&variant, dir).with_context(|| format!("reading the games of {}", dir.display()))?;
        let options = MaterialOptions {
            positions: args.positions,
            skip_plies: args.skip_plies,
            resamples: args.resamples,
            seed: args.play.seed,
            ..MaterialOptions::default()
        };
        if wants(Method::Probe) {
            let checkpoint = match (&args.net, &args.player) {
                (Some(net), _) => net.clone(),
                (None, Some(PlayerSpec::Checkpoint { path, .. })) => path.clone(),
                _ => bail!("--method probe needs --net CHECKPOINT (or a checkpoint --player)"),
            };
            let loader =
                net.checkpoint_loader(None).ok_or_else(|| LoadError::new(&checkpoint, LoadProblem::NoLoader))?;
            let loaded = loader.load(&checkpoint, &variant)?;
            others.push(probe_values(
                &variant,
                loaded.backend.as_ref(),
                &games,
                args.pieces.as_deref(),
                &args.reference,
                &options,
            )?);
        }
        if wants(Method::Fit) {
            others.push(fit_values(&variant, &games, args.pieces.as_deref(), &args.reference, &options)?);
        }
    }
    for report in &others {
        write_method_files(report, &args.out)?;
        println!(
            "piece values of {} by {} ({}), in units of {}:",
            report.variant, report.method, report.source, report.reference
        );
        for r in &report.rows {
            let imbalance = match r.imbalance {
                Some(fairyzero_designer::Imbalance::Removed) => "  (removed)",
                Some(fairyzero_designer::Imbalance::Added) => "  (added)",
                None => "",
            };
            println!(
                "  {:>4}  {:.2} ({:.2} to {:.2})  raw {:+.4}  samples {}{imbalance}",
                r.piece, r.value, r.value_ci.0, r.value_ci.1, r.raw, r.samples
            );
        }
        for (piece, why) in &report.skipped {
            println!("  {piece}: not measured ({why})");
        }
        println!("table: {}", args.out.join(format!("piece-values-{}.md", report.method)).display());
    }
    write_comparison(matches_report.as_ref(), &others, &args.out)?;
    println!("all methods: {}", args.out.join("piece-values-compare.md").display());
    Ok(())
}
