//! Small value types shared by the whole rules engine: colours, squares, piece types, pieces.

use std::{fmt, num::NonZeroU16};

/// The largest board side supported. 18x18 is Chushin Shogi; a little headroom costs nothing
/// because boards are runtime values, and file letters stop at `z`.
pub const MAX_BOARD_SIDE: u8 = 26;

/// The two players. Blue moves first and starts on the low ranks (White in chess).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    Blue = 0,
    Tan = 1,
}

impl Color {
    pub const BOTH: [Color; 2] = [Color::Blue, Color::Tan];

    #[inline]
    pub fn other(self) -> Color {
        match self {
            Color::Blue => Color::Tan,
            Color::Tan => Color::Blue,
        }
    }

    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// +1 for Blue (forward = up), -1 for Tan.
    #[inline]
    pub fn forward(self) -> i32 {
        match self {
            Color::Blue => 1,
            Color::Tan => -1,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Color::Blue => "Blue",
            Color::Tan => "Tan",
        }
    }
}

/// A square index `rank * width + file`. The board width is a property of the variant, so a
/// square only has coordinates together with a [`crate::Variant`] (or its width).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Square(pub u16);

impl Square {
    /// A sentinel meaning "no square" in fixed-size move fields.
    pub const NONE: Square = Square(u16::MAX);

    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    #[inline]
    pub fn is_none(self) -> bool {
        self == Square::NONE
    }
}

/// Index of a piece type in its variant's piece table (`0..variant.pieces.len()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PieceType(pub u8);

impl PieceType {
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A piece on the board: a type and a colour, packed so that `Option<Piece>` is two bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Piece(NonZeroU16);

impl Piece {
    #[inline]
    pub fn new(kind: PieceType, color: Color) -> Piece {
        let raw = ((kind.0 as u16) << 1 | color as u16) + 1;
        Piece(NonZeroU16::new(raw).expect("raw is at least 1"))
    }

    #[inline]
    pub fn kind(self) -> PieceType {
        PieceType(((self.0.get() - 1) >> 1) as u8)
    }

    #[inline]
    pub fn color(self) -> Color {
        if (self.0.get() - 1) & 1 == 0 {
            Color::Blue
        } else {
            Color::Tan
        }
    }

    /// Dense index `type * 2 + colour`, used for per-piece tables (Zobrist keys, counts).
    #[inline]
    pub fn index(self) -> usize {
        (self.0.get() - 1) as usize
    }

    #[inline]
    pub fn with_kind(self, kind: PieceType) -> Piece {
        Piece::new(kind, self.color())
    }
}

impl fmt::Debug for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Piece({:?} {})", self.color(), self.kind().0)
    }
}

/// A board-size-aware coordinate helper.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dims {
    pub width: u8,
    pub height: u8,
}

impl Dims {
    #[inline]
    pub fn squares(self) -> usize {
        self.width as usize * self.height as usize
    }

    #[inline]
    pub fn square(self, file: i32, rank: i32) -> Option<Square> {
        if file < 0 || rank < 0 || file >= self.width as i32 || rank >= self.height as i32 {
            None
        } else {
            Some(Square((rank * self.width as i32 + file) as u16))
        }
    }

    #[inline]
    pub fn file(self, sq: Square) -> i32 {
        (sq.0 % self.width as u16) as i32
    }

    #[inline]
    pub fn rank(self, sq: Square) -> i32 {
        (sq.0 / self.width as u16) as i32
    }

    /// The square seen from the other side (180° rotation).
    #[inline]
    pub fn rotate(self, sq: Square) -> Square {
        Square((self.squares() - 1 - sq.index()) as u16)
    }

    /// Left-right mirror image.
    #[inline]
    pub fn mirror(self, sq: Square) -> Square {
        let (f, r) = (self.file(sq), self.rank(sq));
        Square((r * self.width as i32 + (self.width as i32 - 1 - f)) as u16)
    }

    /// Rank counted from `color`'s own first rank (0-based).
    #[inline]
    pub fn relative_rank(self, sq: Square, color: Color) -> i32 {
        match color {
            Color::Blue => self.rank(sq),
            Color::Tan => self.height as i32 - 1 - self.rank(sq),
        }
    }

    pub fn square_name(self, sq: Square) -> String {
        self.square_display(sq).to_string()
    }

    /// A square's name as a `Display`, for writing it into a buffer without a `String` of its own.
    pub fn square_display(self, sq: Square) -> impl std::fmt::Display {
        struct Name(char, i32);
        impl std::fmt::Display for Name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}{}", self.0, self.1)
            }
        }
        Name((b'a' + self.file(sq) as u8) as char, self.rank(sq) + 1)
    }

    /// Parses a square name such as `a1`, `l12` or `r18`.
    pub fn parse_square(self, text: &str) -> Option<Square> {
        let mut chars = text.chars();
        let file = chars.next()?;
        if !file.is_ascii_lowercase() {
            return None;
        }
        let rank_text = chars.as_str();
        if rank_text.is_empty() || rank_text.starts_with('0') || !rank_text.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let rank: i32 = rank_text.parse().ok()?;
        self.square(file as i32 - 'a' as i32, rank - 1)
    }

    /// Splits a leading square name off `text`, returning it and the rest.
    pub fn split_square(self, text: &str) -> Option<(Square, &str)> {
        let bytes = text.as_bytes();
        if bytes.is_empty() || !bytes[0].is_ascii_lowercase() {
            return None;
        }
        let mut end = 1;
        while end < bytes.len() && bytes[end].is_ascii_digit() {
            end += 1;
        }
        // Rank numbers have at most two digits here; prefer the longest valid square.
        while end > 1 {
            if let Some(sq) = self.parse_square(&text[..end]) {
                return Some((sq, &text[end..]));
            }
            end -= 1;
        }
        None
    }
}

/// Castling rights: bit `4 * slot + 2 * colour + side` (side 0 = toward higher files, 1 =
/// toward `a`; slot 0 is the only one of a variant with one castling king, slot 1 the second
/// king file of a variant whose castling lists its moves: `crate::variant::castling`).
pub type CastlingRights = u8;

/// En-passant state after a multi-square step: the squares passed over (up to three, for a
/// four-square step; unused ones are `Square::NONE`) and the pawn to remove.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EnPassant {
    pub squares: [Square; 3],
    pub victim: Square,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piece_packing_round_trips() {
        for t in [0u8, 1, 37, 160, 255] {
            for c in Color::BOTH {
                let p = Piece::new(PieceType(t), c);
                assert_eq!(p.kind(), PieceType(t));
                assert_eq!(p.color(), c);
            }
        }
        assert_eq!(std::mem::size_of::<Option<Piece>>(), 2);
    }

    #[test]
    fn squares_parse_and_print() {
        let d = Dims { width: 18, height: 18 };
        for i in 0..d.squares() {
            let sq = Square(i as u16);
            assert_eq!(d.parse_square(&d.square_name(sq)), Some(sq));
        }
        assert_eq!(d.parse_square("r18"), Some(Square(17 * 18 + 17)));
        assert_eq!(d.parse_square("s1"), None);
        assert_eq!(d.parse_square("a0"), None);
        assert_eq!(d.parse_square("a19"), None);
        let d10 = Dims { width: 10, height: 10 };
        assert_eq!(d10.split_square("a10b1"), Some((Square(90), "b1")));
        assert_eq!(d10.split_square("a1b1"), Some((Square(0), "b1")));
    }
}
