//! Position strings as a variant reads them (`docs/notation.md`): the board field printed from
//! any board, and a whole string parsed into a [`RawPosition`] (checked against the variant's
//! tokens, board and castling rules) that the position layer turns into a `Position`. This is
//! shakmaty's Setup: the variant layer can check its own start position without a position.

use std::fmt;

use crate::{
    types::{CastlingRights, Color, EnPassant, Piece, Square},
    variant::{NotationStyle, Variant},
};

/// The most royal pieces one side may have (positions keep their squares in a fixed array).
pub(crate) const MAX_ROYALS: usize = 16;

/// A position string that could not be read: names the field, and the character where known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionError {
    pub text: String,
    /// 0-based character offset of the problem, if it is a single character.
    pub at: Option<usize>,
    pub message: String,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Some(at) => {
                // `at` is a byte offset; people count characters.
                let chars_before = self.text.get(..at).map_or(at, |s| s.chars().count());
                write!(f, "position {:?}, character {}: {}", self.text, chars_before + 1, self.message)
            }
            None => write!(f, "position {:?}: {}", self.text, self.message),
        }
    }
}

impl std::error::Error for PositionError {}

/// The contents of a position string, checked against the variant but not yet a position.
pub(crate) struct RawPosition {
    pub board: Vec<Option<Piece>>,
    pub side: Color,
    pub castling: CastlingRights,
    pub castle_rooks: [Square; 8],
    pub castle_kings: [Square; 4],
    pub ep: Option<EnPassant>,
    pub halfmove: u32,
    pub fullmove: u32,
    /// Pieces in hand, per `Piece::index()` (`[drops]`); empty in a variant without drops.
    pub hand: Vec<u8>,
    /// Moves left in the current turn (multi-move turns, `[turns]`); 0 without them.
    pub turn_left: u16,
    /// The neutral token's square (`*`, `[neutral_token]`); `Square::NONE` without one.
    pub token: Square,
    /// Protean men and choices (`[protean]`, `super::protean`); `ProteanState::NONE` without.
    pub protean: super::protean::ProteanState,
}

/// Checks the text between a token's parentheses: letters, optionally after one leading `+`
/// (a promoted piece, chushin-shogi.md §14). On error, the offending character's index in
/// `inner` and the message, so that the caller can point at it.
fn check_token_syntax(inner: &[char]) -> Result<(), (usize, String)> {
    let letters_from = usize::from(inner.first() == Some(&'+'));
    if inner.len() == letters_from {
        let what = if letters_from == 1 { "a '+' must be followed by letters" } else { "empty token '()'" };
        return Err((letters_from.saturating_sub(1), what.into()));
    }
    match inner[letters_from..].iter().position(|c| !c.is_ascii_alphabetic()) {
        None => Ok(()),
        Some(k) => {
            let c = inner[letters_from + k];
            let message = if c == '+' {
                "'+' may only be the first character of a token".to_string()
            } else {
                format!("unexpected character {c:?} in a token: tokens are letters, optionally after one '+'")
            };
            Err((letters_from + k, message))
        }
    }
}

impl Variant {
    /// Whether its position strings carry the castling, en-passant and move-counter fields
    /// (the extended form) after the side to move.
    pub fn extended_position_strings(&self) -> bool {
        self.notation == NotationStyle::Uci || self.rules.castling.is_some() || self.rules.en_passant
    }

    /// The board field of a position string: ranks from the last to the first, files from the
    /// left, runs of empty squares as numbers, pieces as this variant's tokens.
    pub fn board_field(&self, piece_at: impl Fn(Square) -> Option<Piece>) -> String {
        self.board_field_with_token(piece_at, Square::NONE)
    }

    /// [`Variant::board_field`] with the neutral token written `*` on `token` (a square without
    /// a man; `Square::NONE` writes none).
    pub fn board_field_with_token(&self, piece_at: impl Fn(Square) -> Option<Piece>, token: Square) -> String {
        self.board_field_marked(piece_at, token, |_| false)
    }

