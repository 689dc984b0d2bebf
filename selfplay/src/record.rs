//! Game records: versioned, self-describing, compressed chunk files.
//!
//! # Format (version 1)
//!
//! A chunk file (`*.games.zst`) is a zstd frame, with zstd's content checksum, holding JSON
//! lines: first a [`ChunkHeader`], then one [`GameRecord`] per line. Files are written to a
//! temporary name and renamed, so a reader never sees a half-written chunk.
//!
//! Moves are stored as move strings in the variant's notation (`docs/notation.md`), not as
//! indices into the legal-move list: indices depend on the move generator's order, which may
//! change between engine versions, while the notation is specified and checked by the rules
//! tests. The cost is size (zstd takes most of it back: repeated square names compress well)
//! and a notation lookup per move when replaying.
//!
//! Training positions are not stored: [`GameRecord::replay`] rebuilds every position, with its
//! history, from the start position and the moves.
//!
//! The encoded form of a known record is pinned by a test (`record_schema_is_pinned`), so that
//! a format change is deliberate: bump [`FORMAT_VERSION`] and keep reading the old version.

use std::{
    collections::HashMap,
    fmt, fs,
    io::{BufRead, BufReader, Read, Write},
    path::{Path, PathBuf},
    sync::Arc,
};

use fairyzero_rules::{Color, EndReason, Move, MoveList, Outcome, Position, Variant};
use serde::{de::DeserializeOwned, Deserialize, Deserializer, Serialize, Serializer};

use crate::config::SearchKind;

/// The `format` field of every chunk header.
pub const FORMAT: &str = "fairyzero-games";
/// The record format this program writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// File name suffix of chunk files.
pub const CHUNK_SUFFIX: &str = ".games.zst";

/// The program version written into records.
pub fn program_version() -> String {
    format!("fairyzero {}", env!("CARGO_PKG_VERSION"))
}

/// A variant hash as written in records: 16 lower-case hex digits.
pub fn hash_hex(hash: u64) -> String {
    format!("{hash:016x}")
}

/// First line of a chunk file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChunkHeader {
    /// Always [`FORMAT`].
    pub format: String,
    pub format_version: u32,
    pub program_version: String,
    pub variant: String,
    pub variant_hash: String,
    /// Number of game lines that follow.
    pub games: u32,
}

/// How a game's start position was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SetupKind {
    /// The variant's setup phase: `start` is its fixed part, the first moves are setup moves.
    Phase,
    /// The variant's start position.
    Default,
    /// A given position string.
    Fen,
}

/// What searched the moves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchInfo {
    /// `puct` or `gumbel`.
    pub kind: SearchKind,
    /// Simulations of a full search.
    pub simulations: u32,
    /// What policy weights are.
    pub policy_target: PolicyTarget,
}

/// What the policy weights of a record's moves are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PolicyTarget {
    /// Root visit counts (PUCT).
    Visits,
    /// Gumbel AlphaZero's improved policy.
    ImprovedPolicy,
}

impl PolicyTarget {
    /// The target `kind` produces.
    pub fn of(kind: SearchKind) -> PolicyTarget {
        match kind {
            SearchKind::Puct => PolicyTarget::Visits,
            SearchKind::Gumbel => PolicyTarget::ImprovedPolicy,
        }
    }
}

/// One move of a game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRecord {
    /// The move played.
    #[serde(rename = "m")]
    pub mv: String,
    /// Sparse policy target `[move, weight]`: visit counts (PUCT) or improved-policy
    /// probabilities (Gumbel). Absent when the move was not a full search (playout-cap
    /// randomisation, forced moves): such moves are not policy training targets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<Vec<(String, f32)>>,
    /// The search's value of the position for the side to move, in [-1, 1].
    #[serde(rename = "v")]
    pub value: f32,
    /// Simulations spent on this move.
    #[serde(rename = "n")]
    pub simulations: u32,
    /// Network evaluations spent on this move.
    #[serde(rename = "e")]
    pub evaluations: u32,
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameResult {
    /// `blue`, `tan`, or absent for a draw.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "winner_text")]
    pub winner: Option<Color>,
    pub reason: Termination,
}

