//! `immobilize`: enemy pieces on the squares an immobilizer reaches make no move of their own
//! (no powers, no relaying, no pass). They may still be relayed or swapped, and may capture
//! themselves (Typhoon §3.7), which the driver generates for them.

use crate::{
    movegen::powers::offset,
    position::{Position, SquareSet},
    types::{Color, Piece},
    variant::powers::Power,
};

/// The pieces of `us` standing on a square that an enemy immobilizer reaches.
pub(crate) fn frozen(pos: &Position, us: Color) -> SquareSet {
    let variant = pos.variant();
    let them = us.other();
    let mut frozen = SquareSet::EMPTY;
    for &t in &variant.immobilizers {
        let immobilizer = Piece::new(t, them);
        if pos.piece_counts()[immobilizer.index()] == 0 {
            continue;
        }
        for sq in pos.occupied(them).iter().filter(|&s| pos.piece_at(s) == Some(immobilizer)) {
            for power in &variant.powers[t.index()] {
                let Power::Immobilize { reach } = power else { continue };
                for d in &reach[them.index()] {
                    if let Some(n) = offset(pos, sq, d.dx as i32, d.dy as i32) {
                        if pos.piece_at(n).is_some_and(|q| q.color() == us) {
                            frozen.insert(n);
                        }
                    }
                }
            }
        }
    }
    frozen
}
