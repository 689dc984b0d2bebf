//! The encoding: what the network sees of a position and of each legal move.
//!
//! Everything is seen from the side to move: when Tan is to move, every square is rotated by
//! 180° (not mirrored: several fairy pieces are left/right asymmetric), and pieces are "ours" or
//! "theirs" rather than Blue or Tan, so that both players share what the net learns.
//!
//! A position becomes
//! - per-square **piece ids** `0` (empty) or `1 + 2 * type + (0 ours | 1 theirs)`, looked up in
//!   a learned embedding table by the net (rather than hundreds of one-hot planes); in a variant
//!   with a neutral token (`[neutral_token]`), its square has the id `1 + 2 * types`, one more
//!   row of that table ([`board_vocab`]);
//! - a few **spatial planes** ([`plane`]): on-board, both promotion zones, en-passant squares;
//!   in a variant with protean men (`[protean]`), two more after those ([`protean_planes`]):
//!   where the side to move's protean man stands, and where the opponent's does;
//! - a few **global features** ([`global`]): side to move, repetitions, setup phase and its
//!   progress, move-cap and halfmove-clock progress, castling rights, whether the opponent just
//!   passed. They are constant over the board, so the net adds them once to its stem (KataGo's
//!   "global inputs") instead of paying for constant planes in the first convolution;
//! - in variants with pieces in hand (`[drops]`), one more global feature per piece type and
//!   side after those ([`hand_features`]): what each side holds decides its drops, and the board
//!   does not show it. Other variants have none, so their inputs (and checkpoints) are as before;
//! - in variants with multi-move turns (`[turns]`), two more after those ([`turn_features`]):
//!   whether and how long the side to move goes on moving, which the board does not show either.
//!
//! A move becomes a [`MoveFeatures`]: its kind, from and to squares, mover type, promoted /
//! dropped / placed type, aux square and every extra captured square, all relative to the side
//! to move, and for a doubled turn (Jupiter's Doubler) the same of its second action. No per-variant move-index table and no hashed strings: the same definition serves
//! any board and any piece set, and a move's features are distinct from every other move's
//! exactly when the moves are (the rules engine's move identity, `rules/src/moves.rs`).
//!
//! A batch of positions with their legal moves is an [`EncodedBatch`]: flat arrays (exposed as
//! `ndarray` views) and a ragged move list with offsets, which the network gathers from.

use std::sync::Arc;

use fairyzero_rules::{moves::MAX_EXTRA_CAPTURES, variant::PassRule, Color, Move, MoveKind, Position, Square, Variant};
use ndarray::{ArrayView2, ArrayView3, ArrayView4};

/// Bumped whenever the meaning of any input changes; checkpoints record it. Version 3 added
/// [`global::OPPONENT_PASSED`] (Chushin Shogi forbids a pass right after a pass) and names the
/// passing piece of a per-piece pass in its [`MoveFeatures`].
pub const ENCODING_VERSION: u32 = 3;

/// Spatial feature planes besides the piece ids.
pub mod plane {
    /// 1 on every square (with zero padding, lets the first convolution see the board edge).
    pub const ON_BOARD: usize = 0;
    /// The side to move's promotion zone.
    pub const OUR_PROMOTION_ZONE: usize = 1;
    /// The opponent's promotion zone.
    pub const THEIR_PROMOTION_ZONE: usize = 2;
    /// Squares that can be captured onto en passant right now.
    pub const EN_PASSANT: usize = 3;
    /// The planes every variant has. The variant planes follow them ([`super::plane_len`]).
    pub const COUNT: usize = 4;
    /// Variant planes of Protean Chess (`[protean]`, [`super::protean_planes`]): 1 on the
    /// square of the side to move's protean man, and on the opponent's.
    pub const PROTEAN_OURS: usize = COUNT;
    pub const PROTEAN_THEIRS: usize = COUNT + 1;
}

/// The protean planes of a variant with protean men (`[protean]`): [`plane::PROTEAN_OURS`] and
/// [`plane::PROTEAN_THEIRS`]. Which man is protean decides what its captures do, and the board
/// shows only its type. A variant without protean men has none, so its inputs (and checkpoints)
/// are as before.
pub fn protean_planes(variant: &Variant) -> usize {
    if variant.rules.protean.is_some() {
        2
    } else {
        0
    }
}

/// How many spatial planes a position of `variant` has: [`plane::COUNT`] plus its variant
/// planes ([`protean_planes`]). The net's stem takes this many planes besides the piece ids.
pub fn plane_len(variant: &Variant) -> usize {
    plane::COUNT + protean_planes(variant)
}

