//! Zobrist keys, drawn once per variant from a fixed seed so that hashes are stable across runs
//! and platforms.

/// The keys of one variant.
pub(crate) struct Zobrist {
    pub pieces: Vec<u64>,
    pub side: u64,
    pub castling: [u64; 16],
    pub ep: Vec<u64>,
    /// One key per setup ply index, so that arrays under construction hash apart.
    pub setup: Vec<u64>,
    /// Hands (`[drops]`): one key per `Piece::index()` and count from 0 to
    /// `drops::MAX_IN_HAND`, the count-0 key 0 (an empty hand adds nothing); empty without drops.
    pub hand: Vec<u64>,
}

impl Zobrist {
    /// Keys for `piece_types` types (both colours) on `squares` squares and `setup_plies`
    /// setup plies, in a fixed order (changing it changes every stored hash).
    pub(crate) fn new(piece_types: usize, squares: usize, setup_plies: usize, hands: bool) -> Zobrist {
        let mut seed = 0x5EED_F00D_u64;
        let per_kind = super::drops::MAX_IN_HAND + 1;
        let hand_keys = if hands { piece_types * 2 * per_kind } else { 0 };
        Zobrist {
            pieces: (0..piece_types * 2 * squares).map(|_| splitmix(&mut seed)).collect(),
            side: splitmix(&mut seed),
            castling: std::array::from_fn(|_| splitmix(&mut seed)),
            ep: (0..squares).map(|_| splitmix(&mut seed)).collect(),
            setup: (0..setup_plies).map(|_| splitmix(&mut seed)).collect(),
            // Drawn last, so that the keys of variants without hands are as they were.
            hand: (0..hand_keys).map(|i| if i % per_kind == 0 { 0 } else { splitmix(&mut seed) }).collect(),
        }
    }
}

/// splitmix64: a tiny deterministic generator for Zobrist keys (stable across platforms).
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
