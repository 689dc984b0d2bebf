//! Players: something that picks a move. Baselines (random, greedy, alpha-beta) need no net;
//! a checkpoint player searches with a net handed over by the caller.
//!
//! Matches run games in parallel, so a match holds [`Contestant`]s: a name plus a factory that
//! makes one fresh [`Player`] per game.

use std::{
    fmt,
    path::{Path, PathBuf},
    str::FromStr,
    sync::Arc,
    time::Duration,
};

use fairyzero_model::backend::Backend;
use fairyzero_rules::{Move, MoveList, Outcome, Position, Variant};
use rand::{Rng, RngCore};

use crate::{
    alphabeta::{AlphaBeta, AlphaBetaConfig},
    external::{self, EngineSpec, Protocol},
    search_player::{SearchPlayer, SearchPlayerConfig},
    values::{PieceValues, ValueSource, ValueSourceError},
    Error,
};

/// What a player knows about the game it is about to play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameContext {
    /// The [`Position::ply`] at which the game is adjudicated (move cap).
    pub cap_ply: u32,
}

/// Something that chooses moves.
pub trait Player: Send {
    /// Called before each game with its first position.
    fn new_game(&mut self, _start: &Position, _ctx: &GameContext) {}

    /// Picks one of `legal` (never empty) in `pos`. `pos` may be searched but must be returned
    /// unchanged. All randomness must come from `rng`, so that matches are reproducible.
    fn choose(&mut self, pos: &mut Position, legal: &[Move], rng: &mut dyn RngCore) -> Move;

    /// [`Player::choose`], or a reason to forfeit the game instead: an external engine that
    /// crashed, hung or answered a move that is not legal (see [`crate::external`]). Matches
    /// call this one and record the reason; `choose` answers a forfeit with a move that is never
    /// legal, so that callers that only check legality score it as a loss too.
    fn try_choose(&mut self, pos: &mut Position, legal: &[Move], rng: &mut dyn RngCore) -> Result<Move, String> {
        Ok(self.choose(pos, legal, rng))
    }
}

/// Uniformly random legal moves: the rating scale's zero.
#[derive(Clone, Debug, Default)]
pub struct RandomPlayer;

impl Player for RandomPlayer {
    fn choose(&mut self, _pos: &mut Position, legal: &[Move], rng: &mut dyn RngCore) -> Move {
        legal[rng.gen_range(0..legal.len())]
    }
}

/// One ply of lookahead: a move that wins at once, else the best material balance after the
/// move (by the piece values), ties broken at random; moves that lose at once come last and
/// draws count as equal material.
#[derive(Clone, Debug)]
pub struct GreedyPlayer {
    values: Arc<PieceValues>,
    scratch: MoveList,
}

impl GreedyPlayer {
    pub fn new(values: Arc<PieceValues>) -> GreedyPlayer {
        GreedyPlayer { values, scratch: MoveList::new() }
    }
}

impl Player for GreedyPlayer {
    fn choose(&mut self, pos: &mut Position, legal: &[Move], rng: &mut dyn RngCore) -> Move {
        let us = pos.side_to_move();
        let sign = if us.index() == 0 { 1.0 } else { -1.0 };
        let mut best = f32::NEG_INFINITY;
        let mut ties: Vec<Move> = Vec::new();
        for &m in legal {
            pos.make(m);
            pos.legal_moves(&mut self.scratch);
            let score = match pos.outcome_with(&self.scratch) {
                Some(Outcome::Decisive { winner, .. }) if winner == us => f32::INFINITY,
                Some(Outcome::Decisive { .. }) => -1e9,
                // A draw scores as level material.
                Some(Outcome::Draw { .. }) => 0.0,
                None => sign * self.values.balance(pos),
            };
            pos.unmake();
            if score > best + 1e-4 {
                best = score;
                ties.clear();
            }
            if (score - best).abs() <= 1e-4 || score == best {
                ties.push(m);
            }
        }
        ties[rng.gen_range(0..ties.len())]
    }
}

/// The alpha-beta engine as a player.
pub struct AlphaBetaPlayer {
    engine: AlphaBeta,
}

