//! The move type: one value that carries every kind of action the seed games need.
//!
//! A move's identity is `(kind, from, to, sorted removed squares, aux square, piece)`, as the
//! dossiers define it (typhoon.md §8.2, chushin-shogi.md §9.2). The capture of a piece standing
//! on `to` is implicit and never listed; every *other* removed square is. The struct is `Copy`
//! so that move lists never allocate per node.
//!
//! A Jupiter doubled turn (jupiter.md §5.3, §9) is one `Move` holding two actions: the first in
//! the struct's own fields, the second in [`Move::second_action`]. Each action keeps its own
//! removed squares (one array, split after the first action's), so code that handles actions
//! works on single-action `Move`s ([`Move::first_action`], [`Move::second_action`]) and only
//! the turn procedure (`make`) and the text form see the pair.

use crate::types::{PieceType, Square};

/// The most squares one action can remove besides `to`: a Sorcerer's capture line on a board up
/// to 20 squares wide (longer lines are refused when the variant loads), and a Jupiter
/// Coordinator's two corners per friendly royal piece with the most royals a side can hold in a
/// game from the start array: its own five royal types (King or its Emperor, Elephant Prince,
/// Tiger Prince, Sultan, Ancient Emperor) and four converted from the enemy, who must keep one.
pub const MAX_EXTRA_CAPTURES: usize = 18;

/// Removed squares one move can carry: two actions of a doubled turn.
const MAX_REMOVED: usize = 2 * MAX_EXTRA_CAPTURES;

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
    /// Jupiter's Ox and Dragon Tanks: the tank steps `from → to` onto a friendly piece and
    /// pushes the line of pieces ahead of it one square on (jupiter.md §3.4); `captures` lists
    /// the enemies captured and the own pieces pushed off the board, except the one on `to`.
    Shove,
    /// Protean Chess's choice (`position::protean`): the man on `from` (`from == to`) becomes
    /// its side's protean man; nothing moves.
    Mark,
}

/// The second action of a doubled turn: the fields of a single-action [`Move`] but the removed
/// squares, which the move keeps after the first action's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Action {
    pub kind: MoveKind,
    pub from: Square,
    pub to: Square,
    pub piece: Option<PieceType>,
    pub aux: Square,
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
    /// Removed squares of both actions.
    n_captures: u8,
    /// How many of `captures` belong to the first action (all of them in a single action).
    n_first: u8,
    captures: [Square; MAX_REMOVED],
    second: Option<Action>,
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
            n_first: 0,
            captures: [Square::NONE; MAX_REMOVED],
            second: None,
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

    /// Adds a removed square to a single action (see [`Move::with_capture`]).
    #[inline]
    pub fn add_capture(&mut self, sq: Square) {
        debug_assert!(self.second.is_none(), "removed squares of a doubled turn are fixed by Move::doubled");
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
        self.n_first += 1;
    }

    /// Removed squares of the first (or only) action other than its `to`, in ascending index.
    #[inline]
    pub fn captures(&self) -> &[Square] {
        &self.captures[..self.n_first as usize]
    }

    /// A doubled turn: `first`, then `second`, both single actions.
    pub fn doubled(first: Move, second: Move) -> Move {
        assert!(first.second.is_none() && second.second.is_none(), "a doubled turn is two single actions");
        let mut m = first;
        let (a, b) = (first.n_first as usize, second.n_first as usize);
        m.captures[a..a + b].copy_from_slice(&second.captures[..b]);
        m.n_captures = (a + b) as u8;
        m.second =
            Some(Action { kind: second.kind, from: second.from, to: second.to, piece: second.piece, aux: second.aux });
        m
    }

    /// Whether this move is a doubled turn (two actions).
    #[inline]
    pub fn is_doubled(&self) -> bool {
        self.second.is_some()
    }

    /// The first (or only) action, as a single-action move.
    #[inline]
    pub fn first_action(&self) -> Move {
        if self.second.is_none() {
            return *self;
        }
        let mut m = *self;
        m.second = None;
        m.captures[self.n_first as usize..self.n_captures as usize].fill(Square::NONE);
        m.n_captures = self.n_first;
        m
    }

    /// The second action of a doubled turn, as a single-action move.
    #[inline]
    pub fn second_action(&self) -> Option<Move> {
        let a = self.second?;
        let mut m = Move::normal(a.from, a.to).with_kind(a.kind).with_piece(a.piece).with_aux(a.aux);
        let extra = &self.captures[self.n_first as usize..self.n_captures as usize];
        m.captures[..extra.len()].copy_from_slice(extra);
        m.n_captures = extra.len() as u8;
        m.n_first = m.n_captures;
        Some(m)
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
        assert!(std::mem::size_of::<Move>() <= 96, "{}", std::mem::size_of::<Move>());
    }

    #[test]
    fn a_doubled_turn_keeps_each_actions_removed_squares() {
        let first = Move::normal(Square(0), Square(9)).with_capture(Square(5)).with_capture(Square(3));
        let second = Move::normal(Square(9), Square(20)).with_capture(Square(1)).with_piece(Some(PieceType(4)));
        let both = Move::doubled(first, second);
        assert!(both.is_doubled() && !first.is_doubled());
        assert_eq!(both.captures(), &[Square(3), Square(5)]);
        assert_eq!(both.first_action(), first);
        assert_eq!(both.second_action(), Some(second));
        assert_eq!(first.second_action(), None);
        assert_ne!(both, Move::doubled(first, second.with_piece(None)));
    }
}
