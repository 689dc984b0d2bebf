//! `relay` (and the driver for `teleport`): friendly pieces that a relayer reaches gain the
//! granted moves for this move. The relayer finds its recipients as the first piece along each
//! `reach` direction (Dervish, Relay Wazir, Relay Firzan: the eight neighbours; Scirocco's Harpy:
//! queen lines within 3; Zoom: the pieces it sees; Jupiter's Harpy: a Knight's leap away) and
//! lends leaps or rides, capturing or not (Zoom: `mQ`). `landing` keeps only the moves that land
//! straight across the relayer (Jupiter's Dervish), across or around it (Scirocco ruling R-S3),
//! next to it, or anywhere.
//!
//! Own power first (jupiter.md §5.2 rule 5, Scirocco §3.6, Typhoon §8.1): a relayed move with
//! the origin and destination of a move the recipient can make by itself is that own move,
//! generated with its promotions and automatic captures (Neartaker, Withdrawer, Undertaker, ...),
//! so no plain copy is generated. The others are plain displacements that never promote and
//! never carry the recipient's special captures. Relays do not chain (a relayer lends only its
//! own powers) and never serve the relayer itself. Immobilized relayers lend nothing;
//! immobilized recipients have no own moves, so all their relayed moves are genuine.

use crate::{
    movegen::{
        powers::{first_piece, offset, teleport},
        MoveSink,
    },
    moves::{Move, MoveKind},
    position::{Position, SquareSet},
    spec::power_spec::RelayLanding,
    types::{Color, Piece, Square},
    variant::powers::{Power, RelayGrant},
};

/// Appends the moves that the relayers of `us` (not in `frozen`) lend to their recipients;
/// `out` already holds the own moves of `us`, so that a relayed copy of one is left out.
pub(crate) fn moves<S: MoveSink>(pos: &Position, us: Color, frozen: &SquareSet, out: &mut S) {
    let variant = pos.variant();
    for &relayer_type in &variant.relayers {
        let relayer = Piece::new(relayer_type, us);
        if pos.piece_counts()[relayer.index()] == 0 {
            continue;
        }
        let lending = Lending { pos, frozen, own_moves_in_out: true, only_to: None };
        for sq in pos.occupied(us).iter().filter(|&s| pos.piece_at(s) == Some(relayer) && !frozen.contains(s)) {
            lending.lend_all(sq, out);
        }
    }
}

/// Appends the relayed moves that the piece on `recipient` receives from every relayer of its
/// side, for the doubled turn (jupiter.md §5.3 rule 2: the piece that acts). Own power first is
/// applied as in [`moves_from_relayer`], so `out` need not hold the recipient's own moves.
pub(crate) fn moves_received<S: MoveSink>(pos: &Position, recipient: Square, frozen: &SquareSet, out: &mut S) {
    let Some(p) = pos.piece_at(recipient) else { return };
    let us = p.color();
    let lending = Lending { pos, frozen, own_moves_in_out: false, only_to: Some(recipient) };
    for &relayer_type in &pos.variant().relayers {
        let relayer = Piece::new(relayer_type, us);
        if pos.piece_counts()[relayer.index()] == 0 {
            continue;
        }
        for sq in pos.occupied(us).iter().filter(|&s| pos.piece_at(s) == Some(relayer) && !frozen.contains(s)) {
            lending.lend_all(sq, out);
        }
    }
}

/// Appends the moves that the one piece on `relayer` lends (its relays and teleports), for the
/// doubled turn's attribution (jupiter.md §5.3 rule 2: a relayed move is attributable to the
/// relayer). `frozen`: the squares immobilized at the start of the turn (an immobilized relayer
/// lends nothing; an immobilized recipient has no own moves). A lent move that coincides with an
/// own move of the recipient is left out: it is that own move (§5.2 rule 5), attributable to the
/// recipient, and this function finds such moves by generating the recipient's own moves, so
/// `out` need not hold them. A move already in `out` (a plain `Normal` move with the same origin
/// and destination) is not pushed again.
pub(crate) fn moves_from_relayer<S: MoveSink>(pos: &Position, relayer: Square, frozen: &SquareSet, out: &mut S) {
    if !frozen.contains(relayer) {
        Lending { pos, frozen, own_moves_in_out: false, only_to: None }.lend_all(relayer, out);
    }
}

/// What every lent move of one generation shares.
pub(super) struct Lending<'a> {
    pos: &'a Position,
    /// Squares immobilized at the start of the turn.
    frozen: &'a SquareSet,
    /// The sink already holds every own move of the side (the driver's move list), so own
    /// power first needs no generation of the recipients' own moves.
    own_moves_in_out: bool,
    /// Lend to this recipient only.
    only_to: Option<Square>,
}

