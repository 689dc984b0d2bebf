//! The move type: one value that carries every kind of action the seed games need.
//!
//! A move's identity is `(kind, from, to, sorted removed squares, aux square, piece)`, as the
//! dossiers define it (typhoon.md §8.2, chushin-shogi.md §9.2). The capture of a piece standing
//! on `to` is implicit and never listed; every *other* removed square is. The struct is `Copy`
//! and small (40 bytes) so that move lists never allocate per node.

use crate::types::{PieceType, Square};

/// The most squares one move can remove besides `to`: a Sorcerer's capture line on a board up to
/// 17 squares wide (longer lines are refused when the variant loads).
pub const MAX_EXTRA_CAPTURES: usize = 15;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MoveKind {
    /// A displacement `from → to`, capturing on `to` if an enemy stands there and on every
    /// square of `captures` (hops, en passant, multi-captures). `piece` is the promotion, if any.
    Normal,
    /// Castling: the royal moves `from → to`, the rook moves from `aux` to its castled square.
    Castle,
    /// A drop of `piece` from the hand onto `to` (`from == to`).
    Drop,
    /// Capture without moving (igui, shooting): `from == to`, victims in `captures`.
    Stationary,
    /// Conversion without moving (Cuckoo): `from == to`, the converted piece on `aux`.
    Convert,
    /// Swap of the piece on `from` with the piece on `to`; `piece` is the mover's promotion.
    Swap,
    /// Pass (turn skip) made by the piece on `from`.
    Pass,
    /// Self-capture of a paralysed piece on `from` (`from == to`).
    SelfCapture,
    /// A setup ply: place `piece` (or nothing, if `None`) on the pair's left square `to`.
    Setup,
    /// Jupiter's Go Away: push the piece on `aux` away (`from == to`).
    Push,
    /// Jupiter's Come Here: pull the piece on `aux` closer (`from == to`).
    Pull,
    /// Jupiter's Tribble: a new piece of the mover's type appears on `aux` (`from == to`).
    Reproduce,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub kind: MoveKind,
    pub from: Square,
    pub to: Square,
    /// Promotion target (Normal, Swap), dropped type (Drop) or placed type (Setup).
    pub piece: Option<PieceType>,
    /// Castling rook square, converted square (Missionary, Cuckoo) or other target square.
    pub aux: Square,
    n_captures: u8,
    captures: [Square; MAX_EXTRA_CAPTURES],
}

impl Move {
    #[inline]
    pub fn normal(from: Square, to: Square) -> Move {
        Move {
            kind: MoveKind::Normal,
            from,
            to,
            piece: None,
            aux: Square::NONE,
            n_captures: 0,
            captures: [Square::NONE; MAX_EXTRA_CAPTURES],
        }
    }

    #[inline]
    pub fn with_kind(mut self, kind: MoveKind) -> Move {
        self.kind = kind;
        self
    }

    #[inline]
    pub fn with_piece(mut self, piece: Option<PieceType>) -> Move {
        self.piece = piece;
        self
    }

    #[inline]
    pub fn with_aux(mut self, aux: Square) -> Move {
        self.aux = aux;
        self
    }

    /// Adds a removed square (other than `to`), keeping the list sorted and free of duplicates.
    #[inline]
    pub fn with_capture(mut self, sq: Square) -> Move {
        self.add_capture(sq);
        self
    }

    #[inline]
    pub fn add_capture(&mut self, sq: Square) {
        let n = self.n_captures as usize;
        let mut i = n;
        while i > 0 && self.captures[i - 1] > sq {
            i -= 1;
        }
        if i > 0 && self.captures[i - 1] == sq {
            return;
        }
        assert!(n < MAX_EXTRA_CAPTURES, "a move removes at most {MAX_EXTRA_CAPTURES} extra squares");
        self.captures.copy_within(i..n, i + 1);
        self.captures[i] = sq;
        self.n_captures += 1;
    }

    /// Removed squares other than `to`, in ascending square index.
    #[inline]
    pub fn captures(&self) -> &[Square] {
        &self.captures[..self.n_captures as usize]
    }

    pub fn pass(from: Square) -> Move {
        Move::normal(from, from).with_kind(MoveKind::Pass)
    }
}

/// A reusable list of moves. Generators push into it; callers keep one per search depth so
/// that move generation never allocates once the buffers have grown.
pub type MoveList = Vec<Move>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_stay_sorted_and_unique() {
        let m = Move::normal(Square(0), Square(9))
            .with_capture(Square(5))
            .with_capture(Square(2))
            .with_capture(Square(7))
            .with_capture(Square(2));
        assert_eq!(m.captures(), &[Square(2), Square(5), Square(7)]);
        assert!(std::mem::size_of::<Move>() <= 40, "{}", std::mem::size_of::<Move>());
    }
}
