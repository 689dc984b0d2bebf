//! A run split across processes (docs/distributed.md): one `fairyzero learn` and three
//! `fairyzero worker`s sharing a store, on the tiny configuration, once on an S3-compatible
//! server (moto, on 127.0.0.1) and once on a shared directory (`file://`). Mid-run, one worker
//! and the learner are killed with SIGKILL and started again; the run must complete its budget
//! with every worker's games read once, new checkpoints picked up by the workers, a second
//! learner refused while the first holds the lease, and `rank --store` agreeing with the
//! learner's own ranking.

mod common;

#[path = "../../trainer/tests/support/moto.rs"]
mod moto;

use std::{
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use common::command;
use serde_json::Value;

/// The learner's budget: a few iterations of at most 40 steps, so that checkpoints keep coming.
const STEPS: u64 = 120;
/// Long enough that a learner started right after the kill is refused even on a busy machine
/// (the killed one renewed at most a third of it before).
const LEASE_SECS: u64 = 10;

struct Split {
    store: String,
    env: Vec<(String, String)>,
    dir: PathBuf,
}

impl Split {
    fn spawn(&self, args: &[&str], log: &str) -> Child {
        let mut c: Command = command(args);
        for (k, v) in &self.env {
            c.env(k, v);
        }
        let out = std::fs::File::create(self.dir.join(format!("{log}.out"))).unwrap();
        let err = std::fs::File::create(self.dir.join(format!("{log}.err"))).unwrap();
        c.stdout(Stdio::from(out)).stderr(Stdio::from(err)).spawn().expect("cannot start fairyzero")
    }

    fn learner(&self, log: &str) -> Child {
        let run_dir = self.dir.join("learner");
        self.spawn(
            &[
                "learn",
                "--config",
                "../configs/runs/tiny.toml",
                "--store",
                &self.store,
                "--run-dir",
                run_dir.to_str().unwrap(),
                "--lease-secs",
                &LEASE_SECS.to_string(),
                "--poll-secs",
                "0.5",
                "-o",
                "budget.games=0",
                "-o",
                &format!("budget.steps={STEPS}"),
                "-o",
                "iteration.max_steps=40",
                "-o",
                "eval.games=2",
                "-o",
                "eval.opponents=[\"random\", \"previous\"]",
            ],
            log,
        )
    }

    fn worker(&self, log: &str) -> Child {
        let cache = self.dir.join(format!("cache-{log}"));
        self.spawn(
            &[
                "worker",
                "--store",
                &self.store,
                "--cache",
                cache.to_str().unwrap(),
                "--poll-secs",
                "0.5",
                "-o",
                "selfplay.threads=1",
                "-o",
                "selfplay.games_in_parallel=4",
            ],
            log,
        )
    }

    fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name)).unwrap_or_default()
    }

    /// The learner's metrics lines of one kind.
    fn metrics(&self, kind: &str) -> Vec<Value> {
        self.log("learner/metrics.jsonl")
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v["kind"] == kind)
            .collect()
    }
}

