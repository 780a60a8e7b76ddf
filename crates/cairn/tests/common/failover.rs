//! The failover tests' harness (`replica_failover.rs`, `leveling.rs`): a node group of data
//! nodes (`cairn datanode --mgm`) and a management node, each its own process, with native
//! writers committing transactions of several rows and recording what they saw (acknowledged,
//! refused, outcome unknown, then asked), and the check that a survivor holds every
//! acknowledged commit whole and nothing else.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base::schema::ColumnDef;
use base::types::ColumnType;
use client::{Cluster, Scan, TableDef, Value};

use super::{free_port, fresh_dir, spawn, spawn_node, Started};

/// Rows each transaction writes (spread over both partitions by their keys).
pub const ROWS_PER_TXN: i64 = 3;
pub const WRITERS: usize = 8;
/// How long commits must take to succeed again after the kill.
pub const RECOVERY_MAX: Duration = Duration::from_secs(3);

pub struct Node {
    pub process: Started,
    pub api: String,
}

pub struct ClusterUnderTest {
    pub dir: std::path::PathBuf,
    pub mgm: String,
    pub _mgmd: Started,
    pub nodes: Vec<Node>,
    pub addresses: String,
    /// Per data node, the file naming the nodes whose membership links to it are cut.
    pub cut_files: Vec<std::path::PathBuf>,
}

