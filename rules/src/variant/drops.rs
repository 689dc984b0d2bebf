//! `[drops]`, concluded: where each type may be dropped by each colour, the forced-drop rule,
//! the opposite-colour rule and castling rights decided by drops (see
//! [`crate::spec::drops_spec`]), plus the reading and printing of a position string's pocket.
//!
//! A hand is a count per `Piece::index()` (type and colour), at most [`MAX_IN_HAND`] of one
//! kind, so that the Zobrist keys of the hand (one per kind and count) stay a small table.

use crate::{
    spec::drops_spec::DropsSpec,
    types::{Color, Dims, Piece, PieceType, Square},
    variant::{regions, Variant, VariantSpec},
};

/// The most pieces of one kind (type and colour) a hand may hold.
pub const MAX_IN_HAND: usize = 32;

/// Drop rules, concluded.
#[derive(Clone, Debug)]
pub(crate) struct DropRules {
    /// Per `Piece::index()`: the squares a piece of that kind may be dropped on when they are
    /// empty (the drop region, less the promotion zone of a type that promotes), ascending.
    pub targets: Vec<Vec<Square>>,
    pub must_drop: bool,
    /// Per type: spread over both square colours (`opposite_colours`).
    pub opposite_colours: Vec<bool>,
    /// The file on which a dropped castling king gets castling rights (`castling_king_file`).
    pub castling_king_file: Option<i32>,
    /// Per colour: the drop region itself (for the opposite-colour rule's free squares).
    pub region: [Vec<bool>; 2],
    /// The drop region and every type's targets are their own left-right mirror images, and
    /// no rule names a file: a position and its mirror image have mirrored drops.
    pub mirror_symmetric: bool,
}

/// Whether `sq` is a dark square (a1 is dark, as on every chessboard).
#[inline]
pub(crate) fn is_dark(dims: Dims, sq: Square) -> bool {
    (dims.file(sq) + dims.rank(sq)) % 2 == 0
}

impl DropsSpec {
    /// Concludes the section against the variant's board, tokens and castling. Problems name
    /// the field.
    pub(crate) fn conclude(
        &self,
        spec: &VariantSpec,
        lookup: impl Fn(&str) -> Option<PieceType>,
        problems: &mut Vec<String>,
    ) -> Option<DropRules> {
        let dims = Dims { width: spec.width, height: spec.height };
        let n = dims.squares();
        let region: [Vec<bool>; 2] = match &self.squares {
            None => [vec![true; n], vec![true; n]],
            Some(text) => match regions::parse_squares(dims, text) {
                Ok(squares) => regions::side_masks(dims, &squares),
                Err(e) => {
                    problems.push(format!("field `drops.squares` {text:?}: {e}"));
                    return None;
                }
            },
        };
        let mut opposite_colours = vec![false; spec.pieces.len()];
        for t in &self.opposite_colours {
            match lookup(t) {
                Some(kind) => opposite_colours[kind.index()] = true,
                None => problems.push(format!("field `drops.opposite_colours`: unknown token {t:?}")),
            }
        }
        let castling_king_file = match self.castling_king_file {
            None => None,
            Some(ch) => {
                let f = ch as i32 - 'a' as i32;
                if spec.castling.is_none() {
                    problems.push("field `drops.castling_king_file` needs the variant field `castling`".into());
                    None
                } else if spec.castling.as_ref().is_some_and(|c| !c.moves.is_empty()) {
                    // Rights from drops are those of one king file with rooks in the corners.
                    problems.push(
                        "field `drops.castling_king_file` needs castling by destination files, not \
                         `castling.moves`"
                            .into(),
                    );
                    None
                } else if !(0..spec.width as i32).contains(&f) {
                    problems.push(format!("field `drops.castling_king_file`: {ch:?} is not a file of the board"));
                    None
                } else {
                    Some(f)
                }
            }
        };
        let zone = spec.promotion.zone_ranks as i32;
        let mut targets = Vec::with_capacity(2 * spec.pieces.len());
        for (t, piece) in spec.pieces.iter().enumerate() {
            for color in Color::BOTH {
                debug_assert_eq!(targets.len(), Piece::new(PieceType(t as u8), color).index());
                let promotes = !piece.promotes_to.is_empty();
                let squares = (0..n)
                    .map(|i| Square(i as u16))
                    .filter(|&s| region[color.index()][s.index()])
                    .filter(|&s| !promotes || dims.relative_rank(s, color) < dims.height as i32 - zone)
                    .collect();
                targets.push(squares);
            }
        }
        let masks_symmetric = regions::mirror_symmetric(dims, &region);
        Some(DropRules {
            targets,
            must_drop: self.must_drop,
            opposite_colours,
            mirror_symmetric: masks_symmetric && castling_king_file.is_none(),
            castling_king_file,
            region,
        })
    }
}

