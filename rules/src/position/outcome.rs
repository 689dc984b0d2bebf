//! Results decided without generating moves: royal captured, bared, extinction, and the
//! repetition count. Checkmate and stalemate need the legal moves: see
//! [`Position::outcome_with`] in `crate::movegen`.

use crate::{
    moves::Move,
    position::Position,
    types::{Color, Piece, PieceType},
    variant::{BareRule, GameValue, RoyalRule, Variant},
};

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    Checkmate,
    Stalemate,
    RoyalCaptured,
    Bared,
    Extinction,
    /// The side to move had moves, but every one repeated a position a third time.
    RepetitionLoss,
    Repetition,
    HalfmoveRule,
    MoveCap,
}

impl EndReason {
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::RoyalCaptured => "royal captured",
            EndReason::Bared => "bared",
            EndReason::Extinction => "extinction",
            EndReason::RepetitionLoss => "no non-repeating move",
            EndReason::Repetition => "repetition",
            EndReason::HalfmoveRule => "move-count rule",
            EndReason::MoveCap => "move cap",
        }
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Decisive { winner: Color, reason: EndReason },
    Draw { reason: EndReason },
}

impl Outcome {
    pub(crate) fn from_value(side: Color, value: GameValue, reason: EndReason) -> Outcome {
        match value {
            GameValue::Win => Outcome::Decisive { winner: side, reason },
            GameValue::Loss => Outcome::Decisive { winner: side.other(), reason },
            GameValue::Draw => Outcome::Draw { reason },
        }
    }

    pub fn winner(&self) -> Option<Color> {
        match self {
            Outcome::Decisive { winner, .. } => Some(*winner),
            Outcome::Draw { .. } => None,
        }
    }

    pub fn reason(&self) -> EndReason {
        match self {
            Outcome::Decisive { reason, .. } | Outcome::Draw { reason } => *reason,
        }
    }
}

impl Variant {
    /// Whether a game of this variant can end by material ([`Position::immediate_outcome`]:
    /// royal captured, bared, extinction), so that one move may win at once.
    pub fn ends_by_material(&self) -> bool {
        self.loses_with_royals() || self.rules.extinction.is_some() || self.rules.bare == BareRule::OnePieceLoses
    }

    /// Whether losing one's royals loses the game (royal rule `capture`, or royals that a blast
    /// can remove: `[explosion]`), with royal pieces.
    fn loses_with_royals(&self) -> bool {
        // A capturing neutral token can take a king (Salt Shaker Chess, `movegen::neutral_token`).
        (self.rules.royal == RoyalRule::Capture
            || self.rules.explosion.is_some()
            || self.rules.neutral_token.as_ref().is_some_and(|t| t.captures))
            && self.pieces.iter().any(|p| p.royal)
    }
}

impl Position {
    /// A move of the side to move after which the game is over by material in its favour
    /// ([`Position::immediate_outcome`]: it captures the last royal, bares or exterminates
    /// the opponent), and that result; `legal` are this position's legal moves. Each move is
    /// made and unmade, so the answer is the rules' own, whatever the move's kind (multi-capture,
    /// conversion, a push off the board).
    pub fn immediate_win(&mut self, legal: &[Move]) -> Option<(Move, Outcome)> {
        if self.in_setup() {
            return None;
        }
        let us = self.side;
        for &m in legal {
            self.make(m);
            let outcome = self.immediate_outcome();
            self.unmake();
            if let Some(o) = outcome.filter(|o| o.winner() == Some(us)) {
                return Some((m, o));
            }
        }
        None
    }

