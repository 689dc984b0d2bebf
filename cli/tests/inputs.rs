//! Bad input at the command line, through the real binary: every value out of range is refused
//! with a message naming the flag and what is allowed, before any work and without a panic;
//! output locations are checked before any game; damaged stored results are skipped and
//! reported; errors and logs are readable (characters intact, no colour codes in a pipe).

use std::{
    path::Path,
    process::{Output, Stdio},
};

mod common;

use common::{command, fairyzero, stderr, stdout};

/// Runs every command line at once: most of a refused command's time is the loading of
/// libtorch, which overlaps.
fn fairyzero_all(lines: &[Vec<&str>]) -> Vec<Output> {
    let children: Vec<_> = lines
        .iter()
        .map(|args| {
            command(args)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("cannot run the fairyzero binary")
        })
        .collect();
    children.into_iter().map(|c| c.wait_with_output().expect("fairyzero did not finish")).collect()
}

/// `out` (of `args`) failed with exit status `code`, without a panic, and stderr holds every
/// one of `needles`.
fn assert_failed(args: &[&str], out: &Output, code: i32, needles: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {out:?}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    for needle in needles {
        assert!(err.contains(needle), "{args:?}: {needle:?} missing from\n{err}");
    }
}

fn assert_refused(args: &[&str], code: i32, needles: &[&str]) {
    assert_failed(args, &fairyzero(args), code, needles);
}

/// Seconds that `Duration` cannot hold (infinite, NaN, negative, huge) and counts that allocate
/// without bound: each was a panic or an abort ("memory allocation failed", "capacity
/// overflow"); now clap refuses them (exit status 2) naming the flag and the range. Also
/// refused: `--bootstrap 0`, a non-finite `--sprt`, and `balance` without `--out` (it wrote
/// into `./balance`, inside a checkout). Every other numeric flag: the unit test in main.rs.
#[test]
fn out_of_range_numbers_are_refused_naming_the_flag() {
    let s = tempfile::tempdir().unwrap();
    let out = s.path().join("out");
    let out = out.to_str().unwrap();
    let selfplay = ["selfplay", "--config", "../configs/runs/selfplay-example.toml", "--games", "1", "--out", out];
    let mut cases: Vec<(Vec<&str>, &str, &str)> = Vec::new();
    for time in ["--time=inf", "--time=NaN", "--time=1e30", "--time=-1"] {
        cases.push((vec!["analyse", "--variant", "chess", "--nodes", "5", time], "'--time <SECONDS>'", "1000000"));
    }
    for seconds in ["--seconds=-1", "--seconds=NaN", "--seconds=inf"] {
        cases.push((vec!["bench", "net", seconds], "'--seconds <SECONDS>'", "1000000"));
    }
    for raw in ["--bench-raw=NaN", "--bench-raw=-1", "--bench-raw=1e30"] {
        let mut args = selfplay.to_vec();
        args.push(raw);
        cases.push((args, "'--bench-raw <SECONDS>'", "1000000"));
    }
    let huge = "18446744073709551615";
    let match_ = ["match", "random", "random", "--variant", "gardner"];
    let balance = ["balance", "--variant", "gardner", "--player", "random", "--out", out];
    let piece_values = ["piece-values", "--variant", "gardner", "--out", out];
    for (command, games) in [(&match_[..], huge), (&balance, huge), (&balance, "4294967296"), (&piece_values, huge)] {
        cases.push(([command, &["--games", games]].concat(), "'--games", "10000000"));
    }
    cases.extend([
        (vec!["rank", "--run", out, "--bootstrap", huge], "'--bootstrap", "1000000"),
        (vec!["rank", "--run", out, "--bootstrap", "0"], "'--bootstrap", "1..=1000000"),
        (vec!["perft", "--variant", "gardner", "--depth", "4294967295"], "'--depth", "0..=64"),
        (vec!["bench", "net", "--batches", "1,100000000"], "'--batches", "16384"),
        (vec!["bench", "net", "--positions", "100000000000"], "'--positions", "100000"),
        (vec!["match", "random", "random", "--variant", "gardner", "--sprt", "NaN,10"], "'--sprt", "finite"),
        (vec!["match", "random", "random", "--variant", "gardner", "--sprt", "0,inf"], "'--sprt", "finite"),
        (vec!["balance", "--variant", "gardner", "--player", "random"], "--out <OUT>", "required"),
    ]);
    let lines: Vec<Vec<&str>> = cases.iter().map(|(args, ..)| args.clone()).collect();
    for ((args, flag, allowed), out) in cases.iter().zip(fairyzero_all(&lines)) {
        assert_failed(args, &out, 2, &[flag, allowed]);
    }
    assert!(!Path::new(out).exists(), "a refused command created {out}");
}

