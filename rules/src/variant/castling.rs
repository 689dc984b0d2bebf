//! Castling rules, concluded from `castling` in a variant file.
//!
//! Two forms:
//! * **by destination files** (`kingside_file`, `queenside_file`): one castling king a side,
//!   castling with a rook on either side of it (the outermost one, or the one an X-FEN file
//!   letter names), the king landing on the given file. Chess, Capablanca, Grand.
//! * **by moves** (`[[castling.moves]]`): each castling move named by the files of its king,
//!   its rook and the king's landing square; the rook lands beside the king on the side it came
//!   from. This is the form for kings that castle only with given rooks: Double King Chess (each
//!   king with its nearer rook), Double Chess (each king with either rook of its half), ICS wild
//!   1 (a king on d or e, each castling two files toward its rook). The moves may name two king
//!   files.
//!
//! A castling right is a bit of [`CastlingRights`]: `4 * slot + 2 * colour + side`, where `side`
//! is 0 toward the higher files and 1 toward file `a`, and `slot` is 0 for the first (lower)
//! king file the moves name and 1 for the second (always 0 by destination files). The position
//! keeps, per right, the rook's square, and per (slot, colour) the king's square
//! ([`king_index`]).
//!
//! Position strings: by destination files, the rights are `KQkq` (or X-FEN file letters for an
//! inner rook), as in Fairy-Stockfish. By moves, a right is `K` (`Q`) when it is the only
//! castling move toward the higher files (toward `a`) that the board's kings and rooks allow
//! that side, and otherwise the rook's file letter, as in Shredder-FEN (Double Chess:
//! `AHIPahip`); the parser reads either form, so every printed string reads back.

use crate::{
    spec::variant_spec::CastlingSpec,
    types::{CastlingRights, Color, Dims, Piece, PieceType, Square},
};

/// Castling, concluded.
#[derive(Clone, Debug)]
pub struct Castling {
    pub king: PieceType,
    pub rook: PieceType,
    /// King destination files `[kingside, queenside]` (by destination files; unused by moves).
    pub king_files: [i32; 2],
    /// The castling moves by name (empty: by destination files).
    pub moves: Vec<CastleMove>,
}

/// One castling move of [`Castling::moves`], by files (0-based) on the mover's first rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CastleMove {
    pub king: i32,
    pub rook: i32,
    pub king_to: i32,
    /// 0 for the lower of the (at most two) king files, 1 for the higher.
    pub slot: usize,
    /// 0 toward the higher files, 1 toward file `a`.
    pub side: usize,
}

impl CastleMove {
    /// The right's bit for `color`.
    pub fn bit(&self, color: Color) -> usize {
        4 * self.slot + 2 * color.index() + self.side
    }
}

/// Index into the position's castling kings of the king that right `bit` belongs to.
#[inline]
pub(crate) fn king_index(bit: usize) -> usize {
    2 * (bit / 4) + (bit / 2) % 2
}

/// The rights bits of `color`.
#[inline]
pub(crate) fn color_mask(color: Color) -> CastlingRights {
    0x33 << (2 * color.index())
}

impl Castling {
    /// Concludes `spec`, pushing each problem (naming its field) onto `problems`.
    pub(crate) fn conclude(
        spec: &CastlingSpec,
        width: u8,
        lookup: impl Fn(&str) -> Option<PieceType>,
        problems: &mut Vec<String>,
    ) -> Option<Castling> {
        let before = problems.len();
        let (king, rook) = (lookup(&spec.king), lookup(&spec.rook));
        if king.is_none() {
            problems.push(format!("field `castling.king`: unknown token {:?}", spec.king));
        }
        if rook.is_none() {
            problems.push(format!("field `castling.rook`: unknown token {:?}", spec.rook));
        }
        if king.is_some() && king == rook {
            problems.push("field `castling`: the king and the rook must be different pieces".into());
        }
        let file = |field: &str, ch: char, problems: &mut Vec<String>| -> i32 {
            let f = ch as i32 - 'a' as i32;
            if !(0..width as i32).contains(&f) {
                problems.push(format!("field `castling.{field}`: {ch:?} is not a file of a {width}-file board"));
            }
            f
        };
        let mut king_files = [0, 0];
        let mut moves = Vec::new();
        match (spec.kingside_file, spec.queenside_file, spec.moves.is_empty()) {
            (Some(k), Some(q), true) => {
                king_files = [file("kingside_file", k, problems), file("queenside_file", q, problems)];
            }
            (None, None, false) => {
                let mut king_cols: Vec<i32> = spec.moves.iter().map(|m| m.king as i32 - 'a' as i32).collect();
                king_cols.sort_unstable();
                king_cols.dedup();
                if king_cols.len() > 2 {
                    problems.push("field `castling.moves`: at most two king files may castle".into());
                }
                for m in &spec.moves {
                    let (k, r, to) = (
                        file("moves.king", m.king, problems),
                        file("moves.rook", m.rook, problems),
                        file("moves.king_to", m.king_to, problems),
                    );
                    let side = usize::from(r < k);
                    let rook_to = if side == 0 { to - 1 } else { to + 1 };
                    if (r == 10 || r == 16) && m.rook.is_ascii_lowercase() {
                        // The rook's letter names a right where `K`/`Q` would be ambiguous.
                        problems.push(format!(
                            "field `castling.moves`: {m:?}: a castling rook on file k or q cannot be named by its letter"
                        ));
                    }
                    if k == r {
                        problems.push(format!("field `castling.moves`: {m:?}: the king and the rook are on one file"));
                    } else if to == k {
                        problems.push(format!("field `castling.moves`: {m:?}: the king does not move"));
                    } else if !(0..width as i32).contains(&rook_to) {
                        problems.push(format!("field `castling.moves`: {m:?}: the rook would land off the board"));
                    }
                    let slot = king_cols.iter().position(|&c| c == k).unwrap_or(0).min(1);
                    let mv = CastleMove { king: k, rook: r, king_to: to, slot, side };
                    if moves.iter().any(|o: &CastleMove| o.king == k && o.side == side) {
                        problems.push(format!(
                            "field `castling.moves`: two moves of the king on file {:?} toward the same side",
                            m.king
                        ));
                    }
                    moves.push(mv);
                }
            }
            _ => problems.push(
                "field `castling`: give either `kingside_file` and `queenside_file`, or `moves` (not both)".into(),
            ),
        }
        match (king, rook) {
            (Some(king), Some(rook)) if problems.len() == before => Some(Castling { king, rook, king_files, moves }),
            _ => None,
        }
    }

