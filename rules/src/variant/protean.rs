//! Protean men in position strings (`[protean]`, Protean Chess, issue 21 row #59): the state
//! value that a parsed string hands to the position layer, the `*` that marks a protean man's
//! token on the board (`N^`, `p^`, `(CH)^`), and the `choices:<n>` field that says how many
//! protean choices are still to be made before play. The rule is `crate::position::protean`.

use crate::{
    spec::protean_spec::ProteanChoice,
    types::{Color, Piece, Square},
    variant::Variant,
};

/// The character after a token that marks its man as protean (`*`, a token of its own, is the
/// neutral token of `[neutral_token]`).
pub(crate) const MARK: char = '^';

/// The prefix of the position string's choice field.
const FIELD: &str = "choices:";

/// Who is protean, and how many protean choices are still to be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ProteanState {
    /// Each colour's protean man's square, `Square::NONE` while it has none (not chosen yet,
    /// or captured: a side has at most one protean man, and a captured one is not replaced).
    pub(crate) marks: [Square; 2],
    /// Choices still to be made before play, the side to move's first: 2 at the start (the side
    /// to move, then its opponent), 1 (the side to move only), 0 once play has begun. Counted
    /// rather than named per colour so that the value is the same for the colour-swapped image
    /// of a position.
    pub(crate) to_choose: u8,
}

impl ProteanState {
    /// No protean man and no choice: every position of a variant without `[protean]`.
    pub(crate) const NONE: ProteanState = ProteanState { marks: [Square::NONE; 2], to_choose: 0 };

    /// The choice field as printed: `choices:2`, `choices:1`, `choices:0`.
    pub(crate) fn field(&self) -> String {
        format!("{FIELD}{}", self.to_choose)
    }
}

impl Variant {
    /// Whether this variant's position strings end with the protean choice field (`choice =
    /// "before_play"`; the loader requires the extended form there, so the field follows the
    /// move number).
    pub(crate) fn has_protean_field(&self) -> bool {
        self.rules.protean == Some(ProteanChoice::BeforePlay)
    }

    /// Concludes the protean state of a parsed board: `marked` are the squares whose token
    /// carried `*`, `field` the text of the choice field if the string has one. Without the field
    /// (a plain FEN, such as Fairy-Stockfish's chess start), a board without marks on which each
    /// side has a non-royal man starts the choice (2 choices: the side to move's, then the
    /// other's), and any other board is in play (tools that write partial boards, such as the
    /// piece-value probes, get positions in play). Errors are `(character offset or None,
    /// message)`.
    pub(crate) fn conclude_protean(
        &self,
        board: &[Option<Piece>],
        marked: &[(usize, Square)],
        side: Color,
        field: Option<(usize, &str)>,
    ) -> Result<ProteanState, (Option<usize>, String)> {
        let Some(choice) = self.rules.protean else {
            return match marked.first() {
                None => Ok(ProteanState::NONE),
                Some(&(at, _)) => Err((
                    Some(at),
                    format!("'{MARK}' marks a protean man, and variant {} has no [protean] rule", self.name),
                )),
            };
        };
        let mut state = ProteanState::NONE;
        for &(at, sq) in marked {
            let p = board[sq.index()].expect("a marked token stands on its square");
            if self.pieces[p.kind().index()].royal {
                return Err((Some(at), "a royal man cannot be protean".into()));
            }
            let slot = &mut state.marks[p.color().index()];
            if !slot.is_none() {
                return Err((Some(at), format!("{} has two protean men (one at most)", p.color().name())));
            }
            *slot = sq;
        }
        let choosable =
            |c: Color| board.iter().flatten().any(|p| p.color() == c && !self.pieces[p.kind().index()].royal);
        state.to_choose = match (choice, field) {
            (ProteanChoice::Position, _) => 0,
            (ProteanChoice::BeforePlay, None) => {
                if marked.is_empty() && Color::BOTH.iter().all(|&c| choosable(c)) {
                    2
                } else {
                    0
                }
            }
            (ProteanChoice::BeforePlay, Some((at, text))) => {
                let n = text.strip_prefix(FIELD).and_then(|n| n.parse::<u8>().ok()).filter(|&n| n <= 2);
                n.ok_or_else(|| {
                    (
                        Some(at),
                        format!("expected the protean choice field {FIELD}0, {FIELD}1 or {FIELD}2, found {text:?}"),
                    )
                })?
            }
        };
        // The sides still to choose: the side to move, then (with 2) the other. Each must have
        // no protean man yet and a non-royal man to choose.
        let at = field.map(|f| f.0);
        let choosers = [side, side.other()];
        for &c in &choosers[..state.to_choose as usize] {
            if !state.marks[c.index()].is_none() {
                return Err((at, format!("{} is still to choose a protean man but has one already", c.name())));
            }
            if !choosable(c) {
                return Err((at, format!("{} is still to choose a protean man but has no non-royal man", c.name())));
            }
        }
        Ok(state)
    }
}
