//! `fairyzero match` (ad-hoc matches between two players) and `fairyzero rank` (ratings of a
//! run from all its stored games). The library side is the `fairyzero-evaluator` crate.
//!
//! `match` prints a summary and, as its last line, exactly
//! `result W D L score S ci LO HI`: A's wins, draws and losses, A's score in 0..1 and its 95%
//! Wilson interval. `rank` writes `ranking.md`, `ranking.json` and `ranking.png` into the run
//! directory and prints the table.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use anyhow::{bail, Context, Result};
use fairyzero_evaluator::{
    rank_run, run_match, run_sprt_match, Adjudication, CiMethod, Contestant, MatchGame, MatchOptions, PlayerSpec,
    RatingOptions, ResultStore, SearchKind, SearchPlayerConfig, SprtParams,
};
use fairyzero_rules::Variant;
use fairyzero_selfplay::{config::RunSelfPlay, search::SearchParams};

use crate::{limits, network::NetRuntime};

#[derive(Debug, clap::Args)]
pub struct MatchArgs {
    /// Player A: random, greedy[:values=SOURCE], alphabeta:DEPTH[:nodes=N][:ms=N][:values=SOURCE],
    /// alphabeta:nodes=N, alphabeta:ms=N (N milliseconds per move), or a checkpoint directory
    /// with an optional search budget, PATH@SIMS;
    /// or an engine, uci:PATH:depth=N|nodes=N|movetime=MS[:timeout=MS][:Option=value...] (xboard:PATH:... for CECP)
    #[arg(value_parser = PlayerSpec::parse)]
    pub a: PlayerSpec,

    /// Player B (same forms as A)
    #[arg(value_parser = PlayerSpec::parse)]
    pub b: PlayerSpec,

    /// Variant: a built-in name or alias (`fairyzero variants`) or a path to a TOML file
    #[arg(long)]
    pub variant: String,

    /// Games to play; each opening is played twice, colours swapped (at most 10,000,000)
    #[arg(long, default_value_t = 100, value_parser = limits::count::<usize>(1, limits::MAX_GAMES))]
    pub games: usize,

    /// Random plies of each opening (after the setup phase, which is always sampled; at most
    /// 100,000)
    #[arg(long, default_value_t = 4, value_parser = limits::count::<u32>(0, limits::MAX_PLIES))]
    pub plies: u32,

    /// Seed of the openings and of the players' random choices
    #[arg(long, default_value_t = 0)]
    pub seed: u64,

    /// Plies of play after the opening before adjudication (default: the variant's move cap;
    /// at most 100,000)
    #[arg(long, value_parser = limits::count::<u32>(1, limits::MAX_PLIES))]
    pub move_cap: Option<u32>,

    /// Result of a game that reaches the move cap: draw, or material (more material wins)
    #[arg(long, default_value = "draw")]
    pub adjudicate: Adjudication,

    /// Games played at once, one thread each (default 0: one per core; at most 1,024). The
    /// leaves of all games of a checkpoint player are batched together, so with a GPU use about
    /// the batch size wanted, e.g. 256
    #[arg(long, default_value_t = 0, value_parser = limits::count::<usize>(0, limits::MAX_THREADS))]
    pub threads: usize,

    /// Moves of alpha-beta and greedy players computed at once, across all games (default 0:
    /// one per core; at most 1,024). With many --threads for checkpoint games, set it to the
    /// cores left over
    #[arg(long, default_value_t = 0, value_parser = limits::count::<usize>(0, limits::MAX_THREADS))]
    pub cpu_threads: usize,

    /// Search of checkpoint players: gumbel or puct (default: the --config run's, else gumbel)
    #[arg(long, value_parser = ["gumbel", "puct"])]
    pub search: Option<String>,

    /// Run configuration whose [selfplay] section gives the checkpoint players' search (kind,
    /// PUCT and Gumbel parameters, immediate_wins), as that run's own evaluation searches
    /// (default: an exported net's own config.toml, see export-model; else Gumbel defaults)
    #[arg(long, value_name = "RUN.toml")]
    pub config: Option<PathBuf>,

    /// Append the games to the results store of this run directory (DIR/matches/)
    #[arg(long, value_name = "DIR")]
    pub run: Option<PathBuf>,

