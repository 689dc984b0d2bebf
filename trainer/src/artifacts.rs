//! The run's artifacts on a [`Store`]: game chunks, checkpoints and match results, how they are
//! named, published and read back, and how damage is detected.
//!
//! - **Games**: every finished game is published at once as its own chunk (the self-play
//!   crate's format: zstd with a content checksum, a header line, one JSON game per line), so a
//!   kill loses no finished game. At the end of an iteration its games are compacted into one
//!   chunk, published before the single-game chunks are deleted; a kill in between leaves
//!   duplicates, which readers drop (a game is identified by its seed).
//! - **Checkpoints**: the model crate's files (`header.json`, `weights.safetensors`,
//!   `optimizer.safetensors`) and then `manifest.json`, which lists every file with its size and
//!   SHA-256 and the trainer's state. A checkpoint exists only once its manifest does; loading
//!   checks every size and hash, and a damaged checkpoint (unreadable, or a failed checksum) is
//!   moved to `damaged/<unix ms>/` under its own name with a warning, in favour of the previous
//!   one. A sound checkpoint that does not fit (other rules, architecture) is an error instead.
//! - **Rules**: `variant.toml`, the resolved variant the run was created with.
//! - **Match results**: the evaluator's game records, one JSON line each, under `matches/` (the
//!   layout `fairyzero rank --run DIR` reads), named deterministically per evaluation so that a
//!   resumed run does not play an evaluation twice.

use std::{
    collections::{HashMap, HashSet},
    path::{Path, PathBuf},
    sync::{Mutex, OnceLock},
    time::{SystemTime, UNIX_EPOCH},
};

use fairyzero_evaluator::MatchGame;
use fairyzero_rules::Variant;
use fairyzero_selfplay::record::{from_json_line, read_chunk, write_chunk, GameRecord, Termination, CHUNK_SUFFIX};
use fairyzero_torch::{checkpoint, optim::AdamW, Net};
use serde::{Deserialize, Serialize};

use crate::store::{materialize, ObjectInfo, Store, StoreError};

pub const GAMES_DIR: &str = "games/";
pub const CHECKPOINTS_DIR: &str = "checkpoints/";
pub const MATCHES_DIR: &str = "matches/";
pub const GATING_DIR: &str = "gating/";
pub const CONFIG_DIR: &str = "config/";
pub const RATINGS_DIR: &str = "ratings/";
pub const MANIFEST_FILE: &str = "manifest.json";
pub const MANIFEST_FORMAT: &str = "fairyzero-checkpoint";
pub const MANIFEST_VERSION: u32 = 1;

pub fn unix_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// This process's name in artifact keys: `<host>-<pid>`, sanitised.
pub fn worker_id() -> String {
    let host = std::fs::read_to_string("/etc/hostname").map(|h| h.trim().to_string()).unwrap_or_else(|_| "host".into());
    let clean: String = host.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).take(24).collect();
    format!("{clean}-{}", std::process::id())
}

pub fn is_game_chunk(key: &str) -> bool {
    key.starts_with(GAMES_DIR) && key.ends_with(CHUNK_SUFFIX) && !key.rsplit('/').next().unwrap_or("").starts_with('.')
}

/// The checkpoint folder name of a training step.
pub fn checkpoint_name(step: u64) -> String {
    format!("step-{step:08}")
}

/// The training step of a checkpoint folder name (`step-00000042` → 42).
pub fn checkpoint_step(name: &str) -> Option<u64> {
    name.strip_prefix("step-")?.parse().ok()
}

/// The key prefix of a checkpoint folder.
pub fn checkpoint_prefix(name: &str) -> String {
    format!("{CHECKPOINTS_DIR}{name}")
}

/// The trainer's state when a checkpoint was written.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainerState {
    /// Iterations completed.
    pub iteration: u64,
    /// Games in the store when the checkpoint was written.
    pub games: u64,
    /// Positions of those games.
    pub positions: u64,
    /// Positions drawn for training so far.
    pub samples_trained: u64,
    /// Wall-clock seconds of the run so far (across restarts).
    pub elapsed_secs: f64,
}

