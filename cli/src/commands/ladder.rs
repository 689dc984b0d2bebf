//! `fairyzero ladder`: a player rated on the Elo scale of an external engine at fixed depths
//! (docs/engines.md, "Anchored ratings: `fairyzero ladder`").
//!
//! For each depth `d` of `--depths`, in order: a match of the player against the engine with
//! `depth=d`, and (unless `--no-engine-pairs`) a match of the engine at the previous depth
//! against depth `d`, so that the depths form their own scale. The ladder stops after the first
//! depth at which the engine scores at least `--stop-at` against the player. Every game played
//! is rated jointly (the evaluator's Bradley–Terry ratings, bootstrap intervals) with the
//! lowest depth at 0 Elo, which places the player on the engine's scale.
//!
//! # Storage and resuming
//!
//! Games go to the evaluator's results store `OUT/matches/` in blocks of [`BLOCK`] games (one
//! `fairyzero match` each, seeded per block), each stored as it finishes under a match id that
//! names the two players, the variant, the opening plies, the seed, the block and its size. A
//! rerun of the same command finds the blocks already stored and plays only the missing ones;
//! a killed ladder loses at most the blocks in progress. The ratings use exactly the games of
//! the blocks that this command asks for, so other games in the same store (another `--seed`,
//! `--plies` or variant) never leak into them.
//!
//! # Outputs
//!
//! `OUT/ladder.md` (the anchored Elo line, the per-depth table and the command),
//! `OUT/ladder.json` (the same numbers, unbounded interval ends as `null`) and `OUT/ladder.png`
//! (anchored Elo of the depths with their intervals, the player as a line with its interval),
//! each written atomically; the last line printed is
//! `ladder PLAYER elo E ci LO HI anchor ENGINE:depth=D`.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    sync::{atomic::Ordering, Arc},
};

use anyhow::{bail, Context, Result};
use fairyzero_evaluator::{
    external::EngineSpec,
    matches::mix,
    plot::{plot_curves, Curve, Panel},
    ranking::{signed_elo, write_atomic},
    ratings::{elo_from_score, rate_records},
    run_match, Adjudication, CiMethod, Contestant, MatchGame, MatchOptions, MatchReport, PlayerSpec, Protocol,
    RatingOptions, Ratings, ResultStore,
};
use fairyzero_rules::Variant;
use serde_json::{json, Value};

use super::matches::{contestant, player_search};
use crate::{limits, network::NetRuntime};

pub const LADDER_MD: &str = "ladder.md";
pub const LADDER_JSON: &str = "ladder.json";
pub const LADDER_PNG: &str = "ladder.png";

/// Games per stored block: the most a kill can lose per match in progress. Twenty games are
/// ten openings, each played with both colours. Fixed (not tied to `--threads`), so that a
/// rerun with other threads finds the same blocks.
pub const BLOCK: usize = 20;

#[derive(Debug, clap::Args)]
pub struct LadderArgs {
    /// The player to rate: random, greedy, alphabeta:DEPTH[...], a checkpoint or exported net
    /// folder PATH[@SIMS] (models/NAME plays with the search of the config.toml it carries), or
    /// an engine uci:PATH:depth=N...
    #[arg(long, value_parser = PlayerSpec::parse)]
    pub player: PlayerSpec,

    /// The engine whose depths make the scale, without a search limit:
    /// uci:PATH[:timeout=MS][:Option=value...] (xboard:PATH:... for CECP), e.g.
    /// uci:/usr/games/fairy-stockfish:VariantPath=engines/variants.ini
    #[arg(long, value_name = "SPEC", value_parser = parse_engine)]
    pub engine: EngineSpec,

    /// Variant: a built-in name or alias (`fairyzero variants`) or a path to a TOML file
    #[arg(long)]
    pub variant: String,

    /// Engine depths, in increasing order: N, A..B (A to B inclusive) or a comma-separated list
    /// of these, e.g. 1..8 or 1,2,3,5; each from 1 to 64
    #[arg(long, value_name = "LIST", default_value = "1..10", value_parser = parse_depths)]
    pub depths: Depths,

    /// Games of each match (player against a depth, and a depth against the next); each
    /// opening is played twice, colours swapped (at most 10,000,000)
    #[arg(long, default_value_t = 40, value_parser = limits::count::<usize>(1, limits::MAX_GAMES))]
    pub games: usize,

    /// Output directory: the results store OUT/matches/ and ladder.{md,json,png}; rerunning the
    /// same command into it plays only the games not yet stored
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,

