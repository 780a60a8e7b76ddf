//! Metadata statements through the protocol: SHOW PROCESSLIST lists live sessions and forgets
//! closed ones, SHOW STATUS counts statements for real (on the connection thread and in the
//! reactor), COM_FIELD_LIST answers column definitions then EOF, warnings reach the OK packet,
//! information_schema answers prepared and cached queries without the data node, and EXPLAIN
//! plans subqueries without running them.

use std::time::{Duration, Instant};

mod common;
use common::raw::{values, Answer, Raw};

fn rows(c: &mut Raw, sql: &str) -> Vec<Vec<Option<String>>> {
    match c.query(sql) {
        Answer::Rows(rows) => rows.iter().map(|r| values(r)).collect(),
        other => panic!("{sql}: {other:?}"),
    }
}

/// The value of one status or variable row.
fn status(c: &mut Raw, sql: &str) -> u64 {
    let r = rows(c, sql);
    assert_eq!(r.len(), 1, "{sql}: {r:?}");
    r[0][1].as_deref().unwrap().parse().unwrap()
}

fn setup(port: u16) -> Raw {
    let mut c = Raw::login_to(port, None);
    assert_eq!(c.query("CREATE DATABASE d"), Answer::Ok);
    assert_eq!(
        c.query("CREATE TABLE d.t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20) DEFAULT 'x', n INT)"),
        Answer::Ok
    );
    c
}

#[test]
fn process_list_shows_live_sessions_and_forgets_closed_ones() {
    let (node, server) = common::start(1 << 20);
    let port = server.address().port();
    let mut me = setup(port);
    let other = Raw::login(port);
    let list = rows(&mut me, "SHOW FULL PROCESSLIST");
    assert_eq!(list.len(), 2, "{list:?}");
    let own = list
        .iter()
        .find(|r| r[7].as_deref() == Some("SHOW FULL PROCESSLIST"))
        .expect("its own row");
    assert_eq!(own[1].as_deref(), Some("root"));
    assert_eq!(own[4].as_deref(), Some("Query"));
    assert!(
        own[2].as_deref().unwrap().starts_with("127.0.0.1:"),
        "{own:?}"
    );
    let idle = list.iter().find(|r| r[0] != own[0]).unwrap();
    assert_eq!(idle[3].as_deref(), Some("d"), "db: {idle:?}");
    assert_eq!(idle[4].as_deref(), Some("Sleep"));
    assert_eq!(idle[7], None, "no statement while idle");
    assert_eq!(idle[8].as_deref(), Some("0.000"), "Progress");
    let short = rows(
        &mut me,
        &format!("SHOW PROCESSLIST /* {} */", "x".repeat(200)),
    );
    let own = short
        .iter()
        .find(|r| r[4].as_deref() == Some("Query"))
        .unwrap();
    assert_eq!(
        own[7].as_deref().unwrap().chars().count(),
        100,
        "Info cut without FULL"
    );

    drop(other);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let n = rows(&mut me, "SHOW PROCESSLIST").len();
        if n == 1 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the closed session is still listed"
        );
        std::thread::yield_now();
    }
    server.stop();
    node.stop();
}

