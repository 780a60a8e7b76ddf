//! Correlated subqueries through the protocol, for what the differential suite cannot show: a
//! prepared statement's parameters inside and outside the subquery, rows read again at each
//! execution, a subquery that sees the transaction's own writes, the places a correlated
//! subquery may stand beyond a SELECT's own clauses, and those it may not answering a clean
//! error.

mod common;
use common::raw::{Answer, Raw};

/// The first column of each text row (a length-encoded string, or NULL).
fn first_column(a: Answer) -> Vec<Option<String>> {
    let Answer::Rows(rows) = a else {
        panic!("expected rows, got {a:?}");
    };
    rows.iter()
        .map(|r| match r[0] {
            0xfb => None,
            n if n < 0xfb => Some(String::from_utf8(r[1..=n as usize].to_vec()).unwrap()),
            _ => panic!("a long value in {r:?}"),
        })
        .collect()
}

fn ids(c: &mut Raw, sql: &str) -> Vec<String> {
    first_column(c.query(sql)).into_iter().flatten().collect()
}

fn setup(port: u16) -> Raw {
    let mut c = Raw::login_to(port, None);
    for sql in [
        "CREATE DATABASE d",
        "USE d",
        "CREATE TABLE a (id INT NOT NULL PRIMARY KEY, n INT NOT NULL)",
        "CREATE TABLE b (id INT NOT NULL PRIMARY KEY, a_id INT, n INT, KEY ia (a_id))",
        "INSERT INTO a VALUES (1, 10), (2, 20), (3, 30), (4, 40)",
        "INSERT INTO b VALUES (1, 1, 5), (2, 1, 7), (3, 2, 1), (4, 4, 9)",
    ] {
        assert_eq!(c.query(sql), Answer::Ok, "{sql}");
    }
    c
}

#[test]
fn prepared_statements_bind_parameters_inside_and_outside_the_subquery() {
    let (node, server) = common::start(1 << 20);
    let mut c = setup(server.address().port());
    let id = c.prepare(
        "SELECT id FROM a WHERE n > ? AND EXISTS (SELECT 1 FROM b WHERE b.a_id = a.id AND b.n > ?)",
    );
    let rows = |c: &mut Raw, params: &[i64]| match c.execute_with(id, params) {
        Answer::Rows(rows) => rows.len(),
        other => panic!("execute {params:?}: {other:?}"),
    };
    assert_eq!(rows(&mut c, &[0, 0]), 3, "a 1, 2 and 4 have rows in b");
    assert_eq!(rows(&mut c, &[15, 0]), 2, "a 2 and 4");
    assert_eq!(rows(&mut c, &[0, 6]), 2, "a 1 (7) and 4 (9)");
    // The subquery reads again at each execution.
    assert_eq!(c.query("INSERT INTO b VALUES (5, 3, 8)"), Answer::Ok);
    assert_eq!(rows(&mut c, &[0, 6]), 3, "and now a 3");
    // A scalar subquery between parameters, in the select list.
    let count = c.prepare(
        "SELECT id, (SELECT COUNT(*) FROM b WHERE b.a_id = a.id AND b.n < ?) FROM a WHERE id <= ?",
    );
    match c.execute_with(count, &[100, 2]) {
        Answer::Rows(rows) => assert_eq!(rows.len(), 2),
        other => panic!("{other:?}"),
    }
    // Nested: the innermost subquery names the middle one's table, the statement's and a
    // parameter; its results are kept per outer row, not only per b row.
    let nested = c.prepare(
        "SELECT id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.a_id = a.id AND EXISTS \
         (SELECT 1 FROM b AS x WHERE x.id = b.id AND x.n + a.n > ?)) ORDER BY id",
    );
    // Binary rows: a header byte, the NULL bitmap, then `id` as 4 little-endian bytes.
    let found = |c: &mut Raw, limit: i64| match c.execute_with(nested, &[limit]) {
        Answer::Rows(rows) => rows
            .iter()
            .map(|r| i32::from_le_bytes(r[2..6].try_into().unwrap()))
            .collect::<Vec<_>>(),
        other => panic!("{other:?}"),
    };
    // b rows (a_id, n): (1, 5), (1, 7), (2, 1), (4, 9), (3, 8); a.n is 10 * id.
    assert_eq!(found(&mut c, 0), [1, 2, 3, 4]);
    assert_eq!(found(&mut c, 18), [2, 3, 4]);
    assert_eq!(found(&mut c, 21), [3, 4]);
    assert_eq!(found(&mut c, 38), [4]);
    assert_eq!(found(&mut c, 49), []);
    // The innermost names a b row the middle one reads for every a row, and the a row too.
    assert_eq!(
        ids(
            &mut c,
            "SELECT id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.n < 100 AND EXISTS \
             (SELECT 1 FROM b AS x WHERE x.id = b.id AND x.a_id = a.id AND x.n > 6)) ORDER BY id"
        ),
        ["1", "3", "4"]
    );
    server.stop();
    node.stop();
}

