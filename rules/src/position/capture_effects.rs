//! What a capture does besides removing its victims (issue 21): the blast of `[explosion]`
//! (atomic chess, Explosion Chess #17) and the rebirth of `[rebirth]` (Circe Chess #29).
//!
//! `make` reads the victims of an action before applying it ([`Position::victims_of`]) and
//! hands them here once the action is on the board ([`Position::apply_capture_effects`]).
//! Every removal and rebirth goes through `set_square`, so `unmake` undoes them like any other
//! edit and the hash follows. Neither effect adds state to the position: the position string
//! and the hash are unchanged. A blast that removes a king or a rook from its castling square
//! takes the castling rights that need it (as a capture on that square does); a rook reborn on
//! its home square does not get a right back (rights only ever disappear, as in chess).

use std::sync::Arc;

use crate::{
    moves::{Move, MoveKind, MAX_EXTRA_CAPTURES},
    position::{Position, SquareSet},
    spec::capture_spec::{BlastCentre, BlastSide},
    types::{Piece, Square},
};

/// The most men one action removes: its listed captures and the man on its destination.
const MAX_VICTIMS: usize = 2 * MAX_EXTRA_CAPTURES + 1;

/// The men an action captures, as they stood before it (square and piece).
#[derive(Clone, Copy)]
pub(crate) struct Victims {
    list: [(Square, Option<Piece>); MAX_VICTIMS],
    len: usize,
}

impl Victims {
    pub(crate) const NONE: Victims = Victims { list: [(Square::NONE, None); MAX_VICTIMS], len: 0 };

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn iter(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.list[..self.len].iter().filter_map(|&(sq, p)| p.map(|p| (sq, p)))
    }

    fn push(&mut self, sq: Square, p: Piece) {
        self.list[self.len] = (sq, Some(p));
        self.len += 1;
    }
}

impl Position {
    /// Whether captures have side effects in this variant (a blast or a rebirth).
    #[inline]
    pub(crate) fn has_capture_effects(&self) -> bool {
        self.variant.rules.explosion.is_some() || self.variant.rules.rebirth.is_some()
    }

    /// The men the action `mv` of the side to move captures, read before it is applied.
    pub(crate) fn victims_of(&self, mv: &Move) -> Victims {
        let mut victims = Victims::NONE;
        if !matches!(mv.kind, MoveKind::Normal | MoveKind::Stationary) {
            return victims;
        }
        for &sq in mv.captures() {
            if let Some(p) = self.board[sq.index()] {
                victims.push(sq, p);
            }
        }
        if mv.kind == MoveKind::Normal && mv.to != mv.from {
            if let Some(p) = self.board[mv.to.index()].filter(|p| p.color() != self.side) {
                victims.push(mv.to, p);
            }
        }
        victims
    }

    /// Applies the blast or the rebirths that the capture of `victims` by the action `mv` (now
    /// on the board) sets off.
    pub(crate) fn apply_capture_effects(&mut self, mv: &Move, victims: &Victims) {
        if victims.is_empty() {
            return;
        }
        // The tables are read while the board is edited.
        let variant = Arc::clone(&self.variant);
        if let Some(ex) = &variant.rules.explosion {
            let us = self.side;
            // Where the capturer stands now: a displacement lands on `to`, a shot stays put.
            let capturer = if mv.kind == MoveKind::Normal { mv.to } else { mv.from };
            let mut blasted = SquareSet::EMPTY;
            let mut blast = |centre: Square, owner, pos: &Position| {
                for s in ex.around(centre) {
                    let Some(p) = pos.board[s.index()] else { continue };
                    let hit = match ex.blast {
                        BlastSide::Both => true,
                        BlastSide::CapturedSide => p.color() == owner,
                    };
                    if hit && !ex.immune[p.kind().index()] {
                        blasted.insert(s);
                    }
                }
            };
            match (ex.centre, mv.kind) {
                // One blast where the capturer landed, whoever and wherever the victims were.
                (BlastCentre::Landing, MoveKind::Normal) => blast(mv.to, us.other(), self),
                _ => {
                    for (sq, p) in victims.iter() {
                        blast(sq, p.color(), self);
                    }
                }
            }
            if ex.capturer_dies {
                blasted.insert(capturer);
            }
            for sq in blasted.iter() {
                self.set_square(sq, None);
                self.lose_castling_rights_at(sq);
            }
        }
        if let Some(rebirth) = &variant.rules.rebirth {
            let dims = variant.dims;
            for (sq, p) in victims.iter() {
                if let Some(home) = rebirth.square_for(dims, p, sq) {
                    if self.board[home.index()].is_none() {
                        self.set_square(home, Some(p));
                    }
                }
            }
        }
    }

    /// Drops the castling rights that need a king or rook on `sq` (it has just been emptied).
    /// Called inside `make`, between its two hashings of the castling state.
    fn lose_castling_rights_at(&mut self, sq: Square) {
        for bit in 0..4 {
            if self.castling & (1 << bit) != 0 && (self.castle_kings[bit / 2] == sq || self.castle_rooks[bit] == sq) {
                self.castling &= !(1 << bit);
            }
        }
    }
}