#[test]
fn status_counters_count_statements_on_the_thread_and_in_the_reactor() {
    let (node, server) = common::start(1 << 20);
    let port = server.address().port();
    let mut c = setup(port);
    assert_eq!(c.query("USE d"), Answer::Ok);
    let selects = status(&mut c, "SHOW STATUS LIKE 'Com_select'");
    let questions = status(&mut c, "SHOW SESSION STATUS LIKE 'Questions'");
    assert_eq!(
        c.query("INSERT INTO t (n) VALUES (1), (2), (3)"),
        Answer::Ok
    );
    assert_eq!(c.query("UPDATE t SET n = 5 WHERE id = 1"), Answer::Ok);
    assert_eq!(c.query("DELETE FROM t WHERE id = 3"), Answer::Ok);
    // The same text twice: the second is served by the reactor from the plan cache.
    for _ in 0..2 {
        assert_eq!(rows(&mut c, "SELECT n FROM t WHERE id = 2").len(), 1);
    }
    let id = c.prepare("SELECT n FROM t WHERE id = ?");
    let mut execute = vec![0x17];
    execute.extend_from_slice(&id.to_le_bytes());
    execute.extend_from_slice(&[0, 1, 0, 0, 0, 0, 1, 8, 0]);
    execute.extend_from_slice(&1i64.to_le_bytes());
    c.send(0, &execute);
    assert!(matches!(c.answer(), Answer::Rows(r) if r.len() == 1));
    assert_eq!(
        status(&mut c, "SHOW STATUS LIKE 'Com_select'"),
        selects + 3,
        "two text SELECTs and one prepared"
    );
    assert_eq!(status(&mut c, "SHOW STATUS LIKE 'Com_insert'"), 1);
    assert_eq!(status(&mut c, "SHOW STATUS LIKE 'Com_update'"), 1);
    assert_eq!(status(&mut c, "SHOW STATUS LIKE 'Com_delete'"), 1);
    // Statements answered since: SHOW STATUS, three writes, three SELECTs, four SHOW STATUS.
    assert_eq!(
        status(&mut c, "SHOW STATUS LIKE 'Questions'"),
        questions + 11
    );

    let mut other = Raw::login(port);
    assert!(status(&mut other, "SHOW GLOBAL STATUS LIKE 'Com_select'") >= 3);
    assert_eq!(status(&mut other, "SHOW STATUS LIKE 'Com_select'"), 0);
    assert_eq!(
        status(&mut other, "SHOW STATUS LIKE 'Threads_connected'"),
        2
    );
    let all = rows(&mut other, "SHOW GLOBAL STATUS");
    let names: Vec<&str> = all.iter().map(|r| r[0].as_deref().unwrap()).collect();
    for name in ["Connections", "Questions", "Threads_connected", "Uptime"] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    server.stop();
    node.stop();
}

#[test]
fn field_list_answers_column_definitions_then_eof() {
    let (node, server) = common::start(1 << 20);
    let port = server.address().port();
    drop(setup(port));
    let mut c = Raw::login(port);
    let field_list = |c: &mut Raw, body: &[u8]| -> Result<Vec<Vec<u8>>, u16> {
        let mut p = vec![0x04];
        p.extend_from_slice(body);
        c.send(0, &p);
        let mut defs = Vec::new();
        loop {
            let packet = c.packet().unwrap();
            match packet[0] {
                0xfe if packet.len() < 9 => return Ok(defs),
                0xff => return Err(u16::from_le_bytes([packet[1], packet[2]])),
                _ => defs.push(packet),
            }
        }
    };
    let defs = field_list(&mut c, b"t\0").unwrap();
    assert_eq!(defs.len(), 3);
    // Each definition: catalog "def", schema, table, org_table, name, ...; then the default.
    let name_of = |d: &[u8]| {
        let mut at = 0;
        let mut field = Vec::new();
        for _ in 0..5 {
            let len = d[at] as usize;
            field = d[at + 1..at + 1 + len].to_vec();
            at += 1 + len;
        }
        String::from_utf8(field).unwrap()
    };
    let names: Vec<String> = defs.iter().map(|d| name_of(d)).collect();
    assert_eq!(names, ["id", "name", "n"]);
    assert!(
        defs[1].ends_with(b"\x01x"),
        "name's default 'x' ends its definition"
    );
    assert_eq!(*defs[2].last().unwrap(), 0xfb, "n has no default");
    let defs = field_list(&mut c, b"t\0n%").unwrap();
    assert_eq!(defs.len(), 2, "the wildcard keeps name and n");
    assert_eq!(field_list(&mut c, b"nosuch\0"), Err(1146));
    // The connection still serves queries after it.
    assert_eq!(rows(&mut c, "SELECT 1").len(), 1);
    server.stop();
    node.stop();
}

#[test]
fn warnings_reach_the_ok_packet_and_show_warnings() {
    let (node, server) = common::start(1 << 20);
    let port = server.address().port();
    let mut c = setup(port);
    let mut p = vec![0x03];
    p.extend_from_slice(b"DROP TABLE IF EXISTS d.nosuch");
    c.send(0, &p);
    let ok = c.packet().unwrap();
    assert_eq!(ok[0], 0);
    // OK: header, affected (0), last id (0), status (2 bytes), warnings (2 bytes).
    assert_eq!(u16::from_le_bytes([ok[5], ok[6]]), 1, "one warning: {ok:?}");
    let w = rows(&mut c, "SHOW WARNINGS");
    assert_eq!(
        w,
        vec![vec![
            Some("Note".into()),
            Some("1051".into()),
            Some("Unknown table 'd.nosuch'".into())
        ]]
    );
    assert_eq!(c.query("SELECT * FROM d.nosuch"), Answer::Err(1146));
    assert_eq!(rows(&mut c, "SHOW ERRORS")[0][1].as_deref(), Some("1146"));
    assert_eq!(
        rows(&mut c, "SELECT @@error_count")[0][0].as_deref(),
        Some("1")
    );
    assert_eq!(rows(&mut c, "SELECT n FROM d.t").len(), 0);
    assert_eq!(
        rows(&mut c, "SHOW WARNINGS").len(),
        0,
        "a table read empties it"
    );
    server.stop();
    node.stop();
}

