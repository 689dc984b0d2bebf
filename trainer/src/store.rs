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
//! ratings/<unix_ms>.json                      the ranking after each evaluation
//! variant.toml                                the run's resolved rules, with their hash
//! lease/<epoch>/<beat>.json                   the learner's lease (`fairyzero learn`, lease.rs)
//! finished.json                               a learner's budget is spent: its workers stop
//! lease/<epoch>/<beat>.json                   the learner's lease (see the `lease` module)
//! ```
//!
//! URLs that [`ObjectStoreBackend::open`] accepts, and nothing else (a typo is an error, not a
//! new store somewhere):
//!
//! - `file:///abs/dir`: a local or shared file system (NFS, CephFS, Lustre), created if missing;
//! - `memory://`: in-process, for tests;
//! - `s3://bucket/prefix` (or `s3a://`): AWS S3 and S3-compatible servers (MinIO, Ceph RGW),
//!   with the `s3` feature (compiled into `fairyzero-torch` by default). The server must
//!   support conditional puts (`If-None-Match: *`): publication relies on them to stay
//!   immutable, and the learner's lease to stay exclusive. AWS S3, MinIO and recent Ceph do.
//! - `gs://` and `az://` are refused: object_store speaks them, but fairyzero has not been
//!   tested against them (nor against an emulator of them), and an untested store that, say,
//!   ignores conditional puts would silently break the one-learner guarantee.
//!
//! `s3://` reads its settings from these environment variables (only `AWS_*` ones: a stray
//! `REGION` or `ENDPOINT` is not picked up), or from [`ObjectStoreBackend::open_with`]'s options:
//!
//! - `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN` for temporary
//!   credentials); without them object_store asks the instance metadata service (EC2, ECS, EKS);
//! - `AWS_REGION` (or `AWS_DEFAULT_REGION`): `us-east-1` when unset;
//! - `AWS_ENDPOINT_URL`: the server of an S3-compatible store, such as `http://minio:9000`;
//!   requests then go to `<endpoint>/<bucket>/<key>` (path style; `AWS_VIRTUAL_HOSTED_STYLE_REQUEST=true`
//!   for `<bucket>.<endpoint>`);
//! - `AWS_ALLOW_HTTP`: plain http is refused by default, but set automatically when
//!   `AWS_ENDPOINT_URL` is an `http://` URL (a MinIO on the LAN); set `AWS_ALLOW_HTTP=false`
//!   to refuse it anyway;
//! - any other key of object_store's `AmazonS3ConfigKey` (such as `AWS_CONDITIONAL_PUT`).

