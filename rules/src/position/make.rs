//! Make and unmake: every board edit of a move goes through [`Position::set_square`], which
//! records the square's previous occupant in the position's journal and keeps occupancy,
//! counts, royal squares and the hash in step (`put`, `take`); `unmake` replays the journal
//! backwards. One generic undo serves every kind of action, the multi-piece effects of
//! Jupiter (pushes, burning, poison, doubled turns) included, and needs no per-move storage
//! beyond the journal, which grows once and is reused (no allocation per node).

use crate::{
    moves::{Move, MoveKind},
    position::{capture_effects::Victims, turn::actor_square_after, Position, NO_SETUP},
    types::{CastlingRights, Color, EnPassant, Piece, PieceType, Square},
    variant::{tables::F_CAPTURE, text::MAX_ROYALS},
};

/// What `make` changed, so that `unmake` can restore it exactly.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Undo {
    pub(crate) mv: Move,
    /// Length of the journal before this move: its entries from here on are this move's edits.
    journal_start: u32,
    castling: CastlingRights,
    ep: Option<EnPassant>,
    halfmove: u32,
    hash: u64,
    /// Index in `history` of the last irreversible move before this one (repetition scans stop there).
    irreversible: u32,
    side: Color,
    setup_ply: u8,
    last_move_was_pass: bool,
    /// The move number and the moves left in the turn (multi-move turns, `multimove`): a move
    /// that does not end its turn leaves the move number as it was.
    fullmove: u32,
    turn_left: u16,
    /// Protean men and choices (`protean`).
    protean: crate::variant::protean::ProteanState,
    /// The neutral token's square (`Square::NONE` without one).
    token: Square,
}

/// What the actions of one turn did that outlives the board edits.
#[derive(Default)]
pub(crate) struct TurnFacts {
    /// A position before this turn can never recur (capture, promotion, pawn double step).
    pub(crate) irreversible: bool,
    pub(crate) new_ep: Option<EnPassant>,
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

    /// Replaces the occupant of `sq` (journaled: `unmake` restores it). Returns the old one.
    #[inline]
    pub(crate) fn set_square(&mut self, sq: Square, new: Option<Piece>) -> Option<Piece> {
        let old = self.board[sq.index()];
        if old == new {
            return old;
        }
        self.journal.push((sq, old));
        if old.is_some() {
            self.take(sq);
        }
        if let Some(p) = new {
            self.put(sq, p);
        }
        old
    }

    /// Plays a move that the caller knows to be legal (from [`Position::legal_moves`]).
    pub fn make(&mut self, mv: Move) {
        let undo = Undo {
            mv,
            journal_start: self.journal.len() as u32,
            castling: self.castling,
            ep: self.ep,
            halfmove: self.halfmove,
            hash: self.hash,
            irreversible: self.irreversible,
            side: self.side,
            setup_ply: self.setup_ply,
            last_move_was_pass: self.last_move_was_pass,
            fullmove: self.fullmove,
            turn_left: self.turn_left,
            protean: self.protean,
            token: self.token,
        };
        self.hashes.push(self.hash);
        if mv.kind == MoveKind::Setup {
            self.make_setup(mv);
            self.history.push(undo);
            return;
        }
        if mv.kind == MoveKind::Mark {
            self.make_protean_choice(mv);
            self.history.push(undo);
            return;
        }
        self.hash ^= self.state_hash();
        let us = self.side;
        let mut facts = TurnFacts::default();
        let turn_start = self.journal.len();
        let rules = &self.variant.turn;
        let (checks, reproducing) = (rules.has_checks(), !rules.reproducers.is_empty());
        if checks {
            self.snapshot_poison();
        }
        let lasting_before = if reproducing || checks { self.lasting_pieces() } else { 0 };
        // Protean men (`protean`): what the move does to them, read before the victim is gone.
        let protean = self.variant.rules.protean.is_some().then(|| self.protean_plan(&mv));
        if let Some(second) = mv.second_action() {
            let first = mv.first_action();
            // The doubled piece is exempt from the checks between its actions (§5.3 rule 3).
            // A turn attributed to a relaying Doubler leaves that piece where the checks
            // cannot hit it, so only the first action's actor needs the exemption, when it is
            // doubled itself (the generator, `movegen/doubled.rs`, uses the same rule).
            let exempt = if self.doubled_at_start(first.from) { actor_square_after(&first) } else { Square::NONE };
            self.apply_action(&first, &mut facts);
            if checks {
                self.end_of_action_checks(turn_start, exempt);
            }
            self.apply_action(&second, &mut facts);
        } else {
            self.apply_action(&mv, &mut facts);
        }
        // The neutral token copies the move (`neutral_token`); no variant with one has doubled
        // turns.
        if !self.token.is_none() {
            self.move_neutral_token(&mv, &mut facts);
        }
        if let Some(plan) = protean {
            self.apply_protean_plan(plan);
        }
        if checks {
            self.end_of_action_checks(turn_start, Square::NONE);
        }
        if reproducing {
            // Pieces can be born (Tribbles), so only the loss of a piece that cannot be born
            // again rules out an earlier position (§8): repetition scans must not stop sooner.
            facts.irreversible = self.lasting_pieces() < lasting_before;
        } else if checks {
            // Burning and poison remove pieces for good too.
            facts.irreversible |= self.lasting_pieces() < lasting_before;
        }
        // A drop empties no square, so it loses no castling right (it may grant one: `hand`).
        if self.castling != 0 && mv.kind != MoveKind::Drop {
            self.update_castling_rights(&mv.first_action());
            if let Some(second) = mv.second_action() {
                self.update_castling_rights(&second);
            }
        }
        self.ep = facts.new_ep;
        self.halfmove = if facts.irreversible { 0 } else { self.halfmove + 1 };
        if facts.irreversible || self.castling != undo.castling {
            self.irreversible = self.hashes.len() as u32;
        }
        // With multi-move turns the same side may move again (`multimove`).
        if !self.turn_goes_on(us) {
            if us == Color::Tan {
                self.fullmove += 1;
            }
            self.side = us.other();
            self.start_turn();
        }
        // A neutral token may forbid the only en-passant captures (`neutral_token`).
        if self.ep.is_some() && !self.token.is_none() {
            self.drop_unusable_en_passant();
        }
        self.ply += 1;
        // A pass is never part of a doubled turn, so the move's own kind says whether it was one.
        self.last_move_was_pass = mv.kind == MoveKind::Pass;
        self.hash ^= self.state_hash();
        self.history.push(undo);
    }

