//! Position strings and move text (`docs/notation.md`).
//!
//! Position strings are Fairy-Stockfish FEN extended with parenthesised multi-letter tokens.
//! Moves print in one of two styles chosen by the variant: Fairy-Stockfish UCI for the variants
//! it knows, and fairyzero's suffix form for the others. Parsing a move matches it against the
//! legal moves of the position, so a parsed move is always legal.

use std::{fmt, sync::Arc};

use crate::{
    moves::{Move, MoveKind, MoveList},
    position::{CastlingRights, EnPassant, Position, RawPosition},
    types::{Color, Piece, Square},
    variant::{NotationStyle, Variant},
};

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

/// A move string that could not be read or is not legal here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveError {
    pub text: String,
    pub message: String,
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "move {:?}: {}", self.text, self.message)
    }
}

impl std::error::Error for MoveError {}

impl Variant {
    /// Whether its position strings carry the castling, en-passant and move-counter fields
    /// (the extended form) after the side to move.
    pub fn extended_position_strings(&self) -> bool {
        self.notation == NotationStyle::Uci || self.rules.castling.is_some() || self.rules.en_passant
    }

    /// The board field of a position string: ranks from the last to the first, files from the
    /// left, runs of empty squares as numbers, pieces as this variant's tokens.
    pub fn board_field(&self, piece_at: impl Fn(Square) -> Option<Piece>) -> String {
        let d = self.dims;
        let mut s = String::new();
        for rank in (0..d.height as i32).rev() {
            let mut empty = 0;
            for file in 0..d.width as i32 {
                match piece_at(d.square(file, rank).expect("on the board")) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            s.push_str(&empty.to_string());
                            empty = 0;
                        }
                        s.push_str(&self.piece_token(p));
                    }
                }
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
}

impl Position {
    /// Parses a position string of `variant`.
    pub fn from_fen(variant: Arc<Variant>, text: &str) -> Result<Position, PositionError> {
        let err = |at: Option<usize>, message: String| PositionError { text: text.to_string(), at, message };
        let d = variant.dims;
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
        let (_, board_text) = fields[0];
        let mut board = vec![None; d.squares()];
        let ranks: Vec<&str> = board_text.split('/').collect();
        if ranks.len() != d.height as usize {
            return Err(err(
                None,
                format!("the board has {} ranks separated by '/', the variant needs {}", ranks.len(), d.height),
            ));
        }
        let width = d.width as usize;
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
                        (chars[j + 1..j + close].iter().collect(), close + 1)
                    } else if c.is_ascii_alphabetic() {
                        (c.to_string(), 1)
                    } else {
                        return Err(err(Some(at), format!("unexpected character {c:?} in the board")));
                    };
                    let kind = variant.piece_by_token(&token).ok_or_else(|| {
                        err(Some(at), format!("unknown piece token {token:?} in variant {}", variant.name))
                    })?;
                    let upper = token.chars().all(|c| c.is_ascii_uppercase());
                    let lower = token.chars().all(|c| c.is_ascii_lowercase());
                    if !upper && !lower {
                        return Err(err(Some(at), format!("token {token:?} mixes upper and lower case")));
                    }
                    if file >= width {
                        return Err(err(Some(at), too_long()));
                    }
                    let color = if upper { Color::Blue } else { Color::Tan };
                    board[rank * width + file] = Some(Piece::new(kind, color));
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

        let side = match fields.get(1) {
            None => {
                return Err(err(None, "the side to move is missing: the board must be followed by 'w' or 'b'".into()))
            }
            Some((_, "w")) => Color::Blue,
            Some((_, "b")) => Color::Tan,
            Some((at, other)) => return Err(err(Some(*at), format!("side to move must be 'w' or 'b', not {other:?}"))),
        };