    /// Stop after the first depth at which the engine scores at least this against the player
    /// (more than 0 and at most 1)
    #[arg(long, default_value_t = 0.90, value_parser = parse_stop_at)]
    pub stop_at: f64,

    /// Do not play the engine's depths against each other (the depths are then placed on the
    /// scale through the player's games alone)
    #[arg(long)]
    pub no_engine_pairs: bool,

    /// Random plies of each opening (after the setup phase, which is always sampled; at most
    /// 100,000)
    #[arg(long, default_value_t = 4, value_parser = limits::count::<u32>(0, limits::MAX_PLIES))]
    pub plies: u32,

    /// Seed of the openings, the players' random choices and the bootstrap
    #[arg(long, default_value_t = 0)]
    pub seed: u64,

    /// Games played at once, one thread each (default 0: one per core; at most 1,024). Games
    /// are played in blocks of 20, so more than 20 adds nothing
    #[arg(long, default_value_t = 0, value_parser = limits::count::<usize>(0, limits::MAX_THREADS))]
    pub threads: usize,

    /// Moves of alpha-beta players and engines computed at once (default 0: one per core; at
    /// most 1,024)
    #[arg(long, default_value_t = 0, value_parser = limits::count::<usize>(0, limits::MAX_THREADS))]
    pub cpu_threads: usize,

    /// Search of a checkpoint player: gumbel or puct (default: its run file's, else gumbel)
    #[arg(long, value_parser = ["gumbel", "puct"])]
    pub search: Option<String>,

    /// Run configuration whose [selfplay] section gives a checkpoint player's search (default:
    /// the config.toml an exported net carries)
    #[arg(long, value_name = "RUN.toml")]
    pub config: Option<PathBuf>,

    /// Bootstrap resamples for the anchored intervals (at most 1,000,000)
    #[arg(long, default_value_t = 1000, value_parser = limits::count::<usize>(1, limits::MAX_RESAMPLES))]
    pub bootstrap: usize,
}

/// The engine depths of a ladder: strictly increasing, each in 1..=64.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Depths(pub Vec<u32>);

/// The deepest `depth=N` an engine spec takes.
const MAX_ENGINE_DEPTH: u32 = 64;

/// `--depths`: `N`, `A..B` or a comma-separated list of these.
fn parse_depths(text: &str) -> Result<Depths, String> {
    let number = |s: &str| -> Result<u32, String> {
        s.trim()
            .parse::<u32>()
            .ok()
            .filter(|d| (1..=MAX_ENGINE_DEPTH).contains(d))
            .ok_or_else(|| format!("{:?} is not a depth from 1 to {MAX_ENGINE_DEPTH}", s.trim()))
    };
    let mut depths = Vec::new();
    for item in text.split(',') {
        if item.trim().is_empty() {
            return Err(if text.trim().is_empty() {
                "the list of depths is empty: give e.g. 1..8 or 1,2,3".into()
            } else {
                format!("{text:?} has an empty item")
            });
        }
        match item.split_once("..") {
            Some((a, b)) => {
                let (a, b) = (number(a)?, number(b)?);
                if a > b {
                    return Err(format!("{item:?}: the range is empty (write the lower depth first)"));
                }
                depths.extend(a..=b);
            }
            None => depths.push(number(item)?),
        }
    }
    if let Some(w) = depths.windows(2).find(|w| w[0] >= w[1]) {
        return Err(format!("depth {} comes after {}: list the depths in increasing order, each once", w[1], w[0]));
    }
    Ok(Depths(depths))
}

/// `--stop-at`: more than 0, at most 1.
fn parse_stop_at(text: &str) -> Result<f64, String> {
    let x: f64 = text.trim().parse().map_err(|_| format!("{text:?} is not a number"))?;
    if x.is_finite() && x > 0.0 && x <= 1.0 {
        Ok(x)
    } else {
        Err(format!("{text}: the engine's score to stop at must be more than 0 and at most 1"))
    }
}

/// `--engine`: an engine spec without a search limit (the ladder adds `depth=N`).
fn parse_engine(text: &str) -> Result<EngineSpec, String> {
    let (head, rest) = text.split_once(':').unwrap_or((text, ""));
    let protocol = match head {
        "uci" => Protocol::Uci,
        "xboard" => Protocol::Xboard,
        _ => return Err(format!("{text:?} is not an engine: expected uci:PATH[:Option=value...] or xboard:PATH[...]")),
    };
    for part in rest.split(':').skip(1) {
        let key = part.split_once('=').map_or(part, |(k, _)| k).trim();
        if ["depth", "nodes", "movetime"].contains(&key) {
            return Err(format!(
                "`{part}` sets the engine's search limit, which the ladder sets itself (depth=N for each of \
                 --depths): remove it"
            ));
        }
    }
    // Checked as the matches will use it, with a depth; kept without one.
    let mut spec = EngineSpec::parse(protocol, &format!("{rest}:depth=1"))?;
    spec.depth = None;
    Ok(spec)
}