/// One file of a checkpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileEntry {
    pub name: String,
    pub bytes: u64,
    pub sha256: String,
}

/// `checkpoints/<name>/manifest.json`, published last.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointManifest {
    pub format: String,
    pub format_version: u32,
    pub name: String,
    pub step: u64,
    pub created_unix_ms: u64,
    pub files: Vec<FileEntry>,
    pub state: TrainerState,
}

/// Saves `net` (and the optimizer) as checkpoint `step` into the store: the model crate writes
/// the files into `staging`, each is published, and the manifest goes last. Publishing an
/// existing checkpoint again is an error unless its manifest is missing (an interrupted
/// publish), in which case the missing files are added.
pub fn publish_checkpoint(
    store: &dyn Store,
    net: &Net,
    optimizer: Option<&AdamW>,
    step: u64,
    state: TrainerState,
    staging: &Path,
) -> anyhow::Result<CheckpointManifest> {
    let name = checkpoint_name(step);
    let dir = staging.join(&name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    checkpoint::save(net, &dir, step, optimizer)?;
    let mut files = Vec::new();
    let mut names: Vec<String> =
        std::fs::read_dir(&dir)?.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    // The header last among the data files (a reader of the model format needs it to exist only
    // when the weights do); the manifest after everything.
    names.sort_by_key(|n| (n == checkpoint::HEADER_FILE, n.clone()));
    let prefix = checkpoint_prefix(&name);
    // Files without a manifest are the remains of an interrupted publish: not a checkpoint.
    let leftovers = store.list(&format!("{prefix}/"))?;
    let manifest_key = format!("{prefix}/{MANIFEST_FILE}");
    if leftovers.iter().any(|o| o.key == manifest_key) {
        let readable =
            store.get(&manifest_key).ok().and_then(|b| serde_json::from_slice::<CheckpointManifest>(&b).ok()).is_some();
        if readable {
            anyhow::bail!("checkpoint {name} already exists in the store");
        }
        tracing::warn!("checkpoint {name} has a damaged manifest: moving it to {DAMAGED_DIR}");
        quarantine(store, &format!("{prefix}/"))?;
    }
    for o in store.list(&format!("{prefix}/"))? {
        tracing::warn!("removing {} (left by an interrupted checkpoint publish)", o.key);
        store.delete(&o.key)?;
    }
    for file in names {
        let bytes = std::fs::read(dir.join(&file))?;
        files.push(FileEntry { name: file.clone(), bytes: bytes.len() as u64, sha256: checkpoint::sha256_hex(&bytes) });
        store.publish(&format!("{prefix}/{file}"), bytes)?;
    }
    let manifest = CheckpointManifest {
        format: MANIFEST_FORMAT.into(),
        format_version: MANIFEST_VERSION,
        name: name.clone(),
        step,
        created_unix_ms: unix_ms(),
        files,
        state,
    };
    store.publish(&format!("{prefix}/{MANIFEST_FILE}"), serde_json::to_vec_pretty(&manifest)?)?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(manifest)
}

/// Reads a trainer checkpoint folder's `manifest.json` and checks every file it lists (size
/// and SHA-256). `what` names the flag or place the folder came from, for the errors.
pub fn read_checkpoint_folder(dir: &Path, what: &str) -> anyhow::Result<CheckpointManifest> {
    let path = dir.join(MANIFEST_FILE);
    let bytes = std::fs::read(&path).map_err(|e| {
        anyhow::anyhow!(
            "{what} {}: cannot read {MANIFEST_FILE} ({e}): it needs a checkpoint folder of a run \
             (checkpoints/step-NNNNNNNN, with its manifest and optimizer state); to start a new \
             run from a net's weights alone, use --transfer",
            dir.display()
        )
    })?;
    let manifest: CheckpointManifest = serde_json::from_slice(&bytes).map_err(|e| {
        anyhow::anyhow!(
            "{what} {}: {MANIFEST_FILE} is not a trainer checkpoint manifest ({e}); an exported net \
             (models/) has no optimizer state: use --transfer to start from its weights",
            dir.display()
        )
    })?;
    if manifest.format != MANIFEST_FORMAT || manifest.format_version > MANIFEST_VERSION {
        anyhow::bail!(
            "{what} {}: {MANIFEST_FILE} has format {:?} version {}, this program reads {MANIFEST_FORMAT:?} up to version {MANIFEST_VERSION}",
            dir.display(),
            manifest.format,
            manifest.format_version
        );
    }
    checkpoint::verify_manifest(dir).map_err(|e| anyhow::anyhow!("{what} {}: {e}", dir.display()))?;
    Ok(manifest)
}

/// Publishes a checkpoint folder of another run (or a copy of one kept outside any run), whose
/// `manifest` [`read_checkpoint_folder`] has read and checked, into `store` under its own name,
/// byte for byte, manifest last, so that resuming the store finds it as its newest checkpoint:
/// weights, optimizer moments, step and trainer state carry on. (Resuming checks the store's
/// copy against the manifest again, as it does every checkpoint it loads.)
pub fn import_checkpoint(store: &dyn Store, dir: &Path, manifest: &CheckpointManifest) -> anyhow::Result<()> {
    let prefix = checkpoint_prefix(&manifest.name);
    for f in &manifest.files {
        store.publish(&format!("{prefix}/{}", f.name), std::fs::read(dir.join(&f.name))?)?;
    }
    store.publish(&format!("{prefix}/{MANIFEST_FILE}"), std::fs::read(dir.join(MANIFEST_FILE))?)?;
    Ok(())
}

/// Written at the root of the store of a run started with `--continue-from`: what the imported
/// checkpoint had played before. Its games are not in this store (the replay window is refilled
/// by self-play), so without it the run's game and position counts, and every model card
/// exported from it, would restart at zero while its steps and wall-clock go on.
pub const CONTINUATION_FILE: &str = "continued.json";

/// The contents of [`CONTINUATION_FILE`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Continuation {
    /// The folder the run continued from, as given.
    pub from: String,
    /// The imported checkpoint's name.
    pub checkpoint: String,
    /// Self-play games and positions before the continuation.
    pub games: u64,
    pub positions: u64,
}

