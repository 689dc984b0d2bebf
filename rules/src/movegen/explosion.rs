//! The legality rules of `[explosion]` (atomic chess, Explosion Chess #17). The blast itself
//! is a board edit of `make` (`position::capture_effects`); here is what it means for check:
//!
//! * `adjacent_royals_safe`: a royal next to an enemy royal is not in check, and a square next
//!   to the enemy royal is not attacked for a castling king (atomic: capturing a royal there
//!   would blow up the capturer's own). [`Position::shielded_by_enemy_royal`] is asked by
//!   `in_check` and by castling.
//! * `own_royal_blast = "illegal"`: a move whose blast (or whose capturer's death, for a royal
//!   capturer) removes a royal of the mover is illegal. With `capturer_dies` this is atomic's
//!   "kings cannot capture": no separate field, so the two can never disagree.
//! * `enemy_royal_blast = "wins"`: a move that removes the opponent's last royal is legal even
//!   if it leaves the mover in check; the game is then over (`immediate_outcome`: a side without
//!   royals in an explosion variant has lost).
//!
//! Every capture is tested by making it (a blast can expose the mover's royal however far the
//! captured man stood from it), so the pin shortcut of `legal_moves` covers quiet moves only.

use crate::{
    position::Position,
    spec::capture_spec::{EnemyRoyalBlast, OwnRoyalBlast},
    types::{Color, Square},
};

impl Position {
    /// Whether the royal of `color` on `sq` is safe from capture because an enemy royal stands
    /// next to it (`adjacent_royals_safe`); false in every variant without that rule.
    #[inline]
    pub(crate) fn shielded_by_enemy_royal(&self, sq: Square, color: Color) -> bool {
        let Some(ex) = &self.variant.rules.explosion else { return false };
        ex.adjacent_royals_safe
            && self.royals[color.other().index()][..self.n_royals[color.other().index()] as usize]
                .iter()
                .any(|&r| ex.adjacent(sq, r))
    }

    /// After the mover `us` made a move (already on the board), whether it was legal under the
    /// explosion's royal rules; `royals_before` are both sides' royal counts before it.
    pub(super) fn legal_after_blast(&self, us: Color, royals_before: [u8; 2]) -> bool {
        let ex = self.variant.rules.explosion.as_ref().expect("an explosion variant");
        let (mine, theirs) = (self.n_royals[us.index()], self.n_royals[us.other().index()]);
        if mine < royals_before[us.index()] && ex.own_royal_blast == OwnRoyalBlast::Illegal {
            return false;
        }
        if theirs == 0 && royals_before[us.other().index()] > 0 && ex.enemy_royal_blast == EnemyRoyalBlast::Wins {
            return true;
        }
        !self.in_check(us)
    }
}