impl AlphaBetaPlayer {
    pub fn new(variant: &Arc<Variant>, config: AlphaBetaConfig) -> AlphaBetaPlayer {
        AlphaBetaPlayer { engine: AlphaBeta::new(variant, config) }
    }
}

impl Player for AlphaBetaPlayer {
    fn new_game(&mut self, _start: &Position, ctx: &GameContext) {
        self.engine.new_game(ctx.cap_ply);
    }

    fn choose(&mut self, pos: &mut Position, legal: &[Move], _rng: &mut dyn RngCore) -> Move {
        let result = self.engine.search(pos);
        match result.best {
            Some(m) if legal.contains(&m) => m,
            _ => legal[0],
        }
    }
}

/// A player description, parsed once where text comes in (the command line, a run file, a
/// stored name) and passed on typed. Its [`Display`](fmt::Display) is the canonical spelling,
/// under which results are stored and ranked, and parses back to the same spec:
///
/// - `random`;
/// - `greedy`, `greedy:values=mobility` (value sources: `nominal`, `mobility`, `uniform`);
/// - `alphabeta:DEPTH`, `alphabeta:nodes=N` (iterative deepening until the node budget),
///   `alphabeta:ms=N` (iterative deepening for N milliseconds of wall time per move), or any
///   combination (`alphabeta:4:nodes=100000:ms=50`: the first limit reached ends the search),
///   each optionally with `:values=SOURCE`;
/// - `uci:PATH[:key=value...]`: an external UCI engine ([`crate::external`]); `depth=N`,
///   `nodes=N` and `movetime=MS` are its search limits (at least one), `timeout=MS` the time a
///   move may take before the engine is killed and forfeits, every other key an engine option
///   sent with `setoption` (`uci:/usr/games/fairy-stockfish:depth=2:Threads=1`);
/// - `xboard:PATH[:key=value...]`: the same for a CECP v2 engine (`depth=N`, `movetime=MS` in
///   whole seconds; options sent with `option NAME=VALUE`);
/// - anything else is a checkpoint directory, optionally with `@SIMS` (search simulations per
///   move; default [`DEFAULT_SIMULATIONS`]).
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerSpec {
    Random,
    Greedy { values: ValueSource },
    AlphaBeta { depth: Option<u32>, nodes: Option<u64>, ms: Option<u64>, values: ValueSource },
    Checkpoint { path: PathBuf, simulations: u32 },
    Engine(EngineSpec),
}

/// Simulations per move of a checkpoint player written without `@SIMS`.
pub const DEFAULT_SIMULATIONS: u32 = 100;

/// The largest `alphabeta:ms=N` budget: an hour per move. Larger values are typos (seconds meant
/// as milliseconds would still fit), and a bound keeps the deadline arithmetic far from overflow.
pub const MAX_MOVE_MS: u64 = 3_600_000;

