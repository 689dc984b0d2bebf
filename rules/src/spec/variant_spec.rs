//! The serde-level specification of a variant: [`VariantSpec`] and its parts, exactly as a
//! variant file (after `extends` resolution) writes them.

use serde::{Deserialize, Serialize};

use crate::spec::{
    capture_spec::{ExplosionSpec, RebirthSpec},
    drops_spec::DropsSpec,
    power_spec::PowerSpec,
    setup_spec::{SetupSpec, StartGeneratorSpec},
};

/// How moves are written. `uci` is Fairy-Stockfish's UCI form (`e7e8q`, `e1g1`), used for the
/// variants it knows; `fairyzero` is the suffix form of `docs/notation.md` (`e7e8+`, `d4d4xe5`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum NotationStyle {
    Uci,
    #[default]
    Fairyzero,
}

/// A game result from the point of view of the side it applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameValue {
    Win,
    Draw,
    Loss,
}

/// What happens to royal pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RoyalRule {
    /// Chess: a move that leaves any own royal attacked is illegal; no legal move while a royal
    /// is attacked is checkmate (a loss).
    #[default]
    Checkmate,
    /// Adrian King's games: no check rule; a side whose last royal is captured loses.
    Capture,
}

/// How a capture is made (issue 21, row #32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum CaptureRule {
    /// The capturer takes the victim's place (every game but Rifle Chess).
    #[default]
    Displace,
    /// Rifle Chess: every capture is a shot. The capturer stays where it stands and the victim
    /// is removed; a capture therefore never promotes. Applies to every capturing move a piece
    /// has, en passant included (the pawn stays, the passed pawn is removed).
    Rifle,
}

/// Which checks a move may give (issue 21, row #4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum CheckingRule {
    /// Any check.
    #[default]
    Any,
    /// Checkless (Prohibition) Chess: a move that gives check is illegal unless it mates, that
    /// is, unless the checked side then has no legal move under these same rules.
    MateOnly,
}

/// Extra moves a side has on its first turn (issue 21, row #6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum FirstTurnSwap {
    /// None.
    #[default]
    None,
    /// Transcendental Chess: instead of moving, exchange two of one's own men of different
    /// types on one's first rank (`crate::movegen::first_turn_swap`).
    BackRank,
}

/// Which of a side's royal pieces count for check and mate (issue 21, row #71).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RoyalChoice {
    /// Every royal piece (Twin Chess: a check on any of them counts).
    #[default]
    All,
    /// Only the one met first in the order a1, a2, ..., a8, b1, ... (files from the left, each
    /// from rank 1 up, for both colours: ICS wild 9, cutechess `twokings`); the others are
    /// ordinary pieces until the royal one moves behind them in that order or is captured.
    FirstByFile,
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// When a bared side loses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum BareRule {
    #[default]
    None,
    /// A side reduced to exactly one piece loses at once (Scirocco, Typhoon). Shatranj's bare
    /// king is an extinction rule with a claim (see [`ExtinctionSpec`]).
    OnePieceLoses,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RepetitionRule {
    /// Threefold repetition draws (chess family). Never changes move legality.
    #[default]
    ThirdDraws,
    /// A move creating the third occurrence is illegal; a player with only such moves loses
    /// (Scirocco, Typhoon, Jupiter).
    ThirdIllegal,
    /// The fourth occurrence draws (Chushin Shogi's sennichite, §8.6): same pieces on the same
    /// squares and the same side to move, counted over the whole game, passes counting as moves;
    /// whether the previous move was a pass is not part of the position.
    FourthDraws,
    /// Xiangqi's perpetual check, simplified: at the third occurrence of a position, a side
    /// whose every move since the first occurrence gave check loses; otherwise (neither side,
    /// or both) the game is drawn. Perpetual chasing is not detected.
    ThirdPerpetualCheckLoses,
    /// Repetition has no effect.
    Ignored,
}

