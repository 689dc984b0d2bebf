//! Run directories, devices and checkpoints through the real binary: a missing CUDA device is
//! refused before anything is written, one `train` per run directory, an edited variant stops
//! a resume without touching the checkpoints, damage is a warning and restorable, checkpoints
//! are verified wherever they are loaded, `--transfer` warm-starts a new run, and an untrained
//! `random:` net plays the same games for the same seed.

use std::{
    path::{Path, PathBuf},
    process::{Child, Command, Output, Stdio},
    time::{Duration, Instant},
};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

mod common;

use common::stderr;

/// `fairyzero ARGS` run from the repository's root (paths like `configs/runs/...`).
fn command(args: &[&str]) -> Command {
    let mut command = common::command(args);
    command.current_dir(ROOT);
    command
}

fn fairyzero(args: &[&str]) -> Output {
    command(args).output().expect("cannot run the fairyzero binary")
}

/// Overrides that keep a run short: no evaluation, no TensorBoard, the CPU.
const SHORT: [&str; 8] =
    ["-o", "eval.every=0", "-o", "eval.final.games=0", "-o", "output.tensorboard=false", "-o", "device=\"cpu\""];

/// One iteration of two games of the tiny config, trained on at once.
const ONE_ITERATION: [&str; 8] = [
    "-o",
    "budget.games=2",
    "-o",
    "iteration.games=2",
    "-o",
    "replay.min_positions=1",
    "-o",
    "selfplay.games_in_parallel=2",
];

/// A budget spent at once: the run publishes its step-0 checkpoint and stops.
const AT_ONCE: [&str; 2] = ["-o", "budget.minutes=0.0001"];

/// `train --config configs/runs/<config> -o run_dir=<dir>` with [`SHORT`] and `extra`.
fn train(config: &str, run_dir: &Path, extra: &[&str]) -> Output {
    let config = format!("configs/runs/{config}");
    let run_dir = format!("run_dir={:?}", run_dir.display().to_string());
    let mut args = vec!["train", "--config", &config, "-o", &run_dir];
    args.extend(SHORT);
    args.extend(extra);
    fairyzero(&args)
}

/// [`train`] stopping at once ([`AT_ONCE`]).
fn train_at_once(config: &str, run_dir: &Path, extra: &[&str]) -> Output {
    let mut all = AT_ONCE.to_vec();
    all.extend(extra);
    train(config, run_dir, &all)
}