#[test]
fn a_subquery_sees_the_transactions_own_writes() {
    let (node, server) = common::start(1 << 20);
    let mut c = setup(server.address().port());
    // Read by primary key in the statement's transaction.
    let sql = "SELECT id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.id = a.id * 10) ORDER BY id";
    assert_eq!(ids(&mut c, sql), Vec::<String>::new());
    assert_eq!(c.query("BEGIN"), Answer::Ok);
    assert_eq!(c.query("INSERT INTO b VALUES (20, NULL, NULL)"), Answer::Ok);
    assert_eq!(ids(&mut c, sql), ["2"]);
    assert_eq!(
        ids(
            &mut c,
            "SELECT (SELECT COUNT(*) FROM b WHERE b.id = a.id * 10) FROM a ORDER BY id"
        ),
        ["0", "1", "0", "0"]
    );
    assert_eq!(c.query("ROLLBACK"), Answer::Ok);
    assert_eq!(ids(&mut c, sql), Vec::<String>::new());
    // An UPDATE's subquery reads in the UPDATE's transaction too.
    assert_eq!(c.query("BEGIN"), Answer::Ok);
    assert_eq!(c.query("INSERT INTO b VALUES (30, 3, 1)"), Answer::Ok);
    assert_eq!(
        c.query("UPDATE a SET n = (SELECT COUNT(*) FROM b WHERE b.id = a.id * 10)"),
        Answer::Ok
    );
    assert_eq!(c.query("COMMIT"), Answer::Ok);
    assert_eq!(
        ids(&mut c, "SELECT n FROM a ORDER BY id"),
        ["0", "0", "1", "0"]
    );
    server.stop();
    node.stop();
}

#[test]
fn unsupported_places_answer_errors_and_the_connection_goes_on() {
    let (node, server) = common::start(1 << 20);
    let mut c = setup(server.address().port());
    // In an ON clause and in a statement with a WITH clause: served, as their WHERE forms are.
    for (sql, same) in [
        (
            "SELECT a.id FROM a JOIN b ON EXISTS (SELECT 1 FROM b AS x WHERE x.id = a.id) \
             ORDER BY a.id, b.id",
            "SELECT a.id FROM a JOIN b WHERE EXISTS (SELECT 1 FROM b AS x WHERE x.id = a.id) \
             ORDER BY a.id, b.id",
        ),
        (
            "WITH w AS (SELECT 1 AS x) SELECT id FROM a WHERE EXISTS \
             (SELECT 1 FROM b WHERE b.a_id = a.id) ORDER BY id",
            "SELECT id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.a_id = a.id) ORDER BY id",
        ),
        // Naming a WITH table's columns, and from a subquery within it, the table of the
        // subquery it stands in.
        (
            "WITH w AS (SELECT id FROM a) SELECT id FROM w WHERE EXISTS \
             (SELECT 1 FROM b WHERE b.a_id = w.id) ORDER BY id",
            "SELECT id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.a_id = a.id) ORDER BY id",
        ),
        (
            "SELECT id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.a_id = a.id AND EXISTS \
             (SELECT 1 FROM b AS x WHERE x.id = b.id)) ORDER BY id",
            "SELECT id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.a_id = a.id) ORDER BY id",
        ),
    ] {
        let got = ids(&mut c, sql);
        assert!(!got.is_empty(), "{sql}");
        assert_eq!(got, ids(&mut c, same), "{sql}");
    }
    // A correlated UNION, and an outer aggregate as the subquery's argument.
    for (sql, code) in [
        (
            "SELECT id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.a_id = a.id UNION SELECT 2)",
            1054,
        ),
        (
            "SELECT n FROM a GROUP BY n HAVING SUM(id) IN (SELECT a_id FROM b WHERE b.n = a.n)",
            1235,
        ),
    ] {
        assert_eq!(c.query(sql), Answer::Err(code), "{sql}");
    }
    // FOUND_ROWS() counts the statement's rows, not its subquery's.
    assert_eq!(
        ids(
            &mut c,
            "SELECT id FROM a WHERE (SELECT COUNT(*) FROM b WHERE b.a_id = a.id) > 0 ORDER BY id"
        ),
        ["1", "2", "4"]
    );
    assert_eq!(ids(&mut c, "SELECT FOUND_ROWS()"), ["3"]);
    assert_eq!(ids(&mut c, "SELECT COUNT(*) FROM a"), ["4"]);
    server.stop();
    node.stop();
}
