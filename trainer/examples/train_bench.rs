//! Training-step throughput on self-play-like positions, to size runs:
//! `cargo run --release -p fairyzero-trainer --example train_bench -- VARIANT SIZE BATCH THREADS STEPS`
//! (defaults: antilosalamos tiny 256 2 20). Prints forward, forward+backward and full-step times.

use std::{sync::Arc, time::Instant};

use fairyzero_model::{StandardEncoding, TrainBatch};
use fairyzero_rules::{MoveList, Position, Variant};
use fairyzero_torch::{
    training::{backward, BatchTensors},
    Device, Net,
};
use fairyzero_trainer::{config::TrainConfig, learner::Learner};
use rand::{seq::SliceRandom, SeedableRng};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, d: &str| args.get(i).cloned().unwrap_or_else(|| d.to_string());
    let v = Variant::load(&arg(0, "antilosalamos")).unwrap();
    let size = fairyzero_model::NetConfig::parse(&arg(1, "tiny")).unwrap();
    let batch: usize = arg(2, "256").parse().unwrap();
    let threads: usize = arg(3, "2").parse().unwrap();
    let steps: usize = arg(4, "20").parse().unwrap();
    fairyzero_torch::set_threads(threads);
    // Positions from random play.
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let mut positions = Vec::new();
    while positions.len() < batch {
        let mut pos = Position::start(Arc::clone(&v));
        let mut legal = MoveList::new();
        for _ in 0..60 {
            pos.legal_moves(&mut legal);
            if legal.is_empty() || pos.outcome_with(&legal).is_some() {
                break;
            }
            positions.push((pos.clone(), legal.clone()));
            pos.make(*legal.choose(&mut rng).unwrap());
        }
    }
    positions.truncate(batch);
    let enc = StandardEncoding::new(Arc::clone(&v));
    let encoded = enc.encode_batch(positions.iter().map(|(p, l)| (p, l.as_slice())));
    let policy: Vec<Vec<(u32, f32)>> =
        positions.iter().map(|(_, l)| vec![(0, 0.5), ((l.len() - 1) as u32, 0.5)]).collect();
    let wdl = vec![[1.0, 0.0, 0.0]; batch];
    let moves = encoded.moves().len();
    fairyzero_torch::manual_seed(0);
    let net = Net::new(&size, Arc::clone(&v), Device::Cpu);
    let time = |name: &str, f: &mut dyn FnMut()| {
        f();
        let t = Instant::now();
        for _ in 0..steps {
            f();
        }
        let ms = t.elapsed().as_secs_f64() * 1000.0 / steps as f64;
        println!("{name:<22} {ms:8.1} ms  ({:.0} positions/s)", batch as f64 / ms * 1000.0);
    };
    println!("{} {size} batch {batch} ({moves} moves) threads {threads}", v.name);
    // Mirroring is the sampler's work now (before tensors exist), so no position is mirrored.
    let tb = TrainBatch { encoded, policy, wdl, mirrored: vec![false; batch] };
    time("input", &mut || {
        let _ = BatchTensors::new(&tb, Device::Cpu);
    });
    let tensors = BatchTensors::new(&tb, Device::Cpu);
    time("forward (no grad)", &mut || {
        let _ = net.forward_inference(&tensors.input);
    });
    time("forward+loss+backward", &mut || {
        backward(&net, &tensors, 1.0);
    });
    let mut learner = Learner::new(net, TrainConfig::default());
    time("learner step", &mut || {
        learner.train_step(&tb, fairyzero_model::Precision::Fp32);
    });
}
