//! Variant definitions: TOML text → [`VariantSpec`] (serde, unknown keys refused) →
//! [`Variant`] (validated and concluded into the flat tables the move generator reads).
//!
//! Following Fairy-Stockfish's `Variant::conclude()`, everything the hot path needs is computed
//! once here: per (colour, piece type, square) leap and ray tables, promotion maps, regions and
//! Zobrist keys. The move generator never looks at a string.

use std::{
    collections::BTreeMap,
    fmt,
    path::{Path, PathBuf},
    sync::Arc,
};

use serde::{Deserialize, Serialize};

use crate::{
    geometry::{self, Atom, Jump},
    powers::{Power, PowerSpec},
    setup::{SetupPhase, SetupSpec},
    types::{Color, Dims, Piece, PieceType, Square, MAX_BOARD_SIDE},
};

/// Built-in variants, embedded at compile time so that every command works without files.
const BUILTIN: &[(&str, &str)] = &[
    ("chess", include_str!("../../configs/variants/chess.toml")),
    ("capablanca", include_str!("../../configs/variants/capablanca.toml")),
    ("grand", include_str!("../../configs/variants/grand.toml")),
    ("shatranj", include_str!("../../configs/variants/shatranj.toml")),
    ("courier", include_str!("../../configs/variants/courier.toml")),
    ("antichess", include_str!("../../configs/variants/antichess.toml")),
    ("losalamos", include_str!("../../configs/variants/losalamos.toml")),
    ("gardner", include_str!("../../configs/variants/gardner.toml")),
    ("berolina", include_str!("../../configs/variants/berolina.toml")),
    ("kinglet", include_str!("../../configs/variants/kinglet.toml")),
    ("antilosalamos", include_str!("../../configs/variants/antilosalamos.toml")),
    ("scirocco", include_str!("../../configs/variants/scirocco.toml")),
    ("typhoon", include_str!("../../configs/variants/typhoon.toml")),
];

/// Names of the built-in variants, in listing order.
pub fn builtin_names() -> impl Iterator<Item = &'static str> {
    BUILTIN.iter().map(|(name, _)| *name)
}

fn builtin_text(name: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
}

/// Errors from loading a variant. Each names the file (or built-in) and the field at fault.
#[derive(Debug, thiserror::Error)]
pub enum VariantError {
    #[error("variant {source_name}: {message}")]
    Invalid { source_name: String, message: String },
    #[error("cannot read variant file {path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("unknown variant {0:?} (not a built-in name nor an existing .toml file; `fairyzero variants` lists the built-ins)")]
    Unknown(String),
}

// ---------------------------------------------------------------------------------------------
// The serde-level specification
// ---------------------------------------------------------------------------------------------

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
    /// The fourth occurrence draws (Chushin Shogi's sennichite).
    FourthDraws,
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
    /// File letter the king lands on when castling toward the higher files.
    pub kingside_file: char,
    /// File letter the king lands on when castling toward file `a`.
    pub queenside_file: char,
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

/// Extinction, concluded: the counted types (`None` = all pieces together).
#[derive(Clone, Debug)]
pub struct Extinction {
    pub types: Option<Vec<PieceType>>,
    pub count: u16,
    pub opponent_count: u16,
    pub claim: bool,
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
    #[serde(default)]
    pub bare: BareRule,
    #[serde(default)]
    pub extinction: Option<ExtinctionSpec>,
}

fn draw() -> GameValue {
    GameValue::Draw
}

