//! Layer 3 of the rules crate: positions. The board and what is derived from it (occupancy,
//! piece counts, royal squares), make/unmake with incremental Zobrist hashing (`make`,
//! `zobrist`), repetition counting and the results decided by material (`outcome`).
//!
//! The board is a plain mailbox (`Vec<Option<Piece>>`, one entry per square) plus one
//! occupancy bitset per colour. Bitboards wide enough for 18x18 (324 bits) would make every
//! shift a multi-word operation and their attack tables would not fit in cache for 100+ piece
//! types; a mailbox with per-square precomputed leap/ray tables keeps the generator generic,
//! allocation-free and cache-friendly, while the bitsets make "iterate my pieces" cheap.
//!
//! This layer reads the variant's tables; it never generates moves. Move generation, attack
//! tests and the results that need them (checkmate, stalemate) are `impl Position` blocks in
//! `crate::movegen`; parsing position strings is in `crate::notation`.

mod capture_effects;
mod displace;
mod hand;
mod make;
mod multimove;
mod neutral_token;
pub(crate) mod outcome;
mod protean;
pub(crate) mod square_set;
mod text;
pub(crate) mod turn;
mod zobrist;

use std::{fmt, sync::Arc};

pub use crate::types::{CastlingRights, EnPassant};
pub(crate) use make::TurnFacts;
pub use outcome::{EndReason, Outcome};
pub use square_set::SquareSet;

use crate::{
    moves::Move,
    position::make::Undo,
    types::{Color, Piece, Square},
    variant::{
        setup::SetupPly,
        text::{RawPosition, MAX_ROYALS},
        Variant,
    },
};

/// A position with its history (needed for repetition rules and undo).
#[derive(Clone)]
pub struct Position {
    pub(crate) variant: Arc<Variant>,
    pub(crate) board: Vec<Option<Piece>>,
    pub(crate) occupied: [SquareSet; 2],
    pub(crate) counts: Vec<u16>,
    pub(crate) totals: [u16; 2],
    pub(crate) royals: [[Square; MAX_ROYALS]; 2],
    pub(crate) n_royals: [u8; 2],
    pub(crate) side: Color,
    pub(crate) castling: CastlingRights,
    pub(crate) castle_rooks: [Square; 8],
    pub(crate) castle_kings: [Square; 4],
    pub(crate) ep: Option<EnPassant>,
    pub(crate) halfmove: u32,
    pub(crate) fullmove: u32,
    pub(crate) hash: u64,
    /// Plies played from the root (the position that was parsed).
    pub(crate) ply: u32,
    pub(crate) history: Headroom<Undo>,
    /// Previous occupants of the squares that moves edited, oldest first (see `make`).
    pub(crate) journal: Headroom<(Square, Option<Piece>)>,
    /// Hashes of every earlier position, `hashes[i]` before the `i`-th move.
    pub(crate) hashes: Headroom<u64>,
    /// Reused buffer of the repetition filter (`legal_moves`), so that it never allocates.
    pub(crate) repetition_scratch: Headroom<u64>,
    pub(crate) irreversible: u32,
    /// Index of the next setup ply while in a setup phase, `NO_SETUP` otherwise.
    pub(crate) setup_ply: u8,
    /// Snapshot and buffers of Jupiter's turn procedure (`turn`).
    pub(crate) turn: turn::TurnState,
    /// The previous move was a pass (Chushin Shogi forbids a pass right after one, §13.3).
    pub(crate) last_move_was_pass: bool,
    /// The root position (the one parsed or edited) had no royal piece on either side. Such a
    /// position is played as usual (chushin-shogi.md §14, the worked examples): only the loss
    /// of a side's last royal ends a game, not the absence of royals it started with.
    pub(crate) royal_less_root: bool,
    /// Moves left in the current turn, this one included, in a variant with multi-move turns
    /// (`[turns]`, `multimove`); unused (0) in every other variant.
    pub(crate) turn_left: u16,
    /// The last position (by hash) found without legal moves in a variant whose turns let the
    /// opponent take a royal within its next turn, and whether the royal was within its reach
    /// (`movegen::multimove`): read by the result, which cannot make moves itself.
    pub(crate) turn_threat: Option<(u64, bool)>,
    /// Pieces in hand per `Piece::index()` (`[drops]`, see `hand`); empty without drops.
    pub(crate) hand: Vec<u8>,
    /// Protean men and the choices still to make (`[protean]`, see `protean`);
    /// `ProteanState::NONE` in every other variant.
    pub(crate) protean: crate::variant::protean::ProteanState,
    /// The neutral token's square (`[neutral_token]`, `movegen::neutral_token`); `Square::NONE`
    /// in every other variant.
    pub(crate) token: Square,
}

/// A stack that grows as moves are made (history, journal, hashes): a clone keeps room for a
/// search's worth of moves, so that a position cloned for a search (kept leaves, worker copies)
/// does not allocate again when the search makes its first moves on it.
#[derive(Debug, Default)]
pub(crate) struct Headroom<T>(pub(crate) Vec<T>);

/// Entries a clone can take before it reallocates.
const CLONE_HEADROOM: usize = 256;

impl<T: Clone> Clone for Headroom<T> {
    fn clone(&self) -> Self {
        let mut v = Vec::with_capacity(self.0.len() + CLONE_HEADROOM);
        v.extend_from_slice(&self.0);
        Headroom(v)
    }
}

impl<T> std::ops::Deref for Headroom<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Headroom<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.0
    }
}

/// `setup_ply` outside the setup phase.
pub(crate) const NO_SETUP: u8 = u8::MAX;

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.to_fen())
    }
}

