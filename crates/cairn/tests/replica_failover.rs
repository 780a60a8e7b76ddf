//! A node group of two data nodes (`cairn datanode --mgm`) and a management node, each its own
//! process: native clients, given both nodes' addresses, commit transactions of several rows
//! over both partitions while one data node (the primary or the backup, chosen by the seed) is
//! killed with SIGKILL. Then every acknowledged commit is on the survivor whole, no transaction
//! is there in part, a transaction refused with a definite error is not there at all, and
//! commits succeed again within 3 s of the kill. A cut between the two data nodes' membership
//! links leaves only the management node's side serving. A commit whose connection was lost is asked
//! about (`Cluster::commit_outcome`): the answer must match what the survivor holds. An SQL
//! front end over the same two nodes commits after the kill too. A 3 MiB LONGBLOB value (kept in
//! parts, `base::lob`) committed before the kill reads back whole from the survivor. Each round is a fresh cluster; the seed is printed
//! (`CAIRN_FAILOVER_SEED` repeats one, `CAIRN_FAILOVER_ROUNDS` sets the rounds).

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base::schema::ColumnDef;
use base::types::ColumnType;
use client::{Cluster, Scan, TableDef, Value};
use common::failover::*;
use common::{check_sql, spawn, spawn_node, sql_writer, try_mysql, FREE_FRONT_END_PORTS};

