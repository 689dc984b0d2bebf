//! Protean men (`[protean]`; Protean Chess, issue 21 row #59): "before play, each side picks one
//! non-king man that takes on the type of whatever it captures".
//!
//! Two pieces of machinery, both state of the position (`ProteanState`):
//!
//! - **The mark.** A man may be *protean*: each capture it makes turns it into a man of the
//!   captured man's type, of its own colour, still protean. A side has at most one protean man;
//!   a royal man is never one. The mark follows the man (its displacement, or its castling as
//!   the rook) and is gone when the man is captured (it is not handed on). The rulings:
//!   - the type is the captured man's, whatever the protean man was: a knight that takes a
//!     pawn becomes a pawn (moving, capturing and promoting as a pawn of its colour from then
//!     on, en passant included); a pawn that takes en passant takes a pawn and stays one;
//!   - a capture that promotes promotes: the man becomes the promotion piece it chose, not the
//!     captured type, and stays protean. The captured types a pawn can reach on its last rank
//!     are among the promotion choices anyway (a pawn there is never captured: none stands on
//!     its side's last rank), so nothing is lost, and no pawn is ever left on its last rank;
//!   - capturing a royal man (only where a king capture is a move at all) leaves the type as it
//!     was: "the king cannot be protean" holds for the capturer too;
//!   - a pawn on its own first rank cannot arise in play from the start (a protean man turns
//!     into a pawn only where an enemy pawn stood, and pawns never stand on their own last
//!     rank, which is the other side's first); in a position string it moves as the variant's
//!     pawn moves from there (chess: one step forward, the double step only from rank 2).
//! - **The choice.** With `choice = "before_play"` the game starts with a choice phase
//!   (`Position::in_setup`, like a setup phase): the side to move marks one of its non-royal
//!   men (`MoveKind::Mark`, written `<square><square>`, `e2e2`), then the other side does, and
//!   play begins with the side that chose first. The choices are public (both are on the board
//!   and in the position string) and leave the move number and the clocks alone.
//!
//! Position strings write the mark as `^` after the man's token (`N^`, `p^`) and end with the
//! field `choices:<n>`, the choices still to make, the side to move's first
//! (`crate::variant::protean`). The Zobrist hash keys each mark by colour and square and the
//! number of choices left (`Position::protean_key`, 0 in every other variant, whose hashes are
//! therefore as they were); `make`/`unmake` save and restore the state whole.

use crate::{
    moves::{Move, MoveKind},
    position::Position,
    types::{Color, PieceType, Square},
    variant::protean::ProteanState,
};

/// What a move does to the protean men, worked out before the move is made (the captured man's
/// type is gone after it).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ProteanPlan {
    /// The state after the move.
    state: ProteanState,
    /// The mover's protean man becomes this type where it lands (it captured such a man).
    retype: Option<(Square, PieceType)>,
}

/// A well-mixed key for `x` (splitmix64's finaliser over a fixed seed): the protean keys are
/// derived rather than drawn into the variant's key table, so that table and the hashes of
/// every other variant stay as they were.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x7072_6F74_6561_6E00).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Keys of the choice counts, far from the keys of marks (which use small arguments).
const CHOICE_KEYS: u64 = 1 << 40;

impl Position {
    /// The square of `color`'s protean man, if it has one (`[protean]`).
    pub fn protean_man(&self, color: Color) -> Option<Square> {
        let sq = self.protean.marks[color.index()];
        (!sq.is_none()).then_some(sq)
    }

    /// Whether the man on `sq` is protean.
    #[inline]
    pub fn is_protean(&self, sq: Square) -> bool {
        !sq.is_none() && self.protean.marks.contains(&sq)
    }

    /// Protean choices still to make before play, the side to move's first (2 at the start of
    /// Protean Chess, then 1, then 0 for the rest of the game; always 0 elsewhere).
    pub fn protean_choices_left(&self) -> u8 {
        self.protean.to_choose
    }