impl PartialEq for Position {
    /// Positions are equal when their current state is (history is not compared); the pass
    /// flag counts only where it restricts the moves, as in [`Position::search_key`].
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.variant, &other.variant)
            && self.board == other.board
            && self.side == other.side
            && self.castling == other.castling
            && (0..8).all(|b| self.castling & (1 << b) == 0 || self.castle_rooks[b] == other.castle_rooks[b])
            && self.ep == other.ep
            && self.halfmove == other.halfmove
            && self.fullmove == other.fullmove
            && self.turn_left == other.turn_left
            && self.hash == other.hash
            && self.hand == other.hand
            && self.protean == other.protean
            && self.token == other.token
            && self.pass_is_restricted() == other.pass_is_restricted()
    }
}

impl Position {
    /// A position with `raw`'s contents, at its root (no history).
    pub(crate) fn from_raw(variant: Arc<Variant>, raw: RawPosition) -> Position {
        let nsq = variant.dims.squares();
        let mut pos = Position {
            counts: vec![0; variant.piece_count() * 2],
            board: vec![None; nsq],
            occupied: [SquareSet::EMPTY; 2],
            totals: [0; 2],
            royals: [[Square::NONE; MAX_ROYALS]; 2],
            n_royals: [0; 2],
            side: raw.side,
            castling: raw.castling,
            castle_rooks: raw.castle_rooks,
            castle_kings: raw.castle_kings,
            ep: raw.ep,
            halfmove: raw.halfmove,
            fullmove: raw.fullmove,
            hash: 0,
            ply: 0,
            history: Headroom(Vec::with_capacity(256)),
            journal: Headroom(Vec::with_capacity(1024)),
            hashes: Headroom(Vec::with_capacity(256)),
            repetition_scratch: Headroom(Vec::with_capacity(256)),
            irreversible: 0,
            setup_ply: NO_SETUP,
            turn: turn::TurnState::default(),
            last_move_was_pass: false,
            royal_less_root: false,
            turn_left: raw.turn_left,
            turn_threat: None,
            hand: raw.hand,
            protean: raw.protean,
            token: raw.token,
            variant,
        };
        for (i, p) in raw.board.into_iter().enumerate() {
            if let Some(p) = p {
                pos.put(Square(i as u16), p);
            }
        }
        pos.royal_less_root = pos.n_royals == [0, 0];
        pos.hash = pos.compute_hash();
        pos
    }

    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    pub fn board(&self) -> &[Option<Piece>] {
        &self.board
    }

    pub fn castling_rights(&self) -> CastlingRights {
        self.castling
    }

    pub(crate) fn castle_rooks(&self) -> [Square; 8] {
        self.castle_rooks
    }

    pub(crate) fn castle_kings(&self) -> [Square; 4] {
        self.castle_kings
    }

    pub fn en_passant(&self) -> Option<EnPassant> {
        self.ep
    }

    /// The neutral token's square, in a variant with one (`[neutral_token]`).
    #[inline]
    pub fn neutral_token(&self) -> Option<Square> {
        (!self.token.is_none()).then_some(self.token)
    }

    /// Whether the previous move was a pass (then a per-piece pass variant allows none now,
    /// chushin-shogi.md §8.5). Set by `make` in every variant, restored by `unmake`; a position
    /// read from text has it false (the string carries no history, §14). It is not part of
    /// [`Position::hash`] but is of [`Position::search_key`] where it restricts the moves.
    #[inline]
    pub fn last_move_was_pass(&self) -> bool {
        self.last_move_was_pass
    }

    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove
    }

    pub fn fullmove_number(&self) -> u32 {
        self.fullmove
    }

    /// Plies played since this position object was created from text.
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// The repetition key: a Zobrist hash of the pieces, the side to move, castling, en passant
    /// and the setup ply, the same however the position was reached (a parsed position has the
    /// hash of the played one). It leaves out whether the previous move was a pass, which
    /// repetition does not count (chushin-shogi.md §8.5) but which decides whether a per-piece
    /// variant may pass: caches of search results must key on [`Position::search_key`].
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Per `Piece::index()` count of pieces on the board.
    pub fn piece_counts(&self) -> &[u16] {
        &self.counts
    }

    pub fn occupied(&self, color: Color) -> &SquareSet {
        &self.occupied[color.index()]
    }

    /// The moves played since the root, oldest first.
    pub fn moves_played(&self) -> impl Iterator<Item = Move> + '_ {
        self.history.iter().map(|u| u.mv)
    }

    /// The index of the next setup ply, while the position is in its setup phase.
    pub fn setup_ply_index(&self) -> Option<usize> {
        (self.setup_ply != NO_SETUP).then_some(self.setup_ply as usize)
    }

    /// Whether the players are still choosing the array, or (Protean Chess) their protean men:
    /// a phase before play whose moves are choices, not moves of the game.
    pub fn in_setup(&self) -> bool {
        self.setup_ply != NO_SETUP || self.protean.to_choose > 0
    }

    pub(crate) fn begin_setup(&mut self, actor: Color) {
        self.hash ^= self.state_hash();
        self.setup_ply = 0;
        // The setup places the royals: a game that starts with one is an ordinary game.
        self.royal_less_root = false;
        self.side = actor;
        self.hash ^= self.state_hash();
    }

    pub(crate) fn current_setup_ply(&self) -> Option<&SetupPly> {
        let phase = self.variant.setup.as_ref()?;
        phase.plies.get(self.setup_ply_index()?)
    }
}
