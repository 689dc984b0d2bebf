//! The run's storage: one trait, [`Store`], with an [`object_store`]-backed implementation.
//!
//! - `file:///abs/path` (the default: the run directory itself, no servers), `memory://` (tests),
//!   and `s3://bucket/prefix` when built with the `s3` feature: the same code serves all.
//! - Artifacts are **immutable**: [`Store::publish`] refuses to overwrite (object_store's
//!   `PutMode::Create`), and a write is **atomic** (the local backend stages the file and
//!   renames it into place, with fsync; S3 puts are atomic by nature).
//! - Artifacts are **found by listing** ([`Store::list`]): there is no mutable catalogue, so
//!   self-play workers on other machines can later publish into the same store with no
//!   coordination beyond distinct names.
//!
//! Layout (keys):
//!
//! ```text
//! games/<unix_ms>-<worker>-<n>.games.zst      one finished game (published as it ends)
//! games/<unix_ms>-<worker>-c<n>.games.zst     an iteration's games compacted into one chunk
//! checkpoints/step-<step>/weights.safetensors
//! checkpoints/step-<step>/optimizer.safetensors
//! checkpoints/step-<step>/header.json
//! checkpoints/step-<step>/manifest.json       published last: sizes, SHA-256 and trainer state
//! matches/<label>.jsonl                       evaluator game records, one per line
//! gating/step-<step>.json                     a gating decision (SPRT gating only)
//! config/<unix_ms>.toml                       the resolved configuration of each start
//! ```

use std::{
    fmt,
    path::{Path, PathBuf},
    sync::Arc,
};

use futures::TryStreamExt;
use object_store::{
    local::LocalFileSystem, path::Path as ObjectPath, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload,
};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// `publish` of a key that exists: artifacts are immutable.
    #[error("{key} already exists in the store (artifacts are immutable)")]
    Exists { key: String },
    #[error("{key} is not in the store")]
    NotFound { key: String },
    #[error("store {url}: {message}")]
    Backend { url: String, message: String },
}

/// An object in a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectInfo {
    /// The key, relative to the store's root (`games/…`).
    pub key: String,
    pub size: u64,
}

/// Where a run's artifacts live. Keys are `/`-separated relative paths.
pub trait Store: Send + Sync + fmt::Debug {
    /// The store's URL, for logs.
    fn url(&self) -> String;

    /// Writes an immutable object atomically; [`StoreError::Exists`] if the key is taken.
    fn publish(&self, key: &str, bytes: Vec<u8>) -> Result<(), StoreError>;

    fn get(&self, key: &str) -> Result<Vec<u8>, StoreError>;

    /// Every object in the folder `prefix` (such as `games/`) and its subfolders, sorted by
    /// key. Prefixes match whole path segments (`games/a` lists `games/a/…`, not `games/ab`).
    fn list(&self, prefix: &str) -> Result<Vec<ObjectInfo>, StoreError>;

    /// Whether an object exists.
    fn exists(&self, key: &str) -> Result<bool, StoreError>;

    /// Removes an object (only compaction does, after publishing its replacement).
    fn delete(&self, key: &str) -> Result<(), StoreError>;

    /// The object's path on the local file system, when the store is local.
    fn local_path(&self, key: &str) -> Option<PathBuf>;
}

/// [`Store`] on any `object_store` backend, driven by a private single-threaded tokio runtime.
pub struct ObjectStoreBackend {
    url: String,
    inner: Arc<dyn ObjectStore>,
    prefix: ObjectPath,
    local_root: Option<PathBuf>,
    runtime: tokio::runtime::Runtime,
}

impl fmt::Debug for ObjectStoreBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ObjectStoreBackend({})", self.url)
    }
}

