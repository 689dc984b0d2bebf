//! `fairyzero show-game`: print the games of a record file in move notation, or export them as
//! PGN.

use std::{
    io::{ErrorKind, Write},
    path::PathBuf,
};

use anyhow::{bail, Context, Result};
use fairyzero_rules::Variant;
use fairyzero_selfplay::{export, record};

#[derive(Debug, clap::Args)]
pub struct ShowGameArgs {
    /// A game record file (*.games.zst) written by `fairyzero selfplay`
    pub file: PathBuf,

    /// Only the game with this index in the file (0-based)
    #[arg(long)]
    pub game: Option<usize>,

    /// Print PGN (variant, hash and start position in the tags) instead of the listing
    #[arg(long)]
    pub pgn: bool,

    /// Add one line per move: search value, simulations, evaluations, strongest targets
    #[arg(long)]
    pub details: bool,
}

pub fn run(args: ShowGameArgs) -> Result<()> {
    let games = record::read_chunk(&args.file)?;
    let selected: Vec<(usize, &record::GameRecord)> = match args.game {
        Some(i) if i >= games.len() => bail!("--game {i}: {} holds {} games", args.file.display(), games.len()),
        Some(i) => vec![(i, &games[i])],
        None => games.iter().enumerate().collect(),
    };
    let mut variant = None;
    let mut out = String::new();
    for (i, game) in selected {
        if variant.as_ref().is_none_or(|v: &std::sync::Arc<Variant>| v.name != game.variant) {
            variant = Some(Variant::load(&game.variant).with_context(|| format!("game {i}: loading its variant"))?);
        }
        let v = variant.as_ref().expect("set above");
        let text = if args.pgn { export::to_pgn(game, v) } else { export::describe(game, v, args.details) }
            .with_context(|| format!("game {i} of {}", args.file.display()))?;
        if args.pgn {
            out.push_str(&text);
        } else {
            out.push_str(&format!("game {i}\n{text}\n"));
        }
    }
    // A closed pipe (`| head`) is not an error.
    match std::io::stdout().lock().write_all(out.as_bytes()) {
        Err(e) if e.kind() != ErrorKind::BrokenPipe => Err(e).context("writing to stdout"),
        _ => Ok(()),
    }
}
