//! Prints every piece type's nominal value and mobility estimate (the evaluator's
//! `fairyzero_evaluator::values` explains the estimate): a designer's first guess, before any game.
//!
//! ```sh
//! cargo run --release -p fairyzero-designer --example piece_values -- chess gardner
//! ```

use fairyzero_evaluator::{values::mobility, PieceValues, ValueSource};
use fairyzero_rules::Variant;

fn main() {
    for name in std::env::args().skip(1) {
        let v = Variant::load(&name).expect("variant");
        let m = mobility(&v);
        let mob = PieceValues::new(&v, ValueSource::Mobility);
        println!("{name}: piece  nominal  mobility-m  mobility-value");
        for (t, p) in v.pieces.iter().enumerate() {
            let nominal = p.value.map_or("-".to_string(), |x| format!("{x:.2}"));
            println!(
                "  {:<8} {:>7} {:>10.2} {:>14.2}{}",
                p.token,
                nominal,
                m[t],
                mob.values[t],
                if p.royal { " (royal)" } else { "" }
            );
        }
    }
}
