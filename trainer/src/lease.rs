//! One learner per store: a lease made of immutable objects, so that it works the same on
//! `file://`, a shared file system and S3, with nothing but conditional create
//! ([`Store::publish`]), list and delete (no locks, no compare-and-swap, no clocks in the store).
//!
//! Keys: `lease/<epoch:010>/<beat:010>.json`, each a [`Beat`]. An epoch is one holder's tenure:
//! the holder takes epoch `E + 1` by creating its beat 0, and exactly one of several learners
//! racing for it succeeds (the store refuses the others' create). The holder then renews by
//! creating beat `n + 1` every `ttl / 3` and deleting beat `n`. A lease whose newest beat is
//! older than its ttl, or marked `released`, may be taken over by the next epoch.
//!
//! Fencing: before each renewal the holder lists `lease/`; a higher epoch means another learner
//! took over (this one stalled past its ttl), and the lease is lost. A lease not renewed for
//! longer than its ttl (store errors, a stalled process) counts as lost too, since another
//! learner may have taken it meanwhile. The learner checks [`Lease::lost`] before publishing a
//! checkpoint and stops. Expiry compares the holder's clock (`renewed_unix_ms`) with the
//! taker's: machines must agree to well within the ttl (NTP does); a warning names the skew
//! when a beat's time and the store's time of writing it differ by more than a quarter ttl.

use std::{
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Condvar, Mutex,
    },
    thread::JoinHandle,
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

use crate::store::{ObjectInfo, Store, StoreError};

/// The folder of the lease's objects.
pub const PREFIX: &str = "lease/";

/// One lease object: who holds the store, and when it last said so.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Beat {
    /// The learner's name for itself (for the refusal message).
    pub holder: String,
    pub host: String,
    pub pid: u32,
    pub epoch: u64,
    pub beat: u64,
    /// The holder's clock when it wrote this beat.
    pub renewed_unix_ms: u64,
    pub ttl_secs: f64,
    /// The holder let go: the next learner need not wait for the ttl.
    pub released: bool,
}

impl Beat {
    fn key(&self) -> String {
        key(self.epoch, self.beat)
    }

    /// Milliseconds left before it expires, by this machine's clock (0 when expired or released).
    fn remaining_ms(&self, now_ms: u64) -> u64 {
        if self.released {
            return 0;
        }
        let expires = self.renewed_unix_ms.saturating_add((self.ttl_secs * 1000.0) as u64);
        expires.saturating_sub(now_ms)
    }
}

fn key(epoch: u64, beat: u64) -> String {
    format!("{PREFIX}{epoch:010}/{beat:010}.json")
}

/// `lease/<epoch>/<beat>.json` → (epoch, beat); other keys (none are written) are ignored.
fn parse_key(key: &str) -> Option<(u64, u64)> {
    let (epoch, beat) = key.strip_prefix(PREFIX)?.strip_suffix(".json")?.split_once('/')?;
    let digits = |s: &str| s.len() == 10 && s.bytes().all(|b| b.is_ascii_digit());
    (digits(epoch) && digits(beat)).then(|| Some((epoch.parse().ok()?, beat.parse().ok()?)))?
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

fn host_name() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()))
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown host".to_string())
}

/// The lease objects in a listing, as (epoch, beat, object), in key order.
fn beats(listing: &[ObjectInfo]) -> Vec<(u64, u64, &ObjectInfo)> {
    listing.iter().filter_map(|o| parse_key(&o.key).map(|(e, b)| (e, b, o))).collect()
}

/// Warns when a beat's writer's clock and the store's disagree by more than a quarter ttl:
/// expiry then misjudges by as much.
/// Returns whether it warned.
fn check_skew(beat: &Beat, object: &ObjectInfo, whose: &str) -> bool {
    let skew_ms = beat.renewed_unix_ms.abs_diff(object.last_modified_ms);
    let skewed = skew_ms as f64 > beat.ttl_secs * 250.0;
    if skewed {
        tracing::warn!(
            "{whose} clock ({} on {}) and the store's differ by {:.1} s, more than a quarter of the lease's \
             {} s ttl: lease expiry compares machines' clocks, keep them synchronised (NTP)",
            beat.holder,
            beat.host,
            skew_ms as f64 / 1000.0,
            beat.ttl_secs
        );
    }
    skewed
}

fn describe(beat: &Beat, now: u64) -> String {
    format!(
        "{} on {} (pid {}, lease epoch {}) renewed {:.1} s ago; its lease expires in {:.1} s unless renewed",
        beat.holder,
        beat.host,
        beat.pid,
        beat.epoch,
        now.saturating_sub(beat.renewed_unix_ms) as f64 / 1000.0,
        beat.remaining_ms(now) as f64 / 1000.0
    )
}