use std::{
    fmt,
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
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
    /// When the object was written, by the store's clock (milliseconds since the Unix epoch):
    /// compare it with other objects' times, not with this machine's clock, which may be skewed.
    pub last_modified_ms: u64,
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

    /// The objects in the folder `prefix` whose key sorts strictly after `after` (a whole key,
    /// relative to the root, such as the last one seen), sorted by key. On S3 this is a
    /// `start-after` listing: its cost is that of the new keys, not of all the folder's, so
    /// polling a folder of millions of games stays cheap.
    fn list_after(&self, prefix: &str, after: &str) -> Result<Vec<ObjectInfo>, StoreError>;

    /// An object's size and time, or `None` when it is not there.
    fn head(&self, key: &str) -> Result<Option<ObjectInfo>, StoreError>;

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
    /// Opens a store by URL: `file:///abs/dir` (created if missing), `memory://`, or
    /// `s3://bucket/prefix` (needs the `s3` feature) with its settings from the `AWS_*`
    /// environment variables (the module's documentation lists them). Other schemes are refused.
    pub fn open(url: &str) -> Result<ObjectStoreBackend, StoreError> {
        let env: Vec<(String, String)> = std::env::vars().filter(|(k, _)| k.starts_with("AWS_")).collect();
        ObjectStoreBackend::open_with(url, &env)
    }

    /// [`open`](Self::open) with the `s3://` settings given instead of read from the environment:
    /// `(key, value)` pairs with the environment variables' names (`AWS_ENDPOINT_URL`, …; case
    /// does not matter). Tests use it to point a store at their own server without touching
    /// the process's environment, which other threads read.
    pub fn open_with(url: &str, options: &[(String, String)]) -> Result<ObjectStoreBackend, StoreError> {
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
        let options = match parsed.scheme() {
            "memory" => Vec::new(),
            "s3" | "s3a" if cfg!(feature = "s3") => s3_options(options),
            "s3" | "s3a" => {
                return Err(backend(
                    "this build has no S3 support: it needs fairyzero-trainer's `s3` feature, which \
                     `fairyzero-torch` has by default (cargo build --release -p fairyzero-torch-cli), or \
                     --features fairyzero-trainer/s3"
                        .to_string(),
                ))
            }
            scheme @ ("gs" | "az" | "adl" | "azure" | "abfs" | "abfss") => {
                return Err(backend(format!(
                    "{scheme}:// is not supported: fairyzero has not been tested against Google Cloud Storage \
                     or Azure (nor an emulator of them); {SCHEMES}"
                )))
            }
            scheme => return Err(backend(format!("unknown store scheme {scheme}://; {SCHEMES}"))),
        };
        let (store, prefix) = object_store::parse_url_opts(&parsed, options).map_err(|e| backend(e.to_string()))?;
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
    /// the same (a store shared with workers uses [`remove_staged_older_than`](Self::remove_staged_older_than)).
    /// A remote store has none (its puts are atomic).
    pub fn remove_staged(&self) -> Result<Vec<PathBuf>, StoreError> {
        self.sweep_staged(None)
    }

    /// [`remove_staged`](Self::remove_staged), but only the staged files last written more
    /// than `age` ago: on a file system that other processes (self-play workers) write into,
    /// a fresh staged file may be a write in flight, while one untouched for long is a leftover.
    pub fn remove_staged_older_than(&self, age: Duration) -> Result<Vec<PathBuf>, StoreError> {
        self.sweep_staged(Some(age))
    }

    fn sweep_staged(&self, older_than: Option<Duration>) -> Result<Vec<PathBuf>, StoreError> {
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
                    if let Some(age) = older_than {
                        let modified = match entry.metadata().and_then(|m| m.modified()) {
                            Ok(t) => t,
                            // Renamed into place (or removed) by its writer meanwhile.
                            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                            Err(e) => return Err(io(&path, e)),
                        };
                        // A time in the future (another machine's clock) is not old.
                        if modified.elapsed().map_or(true, |elapsed| elapsed <= age) {
                            continue;
                        }
                    }
                    match std::fs::remove_file(&path) {
                        Ok(()) => removed.push(path),
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound && older_than.is_some() => {}
                        Err(e) => return Err(io(&path, e)),
                    }
                }
            }
        }
        removed.sort();
        Ok(removed)
    }

    /// Lists `prefix` (a folder, as in [`Store::list`]), from after `offset` when given.
    fn list_from(&self, prefix: &str, offset: Option<&str>) -> Result<Vec<ObjectInfo>, StoreError> {
        let path = self.path(prefix);
        let stream = match offset {
            Some(after) => self.inner.list_with_offset(Some(&path), &self.path(after)),
            None => self.inner.list(Some(&path)),
        };
        let listed: Result<Vec<_>, _> = self.runtime.block_on(stream.try_collect());
        let listed = match listed {
            Ok(l) => l,
            // A folder that does not exist yet lists as empty.
            Err(object_store::Error::NotFound { .. }) => Vec::new(),
            Err(e) => return Err(self.backend_err(e)),
        };
        let mut out: Vec<ObjectInfo> = listed.iter().map(|m| info(self.relative(&m.location), m)).collect();
        out.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(out)
    }
}

