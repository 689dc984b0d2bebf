//! Setup moves: the two ways to place the current setup ply's pair.

use crate::{
    movegen::MoveSink,
    moves::{Move, MoveKind},
    position::Position,
};

impl Position {
    /// The two setup moves of the current setup ply, or the protean choices while those are
    /// left (Protean Chess's phase before play, `movegen::protean`).
    pub(crate) fn setup_moves<S: MoveSink>(&self, out: &mut S) {
        if self.protean.to_choose > 0 {
            return self.protean_choices(out);
        }
        let Some(ply) = self.current_setup_ply() else { return };
        for choice in ply.pieces {
            out.push(Move::normal(ply.squares[0], ply.squares[0]).with_kind(MoveKind::Setup).with_piece(choice));
        }
    }
}