/// Board-wide input features.
pub mod global {
    /// 1 when Tan (the second player) is to move.
    pub const SECOND_PLAYER: usize = 0;
    /// The current position occurred at least once before (same side to move).
    pub const REPEATED_ONCE: usize = 1;
    /// ... at least twice before. With these two the net knows the position's occurrences in
    /// every position it is asked about: the one more occurrence that a repetition rule acts
    /// on (threefold draw, third occurrence illegal, fourth occurrence draws in Chushin Shogi)
    /// is always at most two earlier ones away, since a position with one more is decided
    /// (`Position::outcome`) and never evaluated. A "repeated thrice" feature would therefore
    /// be 0 in every position of every game the net sees.
    pub const REPEATED_TWICE: usize = 2;
    /// The players are still choosing the array (setup phase).
    pub const SETUP_PHASE: usize = 3;
    /// Setup plies done / setup plies in all.
    pub const SETUP_PROGRESS: usize = 4;
    /// Game ply / the variant's move cap (adjudicated as a draw), clamped to 1.
    pub const MOVE_CAP_PROGRESS: usize = 5;
    /// Halfmove clock / the variant's halfmove draw limit (0 when it has none).
    pub const HALFMOVE_PROGRESS: usize = 6;
    /// Castling rights: ours toward the higher files, ours toward file a, theirs likewise
    /// (files as on the real board, not rotated).
    pub const CASTLE_OURS_H: usize = 7;
    pub const CASTLE_OURS_A: usize = 8;
    pub const CASTLE_THEIRS_H: usize = 9;
    pub const CASTLE_THEIRS_A: usize = 10;
    /// The opponent's last move was a pass and the variant forbids a pass right after one
    /// (per-piece passes, Chushin Shogi, dossier §8.5): no pass is legal now. 0 in every other
    /// variant, where the previous pass changes nothing, so that the inputs stay a function of
    /// `Position::search_key`, the network cache's key.
    pub const OPPONENT_PASSED: usize = 11;
    pub const COUNT: usize = 12;
}

/// The hand features of a variant with pieces in hand (`[drops]`): after the [`global::COUNT`]
/// fixed ones, for each piece type `t` (in the variant file's order) feature
/// `global::COUNT + 2 * t` is the side to move's count in hand and `global::COUNT + 2 * t + 1` the
/// opponent's, each divided by the most either side holds of that type in the start position
/// (so 1 at the start, 0 once dropped; types no side starts with count as is). A variant without
/// drops has none.
pub fn hand_features(variant: &Variant) -> usize {
    if variant.has_drops() {
        2 * variant.piece_count()
    } else {
        0
    }
}

/// The turn features of a variant with multi-move turns (`[turns]`, issue 21 #11-#16), after the
/// hand features: feature `global::COUNT + hand_features` is the moves the side to move has left
/// in its turn after this one, divided by the turn's length (0 on a turn's last move; 1/2 on the
/// first move of a two-move turn), and the next one is `1 - 1 / turn length` (0 for a one-move
/// turn, 1/2 for two moves, growing towards 1 in a progressive game). A variant with one move
/// per turn has none.
pub fn turn_features(variant: &Variant) -> usize {
    if variant.rules.turns.is_some() {
        2
    } else {
        0
    }
}

/// How many global features a position of `variant` has: [`global::COUNT`] plus its
/// [`hand_features`] and [`turn_features`]. The net's global input has this width.
pub fn global_len(variant: &Variant) -> usize {
    global::COUNT + hand_features(variant) + turn_features(variant)
}

/// Rows in the net's move-kind embedding: the kinds of single actions and first actions from
/// row 0, those of the second action of a doubled turn from row [`SECOND_ACTION_KIND_SLOT`], so
/// that the net tells the two actions apart. More rows than the engine has kinds, so that a new
/// kind does not change checkpoint shapes.
pub const MOVE_KIND_SLOTS: usize = 2 * SECOND_ACTION_KIND_SLOT;

/// The first move-kind embedding row of second actions (see [`MOVE_KIND_SLOTS`]).
pub const SECOND_ACTION_KIND_SLOT: usize = 16;

/// Rows in the net's embedding of the number of extra captured squares: counts from 0 to
/// `CAPTURE_COUNT_SLOTS - 1`, larger counts share the last row. A constant of its own, so that
/// the rules engine raising its capture limit does not change checkpoint shapes.
pub const CAPTURE_COUNT_SLOTS: usize = 16;

/// The id of a move kind in the network's move-kind embedding. Exhaustive on purpose: a new
/// [`MoveKind`] in the rules engine must be given an id here.
pub fn move_kind_id(kind: MoveKind) -> u8 {
    match kind {
        MoveKind::Normal => 0,
        MoveKind::Castle => 1,
        MoveKind::Drop => 2,
        MoveKind::Stationary => 3,
        MoveKind::Convert => 4,
        MoveKind::Swap => 5,
        MoveKind::Pass => 6,
        MoveKind::SelfCapture => 7,
        MoveKind::Setup => 8,
        MoveKind::Push => 9,
        MoveKind::Pull => 10,
        MoveKind::Reproduce => 11,
        MoveKind::Shove => 12,
        MoveKind::Mark => 13,
    }
}

/// "No square" in [`MoveFeatures`].
pub const NO_SQUARE: u16 = u16::MAX;

