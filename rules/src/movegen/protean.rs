//! The protean choice (`[protean]`, `choice = "before_play"`; `crate::position::protean`): while
//! choices are left, the side to move's moves are one `MoveKind::Mark` per non-royal man of its
//! own, `from == to` on that man (UCI-style text `e2e2`: no other move of chess starts and ends
//! on one square). The choice moves nothing, so no royal-safety filter applies to it: it hands
//! the turn over, and a position whose chooser is in check is refused when it is read
//! (`Position::check_protean_choice`); play reaches none, since nobody moves before the choices.

use crate::{
    movegen::MoveSink,
    moves::{Move, MoveKind},
    position::Position,
};

impl Position {
    /// Appends the side to move's protean choices.
    pub(crate) fn protean_choices<S: MoveSink>(&self, out: &mut S) {
        let us = self.side;
        for sq in self.occupied[us.index()].iter() {
            let p = self.board[sq.index()].expect("occupancy matches the board");
            if !self.variant.pieces[p.kind().index()].royal {
                out.push(Move::normal(sq, sq).with_kind(MoveKind::Mark));
            }
        }
    }

    /// Refuses a position in which the side to move has a protean choice to make while in
    /// check: the choice would hand the turn over with its king attacked (a position string
    /// without the choice field starts the choice, so such a string needs `choices:0`).
    pub(crate) fn check_protean_choice(&self) -> Result<(), String> {
        if self.protean.to_choose > 0 && self.in_check(self.side) {
            return Err(format!(
                "protean: {} is to choose its protean man while in check (a choice hands the turn over): \
                 write choices:0",
                self.side.name()
            ));
        }
        Ok(())
    }
}
