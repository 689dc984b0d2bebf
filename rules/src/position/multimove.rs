//! Multi-move turns in the position (issue 21 rows #11-#16, `[turns]`): each move of a turn is
//! one ply of the same side, and the position keeps how many moves the current turn has left,
//! this one included (`turn_left`). A turn ends when its quota is used or a rule ends it early
//! (a check under `check = "ends_turn"`); then the other side starts a turn whose length the
//! schedule gives from the side and the move number ([`TurnSchedule::quota`]), which is why a
//! move number counts turns (it grows when Tan's turn ends), not plies.
//!
//! The state is small on purpose: the moves left, and the move number for the length of the next
//! turn. It is in the position string (the turn field, `crate::variant::text`), in the hash
//! ([`Position::turn_key`]), restored by `unmake` (the undo record keeps both) and seen by the
//! network's encoding (`Position::moves_left_in_turn`).
//!
//! Unlike Jupiter's doubled turns (`movegen::doubled`), a turn is never expanded into compound
//! moves: a progressive turn of ten moves would have astronomically many.

use crate::{
    position::Position,
    types::Color,
    variant::turns::{TurnCheckRule, TurnLength, TurnSchedule},
};

impl Position {
    /// The variant's turn schedule, if turns have several moves.
    #[inline]
    pub(crate) fn schedule(&self) -> Option<&TurnSchedule> {
        self.variant.rules.turns.as_ref()
    }

    /// Moves the side to move has left in the current turn, the next one included: 1 in every
    /// variant with one move per turn.
    #[inline]
    pub fn moves_left_in_turn(&self) -> u32 {
        if self.schedule().is_some() {
            self.turn_left as u32
        } else {
            1
        }
    }

    /// The number of moves of the current turn (1 in every variant with one move per turn).
    pub fn turn_length(&self) -> u32 {
        self.schedule().map_or(1, |s| s.quota(self.side, self.fullmove))
    }

    /// The hash of the turn state: the moves left, and in a progressive game the turn's length
    /// too (the same board with the same moves left in a later turn has longer turns ahead).
    /// Fixed constants mixed like the variant's keys, so that the variant's key table (and every
    /// hash of a variant without `[turns]`, where this is 0) stays as it was.
    #[inline]
    pub(crate) fn turn_key(&self) -> u64 {
        let Some(schedule) = self.schedule() else { return 0 };
        let length = match schedule.length {
            TurnLength::Progressive => self.turn_length() as u64,
            TurnLength::Fixed { .. } => 0,
        };
        mix(0x7E2A_11D5_0C3B_9F41 ^ (self.turn_left as u64) ^ (length << 20))
    }

    /// Called by `make` after the move of `us` is on the board: whether `us` moves again in
    /// this turn. If so, the moves left go down by one and an en-passant right the move made
    /// is dropped (only the opponent could use it, and it would have to do so at once: its
    /// next chance comes after another move of `us`). Otherwise the caller ends the turn and
    /// calls [`Position::start_turn`].
    pub(crate) fn turn_goes_on(&mut self, us: Color) -> bool {
        let Some(schedule) = self.schedule() else { return false };
        if self.turn_left <= 1 {
            return false;
        }
        // A check with an earlier move ends the turn (Two Move Chess, Scottish Progressive).
        // Under the other rules such a check is illegal (`last_move_only`) or leaves the turn
        // going on (`any`).
        if schedule.check == TurnCheckRule::EndsTurn && self.in_check(us.other()) {
            return false;
        }
        self.turn_left -= 1;
        self.ep = None;
        true
    }

    /// Starts the turn of the side to move (after the side and the move number changed).
    #[inline]
    pub(crate) fn start_turn(&mut self) {
        if let Some(schedule) = self.schedule() {
            self.turn_left = schedule.quota(self.side, self.fullmove).min(u16::MAX as u32) as u16;
        }
    }
}

/// splitmix64's finaliser: spreads the turn state over the key's bits.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