/// Every file under `dir`, relative, sorted, with its contents.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                out.push((path.strip_prefix(root).unwrap().to_path_buf(), std::fs::read(&path).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn cuda_devices() -> usize {
    let out = fairyzero(&["info"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.lines()
        .find_map(|l| l.strip_prefix("CUDA devices:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no CUDA device count in `info`:\n{text}"))
}

#[test]
fn a_missing_cuda_device_is_refused_before_anything_is_written() {
    let s = tempfile::tempdir().unwrap();
    let count = cuda_devices();
    // Beyond the last device here (every device on a machine without a GPU).
    let missing = format!("cuda:{}", count.max(3));
    let mut runs: Vec<(Vec<String>, Option<PathBuf>)> = vec![(
        ["bench", "net", "--device", &missing, "--size", "tiny", "--batches", "1"].map(String::from).to_vec(),
        None,
    )];
    let train = |dir: &str, config: &str, device: &str| {
        let run_dir = s.path().join(dir);
        let mut args: Vec<String> = ["train", "--config", config, "-o"].map(String::from).to_vec();
        args.push(format!("run_dir={:?}", run_dir.display().to_string()));
        args.extend(["-o".to_string(), format!("device={device:?}")]);
        (args, Some(run_dir))
    };
    runs.push(train("missing", "configs/runs/tiny.toml", &missing));
    if count == 0 {
        runs.push((
            ["bench", "net", "--device", "cuda", "--size", "tiny", "--batches", "1"].map(String::from).to_vec(),
            None,
        ));
        runs.push(train("cuda", "configs/runs/tiny.toml", "cuda"));
        runs.push(train("gpu-config", "configs/runs/typhoon-gpu.toml", "cuda"));
    }
    let children: Vec<Child> = runs
        .iter()
        .map(|(args, _)| {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            command(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
        })
        .collect();
    for ((args, run_dir), child) in runs.iter().zip(children) {
        let out = child.wait_with_output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(!err.contains("panicked") && err.contains("device cuda:"), "{args:?}: {err}");
        if let Some(dir) = run_dir {
            assert!(!dir.exists(), "{args:?} created {}", dir.display());
        }
    }
}

#[test]
fn a_second_train_on_a_run_directory_is_refused_with_the_holders_pid() {
    let s = tempfile::tempdir().unwrap();
    let run = s.path().join("r");
    let run_dir = format!("run_dir={:?}", run.display().to_string());
    let mut first = command(&[
        "train",
        "--config",
        "configs/runs/tiny.toml",
        "-o",
        &run_dir,
        "-o",
        "budget.minutes=10",
        "-o",
        "eval.every=0",
        "-o",
        "output.tensorboard=false",
    ])
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let pid = first.id().to_string();
    let t0 = Instant::now();
    while std::fs::read_to_string(run.join("lock")).map(|t| t.trim().to_string()).ok().as_deref() != Some(&pid) {
        assert!(t0.elapsed() < Duration::from_secs(60), "the first train never took the lock");
        std::thread::sleep(Duration::from_millis(20));
    }
    let second = train_at_once("tiny.toml", &run, &[]);
    let err = stderr(&second);
    // SIGKILL: the kernel releases the lock, the file stays.
    first.kill().unwrap();
    first.wait().unwrap();
    assert_eq!(second.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("in use by process {pid}")), "{err}");
    let third = train_at_once("tiny.toml", &run, &[]);
    assert!(third.status.success(), "{}", stderr(&third));
}

#[test]
fn an_edited_variant_stops_the_resume_with_a_diff_and_moves_nothing() {
    let s = tempfile::tempdir().unwrap();
    let variant = s.path().join("mine.toml");
    std::fs::write(&variant, "extends = \"antilosalamos\"\n").unwrap();
    let run = s.path().join("r");
    let variant_key = format!("variant={:?}", variant.display().to_string());
    let out = train_at_once("tiny.toml", &run, &["-o", &variant_key]);
    assert!(out.status.success(), "{}", stderr(&out));
    let record = std::fs::read_to_string(run.join("variant.toml")).unwrap();
    let recorded_hash = record.lines().find_map(|l| l.strip_prefix("# rules hash ")).unwrap().to_string();
    let checkpoints = files(&run.join("checkpoints"));
    assert!(!checkpoints.is_empty());

    // The same name, other rules.
    std::fs::write(&variant, "extends = \"antilosalamos\"\nmove_cap = 399\n").unwrap();
    let out = train_at_once("tiny.toml", &run, &["-o", &variant_key]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("+move_cap = 399") && err.contains("-move_cap = "), "no diff in: {err}");
    let hashes: Vec<&str> =
        err.split("rules hash ").skip(1).map(|rest| rest.get(..16).unwrap_or(rest)).collect::<Vec<_>>();
    assert!(hashes.len() >= 2 && hashes[0] == recorded_hash && hashes[1] != recorded_hash, "{err}");
    assert!(err.contains("--transfer"), "{err}");
    assert_eq!(files(&run.join("checkpoints")), checkpoints, "the checkpoints were touched");
    assert!(!run.join("damaged").exists());

    // A run without the record (older runs): the checkpoint's own rules hash stops it, still
    // without calling it damaged.
    std::fs::remove_file(run.join("variant.toml")).unwrap();
    let out = train_at_once("tiny.toml", &run, &["-o", &variant_key]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("nothing was moved") && err.contains("the rules changed"), "{err}");
    assert_eq!(files(&run.join("checkpoints")), checkpoints, "the checkpoints were touched");
    assert!(!run.join("damaged").exists());
}

#[test]
fn a_bit_flip_fails_every_load_and_a_resume_moves_it_aside_with_a_warning() {
    let s = tempfile::tempdir().unwrap();
    let run = s.path().join("r");
    let out = train_at_once("tiny.toml", &run, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let step0 = run.join("checkpoints/step-00000000");
    let weights = step0.join("weights.safetensors");
    let mut bytes = std::fs::read(&weights).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 0x01;
    std::fs::write(&weights, &bytes).unwrap();
    let net = step0.display().to_string();
    let out = fairyzero(&["analyse", "--variant", "antilosalamos", "--nodes", "2", "--net", &net]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("weights.safetensors") && err.contains("checksum failed"), "{err}");

    // A resume moves it aside as damage, at WARN level (shown under -q), names kept.
    std::fs::write(run.join("index.sqlite"), b"garbage, not SQLite").unwrap();
    let run_dir = format!("run_dir={:?}", run.display().to_string());
    // Without --rebuild-index a garbage index is an error that names the flag, before the
    // start records anything.
    let configs = files(&run.join("config"));
    let mut args = vec!["-q", "train", "--config", "configs/runs/tiny.toml", "-o", &run_dir];
    args.extend(SHORT);
    args.extend(AT_ONCE);
    let out = fairyzero(&args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("--rebuild-index"), "{err}");
    assert_eq!(files(&run.join("config")), configs, "a refused start recorded its configuration");
    let mut args = vec!["-q", "train", "--config", "configs/runs/tiny.toml", "--rebuild-index", "-o", &run_dir];
    args.extend(SHORT);
    args.extend(AT_ONCE);
    let out = fairyzero(&args);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("WARN") && err.contains("step-00000000 is damaged") && err.contains("checksum failed"),
        "{err}"
    );
    let damaged: Vec<PathBuf> = std::fs::read_dir(run.join("damaged")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(damaged.len(), 1, "{damaged:?}");
    let moved = damaged[0].join("checkpoints/step-00000000");
    assert_eq!(std::fs::read(moved.join("weights.safetensors")).unwrap(), bytes);
    assert!(moved.join("manifest.json").exists() && moved.join("header.json").exists());
    // A fresh step 0 took its place, and the index was rebuilt from the store.
    assert!(step0.join("manifest.json").exists());
    let index = std::fs::read(run.join("index.sqlite")).unwrap();
    assert!(index.starts_with(b"SQLite format 3"));
}

#[test]
fn transfer_warm_starts_a_typhoon_run_from_a_scirocco_checkpoint() {
    let s = tempfile::tempdir().unwrap();
    let tiny = ["-o", "net.size=\"2x16\""];
    let out = train_at_once("scirocco.toml", &s.path().join("sci"), &tiny);
    assert!(out.status.success(), "{}", stderr(&out));
    let source = s.path().join("sci/checkpoints/step-00000000").display().to_string();
    let typhoon = s.path().join("ty");
    let mut extra = tiny.to_vec();
    extra.extend(["--transfer", &source]);
    let out = train_at_once("typhoon.toml", &typhoon, &extra);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("warm start from") && err.contains("variables copied") && err.contains("piece types matched"),
        "{err}"
    );
    let header = std::fs::read_to_string(typhoon.join("checkpoints/step-00000000/header.json")).unwrap();
    assert!(header.contains("\"typhoon\""), "{header}");
    let metrics = std::fs::read_to_string(typhoon.join("metrics.jsonl")).unwrap();
    let start = metrics.lines().find(|l| l.contains("\"kind\":\"start\"")).unwrap();
    for key in ["pieces_matched", "variables_copied"] {
        let count: String =
            start.split(&format!("\"{key}\":")).nth(1).unwrap_or("").chars().take_while(char::is_ascii_digit).collect();
        assert!(count.parse::<u64>().is_ok_and(|n| n > 0), "{key} in {start}");
    }

    // Only into a new run.
    let out = train_at_once("typhoon.toml", &typhoon, &extra);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("already has checkpoints"), "{err}");
}