impl PlayerSpec {
    pub fn parse(text: &str) -> Result<PlayerSpec, Error> {
        let bad = |message: String| Error::PlayerSpec { spec: text.to_string(), message };
        let mut parts = text.split(':');
        let head = parts.next().unwrap_or("");
        let options: Vec<&str> = parts.collect();
        let values_of = |o: &str| -> Result<Option<ValueSource>, Error> {
            match o.strip_prefix("values=") {
                Some(v) => v.parse().map(Some).map_err(|e: ValueSourceError| bad(e.to_string())),
                None => Ok(None),
            }
        };
        match head {
            "random" if options.is_empty() => Ok(PlayerSpec::Random),
            "random" => Err(bad("`random` takes no options".into())),
            "greedy" => {
                let mut values = ValueSource::Nominal;
                for o in options {
                    values = values_of(o)?
                        .ok_or_else(|| bad(format!("unknown greedy option {o:?} (expected values=SOURCE)")))?;
                }
                Ok(PlayerSpec::Greedy { values })
            }
            "uci" | "xboard" => {
                let protocol = if head == "uci" { Protocol::Uci } else { Protocol::Xboard };
                let rest = text.split_once(':').map_or("", |(_, rest)| rest);
                EngineSpec::parse(protocol, rest).map(PlayerSpec::Engine).map_err(bad)
            }
            "alphabeta" | "ab" => {
                let (mut depth, mut nodes, mut ms, mut values) = (None, None, None, ValueSource::Nominal);
                for o in options {
                    if let Some(v) = values_of(o)? {
                        values = v;
                    } else if let Some(n) = o.strip_prefix("nodes=") {
                        nodes = Some(
                            n.parse().ok().filter(|&n| n > 0).ok_or_else(|| bad(format!("bad node budget {n:?}")))?,
                        );
                    } else if let Some(t) = o.strip_prefix("ms=") {
                        ms = Some(t.parse().ok().filter(|t| (1..=MAX_MOVE_MS).contains(t)).ok_or_else(|| {
                            bad(format!("bad time budget ms={t:?} (milliseconds per move, 1 to {MAX_MOVE_MS})"))
                        })?);
                    } else if let Ok(d) = o.strip_prefix("depth=").unwrap_or(o).parse::<u32>() {
                        if !(1..=64).contains(&d) {
                            return Err(bad(format!("depth {d} is outside 1..=64")));
                        }
                        depth = Some(d);
                    } else {
                        return Err(bad(format!(
                            "unknown alphabeta option {o:?} (expected DEPTH, nodes=N, ms=N or values=SOURCE)"
                        )));
                    }
                }
                if depth.is_none() && nodes.is_none() && ms.is_none() {
                    return Err(bad("alphabeta needs a depth, a node budget or a time budget, e.g. alphabeta:3, \
                         alphabeta:nodes=20000 or alphabeta:ms=50"
                        .into()));
                }
                Ok(PlayerSpec::AlphaBeta { depth, nodes, ms, values })
            }
            _ => {
                let (path, simulations) = match text.rsplit_once('@') {
                    Some((p, s)) if !p.is_empty() => {
                        let sims = s.parse::<u32>().ok().filter(|&s| s > 0).ok_or_else(|| {
                            bad(format!("`@{s}`: the search budget must be a positive number of simulations"))
                        })?;
                        (p, sims)
                    }
                    _ => (text, DEFAULT_SIMULATIONS),
                };
                if path.is_empty() {
                    return Err(bad("empty player".into()));
                }
                Ok(PlayerSpec::Checkpoint { path: PathBuf::from(path), simulations })
            }
        }
    }

    /// Whether two instances of this player given the same position always answer the same
    /// (then a repeated opening replays the same game). A time budget is not: how deep it gets
    /// depends on the machine and its load.
    pub fn is_deterministic(&self) -> bool {
        match self {
            PlayerSpec::Random | PlayerSpec::Greedy { .. } | PlayerSpec::AlphaBeta { ms: Some(_), .. } => false,
            PlayerSpec::Engine(uci) => uci.is_deterministic(),
            PlayerSpec::AlphaBeta { .. } | PlayerSpec::Checkpoint { .. } => true,
        }
    }

    /// Whether the player computes its moves on the CPU (alpha-beta, greedy, an external
    /// engine): a match runs at most [`MatchOptions::cpu_threads`](crate::MatchOptions::cpu_threads)
    /// of their moves at once. Random moves cost nothing; checkpoint players mostly wait for the
    /// inference service.
    pub fn is_cpu_bound(&self) -> bool {
        matches!(self, PlayerSpec::Greedy { .. } | PlayerSpec::AlphaBeta { .. } | PlayerSpec::Engine(_))
    }