    /// A result decided by material alone (royal captured, bared, extinction), for the side to
    /// move. Such positions have no legal moves: perft never expands a finished game.
    pub fn immediate_outcome(&self) -> Option<Outcome> {
        if self.in_setup() {
            return None;
        }
        let v = &*self.variant;
        let us = self.side;
        let them = us.other();
        // A game that started without royals on either side (a constructed position) goes on
        // while neither side has one (chushin-shogi.md §14); once one side has a royal, losing
        // it loses. A game with royals in which both sides lose theirs at once ends as before:
        // the side to move is tested first, so the mover wins (jupiter.md §7.3).
        let royal_capture = v.loses_with_royals() && !(self.royal_less_root && self.n_royals == [0, 0]);
        if royal_capture && self.n_royals[us.index()] == 0 {
            return Some(Outcome::Decisive { winner: them, reason: EndReason::RoyalCaptured });
        }
        if let Some(e) = &v.rules.extinction {
            let count = |c: Color, t: Option<PieceType>| -> u16 {
                match t {
                    None => self.totals[c.index()],
                    Some(t) => self.counts[Piece::new(t, c).index()],
                }
            };
            let extinct = |c: Color, t: Option<PieceType>| {
                let claim = u16::from(e.claim && c == us);
                count(c, t) <= e.count && count(c.other(), t) >= e.opponent_count + claim
            };
            // The side that just moved is tested first, as Fairy-Stockfish does.
            for c in [them, us] {
                let gone = match &e.types {
                    None => extinct(c, None),
                    Some(listed) => listed.iter().any(|&t| extinct(c, Some(t))),
                };
                if gone {
                    let value = if c == us { e.value } else { invert(e.value) };
                    let reason = if e.count > 0 { EndReason::Bared } else { EndReason::Extinction };
                    return Some(Outcome::from_value(us, value, reason));
                }
            }
        }
        if v.rules.bare == BareRule::OnePieceLoses && self.totals[us.index()] <= 1 {
            return Some(Outcome::Decisive { winner: them, reason: EndReason::Bared });
        }
        // The mover can only lose by its own move through a self-capture (Typhoon §6.2).
        if royal_capture && self.n_royals[them.index()] == 0 {
            return Some(Outcome::Decisive { winner: us, reason: EndReason::RoyalCaptured });
        }
        if v.rules.bare == BareRule::OnePieceLoses && self.totals[them.index()] <= 1 {
            return Some(Outcome::Decisive { winner: us, reason: EndReason::Bared });
        }
        None
    }

    /// Whether some position that the next move could recreate (the side to move's opponent
    /// to move, since the last irreversible move) has occurred twice already: if not, no move
    /// can complete a third occurrence, and the repetition filter need not try each one.
    pub(crate) fn a_successor_could_repeat_thrice(&mut self) -> bool {
        let mut scratch = std::mem::take(&mut self.repetition_scratch);
        scratch.clear();
        // hashes[len - 1] is the position before the last move: the opponent to move, as after
        // the next move; every second one before it has the same side to move.
        scratch.extend(self.hashes[self.irreversible as usize..].iter().rev().step_by(2));
        scratch.sort_unstable();
        let twice = scratch.windows(2).any(|w| w[0] == w[1]);
        self.repetition_scratch = scratch;
        twice
    }

    /// How many times the current position occurred before: earlier positions with the same
    /// repetition key ([`Position::hash`]) and the same side to move, every move counted (passes
    /// too). The scan stops at the last irreversible move (capture, promotion, pawn double step,
    /// lost castling right), before which no position can recur; so it counts over the whole
    /// game, as Chushin Shogi's sennichite does (chushin-shogi.md §8.6, §13.10).
    pub fn repetitions(&self) -> usize {
        let n = self.hashes.len();
        let stop = self.irreversible as usize;
        let mut count = 0;
        let mut i = n;
        // Positions with the same side to move are two plies apart, or any number with multi-move
        // turns (Monster's White, Black, Black: three); the hash tells the side and turn state.
        let step = if self.variant.rules.turns.is_some() { 1 } else { 2 };
        while i >= stop + step {
            i -= step;
            if self.hashes[i] == self.hash {
                count += 1;
            }
        }
        count
    }
}

fn invert(v: GameValue) -> GameValue {
    match v {
        GameValue::Win => GameValue::Loss,
        GameValue::Loss => GameValue::Win,
        GameValue::Draw => GameValue::Draw,
    }
}
