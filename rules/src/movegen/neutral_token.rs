//! The neutral token (`[neutral_token]`, issue 21 rows #43 Shadow, #44 Imitator and #45 Salt
//! Shaker Chess): one token that belongs to neither side and copies the displacement of every
//! move. Its square is state of the position (`Position::token`: the position string's `*`,
//! the Zobrist hash, make/unmake).
//!
//! This module holds the legality and check rules; the token's move itself is made by
//! `crate::position::neutral_token`, its Zobrist key is `crate::variant::neutral_token`'s.
//!
//! Rules, for every variant with a token (the rulings the list's rows leave open are marked):
//! - **It copies the mover's displacement**: a move `from → to` shifts the token by `to - from`;
//!   castling by the king's displacement (the rook's is not copied). A move whose copy would
//!   put the token off the board is illegal.
//! - **It is an obstacle** (ruling): no man may land on its square or pass it, and nothing
//!   captures it, in every variant with a token (the problemists' imitator rule). It never
//!   shares a square with a man.
//! - **Its copy is made on the board after the move** (ruling): the squares the mover left or
//!   captured on are empty then, the mover's landing square (and a castling rook's) is
//!   occupied. The mover and the token move at once, so neither blocks the other's start.
//! - **Its path** (`path = "clear"`, Shadow and Imitator): when the mover rides, the token
//!   rides the same number of steps of the same direction and every square it passes must be
//!   empty; a lame leap (a pawn's double step) passes its lame square, copied; a leap (a
//!   knight's) has no path, so the token leaps too. A move that could be made either way is a
//!   leap. Castling is the king's ride. `path = "jump"` (Salt Shaker): it jumps, whatever
//!   stands between.
//! - **Its landing** (`captures = false`, Shadow and Imitator): only on an empty square.
//!   Shadow's row says only that the coin "may not finish on one of the mover's own men" and
//!   "never captures": finishing on an enemy man would need two occupants on one square, which
//!   no rule of the row describes, so it is ruled blocked too (Shadow and Imitator differ in
//!   their start squares only). `captures = true` (Salt Shaker): it captures the man it lands
//!   on, of either side, the king included.
//! - **Check** (ruling): a royal is in check when the opponent has a move, legal but for its own
//!   royals' safety, that would capture it: a man's capture that the token can copy (a rook's
//!   attack whose copy would leave the board is no check, as in problem chess), or, with a
//!   capturing token, any move that would land the token on it. So a move is legal only if
//!   the token can copy it and, after both, no such capture exists and no own royal was taken
//!   by the token. The token is neutral and never gives check by itself. A Salt Shaker's threat
//!   to land on a king is a check (the king would be taken by the opponent's next move), so a
//!   king is never actually taken in play from a legal position; a position string in which
//!   the side to move can take the enemy king with the token is played, and taking it wins
//!   (`RoyalCaptured`). The squares a castling king passes are judged the same way, as if a
//!   man of its side stood there.
//! - **Combinations** the rules above do not cover (drops, setup phases, multi-move turns,
//!   capture effects, powers, hoppers, multi-leg moves, cylinders and grids, ...) are refused
//!   when the variant loads (`crate::variant::neutral_token`).

use crate::{
    movegen::Probe,
    moves::{Move, MoveKind, MoveList},
    position::Position,
    spec::neutral_token_spec::TokenPath,
    types::{Color, Piece, PieceType, Square},
};

/// How a mover travels from `from` to `to`.
#[derive(Clone, Copy)]
enum Route {
    /// A leap, passing its lame squares (`Square::NONE` when unused).
    Leap([Square; 3]),
    /// `n` steps of `step`.
    Ride { step: (i32, i32), n: i32 },
}

