//! `fairyzero bench net` (arguments in cli/src/commands/bench.rs): network forward speed at
//! several batch sizes, and what encoding the batch costs next to it. `--breakdown` times the
//! forward's parts apart (host packing, copies to the device, trunk, heads, the device softmax
//! with the copy back), synchronising a CUDA device after each, so that the gap to a plain
//! trunk can be attributed; `--precision-check` compares bf16 with fp32 on one batch. The
//! parts are the executor's own code (`HostTensors`, `DeviceStaging`, `device_probabilities`),
//! so the figures are what an inference service's forward costs.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use anyhow::Context;
use fairyzero_cli::commands::bench::NetBenchArgs;
use fairyzero_model::{EncodedBatch, NetConfig, Precision, StandardEncoding};
use fairyzero_rules::{Move, MoveList, Position, Variant};
use fairyzero_torch::{
    executor::{device_probabilities, DeviceStaging},
    net::probabilities,
    Device, HostTensors, Net,
};

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

/// The parts of one evaluation, in the order they run.
const PARTS: [&str; 5] = ["host pack", "to device", "trunk", "heads", "softmax + to host"];

/// Waits for the device's queued work (CUDA kernels run asynchronously); nothing on a CPU.
fn synchronize(device: Device) {
    if let Device::Cuda(index) = device {
        tch::Cuda::synchronize(index as i64);
    }
}

/// The executor's reusable buffers: what `TorchExecutor::run` packs into and copies through.
struct Buffers {
    packed: HostTensors,
    staging: DeviceStaging,
    host: Vec<f32>,
}

impl Buffers {
    fn new(device: Device) -> Buffers {
        Buffers { packed: HostTensors::new(), staging: DeviceStaging::new(device), host: Vec::new() }
    }
}

/// One evaluation of `batch` as the executor runs it (`TorchExecutor::run`: pack into reused
/// buffers, copy up through page-locked staging on CUDA, forward, softmax on the device, one
/// copy back), returning the time of each part. With `sync`, the device is synchronised after
/// each part so that the parts' times are the device's, not the launches'.
fn evaluate_parts(
    net: &Net,
    buffers: &mut Buffers,
    batch: &EncodedBatch,
    precision: Precision,
    sync: bool,
) -> [Duration; 5] {
    let device = net.device();
    let mut times = [Duration::ZERO; 5];
    tch::no_grad(|| {
        let mut mark = Instant::now();
        let mut lap = |times: &mut [Duration; 5], i: usize| {
            if sync {
                synchronize(device);
            }
            let now = Instant::now();
            times[i] = now - mark;
            mark = now;
        };
        buffers.packed.pack(&[batch]);
        lap(&mut times, 0);
        let input = buffers.staging.upload(&buffers.packed);
        lap(&mut times, 1);
        let trunk = net.trunk_with(&input, precision);
        lap(&mut times, 2);
        let output = net.heads_with(&trunk, &input, precision);
        lap(&mut times, 3);
        let probabilities = device_probabilities(&output, &input);
        buffers.staging.download(&probabilities, &mut buffers.host);
        assert_eq!(buffers.host.len(), batch.moves().len() + 3 * batch.len());
        lap(&mut times, 4);
    });
    times
}

