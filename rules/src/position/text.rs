//! Printing position strings (`docs/notation.md`). Parsing them is in `crate::notation`, since
//! an en-passant right is kept only if a move can use it.

use crate::{
    position::Position,
    types::{CastlingRights, Color, EnPassant, Piece, Square},
};

impl Position {
    /// Prints the position string.
    pub fn to_fen(&self) -> String {
        let v = self.variant();
        let mut s = v.board_field_marked(|sq| self.piece_at(sq), self.token, |sq| self.is_protean(sq));
        if v.has_drops() {
            s.push_str(&v.pocket_field(self.hands()));
        }
        s.push(' ');
        s.push(if self.side_to_move() == Color::Blue { 'w' } else { 'b' });
        let extended = v.extended_position_strings();
        if extended {
            s.push(' ');
            s.push_str(&self.castling_field(self.castling_rights(), |sq| self.piece_at(sq)));
            s.push(' ');
            s.push_str(&self.en_passant_field(self.en_passant()));
            s.push_str(&format!(" {} {}", self.halfmove_clock(), self.fullmove_number()));
            if self.variant().rules.turns.is_some() {
                // The turn field (multi-move turns): moves left in the turn / the turn's length.
                s.push_str(&format!(" {}/{}", self.moves_left_in_turn(), self.turn_length()));
            }
            if v.has_protean_field() {
                s.push(' ');
                s.push_str(&self.protean.field());
            }
        }
        s
    }

    /// The en-passant field, in Fairy-Stockfish's forms: the passed squares when the pawn stands
    /// right beyond the last one (`e3` after e2e4, `e3e4` after a triple step e2e5), otherwise the
    /// passed square and the landing square (Berolina's diagonal step).
    pub(crate) fn en_passant_field(&self, ep: Option<EnPassant>) -> String {
        let Some(ep) = ep else { return "-".into() };
        let d = self.variant().dims;
        let passed: Vec<Square> = ep.squares.iter().copied().filter(|s| !s.is_none()).collect();
        let last = *passed.last().expect("an en-passant right passes a square");
        let beyond = d.square(d.file(last), d.rank(last) - self.side_to_move().forward());
        if beyond == Some(ep.victim) && passed.iter().all(|&s| d.file(s) == d.file(ep.victim)) {
            passed.iter().map(|&s| d.square_name(s)).collect()
        } else {
            format!("{}{}", d.square_name(ep.squares[0]), d.square_name(ep.victim))
        }
    }

    /// The castling field for `rights` on the board `piece_at` (which may differ from this
    /// position's board: see [`Position::edited`]).
    pub(crate) fn castling_field(&self, rights: CastlingRights, piece_at: impl Fn(Square) -> Option<Piece>) -> String {
        if rights == 0 {
            return "-".into();
        }
        let v = self.variant();
        let d = v.dims;
        let rooks = self.castle_rooks();
        if let Some(c) = v.rules.castling.as_ref().filter(|c| c.by_moves()) {
            return c.field(d, rights, &rooks, piece_at);
        }
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
}