/// The engine at `depth`.
fn engine_at(base: &EngineSpec, depth: u32) -> PlayerSpec {
    PlayerSpec::Engine(EngineSpec { depth: Some(depth), ..base.clone() })
}

/// Whether the engine's score against the player (its point estimate) reaches `stop_at`.
/// A match without games never stops the ladder.
pub fn engine_reached(stop_at: f64, player_side: &MatchReport) -> bool {
    player_side.games() > 0 && 1.0 - player_side.score() >= stop_at - 1e-12
}

/// One match of a ladder, `a` against `b`, cut into blocks of [`BLOCK`] games.
struct Pairing<'a> {
    a: &'a str,
    b: &'a str,
    variant: &'a Variant,
    plies: u32,
    seed: u64,
    games: usize,
}

impl Pairing<'_> {
    /// `(first game, games)` of every block.
    fn blocks(&self) -> Vec<(usize, usize)> {
        (0..self.games).step_by(BLOCK).map(|start| (start, BLOCK.min(self.games - start))).collect()
    }

    /// The match id of block `k` of `size` games: everything that decides its games.
    fn id(&self, k: usize, size: usize) -> String {
        format!(
            "ladder {} vs {} on {} plies {} seed {} block {k} of {size} games",
            self.a, self.b, self.variant.name, self.plies, self.seed
        )
    }

    /// The seed of block `k`: the ladder's seed for the first block (the block is then the
    /// same games as `fairyzero match --seed S`), a mix of it with `k` for the others.
    fn block_seed(&self, k: usize) -> u64 {
        if k == 0 {
            self.seed
        } else {
            mix(self.seed, k as u64)
        }
    }

    /// The stored games of block `k` (its first record of each game index), if all are there.
    fn stored_block(&self, stored: &[MatchGame], k: usize, size: usize) -> Option<Vec<MatchGame>> {
        let id = self.id(k, size);
        let hash = format!("{:016x}", self.variant.hash);
        let mut games: BTreeMap<usize, &MatchGame> = BTreeMap::new();
        for r in stored.iter().filter(|r| r.match_id == id && r.variant_hash == hash && r.game < size) {
            games.entry(r.game).or_insert(r);
        }
        (games.len() == size).then(|| games.into_values().cloned().collect())
    }
}

/// Settings shared by every match of the ladder.
struct Play<'a> {
    variant: &'a Arc<Variant>,
    store: &'a ResultStore,
    args: &'a LadderArgs,
}

impl Play<'_> {
    /// Plays the blocks of `a` against `b` that `stored` lacks, storing each as it finishes;
    /// returns every game of the match (stored and new) and whether it is complete.
    fn run(&self, a: &Contestant, b: &Contestant, stored: &mut Vec<MatchGame>) -> Result<(Vec<MatchGame>, bool)> {
        let pairing = self.pairing(&a.name, &b.name);
        let blocks = pairing.blocks();
        let mut games = Vec::new();
        let mut missing = Vec::new();
        for (k, &(_, size)) in blocks.iter().enumerate() {
            match pairing.stored_block(stored, k, size) {
                Some(block) => games.extend(block),
                None => missing.push((k, size)),
            }
        }
        let have = games.len();
        println!(
            "  {} vs {}: {} games, {have} stored, {} to play",
            a.name,
            b.name,
            self.args.games,
            self.args.games - have
        );
        if missing.is_empty() {
            return Ok((games, true));
        }
        let stop = crate::interrupt::stop_flag();
        let bar = fairyzero_selfplay::progress::bar(self.args.games as u64, true);
        bar.set_position(have as u64);
        for (k, size) in missing {
            let done = games.len();
            let options = MatchOptions {
                games: size,
                random_plies: self.args.plies,
                seed: pairing.block_seed(k),
                move_cap: None,
                adjudication: Adjudication::Draw,
                threads: self.args.threads,
                cpu_threads: self.args.cpu_threads,
                record_moves: true,
                match_id: Some(pairing.id(k, size)),
                stop: Some(Arc::clone(&stop)),
                // A stopped block is not stored: its id promises the whole block, and the
                // next run plays it again in full.
                partial_on_stop: false,
            };
            let progress = |_: &MatchGame, n: usize| bar.set_position((done + n) as u64);
            let report = match run_match(self.variant, a, b, &options, Some(&progress)) {
                Ok(report) => report,
                Err(_) if stop.load(Ordering::Relaxed) => {
                    bar.finish_and_clear();
                    return Ok((games, false));
                }
                Err(e) => return Err(e).with_context(|| format!("{} vs {}", a.name, b.name)),
            };
            self.store
                .append(&report.records, &format!("ladder-{}-vs-{}", a.name, b.name))
                .context("storing the results")?;
            stored.extend(report.records.iter().cloned());
            games.extend(report.records);
        }
        bar.finish_and_clear();
        Ok((games, true))
    }

    fn pairing<'n>(&'n self, a: &'n str, b: &'n str) -> Pairing<'n> {
        Pairing { a, b, variant: self.variant, plies: self.args.plies, seed: self.args.seed, games: self.args.games }
    }
}

