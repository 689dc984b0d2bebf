//! Self-play throughput with the mock backend (no libtorch): search and rules cost alone.
//!
//!     cargo run --release -p fairyzero-selfplay --example selfplay_bench -- scirocco gumbel 32 64 2 32
//!
//! Arguments: variant, search (puct|gumbel), simulations, games in parallel, threads, games,
//! evaluator (`blocking`: the material mock called directly, the default; `service`: the
//! uniform mock behind an inference service, encoding every leaf, with the default
//! `[selfplay.batching]`).

use std::sync::{atomic::AtomicBool, Arc};

use fairyzero_model::{
    backend::MockBackend,
    encoding::StandardEncoding,
    service::{InferenceService, UniformExecutor},
};
use fairyzero_rules::Variant;
use fairyzero_selfplay::{config::SearchKind, run_selfplay_with, Evaluator, RunOptions, SelfPlayConfig};

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
    let stop = AtomicBool::new(false);
    let summary = match arg(6, "blocking").as_str() {
        "service" => {
            // The CPU's cap: `max_batch` is 0 (chosen per device) in the default configuration.
            let service_config = config.service_config();
            let service = InferenceService::start(
                Box::new(UniformExecutor::new(service_config.max_batch)),
                Arc::new(StandardEncoding::new(Arc::clone(&variant))),
                service_config,
            );
            run_selfplay_with(&variant, &config, Evaluator::Service(&service), &options, &[&stop], |_| {})
        }
        _ => run_selfplay_with(
            &variant,
            &config,
            Evaluator::Blocking(&MockBackend::material()),
            &options,
            &[&stop],
            |_| {},
        ),
    }
    .expect("self-play");
    println!("{summary}");
}
