//! Checkpoint players through the command line's library with the torch runtime: `match`
//! stores the games of a checkpoint named relative to the run, `rank` finds its step; a
//! missing checkpoint is an error naming it. (The lean `fairyzero` has no runtime for them; it
//! hands such commands to `fairyzero-torch`, whose binary is exercised by cli/tests.)

use std::sync::Arc;

use clap::Parser;
use fairyzero_cli::commands::matches::{run_match_command, run_rank_command, MatchArgs, RankArgs};
use fairyzero_evaluator::ResultStore;
use fairyzero_rules::Variant;
use fairyzero_torch_cli::TorchRuntime;

#[derive(clap::Parser)]
struct M {
    #[command(flatten)]
    args: MatchArgs,
}

#[derive(clap::Parser)]
struct R {
    #[command(flatten)]
    args: RankArgs,
}

#[test]
fn match_and_rank_end_to_end_with_a_checkpoint() {
    let dir = std::env::temp_dir().join(format!("fairyzero-cli-match-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("checkpoints")).unwrap();
    // An untrained tiny net saved as a checkpoint at step 7.
    let v = Variant::load("gardner").unwrap();
    let net =
        fairyzero_torch::Net::new(&fairyzero_model::NetConfig::tiny(), Arc::clone(&v), fairyzero_torch::Device::Cpu);
    let ckpt = dir.join("checkpoints/step-7");
    fairyzero_torch::checkpoint::save(&net, &ckpt, 7, None).unwrap();
    let run = dir.to_str().unwrap();
    let ckpt_spec = format!("{}@4", ckpt.display());
    for (a, b, games) in [("greedy", "random", "6"), (ckpt_spec.as_str(), "random", "4"), ("greedy", "greedy", "2")] {
        let m = M::try_parse_from([
            "match",
            a,
            b,
            "--variant",
            "gardner",
            "--games",
            games,
            "--move-cap",
            "20",
            "--run",
            run,
            "--threads",
            "2",
        ])
        .unwrap();
        run_match_command(m.args, &TorchRuntime).unwrap();
    }
    let stored = ResultStore::new(&dir).load().unwrap();
    assert_eq!(stored.records.len(), 12);
    assert!(stored.records.iter().any(|r| r.blue == "checkpoints/step-7@4" && r.blue_step == Some(7)));
    assert!(stored.records.iter().any(|r| r.tan == "greedy#2"));
    let r = R::try_parse_from(["rank", "--run", run, "--bootstrap", "50"]).unwrap();
    run_rank_command(r.args).unwrap();
    let json = std::fs::read_to_string(dir.join("ranking.json")).unwrap();
    assert!(json.contains("\"step\": 7"), "{json}");
    assert!(dir.join("ranking.png").exists() && dir.join("ranking.md").exists());
    // Usage errors.
    let m = M::try_parse_from(["match", "greedy", "/nonexistent/ckpt@8", "--variant", "gardner"]).unwrap();
    let err = format!("{:#}", run_match_command(m.args, &TorchRuntime).unwrap_err());
    assert!(err.contains("no such checkpoint directory"), "{err}");
    // A bad player is refused with the command line, naming the argument.
    let err = M::try_parse_from(["match", "alphabeta", "random", "--variant", "gardner"]).err().unwrap();
    assert_eq!(err.kind(), clap::error::ErrorKind::ValueValidation);
    assert!(err.to_string().contains("<A>") && err.to_string().contains("needs a depth"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
