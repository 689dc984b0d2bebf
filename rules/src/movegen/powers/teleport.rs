//! `teleport` (Jupiter's 1999 Teleporter, jupiter.md §3.4, §5.2, ruling 11.11): two relays, both
//! non-capturing, to an empty square, for friendly pieces other than the Teleporter:
//!
//! 1. a piece P adjacent to the Teleporter T may move to R + (P − T) for any friendly royal R;
//! 2. a piece Q adjacent to a friendly royal R may move to T + (Q − R).
//!
//! "Less than 2 steps away" is adjacency (Chebyshev distance 1); a royal piece may itself be
//! teleported. Called through the relay driver ([`super::relay`]), which also applies the
//! own-power-first rule and skips immobilized Teleporters.

use crate::{
    movegen::{
        powers::{offset, relay::Lending, KING_DIRS},
        MoveSink,
    },
    types::Square,
};

/// Appends the teleports that the Teleporter on `teleporter` lends.
pub(super) fn lend<S: MoveSink>(lending: &Lending, teleporter: Square, out: &mut S) {
    let pos = lending.pos();
    let Some(t) = pos.piece_at(teleporter) else { return };
    let c = t.color().index();
    let royals = &pos.royals[c][..pos.n_royals[c] as usize];
    let friendly = |sq: Square| pos.piece_at(sq).is_some_and(|q| q.color() == t.color());
    let empty_at =
        |from: Square, (dx, dy): (i32, i32)| offset(pos, from, dx, dy).filter(|&to| pos.piece_at(to).is_none());
    for v in KING_DIRS {
        // 1. From next to the Teleporter to the same place next to a royal.
        if let Some(mut recipient) =
            offset(pos, teleporter, v.0, v.1).filter(|&p| friendly(p)).and_then(|p| lending.recipient(p))
        {
            for &royal in royals {
                if let Some(to) = empty_at(royal, v) {
                    recipient.lend(to, out);
                }
            }
        }
        // 2. From next to a royal to the same place next to the Teleporter.
        let Some(to) = empty_at(teleporter, v) else { continue };
        for &royal in royals {
            let q = offset(pos, royal, v.0, v.1).filter(|&q| q != teleporter && friendly(q));
            if let Some(mut recipient) = q.and_then(|q| lending.recipient(q)) {
                recipient.lend(to, out);
            }
        }
    }
}