    /// Stop early when the SPRT decides: ELO0,ELO1[,ALPHA,BETA] (A against B; default 5% each)
    #[arg(long, value_name = "ELO0,ELO1[,ALPHA,BETA]", value_parser = parse_sprt)]
    pub sprt: Option<SprtParams>,

    /// Do not store the moves of every game in the results
    #[arg(long)]
    pub no_moves: bool,
}

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["run", "store"])))]
pub struct RankArgs {
    /// Run directory (reads DIR/matches/*.jsonl, writes DIR/ranking.{md,json,png})
    #[arg(long, value_name = "DIR")]
    pub run: Option<PathBuf>,

    /// A run's store instead (file:///dir or s3://bucket/prefix, as `train`, `learn` and `worker`
    /// name it): reads its matches/ and prints the ranking the learner computes
    #[arg(long, value_name = "URL")]
    pub store: Option<String>,

    /// With --store: write ranking.{md,json,png} into this directory
    #[arg(long, value_name = "DIR", requires = "store")]
    pub out: Option<PathBuf>,

    /// Bootstrap resamples for the confidence intervals (at most 1,000,000)
    #[arg(long, default_value_t = 1000, value_parser = limits::count::<usize>(1, limits::MAX_RESAMPLES))]
    pub bootstrap: usize,

    /// Intervals from the likelihood (normal approximation) instead of the bootstrap
    #[arg(long)]
    pub likelihood: bool,

    /// The player rated 0 Elo (default: random if it played, else the mean is 0)
    #[arg(long)]
    pub anchor: Option<String>,

