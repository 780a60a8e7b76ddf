//! Scans of a 5,000,000-row table on a real `cairn start` (data node and front ends in one
//! process) hold a bounded amount of memory: a native full scan, a native ordered-index scan,
//! `SELECT *` through the mysql client (`--quick`) whose output this test reads slowly, and the
//! same ordered by the indexed column (which the scan reads in order) each grow the process's
//! resident memory by less than `GROWTH_BOUND_BYTES`, their first rows come
//! long before their last, and a client that stops reading mid-scan holds no more than its
//! window while the node serves others.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use client::{Cluster, ExecType, Scan, ScanOrder, Value};

mod common;
use common::{mysql, resident_bytes};

const ROWS: i64 = 5_000_000;

/// What one scan may add to the process's resident memory: its batches on their way and in
/// hand (a few hundred KiB each), buffers, and the allocator's slack.
const GROWTH_BOUND_BYTES: u64 = 48 << 20;

/// Samples the process's resident memory every 20 ms while `work` runs; returns the work's
/// result and the most the memory grew above where it was at the start.
fn peak_growth<R>(pid: u32, work: impl FnOnce() -> R) -> (R, u64) {
    let start = resident_bytes(pid);
    let peak = Arc::new(AtomicU64::new(start));
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (peak, done) = (peak.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                peak.fetch_max(resident_bytes(pid), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let result = work();
    done.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    peak.fetch_max(resident_bytes(pid), Ordering::Relaxed);
    (result, peak.load(Ordering::Relaxed).saturating_sub(start))
}

/// `query` through `mysql --quick` (each row written out as it comes), its output piped to the
/// test.
fn select_all(sql: &str, query: &str) -> std::process::Child {
    let (host, port) = sql.rsplit_once(':').unwrap();
    Command::new("mysql")
        .args([
            "-h", host, "-P", port, "-u", "root", "--quick", "--batch", "-N", "-e", query,
        ])
        .stdout(Stdio::piped())
        .spawn()
        .expect("the mysql client runs (apt-get install mariadb-client)")
}

/// Reports one scan and checks it: every row, the first long before the last (`times`: to the
/// first and to the end), and the memory it added within the bound.
fn judge(what: &str, rows: u64, times: (Duration, Duration), growth: u64) {
    let (first, total) = times;
    eprintln!(
        "{what}: {rows} rows in {:.2} s, first after {:.1} ms, resident grew {:.1} MiB",
        total.as_secs_f64(),
        first.as_secs_f64() * 1e3,
        growth as f64 / (1 << 20) as f64
    );
    assert_eq!(rows, ROWS as u64, "{what}");
    assert!(
        first * 20 < total,
        "{what}: first after {first:?} of {total:?}"
    );
    assert!(growth < GROWTH_BOUND_BYTES, "{what}: grew {growth} bytes");
}

fn load(address: &str) {
    let per_thread = ROWS / 2;
    let threads: Vec<_> = (0..2)
        .map(|t| {
            let address = address.to_string();
            std::thread::spawn(move || {
                let cluster = Cluster::connect(&address).unwrap();
                let table = cluster.table("d/big").unwrap();
                let from = t * per_thread;
                for chunk in (from..from + per_thread).step_by(2_000) {
                    let mut txn = cluster.transaction();
                    for id in chunk..chunk + 2_000 {
                        txn.insert(
                            &table,
                            vec![
                                (0, id.into()),
                                (1, Value::Int(id * 7919 % 100_003)),
                                (2, Value::from("0123456789")),
                            ],
                        );
                    }
                    txn.execute(ExecType::Commit).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn scans_of_five_million_rows_hold_bounded_memory() {
    let dir = common::fresh_dir("cairn-big-scans");
    let port = common::free_port();
    let node = common::start_with(
        &dir,
        port,
        &["--durability", "none", "--api-transport", "tcp"],
    );
    let pid = node.child.id();
    let address = format!("127.0.0.1:{port}");
    let sql = node.listening("sql (mysql protocol): ").trim().to_string();
    mysql(
        &sql,
        "CREATE DATABASE d; CREATE TABLE d.big (id BIGINT PRIMARY KEY, k INT NOT NULL, v VARCHAR(16) NOT NULL, KEY (k))",
    );
    let started = Instant::now();
    load(&address);
    eprintln!(
        "loaded {ROWS} rows in {:.1} s; resident {} MiB",
        started.elapsed().as_secs_f64(),
        resident_bytes(pid) >> 20
    );
    let cluster = Cluster::connect(&address).unwrap();
    let table = cluster.table("d/big").unwrap();

    // A native full scan, then an ordered-index scan: every row, the first batch early.
    for (what, scan) in [
        ("full scan", Scan::table().columns(&["id", "k"])),
        (
            "ordered index scan",
            Scan::index("k").order(ScanOrder::Ascending).columns(&["k"]),
        ),
    ] {
        let ((rows, first, total), growth) = peak_growth(pid, || {
            let began = Instant::now();
            let mut cursor = cluster.scan_cursor(&table, &scan).unwrap();
            let mut rows = 0u64;
            let mut first = None;
            let mut last_k = i64::MIN;
            while let Some(batch) = cursor.next_batch().unwrap() {
                first.get_or_insert_with(|| began.elapsed());
                if what == "ordered index scan" {
                    for r in &batch {
                        let Value::Int(k) = r[0] else {
                            panic!("k {r:?}")
                        };
                        assert!(k >= last_k, "{what}: {k} after {last_k}");
                        last_k = k;
                    }
                }
                rows += batch.len() as u64;
            }
            (rows, first.unwrap_or_default(), began.elapsed())
        });
        judge(what, rows, (first, total), growth);
    }

    // SELECT * through `mysql --quick`, its output read slowly (64 KiB, then a pause); then the
    // same ordered by the index on k (and the primary key, which ends its keys), which the scan
    // reads in that order, checked line by line.
    for query in [
        "SELECT * FROM d.big",
        "SELECT k, id FROM d.big ORDER BY k, id",
    ] {
        let ((lines, first, total), growth) = peak_growth(pid, || {
            let began = Instant::now();
            let mut child = select_all(&sql, query);
            let mut out = child.stdout.take().unwrap();
            let mut buf = vec![0u8; 64 << 10];
            let (mut lines, mut first) = (0u64, None);
            let ordered = query.contains("ORDER BY");
            let (mut partial, mut last) = (Vec::new(), (i64::MIN, i64::MIN));
            loop {
                let n = out.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                first.get_or_insert_with(|| began.elapsed());
                lines += buf[..n].iter().filter(|b| **b == b'\n').count() as u64;
                if ordered {
                    partial.extend_from_slice(&buf[..n]);
                    let end = partial
                        .iter()
                        .rposition(|b| *b == b'\n')
                        .map_or(0, |e| e + 1);
                    for line in std::str::from_utf8(&partial[..end]).unwrap().lines() {
                        let (k, id) = line.split_once('\t').unwrap();
                        let row: (i64, i64) = (k.parse().unwrap(), id.parse().unwrap());
                        assert!(row > last, "{query}: {row:?} after {last:?}");
                        last = row;
                    }
                    partial.drain(..end);
                }
                std::thread::sleep(Duration::from_micros(500));
            }
            assert!(child.wait().unwrap().success());
            (lines, first.unwrap_or_default(), began.elapsed())
        });
        judge(
            &format!("{query}, read slowly"),
            lines,
            (first, total),
            growth,
        );
    }

    // Clients that stop reading mid-scan: a native cursor after one batch, and a mysql client
    // whose output nobody reads. Both hold only their window while others are served.
    let (_, growth) = peak_growth(pid, || {
        let mut held = cluster.scan_cursor(&table, &Scan::table()).unwrap();
        assert!(held.next_batch().unwrap().is_some());
        let mut stalled = select_all(&sql, "SELECT * FROM d.big");
        let mut first = [0u8; 1];
        stalled
            .stdout
            .as_mut()
            .unwrap()
            .read_exact(&mut first)
            .unwrap();
        // Meanwhile the node answers others, and nothing piles up for the stalled two.
        let other = Cluster::connect(&address).unwrap();
        for _ in 0..20 {
            let rows = other.scan(&table, &Scan::table().limit(10)).unwrap();
            assert_eq!(rows.len(), 10);
            std::thread::sleep(Duration::from_millis(50));
        }
        assert_eq!(
            mysql(&sql, "SELECT k FROM d.big WHERE id = 42"),
            format!("k\n{}\n", 42 * 7919 % 100_003)
        );
        let _ = stalled.kill();
        let _ = stalled.wait();
        drop(held);
    });
    eprintln!(
        "two stalled scans: resident grew {:.1} MiB",
        growth as f64 / (1 << 20) as f64
    );
    assert!(
        growth < GROWTH_BOUND_BYTES,
        "stalled scans: grew {growth} bytes"
    );
    node.terminate();
    let _ = std::fs::remove_dir_all(&dir);
}