/// Who may pass, designed for the seed games even before their passing pieces exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum PassRule {
    #[default]
    None,
    /// One pass move per position, available if any passing piece can act (Typhoon).
    OnePerPosition,
    /// Each passing piece has its own pass; no pass directly after a pass (Chushin Shogi).
    PerPieceNoDoublePass,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum PromotionTrigger {
    /// The move ends in the zone (chess).
    #[default]
    EndsInZone,
    /// The move starts or ends in the zone (Scirocco, Typhoon, shogi).
    StartsOrEndsInZone,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum PromotionMandatory {
    /// A promotable move must promote (chess).
    #[default]
    Always,
    /// Promotion is optional everywhere; declining is a separate move (Scirocco).
    Never,
    /// Optional in the zone, compulsory on the last rank (Grand chess).
    OnLastRank,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromotionSpec {
    /// Depth of the promotion zone, in ranks counted from the far edge.
    #[serde(default = "one")]
    pub zone_ranks: u8,
    #[serde(default)]
    pub trigger: PromotionTrigger,
    #[serde(default)]
    pub mandatory: PromotionMandatory,
    /// A piece may only be promoted to if the owner has fewer of it than at the start (Grand).
    #[serde(default)]
    pub limit_to_captured: bool,
}

fn one() -> u8 {
    1
}

impl Default for PromotionSpec {
    fn default() -> Self {
        PromotionSpec {
            zone_ranks: 1,
            trigger: PromotionTrigger::default(),
            mandatory: PromotionMandatory::default(),
            limit_to_captured: false,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CastlingSpec {
    /// Token of the piece that castles (it must stand on its side's first rank).
    pub king: String,
    /// Token of the rook-like partner.
    pub rook: String,
    /// File letter the king lands on when castling toward the higher files (with
    /// `queenside_file`: one castling king, castling with the outermost rook on each side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kingside_file: Option<char>,
    /// File letter the king lands on when castling toward file `a`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queenside_file: Option<char>,
    /// Instead of the two files: each castling move by name, for kings that castle with given
    /// rooks (Double King Chess: each king with its nearer rook; Double Chess: each king with
    /// either rook of its half; ICS wild 1: from a king on d or e). See
    /// `crate::variant::castling`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moves: Vec<CastleMoveSpec>,
}

/// One castling move (`[[castling.moves]]`), by files on the mover's first rank: the king on
/// file `king` and the rook on file `rook` castle, the king landing on `king_to` and the rook
/// beside it on the side it came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CastleMoveSpec {
    pub king: char,
    pub rook: char,
    pub king_to: char,
}

/// Extinction, with Fairy-Stockfish's semantics (`docs/reference-variants.md` §1.1): after
/// each move, for the side that just moved and then the side to move, a side with at most
/// `count` pieces of a listed type (all pieces together for `"*"`), while the other side has at
/// least `opponent_count` of them (one more against the side to move when `claim` is set), has
/// gone extinct and gets `value`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtinctionSpec {
    /// Tokens of the piece types that count, or `["*"]` for every piece.
    pub pieces: Vec<String>,
    #[serde(default)]
    pub count: u16,
    #[serde(default)]
    pub opponent_count: u16,
    #[serde(default)]
    pub claim: bool,
    /// Value for the side that went extinct.
    pub value: GameValue,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VictorySpec {
    #[serde(default)]
    pub royal: RoyalRule,
    /// Value for the side to move when it has no legal move and is not checkmated.
    #[serde(default = "draw")]
    pub stalemate: GameValue,
    /// Value for the side to move when it is checkmated: `loss` (default) or `win` (Reflex
    /// Chess, issue 21 row #3: the mated side wins; `crate::movegen::must_mate`).
    #[serde(default = "loss", skip_serializing_if = "is_loss")]
    pub checkmate: GameValue,
    #[serde(default)]
    pub bare: BareRule,
    #[serde(default)]
    pub extinction: Option<ExtinctionSpec>,
}

fn draw() -> GameValue {
    GameValue::Draw
}

fn loss() -> GameValue {
    GameValue::Loss
}

/// Not written when it is the default, so that the resolved text (and hash) of every variant
/// without the field stays what it was.
fn is_loss(value: &GameValue) -> bool {
    *value == GameValue::Loss
}

impl Default for VictorySpec {
    fn default() -> Self {
        VictorySpec {
            royal: RoyalRule::default(),
            stalemate: GameValue::Draw,
            checkmate: GameValue::Loss,
            bare: BareRule::None,
            extinction: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieceSpec {
    pub name: String,
    /// Token in position strings, unique in the variant ignoring case. Longer than one
    /// character means it is written in parentheses.
    pub token: String,
    /// Betza / XBetza geometry of the piece's own moves.
    pub betza: String,
    #[serde(default)]
    pub royal: bool,
    /// Tokens of the types this piece may promote to.
    #[serde(default)]
    pub promotes_to: Vec<String>,
    /// Nominal value in pawns, if the variant's author gives one (baselines may estimate it).
    #[serde(default)]
    pub value: Option<f32>,
    /// Its initial double step (lame `i` moves) can be captured en passant, and its capture
    /// moves may capture en passant.
    #[serde(default)]
    pub en_passant: bool,
    /// Named special powers (see [`crate::movegen::powers`] and `docs/variants.md`).
    #[serde(default)]
    pub powers: Vec<PowerSpec>,
    /// Promotes to `becomes` instead while a `present` piece (either side) is on the board
    /// after the move (Typhoon's King: Emperor, or Emperor of Emperors if an Emperor stands).
    #[serde(default)]
    pub promotion_upgrade: Option<UpgradeSpec>,
    /// Permanently poisonous (Jupiter's Deadly Nightshade, jupiter.md §5.4): an enemy that ends
    /// a turn on the square where it stood at the start of the turn is removed.
    #[serde(default, skip_serializing_if = "is_false")]
    pub poisonous: bool,
    /// Burns every enemy piece next to it at the end of each turn (Jupiter's Fiery Dragon,
    /// jupiter.md §5.5).
    #[serde(default, skip_serializing_if = "is_false")]
    pub burns: bool,
    /// Removed from the board whenever it captures, by any means (Jupiter's Kamikaze).
    #[serde(default, skip_serializing_if = "is_false")]
    pub dies_when_capturing: bool,
    /// Name of a `[[region]]`: every move of the piece stays inside it (Xiangqi's general and
    /// advisors in the palace, its elephants on their side of the river). Leaps need only their
    /// landing square inside; rides stop at the region's edge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confined_to: Option<String>,
    /// Extra Betza moves the piece has while it stands in a region (Xiangqi's soldier gains
    /// `sW` once across the river).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub region_moves: Vec<RegionMoveSpec>,
}

/// A named set of squares per side (`[[region]]`): `squares` lists Blue's as square names and
/// rectangles (`"d1-f3"`, separated by spaces); Tan's region is the same squares with ranks
/// counted from Tan's side (same files, rank r becomes height + 1 - r).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegionSpec {
    pub name: String,
    pub squares: String,
}

/// Moves a piece gains while it stands in `region` (see [`PieceSpec::region_moves`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegionMoveSpec {
    pub region: String,
    /// Single-leg Betza leapers and riders (no `i`, no multi-leg components).
    pub betza: String,
}

/// How the board's edges join (`topology`, issue 21, row #60).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Topology {
    /// A rectangle: moves stop at every edge.
    #[default]
    Flat,
    /// The first and last files are adjacent (Cylindrical Chess): leaps and rides that leave
    /// the board sideways come back on the other side; a ride stops when it comes back to the
    /// square it started from. Ranks do not wrap. Castling keeps its back-rank squares between
    /// the king and the rook (it never goes round the back).
    Cylinder,
}

impl Topology {
    /// Keeps the key out of the resolved file of a flat board, so other variants keep their hash.
    pub fn is_flat(&self) -> bool {
        *self == Topology::Flat
    }
}

/// The grid rule (`[grid]`, issue 21, row #61): the board is divided into cells of `cell`
/// files by ranks, and a move of a piece is legal only if it ends in another cell than it
/// started in; a piece attacks (gives check) only with such a move. `offset` moves the first
/// line: cells start at file `offset[0]` and rank `offset[1]` (0-based), with narrower cells
/// before them (cutechess's displaced grid is `offset = [1, 1]`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridSpec {
    /// Cell size: `[files, ranks]` (Grid Chess: `[2, 2]`).
    pub cell: [u8; 2],
    /// Where the first full cell starts: `[file, rank]`, 0-based (default `[0, 0]`).
    #[serde(default)]
    pub offset: [u8; 2],
}

/// Keeps absent piece keys out of the resolved file, so variants without them keep their hash.
fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpgradeSpec {
    pub present: String,
    pub becomes: String,
}

/// A variant file after `extends` resolution, exactly as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantSpec {
    pub name: String,
    #[serde(default)]
    pub extends: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    pub width: u8,
    pub height: u8,
    /// How the board's edges join: `flat` (default) or `cylinder` (Cylindrical Chess, list #60).
    #[serde(default, skip_serializing_if = "Topology::is_flat")]
    pub topology: Topology,
    /// The grid rule (Grid Chess, list #61): every move must cross a line of the grid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid: Option<GridSpec>,
    /// Start position in the notation of `docs/notation.md`.
    pub start: String,
    #[serde(default)]
    pub notation: NotationStyle,
    #[serde(rename = "piece")]
    pub pieces: Vec<PieceSpec>,
    #[serde(default)]
    pub promotion: PromotionSpec,
    #[serde(default)]
    pub castling: Option<CastlingSpec>,
    /// Ranks (1-based, counted from the owner's side) where `i` moves are allowed.
    #[serde(default)]
    pub initial_move_ranks: Vec<u8>,
    #[serde(default)]
    pub victory: VictorySpec,
    #[serde(default)]
    pub repetition: RepetitionRule,
    /// Capturing is compulsory when possible (losing chess).
    #[serde(default)]
    pub forced_capture: bool,
    #[serde(default)]
    pub pass: PassRule,
    /// Plies without capture or pawn-type move after which the game is drawn (chess: 100).
    #[serde(default)]
    pub halfmove_draw: Option<u32>,
    /// Engineering cap on game length in plies for self-play adjudication (a draw).
    #[serde(default = "default_move_cap")]
    pub move_cap: u32,
    /// The start array drawn by chance for each game (`crate::spec::setup_spec::StartGeneratorSpec`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_generator: Option<StartGeneratorSpec>,
    /// A setup phase in which the players choose the array by moves (`crate::spec::setup_spec`).
    #[serde(default)]
    pub setup: Option<SetupSpec>,
    /// Pieces in hand and drops (`crate::spec::drops_spec`; Pocket Knight, Pre-chess).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drops: Option<DropsSpec>,
    /// Named square sets per side, for `confined_to` and `region_moves`.
    #[serde(default, rename = "region", skip_serializing_if = "Vec::is_empty")]
    pub regions: Vec<RegionSpec>,
    /// Xiangqi's flying general: two royals of opposite colours on one file with nothing
    /// between them attack each other, for check only (a move that leaves them facing is
    /// illegal; the royal cannot capture that way).
    #[serde(default, skip_serializing_if = "is_false")]
    pub flying_general: bool,
    /// How captures are made: `displace` (default) or `rifle` (Rifle Chess).
    #[serde(default, skip_serializing_if = "is_default")]
    pub capture: CaptureRule,
    /// Which checks are allowed: `any` (default) or `mate_only` (Checkless Chess).
    #[serde(default, skip_serializing_if = "is_default")]
    pub checking: CheckingRule,
    /// A side that can mate must: when any legal move mates, only the mating moves are legal
    /// (Reflex Chess, issue 21 row #3; `crate::movegen::must_mate`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub must_mate: bool,
    /// Which royals count for check and mate: `all` (default) or `first_by_file` (ICS wild 9).
    #[serde(default, skip_serializing_if = "is_default")]
    pub royal_choice: RoyalChoice,
    /// First-turn swaps: `none` (default) or `back_rank` (Transcendental Chess).
    #[serde(default, skip_serializing_if = "is_default")]
    pub first_turn_swap: FirstTurnSwap,
    /// Protean men, which take on the type of what they capture (Protean Chess #59):
    /// `crate::spec::protean_spec::ProteanSpec`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protean: Option<crate::spec::protean_spec::ProteanSpec>,
    /// Multi-move turns (issue 21 rows #11-#16): `crate::spec::turns_spec::TurnsSpec`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turns: Option<crate::spec::turns_spec::TurnsSpec>,
    /// Blasts round every capture (atomic chess, Explosion Chess #17).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explosion: Option<ExplosionSpec>,
    /// Rebirth of captured men on their home squares (Circe Chess #29).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rebirth: Option<RebirthSpec>,
    /// A neutral token that copies every move's displacement (Shadow, Imitator and Salt Shaker
    /// Chess, #43-#45): `crate::spec::neutral_token_spec::NeutralTokenSpec`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neutral_token: Option<crate::spec::neutral_token_spec::NeutralTokenSpec>,
}

fn default_move_cap() -> u32 {
    500
}