/// One depth of the ladder.
#[derive(Clone, Debug)]
pub struct Rung {
    pub depth: u32,
    /// The engine at this depth (its player name).
    pub engine: String,
    /// The player against this depth, from the player's side.
    pub versus_player: MatchReport,
    /// The previous depth against this one, from the previous depth's side.
    pub versus_previous: Option<MatchReport>,
}

/// Rates every game of the ladder jointly with `anchor` (the lowest depth) at 0 Elo.
pub fn rate_ladder(records: &[MatchGame], anchor: &str, bootstrap: usize, seed: u64) -> Ratings {
    let options = RatingOptions {
        anchor: Some(anchor.to_string()),
        ci: CiMethod::Bootstrap(bootstrap),
        seed,
        ..RatingOptions::default()
    };
    rate_records(records, &options)
}

/// A number for the JSON: unbounded (infinite) values become `null`.
fn num(x: f64) -> Value {
    if x.is_finite() {
        json!((x * 1e4).round() / 1e4)
    } else {
        Value::Null
    }
}

/// The command line as typed, each argument quoted for a POSIX shell where needed.
fn command_line() -> String {
    let quote = |a: String| {
        if !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=,@+%".contains(c)) {
            a
        } else {
            format!("'{}'", a.replace('\'', r"'\''"))
        }
    };
    let mut args = std::env::args();
    let program = args.next().map(|p| {
        // The helper runs the lean program's command line: report it as `fairyzero`.
        Path::new(&p).file_name().map_or(p.clone(), |n| n.to_string_lossy().replace("fairyzero-torch", "fairyzero"))
    });
    program.into_iter().chain(args.map(quote)).collect::<Vec<_>>().join(" ")
}

/// What a ladder found.
#[derive(Debug)]
pub struct Ladder {
    pub player: String,
    pub engine: String,
    /// The engine's executable, without its folder (for the plot's title).
    pub engine_program: String,
    pub variant: String,
    pub rungs: Vec<Rung>,
    pub ratings: Ratings,
    pub anchor: String,
    /// The depth at which the engine reached `--stop-at`, if it did.
    pub stopped_at: Option<u32>,
    /// Every match asked for so far has all its games (false after an interrupt).
    pub complete: bool,
    pub command: String,
}

impl Ladder {
    fn player_line(&self) -> String {
        match self.ratings.get(&self.player) {
            Some(p) => format!(
                "{}: {} Elo (95% CI {} to {}) on the scale of {} with depth {} = 0",
                self.player,
                signed_elo(p.elo),
                signed_elo(p.ci_low),
                signed_elo(p.ci_high),
                self.engine,
                self.rungs.first().map_or(0, |r| r.depth)
            ),
            None => format!("{}: no games yet", self.player),
        }
    }

    fn stop_line(&self, args_stop_at: f64, depths: &[u32]) -> String {
        match self.stopped_at {
            Some(d) => format!(
                "The engine reached {:.0}% against the player at depth {d}: the ladder stops there.",
                100.0 * args_stop_at
            ),
            None if !self.complete => "Interrupted: rerun the same command to play the missing games.".into(),
            None => format!(
                "The engine did not reach {:.0}% against the player by depth {}: extend --depths to go on.",
                100.0 * args_stop_at,
                depths.last().copied().unwrap_or(0)
            ),
        }
    }

