//! Issue 40's system-restart test: a `cairn start --data-nodes 2 --replicas 2` cluster, and one
//! of two node groups (`--data-nodes 4`), in commit durability (the default) under native
//! writers committing three-row transactions, whose
//! every process (both data nodes, the management node, then `cairn start` itself) is killed
//! with SIGKILL at a random moment, then started again on the same directory, round after
//! round. Each time the cluster comes back (from the disk of the node of the newest view, the
//! other copying from it) with every acknowledged transaction whole, none in part, none that
//! was refused. The seed is printed (`CAIRN_SYSTEM_RESTART_SEED` repeats one;
//! `CAIRN_SYSTEM_RESTART_ROUNDS`, default 10).

mod common;

use common::pid_of;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use client::{ClientError, Cluster, Scan, Value};

const WRITERS: usize = 4;
const ROWS_PER_TXN: i64 = 3;

#[derive(Default)]
struct Seen {
    acknowledged: BTreeSet<i64>,
    refused: BTreeSet<i64>,
}

fn writer(w: i64, addresses: String, stop: Arc<AtomicBool>, seen: Arc<Mutex<Seen>>, from: i64) {
    let Ok(cluster) = Cluster::connect_timeout(&addresses, Duration::from_secs(5)) else {
        return;
    };
    let Ok(t) = cluster.table("ledger") else {
        return;
    };
    let mut seq = from;
    while !stop.load(Ordering::Relaxed) {
        seq += 1;
        let number = w * 1_000_000_000 + seq;
        let mut txn = cluster.transaction();
        for r in 0..ROWS_PER_TXN {
            txn.insert(
                &t,
                vec![(0, Value::Int(number * 8 + r)), (1, Value::Int(number))],
            );
        }
        match txn.commit() {
            Ok(()) => {
                seen.lock().unwrap().acknowledged.insert(number);
            }
            // The cluster is gone (killed): the outcome of what was under way is not known.
            Err(ClientError::ConnectionLost(_)) => return,
            Err(e) if e.code() == base::ErrorCode::ConnectionLost => return,
            Err(e) => {
                assert!(e.is_temporary(), "writer {w}: a permanent error: {e}");
                seen.lock().unwrap().refused.insert(number);
            }
        }
    }
}

fn kill(pid: i32) {
    // SAFETY: kill(2) on a pid this test's cluster printed.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
    }
}

/// The two tests one at a time: each frees its ports between rounds, where the other could
/// take them.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

#[test]
fn every_process_killed_at_a_random_moment_loses_no_acknowledged_commit() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    system_restarts(2);
}

/// The same over two node groups, whose transactions (three rows, spread by key) mostly write
/// in both and commit in two phases: killing every node between a decision and its parts'
/// commits leaves the part prepared on disk in its group and the decision in the
/// coordinator's (the durable prepare), and the restarted groups settle it before they serve,
/// so no transaction is there in part.
#[test]
fn every_process_of_two_node_groups_killed_at_a_random_moment_loses_no_acknowledged_commit() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    system_restarts(4);
}

fn system_restarts(data_nodes: u16) {
    let seed = common::seed_from_env("CAIRN_SYSTEM_RESTART_SEED");
    let rounds: u64 = std::env::var("CAIRN_SYSTEM_RESTART_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    println!("seed {seed} (CAIRN_SYSTEM_RESTART_SEED repeats it), {rounds} rounds");
    let dir = common::fresh_dir("system-restart");
    // The block of ports `cairn start` takes: data nodes' from base + 2, the management node's
    // and the membership links' from base + 100.
    let block: Vec<u16> = (0..data_nodes)
        .map(|k| 2 + k)
        .chain((0..=data_nodes).map(|k| 100 + k))
        .collect();
    let args = common::cluster_args(&dir, data_nodes, 2, common::free_block(&block));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let mut next = common::random(seed);
    for round in 0..rounds {
        let mut cluster = common::spawn(&args);
        let lines: Vec<String> = (1..=data_nodes)
            .map(|k| format!("data node {k} (native protocol): "))
            .collect();
        let addresses = lines
            .iter()
            .map(|p| cluster.listening(p).split(',').next().unwrap().to_string())
            .collect::<Vec<_>>()
            .join(",");
        let native = Cluster::connect_timeout(&addresses, Duration::from_secs(10)).unwrap();
        if round == 0 {
            native.create_table(common::ledger_def()).unwrap();
        } else {
            check(round, &native, &seen.lock().unwrap());
        }
        let stop = Arc::new(AtomicBool::new(false));
        let writers: Vec<_> = (0..WRITERS as i64)
            .map(|w| {
                let (addresses, stop, seen) = (addresses.clone(), stop.clone(), seen.clone());
                let from = round as i64 * 10_000_000;
                std::thread::spawn(move || writer(w, addresses, stop, seen, from))
            })
            .collect();
        let after = Duration::from_millis(300 + next() % 1200);
        std::thread::sleep(after);
        let mut nodes: Vec<i32> = lines.iter().map(|l| pid_of(&cluster, l)).collect();
        // The data nodes first (together, as a power cut would, in an order from the seed),
        // then the rest.
        nodes.rotate_left((next() % u64::from(data_nodes)) as usize);
        for pid in nodes {
            kill(pid);
        }
        kill(pid_of(&cluster, "management node: "));
        let _ = cluster.child.kill();
        let _ = cluster.child.wait();
        stop.store(true, Ordering::Relaxed);
        for w in writers {
            w.join().unwrap();
        }
        let seen = seen.lock().unwrap();
        println!(
            "round {round}: killed every process after {after:?}: {} acknowledged, {} refused so far",
            seen.acknowledged.len(),
            seen.refused.len()
        );
        // The killed processes' ports are free again before the next start.
        drop(native);
    }
    let cluster = common::spawn(&args);
    let addresses = cluster
        .listening("data node 1 (native protocol): ")
        .split(',')
        .next()
        .unwrap()
        .to_string();
    let native = Cluster::connect_timeout(&addresses, Duration::from_secs(10)).unwrap();
    check(rounds, &native, &seen.lock().unwrap());
    cluster.terminate();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every acknowledged transaction is there whole; none is there in part; none refused is.
fn check(round: u64, cluster: &Cluster, seen: &Seen) {
    let t = cluster.table("ledger").unwrap();
    let rows = cluster.scan(&t, &Scan::table()).unwrap();
    let mut per_txn: BTreeMap<i64, i64> = BTreeMap::new();
    for row in &rows {
        let Value::Int(number) = row[1] else {
            panic!("{row:?}")
        };
        *per_txn.entry(number).or_default() += 1;
    }
    for (number, count) in &per_txn {
        assert_eq!(
            *count, ROWS_PER_TXN,
            "after restart {round}: transaction {number} is there in part"
        );
        assert!(
            !seen.refused.contains(number),
            "after restart {round}: refused transaction {number} is there"
        );
    }
    let lost: Vec<_> = seen
        .acknowledged
        .iter()
        .filter(|n| !per_txn.contains_key(n))
        .collect();
    assert!(
        lost.is_empty(),
        "after restart {round}: {} acknowledged transactions lost, the first {:?}",
        lost.len(),
        lost.iter().take(5).collect::<Vec<_>>()
    );
    println!(
        "after restart {round}: {} transactions there, every acknowledged one of {}",
        per_txn.len(),
        seen.acknowledged.len()
    );
}
