//! X0 on a real run (docs/plans/scirocco-learning.md §5.5, result in §5.6): a checkpoint's
//! losses, computed with the training forward (`BatchTensors`, the net, `net::loss`: the
//! learner's code without the update), on
//! - **in window**: the newest games that existed when the checkpoint was saved (its manifest's
//!   `state.games`), as many as fill `replay.window_positions`, as the trainer's window held
//!   them;
//! - **after**: the games played after it, as many positions again;
//! - **before the window**: as many positions again of the games before the window (trained on
//!   by earlier steps, evicted by the checkpoint's).
//!
//! Each set is scored per position (every position once) and weighted as the sampler draws
//! (`min(1, game_weight_cap / game length)` per position), next to the uniform WDL's 1.099.
//! The first `--check` positions of the window also go through the inference service, whose
//! WDL must agree with the training forward's.
//!
//! Read-only on the run directory.
//!
//! ```sh
//! cargo run --release -p fairyzero-trainer --example x0_value_loss -- \
//!     /work/runs/scirocco /work/runs/scirocco/checkpoints/step-00008246 [--check 500]
//! ```

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use anyhow::{bail, Context, Result};
use fairyzero_model::{
    backend::{Backend, EvalOutput, EvalRequest},
    service::ServiceConfig,
    EncodedBatch, StandardEncoding, TrainBatch,
};
use fairyzero_rules::Variant;
use fairyzero_selfplay::record::{read_chunk, GameRecord};
use fairyzero_torch::{
    checkpoint,
    executor::ExecutorOptions,
    net::{loss, move_log_softmax},
    serve,
    training::BatchTensors,
    Device, Net,
};
use fairyzero_trainer::{
    replay::{game_samples, Sample, SampleOptions},
    symmetry::MirrorRules,
};

const BATCH: usize = 256;

struct Args {
    run: PathBuf,
    checkpoint: PathBuf,
    check: usize,
}

fn args() -> Result<Args> {
    let mut it = std::env::args().skip(1);
    let (mut positional, mut check) = (Vec::new(), 500usize);
    while let Some(a) = it.next() {
        if a == "--check" {
            let n = it.next().context("--check needs a number of positions")?;
            check = n.parse().with_context(|| format!("--check {n:?}: not a number"))?;
        } else {
            positional.push(PathBuf::from(a));
        }
    }
    let [run, checkpoint] = <[PathBuf; 2]>::try_from(positional)
        .map_err(|_| anyhow::anyhow!("usage: x0_value_loss <run dir> <checkpoint dir> [--check N]"))?;
    Ok(Args { run, checkpoint, check })
}

/// What one set of positions scored.
#[derive(Default)]
struct Score {
    games: usize,
    positions: usize,
    decisive: usize,
    /// Per position: value cross-entropy, policy cross-entropy (positions with a target), squared
    /// error of `w - l` against the result, sign of `w - l` right (decisive results).
    value: Vec<f64>,
    policy: Vec<Option<f64>>,
    sq_error: Vec<f64>,
    sign_right: Vec<Option<bool>>,
    weight: Vec<f64>,
}

impl Score {
    fn mean(values: impl Iterator<Item = (f64, f64)>) -> f64 {
        let (s, w) = values.fold((0.0, 0.0), |(s, w), (x, y)| (s + x * y, w + y));
        s / w.max(1e-12)
    }

    fn report(&self, name: &str) {
        let uniform = self.value.iter().map(|_| 1.0);
        let weighted = self.weight.iter().copied();
        let zero_mse = self.decisive as f64 / self.positions.max(1) as f64;
        println!("{name}: {} games, {} positions ({} in decisive games)", self.games, self.positions, self.decisive);
        for (label, w) in [("per position", uniform.collect::<Vec<_>>()), ("sampler-weighted", weighted.collect())] {
            let value = Score::mean(self.value.iter().copied().zip(w.iter().copied()));
            let policy = Score::mean(self.policy.iter().zip(&w).filter_map(|(p, &w)| p.map(|p| (p, w))));
            let mse = Score::mean(self.sq_error.iter().copied().zip(w.iter().copied()));
            let sign = Score::mean(
                self.sign_right.iter().zip(&w).filter_map(|(s, &w)| s.map(|s| (f64::from(u8::from(s)), w))),
            );
            println!(
                "  {label:>16}: value CE {value:.4} (uniform 1.0986), policy CE {policy:.4}, MSE(v,z) {mse:.4} \
                 (MSE(0,z) {zero_mse:.4} per position), sign right {sign:.3}"
            );
        }
    }
}