    /// Seed of the bootstrap
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// The player of `spec`; a checkpoint inside `run` is named relative to it, as `rank` expects.
pub(crate) fn contestant(
    spec: &PlayerSpec,
    variant: &Arc<Variant>,
    search: &SearchPlayerConfig,
    run: Option<&Path>,
    net: &dyn NetRuntime,
) -> Result<Contestant> {
    let loader = net.checkpoint_loader(Some(1));
    let contestant = spec.contestant(variant, loader.as_deref(), search)?;
    if let (PlayerSpec::Checkpoint { path, simulations }, Some(run)) = (spec, run) {
        if let Ok(relative) = path.strip_prefix(run) {
            let name = PlayerSpec::Checkpoint { path: relative.to_path_buf(), simulations: *simulations }.to_string();
            return Ok(contestant.renamed(name));
        }
    }
    Ok(contestant)
}

/// `--sprt ELO0,ELO1[,ALPHA,BETA]`, checked when the command line is read.
fn parse_sprt(text: &str) -> Result<SprtParams, String> {
    let values: Vec<f64> = text
        .split(',')
        .map(|s| s.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| "expected numbers ELO0,ELO1[,ALPHA,BETA]".to_string())?;
    let p = match values.as_slice() {
        [e0, e1] => SprtParams { elo0: *e0, elo1: *e1, ..SprtParams::default() },
        [e0, e1, a, b] => SprtParams { elo0: *e0, elo1: *e1, alpha: *a, beta: *b },
        _ => return Err("expected ELO0,ELO1 or ELO0,ELO1,ALPHA,BETA".into()),
    };
    p.validate().map_err(|e| e.to_string())?;
    Ok(p)
}

/// The run configuration a net folder carries: an exported net (`export-model`, models/) holds
/// the `config.toml` of the run that trained it, so it plays with that run's search unless the
/// command line names another. A trainer checkpoint folder has none.
pub(crate) fn carried_config(net_dir: &Path) -> Option<PathBuf> {
    let config = net_dir.join("config.toml");
    config.is_file().then_some(config)
}

/// The search of one player: `--config`'s, else the config its net folder carries
/// ([`carried_config`]), else the defaults; `--search` chooses the kind.
pub(crate) fn player_search(
    spec: &PlayerSpec,
    config: Option<&Path>,
    kind: Option<&str>,
) -> Result<SearchPlayerConfig> {
    let carried = match (config, spec) {
        (None, PlayerSpec::Checkpoint { path, .. }) => carried_config(path),
        _ => None,
    };
    checkpoint_search(config.or(carried.as_deref()), kind)
}

/// The checkpoint players' search: the run file's `[selfplay]` search (one leaf per round, as
/// the trainer's evaluation plays it), else the defaults, with `--search` choosing the kind.
fn checkpoint_search(config: Option<&Path>, kind: Option<&str>) -> Result<SearchPlayerConfig> {
    let mut params = match config {
        Some(path) => SearchParams::from_config(&RunSelfPlay::load(path)?.selfplay),
        None => SearchParams::gumbel(),
    };
    params.leaves_per_round = 1;
    match kind {
        Some("puct") => params.kind = SearchKind::Puct,
        Some(_) => params.kind = SearchKind::Gumbel,
        None => {}
    }
    Ok(SearchPlayerConfig { params, ..SearchPlayerConfig::default() })
}

pub fn run_match_command(args: MatchArgs, net: &dyn NetRuntime) -> Result<()> {
    let variant = Variant::load(&args.variant).context("loading the variant")?;
    let search_of = |spec: &PlayerSpec| player_search(spec, args.config.as_deref(), args.search.as_deref());
    let run = args.run.as_deref();
    let a = contestant(&args.a, &variant, &search_of(&args.a)?, run, net)
        .with_context(|| format!("player A {}", args.a))?;
    let mut b = contestant(&args.b, &variant, &search_of(&args.b)?, run, net)
        .with_context(|| format!("player B {}", args.b))?;
    if b.name == a.name {
        let name = format!("{}#2", b.name);
        b = b.renamed(name);
    }
    let options = MatchOptions {
        games: args.games,
        random_plies: args.plies,
        seed: args.seed,
        move_cap: args.move_cap,
        adjudication: args.adjudicate,
        threads: args.threads,
        cpu_threads: args.cpu_threads,
        record_moves: !args.no_moves,
        match_id: None,
        // Ctrl-C ends the match after the games in progress; the finished ones are reported
        // and stored (main then exits with 130 or 143).
        stop: Some(crate::interrupt::stop_flag()),
        partial_on_stop: true,
    };
    // Before the first game: a match whose results cannot be stored is not worth playing.
    if let Some(run) = run {
        ResultStore::new(run)
            .ensure_writable()
            .with_context(|| format!("--run {}: the results could not be stored there", run.display()))?;
    }
    let cap = args.move_cap.unwrap_or(variant.rules.move_cap);
    println!(
        "match: {} vs {} on {}, up to {} games, {} random opening plies, move cap {cap} (then {}), seed {}",
        a.name, b.name, variant.name, args.games, args.plies, args.adjudicate, args.seed
    );
    let bar = fairyzero_selfplay::progress::bar(args.games as u64, true);
    let progress = |_: &MatchGame, n: usize| bar.set_position(n as u64);
    let (report, status) = match &args.sprt {
        Some(params) => {
            let (report, status) = run_sprt_match(&variant, &a, &b, &options, params, 20, Some(&progress))?;
            (report, Some(status))
        }
        None => (run_match(&variant, &a, &b, &options, Some(&progress))?, None),
    };
    bar.finish_and_clear();
    if options.stop.as_ref().is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed)) {
        println!("interrupted: {} of up to {} games were played", report.records.len(), args.games);
        if report.records.is_empty() {
            return Ok(());
        }
    }
    if let Some(run) = run {
        let path = ResultStore::new(run)
            .append(&report.records, &format!("{}-vs-{}", a.name, b.name))
            .context("storing the results")?;
        println!("stored: {} games in {}", report.records.len(), path.display());
    }
    print!("{}", report.summary());
    if let Some(s) = status {
        let decision = match s.decision {
            Some(fairyzero_evaluator::SprtDecision::AcceptH1) => "H1 accepted (A is stronger by elo1)".to_string(),
            Some(fairyzero_evaluator::SprtDecision::AcceptH0) => "H0 accepted (A is not stronger by elo1)".to_string(),
            None => "undecided".to_string(),
        };
        println!("sprt: llr {:.3} bounds [{:.3}, {:.3}] after {} games: {decision}", s.llr, s.lower, s.upper, s.games);
    }
    println!("{}", report.result_line());
    Ok(())
}

