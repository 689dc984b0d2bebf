//! Named special powers: what Betza cannot say, as reusable, parameterised modules.
//!
//! A piece lists its powers in its variant file; each power is one of the kinds below, with
//! its own parameters, so Scirocco, Typhoon and Jupiter compose the same modules instead of
//! copying code. Unknown kinds and unknown parameters are refused when the variant loads.
//!
//! | kind          | does                                                                 | used by                      |
//! |---------------|----------------------------------------------------------------------|------------------------------|
//! | `relay`       | friendly pieces the relayer reaches gain the granted moves           | Dervish, Harpy               |
//! | `igui`        | capture a reachable enemy without moving                             | Genie (Parrot family, EE)    |
//! | `hop_capture` | jump over an adjacent enemy to the empty square behind, capturing it | Zig, Zag (Overtaker, Parrot) |
//! | `bent_rider`  | one step to an empty square, then ride outward from the origin       | Octopus, Spider, Wagon       |

use serde::{Deserialize, Serialize};

use crate::{
    geometry::{self, Atom},
    moves::{Move, MoveKind, MoveList},
    position::{Position, SquareSet},
    types::{Color, Piece, Square},
};

/// How a relayer finds the pieces it empowers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RelayReach {
    /// The eight neighbours (Dervish).
    Adjacent,
    /// The first piece on each of the eight queen lines within `range` squares (Harpy).
    OpenLines,
}

/// Which granted moves a recipient may make.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RelayLanding {
    /// Every granted move (Harpy).
    Any,
    /// Leaps straight across the relayer, and steps from an orthogonal neighbour to the
    /// squares orthogonally next to the relayer (Scirocco ruling R-S3: the Dervish).
    AcrossOrAround,
    /// Every granted move that ends next to the relayer (the Scirocco page's general sentence,
    /// which R-S3 overrules; kept as a switch so designers can compare).
    NextToRelayer,
}

/// A power as written in a variant file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum PowerSpec {
    Relay {
        reach: RelayReach,
        /// Squares for `open_lines` (ignored by `adjacent`, which must leave it out).
        #[serde(default)]
        range: Option<u8>,
        /// Betza leapers granted to each recipient, from the recipient's square.
        grants: String,
        landing: RelayLanding,
    },
    Igui {
        /// Betza geometry of the squares whose enemy can be taken without moving.
        targets: String,
    },
    HopCapture {
        /// Betza one-step atoms (`W`, `F`, `K`, directional forms) naming the directions.
        over: String,
        /// The landing square may also hold an enemy, which is captured too (Parrot family).
        #[serde(default)]
        double: bool,
    },
    /// The owner may pass its turn while this piece can act (Typhoon: one pass per position).
    Pass,
    /// Slides of 2..=`range` squares that must jump at least one piece (Cicada).
    HopRider { dirs: String, range: u8 },
    /// Slides up to `range` squares through enemies, capturing every one passed (Typhoon).
    Sweep { dirs: String, range: u8 },
    /// Non-capturing slides of `min..=max` squares ending next to a friendly piece (Salamander).
    SupportedSlide { dirs: String, min: u8, max: u8 },
    /// Converts an enemy on a target square to the mover's side without moving (Cuckoo).
    Convert { targets: String },
    /// Exchanges places with any piece on a target square (Hummingbird).
    Swap { targets: String },
    /// Checkers-style jumps over single enemies along one line, capturing them (Longleaper).
    LongLeap { dirs: String },
    /// Non-capturing slides of up to `range`; the enemy right beyond the landing square is
    /// converted (`convert`) or captured with the enemies behind it (`capture_line`).
    Approach { dirs: String, range: u8, effect: ApproachEffect },
    /// Steps to an empty neighbour, capturing the enemy on the opposite side (Undertaker).
    Withdraw { dirs: String },
    /// Enemy pieces on the reached squares can make no move of their own (Immobilizer).
    Immobilize { reach: String },
    BentRider {
        /// Betza one-step atoms of the first step (to an empty square).
        first: String,
        /// Whether the piece may stop after the first step.
        stop_first: bool,
        /// Betza rider continuing from the bend, in the directions pointing away from the
        /// origin (positive dot product with the first step).
        then: String,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApproachEffect {
    Convert,
    CaptureLine,
}

/// A direction with its range, for one colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Dir {
    pub dx: i8,
    pub dy: i8,
    /// 1 for a leap, 0 for unlimited.
    pub max_steps: u8,
}