impl Default for VictorySpec {
    fn default() -> Self {
        VictorySpec { royal: RoyalRule::default(), stalemate: GameValue::Draw, bare: BareRule::None, extinction: None }
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
    /// Named special powers (see `powers.rs` and `docs/variants.md`).
    #[serde(default)]
    pub powers: Vec<PowerSpec>,
    /// Promotes to `becomes` instead while a `present` piece (either side) is on the board
    /// after the move (Typhoon's King: Emperor, or Emperor of Emperors if an Emperor stands).
    #[serde(default)]
    pub promotion_upgrade: Option<UpgradeSpec>,
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
    /// A setup phase in which the players choose the array by moves (`setup.rs`).
    #[serde(default)]
    pub setup: Option<SetupSpec>,
}

fn default_move_cap() -> u32 {
    500
}

// ---------------------------------------------------------------------------------------------
// Loading and `extends`
// ---------------------------------------------------------------------------------------------

/// `{ remove = true }`: in a child file, deletes the parent's key (or `[[piece]]` entry).
fn is_remove_marker(value: &toml::Value) -> bool {
    value.as_table().is_some_and(|t| t.len() == 1 && t.get("remove").and_then(|r| r.as_bool()) == Some(true))
}

/// Merges `child` over `parent`: tables merge key by key, `[[piece]]` arrays merge by token
/// (a child piece with a parent's token is merged into it; `remove = true` deletes it), a key
/// set to `{ remove = true }` is deleted, other values are replaced.
fn merge(parent: &mut toml::Table, child: toml::Table) {
    for (key, value) in child {
        if key != "piece" && is_remove_marker(&value) {
            parent.remove(&key);
            continue;
        }
        match (parent.get_mut(&key), value) {
            (Some(toml::Value::Table(p)), toml::Value::Table(c)) => merge(p, c),
            (Some(toml::Value::Array(p)), toml::Value::Array(c)) if key == "piece" => {
                for child_piece in c {
                    let token = child_piece.get("token").and_then(|t| t.as_str()).map(str::to_ascii_uppercase);
                    let existing = p
                        .iter()
                        .position(|pp| pp.get("token").and_then(|t| t.as_str()).map(str::to_ascii_uppercase) == token);
                    let remove = child_piece.get("remove").and_then(|r| r.as_bool()) == Some(true);
                    match (existing, remove) {
                        (Some(i), true) => {
                            p.remove(i);
                        }
                        (None, true) => {}
                        (Some(i), false) => {
                            if let (toml::Value::Table(pt), toml::Value::Table(ct)) = (&mut p[i], child_piece) {
                                merge(pt, ct);
                            }
                        }
                        (None, false) => p.push(child_piece),
                    }
                }
            }
            (_, value) => {
                parent.insert(key, value);
            }
        }
    }
}

fn parse_table(source_name: &str, text: &str) -> Result<toml::Table, VariantError> {
    text.parse::<toml::Table>().map_err(|e| VariantError::Invalid {
        source_name: source_name.to_string(),
        message: e.to_string().trim().replace('\n', " "),
    })
}

/// Reads the parent of an `extends` that is not a built-in name: given the name as written and
/// the directory of the file that names it, returns the parent's source name (for errors), its
/// text and its own directory (for the next `extends` in the chain).
pub type ParentReader<'a> = dyn Fn(&str, Option<&Path>) -> Result<(String, String, Option<PathBuf>), VariantError> + 'a;

/// The file-system [`ParentReader`]: paths relative to the child file's directory.
pub fn read_parent_file(
    parent: &str,
    base_dir: Option<&Path>,
) -> Result<(String, String, Option<PathBuf>), VariantError> {
    let path = base_dir.map(|d| d.join(parent)).unwrap_or_else(|| Path::new(parent).to_path_buf());
    let text =
        std::fs::read_to_string(&path).map_err(|error| VariantError::Io { path: path.display().to_string(), error })?;
    Ok((path.display().to_string(), text, path.parent().map(Path::to_path_buf)))
}

/// Resolves `extends` chains (built-in names, or whatever `read_parent` finds).
fn resolve(
    source_name: &str,
    text: &str,
    base_dir: Option<&Path>,
    read_parent: &ParentReader<'_>,
    depth: usize,
) -> Result<toml::Table, VariantError> {
    if depth > 16 {
        return Err(VariantError::Invalid {
            source_name: source_name.to_string(),
            message: "`extends` chain is longer than 16 (a cycle?)".into(),
        });
    }
    let mut table = parse_table(source_name, text)?;
    let Some(parent) = table.get("extends").cloned() else {
        return Ok(table);
    };
    let parent = parent.as_str().ok_or_else(|| VariantError::Invalid {
        source_name: source_name.to_string(),
        message: "field `extends` must be a string".into(),
    })?;
    let mut base = if let Some(text) = builtin_text(parent) {
        resolve(parent, text, None, read_parent, depth + 1)?
    } else {
        let (parent_name, text, parent_dir) = read_parent(parent, base_dir)?;
        resolve(&parent_name, &text, parent_dir.as_deref(), read_parent, depth + 1)?
    };
    table.remove("extends");
    // `remove` markers only make sense while merging.
    merge(&mut base, table);
    base.insert("extends".into(), toml::Value::String(parent.to_string()));
    if let Some(toml::Value::Array(pieces)) = base.get_mut("piece") {
        for p in pieces.iter_mut() {
            if let toml::Value::Table(t) = p {
                t.remove("remove");
            }
        }
    }
    Ok(base)
}

impl Variant {
    /// Loads a built-in variant by name, or a TOML file by path.
    pub fn load(name_or_path: &str) -> Result<Arc<Variant>, VariantError> {
        if let Some(text) = builtin_text(name_or_path) {
            return Variant::from_toml(name_or_path, text, None);
        }
        let path = Path::new(name_or_path);
        if path.extension().is_some_and(|e| e == "toml") || path.exists() {
            let text = std::fs::read_to_string(path)
                .map_err(|error| VariantError::Io { path: path.display().to_string(), error })?;
            return Variant::from_toml(&path.display().to_string(), &text, path.parent());
        }
        Err(VariantError::Unknown(name_or_path.to_string()))
    }

    /// Parses variant TOML text. `source_name` names it in errors; `base_dir` resolves relative
    /// `extends` paths.
    pub fn from_toml(source_name: &str, text: &str, base_dir: Option<&Path>) -> Result<Arc<Variant>, VariantError> {
        Variant::from_toml_with_parents(source_name, text, base_dir, &read_parent_file)
    }