    /// Builds the player factory. Checkpoints need `loader` (which links the network runtime).
    /// An external engine is started and checked here, before any game (see
    /// [`crate::external`]).
    pub fn contestant(
        &self,
        variant: &Arc<Variant>,
        loader: Option<&dyn CheckpointLoader>,
        search: &SearchPlayerConfig,
    ) -> Result<Contestant, Error> {
        let name = self.to_string();
        let deterministic = self.is_deterministic();
        let contestant = match self {
            PlayerSpec::Random => Contestant::new(name, deterministic, None, || Box::new(RandomPlayer)),
            PlayerSpec::Greedy { values } => {
                let values = Arc::new(PieceValues::new(variant, *values));
                Contestant::new(name, deterministic, None, move || Box::new(GreedyPlayer::new(Arc::clone(&values))))
            }
            PlayerSpec::AlphaBeta { depth, nodes, ms, values } => {
                let config = AlphaBetaConfig {
                    depth: *depth,
                    nodes: *nodes,
                    time: ms.map(Duration::from_millis),
                    values: *values,
                    ..AlphaBetaConfig::default()
                };
                let v = Arc::clone(variant);
                // Estimate the values once, not per game.
                let _ = PieceValues::new(&v, *values);
                Contestant::new(name, deterministic, None, move || Box::new(AlphaBetaPlayer::new(&v, config.clone())))
            }
            PlayerSpec::Checkpoint { path, simulations } => {
                let loader = loader.ok_or_else(|| LoadError::new(path, LoadProblem::NoLoader))?;
                let loaded = loader.load(path, variant)?;
                let step = loaded.step.or_else(|| crate::store::checkpoint_step(path));
                let config = SearchPlayerConfig { simulations: *simulations, ..search.clone() };
                Contestant::search(name, step, loaded.backend, config)
            }
            PlayerSpec::Engine(uci) => {
                let factory = external::engine_factory(uci, variant)
                    .map_err(|e| Error::Engine { player: name.clone(), message: e.0 })?;
                Contestant::new(name, deterministic, None, factory)
            }
        };
        Ok(contestant.cpu_bound(self.is_cpu_bound()))
    }
}

impl FromStr for PlayerSpec {
    type Err = Error;

    fn from_str(text: &str) -> Result<PlayerSpec, Error> {
        PlayerSpec::parse(text)
    }
}

impl fmt::Display for PlayerSpec {
    /// The canonical spelling (parses back to the same spec).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let values = |v: &ValueSource| if *v == ValueSource::Nominal { String::new() } else { format!(":values={v}") };
        match self {
            PlayerSpec::Random => write!(f, "random"),
            PlayerSpec::Greedy { values: v } => write!(f, "greedy{}", values(v)),
            PlayerSpec::AlphaBeta { depth, nodes, ms, values: v } => {
                write!(f, "alphabeta")?;
                if let Some(d) = depth {
                    write!(f, ":{d}")?;
                }
                if let Some(n) = nodes {
                    write!(f, ":nodes={n}")?;
                }
                if let Some(t) = ms {
                    write!(f, ":ms={t}")?;
                }
                write!(f, "{}", values(v))
            }
            PlayerSpec::Checkpoint { path, simulations } => write!(f, "{}@{simulations}", path.display()),
            PlayerSpec::Engine(uci) => write!(f, "{uci}"),
        }
    }
}

/// A network ready for search, loaded by the caller.
pub struct LoadedCheckpoint {
    pub backend: Arc<dyn Backend>,
    /// Training step, if known (otherwise read from the checkpoint's `header.json`).
    pub step: Option<u64>,
}

/// Loads checkpoints: implemented where libtorch is linked (the CLI, the trainer), so that this
/// crate stays free of it.
pub trait CheckpointLoader: Send + Sync {
    fn load(&self, path: &Path, variant: &Arc<Variant>) -> Result<LoadedCheckpoint, LoadError>;
}

/// A checkpoint player that could not be made: which checkpoint, and why.
#[derive(Debug, thiserror::Error)]
#[error("checkpoint {}: {problem}", .path.display())]
pub struct LoadError {
    pub path: PathBuf,
    pub problem: LoadProblem,
}

impl LoadError {
    pub fn new(path: &Path, problem: LoadProblem) -> LoadError {
        LoadError { path: path.to_path_buf(), problem }
    }

