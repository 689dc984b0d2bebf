//! Named special powers as a variant file writes them: [`PowerSpec`], one serde variant per
//! power kind, with the kind's parameters (directions and targets in Betza).
//!
//! The table of every kind (what it does, its parameters, the pieces that use it) and how to
//! add one are in [`crate::movegen::powers`]. Unknown kinds and unknown parameters are refused
//! when the variant loads; the variant layer (`crate::variant::powers`) checks the parameters'
//! values and resolves the directions for each colour.

use serde::{Deserialize, Serialize};

/// How a relayer finds the pieces it empowers (friendly pieces only; never itself).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RelayReach {
    /// The eight neighbours (Dervish, Relay Wazir, Relay Firzan).
    Adjacent,
    /// The first piece on each of the eight queen lines, within `range` squares if given
    /// (Scirocco's Harpy: 3), else unlimited (Zoom: the pieces it sees).
    OpenLines,
    /// The squares a Betza leaper reaches from the relayer, written `reach = { leap = "N" }`
    /// (Jupiter's 1999 Harpy: pieces a Knight's leap away).
    Leap(String),
}

/// Which granted moves a recipient may make, judged by where they land relative to the relayer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RelayLanding {
    /// Every granted move (Harpy, Relay Wazir, Relay Firzan, Zoom).
    Any,
    /// Only the leap straight across the relayer, to relayer − v for a recipient on relayer + v
    /// (Jupiter's 1999 Dervish, jupiter.md §3.5).
    Across,
    /// Leaps straight across the relayer, and steps from an orthogonal neighbour to the
    /// squares orthogonally next to the relayer (Scirocco ruling R-S3: the Dervish).
    AcrossOrAround,
    /// Every granted move that ends next to the relayer (the Scirocco page's general sentence,
    /// which R-S3 overrules; kept as a switch so designers can compare).
    NextToRelayer,
}