/// The exclusive right to train on a store, renewed on its own thread while held.
#[derive(Debug)]
pub struct Lease {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
    released: bool,
}

#[derive(Debug)]
struct Shared {
    store: Arc<dyn Store>,
    ttl: Duration,
    state: Mutex<State>,
    stop: Mutex<bool>,
    wake: Condvar,
    /// Off in tests only: the holder stalls (writes no beats) but still watches for a takeover.
    beating: AtomicBool,
    /// The clock skew warning is given once, not at every renewal.
    skew_warned: AtomicBool,
}

#[derive(Debug)]
struct State {
    /// The newest beat written.
    beat: Beat,
    /// When the newest beat's write began (a lower bound of the store's time of it).
    renewed: Instant,
    /// Why the lease is lost, once it is.
    lost: Option<String>,
    /// The first of the store errors since the last successful renewal.
    failing_since: Option<Instant>,
}

impl Lease {
    /// Takes the store's lease for `holder` (a name for messages, such as `learner`), or says
    /// who holds it, when they renewed it and when it expires. Renews it every `ttl / 3` on a
    /// thread until [`release`](Self::release) or drop. `ttl` is at least one second.
    pub fn acquire(store: Arc<dyn Store>, holder: &str, ttl: Duration) -> anyhow::Result<Lease> {
        let mut lease = Lease::take(store, holder, ttl)?;
        let shared = Arc::clone(&lease.shared);
        let thread = std::thread::Builder::new()
            .name("lease".to_string())
            .spawn(move || renew_until_stopped(&shared))
            .context("cannot start the lease's renewal thread")?;
        lease.thread = Some(thread);
        Ok(lease)
    }

    /// Why the lease is lost (another learner took the store over, or it could not be renewed
    /// within its ttl), or `None` while it is held. Check it before publishing anything that
    /// only the store's one learner may publish.
    pub fn lost(&self) -> Option<String> {
        let mut state = self.shared.state.lock().unwrap();
        if state.lost.is_none() && state.renewed.elapsed() > self.shared.ttl {
            state.lost = Some(stale_reason(&state, self.shared.ttl));
        }
        state.lost.clone()
    }

    /// The newest beat this holder wrote.
    pub fn beat(&self) -> Beat {
        self.shared.state.lock().unwrap().beat.clone()
    }

    /// Stops renewing and publishes a released beat, so that the next learner need not wait
    /// for the ttl. A lost lease has nothing to release.
    pub fn release(mut self) -> anyhow::Result<()> {
        self.release_inner()
    }

    fn release_inner(&mut self) -> anyhow::Result<()> {
        if self.released {
            return Ok(());
        }
        self.released = true;
        self.stop_thread();
        if self.lost().is_some() {
            return Ok(());
        }
        let shared = &self.shared;
        let previous = shared.state.lock().unwrap().beat.clone();
        let beat = Beat { beat: previous.beat + 1, renewed_unix_ms: now_ms(), released: true, ..previous.clone() };
        let bytes = serde_json::to_vec_pretty(&beat)?;
        shared
            .store
            .publish(&beat.key(), bytes)
            .with_context(|| format!("releasing the lease of {}: {}", shared.store.url(), beat.key()))?;
        shared.state.lock().unwrap().beat = beat;
        // Only tidiness: acquire reads the newest beat.
        if let Err(e) = shared.store.delete(&previous.key()) {
            tracing::warn!("cannot remove the lease's previous beat {}: {e}", previous.key());
        }
        Ok(())
    }

    fn stop_thread(&mut self) {
        *self.shared.stop.lock().unwrap() = true;
        self.shared.wake.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }

    /// The acquisition proper, without the renewal thread.
    fn take(store: Arc<dyn Store>, holder: &str, ttl: Duration) -> anyhow::Result<Lease> {
        if ttl < Duration::from_secs(1) {
            bail!("the lease's ttl must be at least 1 s (got {ttl:?})");
        }
        let url = store.url();
        let mut attempts = 0;
        let (epoch, stale_epochs) = loop {
            attempts += 1;
            let listing = store.list(PREFIX).with_context(|| format!("reading the lease of {url}"))?;
            let beats = beats(&listing);
            let Some(&(epoch, beat, object)) = beats.iter().max_by_key(|(e, b, _)| (*e, *b)) else {
                break (1, Vec::new());
            };
            let current = match read_beat(store.as_ref(), &object.key) {
                Ok(current) => current,
                // Its holder renewed (deleting it) since the listing: look again.
                Err(StoreError::NotFound { .. }) if attempts < 5 => continue,
                Err(e) => return Err(e).with_context(|| format!("reading the lease of {url}")),
            };
            if (current.epoch, current.beat) != (epoch, beat) {
                bail!("the lease object {} of {url} holds epoch {} beat {}", object.key, current.epoch, current.beat);
            }
            let _ = check_skew(&current, object, "the lease holder's");
            let now = now_ms();
            if current.remaining_ms(now) > 0 {
                bail!(
                    "another learner holds this store: {}. Stop it first, or wait for its lease to expire \
                     (the lease is {url}/{})",
                    describe(&current, now),
                    object.key
                );
            }
            let stale: Vec<String> = beats.iter().map(|(_, _, o)| o.key.clone()).collect();
            break (epoch + 1, stale);
        };
        let beat = Beat {
            holder: holder.to_string(),
            host: host_name(),
            pid: std::process::id(),
            epoch,
            beat: 0,
            renewed_unix_ms: now_ms(),
            ttl_secs: ttl.as_secs_f64(),
            released: false,
        };
        let renewed = Instant::now();
        match store.publish(&beat.key(), serde_json::to_vec_pretty(&beat)?) {
            Ok(()) => {}
            Err(e) => {
                // Lost the race for this epoch (S3 may also answer a concurrent conditional
                // create with a conflict rather than a refusal): name the winner when there is one.
                if let Ok(winner) = read_beat(store.as_ref(), &beat.key()) {
                    if winner.pid != beat.pid || winner.host != beat.host || winner.holder != beat.holder {
                        bail!(
                            "another learner holds this store: {} (it took the lease at the same time as this one)",
                            describe(&winner, now_ms())
                        );
                    }
                }
                return Err(e).with_context(|| format!("taking the lease of {url}: {}", beat.key()));
            }
        }
        for key in stale_epochs {
            if let Err(e) = store.delete(&key) {
                tracing::warn!("cannot remove the previous lease object {key}: {e}");
            }
        }
        tracing::info!("{holder} holds the lease of {url} (epoch {epoch}, ttl {:.0} s)", ttl.as_secs_f64());
        Ok(Lease {
            shared: Arc::new(Shared {
                store,
                ttl,
                state: Mutex::new(State { beat, renewed, lost: None, failing_since: None }),
                stop: Mutex::new(false),
                wake: Condvar::new(),
                beating: AtomicBool::new(true),
                skew_warned: AtomicBool::new(false),
            }),
            thread: None,
            released: false,
        })
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if let Err(e) = self.release_inner() {
            tracing::warn!("{e:#}");
        }
    }
}

fn read_beat(store: &dyn Store, key: &str) -> Result<Beat, StoreError> {
    let bytes = store.get(key)?;
    serde_json::from_slice(&bytes)
        .map_err(|e| StoreError::Backend { url: store.url(), message: format!("{key} is not a lease beat: {e}") })
}

fn stale_reason(state: &State, ttl: Duration) -> String {
    format!(
        "not renewed for {:.1} s, longer than its ttl of {:.0} s{}: another learner may have taken the store over",
        state.renewed.elapsed().as_secs_f64(),
        ttl.as_secs_f64(),
        if state.failing_since.is_some() { " (the store fails)" } else { "" }
    )
}

/// The renewal thread: one [`renew`] every `ttl / 3` until stopped or lost.
fn renew_until_stopped(shared: &Shared) {
    let period = shared.ttl / 3;
    loop {
        {
            let stop = shared.stop.lock().unwrap();
            let (stop, _) = shared.wake.wait_timeout_while(stop, period, |stop| !*stop).unwrap();
            if *stop {
                return;
            }
        }
        if !renew(shared) {
            return;
        }
    }
}

