//! Left-right symmetry of what a variant file writes: Betza texts and power parameters. The
//! variant layer combines them per piece type (`Variant::mirror_safe`); [`crate::symmetry`]
//! says when a position may be mirrored.

use crate::spec::{
    betza::{self, Atom, Component, Leg},
    power_spec::{PowerSpec, RelayReach},
};

/// Whether a Betza text is closed under the left-right mirror. A multi-leg component mirrors
/// through its first leg, the only one with absolute directions: a continuation leg's `f`, `b`,
/// `v` or "any direction" is the same for a mirrored first step.
pub fn betza_symmetric(text: &str) -> bool {
    let Ok(g) = betza::parse(text) else { return false };
    let atoms: Vec<Atom> = g.atoms().copied().collect();
    let legs: Vec<&Component> = g.multi_leg().collect();
    atoms.iter().all(|a| atoms.contains(&Atom { dx: -a.dx, ..*a }))
        && legs.iter().all(|c| legs.iter().any(|other| is_mirror(c, other)))
}

/// Whether Betza text `b` moves as text `a` mirrored left-right (Chushin Shogi's Left and Right
/// Generals, `FvrW` and `FvlW`): the same reasoning as [`betza_symmetric`], which is the case
/// `a == b`, between two texts. Unparsable texts mirror nothing.
pub fn betza_mirror_image(a: &str, b: &str) -> bool {
    let (Ok(ga), Ok(gb)) = (betza::parse(a), betza::parse(b)) else { return false };
    let (atoms_a, atoms_b): (Vec<Atom>, Vec<Atom>) = (ga.atoms().copied().collect(), gb.atoms().copied().collect());
    let (legs_a, legs_b): (Vec<&Component>, Vec<&Component>) = (ga.multi_leg().collect(), gb.multi_leg().collect());
    let mirrored_in = |from: &[Atom], into: &[Atom]| from.iter().all(|x| into.contains(&Atom { dx: -x.dx, ..*x }));
    let legs_in = |from: &[&Component], into: &[&Component]| from.iter().all(|c| into.iter().any(|o| is_mirror(c, o)));
    mirrored_in(&atoms_a, &atoms_b)
        && mirrored_in(&atoms_b, &atoms_a)
        && legs_in(&legs_a, &legs_b)
        && legs_in(&legs_b, &legs_a)
}

/// Whether `b` is `a` mirrored left-right (leg texts aside).
fn is_mirror(a: &Component, b: &Component) -> bool {
    let same_leg = |x: &Leg, y: &Leg| {
        x.mode == y.mode
            && x.dirs == y.dirs
            && x.max_steps == y.max_steps
            && x.range_toggle == y.range_toggle
            && x.skip_first == y.skip_first
            && x.atoms.len() == y.atoms.len()
            && x.atoms.iter().all(|v| y.atoms.contains(&Atom { dx: -v.dx, ..*v }))
    };
    a.legs.len() == b.legs.len() && a.legs.iter().zip(&b.legs).all(|(x, y)| same_leg(x, y))
}

/// Whether a power acts left-right symmetrically. Exhaustive on purpose: a new power kind must
/// be classified here.
pub fn power_symmetric(power: &PowerSpec) -> bool {
    match power {
        PowerSpec::Relay { reach: RelayReach::Leap(leaps), grants, .. } => {
            betza_symmetric(leaps) && betza_symmetric(grants)
        }
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
        PowerSpec::Path { legs } => legs.iter().all(|l| betza_symmetric(&l.dirs)),
        PowerSpec::CaptureContinue { first, then, .. } => betza_symmetric(first) && betza_symmetric(then),
        PowerSpec::Zigzag { dirs }
        | PowerSpec::GeneralJump { dirs, .. }
        | PowerSpec::Custodian { dirs }
        | PowerSpec::Coordinate { dirs }
        | PowerSpec::PurgePromoted { dirs }
        | PowerSpec::TankPush { dirs, .. } => betza_symmetric(dirs),
        PowerSpec::Pull { reach, .. } | PowerSpec::PushAway { reach, .. } => betza_symmetric(reach),
        PowerSpec::Reproduce { targets } => betza_symmetric(targets),
        PowerSpec::Double { sight } | PowerSpec::PoisonSight { sight } => betza_symmetric(sight),
        PowerSpec::HopChain | PowerSpec::RoyalLeap | PowerSpec::RoamUnguarded | PowerSpec::Teleport => true,
    }
}

#[cfg(test)]
mod tests {
    use super::betza_symmetric;

    #[test]
    fn multi_leg_components_mirror_through_their_first_leg() {
        // Relative continuation legs do not break symmetry.
        for text in ["KNADcaKmcabK", "fcavWfmabW", "(paf)2cBmcB", "QympacabQ(a)2KmcabK", "jQcabK", "flcaKfrcaK"] {
            assert!(betza_symmetric(text), "{text}");
        }
        // A one-sided first leg without its mirror image is asymmetric.
        for text in ["flcaK", "rcafW", "flcaKfrcabK", "flcaKfrmaK"] {
            assert!(!betza_symmetric(text), "{text}");
        }
        // Single-leg texts as before.
        assert!(betza_symmetric("fmWfcF"));
        assert!(!betza_symmetric("frF"));
    }
}