/// What the network knows about one legal move. Squares are relative to the side to move
/// (rotated by 180° for Tan); piece types are `type + 1`, with 0 for "none". The fields describe
/// the move's first (or only) action; `second` the second action of a doubled turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MoveFeatures {
    /// [`move_kind_id`] of the move's kind.
    pub kind: u8,
    pub from: u16,
    pub to: u16,
    /// Type of the piece standing on `from` (+1), 0 if the square is empty (drops, setup).
    pub mover: u16,
    /// Promotion, dropped or placed type (+1), 0 for none.
    pub piece: u16,
    /// Castling rook, converted / pushed / pulled / reproduced square, or [`NO_SQUARE`].
    pub aux: u16,
    /// Number of squares in `captures`.
    pub n_captures: u8,
    /// Removed squares other than `to` (multi-captures, hops, en passant, captures without
    /// moving), ascending in relative numbering, padded with [`NO_SQUARE`].
    pub captures: [u16; MAX_EXTRA_CAPTURES],
    /// The second action of a doubled turn (jupiter.md §5.3).
    pub second: Option<ActionFeatures>,
}

impl MoveFeatures {
    /// The extra captured squares of the first (or only) action.
    pub fn captures(&self) -> &[u16] {
        &self.captures[..self.n_captures as usize]
    }
}

/// The second action of a doubled turn, relative like the first. Its mover is not a feature:
/// it follows from the position and the first action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ActionFeatures {
    /// [`move_kind_id`] of the action's kind.
    pub kind: u8,
    pub from: u16,
    pub to: u16,
    /// Promotion type (+1), 0 for none.
    pub piece: u16,
    /// Pushed / pulled / reproduced / converted square, or [`NO_SQUARE`].
    pub aux: u16,
    /// Number of squares in `captures`.
    pub n_captures: u8,
    /// Removed squares other than `to`, ascending, padded with [`NO_SQUARE`].
    pub captures: [u16; MAX_EXTRA_CAPTURES],
}

impl ActionFeatures {
    /// The extra removed squares of the second action.
    pub fn captures(&self) -> &[u16] {
        &self.captures[..self.n_captures as usize]
    }
}

/// Where one position's inputs go (slices of an [`EncodedBatch`]).
pub struct PositionSlot<'a> {
    /// `squares` piece ids, rank-major in relative numbering.
    pub pieces: &'a mut [i64],
    /// [`Encoding::plane_len`] `* squares` values, plane-major.
    pub planes: &'a mut [f32],
    /// [`Encoding::global_len`] values.
    pub global: &'a mut [f32],
}

/// The interface between the rules engine and the network: turns positions and moves into
/// network inputs. [`StandardEncoding`] is the one the net is built for; the trait is the seam
/// where another input representation would plug in (and checkpoints record its version).
pub trait Encoding: Send + Sync {
    /// The variant whose positions this encodes.
    fn variant(&self) -> &Arc<Variant>;

    /// Version recorded in checkpoints; a net only accepts the version it was trained with.
    fn version(&self) -> u32;

