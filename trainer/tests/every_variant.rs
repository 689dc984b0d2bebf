//! Every built-in variant is trainable by name (issue 21): for each implemented entry of the
//! registry, one self-play game with a real (tiny, untrained) net served as self-play serves it,
//! its positions made into training samples by the trainer's own code, and one optimizer step on
//! them, which must give finite losses and move the weights.
//!
//! The list of variants is the registry itself, so a variant added later is covered without
//! touching this file. Games are capped at a few dozen plies: what is tested is that every
//! position a variant reaches (setup phases, drawn arrays, drops, multi-move turns, ...) goes
//! through encoding, inference, the search, the record, the replay and the loss, not how a game
//! ends (the rules crate's tests do that). Full runs of every variant are a script
//! (`tools/learning-experiments.sh every-variant`), not a test.

use std::{
    sync::{atomic::AtomicBool, Arc},
    time::Instant,
};

use fairyzero_model::{service::ServiceConfig, NetConfig, Precision, StandardEncoding};
use fairyzero_rules::{registry, Variant};
use fairyzero_selfplay::{run_selfplay, RunOptions, SelfPlayConfig};
use fairyzero_torch::{executor::ExecutorOptions, serve, Device, Net};
use fairyzero_trainer::{
    config::TrainConfig,
    learner::Learner,
    replay::{game_samples, ReplayWindow, SampleOptions},
    symmetry::MirrorRules,
};
use rand::SeedableRng;

/// Plies of play per game: enough to leave the opening (castling, drops, a second turn of a
/// multi-move schedule, the first captures), short enough for ~50 variants in well under a minute.
const PLIES: u32 = 24;

/// A copy of `net`'s weights, for the service (which owns its net) and for the comparison.
fn copy(net: &Net) -> Net {
    let mut copy = Net::new(net.config(), Arc::clone(net.variant()), Device::Cpu);
    copy.var_store_mut().copy(net.var_store()).expect("same architecture");
    copy
}

/// The largest absolute change of any weight between two nets of one architecture.
fn largest_change(before: &Net, after: &Net) -> f64 {
    let after_vars = after.var_store().variables();
    before
        .var_store()
        .variables()
        .iter()
        .map(|(name, b)| {
            let a = &after_vars[name];
            (a - b).abs().max().double_value(&[])
        })
        .fold(0.0, f64::max)
}

/// One game and one step of `name`, returning the game's length in plies; panics with the
/// variant's name on any failure.
fn one_game_and_one_step(name: &str, seed: u64) -> usize {
    let variant = Variant::load(name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let net = Net::seeded(&NetConfig::tower(1, 16), Arc::clone(&variant), Device::Cpu, seed);
    let service = serve(copy(&net), ServiceConfig::default(), ExecutorOptions::default());
    let config = SelfPlayConfig {
        simulations: 4,
        games_in_parallel: 1,
        threads: 1,
        move_cap: Some(PLIES),
        ..SelfPlayConfig::default()
    };
    let options = RunOptions { games: 1, seed, net: "tiny".into(), out_dir: None, progress: false };
    let mut games = Vec::new();
    run_selfplay(&variant, &config, &service, &options, &AtomicBool::new(false), |g| games.push(g.clone()))
        .unwrap_or_else(|e| panic!("{name}: self-play: {e}"));
    assert_eq!(games.len(), 1, "{name}: one game");
    let record = &games[0];
    assert!(!record.moves.is_empty(), "{name}: a game without moves: {:?}", record.result);

    let encoding = StandardEncoding::new(Arc::clone(&variant));
    let options = SampleOptions { search_value_weight: 0.0, mirror: true };
    let samples = game_samples(record, &variant, &encoding, &MirrorRules::new(&variant), &options)
        .unwrap_or_else(|e| panic!("{name}: replaying the record: {e}"));
    assert_eq!(samples.len(), record.moves.len(), "{name}: one sample per ply");
    assert!(samples.iter().any(|s| !s.policy.is_empty()), "{name}: no searched ply has a policy target");
    let n = samples.len();
    let mut window = ReplayWindow::new(10_000, 0);
    window.push(samples);
    let batch = window.sampler().batch(n, &mut rand::rngs::StdRng::seed_from_u64(seed));

    let config = TrainConfig { batch_size: n, warmup_steps: 0, ..TrainConfig::default() };
    let mut learner = Learner::new(copy(&net), config);
    let stats = learner.train_step(&batch, Precision::Fp32);
    let losses = &stats.losses;
    for (what, x) in [("policy", losses.policy_loss), ("value", losses.value_loss), ("total", losses.loss)] {
        assert!(x.is_finite(), "{name}: {what} loss {x}");
    }
    assert!(losses.loss > 0.0 && losses.grad_norm > 0.0, "{name}: nothing to learn from: {losses:?}");
    assert_eq!(learner.step(), 1);
    assert!(largest_change(&net, &learner.net) > 0.0, "{name}: the step changed no weight");
    n
}

#[test]
fn every_built_in_variant_plays_a_game_and_takes_an_optimizer_step() {
    let names: Vec<&str> = registry::entries().iter().filter(|e| e.is_implemented()).map(|e| e.name).collect();
    assert!(names.len() >= 45, "the registry lists {} built-ins", names.len());
    let t0 = Instant::now();
    for (k, name) in names.iter().enumerate() {
        let t = Instant::now();
        let plies = one_game_and_one_step(name, 1 + k as u64);
        println!("{name}: {plies} plies, {:.2} s", t.elapsed().as_secs_f64());
    }
    println!("{} variants in {:.1} s", names.len(), t0.elapsed().as_secs_f64());
}
