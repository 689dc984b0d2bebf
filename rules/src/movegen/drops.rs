//! Drop moves (`[drops]`): a piece of the side to move's hand onto an empty square of its
//! targets (the drop region, less a promoting type's promotion zone), the opposite-colour rule
//! for colour-bound types (Pre-chess's bishops), and the forced drop (Pre-chess's placement:
//! while a side holds pieces and can drop one, it must).
//!
//! Drops are generated for the side to move only, like castling: they attack nothing, so the
//! attack tests never ask for them.

use crate::{
    movegen::MoveSink,
    moves::{Move, MoveKind, MoveList},
    position::Position,
    types::{Piece, PieceType, Square},
    variant::drops::{is_dark, DropRules},
};

/// The opposite-colour rule's view of one colour-bound type of the side to move: pieces in hand,
/// and whether one of its kind already stands on a dark / light square.
#[derive(Clone, Copy)]
struct Bound {
    kind: PieceType,
    in_hand: u8,
    on_dark: bool,
    on_light: bool,
}

impl Position {
    /// The drops of the side to move (pseudo-legal: royal safety is checked by `legal_moves`).
    pub(crate) fn drop_moves<S: MoveSink>(&self, out: &mut S) {
        let Some(rules) = self.variant.drops.as_ref() else { return };
        let us = self.side;
        if !self.has_pieces_in_hand(us) {
            return;
        }
        let v = &*self.variant;
        let d = v.dims;
        // The opposite-colour rule, gathered once: the bound types and the free squares of the
        // drop region by colour.
        let mut bound = [None; 4];
        let mut n_bound = 0;
        let (mut free_dark, mut free_light) = (0u32, 0u32);
        if rules.opposite_colours.iter().any(|&b| b) {
            for (t, _) in rules.opposite_colours.iter().enumerate().filter(|(_, &b)| b) {
                let kind = PieceType(t as u8);
                let own = Piece::new(kind, us);
                let mut b = Bound { kind, in_hand: self.in_hand(own), on_dark: false, on_light: false };
                for sq in self.occupied[us.index()].iter().filter(|&s| self.board[s.index()] == Some(own)) {
                    if is_dark(d, sq) {
                        b.on_dark = true;
                    } else {
                        b.on_light = true;
                    }
                }
                assert!(n_bound < bound.len(), "at most {} colour-bound types in [drops]", bound.len());
                bound[n_bound] = Some(b);
                n_bound += 1;
            }
            for (i, &inside) in rules.region[us.index()].iter().enumerate() {
                let sq = Square(i as u16);
                if inside && self.board[i].is_none() {
                    if is_dark(d, sq) {
                        free_dark += 1;
                    } else {
                        free_light += 1;
                    }
                }
            }
        }
        let bound = &bound[..n_bound];
        for t in 0..v.piece_count() {
            let kind = PieceType(t as u8);
            let p = Piece::new(kind, us);
            if self.in_hand(p) == 0 {
                continue;
            }
            for &sq in &rules.targets[p.index()] {
                if self.board[sq.index()].is_some() {
                    continue;
                }
                if !bound.is_empty() && !Self::colours_allow(bound, kind, is_dark(d, sq), free_dark, free_light) {
                    continue;
                }
                out.push(Move::normal(sq, sq).with_kind(MoveKind::Drop).with_piece(Some(kind)));
            }
        }
    }

    /// The opposite-colour rule (Fairy-Stockfish's `dropOppositeColoredBishop`) for a drop of
    /// `kind` on a square of colour `dark`, with `free_dark` / `free_light` empty squares of the
    /// drop region before it: a colour-bound piece may not join one of its kind on the same
    /// colour; any other drop must leave, for each colour-bound type, at least as many colours
    /// still open to it (no piece of its kind there yet, a free square left) as it has pieces
    /// in hand.
    fn colours_allow(bound: &[Option<Bound>], kind: PieceType, dark: bool, free_dark: u32, free_light: u32) -> bool {
        let (left_dark, left_light) = if dark { (free_dark - 1, free_light) } else { (free_dark, free_light - 1) };
        bound.iter().flatten().all(|b| {
            if b.kind == kind {
                return !(if dark { b.on_dark } else { b.on_light });
            }
            let open = u8::from(!b.on_dark && left_dark > 0) + u8::from(!b.on_light && left_light > 0);
            open >= b.in_hand
        })
    }

    /// The forced drop (`must_drop`): while the side to move holds pieces and one of `legal` is
    /// a drop, only the drops stay. Without a legal drop it moves on the board as usual.
    pub(crate) fn retain_forced_drops(&self, legal: &mut MoveList) {
        let forced = self.variant.drops.as_ref().is_some_and(|r: &DropRules| r.must_drop);
        if forced && self.has_pieces_in_hand(self.side) && legal.iter().any(|m| m.kind == MoveKind::Drop) {
            legal.retain(|m| m.kind == MoveKind::Drop);
        }
    }
}