    /// [`Variant::from_toml`] with the parents of `extends` read by `read_parent` instead of
    /// from files (built-in names always resolve first): for callers that must not touch the
    /// file system, such as the fuzz targets.
    pub fn from_toml_with_parents(
        source_name: &str,
        text: &str,
        base_dir: Option<&Path>,
        read_parent: &ParentReader<'_>,
    ) -> Result<Arc<Variant>, VariantError> {
        let table = resolve(source_name, text, base_dir, read_parent, 0)?;
        let mut problems = Vec::new();
        let built = match lenient_spec(table, &mut problems) {
            Some(spec) => Variant::build(spec).map_err(|p| problems.extend(p)).ok(),
            None => None,
        };
        match built {
            Some(variant) if problems.is_empty() => Ok(Arc::new(variant)),
            _ => Err(VariantError::Invalid {
                source_name: source_name.to_string(),
                message: list(source_name, &problems),
            }),
        }
    }
}

/// One problem as it is, several one per line, each naming the file again (they can be many).
fn list(source_name: &str, problems: &[String]) -> String {
    match problems {
        [one] => one.clone(),
        _ => {
            let lines: Vec<String> = problems.iter().map(|p| format!("\n  {source_name}: {p}")).collect();
            format!("{} problems:{}", problems.len(), lines.concat())
        }
    }
}

/// Deserialises the resolved table into a [`VariantSpec`], listing every schema problem (an
/// unknown key, a wrong type, a missing field) instead of the first only: serde stops at the
/// first, so each one is recorded with its field path, the key at fault is taken out, and
/// deserialisation runs again. Returns the spec that remains, if it is complete, so that
/// [`Variant::build`] can still report the problems of the values (Betza strings, tokens,
/// squares) in the same error.
fn lenient_spec(mut table: toml::Table, problems: &mut Vec<String>) -> Option<VariantSpec> {
    // Each round removes a key or an entry, so the rounds end.
    loop {
        let error = match serde_path_to_error::deserialize::<_, VariantSpec>(toml::Value::Table(table.clone())) {
            Ok(spec) => return Some(spec),
            Err(e) => e,
        };
        let mut segments: Vec<&serde_path_to_error::Segment> = error.path().iter().collect();
        let mut message = error.inner().to_string().trim().replace('\n', " ");
        // toml appends the key path, which the field name already gives.
        if let Some(cut) = message.rfind(" in `").filter(|_| message.ends_with('`')) {
            message.truncate(cut);
        }
        // An unknown tag (`kind` of a power) condemns its whole table, not only the tag.
        let at_tag = matches!(segments.last(), Some(serde_path_to_error::Segment::Map { key }) if key == "kind");
        if message.starts_with("unknown variant") && at_tag && segments.len() > 1 {
            segments.pop();
        }
        problems.push(format!("{}: {message}", field_name(&table, &segments)));
        if !remove_at(&mut table, &segments) {
            return None;
        }
    }
}

/// `field `promotion.zone_ranks``, or `piece "Queen": field `betza`` for a piece's key (the
/// form [`Variant::build`] uses), from a serde path.
fn field_name(table: &toml::Table, segments: &[&serde_path_to_error::Segment]) -> String {
    use serde_path_to_error::Segment;
    let dotted = |segments: &[&Segment]| {
        let mut s = String::new();
        for seg in segments {
            match seg {
                Segment::Seq { index } => s.push_str(&format!("[{index}]")),
                Segment::Map { key } | Segment::Enum { variant: key } => {
                    if !s.is_empty() {
                        s.push('.');
                    }
                    s.push_str(key);
                }
                Segment::Unknown => s.push_str(".?"),
            }
        }
        s
    };
    match segments {
        [Segment::Map { key }, Segment::Seq { index }, rest @ ..] if key == "piece" => {
            let piece = table.get("piece").and_then(|p| p.as_array()).and_then(|p| p.get(*index));
            let label = |k: &str| piece.and_then(|p| p.get(k)).and_then(|v| v.as_str()).map(str::to_string);
            let who = label("name").or_else(|| label("token")).unwrap_or_else(|| format!("number {}", index + 1));
            if rest.is_empty() {
                format!("piece {who:?}")
            } else {
                format!("piece {who:?}: field `{}`", dotted(rest))
            }
        }
        [] => "variant".to_string(),
        _ => format!("field `{}`", dotted(segments)),
    }
}

/// Takes the value at `segments` out of `table`; false if there is none (the problem is the
/// table itself, such as a missing required field, and nothing can be taken out).
fn remove_at(table: &mut toml::Table, segments: &[&serde_path_to_error::Segment]) -> bool {
    use serde_path_to_error::Segment;
    let Some((last, parents)) = segments.split_last() else { return false };
    let mut current = match parents.first() {
        None => None,
        Some(Segment::Map { key }) => table.get_mut(key.as_str()),
        Some(_) => return false,
    };
    for seg in parents.iter().skip(1) {
        current = match (current, seg) {
            (Some(toml::Value::Table(t)), Segment::Map { key }) => t.get_mut(key.as_str()),
            (Some(toml::Value::Array(a)), Segment::Seq { index }) => a.get_mut(*index),
            _ => return false,
        };
    }
    match (parents.is_empty(), current, last) {
        (true, _, Segment::Map { key }) => table.remove(key.as_str()).is_some(),
        (false, Some(toml::Value::Table(t)), Segment::Map { key }) => t.remove(key.as_str()).is_some(),
        (false, Some(toml::Value::Array(a)), Segment::Seq { index }) if *index < a.len() => {
            a.remove(*index);
            true
        }
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------------
// The concluded variant
// ---------------------------------------------------------------------------------------------

/// A piece type after validation.
#[derive(Clone, Debug)]
pub struct PieceDef {
    pub name: String,
    /// Canonical (upper-case) token.
    pub token: String,
    pub betza: String,
    pub royal: bool,
    pub promotes_to: Vec<PieceType>,
    pub value: Option<f32>,
    pub en_passant: bool,
    /// The geometry contains a capturing atom (used to skip attack tests).
    pub(crate) captures: bool,
    /// Two of its atoms can reach the same square, so its moves are de-duplicated.
    pub(crate) needs_dedup: bool,
    /// `(present, becomes)`: see [`PieceSpec::promotion_upgrade`].
    pub promotion_upgrade: Option<(PieceType, PieceType)>,
}

pub(crate) const F_MOVE: u8 = 1;
pub(crate) const F_CAPTURE: u8 = 2;
pub(crate) const F_INITIAL: u8 = 4;

/// A precomputed leap from one square.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Leap {
    pub to: Square,
    /// Squares that must be empty (lame leapers); `Square::NONE` when unused.
    pub via: [Square; 2],
    pub flags: u8,
}

/// A precomputed ray from one square: `squares[start..start + len]`, nearest first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ray {
    pub start: u32,
    pub len: u16,
    pub flags: u8,
    pub jump: Jump,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct MoveTables {
    /// Per `(colour, type, square)`: range into `leaps`.
    pub leap_index: Vec<(u32, u32)>,
    pub leaps: Vec<Leap>,
    pub ray_index: Vec<(u32, u32)>,
    pub rays: Vec<Ray>,
    pub ray_squares: Vec<Square>,
}

/// Castling, concluded.
#[derive(Clone, Debug)]
pub struct Castling {
    pub king: PieceType,
    pub rook: PieceType,
    /// King destination files: `[kingside, queenside]`.
    pub king_files: [i32; 2],
}

/// Rules that are not piece geometry, concluded.
#[derive(Clone, Debug)]
pub struct Rules {
    pub promotion: PromotionSpec,
    pub castling: Option<Castling>,
    pub initial_move_ranks: Vec<u8>,
    pub en_passant: bool,
    pub royal: RoyalRule,
    pub stalemate: GameValue,
    pub bare: BareRule,
    pub extinction: Option<Extinction>,
    pub repetition: RepetitionRule,
    pub forced_capture: bool,
    pub pass: PassRule,
    pub halfmove_draw: Option<u32>,
    pub move_cap: u32,
}

pub(crate) struct Zobrist {
    pub pieces: Vec<u64>,
    pub side: u64,
    pub castling: [u64; 16],
    pub ep: Vec<u64>,
    /// One key per setup ply index, so that arrays under construction hash apart.
    pub setup: Vec<u64>,
}

/// A validated variant with its precomputed tables. Shared as `Arc<Variant>`.
pub struct Variant {
    pub name: String,
    pub dims: Dims,
    pub pieces: Vec<PieceDef>,
    pub start: String,
    pub notation: NotationStyle,
    pub rules: Rules,
    /// The resolved specification (what a run directory records).
    pub spec: VariantSpec,
    /// A hash of the resolved specification, to tie records and checkpoints to rules.
    pub hash: u64,
    /// Start-position count of every `(type, colour)` (for promotion limits).
    pub(crate) start_counts: Vec<u16>,
    pub(crate) tables: MoveTables,
    pub(crate) zobrist: Zobrist,
    /// Concluded special powers, per piece type.
    pub(crate) powers: Vec<Vec<Power>>,
    /// Piece types with a relay power.
    pub(crate) relayers: Vec<PieceType>,
    /// Any piece has a power: attack tests then fall back to full move generation.
    pub(crate) has_powers: bool,
    pub(crate) setup: Option<SetupPhase>,
    /// Piece types with an immobilizing power.
    pub(crate) immobilizers: Vec<PieceType>,
    /// Per piece type: it has the `pass` power.
    pub(crate) passers: Vec<bool>,
    /// Attacks come only from plain leapers and riders (no hoppers, lame leapers or powers),
    /// so a non-royal move can only expose a royal along `line_dirs` (`legal_moves` then skips
    /// the make/unmake test for moves that cannot).
    pub(crate) simple_attacks: bool,
    /// `aligned[(dx + w - 1) * (2h - 1) + dy + h - 1]`: the offset `(dx, dy)` lies on the line
    /// of some capturing rider (either colour).
    pub(crate) aligned: Vec<bool>,
    /// Reverse attack tables (chess family), see `attacks.rs`.
    pub(crate) attack_tables: Option<crate::attacks::AttackTables>,
    /// Reduced directions of every capturing rider of either colour, for pin detection.
    pub(crate) line_dirs: Vec<(i32, i32)>,
    /// Per piece type: it captures by riding (it can pin).
    pub(crate) rides_to_capture: Vec<bool>,
    /// Per piece type: royal (a flat copy of `pieces[t].royal` for the hot path).
    pub(crate) royal: Vec<bool>,
    /// `(file, rank)` of every square, so hot paths avoid divisions.
    pub(crate) coords: Vec<(i16, i16)>,
    /// Per piece type: it, and every type it can become, moves left-right symmetrically (see
    /// [`crate::symmetry`]).
    pub mirror_safe: Vec<bool>,
}

impl fmt::Debug for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Variant({} {}x{})", self.name, self.dims.width, self.dims.height)
    }
}