impl GameResult {
    pub fn from_outcome(outcome: &Outcome) -> GameResult {
        GameResult { winner: outcome.winner(), reason: outcome.reason().into() }
    }

    pub fn winner_color(&self) -> Option<Color> {
        self.winner
    }

    /// "1-0", "0-1" or "1/2-1/2", Blue first.
    pub fn score_text(&self) -> &'static str {
        match self.winner_color() {
            Some(Color::Blue) => "1-0",
            Some(Color::Tan) => "0-1",
            None => "1/2-1/2",
        }
    }

    /// The result for `color`: 1, 0 or -1.
    pub fn value_for(&self, color: Color) -> f32 {
        match self.winner_color() {
            Some(w) if w == color => 1.0,
            Some(_) => -1.0,
            None => 0.0,
        }
    }
}

pub fn color_key(c: Color) -> &'static str {
    match c {
        Color::Blue => "blue",
        Color::Tan => "tan",
    }
}

/// A game's winner as records write it: [`color_key`], absent for a draw.
mod winner_text {
    use super::*;

    pub fn serialize<S: Serializer>(winner: &Option<Color>, s: S) -> Result<S::Ok, S::Error> {
        match winner {
            Some(c) => s.serialize_some(color_key(*c)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Color>, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "snake_case")]
        enum Side {
            Blue,
            Tan,
        }
        Ok(Option::<Side>::deserialize(d)?.map(|side| match side {
            Side::Blue => Color::Blue,
            Side::Tan => Color::Tan,
        }))
    }
}

/// Why a game ended, as records (self-play games, and the evaluator's match games) write it:
/// the rules' [`EndReason`], in its words, or a player's illegal move, which only matches can
/// see (self-play picks from the legal moves).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Termination {
    #[serde(rename = "checkmate")]
    Checkmate,
    #[serde(rename = "stalemate")]
    Stalemate,
    #[serde(rename = "royal captured")]
    RoyalCaptured,
    #[serde(rename = "bared")]
    Bared,
    #[serde(rename = "extinction")]
    Extinction,
    #[serde(rename = "no non-repeating move")]
    RepetitionLoss,
    #[serde(rename = "repetition")]
    Repetition,
    #[serde(rename = "move-count rule")]
    HalfmoveRule,
    #[serde(rename = "move cap")]
    MoveCap,
    #[serde(rename = "illegal move")]
    IllegalMove,
    /// The player could not move at all: an external engine crashed, hung, or answered
    /// something that is not a move (the match record keeps the reason).
    #[serde(rename = "forfeit")]
    Forfeit,
    /// Broken off before it ended (a `fairyzero play` game in progress, or left for a new
    /// one; PGN's `*`): the record keeps the moves for viewing, and no rating counts it.
    #[serde(rename = "adjourned")]
    Adjourned,
}

impl Termination {
    /// The text records hold (the serde name): the rules' [`EndReason::as_str`] for theirs.
    pub fn as_str(self) -> &'static str {
        match (self, self.end_reason()) {
            (_, Some(rule)) => rule.as_str(),
            (Termination::Forfeit, None) => "forfeit",
            (Termination::Adjourned, None) => "adjourned",
            (_, None) => "illegal move",
        }
    }

    /// The rule that ended the game; `None` for an illegal move, a forfeit or an adjournment.
    pub fn end_reason(self) -> Option<EndReason> {
        Some(match self {
            Termination::Checkmate => EndReason::Checkmate,
            Termination::Stalemate => EndReason::Stalemate,
            Termination::RoyalCaptured => EndReason::RoyalCaptured,
            Termination::Bared => EndReason::Bared,
            Termination::Extinction => EndReason::Extinction,
            Termination::RepetitionLoss => EndReason::RepetitionLoss,
            Termination::Repetition => EndReason::Repetition,
            Termination::HalfmoveRule => EndReason::HalfmoveRule,
            Termination::MoveCap => EndReason::MoveCap,
            Termination::IllegalMove | Termination::Forfeit | Termination::Adjourned => return None,
        })
    }
}