fn wait(child: &mut Child, limit: Duration, what: &str) -> std::process::ExitStatus {
    let t0 = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            panic!("{what} did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The worker id a worker's log announces (`worker <id>: playing …`).
fn worker_id(log: &str) -> Option<String> {
    log.lines()
        .find_map(|l| l.split("worker ").nth(1)?.split(": playing").next().filter(|_| l.contains(": playing")))
        .map(str::to_string)
}

fn split_run(store: String, env: Vec<(String, String)>, dir: &Path) {
    let split = Split { store, env, dir: dir.to_path_buf() };
    let t0 = Instant::now();
    let mut learner = split.learner("learner1");
    let mut workers: Vec<Child> = (1..=3).map(|i| split.worker(&format!("worker{i}"))).collect();

    // Kill the learner and worker 1 once the learner has trained twice (two checkpoints after
    // step 0 for the workers to have picked up).
    while split.metrics("iteration").iter().filter(|v| v["train"]["steps"].as_u64() > Some(0)).count() < 2 {
        assert!(learner.try_wait().unwrap().is_none(), "the learner ended early:\n{}", split.log("learner1.err"));
        assert!(
            t0.elapsed() < Duration::from_secs(90),
            "no second iteration after 90 s:\n{}",
            split.log("learner1.err")
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let before_kill = split.metrics("iteration").last().cloned().unwrap();
    learner.kill().unwrap();
    learner.wait().unwrap();
    workers[0].kill().unwrap();
    workers[0].wait().unwrap();
    workers.push(split.worker("worker4"));

    // The killed learner's lease is still live: a new learner is refused, naming the holder.
    let mut refused = split.learner("learner-refused");
    let status = wait(&mut refused, Duration::from_secs(60), "the refused learner");
    let err = split.log("learner-refused.err");
    assert!(!status.success() && err.contains("another learner holds this store"), "{err}");
    // After the lease's time to live, a learner takes the store over and finishes the run.
    std::thread::sleep(Duration::from_secs(LEASE_SECS + 1));
    let mut learner = split.learner("learner2");
    let status = wait(&mut learner, Duration::from_secs(150), "the restarted learner");
    let learner_err = split.log("learner2.err");
    assert!(status.success(), "the restarted learner failed:\n{learner_err}");
    for (i, w) in workers.iter_mut().enumerate().skip(1) {
        let status = wait(w, Duration::from_secs(30), "a worker after the learner finished");
        let log = format!("worker{}", i + 1);
        assert!(status.success(), "{log} failed:\n{}", split.log(&format!("{log}.err")));
        assert!(split.log(&format!("{log}.out")).contains("stopped: finished"), "{}", split.log(&format!("{log}.out")));
    }

    // A worker started after the end (as a Deployment restarts one) stops at once.
    let mut late = split.worker("worker-late");
    assert!(wait(&mut late, Duration::from_secs(30), "a worker started after the end").success());
    assert!(
        split.log("worker-late.out").contains(": 0 games")
            && split.log("worker-late.out").contains("stopped: finished")
    );

    // The budget is complete.
    let summary: Value = serde_json::from_str(&split.log("learner/summary.json")).unwrap();
    assert!(summary["steps"].as_u64().unwrap() >= STEPS, "{summary}");
    // Nothing read twice; nothing published lost across the kill: the restarted learner's
    // count starts from everything stored (at least what the killed one had read) and grows.
    let iterations = split.metrics("iteration");
    for it in &iterations {
        assert_eq!(it["feed"]["duplicates"].as_u64().unwrap_or(0), 0, "{it}");
    }
    let starts = split.metrics("start");
    let restart = starts.last().unwrap();
    assert!(restart["resumed_from"].is_string(), "{restart}");
    assert!(restart["games"].as_u64() >= before_kill["games"].as_u64(), "{restart} after {before_kill}");
    assert!(summary["games"].as_u64() >= restart["games"].as_u64(), "{summary}");
    // Every worker's games reached the learner (worker 1's before its kill).
    let mut fed: Vec<String> = iterations
        .iter()
        .filter_map(|it| it["feed"]["games_per_worker"].as_object())
        .flat_map(|m| m.keys().cloned())
        .collect();
    fed.sort();
    fed.dedup();
    for i in 1..=4 {
        let id = worker_id(&split.log(&format!("worker{i}.err")))
            .unwrap_or_else(|| panic!("worker{i} never played:\n{}", split.log(&format!("worker{i}.err"))));
        assert!(fed.contains(&id), "no game of worker{i} ({id}) reached the learner: {fed:?}");
    }
    // The workers picked up new checkpoints.
    let swaps: usize =
        (2..=4).map(|i| split.log(&format!("worker{i}.err")).matches(": now playing with step-").count()).sum();
    assert!(swaps >= 2, "the workers did not pick up new checkpoints");

    // `rank` over the store ranks as the learner did.
    let out = split.dir.join("rank");
    let mut rank = command(&["rank", "--store", &split.store, "--out", out.to_str().unwrap(), "--seed", "1"]);
    for (k, v) in &split.env {
        rank.env(k, v);
    }
    let ranked = rank.output().unwrap();
    assert!(ranked.status.success(), "{}", String::from_utf8_lossy(&ranked.stderr));
    let order = |path: &Path| -> Vec<(String, i64)> {
        let r: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        r["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e["player"].as_str().unwrap().to_string(), e["elo"].as_f64().unwrap().round() as i64))
            .collect()
    };
    let learner_order = order(&split.dir.join("learner/ranking.json"));
    assert!(learner_order.len() >= 3, "{learner_order:?}");
    assert_eq!(order(&out.join("ranking.json")), learner_order);
    assert!(t0.elapsed() < Duration::from_secs(180), "the split run took {:?}", t0.elapsed());
}

#[test]
fn a_split_run_on_s3_survives_kills_of_a_worker_and_the_learner() {
    let Some(server) = moto::MotoServer::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    split_run(server.url("run"), server.env(), dir.path());
}

#[test]
fn a_split_run_on_a_shared_directory_survives_kills_of_a_worker_and_the_learner() {
    let dir = tempfile::tempdir().unwrap();
    let store = format!("file://{}", dir.path().join("shared-store").display());
    split_run(store, Vec::new(), dir.path());
}

/// A worker checks every checkpoint's files against its manifest before playing with it: a
/// damaged newest checkpoint (same size, one byte changed) is refused, and the worker plays with
/// the newest one that checks out.
#[test]
fn a_worker_refuses_a_checkpoint_that_fails_its_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let trained = common::fairyzero(&[
        "train",
        "--config",
        "../configs/runs/tiny.toml",
        "-o",
        &format!("run_dir=\"{}\"", run.display()),
        "-o",
        "budget.games=16",
        "-o",
        "eval.every=0",
        "-o",
        "eval.final.games=0",
    ]);
    assert!(trained.status.success(), "{}", common::stderr(&trained));
    let mut checkpoints: Vec<String> = std::fs::read_dir(run.join("checkpoints"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    checkpoints.sort();
    assert_eq!(checkpoints.len(), 2, "{checkpoints:?}");
    let weights = run.join("checkpoints").join(&checkpoints[1]).join("weights.safetensors");
    let mut bytes = std::fs::read(&weights).unwrap();
    let middle = bytes.len() - 16;
    bytes[middle] ^= 0x40;
    std::fs::write(&weights, bytes).unwrap();

    let store = format!("file://{}", run.display());
    let cache = dir.path().join("cache");
    let out = common::fairyzero(&[
        "worker",
        "--store",
        &store,
        "--cache",
        cache.to_str().unwrap(),
        "--games",
        "2",
        "-o",
        "selfplay.threads=1",
        "-o",
        "selfplay.games_in_parallel=2",
    ]);
    let (stdout, stderr) = (common::stdout(&out), common::stderr(&out));
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("checkpoint {} is damaged", checkpoints[1])) && stderr.contains("SHA-256"),
        "{stderr}"
    );
    assert!(stdout.contains("2 games") && stdout.contains(&format!("with {};", checkpoints[0])), "{stdout}");
}

/// Fencing: a learner that finds a newer lease epoch in the store (another learner took the store
/// over while this one stalled) stops before publishing another checkpoint.
#[test]
fn a_learner_that_lost_its_lease_stops_publishing() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("shared-store");
    let split =
        Split { store: format!("file://{}", store_dir.display()), env: Vec::new(), dir: dir.path().to_path_buf() };
    let mut learner = split.learner("learner");
    let mut worker = split.worker("worker1");
    let t0 = Instant::now();
    while split.metrics("iteration").is_empty() {
        assert!(learner.try_wait().unwrap().is_none(), "the learner ended early:\n{}", split.log("learner.err"));
        assert!(t0.elapsed() < Duration::from_secs(90), "no iteration after 90 s:\n{}", split.log("learner.err"));
        std::thread::sleep(Duration::from_millis(200));
    }
    // Another learner's epoch, as its takeover would write it.
    let epoch = store_dir.join("lease/0000000099");
    std::fs::create_dir_all(&epoch).unwrap();
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis();
    let beat = format!(
        r#"{{"holder":"intruder","host":"elsewhere","pid":1,"epoch":99,"beat":0,"renewed_unix_ms":{now_ms},"ttl_secs":600.0,"released":false}}"#
    );
    std::fs::write(epoch.join("0000000000.json"), beat).unwrap();
    let status = wait(&mut learner, Duration::from_secs(90), "the fenced learner");
    let err = split.log("learner.err");
    assert!(!status.success() && err.contains("lost the store's lease"), "{err}");
    let _ = worker.kill();
    let _ = worker.wait();
}
