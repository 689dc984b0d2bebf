//! `fairyzero bench net` (arguments in cli/src/commands/bench.rs): network forward speed at
//! several batch sizes, and what encoding the batch costs next to it.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use anyhow::Context;
use fairyzero_cli::commands::bench::NetBenchArgs;
use fairyzero_model::{EncodedBatch, NetConfig, StandardEncoding};
use fairyzero_rules::{Move, MoveList, Position, Variant};
use fairyzero_torch::Net;

/// splitmix64, so that the benchmark's positions do not depend on a RNG crate's versions.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// Positions from seeded random games (up to 80 plies each), with their legal moves.
fn random_positions(variant: &Arc<Variant>, count: usize) -> Vec<(Position, Vec<Move>)> {
    let mut rng = Rng(0xbe4c);
    let mut out = Vec::with_capacity(count);
    let mut moves = MoveList::new();
    while out.len() < count {
        let mut pos = Position::start(Arc::clone(variant));
        for _ in 0..80 {
            pos.legal_moves(&mut moves);
            if moves.is_empty() || out.len() == count {
                break;
            }
            out.push((pos.clone(), moves.clone()));
            pos.make(moves[rng.below(moves.len())]);
        }
    }
    out
}

/// CPU time (user + system) of the whole process so far, from `/proc/self/stat` (Linux; `None`
/// elsewhere). Positions per CPU second do not depend on how busy the machine is.
fn process_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // USER_HZ is 100 on every Linux configuration we run on.
    Some(Duration::from_millis(ticks * 10))
}

pub fn bench_net(args: NetBenchArgs) -> anyhow::Result<()> {
    if let Some(n) = args.threads {
        fairyzero_torch::set_threads(n);
    }
    let variant = Variant::load(&args.variant).with_context(|| format!("cannot load variant {:?}", args.variant))?;
    let config = NetConfig::parse(&args.size)?;
    let device = fairyzero_trainer::config::parse_device(&args.device).map_err(|e| anyhow::anyhow!("--device: {e}"))?;
    // Before the first tensor: libtorch panics on a device it cannot use.
    fairyzero_torch::require_device(device).context("--device")?;

    let net = Net::new(&config, Arc::clone(&variant), device);
    let encoding = StandardEncoding::new(Arc::clone(&variant));
    let pool = random_positions(&variant, args.positions);
    let mean_moves = pool.iter().map(|(_, m)| m.len()).sum::<usize>() as f64 / pool.len() as f64;
    let info = fairyzero_torch::runtime_info();
    println!(
        "# bench net: {} {}x{} ({} piece types, {mean_moves:.1} legal moves per position), {} {config} ({} parameters), {device:?}, {} intra-op threads, libtorch {}",
        variant.name,
        variant.dims.width,
        variant.dims.height,
        variant.piece_count(),
        args.size,
        net.parameter_count(),
        info.intra_op_threads,
        info.torch_version
    );
    println!();
    println!("| batch | forward ms | positions/s | positions/CPU-s | encode ms | encode / forward |");
    println!("|------:|-----------:|------------:|----------------:|----------:|-----------------:|");

    let mut next = 0usize;
    let mut take = |n: usize| -> Vec<&(Position, Vec<Move>)> {
        (0..n)
            .map(|_| {
                next = (next + 1) % pool.len();
                &pool[next]
            })
            .collect()
    };
    let encode = |chosen: &[&(Position, Vec<Move>)]| -> EncodedBatch {
        encoding.encode_batch(chosen.iter().map(|(p, m)| (p, m.as_slice())))
    };
    for &b in &args.batches {
        // Warm-up: allocator, MKL-DNN kernel selection, CUDA context.
        for _ in 0..2 {
            let _ = net.evaluate_batch(&encode(&take(b)));
        }
        let (mut encode_time, mut forward_time, mut runs) = (Duration::ZERO, Duration::ZERO, 0u32);
        let budget = Duration::from_secs_f64(args.seconds);
        let cpu_start = process_cpu_time();
        while runs < 3 || forward_time + encode_time < budget {
            let chosen = take(b);
            let t0 = Instant::now();
            let batch = encode(&chosen);
            let t1 = Instant::now();
            let (policies, _) = net.evaluate_batch(&batch);
            let t2 = Instant::now();
            assert_eq!(policies.len(), b);
            encode_time += t1 - t0;
            forward_time += t2 - t1;
            runs += 1;
        }
        let cpu = match (cpu_start, process_cpu_time()) {
            (Some(t0), Some(t1)) if t1 > t0 => format!("{:.0}", (b as f64 * runs as f64) / (t1 - t0).as_secs_f64()),
            _ => "-".into(),
        };
        let forward_ms = forward_time.as_secs_f64() * 1e3 / runs as f64;
        let encode_ms = encode_time.as_secs_f64() * 1e3 / runs as f64;
        println!(
            "| {b} | {forward_ms:.2} | {:.0} | {cpu} | {encode_ms:.3} | {:.1}% |",
            b as f64 / (forward_ms / 1e3),
            100.0 * encode_ms / forward_ms
        );
    }
    Ok(())
}
