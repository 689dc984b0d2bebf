//! `hop_chain`: one or more grasshopper hops in a row (Halmopper, jupiter.md §3.4, ruling
//! 11.13). Each hop takes the first piece on one of the eight lines as its hurdle and lands
//! right behind it, on an empty square (the chain may go on, in any direction) or on an enemy
//! (captured; the chain ends). The start square is empty during the chain and is never its
//! end. A chain is one action identified by its destination: the moves are the landing
//! squares reachable in the hop graph, each once.

use crate::{
    movegen::{
        powers::{offset, KING_DIRS},
        MoveSink,
    },
    position::{Position, SquareSet},
    types::{Piece, Square},
};

pub(super) fn moves<S: MoveSink>(pos: &Position, from: Square, p: Piece, out: &mut S) {
    let occupant = |sq: Square| if sq == from { None } else { pos.piece_at(sq) };
    let mut landed = SquareSet::EMPTY;
    let mut captures = SquareSet::EMPTY;
    let mut todo = SquareSet::EMPTY;
    todo.insert(from);
    landed.insert(from);
    loop {
        let next = todo.iter().next();
        let Some(at) = next else { break };
        todo.remove(at);
        for (dx, dy) in KING_DIRS {
            let mut n = 1;
            let hurdle = loop {
                match offset(pos, at, dx * n, dy * n) {
                    None => break None,
                    Some(sq) if occupant(sq).is_some() => break Some(n),
                    Some(_) => n += 1,
                }
            };
            let Some(n) = hurdle else { continue };
            let Some(land) = offset(pos, at, dx * (n + 1), dy * (n + 1)) else { continue };
            match occupant(land) {
                Some(q) if q.color() == p.color() => {}
                Some(_) => captures.insert(land),
                None => {
                    if !landed.contains(land) {
                        landed.insert(land);
                        todo.insert(land);
                    }
                }
            }
        }
    }
    landed.remove(from);
    let betza_too = !pos.variant().pieces[p.kind().index()].betza.is_empty();
    for to in landed.iter().chain(captures.iter()) {
        if !(betza_too && out.has_displacement(from, to)) {
            pos.push_displacement(from, to, p, out);
        }
    }
}