    /// Fills one position's slot. Every element of the slot is written.
    fn encode_position(&self, pos: &Position, slot: PositionSlot<'_>);

    /// The features of one legal move of `pos`.
    fn encode_move(&self, pos: &Position, m: &Move) -> MoveFeatures;

    /// Global features per position: [`global::COUNT`] unless the encoding adds its own (the
    /// standard one adds the hands of a variant with drops, [`global_len`]).
    fn global_len(&self) -> usize {
        global::COUNT
    }

    /// Spatial planes per position: [`plane::COUNT`] unless the encoding adds its own (the
    /// standard one adds the protean planes of a variant with protean men, [`plane_len`]).
    fn plane_len(&self) -> usize {
        plane::COUNT
    }

    /// Per piece type, the type it becomes in the left-right mirror where that is another type
    /// (see [`MirrorTypes`]); `None` when every mirrorable type is its own image.
    fn mirror_types(&self) -> Option<&MirrorTypes> {
        None
    }
}

/// Per piece type (index), the type its pieces become in the left-right mirror image of a
/// position, for variants where some types are each other's mirror image (Chushin Shogi's Left
/// and Right Generals; `Variant::mirror_type`). Types without an image map to themselves: no
/// position holding them is mirrored. Carried by each [`EncodedBatch`], so that the mirror of
/// its piece ids and move features (`mirror.rs`) needs nothing else.
pub type MirrorTypes = Arc<[u16]>;

/// Number of rows of the board piece-id vocabulary: empty plus (type x ours/theirs).
pub fn piece_vocab(piece_types: usize) -> usize {
    1 + 2 * piece_types
}

/// Rows of `variant`'s board id vocabulary: [`piece_vocab`], plus one for the neutral token in
/// a variant with one (`[neutral_token]`: its id is `piece_vocab(types)`), so that every other
/// variant's table, and its checkpoints, are as before.
pub fn board_vocab(variant: &Variant) -> usize {
    piece_vocab(variant.piece_count()) + usize::from(variant.rules.neutral_token.is_some())
}

/// The encoding described in the module documentation, with the per-variant tables it needs
/// precomputed (promotion zones of both colours).
pub struct StandardEncoding {
    variant: Arc<Variant>,
    /// Per colour, per absolute square: in that colour's promotion zone.
    promotion_zone: [Vec<bool>; 2],
    setup_plies: usize,
    /// Each passing piece has its own pass move (`PassRule::PerPieceNoDoublePass`).
    passes_per_piece: bool,
    /// `None` unless some type's mirror image is another type.
    mirror_types: Option<MirrorTypes>,
    /// Per piece type, what one piece in hand weighs in its hand feature (see
    /// [`hand_features`]); empty without drops.
    hand_scale: Vec<f32>,
    /// The variant has multi-move turns: the [`turn_features`] follow the hands.
    turns: bool,
    /// The variant has protean men: the [`protean_planes`] follow the fixed planes.
    protean: bool,
}

impl StandardEncoding {
    pub fn new(variant: Arc<Variant>) -> StandardEncoding {
        let n = variant.dims.squares();
        let zone = |c: Color| (0..n).map(|s| variant.in_promotion_zone(Square(s as u16), c)).collect();
        let promotion_zone = [zone(Color::Blue), zone(Color::Tan)];
        let setup_plies = variant.spec.setup.as_ref().map_or(0, |s| s.plies.len());
        let passes_per_piece = variant.rules.pass == PassRule::PerPieceNoDoublePass;
        let swaps = variant.mirror_type.iter().enumerate().any(|(t, image)| image.is_some_and(|u| u.index() != t));
        let mirror_types = swaps.then(|| {
            variant.mirror_type.iter().enumerate().map(|(t, image)| image.map_or(t as u16, |u| u.0 as u16)).collect()
        });
        let hand_scale = if variant.has_drops() {
            let start = Position::start(Arc::clone(&variant));
            (0..variant.piece_count())
                .map(|t| {
                    let kind = fairyzero_rules::PieceType(t as u8);
                    let most = Color::BOTH.iter().map(|&c| start.in_hand(fairyzero_rules::Piece::new(kind, c))).max();
                    1.0 / f32::from(most.unwrap_or(0).max(1))
                })
                .collect()
        } else {
            Vec::new()
        };
        let turns = variant.rules.turns.is_some();
        let protean = variant.rules.protean.is_some();
        StandardEncoding {
            variant,
            promotion_zone,
            setup_plies,
            passes_per_piece,
            mirror_types,
            hand_scale,
            turns,
            protean,
        }
    }

    pub fn squares(&self) -> usize {
        self.variant.dims.squares()
    }

    /// A square as the side to move `stm` sees it.
    #[inline]
    pub fn relative_square(&self, stm: Color, sq: Square) -> u16 {
        if sq.is_none() {
            NO_SQUARE
        } else if stm == Color::Blue {
            sq.0
        } else {
            (self.squares() - 1 - sq.index()) as u16
        }
    }

    /// An action's extra removed squares, relative and ascending, padded with [`NO_SQUARE`].
    fn relative_captures(&self, stm: Color, extra: &[Square]) -> (u8, [u16; MAX_EXTRA_CAPTURES]) {
        let mut captures = [NO_SQUARE; MAX_EXTRA_CAPTURES];
        for (dst, &sq) in captures.iter_mut().zip(extra) {
            *dst = self.relative_square(stm, sq);
        }
        // Rotation reverses the order; keep the list canonical (ascending).
        captures[..extra.len()].sort_unstable();
        (extra.len() as u8, captures)
    }

    /// Encodes a batch of positions with their legal moves.
    pub fn encode_batch<'a>(&self, requests: impl IntoIterator<Item = (&'a Position, &'a [Move])>) -> EncodedBatch {
        let mut batch = EncodedBatch::new(self.variant.dims.width as usize, self.variant.dims.height as usize);
        for (pos, moves) in requests {
            batch.push(self, pos, moves);
        }
        batch
    }
}

impl Encoding for StandardEncoding {
    fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    fn version(&self) -> u32 {
        ENCODING_VERSION
    }

    fn mirror_types(&self) -> Option<&MirrorTypes> {
        self.mirror_types.as_ref()
    }

