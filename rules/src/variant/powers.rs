//! Powers, compiled: each [`PowerSpec`] checked and its Betza directions resolved for both
//! colours, into the [`Power`] values the move generator (`crate::movegen::powers`) reads.

use crate::spec::{
    betza::{self, Atom},
    power_spec::{ApproachEffect, PowerSpec, RelayLanding, RelayReach},
};

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
    /// `reach`: the lines or leaps along which the first piece met is a recipient.
    Relay {
        reach: [Vec<Dir>; 2],
        grants: [Vec<RelayGrant>; 2],
        landing: RelayLanding,
    },
    Teleport,
    Igui {
        targets: [Vec<Dir>; 2],
    },
    HopCapture {
        over: [Vec<Dir>; 2],
        double: bool,
    },
    Pass,
    HopRider {
        dirs: [Vec<Dir>; 2],
        range: u8,
    },
    Sweep {
        dirs: [Vec<Dir>; 2],
        range: u8,
    },
    SupportedSlide {
        dirs: [Vec<Dir>; 2],
        min: u8,
        max: u8,
    },
    Convert {
        targets: [Vec<Dir>; 2],
    },
    Swap {
        targets: [Vec<Dir>; 2],
    },
    LongLeap {
        dirs: [Vec<Dir>; 2],
    },
    /// `dirs` carry each direction's range.
    Approach {
        dirs: [Vec<Dir>; 2],
        effect: ApproachEffect,
        optional: bool,
    },
    Withdraw {
        dirs: [Vec<Dir>; 2],
    },
    Immobilize {
        reach: [Vec<Dir>; 2],
    },
    BentRider {
        first: [Vec<Dir>; 2],
        stop_first: bool,
        then: [Vec<Dir>; 2],
    },
    Path {
        legs: Vec<PathLeg>,
    },
    Zigzag {
        dirs: [Vec<Dir>; 2],
    },
    CaptureContinue {
        first: [Vec<Dir>; 2],
        then: [Vec<Dir>; 2],
        turn: Option<Turns>,
        may_return: bool,
    },
    GeneralJump {
        dirs: [Vec<Dir>; 2],
        stoppers: Stoppers,
    },
    HopChain,
    Custodian {
        dirs: [Vec<Dir>; 2],
    },
    Coordinate {
        dirs: [Vec<Dir>; 2],
    },
    PurgePromoted {
        dirs: [Vec<Dir>; 2],
    },
    RoyalLeap,
    RoamUnguarded,
    TankPush {
        dirs: [Vec<Dir>; 2],
        max_pushed: u8,
    },
    Pull {
        reach: [Vec<Dir>; 2],
        min: u8,
        max: u8,
    },
    PushAway {
        reach: [Vec<Dir>; 2],
        max: u8,
    },
    Reproduce {
        targets: [Vec<Dir>; 2],
    },
    /// Latent (jupiter.md §5.3): the first piece along each `sight` line may act twice.
    Double {
        sight: [Vec<Dir>; 2],
    },
    /// Latent (jupiter.md §5.4): the first piece along each `sight` line is poisonous.
    PoisonSight {
        sight: [Vec<Dir>; 2],
    },
}

/// One leg of a `path` power (see [`crate::spec::power_spec::PathLegSpec`]).
#[derive(Clone, Debug)]
pub(crate) struct PathLeg {
    pub dirs: [Vec<Dir>; 2],
    pub stop: bool,
    pub turn: Option<Turns>,
    pub next_from_end: bool,
    /// Minimum length (1 = none): nearer squares are passed only.
    pub min: u8,
}

/// A set of turns relative to a previous direction: straight on, 45°, 90°, 135°, back (each
/// to both sides, so a set is its own mirror image).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Turns(u8);

impl Turns {
    const NAMES: [&'static str; 5] = ["f", "fs", "s", "bs", "b"];

    fn parse(field: &str, text: &str) -> Result<Turns, String> {
        let mut bits = 0;
        for token in text.split([',', ' ']).filter(|t| !t.is_empty()) {
            let Some(i) = Turns::NAMES.iter().position(|n| *n == token) else {
                return Err(format!("field `{field}`: unknown turn {token:?} (expected f, fs, s, bs or b)"));
            };
            bits |= 1 << i;
        }
        if bits == 0 {
            return Err(format!("field `{field}`: no turn given"));
        }
        Ok(Turns(bits))
    }

    /// Whether going on in `next` after `previous` is one of these turns.
    pub(crate) fn allows(self, previous: &Dir, next: &Dir) -> bool {
        let dot = previous.dx as i32 * next.dx as i32 + previous.dy as i32 * next.dy as i32;
        let cross = previous.dx as i32 * next.dy as i32 - previous.dy as i32 * next.dx as i32;
        let turn = match (dot.signum(), cross == 0) {
            (1, true) => 0,
            (1, false) => 1,
            (0, _) => 2,
            (_, false) => 3,
            (_, true) => 4,
        };
        self.0 & (1 << turn) != 0
    }
}

/// The pieces a General can neither jump nor jump-capture.
#[derive(Clone, Debug)]
pub(crate) struct Stoppers {
    /// Every royal type stops.
    pub royal: bool,
    /// Upper-case tokens of the other stopping types, as written.
    pub tokens: Vec<String>,
    /// The same types, resolved when the variant is built (an unknown token is a load error).
    pub kinds: Vec<crate::types::PieceType>,
}

impl Stoppers {
    pub(crate) fn contains(&self, v: &super::Variant, kind: crate::types::PieceType) -> bool {
        (self.royal && v.pieces[kind.index()].royal) || self.kinds.contains(&kind)
    }
}

/// A move a relayer lends: a direction with its range, and whether it may move and capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RelayGrant {
    pub dir: Dir,
    pub moves: bool,
    pub captures: bool,
}