impl Drop for ClusterUnderTest {
    /// The nodes stop (their `Started` kill them), then their files go.
    fn drop(&mut self) {
        for node in &mut self.nodes {
            let _ = node.process.child.kill();
            let _ = node.process.child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl ClusterUnderTest {
    /// Cuts the membership links of each data node to the nodes named for it (0: the
    /// management node); the nodes read their files within 100 ms.
    pub fn cut(&self, cuts: [&str; 2]) {
        for (file, cut) in self.cut_files.iter().zip(cuts) {
            std::fs::write(file, cut).unwrap();
        }
    }
}

pub fn start_cluster(round: usize) -> ClusterUnderTest {
    start_group(round, 2, &[])
}

/// A node group of `replicas` data nodes and a management node (directory `round`); data node
/// K also gets `extra[K - 1]`, when given.
pub fn start_group(round: usize, replicas: usize, extra: &[&[&str]]) -> ClusterUnderTest {
    let dir = fresh_dir(&format!("replica-failover-{round}"));
    std::fs::create_dir_all(&dir).unwrap();
    let mgm = format!("127.0.0.1:{}", free_port());
    let mut config =
        format!("[cluster]\nreplicas = {replicas}\nworkers = 2\n\n[mgmd]\naddress = \"{mgm}\"\n");
    let apis: Vec<String> = (0..replicas)
        .map(|_| format!("127.0.0.1:{}", free_port()))
        .collect();
    for api in &apis {
        config.push_str(&format!(
            "\n[[datanode]]\naddress = \"127.0.0.1:{}\"\napi = \"{api}\"\n",
            free_port()
        ));
    }
    let file = dir.join("cluster.toml");
    std::fs::write(&file, &config).unwrap();
    let mgmd = spawn(&["mgmd", "--config", file.to_str().unwrap()]);
    let cut_files: Vec<std::path::PathBuf> = (1..=replicas)
        .map(|id| dir.join(format!("cut{id}")))
        .collect();
    let nodes = (1..=replicas)
        .map(|id| Node {
            process: spawn_node(&dir, &mgm, id, extra.get(id - 1).copied().unwrap_or(&[])),
            api: apis[id - 1].clone(),
        })
        .collect();
    ClusterUnderTest {
        dir,
        mgm,
        _mgmd: mgmd,
        nodes,
        addresses: apis.join(","),
        cut_files,
    }
}

/// A table with a LONGBLOB, and the value kept in parts that round `seed` writes to it.
pub fn long_value(seed: u64) -> (TableDef, Vec<u8>) {
    let def = super::long_values_table();
    let mut x = seed | 1;
    let bytes = (0..3 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        })
        .collect();
    (def, bytes)
}

pub fn table() -> TableDef {
    TableDef::new(
        "failover",
        vec![
            ColumnDef::new("id", ColumnType::BigInt { unsigned: false }),
            ColumnDef::new("txn", ColumnType::BigInt { unsigned: false }),
        ],
        &["id"],
    )
    .unwrap()
}

/// What the writers saw, per transaction number (writer * 1_000_000 + sequence).
#[derive(Default)]
pub struct Seen {
    pub acknowledged: BTreeSet<i64>,
    /// Refused with a definite error: nothing of it may be committed.
    pub refused: BTreeSet<i64>,
    /// The connection was lost during its commit: either outcome is allowed, but whole.
    pub unknown: BTreeSet<i64>,
    pub errors: BTreeMap<String, usize>,
    /// Completion times of acknowledged commits begun after the kill.
    pub after_kill: Vec<Instant>,
    /// Commits whose connection was lost, which the cluster then said took effect, or not.
    pub resolved_committed: usize,
    pub resolved_rolled_back: usize,
}

impl Seen {
    /// The counts a round prints.
    pub fn summary(&self) -> String {
        format!(
            "{} acknowledged, {} refused, {} unknown; connection lost in {} commits, then found committed {} and rolled back {}; errors {:?}",
            self.acknowledged.len(),
            self.refused.len(),
            self.unknown.len(),
            self.resolved_committed + self.resolved_rolled_back,
            self.resolved_committed,
            self.resolved_rolled_back,
            self.errors
        )
    }
}

/// How the commit `name` ended, asked of the node that serves after a failover (None: no
/// answer within 5 s).
pub fn outcome(addresses: &str, name: (u64, u64)) -> Option<bool> {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if let Ok(c) = Cluster::connect_timeout(addresses, Duration::from_millis(500)) {
            match c.commit_outcome(name) {
                Ok(committed) => return Some(committed),
                Err(e) if e.is_temporary() => {}
                Err(client::ClientError::ConnectionLost(_)) => {}
                Err(e) => panic!("asking a commit's outcome: {e}"),
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

pub fn writer(
    w: usize,
    addresses: String,
    stop: Arc<AtomicBool>,
    killed: Arc<Mutex<Option<Instant>>>,
    seen: Arc<Mutex<Seen>>,
) {
    let mut cluster: Option<Cluster> = None;
    let mut seq = 0i64;
    while !stop.load(Ordering::Relaxed) {
        let c = match &cluster {
            Some(c) => c.clone(),
            None => match Cluster::connect_timeout(&addresses, Duration::from_millis(500)) {
                Ok(c) => {
                    cluster = Some(c.clone());
                    c
                }
                Err(e) => {
                    *seen.lock().unwrap().errors.entry(kind(&e)).or_default() += 1;
                    continue;
                }
            },
        };
        let t = match c.table("failover") {
            Ok(t) => t,
            Err(e) => {
                *seen.lock().unwrap().errors.entry(kind(&e)).or_default() += 1;
                cluster = None;
                continue;
            }
        };
        seq += 1;
        let number = w as i64 * 1_000_000 + seq;
        let began = Instant::now();
        let mut txn = c.transaction();
        for r in 0..ROWS_PER_TXN {
            txn.insert(
                &t,
                vec![(0, Value::Int(number * 16 + r)), (1, Value::Int(number))],
            );
        }
        let name = txn.commit_name();
        let result = txn.commit();
        // A lost connection: the cluster says how the commit ended, once it serves again.
        let resolved = match &result {
            Err(client::ClientError::ConnectionLost(_)) => {
                cluster = None;
                outcome(&addresses, name)
            }
            _ => None,
        };
        let mut seen = seen.lock().unwrap();
        if let Some(committed) = resolved {
            if committed {
                seen.acknowledged.insert(number);
                seen.resolved_committed += 1;
            } else {
                seen.refused.insert(number);
                seen.resolved_rolled_back += 1;
            }
            continue;
        }
        match result {
            Ok(()) => {
                seen.acknowledged.insert(number);
                if killed.lock().unwrap().is_some_and(|k| began > k) {
                    seen.after_kill.push(Instant::now());
                }
            }
            Err(e) => {
                *seen.errors.entry(kind(&e)).or_default() += 1;
                if matches!(e, client::ClientError::ConnectionLost(_)) {
                    seen.unknown.insert(number);
                    cluster = None;
                } else {
                    assert!(
                        e.is_temporary(),
                        "writer {w}: a commit failed with a permanent error: {e}"
                    );
                    seen.refused.insert(number);
                    drop(seen);
                    // No node serves for a moment (a view is being agreed): a pause, as a
                    // transaction runner's backoff.
                    std::thread::sleep(Duration::from_millis(2));
                }
            }
        }
    }
}

/// Writers running over a fresh cluster (`loaded`): their stop flag, the moment of the fault
/// (set by the test; commits begun after it are timed), what they saw, and their threads.
pub struct Load {
    pub stop: Arc<AtomicBool>,
    pub since: Arc<Mutex<Option<Instant>>>,
    pub seen: Arc<Mutex<Seen>>,
    pub writers: Vec<std::thread::JoinHandle<()>>,
}

/// A fresh cluster (`start_cluster(round)`) with the writers' table, and `count` writers that
/// have run for half a second.
pub fn loaded(round: usize, count: usize) -> (ClusterUnderTest, Load) {
    load(start_cluster(round), count)
}

/// `count` writers over `cluster`, with their table, run for half a second.
pub fn load(cluster: ClusterUnderTest, count: usize) -> (ClusterUnderTest, Load) {
    let admin = Cluster::connect_timeout(&cluster.addresses, Duration::from_secs(10))
        .expect("a data node serves");
    admin.create_table(table()).expect("table created");
    drop(admin);
    let stop = Arc::new(AtomicBool::new(false));
    let since: Arc<Mutex<Option<Instant>>> = Arc::new(Mutex::new(None));
    let seen = Arc::new(Mutex::new(Seen::default()));
    let writers = spawn_writers(count, &cluster.addresses, &stop, &since, &seen);
    std::thread::sleep(Duration::from_millis(500));
    (
        cluster,
        Load {
            stop,
            since,
            seen,
            writers,
        },
    )
}

/// Stops the writers and waits for them.
pub fn stop_writers(stop: &AtomicBool, writers: Vec<std::thread::JoinHandle<()>>) {
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.join().unwrap();
    }
}

/// `count` native writers (`writer`) over the cluster at `addresses`, until `stop`.
pub fn spawn_writers(
    count: usize,
    addresses: &str,
    stop: &Arc<AtomicBool>,
    since: &Arc<Mutex<Option<Instant>>>,
    seen: &Arc<Mutex<Seen>>,
) -> Vec<std::thread::JoinHandle<()>> {
    (0..count)
        .map(|w| {
            let (addresses, stop, since, seen) = (
                addresses.to_string(),
                stop.clone(),
                since.clone(),
                seen.clone(),
            );
            std::thread::spawn(move || writer(w, addresses, stop, since, seen))
        })
        .collect()
}

pub fn kind(e: &client::ClientError) -> String {
    format!("{:?}", e.code())
}

/// Every acknowledged commit is whole on the node at `api`, no transaction is there in part, and
/// nothing refused or never committed is there.
pub fn check_survivor(what: &str, api: &str, seen: &Seen) {
    let c = Cluster::connect_timeout(api, Duration::from_secs(5)).unwrap();
    let t = c.table("failover").unwrap();
    let rows = c.transaction().scan(&t, &Scan::table()).unwrap();
    let mut present: BTreeMap<i64, i64> = BTreeMap::new();
    for row in rows {
        let Value::Int(txn) = row[1] else {
            panic!("bad row {row:?}")
        };
        *present.entry(txn).or_default() += 1;
    }
    for number in &seen.acknowledged {
        assert_eq!(
            present.get(number),
            Some(&ROWS_PER_TXN),
            "{what}: acknowledged transaction {number} is not whole on the survivor"
        );
    }
    for (number, count) in &present {
        assert_eq!(
            *count, ROWS_PER_TXN,
            "{what}: transaction {number} is partly there ({count} rows)"
        );
        assert!(
            !seen.refused.contains(number),
            "{what}: transaction {number} was refused but is committed"
        );
        assert!(
            seen.acknowledged.contains(number) || seen.unknown.contains(number),
            "{what}: transaction {number} is there but nobody committed it"
        );
    }
}