    /// The loader's own error (the store's, the checkpoint reader's, the backend's), kept as
    /// the cause.
    pub fn unreadable(path: &Path, source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> LoadError {
        LoadError::new(path, LoadProblem::Unreadable(source.into()))
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LoadProblem {
    /// A mistyped baseline lands here too, hence the list of players.
    #[error(
        "no such checkpoint directory (players are random, greedy, alphabeta:DEPTH, uci:ENGINE:depth=N or a \
         checkpoint directory)"
    )]
    NotADirectory,
    #[error("no checkpoint of that name in the run's store")]
    NotInStore,
    #[error("checkpoint players need the network runtime; this caller gave no checkpoint loader")]
    NoLoader,
    /// The files, the store or the net could not be read.
    #[error(transparent)]
    Unreadable(Box<dyn std::error::Error + Send + Sync>),
}

type Factory = dyn Fn() -> Box<dyn Player> + Send + Sync;

/// A named player factory: one fresh [`Player`] per game.
#[derive(Clone)]
pub struct Contestant {
    /// The name results are stored under.
    pub name: String,
    pub deterministic: bool,
    /// Training step of a checkpoint player.
    pub step: Option<u64>,
    /// Its moves are computed on the CPU (see [`PlayerSpec::is_cpu_bound`]): a match holds one
    /// of its `cpu_threads` permits around each of them. False unless set with
    /// [`Contestant::cpu_bound`].
    pub cpu_bound: bool,
    factory: Arc<Factory>,
}

impl fmt::Debug for Contestant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Contestant({})", self.name)
    }
}

impl Contestant {
    pub fn new(
        name: impl Into<String>,
        deterministic: bool,
        step: Option<u64>,
        factory: impl Fn() -> Box<dyn Player> + Send + Sync + 'static,
    ) -> Contestant {
        Contestant { name: name.into(), deterministic, step, cpu_bound: false, factory: Arc::new(factory) }
    }

    /// The same player, marked as computing its moves on the CPU or not (the `cpu_bound`
    /// field).
    pub fn cpu_bound(mut self, cpu_bound: bool) -> Contestant {
        self.cpu_bound = cpu_bound;
        self
    }

    /// A network player from a backend the caller already holds (e.g. the trainer's current
    /// net), named like a checkpoint so that `rank` finds its step.
    pub fn search(
        name: impl Into<String>,
        step: Option<u64>,
        backend: Arc<dyn Backend>,
        config: SearchPlayerConfig,
    ) -> Contestant {
        Contestant::new(name, true, step, move || Box::new(SearchPlayer::new(Arc::clone(&backend), config.clone())))
    }

    pub fn player(&self) -> Box<dyn Player> {
        (self.factory)()
    }