impl From<EndReason> for Termination {
    fn from(reason: EndReason) -> Termination {
        match reason {
            EndReason::Checkmate => Termination::Checkmate,
            EndReason::Stalemate => Termination::Stalemate,
            EndReason::RoyalCaptured => Termination::RoyalCaptured,
            EndReason::Bared => Termination::Bared,
            EndReason::Extinction => Termination::Extinction,
            EndReason::RepetitionLoss => Termination::RepetitionLoss,
            EndReason::Repetition => Termination::Repetition,
            EndReason::HalfmoveRule => Termination::HalfmoveRule,
            EndReason::MoveCap => Termination::MoveCap,
        }
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One self-play game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameRecord {
    pub variant: String,
    pub variant_hash: String,
    pub setup: SetupKind,
    /// The position before the first move (for [`SetupKind::Phase`], the setup's fixed part).
    pub start: String,
    pub moves: Vec<MoveRecord>,
    pub result: GameResult,
    pub search: SearchInfo,
    /// Which network played (checkpoint id, or the mock's name).
    pub net: String,
    pub seed: u64,
    pub program_version: String,
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/// A record file that cannot be read; always names the file.
#[derive(Debug, thiserror::Error)]
#[error("game record file {}: {problem}", .path.display())]
pub struct RecordError {
    pub path: PathBuf,
    pub problem: RecordProblem,
}

#[derive(Debug, thiserror::Error)]
pub enum RecordProblem {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("corrupt or truncated (zstd: {0})")]
    Corrupt(String),
    #[error("not a fairyzero game record: {0}")]
    NotARecord(String),
    #[error("format version {found} is not supported (this program reads version {FORMAT_VERSION})")]
    Version { found: u32 },
    #[error("line {line}: {message}")]
    Game { line: usize, message: String },
    #[error("the header announces {announced} games, the file holds {found}")]
    Count { announced: u32, found: usize },
    #[error("cannot write: {0}")]
    Write(String),
}

/// A game that does not replay under the given variant.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("the game is {game} (hash {game_hash}), not {variant} (hash {variant_hash})")]
    Variant { game: String, game_hash: String, variant: String, variant_hash: String },
    #[error("start position: {0}")]
    Start(String),
    #[error("ply {ply}: {message}")]
    Move { ply: usize, message: String },
}

// ---------------------------------------------------------------------------------------------
// Writing and reading chunks
// ---------------------------------------------------------------------------------------------

fn encode_lines(games: &[GameRecord]) -> Result<Vec<u8>, String> {
    let first = games.first().ok_or("a chunk holds at least one game")?;
    let header = ChunkHeader {
        format: FORMAT.into(),
        format_version: FORMAT_VERSION,
        program_version: program_version(),
        variant: first.variant.clone(),
        variant_hash: first.variant_hash.clone(),
        games: games.len() as u32,
    };
    let mut out = serde_json::to_vec(&header).map_err(|e| e.to_string())?;
    out.push(b'\n');
    for g in games {
        if g.variant != header.variant || g.variant_hash != header.variant_hash {
            return Err(format!("a chunk holds one variant; got {} and {}", header.variant, g.variant));
        }
        serde_json::to_writer(&mut out, g).map_err(|e| e.to_string())?;
        out.push(b'\n');
    }
    Ok(out)
}

/// Writes `games` (all of one variant) as one chunk file, atomically: a temporary file in the
/// same directory (`.<name>.<pid>.tmp`, so that [`ChunkWriter::new`] can tell whose it is),
/// flushed, then renamed to `path`.
pub fn write_chunk(path: &Path, games: &[GameRecord]) -> Result<(), RecordError> {
    let err = |problem| RecordError { path: path.to_path_buf(), problem };
    let lines = encode_lines(games).map_err(|m| err(RecordProblem::Write(m)))?;
    let mut encoder = zstd::Encoder::new(Vec::new(), 3).map_err(|e| err(RecordProblem::Io(e)))?;
    encoder.include_checksum(true).map_err(|e| err(RecordProblem::Io(e)))?;
    encoder.write_all(&lines).map_err(|e| err(RecordProblem::Io(e)))?;
    let compressed = encoder.finish().map_err(|e| err(RecordProblem::Io(e)))?;
    let file_name = path.file_name().ok_or_else(|| err(RecordProblem::Write("no file name".into())))?;
    let tmp = path.with_file_name(format!(".{}.{}.tmp", file_name.to_string_lossy(), std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(&compressed)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        err(RecordProblem::Io(e))
    })
}

/// Reads one chunk file, checking its header, checksum and every game line.
pub fn read_chunk(path: &Path) -> Result<Vec<GameRecord>, RecordError> {
    let bytes = fs::read(path).map_err(|e| RecordError { path: path.to_path_buf(), problem: RecordProblem::Io(e) })?;
    decode_chunk(path, &bytes)
}

/// [`read_chunk`] on the bytes of a chunk file already in memory; `path` names it in errors.
pub fn decode_chunk(path: &Path, compressed: &[u8]) -> Result<Vec<GameRecord>, RecordError> {
    decode_chunk_within(path, compressed, MAX_CHUNK_BYTES)
}

/// The most a chunk may decompress to: a few hundred times the largest chunk self-play writes
/// (100 Typhoon games of ~200 KB each by default), and far below what a "decompression bomb"
/// (a few KB that expand to terabytes) would otherwise allocate before the process aborts.
pub const MAX_CHUNK_BYTES: u64 = 4 << 30;

fn decode_chunk_within(path: &Path, compressed: &[u8], limit: u64) -> Result<Vec<GameRecord>, RecordError> {
    let corrupt = |message: String| RecordError { path: path.to_path_buf(), problem: RecordProblem::Corrupt(message) };
    let decoder = zstd::stream::read::Decoder::new(compressed).map_err(|e| corrupt(e.to_string()))?;
    let mut text = Vec::new();
    decoder.take(limit + 1).read_to_end(&mut text).map_err(|e| corrupt(e.to_string()))?;
    if text.len() as u64 > limit {
        return Err(corrupt(format!("it decompresses to more than {limit} bytes")));
    }
    parse_chunk(path, &text)
}

/// The JSON lines of a decompressed chunk: the header, then the games it announces.
pub fn parse_chunk(path: &Path, text: &[u8]) -> Result<Vec<GameRecord>, RecordError> {
    let err = |problem| RecordError { path: path.to_path_buf(), problem };
    let mut lines = BufReader::new(text).lines();
    let first = match lines.next() {
        Some(Ok(line)) => line,
        _ => return Err(err(RecordProblem::NotARecord("no header line".into()))),
    };
    // Check the format before the version, and the version before the other header fields,
    // so that a newer file gets the precise message.
    let value: serde_json::Value =
        serde_json::from_str(&first).map_err(|e| err(RecordProblem::NotARecord(format!("header: {e}"))))?;
    if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
        return Err(err(RecordProblem::NotARecord(format!("header has no `format = \"{FORMAT}\"`"))));
    }
    match value.get("format_version").and_then(|v| v.as_u64()) {
        Some(v) if v == FORMAT_VERSION as u64 => {}
        Some(v) => return Err(err(RecordProblem::Version { found: v as u32 })),
        None => return Err(err(RecordProblem::NotARecord("header has no format_version".into()))),
    }
    let header: ChunkHeader =
        serde_json::from_value(value).map_err(|e| err(RecordProblem::NotARecord(format!("header: {e}"))))?;
    // The count is checked against the lines below; it must not size an allocation before that
    // (a damaged header announcing 4 billion games would abort the reader).
    let mut games = Vec::with_capacity((header.games as usize).min(1024));
    for (i, line) in lines.enumerate() {
        let line_no = i + 2;
        let line = line.map_err(|e| err(RecordProblem::Game { line: line_no, message: e.to_string() }))?;
        if line.is_empty() {
            continue;
        }
        let game: GameRecord =
            from_json_line(&line).map_err(|e| err(RecordProblem::Game { line: line_no, message: e.to_string() }))?;
        if game.variant != header.variant || game.variant_hash != header.variant_hash {
            return Err(err(RecordProblem::Game {
                line: line_no,
                message: format!("variant {} differs from the header's {}", game.variant, header.variant),
            }));
        }
        games.push(game);
    }
    if games.len() != header.games as usize {
        return Err(err(RecordProblem::Count { announced: header.games, found: games.len() }));
    }
    Ok(games)
}