/// The granted moves of a relay: plain leaps and riders, with their modality.
fn relay_grants(text: &str) -> Result<[Vec<RelayGrant>; 2], String> {
    let resolved = dirs("grants", text, false)?;
    let g = betza::parse(text).map_err(|e| format!("field `grants`: {e}"))?;
    let with_modality = |d: &[Dir]| -> Vec<RelayGrant> {
        g.atoms()
            .zip(d)
            .map(|(a, &dir)| RelayGrant { dir, moves: a.modality.moves, captures: a.modality.captures })
            .collect()
    };
    Ok([with_modality(&resolved[0]), with_modality(&resolved[1])])
}

fn dirs(field: &str, text: &str, one_step: bool) -> Result<[Vec<Dir>; 2], String> {
    let g = betza::parse(text).map_err(|e| format!("field `{field}`: {e}"))?;
    if g.multi_leg().next().is_some() {
        return Err(format!("field `{field}`: multi-leg geometry is not allowed here"));
    }
    let atoms: Vec<&Atom> = g.atoms().collect();
    if let Some(a) = atoms.iter().find(|a| a.jump != betza::Jump::Free || a.initial_only) {
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
                let reach = match (reach, range) {
                    (RelayReach::Adjacent, None) => dirs("reach", "K", true)?,
                    (RelayReach::OpenLines, None) => dirs("reach", "Q", false)?,
                    (RelayReach::OpenLines, Some(r)) if *r >= 1 => dirs("reach", &format!("Q{r}"), false)?,
                    (RelayReach::OpenLines, Some(_)) => return Err(
                        "field `range`: `reach = \"open_lines\"` needs a range of at least 1, or none for unlimited"
                            .into(),
                    ),
                    (RelayReach::Leap(leaps), None) => {
                        let d = dirs("reach", leaps, false)?;
                        if d[0].iter().any(|d| d.max_steps != 1) {
                            return Err(format!("field `reach`: `leap = {leaps:?}` must name leapers only"));
                        }
                        d
                    }
                    (_, Some(_)) => return Err("field `range`: only `reach = \"open_lines\"` takes a range".into()),
                };
                Power::Relay { reach, grants: relay_grants(grants)?, landing: *landing }
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
            PowerSpec::Approach { dirs: d, range, effect, optional } => {
                let dirs = match range {
                    Some(0) => return Err("field `range`: must be at least 1".into()),
                    Some(r) => {
                        dirs("dirs", d, true)?.map(|ds| ds.into_iter().map(|d| Dir { max_steps: *r, ..d }).collect())
                    }
                    None => lines("dirs", d)?,
                };
                Power::Approach { dirs, effect: *effect, optional: *optional }
            }
            PowerSpec::Withdraw { dirs: d } => Power::Withdraw { dirs: lines("dirs", d)? },
            PowerSpec::Immobilize { reach } => Power::Immobilize { reach: dirs("reach", reach, true)? },
            PowerSpec::BentRider { first, stop_first, then } => {
                let first = dirs("first", first, true)?;
                let then = dirs("then", then, false)?;
                if then[0].iter().any(|d| d.dx.abs() > 1 || d.dy.abs() > 1) {
                    return Err("field `then`: the continuation must be a W/F-based rider".into());
                }
                Power::BentRider { first, stop_first: *stop_first, then }
            }
            PowerSpec::Teleport => Power::Teleport,
            PowerSpec::Path { legs } => {
                if legs.is_empty() {
                    return Err("field `legs`: a path needs at least one leg".into());
                }
                let mut compiled = Vec::new();
                for (i, leg) in legs.iter().enumerate() {
                    let field = format!("legs[{i}]");
                    let turn = leg.turn.as_deref().map(|t| Turns::parse(&format!("{field}.turn"), t)).transpose()?;
                    if i == 0 && turn.is_some() {
                        return Err(format!("field `{field}.turn`: the first leg has no previous leg to turn from"));
                    }
                    let dirs = dirs(&format!("{field}.dirs"), &leg.dirs, false)?;
                    if dirs[0].iter().any(|d| d.dx.abs() > 1 || d.dy.abs() > 1) {
                        return Err(format!("field `{field}.dirs`: a leg walks W/F-based rides (W, F, K, R, B, Q)"));
                    }
                    if leg.next_from_end && (i + 1 == legs.len() || dirs[0].iter().any(|d| d.max_steps == 0)) {
                        return Err(format!("field `{field}.next_from_end`: needs a next leg and a limited range"));
                    }
                    if leg.min == 0 {
                        return Err(format!("field `{field}.min`: a leg is at least 1 square long"));
                    }
                    if leg.min > 1 && dirs[0].iter().any(|d| d.max_steps != 0 && d.max_steps < leg.min) {
                        return Err(format!(
                            "field `{field}.min`: {} exceeds the range of a direction in `dirs` (a minimum needs a ride at least that long)",
                            leg.min
                        ));
                    }
                    let (stop, next_from_end, min) = (leg.stop, leg.next_from_end, leg.min);
                    compiled.push(PathLeg { dirs, stop, turn, next_from_end, min });
                }
                Power::Path { legs: compiled }
            }
            PowerSpec::Zigzag { dirs: d } => Power::Zigzag { dirs: dirs("dirs", d, true)? },
            PowerSpec::CaptureContinue { first, then, turn, may_return } => {
                let first = dirs("first", first, false)?;
                let then = dirs("then", then, false)?;
                if first[0].iter().chain(&then[0]).any(|d| d.max_steps != 1) {
                    return Err("fields `first`/`then`: must be leaps (one step of each atom)".into());
                }
                let turn = turn.as_deref().map(|t| Turns::parse("turn", t)).transpose()?;
                Power::CaptureContinue { first, then, turn, may_return: *may_return }
            }
            PowerSpec::GeneralJump { dirs: d, stoppers } => {
                let royal = stoppers.iter().any(|t| t == "royal");
                let tokens = stoppers.iter().filter(|t| *t != "royal").map(|t| t.to_ascii_uppercase()).collect();
                Power::GeneralJump {
                    dirs: dirs("dirs", d, false)?,
                    stoppers: Stoppers { royal, tokens, kinds: Vec::new() },
                }
            }
            PowerSpec::HopChain => Power::HopChain,
            PowerSpec::Custodian { dirs: d } => Power::Custodian { dirs: lines("dirs", d)? },
            PowerSpec::Coordinate { dirs: d } => Power::Coordinate { dirs: lines("dirs", d)? },
            PowerSpec::PurgePromoted { dirs: d } => Power::PurgePromoted { dirs: lines("dirs", d)? },
            PowerSpec::RoyalLeap => Power::RoyalLeap,
            PowerSpec::RoamUnguarded => Power::RoamUnguarded,
            PowerSpec::TankPush { dirs: d, max_pushed } => {
                if *max_pushed == 0 {
                    return Err("field `max_pushed`: must be at least 1".into());
                }
                Power::TankPush { dirs: dirs("dirs", d, true)?, max_pushed: *max_pushed }
            }
            PowerSpec::Pull { reach, min, max } => {
                if *min < 2 || min > max {
                    return Err(format!("fields `min`/`max`: need 2 <= min <= max, got {min}..{max}"));
                }
                Power::Pull { reach: lines("reach", reach)?, min: *min, max: *max }
            }
            PowerSpec::PushAway { reach, max } => {
                if *max == 0 {
                    return Err("field `max`: must be at least 1".into());
                }
                Power::PushAway { reach: lines("reach", reach)?, max: *max }
            }
            PowerSpec::Reproduce { targets } => Power::Reproduce { targets: dirs("targets", targets, false)? },
            PowerSpec::Double { sight } => Power::Double { sight: lines("sight", sight)? },
            PowerSpec::PoisonSight { sight } => Power::PoisonSight { sight: lines("sight", sight)? },
        })
    }
}

/// W/F-based steps or riders along distinct lines (each direction once), for powers that walk
/// a line square by square and act on the squares straight on from or behind the mover.
fn lines(field: &str, text: &str) -> Result<[Vec<Dir>; 2], String> {
    let resolved = dirs(field, text, false)?;
    let blue = &resolved[0];
    if blue.iter().any(|d| d.dx.abs() > 1 || d.dy.abs() > 1) {
        return Err(format!("field `{field}`: {text:?} must be W/F-based steps or riders (W, F, K, R, B, Q, B2...)"));
    }
    if blue.iter().enumerate().any(|(i, d)| blue[..i].iter().any(|e| (e.dx, e.dy) == (d.dx, d.dy))) {
        return Err(format!("field `{field}`: {text:?} names a direction twice"));
    }
    Ok(resolved)
}
