//! Jupiter's turn procedure beyond the actions themselves (jupiter.md §5.3-§5.6): the
//! start-of-turn snapshot (which pieces are doubled, which are poisonous), the burn check, the
//! poison check, the Kamikaze's self-removal and the combined effect of a turn (§9.2), which
//! the doubled-turn generator compares.
//!
//! Every removal goes through `set_square`, so `unmake` and [`Position::rewind`] undo them like
//! any other edit. Variants without such pieces never reach this code (`TurnRules::has_checks`,
//! empty `doublers`), so other games pay one branch per turn.

use crate::{
    moves::{Move, MoveKind, MoveList},
    position::{Position, SquareSet},
    types::{Color, Piece, Square},
    variant::powers::{Dir, Power},
};

/// One candidate of the doubled-turn generator: a move, its position hash and where its
/// combined effect lies in [`TurnState::effects`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Candidate {
    pub mv: Move,
    /// The doubled piece the move is attributed to (its square at the start of the turn).
    pub doubled_piece: Square,
    pub hash: u64,
    pub effect_start: u32,
    pub effect_len: u32,
}

/// Buffers of the turn procedure, kept in the position so that turns and doubled-turn
/// generation never allocate once they have grown.
#[derive(Clone, Debug, Default)]
pub(crate) struct TurnState {
    /// Squares whose piece a Poisoner sees at the start of the turn being made (jupiter.md
    /// §5.4 rule 1). The permanently poisonous pieces need no snapshot: the journal keeps the
    /// start-of-turn occupant of every square the turn edits, which is all the check reads.
    pub(crate) poison_seen: SquareSet,
    /// Journal indices of conversions: edits that keep the piece's identity (§5.4 rule 4).
    pub(crate) conversions: Vec<u32>,
    /// The doubled-turn generator's buffers.
    pub(crate) doubled: DoubledBuffers,
}

/// Buffers of the doubled-turn generator (`movegen/doubled.rs`).
#[derive(Clone, Debug, Default)]
pub(crate) struct DoubledBuffers {
    /// The actions of one piece, first and second.
    pub(crate) firsts: MoveList,
    pub(crate) seconds: MoveList,
    /// (square, new occupant) lists of combined effects.
    pub(crate) effects: Vec<(Square, Option<Piece>)>,
    pub(crate) candidates: Vec<Candidate>,
}

impl Position {
    /// The squares of the pieces that the first piece along a `sight` line of some piece with
    /// the power `pick` selects meets (Doubler: `double`, Poisoner: `poison_sight`), either side.
    fn seen_by(&self, types: &[crate::types::PieceType], sight_of: fn(&Power) -> Option<&[Vec<Dir>; 2]>) -> SquareSet {
        let present = |&t: &crate::types::PieceType| {
            self.counts[Piece::new(t, Color::Blue).index()] + self.counts[Piece::new(t, Color::Tan).index()] > 0
        };
        if !types.iter().any(present) {
            return SquareSet::EMPTY;
        }
        let mut seen = SquareSet::EMPTY;
        for &t in types {
            for color in [Color::Blue, Color::Tan] {
                let watcher = Piece::new(t, color);
                if self.counts[watcher.index()] == 0 {
                    continue;
                }
                for sq in self.occupied[color.index()].iter().filter(|&s| self.board[s.index()] == Some(watcher)) {
                    for power in &self.variant.powers[t.index()] {
                        let Some(sight) = sight_of(power) else { continue };
                        for d in &sight[color.index()] {
                            if let Some(first) = self.first_piece_along(sq, d) {
                                seen.insert(first);
                            }
                        }
                    }
                }
            }
        }
        seen
    }

    fn first_piece_along(&self, from: Square, d: &Dir) -> Option<Square> {
        let dims = self.variant.dims;
        let (f, r) = self.variant.coords[from.index()];
        let limit = if d.max_steps == 0 { i32::MAX } else { d.max_steps as i32 };
        let mut n = 1;
        while n <= limit {
            let sq = dims.square(f as i32 + d.dx as i32 * n, r as i32 + d.dy as i32 * n)?;
            if self.board[sq.index()].is_some() {
                return Some(sq);
            }
            n += 1;
        }
        None
    }

