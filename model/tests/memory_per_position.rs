//! What one encoded position costs on an 18x18 board with ~95 piece types (Chushin Shogi's
//! size), as the replay window stores it: one `EncodedBatch` per position (piece ids, planes,
//! global features, offsets, one `MoveFeatures` per legal move) plus its sparse policy target.
//! docs/network.md quotes the figures this prints:
//!
//! `cargo test -p fairyzero-model --test memory_per_position -- --nocapture`

mod common;

use std::{mem::size_of, sync::Arc};

use fairyzero_model::{
    encoding::{global, plane, MoveFeatures},
    StandardEncoding,
};
use fairyzero_rules::Variant;

/// Bytes of the encoded position's arrays: what its `EncodedBatch` allocates when it holds that
/// one position (every array is sized exactly by `push`).
fn encoded_bytes(squares: usize, moves: usize) -> usize {
    squares * size_of::<i64>()
        + plane::COUNT * squares * size_of::<f32>()
        + global::COUNT * size_of::<f32>()
        + 2 * size_of::<usize>()
        + moves * size_of::<MoveFeatures>()
}

fn percentile(sorted: &[usize], p: f64) -> usize {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn report(name: &str) {
    let v = Variant::load(name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let enc = StandardEncoding::new(Arc::clone(&v));
    let squares = v.dims.squares();
    let positions = common::random_positions(&v, 6, 300, 0x18);
    let mut counts = Vec::with_capacity(positions.len());
    for pos in &positions {
        let moves = common::legal(pos);
        let batch = enc.encode_batch([(pos, moves.as_slice())]);
        let (pieces, planes, globals) = batch.raw();
        let measured = size_of_val(pieces)
            + size_of_val(planes)
            + size_of_val(globals)
            + size_of_val(batch.offsets())
            + size_of_val(batch.moves());
        assert_eq!(measured, encoded_bytes(squares, moves.len()), "{name}: {}", pos.to_fen());
        counts.push(moves.len());
    }
    counts.sort_unstable();
    let fixed = encoded_bytes(squares, 0);
    let per_move = size_of::<MoveFeatures>() + size_of::<(u32, f32)>();
    println!(
        "{name}: {} types, {} positions from random play; legal moves median {}, p90 {}, max {}",
        v.piece_count(),
        counts.len(),
        percentile(&counts, 0.5),
        percentile(&counts, 0.9),
        counts[counts.len() - 1]
    );
    println!(
        "  fixed {fixed} B + {per_move} B per legal move (features {} + a full policy target 8)",
        size_of::<MoveFeatures>()
    );
    for m in [percentile(&counts, 0.5), 300, 600, 1000] {
        println!("  {m:>5} moves: {:>7} B", fixed + per_move * m);
    }
}

#[test]
fn bytes_per_position_on_18x18() {
    report("synthetic:18x18:95");
    report("chushin");
}