fn round(round: usize, seed: u64) {
    let mut cluster = start_cluster(round);
    let admin = Cluster::connect_timeout(&cluster.addresses, Duration::from_secs(10))
        .expect("a data node serves");
    admin.create_table(table()).expect("table created");
    let (long_table, long_bytes) = long_value(seed);
    let long_table = admin.create_table(long_table).expect("table created");
    let mut txn = admin.transaction();
    txn.insert(
        &long_table,
        vec![(0, Value::Int(1)), (1, Value::Bytes(long_bytes.clone()))],
    );
    txn.commit().expect("a value in parts committed");
    drop(admin);
    // The SQL front end over both nodes.
    let mut args = vec!["api", "--datanode", &cluster.addresses];
    args.extend(FREE_FRONT_END_PORTS);
    let api = spawn(&args);
    let sql = api.listening("sql (mysql protocol): ");
    try_mysql(
        &sql,
        "CREATE DATABASE d; CREATE TABLE d.s (id INT PRIMARY KEY, v INT); \
         CREATE TABLE d.p (id INT PRIMARY KEY, n INT)",
    )
    .expect("sql works before the kill");

    let stop = Arc::new(AtomicBool::new(false));
    let killed: Arc<Mutex<Option<Instant>>> = Arc::new(Mutex::new(None));
    let seen = Arc::new(Mutex::new(Seen::default()));
    let writers = spawn_writers(WRITERS, &cluster.addresses, &stop, &killed, &seen);
    let sql_writer = {
        let (sql, stop) = (sql.clone(), stop.clone());
        std::thread::spawn(move || sql_writer(&sql, &stop))
    };
    std::thread::sleep(Duration::from_millis(500));
    let victim = (seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 63) as usize;
    let before = seen.lock().unwrap().acknowledged.len();
    cluster.nodes[victim].process.child.kill().unwrap();
    let kill_time = Instant::now();
    *killed.lock().unwrap() = Some(kill_time);
    let _ = cluster.nodes[victim].process.child.wait();
    // Commits must come back; the load runs on a little past the recovery limit.
    let deadline = kill_time + RECOVERY_MAX + Duration::from_millis(500);
    while Instant::now() < deadline {
        if seen.lock().unwrap().after_kill.len() >= 20 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let sql_after = Instant::now();
    let mut sql_ok = None;
    while sql_after.elapsed() < RECOVERY_MAX {
        if try_mysql(&sql, "INSERT INTO d.s VALUES (1, 1)").is_ok() {
            sql_ok = Some(kill_time.elapsed());
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.join().unwrap();
    }
    let sql_seen = sql_writer.join().unwrap();
    let seen = seen.lock().unwrap();
    let first = seen.after_kill.iter().min().map(|t| *t - kill_time);
    println!(
        "round {round}: killed node {} ({}) after {before} commits; first commit {first:?} after the kill; {}; sql insert ok {sql_ok:?} after the kill",
        victim + 1,
        if victim == 0 { "the primary" } else { "the backup" },
        seen.summary()
    );
    let first =
        first.unwrap_or_else(|| panic!("round {round}: no commit succeeded after the kill"));
    assert!(
        first <= RECOVERY_MAX,
        "round {round}: commits came back {first:?} after the kill"
    );
    assert!(
        sql_ok.is_some(),
        "round {round}: no SQL insert succeeded after the kill"
    );

    // What the survivor holds.
    check_survivor(
        &format!("round {round}"),
        &cluster.nodes[1 - victim].api,
        &seen,
    );
    let survivor =
        Cluster::connect_timeout(&cluster.nodes[1 - victim].api, Duration::from_secs(5)).unwrap();
    let t = survivor.table("long_values").unwrap();
    let rows = survivor.scan(&t, &Scan::table()).unwrap();
    assert!(
        rows.len() == 1 && rows[0][1] == Value::Bytes(long_bytes),
        "round {round}: the value kept in parts is not whole on the survivor"
    );
    drop(survivor);
    assert!(
        try_mysql(&sql, "SELECT v FROM d.s WHERE id = 1")
            .unwrap()
            .contains('1'),
        "round {round}: the SQL row is gone"
    );
    check_sql(&format!("round {round}"), &sql, &sql_seen);
    drop(api);
}

/// Cuts the membership links between the two data nodes, with the management node (the
/// arbitrator) on `side` (1: with node 1, the primary; 2: with node 2; 0: alone). The side
/// with the arbitrator goes on committing; the other stops (exit 70) and serves nothing; with
/// the arbitrator alone, both stop. Nothing acknowledged is lost on the survivor.
fn partition_round(side: usize) {
    let name = ["alone", "with node 1", "with node 2"][side];
    let (
        mut cluster,
        Load {
            stop,
            since: cut,
            seen,
            writers,
        },
    ) = loaded(10 + side, 4);
    cluster.cut(match side {
        1 => ["2", "1,0"],
        2 => ["2,0", "1"],
        _ => ["2,0", "1,0"],
    });
    let cut_at = Instant::now();
    *cut.lock().unwrap() = Some(cut_at);
    // The losers stop: no view without the other node is agreed (3 s), or one is, without them.
    let losers: Vec<usize> = match side {
        1 => vec![1],
        2 => vec![0],
        _ => vec![0, 1],
    };
    let deadline = cut_at + Duration::from_secs(10);
    for &l in &losers {
        let what = format!("arbitrator {name}: node {}", l + 1);
        common::wait_stopped(&mut cluster.nodes[l].process.child, &what, cut_at, deadline);
    }
    if losers.len() == 1 {
        // The winner commits again, past the time the loser took to stop.
        let settled = Instant::now();
        let deadline = settled + Duration::from_secs(5);
        while seen
            .lock()
            .unwrap()
            .after_kill
            .iter()
            .filter(|t| **t > settled)
            .count()
            < 20
        {
            assert!(
                Instant::now() < deadline,
                "arbitrator {name}: the winner does not commit"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.join().unwrap();
    }
    let seen = seen.lock().unwrap();
    let first = seen.after_kill.iter().min().map(|t| *t - cut_at);
    println!(
        "arbitrator {name}: {} acknowledged, first commit begun after the cut {first:?} after it; connection lost in {} commits, then found committed {} and rolled back {}; errors {:?}",
        seen.acknowledged.len(),
        seen.resolved_committed + seen.resolved_rolled_back,
        seen.resolved_committed,
        seen.resolved_rolled_back,
        seen.errors
    );
    if losers.len() == 1 {
        let winner = 1 - losers[0];
        check_survivor(
            &format!("arbitrator {name}"),
            &cluster.nodes[winner].api,
            &seen,
        );
    } else {
        assert!(
            seen.after_kill
                .iter()
                .all(|t| *t < cut_at + Duration::from_millis(600)),
            "arbitrator alone: a commit begun after the cut was acknowledged past the lease"
        );
    }
}

#[test]
fn a_cut_between_the_data_nodes_leaves_only_the_arbitrators_side_serving() {
    for side in [1, 2, 0] {
        partition_round(side);
    }
}

#[test]
fn a_killed_data_node_loses_no_acknowledged_commit_and_commits_resume() {
    let seed: u64 = common::seed_from_env("CAIRN_FAILOVER_SEED");
    let rounds: usize = std::env::var("CAIRN_FAILOVER_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    println!("seed {seed} (CAIRN_FAILOVER_SEED={seed} repeats it), {rounds} rounds");
    for r in 0..rounds {
        round(r, seed.wrapping_add(r as u64));
    }
}

/// A data node whose process stops (SIGSTOP: a stalled VM, a debugger) for longer than the
/// others wait for its beats: the survivor takes over and commits again within 3 s, the paused
/// node, once it runs again (SIGCONT), finds itself out of the view and stops (exit 70) rather
/// than serve, and every acknowledged commit is whole on the survivor; an SQL front end over
/// both nodes inserts and reads again within 3 s too. Once with the primary paused, once with
/// the backup.
#[test]
fn a_paused_data_node_is_taken_over_and_stops_when_it_runs_again() {
    for victim in [0, 1] {
        pause_round(victim);
    }
}

fn pause_round(victim: usize) {
    let (
        mut cluster,
        Load {
            stop,
            since: paused,
            seen,
            writers,
        },
    ) = loaded(40 + victim, WRITERS);
    let pid = cluster.nodes[victim].process.child.id().to_string();
    let signal = |name: &str| {
        let status = std::process::Command::new("kill")
            .args([name, &pid])
            .status()
            .unwrap();
        assert!(status.success(), "kill {name} {pid}");
    };
    // The SQL front end over both nodes, its sessions sharing its connection.
    let mut args = vec!["api", "--datanode", &cluster.addresses];
    args.extend(FREE_FRONT_END_PORTS);
    let api = spawn(&args);
    let sql = api.listening("sql (mysql protocol): ");
    try_mysql(
        &sql,
        "CREATE DATABASE d; CREATE TABLE d.s (id INT PRIMARY KEY, v INT)",
    )
    .expect("sql works before the pause");
    let before = seen.lock().unwrap().acknowledged.len();
    signal("-STOP");
    let pause_time = Instant::now();
    *paused.lock().unwrap() = Some(pause_time);
    // An SQL insert and read, tried until one succeeds (on a thread: a hang fails the test).
    let (sql_done, sql_ok) = std::sync::mpsc::channel();
    let sql_try = sql.clone();
    std::thread::spawn(move || loop {
        let script = "INSERT INTO d.s VALUES (1, 1); SELECT v FROM d.s WHERE id = 1";
        if try_mysql(&sql_try, script).is_ok_and(|out| out.contains('1')) {
            let _ = sql_done.send(pause_time.elapsed());
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    });
    let deadline = pause_time + RECOVERY_MAX + Duration::from_millis(500);
    while Instant::now() < deadline && seen.lock().unwrap().after_kill.len() < 20 {
        std::thread::sleep(Duration::from_millis(20));
    }
    let sql_after = sql_ok.recv_timeout(deadline.saturating_duration_since(Instant::now()));
    // Paused past the survivor's takeover, then running again.
    let resume_at = pause_time + Duration::from_secs(4);
    std::thread::sleep(resume_at.saturating_duration_since(Instant::now()));
    signal("-CONT");
    let status = exit_within(
        &mut cluster.nodes[victim].process.child,
        Duration::from_secs(10),
    );
    stop_writers(&stop, writers);
    let seen = seen.lock().unwrap();
    let first = seen.after_kill.iter().min().map(|t| *t - pause_time);
    println!(
        "pause of node {} ({}) after {before} commits: first commit {first:?} after the pause; {}; the paused node ended {status:?}; sql insert and read {sql_after:?} after the pause",
        victim + 1,
        if victim == 0 { "the primary" } else { "the backup" },
        seen.summary()
    );
    let sql_after = sql_after.expect("no SQL insert and read succeeded while the node was paused");
    assert!(
        sql_after <= RECOVERY_MAX,
        "the SQL insert and read came back {sql_after:?} after the pause"
    );
    let status = status.expect("the paused node runs on, out of the view, after it resumed");
    assert_eq!(status.code(), Some(70), "the paused node's exit");
    let first = first.expect("no commit succeeded while the node was paused");
    assert!(
        first <= RECOVERY_MAX,
        "commits came back {first:?} after the pause"
    );
    check_survivor(
        &format!("pause of node {}", victim + 1),
        &cluster.nodes[1 - victim].api,
        &seen,
    );
}

/// A column change whose client vanishes (a reset connection) while the primary waits for a
/// lock holder still runs to its end on the primary, reaches the backup, and leaves the node
/// group taking schema changes: the coordinator outlives its connection.
#[test]
fn a_schema_change_whose_client_vanishes_still_reaches_the_backup() {
    use std::io::Write;
    use std::os::fd::AsRawFd;

    let cluster = start_cluster(20);
    let c = Cluster::connect_timeout(&cluster.addresses, Duration::from_secs(10)).unwrap();
    let t = c.create_table(table()).unwrap();
    let mut txn = c.transaction();
    txn.insert(&t, vec![(0, Value::Int(1)), (1, Value::Int(1))]);
    txn.commit().unwrap();

    // A lock holder keeps the change waiting (the primary fences the table first).
    let mut holder = c.transaction();
    holder.read_with(&t, vec![Value::Int(1)], client::LockMode::Exclusive, vec![]);
    holder.execute(client::ExecType::NoCommit).unwrap();

    let mut columns = client::NewColumn::all_kept(t.def());
    columns.push(client::NewColumn {
        column: ColumnDef::new("added", ColumnType::BigInt { unsigned: false })
            .default(Value::Int(7)),
        source: client::ColumnSource::Filled(Value::Int(7)),
    });
    let change = wire::Message::AlterTable {
        table: "failover".into(),
        change: client::TableChange::Columns {
            version: t.def().version,
            columns,
        },
    };
    let mut frame = Vec::new();
    change.write_frame(&mut frame, 0, 0, 1);
    let primary = cluster.addresses.split(',').next().unwrap().to_string();
    let mut raw = std::net::TcpStream::connect(&primary).unwrap();
    raw.write_all(&frame).unwrap();

    // Once the table is fenced (a write is refused), the client goes with a reset.
    let deadline = Instant::now() + Duration::from_secs(1);
    loop {
        let mut probe = c.transaction();
        probe.insert(&t, vec![(0, Value::Int(2)), (1, Value::Int(2))]);
        match probe.commit() {
            Err(e) if e.code() == client::ErrorCode::SchemaChanged => break,
            _ => assert!(
                Instant::now() < deadline,
                "the change never fenced the table"
            ),
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let linger = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    // SAFETY: setsockopt on a socket this test owns, with a value of the size it names.
    let set = unsafe {
        libc::setsockopt(
            raw.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&linger as *const libc::linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        )
    };
    assert_eq!(set, 0);
    drop(raw);
    holder.commit().unwrap();

    // Both replicas end with the new column; the group takes another schema change.
    for node in &cluster.nodes {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let n = Cluster::connect_timeout(&node.api, Duration::from_secs(5)).unwrap();
            let columns = n.table("failover").map(|t| t.def().columns.len());
            if columns.as_ref().is_ok_and(|c| *c == 3) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{}: the change did not arrive ({columns:?})",
                node.api
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let c = Cluster::connect_timeout(&cluster.addresses, Duration::from_secs(10)).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let def = TableDef::new(
            "after",
            vec![ColumnDef::new("id", ColumnType::Int { unsigned: false })],
            &["id"],
        )
        .unwrap();
        match c.create_table(def) {
            Ok(_) => break,
            Err(e) => assert!(
                e.is_temporary() && Instant::now() < deadline,
                "the group takes no schema change after it: {e}"
            ),
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Node restart: a data node killed with SIGKILL comes back while writers commit, empty with
/// `--initial` (copying every partition from the primary: rows loaded before, and commits made
/// while it was gone and while it copies) or from its own files (`own_files`: the copy writes
/// the rows that differ and deletes those deleted while it was down), becomes a member again,
/// and then holds every acknowledged commit alone: the node that served throughout is killed,
/// and the restarted node serves on with every row.
fn restart_round(round: usize, seed: u64, own_files: bool) {
    let mut cluster = start_cluster(30 + round);
    let admin = Cluster::connect_timeout(&cluster.addresses, Duration::from_secs(10))
        .expect("a data node serves");
    admin.create_table(table()).expect("table created");
    admin
        .create_table(id_and_value("loaded"))
        .expect("table created");
    // Rows changed while the node is down: some deleted, some updated, some inserted.
    let changed = admin
        .create_table(id_and_value("changed"))
        .expect("table created");
    let mut txn = admin.transaction();
    for i in 0..CHANGED {
        txn.insert(&changed, vec![(0, Value::Int(i)), (1, Value::Int(i))]);
    }
    txn.commit().expect("rows loaded");
    // More rows than one copied batch holds, in every partition.
    const LOADED: i64 = 30_000;
    let t = admin.table("loaded").unwrap();
    for chunk in 0..LOADED / 1000 {
        let mut txn = admin.transaction();
        for i in chunk * 1000..(chunk + 1) * 1000 {
            txn.insert(&t, vec![(0, Value::Int(i)), (1, Value::Int(i * 7))]);
        }
        txn.commit().expect("rows loaded");
    }
    drop(admin);

    let stop = Arc::new(AtomicBool::new(false));
    let killed: Arc<Mutex<Option<Instant>>> = Arc::new(Mutex::new(None));
    let seen = Arc::new(Mutex::new(Seen::default()));
    let writers = spawn_writers(WRITERS, &cluster.addresses, &stop, &killed, &seen);
    let updater = {
        let (addresses, stop) = (cluster.addresses.clone(), stop.clone());
        std::thread::spawn(move || update_loaded(&addresses, LOADED, &stop))
    };
    std::thread::sleep(Duration::from_millis(300));
    // The seed picks the first round's victim; the second takes the other node.
    let victim = (seed as usize).wrapping_add(round) % 2;
    let other = 1 - victim;
    cluster.nodes[victim].process.child.kill().unwrap();
    let _ = cluster.nodes[victim].process.child.wait();
    // The survivor serves alone for a while, then the victim comes back.
    let alone_since = Instant::now();
    change_while_down(&cluster.addresses);
    while seen.lock().unwrap().acknowledged.len() < 200
        || alone_since.elapsed() < Duration::from_millis(1500)
    {
        assert!(
            alone_since.elapsed() < Duration::from_secs(10),
            "round {round}: the survivor does not commit"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let restarted_at = Instant::now();
    let flags: &[&str] = if own_files {
        &[]
    } else {
        &["--initial", "--yes"]
    };
    let mut restarted = spawn_node(&cluster.dir, &cluster.mgm, victim + 1, flags);
    let line = restarted.wait_until(|l| l.contains("a member again"), Duration::from_secs(60));
    // From its own files, the copy wrote only what differs: every worker says what it found.
    let (mut equal, mut deleted) = (0u64, 0u64);
    for l in restarted
        .output
        .iter()
        .filter(|l| l.starts_with("node restart from its own files:"))
    {
        let n: Vec<u64> = l
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|w| w.parse().ok())
            .collect();
        equal += n[0];
        deleted += n[2];
    }
    if own_files {
        assert!(
            restarted
                .output
                .iter()
                .any(|l| l.contains("starts from its own checkpoint and redo")),
            "round {round}: {:?}",
            restarted.output
        );
        assert!(
            equal >= LOADED as u64 / 2 && deleted == CHANGE_DELETED as u64,
            "round {round}: {equal} copied rows found equal, {deleted} deleted: {:?}",
            restarted.output
        );
    } else {
        assert_eq!((equal, deleted), (0, 0), "round {round}: it started empty");
    }
    let back_after = restarted_at.elapsed();
    let copied = restarted
        .output
        .iter()
        .find(|l| l.contains("copied") && l.contains("rows"))
        .cloned()
        .unwrap_or_default();
    cluster.nodes[victim].process = restarted;
    let during = seen.lock().unwrap().acknowledged.len();
    // The node that served throughout goes; the restarted one must hold everything.
    std::thread::sleep(Duration::from_millis(300));
    cluster.nodes[other].process.child.kill().unwrap();
    let kill_time = Instant::now();
    *killed.lock().unwrap() = Some(kill_time);
    let _ = cluster.nodes[other].process.child.wait();
    let deadline = kill_time + RECOVERY_MAX + Duration::from_millis(500);
    while Instant::now() < deadline && seen.lock().unwrap().after_kill.len() < 20 {
        std::thread::sleep(Duration::from_millis(20));
    }
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.join().unwrap();
    }
    let updates = updater.join().unwrap();
    let seen = seen.lock().unwrap();
    let first = seen.after_kill.iter().min().map(|t| *t - kill_time);
    println!(
        "restart round {round}: {} updates of loaded rows acknowledged;",
        updates.values().map(|u| u.0).sum::<i64>()
    );
    println!(
        "restart round {round}: node {} killed, restarted {} and a member again {back_after:?} later ({line}; {copied}; {equal} rows found equal, {deleted} deleted); {during} commits acknowledged by then; node {} then killed, first commit {first:?} after; {} acknowledged, {} refused, {} unknown; errors {:?}",
        victim + 1,
        if own_files { "from its own files" } else { "empty" },
        other + 1,
        seen.acknowledged.len(),
        seen.refused.len(),
        seen.unknown.len(),
        seen.errors
    );
    let first = first.unwrap_or_else(|| {
        panic!("restart round {round}: no commit succeeded on the restarted node alone")
    });
    assert!(
        first <= RECOVERY_MAX,
        "restart round {round}: commits came back {first:?} after the kill"
    );
    let api = cluster.nodes[victim].api.clone();
    check_survivor(&format!("restart round {round}"), &api, &seen);
    let c = Cluster::connect_timeout(&api, Duration::from_secs(5)).unwrap();
    let t = c.table("loaded").unwrap();
    let rows = c.transaction().scan(&t, &Scan::table()).unwrap();
    let mut ids: Vec<i64> = rows
        .iter()
        .map(|r| match (&r[0], &r[1]) {
            (Value::Int(id), Value::Int(v)) => {
                // Updated k times: acknowledged at least `acked`, tried at most `tried`.
                let (acked, tried) = updates.get(id).copied().unwrap_or((0, 0));
                let k = (v - id * 7) / UPDATE_STEP;
                assert!(
                    (v - id * 7) % UPDATE_STEP == 0 && k >= acked && k <= tried,
                    "restart round {round}: row {id} holds {v}: update {k}, but {acked} were acknowledged and {tried} tried"
                );
                *id
            }
            other => panic!("bad row {other:?}"),
        })
        .collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        (0..LOADED).collect::<Vec<_>>(),
        "restart round {round}: the loaded rows differ on the restarted node"
    );
    let t = c.table("changed").unwrap();
    let mut rows: Vec<(i64, i64)> = c
        .transaction()
        .scan(&t, &Scan::table())
        .unwrap()
        .iter()
        .map(|r| match (&r[0], &r[1]) {
            (Value::Int(id), Value::Int(v)) => (*id, *v),
            other => panic!("bad row {other:?}"),
        })
        .collect();
    rows.sort_unstable();
    assert_eq!(
        rows,
        changed_rows(),
        "restart round {round}: the rows changed while the node was down differ on it"
    );
}

/// Rows of table `changed` loaded before the kill; the first `CHANGE_DELETED` are deleted while
/// the node is down, the next `CHANGE_UPDATED` updated, and `CHANGE_INSERTED` more inserted.
const CHANGED: i64 = 5_000;
const CHANGE_DELETED: i64 = 2_000;
const CHANGE_UPDATED: i64 = 1_000;
const CHANGE_INSERTED: i64 = 1_000;

/// Deletes, updates and inserts rows of table `changed` (one transaction each, tried again
/// while the view changes after the kill).
fn change_while_down(addresses: &str) {
    let c = Cluster::connect_serving(addresses, Duration::from_secs(10)).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let t = loop {
        match c.table("changed") {
            Ok(t) => break t,
            Err(e) => assert!(Instant::now() < deadline, "table changed: {e}"),
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let commit = |what: &str, fill: &dyn Fn(&mut client::Transaction)| loop {
        let mut txn = c.transaction();
        fill(&mut txn);
        // Tried again only when refused for the moment (not committed).
        match txn.commit() {
            Ok(_) => break,
            Err(e) => assert!(
                e.is_temporary() && Instant::now() < deadline,
                "{what} while the node is down: {e}"
            ),
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    commit("delete", &|txn| {
        for id in 0..CHANGE_DELETED {
            txn.delete(&t, vec![Value::Int(id)]);
        }
    });
    commit("update", &|txn| {
        for id in CHANGE_DELETED..CHANGE_DELETED + CHANGE_UPDATED {
            txn.update(&t, vec![Value::Int(id)], vec![(1, Value::Int(-id))]);
        }
    });
    commit("insert", &|txn| {
        for id in CHANGED..CHANGED + CHANGE_INSERTED {
            txn.insert(&t, vec![(0, Value::Int(id)), (1, Value::Int(id))]);
        }
    });
}

/// What table `changed` holds after `change_while_down`, in id order.
fn changed_rows() -> Vec<(i64, i64)> {
    (CHANGE_DELETED..CHANGED + CHANGE_INSERTED)
        .map(|id| {
            let updated = id < CHANGE_DELETED + CHANGE_UPDATED;
            (id, if updated { -id } else { id })
        })
        .collect()
}

/// A table of two BIGINT columns, `id` (the primary key) and `v`.
fn id_and_value(name: &str) -> TableDef {
    TableDef::new(
        name,
        vec![
            ColumnDef::new("id", ColumnType::BigInt { unsigned: false }),
            ColumnDef::new("v", ColumnType::BigInt { unsigned: false }),
        ],
        &["id"],
    )
    .unwrap()
}

/// Polls `child` until it exits (its status) or `timeout` passes (None).
fn exit_within(
    child: &mut std::process::Child,
    timeout: Duration,
) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What the k-th update of a loaded row adds to its value.
const UPDATE_STEP: i64 = 1_000_000;

/// Updates the loaded rows, ten per transaction, round and round, until `stop`; per row id, how
/// many of its updates were acknowledged and how many tried (an update whose outcome is not
/// known may or may not be there).
fn update_loaded(addresses: &str, rows: i64, stop: &AtomicBool) -> BTreeMap<i64, (i64, i64)> {
    let mut counts: BTreeMap<i64, (i64, i64)> = BTreeMap::new();
    let mut cluster: Option<Cluster> = None;
    let mut next = 0i64;
    while !stop.load(Ordering::Relaxed) {
        let c = match &cluster {
            Some(c) => c.clone(),
            None => match Cluster::connect_timeout(addresses, Duration::from_millis(500)) {
                Ok(c) => {
                    cluster = Some(c.clone());
                    c
                }
                Err(_) => continue,
            },
        };
        let Ok(t) = c.table("loaded") else {
            cluster = None;
            continue;
        };
        let ids: Vec<i64> = (next..next + 10).map(|i| i % rows).collect();
        let mut txn = c.transaction();
        for id in &ids {
            let k = counts.get(id).map_or(0, |c| c.1) + 1;
            txn.update(
                &t,
                vec![Value::Int(*id)],
                vec![(1, Value::Int(id * 7 + k * UPDATE_STEP))],
            );
        }
        let result = txn.commit();
        let lost = matches!(result, Err(client::ClientError::ConnectionLost(_)));
        if result.is_ok() || lost {
            // Tried: a lost commit may be there; an acknowledged one must be.
            for id in &ids {
                let entry = counts.entry(*id).or_default();
                entry.1 += 1;
                if result.is_ok() {
                    entry.0 = entry.1;
                }
            }
            if result.is_ok() {
                next += 10;
            }
        }
        if lost {
            cluster = None;
        }
        if result.is_err() {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    counts
}

#[test]
fn a_killed_data_node_restarts_empty_catches_up_and_then_holds_everything_alone() {
    let seed: u64 = common::seed_from_env("CAIRN_RESTART_SEED");
    println!("seed {seed} (CAIRN_RESTART_SEED={seed} repeats it)");
    // Once the primary, once the backup.
    for r in 0..2 {
        restart_round(r, seed, false);
    }
}

#[test]
fn a_killed_data_node_restarts_from_its_own_files_catches_up_and_then_holds_everything_alone() {
    let seed: u64 = common::seed_from_env("CAIRN_RESTART_SEED");
    println!("seed {seed} (CAIRN_RESTART_SEED={seed} repeats it)");
    for r in 2..4 {
        restart_round(r, seed, true);
    }
}

/// Creates `table()` in `cluster` and commits rows 0..`rows` in one transaction.
fn load_table(cluster: &common::ClusterProcesses, rows: i64) {
    let c = Cluster::connect_serving(&cluster.apis.join(","), Duration::from_secs(20)).unwrap();
    let t = c.create_table(table()).unwrap();
    let mut txn = c.transaction();
    for id in 0..rows {
        txn.insert(&t, vec![(0, Value::Int(id)), (1, Value::Int(id))]);
    }
    txn.commit().unwrap();
}

/// A node restart whose copy source dies before the copy ends cannot finish. The starting node
/// holds no complete copy and serves nothing; once no node of its group has served for
/// `--copy-source-wait-s` it says so and exits with code 78, which neither its angel nor
/// `cairn start` starts again, rather than wait for good.
#[test]
fn a_node_restart_whose_copy_source_dies_stops_and_says_why() {
    let mut cluster = common::spawn_cluster("copy-source-dies", 2, 2);
    load_table(&cluster, 500);
    cluster.kill(2);
    cluster.wait_membership("the backup killed", 2, false, Duration::from_secs(15));
    // Node 1 serves, so node 2 may delete its files and start copying; then node 1 dies
    // before node 2 is taken back (that needs a view change and the copy).
    let mut restarted = spawn_node(
        &cluster.dir,
        &cluster.mgm,
        2,
        &["--initial", "--yes", "--copy-source-wait-s", "2"],
    );
    cluster.kill(1);
    let said = restarted.wait_until(
        |l| l.contains("the node restart cannot finish"),
        Duration::from_secs(30),
    );
    assert!(said.contains("nothing left to copy from"), "{said}");
    let status = exit_within(&mut restarted.child, Duration::from_secs(10))
        .unwrap_or_else(|| panic!("data node 2 did not exit"));
    assert_eq!(status.code(), Some(78), "{:?}", restarted.output);
    assert!(!cluster.is_member(2));
}

/// `--copy-rows-per-s` bounds how fast a primary copies to a starting node: 3,000 rows at 2,000
/// rows/s take at least a second and a half, where unbounded they take a fraction of one.
#[test]
fn a_copy_keeps_to_its_rate() {
    const ROWS: i64 = 3000;
    const RATE: &str = "2000";
    let mut cluster = common::spawn_cluster("copy-rate", 2, 2);
    load_table(&cluster, ROWS);
    // Node 1 comes back with the rate (copying from node 2), then is the primary once node 2
    // is killed, and copies to node 2 at that rate.
    cluster.kill(1);
    cluster.wait_membership("killed", 1, false, Duration::from_secs(15));
    cluster.nodes[0] = Some(spawn_node(
        &cluster.dir,
        &cluster.mgm,
        1,
        &["--initial", "--yes", "--copy-rows-per-s", RATE],
    ));
    cluster.wait_membership("restarted", 1, true, Duration::from_secs(60));
    cluster.kill(2);
    cluster.wait_membership("killed", 2, false, Duration::from_secs(15));
    cluster.restart_empty(2);
    let copied = cluster.nodes[0]
        .as_mut()
        .unwrap()
        .wait_until(|l| l.starts_with("copied "), Duration::from_secs(60));
    cluster.wait_membership("restarted", 2, true, Duration::from_secs(60));
    // "copied N rows in T tables to starting data node 2 in S s (R rows/s)"
    let seconds: f64 = copied
        .split(" in ")
        .last()
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{copied}"));
    println!("{copied}");
    assert!(copied.contains(&format!("copied {ROWS} rows")), "{copied}");
    assert!(seconds >= 1.4, "{copied}");
}

/// A node restarted from its own files whose tables are not its primary's any more (a table was
/// created while it was down) cannot be brought level from them: it says so and exits with
/// code 76, which the angel and `cairn start` answer by starting it again with `--initial`;
/// started so, it copies every table and is a member again.
#[test]
fn a_node_whose_tables_changed_while_it_was_down_exits_to_start_again_empty() {
    let mut cluster = common::spawn_cluster("catalog-changed", 2, 2);
    load_table(&cluster, 100);
    cluster.kill(2);
    cluster.wait_membership("the backup killed", 2, false, Duration::from_secs(15));
    let c = Cluster::connect_serving(&cluster.apis[0], Duration::from_secs(20)).unwrap();
    let mut created = TableDef::new(
        "created_meanwhile",
        vec![ColumnDef::new("id", ColumnType::BigInt { unsigned: false })],
        &["id"],
    )
    .unwrap();
    created.options.read_backup = true;
    let deadline = Instant::now() + Duration::from_secs(20);
    let created = loop {
        match c.create_table(created.clone()) {
            Ok(t) => break t,
            Err(e) => assert!(
                e.is_temporary() && Instant::now() < deadline,
                "creating a table while the backup is down: {e}"
            ),
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut txn = c.transaction();
    txn.insert(&created, vec![(0, Value::Int(7))]);
    txn.commit().unwrap();
    // It says why on its standard error and in its log ("its tables differ from its
    // primary's"), and exits.
    let mut restarted = spawn_node(&cluster.dir, &cluster.mgm, 2, &[]);
    let status = exit_within(&mut restarted.child, Duration::from_secs(30))
        .unwrap_or_else(|| panic!("data node 2 did not exit: {:?}", restarted.output));
    assert_eq!(status.code(), Some(76), "{:?}", restarted.output);
    // Started again empty (what the angel does on 76), it copies the new table too.
    cluster.restart_empty(2);
    cluster.wait_membership("started again empty", 2, true, Duration::from_secs(60));
    let backup = Cluster::connect_timeout(&cluster.apis[1], Duration::from_secs(5)).unwrap();
    let t = backup.table("created_meanwhile").unwrap();
    let rows = backup.scan(&t, &Scan::table()).unwrap();
    assert_eq!(rows, vec![vec![Value::Int(7)]]);
}

/// A node whose own files do not load (here its catalog, overwritten while it was down) exits
/// with code 76 too, rather than failing for good: started again empty, it copies its group's
/// partitions.
#[test]
fn a_node_whose_files_do_not_load_exits_to_start_again_empty() {
    let mut cluster = common::spawn_cluster("files-unreadable", 2, 2);
    load_table(&cluster, 100);
    cluster.kill(2);
    cluster.wait_membership("the backup killed", 2, false, Duration::from_secs(15));
    let catalog = cluster.dir.join("node2").join("catalog");
    assert!(catalog.exists());
    std::fs::write(&catalog, b"not a catalog at all").unwrap();
    // It exits before it is ready (spawn_node waits for that): run it bare.
    let data = cluster.dir.join("node2");
    let mut node = std::process::Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args([
            "datanode",
            "--mgm",
            &cluster.mgm,
            "--node-id",
            "2",
            "--no-angel",
        ])
        .args(["--redo-segment-kib", "1024", "--data-dir"])
        .arg(&data)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let Some(status) = exit_within(&mut node, Duration::from_secs(30)) else {
        let _ = node.kill();
        panic!("data node 2 did not exit");
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut node.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(76), "{stderr}");
    assert!(
        stderr.contains("could not restart from its own files"),
        "{stderr}"
    );
    cluster.restart_empty(2);
    cluster.wait_membership("started again empty", 2, true, Duration::from_secs(60));
}
