//! Sets of squares, one bit per square, sized for the largest board.

use crate::types::{Square, MAX_BOARD_SIDE};

const MAX_SQUARES: usize = MAX_BOARD_SIDE as usize * MAX_BOARD_SIDE as usize;
/// 64-bit words in a [`SquareSet`].
pub(crate) const WORDS: usize = MAX_SQUARES.div_ceil(64);

/// A set of squares (one bit per square).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SquareSet(pub(crate) [u64; WORDS]);

impl Default for SquareSet {
    fn default() -> SquareSet {
        SquareSet::EMPTY
    }
}

impl std::fmt::Debug for SquareSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter().map(|s| s.0)).finish()
    }
}

impl SquareSet {
    pub(crate) const EMPTY: SquareSet = SquareSet([0; WORDS]);

    #[inline]
    pub fn contains(&self, sq: Square) -> bool {
        self.0[sq.index() / 64] & (1 << (sq.index() % 64)) != 0
    }

    #[inline]
    pub(crate) fn insert(&mut self, sq: Square) {
        self.0[sq.index() / 64] |= 1 << (sq.index() % 64);
    }

    #[inline]
    pub(crate) fn remove(&mut self, sq: Square) {
        self.0[sq.index() / 64] &= !(1 << (sq.index() % 64));
    }

    pub fn iter(&self) -> impl Iterator<Item = Square> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &word)| {
            let mut bits = word;
            std::iter::from_fn(move || {
                if bits == 0 {
                    None
                } else {
                    let b = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    Some(Square((w * 64 + b) as u16))
                }
            })
        })
    }

    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
}