impl Variant {
    /// Whether pieces can be held in hand and dropped (`[drops]`); the position strings then
    /// carry a pocket after the board.
    pub fn has_drops(&self) -> bool {
        self.drops.is_some()
    }

    /// Whether a side holding pieces must drop one when it can (`[drops] must_drop`): its
    /// legal moves are then the drops alone, not every move that leaves its royals safe.
    pub fn must_drop(&self) -> bool {
        self.drops.as_ref().is_some_and(|d| d.must_drop)
    }

    /// Splits a position string's first field into the board and the hands: `board[pocket]`
    /// (Fairy-Stockfish's form). Without a pocket every hand is empty. `at` is the field's
    /// character offset, for errors.
    pub(crate) fn split_pocket<'a>(&self, field: &'a str, at: usize) -> Result<(&'a str, Vec<u8>), (usize, String)> {
        let empty = if self.has_drops() { vec![0; 2 * self.piece_count()] } else { Vec::new() };
        let Some(open) = field.find('[') else {
            if let Some(close) = field.find(']') {
                return Err((at + field[..close].chars().count(), "']' without an opening '['".into()));
            }
            return Ok((field, empty));
        };
        let open_at = at + field[..open].chars().count();
        let inner = &field[open + 1..];
        let Some(close) = inner.find(']') else {
            return Err((open_at, "the pocket '[' has no closing ']'".into()));
        };
        if close + 1 != inner.len() {
            let after = open_at + 1 + inner[..close + 1].chars().count();
            return Err((
                after,
                "unexpected text after the pocket: it ends the board field, e.g. RNBQKBNR[Nn] w".into(),
            ));
        }
        let hand = self.parse_pocket(&inner[..close], open_at + 1)?;
        Ok((&field[..open], hand))
    }

    /// Reads a pocket's contents (the text between `[` and `]`): tokens as on the board, upper
    /// case Blue's, lower case Tan's, in any order; the result is a count per `Piece::index()`.
    /// `at` is the character offset of the first one, for errors.
    pub(crate) fn parse_pocket(&self, text: &str, at: usize) -> Result<Vec<u8>, (usize, String)> {
        if !self.has_drops() {
            return Err((
                at.saturating_sub(1),
                format!("variant {} has no pieces in hand (no `[drops]`): a pocket '[...]' is not allowed", self.name),
            ));
        }
        let mut hand = vec![0u8; 2 * self.piece_count()];
        let chars: Vec<char> = text.chars().collect();
        let mut j = 0;
        while j < chars.len() {
            let c = chars[j];
            let (token, len): (String, usize) = if c == '(' {
                let close = chars[j..]
                    .iter()
                    .position(|&c| c == ')')
                    .ok_or_else(|| (at + j, "'(' without a closing ')' in the pocket".to_string()))?;
                (chars[j + 1..j + close].iter().collect(), close + 1)
            } else if c.is_ascii_alphabetic() {
                (c.to_string(), 1)
            } else {
                return Err((
                    at + j,
                    format!("unexpected character {c:?} in the pocket: it lists piece tokens, e.g. [Nn]"),
                ));
            };
            let kind = self.piece_by_token(&token).ok_or_else(|| {
                (at + j, format!("unknown piece token {token:?} in the pocket of variant {}", self.name))
            })?;
            let upper = token.chars().all(|c| c.is_ascii_uppercase());
            let lower = token.chars().all(|c| c.is_ascii_lowercase());
            if !upper && !lower {
                return Err((at + j, format!("token {token:?} in the pocket mixes upper and lower case")));
            }
            let color = if upper { Color::Blue } else { Color::Tan };
            let slot = &mut hand[Piece::new(kind, color).index()];
            if *slot as usize >= MAX_IN_HAND {
                return Err((at + j, format!("more than {MAX_IN_HAND} {token:?} in the pocket")));
            }
            *slot += 1;
            j += len;
        }
        Ok(hand)
    }

    /// The pocket field, `[...]` right after the board: Blue's pieces, then Tan's, each from the
    /// last piece type of the variant file to the first (the order Fairy-Stockfish prints for the
    /// chess family: `[KQRRBBNNkqrrbbnn]`). Empty hands print as `[]`.
    pub(crate) fn pocket_field(&self, hand: &[u8]) -> String {
        let mut s = String::from("[");
        for color in Color::BOTH {
            for t in (0..self.piece_count()).rev() {
                let p = Piece::new(PieceType(t as u8), color);
                for _ in 0..hand.get(p.index()).copied().unwrap_or(0) {
                    s.push_str(&self.piece_token(p));
                }
            }
        }
        s.push(']');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a1_is_dark_and_h1_light() {
        let d = Dims { width: 8, height: 8 };
        assert!(is_dark(d, d.parse_square("a1").unwrap()));
        assert!(!is_dark(d, d.parse_square("h1").unwrap()));
        assert!(is_dark(d, d.parse_square("h8").unwrap()));
    }
}