/// `name#<digits>`: object_store's local staging name (`staged_upload_path`).
fn is_staged(file_name: &str) -> bool {
    file_name
        .rsplit_once('#')
        .is_some_and(|(stem, n)| !stem.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The stores that [`ObjectStoreBackend::open`] accepts, for its refusals.
const SCHEMES: &str = "the store must be file:///abs/dir (local or shared file system), \
                       s3://bucket/prefix (AWS S3, MinIO, Ceph) or memory:// (tests)";

/// The `s3://` options, keys lowercased (object_store's spelling), with the defaults an
/// S3-compatible server on the LAN needs: plain http allowed when the endpoint is `http://`
/// (object_store refuses it otherwise, with an error that does not say why), unless the user
/// chose; `us-east-1` when no region is given (what MinIO and Ceph expect by default).
fn s3_options(options: &[(String, String)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = options.iter().map(|(k, v)| (k.to_ascii_lowercase(), v.clone())).collect();
    let has = |out: &[(String, String)], keys: &[&str]| out.iter().any(|(k, _)| keys.contains(&k.as_str()));
    let endpoint = out
        .iter()
        .find(|(k, _)| ["aws_endpoint_url", "aws_endpoint", "aws_endpoint_url_s3"].contains(&k.as_str()))
        .map(|(_, v)| v.clone());
    if let Some(endpoint) = endpoint {
        if endpoint.to_ascii_lowercase().starts_with("http://") && !has(&out, &["aws_allow_http"]) {
            out.push(("aws_allow_http".to_string(), "true".to_string()));
        }
        if !has(&out, &["aws_region", "aws_default_region"]) {
            out.push(("aws_region".to_string(), "us-east-1".to_string()));
        }
    }
    out
}

fn info(key: String, meta: &object_store::ObjectMeta) -> ObjectInfo {
    ObjectInfo { key, size: meta.size, last_modified_ms: meta.last_modified.timestamp_millis().max(0) as u64 }
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
        self.list_from(prefix, None)
    }

    fn list_after(&self, prefix: &str, after: &str) -> Result<Vec<ObjectInfo>, StoreError> {
        // An empty `after` is before every key; object_store's offset path would be the root.
        let offset = Some(after).filter(|a| !a.trim_matches('/').is_empty());
        let mut out = self.list_from(prefix, offset)?;
        // The offset is compared as object_store paths, which drop a trailing `/`: keep the
        // contract (strictly after the string) whatever `after` looks like.
        out.retain(|o| o.key.as_str() > after);
        Ok(out)
    }

    fn head(&self, key: &str) -> Result<Option<ObjectInfo>, StoreError> {
        let path = self.path(key);
        match self.runtime.block_on(self.inner.head(&path)) {
            Ok(meta) => Ok(Some(info(self.relative(&path), &meta))),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.backend_err(e)),
        }
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

    /// `list_after`, `head` and the objects' times, on any backend.
    fn check_list_after_and_head(store: &dyn Store) {
        for key in ["games/b", "games/a", "games/c/x", "gamesx/d", "other/e"] {
            store.publish(key, key.as_bytes().to_vec()).unwrap();
        }
        let keys = |v: Vec<ObjectInfo>| v.into_iter().map(|o| o.key).collect::<Vec<_>>();
        assert_eq!(keys(store.list_after("games/", "").unwrap()), ["games/a", "games/b", "games/c/x"]);
        assert_eq!(keys(store.list_after("games/", "games/a").unwrap()), ["games/b", "games/c/x"]);
        // A key that is not in the store is a position like any other.
        assert_eq!(keys(store.list_after("games/", "games/aa").unwrap()), ["games/b", "games/c/x"]);
        assert_eq!(keys(store.list_after("games/", "games/b").unwrap()), ["games/c/x"]);
        assert!(store.list_after("games/", "games/c/x").unwrap().is_empty());
        assert!(store.list_after("games/", "games/z").unwrap().is_empty());
        assert!(store.list_after("nothing/", "").unwrap().is_empty());
        let b = store.head("games/b").unwrap().unwrap();
        assert_eq!((b.key.as_str(), b.size), ("games/b", 7));
        let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
        assert!(b.last_modified_ms > now_ms - 60_000 && b.last_modified_ms < now_ms + 60_000, "{b:?}");
        assert_eq!(store.list("games/").unwrap()[1], b, "list and head agree");
        assert!(store.head("games/zz").unwrap().is_none());
    }

    #[test]
    fn list_after_and_head_on_file_and_memory() {
        let dir = tempfile::tempdir().unwrap();
        check_list_after_and_head(&ObjectStoreBackend::open(&format!("file://{}", dir.path().display())).unwrap());
        check_list_after_and_head(&ObjectStoreBackend::open("memory://").unwrap());
    }

    #[test]
    fn remove_staged_older_than_keeps_writes_in_flight() {
        let dir = tempfile::tempdir().unwrap();
        let store = ObjectStoreBackend::open(&format!("file://{}", dir.path().display())).unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("games")).unwrap();
        let old = root.join("games/a.games.zst#3");
        std::fs::write(&old, b"half").unwrap();
        let hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
        std::fs::File::options().write(true).open(&old).unwrap().set_modified(hour_ago).unwrap();
        std::fs::write(root.join("games/b.games.zst#4"), b"in flight").unwrap();
        assert_eq!(store.remove_staged_older_than(Duration::from_secs(600)).unwrap(), std::slice::from_ref(&old));
        assert!(!old.exists() && root.join("games/b.games.zst#4").exists());
        assert!(store.remove_staged_older_than(Duration::from_secs(600)).unwrap().is_empty());
        assert_eq!(store.remove_staged().unwrap(), [root.join("games/b.games.zst#4")]);
    }

    #[test]
    fn open_refuses_untested_and_unknown_schemes() {
        let message = |url: &str| ObjectStoreBackend::open(url).unwrap_err().to_string();
        for url in ["gs://bucket/run", "az://container/run", "abfss://c@a.dfs.core.windows.net/run"] {
            let m = message(url);
            assert!(m.contains("not supported") && m.contains("not been tested") && m.contains("s3://"), "{m}");
        }
        let m = message("http://example.com/run");
        assert!(m.contains("unknown store scheme http://") && m.contains("file:///"), "{m}");
        assert!(message("runs/a").contains("not a URL"));
        if !cfg!(feature = "s3") {
            let m = message("s3://bucket/run");
            assert!(m.contains("`s3` feature"), "{m}");
        }
    }

    #[test]
    fn s3_options_allow_http_endpoints_and_default_the_region() {
        let opts = |pairs: &[(&str, &str)]| {
            let pairs: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            let mut out = s3_options(&pairs);
            out.sort();
            out
        };
        let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
        assert_eq!(
            opts(&[("AWS_ENDPOINT_URL", "http://minio:9000")]),
            [
                pair("aws_allow_http", "true"),
                pair("aws_endpoint_url", "http://minio:9000"),
                pair("aws_region", "us-east-1")
            ]
        );
        // The user's choices stand.
        assert_eq!(
            opts(&[("AWS_ENDPOINT_URL", "http://m:9000"), ("AWS_ALLOW_HTTP", "false"), ("AWS_DEFAULT_REGION", "eu")]),
            [
                pair("aws_allow_http", "false"),
                pair("aws_default_region", "eu"),
                pair("aws_endpoint_url", "http://m:9000")
            ]
        );
        // https endpoints need nothing; AWS itself (no endpoint) keeps object_store's defaults.
        assert_eq!(
            opts(&[("AWS_ENDPOINT_URL", "https://ceph"), ("AWS_REGION", "x")]),
            [pair("aws_endpoint_url", "https://ceph"), pair("aws_region", "x")]
        );
        assert_eq!(opts(&[("AWS_ACCESS_KEY_ID", "k")]), [pair("aws_access_key_id", "k")]);
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