/// A concluded power: directions resolved for each colour (index by `Color::index()`).
#[derive(Clone, Debug)]
pub(crate) enum Power {
    Relay { reach: RelayReach, range: u8, grants: [Vec<Dir>; 2], landing: RelayLanding },
    Igui { targets: [Vec<Dir>; 2] },
    HopCapture { over: [Vec<Dir>; 2], double: bool },
    Pass,
    HopRider { dirs: [Vec<Dir>; 2], range: u8 },
    Sweep { dirs: [Vec<Dir>; 2], range: u8 },
    SupportedSlide { dirs: [Vec<Dir>; 2], min: u8, max: u8 },
    Convert { targets: [Vec<Dir>; 2] },
    Swap { targets: [Vec<Dir>; 2] },
    LongLeap { dirs: [Vec<Dir>; 2] },
    Approach { dirs: [Vec<Dir>; 2], range: u8, effect: ApproachEffect },
    Withdraw { dirs: [Vec<Dir>; 2] },
    Immobilize { reach: [Vec<Dir>; 2] },
    BentRider { first: [Vec<Dir>; 2], stop_first: bool, then: [Vec<Dir>; 2] },
}

fn dirs(field: &str, text: &str, one_step: bool) -> Result<[Vec<Dir>; 2], String> {
    let g = geometry::parse(text).map_err(|e| format!("field `{field}`: {e}"))?;
    if g.multi_leg().next().is_some() {
        return Err(format!("field `{field}`: multi-leg geometry is not allowed here"));
    }
    let atoms: Vec<&Atom> = g.atoms().collect();
    if let Some(a) = atoms.iter().find(|a| a.jump != geometry::Jump::Free || a.initial_only) {
        return Err(format!("field `{field}`: {text:?} must use plain leaps or riders (found {a:?})"));
    }
    if one_step && atoms.iter().any(|a| a.dx.abs() > 1 || a.dy.abs() > 1 || a.max_steps != 1) {
        return Err(format!("field `{field}`: {text:?} must be one-step atoms such as W, F or K"));
    }
    let blue: Vec<Dir> = atoms.iter().map(|a| Dir { dx: a.dx, dy: a.dy, max_steps: a.max_steps }).collect();
    let tan = blue.iter().map(|d| Dir { dx: -d.dx, dy: -d.dy, ..*d }).collect();
    Ok([blue, tan])
}

impl PowerSpec {
    pub(crate) fn conclude(&self) -> Result<Power, String> {
        Ok(match self {
            PowerSpec::Relay { reach, range, grants, landing } => {
                let range = match (reach, range) {
                    (RelayReach::Adjacent, None) => 1,
                    (RelayReach::Adjacent, Some(_)) => {
                        return Err("field `range`: a relay with `reach = \"adjacent\"` takes no range".into())
                    }
                    (RelayReach::OpenLines, Some(r)) if *r >= 1 => *r,
                    (RelayReach::OpenLines, _) => {
                        return Err("field `range`: `reach = \"open_lines\"` needs a range of at least 1".into())
                    }
                };
                let grants = dirs("grants", grants, false)?;
                if grants[0].iter().any(|d| d.max_steps != 1) {
                    return Err("field `grants`: only leapers can be relayed".into());
                }
                Power::Relay { reach: *reach, range, grants, landing: *landing }
            }
            PowerSpec::Igui { targets } => Power::Igui { targets: dirs("targets", targets, false)? },
            PowerSpec::HopCapture { over, double } => {
                Power::HopCapture { over: dirs("over", over, true)?, double: *double }
            }
            PowerSpec::Pass => Power::Pass,
            PowerSpec::HopRider { dirs: d, range } => Power::HopRider { dirs: dirs("dirs", d, true)?, range: *range },
            PowerSpec::Sweep { dirs: d, range } => Power::Sweep { dirs: dirs("dirs", d, true)?, range: *range },
            PowerSpec::SupportedSlide { dirs: d, min, max } => {
                if min > max || *min == 0 {
                    return Err(format!("fields `min`/`max`: need 1 <= min <= max, got {min}..{max}"));
                }
                Power::SupportedSlide { dirs: dirs("dirs", d, true)?, min: *min, max: *max }
            }
            PowerSpec::Convert { targets } => Power::Convert { targets: dirs("targets", targets, false)? },
            PowerSpec::Swap { targets } => Power::Swap { targets: dirs("targets", targets, false)? },
            PowerSpec::LongLeap { dirs: d } => Power::LongLeap { dirs: dirs("dirs", d, true)? },
            PowerSpec::Approach { dirs: d, range, effect } => {
                Power::Approach { dirs: dirs("dirs", d, true)?, range: *range, effect: *effect }
            }
            PowerSpec::Withdraw { dirs: d } => Power::Withdraw { dirs: dirs("dirs", d, true)? },
            PowerSpec::Immobilize { reach } => Power::Immobilize { reach: dirs("reach", reach, true)? },
            PowerSpec::BentRider { first, stop_first, then } => {
                let first = dirs("first", first, true)?;
                let then = dirs("then", then, false)?;
                if then[0].iter().any(|d| d.dx.abs() > 1 || d.dy.abs() > 1) {
                    return Err("field `then`: the continuation must be a W/F-based rider".into());
                }
                Power::BentRider { first, stop_first: *stop_first, then }
            }
        })
    }
}