/// Checks for a takeover, then writes the next beat. False once the lease is lost.
fn renew(shared: &Shared) -> bool {
    let store = shared.store.as_ref();
    let own = shared.state.lock().unwrap().beat.clone();
    let started = Instant::now();
    let result = store.list(PREFIX).and_then(|listing| {
        let beats = beats(&listing);
        if let Some(&(epoch, _, object)) =
            beats.iter().filter(|(e, _, _)| *e > own.epoch).max_by_key(|(e, b, _)| (*e, *b))
        {
            let who = read_beat(store, &object.key)
                .map_or_else(|_| "another learner".to_string(), |b| describe(&b, now_ms()));
            return Ok(Err(format!(
                "another learner took the store over (lease epoch {epoch} > {}): {who}",
                own.epoch
            )));
        }
        if let Some(&(_, _, object)) = beats.iter().find(|(e, b, _)| (*e, *b) == (own.epoch, own.beat)) {
            if !shared.skew_warned.load(Ordering::Relaxed) && check_skew(&own, object, "this machine's") {
                shared.skew_warned.store(true, Ordering::Relaxed);
            }
        }
        if !shared.beating.load(Ordering::Relaxed) {
            return Ok(Ok(None));
        }
        let next = Beat { beat: own.beat + 1, renewed_unix_ms: now_ms(), ..own.clone() };
        match store.publish(&next.key(), serde_json::to_vec_pretty(&next).expect("a beat serializes")) {
            Ok(()) => {}
            Err(StoreError::Exists { key }) => {
                return Ok(Err(format!("{key} exists: another process writes this lease's beats")));
            }
            Err(e) => return Err(e),
        }
        // Older beats of this epoch (the previous one, and any a failed delete left).
        for (_, _, object) in beats.iter().filter(|(e, b, _)| *e == own.epoch && *b <= own.beat) {
            if let Err(e) = store.delete(&object.key) {
                tracing::warn!("cannot remove the lease's previous beat {}: {e}", object.key);
            }
        }
        Ok(Ok(Some(next)))
    });
    let mut state = shared.state.lock().unwrap();
    match result {
        Ok(Ok(Some(next))) => {
            state.beat = next;
            state.renewed = started;
            state.failing_since = None;
        }
        Ok(Ok(None)) => {}
        Ok(Err(reason)) => {
            tracing::error!("the learner lost the lease of {}: {reason}", store.url());
            state.lost.get_or_insert(reason);
            return false;
        }
        Err(e) => {
            tracing::warn!("cannot renew the lease of {} (will retry): {e}", store.url());
            state.failing_since.get_or_insert(started);
        }
    }
    if state.lost.is_none() && state.renewed.elapsed() > shared.ttl {
        let reason = stale_reason(&state, shared.ttl);
        tracing::error!("the learner lost the lease of {}: {reason}", store.url());
        state.lost = Some(reason);
    }
    state.lost.is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ObjectStoreBackend;

    fn memory() -> Arc<dyn Store> {
        Arc::new(ObjectStoreBackend::open("memory://").unwrap())
    }

    fn lease_keys(store: &dyn Store) -> Vec<String> {
        store.list(PREFIX).unwrap().into_iter().map(|o| o.key).collect()
    }

    #[test]
    fn keys_parse() {
        assert_eq!(key(3, 12), "lease/0000000003/0000000012.json");
        assert_eq!(parse_key("lease/0000000003/0000000012.json"), Some((3, 12)));
        for bad in [
            "lease/3/12.json",
            "lease/0000000003/0000000012",
            "lease/000000000x/0000000012.json",
            "x/0000000003/0000000012.json",
        ] {
            assert_eq!(parse_key(bad), None, "{bad}");
        }
    }

    #[test]
    fn second_acquire_is_refused_naming_the_holder_and_release_frees_at_once() {
        let store = memory();
        let first = Lease::acquire(Arc::clone(&store), "learner-a", Duration::from_secs(60)).unwrap();
        assert_eq!(lease_keys(store.as_ref()), ["lease/0000000001/0000000000.json"]);
        let refused = Lease::acquire(Arc::clone(&store), "learner-b", Duration::from_secs(60)).unwrap_err().to_string();
        assert!(refused.starts_with("another learner holds this store: learner-a on "), "{refused}");
        assert!(refused.contains(&format!("(pid {}, lease epoch 1)", std::process::id())), "{refused}");
        let fresh = refused.contains("expires in 59.") || refused.contains("expires in 60.0");
        assert!(refused.contains("renewed 0.") && fresh, "{refused}");
        assert!(first.lost().is_none());
        first.release().unwrap();
        assert_eq!(lease_keys(store.as_ref()), ["lease/0000000001/0000000001.json"]);
        assert!(read_beat(store.as_ref(), "lease/0000000001/0000000001.json").unwrap().released);
        let second = Lease::acquire(Arc::clone(&store), "learner-b", Duration::from_secs(60)).unwrap();
        assert_eq!(second.beat().epoch, 2);
        // The previous epoch is gone; dropping releases too.
        assert_eq!(lease_keys(store.as_ref()), ["lease/0000000002/0000000000.json"]);
        drop(second);
        Lease::acquire(store, "learner-c", Duration::from_secs(60)).unwrap();
    }

    #[test]
    fn renewal_beats_and_an_expired_lease_is_taken_over_and_fenced() {
        let dir = tempfile::tempdir().unwrap();
        let store: Arc<dyn Store> =
            Arc::new(ObjectStoreBackend::open(&format!("file://{}", dir.path().display())).unwrap());
        let stalled = Lease::acquire(Arc::clone(&store), "learner-a", Duration::from_secs(1)).unwrap();
        // Renewed every ttl / 3, the previous beat deleted.
        std::thread::sleep(Duration::from_millis(800));
        let beat = stalled.beat().beat;
        assert!(beat >= 1, "renewed {beat} times");
        assert!(Lease::acquire(Arc::clone(&store), "learner-b", Duration::from_secs(1)).is_err());
        // The holder stalls: no more beats, but it still looks for a takeover.
        stalled.shared.beating.store(false, Ordering::Relaxed);
        let keys = lease_keys(store.as_ref());
        assert_eq!(keys.len(), 1, "{keys:?}");
        let start = Instant::now();
        let taker = loop {
            match Lease::acquire(Arc::clone(&store), "learner-b", Duration::from_secs(1)) {
                Ok(lease) => break lease,
                Err(e) if start.elapsed() < Duration::from_secs(3) => {
                    assert!(e.to_string().contains("learner-a"), "{e}");
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(e) => panic!("no takeover after 3 s: {e}"),
            }
        };
        assert_eq!(taker.beat().epoch, 2);
        assert!(stalled.lost().is_some(), "the stalled holder knows its lease is gone");
        assert!(taker.lost().is_none());
        drop(stalled);
        assert!(
            lease_keys(store.as_ref()).iter().all(|k| k.starts_with("lease/0000000002/")),
            "the lost lease released nothing"
        );
    }

    #[test]
    fn a_holder_sees_a_takeover_at_its_next_renewal() {
        let store = memory();
        let lease = Lease::acquire(Arc::clone(&store), "learner-a", Duration::from_secs(1)).unwrap();
        // A learner that (wrongly, by a skewed clock) judged it expired and took epoch 2.
        let usurper = Beat { holder: "learner-b".into(), epoch: 2, ..lease.beat() };
        store.publish(&usurper.key(), serde_json::to_vec(&usurper).unwrap()).unwrap();
        let start = Instant::now();
        while lease.lost().is_none() && start.elapsed() < Duration::from_secs(2) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let lost = lease.lost().expect("lost within a renewal period");
        assert!(lost.contains("another learner took the store over (lease epoch 2 > 1): learner-b"), "{lost}");
        assert!(start.elapsed() < Duration::from_millis(900), "{:?}", start.elapsed());
        lease.release().unwrap();
        assert!(store.exists(&usurper.key()).unwrap(), "a lost lease writes nothing");
    }

    #[test]
    fn racing_acquires_have_one_winner() {
        let dir = tempfile::tempdir().unwrap();
        let file: Arc<dyn Store> =
            Arc::new(ObjectStoreBackend::open(&format!("file://{}", dir.path().display())).unwrap());
        for store in [memory(), file] {
            for round in 0..3 {
                // Round 0 races for a fresh store; later rounds for a released lease's next epoch.
                let barrier = Arc::new(std::sync::Barrier::new(4));
                let results: Vec<_> = (0..4)
                    .map(|i| {
                        let (store, barrier) = (Arc::clone(&store), Arc::clone(&barrier));
                        std::thread::spawn(move || {
                            barrier.wait();
                            Lease::acquire(store, &format!("learner-{i}"), Duration::from_secs(60))
                        })
                    })
                    .collect::<Vec<_>>()
                    .into_iter()
                    .map(|t| t.join().unwrap())
                    .collect();
                let (won, lost): (Vec<_>, Vec<_>) = results.into_iter().partition(|r| r.is_ok());
                assert_eq!(won.len(), 1, "round {round} of {store:?}: {lost:?}");
                for e in lost {
                    let e = e.unwrap_err().to_string();
                    assert!(e.starts_with("another learner holds this store: learner-"), "{e}");
                }
                let winner = won.into_iter().next().unwrap().unwrap();
                assert_eq!(winner.beat().epoch, round + 1);
                winner.release().unwrap();
            }
        }
    }

    #[test]
    fn ttl_below_a_second_is_refused() {
        let e = Lease::acquire(memory(), "l", Duration::from_millis(500)).unwrap_err().to_string();
        assert!(e.contains("ttl must be at least 1 s"), "{e}");
    }
}
