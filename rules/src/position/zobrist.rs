//! Zobrist hashing: the keys are the variant's ([`crate::variant::zobrist`]); `make` and
//! `unmake` update the hash incrementally, [`Position::compute_hash`] recomputes it.

use crate::{
    position::{Position, NO_SETUP},
    types::{Color, Piece, Square},
};

impl Position {
    #[inline]
    pub(crate) fn zkey(&self, p: Piece, sq: Square) -> u64 {
        self.variant.zobrist.pieces[p.index() * self.variant.dims.squares() + sq.index()]
    }

    /// The hash of everything but the pieces: side to move, castling rights, en passant and
    /// the setup ply.
    pub(crate) fn state_hash(&self) -> u64 {
        let z = &self.variant.zobrist;
        let mut h = z.castling[self.castling as usize & 15];
        if self.side == Color::Tan {
            h ^= z.side;
        }
        if let Some(ep) = self.ep {
            h ^= z.ep[ep.squares[0].index()];
        }
        if self.setup_ply != NO_SETUP {
            h ^= z.setup[self.setup_ply as usize];
        }
        h
    }

    /// The Zobrist hash computed from scratch (the incremental one must always equal it).
    pub fn compute_hash(&self) -> u64 {
        let mut h = self.state_hash();
        for (i, p) in self.board.iter().enumerate() {
            if let Some(p) = p {
                h ^= self.zkey(*p, Square(i as u16));
            }
        }
        h
    }
}
