//! Attack tests: whether a side could capture on a square. The chess family reads the
//! variant's reverse attack tables; other Betza-only variants walk the move tables backwards;
//! variants with powers ask the generator through a probe.

use crate::{
    movegen::Probe,
    moves::{Move, MoveKind},
    position::Position,
    spec::betza::Jump,
    types::{Color, Piece, PieceType, Square},
    variant::{
        tables::{F_CAPTURE, F_INITIAL},
        RoyalChoice,
    },
};

impl Position {
    /// Whether a piece of colour `by` attacks (could capture on) `sq`, given the board as it is.
    pub fn is_attacked(&self, sq: Square, by: Color) -> bool {
        let v = &*self.variant;
        if v.rules.neutral_token.is_some() {
            // The token blocks lines and must copy the capture (`neutral_token`).
            return self.token_aware_attacked(sq, by);
        }
        if let Some(tables) = &v.attack_tables {
            return tables.is_attacked(&self.board, sq, by);
        }
        if v.has_powers || v.regional {
            // Powers (relays, igui, bent riders) and moves that depend on the square (regions)
            // have no reverse tables: ask the generator,
            // through a probe that stops at the first move that takes on `sq`.
            let mut probe =
                Probe::new(|m: &Move| (m.to == sq && m.kind == MoveKind::Normal) || m.captures().contains(&sq));
            self.pseudo_legal_moves_of(by, &mut probe);
            return probe.found();
        }
        self.betza_attacks(&self.board, sq, by)
    }

    /// Whether a piece of colour `by` on `board` could capture on `sq` by its Betza moves alone
    /// (move tables walked backwards; no powers, no regions, pins ignored). Whatever stands on
    /// `sq` is not looked at, so this is also a guard test: would `by` recapture there.
    pub(crate) fn betza_attacks(&self, board: &[Option<Piece>], sq: Square, by: Color) -> bool {
        let v = &*self.variant;
        let tables = &v.tables;
        let nt = v.piece_count();
        for t in 0..nt {
            let kind = PieceType(t as u8);
            let attacker = Piece::new(kind, by);
            if self.counts[attacker.index()] == 0 || !v.pieces[t].captures {
                continue;
            }
            // Reverse lookup: the other colour's table from `sq` holds the negated vectors.
            let slot = v.table_slot(by.other(), kind, sq);
            let (a, b) = tables.leap_index[slot];
            for l in &tables.leaps[a as usize..b as usize] {
                if l.flags & F_CAPTURE == 0 || board[l.to.index()] != Some(attacker) {
                    continue;
                }
                if l.flags & F_INITIAL != 0 && !self.in_initial_region(l.to, by) {
                    continue;
                }
                // A lame leaper's path is seen from its own square: mirror it into place
                // (through the wrapped files on a cylinder: attacker + target - via).
                let blocked = l.via.iter().any(|&via| {
                    !via.is_none() && {
                        let mirrored = if v.wraps_files() {
                            let (c, t, a) = (v.coords[via.index()], v.coords[sq.index()], v.coords[l.to.index()]);
                            let (dx, dy) = ((t.0 - c.0) as i32, (t.1 - c.1) as i32);
                            v.geometry
                                .offset(a.0 as i32, a.1 as i32, dx, dy)
                                .expect("the path lies on the board")
                                .index()
                        } else {
                            (l.to.index() + sq.index()) - via.index()
                        };
                        board[mirrored].is_some()
                    }
                });
                if !blocked {
                    return true;
                }
            }
            let (a, b) = tables.ray_index[slot];
            for r in &tables.rays[a as usize..b as usize] {
                if r.flags & F_CAPTURE == 0 {
                    continue;
                }
                let squares = &tables.ray_squares[r.start as usize..r.start as usize + r.len as usize];
                // With a grid, an attacker among the first `lead` squares stands in the target's
                // cell and attacks nothing there.
                let lead = r.lead as usize;
                let mut occupied = squares.iter().enumerate().filter(|(_, s)| board[s.index()].is_some());
                let is_attacker = |(i, s): (usize, &Square)| i >= lead && board[s.index()] == Some(attacker);
                match r.jump {
                    Jump::Free | Jump::Lame => {
                        if occupied.next().is_some_and(is_attacker) {
                            return true;
                        }
                    }
                    Jump::Hop => {
                        if occupied.next().is_some() && occupied.next().is_some_and(is_attacker) {
                            return true;
                        }
                    }
                    Jump::Grasshopper => {
                        if squares.len() >= 2
                            && board[squares[0].index()].is_some()
                            && occupied.nth(1).is_some_and(is_attacker)
                        {
                            return true;
                        }
                    }
                }
            }
        }
        false
    }

    /// Whether any royal piece of `color` is attacked, counting the flying general's file attack
    /// where the variant has it.
    pub fn in_check(&self, color: Color) -> bool {
        if self.variant.rules.neutral_token.is_some() {
            return self.token_in_check(color);
        }
        let c = color.index();
        let mut royals = &self.royals[c][..self.n_royals[c] as usize];
        if self.variant.rules.royal_choice == RoyalChoice::FirstByFile {
            // ICS wild 9: only the royal met first file by file, each from rank 1 up, counts.
            let coords = &self.variant.coords;
            if let Some(i) = (0..royals.len()).min_by_key(|&i| coords[royals[i].index()]) {
                royals = &royals[i..=i];
            }
        }
        // Atomic chess: a royal next to the enemy royal cannot be captured (`movegen::explosion`).
        royals.iter().any(|&sq| self.is_attacked(sq, color.other()) && !self.shielded_by_enemy_royal(sq, color))
            || (self.variant.rules.flying_general && royals.iter().any(|&sq| self.faces_enemy_royal(sq, color)))
    }

    /// Whether the royal of `color` on `sq` sees an enemy royal along its file with nothing
    /// between (Xiangqi's flying general). This attack exists for check only: it never makes a
    /// move, so it is not part of [`Position::is_attacked`].
    pub(crate) fn faces_enemy_royal(&self, sq: Square, color: Color) -> bool {
        let v = &*self.variant;
        let (f, r) = v.coords[sq.index()];
        [1, -1].into_iter().any(|dy| {
            let mut rank = r as i32 + dy;
            while let Some(s) = v.dims.square(f as i32, rank) {
                if let Some(p) = self.board[s.index()] {
                    return p.color() != color && v.royal[p.kind().index()];
                }
                rank += dy;
            }
            false
        })
    }
}
