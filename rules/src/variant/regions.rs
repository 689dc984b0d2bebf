//! Board regions (`[[region]]`): named square sets per side, and the two piece keys that read
//! them: `confined_to` (every move stays in the region: Xiangqi's palace and own half) and
//! `region_moves` (extra moves while standing in a region: the soldier across the river).
//!
//! Both are resolved here into per-colour square masks and applied when the move tables are
//! built (`tables::build_tables`), so the move generator reads them at no cost. Moves then
//! depend on where a piece stands, not only on the vector, so the reverse lookups of the chess
//! family (attack tables, "the other colour's table from the target") no longer hold: a variant
//! with regional pieces answers attack questions by generating the attacker's moves
//! (`Variant::regional`).

use std::collections::BTreeMap;

use crate::{
    spec::{
        betza::{self, Atom},
        variant_spec::{PieceSpec, RegionSpec},
    },
    types::{Color, Dims, Square},
};

/// A region for each colour: `mask[colour][square]`.
pub(crate) type SideMasks = [Vec<bool>; 2];

/// What the regions do to one piece type, resolved for both colours.
#[derive(Clone, Debug, Default)]
pub(crate) struct PieceRegions {
    /// Squares the piece's moves must stay in.
    pub confine: Option<SideMasks>,
    /// Extra atoms that apply while the piece stands in the mask.
    pub extra: Vec<(SideMasks, Vec<Atom>)>,
}

impl PieceRegions {
    pub(crate) fn is_empty(&self) -> bool {
        self.confine.is_none() && self.extra.is_empty()
    }
}

/// Parses Blue's squares of a region (`"d1-f3 e5"`): square names and inclusive rectangles
/// between two corners.
pub(crate) fn parse_squares(dims: Dims, text: &str) -> Result<Vec<Square>, String> {
    let mut out = Vec::new();
    for item in text.split_whitespace() {
        let (a, b) = item.split_once('-').unwrap_or((item, item));
        let parse = |s: &str| dims.parse_square(s).ok_or_else(|| format!("{s:?} is not a square of the board"));
        let (a, b) = (parse(a)?, parse(b)?);
        let (f0, f1) = (dims.file(a).min(dims.file(b)), dims.file(a).max(dims.file(b)));
        let (r0, r1) = (dims.rank(a).min(dims.rank(b)), dims.rank(a).max(dims.rank(b)));
        for r in r0..=r1 {
            for f in f0..=f1 {
                out.push(dims.square(f, r).expect("inside the corners"));
            }
        }
    }
    if out.is_empty() {
        return Err("no squares".into());
    }
    Ok(out)
}

/// Blue's squares as given, Tan's with ranks counted from its side (files unchanged).
pub(crate) fn side_masks(dims: Dims, squares: &[Square]) -> SideMasks {
    let mut blue = vec![false; dims.squares()];
    let mut tan = vec![false; dims.squares()];
    for &s in squares {
        blue[s.index()] = true;
        let flipped = dims.square(dims.file(s), dims.height as i32 - 1 - dims.rank(s)).expect("on the board");
        tan[flipped.index()] = true;
    }
    [blue, tan]
}

/// Whether a colour's region is its own mirror image across the middle file (pieces confined to
/// it keep their moves under the left-right symmetry that training uses).
pub(crate) fn mirror_symmetric(dims: Dims, masks: &SideMasks) -> bool {
    masks.iter().all(|m| (0..dims.squares()).all(|i| m[i] == m[dims.mirror(Square(i as u16)).index()]))
}

/// Resolves the variant's regions and every piece's region keys. Problems name the field.
pub(crate) fn resolve(
    dims: Dims,
    regions: &[RegionSpec],
    pieces: &[PieceSpec],
    problems: &mut Vec<String>,
) -> Vec<PieceRegions> {
    let mut by_name: BTreeMap<&str, SideMasks> = BTreeMap::new();
    for (i, r) in regions.iter().enumerate() {
        if r.name.is_empty() {
            problems.push(format!("field `region[{i}].name` is empty"));
            continue;
        }
        match parse_squares(dims, &r.squares) {
            Ok(squares) => {
                if by_name.insert(&r.name, side_masks(dims, &squares)).is_some() {
                    problems.push(format!("region {:?}: field `name` is used twice", r.name));
                }
            }
            Err(e) => problems.push(format!("region {:?}: field `squares` {:?}: {e}", r.name, r.squares)),
        }
    }
    let mut find = |piece: &str, field: &str, name: &str| {
        let found = by_name.get(name).cloned();
        if found.is_none() {
            problems.push(format!("piece {piece:?}: field `{field}`: unknown region {name:?}"));
        }
        found
    };
    let mut out = Vec::with_capacity(pieces.len());
    let mut bad_betza = Vec::new();
    for p in pieces {
        let confine = p.confined_to.as_deref().and_then(|name| find(&p.name, "confined_to", name));
        let mut extra = Vec::new();
        for rm in &p.region_moves {
            let Some(mask) = find(&p.name, "region_moves", &rm.region) else { continue };
            match betza::parse(&rm.betza) {
                Ok(g) if g.multi_leg().next().is_some() || g.atoms().any(|a| a.initial_only) => {
                    bad_betza.push(format!(
                        "piece {:?}: field `region_moves`: {:?}: multi-leg and initial (`i`) moves are not supported \
                     in a region move",
                        p.name, rm.betza
                    ))
                }
                Ok(g) => extra.push((mask, g.atoms().copied().collect())),
                Err(e) => bad_betza.push(format!("piece {:?}: field `region_moves`: {e}", p.name)),
            }
        }
        out.push(PieceRegions { confine, extra });
    }
    problems.extend(bad_betza);
    out
}

/// Whether `sq` is in the colour's mask.
#[inline]
pub(crate) fn contains(masks: &SideMasks, color: Color, sq: Square) -> bool {
    masks[color.index()][sq.index()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rectangles_and_squares_parse_and_tan_counts_ranks_from_its_side() {
        let dims = Dims { width: 9, height: 10 };
        let squares = parse_squares(dims, "d1-f3 e5").unwrap();
        assert_eq!(squares.len(), 10);
        let masks = side_masks(dims, &squares);
        let sq = |s: &str| dims.parse_square(s).unwrap();
        assert!(contains(&masks, Color::Blue, sq("f3")) && !contains(&masks, Color::Blue, sq("f4")));
        assert!(contains(&masks, Color::Tan, sq("d10")) && contains(&masks, Color::Tan, sq("e6")));
        assert!(!contains(&masks, Color::Tan, sq("e5")));
        assert!(mirror_symmetric(dims, &masks));
        assert!(!mirror_symmetric(dims, &side_masks(dims, &parse_squares(dims, "a1").unwrap())));
        assert!(parse_squares(dims, "d1-j3").unwrap_err().contains("\"j3\""));
        assert!(parse_squares(dims, " ").is_err());
    }
}
