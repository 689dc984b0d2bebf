//! The neutral token concluded (`[neutral_token]`, issue 21 rows #43-#45): its start square,
//! the rules it moves by, and the checks that refuse, naming the field, every combination the
//! move generator (`crate::movegen::neutral_token`) does not support.

use crate::{
    spec::{
        betza::{Atom, Jump},
        neutral_token_spec::TokenPath,
        variant_spec::VariantSpec,
    },
    types::{Dims, Square},
    variant::{CaptureRule, CheckingRule, FirstTurnSwap, PassRule, RoyalRule},
};

/// The token's board character in position strings (Fairy-Stockfish writes its walls and the
/// duck of Duck Chess the same way): not a letter, so it never clashes with a piece token.
pub const TOKEN_CHAR: char = '*';

/// The neutral token's rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NeutralToken {
    /// Its square in the start position.
    pub start: Square,
    /// It captures the man (either side's) it lands on; otherwise it may land only on an empty
    /// square.
    pub captures: bool,
    /// The squares it passes on a ride must be empty.
    pub path: TokenPath,
}

/// The Zobrist key of the token on `sq`: derived from the square by splitmix64 with a salt of
/// its own rather than drawn into the variant's key table, so that every other variant keeps
/// its keys and hashes.
pub(crate) fn token_key(sq: Square) -> u64 {
    let mut z = 0x4E65_7574_7261_6C54_u64 ^ (sq.index() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Checks `[neutral_token]` against the rest of the spec and concludes it, with the variant's
/// start string carrying the token (`*` on its square). `geometries` are the pieces' atoms;
/// `multi_leg` says whether any piece has multi-leg XBetza moves. Problems go to `problems`.
pub(crate) fn conclude(
    spec: &VariantSpec,
    dims: Dims,
    geometries: &[Vec<Atom>],
    multi_leg: bool,
    problems: &mut Vec<String>,
) -> Option<(NeutralToken, String)> {
    let t = spec.neutral_token.as_ref()?;
    let before = problems.len();
    let mut refuse = |what: &str| {
        problems.push(format!("field `neutral_token`: not supported together with {what}"));
    };
    // Each of these makes moves without one displacement to copy (drops, setup placements,
    // swaps, shots, passes), several moves per turn, or effects off the mover's path.
    if spec.drops.is_some() {
        refuse("`[drops]` (a drop has no displacement for the token to copy)");
    }
    if spec.setup.is_some() {
        refuse("a setup phase (`[setup]`)");
    }
    if spec.start_generator.is_some() {
        refuse("a drawn start array (`start_generator`)");
    }
    if spec.turns.is_some() {
        refuse("multi-move turns (`[turns]`)");
    }
    if spec.explosion.is_some() || spec.rebirth.is_some() {
        refuse("capture effects (`[explosion]`, `[rebirth]`)");
    }
    if spec.capture != CaptureRule::Displace {
        refuse("`capture = \"rifle\"` (a shot does not move the shooter)");
    }
    if spec.first_turn_swap != FirstTurnSwap::None {
        refuse("`first_turn_swap`");
    }
    if spec.pass != PassRule::None {
        refuse("passing (`pass`)");
    }
    if spec.checking != CheckingRule::Any {
        refuse("`checking = \"mate_only\"`");
    }
    if spec.victory.royal != RoyalRule::Checkmate {
        refuse("`victory.royal = \"capture\"` (the token's check rules assume checkmate)");
    }
    if spec.forced_capture {
        refuse("`forced_capture`");
    }
    if spec.royal_choice != crate::variant::RoyalChoice::All {
        refuse("`royal_choice`");
    }
    if spec.flying_general {
        refuse("`flying_general`");
    }
    if !spec.topology.is_flat() || spec.grid.is_some() {
        refuse("a cylinder or a grid (the token's displacement is copied on a flat board)");
    }
    if !spec.regions.is_empty() {
        refuse("regions (`[[region]]`)");
    }
    if spec.pieces.iter().any(|p| !p.powers.is_empty()) {
        refuse("pieces with `powers`");
    }
    if multi_leg {
        refuse("multi-leg XBetza moves (their path is not one line)");
    }
    if geometries.iter().flatten().any(|a| matches!(a.jump, Jump::Hop | Jump::Grasshopper)) {
        refuse("hoppers (a hop over the token is not defined)");
    }
    let Some(start) = dims.parse_square(&t.start) else {
        problems.push(format!("field `neutral_token.start`: {:?} is not a square of the board", t.start));
        return None;
    };
    if spec.start.split(' ').next().unwrap_or("").contains(TOKEN_CHAR) {
        problems.push(format!(
            "field `start`: the token is placed by `neutral_token.start`, not written as {TOKEN_CHAR:?} in `start`"
        ));
        return None;
    }
    let start_text = match with_token(&spec.start, dims, start) {
        Ok(s) => s,
        Err(e) => {
            problems.push(format!("field `neutral_token.start`: {e}"));
            return None;
        }
    };
    (problems.len() == before).then_some((NeutralToken { start, captures: t.captures, path: t.path }, start_text))
}

/// `start` (a position string without the token) with the token written on `sq`, which must be
/// an empty square of its board field.
fn with_token(start: &str, dims: Dims, sq: Square) -> Result<String, String> {
    let (board, rest) = start.split_once(' ').unwrap_or((start, ""));
    let ranks: Vec<&str> = board.split('/').collect();
    let rank = dims.rank(sq);
    let row = (dims.height as i32 - 1 - rank) as usize;
    let Some(text) = ranks.get(row) else {
        return Err(format!("the start position has no rank {}", rank + 1));
    };
    // The rank as one cell per square: `None` empty, `Some(token text)` a piece.
    let mut cells: Vec<Option<String>> = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_digit() {
            let digits: String = chars[i..].iter().take_while(|c| c.is_ascii_digit()).collect();
            i += digits.len();
            let n: usize = digits.parse().map_err(|_| format!("bad empty-square count {digits:?}"))?;
            cells.extend(std::iter::repeat_n(None, n));
        } else if c == '(' {
            let close = chars[i..].iter().position(|&c| c == ')').ok_or("'(' without ')' in `start`")?;
            cells.push(Some(chars[i..=i + close].iter().collect()));
            i += close + 1;
        } else {
            cells.push(Some(c.to_string()));
            i += 1;
        }
    }
    let file = dims.file(sq) as usize;
    match cells.get(file) {
        Some(None) => {}
        Some(Some(p)) => return Err(format!("{} holds {p} in the start position", dims.square_name(sq))),
        None => return Err(format!("rank {} of `start` is too short", rank + 1)),
    }
    let mut out = String::new();
    let mut empty = 0;
    for (f, cell) in cells.iter().enumerate() {
        let mark = if f == file { Some(TOKEN_CHAR.to_string()) } else { cell.clone() };
        match mark {
            None => empty += 1,
            Some(t) => {
                if empty > 0 {
                    out.push_str(&empty.to_string());
                    empty = 0;
                }
                out.push_str(&t);
            }
        }
    }
    if empty > 0 {
        out.push_str(&empty.to_string());
    }
    let mut ranks: Vec<String> = ranks.iter().map(|s| s.to_string()).collect();
    ranks[row] = out;
    let board = ranks.join("/");
    Ok(if rest.is_empty() { board } else { format!("{board} {rest}") })
}
