//! Actions that displace pieces other than the mover or create pieces (Jupiter, jupiter.md
//! §3.4): Go Away's push, Come Here's pull, the Tribble's reproduction and the tanks' shove.
//! Every edit goes through `set_square`, so `unmake` needs nothing from here. The moves carry
//! only their defining squares; what else moves follows from them and the board (§9.2).

use crate::{
    moves::{Move, MoveKind},
    position::{make::TurnFacts, Position},
    types::{Piece, Square},
};

impl Position {
    pub(crate) fn apply_displacement(&mut self, mv: &Move, facts: &mut TurnFacts) {
        match mv.kind {
            MoveKind::Push | MoveKind::Pull => {
                let (dx, dy) = self.unit_step(mv.from, mv.aux);
                let (dx, dy) = if mv.kind == MoveKind::Pull { (-dx, -dy) } else { (dx, dy) };
                let target = self.set_square(mv.aux, None).expect("a push or pull moves a piece");
                let to = self.step(mv.aux, dx, dy).expect("a pushed or pulled piece stays on the board");
                debug_assert!(self.board[to.index()].is_none(), "a pushed or pulled piece lands on an empty square");
                self.set_square(to, Some(target));
            }
            MoveKind::Reproduce => {
                let parent = self.board[mv.from.index()].expect("a reproducing piece stands on `from`");
                debug_assert!(self.board[mv.aux.index()].is_none(), "a new piece appears on an empty square");
                self.set_square(mv.aux, Some(Piece::new(parent.kind(), parent.color())));
                // Not irreversible: the piece count rises, and a later capture can bring an
                // earlier position back.
            }
            MoveKind::Shove => self.apply_shove(mv, facts),
            _ => unreachable!("move kind {:?} is not a displacement", mv.kind),
        }
    }

    /// The tank steps onto `to` and the line of friendly pieces from `to` on moves one square
    /// along; the last one captures what it lands on, or leaves the game off the board. Edited
    /// from the far end, so that each square is overwritten by its new occupant.
    fn apply_shove(&mut self, mv: &Move, facts: &mut TurnFacts) {
        let (dx, dy) = self.unit_step(mv.from, mv.to);
        let tank = self.board[mv.from.index()].expect("a shove starts on the tank");
        let mut pushed = 1;
        let mut last = mv.to;
        while let Some(next) = self.step(last, dx, dy) {
            match self.board[next.index()] {
                Some(q) if q.color() == tank.color() => {
                    pushed += 1;
                    last = next;
                }
                _ => break,
            }
        }
        let beyond = self.step(last, dx, dy);
        let removed = beyond.is_none_or(|b| self.board[b.index()].is_some());
        let mut sq = last;
        let mut dest = beyond;
        for _ in 0..pushed {
            let piece = self.board[sq.index()];
            if let Some(d) = dest {
                self.set_square(d, piece);
            }
            dest = Some(sq);
            sq = self.step(sq, -dx, -dy).expect("the line of pushed pieces starts next to the tank");
        }
        self.set_square(mv.from, None);
        self.set_square(mv.to, Some(mv.piece.map_or(tank, |t| tank.with_kind(t))));
        facts.irreversible |= removed || mv.piece.is_some();
    }

    /// The unit step from `a` towards `b`, which lie on one line.
    fn unit_step(&self, a: Square, b: Square) -> (i32, i32) {
        let d = self.variant.dims;
        ((d.file(b) - d.file(a)).signum(), (d.rank(b) - d.rank(a)).signum())
    }

    fn step(&self, sq: Square, dx: i32, dy: i32) -> Option<Square> {
        let d = self.variant.dims;
        d.square(d.file(sq) + dx, d.rank(sq) + dy)
    }
}