/// splitmix64: a tiny deterministic generator for Zobrist keys (stable across platforms).
pub(crate) fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

impl Variant {
    /// Validates a specification. Returns every problem found, each naming its field.
    pub fn build(spec: VariantSpec) -> Result<Variant, Vec<String>> {
        let mut problems = Vec::new();
        if !(1..=MAX_BOARD_SIDE).contains(&spec.width) || !(1..=MAX_BOARD_SIDE).contains(&spec.height) {
            problems.push(format!(
                "fields `width`/`height`: board {}x{} is outside 1..={MAX_BOARD_SIDE}",
                spec.width, spec.height
            ));
            return Err(problems);
        }
        let dims = Dims { width: spec.width, height: spec.height };
        if spec.pieces.is_empty() {
            problems.push("field `piece`: a variant needs at least one piece type".into());
        }
        if spec.pieces.len() > 255 {
            problems.push(format!("field `piece`: {} piece types (at most 255)", spec.pieces.len()));
            return Err(problems);
        }

        // Tokens.
        let mut by_token: BTreeMap<String, PieceType> = BTreeMap::new();
        for (i, p) in spec.pieces.iter().enumerate() {
            let upper = p.token.to_ascii_uppercase();
            let valid = !upper.is_empty() && upper.chars().all(|c| c.is_ascii_alphabetic()) && upper.len() <= 8;
            if !valid {
                problems.push(format!("piece {:?}: field `token` {:?} must be 1-8 ASCII letters", p.name, p.token));
            } else if by_token.insert(upper.clone(), PieceType(i as u8)).is_some() {
                problems
                    .push(format!("piece {:?}: field `token` {:?} is used twice (case-insensitive)", p.name, p.token));
            }
        }
        let lookup = |token: &str| by_token.get(&token.to_ascii_uppercase()).copied();

        // Pieces and geometry.
        let mut pieces = Vec::with_capacity(spec.pieces.len());
        let mut powers: Vec<Vec<Power>> = Vec::with_capacity(spec.pieces.len());
        let mut geometries = Vec::with_capacity(spec.pieces.len());
        for p in &spec.pieces {
            let geometry = match geometry::parse(&p.betza) {
                Ok(g) => g,
                Err(e) => {
                    problems.push(format!("piece {:?}: field `betza`: {e}", p.name));
                    geometry::Geometry::default()
                }
            };
            if let Some(c) = geometry.multi_leg().next() {
                let text: Vec<&str> = c.legs.iter().map(|l| l.text.as_str()).collect();
                problems.push(format!(
                    "piece {:?}: field `betza`: multi-leg component {:?} is not supported by the move generator yet",
                    p.name,
                    text.join("a")
                ));
            }
            let mut concluded = Vec::new();
            for power in &p.powers {
                match power.conclude() {
                    Ok(c) => concluded.push(c),
                    Err(e) => problems.push(format!("piece {:?}: field `powers`: {e}", p.name)),
                }
            }
            powers.push(concluded);
            let mut promotes_to = Vec::new();
            for t in &p.promotes_to {
                match lookup(t) {
                    Some(pt) => promotes_to.push(pt),
                    None => problems.push(format!("piece {:?}: field `promotes_to`: unknown token {t:?}", p.name)),
                }
            }
            let atoms: Vec<Atom> = geometry.atoms().copied().collect();
            let captures = atoms.iter().any(|a| a.modality.captures) || !p.powers.is_empty();
            let needs_dedup = atoms.iter().enumerate().any(|(i, a)| {
                atoms[..i].iter().any(|b| {
                    // Same direction (one a positive multiple of the other) can reach the same square.
                    let cross = a.dx as i32 * b.dy as i32 - a.dy as i32 * b.dx as i32;
                    let same_way = a.dx as i32 * b.dx as i32 + a.dy as i32 * b.dy as i32 > 0;
                    cross == 0 && same_way
                })
            });
            if p.en_passant && spec.initial_move_ranks.is_empty() {
                problems.push(format!(
                    "piece {:?}: field `en_passant` needs the variant field `initial_move_ranks`",
                    p.name
                ));
            }
            let promotion_upgrade =
                p.promotion_upgrade.as_ref().and_then(|u| match (lookup(&u.present), lookup(&u.becomes)) {
                    (Some(a), Some(b)) => Some((a, b)),
                    _ => {
                        problems.push(format!("piece {:?}: field `promotion_upgrade`: unknown token in {u:?}", p.name));
                        None
                    }
                });
            if promotion_upgrade.is_some() && p.promotes_to.len() != 1 {
                problems.push(format!("piece {:?}: field `promotion_upgrade` needs exactly one `promotes_to`", p.name));
            }
            pieces.push(PieceDef {
                promotion_upgrade,
                name: p.name.clone(),
                token: p.token.to_ascii_uppercase(),
                betza: p.betza.clone(),
                royal: p.royal,
                promotes_to,
                value: p.value,
                en_passant: p.en_passant,
                captures,
                needs_dedup,
            });
            geometries.push(atoms);
        }
        if spec.initial_move_ranks.iter().any(|&r| r == 0 || r > spec.height) {
            problems.push(format!("field `initial_move_ranks`: ranks must be within 1..={}", spec.height));
        }
        if spec.promotion.zone_ranks > spec.height {
            problems.push("field `promotion.zone_ranks` is larger than the board".into());
        }

        let castling = spec.castling.as_ref().and_then(|c| {
            let king = lookup(&c.king);
            let rook = lookup(&c.rook);
            let file = |ch: char| {
                let f = ch as i32 - 'a' as i32;
                (0..spec.width as i32).contains(&f).then_some(f)
            };
            let files = (file(c.kingside_file), file(c.queenside_file));
            match (king, rook, files) {
                (Some(king), Some(rook), (Some(k), Some(q))) => Some(Castling { king, rook, king_files: [k, q] }),
                _ => {
                    problems.push(format!("field `castling`: unknown token or file in {c:?}"));
                    None
                }
            }
        });

        let extinction = spec.victory.extinction.as_ref().map(|e| {
            let types = if e.pieces.iter().any(|t| t == "*") {
                None
            } else {
                let mut types = Vec::new();
                for t in &e.pieces {
                    match lookup(t) {
                        Some(pt) => types.push(pt),
                        None => problems.push(format!("field `victory.extinction.pieces`: unknown token {t:?}")),
                    }
                }
                Some(types)
            };
            Extinction { types, count: e.count, opponent_count: e.opponent_count, claim: e.claim, value: e.value }
        });
        // Line captures remove up to one piece per square of a line; moves hold a fixed number.
        let longest_line = spec.width.max(spec.height) as usize;
        let line_capturer = powers.iter().flatten().any(|p| {
            matches!(
                p,
                Power::Approach { effect: crate::powers::ApproachEffect::CaptureLine, .. } | Power::LongLeap { .. }
            )
        });
        if line_capturer && longest_line > crate::moves::MAX_EXTRA_CAPTURES + 2 {
            problems.push(format!(
                "fields `width`/`height`: line-capturing powers support boards up to {} squares wide",
                crate::moves::MAX_EXTRA_CAPTURES + 2
            ));
        }
        let passers: Vec<bool> = powers.iter().map(|ps| ps.iter().any(|p| matches!(p, Power::Pass))).collect();
        match (spec.pass, passers.iter().any(|&p| p)) {
            (PassRule::None, true) => {
                problems.push("field `pass`: a piece has the `pass` power but the variant's `pass` is \"none\"".into())
            }
            (PassRule::OnePerPosition, false) => {
                problems.push("field `pass`: \"one_per_position\" needs a piece with the `pass` power".into())
            }
            (PassRule::PerPieceNoDoublePass, _) => problems
                .push("field `pass`: \"per_piece_no_double_pass\" (Chushin Shogi) is not implemented yet".into()),
            _ => {}
        }
        let setup = match &spec.setup {
            None => None,
            Some(setup) => match setup.conclude(dims, lookup) {
                Ok(s) => Some(s),
                Err(p) => {
                    problems.extend(p);
                    None
                }
            },
        };
        if !problems.is_empty() {
            return Err(problems);
        }

        let tables = build_tables(dims, &geometries);
        let mut seed = 0x5EED_F00D_u64;
        let nsq = dims.squares();
        let zobrist = Zobrist {
            pieces: (0..pieces.len() * 2 * nsq).map(|_| splitmix(&mut seed)).collect(),
            side: splitmix(&mut seed),
            castling: std::array::from_fn(|_| splitmix(&mut seed)),
            ep: (0..nsq).map(|_| splitmix(&mut seed)).collect(),
            setup: (0..setup.as_ref().map_or(0, |s: &SetupPhase| s.plies.len())).map(|_| splitmix(&mut seed)).collect(),
        };
        let resolved = toml::to_string(&spec).unwrap_or_default();
        let en_passant = pieces.iter().any(|p| p.en_passant);
        let relayers = (0..pieces.len())
            .filter(|&i| powers[i].iter().any(|p| matches!(p, Power::Relay { .. })))
            .map(|i| PieceType(i as u8))
            .collect();
        let has_powers = powers.iter().any(|p| !p.is_empty());
        let immobilizers = (0..pieces.len())
            .filter(|&i| powers[i].iter().any(|p| matches!(p, Power::Immobilize { .. })))
            .map(|i| PieceType(i as u8))
            .collect();
        let capture_atoms = || geometries.iter().flatten().filter(|a| a.modality.captures);
        let simple_attacks = !has_powers && capture_atoms().all(|a| a.jump == Jump::Free);
        let (w, h) = (dims.width as i32, dims.height as i32);
        let mut aligned = vec![false; ((2 * w - 1) * (2 * h - 1)) as usize];
        for a in capture_atoms().filter(|a| a.max_steps != 1) {
            for sign in [1, -1] {
                let (dx, dy) = (a.dx as i32 * sign, a.dy as i32 * sign);
                let mut k = 1;
                while (dx * k).abs() < w && (dy * k).abs() < h {
                    aligned[((dx * k + w - 1) * (2 * h - 1) + dy * k + h - 1) as usize] = true;
                    k += 1;
                }
            }
        }
        let coords =
            (0..nsq).map(|i| (dims.file(Square(i as u16)) as i16, dims.rank(Square(i as u16)) as i16)).collect();
        let attack_tables = if simple_attacks { crate::attacks::AttackTables::build(dims, &geometries) } else { None };
        let mut line_dirs: Vec<(i32, i32)> = Vec::new();
        for a in capture_atoms().filter(|a| a.max_steps != 1) {
            for d in [(a.dx as i32, a.dy as i32), (-(a.dx as i32), -(a.dy as i32))] {
                if !line_dirs.contains(&d) {
                    line_dirs.push(d);
                }
            }
        }
        let rides_to_capture =
            geometries.iter().map(|atoms| atoms.iter().any(|a| a.modality.captures && a.max_steps != 1)).collect();
        let royal = pieces.iter().map(|p| p.royal).collect();
        let mirror_safe = crate::symmetry::mirror_safe_types(&spec.pieces, &pieces);
        let mut variant = Variant {
            mirror_safe,
            attack_tables,
            line_dirs,
            rides_to_capture,
            royal,
            immobilizers,
            passers,
            simple_attacks,
            aligned,
            coords,
            powers,
            relayers,
            has_powers,
            setup,
            name: spec.name.clone(),
            dims,
            pieces,
            start: spec.start.clone(),
            notation: spec.notation,
            rules: Rules {
                promotion: spec.promotion.clone(),
                castling,
                initial_move_ranks: spec.initial_move_ranks.clone(),
                en_passant,
                royal: spec.victory.royal,
                stalemate: spec.victory.stalemate,
                bare: spec.victory.bare,
                extinction,
                repetition: spec.repetition,
                forced_capture: spec.forced_capture,
                pass: spec.pass,
                halfmove_draw: spec.halfmove_draw,
                move_cap: spec.move_cap,
            },
            hash: fnv1a(resolved.as_bytes()),
            spec,
            start_counts: Vec::new(),
            tables,
            zobrist,
        };
        // The start position must parse; its piece counts bound Grand-style promotions.
        let probe = Arc::new(variant.shallow_clone());
        match crate::Position::from_fen(Arc::clone(&probe), &variant.start) {
            Ok(pos) => variant.start_counts = pos.piece_counts().to_vec(),
            Err(e) => return Err(vec![format!("field `start`: {e}")]),
        }
        if let Some(setup) = &variant.setup {
            if let Err(e) = crate::Position::from_fen(probe, &setup.fixed) {
                return Err(vec![format!("field `setup.fixed`: {e}")]);
            }
        }
        Ok(variant)
    }