impl Position {
    #[inline]
    fn offset(&self, sq: Square, dx: i32, dy: i32) -> Option<Square> {
        let d = self.variant().dims;
        d.square(d.file(sq) + dx, d.rank(sq) + dy)
    }

    /// Moves that a piece's own powers give it (everything but relays, which are generated for
    /// the recipients by [`Position::relay_moves`], and the pass, which is one per position).
    pub(crate) fn own_power_moves(&self, from: Square, p: Piece, out: &mut MoveList) {
        let variant = std::sync::Arc::clone(self.variant());
        let c = p.color().index();
        let us = p.color();
        let enemy_at = |sq: Square| self.piece_at(sq).is_some_and(|q| q.color() != us);
        for power in &variant.powers[p.kind().index()] {
            match power {
                Power::Relay { .. } | Power::Pass | Power::Immobilize { .. } => {}
                Power::Igui { targets } => {
                    for d in &targets[c] {
                        if let Some(sq) = self.first_piece(from, d) {
                            if enemy_at(sq) {
                                out.push(Move::normal(from, from).with_kind(MoveKind::Stationary).with_capture(sq));
                            }
                        }
                    }
                }
                Power::Convert { targets } => {
                    for d in &targets[c] {
                        if let Some(sq) = self.first_piece(from, d) {
                            if enemy_at(sq) {
                                out.push(Move::normal(from, from).with_kind(MoveKind::Convert).with_aux(sq));
                            }
                        }
                    }
                }
                Power::Swap { targets } => {
                    for d in &targets[c] {
                        if let Some(sq) = self.first_piece(from, d) {
                            let swap = Move::normal(from, sq).with_kind(MoveKind::Swap);
                            self.push_with_promotions(swap, p, out);
                        }
                    }
                }
                Power::HopCapture { over, double } => {
                    for d in &over[c] {
                        let (dx, dy) = (d.dx as i32, d.dy as i32);
                        let (Some(mid), Some(land)) = (self.offset(from, dx, dy), self.offset(from, 2 * dx, 2 * dy))
                        else {
                            continue;
                        };
                        let landing_ok = self.piece_at(land).is_none() || (*double && enemy_at(land));
                        if enemy_at(mid) && landing_ok {
                            self.push_with_promotions(Move::normal(from, land).with_capture(mid), p, out);
                        }
                    }
                }
                Power::HopRider { dirs, range } => {
                    for d in &dirs[c] {
                        let mut hurdles = 0;
                        for k in 1..=*range as i32 {
                            let Some(sq) = self.offset(from, d.dx as i32 * k, d.dy as i32 * k) else { break };
                            if k >= 2 && hurdles > 0 && (self.piece_at(sq).is_none() || enemy_at(sq)) {
                                self.push_with_promotions(Move::normal(from, sq), p, out);
                            }
                            hurdles += self.piece_at(sq).is_some() as u32;
                        }
                    }
                }
                Power::Sweep { dirs, range } => {
                    for d in &dirs[c] {
                        let mut m = Move::normal(from, from);
                        for k in 1..=*range as i32 {
                            let Some(sq) = self.offset(from, d.dx as i32 * k, d.dy as i32 * k) else { break };
                            match self.piece_at(sq) {
                                Some(q) if q.color() == us => break,
                                occupant => {
                                    m.to = sq;
                                    self.push_with_promotions(m, p, out);
                                    if occupant.is_some() {
                                        m.add_capture(sq);
                                    }
                                }
                            }
                        }
                    }
                }
                Power::SupportedSlide { dirs, min, max } => {
                    for d in &dirs[c] {
                        for k in 1..=*max as i32 {
                            let Some(sq) = self.offset(from, d.dx as i32 * k, d.dy as i32 * k) else { break };
                            if self.piece_at(sq).is_some() {
                                break;
                            }
                            if k >= *min as i32 && self.has_friendly_neighbour(sq, us, from) {
                                self.push_with_promotions(Move::normal(from, sq), p, out);
                            }
                        }
                    }
                }
                Power::LongLeap { dirs } => {
                    for d in &dirs[c] {
                        let (dx, dy) = (d.dx as i32, d.dy as i32);
                        let mut m = Move::normal(from, from);
                        let mut cur = from;
                        while let Some(next) = self.offset(cur, dx, dy) {
                            match self.piece_at(next) {
                                None => {
                                    if !m.captures().is_empty() {
                                        m.to = next;
                                        self.push_with_promotions(m, p, out);
                                    }
                                    cur = next;
                                }
                                Some(q) if q.color() != us => {
                                    let Some(beyond) = self.offset(next, dx, dy) else { break };
                                    if self.piece_at(beyond).is_some() {
                                        break;
                                    }
                                    m.add_capture(next);
                                    m.to = beyond;
                                    self.push_with_promotions(m, p, out);
                                    cur = beyond;
                                }
                                Some(_) => break,
                            }
                        }
                    }
                }
                Power::Approach { dirs, range, effect } => {
                    for d in &dirs[c] {
                        let (dx, dy) = (d.dx as i32, d.dy as i32);
                        for k in 1..=*range as i32 {
                            let Some(sq) = self.offset(from, dx * k, dy * k) else { break };
                            if self.piece_at(sq).is_some() {
                                break;
                            }
                            let mut m = Move::normal(from, sq);
                            let mut next = self.offset(sq, dx, dy);
                            match effect {
                                ApproachEffect::Convert => {
                                    if let Some(t) = next.filter(|&t| enemy_at(t)) {
                                        m = m.with_aux(t);
                                    }
                                }
                                ApproachEffect::CaptureLine => {
                                    while let Some(t) = next.filter(|&t| enemy_at(t)) {
                                        m.add_capture(t);
                                        next = self.offset(t, dx, dy);
                                    }
                                }
                            }
                            self.push_with_promotions(m, p, out);
                        }
                    }
                }
                Power::Withdraw { dirs } => {
                    for d in &dirs[c] {
                        let (dx, dy) = (d.dx as i32, d.dy as i32);
                        let Some(to) = self.offset(from, dx, dy) else { continue };
                        if self.piece_at(to).is_some() {
                            continue;
                        }
                        let mut m = Move::normal(from, to);
                        if let Some(behind) = self.offset(from, -dx, -dy).filter(|&b| enemy_at(b)) {
                            m.add_capture(behind);
                        }
                        self.push_with_promotions(m, p, out);
                    }
                }
                Power::BentRider { first, stop_first, then } => {
                    for d in &first[c] {
                        let Some(bend) = self.offset(from, d.dx as i32, d.dy as i32) else { continue };
                        if self.piece_at(bend).is_some() {
                            continue;
                        }
                        if *stop_first {
                            self.push_displacement(from, bend, p, out);
                        }
                        for e in then[c].iter().filter(|e| e.dx * d.dx + e.dy * d.dy > 0) {
                            let limit = if e.max_steps == 0 { i32::MAX } else { e.max_steps as i32 };
                            let mut n = 1;
                            while n <= limit {
                                let Some(sq) = self.offset(bend, e.dx as i32 * n, e.dy as i32 * n) else { break };
                                match self.piece_at(sq) {
                                    None => self.push_displacement(from, sq, p, out),
                                    Some(q) => {
                                        if q.color() != p.color() {
                                            self.push_displacement(from, sq, p, out);
                                        }
                                        break;
                                    }
                                }
                                n += 1;
                            }
                        }
                    }
                }
            }
        }
    }

