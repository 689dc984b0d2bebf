//! Pieces in hand (`[drops]`, issue 21 rows #10 and #35): the counts, their Zobrist keys, and
//! the board edit of a drop.
//!
//! A hand is a count per `Piece::index()`, part of the position: printed in the position
//! string's pocket (`RNBQKBNR[Nn] w ...`), covered by [`Position::hash`] (one key per kind and
//! count), and restored by `unmake`. A drop is an action of its own kind (`MoveKind::Drop`,
//! `from == to`, the dropped type in `piece`); the board edit goes through the journal like
//! every other, so only the count needs undoing by hand.

use crate::{
    moves::Move,
    position::Position,
    types::{Color, Piece, PieceType, Square},
    variant::drops::MAX_IN_HAND,
};

impl Position {
    /// How many pieces of this kind (type and colour) are in hand.
    #[inline]
    pub fn in_hand(&self, p: Piece) -> u8 {
        self.hand.get(p.index()).copied().unwrap_or(0)
    }

    /// Every hand, per `Piece::index()` (empty in a variant without drops).
    pub fn hands(&self) -> &[u8] {
        &self.hand
    }

    /// Whether `color` holds any piece.
    pub fn has_pieces_in_hand(&self, color: Color) -> bool {
        self.hand.iter().skip(color.index()).step_by(2).any(|&n| n > 0)
    }

    /// The key of `count` pieces of kind `p` in hand (0 for none).
    #[inline]
    fn hand_key(&self, p: Piece, count: u8) -> u64 {
        self.variant.zobrist.hand[p.index() * (MAX_IN_HAND + 1) + count as usize]
    }

    /// The hands' share of the hash.
    pub(crate) fn hand_hash(&self) -> u64 {
        let mut h = 0;
        for (i, &n) in self.hand.iter().enumerate() {
            if n > 0 {
                h ^= self.variant.zobrist.hand[i * (MAX_IN_HAND + 1) + n as usize];
            }
        }
        h
    }

    /// The dropped piece of a drop made by `color`.
    #[inline]
    fn dropped(m: &Move, color: Color) -> Piece {
        Piece::new(m.piece.expect("a drop names its piece type"), color)
    }

    /// Makes the drop `mv` of the side to move: the piece leaves the hand for `mv.to`, and a
    /// castling king or rook dropped where `castling_king_file` says gains its castling rights.
    pub(crate) fn apply_drop(&mut self, mv: &Move) {
        let us = self.side;
        let p = Self::dropped(mv, us);
        let n = self.in_hand(p);
        debug_assert!(n > 0, "a drop from an empty hand");
        self.hash ^= self.hand_key(p, n) ^ self.hand_key(p, n - 1);
        self.hand[p.index()] = n - 1;
        self.set_square(mv.to, Some(p));
        if self.variant.drops.as_ref().is_some_and(|d| d.castling_king_file.is_some()) {
            self.grant_castling_after_drop(p.kind(), mv.to);
        }
    }

    /// Puts the piece of the drop `mv`, made by `color`, back into the hand (the hash is restored
    /// by `unmake` as a whole).
    pub(crate) fn return_to_hand(&mut self, mv: &Move, color: Color) {
        let p = Self::dropped(mv, color);
        self.hand[p.index()] += 1;
    }

    /// Castling rights decided by drops (Pre-chess, Fairy-Stockfish's `castlingDroppedPiece`):
    /// a castling king dropped on the king file of its first rank gets a right for each of its
    /// castling rooks standing in a corner of that rank; a castling rook dropped in such a corner
    /// gets its right when the king already stands on that file. The side of a right is the
    /// side of the king its rook is on (bits `2 * colour + side`, side 0 toward the higher
    /// files), as a position string's `KQkq` says.
    fn grant_castling_after_drop(&mut self, kind: PieceType, to: Square) {
        let v = &*self.variant;
        let (Some(castling), Some(king_file)) =
            (v.rules.castling.as_ref(), v.drops.as_ref().and_then(|d| d.castling_king_file))
        else {
            return;
        };
        let (king, rook) = (castling.king, castling.rook);
        let us = self.side;
        let d = v.dims;
        if d.relative_rank(to, us) != 0 {
            return;
        }
        let rank = d.rank(to);
        let king_sq = d.square(king_file, rank).expect("the king file is on the board");
        let corners = [d.square(d.width as i32 - 1, rank), d.square(0, rank)];
        if self.board[king_sq.index()] != Some(Piece::new(king, us)) {
            return;
        }
        let mut grant = |side: usize, rook_sq: Square| {
            let bit = 2 * us.index() + side;
            self.castling |= 1 << bit;
            self.castle_rooks[bit] = rook_sq;
            self.castle_kings[us.index()] = king_sq;
        };
        for (side, corner) in corners.into_iter().enumerate() {
            let Some(corner) = corner else { continue };
            let rook_there = self.board[corner.index()] == Some(Piece::new(rook, us));
            // The king just dropped: every rook already in a corner; a rook just dropped: its own.
            if rook_there && ((kind == king && to == king_sq) || (kind == rook && to == corner)) {
                grant(side, corner);
            }
        }
    }
}
