//! The neutral token's move (`[neutral_token]`, Shadow, Imitator and Salt Shaker Chess): `make`
//! shifts it by the move's displacement once the move's board edits are made. Whether a move
//! may be made at all, and the check rules, are the move generator's
//! (`crate::movegen::neutral_token`, which documents the rulings).

use crate::{
    moves::{Move, MoveList},
    position::{make::TurnFacts, Position},
};

impl Position {
    /// The displacement the token copies: the mover's `to - from`, the king's when castling
    /// (a castling move's `from` and `to` are the king's).
    pub(crate) fn token_displacement(&self, m: &Move) -> (i32, i32) {
        let d = self.variant.dims;
        (d.file(m.to) - d.file(m.from), d.rank(m.to) - d.rank(m.from))
    }

    /// Moves the token after the board edits of `mv` (from `make`), capturing a man where it
    /// lands if there is one (only a capturing token's legal moves land on a man). The capture
    /// is journaled, so `unmake` restores the man; the token's square comes back from the undo
    /// record.
    pub(crate) fn move_neutral_token(&mut self, mv: &Move, facts: &mut TurnFacts) {
        let d = self.variant.dims;
        let (dx, dy) = self.token_displacement(mv);
        let dest = d
            .square(d.file(self.token) + dx, d.rank(self.token) + dy)
            .expect("a legal move's copy keeps the neutral token on the board");
        if self.board[dest.index()].is_some() {
            self.set_square(dest, None);
            facts.irreversible = true;
            // A castling rook or king taken by the token loses its rights (`make` clears only
            // those of the squares the move itself touched).
            for bit in 0..8 {
                let king = self.castle_kings[crate::variant::castling::king_index(bit)];
                if self.castling & (1 << bit) != 0 && (self.castle_rooks[bit] == dest || king == dest) {
                    self.castling &= !(1 << bit);
                }
            }
        }
        self.token = dest;
    }

    /// Drops the en-passant right `make` recorded when no pseudo-legal move can use it: an
    /// enemy pawn beside the passed square may have its capture forbidden by the token (the
    /// same test as for a position string read, so that both give one key). Rare: the right is
    /// recorded only when such a pawn stands there.
    pub(crate) fn drop_unusable_en_passant(&mut self) {
        let Some(ep) = self.ep else { return };
        let mut moves = MoveList::new();
        self.pseudo_legal_moves(&mut moves);
        if !moves.iter().any(|m| m.captures().contains(&ep.victim) && ep.squares.contains(&m.to)) {
            self.ep = None;
        }
    }
}