    /// A copy sharing nothing, used once while concluding (the start position needs a variant).
    fn shallow_clone(&self) -> Variant {
        Variant {
            name: self.name.clone(),
            dims: self.dims,
            pieces: self.pieces.clone(),
            start: self.start.clone(),
            notation: self.notation,
            rules: self.rules.clone(),
            spec: self.spec.clone(),
            hash: self.hash,
            start_counts: vec![u16::MAX; self.pieces.len() * 2],
            tables: self.tables.clone(),
            powers: self.powers.clone(),
            relayers: self.relayers.clone(),
            has_powers: self.has_powers,
            setup: self.setup.clone(),
            immobilizers: self.immobilizers.clone(),
            passers: self.passers.clone(),
            simple_attacks: self.simple_attacks,
            aligned: self.aligned.clone(),
            attack_tables: self.attack_tables.clone(),
            line_dirs: self.line_dirs.clone(),
            rides_to_capture: self.rides_to_capture.clone(),
            royal: self.royal.clone(),
            coords: self.coords.clone(),
            mirror_safe: self.mirror_safe.clone(),
            zobrist: Zobrist {
                setup: self.zobrist.setup.clone(),
                pieces: self.zobrist.pieces.clone(),
                side: self.zobrist.side,
                castling: self.zobrist.castling,
                ep: self.zobrist.ep.clone(),
            },
        }
    }

