//! Legality inside multi-move turns (`[turns]`, issue 21 rows #11-#16). Each move of a turn is
//! one ply of the same side (`position::multimove`); what a move may do depends on where in its
//! turn it stands:
//!
//! - **Every-move safety** (the default): each move must leave the mover's royal safe, as in
//!   chess; so a side in check must escape with its first move (Two Move Chess, Marseillaise,
//!   Scottish Progressive). The driver's ordinary royal filter does this.
//! - **Safe at the end** (`safe_at_end`, Monster's Black, Two for One's White): the royal may
//!   stand attacked between the moves; a move is legal if some continuation of the turn leaves
//!   it safe when the turn ends. Checked by looking ahead to the end of the turn (fixed turns of
//!   at most `MAX_FIXED_MOVES`; the asymmetric games that use it have a handful of men).
//! - **`check = "last_move_only"`** (Marseillaise): a move before the turn's last that gives
//!   check is illegal.
//! - **`check = "ends_turn"`** (Two Move Chess, Scottish Progressive): such a check ends the
//!   turn; `make` decides it, nothing is filtered.
//! - **`check = "any"`** (Monster, Two for One): checks are free, so the opponent's whole next
//!   turn may be used to capture a royal. A move that ends its side's turn is then legal only if
//!   the opponent's next turn cannot capture the royal ([`Position::royal_capturable`]): with a
//!   two-move opponent, not attacked now and not attacked after any one move of the opponent.
//!   Such a royal is "in check" for the game's result too ([`Position::checked_for_result`]):
//!   no legal move then is checkmate, not stalemate.
//!
//! A side with no legal move, at any move of its turn, is checkmated if its royal counts as in
//! check and stalemated otherwise (`game_end`). With every-move safety a side is never in check
//! between its own moves, so running out of moves mid-turn is stalemate.

use std::cell::RefCell;

use crate::{
    moves::MoveList,
    position::Position,
    types::Color,
    variant::{
        turns::{TurnCheckRule, TurnSchedule},
        RoyalRule,
    },
};