impl ObjectStoreBackend {
    /// Opens a store by URL: `file:///abs/dir` (created if missing), `memory://`, or a cloud
    /// URL such as `s3://bucket/prefix` (options from the environment, e.g. `AWS_REGION`;
    /// needs the `s3` feature).
    pub fn open(url: &str) -> Result<ObjectStoreBackend, StoreError> {
        let backend = |message: String| StoreError::Backend { url: url.to_string(), message };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| backend(format!("cannot start the I/O runtime: {e}")))?;
        if let Some(dir) = url.strip_prefix("file://") {
            let dir = PathBuf::from(dir);
            std::fs::create_dir_all(&dir).map_err(|e| backend(format!("cannot create {}: {e}", dir.display())))?;
            let fs = LocalFileSystem::new_with_prefix(&dir).map_err(|e| backend(e.to_string()))?.with_fsync(true);
            let root = std::fs::canonicalize(&dir).map_err(|e| backend(e.to_string()))?;
            return Ok(ObjectStoreBackend {
                url: format!("file://{}", root.display()),
                inner: Arc::new(fs),
                prefix: ObjectPath::default(),
                local_root: Some(root),
                runtime,
            });
        }
        let parsed = url::Url::parse(url).map_err(|e| backend(format!("not a URL: {e}")))?;
        let (store, prefix) = object_store::parse_url_opts(&parsed, std::env::vars().map(|(k, v)| (k.to_ascii_lowercase(), v)))
            .map_err(|e| {
                backend(format!("{e} (s3:// needs a build with the trainer's `s3` feature: cargo build --release --features fairyzero-trainer/s3)"))
            })?;
        Ok(ObjectStoreBackend { url: url.to_string(), inner: Arc::from(store), prefix, local_root: None, runtime })
    }

    fn path(&self, key: &str) -> ObjectPath {
        let mut parts: Vec<object_store::path::PathPart<'_>> = self.prefix.parts().collect();
        parts.extend(key.split('/').filter(|p| !p.is_empty()).map(object_store::path::PathPart::from));
        ObjectPath::from_iter(parts)
    }

    fn relative(&self, path: &ObjectPath) -> String {
        let n = self.prefix.parts().count();
        path.parts().skip(n).map(|p| p.as_ref().to_string()).collect::<Vec<_>>().join("/")
    }

    fn backend_err(&self, e: object_store::Error) -> StoreError {
        StoreError::Backend { url: self.url.clone(), message: e.to_string() }
    }

    /// Removes the files that the local backend stages a write in (`<key>#<n>`, renamed to
    /// `<key>` once complete) and that a kill between the two left behind; returns them. Only
    /// the process that owns the run directory may call it: another's writes in flight look
    /// the same. A remote store has none (its puts are atomic).
    pub fn remove_staged(&self) -> Result<Vec<PathBuf>, StoreError> {
        let Some(root) = &self.local_root else { return Ok(Vec::new()) };
        let io = |path: &Path, e: std::io::Error| StoreError::Backend {
            url: self.url.clone(),
            message: format!("removing staged writes: {}: {e}", path.display()),
        };
        let mut removed = Vec::new();
        let mut folders = vec![root.clone()];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).map_err(|e| io(&folder, e))? {
                let entry = entry.map_err(|e| io(&folder, e))?;
                let path = entry.path();
                let kind = entry.file_type().map_err(|e| io(&path, e))?;
                if kind.is_dir() {
                    folders.push(path);
                } else if kind.is_file() && is_staged(&entry.file_name().to_string_lossy()) {
                    std::fs::remove_file(&path).map_err(|e| io(&path, e))?;
                    removed.push(path);
                }
            }
        }
        removed.sort();
        Ok(removed)
    }
}

/// `name#<digits>`: object_store's local staging name (`staged_upload_path`).
fn is_staged(file_name: &str) -> bool {
    file_name
        .rsplit_once('#')
        .is_some_and(|(stem, n)| !stem.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

impl Store for ObjectStoreBackend {
    fn url(&self) -> String {
        self.url.clone()
    }

    fn publish(&self, key: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        let path = self.path(key);
        let options = PutOptions { mode: PutMode::Create, ..PutOptions::default() };
        let result = self.runtime.block_on(self.inner.put_opts(&path, PutPayload::from(bytes), options));
        match result {
            Ok(_) => Ok(()),
            Err(object_store::Error::AlreadyExists { .. }) => Err(StoreError::Exists { key: key.to_string() }),
            Err(e) => Err(self.backend_err(e)),
        }
    }

    fn get(&self, key: &str) -> Result<Vec<u8>, StoreError> {
        let path = self.path(key);
        let result = self.runtime.block_on(async {
            let r = self.inner.get(&path).await?;
            r.bytes().await
        });
        match result {
            Ok(b) => Ok(b.to_vec()),
            Err(object_store::Error::NotFound { .. }) => Err(StoreError::NotFound { key: key.to_string() }),
            Err(e) => Err(self.backend_err(e)),
        }
    }

    fn list(&self, prefix: &str) -> Result<Vec<ObjectInfo>, StoreError> {
        let path = self.path(prefix);
        let listed: Result<Vec<_>, _> = self.runtime.block_on(self.inner.list(Some(&path)).try_collect());
        let listed = match listed {
            Ok(l) => l,
            // A folder that does not exist yet lists as empty.
            Err(object_store::Error::NotFound { .. }) => Vec::new(),
            Err(e) => return Err(self.backend_err(e)),
        };
        let mut out: Vec<ObjectInfo> =
            listed.into_iter().map(|m| ObjectInfo { key: self.relative(&m.location), size: m.size }).collect();
        out.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(out)
    }

    fn exists(&self, key: &str) -> Result<bool, StoreError> {
        let path = self.path(key);
        match self.runtime.block_on(self.inner.head(&path)) {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(self.backend_err(e)),
        }
    }

    fn delete(&self, key: &str) -> Result<(), StoreError> {
        let path = self.path(key);
        match self.runtime.block_on(self.inner.delete(&path)) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.backend_err(e)),
        }
    }

    fn local_path(&self, key: &str) -> Option<PathBuf> {
        self.local_root.as_ref().map(|root| key.split('/').fold(root.clone(), |p, part| p.join(part)))
    }
}