    /// Pieces of either side that some Doubler sees (jupiter.md §5.3 rule 1, before taking
    /// out the immobilized ones).
    pub(crate) fn seen_by_doublers(&self) -> SquareSet {
        self.seen_by(&self.variant.turn.doublers, |p| match p {
            Power::Double { sight } => Some(sight),
            _ => None,
        })
    }

    /// Whether an enemy immobilizer reaches the piece on `sq` (jupiter.md §5.1), in the
    /// position layer: `make` needs it for the doubled piece's exemption.
    fn immobilized(&self, sq: Square) -> bool {
        let Some(p) = self.board[sq.index()] else { return false };
        let them = p.color().other();
        let (f, r) = self.variant.coords[sq.index()];
        let dims = self.variant.dims;
        self.variant.immobilizers.iter().any(|&t| {
            self.variant.powers[t.index()].iter().any(|power| {
                let Power::Immobilize { reach } = power else { return false };
                // The immobilizer stands on sq - d for one of its reach steps d.
                reach[them.index()].iter().any(|d| {
                    dims.square(f as i32 - d.dx as i32, r as i32 - d.dy as i32)
                        .is_some_and(|s| self.board[s.index()] == Some(Piece::new(t, them)))
                })
            })
        })
    }

    /// Whether the piece on `sq` is doubled at the start of the turn (seen by a Doubler, not
    /// immobilized).
    pub(crate) fn doubled_at_start(&self, sq: Square) -> bool {
        !self.variant.turn.doublers.is_empty() && self.seen_by_doublers().contains(sq) && !self.immobilized(sq)
    }

    /// Records which pieces Poisoners see at the start of the turn about to be made (jupiter.md
    /// §5.4 rule 1); costs one count test per Poisoner type when none is on the board.
    pub(crate) fn snapshot_poison(&mut self) {
        let seen = if self.variant.turn.poisoners.is_empty() {
            SquareSet::EMPTY
        } else {
            self.seen_by(&self.variant.turn.poisoners, |p| match p {
                Power::PoisonSight { sight } => Some(sight),
                _ => None,
            })
        };
        self.turn.poison_seen = seen;
    }

