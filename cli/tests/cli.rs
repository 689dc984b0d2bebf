//! Runs the real `fairyzero` binary the way a user would: no `LD_LIBRARY_PATH`, so the helper
//! `fairyzero-torch`, which it runs for the commands that need a network, must find libtorch
//! through its RUNPATH; `fairyzero` itself must not link libtorch at all.

mod common;

use std::process::Command;

use common::{fairyzero, helper, stderr, stdout, FAIRYZERO};

#[test]
fn version_reports_libtorch_and_device() {
    let out = fairyzero(&["--version"]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    assert!(text.starts_with(&format!("fairyzero {}\n", env!("CARGO_PKG_VERSION"))), "{text}");
    assert!(text.contains("libtorch 2.13."), "{text}");
    assert!(text.contains("device: CPU") || text.contains("device: CUDA"), "{text}");
}

#[test]
fn info_reports_threads_and_backends() {
    let out = fairyzero(&["info"]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    for key in ["libtorch:", "device:", "intra-op threads:", "OpenMP:", "MKL:"] {
        assert!(text.contains(key), "missing {key:?} in\n{text}");
    }
}

#[test]
fn every_subcommand_has_help() {
    let out = fairyzero(&["--help"]);
    assert!(out.status.success(), "{out:?}");
    let help = stdout(&out);
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .collect();
    assert!(commands.contains(&"info"), "{help}");
    for command in commands {
        let out = fairyzero(&[command, "--help"]);
        assert!(out.status.success(), "`{command} --help` failed: {out:?}");
        assert!(stdout(&out).contains("Usage: fairyzero"), "{out:?}");
    }
}

#[test]
fn usage_mistakes_exit_non_zero_without_panicking() {
    for args in [&["no-such-command"][..], &[], &["-v", "-q", "info"]] {
        let out = fairyzero(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// Flags of a method that was not asked for are refused, not ignored.
#[test]
fn piece_values_refuses_flags_of_methods_not_run() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().to_str().unwrap();
    for (extra, flag) in [(&["--net", "ckpt"][..], "--net"), (&["--records", "games"][..], "--records")] {
        let mut args = vec!["piece-values", "--variant", "gardner", "--player", "random", "--out", out_dir];
        args.extend_from_slice(extra);
        let out = fairyzero(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(&format!("error: {flag} is used by --method")), "{stderr}");
    }
}

/// `ldd`'s report on an executable, without `LD_LIBRARY_PATH`; `None` where there is no ldd.
fn ldd(path: &std::path::Path) -> Option<String> {
    let out = Command::new("ldd").arg(path).env_remove("LD_LIBRARY_PATH").output().ok()?;
    Some(stdout(&out))
}

/// The lean program loads no libtorch: the rules commands start in milliseconds.
#[test]
#[cfg(target_os = "linux")]
fn fairyzero_itself_links_no_libtorch() {
    let Some(text) = ldd(std::path::Path::new(FAIRYZERO)) else { return };
    assert!(text.contains("libc.so"), "not an ldd report: {text}");
    for library in ["libtorch", "libc10"] {
        assert!(!text.contains(library), "{FAIRYZERO} links {library}:\n{text}");
    }
}

/// The helper finds libtorch through its RUNPATH (torch/build.rs), and keeps libtorch_cuda.so:
/// without `--no-as-needed` the linker silently drops it and the program never sees a GPU.
#[test]
#[cfg(target_os = "linux")]
fn the_helper_links_libtorch_cuda_through_its_runpath() {
    let helper = helper();
    let Some(text) = ldd(&helper) else { return };
    assert!(!text.contains("not found"), "{text}");
    assert!(text.contains("libtorch_cpu.so"), "{text}");
    if fairyzero_cuda_build() {
        assert!(text.contains("libtorch_cuda.so"), "{text}");
    }
    if let Ok(out) = Command::new("readelf").arg("-d").arg(&helper).output() {
        let dynamic = stdout(&out);
        let runpath =
            dynamic.lines().find(|l| l.contains("(RUNPATH)")).unwrap_or_else(|| panic!("no RUNPATH:\n{dynamic}"));
        assert!(runpath.contains("torch/lib"), "{runpath}");
    }
}

/// Without the helper, `fairyzero` still runs what needs no network, reports what it can, and
/// refuses the rest naming the missing file and how to build it.
#[test]
fn without_the_helper_networks_are_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let lonely = dir.path().join("fairyzero");
    std::fs::copy(FAIRYZERO, &lonely).unwrap();
    let run = |args: &[&str]| {
        Command::new(&lonely)
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env_remove("RUST_LOG")
            .output()
            .unwrap()
    };
    let out = run(&["perft", "--variant", "chess", "--depth", "1"]);
    assert!(out.status.success() && stdout(&out).ends_with("nodes 20\n"), "{out:?}");
    let missing = dir.path().join("fairyzero-torch").display().to_string();
    for args in [&["bench", "net"][..], &["analyse", "--variant", "gardner", "--nodes", "2", "--net", "random:tiny"]] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        let err = stderr(&out);
        assert!(err.starts_with(&format!("error: {missing} is missing")), "{err}");
        assert!(err.contains("cargo build --bins"), "{err}");
    }
    for args in [&["--version"][..], &["info"]] {
        let out = run(args);
        assert!(out.status.success(), "{args:?}: {out:?}");
        let text = stdout(&out);
        assert!(text.contains(env!("CARGO_PKG_VERSION")) && text.contains("not linked into this program"), "{text}");
        assert!(text.contains(&missing), "{text}");
    }
}

fn fairyzero_cuda_build() -> bool {
    !stdout(&fairyzero(&["--version"])).contains("CPU-only build")
}

/// Ctrl-C on self-play: the finished games are written, the ones in progress dropped, the
/// summary says so, and the exit status is 130 (SIGINT), within seconds.
#[test]
fn interrupted_selfplay_keeps_its_games() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("games");
    let child = Command::new(FAIRYZERO)
        .args(["selfplay", "--config", "../configs/runs/selfplay-example.toml", "--variant", "gardner"])
        .args(["--games", "100000", "--simulations", "4", "--seed", "3", "--out"])
        .arg(&out)
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("RUST_LOG")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the start-up line (the handler is installed before it, however slow the
    // machine), then give the games a moment to run.
    let mut child = child;
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut log = String::new();
    loop {
        let mut line = String::new();
        let n = std::io::BufRead::read_line(&mut stderr, &mut line).unwrap();
        log.push_str(&line);
        assert!(n > 0, "selfplay ended before starting:\n{log}");
        if line.contains("self-play:") {
            break;
        }
    }
    let drain = std::thread::spawn(move || std::io::Read::read_to_string(&mut stderr, &mut String::new()));
    std::thread::sleep(std::time::Duration::from_secs(2));
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let signalled = std::time::Instant::now();
    let output = child.wait_with_output().unwrap();
    assert!(signalled.elapsed() < std::time::Duration::from_secs(10), "{:?}", signalled.elapsed());
    let _ = drain.join();
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(130), "{output:?}");
    assert!(text.contains("games finished so far are written, the"), "{text}");
    assert!(text.contains("in progress are dropped"), "{text}");
    let games: usize = std::fs::read_dir(&out).unwrap().count();
    assert!(games >= 1, "no record file in {}", out.display());
    let shown = fairyzero(&["show-game", out.read_dir().unwrap().next().unwrap().unwrap().path().to_str().unwrap()]);
    assert!(shown.status.success(), "{shown:?}");
}

/// `fairyzero perft ... | true`: output to a pipe already closed ends the program quietly.
#[test]
fn a_closed_stdout_pipe_is_not_a_panic() {
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!("{FAIRYZERO} perft --variant chess --depth 3 --divide | true"))
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(!err.contains("panicked"), "{err}");
}