fn gcd(a: i32, b: i32) -> i32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl Position {
    /// How the man on `m.from` makes `m`: a leap of its tables if it has one to `m.to`,
    /// otherwise a ride (castling is the king's ride).
    fn route(&self, m: &Move) -> Route {
        let (dx, dy) = self.token_displacement(m);
        if m.kind == MoveKind::Normal {
            if let Some(p) = self.board[m.from.index()] {
                let v = &*self.variant;
                let (a, b) = v.tables.leap_index[v.table_slot(p.color(), p.kind(), m.from)];
                if let Some(l) = v.tables.leaps[a as usize..b as usize].iter().find(|l| l.to == m.to) {
                    return Route::Leap(l.via);
                }
            }
        }
        let n = gcd(dx.abs(), dy.abs());
        if n == 0 {
            return Route::Ride { step: (0, 0), n: 0 };
        }
        Route::Ride { step: (dx / n, dy / n), n }
    }

    /// The castling rook's landing square (beside the king, on the side the rook came from).
    fn castled_rook_square(&self, m: &Move) -> Square {
        let d = self.variant.dims;
        let step = if d.file(m.aux) > d.file(m.from) { -1 } else { 1 };
        d.square(d.file(m.to) + step, d.rank(m.to)).expect("the rook lands beside the king")
    }

    /// Whether the man (or men, castling) of `m` would land on or pass the token's square.
    fn mover_meets_token(&self, m: &Move) -> bool {
        let t = self.token;
        let d = self.variant.dims;
        if m.kind == MoveKind::Castle {
            // Every square between the king and the rook and their landing squares.
            let rook_to = self.castled_rook_square(m);
            let files = [m.from, m.to, m.aux, rook_to].map(|s| d.file(s));
            let (lo, hi) = (*files.iter().min().expect("four files"), *files.iter().max().expect("four files"));
            return d.rank(t) == d.rank(m.from) && (lo..=hi).contains(&d.file(t));
        }
        if m.to == t {
            return true;
        }
        match self.route(m) {
            Route::Leap(via) => via.contains(&t),
            Route::Ride { step, n } => {
                (1..n).any(|k| d.square(d.file(m.from) + k * step.0, d.rank(m.from) + k * step.1) == Some(t))
            }
        }
    }

    /// Whether a man stands on `s` once `m` is made (the token aside).
    fn occupied_after(&self, m: &Move, s: Square) -> bool {
        if s == m.to || (m.kind == MoveKind::Castle && s == self.castled_rook_square(m)) {
            return true;
        }
        if s == m.from || m.captures().contains(&s) || (m.kind == MoveKind::Castle && s == m.aux) {
            return false;
        }
        self.board[s.index()].is_some()
    }

    /// Where the token lands when it copies `m`, or `None` if it cannot (off the board, its
    /// path blocked, or a man on its landing square of a token that does not capture).
    pub(crate) fn token_landing(&self, m: &Move) -> Option<Square> {
        let rule = self.variant.rules.neutral_token.as_ref()?;
        let d = self.variant.dims;
        let t = self.token;
        let (tf, tr) = (d.file(t), d.rank(t));
        let (dx, dy) = self.token_displacement(m);
        let dest = d.square(tf + dx, tr + dy)?;
        if rule.path == TokenPath::Clear {
            let clear = match self.route(m) {
                // The lame squares copied: the same offsets from the token as from the mover.
                Route::Leap(via) => via.iter().filter(|v| !v.is_none()).all(|&v| {
                    let s = d.square(tf + d.file(v) - d.file(m.from), tr + d.rank(v) - d.rank(m.from));
                    s.is_some_and(|s| !self.occupied_after(m, s))
                }),
                Route::Ride { step, n } => (1..n).all(|k| {
                    let s = d.square(tf + k * step.0, tr + k * step.1).expect("inside the token's whole move");
                    !self.occupied_after(m, s)
                }),
            };
            if !clear {
                return None;
            }
        }
        if !rule.captures && self.occupied_after(m, dest) {
            return None;
        }
        Some(dest)
    }

    /// The square of the man a capturing token (Salt Shaker) takes when `m` is made here, if
    /// it lands on one: a capture by the move besides the mover's own.
    pub fn neutral_token_capture(&self, m: &Move) -> Option<Square> {
        if !self.variant.rules.neutral_token.as_ref().is_some_and(|t| t.captures) {
            return None;
        }
        self.token_landing(m).filter(|&dest| self.occupied_after(m, dest))
    }

    /// Whether the token lets `m` be made: the mover does not meet it and it can copy `m`.
    pub(crate) fn token_allows(&self, m: &Move) -> bool {
        matches!(m.kind, MoveKind::Normal | MoveKind::Castle)
            && !self.mover_meets_token(m)
            && self.token_landing(m).is_some()
    }

    /// Drops the pseudo-legal moves the token forbids.
    pub(super) fn retain_token_moves(&self, out: &mut MoveList) {
        out.retain(|m| self.token_allows(m));
    }

    /// Whether `by` has a pseudo-legal move that the token lets be made and that captures on a
    /// square `target` accepts: with its man, or by landing a capturing token there.
    fn token_aware_capture(&self, by: Color, target: impl Fn(Square) -> bool) -> bool {
        let token_captures = self.variant.rules.neutral_token.as_ref().is_some_and(|t| t.captures);
        let mut probe = Probe::new(|m: &Move| {
            let by_man = (m.kind == MoveKind::Normal
                && target(m.to)
                && self.board[m.to.index()].is_some_and(|p| p.color() != by))
                || m.captures().iter().any(|&s| target(s));
            let landing = if by_man || token_captures { self.token_landing(m) } else { None };
            let Some(landing) = landing else { return false };
            let by_token = token_captures && target(landing) && self.occupied_after(m, landing);
            (by_man || by_token) && !self.mover_meets_token(m)
        });
        self.pseudo_legal_moves_of(by, &mut probe);
        probe.found()
    }

    /// [`Position::in_check`] with a neutral token (see the module doc): a royal of `color` could
    /// be captured by the opponent's next move, or one was taken (by the token).
    pub(crate) fn token_in_check(&self, color: Color) -> bool {
        let c = color.index();
        let royals = &self.royals[c][..self.n_royals[c] as usize];
        if royals.is_empty() {
            return !self.royal_less_root;
        }
        self.token_aware_capture(color.other(), |s| royals.contains(&s))
    }

    /// [`Position::is_attacked`] with a neutral token: whether `by` could capture a man of the
    /// other side standing on `sq` (one is put there on a copy if `sq` holds none).
    pub(crate) fn token_aware_attacked(&self, sq: Square, by: Color) -> bool {
        if sq == self.token {
            return false;
        }
        if self.board[sq.index()].is_some_and(|p| p.color() != by) {
            return self.token_aware_capture(by, |s| s == sq);
        }
        let v = &*self.variant;
        let kind = (0..v.piece_count()).find(|&t| !v.royal[t]).map_or(PieceType(0), |t| PieceType(t as u8));
        let mut copy = self.clone();
        copy.set_square(sq, Some(Piece::new(kind, by.other())));
        copy.token_aware_capture(by, |s| s == sq)
    }
}