    fn encode_position(&self, pos: &Position, slot: PositionSlot<'_>) {
        let v = &*self.variant;
        let n = self.squares();
        let us = pos.side_to_move();
        let PositionSlot { pieces, planes, global: g } = slot;
        debug_assert_eq!(pieces.len(), n);
        debug_assert_eq!(planes.len(), self.plane_len() * n);
        debug_assert_eq!(g.len(), self.global_len());

        // Piece ids, rotating the board for Tan: relative square r is absolute n - 1 - r.
        let board = pos.board();
        let id = |p: Option<fairyzero_rules::Piece>| match p {
            None => 0,
            Some(p) => 1 + 2 * p.kind().index() as i64 + i64::from(p.color() != us),
        };
        if us == Color::Blue {
            for (dst, &p) in pieces.iter_mut().zip(board) {
                *dst = id(p);
            }
        } else {
            for (dst, &p) in pieces.iter_mut().zip(board.iter().rev()) {
                *dst = id(p);
            }
        }
        // The neutral token stands on a square of its own, an obstacle to both sides: it is
        // one more occupant of the id plane (the last row of `board_vocab`), seen from the side
        // to move like every square.
        if let Some(t) = pos.neutral_token() {
            pieces[self.relative_square(us, t) as usize] = piece_vocab(v.piece_count()) as i64;
        }

        // Spatial planes.
        let (ours, theirs) = (&self.promotion_zone[us.index()], &self.promotion_zone[us.other().index()]);
        let (on_board, rest) = planes.split_at_mut(n);
        let (our_zone, rest) = rest.split_at_mut(n);
        let (their_zone, rest) = rest.split_at_mut(n);
        let (ep, variant_planes) = rest.split_at_mut(n);
        on_board.fill(1.0);
        for r in 0..n {
            let a = if us == Color::Blue { r } else { n - 1 - r };
            our_zone[r] = f32::from(u8::from(ours[a]));
            their_zone[r] = f32::from(u8::from(theirs[a]));
        }
        ep.fill(0.0);
        if let Some(e) = pos.en_passant() {
            for sq in e.squares {
                if !sq.is_none() {
                    ep[self.relative_square(us, sq) as usize] = 1.0;
                }
            }
        }

        // Protean men: ours, then theirs (the choice phase is the setup phase of the globals).
        if self.protean {
            variant_planes.fill(0.0);
            let (ours, theirs) = variant_planes.split_at_mut(n);
            for (plane, c) in [(ours, us), (theirs, us.other())] {
                if let Some(sq) = pos.protean_man(c) {
                    plane[self.relative_square(us, sq) as usize] = 1.0;
                }
            }
        }

        // Global features.
        let reps = pos.repetitions();
        let flag = |b: bool| f32::from(u8::from(b));
        g[global::SECOND_PLAYER] = flag(us == Color::Tan);
        g[global::REPEATED_ONCE] = flag(reps >= 1);
        g[global::REPEATED_TWICE] = flag(reps >= 2);
        g[global::SETUP_PHASE] = flag(pos.in_setup());
        g[global::SETUP_PROGRESS] = match pos.setup_ply_index() {
            Some(i) if self.setup_plies > 0 => i as f32 / self.setup_plies as f32,
            _ => 0.0,
        };
        // `ply()` counts from the parsed position; a position string's fullmove number says
        // how far the game had got before that.
        let game_ply =
            (pos.ply() as u64).max(2 * u64::from(pos.fullmove_number().saturating_sub(1)) + us.index() as u64);
        g[global::MOVE_CAP_PROGRESS] = (game_ply as f32 / v.rules.move_cap.max(1) as f32).min(1.0);
        g[global::HALFMOVE_PROGRESS] = match v.rules.halfmove_draw {
            Some(limit) if limit > 0 => (pos.halfmove_clock() as f32 / limit as f32).min(1.0),
            _ => 0.0,
        };
        let rights = pos.castling_rights();
        // A right of either castling king toward that side (bit `4 * slot + 2 * colour + side`:
        // a variant whose castling names moves may have a second king file, slot 1).
        let right = |c: Color, side: usize| flag(rights & (0x11 << (2 * c.index() + side)) != 0);
        g[global::CASTLE_OURS_H] = right(us, 0);
        g[global::CASTLE_OURS_A] = right(us, 1);
        g[global::CASTLE_THEIRS_H] = right(us.other(), 0);
        g[global::CASTLE_THEIRS_A] = right(us.other(), 1);
        g[global::OPPONENT_PASSED] = flag(self.passes_per_piece && pos.last_move_was_pass());
        // Pieces in hand: ours, then theirs, per type.
        for (t, &scale) in self.hand_scale.iter().enumerate() {
            let kind = fairyzero_rules::PieceType(t as u8);
            let held = |c: Color| f32::from(pos.in_hand(fairyzero_rules::Piece::new(kind, c))) * scale;
            g[global::COUNT + 2 * t] = held(us);
            g[global::COUNT + 2 * t + 1] = held(us.other());
        }
        // Multi-move turns: the moves left after this one and the turn's length.
        if self.turns {
            let at = global::COUNT + self.hand_scale.len() * 2;
            let length = pos.turn_length().max(1) as f32;
            g[at] = (pos.moves_left_in_turn().saturating_sub(1)) as f32 / length;
            g[at + 1] = 1.0 - 1.0 / length;
        }
    }

    fn global_len(&self) -> usize {
        global::COUNT + self.hand_scale.len() * 2 + if self.turns { 2 } else { 0 }
    }

    fn plane_len(&self) -> usize {
        plane::COUNT + if self.protean { 2 } else { 0 }
    }

