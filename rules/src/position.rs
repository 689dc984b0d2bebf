//! Positions: the board, make/unmake with incremental Zobrist hashing, move generation,
//! legality and game results.
//!
//! The board is a plain mailbox (`Vec<Option<Piece>>`, one entry per square) plus one
//! occupancy bitset per colour. Bitboards wide enough for 18x18 (324 bits) would make every
//! shift a multi-word operation and their attack tables would not fit in cache for 100+ piece
//! types; a mailbox with per-square precomputed leap/ray tables keeps the generator generic,
//! allocation-free and cache-friendly, while the bitsets make "iterate my pieces" cheap.

use std::{fmt, sync::Arc};

use crate::{
    geometry::Jump,
    moves::{Move, MoveKind, MoveList, MAX_EXTRA_CAPTURES},
    types::{Color, Piece, PieceType, Square},
    variant::{
        BareRule, GameValue, PromotionMandatory, PromotionTrigger, RepetitionRule, RoyalRule, Variant, F_CAPTURE,
        F_INITIAL, F_MOVE,
    },
};

const MAX_SQUARES: usize = crate::types::MAX_BOARD_SIDE as usize * crate::types::MAX_BOARD_SIDE as usize;
const WORDS: usize = MAX_SQUARES.div_ceil(64);
const MAX_ROYALS: usize = 16;

/// A set of squares (one bit per square).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SquareSet([u64; WORDS]);

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
    fn remove(&mut self, sq: Square) {
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

/// Castling rights: bit `2 * colour + side` (side 0 = toward higher files, 1 = toward `a`).
pub type CastlingRights = u8;

/// En-passant state after a double step: the squares passed over and the pawn to remove.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EnPassant {
    pub squares: [Square; 2],
    pub victim: Square,
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    Checkmate,
    Stalemate,
    RoyalCaptured,
    Bared,
    Extinction,
    /// The side to move had moves, but every one repeated a position a third time.
    RepetitionLoss,
    Repetition,
    HalfmoveRule,
    MoveCap,
}

impl EndReason {
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::RoyalCaptured => "royal captured",
            EndReason::Bared => "bared",
            EndReason::Extinction => "extinction",
            EndReason::RepetitionLoss => "no non-repeating move",
            EndReason::Repetition => "repetition",
            EndReason::HalfmoveRule => "move-count rule",
            EndReason::MoveCap => "move cap",
        }
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Decisive { winner: Color, reason: EndReason },
    Draw { reason: EndReason },
}

impl Outcome {
    fn from_value(side: Color, value: GameValue, reason: EndReason) -> Outcome {
        match value {
            GameValue::Win => Outcome::Decisive { winner: side, reason },
            GameValue::Loss => Outcome::Decisive { winner: side.other(), reason },
            GameValue::Draw => Outcome::Draw { reason },
        }
    }

    pub fn winner(&self) -> Option<Color> {
        match self {
            Outcome::Decisive { winner, .. } => Some(*winner),
            Outcome::Draw { .. } => None,
        }
    }

    pub fn reason(&self) -> EndReason {
        match self {
            Outcome::Decisive { reason, .. } | Outcome::Draw { reason } => *reason,
        }
    }
}

/// What `make` changed, so that `unmake` can restore it exactly.
#[derive(Clone, Copy, Debug)]
struct Undo {
    mv: Move,
    moved: Option<Piece>,
    removed: [(Square, Option<Piece>); MAX_EXTRA_CAPTURES + 1],
    n_removed: u8,
    castling: CastlingRights,
    ep: Option<EnPassant>,
    halfmove: u32,
    hash: u64,
    /// Index in `history` of the last irreversible move before this one (repetition scans stop there).
    irreversible: u32,
    side: Color,
    setup_ply: u8,
}

/// A position with its history (needed for repetition rules and undo).
#[derive(Clone)]
pub struct Position {
    variant: Arc<Variant>,
    board: Vec<Option<Piece>>,
    occupied: [SquareSet; 2],
    counts: Vec<u16>,
    totals: [u16; 2],
    royals: [[Square; MAX_ROYALS]; 2],
    n_royals: [u8; 2],
    side: Color,
    castling: CastlingRights,
    castle_rooks: [Square; 4],
    castle_kings: [Square; 2],
    ep: Option<EnPassant>,
    halfmove: u32,
    fullmove: u32,
    hash: u64,
    /// Plies played from the root (the position that was parsed).
    ply: u32,
    history: Vec<Undo>,
    /// Hashes of every earlier position, `hashes[i]` before the `i`-th move.
    hashes: Vec<u64>,
    irreversible: u32,
    /// Index of the next setup ply while in a setup phase, `NO_SETUP` otherwise.
    setup_ply: u8,
}

const NO_SETUP: u8 = u8::MAX;

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.to_fen())
    }
}

impl PartialEq for Position {
    /// Positions are equal when their current state is (history is not compared).
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.variant, &other.variant)
            && self.board == other.board
            && self.side == other.side
            && self.castling == other.castling
            && (0..4).all(|b| self.castling & (1 << b) == 0 || self.castle_rooks[b] == other.castle_rooks[b])
            && self.ep == other.ep
            && self.halfmove == other.halfmove
            && self.fullmove == other.fullmove
            && self.hash == other.hash
    }
}