        let mut castle_kings = [Square::NONE; 2];
        let mut castle_rooks = [Square::NONE; 4];
        let mut castling: CastlingRights = 0;
        if let Some(&(at, text_c)) = fields.get(2) {
            // Fairy-Stockfish reads castling rights of a variant without castling as `-`.
            if let (false, Some(rules)) = (text_c == "-", variant.rules.castling.as_ref()) {
                for (k, ch) in text_c.chars().enumerate() {
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
                let bad_ep = || err(Some(at), format!("en-passant field {ep_text:?} is not a square (or two)"));
                let (sq, rest) = d.split_square(ep_text).ok_or_else(bad_ep)?;
                // Fairy-Stockfish writes Berolina's right as passed square + landing square.
                let landing = match rest {
                    "" => None,
                    rest => Some(d.parse_square(rest).ok_or_else(bad_ep)?),
                };
                // Otherwise the pawn that just moved stands one step beyond the passed square.
                let mover = side.other();
                let rank = d.rank(sq) + mover.forward();
                let candidates = [0, -1, 1].into_iter().filter_map(|df| d.square(d.file(sq) + df, rank));
                let victim = landing.into_iter().chain(candidates).find(|s| {
                    board[s.index()].is_some_and(|p| p.color() == mover && variant.pieces[p.kind().index()].en_passant)
                });
                if let Some(victim) = victim {
                    // With a landing square, every square strictly between is passed too.
                    let (df, dr) = ((d.file(victim) - d.file(sq)).signum(), (d.rank(victim) - d.rank(sq)).signum());
                    let second = d.square(d.file(sq) + df, d.rank(sq) + dr).filter(|&s2| s2 != victim);
                    ep = Some(EnPassant { squares: [sq, second.unwrap_or(Square::NONE)], victim });
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
        if fields.len() > 6 {
            return Err(err(Some(fields[6].0), "unexpected extra field".into()));
        }
        let pos = Position::from_raw(
            variant,
            RawPosition { board, side, castling, castle_rooks, castle_kings, ep, halfmove, fullmove },
        );
        Ok(pos.with_usable_en_passant())
    }

    /// Prints the position string.
    pub fn to_fen(&self) -> String {
        let v = self.variant();
        let mut s = v.board_field(|sq| self.piece_at(sq));
        s.push(' ');
        s.push(if self.side_to_move() == Color::Blue { 'w' } else { 'b' });
        let extended = v.extended_position_strings();
        if extended {
            s.push(' ');
            s.push_str(&self.castling_field(self.castling_rights(), |sq| self.piece_at(sq)));
            s.push(' ');
            s.push_str(&self.en_passant_field(self.en_passant()));
            s.push_str(&format!(" {} {}", self.halfmove_clock(), self.fullmove_number()));
        }
        s
    }

    /// The en-passant field: Fairy-Stockfish's form, the passed square, plus the landing square
    /// unless the pawn stands right beyond it (Berolina's diagonal step, triple steps).
    fn en_passant_field(&self, ep: Option<EnPassant>) -> String {
        let Some(ep) = ep else { return "-".into() };
        let d = self.variant().dims;
        let mut s = d.square_name(ep.squares[0]);
        let beyond = d.square(d.file(ep.squares[0]), d.rank(ep.squares[0]) - self.side_to_move().forward());
        if beyond != Some(ep.victim) {
            s.push_str(&d.square_name(ep.victim));
        }
        s
    }

    /// The castling field for `rights` on the board `piece_at` (which may differ from this
    /// position's board: see [`Position::edited`]).
    fn castling_field(&self, rights: CastlingRights, piece_at: impl Fn(Square) -> Option<Piece>) -> String {
        if rights == 0 {
            return "-".into();
        }
        let v = self.variant();
        let d = v.dims;
        let rooks = self.castle_rooks();
        let mut s = String::new();
        for color in Color::BOTH {
            for side in 0..2 {
                let bit = 2 * color.index() + side;
                if rights & (1 << bit) == 0 {
                    continue;
                }
                let rook_sq = rooks[bit];
                let rook = piece_at(rook_sq);
                let rank = d.rank(rook_sq);
                // Outermost rook on its side: the short K/Q letter; otherwise the file (X-FEN).
                let outer = if side == 0 {
                    (d.file(rook_sq) + 1..d.width as i32).all(|f| piece_at(d.square(f, rank).unwrap()) != rook)
                } else {
                    (0..d.file(rook_sq)).all(|f| piece_at(d.square(f, rank).unwrap()) != rook)
                };
                let ch = if outer {
                    if side == 0 {
                        'K'
                    } else {
                        'Q'
                    }
                } else {
                    (b'A' + d.file(rook_sq) as u8) as char
                };
                s.push(if color == Color::Blue { ch } else { ch.to_ascii_lowercase() });
            }
        }
        s
    }

    /// This position with some squares changed (`None` empties a square), as a new position
    /// without history. Castling rights whose king or rook square is edited are dropped, and so
    /// is an en-passant right whose squares are; the result goes through the position-string
    /// parser, so an edit that makes the position invalid (a royal count the variant forbids, a
    /// pawn on a rank it may not stand on) is an error, not a broken position. Designer tools
    /// use it to remove or add one piece.
    pub fn edited(&self, edits: &[(Square, Option<Piece>)]) -> Result<Position, PositionError> {
        let edited = |sq: Square| edits.iter().any(|&(s, _)| s == sq);
        let mut rights = self.castling_rights();
        for bit in 0..4 {
            if rights & (1 << bit) != 0 && (edited(self.castle_rooks()[bit]) || edited(self.castle_kings()[bit / 2])) {
                rights &= !(1 << bit);
            }
        }
        let ep =
            self.en_passant().filter(|ep| !edited(ep.victim) && !ep.squares.iter().any(|&s| !s.is_none() && edited(s)));
        let piece_at = |sq: Square| match edits.iter().rev().find(|&&(s, _)| s == sq) {
            Some(&(_, p)) => p,
            None => self.piece_at(sq),
        };
        self.rebuilt(piece_at, rights, ep)
    }

    /// A new position without history, with this one's side to move, counters and other
    /// fields but the board `piece_at`, the castling `rights` and the en-passant right `ep`,
    /// built through the position-string parser (so it is checked like any input).
    pub(crate) fn rebuilt(
        &self,
        piece_at: impl Fn(Square) -> Option<Piece>,
        rights: CastlingRights,
        ep: Option<EnPassant>,
    ) -> Result<Position, PositionError> {
        let v = self.variant();
        let fen = self.to_fen();
        let mut fields: Vec<String> = fen.split(' ').map(str::to_string).collect();
        fields[0] = v.board_field(&piece_at);
        let extended = v.extended_position_strings();
        if extended && fields.len() >= 4 {
            fields[2] = self.castling_field(rights, &piece_at);
            fields[3] = self.en_passant_field(ep);
        }
        Position::from_fen(Arc::clone(v), &fields.join(" "))
    }

    // -----------------------------------------------------------------------------------------
    // Moves
    // -----------------------------------------------------------------------------------------

    /// Prints a move of this position in the variant's notation.
    pub fn move_to_string(&self, m: &Move) -> String {
        let v = self.variant();
        let d = v.dims;
        let sq = |s: Square| d.square_name(s);
        match m.kind {
            MoveKind::Pass => return "pass".into(),
            MoveKind::Setup => {
                let token = m.piece.map_or("-".to_string(), |t| v.pieces[t.index()].token.clone());
                return format!("set:{}={}", sq(m.to), token);
            }
            MoveKind::Drop => {
                let token = m.piece.map_or(String::new(), |t| v.pieces[t.index()].token.clone());
                return if token.len() == 1 {
                    format!("{token}@{}", sq(m.to))
                } else {
                    format!("({token})@{}", sq(m.to))
                };
            }
            _ => {}
        }
        // A castling king that moves less than two files would print like its plain step (or
        // as a null move): it is written king takes own rook instead, as UCI_Chess960 does.
        let short_castle = m.kind == MoveKind::Castle && (d.file(m.to) - d.file(m.from)).abs() < 2;
        let mut s = format!("{}{}", sq(m.from), sq(if short_castle { m.aux } else { m.to }));
        if v.notation == NotationStyle::Uci {
            if let Some(t) = m.piece {
                s.push_str(&v.pieces[t.index()].token.to_ascii_lowercase());
            }
            return s;
        }
        if m.kind != MoveKind::Castle {
            for &c in m.captures() {
                s.push('x');
                s.push_str(&sq(c));
            }
        }
        match m.kind {
            MoveKind::Convert => s.push_str(&format!("~{}", sq(m.aux))),
            MoveKind::Normal if !m.aux.is_none() => s.push_str(&format!("~{}", sq(m.aux))),
            MoveKind::Swap => s.push('^'),
            MoveKind::SelfCapture => s.push('*'),
            MoveKind::Push => s.push_str(&format!(">{}", sq(m.aux))),
            MoveKind::Pull => s.push_str(&format!("<{}", sq(m.aux))),
            MoveKind::Reproduce => s.push_str(&format!("@{}", sq(m.aux))),
            _ => {}
        }
        if let Some(t) = m.piece {
            let mover = self.piece_at(m.from).map(|p| p.kind());
            let single = mover.is_some_and(|k| v.pieces[k.index()].promotes_to.len() == 1);
            if single {
                s.push('+');
            } else {
                let token = &v.pieces[t.index()].token;
                if token.len() == 1 {
                    s.push_str(&format!("={token}"));
                } else {
                    s.push_str(&format!("=({token})"));
                }
            }
        }
        s
    }

    /// Parses a move and checks that it is legal here.
    pub fn parse_move(&mut self, text: &str) -> Result<Move, MoveError> {
        let canonical = self.canonical_move_text(text)?;
        let mut moves = MoveList::new();
        self.legal_moves(&mut moves);
        if let Some(m) = moves.iter().find(|m| self.move_to_string(m) == canonical) {
            return Ok(*m);
        }
        let reason = match self.outcome_with(&moves) {
            Some(o) if moves.is_empty() => format!("the game is over ({})", o.reason().as_str()),
            _ => format!("not a legal move in {}", self.to_fen()),
        };
        Err(MoveError { text: text.to_string(), message: reason })
    }

    /// Checks the syntax of a move string and rewrites it canonically (captures sorted,
    /// promotion letters in the printed case), naming the first character that is wrong.
    fn canonical_move_text(&self, text: &str) -> Result<String, MoveError> {
        let v = self.variant();
        let d = v.dims;
        // `at` is a byte offset on a character boundary; the message counts characters.
        let bad = |at: usize, what: &str| MoveError {
            text: text.to_string(),
            message: format!(
                "character {} ({:?}): {what}",
                text[..at].chars().count() + 1,
                text[at..].chars().next().unwrap_or(' ')
            ),
        };
        if text.is_empty() {
            return Err(MoveError { text: text.into(), message: "empty move".into() });
        }
        if text == "pass" {
            return Ok(text.to_string());
        }
        if let Some(rest) = text.strip_prefix("set:") {
            let (sq, rest) = d.split_square(rest).ok_or_else(|| bad(4, "expected a square after 'set:'"))?;
            let token = rest.strip_prefix('=').ok_or_else(|| bad(text.len() - rest.len(), "expected '='"))?;
            let at = text.len() - token.len();
            let token = if token == "-" {
                "-".to_string()
            } else {
                let t = v.piece_by_token(token).ok_or_else(|| bad(at, "unknown piece token"))?;
                v.pieces[t.index()].token.clone()
            };
            return Ok(format!("set:{}={token}", d.square_name(sq)));
        }
        if let Some(at) = text.find('@') {
            if at > 0 && !text[..at].chars().all(|c| c.is_ascii_digit() || c.is_ascii_lowercase()) {
                return Ok(text.to_string());
            }
        }
        let (from, rest) = d.split_square(text).ok_or_else(|| bad(0, "expected the origin square"))?;
        let at_to = text.len() - rest.len();
        let (to, mut rest) = d.split_square(rest).ok_or_else(|| bad(at_to, "expected the destination square"))?;
        let mut out = format!("{}{}", d.square_name(from), d.square_name(to));
        if v.notation == NotationStyle::Uci {
            if !rest.is_empty() {
                let lower = rest.to_ascii_lowercase();
                if v.piece_by_token(&lower).is_none() {
                    return Err(bad(text.len() - rest.len(), "expected a promotion piece letter"));
                }
                out.push_str(&lower);
            }
            return Ok(out);
        }
        let mut captures = Vec::new();
        while let Some(r) = rest.strip_prefix('x') {
            let at = text.len() - r.len();
            let (c, r2) = d.split_square(r).ok_or_else(|| bad(at, "expected a captured square after 'x'"))?;
            captures.push(c);
            rest = r2;
        }
        captures.sort();
        for c in captures {
            out.push('x');
            out.push_str(&d.square_name(c));
        }
        for mark in ['~', '>', '<', '@'] {
            if let Some(r) = rest.strip_prefix(mark) {
                let at = text.len() - r.len();
                let (c, r2) = d.split_square(r).ok_or_else(|| bad(at, "expected a square"))?;
                out.push(mark);
                out.push_str(&d.square_name(c));
                rest = r2;
            }
        }
        for mark in ['^', '*'] {
            if let Some(r) = rest.strip_prefix(mark) {
                out.push(mark);
                rest = r;
            }
        }
        if let Some(r) = rest.strip_prefix('+') {
            out.push('+');
            rest = r;
        } else if let Some(r) = rest.strip_prefix('=') {
            let at = text.len() - r.len();
            let (token, r2) = if let Some(inner) = r.strip_prefix('(') {
                let close = inner.find(')').ok_or_else(|| bad(at, "'(' without ')'"))?;
                (&inner[..close], &inner[close + 1..])
            } else if let Some(first) = r.chars().next() {
                r.split_at(first.len_utf8())
            } else {
                return Err(bad(at.saturating_sub(1), "expected a piece token after '='"));
            };
            let t = v.piece_by_token(token).ok_or_else(|| bad(at, "unknown piece token"))?;
            let token = &v.pieces[t.index()].token;
            out.push_str(&if token.len() == 1 { format!("={token}") } else { format!("=({token})") });
            rest = r2;
        }
        if !rest.is_empty() {
            return Err(bad(text.len() - rest.len(), "unexpected text after the move"));
        }
        Ok(out)
    }

    /// Plays a comma- or space-separated list of moves, checking each.
    pub fn play_moves(&mut self, list: &str) -> Result<(), MoveError> {
        for text in list.split([',', ' ']).map(str::trim).filter(|t| !t.is_empty()) {
            let m = self.parse_move(text)?;
            self.make(m);
        }
        Ok(())
    }

    /// Drops an en-passant right that no enemy piece could use (as `make` never records one).
    fn with_usable_en_passant(mut self) -> Position {
        if let Some(ep) = self.en_passant() {
            let mut moves = MoveList::new();
            self.pseudo_legal_moves(&mut moves);
            let usable = moves.iter().any(|m| m.captures().contains(&ep.victim) && ep.squares.contains(&m.to));
            if !usable {
                self.clear_en_passant();
            }
        }
        self
    }
}