    /// The burn check, then the poison check (jupiter.md §5.6 steps 3-5; burning first is
    /// decided, §5.5 rule 5), sparing the piece on `exempt`.
    pub(crate) fn end_of_action_checks(&mut self, turn_start: usize, exempt: Square) {
        if self.variant.turn.any_burner {
            self.burn_check(exempt);
        }
        if self.variant.turn.any_poison {
            self.poison_check(turn_start, exempt);
        }
    }

    /// Pieces on the board of types that no power creates (all but Tribbles).
    fn lasting_pieces(&self) -> u32 {
        let born: u32 = self
            .variant
            .turn
            .reproducers
            .iter()
            .map(|&t| {
                (self.counts[Piece::new(t, Color::Blue).index()] + self.counts[Piece::new(t, Color::Tan).index()])
                    as u32
            })
            .sum();
        (self.totals[0] + self.totals[1]) as u32 - born
    }

    /// Applies one action of the side to move: every board edit it makes (relocation,
    /// captures, displacements, conversion, promotion), journaled.
    pub(crate) fn apply_action(&mut self, mv: &Move, facts: &mut TurnFacts) {
        let us = self.side;
        // Blasts and rebirths (`capture_effects`) need the victims as they stood.
        let victims = if self.has_capture_effects() { self.victims_of(mv) } else { Victims::NONE };
        match mv.kind {
            MoveKind::Normal | MoveKind::Stationary => {
                for &c in mv.captures() {
                    self.set_square(c, None);
                }
                facts.irreversible |= !mv.captures().is_empty() || mv.piece.is_some();
                if mv.kind == MoveKind::Normal {
                    let p = self.set_square(mv.from, None).expect("a move starts on a piece");
                    let def = &self.variant.pieces[p.kind().index()];
                    if def.en_passant {
                        facts.irreversible = true;
                        facts.new_ep = self.double_step_ep(p, mv.from, mv.to);
                    }
                    let victim = self.set_square(mv.to, Some(mv.piece.map_or(p, |t| p.with_kind(t))));
                    facts.irreversible |= victim.is_some();
                    if victim.is_some() || !mv.captures().is_empty() {
                        self.capture_penalty(mv.to);
                    }
                } else if let Some(t) = mv.piece {
                    // Igui in the promotion zone: the capturer promotes where it stands
                    // (chushin-shogi.md §8.1, §13.7). Journaled like any edit, so unmake
                    // restores the unpromoted piece.
                    let p = self.board[mv.from.index()].expect("a stationary capture is made by a piece");
                    self.set_square(mv.from, Some(p.with_kind(t)));
                }
            }
            MoveKind::Castle => {
                let king = self.set_square(mv.from, None).expect("castling starts on the king");
                let rook = self.set_square(mv.aux, None).expect("castling moves a rook");
                self.set_square(mv.to, Some(king));
                self.set_square(self.castle_rook_destination(*mv), Some(rook));
                // Neither a capture nor a pawn move: the halfmove clock runs on (FIDE 9.3, as
                // python-chess and Fairy-Stockfish count). No earlier position can recur
                // either, but the castling rights it spends already start a new repetition scan.
            }
            // A pass changes nothing on the board and never promotes (§8.5): `piece` is unused.
            MoveKind::Pass | MoveKind::Convert => {}
            MoveKind::Swap => {
                let mover = self.board[mv.from.index()].expect("a swap starts on a piece");
                let other = self.board[mv.to.index()].expect("a swap needs a partner");
                self.set_square(mv.to, Some(mv.piece.map_or(mover, |t| mover.with_kind(t))));
                self.set_square(mv.from, Some(other));
                facts.irreversible |= mv.piece.is_some();
            }
            MoveKind::SelfCapture => {
                self.set_square(mv.from, None);
                facts.irreversible = true;
            }
            MoveKind::Shove if self.variant.turn.any_kamikaze => {
                // A pushed Kamikaze that lands on an enemy has captured it (jupiter.md §3.4).
                let landing = self.shove_capture_square(mv);
                self.apply_displacement(mv, facts);
                if let Some(sq) = landing {
                    self.capture_penalty(sq);
                }
            }
            MoveKind::Push | MoveKind::Pull | MoveKind::Reproduce | MoveKind::Shove => {
                self.apply_displacement(mv, facts)
            }
            MoveKind::Drop => {
                self.apply_drop(mv);
                // The hand only shrinks, so no earlier position recurs; Fairy-Stockfish also
                // resets the halfmove clock on a drop.
                facts.irreversible = true;
            }
            MoveKind::Setup => unreachable!("a setup ply is made by `make_setup`, never as an action"),
            MoveKind::Mark => unreachable!("a protean choice is made by `make_protean_choice`, never as an action"),
        }
        if !victims.is_empty() {
            self.apply_capture_effects(mv, &victims);
        }
        if !mv.aux.is_none() && matches!(mv.kind, MoveKind::Normal | MoveKind::Convert) {
            self.convert_square(mv.aux, us);
        }
    }

