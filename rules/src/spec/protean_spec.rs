//! `[protean]`: protean men, which take on the type of every man they capture (Protean Chess,
//! issue 21 row #59). The rule itself is `crate::position::protean`; the choice moves are
//! `crate::movegen::protean`.

use serde::{Deserialize, Serialize};

/// The `[protean]` section of a variant file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProteanSpec {
    /// How the protean men are designated.
    #[serde(default)]
    pub choice: ProteanChoice,
}

/// How each side's protean man is designated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProteanChoice {
    /// Before play, each side in turn (White, then Black) marks one of its non-royal men with a
    /// move of its own (`MoveKind::Mark`, written `e2e2`): Protean Chess's public choice.
    #[default]
    BeforePlay,
    /// No choice: only a position string marks protean men (composed positions, studies).
    Position,
}

impl ProteanSpec {
    /// The concluded rule, or `None` with the reasons in `problems`: the rule combines with
    /// plain displacements, castling, en passant and promotion (what Protean Chess has), and is
    /// refused, naming the field `protean`, with every hook that moves, removes or creates men in
    /// ways the mark does not follow (it is tracked by the capturing man's displacement).
    /// `powers`: some piece has a power or a multi-leg move.
    pub(crate) fn conclude(
        &self,
        spec: &super::variant_spec::VariantSpec,
        powers: bool,
        problems: &mut Vec<String>,
    ) -> Option<ProteanChoice> {
        use super::variant_spec::{CaptureRule, FirstTurnSwap, PassRule};
        let before = problems.len();
        let mut clash = |what: &str| {
            problems.push(format!("field `protean`: not supported together with {what}"));
        };
        if powers {
            clash("pieces with powers or multi-leg (XBetza) moves");
        }
        if spec.capture != CaptureRule::Displace {
            clash("`capture` other than \"displace\"");
        }
        if spec.pass != PassRule::None {
            clash("passes (`pass`)");
        }
        if spec.first_turn_swap != FirstTurnSwap::None {
            clash("`first_turn_swap`");
        }
        if spec.setup.is_some() {
            clash("a setup phase (`[setup]`)");
        }
        if spec.drops.is_some() {
            clash("drops (`[drops]`)");
        }
        if spec.turns.is_some() {
            clash("multi-move turns (`[turns]`)");
        }
        if spec.explosion.is_some() {
            clash("explosions (`[explosion]`)");
        }
        if spec.rebirth.is_some() {
            clash("rebirth (`[rebirth]`)");
        }
        if spec.neutral_token.is_some() {
            clash("a neutral token (`[neutral_token]`)");
        }
        // The choice field follows the move number, which only the extended form writes.
        let extended = spec.notation == super::variant_spec::NotationStyle::Uci
            || spec.castling.is_some()
            || spec.pieces.iter().any(|p| p.en_passant);
        if self.choice == ProteanChoice::BeforePlay && !extended {
            problems.push(
                "field `protean`: choice = \"before_play\" needs the extended position string (notation = \"uci\", \
                 castling or en passant) for its choice field"
                    .into(),
            );
        }
        (problems.len() == before).then_some(self.choice)
    }
}