/// The raw contents of a position, as parsed from text before validation.
pub(crate) struct RawPosition {
    pub board: Vec<Option<Piece>>,
    pub side: Color,
    pub castling: CastlingRights,
    pub castle_rooks: [Square; 4],
    pub castle_kings: [Square; 2],
    pub ep: Option<EnPassant>,
    pub halfmove: u32,
    pub fullmove: u32,
}

impl Position {
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
            history: Vec::with_capacity(256),
            hashes: Vec::with_capacity(256),
            irreversible: 0,
            setup_ply: NO_SETUP,
            variant,
        };
        for (i, p) in raw.board.into_iter().enumerate() {
            if let Some(p) = p {
                pos.put(Square(i as u16), p);
            }
        }
        pos.hash = pos.compute_hash();
        pos
    }

    /// The start position of a variant.
    pub fn start(variant: Arc<Variant>) -> Position {
        let start = variant.start.clone();
        Position::from_fen(variant, &start).expect("the start position was validated when the variant was built")
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

    pub(crate) fn castle_rooks(&self) -> [Square; 4] {
        self.castle_rooks
    }

    pub(crate) fn castle_kings(&self) -> [Square; 2] {
        self.castle_kings
    }

    pub fn en_passant(&self) -> Option<EnPassant> {
        self.ep
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

    // -----------------------------------------------------------------------------------------
    // Board edits that keep every derived field in step.
    // -----------------------------------------------------------------------------------------

    #[inline]
    fn zkey(&self, p: Piece, sq: Square) -> u64 {
        self.variant.zobrist.pieces[p.index() * self.variant.dims.squares() + sq.index()]
    }

    #[inline]
    fn put(&mut self, sq: Square, p: Piece) {
        debug_assert!(self.board[sq.index()].is_none());
        self.board[sq.index()] = Some(p);
        let c = p.color().index();
        self.occupied[c].insert(sq);
        self.counts[p.index()] += 1;
        self.totals[c] += 1;
        self.hash ^= self.zkey(p, sq);
        if self.variant.royal[p.kind().index()] {
            let n = self.n_royals[c] as usize;
            assert!(n < MAX_ROYALS, "more than {MAX_ROYALS} royal pieces of one colour");
            self.royals[c][n] = sq;
            self.n_royals[c] += 1;
        }
    }

    #[inline]
    fn take(&mut self, sq: Square) -> Piece {
        let p = self.board[sq.index()].take().expect("take() from an empty square");
        let c = p.color().index();
        self.occupied[c].remove(sq);
        self.counts[p.index()] -= 1;
        self.totals[c] -= 1;
        self.hash ^= self.zkey(p, sq);
        if self.variant.royal[p.kind().index()] {
            let n = self.n_royals[c] as usize;
            let i = self.royals[c][..n].iter().position(|&s| s == sq).expect("royal square is tracked");
            self.royals[c][i] = self.royals[c][n - 1];
            self.n_royals[c] -= 1;
        }
        p
    }

    fn state_hash(&self) -> u64 {
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

    /// The index of the next setup ply, while the position is in its setup phase.
    pub fn setup_ply_index(&self) -> Option<usize> {
        (self.setup_ply != NO_SETUP).then_some(self.setup_ply as usize)
    }

    /// Whether the players are still choosing the array.
    pub fn in_setup(&self) -> bool {
        self.setup_ply != NO_SETUP
    }

    pub(crate) fn begin_setup(&mut self, actor: Color) {
        self.hash ^= self.state_hash();
        self.setup_ply = 0;
        self.side = actor;
        self.hash ^= self.state_hash();
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

    // -----------------------------------------------------------------------------------------
    // Make / unmake
    // -----------------------------------------------------------------------------------------

    /// Plays a move that the caller knows to be legal (from [`Position::legal_moves`]).
    pub fn make(&mut self, mv: Move) {
        let mut undo = Undo {
            mv,
            moved: None,
            removed: [(Square::NONE, None); MAX_EXTRA_CAPTURES + 1],
            n_removed: 0,
            castling: self.castling,
            ep: self.ep,
            halfmove: self.halfmove,
            hash: self.hash,
            irreversible: self.irreversible,
            side: self.side,
            setup_ply: self.setup_ply,
        };
        self.hashes.push(self.hash);
        if mv.kind == MoveKind::Setup {
            self.make_setup(mv, &mut undo);
            self.history.push(undo);
            return;
        }
        self.hash ^= self.state_hash();
        let us = self.side;
        let mut irreversible = false;
        let mut new_ep = None;
        match mv.kind {
            MoveKind::Normal | MoveKind::Stationary => {
                for &c in mv.captures() {
                    let victim = self.take(c);
                    undo.removed[undo.n_removed as usize] = (c, Some(victim));
                    undo.n_removed += 1;
                }
                if mv.kind == MoveKind::Normal {
                    let p = self.take(mv.from);
                    undo.moved = Some(p);
                    if self.board[mv.to.index()].is_some() {
                        let victim = self.take(mv.to);
                        undo.removed[undo.n_removed as usize] = (mv.to, Some(victim));
                        undo.n_removed += 1;
                    }
                    let def = &self.variant.pieces[p.kind().index()];
                    if def.en_passant {
                        irreversible = true;
                        new_ep = self.double_step_ep(p, mv.from, mv.to);
                    }
                    self.put(mv.to, mv.piece.map_or(p, |t| p.with_kind(t)));
                }
                irreversible |= undo.n_removed > 0 || mv.piece.is_some();
            }
            MoveKind::Castle => {
                let king = self.take(mv.from);
                let rook = self.take(mv.aux);
                undo.moved = Some(king);
                self.put(mv.to, king);
                self.put(self.castle_rook_destination(mv), rook);
                irreversible = true;
            }
            MoveKind::Pass => {}
            MoveKind::Convert => {}
            MoveKind::Swap => {
                let mover = self.take(mv.from);
                let other = self.take(mv.to);
                undo.moved = Some(mover);
                undo.removed[0] = (mv.to, Some(other));
                self.put(mv.to, mv.piece.map_or(mover, |t| mover.with_kind(t)));
                self.put(mv.from, other);
                irreversible = mv.piece.is_some();
            }
            MoveKind::SelfCapture => {
                let p = self.take(mv.from);
                undo.removed[0] = (mv.from, Some(p));
                undo.n_removed = 1;
                irreversible = true;
            }
            MoveKind::Drop | MoveKind::Setup | MoveKind::Push | MoveKind::Pull | MoveKind::Reproduce => {
                unreachable!("move kind {:?} is never generated by this engine version", mv.kind)
            }
        }
        if !mv.aux.is_none() && matches!(mv.kind, MoveKind::Normal | MoveKind::Convert) {
            let victim = self.take(mv.aux);
            self.put(mv.aux, Piece::new(victim.kind(), us));
        }
        if self.castling != 0 {
            self.update_castling_rights(&mv);
        }
        self.ep = new_ep;
        self.halfmove = if irreversible { 0 } else { self.halfmove + 1 };
        if irreversible || self.castling != undo.castling {
            self.irreversible = self.hashes.len() as u32;
        }
        if us == Color::Tan {
            self.fullmove += 1;
        }
        self.side = us.other();
        self.ply += 1;
        self.hash ^= self.state_hash();
        self.history.push(undo);
    }

    fn make_setup(&mut self, mv: Move, undo: &mut Undo) {
        self.hash ^= self.state_hash();
        for (sq, p) in self.setup_placements(&mv) {
            self.put(sq, p);
            undo.removed[undo.n_removed as usize] = (sq, None);
            undo.n_removed += 1;
        }
        let phase = self.variant.setup.as_ref().expect("setup moves exist only with a setup phase");
        let next = self.setup_ply as usize + 1;
        if next < phase.plies.len() {
            self.setup_ply = next as u8;
            self.side = phase.plies[next].actor;
        } else {
            // The array is complete: Blue moves first, and this position is occurrence #1.
            self.setup_ply = NO_SETUP;
            self.side = Color::Blue;
            self.irreversible = self.hashes.len() as u32;
        }
        self.ply += 1;
        self.hash ^= self.state_hash();
    }

    /// Takes back the last move made with [`Position::make`].
    pub fn unmake(&mut self) {
        let undo = self.history.pop().expect("unmake() without a move to take back");
        let mv = undo.mv;
        if mv.kind == MoveKind::Setup {
            for &(sq, _) in &undo.removed[..undo.n_removed as usize] {
                self.take(sq);
            }
            self.side = undo.side;
            self.setup_ply = undo.setup_ply;
            self.irreversible = undo.irreversible;
            self.hash = undo.hash;
            self.ply -= 1;
            self.hashes.pop();
            return;
        }
        self.side = self.side.other();
        if self.side == Color::Tan {
            self.fullmove -= 1;
        }
        self.ply -= 1;
        if !mv.aux.is_none() && matches!(mv.kind, MoveKind::Normal | MoveKind::Convert) {
            let converted = self.take(mv.aux);
            self.put(mv.aux, Piece::new(converted.kind(), self.side.other()));
        }
        match mv.kind {
            MoveKind::Normal | MoveKind::Stationary => {
                if mv.kind == MoveKind::Normal {
                    self.take(mv.to);
                    self.put(mv.from, undo.moved.expect("a displacement records its piece"));
                }
                for &(sq, p) in undo.removed[..undo.n_removed as usize].iter().rev() {
                    self.put(sq, p.expect("removed squares record their piece"));
                }
            }
            MoveKind::Castle => {
                let rook_to = self.castle_rook_destination(mv);
                let rook = self.take(rook_to);
                let king = self.take(mv.to);
                self.put(mv.aux, rook);
                self.put(mv.from, king);
            }
            MoveKind::Pass | MoveKind::Convert => {}
            MoveKind::Swap => {
                self.take(mv.to);
                let other = self.take(mv.from);
                self.put(mv.from, undo.moved.expect("a swap records its mover"));
                self.put(mv.to, other);
            }
            MoveKind::SelfCapture => {
                self.put(mv.from, undo.removed[0].1.expect("a self-capture records its piece"));
            }
            _ => unreachable!("move kind {:?} is never generated by this engine version", mv.kind),
        }
        self.castling = undo.castling;
        self.ep = undo.ep;
        self.halfmove = undo.halfmove;
        self.irreversible = undo.irreversible;
        self.hash = undo.hash;
        self.hashes.pop();
    }

    /// If `p` just made an initial multi-square step that an enemy could capture en passant,
    /// the squares it passed over.
    fn double_step_ep(&self, p: Piece, from: Square, to: Square) -> Option<EnPassant> {
        let d = self.variant.dims;
        let (dx, dy) = (d.file(to) - d.file(from), d.rank(to) - d.rank(from));
        let n = dx.abs().max(dy.abs());
        let straight = dx == 0 || dy == 0 || dx.abs() == dy.abs();
        if n < 2 || !straight {
            return None;
        }
        let mut squares = [Square::NONE; 2];
        for i in 1..n.min(3) {
            squares[i as usize - 1] = d.square(d.file(from) + dx / n * i, d.rank(from) + dy / n * i)?;
        }
        let ep = EnPassant { squares, victim: to };
        // Record it only if an enemy en-passant capturer could take it, so that the key of a
        // position does not depend on an unusable right (as in FIDE repetition rules).
        let them = p.color().other();
        let capturable = squares.iter().filter(|s| !s.is_none()).any(|&s| {
            self.reverse_leaps(s, them).any(|(from, flags)| {
                flags & F_CAPTURE != 0
                    && self.board[from.index()]
                        .is_some_and(|q| q.color() == them && self.variant.pieces[q.kind().index()].en_passant)
            })
        });
        capturable.then_some(ep)
    }

    /// Squares from which a piece of colour `by` could leap to `sq`, with the leap's flags, for
    /// every piece type: iterates the mirrored table. Used for en-passant and attack tests.
    fn reverse_leaps(&self, sq: Square, by: Color) -> impl Iterator<Item = (Square, u8)> + '_ {
        let v = &self.variant;
        (0..v.piece_count()).flat_map(move |t| {
            let kind = PieceType(t as u8);
            let (a, b) = v.tables.leap_index[v.table_slot(by.other(), kind, sq)];
            v.tables.leaps[a as usize..b as usize].iter().filter_map(move |l| {
                let from = l.to;
                let here = self.board[from.index()];
                (here == Some(Piece::new(kind, by))).then_some((from, l.flags))
            })
        })
    }

    fn castle_rook_destination(&self, mv: Move) -> Square {
        let d = self.variant.dims;
        let kingside = d.file(mv.aux) > d.file(mv.from);
        let step = if kingside { -1 } else { 1 };
        d.square(d.file(mv.to) + step, d.rank(mv.to)).expect("the rook lands beside the king")
    }

    fn update_castling_rights(&mut self, mv: &Move) {
        let touched = |sq: Square| sq == mv.from || sq == mv.to || mv.captures().contains(&sq);
        for bit in 0..4 {
            if self.castling & (1 << bit) == 0 {
                continue;
            }
            let color = bit / 2;
            if touched(self.castle_kings[color]) || touched(self.castle_rooks[bit]) {
                self.castling &= !(1 << bit);
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // Attacks
    // -----------------------------------------------------------------------------------------

    pub(crate) fn clear_en_passant(&mut self) {
        self.hash ^= self.state_hash();
        self.ep = None;
        self.hash ^= self.state_hash();
    }

    /// Whether a piece of colour `by` attacks (could capture on) `sq`, given the board as it is.
    pub fn is_attacked(&self, sq: Square, by: Color) -> bool {
        let v = &*self.variant;
        if let Some(tables) = &v.attack_tables {
            return tables.is_attacked(&self.board, sq, by);
        }
        if v.has_powers {
            // Powers (relays, igui, bent riders) have no reverse tables: ask the generator.
            let mut moves = MoveList::new();
            self.pseudo_legal_moves_of(by, &mut moves);
            return moves.iter().any(|m| m.to == sq && m.kind == MoveKind::Normal || m.captures().contains(&sq));
        }
        let tables = &v.tables;
        let nt = v.piece_count();
        for t in 0..nt {
            let kind = PieceType(t as u8);
            let attacker = Piece::new(kind, by);
            if self.counts[attacker.index()] == 0 || !v.pieces[t].captures {
                continue;
            }
            // Reverse lookup: the other colour's table from `sq` holds the negated vectors.
            let slot = v.table_slot(by.other(), kind, sq);
            let (a, b) = tables.leap_index[slot];
            for l in &tables.leaps[a as usize..b as usize] {
                if l.flags & F_CAPTURE == 0 || self.board[l.to.index()] != Some(attacker) {
                    continue;
                }
                if l.flags & F_INITIAL != 0 && !self.in_initial_region(l.to, by) {
                    continue;
                }
                // A lame leaper's path is seen from its own square: mirror it into place.
                let blocked = l.via.iter().any(|&via| {
                    !via.is_none() && {
                        let mirrored = (l.to.index() + sq.index()) - via.index();
                        self.board[mirrored].is_some()
                    }
                });
                if !blocked {
                    return true;
                }
            }
            let (a, b) = tables.ray_index[slot];
            for r in &tables.rays[a as usize..b as usize] {
                if r.flags & F_CAPTURE == 0 {
                    continue;
                }
                let squares = &tables.ray_squares[r.start as usize..r.start as usize + r.len as usize];
                match r.jump {
                    Jump::Free | Jump::Lame => {
                        if let Some(&s) = squares.iter().find(|s| self.board[s.index()].is_some()) {
                            if self.board[s.index()] == Some(attacker) {
                                return true;
                            }
                        }
                    }
                    Jump::Hop => {
                        let mut it = squares.iter().filter(|s| self.board[s.index()].is_some());
                        if it.next().is_some() && it.next().is_some_and(|s| self.board[s.index()] == Some(attacker)) {
                            return true;
                        }
                    }
                    Jump::Grasshopper => {
                        if squares.len() >= 2 && self.board[squares[0].index()].is_some() {
                            if let Some(&s) = squares[1..].iter().find(|s| self.board[s.index()].is_some()) {
                                if self.board[s.index()] == Some(attacker) {
                                    return true;
                                }
                            }
                        }
                    }
                }
            }
        }
        false
    }

    /// Whether any royal piece of `color` is attacked.
    pub fn in_check(&self, color: Color) -> bool {
        let c = color.index();
        self.royals[c][..self.n_royals[c] as usize].iter().any(|&sq| self.is_attacked(sq, color.other()))
    }

    #[inline]
    fn in_initial_region(&self, sq: Square, color: Color) -> bool {
        let rank = self.variant.relative_rank(sq, color) + 1;
        self.variant.rules.initial_move_ranks.iter().any(|&r| r as i32 == rank)
    }

    // -----------------------------------------------------------------------------------------
    // Game end
    // -----------------------------------------------------------------------------------------

    /// A result decided by material alone (royal captured, bared, extinction), for the side to
    /// move. Such positions have no legal moves: perft never expands a finished game.
    pub fn immediate_outcome(&self) -> Option<Outcome> {
        if self.in_setup() {
            return None;
        }
        let v = &*self.variant;
        let us = self.side;
        let them = us.other();
        let royal_capture = v.rules.royal == RoyalRule::Capture && v.pieces.iter().any(|p| p.royal);
        if royal_capture && self.n_royals[us.index()] == 0 {
            return Some(Outcome::Decisive { winner: them, reason: EndReason::RoyalCaptured });
        }
        if let Some(e) = &v.rules.extinction {
            let count = |c: Color, t: Option<PieceType>| -> u16 {
                match t {
                    None => self.totals[c.index()],
                    Some(t) => self.counts[Piece::new(t, c).index()],
                }
            };
            let all = [None];
            let listed: Vec<Option<PieceType>>;
            let types: &[Option<PieceType>] = match &e.types {
                None => &all,
                Some(ts) => {
                    listed = ts.iter().map(|&t| Some(t)).collect();
                    &listed
                }
            };
            // The side that just moved is tested first, as Fairy-Stockfish does.
            for c in [them, us] {
                for &t in types {
                    let claim = u16::from(e.claim && c == us);
                    if count(c, t) <= e.count && count(c.other(), t) >= e.opponent_count + claim {
                        let value = if c == us { e.value } else { invert(e.value) };
                        let reason = if e.count > 0 { EndReason::Bared } else { EndReason::Extinction };
                        return Some(Outcome::from_value(us, value, reason));
                    }
                }
            }
        }
        if v.rules.bare == BareRule::OnePieceLoses && self.totals[us.index()] <= 1 {
            return Some(Outcome::Decisive { winner: them, reason: EndReason::Bared });
        }
        // The mover can only lose by its own move through a self-capture (Typhoon §6.2).
        if royal_capture && self.n_royals[them.index()] == 0 {
            return Some(Outcome::Decisive { winner: us, reason: EndReason::RoyalCaptured });
        }
        if v.rules.bare == BareRule::OnePieceLoses && self.totals[them.index()] <= 1 {
            return Some(Outcome::Decisive { winner: us, reason: EndReason::Bared });
        }
        None
    }

    /// The game result if the game is over in this position, `None` otherwise. `legal` must be
    /// the legal moves of this position (pass an empty slice only if there are none).
    pub fn outcome_with(&self, legal: &[Move]) -> Option<Outcome> {
        if self.in_setup() {
            return None;
        }
        if let Some(o) = self.immediate_outcome() {
            return Some(o);
        }
        let v = &*self.variant;
        let us = self.side;
        if legal.is_empty() {
            if v.rules.royal == RoyalRule::Checkmate && self.in_check(us) {
                return Some(Outcome::Decisive { winner: us.other(), reason: EndReason::Checkmate });
            }
            if v.rules.repetition == RepetitionRule::ThirdIllegal && self.has_repetition_blocked_moves() {
                return Some(Outcome::Decisive { winner: us.other(), reason: EndReason::RepetitionLoss });
            }
            return Some(Outcome::from_value(us, v.rules.stalemate, EndReason::Stalemate));
        }
        if let Some(limit) = v.rules.halfmove_draw {
            if self.halfmove >= limit {
                return Some(Outcome::Draw { reason: EndReason::HalfmoveRule });
            }
        }
        match v.rules.repetition {
            RepetitionRule::ThirdDraws if self.repetitions() >= 2 => {
                return Some(Outcome::Draw { reason: EndReason::Repetition })
            }
            RepetitionRule::FourthDraws if self.repetitions() >= 3 => {
                return Some(Outcome::Draw { reason: EndReason::Repetition })
            }
            _ => {}
        }
        None
    }

    /// The game result, if the game is over here.
    pub fn outcome(&self) -> Option<Outcome> {
        let mut moves = MoveList::new();
        let mut scratch = self.clone();
        scratch.legal_moves(&mut moves);
        self.outcome_with(&moves)
    }

    fn has_repetition_blocked_moves(&self) -> bool {
        let mut moves = MoveList::new();
        self.pseudo_legal_moves(&mut moves);
        !moves.is_empty()
    }

    /// How many times the current position occurred before (same key, same side to move),
    /// looking back to the last irreversible move.
    pub fn repetitions(&self) -> usize {
        let n = self.hashes.len();
        let stop = self.irreversible as usize;
        let mut count = 0;
        let mut i = n;
        while i >= stop + 2 {
            i -= 2;
            if self.hashes[i] == self.hash {
                count += 1;
            }
        }
        count
    }

    // -----------------------------------------------------------------------------------------
    // Move generation
    // -----------------------------------------------------------------------------------------

    /// Fills `out` with every legal move (after clearing it). Empty if the game is over by
    /// material (see [`Position::immediate_outcome`]).
    pub fn legal_moves(&mut self, out: &mut MoveList) {
        out.clear();
        if self.in_setup() {
            self.setup_moves(out);
            return;
        }
        if self.immediate_outcome().is_some() {
            return;
        }
        self.pseudo_legal_moves(out);
        let v = Arc::clone(&self.variant);
        let us = self.side;
        if v.rules.royal == RoyalRule::Checkmate && self.n_royals[us.index()] > 0 {
            let shortcut = v.simple_attacks && !self.in_check(us);
            let exposed = if shortcut { self.pin_candidates(us) } else { SquareSet::EMPTY };
            out.retain(|&m| {
                let risky = m.kind != MoveKind::Normal || !m.captures().is_empty() || exposed.contains(m.from);
                if shortcut && !risky {
                    return true;
                }
                self.make(m);
                let ok = !self.in_check(us);
                self.unmake();
                ok
            });
        }
        if v.rules.repetition == RepetitionRule::ThirdIllegal && self.hashes.len() >= self.irreversible as usize + 3 {
            out.retain(|&m| {
                self.make(m);
                let ok = self.repetitions() < 2;
                self.unmake();
                ok
            });
        }
        if v.rules.forced_capture && out.iter().any(|m| self.is_capture(m)) {
            out.retain(|m| self.is_capture(m));
        }
    }

    /// Squares whose piece, if it moves away, might expose a royal of `us` (the position is
    /// not in check, and attacks are plain leaps and rides): the royals themselves, and every
    /// own piece that is the first piece on a rider line from a royal with an enemy riding piece
    /// right behind it. Moves from any other square cannot leave a royal attacked.
    fn pin_candidates(&self, us: Color) -> SquareSet {
        let v = &*self.variant;
        let c = us.index();
        let mut set = SquareSet::EMPTY;
        for &royal in &self.royals[c][..self.n_royals[c] as usize] {
            set.insert(royal);
            let (rf, rr) = v.coords[royal.index()];
            for &(dx, dy) in &v.line_dirs {
                let mut shield = None;
                let mut k = 1;
                while let Some(sq) = v.dims.square(rf as i32 + dx * k, rr as i32 + dy * k) {
                    if let Some(p) = self.board[sq.index()] {
                        match shield {
                            None if p.color() == us => shield = Some(sq),
                            None => break,
                            Some(s) => {
                                if p.color() != us && v.rides_to_capture[p.kind().index()] {
                                    set.insert(s);
                                }
                                break;
                            }
                        }
                    }
                    k += 1;
                }
            }
        }
        set
    }

    /// Whether a move removes an enemy piece.
    pub fn is_capture(&self, m: &Move) -> bool {
        !m.captures().is_empty()
            || (m.kind == MoveKind::Normal && self.board[m.to.index()].is_some_and(|p| p.color() != self.side))
    }

    /// Number of legal moves (perft's bulk count).
    pub fn count_legal_moves(&mut self, scratch: &mut MoveList) -> usize {
        self.legal_moves(scratch);
        scratch.len()
    }

    /// Every move allowed by piece geometry and the board, before royal-safety, repetition and
    /// forced-capture filters.
    pub fn pseudo_legal_moves(&self, out: &mut MoveList) {
        out.clear();
        if self.in_setup() {
            self.setup_moves(out);
            return;
        }
        self.pseudo_legal_moves_of(self.side, out);
    }

    /// Pseudo-legal moves of `us`, whoever is to move (appended to `out`).
    fn pseudo_legal_moves_of(&self, us: Color, out: &mut MoveList) {
        let v = &*self.variant;
        let has_powers = v.has_powers;
        let frozen = if v.immobilizers.is_empty() { SquareSet::EMPTY } else { self.immobilized(us) };
        let mut passer = None;
        let mut own = self.occupied[us.index()];
        for w in 0..WORDS {
            while own.0[w] != 0 {
                let b = own.0[w].trailing_zeros() as usize;
                own.0[w] &= own.0[w] - 1;
                let sq = Square((w * 64 + b) as u16);
                let p = self.board[sq.index()].expect("occupancy matches the board");
                if frozen.contains(sq) {
                    // An immobilized piece may only take itself off the board (Typhoon §3.7).
                    out.push(Move::normal(sq, sq).with_kind(MoveKind::SelfCapture));
                    continue;
                }
                let start = out.len();
                self.piece_moves(sq, p, out);
                if has_powers && !v.powers[p.kind().index()].is_empty() {
                    self.own_power_moves(sq, p, out);
                    if passer.is_none() && v.passers[p.kind().index()] {
                        passer = Some(sq);
                    }
                }
                if v.pieces[p.kind().index()].needs_dedup {
                    dedup_tail(out, start);
                }
            }
        }
        if !v.relayers.is_empty() {
            self.relay_moves(us, &frozen, out);
        }
        if let Some(sq) = passer {
            // One pass per position, named after the first piece that can pass.
            out.push(Move::pass(sq));
        }
        if us == self.side && self.castling & (3 << (2 * us.index())) != 0 {
            self.castling_moves(out);
        }
    }

    fn piece_moves(&self, from: Square, p: Piece, out: &mut MoveList) {
        let v = &*self.variant;
        let t = &v.tables;
        let us = p.color();
        let slot = v.table_slot(us, p.kind(), from);
        let (a, b) = t.leap_index[slot];
        let ep_capable = self.ep.is_some() && v.pieces[p.kind().index()].en_passant;
        for l in &t.leaps[a as usize..b as usize] {
            if l.flags & F_INITIAL != 0 && !self.in_initial_region(from, us) {
                continue;
            }
            if l.via.iter().any(|via| !via.is_none() && self.board[via.index()].is_some()) {
                continue;
            }
            match self.board[l.to.index()] {
                None => {
                    if l.flags & F_MOVE != 0 {
                        self.push_displacement(from, l.to, p, out);
                    } else if ep_capable && l.flags & F_CAPTURE != 0 {
                        self.push_en_passant(from, l.to, p, out);
                    }
                }
                Some(q) if q.color() != us && l.flags & F_CAPTURE != 0 => self.push_displacement(from, l.to, p, out),
                Some(_) => {}
            }
        }
        let (a, b) = t.ray_index[slot];
        for r in &t.rays[a as usize..b as usize] {
            let squares = &t.ray_squares[r.start as usize..r.start as usize + r.len as usize];
            match r.jump {
                Jump::Free | Jump::Lame => self.ride(from, p, squares, r.flags, out),
                Jump::Hop => {
                    if let Some(i) = squares.iter().position(|s| self.board[s.index()].is_some()) {
                        self.ride(from, p, &squares[i + 1..], r.flags, out);
                    }
                }
                Jump::Grasshopper => {
                    if let Some(i) = squares.iter().position(|s| self.board[s.index()].is_some()) {
                        if let Some(&land) = squares.get(i + 1) {
                            match self.board[land.index()] {
                                None if r.flags & F_MOVE != 0 => self.push_displacement(from, land, p, out),
                                Some(q) if q.color() != us && r.flags & F_CAPTURE != 0 => {
                                    self.push_displacement(from, land, p, out)
                                }
                                _ => {}
                            }
                        }
                    }
                }
            }
        }
    }

    #[inline]
    fn ride(&self, from: Square, p: Piece, squares: &[Square], flags: u8, out: &mut MoveList) {
        for &s in squares {
            match self.board[s.index()] {
                None => {
                    if flags & F_MOVE != 0 {
                        self.push_displacement(from, s, p, out);
                    }
                }
                Some(q) => {
                    if q.color() != p.color() && flags & F_CAPTURE != 0 {
                        self.push_displacement(from, s, p, out);
                    }
                    return;
                }
            }
        }
    }

    fn push_en_passant(&self, from: Square, to: Square, p: Piece, out: &mut MoveList) {
        let ep = self.ep.expect("checked by the caller");
        if !ep.squares.contains(&to) {
            return;
        }
        if self.board[ep.victim.index()].is_some_and(|q| q.color() != p.color()) {
            let start = out.len();
            self.push_displacement(from, to, p, out);
            for m in &mut out[start..] {
                m.add_capture(ep.victim);
            }
        }
    }

    /// Pushes a displacement with its promotion variants.
    #[inline]
    pub(crate) fn push_displacement(&self, from: Square, to: Square, p: Piece, out: &mut MoveList) {
        self.push_with_promotions(Move::normal(from, to), p, out)
    }

    /// Pushes a move of `p` (a displacement or a swap), once plain and once per promotion it
    /// allows, following the variant's zone, trigger, compulsion and limit rules.
    pub(crate) fn push_with_promotions(&self, base: Move, p: Piece, out: &mut MoveList) {
        let v = &*self.variant;
        let def = &v.pieces[p.kind().index()];
        if def.promotes_to.is_empty() {
            out.push(base);
            return;
        }
        let (from, to) = (base.from, base.to);
        let us = p.color();
        let promo = &v.rules.promotion;
        let eligible = v.in_promotion_zone(to, us)
            || (promo.trigger == PromotionTrigger::StartsOrEndsInZone && v.in_promotion_zone(from, us));
        if !eligible {
            out.push(base);
            return;
        }
        let last_rank = v.relative_rank(to, us) == v.dims.height as i32 - 1;
        let must = match promo.mandatory {
            PromotionMandatory::Always => true,
            PromotionMandatory::Never => false,
            PromotionMandatory::OnLastRank => last_rank,
        };
        if !must {
            out.push(base);
        }
        for &t in &def.promotes_to {
            if promo.limit_to_captured {
                let idx = Piece::new(t, us).index();
                if self.counts[idx] >= v.start_counts[idx] {
                    continue;
                }
            }
            let mut target = t;
            if let Some((present, becomes)) = def.promotion_upgrade {
                // Counted after the move's own captures (Typhoon §3.5).
                let on_board = |c: Color| self.counts[Piece::new(present, c).index()] as i32;
                let mut count = on_board(Color::Blue) + on_board(Color::Tan);
                let victims =
                    base.captures().iter().copied().chain(
                        (base.kind == MoveKind::Normal).then_some(to).filter(|s| self.board[s.index()].is_some()),
                    );
                count -= victims.filter(|s| self.board[s.index()].is_some_and(|q| q.kind() == present)).count() as i32;
                if count > 0 {
                    target = becomes;
                }
            }
            out.push(base.with_piece(Some(target)));
        }
    }

    fn castling_moves(&self, out: &mut MoveList) {
        let v = &*self.variant;
        let Some(castling) = &v.rules.castling else { return };
        let us = self.side;
        let d = v.dims;
        let king_sq = self.castle_kings[us.index()];
        if self.board[king_sq.index()] != Some(Piece::new(castling.king, us)) {
            return;
        }
        for side in 0..2 {
            let bit = 2 * us.index() + side;
            if self.castling & (1 << bit) == 0 {
                continue;
            }
            let rook_sq = self.castle_rooks[bit];
            if self.board[rook_sq.index()] != Some(Piece::new(castling.rook, us)) {
                continue;
            }
            let rank = d.rank(king_sq);
            let king_to = d.square(castling.king_files[side], rank).expect("castling file is on the board");
            let rook_to = d
                .square(castling.king_files[side] + if side == 0 { -1 } else { 1 }, rank)
                .expect("the rook lands beside the king");
            // Every square either piece crosses or lands on must be empty but for the two.
            let span = |a: Square, b: Square| {
                let (lo, hi) = (d.file(a).min(d.file(b)), d.file(a).max(d.file(b)));
                (lo..=hi).map(move |f| d.square(f, rank).expect("on the back rank"))
            };
            let clear = span(king_sq, king_to)
                .chain(span(rook_sq, rook_to))
                .all(|s| s == king_sq || s == rook_sq || self.board[s.index()].is_none());
            if !clear {
                continue;
            }
            // The king may not castle out of, through or into check.
            // A royal king may not castle out of, through or into check (a non-royal one may).
            if v.pieces[castling.king.index()].royal
                && v.rules.royal == RoyalRule::Checkmate
                && span(king_sq, king_to).any(|s| self.is_attacked(s, us.other()))
            {
                continue;
            }
            out.push(Move::normal(king_sq, king_to).with_kind(MoveKind::Castle).with_aux(rook_sq));
        }
    }
}

fn invert(v: GameValue) -> GameValue {
    match v {
        GameValue::Win => GameValue::Loss,
        GameValue::Loss => GameValue::Win,
        GameValue::Draw => GameValue::Draw,
    }
}

/// Removes duplicate moves among `out[start..]` (pieces whose atoms overlap, e.g. `KmBcR`).
fn dedup_tail(out: &mut MoveList, start: usize) {
    let mut i = start;
    while i < out.len() {
        if out[start..i].contains(&out[i]) {
            out.swap_remove(i);
        } else {
            i += 1;
        }
    }
}

/// Counts leaf nodes of the legal move tree to `depth`, counting the last ply in bulk.
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    let mut buffers: Vec<MoveList> = (0..=depth).map(|_| MoveList::with_capacity(256)).collect();
    perft_inner(pos, depth, &mut buffers)
}

fn perft_inner(pos: &mut Position, depth: u32, buffers: &mut [MoveList]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (list, rest) = buffers.split_first_mut().expect("one buffer per depth");
    pos.legal_moves(list);
    if depth == 1 {
        return list.len() as u64;
    }
    let mut nodes = 0;
    for i in 0..list.len() {
        let m = list[i];
        pos.make(m);
        nodes += perft_inner(pos, depth - 1, rest);
        pos.unmake();
    }
    nodes
}

/// Perft split by root move: `(move, nodes)` pairs.
pub fn perft_divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    moves
        .into_iter()
        .map(|m| {
            pos.make(m);
            let n = if depth <= 1 { 1 } else { perft(pos, depth - 1) };
            pos.unmake();
            (m, n)
        })
        .collect()
}