#[test]
fn information_schema_serves_prepared_and_cached_queries() {
    let (node, server) = common::start(1 << 20);
    let port = server.address().port();
    let mut c = setup(port);
    assert_eq!(c.query("INSERT INTO d.t (n) VALUES (1), (2)"), Answer::Ok);
    let create = rows(&mut c, "SHOW CREATE TABLE d.t");
    assert!(
        create[0][1]
            .as_deref()
            .unwrap()
            .contains(" AUTO_INCREMENT=3 "),
        "{create:?}"
    );
    let sql =
        "SELECT TABLE_NAME, AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'd'";
    // Twice: the second run is served from the session's plan cache.
    for _ in 0..2 {
        assert_eq!(
            rows(&mut c, sql),
            vec![vec![Some("t".into()), Some("3".into())]]
        );
    }
    let id = c.prepare("SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? ORDER BY ORDINAL_POSITION");
    for _ in 0..2 {
        let mut execute = vec![0x17];
        execute.extend_from_slice(&id.to_le_bytes());
        execute.extend_from_slice(&[0, 1, 0, 0, 0, 0, 1, 253, 0, 1, b'd']);
        c.send(0, &execute);
        match c.answer() {
            Answer::Rows(r) => assert_eq!(r.len(), 3, "id, name, n"),
            other => panic!("execute: {other:?}"),
        }
    }
    assert_eq!(c.query("USE information_schema"), Answer::Ok);
    assert_eq!(
        rows(
            &mut c,
            "SELECT COUNT(*) FROM SCHEMATA WHERE SCHEMA_NAME = 'd'"
        ),
        vec![vec![Some("1".into())]]
    );
    assert_eq!(c.query("DELETE FROM TABLES"), Answer::Err(1044));
    server.stop();
    node.stop();
}

/// SHOW PLUGINS lists the authentication plugins a client may log in with (PyMySQL's own tests
/// read it to choose theirs) and the storage engine, as MariaDB's columns.
#[test]
fn show_plugins_lists_the_authentication_plugins() {
    let (node, server) = common::start(16 << 20);
    let mut c = setup(server.address().port());
    let listed: Vec<(String, String, String)> = rows(&mut c, "SHOW PLUGINS")
        .into_iter()
        .map(|r| {
            assert_eq!(r.len(), 5, "Name, Status, Type, Library, License");
            (
                r[0].clone().unwrap(),
                r[1].clone().unwrap(),
                r[2].clone().unwrap(),
            )
        })
        .collect();
    for plugin in ["mysql_native_password", "caching_sha2_password"] {
        assert!(
            listed.contains(&(plugin.into(), "ACTIVE".into(), "AUTHENTICATION".into())),
            "{listed:?}"
        );
    }
    drop(c);
    server.stop();
    node.stop();
}

/// The mysql client's table output of `sql` with --column-type-info (each column's type and
/// flags).
fn column_type_info(port: u16, sql: &str) -> String {
    let out = std::process::Command::new("mysql")
        .args(["-h", "127.0.0.1", "-P", &port.to_string(), "-u", "root"])
        .args(["--column-type-info", "-t", "-e", sql])
        .output()
        .expect("the mysql client runs (apt-get install mariadb-client)");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// The `Type:` of each column in `column_type_info`'s output.
fn column_types(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.strip_prefix("Type:"))
        .map(str::trim)
        .collect()
}

