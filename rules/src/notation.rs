//! Position strings and move text (`docs/notation.md`), the top layer of the rules crate.
//!
//! Position strings are Fairy-Stockfish FEN extended with parenthesised multi-letter tokens;
//! the variant layer reads their fields (`Variant::parse_position`), and this module keeps an
//! en-passant right only if a move can use it, which needs the move generator. Moves print in
//! one of two styles chosen by the variant: Fairy-Stockfish UCI for the variants it knows, and
//! fairyzero's suffix form for the others; the suffix form's parser also reads the Chushin
//! dossier's `h9xh10-i11` form. Parsing a move matches it against the legal moves of the
//! position, so a parsed move is always legal.

use std::{fmt, sync::Arc};

pub use crate::variant::{
    setup_mask::{parse_setup_mask, SetupMaskError},
    text::PositionError,
};
use crate::{
    moves::{Move, MoveKind, MoveList},
    position::{CastlingRights, EnPassant, Position},
    types::{Piece, PieceType, Square},
    variant::{CaptureRule, NotationStyle, PassRule, Variant},
};

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

impl Position {
    /// Parses a position string of `variant`.
    pub fn from_fen(variant: Arc<Variant>, text: &str) -> Result<Position, PositionError> {
        let raw = variant.parse_position(text)?;
        let pos = Position::from_raw(variant, raw).with_usable_en_passant();
        // A protean choice hands the turn over, which a side in check cannot do.
        if let Err(message) = pos.check_protean_choice() {
            return Err(PositionError { text: text.to_string(), at: None, message });
        }
        Ok(pos)
    }

    /// The start position of a variant.
    pub fn start(variant: Arc<Variant>) -> Position {
        let start = variant.start.clone();
        Position::from_fen(variant, &start).expect("the start position was validated when the variant was built")
    }

    /// The variant's setup phase start (fixed part only, first chooser to act), if it has one.
    pub fn setup_start(variant: Arc<Variant>) -> Option<Position> {
        let phase = variant.setup.as_ref()?;
        let fixed = phase.fixed.clone();
        let actor = phase.plies[0].actor;
        let mut pos = Position::from_fen(variant, &fixed).expect("the fixed part was validated with the variant");
        pos.begin_setup(actor);
        Some(pos)
    }

    /// The array that a `setup:<hex>` mask chooses (jupiter.md §2.4): the variant's setup
    /// phase played with the member of each ply that the mask names; its setup plies stay in
    /// the history, as if played one by one.
    pub fn from_setup_mask(variant: Arc<Variant>, mask: u64) -> Result<Position, SetupMaskError> {
        let moves = Position::setup_mask_moves(&variant, mask)?;
        let name = variant.name.clone();
        let mut pos = Position::setup_start(variant).ok_or(SetupMaskError::NoSetupPhase { variant: name })?;
        for m in moves {
            pos.make(m);
        }
        Ok(pos)
    }

    /// The setup plies that a `setup:<hex>` mask stands for, in order.
    pub fn setup_mask_moves(variant: &Arc<Variant>, mask: u64) -> Result<Vec<Move>, SetupMaskError> {
        let phase =
            variant.setup.as_ref().ok_or_else(|| SetupMaskError::NoSetupPhase { variant: variant.name.clone() })?;
        let choices = phase.mask_choices(mask)?;
        Ok(phase
            .plies
            .iter()
            .zip(choices)
            .map(|(ply, choice)| {
                let left = ply.squares[0];
                Move::normal(left, left).with_kind(MoveKind::Setup).with_piece(ply.pieces[choice])
            })
            .collect())
    }