/// `fairyzero variants` lists the built-ins with list number, class and aliases; `--all` adds
/// the seed-list rows that are not implemented with their reason; an alias plays its variant
/// and a row that is not implemented is refused with the reason (issue 21).
#[test]
fn variants_lists_numbers_classes_aliases_and_with_all_the_rest() {
    let out = fairyzero(&["variants"]);
    assert!(out.status.success(), "{out:?}");
    let listing = stdout(&out);
    let row = |text: &str, name: &str| -> Vec<String> {
        let line = text.lines().find(|l| l.split_whitespace().next() == Some(name));
        line.unwrap_or_else(|| panic!("{name} missing from\n{text}")).split_whitespace().map(str::to_string).collect()
    };
    assert!(
        listing
            .lines()
            .next()
            .is_some_and(|h| h.split_whitespace().take(6).eq(["name", "list", "class", "aliases", "board", "types"])),
        "{listing}"
    );
    assert_eq!(row(&listing, "antichess")[..6], ["antichess", "#1", "A", "losing,losingchess,giveaway", "8x8", "6"]);
    assert_eq!(row(&listing, "giveawayking")[..5], ["giveawayking", "#2", "A", "-", "8x8"]);
    assert_eq!(row(&listing, "grand")[..5], ["grand", "-", "-", "-", "10x10"]);
    assert_eq!(row(&listing, "xiangqi")[..5], ["xiangqi", "#79", "A", "chinesechess", "9x10"]);
    assert!(!listing.contains("compromise"), "{listing}");
    let all = stdout(&fairyzero(&["variants", "--all"]));
    let names = |text: &str| -> Vec<String> {
        text.lines().filter_map(|l| l.split_whitespace().next()).map(str::to_string).collect()
    };
    let builtins = names(&listing);
    assert_eq!(names(&all)[..builtins.len()], builtins, "--all lists the built-ins first, in the same order");
    let compromise = row(&all, "compromise").join(" ");
    assert!(
        compromise.starts_with("compromise #8 B - - - Compromise Chess; not yet: needs the opponent to choose"),
        "{compromise}"
    );
    assert!(row(&all, "bughouse").join(" ").contains("out of scope: four players"), "{all}");
    // Rows 0..=85, each at least once (the odds games' row 22 is six variants and a line
    // that names them).
    let numbers: std::collections::BTreeSet<&str> =
        all.lines().filter_map(|l| l.split_whitespace().nth(1)).filter(|n| n.starts_with('#')).collect();
    assert_eq!(numbers.len(), 86, "{numbers:?}");

    let moves = fairyzero(&["moves", "--variant", "giveaway", "--fen", "4k3/8/8/8/8/8/3p4/4K3 w - - 0 1"]);
    assert!(moves.status.success(), "{moves:?}");
    assert_eq!(stdout(&moves).lines().collect::<Vec<_>>(), ["e1d2"], "capture is compulsory in losing chess");
    let refused = fairyzero(&["moves", "--variant", "compromise"]);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    let err = stderr(&refused);
    assert!(err.contains("#8 of the variant list") && err.contains("not implemented yet"), "{err}");
}