    fn encode_move(&self, pos: &Position, m: &Move) -> MoveFeatures {
        let us = pos.side_to_move();
        let rel = |sq: Square| self.relative_square(us, sq);
        let (n_captures, captures) = self.relative_captures(us, m.captures());
        let mover = if m.from.is_none() { None } else { pos.piece_at(m.from) };
        let second = m.second_action().map(|a| {
            let (n_captures, captures) = self.relative_captures(us, a.captures());
            ActionFeatures {
                kind: move_kind_id(a.kind),
                from: rel(a.from),
                to: rel(a.to),
                piece: a.piece.map_or(0, |t| t.0 as u16 + 1),
                aux: rel(a.aux),
                n_captures,
                captures,
            }
        });
        if m.kind == MoveKind::Pass && !self.passes_per_piece {
            // A position has one pass, identified by nothing (jupiter.md §9.1, typhoon.md §8):
            // which passer the move names is an accident of square order, which the left-right
            // mirror does not keep, so the features leave it out (square 0, no mover). Where
            // every passing piece has its own pass (Chushin Shogi), the passes are distinct
            // moves and keep their square and mover below.
            return MoveFeatures {
                kind: move_kind_id(m.kind),
                from: 0,
                to: 0,
                mover: 0,
                piece: 0,
                aux: NO_SQUARE,
                n_captures: 0,
                captures: [NO_SQUARE; MAX_EXTRA_CAPTURES],
                second: None,
            };
        }
        MoveFeatures {
            kind: move_kind_id(m.kind),
            from: rel(m.from),
            to: rel(m.to),
            mover: mover.map_or(0, |p| p.kind().0 as u16 + 1),
            piece: m.piece.map_or(0, |t| t.0 as u16 + 1),
            aux: rel(m.aux),
            n_captures,
            captures,
            second,
        }
    }
}

/// A batch of encoded positions and their legal moves, all of one board size. Storage is flat
/// (what tensors are made from); the accessors give `ndarray` views with named axes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EncodedBatch {
    width: usize,
    height: usize,
    /// `[batch, height, width]`.
    pieces: Vec<i64>,
    /// `[batch, plane_len, height, width]`.
    planes: Vec<f32>,
    /// Spatial planes per position (see [`plane_len`]), fixed by the first position pushed.
    plane_len: usize,
    /// `[batch, global_len]`.
    global: Vec<f32>,
    /// Global features per position (see [`global_len`]), fixed by the first position pushed.
    global_len: usize,
    /// Every position's legal moves, concatenated.
    moves: Vec<MoveFeatures>,
    /// `offsets[i]..offsets[i + 1]` are position `i`'s moves; `len() + 1` entries.
    offsets: Vec<usize>,
    /// How the piece types of the positions' variant mirror, taken from the encoding of the
    /// first position pushed (or batch appended) that has one.
    mirror_types: Option<MirrorTypes>,
}

impl EncodedBatch {
    pub fn new(width: usize, height: usize) -> EncodedBatch {
        EncodedBatch {
            width,
            height,
            offsets: vec![0],
            global_len: global::COUNT,
            plane_len: plane::COUNT,
            ..EncodedBatch::default()
        }
    }

    /// An empty batch with room for `positions` positions of `moves_per_position` moves.
    pub fn with_capacity(width: usize, height: usize, positions: usize, moves_per_position: usize) -> EncodedBatch {
        let n = width * height;
        let mut offsets = Vec::with_capacity(positions + 1);
        offsets.push(0);
        EncodedBatch {
            width,
            height,
            pieces: Vec::with_capacity(positions * n),
            planes: Vec::with_capacity(positions * plane::COUNT * n),
            global: Vec::with_capacity(positions * global::COUNT),
            global_len: global::COUNT,
            plane_len: plane::COUNT,
            moves: Vec::with_capacity(positions * moves_per_position),
            offsets,
            mirror_types: None,
        }
    }

    /// Appends a position and its legal moves (the order of `moves` is kept: the policy comes
    /// back in it).
    pub fn push(&mut self, encoding: &dyn Encoding, pos: &Position, moves: &[Move]) {
        let d = pos.variant().dims;
        assert!(
            d.width as usize == self.width && d.height as usize == self.height,
            "a {}x{} position in a batch of {}x{} boards",
            d.width,
            d.height,
            self.width,
            self.height
        );
        let n = self.squares();
        let (gl, pl) = (encoding.global_len(), encoding.plane_len());
        if self.is_empty() {
            self.global_len = gl;
            self.plane_len = pl;
        }
        assert_eq!(gl, self.global_len, "positions with {gl} and {} global features in one batch", self.global_len);
        assert_eq!(pl, self.plane_len, "positions with {pl} and {} planes in one batch", self.plane_len);
        let (p0, l0, g0) = (self.pieces.len(), self.planes.len(), self.global.len());
        self.pieces.resize(p0 + n, 0);
        self.planes.resize(l0 + pl * n, 0.0);
        self.global.resize(g0 + gl, 0.0);
        encoding.encode_position(
            pos,
            PositionSlot {
                pieces: &mut self.pieces[p0..],
                planes: &mut self.planes[l0..],
                global: &mut self.global[g0..],
            },
        );
        self.moves.extend(moves.iter().map(|m| encoding.encode_move(pos, m)));
        self.offsets.push(self.moves.len());
        if self.mirror_types.is_none() {
            self.mirror_types = encoding.mirror_types().cloned();
        }
    }

