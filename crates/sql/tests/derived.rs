//! Derived tables, common table expressions and set operations through the protocol, for what
//! the differential suite cannot show: prepared statements run their derived tables again at
//! every execution, the limits on set operators and on derived tables within derived tables
//! answer errors instead of exhausting the connection thread's stack, and odd statements get
//! an answer without costing the connection.

mod common;
use common::raw::{Answer, Raw};

/// COM_STMT_EXECUTE of statement `id` with BIGINT parameters; the number of rows answered.
fn execute(c: &mut Raw, id: u32, params: &[i64]) -> usize {
    match c.execute_with(id, params) {
        Answer::Rows(rows) => rows.len(),
        other => panic!("execute {params:?}: {other:?}"),
    }
}

fn count(c: &mut Raw, sql: &str) -> usize {
    match c.query(sql) {
        Answer::Rows(rows) => rows.len(),
        other => panic!("{sql}: {other:?}"),
    }
}

fn setup(port: u16) -> Raw {
    let mut c = Raw::login_to(port, None);
    assert_eq!(c.query("CREATE DATABASE d"), Answer::Ok);
    assert_eq!(c.query("USE d"), Answer::Ok);
    assert_eq!(
        c.query("CREATE TABLE t (id INT NOT NULL PRIMARY KEY, n INT NOT NULL)"),
        Answer::Ok
    );
    let values: Vec<String> = (1..=10).map(|i| format!("({i}, {i})")).collect();
    assert_eq!(
        c.query(&format!("INSERT INTO t VALUES {}", values.join(", "))),
        Answer::Ok
    );
    c
}

#[test]
fn prepared_statements_run_their_derived_tables_at_every_execution() {
    let (node, server) = common::start(1 << 20);
    let mut c = setup(server.address().port());
    let derived = c.prepare("SELECT a.n FROM (SELECT n FROM t WHERE n <= ?) a WHERE a.n >= ?");
    assert_eq!(execute(&mut c, derived, &[5, 2]), 4);
    assert_eq!(execute(&mut c, derived, &[9, 1]), 9);
    let cte = c.prepare(
        "WITH c AS (SELECT n FROM t WHERE n > ?) SELECT n FROM c INTERSECT SELECT n FROM t WHERE n < ?",
    );
    assert_eq!(execute(&mut c, cte, &[3, 6]), 2, "4 and 5");
    assert_eq!(execute(&mut c, cte, &[0, 11]), 10);
    let except = c.prepare("SELECT n FROM t EXCEPT SELECT n FROM t WHERE id = ?");
    assert_eq!(execute(&mut c, except, &[1]), 9);
    // The rows are read again, not kept from the last execution.
    assert_eq!(
        c.query("INSERT INTO t VALUES (11, 11), (12, 12)"),
        Answer::Ok
    );
    assert_eq!(execute(&mut c, derived, &[100, 0]), 12);
    assert_eq!(execute(&mut c, cte, &[0, 100]), 12);
    assert_eq!(execute(&mut c, except, &[1]), 11);
    server.stop();
    node.stop();
}

#[test]
fn limits_answer_errors_before_the_stack_runs_out() {
    let (node, server) = common::start(1 << 20);
    let mut c = setup(server.address().port());
    let chain = |n: usize, op: &str| vec!["SELECT n FROM t"; n + 1].join(&format!(" {op} "));
    // The most set operators a query holds, in each place a query may stand.
    let most = chain(500, "UNION ALL");
    assert_eq!(count(&mut c, &most), 5010);
    assert_eq!(
        count(&mut c, &format!("SELECT COUNT(*) FROM ({most}) x")),
        1
    );
    assert_eq!(
        count(&mut c, &format!("SELECT id FROM t WHERE n IN ({most})")),
        10
    );
    assert_eq!(count(&mut c, &chain(500, "INTERSECT")), 10);
    assert_eq!(count(&mut c, &chain(500, "EXCEPT")), 0);
    // EXPLAIN: a row per SELECT.
    assert_eq!(count(&mut c, &format!("EXPLAIN {most}")), 501);
    assert_eq!(c.query(&chain(501, "UNION")), Answer::Err(1235));
    assert_eq!(
        c.query(&format!("SELECT * FROM ({}) x", chain(501, "UNION"))),
        Answer::Err(1235)
    );
    // Derived tables reading derived tables: 63 deep, not 64.
    let ctes = |n: usize| {
        let mut parts = vec!["c0 AS (SELECT 1 AS x)".to_string()];
        parts.extend((1..n).map(|i| format!("c{i} AS (SELECT x + 1 AS x FROM c{})", i - 1)));
        format!("WITH {} SELECT x FROM c{}", parts.join(", "), n - 1)
    };
    assert_eq!(count(&mut c, &ctes(63)), 1);
    assert_eq!(c.query(&ctes(64)), Answer::Err(1473));
    assert_eq!(c.query(&ctes(1_000)), Answer::Err(1473));
    // Derived tables nested in the text stop at the parser's recursion limit.
    let nested = |n: usize| {
        format!(
            "SELECT * FROM {}t{}",
            "(SELECT * FROM ".repeat(n),
            ") x".repeat(n)
        )
    };
    assert_eq!(count(&mut c, &nested(10)), 10);
    assert_eq!(c.query(&nested(200)), Answer::Err(1064));
    assert_eq!(count(&mut c, "SELECT 1"), 1, "the connection lives on");
    server.stop();
    node.stop();
}

