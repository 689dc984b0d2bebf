//! `royal_leap`: leaps to any square next to a friendly royal piece, moving there if it is empty,
//! capturing an enemy there, or removing a friendly non-royal piece there (it stands on `to`, so
//! the removal is that of an ordinary move); never onto a friendly royal (Royalist, jupiter.md
//! §3.4, ruling 11.15). A square next to several royals is one move; a leap that coincides with
//! one of the piece's Betza moves is that move (the piece's moves are de-duplicated, see
//! `needs_dedup` in the variant loader).

use crate::{
    movegen::{
        powers::{offset, KING_DIRS},
        MoveSink,
    },
    moves::Move,
    position::Position,
    types::{Piece, Square},
};

pub(super) fn moves<S: MoveSink>(pos: &Position, from: Square, p: Piece, out: &mut S) {
    let c = p.color().index();
    let royals = &pos.royals[c][..pos.n_royals[c] as usize];
    let dims = pos.variant().dims;
    let adjacent = |a: Square, b: Square| {
        let (df, dr) = (dims.file(a) - dims.file(b), dims.rank(a) - dims.rank(b));
        a != b && df.abs() <= 1 && dr.abs() <= 1
    };
    for (i, &r) in royals.iter().enumerate() {
        for (dx, dy) in KING_DIRS {
            let Some(to) = offset(pos, r, dx, dy) else { continue };
            if to == from || royals[..i].iter().any(|&earlier| adjacent(earlier, to)) {
                continue;
            }
            let friendly_royal =
                pos.piece_at(to).is_some_and(|q| q.color() == p.color() && pos.variant().royal[q.kind().index()]);
            if !friendly_royal {
                pos.push_with_promotions(Move::normal(from, to), p, out);
            }
        }
    }
}