impl<'a> Lending<'a> {
    pub(super) fn pos(&self) -> &'a Position {
        self.pos
    }

    /// The friendly piece on `sq` as a recipient, unless another recipient is asked for.
    pub(super) fn recipient(&self, sq: Square) -> Option<Recipient<'a>> {
        if self.only_to.is_some_and(|only| only != sq) {
            return None;
        }
        Some(Recipient {
            pos: self.pos,
            from: sq,
            frozen: self.frozen,
            own_moves_in_out: self.own_moves_in_out,
            own_destinations: None,
            kept: None,
        })
    }

    /// The moves that the (not immobilized) piece on `relayer` lends: its relays and teleports.
    fn lend_all<S: MoveSink>(&self, relayer: Square, out: &mut S) {
        let pos = self.pos;
        let Some(r) = pos.piece_at(relayer) else { return };
        let c = r.color().index();
        for power in &pos.variant().powers[r.kind().index()] {
            match power {
                Power::Relay { reach, grants, landing } => {
                    for d in &reach[c] {
                        let Some(sq) = first_piece(pos, relayer, d) else { continue };
                        let friendly = pos.piece_at(sq).is_some_and(|q| q.color() == r.color());
                        if let Some(mut recipient) = self.recipient(sq).filter(|_| friendly) {
                            lend_grants(pos, relayer, &mut recipient, &grants[c], *landing, out);
                        }
                    }
                }
                Power::Teleport => teleport::lend(self, relayer, out),
                _ => {}
            }
        }
    }
}

/// The granted leaps and rides of `recipient` that `landing` allows around `relayer`.
fn lend_grants<S: MoveSink>(
    pos: &Position,
    relayer: Square,
    recipient: &mut Recipient,
    grants: &[RelayGrant],
    landing: RelayLanding,
    out: &mut S,
) {
    let dims = pos.variant().dims;
    let us = pos.piece_at(recipient.from).expect("a recipient stands on its square").color();
    let (px, py) = (dims.file(recipient.from) - dims.file(relayer), dims.rank(recipient.from) - dims.rank(relayer));
    for g in grants {
        let limit = if g.dir.max_steps == 0 { i32::MAX } else { g.dir.max_steps as i32 };
        let (dx, dy) = (g.dir.dx as i32, g.dir.dy as i32);
        for n in 1..=limit {
            let Some(to) = offset(pos, recipient.from, dx * n, dy * n) else { break };
            let occupant = pos.piece_at(to);
            let allowed = match occupant {
                None => g.moves,
                Some(q) => g.captures && q.color() != us,
            };
            if allowed {
                let (tx, ty) = (px + dx * n, py + dy * n);
                let lands = match landing {
                    RelayLanding::Any => true,
                    RelayLanding::Across => tx == -px && ty == -py,
                    RelayLanding::AcrossOrAround => {
                        (tx == -px && ty == -py) || (px * py == 0 && tx * ty == 0 && tx.abs() + ty.abs() == 1)
                    }
                    RelayLanding::NextToRelayer => tx.abs().max(ty.abs()) == 1,
                };
                if lands {
                    recipient.lend(to, out);
                }
            }
            if occupant.is_some() {
                break;
            }
        }
    }
}

/// A friendly piece that receives lent moves, and the destinations of its own moves (§5.2
/// rule 5), generated when first needed.
pub(super) struct Recipient<'a> {
    pos: &'a Position,
    pub(super) from: Square,
    frozen: &'a SquareSet,
    own_moves_in_out: bool,
    own_destinations: Option<SquareSet>,
    /// Destinations of the plain moves from `from` in the sink, read at the first lent move.
    kept: Option<SquareSet>,
}

impl Recipient<'_> {
    /// Pushes the lent move to `to` unless the recipient's own move to `to` already is it, or
    /// another relayer lent it already.
    pub(super) fn lend<S: MoveSink>(&mut self, to: Square, out: &mut S) {
        // The plain moves already kept from this square (own moves, moves lent by another
        // relayer), read once per recipient instead of once per lent move.
        let kept = *self.kept.get_or_insert_with(|| out.displacements_from(self.from));
        if kept.contains(to) {
            return;
        }
        if !self.own_moves_in_out && self.own_destinations().contains(to) {
            return;
        }
        out.push(Move::normal(self.from, to));
        self.kept.as_mut().expect("set above").insert(to);
    }

    fn own_destinations(&mut self) -> SquareSet {
        let (pos, from, frozen) = (self.pos, self.from, self.frozen);
        *self.own_destinations.get_or_insert_with(|| {
            let mut sink = Destinations { from, reached: SquareSet::EMPTY };
            if !frozen.contains(from) {
                let p = pos.piece_at(from).expect("a recipient stands on its square");
                pos.piece_moves(from, p, &mut sink);
                pos.own_power_moves(from, p, &mut sink);
            }
            sink.reached
        })
    }
}