    /// The first piece met along `d` within its range (a leap looks at one square only).
    fn first_piece(&self, from: Square, d: &Dir) -> Option<Square> {
        let limit = if d.max_steps == 0 { i32::MAX } else { d.max_steps as i32 };
        let mut n = 1;
        while n <= limit {
            let sq = self.offset(from, d.dx as i32 * n, d.dy as i32 * n)?;
            if self.piece_at(sq).is_some() {
                return Some(sq);
            }
            n += 1;
        }
        None
    }

    fn has_friendly_neighbour(&self, sq: Square, us: Color, except: Square) -> bool {
        KING_DIRS.iter().any(|&(dx, dy)| {
            self.offset(sq, dx, dy).is_some_and(|n| n != except && self.piece_at(n).is_some_and(|q| q.color() == us))
        })
    }

    /// The pieces of `us` standing next to an enemy immobilizer (empty if the variant has none).
    pub(crate) fn immobilized(&self, us: Color) -> SquareSet {
        let variant = self.variant();
        let mut frozen = SquareSet::EMPTY;
        for &t in &variant.immobilizers {
            let them = us.other();
            let immobilizer = Piece::new(t, them);
            if self.piece_counts()[immobilizer.index()] == 0 {
                continue;
            }
            for sq in self.occupied(them).iter().filter(|&s| self.piece_at(s) == Some(immobilizer)) {
                for power in &variant.powers[t.index()] {
                    let Power::Immobilize { reach } = power else { continue };
                    for d in &reach[them.index()] {
                        if let Some(n) = self.offset(sq, d.dx as i32, d.dy as i32) {
                            if self.piece_at(n).is_some_and(|q| q.color() == us) {
                                frozen.insert(n);
                            }
                        }
                    }
                }
            }
        }
        frozen
    }

