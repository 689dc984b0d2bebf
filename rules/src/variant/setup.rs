//! Setup phases, concluded: squares and piece types resolved, every ply checked.

use crate::{
    spec::setup_spec::SetupSpec,
    types::{Color, Dims, PieceType, Square},
};

/// One setup ply: `actor` places `owner`'s pair on `squares`, in either order.
#[derive(Clone, Debug)]
pub(crate) struct SetupPly {
    pub actor: Color,
    pub owner: Color,
    pub squares: [Square; 2],
    pub pieces: [Option<PieceType>; 2],
    pub copy: bool,
}

/// A variant's setup phase: the fixed part of the array and the plies that complete it.
#[derive(Clone, Debug)]
pub(crate) struct SetupPhase {
    pub fixed: String,
    pub symmetry_royal: PieceType,
    pub plies: Vec<SetupPly>,
    /// The `setup:<hex>` mask bit of each ply (see `variant/setup_mask.rs`).
    pub mask_bits: Vec<u8>,
}

impl SetupSpec {
    pub(crate) fn conclude(
        &self,
        dims: Dims,
        lookup: impl Fn(&str) -> Option<PieceType>,
    ) -> Result<SetupPhase, Vec<String>> {
        let mut problems = Vec::new();
        let symmetry_royal = lookup(&self.symmetry_royal);
        if symmetry_royal.is_none() {
            problems.push(format!("field `setup.symmetry_royal`: unknown token {:?}", self.symmetry_royal));
        }
        let mut plies = Vec::new();
        for (i, p) in self.plies.iter().enumerate() {
            let sq = |s: &String| {
                dims.parse_square(s).ok_or_else(|| format!("field `setup.ply[{i}].squares`: {s:?} is not a square"))
            };
            let piece = |t: &String| {
                if t == "-" {
                    Ok(None)
                } else {
                    lookup(t).map(Some).ok_or_else(|| format!("field `setup.ply[{i}].pieces`: unknown token {t:?}"))
                }
            };
            match (sq(&p.squares[0]), sq(&p.squares[1]), piece(&p.pieces[0]), piece(&p.pieces[1])) {
                (Ok(a), Ok(b), Ok(x), Ok(y)) => {
                    if x == y {
                        problems.push(format!("field `setup.ply[{i}].pieces`: the two members must differ"));
                    }
                    plies.push(SetupPly {
                        actor: p.actor.into(),
                        owner: p.owner.into(),
                        squares: [a, b],
                        pieces: [x, y],
                        copy: p.copy,
                    })
                }
                (a, b, x, y) => problems.extend([a.err(), b.err(), x.err(), y.err()].into_iter().flatten()),
            }
        }
        if plies.is_empty() {
            problems.push("field `setup.ply`: a setup phase needs at least one ply".into());
        }
        let mask_bits = match super::setup_mask::ply_bits(plies.len(), &self.mask_skip_bits) {
            Ok(bits) => bits,
            Err(problem) => {
                problems.push(format!("field `setup.mask_skip_bits`: {problem}"));
                Vec::new()
            }
        };
        if problems.is_empty() {
            Ok(SetupPhase { fixed: self.fixed.clone(), symmetry_royal: symmetry_royal.unwrap(), plies, mask_bits })
        } else {
            Err(problems)
        }
    }
}