/// `--seed N` starts `perft`, `moves` and `analyse` from the array seed N draws, the same array
/// everywhere (`Position::start_with_seed`); a variant with a fixed array refuses it.
#[test]
fn seed_starts_from_the_drawn_array() {
    use fairyzero_rules::{perft, Position, Variant};
    for (variant, seed) in [("wild2", 5u64), ("randomized", 11), ("wild1", 3)] {
        let pos = Position::start_with_seed(Variant::load(variant).unwrap(), seed);
        let expected = perft(&mut pos.clone(), 2);
        let seed_text = seed.to_string();
        let out = fairyzero(&["perft", "--variant", variant, "--seed", &seed_text, "--depth", "2"]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(stdout(&out).ends_with(&format!("nodes {expected}\n")), "{variant} seed {seed}: {}", stdout(&out));
        let from_fen = fairyzero(&["perft", "--variant", variant, "--fen", &pos.to_fen(), "--depth", "2"]);
        assert_eq!(stdout(&from_fen), stdout(&out), "{variant}: --seed is the drawn array's position string");
    }
    let a = stdout(&fairyzero(&["moves", "--variant", "wild2", "--seed", "1"]));
    let b = stdout(&fairyzero(&["moves", "--variant", "wild2", "--seed", "2"]));
    assert!(!a.is_empty() && a != b, "two seeds, two arrays: {a} / {b}");
    let refused = fairyzero(&["perft", "--variant", "chess", "--seed", "1", "--depth", "1"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(stderr(&refused).contains("--seed 1: variant chess has a fixed start array"), "{}", stderr(&refused));
    let both = fairyzero(&["perft", "--variant", "wild2", "--seed", "1", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"]);
    assert_eq!(both.status.code(), Some(2), "--seed and --fen conflict: {}", stderr(&both));
}
