//! Named special powers: what Betza cannot say, as reusable, parameterised modules, one per
//! kind. A piece lists its powers in its variant file (`powers = [{ kind = "...", ... }]`);
//! Scirocco, Typhoon and Jupiter compose the same modules instead of copying code. Directions
//! and targets are themselves written in Betza; unknown kinds and parameters are refused when
//! the variant loads.
//!
//! This is the one table of every power kind (a test checks it against [`PowerSpec`]):
//!
//! | kind | parameters | what it does | pieces |
//! | --- | --- | --- | --- |
//! | `relay` | `reach` (`adjacent`; `open_lines` + `range`, no `range` = unlimited; `{ leap = "N" }`: the squares a Betza leaper reaches), `grants` (Betza leapers and riders, `m` = non-capturing), `landing` (`any`, `across`, `across_or_around`, `next_to_relayer`) | the first friendly piece along each `reach` direction gains the granted moves (a relayed ride stops at the first piece; the recipient may be immobilized, the relayer not); a relayed move with the same origin and destination as an own move is that own move (promotable, with its automatic captures); the others never promote and carry no special capture | Dervish (Jupiter 1999: `DA`, `across`; Scirocco: `FDA`, `across_or_around` is ruling R-S3, `next_to_relayer` the page's broad sentence), Harpy (Jupiter: `{ leap = "N" }`, `N`; Scirocco: `open_lines` 3), Relay Wazir (`adjacent`, `W`, `any`), Relay Firzan (`F`), Zoom (`open_lines`, `mQ`, `any`) |
//! | `igui` | `targets` | removes an enemy on a target square (the first piece along a rider line) without moving | Genie, Parrot, Raven, Horned Owl, Diving Osprey, Emperor of Emperors (shooting, `targets = "Q"`) |
//! | `hop_capture` | `over`, `double` | jumps an adjacent enemy to the square behind, capturing it (and an enemy on the landing square with `double`) | Zig, Zag, Overtaker, Parrot family |
//! | `bent_rider` | `first`, `stop_first`, `then` | one step to an empty square, then a ride in the directions pointing away from the origin | Octopus, Spider, Wagon (straight on, may not stop next to itself) |
//! | `pass` | — | the owner may pass while this piece can act | Parrot family |
//! | `convert` | `targets` | turns an enemy on a target square into a friendly piece without moving | Cuckoo |
//! | `swap` | `targets` | exchanges places with any piece on a target square | Hummingbird |
//! | `long_leap` | `dirs` | checkers-style jumps over single enemies along one line | Longleaper |
//! | `approach` | `dirs` (W/F-based, each with its range: `WB2`), `range` (optional: one range for one-step `dirs`), `effect` (`convert`, `capture_one`, `capture_line`), `optional` (default false) | non-capturing moves to empty squares; the enemy right beyond, straight on, is converted (`~sq`), captured, or captured with the enemies in line behind it; automatic, or with `optional` a second move beside the plain one | Typhoon's Missionary and Sorcerer (`dirs = "K", range = 2`), Jupiter's Missionary and Sorcerer (`dirs = "WB2", optional = true`), Neartaker (`dirs = "K", effect = "capture_one"`) |
//! | `withdraw` | `dirs` (W/F-based steps or riders) | non-capturing moves to empty squares; moving straight away from an adjacent enemy captures it | Undertaker (`K`), Withdrawer (`Q`) |
//! | `immobilize` | `reach` | enemy pieces on the reached squares make no move of their own (no powers, no relaying, no pass), may still be relayed or swapped, and may capture themselves | Immobilizer |
//! | `hop_rider` | `dirs`, `range` | slides of 2..=`range` squares that must jump at least one piece | Cicada |
//! | `sweep` | `dirs`, `range` | slides through enemies, capturing each one passed, never past a friend | Typhoon |
//! | `supported_slide` | `dirs`, `min`, `max` | non-capturing slides that must end next to another friendly piece | Salamander |
//! | `path` | `legs`: each `{ dirs, stop, turn, next_from_end, min }` | legs walked in sequence, each a ride in `dirs` (W/F-based Betza); later legs with `turn` (`f`, `fs`, `s`, `bs`, `b`, comma-separated) take only the directions at that turn from the previous leg; walked squares must be empty (the start counts as empty), a friend or the edge ends the walk; it stops or captures on squares of legs with `stop` (default true), a capture ends the move; the next leg starts from any empty square of a leg, or only after its full range with `next_from_end`; a leg's first `min - 1` squares (default `min` 1) are passed only (empty, no stop, no next leg); routes to one square are one move | Hooklet, Hawklet, Eye, Yew, Capricorn, Great Hook, Far Queen, Talia, Zebra (#56) |
//! | `zigzag` | `dirs` | crooked rider: a first step d1 from `dirs` alternating with a perpendicular d2 from `dirs`; stops on any empty square, captures the first enemy; zig-zags meeting on a square are one move | Boyscout (`F`), Girlscout (`W`) |
//! | `capture_continue` | `first`, `then`, `turn`, `may_return` | a `first` leap captures an enemy on x, then a `then` leap from x (at a `turn` from the first leap, if given) ends on an empty square or captures a second enemy (`e4f5xe5`); with `may_return` ending on the start square is an igui (`a1a1xb2`); the plain capture stopping on x is the piece's Betza | Toucan, Crow (`turn = "s"`), Tiger Horse, King Lion (`may_return`) |
//! | `general_jump` | `dirs`, `stoppers` (tokens; `royal` = every royal type) | along each `dirs` line, captures any enemy beyond the first piece met, over pieces of either colour; the first stopper ends the line and is never jump-captured; no jump to empty squares (plain moves are the piece's Betza) | Bishop General, Rook General |
//! | `hop_chain` | — | one or more grasshopper hops (any direction each); an empty landing may go on, an enemy landing is captured and ends the chain; the start square is empty during the chain and never its end; one move per destination | Halmopper |
//! | `custodian` | `dirs` (W/F-based steps or riders) | non-capturing moves to empty squares; every enemy next to the arrival square with a friendly piece (any type; not the vacated start) right behind it is captured, all at once | Intertaker (`K`) |
//! | `coordinate` | `dirs` (W/F-based) | non-capturing moves to empty squares; for each friendly royal, enemies on (royal's file, arrival rank) and (arrival file, royal's rank) are captured | Coordinator (`Q`) |
//! | `purge_promoted` | `dirs` (W/F-based, move or capture) | moves and captures; every promoted piece (a type some type promotes to) of either side next to the arrival square is captured too (`c3e5xf4xd6xe6`) | Communist (`WB2`) |
//! | `royal_leap` | — | leaps next to any friendly royal: moves, captures an enemy, or removes a friendly non-royal there; never onto a friendly royal (the piece's moves are de-duplicated) | Royalist (Betza `FR2`) |
//! | `roam_unguarded` | — | moves to any empty square of the board; captures any enemy man anywhere that no man of the enemy side guards: none could capture on its square by its ordinary (Betza) moves once the roamer has left its own square, pins ignored (a pinned guard still counts; the enemy's own roaming is no guard); ordinary captures of guarded men stay with the piece's Betza (the piece's moves are de-duplicated) | Emperor King Chess's king (Betza `K`, list #36) |
//! | `tank_push` | `dirs` (one-step), `max_pushed` | steps onto a friend, pushing up to `max_pushed` friends one square on; the last captures an enemy or leaves the board; `MoveKind::Shove`, `x` lists captures and own pieces pushed off (not the one from `to`) | Ox Tank (`W`, 2), Dragon Tank (`F`, 2) |
//! | `pull` | `reach` (W/F-based directions), `min` (>= 2), `max` | stationary: pulls the enemy that is the first piece on a line, `min..=max` away, one square closer (`MoveKind::Pull`, `d4d4<d7`) | Come Here (`Q`, 2, 4) |
//! | `push_away` | `reach` (W/F-based directions), `max` | stationary: pushes the enemy that is the first piece on a line, at most `max` away, one square further onto an empty square (`MoveKind::Push`, `e5e5>e6`) | Go Away (`Q`, 3) |
//! | `reproduce` | `targets` (leaps or riders) | stationary: a new piece of the mover's type appears on an empty target square (`MoveKind::Reproduce`, `e4e4&c4`) | Tribble (`D`) |
//! | `teleport` | — | lends non-capturing moves to empty squares: a friendly piece next to the Teleporter moves to the same offset from any friendly royal; a friendly piece (not the Teleporter) next to a friendly royal moves to the same offset from the Teleporter; own power first and never promoting, as `relay` | Teleporter (Jupiter 1999, ruling 11.11) |
//! | `double` | `sight` (W/F-based lines) | latent, no moves of its own: at the start of a turn the first piece along each line, of either side and not immobilized, may make a doubled turn (two actions attributable to it, `a,b`; `movegen/doubled.rs`, jupiter.md §5.3) | Doubler (`Q`) |
//! | `poison_sight` | `sight` (W/F-based lines) | latent, no moves of its own: at the start of a turn the first piece along each line, of either side, is poisonous for that turn (the turn procedure in `position/turn.rs`, jupiter.md §5.4) | Poisoner (`Q`) |
//!
//! Most kinds generate the moves of the piece that has them (`Position::own_power_moves`
//! dispatches to one module per kind). Four act on other pieces and are called by the driver:
//! `relay` and `teleport` (moves for the recipients, after every own move is known, both through
//! `relay::moves`; `relay::moves_from_relayer` gives those of one relayer, for doubled turns),
//! `immobilize` (which pieces may not move) and `pass` (one move per position).
//!
//! # Adding a power
//!
//! 1. Add the kind with its parameters to [`PowerSpec`] (`spec/power_spec.rs`) and classify its
//!    left-right symmetry in `spec/mirror.rs` (the match is exhaustive on purpose).
//! 2. Add its compiled form to `Power` and check its parameters in `PowerSpec::conclude`
//!    (`variant/powers.rs`): directions resolved per colour, every bad value an error.
//! 3. Write `movegen/powers/<kind>.rs` with a `moves` function pushing into a `MoveSink`,
//!    add its arm to `Position::own_power_moves` and its row to the table above.
//! 4. Add a worked example or perft line for a piece that uses it (`rules/tests/`).