/// `--help` shows each maximum (the complete check over every flag is a unit test in main.rs).
#[test]
fn help_shows_the_maximum_of_count_flags() {
    let lines = [vec!["match", "--help"], vec!["perft", "--help"], vec!["analyse", "--help"]];
    let outs = fairyzero_all(&lines);
    for ((args, text), out) in lines.iter().zip(["at most 10,000,000", "at most 64", "at most 1,000,000"]).zip(outs) {
        assert!(out.status.success() && stdout(&out).contains(text), "{args:?}: {text:?} missing: {out:?}");
    }
    // `analyse --torch-threads`, with the default of `selfplay`.
    let help = stdout(&fairyzero(&["analyse", "--help"]));
    let torch_threads = help.split("--torch-threads").nth(1).unwrap_or("");
    assert!(torch_threads.contains("[default: 1]"), "{help}");
}

/// An output location that cannot be written is refused before the first game, not after the
/// last (a regular file stands where the folder would be: that fails even for root).
#[test]
fn unwritable_output_locations_are_refused_before_any_game() {
    let s = tempfile::tempdir().unwrap();
    let file = s.path().join("file");
    std::fs::write(&file, "").unwrap();
    let blocked = file.join("dir");
    let blocked = blocked.to_str().unwrap();
    let gardner = ["--variant", "gardner", "--games", "2", "--move-cap", "4"];
    let cases: [(Vec<&str>, &str); 3] = [
        ([&["match", "random", "random", "--run", blocked][..], &gardner].concat(), "--run"),
        ([&["balance", "--player", "random", "--out", blocked][..], &gardner].concat(), "--out"),
        (
            [&["piece-values", "--player", "alphabeta:1:values=mobility", "--out", blocked][..], &gardner].concat(),
            "--out",
        ),
    ];
    for (args, flag) in &cases {
        let out = fairyzero(args);
        assert_refused(args, 1, &[&format!("{flag} {blocked}"), "Not a directory"]);
        // Nothing was played: no match header, no result line.
        assert!(stdout(&out).is_empty(), "{args:?}: {}", stdout(&out));
    }
}

/// `rank`: a stored file that is not UTF-8 is skipped and reported (it aborted the ranking);
/// an anchor that did not play is refused with the list of players (it was ignored).
#[test]
fn rank_skips_damaged_files_and_refuses_unknown_anchors() {
    let s = tempfile::tempdir().unwrap();
    let run = s.path().to_str().unwrap();
    let played = fairyzero(
        &["match", "greedy", "random", "--variant", "gardner", "--games", "2", "--move-cap", "4"]
            .iter()
            .copied()
            .chain(["--threads", "1", "--run", run])
            .collect::<Vec<_>>(),
    );
    assert!(played.status.success(), "{played:?}");
    std::fs::write(s.path().join("matches/0-damaged.jsonl"), b"{\"blue\": \"caf\xe9\"}\n").unwrap();

    let out = fairyzero(&["rank", "--run", run, "--bootstrap", "10"]);
    assert!(out.status.success(), "{out:?}");
    assert!(stdout(&out).contains("1 stored file could not be read"), "{}", stdout(&out));
    assert!(stderr(&out).contains("0-damaged.jsonl: not UTF-8 text"), "{}", stderr(&out));

    assert_refused(
        &["rank", "--run", run, "--anchor", "nosuch"],
        1,
        &["\"nosuch\"", "the anchor is not a player", "greedy, random"],
    );
}