/// One JSON line as a `T`. A bad value is named by its field's path (`unknown variant ... (field
/// result.reason)`), which serde_json alone leaves out.
pub fn from_json_line<T: DeserializeOwned>(line: &str) -> Result<T, LineError> {
    let mut de = serde_json::Deserializer::from_str(line);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        LineError { field: (path != ".").then_some(path), error: e.into_inner() }
    })?;
    de.end().map_err(|error| LineError { field: None, error })?;
    Ok(value)
}

/// A JSON line that is not the record it should be, and the field where it went wrong.
#[derive(Debug, thiserror::Error)]
#[error("{error}{}", .field.as_ref().map(|f| format!(" (field {f})")).unwrap_or_default())]
pub struct LineError {
    /// The path of the field (`result.reason`); `None` at the top level.
    pub field: Option<String>,
    pub error: serde_json::Error,
}

/// The games of a directory, and the files that could not be read.
#[derive(Debug, Default)]
pub struct DirLoad {
    pub games: Vec<GameRecord>,
    pub files: usize,
    pub skipped: Vec<RecordError>,
}

/// Reads every chunk file (`*.games.zst`) of `dir`, in name order. A file that cannot be read
/// is skipped with a warning and listed in [`DirLoad::skipped`]; only an unreadable directory
/// is an error.
pub fn load_dir(dir: &Path) -> Result<DirLoad, RecordError> {
    let err = |e| RecordError { path: dir.to_path_buf(), problem: RecordProblem::Io(e) };
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(err)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().ends_with(CHUNK_SUFFIX) && !n.to_string_lossy().starts_with('.'))
        })
        .collect();
    paths.sort();
    let mut load = DirLoad::default();
    for path in paths {
        match read_chunk(&path) {
            Ok(games) => {
                load.files += 1;
                load.games.extend(games);
            }
            Err(e) => {
                tracing::warn!("skipping {e}");
                load.skipped.push(e);
            }
        }
    }
    Ok(load)
}

