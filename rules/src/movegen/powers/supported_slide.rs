//! `supported_slide`: non-capturing slides of `min..=max` squares that must end next to another
//! friendly piece (Typhoon's Salamander).

use crate::{
    movegen::{
        powers::{offset, KING_DIRS},
        MoveSink,
    },
    moves::Move,
    position::Position,
    types::{Color, Piece, Square},
    variant::powers::Dir,
};

pub(super) fn moves<S: MoveSink>(
    pos: &Position,
    from: Square,
    p: Piece,
    dirs: &[Dir],
    (min, max): (u8, u8),
    out: &mut S,
) {
    for d in dirs {
        for k in 1..=max as i32 {
            let Some(sq) = offset(pos, from, d.dx as i32 * k, d.dy as i32 * k) else { break };
            if pos.piece_at(sq).is_some() {
                break;
            }
            if k >= min as i32 && has_friendly_neighbour(pos, sq, p.color(), from) {
                pos.push_with_promotions(Move::normal(from, sq), p, out);
            }
        }
    }
}

/// Whether a piece of `us` other than the one on `except` (the mover) stands next to `sq`.
fn has_friendly_neighbour(pos: &Position, sq: Square, us: Color, except: Square) -> bool {
    KING_DIRS.iter().any(|&(dx, dy)| {
        offset(pos, sq, dx, dy).is_some_and(|n| n != except && pos.piece_at(n).is_some_and(|q| q.color() == us))
    })
}
