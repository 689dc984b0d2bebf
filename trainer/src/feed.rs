//! The learner's games: what self-play workers publish to the store (`fairyzero learn`).
//!
//! Workers publish each finished game at once as its own chunk, `games/<unix_ms>-<worker>-<n>`,
//! the time being the worker's clock at publication. The learner does not list the whole
//! `games/` folder at every poll (millions of keys in a long run): it lists only the keys after
//! `games/<newest seen time − grace>` (S3's `start-after`), and remembers the keys it has read
//! within that grace, so a chunk published late (a slow upload, a worker's clock a little behind)
//! is still read, and none is read twice. Workers check their clock against the store's when
//! they start (`worker.rs`) and warn when it is off by more than the grace.
//!
//! Chunks that the learner itself writes (the compaction of an iteration's games) are marked as
//! read when published ([`StoreFeed::mark_read`]); a start reads every stored game back and hands
//! the feed exactly the keys it read ([`StoreFeed::new`]).

use std::{
    collections::{BTreeMap, BTreeSet, HashSet, VecDeque},
    path::PathBuf,
    sync::Arc,
    time::{Duration, Instant},
};

use fairyzero_selfplay::{record::Termination, GameRecord};

use crate::{
    artifacts::{self, DAMAGED_DIR, GAMES_DIR},
    store::{Store, StoreError},
};

/// How far behind the newest key's time the listing starts, by default: chunks published this
/// much later than a newer one (by the workers' clocks) are still found.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(120);

/// The publication time in a game chunk's key (`games/<unix_ms>-…`).
pub fn key_time_ms(key: &str) -> Option<u64> {
    key.strip_prefix(GAMES_DIR)?.split('-').next()?.parse().ok()
}

/// Game chunks published to the store by workers, read in order of publication.
pub struct StoreFeed {
    store: Arc<dyn Store>,
    scratch: PathBuf,
    /// Keys read (or known from the start) whose time is within the grace of the newest.
    read: BTreeSet<String>,
    newest_ms: u64,
    grace_ms: u64,
    poll: Duration,
    last_poll: Option<Instant>,
    queue: VecDeque<(Box<GameRecord>, String)>,
    /// Store listings so far, and keys they returned (for the scale figures in the metrics).
    pub listings: u64,
    pub listed_keys: u64,
    /// Chunks skipped as damaged (moved to `damaged/`).
    pub damaged: Vec<String>,
    /// Every game handed out or known from the start ([`artifacts::game_identity`]).
    games: HashSet<(u64, usize, Termination)>,
    /// Games found a second time (in another chunk) and not handed out again: a key read twice
    /// would show here.
    pub duplicates: u64,
    /// Games handed out per worker (the worker id in their chunk's key).
    pub per_worker: BTreeMap<String, u64>,
}

/// The worker id in a single-game chunk's key (`games/<unix_ms>-<worker>-<n>.games.zst`).
pub fn key_worker(key: &str) -> Option<&str> {
    let name = key.strip_prefix(GAMES_DIR)?;
    let (_, rest) = name.split_once('-')?;
    let (worker, _) = rest.rsplit_once('-')?;
    Some(worker)
}

impl StoreFeed {
    /// A feed that has read `known` (the keys the start read back, holding `games`) and lists
    /// the store at most every `poll`.
    pub fn new(
        store: Arc<dyn Store>,
        scratch: PathBuf,
        known: impl IntoIterator<Item = String>,
        games: &[GameRecord],
        poll: Duration,
        grace: Duration,
    ) -> StoreFeed {
        let mut feed = StoreFeed {
            store,
            scratch,
            read: BTreeSet::new(),
            newest_ms: 0,
            grace_ms: grace.as_millis() as u64,
            poll,
            last_poll: None,
            queue: VecDeque::new(),
            listings: 0,
            listed_keys: 0,
            damaged: Vec::new(),
            games: games.iter().map(artifacts::game_identity).collect(),
            duplicates: 0,
            per_worker: BTreeMap::new(),
        };
        for key in known {
            feed.mark_read(key);
        }
        feed.prune();
        feed
    }

    /// Records `key` as read (a chunk this process published or read otherwise).
    pub fn mark_read(&mut self, key: String) {
        if let Some(ms) = key_time_ms(&key) {
            self.newest_ms = self.newest_ms.max(ms);
        }
        self.read.insert(key);
    }

    /// The listing's start: the folder itself until a key is known, else `grace` before the
    /// newest key's time.
    fn offset(&self) -> String {
        if self.newest_ms == 0 {
            return GAMES_DIR.to_string();
        }
        format!("{GAMES_DIR}{:013}", self.newest_ms.saturating_sub(self.grace_ms))
    }

    /// Forgets the keys the listing can no longer return.
    fn prune(&mut self) {
        let offset = self.offset();
        self.read = self.read.split_off(&offset);
    }

