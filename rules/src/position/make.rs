//! Make and unmake: every board edit goes through `put` and `take`, which keep occupancy,
//! counts, royal squares and the hash in step; `unmake` restores exactly what `make` changed.

use crate::{
    moves::{Move, MoveKind, MAX_EXTRA_CAPTURES},
    position::{Position, NO_SETUP},
    types::{CastlingRights, Color, EnPassant, Piece, PieceType, Square},
    variant::{tables::F_CAPTURE, text::MAX_ROYALS},
};

/// What `make` changed, so that `unmake` can restore it exactly.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Undo {
    pub(crate) mv: Move,
    moved: Option<Piece>,
    removed: [(Square, Option<Piece>); MAX_EXTRA_CAPTURES + 1],
    n_removed: u8,
    castling: CastlingRights,
    ep: Option<EnPassant>,
    halfmove: u32,
    hash: u64,
    /// Index in `history` of the last irreversible move before this one (repetition scans stop there).
    irreversible: u32,
    side: Color,
    setup_ply: u8,
}

impl Position {
    #[inline]
    pub(crate) fn put(&mut self, sq: Square, p: Piece) {
        debug_assert!(self.board[sq.index()].is_none());
        self.board[sq.index()] = Some(p);
        let c = p.color().index();
        self.occupied[c].insert(sq);
        self.counts[p.index()] += 1;
        self.totals[c] += 1;
        self.hash ^= self.zkey(p, sq);
        if self.variant.royal[p.kind().index()] {
            let n = self.n_royals[c] as usize;
            assert!(n < MAX_ROYALS, "more than {MAX_ROYALS} royal pieces of one colour");
            self.royals[c][n] = sq;
            self.n_royals[c] += 1;
        }
    }

    #[inline]
    pub(crate) fn take(&mut self, sq: Square) -> Piece {
        let p = self.board[sq.index()].take().expect("take() from an empty square");
        let c = p.color().index();
        self.occupied[c].remove(sq);
        self.counts[p.index()] -= 1;
        self.totals[c] -= 1;
        self.hash ^= self.zkey(p, sq);
        if self.variant.royal[p.kind().index()] {
            let n = self.n_royals[c] as usize;
            let i = self.royals[c][..n].iter().position(|&s| s == sq).expect("royal square is tracked");
            self.royals[c][i] = self.royals[c][n - 1];
            self.n_royals[c] -= 1;
        }
        p
    }

    /// Plays a move that the caller knows to be legal (from [`Position::legal_moves`]).
    pub fn make(&mut self, mv: Move) {
        let mut undo = Undo {
            mv,
            moved: None,
            removed: [(Square::NONE, None); MAX_EXTRA_CAPTURES + 1],
            n_removed: 0,
            castling: self.castling,
            ep: self.ep,
            halfmove: self.halfmove,
            hash: self.hash,
            irreversible: self.irreversible,
            side: self.side,
            setup_ply: self.setup_ply,
        };
        self.hashes.push(self.hash);
        if mv.kind == MoveKind::Setup {
            self.make_setup(mv, &mut undo);
            self.history.push(undo);
            return;
        }
        self.hash ^= self.state_hash();
        let us = self.side;
        let mut irreversible = false;
        let mut new_ep = None;
        match mv.kind {
            MoveKind::Normal | MoveKind::Stationary => {
                for &c in mv.captures() {
                    let victim = self.take(c);
                    undo.removed[undo.n_removed as usize] = (c, Some(victim));
                    undo.n_removed += 1;
                }
                if mv.kind == MoveKind::Normal {
                    let p = self.take(mv.from);
                    undo.moved = Some(p);
                    if self.board[mv.to.index()].is_some() {
                        let victim = self.take(mv.to);
                        undo.removed[undo.n_removed as usize] = (mv.to, Some(victim));
                        undo.n_removed += 1;
                    }
                    let def = &self.variant.pieces[p.kind().index()];
                    if def.en_passant {
                        irreversible = true;
                        new_ep = self.double_step_ep(p, mv.from, mv.to);
                    }
                    self.put(mv.to, mv.piece.map_or(p, |t| p.with_kind(t)));
                }
                irreversible |= undo.n_removed > 0 || mv.piece.is_some();
            }
            MoveKind::Castle => {
                let king = self.take(mv.from);
                let rook = self.take(mv.aux);
                undo.moved = Some(king);
                self.put(mv.to, king);
                self.put(self.castle_rook_destination(mv), rook);
                irreversible = true;
            }
            MoveKind::Pass => {}
            MoveKind::Convert => {}
            MoveKind::Swap => {
                let mover = self.take(mv.from);
                let other = self.take(mv.to);
                undo.moved = Some(mover);
                undo.removed[0] = (mv.to, Some(other));
                self.put(mv.to, mv.piece.map_or(mover, |t| mover.with_kind(t)));
                self.put(mv.from, other);
                irreversible = mv.piece.is_some();
            }
            MoveKind::SelfCapture => {
                let p = self.take(mv.from);
                undo.removed[0] = (mv.from, Some(p));
                undo.n_removed = 1;
                irreversible = true;
            }
            MoveKind::Drop | MoveKind::Setup | MoveKind::Push | MoveKind::Pull | MoveKind::Reproduce => {
                unreachable!("move kind {:?} is never generated by this engine version", mv.kind)
            }
        }
        if !mv.aux.is_none() && matches!(mv.kind, MoveKind::Normal | MoveKind::Convert) {
            let victim = self.take(mv.aux);
            self.put(mv.aux, Piece::new(victim.kind(), us));
        }
        if self.castling != 0 {
            self.update_castling_rights(&mv);
        }
        self.ep = new_ep;
        self.halfmove = if irreversible { 0 } else { self.halfmove + 1 };
        if irreversible || self.castling != undo.castling {
            self.irreversible = self.hashes.len() as u32;
        }
        if us == Color::Tan {
            self.fullmove += 1;
        }
        self.side = us.other();
        self.ply += 1;
        self.hash ^= self.state_hash();
        self.history.push(undo);
    }

