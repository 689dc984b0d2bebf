//! Rules-engine subcommands: `variants`, `moves`, `perft`. Their output formats are relied
//! upon by external checks (one move per line; perft's last line is `nodes N`).

use std::time::Instant;

use anyhow::{Context, Result};
use fairyzero_rules::{perft, perft_divide, registry, MoveList, Position, Variant};

use crate::limits;

/// Where a command starts: a variant, an optional position and moves played from it.
#[derive(Debug, clap::Args)]
pub struct PositionArgs {
    /// Variant: a built-in name or alias (see `fairyzero variants`) or a path to a TOML file
    #[arg(long)]
    pub variant: String,

    /// Start position (position string of docs/notation.md); default: the variant's start
    #[arg(long)]
    pub fen: Option<String>,

    /// Moves to play first, comma-separated (history counts, e.g. for repetition rules)
    #[arg(long, value_delimiter = ',', num_args = 0..)]
    pub moves: Vec<String>,

    /// Start from the setup phase (`phase`) instead of the default array, or fix an array by
    /// its setup plies (`set:d2=K,set:d9=CO,...`) or its mask (`setup:1f`, docs/notation.md);
    /// variants with a setup phase only
    #[arg(long, conflicts_with = "fen")]
    pub setup: Option<String>,

    /// Start from the array this seed draws, for a variant whose array is drawn by chance
    /// (`randomized`, `wild1`..`wild4`, `[start_generator]`); the same seed draws the same array
    #[arg(long, conflicts_with_all = ["fen", "setup"])]
    pub seed: Option<u64>,
}

impl PositionArgs {
    pub fn position(&self) -> Result<Position> {
        let variant = Variant::load(&self.variant).context("loading the variant")?;
        if let Some(seed) = self.seed {
            anyhow::ensure!(
                variant.has_start_generator(),
                "--seed {seed}: variant {} has a fixed start array (--seed draws the array of a variant with a \
                 start generator, e.g. randomized or wild2)",
                variant.name
            );
        }
        let mut pos = match (&self.fen, &self.setup, self.seed) {
            (Some(fen), _, _) => Position::from_fen(variant, fen).context("reading --fen")?,
            (None, Some(setup), _) => {
                if setup.starts_with("setup:") {
                    Position::from_setup_text(variant, setup).context("--setup")?
                } else {
                    let mut pos = Position::setup_start(variant.clone())
                        .with_context(|| format!("--setup: variant {} has no setup phase", variant.name))?;
                    if setup != "phase" {
                        pos.play_moves(setup).context("--setup")?;
                        anyhow::ensure!(!pos.in_setup(), "--setup: {setup:?} does not complete the array");
                    }
                    pos
                }
            }
            (None, None, Some(seed)) => Position::start_with_seed(variant, seed),
            (None, None, None) => Position::start(variant),
        };
        // Rejoined so that a doubled turn `a,b` reads as one move (docs/notation.md, move lists).
        pos.play_moves(&self.moves.join(",")).context("--moves")?;
        Ok(pos)
    }
}

#[derive(Debug, clap::Args)]
pub struct VariantsArgs {
    /// Also list the rows of the seed's variant list that are not implemented, with the reason
    /// (what they need, or why they are out of scope)
    #[arg(long)]
    pub all: bool,
}

/// One line per built-in (and with `--all`, per list row that is not implemented): its name,
/// its number on the seed's variant list and class, its aliases, its board and piece types, and
/// its description or the reason it is not implemented. The first word of each line after the
/// header is a name `--variant` takes.
pub fn variants(args: VariantsArgs) -> Result<()> {
    let shown: Vec<&registry::Entry> = registry::entries().iter().filter(|e| args.all || e.is_implemented()).collect();
    let aliases = |e: &registry::Entry| if e.aliases.is_empty() { "-".to_string() } else { e.aliases.join(",") };
    // Columns fit their longest entry, so the table stays aligned as variants come.
    let width = shown.iter().map(|e| e.name.len()).max().unwrap_or(0).max("name".len());
    let alias_width = shown.iter().map(|e| aliases(e).len()).max().unwrap_or(0).max("aliases".len());
    println!(
        "{:<width$} {:<4} {:<5} {:<alias_width$} {:<5} {:>5}  description",
        "name", "list", "class", "aliases", "board", "types"
    );
    for e in shown {
        let (board, types, description) = match e.reason() {
            None => {
                let v = Variant::load(e.name).with_context(|| format!("built-in variant {}", e.name))?;
                let board = format!("{}x{}", v.dims.width, v.dims.height);
                (board, v.piece_count().to_string(), v.spec.description.clone().unwrap_or_default())
            }
            Some(reason) => ("-".to_string(), "-".to_string(), format!("{}; {}: {reason}", e.title, e.status_label())),
        };
        println!(
            "{:<width$} {:<4} {:<5} {:<alias_width$} {:<5} {:>5}  {description}",
            e.name,
            e.number_label(),
            e.class_label(),
            aliases(e),
            board,
            types,
        );
    }
    Ok(())
}

#[derive(Debug, clap::Args)]
pub struct MovesArgs {
    #[command(flatten)]
    pub position: PositionArgs,
}

pub fn moves(args: MovesArgs) -> Result<()> {
    let mut pos = args.position.position()?;
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let mut lines: Vec<String> = list.iter().map(|m| pos.move_to_string(m)).collect();
    lines.sort();
    for line in lines {
        println!("{line}");
    }
    if list.is_empty() {
        if let Some(outcome) = pos.outcome_with(&list) {
            tracing::info!("no legal moves: {outcome:?}");
        }
    }
    Ok(())
}

#[derive(Debug, clap::Args)]
pub struct PerftArgs {
    #[command(flatten)]
    pub position: PositionArgs,

    /// Depth in plies (the last ply is counted in bulk; at most 64)
    #[arg(long, value_parser = limits::count::<u32>(0, limits::MAX_DEPTH))]
    pub depth: u32,

    /// Print the node count below each legal move first (`MOVE: N`)
    #[arg(long)]
    pub divide: bool,
}

pub fn perft_command(args: PerftArgs) -> Result<()> {
    let mut pos = args.position.position()?;
    let start = Instant::now();
    let nodes = if args.divide {
        let mut rows: Vec<(String, u64)> =
            perft_divide(&mut pos, args.depth).into_iter().map(|(m, n)| (pos.move_to_string(&m), n)).collect();
        rows.sort();
        for (m, n) in &rows {
            println!("{m}: {n}");
        }
        if args.depth == 0 {
            1
        } else {
            rows.iter().map(|(_, n)| n).sum()
        }
    } else {
        perft(&mut pos, args.depth)
    };
    let secs = start.elapsed().as_secs_f64();
    tracing::info!("perft {} in {:.3} s, {:.0} nodes/s", args.depth, secs, nodes as f64 / secs.max(1e-9));
    println!("nodes {nodes}");
    Ok(())
}