mod approach;
mod bent_rider;
mod capture_continue;
mod convert;
mod coordinate;
mod custodian;
mod general_jump;
mod hop_capture;
mod hop_chain;
mod hop_rider;
mod igui;
pub(crate) mod immobilize;
mod long_leap;
pub(crate) mod pass;
mod path;
mod pull;
mod purge_promoted;
mod push_away;
pub(crate) mod relay;
mod reproduce;
mod roam_unguarded;
mod royal_leap;
mod supported_slide;
mod swap;
mod sweep;
mod tank_push;
mod teleport;
mod withdraw;
mod zigzag;

#[cfg(doc)]
use crate::spec::power_spec::PowerSpec;
use crate::{
    movegen::MoveSink,
    position::Position,
    types::{Piece, Square},
    variant::powers::{Dir, Power},
};

/// The eight king directions.
pub(crate) const KING_DIRS: [(i32, i32); 8] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)];

impl Position {
    /// Moves that a piece's own powers give it (everything but relays, generated for the
    /// recipients by [`relay::moves`], immobilizing, which takes moves away, and the pass, which
    /// is one per position).
    pub(crate) fn own_power_moves<S: MoveSink>(&self, from: Square, p: Piece, out: &mut S) {
        let c = p.color().index();
        for power in &self.variant().powers[p.kind().index()] {
            match power {
                Power::Relay { .. } | Power::Teleport | Power::Pass | Power::Immobilize { .. } => {}
                // Latent: read by the turn procedure and the doubled-turn generator, no moves.
                Power::Double { .. } | Power::PoisonSight { .. } => {}
                Power::Igui { targets } => igui::moves(self, from, p, &targets[c], out),
                Power::Convert { targets } => convert::moves(self, from, p, &targets[c], out),
                Power::Swap { targets } => swap::moves(self, from, p, &targets[c], out),
                Power::HopCapture { over, double } => hop_capture::moves(self, from, p, &over[c], *double, out),
                Power::HopRider { dirs, range } => hop_rider::moves(self, from, p, &dirs[c], *range, out),
                Power::Sweep { dirs, range } => sweep::moves(self, from, p, &dirs[c], *range, out),
                Power::SupportedSlide { dirs, min, max } => {
                    supported_slide::moves(self, from, p, &dirs[c], (*min, *max), out)
                }
                Power::LongLeap { dirs } => long_leap::moves(self, from, p, &dirs[c], out),
                Power::Approach { dirs, effect, optional } => {
                    approach::moves(self, from, p, &dirs[c], (*effect, *optional), out)
                }
                Power::Custodian { dirs } => custodian::moves(self, from, p, &dirs[c], out),
                Power::Coordinate { dirs } => coordinate::moves(self, from, p, &dirs[c], out),
                Power::PurgePromoted { dirs } => purge_promoted::moves(self, from, p, &dirs[c], out),
                Power::RoyalLeap => royal_leap::moves(self, from, p, out),
                Power::RoamUnguarded => roam_unguarded::moves(self, from, p, out),
                Power::TankPush { dirs, max_pushed } => tank_push::moves(self, from, p, &dirs[c], *max_pushed, out),
                Power::Pull { reach, min, max } => pull::moves(self, from, p, &reach[c], (*min, *max), out),
                Power::PushAway { reach, max } => push_away::moves(self, from, p, &reach[c], *max, out),
                Power::Reproduce { targets } => reproduce::moves(self, from, p, &targets[c], out),
                Power::Withdraw { dirs } => withdraw::moves(self, from, p, &dirs[c], out),
                Power::BentRider { first, stop_first, then } => {
                    bent_rider::moves(self, from, p, (&first[c], *stop_first, &then[c]), out)
                }
                Power::Path { legs } => path::moves(self, from, p, legs, out),
                Power::Zigzag { dirs } => zigzag::moves(self, from, p, &dirs[c], out),
                Power::CaptureContinue { first, then, turn, may_return } => {
                    capture_continue::moves(self, from, p, (&first[c], &then[c], *turn, *may_return), out)
                }
                Power::GeneralJump { dirs, stoppers } => general_jump::moves(self, from, p, &dirs[c], stoppers, out),
                Power::HopChain => hop_chain::moves(self, from, p, out),
            }
        }
    }
}