    /// Appends every position of `other` (same board size).
    pub fn append(&mut self, other: &EncodedBatch) {
        assert_eq!((self.width, self.height), (other.width, other.height), "batches of different board sizes");
        if self.is_empty() {
            self.global_len = other.global_len;
            self.plane_len = other.plane_len;
        }
        assert!(
            other.is_empty() || other.global_len == self.global_len,
            "batches with {} and {} global features",
            self.global_len,
            other.global_len
        );
        assert!(
            other.is_empty() || other.plane_len == self.plane_len,
            "batches with {} and {} planes",
            self.plane_len,
            other.plane_len
        );
        self.pieces.extend_from_slice(&other.pieces);
        self.planes.extend_from_slice(&other.planes);
        self.global.extend_from_slice(&other.global);
        let base = self.moves.len();
        self.moves.extend_from_slice(&other.moves);
        self.offsets.extend(other.offsets[1..].iter().map(|o| o + base));
        if self.mirror_types.is_none() {
            self.mirror_types.clone_from(&other.mirror_types);
        }
    }

    /// Removes every position, keeping the allocations.
    pub fn clear(&mut self) {
        self.pieces.clear();
        self.planes.clear();
        self.global.clear();
        self.moves.clear();
        self.offsets.truncate(1);
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    pub fn squares(&self) -> usize {
        self.width * self.height
    }

    /// Piece ids `[batch, height, width]`, rank 0 (the side to move's first rank) first.
    pub fn pieces(&self) -> ArrayView3<'_, i64> {
        ArrayView3::from_shape((self.len(), self.height, self.width), &self.pieces).expect("consistent sizes")
    }

