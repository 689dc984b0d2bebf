//! Results that need the legal moves: checkmate, stalemate, the loss of a side whose every
//! move would repeat a third time, and the draws that end a game that still has moves
//! (move-count rule, repetition). Results decided by material are the position layer's
//! ([`Position::immediate_outcome`]).

use crate::{
    movegen::Probe,
    moves::{Move, MoveList},
    position::{EndReason, Outcome, Position},
    variant::{RepetitionRule, RoyalRule},
};

impl Position {
    /// The game result if the game is over in this position, `None` otherwise. `legal` must be
    /// the legal moves of this position (pass an empty slice only if there are none).
    pub fn outcome_with(&self, legal: &[Move]) -> Option<Outcome> {
        if self.in_setup() {
            return None;
        }
        if let Some(o) = self.immediate_outcome() {
            return Some(o);
        }
        let v = &*self.variant;
        let us = self.side;
        if legal.is_empty() {
            if v.rules.royal == RoyalRule::Checkmate && self.in_check(us) {
                return Some(Outcome::Decisive { winner: us.other(), reason: EndReason::Checkmate });
            }
            if v.rules.repetition == RepetitionRule::ThirdIllegal && self.has_repetition_blocked_moves() {
                return Some(Outcome::Decisive { winner: us.other(), reason: EndReason::RepetitionLoss });
            }
            return Some(Outcome::from_value(us, v.rules.stalemate, EndReason::Stalemate));
        }
        if let Some(limit) = v.rules.halfmove_draw {
            if self.halfmove >= limit {
                return Some(Outcome::Draw { reason: EndReason::HalfmoveRule });
            }
        }
        match v.rules.repetition {
            RepetitionRule::ThirdDraws if self.repetitions() >= 2 => {
                return Some(Outcome::Draw { reason: EndReason::Repetition })
            }
            RepetitionRule::FourthDraws if self.repetitions() >= 3 => {
                return Some(Outcome::Draw { reason: EndReason::Repetition })
            }
            _ => {}
        }
        None
    }

    /// The game result, if the game is over here.
    pub fn outcome(&self) -> Option<Outcome> {
        let mut moves = MoveList::new();
        let mut scratch = self.clone();
        scratch.legal_moves(&mut moves);
        self.outcome_with(&moves)
    }

    /// Whether the side to move has pseudo-legal moves (outside the setup phase), without
    /// storing them.
    fn has_repetition_blocked_moves(&self) -> bool {
        let mut probe = Probe::new(|_: &Move| true);
        self.pseudo_legal_moves_of(self.side, &mut probe);
        probe.found()
    }
}
