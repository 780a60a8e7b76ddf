//! The angel of `cairn datanode --mgm` over real processes: in a node group of two, data node 2
//! runs under its angel. Asked to restart empty (`cairn admin restart --initial`), it is started
//! again with `--initial` and copies every row. Each time its node process is killed with
//! SIGKILL, the angel starts it again from its own files, which the primary's copy brings level
//! (read back from it alone, a READ_BACKUP table), and it becomes a member again. The fourth failure within a minute is not mended: the angel
//! ends with exit code 70. A first start that fails before it is ready is not retried.

mod common;

use std::time::{Duration, Instant};

use base::schema::ColumnDef;
use base::types::ColumnType;
use client::{Cluster, Scan, TableDef, Value};
use common::{spawn, spawn_cluster};

/// The pid of the angel's data node process (its only child), once it has one.
fn node_pid(angel: u32) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let children =
            std::fs::read_to_string(format!("/proc/{angel}/task/{angel}/children")).unwrap();
        if let Some(pid) = children.split_whitespace().next() {
            return pid.parse().unwrap();
        }
        assert!(Instant::now() < deadline, "the angel has no child");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `cairn datanode` arguments for data node 2 of the cluster at `mgm`, started empty (a node
/// restart), with its data in `data`, and `extra`.
fn node_two(mgm: &str, data: &std::path::Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "datanode",
        "--mgm",
        mgm,
        "--node-id",
        "2",
        "--data-dir",
        data.to_str().unwrap(),
        "--initial",
        "--yes",
    ]
    .map(String::from)
    .to_vec();
    args.extend(extra.iter().map(|a| a.to_string()));
    args
}

/// Polls until `ready` holds, for at most `seconds`.
fn wait(what: &str, seconds: u64, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    while !ready() {
        assert!(Instant::now() < deadline, "{what}: not within {seconds} s");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_angel_restarts_a_failed_data_node_three_times_a_minute() {
    let mut cluster = spawn_cluster("angel", 2, 2);
    let primary = Cluster::connect_serving(&cluster.apis[0], Duration::from_secs(20)).unwrap();
    let mut def = TableDef::new(
        "t",
        vec![
            ColumnDef::new("id", ColumnType::BigInt { unsigned: false }),
            ColumnDef::new("v", ColumnType::BigInt { unsigned: false }),
        ],
        &["id"],
    )
    .unwrap();
    def.options.read_backup = true;
    let table = primary.create_table(def).unwrap();
    let mut written = 0i64;
    let mut write = |n: i64| {
        let mut txn = primary.transaction();
        for id in written..written + n {
            txn.insert(&table, vec![(0, Value::Int(id)), (1, Value::Int(id * 3))]);
        }
        txn.commit().unwrap();
        written += n;
        written
    };
    write(200);

    // Data node 2 again, now under its angel.
    let mut plain = cluster.nodes[1].take().unwrap();
    plain.child.kill().unwrap();
    plain.child.wait().unwrap();
    let data = cluster.dir.join("node2");
    let args = node_two(&cluster.mgm, &data, &["--redo-segment-kib", "1024"]);
    let mut angel = spawn(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let backup_has = |rows: i64| {
        let Ok(backup) = Cluster::connect_timeout(&cluster.apis[1], Duration::from_secs(1)) else {
            return false;
        };
        let Ok(t) = backup.table("t") else {
            return false;
        };
        backup
            .scan(&t, &Scan::table())
            .is_ok_and(|r| r.len() as i64 == rows)
    };
    wait("data node 2 a member under its angel", 30, || {
        cluster.is_member(2)
    });
    let rows = write(100);
    wait("data node 2 serving the rows", 30, || backup_has(rows));

    // Asked to restart empty (`cairn admin restart --initial`, exit 79): the angel starts it
    // again with --initial, not counted as a failure; it waits until a member again.
    let asked = std::process::Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(["admin", "restart", "2", "--initial", "--mgm", &cluster.mgm])
        .output()
        .unwrap();
    assert!(
        asked.status.success(),
        "{}",
        String::from_utf8_lossy(&asked.stderr)
    );
    angel.wait_for(
        "starting it again empty (--initial)",
        Duration::from_secs(30),
    );
    angel.wait_for("removed", Duration::from_secs(30));
    let rows = write(50);
    wait(
        "data node 2 holding every row after its initial restart",
        30,
        || backup_has(rows),
    );

    for kill in 1..=4 {
        let pid = node_pid(angel.child.id());
        // SAFETY: kill(2) on a pid read from the angel's children.
        assert_eq!(unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) }, 0);
        if kill == 4 {
            break;
        }
        angel.wait_for("starting it again", Duration::from_secs(30));
        // A new node process, a member again, with every row (those written meanwhile too).
        wait("a new node process", 30, || {
            std::fs::read_to_string(format!("/proc/{0}/task/{0}/children", angel.child.id()))
                .is_ok_and(|c| c.split_whitespace().any(|p| p != pid.to_string()))
        });
        let rows = write(50);
        wait("data node 2 a member again", 60, || cluster.is_member(2));
        wait("data node 2 holding every row again", 30, || {
            backup_has(rows)
        });
        println!("kill {kill}: restarted, {rows} rows copied back");
    }
    // The fourth failure within the minute: the angel gives up, and says so.
    let status = angel.child.wait().unwrap();
    let output = angel.lines_until_exit(Duration::from_secs(5)).join("\n");
    assert_eq!(status.code(), Some(70), "{output}");
    assert!(output.contains("not started again"), "{output}");
    // The cluster goes on without it, once the view without node 2 is open (until then the
    // primary refuses with a temporary error).
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let mut txn = primary.transaction();
        txn.insert(&table, vec![(0, Value::Int(written)), (1, Value::Int(0))]);
        match txn.commit() {
            Ok(()) => break,
            Err(e) if e.is_temporary() && std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => panic!("the cluster does not go on without data node 2: {e}"),
        }
    }
}

