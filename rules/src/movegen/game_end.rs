//! Results that need the legal moves: checkmate, stalemate, the loss of a side whose every
//! move would repeat a third time, and the draws that end a game that still has moves
//! (move-count rule, repetition). Results decided by material are the position layer's
//! ([`Position::immediate_outcome`]).

use crate::{
    movegen::Probe,
    moves::{Move, MoveList},
    position::{EndReason, Outcome, Position},
    types::Color,
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
            // `checked_for_result`: in check, or facing a multi-move turn that can take the royal.
            if v.rules.royal == RoyalRule::Checkmate && self.checked_for_result(us) {
                // A loss, or a win for the mated side (Reflex Chess's `victory.checkmate`).
                return Some(Outcome::from_value(us, v.rules.checkmate, EndReason::Checkmate));
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
            RepetitionRule::ThirdPerpetualCheckLoses if self.repetitions() >= 2 => {
                return Some(match self.perpetual_checker() {
                    Some(checker) => Outcome::Decisive { winner: checker.other(), reason: EndReason::Repetition },
                    None => Outcome::Draw { reason: EndReason::Repetition },
                });
            }
            _ => {}
        }
        None
    }

    /// At a repetition: the side that gave check with every one of its moves since the first
    /// occurrence of this position, if exactly one side did. The positions of the cycle are
    /// recovered by unmaking moves on a copy (this runs only at a third occurrence).
    fn perpetual_checker(&self) -> Option<Color> {
        let n = self.hashes.len();
        // hashes[i] is the position before the i-th move; hashes[n - 2k] has the current side
        // to move. The earliest equal one starts the cycle.
        let stop = self.irreversible as usize;
        let first = (1..=n / 2).map(|k| n - 2 * k).take_while(|&i| i >= stop).filter(|&i| self.hashes[i] == self.hash);
        let plies = n - first.last()?;
        let mut scratch = self.clone();
        // all_checks[c]: every move of colour c in the cycle gave check so far.
        let mut all_checks = [true, true];
        for _ in 0..plies {
            let to_move = scratch.side;
            if !scratch.in_check(to_move) {
                all_checks[to_move.other().index()] = false;
            }
            scratch.unmake();
        }
        match all_checks {
            [true, false] => Some(Color::Blue),
            [false, true] => Some(Color::Tan),
            _ => None,
        }
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