    /// Where the last piece of a tank's push lands if it captures an enemy there: the square
    /// beyond the line of friendly pieces that starts on `to`.
    fn shove_capture_square(&self, mv: &Move) -> Option<Square> {
        let d = self.variant.dims;
        let (dx, dy) = ((d.file(mv.to) - d.file(mv.from)).signum(), (d.rank(mv.to) - d.rank(mv.from)).signum());
        let tank = self.board[mv.from.index()]?;
        let mut sq = mv.to;
        loop {
            let next = d.square(d.file(sq) + dx, d.rank(sq) + dy)?;
            match self.board[next.index()] {
                Some(q) if q.color() == tank.color() => sq = next,
                Some(_) => return Some(next),
                None => return None,
            }
        }
    }

    fn make_setup(&mut self, mv: Move) {
        self.hash ^= self.state_hash();
        for (sq, p) in self.setup_placements(&mv).into_iter().flatten() {
            self.set_square(sq, Some(p));
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
        self.rewind(undo.journal_start as usize);
        if undo.mv.kind == MoveKind::Drop {
            // The hash comes back whole below; only the count goes back into the hand.
            self.return_to_hand(&undo.mv, undo.side);
        }
        if undo.mv.kind != MoveKind::Setup {
            self.fullmove = undo.fullmove;
            self.turn_left = undo.turn_left;
            self.castling = undo.castling;
            self.ep = undo.ep;
            self.halfmove = undo.halfmove;
        }
        self.side = undo.side;
        self.setup_ply = undo.setup_ply;
        self.last_move_was_pass = undo.last_move_was_pass;
        self.protean = undo.protean;
        self.token = undo.token;
        self.irreversible = undo.irreversible;
        self.hash = undo.hash;
        self.ply -= 1;
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
        let mut squares = [Square::NONE; 3];
        for i in 1..n.min(4) {
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
        for bit in 0..8 {
            if self.castling & (1 << bit) == 0 {
                continue;
            }
            let king = self.castle_kings[crate::variant::castling::king_index(bit)];
            if touched(king) || touched(self.castle_rooks[bit]) {
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