impl RankArgs {
    /// The rating options the flags ask for.
    pub fn rating_options(&self) -> RatingOptions {
        let ci = if self.likelihood { CiMethod::Likelihood } else { CiMethod::Bootstrap(self.bootstrap) };
        RatingOptions { anchor: self.anchor.clone(), ci, seed: self.seed, ..RatingOptions::default() }
    }
}

pub fn run_rank_command(args: RankArgs) -> Result<()> {
    let Some(run) = &args.run else { bail!("rank: --run DIR or --store URL is required") };
    if !run.is_dir() {
        bail!("--run {}: no such run directory", run.display());
    }
    let ranking = rank_run(run, &args.rating_options()).context("ranking the run")?;
    if ranking.games == 0 {
        tracing::warn!("no stored games under {}", ResultStore::new(run).dir().display());
    }
    print_ranking(&ranking, Some(run));
    Ok(())
}

/// Prints a ranking's table and, when they were written into `dir`, the files' paths.
pub fn print_ranking(ranking: &fairyzero_evaluator::ranking::Ranking, dir: Option<&Path>) {
    print!("{}", ranking.to_markdown());
    let Some(dir) = dir else { return };
    println!();
    for f in [
        fairyzero_evaluator::ranking::RANKING_MD,
        fairyzero_evaluator::ranking::RANKING_JSON,
        fairyzero_evaluator::ranking::RANKING_PNG,
    ] {
        println!("wrote {}", dir.join(f).display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::WithoutLibtorch;
    use clap::Parser;

    #[derive(clap::Parser)]
    struct M {
        #[command(flatten)]
        args: MatchArgs,
    }

    /// Checkpoint players with the torch runtime: torch-cli/tests/checkpoint_players.rs.
    #[test]
    fn baselines_play_without_libtorch_and_bad_arguments_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().to_str().unwrap();
        let m = M::try_parse_from(["match", "greedy", "random", "--variant", "gardner", "--games", "2", "--run", run])
            .unwrap();
        run_match_command(m.args, &WithoutLibtorch).unwrap();
        assert_eq!(ResultStore::new(dir.path()).load().unwrap().records.len(), 2);
        // A checkpoint needs the runtime that this program does not have: an error, not a panic.
        let ckpt = format!("{run}@8");
        let m = M::try_parse_from(["match", "greedy", &ckpt, "--variant", "gardner"]).unwrap();
        let err = format!("{:#}", run_match_command(m.args, &WithoutLibtorch).unwrap_err());
        assert!(err.contains("checkpoint players need the network runtime"), "{err}");
        // A bad player is refused with the command line, naming the argument.
        let err = M::try_parse_from(["match", "alphabeta", "random", "--variant", "gardner"]).err().unwrap();
        assert_eq!(err.kind(), clap::error::ErrorKind::ValueValidation);
        assert!(err.to_string().contains("<A>") && err.to_string().contains("needs a depth"), "{err}");
        assert!(parse_sprt("10,0").is_err() && parse_sprt("0,10").is_ok() && parse_sprt("0,10,0.05,0.1").is_ok());
    }

    /// Checkpoint players search as the run file says (its `[selfplay]` section), with one
    /// leaf per round; `--search` still picks the kind; without a file, the defaults.
    #[test]
    fn checkpoint_players_search_as_the_run_file_says() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("run.toml");
        std::fs::write(
            &file,
            "variant = \"scirocco\"\n[net]\nsize = \"tiny\"\n[selfplay]\nsearch = \"puct\"\nleaves_per_game = 4\n\
             immediate_wins = false\n[selfplay.puct]\nc_puct = 2.5\n[selfplay.gumbel]\nconsidered_actions = 8\n",
        )
        .unwrap();
        let from_file = checkpoint_search(Some(&file), None).unwrap().params;
        assert_eq!(from_file.kind, SearchKind::Puct);
        assert_eq!((from_file.c_puct, from_file.leaves_per_round, from_file.immediate_wins), (2.5, 1, false));
        let gumbel = checkpoint_search(Some(&file), Some("gumbel")).unwrap().params;
        assert_eq!((gumbel.kind, gumbel.gumbel.considered_actions), (SearchKind::Gumbel, 8));
        assert_eq!(checkpoint_search(None, None).unwrap(), SearchPlayerConfig::default());
        std::fs::write(&file, "[selfplay]\nsearch = \"mcts\"\n").unwrap();
        let err = format!("{:#}", checkpoint_search(Some(&file), None).unwrap_err());
        assert!(err.contains("run.toml") && err.contains("mcts"), "{err}");
    }

    /// An exported net's folder carries its run's config.toml: it searches as that run did,
    /// unless --config names another file; a baseline or a folder without one gets the defaults.
    #[test]
    fn an_exported_net_searches_as_the_run_that_trained_it() {
        let dir = tempfile::tempdir().unwrap();
        let net = dir.path().join("model");
        std::fs::create_dir(&net).unwrap();
        let spec = PlayerSpec::Checkpoint { path: net.clone(), simulations: 8 };
        assert_eq!(player_search(&spec, None, None).unwrap(), SearchPlayerConfig::default());
        std::fs::write(net.join("config.toml"), "[selfplay]\nsearch = \"puct\"\n[selfplay.puct]\nc_puct = 3.5\n")
            .unwrap();
        let carried = player_search(&spec, None, None).unwrap().params;
        assert_eq!((carried.kind, carried.c_puct), (SearchKind::Puct, 3.5));
        let other = dir.path().join("other.toml");
        std::fs::write(&other, "[selfplay]\nsearch = \"gumbel\"\n").unwrap();
        assert_eq!(player_search(&spec, Some(&other), None).unwrap().params.kind, SearchKind::Gumbel);
        assert_eq!(player_search(&spec, None, Some("gumbel")).unwrap().params.kind, SearchKind::Gumbel);
        let greedy: PlayerSpec = "greedy".parse().unwrap();
        assert_eq!(player_search(&greedy, None, None).unwrap(), SearchPlayerConfig::default());
        std::fs::write(net.join("config.toml"), "[selfplay]\nsearch = \"mcts\"\n").unwrap();
        let err = format!("{:#}", player_search(&spec, None, None).unwrap_err());
        assert!(err.contains("config.toml") && err.contains("mcts"), "{err}");
    }

    /// `--cpu-threads` reaches the match options and is bounded like `--threads`; a time
    /// budget is a player option, refused by name when malformed.
    #[test]
    fn cpu_threads_and_time_budgets_are_read_and_checked() {
        let m = M::try_parse_from(["match", "alphabeta:ms=5", "greedy", "--variant", "gardner", "--cpu-threads", "3"])
            .unwrap();
        assert_eq!(m.args.cpu_threads, 3);
        assert_eq!(m.args.a.to_string(), "alphabeta:ms=5");
        let m = M::try_parse_from(["match", "greedy", "random", "--variant", "gardner"]).unwrap();
        assert_eq!(m.args.cpu_threads, 0, "default: one per core");
        for bad in ["1025", "x", "2.5"] {
            let err = M::try_parse_from(["match", "greedy", "random", "--variant", "gardner", "--cpu-threads", bad])
                .err()
                .unwrap();
            assert_eq!(err.kind(), clap::error::ErrorKind::ValueValidation, "{bad}");
            assert!(err.to_string().contains("--cpu-threads"), "{err}");
        }
        let err = M::try_parse_from(["match", "alphabeta:2:ms=0", "random", "--variant", "gardner"]).err().unwrap();
        assert!(err.to_string().contains("<A>") && err.to_string().contains("milliseconds per move"), "{err}");
        // A short match with both limits plays and stores its games.
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().to_str().unwrap();
        let m = M::try_parse_from([
            "match",
            "alphabeta:2:ms=20",
            "greedy",
            "--variant",
            "gardner",
            "--games",
            "4",
            "--move-cap",
            "6",
            "--threads",
            "4",
            "--cpu-threads",
            "1",
            "--run",
            run,
        ])
        .unwrap();
        run_match_command(m.args, &WithoutLibtorch).unwrap();
        let stored = ResultStore::new(dir.path()).load().unwrap().records;
        assert_eq!(stored.len(), 4);
        assert!(stored.iter().all(|r| [&r.blue, &r.tan].contains(&&"alphabeta:2:ms=20".to_string())));
    }
}
