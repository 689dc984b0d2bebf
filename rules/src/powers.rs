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
    position::Position,
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
    },
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
    HopCapture { over: [Vec<Dir>; 2] },
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
            PowerSpec::HopCapture { over } => Power::HopCapture { over: dirs("over", over, true)? },
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
    /// the recipients by [`Position::relay_moves`]).
    pub(crate) fn own_power_moves(&self, from: Square, p: Piece, out: &mut MoveList) {
        let variant = std::sync::Arc::clone(self.variant());
        let c = p.color().index();
        for power in &variant.powers[p.kind().index()] {
            match power {
                Power::Relay { .. } => {}
                Power::Igui { targets } => {
                    for d in &targets[c] {
                        let limit = if d.max_steps == 0 { i32::MAX } else { d.max_steps as i32 };
                        let mut n = 1;
                        while n <= limit {
                            let Some(sq) = self.offset(from, d.dx as i32 * n, d.dy as i32 * n) else { break };
                            if let Some(q) = self.piece_at(sq) {
                                if q.color() != p.color() {
                                    out.push(Move::normal(from, from).with_kind(MoveKind::Stationary).with_capture(sq));
                                }
                                break;
                            }
                            n += 1;
                        }
                    }
                }
                Power::HopCapture { over } => {
                    for d in &over[c] {
                        let (dx, dy) = (d.dx as i32, d.dy as i32);
                        let (Some(mid), Some(land)) = (self.offset(from, dx, dy), self.offset(from, 2 * dx, 2 * dy))
                        else {
                            continue;
                        };
                        if self.piece_at(mid).is_some_and(|q| q.color() != p.color()) && self.piece_at(land).is_none() {
                            let start = out.len();
                            self.push_displacement(from, land, p, out);
                            for m in &mut out[start..] {
                                m.add_capture(mid);
                            }
                        }
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

    /// Moves that friendly relayers give to the pieces of `us`. A relayed move that the piece
    /// can also make by itself is that own move (generated already, with its promotions); the
    /// others are plain displacements that never promote (Scirocco §3.6).
    pub(crate) fn relay_moves(&self, us: Color, out: &mut MoveList) {
        let variant = std::sync::Arc::clone(self.variant());
        let dims = variant.dims;
        let own_moves_end = out.len();
        let c = us.index();
        for &relayer_type in &variant.relayers {
            let relayer = Piece::new(relayer_type, us);
            if self.piece_counts()[relayer.index()] == 0 {
                continue;
            }
            for v in self.occupied(us).iter().filter(|&s| self.piece_at(s) == Some(relayer)) {
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
                                    recipient = Some((sq, n));
                                }
                                break;
                            }
                        }
                        let Some((p_sq, _)) = recipient else { continue };
                        let (px, py) = (dims.file(p_sq) - dims.file(v), dims.rank(p_sq) - dims.rank(v));
                        for g in &grants[c] {
                            let (tx, ty) = (px + g.dx as i32, py + g.dy as i32);
                            let allowed = match landing {
                                RelayLanding::Any => true,
                                RelayLanding::AcrossOrAround => {
                                    (tx == -px && ty == -py) || (px * py == 0 && tx * ty == 0 && tx.abs() + ty.abs() == 1)
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
                            let is_same = |m: &Move| {
                                m.kind == MoveKind::Normal && m.from == p_sq && m.to == to && m.captures().is_empty()
                            };
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
