//! The ZooKeeper metadata store against a real ZooKeeper: it behaves as the embedded store
//! (a model map), keeps Pinot's layout, applies commits all or nothing with compare-and-set,
//! and gives several processes one write lease, one leader and a live-instance list. Each test
//! starts its own ZooKeeper and stops it when it ends.

mod support;

use proptest::prelude::*;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::zookeeper::ZooKeeper;
use tessera_api::metadata::zk::{ZkConfig, ZkStore};
use tessera_api::metadata::{MetadataStore, Op, StoreError};

fn store(zk: &ZooKeeper, cluster: &str) -> ZkStore {
    let mut config = ZkConfig::new(&zk.address(), cluster);
    config.session_timeout = Duration::from_secs(2);
    ZkStore::connect(config).unwrap()
}

fn until(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn keys_live_in_pinots_layout_and_commits_are_atomic() {
    let Some(zk) = ZooKeeper::start() else { return };
    let zk = &zk;
    let s = store(zk, "layout");
    s.commit(vec![
        Op::Put(
            "schemas/orders".into(),
            b"{\"schemaName\":\"orders\"}".to_vec(),
        ),
        Op::Put("tables/orders_OFFLINE".into(), b"{}".to_vec()),
        Op::Put("segments/orders_OFFLINE/orders_0".into(), b"s0".to_vec()),
        Op::Put("segments/orders_OFFLINE/orders_1".into(), b"s1".to_vec()),
        Op::Put("instances/Server_h_1".into(), b"i".to_vec()),
        Op::Put("version".into(), b"1".to_vec()),
    ])
    .unwrap();
    // A second session reads the same znodes a Pinot operator would look at.
    let other = store(zk, "layout");
    for (key, path) in [
        ("schemas/orders", "/layout/PROPERTYSTORE/SCHEMAS/orders"),
        (
            "tables/orders_OFFLINE",
            "/layout/PROPERTYSTORE/CONFIGS/TABLE/orders_OFFLINE",
        ),
        (
            "segments/orders_OFFLINE/orders_1",
            "/layout/PROPERTYSTORE/SEGMENTS/orders_OFFLINE/orders_1",
        ),
        (
            "instances/Server_h_1",
            "/layout/CONFIGS/PARTICIPANT/Server_h_1",
        ),
    ] {
        assert!(other.get(key).unwrap().is_some(), "{key}");
        assert_eq!(
            tessera_api::metadata::zk::layout::path("/layout", key).unwrap(),
            path
        );
    }
    assert_eq!(other.list("segments/orders_OFFLINE/").unwrap().len(), 2);
    assert_eq!(other.list("").unwrap().len(), 6);

    // A failed compare writes nothing, not even the ops before it.
    let r = s.commit(vec![
        Op::Put("tables/lost_OFFLINE".into(), b"{}".to_vec()),
        Op::DeletePrefix("segments/orders_OFFLINE/".into()),
        Op::Expect("version".into(), Some(b"0".to_vec())),
    ]);
    assert!(matches!(r, Err(StoreError::Conflict(_))), "{r:?}");
    assert_eq!(other.get("tables/lost_OFFLINE").unwrap(), None);
    assert_eq!(other.list("segments/").unwrap().len(), 2);

    // A compare that holds: delete the table's segments and bump the version together.
    s.commit(vec![
        Op::Expect("version".into(), Some(b"1".to_vec())),
        Op::Expect("tables/new_OFFLINE".into(), None),
        Op::DeletePrefix("segments/orders_OFFLINE/".into()),
        Op::Delete("tables/orders_OFFLINE".into()),
        Op::Put("version".into(), b"2".to_vec()),
    ])
    .unwrap();
    assert_eq!(other.list("segments/").unwrap(), vec![]);
    assert_eq!(other.get("version").unwrap(), Some(b"2".to_vec()));
    assert_eq!(other.get("tables/new_OFFLINE").unwrap(), None);
    // The emptied table directory is gone too (no znode left behind per deleted table).
    assert_eq!(other.list("segments/orders_OFFLINE").unwrap(), vec![]);
    // Removing the prefix `x/` keeps the key `x`, whose znode is the prefix's directory (the
    // model test's shrunk failure, kept as a case of its own).
    s.commit(vec![
        Op::Put("x".into(), b"1".to_vec()),
        Op::Put("x/b".into(), b"2".to_vec()),
    ])
    .unwrap();
    s.commit(vec![Op::DeletePrefix("x/".into())]).unwrap();
    assert_eq!(other.get("x").unwrap(), Some(b"1".to_vec()));
    assert_eq!(other.list("x/").unwrap(), vec![]);
    s.delete("x").unwrap();
    // A key one prefix of a commit removes goes even when another prefix of the same commit is
    // the key's own directory (which alone would keep its value), in either order (the model
    // test's shrunk failure in a clean-clone CI run).
    for prefixes in [["x/b/", "x/"], ["x/", "x/b/"]] {
        s.commit(vec![Op::Put("x/b".into(), b"2".to_vec())])
            .unwrap();
        s.commit(
            prefixes
                .iter()
                .map(|p| Op::DeletePrefix(p.to_string()))
                .collect(),
        )
        .unwrap();
        assert_eq!(other.list("x").unwrap(), vec![], "{prefixes:?}");
    }

    // Two sessions writing from the same read: the second commit fails, the first survives.
    other
        .commit(vec![
            Op::Expect("version".into(), Some(b"2".to_vec())),
            Op::Put("version".into(), b"3".to_vec()),
            Op::Put("schemas/a".into(), b"A".to_vec()),
        ])
        .unwrap();
    let r = s.commit(vec![
        Op::Expect("version".into(), Some(b"2".to_vec())),
        Op::Put("version".into(), b"3".to_vec()),
        Op::Put("schemas/a".into(), b"B".to_vec()),
    ]);
    assert!(matches!(r, Err(StoreError::Conflict(_))), "{r:?}");
    assert_eq!(s.get("schemas/a").unwrap(), Some(b"A".to_vec()));
    s.close();
    assert!(matches!(s.get("version"), Err(StoreError::Closed)));
}

/// A key removed by a prefix while a key below it is written in the same commit: its znode
/// stays as the new key's parent, without the old value.
#[test]
fn a_prefix_removed_under_a_new_key_leaves_no_old_value() {
    let Some(zk) = ZooKeeper::start() else { return };
    let s = store(&zk, "prefix_put");
    s.commit(vec![
        Op::Put("segments/t/c".into(), b"old".to_vec()),
        Op::Put("segments/t/c/cb".into(), b"child".to_vec()),
    ])
    .unwrap();
    s.commit(vec![
        Op::DeletePrefix("segments/t/".into()),
        Op::Put("segments/t/c/a".into(), b"new".to_vec()),
    ])
    .unwrap();
    assert_eq!(
        s.list("").unwrap(),
        vec![("segments/t/c/a".to_string(), b"new".to_vec())]
    );
    assert_eq!(s.get("segments/t/c").unwrap(), None);
}

#[test]
fn behaves_like_a_map() {
    use proptest::test_runner::{Config, TestRunner};
    let Some(zk) = ZooKeeper::start() else { return };
    let ops = proptest::collection::vec(
        (
            0u8..4,
            "(schemas|segments/t|version|x)(/[a-c]{1,2}){0,2}",
            1u8..255,
        ),
        1..24,
    );
    let cluster = std::sync::atomic::AtomicUsize::new(0);
    let mut runner = TestRunner::new(Config::with_cases(8));
    runner
        .run(&ops, |ops| {
            let n = cluster.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let s = store(&zk, &format!("model{n}"));
            let mut model: BTreeMap<String, Vec<u8>> = BTreeMap::new();
            let mut batch = Vec::new();
            for (i, (kind, key, v)) in ops.into_iter().enumerate() {
                let op = match kind {
                    0 | 1 => {
                        model.insert(key.clone(), vec![v]);
                        Op::Put(key, vec![v])
                    }
                    2 => {
                        model.remove(&key);
                        Op::Delete(key)
                    }
                    _ => {
                        let p = format!("{key}/");
                        model.retain(|k, _| !k.starts_with(&p));
                        Op::DeletePrefix(p)
                    }
                };
                batch.push(op);
                if i % 3 == 2 {
                    s.commit(std::mem::take(&mut batch)).unwrap();
                }
            }
            s.commit(batch).unwrap();
            let all: Vec<_> = model.clone().into_iter().collect();
            prop_assert_eq!(s.list("").unwrap(), all);
            for prefix in ["s", "segments/", "segments/t/", "x/a"] {
                let want: Vec<_> = model
                    .iter()
                    .filter(|(k, _)| k.starts_with(prefix))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                prop_assert_eq!(s.list(prefix).unwrap(), want);
            }
            for (k, v) in &model {
                prop_assert_eq!(s.get(k).unwrap(), Some(v.clone()));
            }
            s.close();
            Ok(())
        })
        .unwrap();
}

#[test]
fn one_write_lease_at_a_time_across_processes() {
    let Some(zk) = ZooKeeper::start() else { return };
    let zk = &zk;
    let a = store(zk, "lease");
    let b = store(zk, "lease");
    let lease = a
        .lock_writes()
        .unwrap()
        .expect("a ZooKeeper store leases writes");
    let order = Arc::new(Mutex::new(Vec::new()));
    let (o, b2) = (order.clone(), b.clone());
    let waiter = std::thread::spawn(move || {
        let _l = b2.lock_writes().unwrap();
        o.lock().unwrap().push("b");
    });
    std::thread::sleep(Duration::from_millis(500));
    order.lock().unwrap().push("a");
    drop(lease);
    waiter.join().unwrap();
    assert_eq!(*order.lock().unwrap(), ["a", "b"]);
    // Released, the lease is free again for the first process.
    drop(a.lock_writes().unwrap());
    b.close();
    drop(a.lock_writes().unwrap());
}

#[test]
fn a_leader_at_a_time_and_the_next_takes_over() {
    let Some(zk) = ZooKeeper::start() else { return };
    let zk = &zk;
    let a = store(zk, "leader");
    a.campaign("Controller_a_1").unwrap();
    until("a to lead", || a.is_leader());
    let b = store(zk, "leader");
    b.campaign("Controller_b_1").unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert!(!b.is_leader());
    let leader = b.get("../../CONTROLLER/LEADER");
    assert!(leader.is_err(), "relative keys are refused");
    a.close();
    until("b to lead", || b.is_leader());
    assert!(!a.is_leader());
}

#[test]
fn live_instances_come_and_go_with_their_sessions() {
    let Some(zk) = ZooKeeper::start() else { return };
    let zk = &zk;
    let watcher = store(zk, "live");
    let seen: Arc<Mutex<Vec<Vec<String>>>> = Arc::default();
    let s2 = seen.clone();
    assert!(watcher.watch_live(Arc::new(move |live| {
        s2.lock().unwrap().push(live.keys().cloned().collect());
    })));
    let server = store(zk, "live");
    assert!(server.announce("Server_h_1", b"{\"report\":1}").unwrap());
    until("the server to be live", || {
        watcher.live_instances().unwrap().unwrap().get("Server_h_1")
            == Some(&b"{\"report\":1}".to_vec())
    });
    server.announce("Server_h_1", b"{\"report\":2}").unwrap();
    until("the new report", || {
        watcher.live_instances().unwrap().unwrap()["Server_h_1"] == b"{\"report\":2}"
    });
    until("the watch to see it", || {
        seen.lock()
            .unwrap()
            .last()
            .is_some_and(|l| l == &["Server_h_1"])
    });
    // A restarted instance replaces the node its killed predecessor left.
    let restarted = store(zk, "live");
    restarted.announce("Server_h_1", b"{\"report\":3}").unwrap();
    assert_eq!(
        watcher.live_instances().unwrap().unwrap()["Server_h_1"],
        b"{\"report\":3}"
    );
    restarted.close();
    until("the instance to leave", || {
        watcher.live_instances().unwrap().unwrap().is_empty()
    });
    until("the watch to see it leave", || {
        seen.lock().unwrap().last().is_some_and(|l| l.is_empty())
    });
    server.close();
}

/// A watch outlives a reconnection: ZooKeeper restarted within the session timeout, the
/// sessions carry on over new connections, and the watcher still sees every later change (the
/// client does not re-register a persistent watch with the server by itself).
#[test]
fn a_watch_sees_changes_after_its_session_reconnects() {
    let Some(mut zk) = ZooKeeper::start() else {
        return;
    };
    let lasting = |cluster: &str| {
        let mut config = ZkConfig::new(&zk.address(), cluster);
        config.session_timeout = Duration::from_secs(30);
        config.call_timeout = Duration::from_secs(2);
        ZkStore::connect(config).unwrap()
    };
    let watcher = lasting("rewatch");
    let server = lasting("rewatch");
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let s2 = seen.clone();
    assert!(watcher.watch_live(Arc::new(move |live| {
        *s2.lock().unwrap() = live.keys().cloned().collect();
    })));
    server.announce("Server_h_1", b"{}").unwrap();
    until("the watch to see the first server", || {
        seen.lock().unwrap().as_slice() == ["Server_h_1"]
    });
    zk.kill();
    zk.resume();
    // Both sessions survived the restart, and the first server's ephemeral node with them.
    until(
        "the first server's node to be read after the restart",
        || {
            watcher
                .live_instances()
                .is_ok_and(|l| l.unwrap_or_default().keys().eq(["Server_h_1"]))
        },
    );
    std::thread::sleep(Duration::from_millis(500));
    server.announce("Server_h_2", b"{}").unwrap();
    until("the watch to see the second server", || {
        seen.lock().unwrap().as_slice() == ["Server_h_1", "Server_h_2"]
    });
    server.close();
    until("the watch to see both leave", || {
        seen.lock().unwrap().is_empty()
    });
}

/// A write while the connection is lost waits for the client to reconnect (within its call
/// timeout) and lands, rather than failing at once; a read fails at once.
#[test]
fn a_commit_waits_for_the_connection_to_come_back() {
    let Some(mut zk) = ZooKeeper::start() else {
        return;
    };
    let mut config = ZkConfig::new(&zk.address(), "reconnect");
    config.session_timeout = Duration::from_secs(30);
    config.call_timeout = Duration::from_secs(30);
    let s = ZkStore::connect(config).unwrap();
    s.commit(vec![Op::Put("schemas/a".into(), b"1".to_vec())])
        .unwrap();
    zk.kill();
    until("the client to find itself cut off", || {
        matches!(s.get("schemas/a"), Err(StoreError::Unavailable(_)))
    });
    let writer = s.clone();
    let commit =
        std::thread::spawn(move || writer.commit(vec![Op::Put("schemas/b".into(), b"2".to_vec())]));
    std::thread::sleep(Duration::from_millis(300));
    assert!(!commit.is_finished(), "the commit waits for ZooKeeper");
    zk.resume();
    commit.join().unwrap().unwrap();
    assert_eq!(s.get("schemas/b").unwrap(), Some(b"2".to_vec()));
}

#[test]
fn changes_committed_anywhere_reach_followers_through_a_watch() {
    use tessera_api::common::BoxFuture;
    use tessera_api::metadata::changes::{Change, ChangeListener, follow};
    struct Record(Mutex<Vec<Change>>);
    impl ChangeListener for Record {
        fn changed<'a>(&'a self, change: &'a Change) -> BoxFuture<'a, ()> {
            self.0.lock().unwrap().push(change.clone());
            Box::pin(async {})
        }
    }
    let Some(zk) = ZooKeeper::start() else { return };
    let zk = &zk;
    let writer = store(zk, "follow");
    let put = |v: u64, tables: &[&str]| {
        let c = Change {
            version: v,
            tables: tables.iter().map(|t| t.to_string()).collect(),
            ..Change::default()
        };
        writer
            .put("lastChange", serde_json::to_vec(&c).unwrap())
            .unwrap();
    };
    put(1, &["a"]);
    let follower = store(zk, "follow");
    let seen = Arc::new(Record(Mutex::default()));
    assert!(follow(&follower, seen.clone()));
    // The value found at the start: anything may have changed before it.
    until("the first change", || seen.0.lock().unwrap().len() == 1);
    assert!(seen.0.lock().unwrap()[0].all);
    put(2, &["orders"]);
    until("the next change", || seen.0.lock().unwrap().len() == 2);
    let c = seen.0.lock().unwrap()[1].clone();
    assert_eq!(
        (c.version, c.tables.clone(), c.all),
        (2, vec!["orders".to_string()], false)
    );
    // A jump past a version never seen: the follower is told everything may differ.
    put(5, &["b"]);
    until("the jump", || seen.0.lock().unwrap().len() == 3);
    assert!(seen.0.lock().unwrap()[2].all);
    follower.close();
    writer.close();
}

/// A commit sent to a ZooKeeper that then answers nothing (stopped) is *indeterminate*, not
/// unavailable: it may have been applied — here it is, once ZooKeeper continues — so a caller
/// must keep what the commit names (a segment's archive) rather than clean it up.
#[test]
fn a_commit_without_an_answer_may_have_been_applied() {
    let Some(zk) = ZooKeeper::start() else { return };
    let mut config = ZkConfig::new(&zk.address(), "indeterminate");
    config.session_timeout = Duration::from_secs(20);
    config.call_timeout = Duration::from_secs(2);
    let s = ZkStore::connect(config).unwrap();
    s.commit(vec![Op::Put("schemas/a".into(), b"1".to_vec())])
        .unwrap();
    zk.pause(true);
    let e = s
        .commit(vec![Op::Put("schemas/b".into(), b"2".to_vec())])
        .unwrap_err();
    zk.pause(false);
    match e {
        StoreError::Indeterminate(_) => {}
        // Found cut off before the commit was sent: nothing was written, and it says so.
        StoreError::Unavailable(_) => {
            assert_eq!(s.get("schemas/b").unwrap(), None);
            return;
        }
        other => panic!("{other:?}"),
    }
    until("the unanswered commit to land", || {
        s.get("schemas/b").ok().flatten() == Some(b"2".to_vec())
    });
}
