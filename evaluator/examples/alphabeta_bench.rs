//! Alpha-beta baseline speed: nodes per second from each variant's start position (after a
//! seeded random setup for setup-phase variants).
//!
//! ```sh
//! cargo run --release -p fairyzero-evaluator --example alphabeta_bench [-- NODES [VARIANT...]]
//! ```

use std::sync::Arc;

use fairyzero_evaluator::{generate_openings, AlphaBeta, AlphaBetaConfig};
use fairyzero_rules::Variant;

fn main() {
    let mut args = std::env::args().skip(1);
    let nodes: u64 = args.next().map(|a| a.parse().expect("NODES is a number")).unwrap_or(200_000);
    let mut names: Vec<String> = args.collect();
    if names.is_empty() {
        names =
            ["gardner", "losalamos", "chess", "shatranj", "capablanca", "grand", "antichess", "scirocco", "typhoon"]
                .iter()
                .map(|s| s.to_string())
                .collect();
    }
    println!("| variant | position | nodes | depth | seconds | nodes/s |");
    println!("|---|---|---:|---:|---:|---:|");
    for name in names {
        let v = Variant::load(&name).expect("variant");
        let openings = generate_openings(&v, 3, 0, 1);
        let (mut total_nodes, mut total_secs, mut depths) = (0u64, 0f64, Vec::new());
        for o in &openings {
            let mut pos = o.position(&v);
            let mut engine = AlphaBeta::new(
                &v,
                AlphaBetaConfig { nodes: Some(nodes), tt_bits: Some(20), ..AlphaBetaConfig::default() },
            );
            let r = engine.search(&mut pos);
            total_nodes += r.nodes;
            total_secs += r.seconds;
            depths.push(r.depth.to_string());
        }
        let what = if v.has_setup_phase() { "3 sampled setups" } else { "start" };
        println!(
            "| {name} | {what} | {total_nodes} | {} | {total_secs:.2} | {:.0} |",
            depths.join("/"),
            total_nodes as f64 / total_secs.max(1e-9)
        );
        let _ = Arc::clone(&v);
    }
}