/// A sink that keeps the destinations of one piece's displacements.
struct Destinations {
    from: Square,
    reached: SquareSet,
}

impl MoveSink for Destinations {
    fn push(&mut self, m: Move) {
        if m.kind == MoveKind::Normal && m.from == self.from {
            self.reached.insert(m.to);
        }
    }

    fn len(&self) -> usize {
        0
    }

    fn dedup_from(&mut self, _start: usize) {}

    fn has_displacement(&self, from: Square, to: Square) -> bool {
        from == self.from && self.reached.contains(to)
    }

    fn displacements_from(&self, from: Square) -> SquareSet {
        if from == self.from {
            self.reached
        } else {
            SquareSet::EMPTY
        }
    }

    fn is_done(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use crate::{moves::MoveList, position::Position, position::SquareSet, variant::Variant};

    /// E12b's position (jupiter.md §10.1) on a small board: the Relay Wazir on d4 next to the
    /// Neartaker on e4, whose own steps capture automatically.
    fn e12b() -> Position {
        let text = "name = \"t\"\nwidth = 8\nheight = 8\nstart = \"k7/8/8/8/8/8/8/7K w\"\n\
            [victory]\nroyal = \"capture\"\n\
            [[piece]]\nname = \"King\"\ntoken = \"K\"\nbetza = \"K\"\nroyal = true\n\
            [[piece]]\nname = \"Pawn\"\ntoken = \"P\"\nbetza = \"mfWcfF\"\n\
            [[piece]]\nname = \"Wazir\"\ntoken = \"W\"\nbetza = \"W\"\n\
            [[piece]]\nname = \"Relay Wazir\"\ntoken = \"RLW\"\nbetza = \"W\"\n\
            powers = [{ kind = \"relay\", reach = \"adjacent\", grants = \"W\", landing = \"any\" }]\n\
            [[piece]]\nname = \"Neartaker\"\ntoken = \"NRT\"\nbetza = \"\"\n\
            powers = [{ kind = \"approach\", dirs = \"K\", range = 1, effect = \"capture_one\" }]\n";
        let variant = Variant::from_toml("t.toml", text, None).unwrap_or_else(|e| panic!("{e}"));
        Position::from_fen(variant, "k7/8/4p3/8/3(RLW)(NRT)wp1/8/8/7K w").unwrap()
    }

    fn texts(pos: &Position, moves: &MoveList) -> Vec<String> {
        let mut out: Vec<String> = moves.iter().map(|m| pos.move_to_string(m)).collect();
        out.sort();
        out
    }

    #[test]
    fn one_relayer_lends_only_what_is_not_an_own_move_even_into_an_empty_list() {
        // The lent steps to e3 and e5 are the Neartaker's own steps (e5 with its approach
        // capture): only the capture on f4 is a relayed move (§5.2 rule 5).
        let pos = e12b();
        let d = pos.variant().dims;
        let mut out = MoveList::new();
        super::moves_from_relayer(&pos, d.parse_square("d4").unwrap(), &SquareSet::EMPTY, &mut out);
        assert_eq!(texts(&pos, &out), ["e4f4"]);
        // An immobilized relayer lends nothing; an immobilized recipient has no own moves.
        let mut frozen = SquareSet::EMPTY;
        frozen.insert(d.parse_square("d4").unwrap());
        out.clear();
        super::moves_from_relayer(&pos, d.parse_square("d4").unwrap(), &frozen, &mut out);
        assert!(out.is_empty());
        let mut frozen = SquareSet::EMPTY;
        frozen.insert(d.parse_square("e4").unwrap());
        super::moves_from_relayer(&pos, d.parse_square("d4").unwrap(), &frozen, &mut out);
        assert_eq!(texts(&pos, &out), ["e4e3", "e4e5", "e4f4"]);
    }

    #[test]
    fn one_recipient_receives_only_what_is_not_an_own_move() {
        let pos = e12b();
        let d = pos.variant().dims;
        let mut out = MoveList::new();
        super::moves_received(&pos, d.parse_square("e4").unwrap(), &SquareSet::EMPTY, &mut out);
        assert_eq!(texts(&pos, &out), ["e4f4"]);
        // The relayer itself receives nothing (the Neartaker lends nothing).
        out.clear();
        super::moves_received(&pos, d.parse_square("d4").unwrap(), &SquareSet::EMPTY, &mut out);
        assert!(out.is_empty());
    }
}