    #[inline]
    pub fn piece_count(&self) -> usize {
        self.pieces.len()
    }

    pub fn piece_def(&self, t: PieceType) -> &PieceDef {
        &self.pieces[t.index()]
    }

    /// Finds a piece type by token, ignoring case.
    pub fn piece_by_token(&self, token: &str) -> Option<PieceType> {
        self.pieces.iter().position(|p| p.token.eq_ignore_ascii_case(token)).map(|i| PieceType(i as u8))
    }

    /// The token of a piece as written in position strings: case gives the colour, multi-letter
    /// tokens are parenthesised.
    pub fn piece_token(&self, piece: Piece) -> String {
        let t = &self.pieces[piece.kind().index()].token;
        let t = if piece.color() == Color::Blue { t.clone() } else { t.to_ascii_lowercase() };
        if t.len() == 1 {
            t
        } else {
            format!("({t})")
        }
    }

    #[inline]
    pub(crate) fn table_slot(&self, color: Color, kind: PieceType, sq: Square) -> usize {
        (color.index() * self.pieces.len() + kind.index()) * self.dims.squares() + sq.index()
    }

    /// Whether the variant has a setup phase ([`crate::Position::setup_start`]).
    pub fn has_setup_phase(&self) -> bool {
        self.setup.is_some()
    }

