//! Temporary tables: a session's own, shadowing a table of the same name for it alone, listed
//! nowhere, gone when the session ends; those a dead API node left are swept by a live one.

mod common;
use std::time::{Duration, Instant};

use common::raw::{values, Answer, Raw};

fn rows(c: &mut Raw, sql: &str) -> Vec<Vec<Option<String>>> {
    match c.query(sql) {
        Answer::Rows(rows) => rows.iter().map(|r| values(r)).collect(),
        other => panic!("{sql}: {other:?}"),
    }
}

fn one(v: &str) -> Vec<Option<String>> {
    vec![Some(v.to_string())]
}

/// The data node's temporary tables (hidden names), as a client of its own sees them.
fn hidden_tables(cluster: &client::Cluster) -> Vec<String> {
    let mut names = cluster.list_tables().unwrap();
    names.retain(|n| n.starts_with("cairn_tmp_"));
    names
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::yield_now();
    }
}

#[test]
fn a_temporary_table_is_its_sessions_alone_and_goes_with_it() {
    let (node, server) = common::start(16 << 20);
    let port = server.address().port();
    let cluster = client::Cluster::connect(&node.address().to_string()).unwrap();
    let mut a = Raw::login_to(port, None);
    let mut b = Raw::login_to(port, None);
    for sql in [
        "CREATE DATABASE d",
        "USE d",
        "CREATE TABLE t (id INT PRIMARY KEY)",
        "INSERT INTO t VALUES (1)",
    ] {
        assert_eq!(a.query(sql), Answer::Ok, "{sql}");
    }
    // A statement prepared before a temporary table shadows its table is planned again.
    let prepared = a.prepare("SELECT id FROM t WHERE id > ?");
    let found = |c: &mut Raw| match c.execute(prepared, 0) {
        Answer::Rows(rows) => rows.len(),
        other => panic!("{other:?}"),
    };
    assert_eq!(found(&mut a), 1);
    for sql in [
        "CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, y VARCHAR(5) UNIQUE, KEY (y))",
        "INSERT INTO t VALUES (10, 'a'), (20, 'b')",
    ] {
        assert_eq!(a.query(sql), Answer::Ok, "{sql}");
    }
    assert_eq!(found(&mut a), 2);
    // A foreign key names the table, never the session's temporary table (InnoDB's rule).
    assert_eq!(
        a.query("CREATE TABLE c (p INT, FOREIGN KEY (p) REFERENCES t (id))"),
        Answer::Ok
    );
    assert_eq!(a.query("INSERT INTO c VALUES (1)"), Answer::Ok);
    assert_eq!(a.query("INSERT INTO c VALUES (10)"), Answer::Err(1452));
    assert_eq!(a.query("DROP TABLE c"), Answer::Ok);
    assert_eq!(b.query("USE d"), Answer::Ok);
    // Each session reads its own `t`.
    assert_eq!(
        rows(&mut a, "SELECT id FROM t WHERE y = 'b'"),
        vec![one("20")]
    );
    assert_eq!(rows(&mut b, "SELECT id FROM t"), vec![one("1")]);
    // A second temporary `t` is refused; another session may make its own.
    assert_eq!(
        a.query("CREATE TEMPORARY TABLE t (z INT)"),
        Answer::Err(1050)
    );
    assert_eq!(
        b.query("CREATE TEMPORARY TABLE IF NOT EXISTS t2 (z INT)"),
        Answer::Ok
    );
    // Listed nowhere; shown as temporary.
    assert_eq!(rows(&mut a, "SHOW TABLES"), vec![one("t")]);
    assert_eq!(
        rows(
            &mut a,
            "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'd'"
        ),
        vec![one("1")]
    );
    let shown = rows(&mut a, "SHOW CREATE TABLE t");
    let text = shown[0][1].as_deref().unwrap();
    assert!(text.starts_with("CREATE TEMPORARY TABLE `t`"), "{text}");
    // No foreign key on a temporary table (InnoDB's errno 150).
    assert_eq!(
        a.query("CREATE TEMPORARY TABLE c (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES t (id))"),
        Answer::Err(1005)
    );
    // Renamed, it no longer shadows `t`; DROP TEMPORARY drops temporary tables only.
    assert_eq!(a.query("RENAME TABLE t TO u"), Answer::Ok);
    assert_eq!(rows(&mut a, "SELECT id FROM t"), vec![one("1")]);
    assert_eq!(found(&mut a), 1);
    assert_eq!(rows(&mut a, "SELECT COUNT(*) FROM u"), vec![one("2")]);
    // Renaming a table to a temporary table's name renames the table, which it shadows.
    assert_eq!(a.query("RENAME TABLE t TO u2"), Answer::Ok);
    assert_eq!(a.query("RENAME TABLE u2 TO u"), Answer::Ok);
    assert_eq!(rows(&mut a, "SELECT COUNT(*) FROM u"), vec![one("2")]);
    assert_eq!(rows(&mut b, "SELECT id FROM u"), vec![one("1")]);
    assert_eq!(a.query("ALTER TABLE u RENAME TO u3"), Answer::Ok);
    assert_eq!(rows(&mut a, "SELECT id FROM u"), vec![one("1")]);
    assert_eq!(a.query("RENAME TABLE u TO t, u3 TO u"), Answer::Ok);
    assert_eq!(a.query("ALTER TABLE u RENAME TO t"), Answer::Ok);
    assert_eq!(a.query("DROP TEMPORARY TABLE nosuch"), Answer::Err(1051));
    assert_eq!(a.query("DROP TABLE t"), Answer::Ok);
    assert_eq!(rows(&mut a, "SELECT id FROM t"), vec![one("1")]);
    assert_eq!(a.query("DROP TEMPORARY TABLE t"), Answer::Err(1051));
    // A session's temporary tables go when it ends, or is reset.
    assert_eq!(
        a.query("CREATE TEMPORARY TABLE s AS SELECT id FROM t"),
        Answer::Ok
    );
    assert_eq!(hidden_tables(&cluster).len(), 2);
    drop(a);
    wait_until("the closed session's table to go", || {
        hidden_tables(&cluster).len() == 1
    });
    assert_eq!(b.reset_connection(), Answer::Ok);
    // The reset session's tables go on the lease thread, as a closed one's.
    wait_until("the reset session's table to go", || {
        hidden_tables(&cluster).is_empty()
    });
    assert_eq!(b.query("SELECT * FROM d.t2"), Answer::Err(1146));
    server.stop();
    node.stop();
}