    fn make_setup(&mut self, mv: Move, undo: &mut Undo) {
        self.hash ^= self.state_hash();
        for (sq, p) in self.setup_placements(&mv).into_iter().flatten() {
            self.put(sq, p);
            undo.removed[undo.n_removed as usize] = (sq, None);
            undo.n_removed += 1;
        }
        let phase = self.variant.setup.as_ref().expect("setup moves exist only with a setup phase");
        let next = self.setup_ply as usize + 1;
        if next < phase.plies.len() {
            self.setup_ply = next as u8;
            self.side = phase.plies[next].actor;
        } else {
            // The array is complete: Blue moves first, and this position is occurrence #1.
            self.setup_ply = NO_SETUP;
            self.side = Color::Blue;
            self.irreversible = self.hashes.len() as u32;
        }
        self.ply += 1;
        self.hash ^= self.state_hash();
    }

    /// Takes back the last move made with [`Position::make`].
    pub fn unmake(&mut self) {
        let undo = self.history.pop().expect("unmake() without a move to take back");
        let mv = undo.mv;
        if mv.kind == MoveKind::Setup {
            for &(sq, _) in &undo.removed[..undo.n_removed as usize] {
                self.take(sq);
            }
            self.side = undo.side;
            self.setup_ply = undo.setup_ply;
            self.irreversible = undo.irreversible;
            self.hash = undo.hash;
            self.ply -= 1;
            self.hashes.pop();
            return;
        }
        self.side = self.side.other();
        if self.side == Color::Tan {
            self.fullmove -= 1;
        }
        self.ply -= 1;
        if !mv.aux.is_none() && matches!(mv.kind, MoveKind::Normal | MoveKind::Convert) {
            let converted = self.take(mv.aux);
            self.put(mv.aux, Piece::new(converted.kind(), self.side.other()));
        }
        match mv.kind {
            MoveKind::Normal | MoveKind::Stationary => {
                if mv.kind == MoveKind::Normal {
                    self.take(mv.to);
                    self.put(mv.from, undo.moved.expect("a displacement records its piece"));
                }
                for &(sq, p) in undo.removed[..undo.n_removed as usize].iter().rev() {
                    self.put(sq, p.expect("removed squares record their piece"));
                }
            }
            MoveKind::Castle => {
                let rook_to = self.castle_rook_destination(mv);
                let rook = self.take(rook_to);
                let king = self.take(mv.to);
                self.put(mv.aux, rook);
                self.put(mv.from, king);
            }
            MoveKind::Pass | MoveKind::Convert => {}
            MoveKind::Swap => {
                self.take(mv.to);
                let other = self.take(mv.from);
                self.put(mv.from, undo.moved.expect("a swap records its mover"));
                self.put(mv.to, other);
            }
            MoveKind::SelfCapture => {
                self.put(mv.from, undo.removed[0].1.expect("a self-capture records its piece"));
            }
            _ => unreachable!("move kind {:?} is never generated by this engine version", mv.kind),
        }
        self.castling = undo.castling;
        self.ep = undo.ep;
        self.halfmove = undo.halfmove;
        self.irreversible = undo.irreversible;
        self.hash = undo.hash;
        self.hashes.pop();
    }

