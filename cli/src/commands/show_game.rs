//! `fairyzero show-game`: print the games of a record file in move notation, export them as
//! PGN, or write one as a self-contained HTML page ([`crate::viewer`]). Reads self-play records
//! (`*.games.zst`) and match results (`*.jsonl`: the games of `fairyzero match`, `ladder` and a
//! run's `matches/`).

use std::{
    io::{ErrorKind, Write},
    path::{Path, PathBuf},
    sync::Arc,
};

use anyhow::{bail, Context, Result};
use fairyzero_evaluator::{
    matches::{self, MatchGame},
    ranking::write_atomic,
};
use fairyzero_rules::{Position, Variant};
use fairyzero_selfplay::{export, record};

use crate::viewer::{self, GameInput, PlyInput, SearchNotes};

#[derive(Debug, clap::Args)]
pub struct ShowGameArgs {
    /// A game record file (*.games.zst) written by `fairyzero selfplay` or `train`, or a match
    /// results file (*.jsonl) of `fairyzero match`, `ladder` or a run's `matches/`
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

    /// Write one game as a self-contained HTML page (the board of any size, the moves, the
    /// search values and targets) to this file; needs --game when the file holds several games
    #[arg(long, value_name = "OUT.html", conflicts_with_all = ["pgn", "details"])]
    pub html: Option<PathBuf>,
}