    /// [`Position::from_setup_mask`] of the text `setup:<hex>`.
    pub fn from_setup_text(variant: Arc<Variant>, text: &str) -> Result<Position, SetupMaskError> {
        let mask = parse_setup_mask(text)?;
        Position::from_setup_mask(variant, mask)
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
        for bit in 0..8 {
            let king = self.castle_kings()[crate::variant::castling::king_index(bit)];
            if rights & (1 << bit) != 0 && (edited(self.castle_rooks()[bit]) || edited(king)) {
                rights &= !(1 << bit);
            }
        }
        let ep =
            self.en_passant().filter(|ep| !edited(ep.victim) && !ep.squares.iter().any(|&s| !s.is_none() && edited(s)));
        let piece_at = |sq: Square| match edits.iter().rev().find(|&&(s, _)| s == sq) {
            Some(&(_, p)) => p,
            None => self.piece_at(sq),
        };
        // A protean man keeps its mark unless its square is edited.
        self.rebuilt(piece_at, rights, ep).map(|p| self.with_protean_marks_of(p, |sq| (!edited(sq)).then_some(sq)))
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
        fields[0] = v.board_field_with_token(&piece_at, self.token);
        if v.has_drops() {
            fields[0].push_str(&v.pocket_field(self.hands()));
        }
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
        let mut s = String::with_capacity(16);
        self.write_move(m, &mut s);
        s
    }

    /// Appends the move's text to `out`: what [`Position::move_to_string`] returns, without a
    /// string of its own per square (game records name about twenty moves per search).
    ///
    /// A doubled turn prints as its two actions joined by `,`, each written as if alone on the
    /// position where it is made (jupiter.md §9.3).
    pub fn write_move(&self, m: &Move, out: &mut String) {
        let mover = |sq: Square| self.piece_at(sq).map(|p| p.kind());
        let Some(second) = m.second_action() else {
            return self.write_action(m, mover(m.from), out);
        };
        let first = m.first_action();
        self.write_action(&first, mover(first.from), out);
        out.push(',');
        // Only a promotion's text depends on who acts, so the square is looked up only then.
        let second_mover = if second.piece.is_some() { self.mover_after(&first, second.from) } else { None };
        self.write_action(&second, second_mover, out);
    }

    /// The type of the piece standing on `sq` once the single action `first` is made here.
    fn mover_after(&self, first: &Move, sq: Square) -> Option<PieceType> {
        let acting = self.piece_at(first.from).map(|p| p.kind());
        // The acting piece ends on `to` (a stationary action has `to == from`).
        if sq == first.to {
            return first.piece.or(acting);
        }
        match first.kind {
            MoveKind::Swap if sq == first.from => self.piece_at(first.to).map(|p| p.kind()),
            MoveKind::Reproduce if sq == first.aux => acting,
            MoveKind::Push | MoveKind::Pull | MoveKind::Shove | MoveKind::Castle => {
                // A piece this action displaced: rare enough (a relayed promotion after a push)
                // to replay the action on a copy rather than restate where each kind moves it.
                let mut after = self.clone();
                after.make(*first);
                after.piece_at(sq).map(|p| p.kind())
            }
            _ => self.piece_at(sq).map(|p| p.kind()),
        }
    }

