//! The results store of a run directory: `DIR/matches/*.jsonl`, one [`MatchGame`] per line.
//!
//! - Append-only: every batch of games (a match, a gating round) becomes one new file named
//!   `<unix-ms>-<pid>-<n>-<label>.jsonl`; files are never rewritten.
//! - Atomic per batch: the file is written as `.<name>.tmp`, flushed to disk and renamed, so a
//!   reader sees a whole batch or nothing. Readers skip names that start with a dot.
//! - Readers ([`ResultStore::load`]) take every `*.jsonl` file in name order (so in time
//!   order) and report, rather than fail on, lines they cannot read and whole files that are
//!   not UTF-8 text or cannot be opened (one damaged file must not hide every other result).
//! - Writers check first ([`ResultStore::ensure_writable`]): a match whose results cannot be
//!   stored is refused before its first game, not lost after its last.
//!
//! `fairyzero rank --run DIR` rebuilds the ratings from everything stored here.

use std::{
    fs,
    io::Write,
    path::{Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering},
    time::{SystemTime, UNIX_EPOCH},
};

use fairyzero_selfplay::record::from_json_line;

use crate::{matches::MatchGame, Error};

/// The store's folder inside a run directory.
pub const MATCHES_DIR: &str = "matches";

#[derive(Clone, Debug)]
pub struct ResultStore {
    dir: PathBuf,
}

/// What [`ResultStore::load`] found.
#[derive(Clone, Debug, Default)]
pub struct StoredResults {
    pub records: Vec<MatchGame>,
    pub files: usize,
    /// `file:line: problem` for every line that was skipped.
    pub problems: Vec<String>,
    /// `file: problem` for every whole file that was skipped (unreadable, or not UTF-8 text).
    pub skipped_files: Vec<String>,
}

impl ResultStore {
    /// The store of run directory `run_dir` (created on the first append).
    pub fn new(run_dir: &Path) -> ResultStore {
        ResultStore { dir: run_dir.join(MATCHES_DIR) }
    }

    /// A store in an arbitrary folder.
    pub fn at(dir: impl Into<PathBuf>) -> ResultStore {
        ResultStore { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Creates the store's folder and proves that a file can be written there, so that a caller
    /// can refuse to play games whose results it could not keep.
    pub fn ensure_writable(&self) -> Result<(), Error> {
        ensure_writable_dir(&self.dir)
    }

    /// Writes `records` as one new batch file; `label` (sanitised) ends its name.
    pub fn append(&self, records: &[MatchGame], label: &str) -> Result<PathBuf, Error> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let io = |path: &Path| {
            let path = path.display().to_string();
            move |error: std::io::Error| Error::Io { path, error }
        };
        fs::create_dir_all(&self.dir).map_err(io(&self.dir))?;
        let millis = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0);
        let label: String = label
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' { c } else { '_' })
            .take(80)
            .collect();
        let name = format!(
            "{millis:013}-{}-{}-{}.jsonl",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed),
            label.trim_start_matches('.')
        );
        let path = self.dir.join(&name);
        let tmp = self.dir.join(format!(".{name}.tmp"));
        let mut text = String::new();
        for r in records {
            text.push_str(&serde_json::to_string(r).expect("records serialise"));
            text.push('\n');
        }
        let mut f = fs::File::create(&tmp).map_err(io(&tmp))?;
        f.write_all(text.as_bytes()).map_err(io(&tmp))?;
        f.sync_all().map_err(io(&tmp))?;
        drop(f);
        fs::rename(&tmp, &path).map_err(io(&path))?;
        Ok(path)
    }

    /// Every stored game (an absent folder is an empty store).
    pub fn load(&self) -> Result<StoredResults, Error> {
        let mut out = StoredResults::default();
        let entries = match fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
            Err(error) => return Err(Error::Io { path: self.dir.display().to_string(), error }),
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                !name.starts_with('.') && name.ends_with(".jsonl")
            })
            .collect();
        files.sort();
        for file in files {
            let text = match fs::read(&file).map(String::from_utf8) {
                Ok(Ok(text)) => text,
                Ok(Err(e)) => {
                    let at = e.utf8_error().valid_up_to();
                    out.skipped_files.push(format!("{}: not UTF-8 text (byte {at})", file.display()));
                    continue;
                }
                Err(error) => {
                    out.skipped_files.push(format!("{}: {error}", file.display()));
                    continue;
                }
            };
            out.files += 1;
            for (i, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                match from_json_line::<MatchGame>(line) {
                    Ok(r) => out.records.push(r),
                    Err(e) => out.problems.push(format!("{}:{}: {e}", file.display(), i + 1)),
                }
            }
        }
        Ok(out)
    }
}

/// Creates `dir` (and its parents) and writes and removes a hidden probe file in it: `Ok` means
/// that results can be stored there now. Readers of the store skip hidden names, so a probe
/// left by a kill is harmless.
pub fn ensure_writable_dir(dir: &Path) -> Result<(), Error> {
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |error: std::io::Error| Error::Io { path, error }
    };
    fs::create_dir_all(dir).map_err(io(dir))?;
    let probe = dir.join(format!(".write-probe-{}", std::process::id()));
    fs::File::create(&probe).and_then(|mut f| f.write_all(b"probe")).map_err(io(&probe))?;
    fs::remove_file(&probe).map_err(io(&probe))
}

