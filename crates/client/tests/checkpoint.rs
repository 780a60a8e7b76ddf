//! Local checkpoints: a data node checkpointed (full, then partial) while a client keeps
//! committing random transactions, then restarted (also with another worker count), holds
//! exactly the committed rows with working indexes; the redo segments a checkpoint covers are
//! reused rather than piling up; a damaged or missing checkpoint file stops the restart with an
//! error naming the file (and the offset).

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base::schema::{ColumnDef, IndexKind};
use base::types::ColumnType;
use client::{Cluster, ExecType, LockMode, Scan, ScanOrder, TableDef, Value};
use common::Rng;
use datanode::{DataNode, DataNodeConfig, Durability};

type Model = BTreeMap<u64, (i64, String)>;

fn start(dir: &Path, workers: usize) -> std::io::Result<DataNode> {
    DataNode::start(DataNodeConfig {
        listen: "127.0.0.1:0".into(),
        workers,
        lock_wait_timeout: Duration::from_millis(500),
        data_dir: Some(dir.to_path_buf()),
        durability: Durability::Commit,
        redo_segment_bytes: 64 * 1024,
        checkpoint_redo_bytes: 0,
        ..DataNodeConfig::default()
    })
}

fn table() -> TableDef {
    TableDef::new(
        "kv",
        vec![
            ColumnDef::new("id", ColumnType::BigInt { unsigned: true }),
            ColumnDef::new("val", ColumnType::BigInt { unsigned: false }),
            ColumnDef::new("tag", ColumnType::VarChar { length: 40 }),
            ColumnDef::new("pad", ColumnType::VarChar { length: 200 }),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("tag", IndexKind::Unique, &["tag"])
    .unwrap()
    .with_index("val", IndexKind::Ordered, &["val"])
    .unwrap()
}

fn rows(cluster: &Cluster) -> Model {
    let t = cluster.table("kv").unwrap();
    cluster
        .scan(&t, &Scan::table().columns(&["id", "val", "tag"]))
        .unwrap()
        .into_iter()
        .map(|r| match (&r[0], &r[1], &r[2]) {
            (Value::UInt(id), Value::Int(v), Value::Bytes(tag)) => {
                (*id, (*v, String::from_utf8(tag.clone()).unwrap()))
            }
            other => panic!("unexpected row {other:?}"),
        })
        .collect()
}

/// Commits random transactions of 1-4 inserts, updates and deletes until `stop`, keeping the
/// model of what was committed.
fn write_load(
    address: String,
    seed: u64,
    model: Arc<Mutex<Model>>,
    stop: Arc<AtomicBool>,
    done: Arc<AtomicU64>,
) {
    let cluster = Cluster::connect(&address).unwrap();
    let t = cluster.table("kv").unwrap();
    let mut rng = Rng(seed);
    let mut version = 0u64;
    while !stop.load(Ordering::SeqCst) {
        let mut next: Model = model.lock().unwrap().clone();
        let mut txn = cluster.transaction();
        for _ in 0..1 + rng.below(4) {
            version += 1;
            let id = rng.below(400);
            let val = rng.below(1_000_000) as i64 - 500_000;
            let tag = format!("t{id}-{version}");
            let pad = "p".repeat(rng.below(150) as usize);
            let values = t
                .values(&[
                    ("id", Value::UInt(id)),
                    ("val", Value::Int(val)),
                    ("tag", tag.clone().into()),
                    ("pad", pad.into()),
                ])
                .unwrap();
            let exists = next.contains_key(&id);
            if exists && rng.below(3) == 0 {
                txn.delete(&t, vec![Value::UInt(id)]);
                next.remove(&id);
                continue;
            }
            if exists {
                txn.update(&t, vec![Value::UInt(id)], values);
            } else {
                txn.insert(&t, values);
            }
            next.insert(id, (val, tag));
        }
        txn.commit().expect("commit");
        *model.lock().unwrap() = next;
        done.fetch_add(1, Ordering::SeqCst);
    }
}

fn wait_for(done: &AtomicU64, at_least: u64) {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while done.load(Ordering::SeqCst) < at_least {
        assert!(std::time::Instant::now() < deadline, "the writer stalled");
        std::thread::yield_now();
    }
}

fn check(dir: &Path, workers: usize, model: &Model) {
    let node = start(dir, workers).expect("restart");
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    let found = rows(&cluster);
    let wrong: Vec<_> = model
        .iter()
        .filter(|(id, row)| found.get(id) != Some(row))
        .map(|(id, row)| (id, Some(row), found.get(id)))
        .chain(
            found
                .iter()
                .filter(|(id, _)| !model.contains_key(id))
                .map(|(id, row)| (id, None, Some(row))),
        )
        .take(10)
        .collect();
    assert!(
        wrong.is_empty(),
        "after a restart with {workers} workers, (id, committed, found): {wrong:?}"
    );
    let t = cluster.table("kv").unwrap();
    let tag = t.unique_index("tag").unwrap();
    let mut txn = cluster.transaction();
    let probes: Vec<_> = model
        .iter()
        .take(50)
        .map(|(id, (_, tag_value))| {
            (
                *id,
                txn.read_unique(
                    &t,
                    tag,
                    vec![tag_value.clone().into()],
                    LockMode::CommittedRead,
                    vec![],
                ),
            )
        })
        .collect();
    txn.execute(ExecType::Commit).unwrap();
    for (id, op) in probes {
        assert_eq!(
            txn.row(op).unwrap()[0],
            Value::UInt(id),
            "unique index after restart"
        );
    }
    let by_val: Vec<u64> = cluster
        .scan(
            &t,
            &Scan::index("val")
                .order(ScanOrder::Ascending)
                .columns(&["id"]),
        )
        .unwrap()
        .into_iter()
        .map(|r| match r[0] {
            Value::UInt(id) => id,
            ref v => panic!("{v:?}"),
        })
        .collect();
    let mut expected: Vec<(i64, u64)> = model.iter().map(|(id, (v, _))| (*v, *id)).collect();
    expected.sort();
    assert_eq!(
        by_val,
        expected.into_iter().map(|(_, id)| id).collect::<Vec<_>>(),
        "ordered index"
    );
    drop(cluster);
    node.stop();
}

fn files(dir: &Path, prefix: &str) -> Vec<std::path::PathBuf> {
    let mut found: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
        .collect();
    found.sort();
    found
}

#[test]
fn checkpoints_under_load_restart_to_exactly_the_committed_rows() {
    let dir = std::env::temp_dir().join(format!("cairn-checkpoint-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let seed = Rng::from_env_or_time("checkpoints_under_load").next();
    let node = start(&dir, 2).unwrap();
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    cluster.create_table(table()).unwrap();
    let model = Arc::new(Mutex::new(Model::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let writer = {
        let (address, model, stop, done) = (
            node.address().to_string(),
            model.clone(),
            stop.clone(),
            done.clone(),
        );
        std::thread::spawn(move || write_load(address, seed, model, stop, done))
    };
    // A full checkpoint, then partial ones, each while the writer commits.
    let mut reports = Vec::new();
    for round in 1..=5 {
        wait_for(&done, round * 300);
        // Asked in-process, or over the protocol (`cairn admin checkpoint`).
        if round % 2 == 0 {
            let c = cluster.checkpoint().expect("checkpoint over the protocol");
            reports.push(datanode::checkpoint::Report {
                id: c.id,
                full: c.full,
                entries: c.entries,
                bytes: c.bytes,
                seconds: c.micros as f64 / 1e6,
            });
        } else {
            reports.push(node.checkpoint().expect("checkpoint"));
        }
    }
    wait_for(&done, 1800);
    stop.store(true, Ordering::SeqCst);
    writer.join().unwrap();
    assert!(
        reports[0].full,
        "the first checkpoint after a start is full"
    );
    assert!(
        reports[1..].iter().all(|r| !r.full),
        "later ones are partial: {reports:?}"
    );
    // Redo covered by a checkpoint is reused: far fewer segments than were written.
    let segments = files(&dir, "redo-").len();
    assert!(segments <= 2 * 8, "{segments} redo segment files remain");
    drop(cluster);
    node.stop();
    let model = model.lock().unwrap().clone();
    assert!(model.len() > 100, "{} rows", model.len());
    check(&dir, 2, &model);
    // Another worker count: the chain's partitions land on other workers; the next checkpoint
    // is full again.
    check(&dir, 3, &model);
    let node = start(&dir, 3).unwrap();
    assert!(node.checkpoint().unwrap().full);
    node.stop();
    check(&dir, 2, &model);

    // A damaged checkpoint file stops the restart with its name and the offset.
    let checkpoint = files(&dir, "lcp-").pop().expect("a checkpoint file");
    let mut bytes = std::fs::read(&checkpoint).unwrap();
    let good = bytes.clone();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x40;
    std::fs::write(&checkpoint, &bytes).unwrap();
    let err = start(&dir, 2)
        .err()
        .expect("a damaged checkpoint is refused")
        .to_string();
    let name = checkpoint
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string();
    assert!(err.contains(&name) && err.contains("at byte"), "{err}");
    // A missing one too.
    std::fs::remove_file(&checkpoint).unwrap();
    let err = start(&dir, 2)
        .err()
        .expect("a missing checkpoint is refused")
        .to_string();
    assert!(err.contains(&name), "{err}");
    std::fs::write(&checkpoint, &good).unwrap();
    check(&dir, 2, &model);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_node_without_a_redo_log_refuses_a_checkpoint_cleanly() {
    let node = common::TestNode::start(1, Duration::from_millis(500));
    let cluster = node.connect();
    let err = cluster.checkpoint().unwrap_err().to_string();
    assert!(err.contains("no redo log"), "{err}");
    // The connection stays usable.
    cluster.ping(Vec::new()).unwrap();
}