#[test]
fn a_checkpoint_published_before_a_kill_gets_its_iteration_line_on_resume() {
    let s = tempfile::tempdir().unwrap();
    let run = s.path().join("r");
    let one_iteration = ONE_ITERATION;
    let out = train("tiny.toml", &run, &one_iteration);
    assert!(out.status.success(), "{}", stderr(&out));
    let metrics = run.join("metrics.jsonl");
    let text = std::fs::read_to_string(&metrics).unwrap();
    // As if killed between the checkpoint and its line.
    let kept: String =
        text.lines().filter(|l| !l.contains("\"kind\":\"iteration\"")).map(|l| format!("{l}\n")).collect();
    assert_ne!(kept, text, "no iteration line in {text}");
    std::fs::write(&metrics, kept).unwrap();
    let out = train("tiny.toml", &run, &one_iteration);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&metrics).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| l.contains("\"kind\":\"iteration\"")).collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert!(lines[0].contains("\"iteration\":1,") && lines[0].contains("\"recovered\":true"), "{}", lines[0]);
    assert!(!lines[0].contains("\"step\":0,"), "{}", lines[0]);
}

#[test]
fn bad_run_configurations_name_the_key_and_write_nothing() {
    let s = tempfile::tempdir().unwrap();
    let config = Path::new(ROOT).join("configs/runs/tiny.toml").display().to_string();
    for (set, key) in [
        ("run_dir=", "run_dir must not be empty"),
        ("train.lr=inf", "train.lr must be a finite number"),
        // Past their maximum these aborted on a failed allocation after the run had started.
        ("selfplay.games_in_parallel=100000000", "`games_in_parallel` must be at most 65536"),
        ("train.batch_size=100000000", "train.batch_size must be at most 16384"),
    ] {
        let out = command(&["train", "--config", &config, "-o", set, "-o", "device=\"cpu\""])
            .current_dir(s.path())
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(key), "{set}: {err}");
    }
    assert_eq!(std::fs::read_dir(s.path()).unwrap().count(), 0, "files were written");
}