/// bf16 against fp32 on one batch: max and mean |Δp| over the legal moves, max |Δ(win - loss)|,
/// and the mean and max KL(fp32 || bf16) of the policies.
fn precision_check(net: &Net, batch: &EncodedBatch) {
    let run = |precision| {
        tch::no_grad(|| {
            let input = fairyzero_torch::NetInput::new(batch, net.device());
            probabilities(&net.forward_with(&input, precision), &input.offsets)
        })
    };
    let ((p32, w32), (p16, w16)) = (run(Precision::Fp32), run(Precision::Bf16));
    let (mut dp_max, mut dp_sum, mut moves, mut kl_sum, mut kl_max) = (0f64, 0f64, 0usize, 0f64, 0f64);
    for (a, b) in p32.iter().zip(&p16) {
        let mut kl = 0f64;
        for (&x, &y) in a.iter().zip(b) {
            let d = (x as f64 - y as f64).abs();
            dp_max = dp_max.max(d);
            dp_sum += d;
            moves += 1;
            if x > 0.0 {
                kl += x as f64 * ((x as f64).ln() - (y.max(1e-30) as f64).ln());
            }
        }
        kl_sum += kl;
        kl_max = kl_max.max(kl);
    }
    let dv = w32.iter().zip(&w16).map(|(a, b)| ((a[0] - a[2]) - (b[0] - b[2])).abs() as f64).fold(0f64, f64::max);
    println!();
    println!(
        "| precision check (batch {}) | max abs Δp | mean abs Δp | max abs Δvalue | mean KL | max KL |",
        batch.len()
    );
    println!("|---|---:|---:|---:|---:|---:|");
    println!(
        "| bf16 vs fp32 | {dp_max:.5} | {:.2e} | {dv:.5} | {:.2e} | {kl_max:.2e} |",
        dp_sum / moves.max(1) as f64,
        kl_sum / p32.len().max(1) as f64
    );
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

    if args.cudnn_benchmark {
        tch::Cuda::cudnn_set_benchmark(true);
    }
    let precision = fairyzero_torch::resolve_precision(args.precision, device);

    let mut net = Net::new(&config, Arc::clone(&variant), device);
    if args.channels_last {
        net.set_channels_last();
    }
    let net = net;
    let encoding = StandardEncoding::new(Arc::clone(&variant));
    let pool = random_positions(&variant, args.positions);
    let mean_moves = pool.iter().map(|(_, m)| m.len()).sum::<usize>() as f64 / pool.len() as f64;
    let info = fairyzero_torch::runtime_info();
    println!(
        "# bench net: {} {}x{} ({} piece types, {mean_moves:.1} legal moves per position), {} {config} ({} parameters), {device:?}, {precision}{}, {} intra-op threads, libtorch {}",
        variant.name,
        variant.dims.width,
        variant.dims.height,
        variant.piece_count(),
        args.size,
        net.parameter_count(),
        match (args.cudnn_benchmark, args.channels_last) {
            (false, false) => "",
            (true, false) => ", cuDNN benchmark",
            (false, true) => ", channels-last",
            (true, true) => ", cuDNN benchmark, channels-last",
        },
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
    let mut breakdown_rows = Vec::new();
    let mut buffers = Buffers::new(device);
    for &b in &args.batches {
        // Warm-up: allocator, MKL-DNN kernel selection, CUDA context, cuDNN autotuning.
        for _ in 0..2 {
            let _ = evaluate_parts(&net, &mut buffers, &encode(&take(b)), precision, false);
        }
        let (mut encode_time, mut forward_time, mut runs) = (Duration::ZERO, Duration::ZERO, 0u32);
        let budget = Duration::from_secs_f64(args.seconds);
        let cpu_start = process_cpu_time();
        while runs < 3 || forward_time + encode_time < budget {
            let chosen = take(b);
            let t0 = Instant::now();
            let batch = encode(&chosen);
            let t1 = Instant::now();
            // Without --breakdown nothing waits between the parts: the forward as search sees it.
            let _ = evaluate_parts(&net, &mut buffers, &batch, precision, false);
            let t2 = Instant::now();
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
        if args.breakdown {
            // A second, synchronised pass over as many batches, timed part by part.
            let mut parts = [Duration::ZERO; 5];
            let mut encode_part = Duration::ZERO;
            for _ in 0..runs {
                let chosen = take(b);
                let t0 = Instant::now();
                let batch = encode(&chosen);
                encode_part += t0.elapsed();
                for (sum, t) in parts.iter_mut().zip(evaluate_parts(&net, &mut buffers, &batch, precision, true)) {
                    *sum += t;
                }
            }
            let ms = |d: Duration| d.as_secs_f64() * 1e3 / runs as f64;
            breakdown_rows.push((b, ms(encode_part), parts.map(ms), buffers.packed.bytes()));
        }
    }
    if args.breakdown {
        println!();
        println!(
            "Breakdown (device synchronised after each part; ms per batch; {}):",
            match (device.is_cuda(), buffers.staging.is_pinned()) {
                (false, _) => "the CPU reads the packed buffers in place",
                (true, true) => "inputs copied up from page-locked memory without blocking",
                (true, false) => "inputs copied up from pageable memory: pinning failed",
            }
        );
        println!();
        println!("| batch | encode | {} | total | host share | KiB up |", PARTS.join(" | "));
        println!("|------:|{}", "------:|".repeat(PARTS.len() + 4));
        for (b, encode_ms, parts, bytes) in &breakdown_rows {
            let total: f64 = parts.iter().sum();
            // Host work inside the forward: packing the columns and the copies both ways.
            let host = parts[0] + parts[1] + parts[4];
            let cells: Vec<String> = parts.iter().map(|t| format!("{t:.3}")).collect();
            println!(
                "| {b} | {encode_ms:.3} | {} | {total:.3} | {:.1}% | {:.0} |",
                cells.join(" | "),
                100.0 * host / total.max(1e-9),
                *bytes as f64 / 1024.0
            );
        }
    }
    if args.precision_check {
        let b = args.batches.first().copied().unwrap_or(256);
        // A fixed batch: the first positions of the pool.
        let chosen: Vec<&(Position, Vec<Move>)> = pool.iter().cycle().take(b).collect();
        precision_check(&net, &encode(&chosen));
    }
    Ok(())
}
