//! The mate-only check rule (`checking = "mate_only"`, Checkless or Prohibition Chess, issue 21
//! row #4): a move that gives check is illegal unless it mates.
//!
//! "Mates" is judged under the same rules: the checked side has no legal move, where its own
//! check-giving replies must in turn mate. The test therefore recurses through chains of
//! counter-checks (cutechess's `checkless` does the same). Such chains are short in practice;
//! to bound the work in a pathological cycle of counter-checks, after [`MAX_DEPTH`] nested
//! tests the innermost side's checks are no longer filtered.

use crate::{moves::MoveList, position::Position};

/// Nested mate tests after which a side's checking moves count as legal without a test.
const MAX_DEPTH: u32 = 16;

impl Position {
    /// Drops the moves of `out` (legal under every other rule) that check without mating;
    /// `depth` counts the mate tests this one is nested in.
    pub(super) fn retain_mating_checks(&mut self, out: &mut MoveList, depth: u32) {
        if depth >= MAX_DEPTH {
            return;
        }
        let them = self.side.other();
        let mut replies = MoveList::new();
        out.retain(|&m| {
            self.make(m);
            let ok = !self.in_check(them) || {
                self.legal_moves_nested(&mut replies, depth + 1);
                replies.is_empty()
            };
            self.unmake();
            ok
        });
    }
}