    fn rating_of(&self, name: &str) -> (f64, f64, f64) {
        self.ratings.get(name).map_or((f64::NAN, f64::NAN, f64::NAN), |p| (p.elo, p.ci_low, p.ci_high))
    }

    pub fn to_markdown(&self, stop_line: &str) -> String {
        let mut s = format!("# Ladder: `{}` against `{}` on {}\n\n", self.player, self.engine, self.variant);
        s.push_str(&format!("**{}**\n\n{stop_line}\n\n", self.player_line()));
        s.push_str(
            "| depth | games | player W/D/L | player score (95% CI) | Elo, player − depth (95% CI) | depth's anchored Elo (95% CI) | previous depth's score against it |\n",
        );
        s.push_str("|---:|---:|---|---|---|---|---|\n");
        for r in &self.rungs {
            let m = &r.versus_player;
            let (lo, hi) = m.interval();
            let (elo, elo_lo, elo_hi) = self.rating_of(&r.engine);
            let previous = r.versus_previous.as_ref().map_or("-".to_string(), |p| {
                let (lo, hi) = p.interval();
                format!("{:.1}% [{:.1}, {:.1}] of {}", 100.0 * p.score(), 100.0 * lo, 100.0 * hi, p.games())
            });
            s.push_str(&format!(
                "| {} | {} | {}/{}/{} | {:.1}% [{:.1}, {:.1}] | {} [{}, {}] | {} [{}, {}] | {previous} |\n",
                r.depth,
                m.games(),
                m.wins,
                m.draws,
                m.losses,
                100.0 * m.score(),
                100.0 * lo,
                100.0 * hi,
                signed_elo(elo_from_score(m.score())),
                signed_elo(elo_from_score(lo)),
                signed_elo(elo_from_score(hi)),
                signed_elo(elo),
                signed_elo(elo_lo),
                signed_elo(elo_hi),
            ));
        }
        let forfeits: usize =
            self.rungs.iter().map(|r| r.versus_player.reasons.get("forfeit").copied().unwrap_or(0)).sum();
        s.push_str(&format!(
            "\nPlayer score and Elo: the player against that depth alone (Wilson interval, draws as \
             half wins). Anchored Elo: all {} games rated jointly, Bradley-Terry maximum likelihood with depth {} = 0, \
             {}.",
            self.ratings.players.iter().map(|p| p.games).sum::<usize>() / 2,
            self.rungs.first().map_or(0, |r| r.depth),
            self.ratings.method
        ));
        if forfeits > 0 {
            s.push_str(&format!(
                " {forfeits} games of the player's matches ended by forfeit (see the stored records)."
            ));
        }
        s.push_str(&format!("\n\nCommand:\n\n```\n{}\n```\n", self.command));
        s
    }

    pub fn to_json(&self, stop_at: f64, args: &LadderArgs) -> String {
        let (elo, lo, hi) = self.rating_of(&self.player);
        let rungs: Vec<Value> = self
            .rungs
            .iter()
            .map(|r| {
                let m = &r.versus_player;
                let (s_lo, s_hi) = m.interval();
                let (e, e_lo, e_hi) = self.rating_of(&r.engine);
                json!({
                    "depth": r.depth,
                    "engine": r.engine,
                    "games": m.games(),
                    "player_wins": m.wins,
                    "draws": m.draws,
                    "player_losses": m.losses,
                    "player_score": num(m.score()),
                    "player_score_ci": [num(s_lo), num(s_hi)],
                    "engine_score": num(1.0 - m.score()),
                    "elo_difference": num(elo_from_score(m.score())),
                    "elo_difference_ci": [num(elo_from_score(s_lo)), num(elo_from_score(s_hi))],
                    "end_reasons": m.reasons,
                    "anchored_elo": num(e),
                    "anchored_elo_ci": [num(e_lo), num(e_hi)],
                    "previous_depth": r.versus_previous.as_ref().map(|p| json!({
                        "games": p.games(),
                        "wins": p.wins,
                        "draws": p.draws,
                        "losses": p.losses,
                        "score": num(p.score()),
                    })),
                })
            })
            .collect();
        let value = json!({
            "player": self.player,
            "engine": self.engine,
            "variant": self.variant,
            "depths_requested": args.depths.0,
            "games_per_match": args.games,
            "plies": args.plies,
            "seed": args.seed,
            "stop_at": stop_at,
            "engine_pairs": !args.no_engine_pairs,
            "stopped_at_depth": self.stopped_at,
            "complete": self.complete,
            "anchor": self.anchor,
            "rating_method": self.ratings.method,
            "player_elo": num(elo),
            "player_elo_ci": [num(lo), num(hi)],
            "depths": rungs,
            "command": self.command,
        });
        serde_json::to_string_pretty(&value).expect("the ladder serialises") + "\n"
    }

