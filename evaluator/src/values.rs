//! Piece values for the baselines: the variant's nominal values, an estimate from mobility, or
//! all equal.
//!
//! # The mobility estimate
//!
//! For a piece type `t` (placed as Blue; the tables are colour-symmetric) and an origin square
//! `s`:
//!
//! - `quiet(s)`: the distinct destination squares of its pseudo-legal moves on an otherwise
//!   empty board;
//! - `capture(s)`: the squares `x` such that, with a lone enemy piece (of the same type) on `x`,
//!   some pseudo-legal move removes it.
//!
//! `m(t)` is the mean of `(quiet(s) + capture(s)) / 2` over the origin squares (every square
//! on boards up to 100 squares, otherwise an evenly spread sample of 64). The value is
//!
//! ```text
//! value(t) = max(0.1, (m(t) / 1.4) ^ 0.8)     (in pawns)
//! ```
//!
//! The reference 1.4 is about a chess pawn's `m` on 8x8 and the exponent damps long-range
//! riders, whose mobility overstates their worth (chess on 8x8 gives pawn 0.92, knight 2.88,
//! bishop 4.33, rook 6.31, queen 9.30: the order is right, the rook and the bishop run high).
//! Royal pieces get 0 material value in every source (losing them ends the game instead). In a
//! variant won by losing every piece (losing chess) every value is negated.
//! Hoppers that need a screen to capture get no capture mobility from a lone enemy, so they
//! are undervalued; the estimate is a baseline's heuristic, not a measurement.

use std::{
    collections::HashMap,
    fmt,
    str::FromStr,
    sync::{Arc, Mutex, OnceLock},
};

use fairyzero_rules::{Color, MoveKind, MoveList, Piece, PieceType, Position, Square, Variant};
use serde::{Deserialize, Serialize};

/// Where piece values come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueSource {
    /// The variant's `value` where given, the mobility estimate for the other types.
    #[default]
    Nominal,
    /// The mobility estimate for every type, ignoring the variant's values (for tools that
    /// measure piece values and must not be told them).
    Mobility,
    /// Every non-royal piece is worth 1.
    Uniform,
}

impl ValueSource {
    pub fn as_str(self) -> &'static str {
        match self {
            ValueSource::Nominal => "nominal",
            ValueSource::Mobility => "mobility",
            ValueSource::Uniform => "uniform",
        }
    }
}

impl fmt::Display for ValueSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A piece value source that is not one of [`ValueSource`]'s names.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown piece value source {text:?} (expected nominal, mobility or uniform)")]
pub struct ValueSourceError {
    /// The name as given.
    pub text: String,
}

impl FromStr for ValueSource {
    type Err = ValueSourceError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "nominal" => Ok(ValueSource::Nominal),
            "mobility" => Ok(ValueSource::Mobility),
            "uniform" => Ok(ValueSource::Uniform),
            _ => Err(ValueSourceError { text: s.to_string() }),
        }
    }
}

/// Per piece type values in pawns (royal types: 0).
#[derive(Clone, Debug, PartialEq)]
pub struct PieceValues {
    pub source: ValueSource,
    pub values: Vec<f32>,
    /// Per type: the value is the mobility estimate (not given by the variant).
    pub estimated: Vec<bool>,
}

impl PieceValues {
    pub fn new(v: &Arc<Variant>, source: ValueSource) -> PieceValues {
        let n = v.piece_count();
        let royal = |t: usize| v.pieces[t].royal;
        let (values, estimated): (Vec<f32>, Vec<bool>) = match source {
            ValueSource::Uniform => ((0..n).map(|t| if royal(t) { 0.0 } else { 1.0 }).collect(), vec![false; n]),
            ValueSource::Mobility => {
                let m = mobility_values(v);
                ((0..n).map(|t| if royal(t) { 0.0 } else { m[t] }).collect(), vec![true; n])
            }
            ValueSource::Nominal => {
                let given = |t: usize| v.pieces[t].value;
                let m = if (0..n).all(|t| royal(t) || given(t).is_some()) { None } else { Some(mobility_values(v)) };
                let values = (0..n)
                    .map(|t| match (royal(t), given(t)) {
                        (true, _) => 0.0,
                        (false, Some(x)) => x,
                        (false, None) => m.as_ref().expect("computed when some value is missing")[t],
                    })
                    .collect();
                (values, (0..n).map(|t| !royal(t) && given(t).is_none()).collect())
            }
        };
        // Where a side that loses all its pieces wins (losing chess), material is a liability:
        // the baselines must want less of it, or the "greedy" baseline plays to lose.
        let values: Vec<f32> =
            if material_is_a_liability(v) { values.into_iter().map(|x: f32| -x).collect() } else { values };
        PieceValues { source, values, estimated }
    }

