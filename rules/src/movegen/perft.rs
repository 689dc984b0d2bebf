//! Perft: leaf counts of the legal move tree, the move generator's correctness and speed test.

use crate::{
    moves::{Move, MoveList},
    position::Position,
};

/// Counts leaf nodes of the legal move tree to `depth`, counting the last ply in bulk.
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    let mut buffers: Vec<MoveList> = (0..=depth).map(|_| MoveList::with_capacity(256)).collect();
    perft_inner(pos, depth, &mut buffers)
}

fn perft_inner(pos: &mut Position, depth: u32, buffers: &mut [MoveList]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (list, rest) = buffers.split_first_mut().expect("one buffer per depth");
    pos.legal_moves(list);
    if depth == 1 {
        return list.len() as u64;
    }
    let mut nodes = 0;
    for i in 0..list.len() {
        let m = list[i];
        pos.make(m);
        nodes += perft_inner(pos, depth - 1, rest);
        pos.unmake();
    }
    nodes
}

/// Perft split by root move: `(move, nodes)` pairs.
pub fn perft_divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    moves
        .into_iter()
        .map(|m| {
            pos.make(m);
            let n = if depth <= 1 { 1 } else { perft(pos, depth - 1) };
            pos.unmake();
            (m, n)
        })
        .collect()
}