    /// Lists the new chunks and queues their games.
    fn poll(&mut self) -> anyhow::Result<()> {
        self.last_poll = Some(Instant::now());
        let listed = self.store.list_after(GAMES_DIR, &self.offset())?;
        self.listings += 1;
        self.listed_keys += listed.len() as u64;
        for object in listed {
            if !artifacts::is_game_chunk(&object.key) || self.read.contains(&object.key) {
                continue;
            }
            match artifacts::try_read_game_chunk(self.store.as_ref(), &object.key, &self.scratch) {
                Ok(Ok(games)) => {
                    for g in games {
                        if !self.games.insert(artifacts::game_identity(&g)) {
                            self.duplicates += 1;
                            tracing::warn!("a game (seed {}) in {} was read before: skipped", g.seed, object.key);
                            continue;
                        }
                        if let Some(worker) = key_worker(&object.key) {
                            *self.per_worker.entry(worker.to_string()).or_default() += 1;
                        }
                        self.queue.push_back((Box::new(g), object.key.clone()));
                    }
                }
                Ok(Err(e)) => {
                    tracing::warn!("skipping a damaged game chunk (moved to {DAMAGED_DIR}): {e}");
                    artifacts::quarantine(self.store.as_ref(), &object.key)?;
                    self.damaged.push(object.key.clone());
                }
                // Listed, then gone: only this learner deletes chunks, so another learner has
                // taken the store over (its lease check stops this one).
                Err(e) if matches!(e.downcast_ref::<StoreError>(), Some(StoreError::NotFound { .. })) => {}
                Err(e) => return Err(e),
            }
            self.mark_read(object.key);
        }
        self.prune();
        Ok(())
    }

    /// The next game published to the store and its chunk's key, waiting up to `wait` (the
    /// store is listed at most once per poll interval).
    pub fn next(&mut self, wait: Duration) -> anyhow::Result<Option<(Box<GameRecord>, String)>> {
        let deadline = Instant::now() + wait;
        loop {
            if let Some(game) = self.queue.pop_front() {
                return Ok(Some(game));
            }
            let due = self.last_poll.is_none_or(|t| t.elapsed() >= self.poll);
            if due {
                self.poll()?;
                if !self.queue.is_empty() {
                    continue;
                }
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            let until_poll = self.last_poll.map_or(Duration::ZERO, |t| self.poll.saturating_sub(t.elapsed()));
            std::thread::sleep(until_poll.min(deadline - now).max(Duration::from_millis(1)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ObjectStoreBackend;

    #[test]
    fn keys_name_their_time_and_worker() {
        let key = "games/1795826061176-vm-10098-c807f917-000031.games.zst";
        assert_eq!(key_time_ms(key), Some(1_795_826_061_176));
        assert_eq!(key_worker(key), Some("vm-10098-c807f917"));
        assert_eq!(key_time_ms("checkpoints/step-1"), None);
    }

    /// The feed lists only after the newest key minus the grace, still finds a chunk published
    /// late within the grace, and hands no chunk out twice.
    #[test]
    fn a_late_chunk_within_the_grace_is_read_once() {
        let store: Arc<dyn Store> = Arc::new(ObjectStoreBackend::open("memory://").unwrap());
        let scratch = tempfile::tempdir().unwrap();
        // A record as the self-play crate writes it (its pinned format).
        let game = |seed: u64| -> GameRecord {
            let text = r#"{"variant":"chess","variant_hash":"0123456789abcdef","setup":"default","start":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1","moves":[{"m":"e2e4","v":0.0,"n":1,"e":1}],"result":{"reason":"move cap"},"search":{"kind":"gumbel","simulations":4,"policy_target":"improved_policy"},"net":"mock","seed":SEED,"program_version":"fairyzero 0.1.0"}"#;
            serde_json::from_str(&text.replace("SEED", &seed.to_string())).unwrap()
        };
        let publish = |ms: u64, worker: &str, seed: u64| {
            let key = format!("{GAMES_DIR}{ms:013}-{worker}-000001{}", fairyzero_selfplay::record::CHUNK_SUFFIX);
            let path = scratch.path().join("c.games.zst");
            fairyzero_selfplay::record::write_chunk(&path, &[game(seed)]).unwrap();
            store.publish(&key, std::fs::read(&path).unwrap()).unwrap();
        };
        publish(100_000, "a", 1);
        publish(200_000, "b", 2);
        let mut feed = StoreFeed::new(
            Arc::clone(&store),
            scratch.path().to_path_buf(),
            Vec::new(),
            &[],
            Duration::ZERO,
            Duration::from_secs(30),
        );
        let seeds = |feed: &mut StoreFeed| {
            let mut out = Vec::new();
            while let Some((g, _)) = feed.next(Duration::ZERO).unwrap() {
                out.push(g.seed);
            }
            out
        };
        assert_eq!(seeds(&mut feed), [1, 2]);
        // 20 s older than the newest: within the grace.
        publish(180_000, "c", 3);
        // 150 s older: outside it (a clock that far off is warned about by the worker).
        publish(50_000, "d", 4);
        assert_eq!(seeds(&mut feed), [3]);
        assert_eq!(seeds(&mut feed), Vec::<u64>::new(), "nothing is read twice");
        // The same game under another key (a compaction's leftover) is not handed out again.
        publish(210_000, "e", 2);
        assert_eq!(seeds(&mut feed), Vec::<u64>::new());
        assert_eq!(feed.duplicates, 1);
        assert_eq!(feed.per_worker.keys().map(String::as_str).collect::<Vec<_>>(), ["a", "b", "c"]);
    }
}