/// A user variable selected alone has its value's type, as in MariaDB (an integer LONGLONG, a
/// decimal NEWDECIMAL, a double DOUBLE), so drivers that convert by type (PyMySQL) get numbers;
/// a string stays a string. The mysql client's --column-type-info shows the metadata.
#[test]
fn user_variables_have_their_values_types() {
    let (node, server) = common::start(16 << 20);
    let text = column_type_info(
        server.address().port(),
        "SET @i = 30, @d = 1.5, @f = 1e0, @s = 'ab'; SELECT @i, @d, @f, @s",
    );
    let types = column_types(&text);
    assert_eq!(types.len(), 4, "{text}");
    assert_eq!(&types[..3], ["LONGLONG", "NEWDECIMAL", "DOUBLE"], "{text}");
    assert!(
        ["VAR_STRING", "STRING", "BLOB", "LONG_BLOB"].contains(&types[3]),
        "{text}"
    );
    let values: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with('|'))
        .nth(1)
        .unwrap_or_default()
        .split('|')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .collect();
    assert_eq!(values, ["30", "1.5", "1", "ab"], "{text}");
    server.stop();
    node.stop();
}

/// Integer results past BIGINT's range carry the UNSIGNED flag (a literal, CAST(... AS
/// UNSIGNED), +, - and * with an unsigned operand), as in MariaDB: the binary protocol sends
/// their 8 bytes, which a driver reads as negative without the flag. A small literal stays
/// signed; DIV is not flagged (its result can be negative).
#[test]
fn unsigned_results_are_flagged_unsigned() {
    let (node, server) = common::start(16 << 20);
    let text = column_type_info(
        server.address().port(),
        "SELECT 18446744073709551615 AS a, CAST(-1 AS UNSIGNED) AS b, \
         CAST(5 AS UNSIGNED) + 1 AS c, 18446744073709551615 + 0 AS d, 5 AS e, \
         CAST(7 AS UNSIGNED) - 1 AS f, 7 DIV CAST(2 AS UNSIGNED) AS g",
    );
    let unsigned: Vec<bool> = text
        .lines()
        .filter_map(|l| l.strip_prefix("Flags:"))
        .map(|f| f.split_whitespace().any(|w| w == "UNSIGNED"))
        .collect();
    assert_eq!(
        unsigned,
        [true, true, true, true, false, true, false],
        "{text}"
    );
    server.stop();
    node.stop();
}

/// FLOOR and CEILING of a DECIMAL of more than 18 whole digits are DECIMALs without decimals
/// (their values may pass BIGINT UNSIGNED, which a BIGINT column would cut), as in MariaDB;
/// of a narrower one, BIGINT.
#[test]
fn floor_of_a_wide_decimal_is_a_decimal() {
    let (node, server) = common::start(16 << 20);
    let text = column_type_info(
        server.address().port(),
        "SELECT FLOOR(CAST(REPEAT('9', 65) AS DECIMAL(65,0))) AS a, \
         CEILING(CAST(1.5 AS DECIMAL(30,10))) AS b, FLOOR(CAST(1.5 AS DECIMAL(10,1))) AS c",
    );
    let types = column_types(&text);
    assert_eq!(types, ["NEWDECIMAL", "NEWDECIMAL", "LONGLONG"], "{text}");
    assert!(text.contains(&"9".repeat(65)), "{text}");
    server.stop();
    node.stop();
}

/// EXPLAIN plans a statement's subqueries and never runs them: a scalar subquery answering two
/// rows (which fails when the statement runs) is explained as SUBQUERY, a correlated one as
/// DEPENDENT SUBQUERY, and each SELECT of a UNION gets its own row.
#[test]
fn explain_plans_subqueries_without_running_them() {
    let (node, server) = common::start(1 << 20);
    let mut c = setup(server.address().port());
    assert_eq!(c.query("INSERT INTO d.t (n) VALUES (1), (2)"), Answer::Ok);
    let two_rows = "SELECT id FROM d.t WHERE n = (SELECT n FROM d.t)";
    match c.query(two_rows) {
        Answer::Err(code) => assert_eq!(code, 1242),
        other => panic!("{two_rows}: {other:?}"),
    }
    let kinds = |c: &mut Raw, sql: &str| -> Vec<(String, String)> {
        rows(c, sql)
            .into_iter()
            .map(|r| (r[0].clone().unwrap(), r[1].clone().unwrap()))
            .collect()
    };
    let pair = |id: &str, kind: &str| (id.to_string(), kind.to_string());
    assert_eq!(
        kinds(&mut c, &format!("EXPLAIN {two_rows}")),
        [pair("1", "PRIMARY"), pair("2", "SUBQUERY")]
    );
    assert_eq!(
        kinds(
            &mut c,
            "EXPLAIN SELECT id FROM d.t WHERE id IN (SELECT n FROM d.t) AND EXISTS (SELECT 1 FROM d.t WHERE n > 5)"
        ),
        [pair("1", "PRIMARY"), pair("2", "SUBQUERY"), pair("3", "SUBQUERY")]
    );
    assert_eq!(
        kinds(
            &mut c,
            "EXPLAIN SELECT id FROM d.t a WHERE n = (SELECT MAX(n) FROM d.t b WHERE b.id = a.id)"
        ),
        [pair("1", "PRIMARY"), pair("2", "DEPENDENT SUBQUERY")]
    );
    assert_eq!(
        kinds(&mut c, "EXPLAIN SELECT id FROM d.t UNION SELECT n FROM d.t"),
        [pair("1", "PRIMARY"), pair("2", "UNION")]
    );
    // The statement still runs as before once explained.
    match c.query(two_rows) {
        Answer::Err(code) => assert_eq!(code, 1242),
        other => panic!("{two_rows}: {other:?}"),
    }
    drop(c);
    drop(server);
    drop(node);
}

