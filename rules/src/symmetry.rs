//! The left-right mirror, where it is a symmetry of the game.
//!
//! A position may be mirrored (files reversed, everything else kept) when the rules commute
//! with the mirror from there on:
//!
//! - every piece on the board, and every type it can become by promotion, moves left-right
//!   symmetrically: its Betza geometry is closed under `dx -> -dx` and so are the geometry
//!   parameters of its powers (multi-leg components count as asymmetric);
//! - there are no castling rights (the king and rook files do not mirror);
//! - the setup phase is over (placement choices need not be symmetric).
//!
//! Promotion zones and initial-move regions are whole ranks, so they mirror onto themselves;
//! nothing else in the rules depends on files. The trainer augments data with it, the designer
//! tools merge mirror-image initial arrays with it.

use crate::{
    geometry,
    notation::PositionError,
    position::{EnPassant, Position},
    powers::PowerSpec,
    types::Square,
    variant::{PieceDef, PieceSpec},
};

/// Whether a Betza text is closed under the left-right mirror (multi-leg components count as
/// asymmetric: their later legs are relative to the earlier ones).
pub fn betza_symmetric(text: &str) -> bool {
    let Ok(g) = geometry::parse(text) else { return false };
    let atoms: Vec<geometry::Atom> = g.atoms().copied().collect();
    g.multi_leg().next().is_none() && atoms.iter().all(|a| atoms.contains(&geometry::Atom { dx: -a.dx, ..*a }))
}

/// Whether a power acts left-right symmetrically. Exhaustive on purpose: a new power kind must
/// be classified here.
pub fn power_symmetric(power: &PowerSpec) -> bool {
    match power {
        PowerSpec::Relay { grants, .. } => betza_symmetric(grants),
        PowerSpec::Igui { targets } | PowerSpec::Convert { targets } | PowerSpec::Swap { targets } => {
            betza_symmetric(targets)
        }
        PowerSpec::HopCapture { over, .. } => betza_symmetric(over),
        PowerSpec::Pass => true,
        PowerSpec::HopRider { dirs, .. }
        | PowerSpec::Sweep { dirs, .. }
        | PowerSpec::SupportedSlide { dirs, .. }
        | PowerSpec::LongLeap { dirs }
        | PowerSpec::Approach { dirs, .. }
        | PowerSpec::Withdraw { dirs } => betza_symmetric(dirs),
        PowerSpec::Immobilize { reach } => betza_symmetric(reach),
        PowerSpec::BentRider { first, then, .. } => betza_symmetric(first) && betza_symmetric(then),
    }
}

/// Per piece type: it and every type it can become (promotion, promotion upgrade) move
/// left-right symmetrically.
pub(crate) fn mirror_safe_types(specs: &[PieceSpec], pieces: &[PieceDef]) -> Vec<bool> {
    let n = pieces.len();
    let own: Vec<bool> =
        specs.iter().map(|p| betza_symmetric(&p.betza) && p.powers.iter().all(power_symmetric)).collect();
    let becomes = |t: usize| -> Vec<usize> {
        let def = &pieces[t];
        let mut out: Vec<usize> = def.promotes_to.iter().map(|p| p.index()).collect();
        if let Some((_, b)) = def.promotion_upgrade {
            out.push(b.index());
        }
        out
    };
    (0..n)
        .map(|t| {
            let mut seen = vec![false; n];
            let mut stack = vec![t];
            while let Some(u) = stack.pop() {
                if std::mem::replace(&mut seen[u], true) {
                    continue;
                }
                if !own[u] {
                    return false;
                }
                stack.extend(becomes(u));
            }
            true
        })
        .collect()
}

impl Position {
    /// Whether the left-right mirror of this position is a position of the same game, with the
    /// mirrored moves and the same value (see the module documentation).
    pub fn mirror_safe(&self) -> bool {
        let safe = &self.variant().mirror_safe;
        self.castling_rights() == 0 && !self.in_setup() && self.board().iter().flatten().all(|p| safe[p.kind().index()])
    }

    /// The left-right mirror image (files reversed), without history; `None` unless
    /// [`Position::mirror_safe`].
    pub fn mirrored(&self) -> Option<Result<Position, PositionError>> {
        if !self.mirror_safe() {
            return None;
        }
        let d = self.variant().dims;
        let flip = |sq: Square| if sq.is_none() { sq } else { d.mirror(sq) };
        let ep = self.en_passant().map(|ep| EnPassant { squares: ep.squares.map(flip), victim: flip(ep.victim) });
        Some(self.rebuilt(|sq| self.piece_at(d.mirror(sq)), 0, ep))
    }
}