/// Records that this store's run continues `manifest`'s checkpoint, played elsewhere.
pub fn record_continuation(store: &dyn Store, from: &Path, manifest: &CheckpointManifest) -> anyhow::Result<()> {
    let record = Continuation {
        from: from.display().to_string(),
        checkpoint: manifest.name.clone(),
        games: manifest.state.games,
        positions: manifest.state.positions,
    };
    store.publish(CONTINUATION_FILE, serde_json::to_vec_pretty(&record)?)?;
    Ok(())
}

/// The run's [`Continuation`], if it was started with `--continue-from`.
pub fn read_continuation(store: &dyn Store) -> anyhow::Result<Option<Continuation>> {
    match store.get(CONTINUATION_FILE) {
        Ok(bytes) => Ok(Some(serde_json::from_slice(&bytes).map_err(|e| {
            anyhow::anyhow!("{} in {}: not a continuation record: {e}", CONTINUATION_FILE, store.url())
        })?)),
        Err(StoreError::NotFound { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The objects of every checkpoint manifest in the store, by step (one listing, no reads).
pub fn checkpoint_manifest_objects(store: &dyn Store) -> Result<Vec<ObjectInfo>, StoreError> {
    let suffix = format!("/{MANIFEST_FILE}");
    let mut out: Vec<ObjectInfo> =
        store.list(CHECKPOINTS_DIR)?.into_iter().filter(|o| o.key.ends_with(&suffix)).collect();
    // Names are zero-padded steps, so the key order is the step order; sorted anyway, by step.
    out.sort_by_key(|o| o.key.split('/').nth(1).and_then(checkpoint_step));
    Ok(out)
}

/// Reads and checks one checkpoint manifest.
pub fn read_manifest(store: &dyn Store, key: &str) -> Result<CheckpointManifest, String> {
    let bytes = store.get(key).map_err(|e| e.to_string())?;
    let m: CheckpointManifest = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
    if m.format != MANIFEST_FORMAT || m.format_version > MANIFEST_VERSION {
        return Err(format!("not a checkpoint manifest of version <= {MANIFEST_VERSION}"));
    }
    Ok(m)
}

/// Manifests read so far by this process, by store, key, size and modification time: they are
/// immutable, so each is read once however often the checkpoints are listed (each iteration's
/// index sync, each evaluation), which matters on a remote store with thousands of them.
type ManifestCache = HashMap<(String, String, u64, u64), CheckpointManifest>;

fn manifest_cache() -> &'static Mutex<ManifestCache> {
    static CACHE: OnceLock<Mutex<ManifestCache>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// Every checkpoint with a readable manifest, by step. Unreadable manifests are skipped with a
/// warning.
pub fn list_checkpoints(store: &dyn Store) -> Result<Vec<CheckpointManifest>, StoreError> {
    let url = store.url();
    // Every in-memory store has the same URL: not cached.
    let cached = !url.starts_with("memory:");
    let mut out = Vec::new();
    for o in checkpoint_manifest_objects(store)? {
        let id = (url.clone(), o.key.clone(), o.size, o.last_modified_ms);
        if let Some(m) = cached.then(|| manifest_cache().lock().expect("manifest cache").get(&id).cloned()).flatten() {
            out.push(m);
            continue;
        }
        match read_manifest(store, &o.key) {
            Ok(m) => {
                if cached {
                    manifest_cache().lock().expect("manifest cache").insert(id, m.clone());
                }
                out.push(m);
            }
            Err(e) => tracing::warn!("skipping checkpoint manifest {}: {e}", o.key),
        }
    }
    out.sort_by_key(|m| m.step);
    Ok(out)
}

/// A local folder holding a checkpoint's files (the store's own folder when local, else a copy
/// under `cache`). They are not checked here: `checkpoint::load` checks them against the
/// folder's `manifest.json` itself (`checkpoint::verify_manifest`), wherever a checkpoint is
/// loaded, so checking here too would hash every file twice.
pub fn checkpoint_dir(store: &dyn Store, m: &CheckpointManifest, cache: &Path) -> Result<PathBuf, StoreError> {
    materialize(store, &checkpoint_prefix(&m.name), cache)
}

pub const DAMAGED_DIR: &str = "damaged/";

/// Moves every object under `prefix` (a key or a folder) to `damaged/<unix ms>/<key>`, out of
/// the way of readers and of new artifacts of the same name, under its own name: moving
/// `damaged/<unix ms>/<key>` back to `<key>` restores it. Returns the keys moved.
pub fn quarantine(store: &dyn Store, prefix: &str) -> Result<Vec<String>, StoreError> {
    let keys: Vec<String> = if prefix.ends_with('/') {
        store.list(prefix)?.into_iter().map(|o| o.key).collect()
    } else {
        vec![prefix.to_string()]
    };
    let stamp = unix_ms();
    let mut moved = Vec::new();
    for key in keys {
        let bytes = match store.get(&key) {
            Ok(b) => b,
            Err(StoreError::NotFound { .. }) => continue,
            Err(e) => return Err(e),
        };
        let target = format!("{DAMAGED_DIR}{stamp}/{key}");
        store.publish(&target, bytes)?;
        store.delete(&key)?;
        moved.push(target);
    }
    Ok(moved)
}

/// The resolved variant a run was created with, at the root of its store: a changed rule set
/// under the same name must stop a resume with a diff, not look like damaged checkpoints.
pub const VARIANT_FILE: &str = "variant.toml";
const VARIANT_HASH_LINE: &str = "# rules hash ";

/// The text of [`VARIANT_FILE`] for `variant`: comments with the name and the rules hash, then
/// the resolved specification (every `extends` merged), the text the hash is computed from.
pub fn variant_record_text(variant: &Variant) -> String {
    format!(
        "# The rules this run was created with (`extends` resolved). `fairyzero train` refuses to\n\
         # resume the run under other rules: see \"Changing the rules\" in docs/training.md.\n\
         # variant {}\n{VARIANT_HASH_LINE}{:016x}\n{}",
        variant.name,
        variant.hash,
        resolved_variant(variant)
    )
}

fn resolved_variant(variant: &Variant) -> String {
    toml::to_string(&variant.spec).unwrap_or_default()
}

/// The rules hash that a [`VARIANT_FILE`] text records.
pub fn recorded_rules_hash(text: &str) -> Option<&str> {
    text.lines().find_map(|l| l.strip_prefix(VARIANT_HASH_LINE)).map(str::trim)
}

/// Compares `variant` with the run's recorded rules. `Ok(false)`: no record yet (a new run, or
/// one created before records existed). A different rule set is an error with both hashes and
/// a line diff of the resolved specifications.
pub fn check_variant_record(store: &dyn Store, variant: &Variant, source: &str) -> anyhow::Result<bool> {
    let bytes = match store.get(VARIANT_FILE) {
        Ok(b) => b,
        Err(StoreError::NotFound { .. }) => return Ok(false),
        Err(e) => return Err(e.into()),
    };
    let text = String::from_utf8_lossy(&bytes);
    let recorded_hash = recorded_rules_hash(&text).unwrap_or("?");
    let hash = format!("{:016x}", variant.hash);
    if recorded_hash == hash {
        return Ok(true);
    }
    let recorded: String = text.lines().filter(|l| !l.starts_with('#')).map(|l| format!("{l}\n")).collect();
    let diff = line_diff(&recorded, &resolved_variant(variant));
    let last = list_checkpoints(store)?.pop().map(|m| checkpoint_prefix(&m.name));
    let last = last.map_or_else(
        || format!("{CHECKPOINTS_DIR}CHECKPOINT"),
        |key| store.local_path(&key).map_or(key, |p| p.display().to_string()),
    );
    anyhow::bail!(
        "the rules of variant `{}` changed since this run was created: the run has rules hash {recorded_hash} \
         ({VARIANT_FILE} in {}), {source} now resolves to rules hash {hash}.\n\
         --- recorded ({VARIANT_FILE})\n+++ now ({source})\n{diff}\
         Nothing was moved or changed. The run's checkpoints were trained on the recorded rules: \
         undo the edit to resume, or start a new run warm-started from the last checkpoint: \
         fairyzero train --config RUN.toml -o run_dir=NEW_DIR --transfer {last} (docs/training.md, \"Changing the rules\")",
        variant.name,
        store.url(),
    )
}

/// Records `variant` as the run's rules (once: the record is never replaced).
pub fn record_variant(store: &dyn Store, variant: &Variant) -> Result<(), StoreError> {
    match store.publish(VARIANT_FILE, variant_record_text(variant).into_bytes()) {
        Ok(()) | Err(StoreError::Exists { .. }) => Ok(()),
        Err(e) => Err(e),
    }
}

/// The lines of `old` and `new` that differ, `-`/`+` prefixed, in order (longest common
/// subsequence; variant specifications are a few hundred lines at most).
pub fn line_diff(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push_str(&format!("-{}\n", a[i]));
            i += 1;
        } else {
            out.push_str(&format!("+{}\n", b[j]));
            j += 1;
        }
    }
    out
}

/// Publishes one finished game as its own chunk; returns its key.
pub fn publish_game(
    store: &dyn Store,
    worker: &str,
    seq: u64,
    game: &GameRecord,
    scratch: &Path,
) -> anyhow::Result<String> {
    let key = format!("{GAMES_DIR}{:013}-{worker}-{seq:06}{CHUNK_SUFFIX}", unix_ms());
    publish_chunk(store, &key, std::slice::from_ref(game), scratch)?;
    Ok(key)
}

fn publish_chunk(store: &dyn Store, key: &str, games: &[GameRecord], scratch: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(scratch)?;
    let tmp = scratch.join(format!("chunk-{}{CHUNK_SUFFIX}", std::process::id()));
    write_chunk(&tmp, games)?;
    let bytes = std::fs::read(&tmp)?;
    let _ = std::fs::remove_file(&tmp);
    store.publish(key, bytes)?;
    Ok(())
}

/// Replaces the single-game chunks `keys` by one chunk (published first, then the singles are
/// deleted). Returns the new key.
pub fn compact_games(
    store: &dyn Store,
    keys: &[String],
    worker: &str,
    scratch: &Path,
) -> anyhow::Result<Option<String>> {
    if keys.len() < 2 {
        return Ok(None);
    }
    let mut games = Vec::new();
    let mut readable = Vec::new();
    for k in keys {
        match try_read_game_chunk(store, k, scratch) {
            Ok(Ok(chunk)) => {
                games.extend(chunk);
                readable.push(k.clone());
            }
            Ok(Err(e)) => {
                tracing::warn!("skipping a damaged game chunk (moved to {DAMAGED_DIR}): {e}");
                quarantine(store, k)?;
            }
            Err(e) if matches!(e.downcast_ref::<StoreError>(), Some(StoreError::NotFound { .. })) => {}
            Err(e) => return Err(e),
        }
    }
    let keys = &readable[..];
    if keys.len() < 2 {
        return Ok(None);
    }
    let first = keys[0].trim_start_matches(GAMES_DIR).split('-').next().unwrap_or("0").to_string();
    let key = format!("{GAMES_DIR}{first}-{worker}-c{:06}{CHUNK_SUFFIX}", games.len());
    match publish_chunk(store, &key, &games, scratch) {
        Ok(()) => {}
        // Compacted before a kill that came before the deletions.
        Err(e) if matches!(e.downcast_ref::<StoreError>(), Some(StoreError::Exists { .. })) => {}
        Err(e) => return Err(e),
    }
    for k in keys {
        store.delete(k)?;
    }
    Ok(Some(key))
}

/// Reads one chunk from the store. The outer error is the store's (the chunk could not be
/// fetched), the inner one the chunk's (it is damaged).
pub fn try_read_game_chunk(
    store: &dyn Store,
    key: &str,
    scratch: &Path,
) -> anyhow::Result<Result<Vec<GameRecord>, fairyzero_selfplay::record::RecordError>> {
    if let Some(path) = store.local_path(key) {
        if !path.exists() {
            return Err(StoreError::NotFound { key: key.to_string() }.into());
        }
        return Ok(read_chunk(&path));
    }
    std::fs::create_dir_all(scratch)?;
    let tmp = scratch.join(format!("read-{}{CHUNK_SUFFIX}", std::process::id()));
    std::fs::write(&tmp, store.get(key)?)?;
    let games = read_chunk(&tmp);
    let _ = std::fs::remove_file(&tmp);
    Ok(games)
}

/// Reads one chunk from the store.
pub fn read_game_chunk(store: &dyn Store, key: &str, scratch: &Path) -> anyhow::Result<Vec<GameRecord>> {
    Ok(try_read_game_chunk(store, key, scratch)??)
}

/// Every game in the store, oldest first, without duplicates. Damaged chunks (corrupt,
/// truncated, not a record) are skipped with a warning and named in the second list; with
/// `quarantine_damaged` they are also moved to `damaged/`.
pub fn read_all_games(
    store: &dyn Store,
    scratch: &Path,
    quarantine_damaged: bool,
) -> anyhow::Result<(Vec<GameRecord>, Vec<String>)> {
    let keys: Vec<String> = store.list(GAMES_DIR)?.into_iter().map(|o| o.key).collect();
    read_games(store, &keys, scratch, quarantine_damaged)
}

/// The games of the chunks `keys` (a listing of `games/`, oldest first; other keys are
/// ignored), as [`read_all_games`] reads them: without duplicates, damaged chunks skipped and
/// named in the second list, chunks gone since the listing skipped silently.
pub fn read_games(
    store: &dyn Store,
    keys: &[String],
    scratch: &Path,
    quarantine_damaged: bool,
) -> anyhow::Result<(Vec<GameRecord>, Vec<String>)> {
    let mut games = Vec::new();
    let mut skipped = Vec::new();
    let mut seen = HashSet::new();
    for key in keys {
        if !is_game_chunk(key) {
            continue;
        }
        let chunk = match try_read_game_chunk(store, key, scratch) {
            Ok(chunk) => chunk,
            // Gone since the listing (compacted by another process): its games are elsewhere.
            Err(e) if matches!(e.downcast_ref::<StoreError>(), Some(StoreError::NotFound { .. })) => continue,
            Err(e) => return Err(e),
        };
        match chunk {
            Ok(chunk) => {
                for g in chunk {
                    if seen.insert(game_identity(&g)) {
                        games.push(g);
                    }
                }
            }
            Err(e) => {
                tracing::warn!("skipping a damaged game chunk: {e}");
                if quarantine_damaged {
                    quarantine(store, key)?;
                }
                skipped.push(key.clone());
            }
        }
    }
    Ok((games, skipped))
}

/// What identifies a game across chunks (compaction may leave a game in two chunks).
pub fn game_identity(g: &GameRecord) -> (u64, usize, Termination) {
    (g.seed, g.moves.len(), g.result.reason)
}

/// Publishes match records as `matches/<label>.jsonl`. Returns false if that evaluation was
/// already stored.
pub fn publish_matches(store: &dyn Store, label: &str, records: &[MatchGame]) -> Result<bool, StoreError> {
    let mut text = String::new();
    for r in records {
        text.push_str(&serde_json::to_string(r).expect("match records serialise"));
        text.push('\n');
    }
    match store.publish(&match_key(label), text.into_bytes()) {
        Ok(()) => Ok(true),
        Err(StoreError::Exists { .. }) => Ok(false),
        Err(e) => Err(e),
    }
}

pub fn match_key(label: &str) -> String {
    let clean: String = label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' { c } else { '_' })
        .collect();
    format!("{MATCHES_DIR}{}.jsonl", clean.trim_start_matches('.'))
}

/// Match records with their line numbers, and `key:line: problem` for unreadable lines.
pub type MatchLines = (Vec<(usize, MatchGame)>, Vec<String>);

/// The records of one match file (see [`MatchLines`]).
pub fn read_match_file(store: &dyn Store, key: &str) -> Result<MatchLines, StoreError> {
    let bytes = store.get(key)?;
    let text = String::from_utf8_lossy(&bytes);
    let mut records = Vec::new();
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match from_json_line::<MatchGame>(line) {
            Ok(r) => records.push((i + 1, r)),
            Err(e) => problems.push(format!("{key}:{}: {e}", i + 1)),
        }
    }
    Ok((records, problems))
}

/// Every stored match record.
pub fn read_all_matches(store: &dyn Store) -> Result<(Vec<MatchGame>, Vec<String>), StoreError> {
    let mut all = Vec::new();
    let mut problems = Vec::new();
    for o in store.list(MATCHES_DIR)? {
        if !o.key.ends_with(".jsonl") || o.key.rsplit('/').next().unwrap_or("").starts_with('.') {
            continue;
        }
        let (records, p) = read_match_file(store, &o.key)?;
        all.extend(records.into_iter().map(|(_, r)| r));
        problems.extend(p);
    }
    Ok((all, problems))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_diff_lists_removed_then_added_lines_in_order() {
        let old = "a = 1\nb = 2\nc = 3\n";
        let new = "a = 1\nb = 5\nc = 3\nd = 4\n";
        assert_eq!(line_diff(old, new), "-b = 2\n+b = 5\n+d = 4\n");
        assert_eq!(line_diff(old, old), "");
    }
}