/// A power as written in a variant file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum PowerSpec {
    /// Friendly pieces the relayer reaches gain the granted moves (Dervish, Harpy, Relay
    /// Wazir, Relay Firzan, Zoom).
    Relay {
        reach: RelayReach,
        /// Squares for `open_lines`, absent for unlimited (the other reaches must leave it out).
        #[serde(default)]
        range: Option<u8>,
        /// Betza leapers and riders granted to each recipient, from the recipient's square;
        /// `m` makes them non-capturing (Zoom: `mQ`).
        grants: String,
        landing: RelayLanding,
    },
    /// Captures a reachable enemy without moving (Genie, Parrot family, shooting).
    Igui {
        /// Betza geometry of the squares whose enemy can be taken without moving.
        targets: String,
    },
    /// Jumps an adjacent enemy to the empty square behind, capturing it (Zig, Zag, Overtaker).
    HopCapture {
        /// Betza one-step atoms (`W`, `F`, `K`, directional forms) naming the directions.
        over: String,
        /// The landing square may also hold an enemy, which is captured too (Parrot family).
        #[serde(default)]
        double: bool,
    },
    /// The owner may pass its turn while this piece can act (Typhoon: one pass per position).
    Pass,
    /// Slides of 2..=`range` squares that must jump at least one piece (Cicada).
    HopRider { dirs: String, range: u8 },
    /// Slides up to `range` squares through enemies, capturing every one passed (Typhoon).
    Sweep { dirs: String, range: u8 },
    /// Non-capturing slides of `min..=max` squares ending next to a friendly piece (Salamander).
    SupportedSlide { dirs: String, min: u8, max: u8 },
    /// Converts an enemy on a target square to the mover's side without moving (Cuckoo).
    Convert { targets: String },
    /// Exchanges places with any piece on a target square (Hummingbird).
    Swap { targets: String },
    /// Checkers-style jumps over single enemies along one line, capturing them (Longleaper).
    LongLeap { dirs: String },
    /// Non-capturing moves to empty squares; the enemy right beyond the landing square is
    /// converted (`convert`), captured (`capture_one`) or captured with the enemies behind it
    /// (`capture_line`).
    Approach {
        /// Betza W/F-based leaps or riders, each with its own range (`WB2`).
        dirs: String,
        /// One range for every direction of one-step `dirs` (Typhoon: `dirs = "K", range = 2`);
        /// absent, the ranges are those of `dirs`.
        #[serde(default)]
        range: Option<u8>,
        effect: ApproachEffect,
        /// The effect is a choice: the plain move exists beside the one with the effect (1999
        /// Missionary and Sorcerer).
        #[serde(default)]
        optional: bool,
    },
    /// Non-capturing moves to empty squares along `dirs` (W/F-based steps or riders), capturing
    /// the adjacent enemy left behind on the opposite side (Undertaker, Withdrawer).
    Withdraw { dirs: String },
    /// Enemy pieces on the reached squares can make no move of their own (Immobilizer).
    Immobilize { reach: String },
    /// One step to an empty square, then a ride pointing away from the origin (Octopus, Wagon).
    BentRider {
        /// Betza one-step atoms of the first step (to an empty square).
        first: String,
        /// Whether the piece may stop after the first step.
        stop_first: bool,
        /// Betza rider continuing from the bend, in the directions pointing away from the
        /// origin (positive dot product with the first step).
        then: String,
    },
    // Jupiter's powers (jupiter.md §3.4, §5). Until a kind's module lands, `conclude` refuses
    // it by name: a variant file that asks for it fails to load.
    /// A bent or multi-leg path (Hooklet, Hawklet, Eye, Yew, Capricorn, Great Hook, Far
    /// Queen, Talia): legs in sequence, each a ride in Betza directions; routes to the same
    /// square are one move.
    Path { legs: Vec<PathLegSpec> },
    /// Zig-zag rider alternating two perpendicular steps (Boyscout `F`, Girlscout `W`).
    Zigzag {
        /// Betza one-step atoms: each is a first step, alternating with a perpendicular one.
        dirs: String,
    },
    /// A capture followed by a second step or capture (Toucan, Crow, Tiger Horse, King Lion).
    CaptureContinue {
        /// Betza leaps of the first leg, which must capture an enemy (the capturer does not
        /// stop there: plain captures belong to the piece's Betza).
        first: String,
        /// Betza leaps of the continuation from the first victim's square, to an empty square
        /// or capturing a second enemy.
        then: String,
        /// Turns the continuation may take relative to the first leg (`f`, `fs`, `s`, `bs`,
        /// `b`, separated by commas; Toucan and Crow: `s`); absent, `then` is absolute.
        #[serde(default)]
        turn: Option<String>,
        /// The piece may end on its own square (King Lion's capture-and-return: igui).
        #[serde(default)]
        may_return: bool,
    },
    /// Jump captures along lines over pieces that are not stoppers (Bishop and Rook Generals).
    GeneralJump {
        /// Betza riders along which it jumps.
        dirs: String,
        /// Tokens of the pieces that can be neither jumped nor jump-captured, of either side;
        /// `royal` stands for every royal type.
        stoppers: Vec<String>,
    },
    /// Chains of grasshopper hops (Halmopper).
    HopChain,
    /// A move to an empty square along `dirs` capturing every enemy trapped against a friend
    /// (Intertaker).
    Custodian { dirs: String },
    /// Non-capturing moves along `dirs`, capturing on the squares where the arrival square's
    /// file and rank cross a friendly royal's (Coordinator).
    Coordinate { dirs: String },
    /// Moves and captures along `dirs`, capturing every promoted piece next to the arrival square
    /// (Communist).
    PurgePromoted { dirs: String },
    /// Leaps to any square next to a friendly royal piece (Royalist).
    RoyalLeap,
    /// Goes to any empty square, and captures any enemy on the board that no man of its own side
    /// guards (Emperor King Chess's king, list #36).
    RoamUnguarded,
    /// Steps onto a friend and pushes the line ahead (Ox and Dragon Tanks).
    TankPush { dirs: String, max_pushed: u8 },
    /// Pulls a piece it sees towards itself (Come Here).
    Pull { reach: String, min: u8, max: u8 },
    /// Pushes a piece it sees away (Go Away).
    PushAway { reach: String, max: u8 },
    /// Creates a new piece of its type on a target square (Tribble).
    Reproduce { targets: String },
    /// Non-capturing teleports lent to friendly pieces: from next to the Teleporter to the same
    /// offset from a friendly royal, and from next to a royal to the same offset from the
    /// Teleporter (jupiter.md §3.4, ruling 11.11).
    Teleport,
    /// Latent: pieces it sees may make two actions in a turn (Doubler).
    Double { sight: String },
    /// Latent: pieces it sees are poisonous for the turn (Poisoner).
    PoisonSight { sight: String },
}

/// One leg of a [`PowerSpec::Path`]: a ride of min..=range squares in one of its directions.
/// The walk stops at a friend or the board edge; an enemy may be captured (ending the move)
/// where the piece may stop; the start square counts as empty once left.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathLegSpec {
    /// Betza directions and range of the leg (`W2`, `B`, `vW2`, `fW3`); with `turn`, only the
    /// directions at an allowed turn from the previous leg count.
    pub dirs: String,
    /// Whether the piece may stop (or capture) on the squares of this leg; `false`: they are
    /// only passed and must be empty (Far Queen, Talia).
    #[serde(default = "yes")]
    pub stop: bool,
    /// For later legs: the allowed turns relative to the previous leg's direction (`f` straight
    /// on, `fs` 45°, `s` 90°, `bs` 135°, `b` back, separated by commas: the Hawklet's
    /// `"f,fs,s,bs"`); absent, `dirs` is absolute.
    #[serde(default)]
    pub turn: Option<String>,
    /// The next leg starts only after this leg's full range (Eye, Far Queen); otherwise from
    /// any empty square of this leg (Hooklet, Capricorn).
    #[serde(default)]
    pub next_from_end: bool,
    /// The leg's minimum length: its first `min - 1` squares are only passed (they must be
    /// empty; no stop, capture or next leg there). Default 1; above 1 only on a ride (the
    /// zebra of list #56: one diagonal step, then 3 or more straight on at 45°).
    #[serde(default = "one")]
    pub min: u8,
}

fn yes() -> bool {
    true
}

fn one() -> u8 {
    1
}

/// What an approach does to the enemy right beyond its landing square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApproachEffect {
    Convert,
    CaptureOne,
    CaptureLine,
}