    /// [`Variant::board_field_with_token`] with a `^` after the token of each man that `protean`
    /// marks (`super::protean`).
    pub(crate) fn board_field_marked(
        &self,
        piece_at: impl Fn(Square) -> Option<Piece>,
        token: Square,
        protean: impl Fn(Square) -> bool,
    ) -> String {
        let d = self.dims;
        let mut s = String::new();
        for rank in (0..d.height as i32).rev() {
            let mut empty = 0;
            for file in 0..d.width as i32 {
                let sq = d.square(file, rank).expect("on the board");
                let piece = piece_at(sq);
                let text = match piece {
                    Some(p) if protean(sq) => format!("{}{}", self.piece_token(p), super::protean::MARK),
                    Some(p) => self.piece_token(p),
                    None if sq == token => super::neutral_token::TOKEN_CHAR.to_string(),
                    None => {
                        empty += 1;
                        continue;
                    }
                };
                if empty > 0 {
                    s.push_str(&empty.to_string());
                    empty = 0;
                }
                s.push_str(&text);
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            if rank > 0 {
                s.push('/');
            }
        }
        s
    }

    /// Parses a position string of this variant (every field but the usability of an
    /// en-passant right, which needs move generation: see `Position::from_fen`).
    pub(crate) fn parse_position(&self, text: &str) -> Result<RawPosition, PositionError> {
        let err = |at: Option<usize>, message: String| PositionError { text: text.to_string(), at, message };
        let d = self.dims;
        // Offsets count characters, not bytes, so that errors point at the right one.
        let mut fields = Vec::new();
        let mut offset = 0;
        for part in text.split(' ') {
            if !part.is_empty() {
                fields.push((offset, part));
            }
            offset += part.chars().count() + 1;
        }
        if fields.is_empty() {
            return Err(err(None, "empty position string".into()));
        }
        let (board_at, board_field) = fields[0];
        let (board_text, hand) = self.split_pocket(board_field, board_at).map_err(|(at, m)| err(Some(at), m))?;
        let mut board = vec![None; d.squares()];
        let ranks: Vec<&str> = board_text.split('/').collect();
        if ranks.len() != d.height as usize {
            return Err(err(
                None,
                format!("the board has {} ranks separated by '/', the variant needs {}", ranks.len(), d.height),
            ));
        }
        let width = d.width as usize;
        let mut token = Square::NONE;
        // Squares whose token carries the protean mark, with the mark's offset.
        let mut marked = Vec::new();
        let mut pos_in_text = 0;
        for (i, rank_text) in ranks.iter().enumerate() {
            let rank = d.height as usize - 1 - i;
            let too_long = || format!("rank {} has more than {} files", rank + 1, width);
            let mut file = 0usize;
            let chars: Vec<char> = rank_text.chars().collect();
            let mut j = 0;
            while j < chars.len() {
                let at = pos_in_text + j;
                let c = chars[j];
                if c.is_ascii_digit() {
                    let digits: String = chars[j..].iter().take_while(|c| c.is_ascii_digit()).collect();
                    // A count longer than the board is refused before it can overflow.
                    let n = digits.parse::<usize>().ok().filter(|&n| n <= width - file.min(width));
                    let n = n.ok_or_else(|| err(Some(at), too_long()))?;
                    if n == 0 {
                        return Err(err(Some(at), "an empty-square count must be at least 1".into()));
                    }
                    file += n;
                    j += digits.len();
                } else {
                    let (token, len): (String, usize) = if c == '(' {
                        let close = chars[j..]
                            .iter()
                            .position(|&c| c == ')')
                            .ok_or_else(|| err(Some(at), "'(' without a closing ')'".into()))?;
                        let inner = &chars[j + 1..j + close];
                        check_token_syntax(inner).map_err(|(k, message)| err(Some(at + 1 + k), message))?;
                        (inner.iter().collect(), close + 1)
                    } else if c == super::neutral_token::TOKEN_CHAR {
                        // The neutral token (`[neutral_token]`): one, on a square of its own.
                        if self.rules.neutral_token.is_none() {
                            return Err(err(
                                Some(at),
                                format!("'*' (a neutral token) in variant {}, which has none", self.name),
                            ));
                        }
                        if !token.is_none() {
                            return Err(err(Some(at), "a second neutral token '*': the board has one".into()));
                        }
                        if file >= width {
                            return Err(err(Some(at), too_long()));
                        }
                        token = Square((rank * width + file) as u16);
                        file += 1;
                        j += 1;
                        continue;
                    } else if c.is_ascii_alphabetic() {
                        (c.to_string(), 1)
                    } else if c == '+' {
                        return Err(err(
                            Some(at),
                            "a promoted token is written in parentheses, '+' included: (+P), not +P".into(),
                        ));
                    } else {
                        return Err(err(Some(at), format!("unexpected character {c:?} in the board")));
                    };
                    let kind = self.piece_by_token(&token).ok_or_else(|| {
                        err(Some(at), format!("unknown piece token {token:?} in variant {}", self.name))
                    })?;
                    // The letters give the colour; a promoted token's `+` has no case (§14).
                    let letters = || token.chars().filter(|c| c.is_ascii_alphabetic());
                    let upper = letters().all(|c| c.is_ascii_uppercase());
                    let lower = letters().all(|c| c.is_ascii_lowercase());
                    if !upper && !lower {
                        return Err(err(Some(at), format!("token {token:?} mixes upper and lower case")));
                    }
                    if file >= width {
                        return Err(err(Some(at), too_long()));
                    }
                    let color = if upper { Color::Blue } else { Color::Tan };
                    board[rank * width + file] = Some(Piece::new(kind, color));
                    if chars.get(j + len) == Some(&super::protean::MARK) {
                        marked.push((at + len, Square((rank * width + file) as u16)));
                        j += 1;
                    }
                    file += 1;
                    j += len;
                }
            }
            if file != width {
                return Err(err(
                    Some(pos_in_text),
                    format!("rank {} describes {} files, the board has {}", rank + 1, file, width),
                ));
            }
            pos_in_text += chars.len() + 1;
        }

        if self.rules.neutral_token.is_some() && token.is_none() {
            return Err(err(None, format!("the board has no neutral token '*' (variant {} has one)", self.name)));
        }

        let side = match fields.get(1) {
            None => {
                return Err(err(None, "the side to move is missing: the board must be followed by 'w' or 'b'".into()))
            }
            Some((_, "w")) => Color::Blue,
            Some((_, "b")) => Color::Tan,
            Some((at, other)) => return Err(err(Some(*at), format!("side to move must be 'w' or 'b', not {other:?}"))),
        };

        let mut castle_kings = [Square::NONE; 4];
        let mut castle_rooks = [Square::NONE; 8];
        let mut castling: CastlingRights = 0;
        if let Some(&(at, text_c)) = fields.get(2) {
            // Fairy-Stockfish reads castling rights of a variant without castling as `-`.
            if let (false, Some(rules)) = (text_c == "-", self.rules.castling.as_ref()) {
                // Castling given move by move (crate::variant::castling) reads its own letters.
                let piece_at = |s: Square| board[s.index()];
                for (k, ch) in text_c.chars().enumerate().filter(|_| rules.by_moves()) {
                    let (bit, king, rook) = rules.parse_right(d, &piece_at, ch).map_err(|m| err(Some(at + k), m))?;
                    castling |= 1 << bit;
                    castle_kings[crate::variant::castling::king_index(bit)] = king;
                    castle_rooks[bit] = rook;
                }
                for (k, ch) in text_c.chars().enumerate().filter(|_| !rules.by_moves()) {
                    let color = if ch.is_ascii_uppercase() { Color::Blue } else { Color::Tan };
                    let rank = if color == Color::Blue { 0 } else { d.height as i32 - 1 };
                    let king = (0..d.width as i32)
                        .filter_map(|f| d.square(f, rank))
                        .find(|s| board[s.index()] == Some(Piece::new(rules.king, color)))
                        .ok_or_else(|| {
                            err(Some(at + k), format!("castling right {ch:?} but no castling king on its first rank"))
                        })?;
                    castle_kings[color.index()] = king;
                    let rook = Piece::new(rules.rook, color);
                    let kf = d.file(king);
                    let found = match ch.to_ascii_uppercase() {
                        'K' => (kf + 1..d.width as i32)
                            .rev()
                            .filter_map(|f| d.square(f, rank))
                            .find(|s| board[s.index()] == Some(rook)),
                        'Q' => (0..kf).filter_map(|f| d.square(f, rank)).find(|s| board[s.index()] == Some(rook)),
                        c if c.is_ascii_uppercase() && ((c as u8 - b'A') as i32) < d.width as i32 => {
                            d.square((c as u8 - b'A') as i32, rank).filter(|s| board[s.index()] == Some(rook))
                        }
                        _ => return Err(err(Some(at + k), format!("unknown castling right {ch:?}"))),
                    };
                    let rook_sq = found.ok_or_else(|| {
                        err(Some(at + k), format!("castling right {ch:?} but no rook on that side of the king"))
                    })?;
                    let side = if d.file(rook_sq) > kf { 0 } else { 1 };
                    let bit = 2 * color.index() + side;
                    castling |= 1 << bit;
                    castle_rooks[bit] = rook_sq;
                }
            }
        }

        let mut ep = None;
        if let Some(&(at, ep_text)) = fields.get(3) {
            if ep_text != "-" {
                let bad_ep = || err(Some(at), format!("en-passant field {ep_text:?} is not a square (or up to four)"));
                let mut listed = Vec::new();
                let mut rest = ep_text;
                while !rest.is_empty() && listed.len() < 4 {
                    let (sq, tail) = d.split_square(rest).ok_or_else(bad_ep)?;
                    listed.push(sq);
                    rest = tail;
                }
                if !rest.is_empty() {
                    return Err(bad_ep());
                }
                let mover = side.other();
                let takes_ep = |s: Square| {
                    board[s.index()].is_some_and(|p| p.color() == mover && self.pieces[p.kind().index()].en_passant)
                };
                let sq = listed[0];
                let last = *listed.last().expect("one square at least");
                let beyond = |s: Square| d.square(d.file(s), d.rank(s) + mover.forward());
                let victim = if listed.len() > 1 && takes_ep(last) {
                    // Passed square + landing square (fairyzero's and Fairy-Stockfish's Berolina
                    // form): every square strictly between is passed too.
                    Some(last)
                } else if listed.len() > 1 {
                    // Fairy-Stockfish's form of a longer straight step: every square passed
                    // (`e3e4` after e2e5), the pawn right beyond the last.
                    beyond(last).filter(|&v| takes_ep(v))
                } else {
                    // The pawn that just moved stands one step beyond the passed square.
                    [0, -1, 1]
                        .into_iter()
                        .filter_map(|df| d.square(d.file(sq) + df, d.rank(sq) + mover.forward()))
                        .find(|&s| takes_ep(s))
                };
                if let Some(victim) = victim {
                    // Every square from the first passed one to the victim is passed (up to three
                    // in all: a four-square step).
                    let (df, dr) = ((d.file(victim) - d.file(sq)).signum(), (d.rank(victim) - d.rank(sq)).signum());
                    let mut squares = [sq, Square::NONE, Square::NONE];
                    for (i, slot) in squares.iter_mut().enumerate().skip(1) {
                        let i = i as i32;
                        if let Some(s2) = d.square(d.file(sq) + df * i, d.rank(sq) + dr * i).filter(|&s2| s2 != victim)
                        {
                            *slot = s2;
                        } else {
                            break;
                        }
                    }
                    ep = Some(EnPassant { squares, victim });
                }
            }
        }
        let number = |i: usize, default: u32| -> Result<u32, PositionError> {
            match fields.get(i) {
                None => Ok(default),
                Some((at, t)) => t.parse().map_err(|_| err(Some(*at), format!("expected a number, found {t:?}"))),
            }
        };
        let halfmove = number(4, 0)?;
        let fullmove = number(5, 1)?.max(1);
        // Multi-move turns: the turn field `<moves left>/<turn length>` (`super::turns`).
        let mut turn_left = 0;
        let mut extra = 6;
        if let Some(schedule) = &self.rules.turns {
            let field = fields.get(6).map(|&(_, t)| t);
            turn_left =
                schedule.parse_turn_field(field, side, fullmove).map_err(|m| err(fields.get(6).map(|f| f.0), m))?;
            extra = 7;
        }
        // Protean men: the marks on the board, then the choice field (`super::protean`).
        let protean_field = if self.has_protean_field() { fields.get(extra).copied() } else { None };
        let protean = self
            .conclude_protean(&board, &marked, side, protean_field)
            .map_err(|(at, m)| err(at, format!("protean: {m}")))?;
        if self.has_protean_field() {
            extra += 1;
        }
        if fields.len() > extra {
            return Err(err(Some(fields[extra].0), "unexpected extra field".into()));
        }
        for color in Color::BOTH {
            let royals = board.iter().flatten().filter(|p| p.color() == color && self.pieces[p.kind().index()].royal);
            if royals.count() > MAX_ROYALS {
                return Err(err(None, format!("{} has more than {MAX_ROYALS} royal pieces", color.name())));
            }
        }
        Ok(RawPosition {
            board,
            side,
            castling,
            castle_rooks,
            castle_kings,
            ep,
            halfmove,
            fullmove,
            hand,
            turn_left,
            token,
            protean,
        })
    }

    /// Per `Piece::index()`: how many such pieces stand on `board`.
    pub(crate) fn piece_counts_of(&self, board: &[Option<Piece>]) -> Vec<u16> {
        let mut counts = vec![0; self.piece_count() * 2];
        for p in board.iter().flatten() {
            counts[p.index()] += 1;
        }
        counts
    }
}