    /// If `p` just made an initial multi-square step that an enemy could capture en passant,
    /// the squares it passed over.
    fn double_step_ep(&self, p: Piece, from: Square, to: Square) -> Option<EnPassant> {
        let d = self.variant.dims;
        let (dx, dy) = (d.file(to) - d.file(from), d.rank(to) - d.rank(from));
        let n = dx.abs().max(dy.abs());
        let straight = dx == 0 || dy == 0 || dx.abs() == dy.abs();
        if n < 2 || !straight {
            return None;
        }
        let mut squares = [Square::NONE; 2];
        for i in 1..n.min(3) {
            squares[i as usize - 1] = d.square(d.file(from) + dx / n * i, d.rank(from) + dy / n * i)?;
        }
        let ep = EnPassant { squares, victim: to };
        // Record it only if an enemy en-passant capturer could take it, so that the key of a
        // position does not depend on an unusable right (as in FIDE repetition rules).
        let them = p.color().other();
        let capturable = squares.iter().filter(|s| !s.is_none()).any(|&s| {
            self.reverse_leaps(s, them).any(|(from, flags)| {
                flags & F_CAPTURE != 0
                    && self.board[from.index()]
                        .is_some_and(|q| q.color() == them && self.variant.pieces[q.kind().index()].en_passant)
            })
        });
        capturable.then_some(ep)
    }

    /// Squares from which a piece of colour `by` could leap to `sq`, with the leap's flags, for
    /// every piece type: iterates the mirrored table. Used for en-passant and attack tests.
    fn reverse_leaps(&self, sq: Square, by: Color) -> impl Iterator<Item = (Square, u8)> + '_ {
        let v = &self.variant;
        (0..v.piece_count()).flat_map(move |t| {
            let kind = PieceType(t as u8);
            let (a, b) = v.tables.leap_index[v.table_slot(by.other(), kind, sq)];
            v.tables.leaps[a as usize..b as usize].iter().filter_map(move |l| {
                let from = l.to;
                let here = self.board[from.index()];
                (here == Some(Piece::new(kind, by))).then_some((from, l.flags))
            })
        })
    }

    fn castle_rook_destination(&self, mv: Move) -> Square {
        let d = self.variant.dims;
        let kingside = d.file(mv.aux) > d.file(mv.from);
        let step = if kingside { -1 } else { 1 };
        d.square(d.file(mv.to) + step, d.rank(mv.to)).expect("the rook lands beside the king")
    }

    fn update_castling_rights(&mut self, mv: &Move) {
        let touched = |sq: Square| sq == mv.from || sq == mv.to || mv.captures().contains(&sq);
        for bit in 0..4 {
            if self.castling & (1 << bit) == 0 {
                continue;
            }
            let color = bit / 2;
            if touched(self.castle_kings[color]) || touched(self.castle_rooks[bit]) {
                self.castling &= !(1 << bit);
            }
        }
    }

    pub(crate) fn clear_en_passant(&mut self) {
        self.hash ^= self.state_hash();
        self.ep = None;
        self.hash ^= self.state_hash();
    }

    /// The squares and pieces a setup move places: its pair, then the opponent's copy of it
    /// when the ply copies (a fixed array, so that setup moves do not allocate).
    fn setup_placements(&self, m: &Move) -> [Option<(Square, Piece)>; 4] {
        let v = &*self.variant;
        let phase = v.setup.as_ref().expect("setup moves exist only in a setup phase");
        let ply = self.current_setup_ply().expect("a setup move is made during the setup phase");
        let left = m.piece;
        let right = if ply.pieces[0] == left { ply.pieces[1] } else { ply.pieces[0] };
        let mut placed = [None; 4];
        for (slot, (sq, t)) in placed.iter_mut().zip([(ply.squares[0], left), (ply.squares[1], right)]) {
            *slot = t.map(|t| (sq, Piece::new(t, ply.owner)));
        }
        if ply.copy {
            let dims = v.dims;
            let royal = |c: Color| {
                self.occupied(c).iter().find(|&s| self.piece_at(s) == Some(Piece::new(phase.symmetry_royal, c)))
            };
            let mirror = match (royal(Color::Blue), royal(Color::Tan)) {
                (Some(a), Some(b)) => dims.file(a) == dims.file(b),
                _ => true,
            };
            let image = |sq: Square| {
                let reflected = Square((dims.squares() - 1 - sq.index()) as u16);
                if mirror {
                    dims.mirror(reflected)
                } else {
                    reflected
                }
            };
            for i in 0..2 {
                placed[2 + i] = placed[i].map(|(sq, p)| (image(sq), Piece::new(p.kind(), p.color().other())));
            }
        }
        placed
    }
}