#[test]
fn a_data_node_that_fails_before_it_is_ready_is_not_restarted() {
    let cluster = spawn_cluster("angel-not-ready", 2, 2);
    let data = cluster.dir.join("node9");
    // Node 9 is in no configuration: the node refuses to start, and the angel ends with it.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args([
            "datanode",
            "--mgm",
            &cluster.mgm,
            "--node-id",
            "9",
            "--data-dir",
            data.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success());
    assert!(
        stdout.contains("before it was ready; not started again"),
        "{stdout}"
    );
    assert_eq!(stdout.matches("angel:").count(), 1, "{stdout}");
}

/// A node restart deletes the node's files only when another node of its group serves, to
/// copy from: with the whole group down they may be its only copy, so `--initial` is refused
/// and they are kept (an angel restarting both nodes of a group would otherwise wipe both).
/// The node exits with code 78, which its angel does not start again.
#[test]
fn a_node_restart_with_no_live_copy_source_keeps_its_files() {
    let mut cluster = spawn_cluster("angel-no-source", 2, 2);
    let primary = Cluster::connect_serving(&cluster.apis[0], Duration::from_secs(20)).unwrap();
    let table = primary
        .create_table(
            TableDef::new(
                "kept",
                vec![ColumnDef::new("id", ColumnType::BigInt { unsigned: false })],
                &["id"],
            )
            .unwrap(),
        )
        .unwrap();
    let mut txn = primary.transaction();
    txn.insert(&table, vec![(0, Value::Int(1))]);
    txn.commit().unwrap();
    for node in cluster.nodes.iter_mut() {
        let mut node = node.take().unwrap();
        node.child.kill().unwrap();
        node.child.wait().unwrap();
    }
    let data = cluster.dir.join("node2");
    let catalog = data.join("catalog");
    assert!(catalog.exists());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(node_two(
            &cluster.mgm,
            &data,
            &["--no-angel", "--copy-source-wait-s", "2"],
        ))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // 78: the restart cannot go on, and nothing that runs the node starts it again.
    assert_eq!(out.status.code(), Some(78), "{stderr}");
    assert!(
        stderr.contains("no other node of the group serves"),
        "{stderr}"
    );
    assert!(catalog.exists(), "the node's files were deleted");
}
