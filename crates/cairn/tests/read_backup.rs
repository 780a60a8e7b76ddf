//! READ_BACKUP over real processes: a node group of two data nodes (`cairn datanode --mgm`) and
//! a management node. The backup answers committed primary-key reads and scans of a
//! READ_BACKUP table (pushed joins of such tables too), and refuses everything else (writes,
//! locking reads, other tables, a pushed join reaching one) with `NotPrimary`. Clients given both nodes' addresses spread such reads over the two replicas
//! when they are on two hosts (here 127.0.0.1 and 127.0.0.2), and each reads its own writes on
//! whichever replica answers; when both are on one host, reads stay on the primary. When the
//! backup is killed, reads go on through the primary without an error.

mod common;

use std::time::{Duration, Instant};

use base::schema::{ColumnDef, IndexKind};
use base::types::ColumnType;
use base::ErrorCode;
use client::{ClientError, Cluster, JoinChild, LockMode, Scan, Table, TableDef, Value};
use common::{spawn, spawn_cluster_on, try_mysql, FREE_FRONT_END_PORTS};

/// Two hosts, as far as clients can tell: the backup (node 2) listens on another loopback address.
const TWO_HOSTS: &[&str] = &["127.0.0.1", "127.0.0.2"];

fn def(name: &str, read_backup: bool) -> TableDef {
    let mut def = TableDef::new(
        name,
        vec![
            ColumnDef::new("id", ColumnType::BigInt { unsigned: false }),
            ColumnDef::new("v", ColumnType::BigInt { unsigned: false }),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("pk", IndexKind::Ordered, &["id"])
    .unwrap();
    def.options.read_backup = read_backup;
    def
}

/// Connects to the node group (both addresses), once it serves.
fn connect(addresses: &str) -> Cluster {
    Cluster::connect_serving(addresses, Duration::from_secs(20))
        .unwrap_or_else(|e| panic!("no data node of {addresses} serves: {e}"))
}

fn write(cluster: &Cluster, table: &Table, id: i64, v: i64) {
    let mut txn = cluster.transaction();
    txn.write(table, vec![Value::Int(id)], vec![(1, Value::Int(v))]);
    txn.commit()
        .unwrap_or_else(|e| panic!("writing {id} = {v}: {e}"));
}

fn read(cluster: &Cluster, table: &Table, id: i64) -> Result<Option<i64>, ClientError> {
    let mut txn = cluster.transaction();
    let op = txn.read(table, vec![Value::Int(id)]);
    txn.execute(client::ExecType::Commit)?;
    Ok(txn.row(op).map(|r| match r[1] {
        Value::Int(v) => v,
        ref other => panic!("v of {id} is {other:?}"),
    }))
}

fn refused(result: Result<impl std::fmt::Debug, ClientError>, what: &str) {
    match result {
        Err(e) if e.code() == ErrorCode::NotPrimary => {}
        other => panic!("{what} on the backup: expected NotPrimary, got {other:?}"),
    }
}

fn backup_reads(cluster: &Cluster) -> u64 {
    cluster.status().expect("status").backup_reads
}

#[test]
fn backups_answer_read_backup_reads_and_clients_read_their_writes() {
    let mut cluster = spawn_cluster_on("read-backup", 2, 2, TWO_HOSTS);
    let addresses = cluster.apis.join(",");
    let primary = connect(&addresses);
    let rb = primary.create_table(def("rb", true)).unwrap();
    let plain = primary.create_table(def("plain", false)).unwrap();
    // FULLY_REPLICATED: in one node group every node holds the whole table, and any replica
    // answers its committed reads, as READ_BACKUP's.
    let mut full = def("full", false);
    full.options.fully_replicated = true;
    let full = primary.create_table(full).unwrap();
    for id in 0..100 {
        write(&primary, &rb, id, id * 10);
        write(&primary, &plain, id, id * 10);
    }
    write(&primary, &full, 1, 11);

    // The backup alone (node 2: node 1, the lowest, is the group's first primary).
    let backup = Cluster::connect_timeout(&cluster.apis[1], Duration::from_secs(10)).unwrap();
    let rb_there = backup.table("rb").unwrap();
    let plain_there = backup.table("plain").unwrap();
    let full_there = backup.table("full").unwrap();
    // It serves reads once it is a member with its lease held.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match read(&backup, &rb_there, 7) {
            Ok(v) => {
                assert_eq!(v, Some(70));
                break;
            }
            Err(e) if Instant::now() < deadline => {
                assert_eq!(e.code(), ErrorCode::NotPrimary, "{e}");
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => panic!("the backup never answered a READ_BACKUP read: {e}"),
        }
    }
    for id in 0..100 {
        assert_eq!(read(&backup, &rb_there, id).unwrap(), Some(id * 10));
    }
    assert_eq!(read(&backup, &rb_there, 1000).unwrap(), None);
    assert_eq!(read(&backup, &full_there, 1).unwrap(), Some(11));
    let mut rows: Vec<i64> = backup
        .scan(&rb_there, &Scan::table())
        .unwrap()
        .iter()
        .map(|r| match r[0] {
            Value::Int(v) => v,
            ref other => panic!("{other:?}"),
        })
        .collect();
    rows.sort_unstable();
    assert_eq!(rows, (0..100).collect::<Vec<_>>());
    // A pushed join of READ_BACKUP tables is read there too; one reaching another table is not.
    let rb_by_id = || JoinChild::new(&rb_there, "pk", vec![0]);
    let joined = backup.scan(&rb_there, &Scan::table().join(rb_by_id()));
    assert_eq!(joined.unwrap().len(), 100);
    refused(
        backup.scan(
            &rb_there,
            &Scan::table().join(JoinChild::new(&plain_there, "pk", vec![0])),
        ),
        "a pushed join reading a table without READ_BACKUP",
    );
    // Everything else goes to the primary.
    refused(
        read(&backup, &plain_there, 7),
        "a read of a table without READ_BACKUP",
    );
    refused(
        backup.scan(&plain_there, &Scan::table()),
        "a scan of a table without READ_BACKUP",
    );
    let mut txn = backup.transaction();
    txn.read_with(&rb_there, vec![Value::Int(7)], LockMode::Shared, vec![]);
    refused(txn.execute(client::ExecType::Commit), "a locking read");
    let mut txn = backup.transaction();
    txn.write(&rb_there, vec![Value::Int(7)], vec![(1, Value::Int(0))]);
    refused(txn.commit(), "a write");
    assert_eq!(
        read(&primary, &rb, 7).unwrap(),
        Some(70),
        "the refused write left nothing"
    );
    let served = backup_reads(&backup);
    assert!(served >= 102, "the backup counted {served} reads");

    // Clients given both addresses read a READ_BACKUP table from either replica (chosen by
    // their session number: odd ones the backup, node 2), and each reads its own writes
    // wherever its reads go. Enough clients are made that both replicas get some.
    let mut clients: Vec<Cluster> = Vec::new();
    while clients.iter().filter(|c| c.session() % 2 == 1).count() < 2
        || clients.iter().filter(|c| c.session() % 2 == 0).count() < 2
    {
        assert!(
            clients.len() < 64,
            "64 sessions and still not two of each parity"
        );
        clients.push(connect(&addresses));
    }
    let before = backup_reads(&backup);
    let odd_reads = std::thread::scope(|s| {
        let handles: Vec<_> = clients
            .iter()
            .enumerate()
            .map(|(n, c)| {
                let table = c.table("rb").unwrap();
                s.spawn(move || {
                    let id = 1000 + n as i64;
                    for i in 0..200 {
                        write(c, &table, id, i);
                        assert_eq!(
                            read(c, &table, id).unwrap(),
                            Some(i),
                            "client {n} (session {}) did not read its own write",
                            c.session()
                        );
                    }
                    if c.session() % 2 == 1 {
                        200
                    } else {
                        0
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum::<u64>()
    });
    let after = backup_reads(&backup);
    println!(
        "backup reads: {served} alone, {} from {} clients ({odd_reads} expected at least)",
        after - before,
        clients.len()
    );
    assert!(
        after - before >= odd_reads,
        "the backup answered {} reads; the clients reading from it sent {odd_reads}",
        after - before
    );

    // The backup dies: reads go on through the primary, with no error.
    let mut node = cluster.nodes[1].take().unwrap();
    node.child.kill().unwrap();
    node.child.wait().unwrap();
    for (n, c) in clients.iter().enumerate() {
        let table = c.table("rb").unwrap();
        for id in 0..100 {
            assert_eq!(
                read(c, &table, id).unwrap_or_else(|e| panic!("client {n} after the kill: {e}")),
                Some(id * 10)
            );
        }
        let rows = c.scan(&table, &Scan::table()).unwrap();
        assert_eq!(rows.len(), 100 + clients.len());
    }
}

/// Through the SQL front end (`cairn api` over both data nodes), SELECTs of a READ_BACKUP
/// table are answered by both replicas on two hosts, and return what was written; a table
/// without it is read from the primary alone.
#[test]
fn sql_reads_of_read_backup_tables_are_spread_over_replicas_on_two_hosts() {
    sql_reads("read-backup-sql", TWO_HOSTS, true);
}

/// With both replicas on one host, reads of a READ_BACKUP table stay on the primary: spreading
/// them over processes that share the host's processors adds no capacity.
#[test]
fn sql_and_native_reads_stay_on_the_primary_when_the_replicas_share_a_host() {
    sql_reads("read-backup-one-host", &["127.0.0.1"], false);
}

fn sql_reads(name: &str, hosts: &[&str], spread: bool) {
    let cluster = spawn_cluster_on(name, 2, 2, hosts);
    let addresses = cluster.apis.join(",");
    connect(&addresses);
    let backup = Cluster::connect_timeout(&cluster.apis[1], Duration::from_secs(10)).unwrap();
    let mut api_args = vec!["api", "--datanode", &addresses];
    api_args.extend(FREE_FRONT_END_PORTS);
    let api = spawn(&api_args);
    let sql = api.listening("sql (mysql protocol): ");
    try_mysql(
        &sql,
        "CREATE DATABASE d; \
         CREATE TABLE d.rb (id INT PRIMARY KEY, v INT) COMMENT='NDB_TABLE=READ_BACKUP=1'; \
         CREATE TABLE d.plain (id INT PRIMARY KEY, v INT)",
    )
    .unwrap();
    let values: Vec<String> = (0..50).map(|i| format!("({i}, {})", i * 7)).collect();
    try_mysql(
        &sql,
        &format!(
            "INSERT INTO d.rb VALUES {0}; INSERT INTO d.plain VALUES {0}",
            values.join(",")
        ),
    )
    .unwrap();
    // The backup serves reads once it is a member with its lease (the front end's event
    // loops look for it every few seconds): wait until the native client's reads reach it.
    let rb = backup.table("d/rb").unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while read(&backup, &rb, 1).is_err() {
        assert!(Instant::now() < deadline, "the backup never served reads");
        std::thread::sleep(Duration::from_millis(20));
    }

    let selects = |table: &str| -> String {
        (0..50)
            .map(|i| format!("SELECT v FROM d.{table} WHERE id = {i};"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let expected: String = (0..50).map(|i| format!("v\n{}\n", i * 7)).collect();
    // Enough rounds (each a new session, each looking again for readers) that reads reach
    // the backup whichever replica the first ones chose.
    let before = backup_reads(&backup);
    if spread {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            assert_eq!(try_mysql(&sql, &selects("rb")).unwrap(), expected);
            if backup_reads(&backup) > before {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "no SQL read of the READ_BACKUP table reached the backup"
            );
        }
    } else {
        // The front end's loops look for readers at start and every 5 s: long enough to find
        // one if they would.
        let until = Instant::now() + Duration::from_secs(6);
        while Instant::now() < until {
            assert_eq!(try_mysql(&sql, &selects("rb")).unwrap(), expected);
        }
        let native: Vec<Cluster> = (0..8).map(|_| connect(&addresses)).collect();
        for c in &native {
            let table = c.table("d/rb").unwrap();
            for id in 0..10 {
                assert_eq!(read(c, &table, id).unwrap(), Some(id * 7));
            }
        }
        assert_eq!(
            backup_reads(&backup),
            before,
            "reads reached the backup on the primary's host"
        );
    }
    let before = backup_reads(&backup);
    assert_eq!(try_mysql(&sql, &selects("plain")).unwrap(), expected);
    assert_eq!(
        backup_reads(&backup),
        before,
        "reads of a table without READ_BACKUP reached the backup"
    );
}
