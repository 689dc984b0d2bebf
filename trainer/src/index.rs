//! An embedded SQLite index of a run's checkpoints, game chunks and match results, for queries
//! ("score of each checkpoint against random", "the latest checkpoint"). The store is the source
//! of truth: [`Index::sync`] adds what the store has and the index lacks and drops what the store
//! no longer has, so deleting `index.sqlite` and syncing rebuilds it ([`Index::rebuild`]).

use std::{collections::HashSet, path::Path};

use fairyzero_evaluator::MatchGame;
use rusqlite::{params, Connection, OptionalExtension};

use crate::{
    artifacts::{self, CheckpointManifest},
    store::Store,
};

/// Bumped when the schema changes; an index of another version is rebuilt.
pub const SCHEMA_VERSION: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS checkpoints (
    name TEXT PRIMARY KEY,
    step INTEGER NOT NULL,
    iteration INTEGER NOT NULL,
    created_unix_ms INTEGER NOT NULL,
    games INTEGER NOT NULL,
    positions INTEGER NOT NULL,
    elapsed_secs REAL NOT NULL,
    manifest TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS game_files (key TEXT PRIMARY KEY, bytes INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS match_files (key TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS match_games (
    file TEXT NOT NULL,
    line INTEGER NOT NULL,
    match_id TEXT NOT NULL,
    blue TEXT NOT NULL,
    tan TEXT NOT NULL,
    blue_step INTEGER,
    tan_step INTEGER,
    result TEXT NOT NULL,
    reason TEXT NOT NULL,
    plies INTEGER NOT NULL,
    PRIMARY KEY (file, line)
);
CREATE INDEX IF NOT EXISTS match_games_players ON match_games (blue, tan);
";

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("index {path}: {error}")]
    Sql { path: String, error: rusqlite::Error },
    #[error("index {path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

pub struct Index {
    conn: Connection,
    path: String,
}

/// A player's score against one opponent.
#[derive(Clone, Debug, PartialEq)]
pub struct Score {
    pub player: String,
    pub opponent: String,
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Score {
    pub fn score(&self) -> f64 {
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games.max(1) as f64
    }
}

/// What a sync changed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SyncReport {
    pub checkpoints_added: usize,
    pub match_files_added: usize,
    pub game_files_added: usize,
    pub removed: usize,
    /// Artifacts that could not be read (skipped).
    pub skipped: Vec<String>,
}

impl Index {
    /// Opens (or creates) the index at `path`; an index of another schema version is emptied.
    pub fn open(path: &Path) -> Result<Index, IndexError> {
        let shown = path.display().to_string();
        let sql = |error| IndexError::Sql { path: shown.clone(), error };
        let conn = Connection::open(path).map_err(sql)?;
        conn.pragma_update(None, "journal_mode", "WAL").map_err(sql)?;
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(sql)?;
        let index = Index { conn, path: shown.clone() };
        let version: Option<String> = index
            .conn
            .query_row("SELECT value FROM meta WHERE key = 'schema_version'", [], |r| r.get(0))
            .optional()
            .or_else(|_| Ok::<_, rusqlite::Error>(None))
            .map_err(sql)?;
        if version.as_deref() != Some(&SCHEMA_VERSION.to_string()) {
            index.reset()?;
        }
        Ok(index)
    }

    /// Deletes the index file at `path` (with SQLite's `-wal` and `-shm` files), whatever it
    /// holds, even garbage that SQLite cannot open, and creates an empty one: the index is
    /// derived from the store, so [`Index::rebuild`] fills it again.
    pub fn recreate(path: &Path) -> Result<Index, IndexError> {
        for suffix in ["", "-wal", "-shm"] {
            let file = std::path::PathBuf::from(format!("{}{suffix}", path.display()));
            match std::fs::remove_file(&file) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(error) => return Err(IndexError::Io { path: file.display().to_string(), error }),
            }
        }
        Index::open(path)
    }

    fn sql(&self) -> impl Fn(rusqlite::Error) -> IndexError + '_ {
        |error| IndexError::Sql { path: self.path.clone(), error }
    }

    fn reset(&self) -> Result<(), IndexError> {
        self.conn
            .execute_batch(
                "DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS checkpoints; DROP TABLE IF EXISTS game_files;
                 DROP TABLE IF EXISTS match_files; DROP TABLE IF EXISTS match_games;",
            )
            .map_err(self.sql())?;
        self.conn.execute_batch(SCHEMA).map_err(self.sql())?;
        self.conn
            .execute("INSERT INTO meta (key, value) VALUES ('schema_version', ?1)", params![SCHEMA_VERSION.to_string()])
            .map_err(self.sql())?;
        Ok(())
    }

    /// Empties the index and syncs it from the store.
    pub fn rebuild(&mut self, store: &dyn Store) -> Result<SyncReport, IndexError> {
        self.reset()?;
        self.sync(store)
    }

    /// Brings the index in line with the store.
    pub fn sync(&mut self, store: &dyn Store) -> Result<SyncReport, IndexError> {
        self.sync_parts(store, true)
    }

    /// [`Index::sync`] of the checkpoints and match results only, what a training iteration
    /// adds: the game chunks are left for the next full sync (a start, the end), since listing
    /// every chunk of a long run at every iteration is the cost a learner of many workers must
    /// not pay (docs/distributed.md).
    pub fn sync_results(&mut self, store: &dyn Store) -> Result<SyncReport, IndexError> {
        self.sync_parts(store, false)
    }

    fn sync_parts(&mut self, store: &dyn Store, games: bool) -> Result<SyncReport, IndexError> {
        let mut report = SyncReport::default();
        let sql = |error| IndexError::Sql { path: self.path.clone(), error };

        // Checkpoints: every valid manifest.
        let manifests = artifacts::list_checkpoints(store)?;
        let known: HashSet<String> = self.strings("SELECT name FROM checkpoints")?;
        let present: HashSet<String> = manifests.iter().map(|m| m.name.clone()).collect();
        let tx = self.conn.transaction().map_err(sql)?;
        for m in &manifests {
            if known.contains(&m.name) {
                continue;
            }
            insert_checkpoint(&tx, m).map_err(sql)?;
            report.checkpoints_added += 1;
        }
        for gone in known.difference(&present) {
            tx.execute("DELETE FROM checkpoints WHERE name = ?1", params![gone]).map_err(sql)?;
            report.removed += 1;
        }
        tx.commit().map_err(sql)?;

        // Game files (compaction deletes the single-game ones).
        let objects = if games { store.list(artifacts::GAMES_DIR)? } else { Vec::new() };
        let known: HashSet<String> = self.strings("SELECT key FROM game_files")?;
        let present: HashSet<String> = objects.iter().map(|o| o.key.clone()).collect();
        let tx = self.conn.transaction().map_err(sql)?;
        for o in &objects {
            if !known.contains(&o.key) && artifacts::is_game_chunk(&o.key) {
                tx.execute("INSERT INTO game_files (key, bytes) VALUES (?1, ?2)", params![o.key, o.size as i64])
                    .map_err(sql)?;
                report.game_files_added += 1;
            }
        }
        for gone in known.difference(&present).filter(|_| games) {
            tx.execute("DELETE FROM game_files WHERE key = ?1", params![gone]).map_err(sql)?;
            report.removed += 1;
        }
        tx.commit().map_err(sql)?;

        // Match results: files are immutable, so a file indexed once is done.
        let objects = store.list(artifacts::MATCHES_DIR)?;
        let known: HashSet<String> = self.strings("SELECT key FROM match_files")?;
        let tx = self.conn.transaction().map_err(sql)?;
        for o in objects.iter().filter(|o| o.key.ends_with(".jsonl")) {
            if known.contains(&o.key) {
                continue;
            }
            let (records, problems) = artifacts::read_match_file(store, &o.key)?;
            report.skipped.extend(problems);
            for (line, r) in records {
                insert_match_game(&tx, &o.key, line, &r).map_err(sql)?;
            }
            tx.execute("INSERT INTO match_files (key) VALUES (?1)", params![o.key]).map_err(sql)?;
            report.match_files_added += 1;
        }
        tx.commit().map_err(sql)?;
        Ok(report)
    }

    fn strings(&self, query: &str) -> Result<HashSet<String>, IndexError> {
        let mut stmt = self.conn.prepare(query).map_err(self.sql())?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0)).map_err(self.sql())?;
        rows.collect::<Result<HashSet<_>, _>>().map_err(self.sql())
    }

    /// `(name, step)` of every checkpoint, by step.
    pub fn checkpoints(&self) -> Result<Vec<(String, u64)>, IndexError> {
        let mut stmt = self.conn.prepare("SELECT name, step FROM checkpoints ORDER BY step").map_err(self.sql())?;
        let rows =
            stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))).map_err(self.sql())?;
        rows.collect::<Result<Vec<_>, _>>().map_err(self.sql())
    }

    /// Number of match games indexed.
    pub fn match_games(&self) -> Result<u64, IndexError> {
        self.conn
            .query_row("SELECT COUNT(*) FROM match_games", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
            .map_err(self.sql())
    }

    /// Every player's score against `opponent` (games where they met), by player name.
    pub fn scores_against(&self, opponent: &str) -> Result<Vec<Score>, IndexError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT player, COUNT(*), SUM(points = 1.0), SUM(points = 0.5), SUM(points = 0.0) FROM (
                    SELECT blue AS player, CASE result WHEN '1-0' THEN 1.0 WHEN '0-1' THEN 0.0 ELSE 0.5 END AS points
                        FROM match_games WHERE tan = ?1 AND blue != ?1
                    UNION ALL
                    SELECT tan AS player, CASE result WHEN '0-1' THEN 1.0 WHEN '1-0' THEN 0.0 ELSE 0.5 END AS points
                        FROM match_games WHERE blue = ?1 AND tan != ?1
                 ) GROUP BY player ORDER BY player",
            )
            .map_err(self.sql())?;
        let rows = stmt
            .query_map(params![opponent], |r| {
                Ok(Score {
                    player: r.get(0)?,
                    opponent: opponent.to_string(),
                    games: r.get::<_, i64>(1)? as u64,
                    wins: r.get::<_, i64>(2)? as u64,
                    draws: r.get::<_, i64>(3)? as u64,
                    losses: r.get::<_, i64>(4)? as u64,
                })
            })
            .map_err(self.sql())?;
        rows.collect::<Result<Vec<_>, _>>().map_err(self.sql())
    }
}