    /// The same player under another name (e.g. to play itself).
    pub fn renamed(mut self, name: impl Into<String>) -> Contestant {
        self.name = name.into();
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print_back() {
        for text in [
            "random",
            "greedy",
            "greedy:values=mobility",
            "alphabeta:3",
            "alphabeta:nodes=5000",
            "alphabeta:2:nodes=100:values=uniform",
            "alphabeta:ms=50",
            "alphabeta:3:nodes=100000:ms=250:values=mobility",
            "runs/a/checkpoints/step-100@64",
            "uci:/usr/games/fairy-stockfish:depth=1",
            "uci:fsf:depth=3:nodes=1000:movetime=50:timeout=900:Threads=1:VariantPath=engines/variants.ini",
            "uci:./engine:movetime=20:Skill Level=3",
            "xboard:/usr/games/fairy-stockfish:depth=2",
            "xboard:fsf:movetime=2000:timeout=9000:VariantPath=engines/variants.ini",
        ] {
            let spec = PlayerSpec::parse(text).unwrap();
            assert_eq!(spec.to_string(), text);
        }
        assert_eq!(PlayerSpec::parse("ab:depth=2").unwrap(), PlayerSpec::parse("alphabeta:2").unwrap());
        assert_eq!(
            PlayerSpec::parse("ckpt").unwrap(),
            PlayerSpec::Checkpoint { path: "ckpt".into(), simulations: DEFAULT_SIMULATIONS }
        );
        assert_eq!(PlayerSpec::parse("ab:ms=20:2").unwrap().to_string(), "alphabeta:2:ms=20");
        for bad in [
            "alphabeta",
            "alphabeta:values=uniform",
            "alphabeta:ms=0",
            "alphabeta:ms=-5",
            "alphabeta:ms=1.5",
            "alphabeta:ms=3600001",
            "alphabeta:0",
            "alphabeta:x",
            "greedy:fast",
            "random:1",
            "ckpt@0",
            "ckpt@x",
            "greedy:values=no",
            "uci",
            "uci:",
            "uci:fsf",
            "uci::depth=1",
            "uci:fsf:Threads=1",
            "uci:fsf:depth=0",
            "uci:fsf:depth=65",
            "uci:fsf:nodes=x",
            "uci:fsf:movetime=0",
            "uci:fsf:depth=1:timeout=0",
            "uci:fsf:depth=1:Threads",
            "uci:fsf:depth=1:=4",
            "uci:fsf:depth=1:depth=2",
            "uci:fsf:depth=1:Hash=1:hash=2",
            "xboard:fsf:nodes=100",
            "xboard:fsf:movetime=1500",
            "xboard:fsf",
        ] {
            assert!(PlayerSpec::parse(bad).is_err(), "{bad}");
        }
        // The error names the bad option and what would be right.
        let err = PlayerSpec::parse("alphabeta:2:ms=fast").unwrap_err().to_string();
        assert!(err.contains("ms=\"fast\"") && err.contains("milliseconds per move"), "{err}");
        let err = PlayerSpec::parse("alphabeta:secs=1").unwrap_err().to_string();
        assert!(err.contains("\"secs=1\"") && err.contains("ms=N"), "{err}");
        // A UCI engine: the limits come first in the canonical text, options keep their order.
        assert_eq!(
            PlayerSpec::parse("uci:fsf:Threads=1:depth=2:Hash=16").unwrap().to_string(),
            "uci:fsf:depth=2:Threads=1:Hash=16"
        );
        let err = PlayerSpec::parse("uci:fsf:depth=1:movetime=soon").unwrap_err().to_string();
        assert!(err.contains("\"movetime=soon\"") && err.contains("milliseconds"), "{err}");
        let err = PlayerSpec::parse("uci:fsf:Threads=1").unwrap_err().to_string();
        assert!(err.contains("depth=N, nodes=N or movetime=MS"), "{err}");
        let err = PlayerSpec::parse("uci:fsf:depth=1:ponder").unwrap_err().to_string();
        assert!(err.contains("\"ponder\" is not KEY=VALUE"), "{err}");
    }

    /// A time budget plays at whatever depth the machine reaches: not reproducible, so
    /// repeated openings are not expected to replay one game. Only players that compute their
    /// moves count against a match's `cpu_threads`.
    #[test]
    fn time_budgets_are_not_deterministic_and_baselines_are_cpu_bound() {
        let v = Variant::load("gardner").unwrap();
        let spec = |s: &str| PlayerSpec::parse(s).unwrap();
        assert!(spec("alphabeta:2").is_deterministic() && spec("alphabeta:nodes=9").is_deterministic());
        assert!(!spec("alphabeta:2:ms=10").is_deterministic());
        assert!(spec("uci:e:depth=2").is_deterministic() && spec("uci:e:nodes=9:Threads=1").is_deterministic());
        assert!(!spec("uci:e:movetime=9").is_deterministic() && !spec("uci:e:depth=2:threads=4").is_deterministic());
        assert!(spec("uci:e:depth=1").is_cpu_bound());
        for (text, cpu) in [("random", false), ("greedy", true), ("alphabeta:1", true), ("alphabeta:ms=5", true)] {
            let c = spec(text).contestant(&v, None, &SearchPlayerConfig::default()).unwrap();
            assert_eq!(c.cpu_bound, cpu, "{text}");
            assert_eq!(c.deterministic, spec(text).is_deterministic(), "{text}");
        }
        assert!(!spec("ckpt@4").is_cpu_bound());
        let net = Contestant::search(
            "net",
            None,
            Arc::new(fairyzero_model::backend::MockBackend::uniform()),
            SearchPlayerConfig::default(),
        );
        assert!(!net.cpu_bound);
    }

    /// Any spec prints to text that parses back to it, and that text is a fixed point.
    mod round_trip {
        use proptest::{option, prelude::*};

        use super::*;

        fn values() -> impl Strategy<Value = ValueSource> {
            prop_oneof![Just(ValueSource::Nominal), Just(ValueSource::Mobility), Just(ValueSource::Uniform)]
        }

        /// Every variant of the enum (the `match` below fails to compile when one is added).
        fn any_spec() -> impl Strategy<Value = PlayerSpec> {
            prop_oneof![
                Just(PlayerSpec::Random),
                values().prop_map(|values| PlayerSpec::Greedy { values }),
                (option::of(1u32..=64), option::of(1u64..), option::of(1u64..=MAX_MOVE_MS), values())
                    .prop_filter("a depth, a node or a time budget", |(d, n, t, _)| {
                        d.is_some() || n.is_some() || t.is_some()
                    })
                    .prop_map(|(depth, nodes, ms, values)| PlayerSpec::AlphaBeta { depth, nodes, ms, values }),
                // Any path but one that reads as a baseline with options (`greedy:x@5`).
                ("[a-zA-Z0-9_./@: -]{0,16}[a-zA-Z0-9_.-]", 1u32..)
                    .prop_filter("not a baseline's spelling", |(p, _)| {
                        !["random", "greedy", "alphabeta", "ab", "uci", "xboard"]
                            .contains(&p.split(':').next().unwrap_or(""))
                            || !p.contains(':')
                    })
                    .prop_map(|(p, simulations)| PlayerSpec::Checkpoint { path: p.into(), simulations }),
                (
                    prop_oneof![Just(Protocol::Uci), Just(Protocol::Xboard)],
                    "[a-zA-Z0-9_./-]{1,12}",
                    (option::of(1u32..=64), option::of(1u64..), option::of(1u64..=MAX_MOVE_MS)),
                    option::of(1u64..=MAX_MOVE_MS),
                    proptest::collection::vec(("[A-Z][a-zA-Z_ ]{0,8}[a-z]", "[a-zA-Z0-9_./]{0,8}"), 0..3),
                )
                    .prop_map(|(protocol, path, (depth, nodes, movetime), timeout, options)| {
                        // CECP: no node limit, whole seconds.
                        let (nodes, movetime) = match protocol {
                            Protocol::Uci => (nodes, movetime),
                            Protocol::Xboard => (None, movetime.map(|t| (t / 1000).max(1) * 1000)),
                        };
                        EngineSpec { protocol, path: path.into(), depth, nodes, movetime, timeout, options }
                    })
                    .prop_filter("a search limit, distinct options", |e| {
                        let names: std::collections::HashSet<String> =
                            e.options.iter().map(|(k, _)| k.to_ascii_lowercase()).collect();
                        (e.depth.is_some() || e.nodes.is_some() || e.movetime.is_some())
                            && names.len() == e.options.len()
                    })
                    .prop_map(PlayerSpec::Engine),
            ]
        }

        proptest! {
            #[test]
            fn display_parses_back(spec in any_spec()) {
                match &spec {
                    PlayerSpec::Random
                    | PlayerSpec::Greedy { .. }
                    | PlayerSpec::AlphaBeta { .. }
                    | PlayerSpec::Checkpoint { .. }
                    | PlayerSpec::Engine(_) => {}
                }
                let text = spec.to_string();
                let parsed: PlayerSpec = text.parse().unwrap();
                prop_assert_eq!(&parsed, &spec);
                prop_assert_eq!(parsed.to_string(), text);
            }
        }

        /// The names stored match files and rankings hold: they must keep parsing to these specs
        /// and printing as they are.
        #[test]
        fn stored_names_are_stable() {
            let nominal = ValueSource::Nominal;
            for (text, spec) in [
                ("random", PlayerSpec::Random),
                ("greedy", PlayerSpec::Greedy { values: nominal }),
                ("greedy:values=uniform", PlayerSpec::Greedy { values: ValueSource::Uniform }),
                ("alphabeta:2", PlayerSpec::AlphaBeta { depth: Some(2), nodes: None, ms: None, values: nominal }),
                (
                    "alphabeta:nodes=20000",
                    PlayerSpec::AlphaBeta { depth: None, nodes: Some(20000), ms: None, values: nominal },
                ),
                (
                    "alphabeta:1:nodes=9:values=mobility",
                    PlayerSpec::AlphaBeta { depth: Some(1), nodes: Some(9), ms: None, values: ValueSource::Mobility },
                ),
                ("alphabeta:ms=50", PlayerSpec::AlphaBeta { depth: None, nodes: None, ms: Some(50), values: nominal }),
                (
                    "alphabeta:2:nodes=9:ms=50:values=uniform",
                    PlayerSpec::AlphaBeta {
                        depth: Some(2),
                        nodes: Some(9),
                        ms: Some(50),
                        values: ValueSource::Uniform,
                    },
                ),
                (
                    "checkpoints/step-00000100@16",
                    PlayerSpec::Checkpoint { path: "checkpoints/step-00000100".into(), simulations: 16 },
                ),
                ("/abs/ckpt@1", PlayerSpec::Checkpoint { path: "/abs/ckpt".into(), simulations: 1 }),
                (
                    "uci:/usr/games/fairy-stockfish:depth=1:VariantPath=engines/variants.ini",
                    PlayerSpec::Engine(EngineSpec {
                        protocol: Protocol::Uci,
                        path: "/usr/games/fairy-stockfish".into(),
                        depth: Some(1),
                        nodes: None,
                        movetime: None,
                        timeout: None,
                        options: vec![("VariantPath".into(), "engines/variants.ini".into())],
                    }),
                ),
            ] {
                assert_eq!(text.parse::<PlayerSpec>().unwrap(), spec, "{text}");
                assert_eq!(spec.to_string(), text);
            }
        }
    }

    #[test]
    fn a_checkpoint_without_a_loader_is_a_clear_error() {
        let v = Variant::load("gardner").unwrap();
        let spec = PlayerSpec::parse("some/ckpt@10").unwrap();
        let err = spec.contestant(&v, None, &SearchPlayerConfig::default()).unwrap_err().to_string();
        assert!(err.contains("some/ckpt") && err.contains("loader"), "{err}");
    }

    /// A loader's own error reaches the caller as the cause of a `LoadError` naming the path.
    #[test]
    fn a_loader_failure_names_the_checkpoint_and_keeps_its_cause() {
        struct Failing;
        impl CheckpointLoader for Failing {
            fn load(&self, path: &Path, _: &Arc<Variant>) -> Result<LoadedCheckpoint, LoadError> {
                let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "weights.safetensors: denied");
                Err(LoadError::unreadable(path, io))
            }
        }
        let v = Variant::load("gardner").unwrap();
        let spec: PlayerSpec = "runs/r/checkpoints/step-7@8".parse().unwrap();
        let err = spec.contestant(&v, Some(&Failing), &SearchPlayerConfig::default()).unwrap_err();
        assert_eq!(err.to_string(), "checkpoint runs/r/checkpoints/step-7: weights.safetensors: denied");
        let Error::Load(LoadError { path, problem: LoadProblem::Unreadable(cause) }) = &err else { panic!("{err:?}") };
        assert_eq!(path, Path::new("runs/r/checkpoints/step-7"));
        let io = cause.downcast_ref::<std::io::Error>().expect("the loader's error, typed");
        assert_eq!(io.kind(), std::io::ErrorKind::PermissionDenied);
    }

    #[test]
    fn greedy_takes_material_and_wins() {
        use rand::SeedableRng;
        let v = Variant::load("chess").unwrap();
        // White can take a hanging queen.
        let mut pos = Position::from_fen(Arc::clone(&v), "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1").unwrap();
        let mut legal = MoveList::new();
        pos.legal_moves(&mut legal);
        let mut p = GreedyPlayer::new(Arc::new(PieceValues::new(&v, ValueSource::Nominal)));
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let m = p.choose(&mut pos, &legal, &mut rng);
        assert_eq!(pos.move_to_string(&m), "d2d5");
        // Mate in one beats material.
        let mut pos = Position::from_fen(Arc::clone(&v), "6k1/5ppp/8/8/8/8/7K/R2n4 w - - 0 1").unwrap();
        pos.legal_moves(&mut legal);
        let m = p.choose(&mut pos, &legal, &mut rng);
        assert_eq!(pos.move_to_string(&m), "a1a8");
    }
}