fn score(net: &Net, games: &[GameRecord], variant: &Arc<Variant>, cap: u32) -> Result<Score> {
    let encoding = StandardEncoding::new(Arc::clone(variant));
    let rules = MirrorRules::new(variant);
    let options = SampleOptions { search_value_weight: 0.0, mirror: false };
    let mut all: Vec<(Sample, f64)> = Vec::new();
    let mut s = Score { games: games.len(), ..Score::default() };
    for g in games {
        let samples = game_samples(g, variant, &encoding, &rules, &options).context("replaying a game")?;
        let w = if cap == 0 { 1.0 } else { (f64::from(cap) / samples.len().max(1) as f64).min(1.0) };
        if g.result.winner.is_some() {
            s.decisive += samples.len();
        }
        all.extend(samples.into_iter().map(|x| (x, w)));
    }
    s.positions = all.len();
    for chunk in all.chunks(BATCH) {
        let first = &chunk[0].0.encoded;
        let mut encoded = EncodedBatch::with_capacity(first.width(), first.height(), chunk.len(), 64);
        for (x, _) in chunk {
            encoded.append(&x.encoded);
        }
        let batch = TrainBatch {
            encoded,
            policy: chunk.iter().map(|(x, _)| x.policy.clone()).collect(),
            wdl: chunk.iter().map(|(x, _)| x.wdl).collect(),
            mirrored: vec![false; chunk.len()],
        };
        let tensors = BatchTensors::new(&batch, Device::Cpu);
        let output = net.forward_inference(&tensors.input);
        // The learner's loss on the whole batch, as a check of the per-position figures below.
        let batch_value = f64::try_from(loss(&output, &tensors.input, &tensors.targets, 1.0).value)?;
        let wdl = Vec::<f32>::try_from(output.wdl_logits.softmax(-1, output.wdl_logits.kind()).reshape([-1]))?;
        let logp = Vec::<f32>::try_from(move_log_softmax(
            &output.move_logits,
            &tensors.input.move_batch,
            tensors.input.batch,
        ))?;
        let offsets = batch.encoded.offsets();
        let mut sum = 0.0;
        for (i, (x, w)) in chunk.iter().enumerate() {
            let p = &wdl[3 * i..3 * i + 3];
            let ce = -x.wdl.iter().zip(p).map(|(&t, &q)| f64::from(t) * f64::from(q).ln()).sum::<f64>();
            sum += ce;
            s.value.push(ce);
            s.policy.push((!x.policy.is_empty()).then(|| {
                -x.policy.iter().map(|&(m, t)| f64::from(t) * f64::from(logp[offsets[i] + m as usize])).sum::<f64>()
            }));
            let z = f64::from(x.wdl[0] - x.wdl[2]);
            let v = f64::from(p[0] - p[2]);
            s.sq_error.push((v - z).powi(2));
            s.sign_right.push((z != 0.0).then_some(v * z > 0.0));
            s.weight.push(*w);
        }
        let mean = sum / chunk.len() as f64;
        if (mean - batch_value).abs() > 1e-4 * mean.max(1.0) {
            bail!("the learner's value loss {batch_value} differs from the per-position mean {mean}");
        }
    }
    Ok(s)
}