    /// The part of the Zobrist hash that the protean state adds (0 without protean men and
    /// choices).
    pub(crate) fn protean_key(&self) -> u64 {
        let s = &self.protean;
        let mut h = 0;
        for (c, sq) in s.marks.iter().enumerate().filter(|(_, sq)| !sq.is_none()) {
            h ^= mix(2 * sq.0 as u64 + c as u64);
        }
        if s.to_choose > 0 {
            h ^= mix(CHOICE_KEYS + s.to_choose as u64);
        }
        h
    }

    /// What `mv` (a single action of the side to move, not a choice) does to the protean men.
    pub(crate) fn protean_plan(&self, mv: &Move) -> ProteanPlan {
        let us = self.side;
        let them = us.other();
        let mut state = self.protean;
        let mut retype = None;
        let mine = state.marks[us.index()];
        match mv.kind {
            MoveKind::Normal if mv.from == mine => {
                state.marks[us.index()] = mv.to;
                // A promotion decides the type (see the module documentation).
                if mv.piece.is_none() {
                    let enemy = |sq: Square| self.board[sq.index()].filter(|p| p.color() == them);
                    // The man on `to`, else the first removed one (en passant).
                    let victim = enemy(mv.to).or_else(|| mv.captures().iter().find_map(|&c| enemy(c)));
                    if let Some(v) = victim.filter(|v| !self.variant.pieces[v.kind().index()].royal) {
                        retype = Some((mv.to, v.kind()));
                    }
                }
            }
            MoveKind::Castle if mv.aux == mine => {
                // The rook lands beside the king's destination, on the side it came from (as
                // `make` puts it).
                let d = self.variant.dims;
                let step = if d.file(mv.aux) > d.file(mv.from) { -1 } else { 1 };
                state.marks[us.index()] =
                    d.square(d.file(mv.to) + step, d.rank(mv.to)).expect("the rook lands beside the king");
            }
            _ => {}
        }
        let theirs = state.marks[them.index()];
        let taken = (mv.kind == MoveKind::Normal && mv.to == theirs) || mv.captures().contains(&theirs);
        if !theirs.is_none() && taken {
            state.marks[them.index()] = Square::NONE;
        }
        ProteanPlan { state, retype }
    }

    /// Applies a plan after its move's board edits (journaled, so `unmake` restores the type;
    /// the marks come back with the undo record, and the hash covers them through
    /// `state_hash`).
    pub(crate) fn apply_protean_plan(&mut self, plan: ProteanPlan) {
        self.protean = plan.state;
        if let Some((sq, kind)) = plan.retype {
            let p = self.board[sq.index()].expect("the protean man stands where it moved");
            if p.kind() != kind {
                self.set_square(sq, Some(p.with_kind(kind)));
            }
        }
    }

    /// Makes a protean choice: the side to move's man on `mv.from` becomes protean and the turn
    /// passes (to the other side's choice, or to play). The move number and the clocks stay.
    pub(crate) fn make_protean_choice(&mut self, mv: Move) {
        self.hash ^= self.state_hash();
        self.protean.marks[self.side.index()] = mv.from;
        self.protean.to_choose -= 1;
        self.side = self.side.other();
        self.ply += 1;
        self.last_move_was_pass = false;
        // No earlier position recurs: the marks only accumulate before play.
        self.irreversible = self.hashes.len() as u32;
        self.hash ^= self.state_hash();
    }

    /// `image` (built from this position's string without the marks: its mirror image, an
    /// edit of it) with this position's protean marks carried to `map` of their squares, where
    /// the same colour's non-royal man stands there; its hash recomputed.
    pub(crate) fn with_protean_marks_of(
        &self,
        mut image: Position,
        map: impl Fn(Square) -> Option<Square>,
    ) -> Position {
        if self.variant.rules.protean.is_none() {
            return image;
        }
        for c in Color::BOTH {
            let Some(sq) = self.protean_man(c).and_then(&map) else { continue };
            let ok = image.board[sq.index()]
                .is_some_and(|p| p.color() == c && !image.variant.pieces[p.kind().index()].royal);
            if ok {
                image.protean.marks[c.index()] = sq;
            }
        }
        image.hash = image.compute_hash();
        image
    }
}