    /// Moves that friendly relayers give to the pieces of `us`. A relayed move that the piece
    /// can also make by itself (same origin and destination) is that own move, generated
    /// already with its promotions and automatic effects; the others are plain displacements
    /// that never promote (Scirocco §3.6, Typhoon §3.8). Immobilized relayers give nothing;
    /// immobilized recipients have no own moves, so all their relayed moves are plain.
    pub(crate) fn relay_moves(&self, us: Color, frozen: &SquareSet, out: &mut MoveList) {
        let variant = std::sync::Arc::clone(self.variant());
        let dims = variant.dims;
        let own_moves_end = out.len();
        let c = us.index();
        for &relayer_type in &variant.relayers {
            let relayer = Piece::new(relayer_type, us);
            if self.piece_counts()[relayer.index()] == 0 {
                continue;
            }
            for v in self.occupied(us).iter().filter(|&s| self.piece_at(s) == Some(relayer) && !frozen.contains(s)) {
                for power in &variant.powers[relayer_type.index()] {
                    let Power::Relay { reach, range, grants, landing } = power else { continue };
                    for (ux, uy) in KING_DIRS {
                        // The recipient: the neighbour, or the first piece on the open line.
                        let mut recipient = None;
                        let steps = if *reach == RelayReach::Adjacent { 1 } else { *range as i32 };
                        for n in 1..=steps {
                            let Some(sq) = self.offset(v, ux * n, uy * n) else { break };
                            if let Some(q) = self.piece_at(sq) {
                                if q.color() == us {
                                    recipient = Some(sq);
                                }
                                break;
                            }
                        }
                        let Some(p_sq) = recipient else { continue };
                        let (px, py) = (dims.file(p_sq) - dims.file(v), dims.rank(p_sq) - dims.rank(v));
                        for g in &grants[c] {
                            let (tx, ty) = (px + g.dx as i32, py + g.dy as i32);
                            let allowed = match landing {
                                RelayLanding::Any => true,
                                RelayLanding::AcrossOrAround => {
                                    (tx == -px && ty == -py)
                                        || (px * py == 0 && tx * ty == 0 && tx.abs() + ty.abs() == 1)
                                }
                                RelayLanding::NextToRelayer => tx.abs().max(ty.abs()) == 1,
                            };
                            if !allowed {
                                continue;
                            }
                            let Some(to) = self.offset(v, tx, ty) else { continue };
                            if self.piece_at(to).is_some_and(|q| q.color() == us) {
                                continue;
                            }
                            let is_same = |m: &Move| m.kind == MoveKind::Normal && m.from == p_sq && m.to == to;
                            if out[..own_moves_end].iter().any(is_same) || out[own_moves_end..].iter().any(is_same) {
                                continue;
                            }
                            out.push(Move::normal(p_sq, to));
                        }
                    }
                }
            }
        }
    }
}

const KING_DIRS: [(i32, i32); 8] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)];