#[test]
fn odd_statements_answer_and_keep_the_connection() {
    let (node, server) = common::start(1 << 20);
    let mut c = setup(server.address().port());
    for sql in [
        "SELECT * FROM (SELECT 1) AS",
        "WITH",
        "WITH a AS",
        "WITH a AS (SELECT 1) SELECT",
        "WITH a AS (SELECT 1)",
        "SELECT 1 UNION",
        "SELECT 1 INTERSECT ALL",
        "SELECT * FROM (SELECT * FROM (SELECT 1) a, (SELECT 1) a) b",
        "SELECT * FROM (SELECT NULL) t WHERE `NULL` IS NULL",
        "SELECT `$pk`, * FROM (SELECT 1 AS `$pk`) t",
        "SELECT * FROM (SELECT '') t JOIN (SELECT '') u ON 1",
        "SELECT * FROM (SELECT 1 AS a) t NATURAL JOIN (SELECT 1 AS a) u",
        "SELECT * FROM (SELECT 1 AS a) t JOIN (SELECT 1 AS a) u USING (a)",
        "SELECT t.a FROM (SELECT 1 AS a) t JOIN (SELECT 1 AS a) u USING (a)",
        "SELECT (SELECT a FROM (SELECT 1 AS a) t)",
        "SELECT * FROM (SELECT n FROM t) x FOR UPDATE",
        "SELECT * FROM (SELECT n FROM t) x LOCK IN SHARE MODE",
        "WITH a AS (SELECT 1 AS x) UPDATE t SET n = 1",
        "WITH a AS (SELECT 1) DELETE FROM t WHERE id = 0",
        "SELECT * FROM (VALUES (1)) t",
        "SELECT * FROM (TABLE t) x",
        "SELECT * FROM LATERAL (SELECT 1) x",
        "SELECT 1 UNION BY NAME SELECT 1",
        "SELECT 1 INTERSECT ALL BY NAME SELECT 1",
        "SELECT 1 MINUS SELECT 1",
        "(SELECT 1) UNION (SELECT 2) ORDER BY 3",
        "((SELECT n FROM t) UNION (SELECT 2) ORDER BY 1 DESC LIMIT 2) EXCEPT SELECT 10",
        "SELECT * FROM ((SELECT 1 AS a) UNION (SELECT 2)) t LIMIT 18446744073709551615",
        "SELECT * FROM (SELECT 1 AS a) t LIMIT 0",
        "SELECT x.* FROM (SELECT 1 AS a) t",
        "SELECT * FROM t AS x (a, b)",
        "SELECT * FROM (SELECT n, id FROM t) AS x (a)",
        "SELECT * FROM (SELECT n FROM t) AS x (a, a)",
        "WITH a (x) AS (SELECT n, id FROM t) SELECT * FROM a",
        "WITH RECURSIVE a AS (SELECT 1 UNION ALL SELECT x + 1 FROM a) SELECT * FROM a",
        "WITH a AS (SELECT * FROM a) SELECT * FROM a",
        "WITH a AS (SELECT 1 AS x) SELECT * FROM a WHERE x IN (WITH a AS (SELECT 2 AS x) SELECT x FROM a)",
        "WITH a AS (SELECT 1 AS x), b AS (SELECT x FROM a WHERE x IN (SELECT x FROM b)) SELECT * FROM b",
        "SELECT * FROM (SELECT 1 AS a) t WHERE a IN (SELECT a FROM t)",
        "SELECT * FROM (SELECT n FROM t GROUP BY n HAVING COUNT(*) > 0) x JOIN t ON t.n = x.n",
        "SELECT SUM(a), GROUP_CONCAT(b) FROM (SELECT n AS a, 'x' AS b FROM t) y",
        "SELECT * FROM (SELECT CAST('2024-01-02' AS DATE) AS d, CAST(1.5 AS DECIMAL(5,2)) AS m, 1e300 AS f) t",
        "SELECT a + 1 FROM (SELECT 9223372036854775807 AS a) t",
        "INSERT INTO t SELECT 100, 1 UNION SELECT 101, 2 EXCEPT SELECT 101, 2",
        "INSERT INTO t SELECT * FROM (SELECT 102, 3) x",
        "INSERT INTO t SELECT 103 UNION SELECT 104",
        "UPDATE (SELECT * FROM t) x SET n = 1",
        "DELETE FROM (SELECT 1) x",
        "EXPLAIN SELECT * FROM (SELECT n FROM t) x JOIN t ON t.n = x.n",
    ] {
        let answer = c.query(sql);
        assert!(
            matches!(answer, Answer::Ok | Answer::Err(_) | Answer::Rows(_)),
            "{sql}: {answer:?}"
        );
        assert_eq!(count(&mut c, "SELECT 1"), 1, "after {sql}: {answer:?}");
    }
    server.stop();
    node.stop();
}
