//! Zobrist hashing: the keys are the variant's ([`crate::variant::zobrist`]); `make` and
//! `unmake` update the hash incrementally, [`Position::compute_hash`] recomputes it.
//!
//! Two keys come from it. [`Position::hash`] is the **repetition key**: the pieces (on the board
//! and in hand), the side to move, castling, en passant and the setup ply; repetition counting compares it, so it leaves
//! out what the rules do not count (Chushin Shogi's "the previous move was a pass",
//! chushin-shogi.md §8.5, §8.6). [`Position::search_key`] adds that flag where it changes the
//! legal moves, for caches of search results and evaluations (transposition tables, the
//! network's cache), which must not merge positions whose moves differ.

use crate::{
    position::{Position, NO_SETUP},
    types::{Color, Piece, Square},
    variant::PassRule,
};

impl Position {
    #[inline]
    pub(crate) fn zkey(&self, p: Piece, sq: Square) -> u64 {
        self.variant.zobrist.pieces[p.index() * self.variant.dims.squares() + sq.index()]
    }

    /// The hash of everything but the pieces: side to move, castling rights, en passant, the
    /// setup ply and the neutral token's square.
    pub(crate) fn state_hash(&self) -> u64 {
        let z = &self.variant.zobrist;
        let mut h = z.castling[self.castling as usize & 15];
        // A second castling king's rights (slot 1, bits 4-7) take keys derived from the same
        // table, so that every variant with one castling king keeps its hashes.
        let second = (self.castling >> 4) as usize;
        if second != 0 {
            h ^= z.castling[second].rotate_left(32);
        }
        if self.side == Color::Tan {
            h ^= z.side;
        }
        if let Some(ep) = self.ep {
            h ^= z.ep[ep.squares[0].index()];
            // A longer step passes more squares from the same first one (Double King's pawn may
            // step two or three): the further squares are keyed too.
            for (i, s) in ep.squares.iter().enumerate().skip(1).filter(|(_, s)| !s.is_none()) {
                h ^= z.ep[s.index()].rotate_left(i as u32);
            }
        }
        if self.setup_ply != NO_SETUP {
            h ^= z.setup[self.setup_ply as usize];
        }
        // Multi-move turns: the moves left in the turn (0 in every other variant).
        h ^= self.turn_key();
        // Protean men and choices (0 in every other variant).
        h ^= self.protean_key();
        if !self.token.is_none() {
            h ^= crate::variant::neutral_token::token_key(self.token);
        }
        h
    }

    /// [`Position::search_key`]'s extra key: set while the previous move was a pass in a variant
    /// whose passes depend on it. A fixed odd constant (the 64-bit golden ratio) rather than a
    /// variant key, so that the variant's key table and every existing hash stay as they were.
    const PASS_RESTRICTION_KEY: u64 = 0x9E37_79B9_7F4A_7C15;

    /// Whether the previous move was a pass and that forbids passing now (the variant's pass
    /// rule is `per_piece_no_double_pass`): the state that [`Position::search_key`] adds.
    #[inline]
    pub(crate) fn pass_is_restricted(&self) -> bool {
        self.last_move_was_pass && self.variant.rules.pass == PassRule::PerPieceNoDoublePass
    }

    /// The key of everything that decides this position's legal moves and result, for caches
    /// of search results: [`Position::hash`] plus the pass restriction (see the module doc).
    /// Equal to `hash()` in every variant without per-piece passes.
    #[inline]
    pub fn search_key(&self) -> u64 {
        if self.pass_is_restricted() {
            self.hash ^ Self::PASS_RESTRICTION_KEY
        } else {
            self.hash
        }
    }

    /// The Zobrist hash computed from scratch (the incremental one must always equal it).
    pub fn compute_hash(&self) -> u64 {
        let mut h = self.state_hash() ^ self.hand_hash();
        for (i, p) in self.board.iter().enumerate() {
            if let Some(p) = p {
                h ^= self.zkey(*p, Square(i as u16));
            }
        }
        h
    }
}
