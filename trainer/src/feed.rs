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
    collections::{BTreeSet, VecDeque},
    path::PathBuf,
    sync::Arc,
    time::{Duration, Instant},
};

use fairyzero_selfplay::GameRecord;

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
}

impl StoreFeed {
    /// A feed that has read `known` (the keys the start read back) and lists the store at most
    /// every `poll`.
    pub fn new(
        store: Arc<dyn Store>,
        scratch: PathBuf,
        known: impl IntoIterator<Item = String>,
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