    #[inline]
    pub fn get(&self, t: PieceType) -> f32 {
        self.values[t.index()]
    }

    /// Blue's material minus Tan's.
    pub fn balance(&self, pos: &Position) -> f32 {
        let counts = pos.piece_counts();
        self.values.iter().enumerate().map(|(t, &x)| x * (counts[2 * t] as f32 - counts[2 * t + 1] as f32)).sum()
    }
}

/// Whether the variant is won by losing every piece (an extinction rule over all pieces whose
/// value for the extinct side is a win).
pub fn material_is_a_liability(v: &Variant) -> bool {
    v.rules.extinction.as_ref().is_some_and(|e| e.types.is_none() && e.value == fairyzero_rules::GameValue::Win)
}

/// The mobility estimate `m(t)` of every piece type (see the module documentation).
pub fn mobility(v: &Arc<Variant>) -> Vec<f32> {
    let n = v.piece_count();
    let nsq = v.dims.squares();
    let origins: Vec<Square> = if nsq <= 100 {
        (0..nsq).map(|s| Square(s as u16)).collect()
    } else {
        (0..64).map(|i| Square((i * nsq / 64) as u16)).collect()
    };
    let mut moves = MoveList::new();
    (0..n)
        .map(|t| {
            let t = PieceType(t as u8);
            let ours = Piece::new(t, Color::Blue);
            let theirs = Piece::new(t, Color::Tan);
            let mut total = 0.0f64;
            for &s in &origins {
                let Some(pos) = position_with(v, &[(s, ours)]) else { continue };
                pos.pseudo_legal_moves(&mut moves);
                let mut quiet: Vec<Square> = moves
                    .iter()
                    .filter(|m| {
                        m.to != s && !matches!(m.kind, MoveKind::Pass | MoveKind::Setup | MoveKind::SelfCapture)
                    })
                    .map(|m| m.to)
                    .collect();
                quiet.sort_unstable();
                quiet.dedup();
                let mut captures = 0usize;
                for x in 0..nsq {
                    let x = Square(x as u16);
                    if x == s {
                        continue;
                    }
                    let Some(pos) = position_with(v, &[(s, ours), (x, theirs)]) else { continue };
                    pos.pseudo_legal_moves(&mut moves);
                    if moves.iter().any(|m| m.captures().contains(&x) || (m.to == x && pos.is_capture(m))) {
                        captures += 1;
                    }
                }
                total += (quiet.len() + captures) as f64 / 2.0;
            }
            (total / origins.len() as f64) as f32
        })
        .collect()
}

/// Values from [`mobility`], cached per variant (by its rules hash) for the process.
pub fn mobility_values(v: &Arc<Variant>) -> Arc<Vec<f32>> {
    static CACHE: OnceLock<Mutex<HashMap<u64, Arc<Vec<f32>>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(values) = cache.lock().expect("value cache").get(&v.hash) {
        return Arc::clone(values);
    }
    let values: Arc<Vec<f32>> =
        Arc::new(mobility(v).into_iter().map(|m| (m / MOBILITY_REFERENCE).powf(MOBILITY_EXPONENT).max(0.1)).collect());
    cache.lock().expect("value cache").insert(v.hash, Arc::clone(&values));
    values
}

/// `m` of one pawn: about a chess pawn's on 8x8.
pub const MOBILITY_REFERENCE: f32 = 1.4;
/// Damps the value of long-range pieces.
pub const MOBILITY_EXPONENT: f32 = 0.8;

