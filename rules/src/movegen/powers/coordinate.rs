//! `coordinate`: non-capturing moves to empty squares (the `dirs` geometry); on arrival at `t`,
//! for every friendly royal piece `r`, the enemies on (file of `r`, rank of `t`) and (file of
//! `t`, rank of `r`) are captured, all at once (Coordinator, jupiter.md §3.4). `t` and `r`
//! themselves never yield a capture.

use crate::{
    movegen::{powers::empty_squares, MoveSink},
    moves::{Move, MAX_EXTRA_CAPTURES},
    position::Position,
    types::{Piece, Square},
    variant::powers::Dir,
};

pub(super) fn moves<S: MoveSink>(pos: &Position, from: Square, p: Piece, dirs: &[Dir], out: &mut S) {
    let us = p.color();
    let c = us.index();
    let royals = &pos.royals[c][..pos.n_royals[c] as usize];
    let dims = pos.variant().dims;
    for d in dirs {
        for to in empty_squares(pos, from, d) {
            let mut m = Move::normal(from, to);
            for &r in royals {
                let corners = [dims.square(dims.file(r), dims.rank(to)), dims.square(dims.file(to), dims.rank(r))];
                for sq in corners.into_iter().flatten() {
                    if sq != to && sq != r && pos.piece_at(sq).is_some_and(|q| q.color() != us) {
                        // Two captures per royal: nine royals of one side (the most a game from
                        // the start array can give it, see MAX_EXTRA_CAPTURES) fit; more, in a
                        // constructed position only, would overflow the move's list.
                        if m.captures().len() < MAX_EXTRA_CAPTURES {
                            m.add_capture(sq);
                        }
                    }
                }
            }
            pos.push_with_promotions(m, p, out);
        }
    }
}
