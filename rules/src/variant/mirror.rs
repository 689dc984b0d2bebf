//! Mirror-image piece types (Chushin Shogi's Left and Right Generals): which type each type
//! becomes under the left-right mirror, concluded once per variant (`Variant::mirror_type`) and
//! read by `crate::symmetry` when it mirrors a position.

use crate::{
    spec::{
        mirror::{betza_mirror_image, betza_symmetric, power_symmetric},
        power_spec::PowerSpec,
        variant_spec::VariantSpec,
    },
    types::PieceType,
    variant::PieceDef,
};

/// Per piece type, the type that its pieces become in the left-right mirror image of a
/// position: itself when it moves symmetrically, its mirror partner (see the module
/// documentation), or `None` when neither exists, for it or for a type it can become by
/// promotion. `mirror_safe[t]` (the type and its promotions are symmetric) implies `Some`.
pub(crate) fn mirror_types(spec: &VariantSpec, pieces: &[PieceDef]) -> Vec<Option<PieceType>> {
    let n = pieces.len();
    let specs = &spec.pieces;
    let own = |t: usize| betza_symmetric(&specs[t].betza) && specs[t].powers.iter().all(power_symmetric);
    let named: Vec<bool> = (0..n).map(|t| named_by_a_rule(spec, &pieces[t].token)).collect();
    // Two distinct types that move as each other's mirror image and differ in nothing else a
    // rule reads. Their promotions are checked separately (they must pair up too).
    let partners = |t: usize, u: usize| {
        let (a, b) = (&specs[t], &specs[u]);
        t != u
            && a.powers.is_empty()
            && b.powers.is_empty()
            && !named[t]
            && !named[u]
            && pieces[t].promotion_upgrade.is_none()
            && pieces[u].promotion_upgrade.is_none()
            && pieces[t].promotes_to.len() == pieces[u].promotes_to.len()
            && (a.royal, a.value, a.en_passant, a.poisonous, a.burns, a.dies_when_capturing)
                == (b.royal, b.value, b.en_passant, b.poisonous, b.burns, b.dies_when_capturing)
            && betza_mirror_image(&a.betza, &b.betza)
    };
    let mut image: Vec<Option<usize>> = vec![None; n];
    // Types that nothing promotes to first: a promoted type's image follows from its origin's.
    let promoted: Vec<bool> = {
        let mut p = vec![false; n];
        for def in pieces {
            for t in def.promotes_to.iter().chain(def.promotion_upgrade.iter().map(|(_, b)| b)) {
                p[t.index()] = true;
            }
        }
        p
    };
    let order = (0..n).filter(|&t| !promoted[t]).chain((0..n).filter(|&t| promoted[t]));
    for t in order {
        if image[t].is_some() {
            continue;
        }
        let Some(u) = (if own(t) { Some(t) } else { (0..n).find(|&u| image[u].is_none() && partners(t, u)) }) else {
            continue;
        };
        (image[t], image[u]) = (Some(u), Some(t));
        // Each promotion of t must have an image among u's promotions: itself where it is
        // symmetric and u == t, else an unassigned partner.
        let mut stack = vec![(t, u)];
        while let Some((a, b)) = stack.pop() {
            for p in pieces[a].promotes_to.iter().map(|p| p.index()) {
                if image[p].is_some() {
                    continue;
                }
                let targets = &pieces[b].promotes_to;
                let q = targets
                    .iter()
                    .map(|q| q.index())
                    .find(|&q| (q == p && own(p)) || (image[q].is_none() && partners(p, q)));
                if let Some(q) = q {
                    (image[p], image[q]) = (Some(q), Some(p));
                    stack.push((p, q));
                }
            }
        }
    }
    // A type's image is usable when the mirror commutes with everything it can become:
    // promotions (and upgrades) map onto its image's, for it and every type it reaches.
    let commutes = |t: usize| -> bool {
        let Some(u) = image[t] else { return false };
        let mapped = |list: &[PieceType], into: &[PieceType]| {
            list.iter().all(|p| image[p.index()].is_some_and(|q| into.iter().any(|x| x.index() == q)))
        };
        let upgrade_maps = match (pieces[t].promotion_upgrade, pieces[u].promotion_upgrade) {
            (None, None) => true,
            (Some((present, becomes)), Some((present_u, becomes_u))) => {
                image[present.index()] == Some(present_u.index()) && image[becomes.index()] == Some(becomes_u.index())
            }
            _ => false,
        };
        image[u] == Some(t)
            && pieces[t].promotes_to.len() == pieces[u].promotes_to.len()
            && mapped(&pieces[t].promotes_to, &pieces[u].promotes_to)
            && upgrade_maps
    };
    let local: Vec<bool> = (0..n).map(commutes).collect();
    let reachable_commute = |t: usize| {
        let mut seen = vec![false; n];
        let mut stack = vec![t];
        while let Some(a) = stack.pop() {
            if std::mem::replace(&mut seen[a], true) {
                continue;
            }
            if !local[a] {
                return false;
            }
            let def = &pieces[a];
            stack.extend(def.promotes_to.iter().chain(def.promotion_upgrade.iter().map(|(_, b)| b)).map(|p| p.index()));
        }
        true
    };
    let usable: Vec<bool> = (0..n).map(reachable_commute).collect();
    (0..n)
        .map(|t| match image[t] {
            // A pair is used only when both sides are, so that the map stays an involution.
            Some(u) if usable[t] && usable[u] => Some(PieceType(u as u8)),
            _ => None,
        })
        .collect()
}

/// Whether a rule names the type with this token (extinction lists, General stoppers,
/// promotion upgrades): such a type and a mirror partner would be told apart by that rule.
fn named_by_a_rule(spec: &VariantSpec, token: &str) -> bool {
    let is = |name: &str| name.eq_ignore_ascii_case(token);
    let extinction = spec.victory.extinction.as_ref().is_some_and(|e| e.pieces.iter().any(|p| is(p)));
    let stopper_or_upgrade = spec.pieces.iter().any(|p| {
        p.promotion_upgrade.as_ref().is_some_and(|u| is(&u.present) || is(&u.becomes))
            || p.powers.iter().any(|power| match power {
                PowerSpec::GeneralJump { stoppers, .. } => stoppers.iter().any(|s| is(s)),
                _ => false,
            })
    });
    extinction || stopper_or_upgrade
}
