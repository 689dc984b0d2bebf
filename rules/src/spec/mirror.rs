//! Left-right symmetry of what a variant file writes: Betza texts and power parameters. The
//! variant layer combines them per piece type (`Variant::mirror_safe`); [`crate::symmetry`]
//! says when a position may be mirrored.

use crate::spec::{
    betza::{self, Atom},
    power_spec::{PowerSpec, RelayReach},
};

/// Whether a Betza text is closed under the left-right mirror (multi-leg components count as
/// asymmetric: their later legs are relative to the earlier ones).
pub fn betza_symmetric(text: &str) -> bool {
    let Ok(g) = betza::parse(text) else { return false };
    let atoms: Vec<Atom> = g.atoms().copied().collect();
    g.multi_leg().next().is_none() && atoms.iter().all(|a| atoms.contains(&Atom { dx: -a.dx, ..*a }))
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
        PowerSpec::HopChain | PowerSpec::RoyalLeap | PowerSpec::Teleport => true,
    }
}
