//! `[explosion]` and `[rebirth]` concluded (issue 21: atomic chess, Explosion Chess #17,
//! Circe Chess #29): per-square neighbour lists for blasts, per (colour, type) rebirth targets.
//! The position layer applies them in `make` (`position::capture_effects`); the move generator
//! reads the explosion's legality fields (`movegen::explosion`).

use std::collections::BTreeMap;

use crate::{
    spec::capture_spec::{
        BlastCentre, BlastSide, EnemyRoyalBlast, ExplosionSpec, OwnRoyalBlast, RebirthSpec, RebirthSquares,
    },
    types::{Color, Dims, Piece, PieceType, Square},
    variant::{powers::Power, topology::Geometry, PieceDef, RoyalRule, VariantSpec},
};

/// `[explosion]`, concluded.
#[derive(Clone, Debug)]
pub struct Explosion {
    pub blast: BlastSide,
    pub centre: BlastCentre,
    /// Per piece type: a blast never removes it.
    pub immune: Vec<bool>,
    pub capturer_dies: bool,
    pub adjacent_royals_safe: bool,
    pub own_royal_blast: OwnRoyalBlast,
    pub enemy_royal_blast: EnemyRoyalBlast,
    /// Per square: its (up to eight) neighbours, `Square::NONE` after the last; round the
    /// board's edge on a cylinder.
    pub(crate) neighbours: Vec<[Square; 8]>,
}

impl Explosion {
    /// The squares next to `sq`.
    #[inline]
    pub(crate) fn around(&self, sq: Square) -> impl Iterator<Item = Square> + '_ {
        self.neighbours[sq.index()].iter().copied().take_while(|s| !s.is_none())
    }

    /// Whether `a` and `b` are neighbours.
    #[inline]
    pub(crate) fn adjacent(&self, a: Square, b: Square) -> bool {
        self.around(a).any(|s| s == b)
    }
}

/// Where a captured man of one colour and type is reborn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RebirthTarget {
    /// Lost, as in chess.
    None,
    /// Indexed by the capture square's colour (`(file + rank) % 2`): the home square of that
    /// colour (both entries equal when the type has one home square).
    ByColour([Square; 2]),
    /// This rank (0-based, absolute) on the capture file.
    OnRank(i32),
}

/// `[rebirth]`, concluded.
#[derive(Clone, Debug)]
pub struct Rebirth {
    /// Per `Piece::index()`.
    pub(crate) targets: Vec<RebirthTarget>,
}

impl Rebirth {
    /// The square where `victim`, captured on `on`, is reborn if it is empty.
    pub(crate) fn square_for(&self, dims: Dims, victim: Piece, on: Square) -> Option<Square> {
        match self.targets[victim.index()] {
            RebirthTarget::None => None,
            RebirthTarget::ByColour(squares) => Some(squares[((dims.file(on) + dims.rank(on)) % 2) as usize]),
            RebirthTarget::OnRank(rank) => dims.square(dims.file(on), rank),
        }
    }
}

/// Concludes `[explosion]`; problems name their field.
pub(crate) fn explosion(
    spec: &ExplosionSpec,
    geometry: Geometry,
    dims: Dims,
    piece_count: usize,
    lookup: &dyn Fn(&str) -> Option<PieceType>,
    problems: &mut Vec<String>,
) -> Explosion {
    let mut immune = vec![false; piece_count];
    for token in &spec.immune {
        match lookup(token) {
            Some(t) => immune[t.index()] = true,
            None => problems.push(format!("field `explosion.immune`: unknown token {token:?}")),
        }
    }
    let neighbours = (0..dims.squares())
        .map(|i| {
            let sq = Square(i as u16);
            let (f, r) = (dims.file(sq), dims.rank(sq));
            let mut around = [Square::NONE; 8];
            let mut n = 0;
            for (dx, dy) in [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)] {
                if let Some(s) = geometry.offset(f, r, dx, dy) {
                    // On a narrow cylinder a square can meet itself or another twice round the edge.
                    if s != sq && !around[..n].contains(&s) {
                        around[n] = s;
                        n += 1;
                    }
                }
            }
            around
        })
        .collect();
    Explosion {
        blast: spec.blast,
        centre: spec.centre,
        immune,
        capturer_dies: spec.capturer_dies,
        adjacent_royals_safe: spec.adjacent_royals_safe,
        own_royal_blast: spec.own_royal_blast,
        enemy_royal_blast: spec.enemy_royal_blast,
        neighbours,
    }
}

