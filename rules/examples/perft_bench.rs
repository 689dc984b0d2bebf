//! Perft speed of the rules crate alone (no CLI start-up): nodes/s, median of `REPEATS` runs per
//! position, the positions of docs/performance.md's rules table interleaved so that a change of
//! machine load hits each of them alike.
//!
//! `cargo run -p fairyzero-rules --release --example perft_bench -- [REPEATS]` (default 5).
use fairyzero_rules::{perft, Position, Variant};

const POSITIONS: &[(&str, u32)] = &[("chess", 5), ("scirocco", 5), ("typhoon", 4)];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let repeats: usize = match std::env::args().nth(1) {
        Some(text) => text.parse().map_err(|e| format!("REPEATS {text:?}: {e}"))?,
        None => 5,
    };
    let variants = POSITIONS.iter().map(|&(name, _)| Variant::load(name)).collect::<Result<Vec<_>, _>>()?;
    let mut rates = vec![Vec::with_capacity(repeats); POSITIONS.len()];
    let mut nodes = vec![0; POSITIONS.len()];
    for _ in 0..repeats {
        for (i, (&(_, depth), variant)) in POSITIONS.iter().zip(&variants).enumerate() {
            let mut pos = Position::start(variant.clone());
            let started = std::time::Instant::now();
            nodes[i] = perft(&mut pos, depth);
            rates[i].push(nodes[i] as f64 / started.elapsed().as_secs_f64());
        }
    }
    for (i, &(name, depth)) in POSITIONS.iter().enumerate() {
        let runs = &mut rates[i];
        runs.sort_by(f64::total_cmp);
        let shown: Vec<String> = runs.iter().map(|r| format!("{:.2}", r / 1e6)).collect();
        println!(
            "{name} depth {depth}: {} nodes, median {:.2} Mnodes/s (runs {})",
            nodes[i],
            runs[runs.len() / 2] / 1e6,
            shown.join(" ")
        );
    }
    Ok(())
}
