//! Quick perft driver for development: `cargo run -p fairyzero-rules --release --example perft -- chess 5 [fen]`.
use fairyzero_rules::{perft, Position, Variant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let v = Variant::load(&args[1]).unwrap_or_else(|e| panic!("{e}"));
    let depth: u32 = args[2].parse().unwrap();
    let mut pos = match args.get(3) {
        Some(fen) => Position::from_fen(v, fen).unwrap_or_else(|e| panic!("{e}")),
        None => Position::start(v),
    };
    let t = std::time::Instant::now();
    let n = perft(&mut pos, depth);
    let s = t.elapsed().as_secs_f64();
    println!("nodes {n} time {s:.3}s nps {:.0}", n as f64 / s);
}