/// Concludes `[rebirth]`; problems name their field. `royal` says which types are royal
/// (never captured, so they have no rebirth square).
pub(crate) fn rebirth(
    spec: &RebirthSpec,
    dims: Dims,
    royal: &[bool],
    lookup: &dyn Fn(&str) -> Option<PieceType>,
    problems: &mut Vec<String>,
) -> Rebirth {
    let mut targets = vec![RebirthTarget::None; royal.len() * 2];
    let flip = |sq: Square| dims.square(dims.file(sq), dims.height as i32 - 1 - dims.rank(sq)).expect("on the board");
    let per_type: &BTreeMap<String, RebirthSquares> = &spec.pieces;
    for (token, rule) in per_type {
        let field = format!("field `rebirth.pieces.{token}`");
        let Some(t) = lookup(token) else {
            problems.push(format!("{field}: unknown token {token:?}"));
            continue;
        };
        if royal[t.index()] {
            problems.push(format!("{field}: a royal piece is never captured, so it has no rebirth square"));
            continue;
        }
        let blue = match (&rule.squares[..], rule.rank) {
            ([], Some(rank)) => {
                if !(1..=dims.height).contains(&rank) {
                    problems.push(format!("{field}: `rank` {rank} is outside 1..={}", dims.height));
                    continue;
                }
                RebirthTarget::OnRank(rank as i32 - 1)
            }
            ([], None) | ([_, ..], Some(_)) => {
                problems.push(format!("{field}: give either `squares` or `rank`"));
                continue;
            }
            (names, None) => {
                let mut by_colour = [Square::NONE; 2];
                let mut ok = true;
                for name in names {
                    let Some(sq) = dims.parse_square(name) else {
                        problems.push(format!("{field}: `squares`: {name:?} is not a square of this board"));
                        ok = false;
                        continue;
                    };
                    let colour = ((dims.file(sq) + dims.rank(sq)) % 2) as usize;
                    if !by_colour[colour].is_none() {
                        problems.push(format!(
                            "{field}: `squares`: two squares of one colour ({name:?} and {:?}): the capture \
                             square's colour would not choose between them",
                            dims.square_name(by_colour[colour])
                        ));
                        ok = false;
                    }
                    by_colour[colour] = sq;
                }
                if !ok || names.len() > 2 {
                    if ok {
                        problems.push(format!("{field}: `squares`: at most two squares, one of each colour"));
                    }
                    continue;
                }
                // One home square serves captures on either colour.
                for c in 0..2 {
                    if by_colour[c].is_none() {
                        by_colour[c] = by_colour[1 - c];
                    }
                }
                RebirthTarget::ByColour(by_colour)
            }
        };
        let tan = match blue {
            RebirthTarget::ByColour(sq) => {
                // The mirrored square of a colour may have the other colour (an even number of
                // ranks): keep each square with the capture colour it now has.
                let mut by_colour = [Square::NONE; 2];
                for s in sq.map(flip) {
                    by_colour[((dims.file(s) + dims.rank(s)) % 2) as usize] = s;
                }
                for c in 0..2 {
                    if by_colour[c].is_none() {
                        by_colour[c] = by_colour[1 - c];
                    }
                }
                RebirthTarget::ByColour(by_colour)
            }
            RebirthTarget::OnRank(r) => RebirthTarget::OnRank(dims.height as i32 - 1 - r),
            RebirthTarget::None => RebirthTarget::None,
        };
        targets[Piece::new(t, Color::Blue).index()] = blue;
        targets[Piece::new(t, Color::Tan).index()] = tan;
    }
    Rebirth { targets }
}

/// Concludes both tables of `spec`, refusing combinations whose meaning is not defined here:
/// pieces in hand (where would blasted or reborn men go), Jupiter's turn procedure (burning,
/// poison, Kamikazes, Doublers, Tribbles: their checks read captures too), explosion with
/// rebirth, and explosion without the check rule (its royal fields are legality rules).
pub(crate) fn conclude(
    spec: &VariantSpec,
    geometry: Geometry,
    dims: Dims,
    pieces: &[PieceDef],
    powers: &[Vec<Power>],
    lookup: &dyn Fn(&str) -> Option<PieceType>,
    problems: &mut Vec<String>,
) -> (Option<Explosion>, Option<Rebirth>) {
    let turn_piece = spec.pieces.iter().zip(powers).find(|(p, ps)| {
        p.poisonous
            || p.burns
            || p.dies_when_capturing
            || ps
                .iter()
                .any(|w| matches!(w, Power::Double { .. } | Power::PoisonSight { .. } | Power::Reproduce { .. }))
    });
    for (field, present) in [("explosion", spec.explosion.is_some()), ("rebirth", spec.rebirth.is_some())] {
        if !present {
            continue;
        }
        if spec.drops.is_some() {
            problems.push(format!("field `{field}`: not supported with `drops` (pieces in hand)"));
        }
        if let Some((p, _)) = turn_piece {
            problems.push(format!(
                "field `{field}`: not supported with piece {:?}, which takes part in Jupiter's turn procedure \
                 (burns, poison, dies_when_capturing, double, poison_sight or reproduce)",
                p.name
            ));
        }
    }
    if spec.explosion.is_some() && spec.rebirth.is_some() {
        problems.push("fields `explosion` and `rebirth`: a variant has one or the other".into());
    }
    if spec.explosion.is_some() && spec.victory.royal != RoyalRule::Checkmate {
        problems.push(
            "field `explosion`: needs `victory.royal = \"checkmate\"` (its royal fields are rules of the \
             check rule's legality)"
                .into(),
        );
    }
    let explosion = spec.explosion.as_ref().map(|e| explosion(e, geometry, dims, pieces.len(), lookup, problems));
    let royal: Vec<bool> = pieces.iter().map(|p| p.royal).collect();
    let rebirth = spec.rebirth.as_ref().map(|r| rebirth(r, dims, &royal, lookup, problems));
    (explosion, rebirth)
}