/// Writes games into numbered chunk files of a directory as they come.
pub struct ChunkWriter {
    dir: PathBuf,
    prefix: String,
    per_file: usize,
    buffer: Vec<GameRecord>,
    next: u32,
    written: Vec<PathBuf>,
}

impl ChunkWriter {
    /// Files are named `<prefix>-<nnnnn>.games.zst`. The temporaries of writers that died
    /// before renaming them (killed, or a second Ctrl-C) are removed.
    pub fn new(dir: &Path, prefix: &str, per_file: usize) -> Result<ChunkWriter, RecordError> {
        fs::create_dir_all(dir).map_err(|e| RecordError { path: dir.to_path_buf(), problem: RecordProblem::Io(e) })?;
        remove_orphan_temporaries(dir)?;
        Ok(ChunkWriter {
            dir: dir.to_path_buf(),
            prefix: prefix.to_string(),
            per_file: per_file.max(1),
            buffer: Vec::new(),
            next: 0,
            written: Vec::new(),
        })
    }

    pub fn push(&mut self, game: GameRecord) -> Result<(), RecordError> {
        self.buffer.push(game);
        if self.buffer.len() >= self.per_file {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes the buffered games, if any, as one chunk.
    pub fn flush(&mut self) -> Result<(), RecordError> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let path = self.dir.join(format!("{}-{:05}{CHUNK_SUFFIX}", self.prefix, self.next));
        write_chunk(&path, &self.buffer)?;
        self.next += 1;
        self.buffer.clear();
        self.written.push(path);
        Ok(())
    }

    /// Files written so far.
    pub fn files(&self) -> &[PathBuf] {
        &self.written
    }
}

/// Removes `.<name>.games.zst.<pid>.tmp` files of processes that no longer run. Where that
/// cannot be told (no `/proc`), nothing is removed: a hidden temporary is harmless, a writer's
/// file in flight is not.
fn remove_orphan_temporaries(dir: &Path) -> Result<Vec<PathBuf>, RecordError> {
    let proc = Path::new("/proc/self");
    if !proc.exists() {
        return Ok(Vec::new());
    }
    let io = |path: &Path, e| RecordError { path: path.to_path_buf(), problem: RecordProblem::Io(e) };
    let mut removed = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| io(dir, e))? {
        let path = entry.map_err(|e| io(dir, e))?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let Some(pid) = orphan_candidate(&name) else { continue };
        if !Path::new("/proc").join(pid.to_string()).exists() {
            fs::remove_file(&path).map_err(|e| io(&path, e))?;
            removed.push(path);
        }
    }
    Ok(removed)
}