/// ANALYZE TABLE measures a table's statistics: EXPLAIN then shows estimated rows, SHOW INDEX
/// their cardinality, and the join order follows them (the small, filtered table first, the large one reached by index),
/// while an unanalyzed join keeps the order its rules give.
#[test]
fn analyze_feeds_estimates_and_the_join_order() {
    let (node, server) = common::start(1 << 20);
    let mut c = setup(server.address().port());
    assert_eq!(
        c.query("CREATE TABLE d.g (id INT PRIMARY KEY, tag INT)"),
        Answer::Ok
    );
    assert_eq!(
        c.query("CREATE TABLE d.m (id INT PRIMARY KEY, g INT, v INT, KEY (g))"),
        Answer::Ok
    );
    let groups: Vec<String> = (0..50).map(|i| format!("({i}, {})", i % 10)).collect();
    let insert = format!("INSERT INTO d.g VALUES {}", groups.join(", "));
    assert_eq!(c.query(&insert), Answer::Ok);
    let members: Vec<String> = (0..2000)
        .map(|i| format!("({i}, {}, {i})", i % 50))
        .collect();
    let insert = format!("INSERT INTO d.m VALUES {}", members.join(", "));
    assert_eq!(c.query(&insert), Answer::Ok);
    let join = "SELECT m.v FROM d.m m JOIN d.g g ON m.g = g.id WHERE g.tag = 3";
    let explained = |c: &mut Raw| -> Vec<(String, Option<String>)> {
        rows(c, &format!("EXPLAIN {join}"))
            .into_iter()
            .map(|r| (r[2].clone().unwrap(), r[9].clone()))
            .collect()
    };
    // Unanalyzed: no estimates, the tables in the order written.
    let before = explained(&mut c);
    assert_eq!(before, [("m".to_string(), None), ("g".to_string(), None)]);
    let answer = rows(&mut c, "ANALYZE TABLE d.g, d.m");
    let statuses: Vec<(Option<String>, Option<String>)> = answer
        .iter()
        .map(|r| (r[0].clone(), r[3].clone()))
        .collect();
    assert_eq!(
        statuses,
        [
            (Some("d.g".into()), Some("OK".into())),
            (Some("d.m".into()), Some("OK".into()))
        ]
    );
    // 50 groups read whole (10% kept by tag = 3), then 40 members per group by index.
    let after = explained(&mut c);
    assert_eq!(
        after,
        [
            ("g".to_string(), Some("50".to_string())),
            ("m".to_string(), Some("40".to_string()))
        ]
    );
    // SHOW INDEX's Cardinality: the distinct values ANALYZE measured per key prefix.
    let cardinality: Vec<(Option<String>, Option<String>)> = rows(&mut c, "SHOW INDEX FROM d.m")
        .into_iter()
        .map(|r| (r[2].clone(), r[6].clone()))
        .collect();
    assert_eq!(
        cardinality,
        [
            (Some("PRIMARY".into()), Some("2000".into())),
            (Some("g".into()), Some("50".into()))
        ]
    );
    let mut found = rows(&mut c, &format!("{join} ORDER BY m.v"));
    assert_eq!(found.len(), 200);
    found.truncate(2);
    assert_eq!(found, [[Some("3".to_string())], [Some("13".to_string())]]);
    drop(c);
    drop(server);
    drop(node);
}
