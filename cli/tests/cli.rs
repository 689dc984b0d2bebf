//! Runs the real `fairyzero` binary the way a user would: no `LD_LIBRARY_PATH`, so libtorch
//! must be found through the binary's RUNPATH.

mod common;

use std::process::Command;

use common::{fairyzero, stdout};

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

/// Without `--no-as-needed` (cli/build.rs) the linker silently drops libtorch_cuda.so and the
/// binary never sees a GPU.
#[test]
#[cfg(target_os = "linux")]
fn binary_links_libtorch_cuda_through_its_runpath() {
    let Ok(out) = Command::new("ldd").arg(env!("CARGO_BIN_EXE_fairyzero")).env_remove("LD_LIBRARY_PATH").output()
    else {
        return; // no ldd on this machine
    };
    let text = stdout(&out);
    assert!(!text.contains("not found"), "{text}");
    assert!(text.contains("libtorch_cpu.so"), "{text}");
    if fairyzero_cuda_build() {
        assert!(text.contains("libtorch_cuda.so"), "{text}");
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
    let child = Command::new(env!("CARGO_BIN_EXE_fairyzero"))
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
        .arg(format!("{} perft --variant chess --depth 3 --divide | true", env!("CARGO_BIN_EXE_fairyzero")))
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(!err.contains("panicked"), "{err}");
}