/// A local directory holding the objects under `prefix` (a checkpoint folder): the store's own
/// folder when it is local, otherwise a copy under `cache`.
pub fn materialize(store: &dyn Store, prefix: &str, cache: &Path) -> Result<PathBuf, StoreError> {
    if let Some(p) = store.local_path(prefix) {
        return Ok(p);
    }
    let dir = prefix.split('/').filter(|p| !p.is_empty()).fold(cache.to_path_buf(), |p, part| p.join(part));
    let io =
        |e: std::io::Error| StoreError::Backend { url: store.url(), message: format!("cache {}: {e}", dir.display()) };
    std::fs::create_dir_all(&dir).map_err(io)?;
    let prefix_slash = format!("{}/", prefix.trim_end_matches('/'));
    for object in store.list(&prefix_slash)? {
        let name = &object.key[prefix_slash.len()..];
        let target = dir.join(name);
        if target.metadata().map(|m| m.len()).ok() == Some(object.size) {
            continue;
        }
        let bytes = store.get(&object.key)?;
        let tmp = dir.join(format!(".{name}.part"));
        std::fs::write(&tmp, bytes).map_err(io)?;
        std::fs::rename(&tmp, &target).map_err(io)?;
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_store_publishes_immutably_and_lists() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("file://{}", dir.path().join("run").display());
        let store = ObjectStoreBackend::open(&url).unwrap();
        store.publish("games/a.games.zst", b"one".to_vec()).unwrap();
        store.publish("games/b.games.zst", b"two".to_vec()).unwrap();
        store.publish("checkpoints/step-1/manifest.json", b"{}".to_vec()).unwrap();
        assert!(matches!(store.publish("games/a.games.zst", b"x".to_vec()), Err(StoreError::Exists { .. })));
        assert_eq!(store.get("games/a.games.zst").unwrap(), b"one");
        assert!(store.exists("games/a.games.zst").unwrap() && !store.exists("games/z.games.zst").unwrap());
        let keys: Vec<String> = store.list("games/").unwrap().into_iter().map(|o| o.key).collect();
        assert_eq!(keys, ["games/a.games.zst", "games/b.games.zst"]);
        assert!(store.list("nothing/").unwrap().is_empty());
        // A staged (interrupted) upload of the local backend is not listed, and is swept.
        std::fs::write(dir.path().join("run/games/c.games.zst#1"), b"half").unwrap();
        std::fs::create_dir_all(dir.path().join("run/checkpoints/step-1")).unwrap();
        std::fs::write(dir.path().join("run/checkpoints/step-1/weights.safetensors#12"), b"half").unwrap();
        assert_eq!(store.list("games/").unwrap().len(), 2);
        let swept: Vec<String> = store
            .remove_staged()
            .unwrap()
            .iter()
            .map(|p| p.strip_prefix(dir.path().canonicalize().unwrap()).unwrap().display().to_string())
            .collect();
        assert_eq!(swept, ["run/checkpoints/step-1/weights.safetensors#12", "run/games/c.games.zst#1"]);
        assert!(store.exists("checkpoints/step-1/manifest.json").unwrap());
        assert!(store.remove_staged().unwrap().is_empty());
        assert!(is_staged("a.games.zst#1") && !is_staged("a#b") && !is_staged("#1") && !is_staged("a#"));
        let local = store.local_path("games/b.games.zst").unwrap();
        assert_eq!(std::fs::read(local).unwrap(), b"two");
        store.delete("games/a.games.zst").unwrap();
        assert!(matches!(store.get("games/a.games.zst"), Err(StoreError::NotFound { .. })));
    }

    #[test]
    fn memory_store_and_materialize() {
        let store = ObjectStoreBackend::open("memory://").unwrap();
        store.publish("checkpoints/step-2/header.json", b"h".to_vec()).unwrap();
        store.publish("checkpoints/step-2/weights.safetensors", b"w".to_vec()).unwrap();
        store.publish("checkpoints/step-20/header.json", b"other".to_vec()).unwrap();
        assert!(store.local_path("x").is_none());
        let cache = tempfile::tempdir().unwrap();
        let dir = materialize(&store, "checkpoints/step-2", cache.path()).unwrap();
        assert_eq!(std::fs::read(dir.join("header.json")).unwrap(), b"h");
        assert_eq!(std::fs::read(dir.join("weights.safetensors")).unwrap(), b"w");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
    }
}
