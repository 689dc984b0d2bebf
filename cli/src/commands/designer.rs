//! `fairyzero balance` and `fairyzero piece-values`: variant-design measurements by self-play
//! of a fixed player (library side: `fairyzero_evaluator::designer`). Results accumulate in
//! `OUT/matches/*.jsonl`: rerunning adds games and narrows the intervals.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use fairyzero_evaluator::{
    designer::{run_balance, run_piece_values, DesignOptions, SetupSelection},
    PlayerSpec, SearchPlayerConfig,
};
use fairyzero_rules::Variant;

#[derive(Debug, clap::Args)]
pub struct BalanceArgs {
    /// Variant: a built-in name or a path to a TOML file
    #[arg(long)]
    pub variant: String,

    /// The player, playing both sides: random, greedy[:values=SOURCE], alphabeta:DEPTH[:values=SOURCE]
    #[arg(long)]
    pub player: String,

    /// New games (per initial array with --setups)
    #[arg(long, default_value_t = 100)]
    pub games: usize,

    /// Per initial array of a variant with a setup phase: all, or sample:K
    #[arg(long)]
    pub setups: Option<SetupSelection>,

    /// Output directory (results store, balance.{csv,md,png})
    #[arg(long, default_value = "balance")]
    pub out: PathBuf,

    /// Random plies of each opening (after the setup phase)
    #[arg(long, default_value_t = 4)]
    pub plies: u32,

    /// Seed of the openings and of the players' random choices
    #[arg(long, default_value_t = 0)]
    pub seed: u64,

    /// Plies after the opening before a draw (default: the variant's move cap)
    #[arg(long)]
    pub move_cap: Option<u32>,

    /// Games played in parallel (default: one per core)
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}

#[derive(Debug, clap::Args)]
pub struct PieceValuesArgs {
    /// Variant: a built-in name or a path to a TOML file (no setup phase)
    #[arg(long)]
    pub variant: String,

    /// The player, both sides; alphabeta/greedy need values=uniform or values=mobility
    #[arg(long)]
    pub player: String,

    /// Piece tokens to measure, comma-separated (default: every non-royal type in the start)
    #[arg(long, value_delimiter = ',')]
    pub pieces: Option<Vec<String>>,

    /// The reference piece (value 1)
    #[arg(long, default_value = "P")]
    pub reference: String,

    /// New games per piece type (half with Blue handicapped, half with Tan)
    #[arg(long, default_value_t = 100)]
    pub games: usize,

    /// Output directory (results store, piece-values.{csv,md,png})
    #[arg(long)]
    pub out: PathBuf,

    /// Random plies of each opening
    #[arg(long, default_value_t = 4)]
    pub plies: u32,

    #[arg(long, default_value_t = 0)]
    pub seed: u64,

    /// Plies after the opening before a draw (default: the variant's move cap)
    #[arg(long)]
    pub move_cap: Option<u32>,

    /// Games played in parallel (default: one per core)
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}

fn player(text: &str, v: &std::sync::Arc<Variant>) -> Result<(PlayerSpec, fairyzero_evaluator::Contestant)> {
    let spec = PlayerSpec::parse(text)?;
    if matches!(spec, PlayerSpec::Checkpoint { .. }) {
        bail!("--player {text:?}: checkpoint players are not supported by the design tools yet (use random, greedy or alphabeta)");
    }
    let c = spec.contestant(v, None, &SearchPlayerConfig::default())?;
    Ok((spec, c))
}

pub fn balance(args: BalanceArgs) -> Result<()> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let variant = Variant::load(&args.variant).context("loading the variant")?;
    let (_, p) = player(&args.player, &variant)?;
    let options = DesignOptions {
        games: args.games,
        random_plies: args.plies,
        seed: args.seed,
        move_cap: args.move_cap,
        threads: args.threads,
        batch: 32,
    };
    let arrays = match args.setups {
        Some(SetupSelection::All) => fairyzero_evaluator::designer::all_setups(&variant, 1 << 16).map(|a| a.len()),
        Some(SetupSelection::Sample(k)) => Some(k),
        None => Some(1),
    }
    .unwrap_or(1);
    let bar = fairyzero_selfplay::progress::bar((args.games * arrays) as u64, true);
    let progress = |n: usize| bar.set_position(n as u64);
    let report = run_balance(&variant, &p, args.setups, &options, &args.out, Some(&progress))?;
    bar.finish_and_clear();
    println!("balance of {} ({} against itself), results in {}", report.variant, report.player, args.out.display());
    if !report.arrays.is_empty() {
        println!("{} arrays (mirror images not merged), most balanced first:", report.arrays.len());
        for r in report.arrays.iter().take(20) {
            println!("  {}  {}", r.line(), r.array);
        }
        println!("tables: {}", args.out.join("balance.md").display());
    }
    println!("{}", report.overall.line());
    Ok(())
}

pub fn piece_values(args: PieceValuesArgs) -> Result<()> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let variant = Variant::load(&args.variant).context("loading the variant")?;
    let (spec, p) = player(&args.player, &variant)?;
    let options = DesignOptions {
        games: args.games,
        random_plies: args.plies,
        seed: args.seed,
        move_cap: args.move_cap,
        threads: args.threads,
        batch: 32,
    };
    let types = args.pieces.as_ref().map(|p| p.len() + 1).unwrap_or(variant.piece_count());
    let bar = fairyzero_selfplay::progress::bar((args.games.div_ceil(2) * 2 * types) as u64, true);
    let progress = |n: usize| bar.set_position(n as u64);
    let report = run_piece_values(
        &variant,
        &spec,
        &p,
        args.pieces.as_deref(),
        &args.reference,
        &options,
        &args.out,
        Some(&progress),
    )?;
    bar.finish_and_clear();
    println!(
        "piece values of {} ({} against itself), in units of {}:",
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
    println!("tables: {}", args.out.join("piece-values.md").display());
    Ok(())
}