/// The square `(dx, dy)` away from `sq`, if it is on the board.
#[inline]
pub(crate) fn offset(pos: &Position, sq: Square, dx: i32, dy: i32) -> Option<Square> {
    let d = pos.variant().dims;
    d.square(d.file(sq) + dx, d.rank(sq) + dy)
}

/// The empty squares along `d` within its range, up to the first piece (a leap looks at one
/// square only).
fn empty_squares<'a>(pos: &'a Position, from: Square, d: &'a Dir) -> impl Iterator<Item = Square> + 'a {
    let limit = if d.max_steps == 0 { i32::MAX } else { d.max_steps as i32 };
    (1..=limit)
        .map_while(move |n| offset(pos, from, d.dx as i32 * n, d.dy as i32 * n))
        .take_while(move |&sq| pos.piece_at(sq).is_none())
}

/// The first piece met along `d` within its range (a leap looks at one square only).
fn first_piece(pos: &Position, from: Square, d: &Dir) -> Option<Square> {
    let limit = if d.max_steps == 0 { i32::MAX } else { d.max_steps as i32 };
    let mut n = 1;
    while n <= limit {
        let sq = offset(pos, from, d.dx as i32 * n, d.dy as i32 * n)?;
        if pos.piece_at(sq).is_some() {
            return Some(sq);
        }
        n += 1;
    }
    None
}