#[test]
fn a_random_net_with_the_same_seed_plays_the_same_games() {
    let s = tempfile::tempdir().unwrap();
    let play = |dir: &str| {
        let out_dir = s.path().join(dir);
        let out = fairyzero(&[
            "selfplay",
            "--config",
            "configs/runs/tiny.toml",
            "--variant",
            "antilosalamos",
            "--net",
            "random:tiny",
            "--threads",
            "1",
            "--seed",
            "1",
            "--games",
            "4",
            "--simulations",
            "4",
            "--out",
            &out_dir.display().to_string(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        // File names carry the time and PID; the records must be byte-identical.
        files(&out_dir).into_iter().map(|(_, bytes)| bytes).collect::<Vec<_>>()
    };
    let (first, second) = (play("a"), play("b"));
    assert!(!first.is_empty());
    assert!(first == second, "two runs with --seed 1 wrote different records");
}

#[test]
fn a_run_whose_directory_is_lost_continues_from_a_copy_of_its_checkpoint() {
    let s = tempfile::tempdir().unwrap();
    let run = s.path().join("lost");
    let one_iteration = ONE_ITERATION;
    let out = train("tiny.toml", &run, &one_iteration);
    assert!(out.status.success(), "{}", stderr(&out));
    let last = std::fs::read_dir(run.join("checkpoints"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .max()
        .unwrap();
    assert_ne!(last, "step-00000000", "the run trained no step");
    // The committed copy, then the run directory is gone.
    let kept = s.path().join("kept").join(&last);
    std::fs::create_dir_all(&kept).unwrap();
    for (name, bytes) in files(&run.join("checkpoints").join(&last)) {
        std::fs::write(kept.join(name), bytes).unwrap();
    }
    std::fs::remove_dir_all(&run).unwrap();

    let source = kept.display().to_string();
    let mut extra = one_iteration.to_vec();
    // The games before count towards the budget, as the steps and the wall-clock do.
    assert_eq!(extra[1], "budget.games=2");
    extra[1] = "budget.games=4";
    extra.extend(["--continue-from", &source]);
    let again = s.path().join("again");
    let out = train("tiny.toml", &again, &extra);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("continuing from") && err.contains(&last), "{err}");
    // The copy is the new run's first checkpoint, byte for byte, and training went on past it.
    assert_eq!(files(&again.join("checkpoints").join(&last)), files(&kept));
    let manifest = |name: &str| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(again.join("checkpoints").join(name).join("manifest.json")).unwrap())
            .unwrap()
    };
    let newest = std::fs::read_dir(again.join("checkpoints"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .max()
        .unwrap();
    assert!(newest > last, "{newest} after {last}");
    let (before, after) = (manifest(&last), manifest(&newest));
    assert_eq!(after["state"]["iteration"], before["state"]["iteration"].as_u64().unwrap() + 1, "{after}");
    assert!(after["state"]["elapsed_secs"].as_f64() > before["state"]["elapsed_secs"].as_f64(), "{after}");
    // The games played before the continuation are not in the new store but still count: a
    // model card exported from the new run names all the games its net was trained on.
    let games = |m: &serde_json::Value| m["state"]["games"].as_u64().unwrap();
    assert!(games(&before) > 0 && games(&after) > games(&before), "{before} -> {after}");
    let positions = |m: &serde_json::Value| m["state"]["positions"].as_u64().unwrap();
    assert!(positions(&after) > positions(&before), "{before} -> {after}");
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(again.join("continued.json")).unwrap()).unwrap();
    assert_eq!(record["checkpoint"], last.as_str());
    assert_eq!(record["games"], before["state"]["games"]);
    let metrics = std::fs::read_to_string(again.join("metrics.jsonl")).unwrap();
    let start = metrics.lines().find(|l| l.contains("\"kind\":\"start\"")).unwrap();
    assert!(start.contains("\"continued_from\":") && start.contains("\"resumed_from\":\"step-"), "{start}");

    // Only into a run without checkpoints, and only from a trainer checkpoint.
    let out = train("tiny.toml", &again, &extra);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("without checkpoints"), "{err}");
    std::fs::remove_file(kept.join("manifest.json")).unwrap();
    let out = train("tiny.toml", &s.path().join("third"), &extra);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("manifest.json") && err.contains("--transfer"), "{err}");
    assert!(!s.path().join("third/checkpoints").exists(), "a refused start wrote checkpoints");
}

#[test]
fn the_kept_scirocco_checkpoint_continues_under_the_committed_config() {
    // artifacts/scirocco-run holds the long run's latest checkpoint (artifacts/README.md): it
    // must stay loadable by the committed rules, net size and trainer, or the run cannot go on.
    let kept: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("artifacts/scirocco-run"))
        .expect("artifacts/scirocco-run")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(kept.len(), 1, "keep exactly one checkpoint there: {kept:?}");
    let s = tempfile::tempdir().unwrap();
    let run = s.path().join("continued");
    let source = kept[0].display().to_string();
    // The kept elapsed time already exceeds this budget: the run imports, resumes and stops.
    let out = train("scirocco.toml", &run, &["-o", "budget.minutes=1", "--continue-from", &source]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("continuing from") && err.contains("resuming scirocco"), "{err}");
    let name = kept[0].file_name().unwrap();
    assert_eq!(files(&run.join("checkpoints").join(name)), files(&kept[0]));
}