    /// Whether castling is given move by move.
    #[inline]
    pub fn by_moves(&self) -> bool {
        !self.moves.is_empty()
    }

    /// The move by name of the king on `king_file` with the rook on `rook_file`.
    pub(crate) fn move_of(&self, king_file: i32, rook_file: i32) -> Option<&CastleMove> {
        self.moves.iter().find(|m| m.king == king_file && m.rook == rook_file)
    }

    /// The moves by name whose king and rook stand on `color`'s first rank of the board
    /// `piece_at`, with the first-rank squares of both.
    fn available<'a>(
        &'a self,
        d: Dims,
        color: Color,
        piece_at: &'a impl Fn(Square) -> Option<Piece>,
    ) -> impl Iterator<Item = (&'a CastleMove, Square, Square)> + 'a {
        let rank = if color == Color::Blue { 0 } else { d.height as i32 - 1 };
        self.moves.iter().filter_map(move |m| {
            let (k, r) = (d.square(m.king, rank)?, d.square(m.rook, rank)?);
            let here =
                piece_at(k) == Some(Piece::new(self.king, color)) && piece_at(r) == Some(Piece::new(self.rook, color));
            here.then_some((m, k, r))
        })
    }

    /// Reads one letter of a castling field (by moves): `K`/`Q` for the only available move
    /// toward that side, or the rook's file letter. Returns the right's bit and the king's and
    /// rook's squares.
    pub(crate) fn parse_right(
        &self,
        d: Dims,
        piece_at: &impl Fn(Square) -> Option<Piece>,
        ch: char,
    ) -> Result<(usize, Square, Square), String> {
        let color = if ch.is_ascii_uppercase() { Color::Blue } else { Color::Tan };
        let up = ch.to_ascii_uppercase();
        let found: Vec<_> = self
            .available(d, color, piece_at)
            .filter(|(m, _, _)| match up {
                'K' => m.side == 0,
                'Q' => m.side == 1,
                c => c.is_ascii_uppercase() && m.rook == (c as u8 - b'A') as i32,
            })
            .collect();
        match found.as_slice() {
            [(m, k, r)] => Ok((m.bit(color), *k, *r)),
            [] => Err(format!("castling right {ch:?}: no castling king and rook for it on the first rank")),
            _ => Err(format!("castling right {ch:?} is ambiguous here: name the rook's file letter instead")),
        }
    }

    /// The letter of right `bit` (by moves) whose rook stands on `rook` on the board `piece_at`:
    /// `K`/`Q` where that reads back to it, the rook's file letter otherwise.
    fn right_letter(&self, d: Dims, piece_at: &impl Fn(Square) -> Option<Piece>, bit: usize, rook: Square) -> char {
        let color = if (bit / 2).is_multiple_of(2) { Color::Blue } else { Color::Tan };
        let side = bit % 2;
        let alone = self.available(d, color, piece_at).filter(|(m, _, _)| m.side == side).count() == 1;
        let ch = match (alone, side) {
            (true, 0) => 'K',
            (true, _) => 'Q',
            (false, _) => (b'A' + d.file(rook) as u8) as char,
        };
        if color == Color::Blue {
            ch
        } else {
            ch.to_ascii_lowercase()
        }
    }

    /// The castling field (by moves) of `rights` with the rooks `rooks` on the board
    /// `piece_at`: White's letters then Black's, each `K`, `Q`, then file letters in order.
    pub(crate) fn field(
        &self,
        d: Dims,
        rights: CastlingRights,
        rooks: &[Square; 8],
        piece_at: impl Fn(Square) -> Option<Piece>,
    ) -> String {
        let mut out = String::new();
        for color in Color::BOTH {
            let mut letters: Vec<char> = (0..8)
                .filter(|&bit| rights & (1 << bit) != 0 && (bit / 2) % 2 == color.index())
                .map(|bit| self.right_letter(d, &piece_at, bit, rooks[bit]))
                .collect();
            let rank = |c: char| match c.to_ascii_uppercase() {
                'K' => 0,
                'Q' => 1,
                c => 2 + c as u32,
            };
            letters.sort_by_key(|&c| rank(c));
            out.extend(letters);
        }
        if out.is_empty() {
            "-".into()
        } else {
            out
        }
    }
}