/// The enemies that `p` on `from` sees first along its target directions: what `igui` captures
/// and `convert` turns.
fn enemies_in_sight<'a>(
    pos: &'a Position,
    from: Square,
    p: Piece,
    targets: &'a [Dir],
) -> impl Iterator<Item = Square> + 'a {
    targets
        .iter()
        .filter_map(move |d| first_piece(pos, from, d))
        .filter(move |&sq| pos.piece_at(sq).is_some_and(|q| q.color() != p.color()))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use crate::spec::power_spec::PowerSpec;

    /// The kinds named in the first column of this module's table.
    fn documented_kinds() -> BTreeSet<String> {
        include_str!("mod.rs")
            .lines()
            .filter_map(|line| line.strip_prefix("//! | `"))
            .filter_map(|rest| rest.split('`').next())
            .map(str::to_string)
            .collect()
    }

    /// The kinds serde accepts: an unknown kind's error lists every variant of the enum, so a
    /// kind added to `PowerSpec` without a row in the table fails here.
    fn accepted_kinds() -> BTreeSet<String> {
        let error = toml::from_str::<PowerSpec>("kind = \"no_such_power\"").expect_err("an unknown kind is refused");
        let message = error.to_string();
        let listed = message.split("expected one of").nth(1).unwrap_or_else(|| panic!("no list in {message:?}"));
        listed.split('`').skip(1).step_by(2).map(str::to_string).collect()
    }

    #[test]
    fn the_table_lists_every_power_kind_and_nothing_else() {
        let accepted = accepted_kinds();
        assert!(accepted.contains("relay") && accepted.contains("supported_slide"), "{accepted:?}");
        assert_eq!(documented_kinds(), accepted);
    }
}