/// Errors show non-ASCII characters as themselves (the position parser printed `é` as `Ã`).
#[test]
fn errors_keep_non_ascii_characters_intact() {
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBé♔ w";
    assert_refused(&["moves", "--variant", "chess", "--fen", fen], 1, &["character 42: unexpected character 'é'"]);
    assert_refused(&["moves", "--variant", "chess", "--moves", "♔e2"], 1, &["\"♔e2\"", "('♔')"]);
    assert_refused(&["moves", "--variant", "échecs"], 1, &["\"échecs\""]);
}

/// Logs written to a pipe or a file carry no colour codes (nor with NO_COLOR at a terminal,
/// which a test cannot be).
#[test]
fn logs_to_a_pipe_have_no_colour_codes() {
    let out = fairyzero(&["perft", "--variant", "gardner", "--depth", "1"]);
    assert!(out.status.success(), "{out:?}");
    let err = stderr(&out);
    assert!(err.contains("INFO") && !err.contains('\u{1b}'), "{err:?}");
}

/// `show-game` and its `--pgn` count the same plies: every ply, setup plies included.
#[test]
fn show_game_and_pgn_count_the_same_plies() {
    let s = tempfile::tempdir().unwrap();
    let config = s.path().join("run.toml");
    std::fs::write(&config, "[selfplay]\nsimulations = 2\ngames_in_parallel = 1\nthreads = 1\nmove_cap = 4\n").unwrap();
    let games = s.path().join("games");
    let played = fairyzero(&[
        "selfplay",
        "--config",
        config.to_str().unwrap(),
        "--variant",
        "scirocco",
        "--games",
        "1",
        "--seed",
        "1",
        "--out",
        games.to_str().unwrap(),
    ]);
    assert!(played.status.success(), "{played:?}");
    let file = games.read_dir().unwrap().next().unwrap().unwrap().path();
    let file = file.to_str().unwrap();
    let listing = stdout(&fairyzero(&["show-game", file]));
    let pgn = stdout(&fairyzero(&["show-game", file, "--pgn"]));
    let listed: usize = listing
        .lines()
        .find_map(|l| l.strip_prefix("result: ")?.rsplit_once(", ")?.1.strip_suffix(" plies")?.parse().ok())
        .unwrap_or_else(|| panic!("no ply count in\n{listing}"));
    let setup = listing.lines().find_map(|l| l.strip_prefix("setup: ")).map_or(0, |s| s.split(' ').count());
    assert!(setup > 0, "scirocco has a setup phase:\n{listing}");
    assert!(pgn.contains(&format!("[PlyCount \"{listed}\"]")), "listing says {listed} plies:\n{pgn}");
    assert!(listed > setup, "{listing}");
}

/// `--print-config` prints `f32` keys as written (0.15), not widened (0.15000000596046448).
#[test]
fn print_config_prints_short_floats() {
    let out = fairyzero(&["train", "--config", "../configs/runs/tiny.toml", "--print-config"]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    assert!(text.contains("\ndirichlet_alpha = 0.15\n") && text.contains("\nc_scale = 0.1\n"), "{text}");
    for line in text.lines() {
        let value = line.split_once(" = ").map_or("", |(_, v)| v);
        let widened = value.contains('.') && value.len() > 12 && value.parse::<f64>().is_ok();
        assert!(!widened, "{line}");
    }
}

/// A run file whose `[selfplay]` holds an infinite or NaN float (TOML has both) is refused by
/// `selfplay` as it is by `train`, naming the file and the key, before any game.
#[test]
fn selfplay_refuses_non_finite_floats_in_its_config() {
    let s = tempfile::tempdir().unwrap();
    let config = s.path().join("run.toml");
    std::fs::write(&config, "variant = \"gardner\"\n[selfplay.puct]\nc_puct = inf\n").unwrap();
    let config = config.to_str().unwrap();
    let out = s.path().join("games");
    let out = out.to_str().unwrap();
    let args = ["selfplay", "--config", config, "--games", "1", "--out", out];
    assert_refused(&args, 1, &[config, "`puct.c_puct` must be a finite number (it is inf)"]);
    assert!(!Path::new(out).exists(), "a refused selfplay created {out}");
}