    /// Appends the text of one action; `mover` is the type of the piece that makes it (it
    /// decides whether a promotion prints as `+` or names its type).
    fn write_action(&self, m: &Move, mover: Option<PieceType>, out: &mut String) {
        use std::fmt::Write;
        let v = self.variant();
        let d = v.dims;
        let sq = |s: Square| d.square_display(s);
        // Writing into a String cannot fail.
        let mut w = |args: std::fmt::Arguments<'_>| {
            let _ = out.write_fmt(args);
        };
        match m.kind {
            // Per-piece passes are distinct moves (chushin-shogi.md §9.2, §13.11): each names
            // its piece's square, from = to, like the dossier's `h9-h9`.
            MoveKind::Pass if v.rules.pass == PassRule::PerPieceNoDoublePass => {
                return w(format_args!("{}{}", sq(m.from), sq(m.from)))
            }
            MoveKind::Pass => return w(format_args!("pass")),
            MoveKind::Setup => {
                let token = m.piece.map_or("-", |t| v.pieces[t.index()].token.as_str());
                return w(format_args!("set:{}={token}", sq(m.to)));
            }
            MoveKind::Drop => {
                let token = m.piece.map_or("", |t| v.pieces[t.index()].token.as_str());
                return if token.len() == 1 {
                    w(format_args!("{token}@{}", sq(m.to)))
                } else {
                    w(format_args!("({token})@{}", sq(m.to)))
                };
            }
            _ => {}
        }
        // A castling king that moves less than two files would print like its plain step (or
        // as a null move): it is written king takes own rook instead, as UCI_Chess960 does. So is
        // every castling of a king that roams (Emperor King Chess): its roam reaches g1 as well.
        let short_castle = m.kind == MoveKind::Castle
            && ((d.file(m.to) - d.file(m.from)).abs() < 2
                || mover.is_some_and(|k| {
                    v.powers[k.index()].iter().any(|p| matches!(p, crate::variant::powers::Power::RoamUnguarded))
                }));
        w(format_args!("{}{}", sq(m.from), sq(if short_castle { m.aux } else { m.to })));
        if v.notation == NotationStyle::Uci {
            if let Some(t) = m.piece {
                for c in v.pieces[t.index()].token.chars() {
                    w(format_args!("{}", c.to_ascii_lowercase()));
                }
            }
            return;
        }
        // A tank's shove prints like a step: its `to` holds a friendly piece, which no other
        // move of the tank's square can enter, and the pieces it pushes off are removed squares.
        if m.kind != MoveKind::Castle {
            for &c in m.captures() {
                w(format_args!("x{}", sq(c)));
            }
        }
        match m.kind {
            MoveKind::Convert => w(format_args!("~{}", sq(m.aux))),
            MoveKind::Normal if !m.aux.is_none() => w(format_args!("~{}", sq(m.aux))),
            MoveKind::Swap => w(format_args!("^")),
            MoveKind::SelfCapture => w(format_args!("*")),
            MoveKind::Push => w(format_args!(">{}", sq(m.aux))),
            MoveKind::Pull => w(format_args!("<{}", sq(m.aux))),
            // `@` is the drop marker; jupiter.md §9.3 writes reproduction `&`.
            MoveKind::Reproduce => w(format_args!("&{}", sq(m.aux))),
            _ => {}
        }
        if let Some(t) = m.piece {
            let single = mover.is_some_and(|k| v.pieces[k.index()].promotes_to.len() == 1);
            let token = &v.pieces[t.index()].token;
            if single {
                w(format_args!("+"));
            } else if token.len() == 1 {
                w(format_args!("={token}"));
            } else {
                w(format_args!("=({token})"));
            }
        }
    }

    /// Parses a move and checks that it is legal here.
    pub fn parse_move(&mut self, text: &str) -> Result<Move, MoveError> {
        let mut moves = MoveList::new();
        self.legal_moves(&mut moves);
        if let Some(m) = self.find_move(text, &moves)? {
            return Ok(m);
        }
        let reason = match self.outcome_with(&moves) {
            Some(o) if moves.is_empty() => format!("the game is over ({})", o.reason().as_str()),
            _ => format!("not a legal move in {}", self.to_fen()),
        };
        Err(MoveError { text: text.to_string(), message: reason })
    }

    /// The move of `candidates` (moves of this position) that `text` names in any spelling the
    /// parser accepts, or `None`; an error if `text` is not a move string at all.
    pub fn find_move(&self, text: &str, candidates: &[Move]) -> Result<Option<Move>, MoveError> {
        let canonical = self.canonical_move_text(text)?;
        let mut printed = String::with_capacity(16);
        Ok(candidates.iter().copied().find(|m| {
            printed.clear();
            self.write_move(m, &mut printed);
            printed == canonical
        }))
    }

    /// Checks the syntax of a move string and rewrites it canonically (captures sorted,
    /// promotion letters in the printed case), naming the first character that is wrong. A
    /// doubled turn `a,b` is checked action by action.
    fn canonical_move_text(&self, text: &str) -> Result<String, MoveError> {
        if text.is_empty() {
            return Err(MoveError { text: text.into(), message: "empty move".into() });
        }
        let Some((first, second)) = text.split_once(',') else {
            return self.canonical_action_text(text, 0, text);
        };
        let mut out = self.canonical_action_text(text, 0, first)?;
        out.push(',');
        out.push_str(&self.canonical_action_text(text, first.len() + 1, second)?);
        Ok(out)
    }

    /// [`Position::canonical_move_text`] of one action: `part`, which starts at byte `start` of
    /// the whole move `text` (error messages count characters of the whole text).
    fn canonical_action_text(&self, text: &str, start: usize, part: &str) -> Result<String, MoveError> {
        let v = self.variant();
        let d = v.dims;
        let doubled = part.len() != text.len();
        // `at` is a byte offset of `part` on a character boundary.
        let bad = |at: usize, what: &str| {
            let at = start + at;
            MoveError {
                text: text.to_string(),
                message: format!(
                    "character {} ({:?}): {what}",
                    text[..at].chars().count() + 1,
                    text[at..].chars().next().unwrap_or(' ')
                ),
            }
        };
        let text = part;
        if text.is_empty() {
            return Err(bad(0, "expected an action on each side of ','"));
        }
        if text == "pass" || text.starts_with("set:") {
            if doubled {
                return Err(bad(0, "a doubled turn joins two actions: no pass or setup ply"));
            }
            if text == "pass" {
                if v.rules.pass == PassRule::PerPieceNoDoublePass {
                    return Err(bad(0, "each piece passes separately here: name it, <square><square> (e.g. h9h9)"));
                }
                return Ok(text.to_string());
            }
        }
        if let Some(rest) = text.strip_prefix("set:") {
            let (sq, rest) = d.split_square(rest).ok_or_else(|| bad(4, "expected a square after 'set:'"))?;
            let token = rest.strip_prefix('=').ok_or_else(|| bad(text.len() - rest.len(), "expected '='"))?;
            let at = text.len() - token.len();
            // Tokens match case-insensitively, with or without the parentheses of position strings.
            let bare = token.strip_prefix('(').and_then(|t| t.strip_suffix(')')).unwrap_or(token);
            let token = if bare == "-" {
                "-".to_string()
            } else {
                let t = v.piece_by_token(bare).ok_or_else(|| bad(at, "unknown piece token"))?;
                v.pieces[t.index()].token.clone()
            };
            return Ok(format!("set:{}={token}", d.square_name(sq)));
        }
        if let Some(at) = text.find('@').filter(|&at| at > 0 && d.parse_square(&text[..at]).is_none()) {
            // A drop, `N@e4`: the token in any case, parenthesised or not when it is longer.
            let token = &text[..at];
            let bare = token.strip_prefix('(').and_then(|t| t.strip_suffix(')')).unwrap_or(token);
            let t = v.piece_by_token(bare).ok_or_else(|| bad(0, "unknown piece token before '@'"))?;
            let (sq, rest) =
                d.split_square(&text[at + 1..]).ok_or_else(|| bad(at + 1, "expected a square after '@'"))?;
            if !rest.is_empty() {
                return Err(bad(text.len() - rest.len(), "unexpected text after the drop"));
            }
            let token = &v.pieces[t.index()].token;
            let sq = d.square_name(sq);
            return Ok(if token.len() == 1 { format!("{token}@{sq}") } else { format!("({token})@{sq}") });
        }
        let (from, rest) = d.split_square(text).ok_or_else(|| bad(0, "expected the origin square"))?;
        // `x` right after the origin is a victim, unless it is the file of a destination
        // square (boards 24 files wide or more).
        let dossier = rest.starts_with('-') || (rest.starts_with('x') && d.split_square(rest).is_none());
        if v.notation != NotationStyle::Uci && dossier {
            return self.canonical_dossier_action(from, rest, |at, what| bad(text.len() - at, what));
        }
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
        for mark in ['~', '>', '<', '&'] {
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

    /// The canonical text of a move written in the Chushin dossier's form (chushin-shogi.md
    /// §9.3): `FROM`, then `x<victim>` per removed square other than `TO`, then `-TO`, then an
    /// optional `+`: `h9xh10-i11` is `h9i11xh10`, `h9xh10-h9` (igui) is `h9h9xh10`, `h9-h9` (a
    /// pass) is `h9h9`, `b14xb15-a14+` is `b14a14xb15+`. `rest` follows the origin square; `bad`
    /// builds an error from the number of bytes of `rest` still unread at the fault.
    fn canonical_dossier_action(
        &self,
        from: Square,
        rest: &str,
        bad: impl Fn(usize, &str) -> MoveError,
    ) -> Result<String, MoveError> {
        let d = self.variant().dims;
        let mut rest = rest;
        let mut victims = Vec::new();
        while let Some(r) = rest.strip_prefix('x') {
            let (c, r2) = d.split_square(r).ok_or_else(|| bad(r.len(), "expected a captured square after 'x'"))?;
            victims.push(c);
            rest = r2;
        }
        let r = rest.strip_prefix('-').ok_or_else(|| bad(rest.len(), "expected '-' and the destination square"))?;
        let (to, r) = d.split_square(r).ok_or_else(|| bad(r.len(), "expected the destination square after '-'"))?;
        let promotes = r.starts_with('+');
        let r = r.strip_prefix('+').unwrap_or(r);
        if !r.is_empty() {
            return Err(bad(r.len(), "unexpected text after the move"));
        }
        victims.sort();
        let mut out = format!("{}{}", d.square_name(from), d.square_name(to));
        for c in victims {
            out.push('x');
            out.push_str(&d.square_name(c));
        }
        if promotes {
            out.push('+');
        }
        Ok(out)
    }

    /// Plays a comma- or space-separated list of moves, checking each.
    ///
    /// Whitespace always separates turns. Two comma-separated items `a,b` are one doubled turn
    /// when `a,b` is a legal move here, and two turns otherwise. That reading is never
    /// ambiguous: the second action of a doubled turn starts on a square that holds a piece of
    /// the side that made the first action (or nothing, once its end-of-turn checks have run),
    /// so `b` is never also the opponent's legal reply to `a`.
    pub fn play_moves(&mut self, list: &str) -> Result<(), MoveError> {
        for turn in list.split_whitespace() {
            let items: Vec<&str> = turn.split(',').filter(|t| !t.is_empty()).collect();
            let mut i = 0;
            while i < items.len() {
                if let Some(&next) = items.get(i + 1) {
                    let pair = format!("{},{next}", items[i]);
                    if let Ok(m) = self.parse_move(&pair) {
                        self.make(m);
                        i += 2;
                        continue;
                    }
                }
                let m = self.parse_move(items[i])?;
                self.make(m);
                i += 1;
            }
        }
        Ok(())
    }

    /// Drops an en-passant right that no enemy piece could use (as `make` never records one).
    fn with_usable_en_passant(mut self) -> Position {
        if let Some(ep) = self.en_passant() {
            let mut moves = MoveList::new();
            self.pseudo_legal_moves(&mut moves);
            // Under `capture = "rifle"` the en-passant capture is a shot from the capturer's square.
            let rifle = self.variant().rules.capture == CaptureRule::Rifle;
            let usable = moves.iter().any(|m| {
                m.captures().contains(&ep.victim)
                    && (ep.squares.contains(&m.to) || (rifle && m.kind == MoveKind::Stationary))
            });
            if !usable {
                self.clear_en_passant();
            }
        }
        self
    }
}
