//! `roam_unguarded` (Emperor King Chess's king, list #36): the piece goes to any empty square of
//! the board, and captures any enemy man anywhere that is unguarded.
//!
//! Unguarded means that no man of the victim's side could capture on its square by its ordinary
//! (Betza) moves, judged with the roamer already lifted from its own square (so a guard whose
//! line runs through the roamer's square still guards: the capture would be answered). Pins are
//! ignored, as the dossier says: a pinned guard still counts. An enemy roamer's own power is no
//! guard (it is not an ordinary move, and counting it would make guarding depend on guarding).
//! The piece's Betza moves (the king's step) stay as they are, captures of guarded men included;
//! a roam that lands where a step does is that step (the piece's moves are de-duplicated, see
//! `needs_dedup` in the variant loader).

use crate::{
    movegen::MoveSink,
    moves::Move,
    position::Position,
    types::{Piece, Square},
};

pub(super) fn moves<S: MoveSink>(pos: &Position, from: Square, p: Piece, out: &mut S) {
    // Lifted only when a capture is possible: quiet roams need no guard test.
    let mut lifted: Option<Vec<Option<Piece>>> = None;
    for i in 0..pos.board.len() {
        let to = Square(i as u16);
        if to == from {
            continue;
        }
        match pos.piece_at(to) {
            None => pos.push_with_promotions(Move::normal(from, to), p, out),
            Some(victim) if victim.color() != p.color() => {
                let board = lifted.get_or_insert_with(|| {
                    let mut b = pos.board.clone();
                    b[from.index()] = None;
                    b
                });
                if !pos.betza_attacks(board, to, victim.color()) {
                    pos.push_with_promotions(Move::normal(from, to), p, out);
                }
            }
            Some(_) => {}
        }
    }
}
