//! Perft speed of the rules crate alone (no CLI start-up): nodes/s, median of `REPEATS` runs per
//! position, the positions of docs/performance.md's rules table interleaved so that a change of
//! machine load hits each of them alike.
//!
//! Two rates per position: per second of wall time, and per second that the process was on a
//! CPU (Linux's `/proc/self/schedstat`), which a loaded machine disturbs much less as it leaves
//! out the time the process waited for a core.
//!
//! `cargo run -p fairyzero-rules --release --example perft_bench -- [REPEATS] [VARIANT]`
//! (default 5 repeats, every position; a variant name keeps its position only, e.g. to count
//! its instructions under `valgrind --tool=cachegrind`).
use std::time::{Duration, Instant};

use fairyzero_rules::{perft, Position, Variant};

const POSITIONS: &[(&str, u32)] = &[("chess", 5), ("scirocco", 5), ("typhoon", 4)];

/// Time this process has spent on a CPU, if the kernel says.
fn on_cpu() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    let nanos = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

fn median(runs: &mut [f64]) -> f64 {
    runs.sort_by(f64::total_cmp);
    runs[runs.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let repeats: usize = match std::env::args().nth(1) {
        Some(text) => text.parse().map_err(|e| format!("REPEATS {text:?}: {e}"))?,
        None => 5,
    };
    let only = std::env::args().nth(2);
    let positions: Vec<(&str, u32)> =
        POSITIONS.iter().copied().filter(|(name, _)| only.as_deref().is_none_or(|o| o == *name)).collect();
    if positions.is_empty() {
        return Err(format!("VARIANT {only:?} is not one of {POSITIONS:?}").into());
    }
    let variants = positions.iter().map(|&(name, _)| Variant::load(name)).collect::<Result<Vec<_>, _>>()?;
    let mut wall = vec![Vec::with_capacity(repeats); positions.len()];
    let mut cpu = vec![Vec::with_capacity(repeats); positions.len()];
    let mut nodes = vec![0; positions.len()];
    for _ in 0..repeats {
        for (i, (&(_, depth), variant)) in positions.iter().zip(&variants).enumerate() {
            let mut pos = Position::start(variant.clone());
            let (started, cpu_started) = (Instant::now(), on_cpu());
            nodes[i] = perft(&mut pos, depth);
            let elapsed = started.elapsed();
            let cpu_elapsed = cpu_started.zip(on_cpu()).map_or(elapsed, |(a, b)| b - a);
            wall[i].push(nodes[i] as f64 / elapsed.as_secs_f64());
            cpu[i].push(nodes[i] as f64 / cpu_elapsed.as_secs_f64());
        }
    }
    for (i, &(name, depth)) in positions.iter().enumerate() {
        let shown: Vec<String> = cpu[i].iter().map(|r| format!("{:.2}", r / 1e6)).collect();
        println!(
            "{name} depth {depth}: {} nodes, median {:.2} Mnodes/s wall, {:.2} Mnodes/s on-CPU (on-CPU runs {})",
            nodes[i],
            median(&mut wall[i]) / 1e6,
            median(&mut cpu[i].clone()) / 1e6,
            shown.join(" ")
        );
    }
    Ok(())
}