/// The writer's pid of a temporary chunk name `.<name>.games.zst.<pid>.tmp`.
fn orphan_candidate(file_name: &str) -> Option<u32> {
    let inner = file_name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (name, pid) = inner.rsplit_once('.')?;
    name.ends_with(CHUNK_SUFFIX).then(|| pid.parse().ok()).flatten()
}

// ---------------------------------------------------------------------------------------------
// Replay: training positions from records
// ---------------------------------------------------------------------------------------------

/// One position of a replayed game.
pub struct ReplayStep<'a> {
    /// Index of the move in [`GameRecord::moves`].
    pub ply: usize,
    /// The position before the move, with the game's history.
    pub position: &'a Position,
    /// Its legal moves, in move-generation order.
    pub legal: &'a [Move],
    /// The move played (an element of `legal`).
    pub played: Move,
    pub record: &'a MoveRecord,
    /// The policy target over `legal` (sums to 1), when the move has one.
    pub policy: Option<Vec<f32>>,
    /// The game's result for the side to move here: 1, 0 or -1.
    pub result: f32,
}

impl GameRecord {
    /// The position the game starts from.
    pub fn start_position(&self, variant: &Arc<Variant>) -> Result<Position, ReplayError> {
        if self.variant != variant.name || self.variant_hash != hash_hex(variant.hash) {
            return Err(ReplayError::Variant {
                game: self.variant.clone(),
                game_hash: self.variant_hash.clone(),
                variant: variant.name.clone(),
                variant_hash: hash_hex(variant.hash),
            });
        }
        match self.setup {
            SetupKind::Phase => Position::setup_start(Arc::clone(variant))
                .ok_or_else(|| ReplayError::Start(format!("variant {} has no setup phase", variant.name))),
            SetupKind::Default | SetupKind::Fen => {
                Position::from_fen(Arc::clone(variant), &self.start).map_err(|e| ReplayError::Start(e.to_string()))
            }
        }
    }