#[test]
fn a_dead_api_nodes_temporary_tables_are_swept() {
    let (node, server) = common::start(16 << 20);
    let port = server.address().port();
    let cluster = client::Cluster::connect(&node.address().to_string()).unwrap();
    let mut a = Raw::login_to(port, None);
    for sql in [
        "CREATE DATABASE d",
        "USE d",
        "CREATE TEMPORARY TABLE live (id INT PRIMARY KEY)",
        "INSERT INTO live VALUES (1)",
    ] {
        assert_eq!(a.query(sql), Answer::Ok, "{sql}");
    }
    // What an API node that died holding a temporary table leaves: a table under its
    // instance number, with no lease.
    let left = "cairn_tmp_00000000deadbeef_3_1";
    let def = base::TableDef::new(
        left,
        vec![base::schema::ColumnDef::new(
            "id",
            base::types::ColumnType::Int { unsigned: false },
        )],
        &["id"],
    )
    .unwrap();
    cluster.create_table(def).unwrap();
    // A second API node starts over the same data node: it sweeps at once.
    let second = sql::SqlServer::start(sql::SqlConfig {
        datanode: node.address().to_string(),
        listen: "127.0.0.1:0".into(),
        ..sql::SqlConfig::default()
    })
    .unwrap();
    wait_until("the left table to be swept", || {
        !hidden_tables(&cluster).iter().any(|n| n == left)
    });
    // A live node's table stays.
    assert_eq!(hidden_tables(&cluster).len(), 1);
    assert_eq!(rows(&mut a, "SELECT id FROM live"), vec![one("1")]);
    second.stop();
    server.stop();
    node.stop();
}
