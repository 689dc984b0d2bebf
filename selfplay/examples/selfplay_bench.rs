//! Self-play throughput with the mock backend (no libtorch): search and rules cost alone.
//!
//!     cargo run --release -p fairyzero-selfplay --example selfplay_bench -- scirocco gumbel 32 64 2 32
//!
//! Arguments: variant, search (puct|gumbel), simulations, games in parallel, threads, games.

use std::sync::atomic::AtomicBool;

use fairyzero_model::backend::MockBackend;
use fairyzero_rules::Variant;
use fairyzero_selfplay::{config::SearchKind, run_selfplay, RunOptions, SelfPlayConfig};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.to_string());
    let variant = Variant::load(&arg(0, "scirocco")).expect("variant");
    let search = match arg(1, "gumbel").as_str() {
        "puct" => SearchKind::Puct,
        _ => SearchKind::Gumbel,
    };
    let config = SelfPlayConfig {
        search,
        simulations: arg(2, "32").parse().unwrap(),
        games_in_parallel: arg(3, "64").parse().unwrap(),
        threads: arg(4, "2").parse().unwrap(),
        ..SelfPlayConfig::default()
    };
    let options =
        RunOptions { games: arg(5, "32").parse().unwrap(), seed: 1, net: "mock".into(), out_dir: None, progress: true };
    let summary = run_selfplay(&variant, &config, &MockBackend::material(), &options, &AtomicBool::new(false), |_| {})
        .expect("self-play");
    println!("{summary}");
}