/// The first `n` positions of `games` through the inference service; the largest difference of
/// a WDL probability from the training forward's.
fn check_inference(net: &Net, copy: Net, games: &[GameRecord], variant: &Arc<Variant>, n: usize) -> Result<f32> {
    let service = serve(copy, ServiceConfig::default(), ExecutorOptions::default());
    let encoding = StandardEncoding::new(Arc::clone(variant));
    let mut worst = 0.0f32;
    let mut done = 0;
    let mut out = EvalOutput::new();
    for g in games {
        if done >= n {
            break;
        }
        let mut failure = None;
        g.replay(variant, |step| {
            if done >= n || failure.is_some() {
                return;
            }
            service.evaluate(&[EvalRequest { position: step.position, moves: step.legal }], &mut out);
            let inference = out.get(0).wdl;
            let batch = encoding.encode_batch([(step.position, step.legal)]);
            let input = fairyzero_torch::NetInput::new(&batch, Device::Cpu);
            let output = net.forward_inference(&input);
            match Vec::<f32>::try_from(output.wdl_logits.softmax(-1, output.wdl_logits.kind()).reshape([-1])) {
                Ok(t) => {
                    for k in 0..3 {
                        worst = worst.max((t[k] - inference[k]).abs());
                    }
                }
                Err(e) => failure = Some(e),
            }
            done += 1;
        })?;
        if let Some(e) = failure {
            return Err(e.into());
        }
    }
    Ok(worst)
}

fn read_games(run: &Path) -> Result<Vec<GameRecord>> {
    let dir = run.join("games");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".games.zst"))
        .collect();
    // The store lists keys sorted; the trainer reads games in that order.
    files.sort();
    let mut games = Vec::new();
    for f in files {
        games.extend(read_chunk(&f).with_context(|| format!("reading {}", f.display()))?);
    }
    Ok(games)
}

fn main() -> Result<()> {
    let args = args()?;
    let config: toml::Value = toml::from_str(&std::fs::read_to_string(args.run.join("config.toml"))?)?;
    let variant_name = config.get("variant").and_then(|v| v.as_str()).context("config.toml: no `variant`")?;
    let replay = config.get("replay").context("config.toml: no [replay]")?;
    let window = replay.get("window_positions").and_then(|v| v.as_integer()).context("replay.window_positions")? as u64;
    let cap = replay.get("game_weight_cap").and_then(|v| v.as_integer()).unwrap_or(0) as u32;
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(args.checkpoint.join("manifest.json"))?)?;
    let existed = manifest["state"]["games"].as_u64().context("manifest.json: no state.games")? as usize;

    let variant = Variant::load(variant_name)?;
    let net = checkpoint::load(&args.checkpoint, Arc::clone(&variant), None, Device::Cpu, false)?.net;
    let games = read_games(&args.run)?;
    if games.len() < existed {
        bail!("{} games in the store, the checkpoint saw {existed}", games.len());
    }
    let mut first = existed;
    let mut need = 0u64;
    while first > 0 && need < window {
        first -= 1;
        need += games[first].moves.len() as u64;
    }
    let mut last = existed;
    let mut after = 0u64;
    while last < games.len() && after < window {
        after += games[last].moves.len() as u64;
        last += 1;
    }
    println!(
        "{}: step {}, {existed} games then; window games {first}..{existed}, after {existed}..{last} of {}",
        args.checkpoint.display(),
        manifest["step"],
        games.len()
    );
    let copy = checkpoint::load(&args.checkpoint, Arc::clone(&variant), None, Device::Cpu, false)?.net;
    let worst = check_inference(&net, copy, &games[first..existed], &variant, args.check)?;
    println!(
        "inference service against the training forward, {} positions: largest WDL difference {worst:.2e}",
        args.check
    );
    // The games just before the window: trained on earlier, evicted by the checkpoint's time.
    let mut before = first;
    let mut evicted = 0u64;
    while before > 0 && evicted < window {
        before -= 1;
        evicted += games[before].moves.len() as u64;
    }
    for (name, set) in [
        ("before the window", &games[before..first]),
        ("in window", &games[first..existed]),
        ("after", &games[existed..last]),
    ] {
        let nets: std::collections::BTreeSet<&str> = set.iter().map(|g| g.net.as_str()).collect();
        println!("{name}: played by {}", nets.into_iter().collect::<Vec<_>>().join(", "));
    }
    if first > before {
        score(&net, &games[before..first], &variant, cap)?.report("before the window");
    }
    score(&net, &games[first..existed], &variant, cap)?.report("in window");
    if last > existed {
        score(&net, &games[existed..last], &variant, cap)?.report("after");
    }
    Ok(())
}