pub fn run(args: ShowGameArgs) -> Result<()> {
    if args.file.extension().is_some_and(|e| e == "jsonl") {
        return run_match_file(&args);
    }
    let games = record::read_chunk(&args.file)?;
    if let Some(out) = &args.html {
        let i = one_game(&args, games.len())?;
        return write_page(out, &self_play_input(&games[i], i, &args.file)?)
            .with_context(|| format!("game {i} of {}", args.file.display()));
    }
    let selected: Vec<(usize, &record::GameRecord)> = match args.game {
        Some(i) if i >= games.len() => bail!("--game {i}: {} holds {} games", args.file.display(), games.len()),
        Some(i) => vec![(i, &games[i])],
        None => games.iter().enumerate().collect(),
    };
    let mut variant = None;
    let mut out = String::new();
    for (i, game) in selected {
        if variant.as_ref().is_none_or(|v: &Arc<Variant>| v.name != game.variant) {
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
    print(&out)
}

/// Writes `out` to stdout; a closed pipe (`| head`) is not an error.
fn print(out: &str) -> Result<()> {
    match std::io::stdout().lock().write_all(out.as_bytes()) {
        Err(e) if e.kind() != ErrorKind::BrokenPipe => Err(e).context("writing to stdout"),
        _ => Ok(()),
    }
}

/// The index of the one game `--html` shows: `--game`, or the file's only game.
fn one_game(args: &ShowGameArgs, count: usize) -> Result<usize> {
    match args.game {
        Some(i) if i >= count => bail!("--game {i}: {} holds {count} games", args.file.display()),
        Some(i) => Ok(i),
        None if count == 1 => Ok(0),
        None => bail!("--html shows one game: pass --game N ({} holds {count} games)", args.file.display()),
    }
}

fn write_page(out: &Path, game: &GameInput) -> Result<()> {
    let page = viewer::game_page(game)?;
    write_atomic(out, page.as_bytes()).with_context(|| format!("writing {}", out.display()))?;
    eprintln!("wrote {} ({} plies)", out.display(), game.moves.len());
    Ok(())
}

/// The viewer page of game `index` of the self-play record file `file` (for `report`).
pub fn page_of_record(game: &record::GameRecord, index: usize, file: &Path) -> Result<String> {
    viewer::game_page(&self_play_input(game, index, file)?)
        .with_context(|| format!("game {index} of {}", file.display()))
}

fn self_play_input(game: &record::GameRecord, index: usize, file: &Path) -> Result<GameInput> {
    let context = || format!("game {index} of {}", file.display());
    let variant = Variant::load(&game.variant).with_context(context)?;
    let start = game.start_position(&variant).with_context(context)?;
    let moves = game
        .moves
        .iter()
        .map(|m| PlyInput {
            mv: m.mv.clone(),
            notes: Some(SearchNotes {
                value: m.value,
                simulations: m.simulations,
                targets: m.policy.clone().unwrap_or_default(),
            }),
        })
        .collect();
    let winner = match game.result.winner_color() {
        Some(c) => format!("{} wins", c.name()),
        None => "draw".into(),
    };
    Ok(GameInput {
        start,
        moves,
        title: format!("{}: game {index} of {}", game.variant, file_name(file)),
        header: vec![
            ("net".into(), game.net.clone()),
            ("search".into(), format!("{} {} simulations", game.search.kind, game.search.simulations)),
            ("result".into(), format!("{} {winner} ({})", game.result.score_text(), game.result.reason)),
            ("seed".into(), game.seed.to_string()),
        ],
    })
}

/// A match results file: a listing of its games (players, result, moves), or one as a page.
fn run_match_file(args: &ShowGameArgs) -> Result<()> {
    if args.pgn || args.details {
        bail!("--pgn and --details read self-play records (*.games.zst); {} holds match results", args.file.display());
    }
    let text = std::fs::read_to_string(&args.file).with_context(|| format!("reading {}", args.file.display()))?;
    let mut games = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let game: MatchGame = record::from_json_line(line)
            .map_err(|e| anyhow::anyhow!("{}:{}: not a match game: {e}", args.file.display(), n + 1))?;
        games.push(game);
    }
    if let Some(out) = &args.html {
        let i = one_game(args, games.len())?;
        return write_page(out, &match_input(&games[i], i, &args.file)?)
            .with_context(|| format!("game {i} of {}", args.file.display()));
    }
    let mut out = String::new();
    for (i, g) in games.iter().enumerate().filter(|(i, _)| args.game.is_none_or(|k| k == *i)) {
        out.push_str(&format!(
            "game {i}: {} (Blue) - {} (Tan)  {} ({}), {} plies\n",
            g.blue,
            g.tan,
            result_text(g),
            g.reason,
            g.plies
        ));
        out.push_str(&format!("opening: {}\n", g.opening_moves));
        out.push_str(&format!("moves: {}\n\n", g.moves.as_deref().unwrap_or("(not recorded)")));
    }
    if let Some(i) = args.game.filter(|&i| i >= games.len()) {
        bail!("--game {i}: {} holds {} games", args.file.display(), games.len());
    }
    print(&out)
}

/// A match game's start (the variant's, its setup phase's, or the drawn array `[FEN]` its opening
/// begins with) and
/// its opening and played moves.
fn match_input(game: &MatchGame, index: usize, file: &Path) -> Result<GameInput> {
    let context = || format!("game {index} of {}", file.display());
    let Some(played) = &game.moves else {
        bail!(
            "game {index} of {} was recorded without its moves (a trainer's evaluation matches keep results \
             only; `fairyzero match` records moves unless --no-moves)",
            file.display()
        );
    };
    let variant = Variant::load(&game.variant).with_context(context)?;
    let (start, opening) = match game.opening_moves.strip_prefix('[') {
        Some(rest) => {
            let (fen, moves) =
                rest.split_once(']').with_context(|| format!("{}: opening without its `]`", context()))?;
            let pos = Position::from_fen(Arc::clone(&variant), fen.trim()).with_context(context)?;
            (pos, moves.to_string())
        }
        None => (matches::start_position(&variant), game.opening_moves.clone()),
    };
    let moves = opening
        .split_whitespace()
        .chain(played.split_whitespace())
        .map(|m| PlyInput { mv: m.to_string(), notes: None })
        .collect();
    Ok(GameInput {
        start,
        moves,
        title: format!("{}: {} - {}, game {index} of {}", game.variant, game.blue, game.tan, file_name(file)),
        header: vec![
            ("Blue".into(), game.blue.clone()),
            ("Tan".into(), game.tan.clone()),
            ("result".into(), format!("{} ({})", result_text(game), game.reason)),
            ("opening plies".into(), opening.split_whitespace().count().to_string()),
        ],
    })
}

/// The PGN result: `*` for a game broken off unfinished.
fn result_text(game: &MatchGame) -> &'static str {
    if game.is_finished() {
        game.result.text()
    } else {
        "*"
    }
}

/// A file's name without its folders, for page titles (a temporary folder means nothing there).
fn file_name(file: &Path) -> String {
    file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned())
}
