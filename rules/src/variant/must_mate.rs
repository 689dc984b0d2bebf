//! Checks of the Reflex Chess options (issue 21 row #3): the must-mate move filter
//! (`must_mate`, `crate::movegen::must_mate`) and the value of being checkmated
//! (`victory.checkmate`). Each refusal names its field.

use crate::spec::variant_spec::{GameValue, RoyalRule, VariantSpec};

/// Pushes a problem for every combination the two options do not support.
pub(super) fn check(spec: &VariantSpec, problems: &mut Vec<String>) {
    // Mate exists only under the check rule and with a royal piece to mate.
    let mates = spec.victory.royal == RoyalRule::Checkmate && spec.pieces.iter().any(|p| p.royal);
    const NEEDS: &str = "needs `victory.royal = \"checkmate\"` and a royal piece";
    if spec.must_mate && !mates {
        problems.push(format!("field `must_mate`: {NEEDS} (without them there is no mate to give)"));
    }
    if spec.victory.checkmate != GameValue::Loss && !mates {
        problems.push(format!("field `victory.checkmate`: {NEEDS} (without them no side is ever mated)"));
    }
    if spec.must_mate && spec.turns.is_some() {
        // A turn's first move never mates by itself; whether a side "can give mate" would then
        // be a question about whole turns, which the filter (one move at a time) does not ask.
        problems.push(
            "field `must_mate`: not supported with multi-move turns (`[turns]`): a mate is given by a whole turn"
                .into(),
        );
    }
}