    /// Replays the game, calling `visit` with every position before its move, and returns the
    /// final position.
    pub fn replay(
        &self,
        variant: &Arc<Variant>,
        mut visit: impl FnMut(ReplayStep<'_>),
    ) -> Result<Position, ReplayError> {
        let mut pos = self.start_position(variant)?;
        let mut legal = MoveList::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for (ply, rec) in self.moves.iter().enumerate() {
            let bad = |message: String| ReplayError::Move { ply, message };
            pos.legal_moves(&mut legal);
            index.clear();
            for (i, m) in legal.iter().enumerate() {
                index.insert(pos.move_to_string(m), i);
            }
            let played = *index
                .get(&rec.mv)
                .map(|&i| &legal[i])
                .ok_or_else(|| bad(format!("move {:?} is not legal in {}", rec.mv, pos.to_fen())))?;
            let policy = match &rec.policy {
                None => None,
                Some(entries) => {
                    let mut dense = vec![0.0f32; legal.len()];
                    for (m, w) in entries {
                        let i = *index.get(m).ok_or_else(|| bad(format!("policy move {m:?} is not legal")))?;
                        dense[i] += w.max(0.0);
                    }
                    let total: f32 = dense.iter().sum();
                    if total <= 0.0 {
                        return Err(bad("the policy target has no weight".into()));
                    }
                    dense.iter_mut().for_each(|w| *w /= total);
                    Some(dense)
                }
            };
            let result = self.result.value_for(pos.side_to_move());
            visit(ReplayStep { ply, position: &pos, legal: &legal, played, record: rec, policy, result });
            pos.make(played);
        }
        Ok(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixed record, as written by format version 1.
    pub(crate) fn sample() -> GameRecord {
        GameRecord {
            variant: "chess".into(),
            variant_hash: "0123456789abcdef".into(),
            setup: SetupKind::Default,
            start: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            moves: vec![
                MoveRecord {
                    mv: "e2e4".into(),
                    policy: Some(vec![("e2e4".into(), 0.75), ("d2d4".into(), 0.25)]),
                    value: 0.0625,
                    simulations: 4,
                    evaluations: 5,
                },
                MoveRecord { mv: "e7e5".into(), policy: None, value: -0.5, simulations: 1, evaluations: 1 },
            ],
            result: GameResult { winner: None, reason: Termination::MoveCap },
            search: SearchInfo {
                kind: SearchKind::Gumbel,
                simulations: 4,
                policy_target: PolicyTarget::ImprovedPolicy,
            },
            net: "mock".into(),
            seed: 42,
            program_version: "fairyzero 0.1.0".into(),
        }
    }

    /// Changing this string is changing the record format: bump FORMAT_VERSION.
    #[test]
    fn record_schema_is_pinned() {
        let text = serde_json::to_string(&sample()).unwrap();
        assert_eq!(
            text,
            r#"{"variant":"chess","variant_hash":"0123456789abcdef","setup":"default","start":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1","moves":[{"m":"e2e4","policy":[["e2e4",0.75],["d2d4",0.25]],"v":0.0625,"n":4,"e":5},{"m":"e7e5","v":-0.5,"n":1,"e":1}],"result":{"reason":"move cap"},"search":{"kind":"gumbel","simulations":4,"policy_target":"improved_policy"},"net":"mock","seed":42,"program_version":"fairyzero 0.1.0"}"#
        );
        let header = ChunkHeader {
            format: FORMAT.into(),
            format_version: FORMAT_VERSION,
            program_version: "fairyzero 0.1.0".into(),
            variant: "chess".into(),
            variant_hash: "0123456789abcdef".into(),
            games: 1,
        };
        assert_eq!(
            serde_json::to_string(&header).unwrap(),
            r#"{"format":"fairyzero-games","format_version":1,"program_version":"fairyzero 0.1.0","variant":"chess","variant_hash":"0123456789abcdef","games":1}"#
        );
    }

    /// Closed sets (end reason, winner, search kind, policy target) are enums: a value outside
    /// them is refused with the field it is in, not read as text.
    #[test]
    fn an_unknown_closed_set_value_names_its_field() {
        let good = serde_json::to_string(&sample()).unwrap();
        for (from, to, value, field) in [
            (r#""reason":"move cap""#, r#""reason":"resigned""#, "resigned", "result.reason"),
            (r#""result":{"reason""#, r#""result":{"winner":"red","reason""#, "red", "result.winner"),
            (r#""kind":"gumbel""#, r#""kind":"mcts""#, "mcts", "search.kind"),
            (r#""policy_target":"improved_policy""#, r#""policy_target":"logits""#, "logits", "search.policy_target"),
        ] {
            let bad = good.replacen(from, to, 1);
            assert_ne!(bad, good);
            let err = from_json_line::<GameRecord>(&bad).unwrap_err().to_string();
            assert!(err.contains(&format!("unknown variant `{value}`")), "{err}");
            assert!(err.ends_with(&format!("(field {field})")), "{err}");
        }
        // A whole chunk names the line as well.
        let text = format!(
            "{}\n{}\n",
            r#"{"format":"fairyzero-games","format_version":1,"program_version":"x","variant":"chess","variant_hash":"0123456789abcdef","games":1}"#,
            good.replace("move cap", "resigned")
        );
        let err = parse_chunk(Path::new("x.games.zst"), text.as_bytes()).unwrap_err().to_string();
        assert!(err.contains("x.games.zst: line 2: unknown variant `resigned`"), "{err}");
    }

    /// Every end of a game reads and writes as the words it had as text: the rules'
    /// `EndReason::as_str`, and "illegal move".
    #[test]
    fn terminations_are_written_as_before() {
        use fairyzero_rules::EndReason::*;
        let rules =
            [Checkmate, Stalemate, RoyalCaptured, Bared, Extinction, RepetitionLoss, Repetition, HalfmoveRule, MoveCap];
        let mut all: Vec<Termination> = rules.iter().map(|&r| Termination::from(r)).collect();
        all.push(Termination::IllegalMove);
        for t in all {
            let text = serde_json::to_string(&t).unwrap();
            assert_eq!(text, format!("{:?}", t.as_str()));
            assert_eq!(serde_json::from_str::<Termination>(&text).unwrap(), t);
            assert_eq!(t.to_string(), t.as_str());
            if let Some(rule) = t.end_reason() {
                assert_eq!(t.as_str(), rule.as_str());
                assert_eq!(Termination::from(rule), t);
            }
        }
        assert_eq!(Termination::IllegalMove.as_str(), "illegal move");
        for (winner, text) in [
            (Some(Color::Blue), r#"{"winner":"blue","reason":"checkmate"}"#),
            (Some(Color::Tan), r#"{"winner":"tan","reason":"checkmate"}"#),
            (None, r#"{"reason":"checkmate"}"#),
        ] {
            let result = GameResult { winner, reason: Termination::Checkmate };
            assert_eq!(serde_json::to_string(&result).unwrap(), text);
            assert_eq!(serde_json::from_str::<GameResult>(text).unwrap(), result);
        }
    }

    /// Found by the fuzz target `records` (`fuzz/`): the header's count sized an allocation of
    /// up to a terabyte, and the reader aborted instead of refusing the file.
    #[test]
    fn a_huge_announced_count_is_an_error_not_an_abort() {
        let text = r#"{"format":"fairyzero-games","format_version":1,"program_version":"x","variant":"chess","variant_hash":"0","games":4294967295}"#;
        let err = parse_chunk(Path::new("big.games.zst"), text.as_bytes()).unwrap_err();
        assert!(err.to_string().contains("announces 4294967295 games, the file holds 0"), "{err}");
    }

    #[test]
    fn newer_versions_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("future.games.zst");
        let text = r#"{"format":"fairyzero-games","format_version":99}"#;
        fs::write(&path, zstd::encode_all(text.as_bytes(), 3).unwrap()).unwrap();
        let err = read_chunk(&path).unwrap_err();
        assert!(err.to_string().contains("format version 99 is not supported"), "{err}");
        assert!(err.to_string().contains("future.games.zst"), "{err}");
    }

    /// A small file that expands without bound is refused once past the limit, not read into
    /// memory until the allocation fails.
    #[test]
    fn a_decompression_bomb_is_an_error_not_an_abort() {
        let bomb = zstd::encode_all(&vec![b' '; 1 << 20][..], 19).unwrap();
        assert!(bomb.len() < 1024, "{} bytes", bomb.len());
        let err = decode_chunk_within(Path::new("bomb.games.zst"), &bomb, 1 << 16).unwrap_err();
        assert!(err.to_string().contains("decompresses to more than 65536 bytes"), "{err}");
        assert!(err.to_string().contains("bomb.games.zst"), "{err}");
    }

    /// A writer killed between writing its temporary and renaming it leaves a hidden file; the
    /// next writer in the folder removes it, but never a live writer's.
    #[test]
    #[cfg(target_os = "linux")]
    fn orphan_temporaries_are_removed_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let dead = std::process::Command::new("true").spawn().unwrap();
        let dead_pid = dead.id();
        let _ = { dead }.wait();
        let orphan = dir.path().join(format!(".a-00000.games.zst.{dead_pid}.tmp"));
        let live = dir.path().join(format!(".b-00000.games.zst.{}.tmp", std::process::id()));
        let other = dir.path().join(format!(".notes.{dead_pid}.tmp"));
        for f in [&orphan, &live, &other] {
            fs::write(f, b"half").unwrap();
        }
        let mut writer = ChunkWriter::new(dir.path(), "c", 1).unwrap();
        assert!(!orphan.exists() && live.exists() && other.exists());
        writer.push(sample()).unwrap();
        let names: Vec<String> =
            fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert!(names.contains(&"c-00000.games.zst".to_string()), "{names:?}");
        assert_eq!(names.len(), 3, "{names:?}");
        assert_eq!(orphan_candidate(&format!(".x.games.zst.{dead_pid}.tmp")), Some(dead_pid));
        assert_eq!(orphan_candidate(".x.games.zst.tmp"), None);
    }
}