/// The training step in a checkpoint directory's `header.json` (`training_step`).
pub fn checkpoint_step(dir: &Path) -> Option<u64> {
    let text = fs::read_to_string(dir.join("header.json")).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value.get("training_step")?.as_u64()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::matches::{GameResult, RECORD_VERSION};
    use crate::Termination;

    pub(crate) fn record(blue: &str, tan: &str, result: GameResult, game: usize) -> MatchGame {
        MatchGame {
            version: RECORD_VERSION,
            match_id: "m".into(),
            variant: "gardner".into(),
            variant_hash: "0".into(),
            blue: blue.into(),
            tan: tan.into(),
            blue_step: None,
            tan_step: None,
            result,
            reason: Termination::Checkmate,
            plies: 10,
            opening: game / 2,
            opening_moves: String::new(),
            moves_hash: format!("{game:016x}"),
            moves: None,
            game,
            forfeit: None,
        }
    }

    #[test]
    fn batches_append_and_load_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let store = ResultStore::new(dir.path());
        assert_eq!(store.load().unwrap().records.len(), 0);
        let a = vec![record("x", "y", GameResult::BlueWins, 0), record("y", "x", GameResult::Draw, 1)];
        let b = vec![record("x", "z", GameResult::TanWins, 0)];
        let p1 = store.append(&a, "x vs y").unwrap();
        let p2 = store.append(&b, "x/z").unwrap();
        assert!(p1.file_name().unwrap().to_str().unwrap().ends_with("-x_vs_y.jsonl"));
        assert_ne!(p1, p2);
        // A half-written batch and a corrupt line are not read as games.
        fs::write(store.dir().join(".partial.jsonl.tmp"), "{").unwrap();
        let mut f = fs::OpenOptions::new().append(true).open(&p2).unwrap();
        writeln!(f, "not json").unwrap();
        let loaded = store.load().unwrap();
        assert_eq!(loaded.files, 2);
        assert_eq!(loaded.records, [a, b].concat());
        assert_eq!(loaded.problems.len(), 1, "{:?}", loaded.problems);
    }

    /// The end reason and the result are closed sets: a line with another value is skipped, and
    /// the problem names the file, the line and the field; every known reason reads and writes as
    /// the text it always had.
    #[test]
    fn an_unknown_reason_is_skipped_naming_its_field() {
        let dir = tempfile::tempdir().unwrap();
        let store = ResultStore::new(dir.path());
        let good = record("x", "y", GameResult::Draw, 0);
        let path = store.append(std::slice::from_ref(&good), "good").unwrap();
        let line = serde_json::to_string(&good).unwrap();
        assert!(line.contains(r#""result":"1/2-1/2","reason":"checkmate""#), "{line}");
        let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
        writeln!(f, "{}", line.replace("checkmate", "resigned")).unwrap();
        writeln!(f, "{}", line.replace("1/2-1/2", "2-0")).unwrap();
        let loaded = store.load().unwrap();
        assert_eq!(loaded.records, [good]);
        let [reason, result] = &loaded.problems[..] else { panic!("{:?}", loaded.problems) };
        assert!(reason.contains(":2: unknown variant `resigned`") && reason.ends_with("(field reason)"), "{reason}");
        assert!(result.contains(":3: unknown variant `2-0`") && result.ends_with("(field result)"), "{result}");
        for text in ["illegal move", "move cap", "royal captured", "no non-repeating move", "move-count rule"] {
            let line = line.replace("checkmate", text);
            let parsed: MatchGame = serde_json::from_str(&line).unwrap();
            assert_eq!(parsed.reason.as_str(), text);
            assert_eq!(serde_json::to_string(&parsed).unwrap(), line);
        }
    }

    #[test]
    fn a_file_that_is_not_utf8_is_skipped_and_reported() {
        let dir = tempfile::tempdir().unwrap();
        let store = ResultStore::new(dir.path());
        store.append(&[record("x", "y", GameResult::Draw, 0)], "good").unwrap();
        fs::write(store.dir().join("0-bad.jsonl"), b"{\"blue\": \"\xe9\xff\"}\n").unwrap();
        let loaded = store.load().unwrap();
        assert_eq!((loaded.records.len(), loaded.files), (1, 1));
        assert_eq!(loaded.skipped_files.len(), 1, "{:?}", loaded.skipped_files);
        assert!(
            loaded.skipped_files[0].contains("0-bad.jsonl: not UTF-8 text (byte 10)"),
            "{:?}",
            loaded.skipped_files
        );
    }

    #[test]
    fn writability_is_checked_without_leaving_files() {
        let dir = tempfile::tempdir().unwrap();
        let store = ResultStore::new(&dir.path().join("run"));
        store.ensure_writable().unwrap();
        assert_eq!(fs::read_dir(store.dir()).unwrap().count(), 0);
        // A regular file where the folder should be: not writable, and said so with its path.
        let blocked = ResultStore::new(&dir.path().join("file"));
        fs::write(dir.path().join("file"), "").unwrap();
        let err = blocked.ensure_writable().unwrap_err().to_string();
        assert!(err.contains("file/matches"), "{err}");
    }

    #[test]
    fn steps_come_from_the_header() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("header.json"), r#"{"training_step": 1200, "other": 1}"#).unwrap();
        assert_eq!(checkpoint_step(dir.path()), Some(1200));
        assert_eq!(checkpoint_step(&dir.path().join("missing")), None);
    }
}
