//! The store and the learner's lease on S3, against `moto_server` (tests/support/moto.rs):
//! immutable publication (`If-None-Match: *`), `start-after` listings, object times, and one
//! learner per store.

#[path = "support/moto.rs"]
mod moto;

use std::{sync::Arc, time::Duration};

use fairyzero_trainer::{
    lease::Lease,
    store::{materialize, ObjectStoreBackend, Store, StoreError},
};
use moto::MotoServer;

fn open(moto: &MotoServer, prefix: &str) -> ObjectStoreBackend {
    ObjectStoreBackend::open_with(&moto.url(prefix), &moto.env()).unwrap()
}

#[test]
fn s3_store_publishes_immutably_lists_after_and_heads() {
    let Some(moto) = MotoServer::start() else { return };
    let store = open(&moto, "runs/a");
    for key in ["games/b", "games/a", "games/c/x", "gamesx/d", "checkpoints/step-1/header.json"] {
        store.publish(key, key.as_bytes().to_vec()).unwrap();
    }
    // S3 refuses the second create (If-None-Match: *): artifacts stay immutable.
    match store.publish("games/a", b"overwrite".to_vec()) {
        Err(StoreError::Exists { key }) => assert_eq!(key, "games/a"),
        other => panic!("publishing an existing key: {other:?}"),
    }
    assert_eq!(store.get("games/a").unwrap(), b"games/a");
    assert!(matches!(store.get("games/zz"), Err(StoreError::NotFound { .. })));
    let keys = |v: Vec<fairyzero_trainer::store::ObjectInfo>| v.into_iter().map(|o| o.key).collect::<Vec<_>>();
    assert_eq!(keys(store.list("games/").unwrap()), ["games/a", "games/b", "games/c/x"]);
    assert_eq!(keys(store.list_after("games/", "").unwrap()), ["games/a", "games/b", "games/c/x"]);
    assert_eq!(keys(store.list_after("games/", "games/a").unwrap()), ["games/b", "games/c/x"]);
    assert_eq!(keys(store.list_after("games/", "games/aa").unwrap()), ["games/b", "games/c/x"]);
    assert!(store.list_after("games/", "games/c/x").unwrap().is_empty());
    assert!(store.list("nothing/").unwrap().is_empty());
    let head = store.head("games/b").unwrap().unwrap();
    assert_eq!((head.key.as_str(), head.size), ("games/b", 7));
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    assert!(head.last_modified_ms.abs_diff(now_ms) < 60_000, "{head:?} at {now_ms}");
    assert_eq!(store.list("games/").unwrap()[1], head);
    assert!(store.head("games/zz").unwrap().is_none() && store.exists("games/b").unwrap());
    // The prefix is the store's root: another prefix of the bucket is another store.
    assert!(open(&moto, "runs/b").list("games/").unwrap().is_empty());
    assert!(store.local_path("games/a").is_none());
    let cache = tempfile::tempdir().unwrap();
    let dir = materialize(&store, "checkpoints/step-1", cache.path()).unwrap();
    assert_eq!(std::fs::read(dir.join("header.json")).unwrap(), b"checkpoints/step-1/header.json");
    store.delete("games/a").unwrap();
    store.delete("games/a").unwrap();
    assert!(!store.exists("games/a").unwrap());
    assert!(store.remove_staged_older_than(Duration::ZERO).unwrap().is_empty());
}

#[test]
fn s3_settings_come_from_the_options() {
    let Some(moto) = MotoServer::start() else { return };
    // An http:// endpoint without AWS_ALLOW_HTTP or a region: both defaulted.
    let options: Vec<(String, String)> =
        moto.env().into_iter().filter(|(k, _)| k != "AWS_ALLOW_HTTP" && k != "AWS_REGION").collect();
    let store = ObjectStoreBackend::open_with(&moto.url("r"), &options).unwrap();
    store.publish("x", b"1".to_vec()).unwrap();
    // Plain http refused when the user says so.
    let mut refuse = options.clone();
    refuse.push(("aws_allow_http".to_string(), "false".to_string()));
    let e = match ObjectStoreBackend::open_with(&moto.url("r"), &refuse) {
        Ok(store) => store.get("x").unwrap_err().to_string(),
        Err(e) => e.to_string(),
    };
    assert!(e.to_lowercase().contains("http"), "{e}");
}

#[test]
fn one_learner_per_s3_store() {
    let Some(moto) = MotoServer::start() else { return };
    let store: Arc<dyn Store> = Arc::new(open(&moto, "run"));
    let ttl = Duration::from_secs(60);
    let first = Lease::acquire(Arc::clone(&store), "learner-a", ttl).unwrap();
    let refused = Lease::acquire(Arc::clone(&store), "learner-b", ttl).unwrap_err().to_string();
    assert!(refused.starts_with("another learner holds this store: learner-a on "), "{refused}");
    first.release().unwrap();
    // Several learners race for the released lease's next epoch, each with its own
    // connection: S3's conditional create lets exactly one win.
    let results: Vec<_> = (0..4)
        .map(|i| {
            let store: Arc<dyn Store> = Arc::new(open(&moto, "run"));
            std::thread::spawn(move || Lease::acquire(store, &format!("learner-{i}"), ttl))
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|t| t.join().unwrap())
        .collect();
    let (won, lost): (Vec<_>, Vec<_>) = results.into_iter().partition(|r| r.is_ok());
    assert_eq!(won.len(), 1, "{lost:?}");
    for e in lost {
        let e = e.unwrap_err().to_string();
        assert!(e.starts_with("another learner holds this store: learner-"), "{e}");
    }
    let winner = won.into_iter().next().unwrap().unwrap();
    assert_eq!(winner.beat().epoch, 2);
    let keys: Vec<String> = store.list("lease/").unwrap().into_iter().map(|o| o.key).collect();
    assert_eq!(keys, ["lease/0000000002/0000000000.json"], "the previous epoch is removed");
    assert!(winner.lost().is_none());
    winner.release().unwrap();
}