    /// Spatial planes `[batch, plane, height, width]`.
    pub fn planes(&self) -> ArrayView4<'_, f32> {
        ArrayView4::from_shape((self.len(), self.plane_len, self.height, self.width), &self.planes)
            .expect("consistent sizes")
    }

    /// Global features `[batch, feature]`.
    pub fn global(&self) -> ArrayView2<'_, f32> {
        ArrayView2::from_shape((self.len(), self.global_len), &self.global).expect("consistent sizes")
    }

    /// Global features per position: [`global::COUNT`], plus the hands in a variant with drops
    /// ([`global_len`]).
    pub fn global_len(&self) -> usize {
        self.global_len
    }

    /// Spatial planes per position: [`plane::COUNT`], plus the protean planes in a variant with
    /// protean men ([`plane_len`]).
    pub fn plane_len(&self) -> usize {
        self.plane_len
    }

    /// The flat storage: pieces, planes and global features, in the layouts above.
    pub fn raw(&self) -> (&[i64], &[f32], &[f32]) {
        (&self.pieces, &self.planes, &self.global)
    }

    /// Every move of every position, concatenated.
    pub fn moves(&self) -> &[MoveFeatures] {
        &self.moves
    }

    /// Position `i`'s moves.
    pub fn moves_of(&self, i: usize) -> &[MoveFeatures] {
        &self.moves[self.offsets[i]..self.offsets[i + 1]]
    }

    /// `len() + 1` offsets into [`EncodedBatch::moves`].
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// How the piece types mirror (see [`MirrorTypes`]); `None`: every type is its own image.
    pub fn mirror_types(&self) -> Option<&MirrorTypes> {
        self.mirror_types.as_ref()
    }

    /// The flat storage, writable, for transforms of encoded positions in place (the mirror in
    /// `mirror.rs`): pieces, planes and moves; the offsets and the type map stay as they are.
    #[allow(clippy::type_complexity)]
    pub(crate) fn storage_mut(
        &mut self,
    ) -> (&mut [i64], &mut [f32], &mut [MoveFeatures], &[usize], Option<&MirrorTypes>) {
        (&mut self.pieces, &mut self.planes, &mut self.moves, &self.offsets, self.mirror_types.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use fairyzero_rules::{MoveList, PieceType};

    use super::*;

    fn encode_one(pos: &Position) -> (EncodedBatch, Vec<Move>) {
        let enc = StandardEncoding::new(Arc::clone(pos.variant()));
        let mut moves = MoveList::new();
        pos.clone().legal_moves(&mut moves);
        let batch = enc.encode_batch([(pos, moves.as_slice())]);
        (batch, moves)
    }

    #[test]
    fn start_position_is_seen_from_the_side_to_move() {
        let chess = Variant::load("chess").unwrap();
        let mut pos = Position::start(Arc::clone(&chess));
        let (blue, _) = encode_one(&pos);
        pos.play_moves("e2e4").unwrap();
        let (tan, _) = encode_one(&pos);
        let king = 1 + 2 * chess.piece_by_token("K").unwrap().index() as i64;
        // Our king on e1 for Blue; for Tan, its own king on e8 rotates to d1 (180°, not mirrored).
        assert_eq!(blue.pieces()[[0, 0, 4]], king);
        assert_eq!(tan.pieces()[[0, 0, 3]], king);
        // The opponent's king: Blue sees it on e8, Tan sees Blue's e1 king on d8.
        assert_eq!(blue.pieces()[[0, 7, 4]], king + 1);
        assert_eq!(tan.pieces()[[0, 7, 3]], king + 1);
        // Promotion zones: ours is always the far rank.
        assert_eq!(blue.planes()[[0, plane::OUR_PROMOTION_ZONE, 7, 0]], 1.0);
        assert_eq!(tan.planes()[[0, plane::OUR_PROMOTION_ZONE, 7, 0]], 1.0);
        assert_eq!(tan.planes()[[0, plane::THEIR_PROMOTION_ZONE, 0, 5]], 1.0);
        assert_eq!(blue.global()[[0, global::SECOND_PLAYER]], 0.0);
        assert_eq!(tan.global()[[0, global::SECOND_PLAYER]], 1.0);
        assert!(tan.planes().iter().all(|&x| x == 0.0 || x == 1.0));
        assert_eq!(tan.global()[[0, global::CASTLE_OURS_H]], 1.0);
    }

    #[test]
    fn mirrored_positions_encode_identically() {
        // The start position with Blue to move and its colour-flipped, rotated twin with Tan to
        // move must look the same to the net (chess start is symmetric under 180° rotation only
        // up to the king/queen files, so build the twin explicitly).
        let chess = Variant::load("chess").unwrap();
        let blue = Position::from_fen(Arc::clone(&chess), "4k3/8/8/8/8/8/1P6/R3K3 w - - 0 1").unwrap();
        // Rotate by 180° and swap colours: a1 -> h8, b2 -> g7, e1 -> d8, e8 -> d1.
        let tan = Position::from_fen(Arc::clone(&chess), "3k3r/6p1/8/8/8/8/8/3K4 b - - 0 1").unwrap();
        let (a, ma) = encode_one(&blue);
        let (b, mb) = encode_one(&tan);
        assert_eq!(a.pieces(), b.pieces());
        assert_eq!(a.planes(), b.planes());
        let mut fa: Vec<_> = a.moves().to_vec();
        let mut fb: Vec<_> = b.moves().to_vec();
        fa.sort();
        fb.sort();
        assert_eq!(fa, fb, "{ma:?} vs {mb:?}");
        // Only the side to move differs, and the game ply it implies (Tan moves at odd plies).
        let (ga, gb) = (a.global(), b.global());
        for i in 0..global::COUNT {
            if i != global::SECOND_PLAYER && i != global::MOVE_CAP_PROGRESS {
                assert_eq!(ga[[0, i]], gb[[0, i]], "global feature {i}");
            }
        }
    }

    #[test]
    fn batches_append_and_slice() {
        let v = Variant::load("scirocco").unwrap();
        let enc = StandardEncoding::new(Arc::clone(&v));
        let mut pos = Position::start(Arc::clone(&v));
        let mut m1 = MoveList::new();
        pos.legal_moves(&mut m1);
        let first = enc.encode_batch([(&pos, m1.as_slice())]);
        let mv = m1[0];
        pos.make(mv);
        let mut m2 = MoveList::new();
        pos.legal_moves(&mut m2);
        let second = enc.encode_batch([(&pos, m2.as_slice())]);
        let mut both = first.clone();
        both.append(&second);
        assert_eq!(both.len(), 2);
        assert_eq!(both.offsets(), &[0, m1.len(), m1.len() + m2.len()]);
        assert_eq!(both.moves_of(1), second.moves());
        assert_eq!(both.pieces().shape(), &[2, 10, 10]);
        assert_eq!(both.planes().shape(), &[2, plane::COUNT, 10, 10]);
        let direct = enc.encode_batch([(&Position::start(Arc::clone(&v)), m1.as_slice()), (&pos, m2.as_slice())]);
        assert_eq!(direct, both);
        both.clear();
        assert!(both.is_empty());
    }

    /// docs/network.md and docs/training.md quote these sizes (memory per legal move).
    #[test]
    fn move_features_size() {
        assert_eq!(std::mem::size_of::<ActionFeatures>(), 46);
        assert_eq!(std::mem::size_of::<MoveFeatures>(), 96);
    }

    #[test]
    fn move_features_rotate_for_the_second_player() {
        let chess = Variant::load("chess").unwrap();
        let mut pos = Position::start(Arc::clone(&chess));
        pos.play_moves("e2e4").unwrap();
        let m = pos.parse_move("e7e5").unwrap();
        let enc = StandardEncoding::new(Arc::clone(&chess));
        let f = enc.encode_move(&pos, &m);
        // e7 = 52 rotates to 63 - 52 = 11 (d2), e5 = 36 to 27 (d4): a pawn double step "up".
        assert_eq!((f.from, f.to), (11, 27));
        assert_eq!(f.mover, chess.piece_by_token("P").unwrap().0 as u16 + 1);
        assert_eq!((f.piece, f.aux, f.n_captures), (0, NO_SQUARE, 0));
        let _ = PieceType(0);
    }
}