    /// Burn check (jupiter.md §5.5): removes, all at once, every piece next to a burning piece
    /// of the other side, except the piece on `exempt` (the doubled piece between its actions).
    pub(crate) fn burn_check(&mut self, exempt: Square) {
        let turn = &self.variant.turn;
        let mut burned = SquareSet::EMPTY;
        let dims = self.variant.dims;
        for color in [Color::Blue, Color::Tan] {
            if !turn.burner_types.iter().any(|&t| self.counts[Piece::new(t, color).index()] > 0) {
                continue;
            }
            for sq in self.occupied[color.index()].iter() {
                let p = self.board[sq.index()].expect("occupancy matches the board");
                if !turn.burns[p.kind().index()] {
                    continue;
                }
                let (f, r) = self.variant.coords[sq.index()];
                for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)] {
                    if let Some(n) = dims.square(f as i32 + dx, r as i32 + dy) {
                        if self.board[n.index()].is_some_and(|q| q.color() != color) {
                            burned.insert(n);
                        }
                    }
                }
            }
        }
        if !exempt.is_none() {
            burned.remove(exempt);
        }
        for sq in burned.iter() {
            self.set_square(sq, None);
        }
    }

    /// Poison check (jupiter.md §5.4 rules 2-3) against the snapshot of the turn that began at
    /// journal index `turn_start`: a piece standing where a poisonous piece of the other side
    /// started, and that is a different piece from it, is removed (all at once), except the
    /// piece on `exempt`.
    pub(crate) fn poison_check(&mut self, turn_start: usize, exempt: Square) {
        let poisonous_at_start = |pos: &Position, sq: Square, start: Option<Piece>| {
            start.is_some_and(|p| pos.variant.turn.poisonous[p.kind().index()] || pos.turn.poison_seen.contains(sq))
        };
        // Most turns edit no poisonous piece's square: skip the sets then.
        if !self.journal[turn_start..].iter().any(|&(sq, start)| poisonous_at_start(self, sq, start)) {
            return;
        }
        let mut poisoned = SquareSet::EMPTY;
        let mut visited = SquareSet::EMPTY;
        for i in turn_start..self.journal.len() {
            let (sq, start_occupant) = self.journal[i];
            if visited.contains(sq) {
                continue;
            }
            // The first edit of a square this turn recorded its start-of-turn occupant.
            visited.insert(sq);
            let Some(p) = start_occupant else { continue };
            if !self.variant.turn.poisonous[p.kind().index()] && !self.turn.poison_seen.contains(sq) {
                continue;
            }
            let hit = self.board[sq.index()].is_some_and(|q| q.color() != p.color());
            if hit && sq != exempt && self.replaced_since(sq, turn_start) {
                poisoned.insert(sq);
            }
        }
        for sq in poisoned.iter() {
            self.set_square(sq, None);
        }
    }

    /// Whether the occupant of `sq` changed since journal index `turn_start` other than by
    /// conversion (which keeps the piece: §5.4 rule 4, a converted poisonous piece does not
    /// poison itself).
    fn replaced_since(&self, sq: Square, turn_start: usize) -> bool {
        (turn_start..self.journal.len())
            .any(|i| self.journal[i].0 == sq && !self.turn.conversions.contains(&(i as u32)))
    }

    /// Changes the owner of the piece on `sq` to `to`: an edit that keeps the piece's identity.
    pub(crate) fn convert_square(&mut self, sq: Square, to: Color) {
        let victim = self.board[sq.index()].expect("a conversion needs a piece");
        let index = self.journal.len() as u32;
        self.set_square(sq, Some(Piece::new(victim.kind(), to)));
        if self.journal.len() as u32 > index {
            self.turn.conversions.push(index);
        }
    }

    /// The piece on `sq` has just captured (by its own move, a relayed move, or being pushed
    /// onto an enemy by a tank): a Kamikaze is removed at the same moment (jupiter.md §3.4).
    /// Tank pushes (`displace.rs`) call this for the pushed piece that captures.
    #[inline]
    pub(crate) fn capture_penalty(&mut self, sq: Square) {
        let turn = &self.variant.turn;
        if turn.any_kamikaze && self.board[sq.index()].is_some_and(|p| turn.dies_when_capturing[p.kind().index()]) {
            self.set_square(sq, None);
        }
    }

    /// Takes back every journaled edit from index `len` on.
    #[inline(always)]
    pub(crate) fn rewind(&mut self, len: usize) {
        while self.journal.len() > len {
            let (sq, old) = self.journal.pop().expect("the journal holds these edits");
            if self.board[sq.index()].is_some() {
                self.take(sq);
            }
            if let Some(p) = old {
                self.put(sq, p);
            }
        }
        if !self.turn.conversions.is_empty() {
            while self.turn.conversions.last().is_some_and(|&i| i as usize >= len) {
                self.turn.conversions.pop();
            }
        }
    }

    /// Appends to `effects` the combined effect of the edits since journal index `turn_start`
    /// (jupiter.md §9.2): every square whose occupant differs from before, with its occupant
    /// now, in ascending square order. Returns how many entries it appended.
    pub(crate) fn effect_since(&self, turn_start: usize, effects: &mut Vec<(Square, Option<Piece>)>) -> usize {
        let start = effects.len();
        let mut seen = SquareSet::EMPTY;
        for i in turn_start..self.journal.len() {
            let (sq, old) = self.journal[i];
            if seen.contains(sq) {
                continue;
            }
            seen.insert(sq);
            let now = self.board[sq.index()];
            if now != old {
                effects.push((sq, now));
            }
        }
        effects[start..].sort_unstable_by_key(|e| e.0);
        effects.len() - start
    }
}

/// Where the acting piece of a single action stands after it (the moving piece's `to`, or the
/// start square of a stationary action).
pub(crate) fn actor_square_after(m: &Move) -> Square {
    match m.kind {
        MoveKind::Normal | MoveKind::Swap | MoveKind::Shove | MoveKind::Castle => m.to,
        _ => m.from,
    }
}
