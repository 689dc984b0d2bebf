//! `path`: legs walked in sequence, each a ride in its own directions, the later ones at a
//! given turn from the previous leg (Hooklet, Hawklet, Eye, Yew, Capricorn, Great Hook, Far
//! Queen, Talia; jupiter.md §3.1 "path move", §3.4; the zebra of list #56, whose second leg has
//! a minimum length). Every square walked through must be
//! empty, a friend or the board edge ends the walk, and a capture ends the move. Routes that
//! reach the same square are one move (§9.2): each destination is emitted once.

use crate::{
    movegen::{powers::offset, MoveSink},
    position::{Position, SquareSet},
    types::{Piece, Square},
    variant::powers::{Dir, PathLeg},
};

pub(super) fn moves<S: MoveSink>(pos: &Position, from: Square, p: Piece, legs: &[PathLeg], out: &mut S) {
    let mut walk = Walk {
        pos,
        from,
        p,
        legs,
        reached: SquareSet::EMPTY,
        // A square the piece's Betza also reaches is that Betza move (one move, not two).
        betza_too: !pos.variant().pieces[p.kind().index()].betza.is_empty(),
    };
    walk.leg(0, from, None, out);
}

struct Walk<'a> {
    pos: &'a Position,
    from: Square,
    p: Piece,
    legs: &'a [PathLeg],
    /// Destinations already emitted in this generation.
    reached: SquareSet,
    betza_too: bool,
}

impl Walk<'_> {
    fn leg<S: MoveSink>(&mut self, i: usize, start: Square, previous: Option<&Dir>, out: &mut S) {
        let leg = &self.legs[i];
        let c = self.p.color().index();
        for d in &leg.dirs[c] {
            if let (Some(turns), Some(prev)) = (leg.turn, previous) {
                if !turns.allows(prev, d) {
                    continue;
                }
            }
            let limit = if d.max_steps == 0 { i32::MAX } else { d.max_steps as i32 };
            let mut n = 1;
            while n <= limit {
                let Some(sq) = offset(self.pos, start, d.dx as i32 * n, d.dy as i32 * n) else { break };
                // The start square is empty once the piece has left it.
                let occupant = if sq == self.from { None } else { self.pos.piece_at(sq) };
                if n < leg.min as i32 {
                    // Short of the leg's minimum: passed only, so it must be empty.
                    if occupant.is_some() {
                        break;
                    }
                    n += 1;
                    continue;
                }
                match occupant {
                    Some(q) => {
                        if leg.stop && q.color() != self.p.color() {
                            self.emit(sq, out);
                        }
                        break;
                    }
                    None => {
                        if leg.stop && sq != self.from {
                            self.emit(sq, out);
                        }
                        let next_may_start = !leg.next_from_end || n == limit;
                        if i + 1 < self.legs.len() && next_may_start {
                            self.leg(i + 1, sq, Some(d), out);
                        }
                    }
                }
                n += 1;
            }
        }
    }

    fn emit<S: MoveSink>(&mut self, to: Square, out: &mut S) {
        if self.reached.contains(to) {
            return;
        }
        self.reached.insert(to);
        if self.betza_too && out.has_displacement(self.from, to) {
            return;
        }
        self.pos.push_displacement(self.from, to, self.p, out);
    }
}
