//! The must-mate rule (`must_mate = true`, Reflex Chess, issue 21 row #3): "whenever a player
//! having the move can give mate, it must be given". When any move legal under every other rule
//! mates, only the mating moves are legal.
//!
//! A move mates when the game then ends by checkmate ([`Position::outcome_with`] gives
//! [`EndReason::Checkmate`]), judged under the same rules: the mated side has no legal move and
//! is in check. Whether that mate is a win or a loss for the mated side is the separate result
//! rule `victory.checkmate` (Reflex Chess: `win`).
//!
//! The filter never empties a non-empty list (a mating move survives it), so whether a side
//! has a legal move at all does not depend on it: the replies of a mate test are generated
//! without it (`nested > 0`), which keeps the test one ply deep instead of recursive.

use crate::{
    moves::MoveList,
    position::{EndReason, Outcome, Position},
};

impl Position {
    /// Keeps only the mating moves of `out` (legal under every other rule) if there is one;
    /// `nested` is the depth of mate tests this call is inside (see `checkless`).
    pub(super) fn retain_mates_if_any(&mut self, out: &mut MoveList, nested: u32) {
        if out.is_empty() {
            return;
        }
        let mut replies = MoveList::new();
        let mut mates = MoveList::new();
        for &m in out.iter() {
            self.make(m);
            // Only a move that leaves the opponent checked can mate: the others cost no replies.
            let mating = self.checked_for_result(self.side) && {
                self.legal_moves_nested(&mut replies, nested + 1);
                matches!(self.outcome_with(&replies), Some(Outcome::Decisive { reason: EndReason::Checkmate, .. }))
            };
            self.unmake();
            if mating {
                mates.push(m);
            }
        }
        if !mates.is_empty() {
            *out = mates;
        }
    }
}