fn insert_checkpoint(tx: &rusqlite::Transaction<'_>, m: &CheckpointManifest) -> rusqlite::Result<usize> {
    tx.execute(
        "INSERT OR REPLACE INTO checkpoints (name, step, iteration, created_unix_ms, games, positions, elapsed_secs, manifest)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            m.name,
            m.step as i64,
            m.state.iteration as i64,
            m.created_unix_ms as i64,
            m.state.games as i64,
            m.state.positions as i64,
            m.state.elapsed_secs,
            serde_json::to_string(m).expect("manifests serialise"),
        ],
    )
}

fn insert_match_game(
    tx: &rusqlite::Transaction<'_>,
    file: &str,
    line: usize,
    r: &MatchGame,
) -> rusqlite::Result<usize> {
    let result = serde_json::to_value(r.result).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    tx.execute(
        "INSERT OR REPLACE INTO match_games (file, line, match_id, blue, tan, blue_step, tan_step, result, reason, plies)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            file,
            line as i64,
            r.match_id,
            r.blue,
            r.tan,
            r.blue_step.map(|s| s as i64),
            r.tan_step.map(|s| s as i64),
            result,
            r.reason.as_str(),
            r.plies as i64
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ObjectStoreBackend;

    /// An iteration's sync leaves the game chunks alone (no listing of `games/`); a full sync
    /// adds them, and drops those the store no longer has.
    #[test]
    fn an_iterations_sync_does_not_list_the_games() {
        let store = ObjectStoreBackend::open("memory://").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut index = Index::open(&dir.path().join("index.sqlite")).unwrap();
        let key = format!("{}0000000000001-w-000001{}", artifacts::GAMES_DIR, fairyzero_selfplay::record::CHUNK_SUFFIX);
        store.publish(&key, b"chunk".to_vec()).unwrap();
        assert_eq!(index.sync_results(&store).unwrap().game_files_added, 0);
        assert_eq!(index.sync(&store).unwrap().game_files_added, 1);
        store.delete(&key).unwrap();
        assert_eq!(index.sync_results(&store).unwrap().removed, 0);
        assert_eq!(index.sync(&store).unwrap().removed, 1);
    }
}