thread_local! {
    /// Move lists for the look-ahead of multi-move turns (each nested look-ahead takes its own),
    /// kept so that generating legal moves allocates nothing once they have grown.
    static SCRATCH: RefCell<Vec<MoveList>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with a cleared move list from the thread's pool, and gives the list back.
fn with_scratch<R>(f: impl FnOnce(&mut MoveList) -> R) -> R {
    let mut list = SCRATCH.with(|pool| pool.borrow_mut().pop()).unwrap_or_default();
    list.clear();
    let result = f(&mut list);
    SCRATCH.with(|pool| pool.borrow_mut().push(list));
    result
}

impl Position {
    /// Whether the driver's own royal filter (every move leaves the royal safe) applies to the
    /// side to move: not for a side whose royal need only be safe when its turn ends.
    #[inline]
    pub(super) fn royal_safe_after_each_move(&self) -> bool {
        !self.schedule().is_some_and(|s| s.safe_at_end[self.side.index()])
    }

    /// Drops the moves of `out` that the turn rules forbid (see the module doc). `out` has been
    /// through every other legality filter but forced capture.
    pub(super) fn retain_turn_legal(&mut self, out: &mut MoveList) {
        let Some(&schedule) = self.schedule() else { return };
        self.retain_by_turn_rules(schedule, out);
        if out.is_empty() && self.long_threat_horizon(self.side) > 1 {
            // No legal move: the result needs to know whether the royal is within reach of
            // the opponent's turn, which only a position that can make moves can tell.
            let threatened = self.threatened_by_next_turn(self.side);
            self.turn_threat = Some((self.hash, threatened));
        }
    }

    fn retain_by_turn_rules(&mut self, schedule: TurnSchedule, out: &mut MoveList) {
        let us = self.side;
        if self.variant.rules.royal != RoyalRule::Checkmate || self.n_royals[us.index()] == 0 {
            // Played to the capture of the royal (Double move chess): no check to obey.
            return;
        }
        let safe_at_end = schedule.safe_at_end[us.index()];
        let no_early_check = schedule.check == TurnCheckRule::LastMoveOnly && self.turn_left > 1;
        // An opponent with several moves that may check freely could take the royal in its turn.
        let them = us.other();
        let fullmove_after = self.fullmove + u32::from(us == Color::Tan);
        let long_threat = schedule.check == TurnCheckRule::Any && schedule.quota(them, fullmove_after) > 1;
        if !safe_at_end && !no_early_check && !long_threat {
            return;
        }
        out.retain(|&m| {
            self.make(m);
            let ok = if self.immediate_outcome().is_some() {
                // The move ends the game (it took the last enemy royal): nothing is left to obey.
                true
            } else if self.side == us {
                // The turn goes on.
                (!no_early_check || !self.in_check(them)) && (!safe_at_end || self.turn_can_end_safely())
            } else {
                let horizon = schedule.capture_horizon(them, self.fullmove);
                !self.royal_capturable(us, horizon)
            };
            self.unmake();
            ok
        });
    }

    /// Mid-turn, for a side whose royal need only be safe at the end: whether some continuation
    /// of the turn is legal (the legal moves here are exactly the moves that have one).
    fn turn_can_end_safely(&mut self) -> bool {
        with_scratch(|next| {
            self.legal_moves(next);
            !next.is_empty()
        })
    }

    /// Whether the side to move (the opponent of `us`) could capture a royal of `us` within its
    /// next `horizon` moves: a royal attacked now, or attacked after some move of the opponent
    /// that keeps its turn going (and that is legal for it: its own royal safe, unless it need
    /// only be safe at the end of its turn). The opponent's intermediate moves are its
    /// pseudo-legal ones: a move that captures a royal needs no more.
    pub(crate) fn royal_capturable(&mut self, us: Color, horizon: u32) -> bool {
        if self.in_check(us) {
            return true;
        }
        if horizon <= 1 {
            return false;
        }
        let them = self.side;
        let free = self.schedule().is_some_and(|s| s.safe_at_end[them.index()]);
        with_scratch(|moves| {
            self.pseudo_legal_moves_of(them, moves);
            moves.iter().any(|&m| {
                self.make(m);
                let hit = self.side == them && (free || !self.in_check(them)) && self.royal_capturable(us, horizon - 1);
                self.unmake();
                hit
            })
        })
    }

    /// Whether the royal of the side to move, `us`, counts as in check for the game's result
    /// (no legal move: checkmate if so, stalemate if not). In chess and every schedule whose
    /// opponent has one move or may not check before its last, that is being attacked; facing a
    /// turn of several moves with free checks, it is being capturable within that turn.
    pub fn checked_for_result(&self, us: Color) -> bool {
        if self.in_check(us) {
            return true;
        }
        if self.long_threat_horizon(us) <= 1 {
            return false;
        }
        // Known from generating this position's legal moves (none), or worked out on a copy.
        match self.turn_threat {
            Some((hash, threatened)) if hash == self.hash && us == self.side => threatened,
            _ => self.clone().threatened_by_next_turn(us),
        }
    }

    /// How many moves of the opponent's next turn could take a royal of `us` (the side to
    /// move) if `us` ended its turn here: more than 1 only against a multi-move turn with free
    /// checks, in a game with check.
    fn long_threat_horizon(&self, us: Color) -> u32 {
        let Some(schedule) = self.schedule() else { return 1 };
        if self.variant.rules.royal != RoyalRule::Checkmate {
            return 1;
        }
        schedule.capture_horizon(us.other(), self.fullmove + u32::from(us == Color::Tan))
    }

    /// Whether the opponent's next turn could take a royal of `us` if `us`, to move, passed:
    /// the opponent starts its turn here (made in place and taken back).
    fn threatened_by_next_turn(&mut self, us: Color) -> bool {
        let horizon = self.long_threat_horizon(us);
        let saved = (self.side, self.fullmove, self.ep, self.turn_left, self.hash);
        self.hash ^= self.state_hash();
        self.side = us.other();
        self.fullmove += u32::from(us == Color::Tan);
        self.ep = None;
        self.start_turn();
        self.hash ^= self.state_hash();
        let threatened = self.royal_capturable(us, horizon);
        (self.side, self.fullmove, self.ep, self.turn_left, self.hash) = saved;
        threatened
    }
}