    /// The depths' anchored Elo with intervals against depth, the player as a flat line with
    /// its interval at every depth, and as a labelled level.
    fn plot(&self, path: &Path) -> Result<()> {
        let depths: Vec<(f64, f64, f64, f64)> = self
            .rungs
            .iter()
            .map(|r| {
                let (e, lo, hi) = self.rating_of(&r.engine);
                (r.depth as f64, e, lo, hi)
            })
            .collect();
        let (elo, lo, hi) = self.rating_of(&self.player);
        let band = self.rungs.iter().map(|r| (r.depth as f64, elo, lo, hi)).collect();
        let panel = Panel {
            x_desc: "engine depth".into(),
            curves: vec![
                Curve { label: "engine depths (95% CI)".into(), points: depths },
                Curve { label: format!("{} (95% CI)", self.player), points: band },
            ],
        };
        // The engine's file name: its whole spec makes a title wider than the plot.
        let title = format!("{} on the {} depth scale ({})", self.player, self.engine_program, self.variant);
        let tmp = path.with_file_name(format!(".{LADDER_PNG}.tmp.png"));
        plot_curves(&title, &[panel], &[(self.player.clone(), elo)], &tmp)?;
        std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))
    }
}

pub fn run(args: LadderArgs, net: &dyn NetRuntime) -> Result<()> {
    let variant = Variant::load(&args.variant).context("loading the variant")?;
    let depths = &args.depths.0;
    if depths.is_empty() {
        bail!("--depths: the list of depths is empty");
    }
    let search = player_search(&args.player, args.config.as_deref(), args.search.as_deref())?;
    let player =
        contestant(&args.player, &variant, &search, None, net).with_context(|| format!("--player {}", args.player))?;
    let engine_name = args.engine.to_string();
    if let Some(d) = depths.iter().find(|&&d| engine_at(&args.engine, d).to_string() == player.name) {
        bail!("--player {} is the engine at depth {d}: a ladder rates another player", player.name);
    }
    let engine_of = |d: u32| {
        engine_at(&args.engine, d)
            .contestant(&variant, None, &Default::default())
            .with_context(|| format!("--engine {engine_name} at depth {d}"))
    };
    // The first depth's engine is started (and its variant checked) before the output folder
    // is made: a bad engine leaves nothing behind.
    let mut first_engine = Some(engine_of(depths[0])?);
    let store = ResultStore::new(&args.out);
    store
        .ensure_writable()
        .with_context(|| format!("--out {}: the results could not be stored there", args.out.display()))?;
    let mut stored = store.load().context("reading the stored results")?.records;
    println!(
        "ladder: {} against {} at depths {} on {}, {} games a match, {} random opening plies, seed {}, stop when \
         the engine scores {:.0}%; results in {}",
        player.name,
        engine_name,
        depths.iter().map(u32::to_string).collect::<Vec<_>>().join(","),
        variant.name,
        args.games,
        args.plies,
        args.seed,
        100.0 * args.stop_at,
        args.out.display()
    );
    let play = Play { variant: &variant, store: &store, args: &args };
    let mut rungs: Vec<Rung> = Vec::new();
    let mut records: Vec<MatchGame> = Vec::new();
    let mut previous: Option<Contestant> = None;
    let mut complete = true;
    let mut stopped_at = None;
    for &d in depths {
        println!("depth {d}:");
        let engine = match first_engine.take() {
            Some(engine) => engine,
            None => engine_of(d)?,
        };
        let (games, done) = play.run(&player, &engine, &mut stored)?;
        let versus_player = MatchReport::from_records(&player.name, &engine.name, games.clone());
        records.extend(games);
        complete &= done;
        let mut versus_previous = None;
        if let (Some(prev), true, false) = (&previous, done, args.no_engine_pairs) {
            let (games, done) = play.run(prev, &engine, &mut stored)?;
            versus_previous = Some(MatchReport::from_records(&prev.name, &engine.name, games.clone()));
            records.extend(games);
            complete &= done;
        }
        if done {
            let (lo, hi) = versus_player.interval();
            println!(
                "  player {}/{}/{} score {:.3} ci {:.3} {:.3}: engine scores {:.1}%",
                versus_player.wins,
                versus_player.draws,
                versus_player.losses,
                versus_player.score(),
                lo,
                hi,
                100.0 * (1.0 - versus_player.score())
            );
        }
        let reached = complete && engine_reached(args.stop_at, &versus_player);
        rungs.push(Rung { depth: d, engine: engine.name.clone(), versus_player, versus_previous });
        if !complete {
            break;
        }
        if reached {
            stopped_at = Some(d);
            break;
        }
        previous = Some(engine);
    }
    let anchor = rungs[0].engine.clone();
    let ratings = rate_ladder(&records, &anchor, args.bootstrap, args.seed);
    let ladder = Ladder {
        player: player.name.clone(),
        engine: engine_name,
        engine_program: args
            .engine
            .path
            .file_name()
            .map_or_else(|| args.engine.path.display().to_string(), |n| n.to_string_lossy().into_owned()),
        variant: variant.name.clone(),
        rungs,
        ratings,
        anchor,
        stopped_at,
        complete,
        command: command_line(),
    };
    let stop_line = ladder.stop_line(args.stop_at, depths);
    let md = ladder.to_markdown(&stop_line);
    write_atomic(&args.out.join(LADDER_MD), md.as_bytes())?;
    write_atomic(&args.out.join(LADDER_JSON), ladder.to_json(args.stop_at, &args).as_bytes())?;
    ladder.plot(&args.out.join(LADDER_PNG))?;
    println!();
    print!("{md}");
    println!();
    for f in [LADDER_MD, LADDER_JSON, LADDER_PNG] {
        println!("wrote {}", args.out.join(f).display());
    }
    let (elo, lo, hi) = ladder.rating_of(&ladder.player);
    println!("ladder {} elo {:.1} ci {:.1} {:.1} anchor {}", ladder.player, elo, lo, hi, ladder.anchor);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairyzero_evaluator::{matches::RECORD_VERSION, GameResult, Termination};

    fn game(blue: &str, tan: &str, result: GameResult, n: usize) -> MatchGame {
        MatchGame {
            version: RECORD_VERSION,
            match_id: "t".into(),
            variant: "losalamos".into(),
            variant_hash: "0".into(),
            blue: blue.into(),
            tan: tan.into(),
            blue_step: None,
            tan_step: None,
            result,
            reason: Termination::Checkmate,
            plies: 10,
            opening: n / 2,
            opening_moves: String::new(),
            moves_hash: format!("{n:016x}"),
            moves: None,
            game: n,
            forfeit: None,
        }
    }

    /// `w` wins and `l` losses of `a` against `b`, colours alternating.
    fn results(a: &str, b: &str, w: usize, l: usize, out: &mut Vec<MatchGame>) {
        for i in 0..w + l {
            let a_wins = i < w;
            let (blue, tan) = if i % 2 == 0 { (a, b) } else { (b, a) };
            let blue_wins = a_wins == (blue == a);
            let n = out.len();
            out.push(game(blue, tan, if blue_wins { GameResult::BlueWins } else { GameResult::TanWins }, n));
        }
    }

    #[test]
    fn depth_lists_parse_and_bad_ones_are_refused() {
        assert_eq!(parse_depths("1..4").unwrap().0, vec![1, 2, 3, 4]);
        assert_eq!(parse_depths("1,2,3").unwrap().0, vec![1, 2, 3]);
        assert_eq!(parse_depths("1..3, 5,8..9").unwrap().0, vec![1, 2, 3, 5, 8, 9]);
        assert_eq!(parse_depths("7").unwrap().0, vec![7]);
        assert!(parse_depths("").unwrap_err().contains("empty"));
        assert!(parse_depths("1,,2").unwrap_err().contains("empty item"));
        assert!(parse_depths("3,2").unwrap_err().contains("increasing"));
        assert!(parse_depths("2,2").unwrap_err().contains("increasing"));
        assert!(parse_depths("4..2").unwrap_err().contains("range is empty"));
        assert!(parse_depths("0").unwrap_err().contains("from 1 to 64"));
        assert!(parse_depths("1..65").unwrap_err().contains("from 1 to 64"));
        assert!(parse_depths("x").is_err());
    }

    #[test]
    fn engine_specs_with_a_limit_are_refused() {
        let spec = parse_engine("uci:/usr/games/fairy-stockfish:VariantPath=engines/variants.ini").unwrap();
        assert_eq!(spec.depth, None);
        assert_eq!(
            engine_at(&spec, 3).to_string(),
            "uci:/usr/games/fairy-stockfish:depth=3:VariantPath=engines/variants.ini"
        );
        for limit in ["depth=2", "nodes=100", "movetime=50"] {
            let err = parse_engine(&format!("uci:/x:{limit}")).unwrap_err();
            assert!(err.contains(limit) && err.contains("--depths"), "{err}");
        }
        assert!(parse_engine("alphabeta:2").unwrap_err().contains("not an engine"));
        assert!(parse_engine("uci:").unwrap_err().contains("path"));
        assert!(parse_engine("xboard:/x:nodes").unwrap_err().contains("nodes"));
        assert!(parse_stop_at("0.9").is_ok() && parse_stop_at("1").is_ok());
        for bad in ["0", "1.5", "-1", "NaN", "inf", "x"] {
            assert!(parse_stop_at(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_ladder_stops_when_the_engine_reaches_the_threshold() {
        let report = |w: usize, d: usize, l: usize| {
            let mut g = Vec::new();
            results("p", "e", w, l, &mut g);
            for i in 0..d {
                g.push(game("p", "e", GameResult::Draw, 100 + i));
            }
            MatchReport::from_records("p", "e", g)
        };
        // The engine scores 90% exactly: stop at 0.90, not at 0.95.
        assert!(engine_reached(0.90, &report(0, 2, 9)));
        assert!(!engine_reached(0.95, &report(0, 2, 9)));
        // 85% is not enough; 100% is.
        assert!(!engine_reached(0.90, &report(3, 0, 17)));
        assert!(engine_reached(0.90, &report(0, 0, 4)));
        // A match without games never stops the ladder.
        assert!(!engine_reached(0.5, &report(0, 0, 0)));
    }

    /// The player beats depth 1 three games in four: +191 Elo on the scale anchored at depth 1
    /// (400 log10 3, less a little for the one virtual draw of the prior); depth 2 beats depth 1
    /// as often and draws the player level, so it sits at the player's Elo too.
    #[test]
    fn the_player_is_placed_on_the_engine_scale() {
        let (p, e1, e2) = ("alphabeta:2", "uci:fsf:depth=1", "uci:fsf:depth=2");
        let mut g = Vec::new();
        results(p, e1, 600, 200, &mut g);
        let r = rate_ladder(&g, e1, 50, 0);
        let elo = r.get(p).unwrap().elo;
        assert!((elo - 400.0 * 3f64.log10()).abs() < 1.0, "{elo}");
        assert_eq!(r.get(e1).unwrap().elo, 0.0);
        results(e2, e1, 600, 200, &mut g);
        results(p, e2, 400, 400, &mut g);
        let r = rate_ladder(&g, e1, 100, 0);
        let (pe, e2e) = (r.get(p).unwrap(), r.get(e2).unwrap());
        assert!((pe.elo - 190.0).abs() < 3.0 && (e2e.elo - 190.0).abs() < 3.0, "{r:?}");
        assert!(pe.ci_low < pe.elo && pe.elo < pe.ci_high && pe.ci_low > 100.0, "{pe:?}");
    }

    /// Blocks of a match: fixed size, the last one shorter; only complete blocks with the id
    /// of this command's settings count as stored.
    #[test]
    fn blocks_are_found_in_the_store_only_when_complete_and_matching() {
        let v = Variant::load("losalamos").unwrap();
        let pairing = Pairing { a: "p", b: "e", variant: &v, plies: 4, seed: 7, games: 45 };
        assert_eq!(pairing.blocks(), vec![(0, 20), (20, 20), (40, 5)]);
        assert_eq!(pairing.block_seed(0), 7);
        assert_ne!(pairing.block_seed(1), pairing.block_seed(2));
        let hash = format!("{:016x}", v.hash);
        let block = |k: usize, size: usize, n: usize| -> Vec<MatchGame> {
            (0..n)
                .map(|i| MatchGame {
                    match_id: pairing.id(k, size),
                    variant_hash: hash.clone(),
                    ..game("p", "e", GameResult::Draw, i)
                })
                .collect()
        };
        let mut stored = block(2, 5, 5);
        stored.extend(block(2, 5, 5)); // stored twice: counted once
        stored.extend(block(0, 20, 19)); // one game short
        stored.extend(block(1, 10, 10)); // an earlier --games: another size
        assert_eq!(pairing.stored_block(&stored, 2, 5).map(|b| b.len()), Some(5));
        assert!(pairing.stored_block(&stored, 0, 20).is_none());
        assert!(pairing.stored_block(&stored, 1, 20).is_none());
        let other = Pairing { seed: 8, ..pairing };
        assert!(other.stored_block(&stored, 2, 5).is_none());
    }
}
