//! Multi-move turns, concluded (`[turns]`, issue 21 rows #11-#16): how many moves the turn that
//! a side starts has, and what a check does inside a turn. The position layer plays each move
//! as one ply of the same side and keeps the moves left in the turn (`position::multimove`);
//! the move generator applies the check rules (`movegen::multimove`).

pub use crate::spec::turns_spec::TurnCheckRule;
use crate::{spec::turns_spec::TurnsSpec, types::Color, variant::RoyalRule};

/// The most moves a fixed-length turn may have. Progressive turns grow without this bound; a
/// position string's turn field is limited by [`MAX_TURN_FIELD`] instead.
pub const MAX_FIXED_MOVES: u8 = 8;

/// The largest number a position string's turn field may hold (a progressive game's turn
/// index; a game capped at a few hundred plies never gets near it).
pub const MAX_TURN_FIELD: u32 = 9999;

/// How many moves a turn has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnLength {
    /// `[Blue, Tan]` moves per turn, and Blue's first turn's.
    Fixed { moves: [u8; 2], first: u8 },
    /// The game's n-th turn has n moves: Blue's turns are the odd ones.
    Progressive,
}

/// `[turns]`, validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TurnSchedule {
    pub length: TurnLength,
    pub check: TurnCheckRule,
    /// Per colour: the royal may be attacked between the side's moves if it is safe when its
    /// turn ends.
    pub safe_at_end: [bool; 2],
}

impl TurnSchedule {
    /// The number of moves of the turn that `side` starts at move number `fullmove` (a move
    /// number counts Blue's and Tan's turns together, as in chess).
    pub fn quota(&self, side: Color, fullmove: u32) -> u32 {
        match self.length {
            TurnLength::Fixed { first, .. } if side == Color::Blue && fullmove <= 1 => first as u32,
            TurnLength::Fixed { moves, .. } => moves[side.index()] as u32,
            TurnLength::Progressive => 2 * (fullmove.max(1) - 1) + 1 + side.index() as u32,
        }
    }

    /// Whether swapping the colours (and the side to move) maps the schedule to itself: the
    /// same moves per turn for both sides, the same first turn, the same check rules. The
    /// progressive schedule is not (Blue's turns are the odd ones).
    pub fn colour_symmetric(&self) -> bool {
        let symmetric_length = match self.length {
            TurnLength::Fixed { moves, first } => moves[0] == moves[1] && first == moves[0],
            TurnLength::Progressive => false,
        };
        symmetric_length && self.safe_at_end[0] == self.safe_at_end[1]
    }

    /// Reads a position string's turn field, `<moves left>/<turn length>` (`1/2`: the second
    /// move of a two-move turn), into the moves left. The length must be the one the schedule
    /// gives the side to move at this move number, so that a string from another schedule or a
    /// mistyped move number is refused rather than played with other turns. Absent, the turn
    /// starts here: all its moves are left.
    pub(crate) fn parse_turn_field(&self, field: Option<&str>, side: Color, fullmove: u32) -> Result<u16, String> {
        let length = self.quota(side, fullmove);
        let Some(text) = field else { return Ok(length.min(MAX_TURN_FIELD) as u16) };
        let bad = || {
            format!(
                "turn field {text:?}: expected `<moves left>/<turn length>`, e.g. `{length}/{length}` at the start \
                 of this turn"
            )
        };
        let (left, of) = text.split_once('/').ok_or_else(bad)?;
        let number =
            |t: &str| t.parse::<u32>().ok().filter(|n| (1..=MAX_TURN_FIELD).contains(n) && !t.starts_with('+'));
        let (left, of) = (number(left).ok_or_else(bad)?, number(of).ok_or_else(bad)?);
        if of != length {
            return Err(format!(
                "turn field {text:?}: {} has turns of {length} move(s) at move number {fullmove}, not {of}",
                side.name()
            ));
        }
        if left > of {
            return Err(format!("turn field {text:?}: more moves left ({left}) than the turn has ({of})"));
        }
        Ok(left as u16)
    }

    /// The most moves of the opponent's next turn that can capture a royal: checks before a
    /// turn's last move end the turn or are illegal except with [`TurnCheckRule::Any`].
    pub(crate) fn capture_horizon(&self, opponent: Color, fullmove_after: u32) -> u32 {
        match self.check {
            TurnCheckRule::Any => self.quota(opponent, fullmove_after),
            TurnCheckRule::EndsTurn | TurnCheckRule::LastMoveOnly => 1,
        }
    }
}

/// Concludes `[turns]`; every problem names its field.
pub(crate) fn conclude(
    spec: Option<&TurnsSpec>,
    royal: RoyalRule,
    extended_strings: bool,
    problems: &mut Vec<String>,
) -> Option<TurnSchedule> {
    let spec = spec?;
    let start = problems.len();
    let length = match (spec.moves, spec.progressive) {
        (Some(_), true) => {
            problems.push("field `turns.moves`: a progressive schedule grows by itself; leave `moves` out".into());
            TurnLength::Progressive
        }
        (None, false) => {
            problems.push("field `turns.moves`: give the moves per turn `[blue, tan]` or `progressive = true`".into());
            TurnLength::Progressive
        }
        (None, true) => {
            if spec.first.is_some() {
                problems.push("field `turns.first`: a progressive schedule's first turn has one move".into());
            }
            TurnLength::Progressive
        }
        (Some(moves), false) => {
            let first = spec.first.unwrap_or(moves[0]);
            for (what, n) in [("moves", moves[0]), ("moves", moves[1]), ("first", first)] {
                if !(1..=MAX_FIXED_MOVES).contains(&n) {
                    problems.push(format!("field `turns.{what}`: {n} moves per turn is outside 1..={MAX_FIXED_MOVES}"));
                }
            }
            TurnLength::Fixed { moves, first }
        }
    };
    let mut safe_at_end = [false; 2];
    for &side in &spec.safe_at_end {
        let c: Color = side.into();
        if std::mem::replace(&mut safe_at_end[c.index()], true) {
            problems.push(format!("field `turns.safe_at_end`: {} is listed twice", c.name()));
        }
    }
    if royal == RoyalRule::Capture {
        // Without check, royals are simply captured: nothing for the check rules to act on.
        if spec.check != TurnCheckRule::Any {
            problems.push(
                "field `turns.check`: with `victory.royal = \"capture\"` there is no check; write `check = \"any\"`"
                    .into(),
            );
        }
        if !spec.safe_at_end.is_empty() {
            problems.push("field `turns.safe_at_end`: with `victory.royal = \"capture\"` there is no check".into());
        }
    }
    if spec.progressive && spec.check == TurnCheckRule::Any && royal == RoyalRule::Checkmate {
        // A side's move would be legal only if no series of the opponent's growing turn could
        // take its royal: a search as deep as the turn is long.
        problems.push(
            "field `turns.check`: `any` with a progressive schedule is not supported (legality would need a \
             search as deep as the turn); use `ends_turn` or `last_move_only`"
                .into(),
        );
    }
    if spec.progressive && !spec.safe_at_end.is_empty() {
        problems.push(
            "field `turns.safe_at_end`: not supported with a progressive schedule (a move's legality would need \
             a search to the end of the turn)"
                .into(),
        );
    }
    if !extended_strings {
        // The turn field follows the move number, which progressive turns are counted from.
        problems.push(
            "field `turns`: multi-move turns need the extended position string (castling, en passant, clocks), \
             which this variant does not use; give it `notation = \"uci\"`, castling or an en-passant piece"
                .into(),
        );
    }
    (problems.len() == start).then_some(TurnSchedule { length, check: spec.check, safe_at_end })
}