/// A position holding only `pieces`, Blue to move; `None` if it cannot be written.
fn position_with(v: &Arc<Variant>, pieces: &[(Square, Piece)]) -> Option<Position> {
    let d = v.dims;
    let mut fen = String::new();
    for rank in (0..d.height as i32).rev() {
        let mut empty = 0;
        for file in 0..d.width as i32 {
            let sq = d.square(file, rank)?;
            match pieces.iter().find(|(s, _)| *s == sq) {
                Some(&(_, p)) => {
                    if empty > 0 {
                        fen.push_str(&empty.to_string());
                        empty = 0;
                    }
                    fen.push_str(&v.piece_token(p));
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            fen.push_str(&empty.to_string());
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    fen.push_str(" w - - 0 1");
    Position::from_fen(Arc::clone(v), &fen).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_parse_and_print() {
        for s in [ValueSource::Nominal, ValueSource::Mobility, ValueSource::Uniform] {
            assert_eq!(s.as_str().parse::<ValueSource>().unwrap(), s);
        }
        let err = "pawns".parse::<ValueSource>().unwrap_err();
        assert_eq!(err, ValueSourceError { text: "pawns".to_string() });
        assert_eq!(err.to_string(), "unknown piece value source \"pawns\" (expected nominal, mobility or uniform)");
    }

    #[test]
    fn mobility_orders_the_chess_pieces() {
        let v = Variant::load("chess").unwrap();
        let by = |tok: &str| v.piece_by_token(tok).unwrap().index();
        let m = mobility_values(&v);
        let (p, n, b, r, q) = (m[by("P")], m[by("N")], m[by("B")], m[by("R")], m[by("Q")]);
        assert!(p < n && n < b && b < r && r < q, "P {p} N {n} B {b} R {r} Q {q}");
        assert!((0.7..1.3).contains(&p), "pawn {p}");
        assert!((7.0..12.0).contains(&q), "queen {q}");
        let values = PieceValues::new(&v, ValueSource::Mobility);
        assert_eq!(values.get(v.piece_by_token("K").unwrap()), 0.0);
    }

    /// In losing chess the baselines want to shed material: greedy, which maximises material,
    /// must then beat random play (it lost to it when it kept material).
    #[test]
    fn material_is_a_liability_in_losing_variants() {
        let anti = Variant::load("antilosalamos").unwrap();
        assert!(material_is_a_liability(&anti) && !material_is_a_liability(&Variant::load("chess").unwrap()));
        let q = anti.piece_by_token("Q").unwrap();
        assert!(PieceValues::new(&anti, ValueSource::Nominal).get(q) < 0.0);
        let player = |s: &str| {
            crate::PlayerSpec::parse(s).unwrap().contestant(&anti, None, &crate::SearchPlayerConfig::default()).unwrap()
        };
        let options = crate::MatchOptions { games: 60, seed: 2, ..crate::MatchOptions::default() };
        let report = crate::run_match(&anti, &player("greedy"), &player("random"), &options, None).unwrap();
        assert!(report.score() > 0.65, "greedy vs random in anti-Los Alamos: {}", report.result_line());
    }

    #[test]
    fn nominal_values_come_from_the_variant() {
        let v = Variant::load("chess").unwrap();
        let values = PieceValues::new(&v, ValueSource::Nominal);
        assert_eq!(values.get(v.piece_by_token("Q").unwrap()), 9.0);
        assert!(values.estimated.iter().all(|&e| !e));
        let uniform = PieceValues::new(&v, ValueSource::Uniform);
        assert_eq!(uniform.get(v.piece_by_token("Q").unwrap()), 1.0);
        let start = Position::start(Arc::clone(&v));
        assert_eq!(values.balance(&start), 0.0);
    }

    #[test]
    fn every_builtin_variant_gets_finite_estimates() {
        for name in ["gardner", "losalamos", "shatranj", "scirocco"] {
            let v = Variant::load(name).unwrap();
            let values = PieceValues::new(&v, ValueSource::Mobility);
            assert!(values.values.iter().all(|x| x.is_finite() && *x >= 0.0), "{name}: {:?}", values.values);
        }
    }
}