    /// Whether `sq` is in `color`'s promotion zone.
    #[inline]
    pub fn in_promotion_zone(&self, sq: Square, color: Color) -> bool {
        self.relative_rank(sq, color) >= self.dims.height as i32 - self.rules.promotion.zone_ranks as i32
    }

    /// Rank counted from `color`'s side (0-based), without a division.
    #[inline]
    pub fn relative_rank(&self, sq: Square, color: Color) -> i32 {
        let rank = self.coords[sq.index()].1 as i32;
        match color {
            Color::Blue => rank,
            Color::Tan => self.dims.height as i32 - 1 - rank,
        }
    }
}

/// Expands every atom of every piece into per-square leap and ray entries, for both colours.
/// The second player's vectors are the first player's rotated by 180°.
fn build_tables(dims: Dims, geometries: &[Vec<Atom>]) -> MoveTables {
    let nsq = dims.squares();
    let mut t = MoveTables::default();
    for color in Color::BOTH {
        for atoms in geometries {
            for s in 0..nsq {
                let sq = Square(s as u16);
                let (f, r) = (dims.file(sq), dims.rank(sq));
                let leap_start = t.leaps.len() as u32;
                let ray_start = t.rays.len() as u32;
                for a in atoms {
                    let (dx, dy) = match color {
                        Color::Blue => (a.dx as i32, a.dy as i32),
                        Color::Tan => (-(a.dx as i32), -(a.dy as i32)),
                    };
                    let mut flags = 0;
                    if a.modality.moves {
                        flags |= F_MOVE;
                    }
                    if a.modality.captures {
                        flags |= F_CAPTURE;
                    }
                    if a.initial_only {
                        flags |= F_INITIAL;
                    }
                    let is_leap = a.max_steps == 1 && matches!(a.jump, Jump::Free | Jump::Lame);
                    if is_leap {
                        let Some(to) = dims.square(f + dx, r + dy) else { continue };
                        let mut via = [Square::NONE; 2];
                        if a.jump == Jump::Lame {
                            for (i, (vx, vy)) in lame_path(dx, dy).into_iter().enumerate().take(2) {
                                via[i] = dims.square(f + vx, r + vy).expect("the path lies between two board squares");
                            }
                        }
                        t.leaps.push(Leap { to, via, flags });
                    } else {
                        let limit = if a.max_steps == 0 { usize::MAX } else { a.max_steps as usize };
                        let start = t.ray_squares.len() as u32;
                        let mut n = 1;
                        // Hoppers need the whole line: the range limit applies to the landing
                        // square's distance, enforced below by truncating free rides only.
                        let limit = if matches!(a.jump, Jump::Free) { limit } else { usize::MAX };
                        while n <= limit {
                            let Some(s2) = dims.square(f + dx * n as i32, r + dy * n as i32) else { break };
                            t.ray_squares.push(s2);
                            n += 1;
                        }
                        let len = t.ray_squares.len() as u32 - start;
                        if len > 0 {
                            t.rays.push(Ray { start, len: len as u16, flags, jump: a.jump });
                        }
                    }
                }
                t.leap_index.push((leap_start, t.leaps.len() as u32));
                t.ray_index.push((ray_start, t.rays.len() as u32));
            }
        }
    }
    t
}

/// The intermediate squares a lame leaper needs empty, relative to its origin. Orthogonal and
/// diagonal leaps pass through their intermediate points; an oblique leap goes first one
/// orthogonal step along its longer axis (the Xiangqi horse), then diagonally.
fn lame_path(dx: i32, dy: i32) -> Vec<(i32, i32)> {
    let n = dx.abs().max(dy.abs());
    if dx == 0 || dy == 0 || dx.abs() == dy.abs() {
        (1..n).map(|i| (dx / n * i, dy / n * i)).collect()
    } else if dx.abs() > dy.abs() {
        vec![(dx.signum(), 0)]
    } else {
        vec![(0, dy.signum())]
    }
}
