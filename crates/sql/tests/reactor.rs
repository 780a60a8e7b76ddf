//! The reactor and the connection threads share each connection: commands pipelined in one write
//! (some served by the reactor, some by the thread) are answered in order with the right
//! results, and random command packets after login close at most their own connection. Also
//! statements only the thread runs: joins past one batch of keyed reads, the row alias of
//! INSERT ... ON DUPLICATE KEY UPDATE. And NOW() in cached and prepared plans: read again at
//! each execution, one value within a statement. And SLEEP and GET_LOCK, which wait on the
//! connection's thread without holding up other clients.

use std::io::{Read, Write};
use std::time::SystemTime;

mod common;
use common::raw::{Answer, Raw};

/// COM_STMT_EXECUTE of statement `id` with one BIGINT parameter.
fn execute(id: u32, param: i64) -> Vec<u8> {
    let mut p = vec![0x17];
    p.extend_from_slice(&id.to_le_bytes());
    p.push(0);
    p.extend_from_slice(&1u32.to_le_bytes());
    p.push(0); // null bitmap
    p.push(1); // types follow
    p.extend_from_slice(&[8, 0]); // LONGLONG, signed
    p.extend_from_slice(&param.to_le_bytes());
    p
}

/// A binary row of one string column holding `text`.
fn binary_text_row(text: &str) -> Vec<u8> {
    let mut r = vec![0x00, 0x00, text.len() as u8];
    r.extend_from_slice(text.as_bytes());
    r
}

fn setup(port: u16) {
    let mut c = Raw::login_to(port, None);
    assert_eq!(c.query("CREATE DATABASE d"), Answer::Ok);
    assert_eq!(
        c.query("CREATE TABLE d.t (id BIGINT PRIMARY KEY, v VARCHAR(20))"),
        Answer::Ok
    );
    let values: Vec<String> = (1..=50).map(|i| format!("({i}, 'v{i}')")).collect();
    assert_eq!(
        c.query(&format!("INSERT INTO d.t VALUES {}", values.join(","))),
        Answer::Ok
    );
}

#[test]
fn pipelined_commands_keep_their_order_across_reactor_and_thread() {
    let (node, server) = common::start(1 << 20);
    let port = server.address().port();
    setup(port);
    let mut c = Raw::login(port);
    let point = c.prepare("SELECT v FROM t WHERE id = ?");
    let range = c.prepare("SELECT v FROM t WHERE id BETWEEN ? AND 3 ORDER BY v");
    let begin = c.prepare("BEGIN");
    let commit = c.prepare("COMMIT");
    // One write: reactor (execute), thread (query), reactor again, a ping, a miss, a range,
    // transaction control, and an update in the middle that the thread runs.
    let mut batch = Vec::new();
    let mut push = |payload: Vec<u8>| {
        let mut b = (payload.len() as u32).to_le_bytes()[..3].to_vec();
        b.push(0);
        b.extend_from_slice(&payload);
        batch.extend_from_slice(&b);
    };
    let mut begin_exec = vec![0x17];
    begin_exec.extend_from_slice(&begin.to_le_bytes());
    begin_exec.extend_from_slice(&[0, 1, 0, 0, 0]);
    let mut commit_exec = vec![0x17];
    commit_exec.extend_from_slice(&commit.to_le_bytes());
    commit_exec.extend_from_slice(&[0, 1, 0, 0, 0]);
    push(execute(point, 7));
    push([&[0x03][..], b"SELECT 40 + 2"].concat());
    push(execute(point, 8));
    push(vec![0x0e]);
    push(execute(point, 999));
    push(begin_exec);
    push(execute(range, 1));
    push([&[0x03][..], b"UPDATE t SET v = 'new' WHERE id = 9"].concat());
    push(execute(point, 9));
    push(commit_exec);
    push(execute(point, 9));
    c.s.write_all(&batch).unwrap();
    assert_eq!(c.answer(), Answer::Rows(vec![binary_text_row("v7")]));
    assert_eq!(c.answer(), Answer::Rows(vec![b"\x0242".to_vec()]));
    assert_eq!(c.answer(), Answer::Rows(vec![binary_text_row("v8")]));
    assert_eq!(c.answer(), Answer::Ok, "ping");
    assert_eq!(c.answer(), Answer::Rows(vec![]), "no row 999");
    assert_eq!(c.answer(), Answer::Ok, "begin");
    assert_eq!(
        c.answer(),
        Answer::Rows(vec![
            binary_text_row("v1"),
            binary_text_row("v2"),
            binary_text_row("v3")
        ])
    );
    assert_eq!(c.answer(), Answer::Ok, "update");
    // Inside the transaction that wrote it, the read sees its own write.
    assert_eq!(c.answer(), Answer::Rows(vec![binary_text_row("new")]));
    assert_eq!(c.answer(), Answer::Ok, "commit");
    assert_eq!(c.answer(), Answer::Rows(vec![binary_text_row("new")]));
    // A table dropped and made again under a prepared statement: planned again.
    let mut other = Raw::login(port);
    assert_eq!(other.query("DROP TABLE t"), Answer::Ok);
    assert_eq!(
        other.query("CREATE TABLE t (id BIGINT PRIMARY KEY, v VARCHAR(20))"),
        Answer::Ok
    );
    assert_eq!(other.query("INSERT INTO t VALUES (7, 'again')"), Answer::Ok);
    c.send(0, &execute(point, 7));
    assert_eq!(c.answer(), Answer::Rows(vec![binary_text_row("again")]));
    // Many connections at once, each with reads in flight through the reactor.
    let threads: Vec<_> = (0..8)
        .map(|n| {
            std::thread::spawn(move || {
                let mut c = Raw::login(port);
                let id = c.prepare("SELECT v FROM t WHERE id = ?");
                for _ in 0..200 {
                    c.send(0, &execute(id, 7));
                    assert_eq!(c.answer(), Answer::Rows(vec![binary_text_row("again")]));
                }
                n
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    server.stop();
    node.stop();
}

#[test]
fn random_commands_after_login_close_at_most_their_connection() {
    let (node, server) = common::start(1 << 20);
    let port = server.address().port();
    setup(port);
    let seed = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    println!("random commands seed: {seed}");
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..20 {
        let mut c = Raw::login(port);
        let id = c.prepare("SELECT v FROM t WHERE id = ?");
        let mut batch = Vec::new();
        for _ in 0..10 {
            let len = (next() % 40) as usize;
            let mut p: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            // Mostly executes of the prepared statement with a random tail, some other commands.
            match next() % 4 {
                0 | 1 => {
                    let mut e = vec![0x17];
                    e.extend_from_slice(&id.to_le_bytes());
                    e.append(&mut p);
                    p = e;
                }
                2 => p.insert(0, [0x0e, 0x19, 0x1a, 0x1c][(next() % 4) as usize]),
                _ => {}
            }
            let mut b = (p.len() as u32).to_le_bytes()[..3].to_vec();
            b.push(0);
            b.extend_from_slice(&p);
            batch.extend_from_slice(&b);
        }
        let _ = c.s.write_all(&batch);
        let _ = c.s.shutdown(std::net::Shutdown::Write);
        let mut sink = [0u8; 4096];
        while let Ok(n) = c.s.read(&mut sink) {
            if n == 0 {
                break;
            }
        }
    }
    // The server still serves.
    let mut c = Raw::login(port);
    let id = c.prepare("SELECT v FROM t WHERE id = ?");
    c.send(0, &execute(id, 3));
    assert_eq!(c.answer(), Answer::Rows(vec![binary_text_row("v3")]));
    server.stop();
    node.stop();
}

/// A text row of one column holding `text`.
fn text_row(text: &str) -> Vec<u8> {
    let mut r = vec![text.len() as u8];
    r.extend_from_slice(text.as_bytes());
    r
}

#[test]
fn cached_text_query_plans_take_each_querys_own_values() {
    let (node, server) = common::start(1 << 20);
    let port = server.address().port();
    setup(port);
    let mut c = Raw::login(port);
    // The same statement with other values, each answered with its own row.
    for id in [4, 9, 4, 50, 51] {
        let expected = if id <= 50 {
            vec![text_row(&format!("v{id}"))]
        } else {
            vec![]
        };
        assert_eq!(
            c.query(&format!("SELECT v FROM t WHERE id = {id}")),
            Answer::Rows(expected)
        );
    }
    assert_eq!(
        c.query("SELECT v FROM t WHERE id BETWEEN 10 AND 12 ORDER BY id DESC"),
        Answer::Rows(vec![text_row("v12"), text_row("v11"), text_row("v10")])
    );
    assert_eq!(
        c.query("SELECT v FROM t WHERE id BETWEEN 20 AND 21 ORDER BY id DESC"),
        Answer::Rows(vec![text_row("v21"), text_row("v20")])
    );
    assert_eq!(c.query("UPDATE t SET v = 'w' WHERE id = 30"), Answer::Ok);
    assert_eq!(c.query("INSERT INTO t VALUES (100, 'x100')"), Answer::Ok);
    assert_eq!(c.query("INSERT INTO t VALUES (101, 'x101')"), Answer::Ok);
    assert_eq!(
        c.query("INSERT INTO t VALUES (101, 'again')"),
        Answer::Err(1062)
    );
    assert_eq!(
        c.query("SELECT v FROM t WHERE id IN (30, 101) ORDER BY id"),
        Answer::Rows(vec![text_row("w"), text_row("x101")])
    );
    // ROW_COUNT() reads the statement before's count, from the thread (the text's first run)
    // and from the reactor (its cached plan) alike.
    for v in ["u1", "u2"] {
        assert_eq!(
            c.query(&format!("UPDATE t SET v = '{v}' WHERE id = 5")),
            Answer::Ok
        );
        assert_eq!(
            c.query("SELECT ROW_COUNT(), v FROM t WHERE id = 5"),
            Answer::Rows(vec![text_row_of(&["1", v])])
        );
    }
    // Errors still name the text as typed.
    assert_eq!(
        c.query("SELECT nope FROM t WHERE id = 1"),
        Answer::Err(1054)
    );
    assert_eq!(
        c.query("SELECT nope FROM t WHERE id = 2"),
        Answer::Err(1054)
    );
    // Another session makes the table again with other columns: the plan is made again.
    let mut other = Raw::login(port);
    assert_eq!(other.query("DROP TABLE t"), Answer::Ok);
    assert_eq!(
        other.query("CREATE TABLE t (id BIGINT PRIMARY KEY, n INT, v VARCHAR(20))"),
        Answer::Ok
    );
    assert_eq!(
        other.query("INSERT INTO t VALUES (4, 1, 'new4')"),
        Answer::Ok
    );
    assert_eq!(
        c.query("SELECT v FROM t WHERE id = 4"),
        Answer::Rows(vec![text_row("new4")])
    );
    // And in another database, the same text names another table.
    assert_eq!(c.query("CREATE DATABASE e"), Answer::Ok);
    assert_eq!(
        c.query("CREATE TABLE e.t (id BIGINT PRIMARY KEY, v VARCHAR(20))"),
        Answer::Ok
    );
    assert_eq!(c.query("INSERT INTO e.t VALUES (4, 'e4')"), Answer::Ok);
    let mut init_db = vec![0x02];
    init_db.extend_from_slice(b"e");
    c.send(0, &init_db);
    assert_eq!(c.answer(), Answer::Ok);
    assert_eq!(
        c.query("SELECT v FROM t WHERE id = 4"),
        Answer::Rows(vec![text_row("e4")])
    );
    server.stop();
    node.stop();
}

/// One text row of `values`.
fn text_row_of(values: &[&str]) -> Vec<u8> {
    let mut r = Vec::new();
    for v in values {
        r.push(v.len() as u8);
        r.extend_from_slice(v.as_bytes());
    }
    r
}

#[test]
fn joins_read_keys_past_one_batch_and_upserts_take_the_row_alias() {
    let (node, server) = common::start(16 << 20);
    let port = server.address().port();
    let mut c = Raw::login_to(port, None);
    assert_eq!(c.query("CREATE DATABASE j"), Answer::Ok);
    assert_eq!(c.query("USE j"), Answer::Ok);
    assert_eq!(
        c.query("CREATE TABLE a (id INT PRIMARY KEY, b INT)"),
        Answer::Ok
    );
    assert_eq!(
        c.query("CREATE TABLE b (id INT PRIMARY KEY, x INT)"),
        Answer::Ok
    );
    // More joined rows than one batch of keyed reads holds.
    let rows = base::limits::BATCH_OPERATIONS_MAX + 3_000;
    for start in (0..rows).step_by(5_000) {
        let end = (start + 5_000).min(rows);
        let a: Vec<String> = (start..end)
            .map(|i| format!("({i}, {})", rows - 1 - i))
            .collect();
        let b: Vec<String> = (start..end).map(|i| format!("({i}, {})", i % 7)).collect();
        assert_eq!(
            c.query(&format!("INSERT INTO a VALUES {}", a.join(","))),
            Answer::Ok
        );
        assert_eq!(
            c.query(&format!("INSERT INTO b VALUES {}", b.join(","))),
            Answer::Ok
        );
    }
    let expected_sum: usize = (0..rows).map(|i| i % 7).sum();
    assert_eq!(
        c.query("SELECT COUNT(*), SUM(b.x) FROM a JOIN b ON b.id = a.b"),
        Answer::Rows(vec![text_row_of(&[
            &rows.to_string(),
            &expected_sum.to_string()
        ])])
    );
    // A prepared join with a parameter runs on the connection's thread.
    let id = c.prepare("SELECT b.x FROM a JOIN b ON b.id = a.b WHERE a.id = ?");
    c.send(0, &execute(id, 10));
    let x = ((rows - 11) % 7).to_string();
    assert_eq!(c.answer(), Answer::Rows(vec![binary_text_row_int(&x)]));
    // MySQL 8's row alias in ON DUPLICATE KEY UPDATE (MariaDB has only VALUES()).
    assert_eq!(
        c.query("INSERT INTO b VALUES (5, 100) AS n ON DUPLICATE KEY UPDATE x = n.x + b.x"),
        Answer::Ok
    );
    assert_eq!(
        c.query("SELECT x FROM b WHERE id = 5"),
        Answer::Rows(vec![text_row("105")])
    );
    drop(server);
    drop(node);
}

/// A binary row of one INT column holding `text`'s value.
fn binary_text_row_int(text: &str) -> Vec<u8> {
    let mut r = vec![0x00, 0x00];
    r.extend_from_slice(&text.parse::<i32>().unwrap().to_le_bytes());
    r
}

/// The text of a one-column text row, or of a one-column binary row of a string.
fn row_text(row: &[u8], binary: bool) -> String {
    let at = if binary { 2 } else { 0 };
    let len = row[at] as usize;
    String::from_utf8(row[at + 1..at + 1 + len].to_vec()).unwrap()
}

/// Runs `next` (which answers one row of one column) until its text differs from `first`,
/// for at most a few seconds: the clock moves on between executions.
fn until_changed(first: &str, mut next: impl FnMut() -> String) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let now = next();
        if now != first || std::time::Instant::now() > deadline {
            return now;
        }
    }
}

#[test]
fn now_is_read_at_each_execution_and_fixed_within_one() {
    let (node, server) = common::start(1 << 20);
    let port = server.address().port();
    setup(port);
    let mut c = Raw::login(port);
    // Within one statement every row and every call sees one time.
    let Answer::Rows(rows) = c.query("SELECT CONCAT(NOW(6), '|', NOW(6)) FROM t") else {
        panic!("rows expected");
    };
    assert_eq!(rows.len(), 50);
    let first = row_text(&rows[0], false);
    let (a, b) = first.split_once('|').unwrap();
    assert_eq!(a, b, "{first}");
    assert!(rows.iter().all(|r| row_text(r, false) == first));
    // A prepared statement (by key: the reactor serves it; and without a table) and a text
    // statement served from the plan cache each read the clock again when they run.
    for sql in [
        "SELECT CONCAT(NOW(6)) FROM t WHERE id = ?",
        "SELECT CONCAT(NOW(6), ?)",
    ] {
        let id = c.prepare(sql);
        let mut run = || {
            c.send(0, &execute(id, 7));
            match c.answer() {
                Answer::Rows(rows) => row_text(&rows[0], true),
                other => panic!("{sql}: {other:?}"),
            }
        };
        let first = run();
        assert_ne!(until_changed(&first, run), first, "{sql}");
    }
    let mut run = || match c.query("SELECT CONCAT(NOW(6)) FROM t WHERE id = 7") {
        Answer::Rows(rows) => row_text(&rows[0], false),
        other => panic!("{other:?}"),
    };
    let first = run();
    assert_ne!(until_changed(&first, run), first, "cached text statement");
    server.stop();
    node.stop();
}

#[test]
fn a_client_that_sends_and_closes_gets_its_answers_and_the_close() {
    let (node, server) = common::start(1 << 20);
    let port = server.address().port();
    setup(port);
    for round in 0..20 {
        let mut c = Raw::login(port);
        let point = c.prepare("SELECT v FROM t WHERE id = ?");
        let mut batch = Vec::new();
        for payload in [
            execute(point, 7),
            [&[0x03][..], b"SELECT v FROM t WHERE id = 8"].concat(),
            [&[0x03][..], b"SELECT 40 + 2"].concat(),
        ] {
            batch.extend_from_slice(&(payload.len() as u32).to_le_bytes()[..3]);
            batch.push(0);
            batch.extend_from_slice(&payload);
        }
        // The commands and the FIN leave together: often one readiness event on the server.
        c.s.write_all(&batch).unwrap();
        c.s.shutdown(std::net::Shutdown::Write).unwrap();
        assert_eq!(
            c.answer(),
            Answer::Rows(vec![binary_text_row("v7")]),
            "round {round}"
        );
        assert_eq!(
            c.answer(),
            Answer::Rows(vec![b"\x02v8".to_vec()]),
            "round {round}"
        );
        assert_eq!(
            c.answer(),
            Answer::Rows(vec![b"\x0242".to_vec()]),
            "round {round}"
        );
        // Then the server's close, well before wait_timeout.
        let mut rest = Vec::new();
        c.s.read_to_end(&mut rest)
            .unwrap_or_else(|e| panic!("round {round}: no close after the answers: {e}"));
        assert!(rest.is_empty(), "round {round}: {rest:?}");
    }
    server.stop();
    node.stop();
}

/// A second SQL front end over the same data node, as `cairn start` runs the HandlerSocket one:
/// its own client connection and its own cache of table definitions.
fn second_front_end(node: &datanode::DataNode) -> sql::SqlServer {
    sql::SqlServer::start(sql::SqlConfig {
        datanode: node.address().to_string(),
        listen: "127.0.0.1:0".into(),
        max_packet: 1 << 20,
        ..sql::SqlConfig::default()
    })
    .unwrap()
}

#[test]
fn plans_made_before_another_front_end_changed_the_table_are_made_again() {
    let (node, server) = common::start(1 << 20);
    let port = server.address().port();
    let other_server = second_front_end(&node);
    let mut c = Raw::login_to(port, None);
    assert_eq!(c.query("CREATE DATABASE d"), Answer::Ok);
    assert_eq!(
        c.query("CREATE TABLE d.t (id BIGINT PRIMARY KEY, b BIGINT, c VARCHAR(10), KEY kb (b), KEY kc (c))"),
        Answer::Ok
    );
    assert_eq!(
        c.query("INSERT INTO d.t VALUES (1, 1, 'x'), (2, 2, 'y'), (3, 1, 'y'), (4, 3, 'z')"),
        Answer::Ok
    );
    let mut c = Raw::login(port);
    let by_b = c.prepare("SELECT c FROM t WHERE b = ? ORDER BY c");
    let by_c = |c: &mut Raw| c.query("SELECT id FROM t WHERE c = 'y' ORDER BY id");
    let ids = |list: &[&str]| Answer::Rows(list.iter().map(|v| text_row(v)).collect());
    assert_eq!(by_c(&mut c), ids(&["2", "3"]));
    c.send(0, &execute(by_b, 1));
    assert_eq!(
        c.answer(),
        Answer::Rows(vec![binary_text_row("x"), binary_text_row("y")])
    );

    // The other front end drops kb: kc takes its place among the indexes, so a plan that still
    // scanned "the index at kc's old position" would read nothing or the wrong rows.
    let mut o = Raw::login(other_server.address().port());
    assert_eq!(o.query("DROP INDEX kb ON t"), Answer::Ok);
    assert_eq!(by_c(&mut c), ids(&["2", "3"]));
    c.send(0, &execute(by_b, 1));
    assert_eq!(
        c.answer(),
        Answer::Rows(vec![binary_text_row("x"), binary_text_row("y")])
    );
    assert_eq!(
        o.query("ALTER TABLE t ADD INDEX kb (b), DROP INDEX kc"),
        Answer::Ok
    );
    assert_eq!(by_c(&mut c), ids(&["2", "3"]));
    c.send(0, &execute(by_b, 2));
    assert_eq!(c.answer(), Answer::Rows(vec![binary_text_row("y")]));

    // Inside a transaction the statement is not run again behind the client's back: 1412,
    // as MariaDB says, and the next statement works.
    assert_eq!(c.query("BEGIN"), Answer::Ok);
    assert_eq!(c.query("UPDATE t SET c = 'w' WHERE id = 4"), Answer::Ok);
    assert_eq!(
        o.query("ALTER TABLE t COMMENT='NDB_TABLE=READ_BACKUP=1'"),
        Answer::Ok
    );
    assert_eq!(
        c.query("UPDATE t SET c = 'v' WHERE id = 1"),
        Answer::Err(1412)
    );
    assert_eq!(c.query("ROLLBACK"), Answer::Ok);
    assert_eq!(
        c.query("SELECT c FROM t WHERE id IN (1, 4) ORDER BY id"),
        Answer::Rows(vec![text_row("x"), text_row("z")])
    );

    // Renamed away: the old name is unknown to both statements, the new one serves them.
    assert_eq!(o.query("RENAME TABLE t TO t2"), Answer::Ok);
    assert_eq!(by_c(&mut c), Answer::Err(1146));
    c.send(0, &execute(by_b, 1));
    assert_eq!(c.answer(), Answer::Err(1146));
    assert_eq!(
        c.query("SELECT id FROM t2 WHERE c = 'y' ORDER BY id"),
        ids(&["2", "3"])
    );
    other_server.stop();
    server.stop();
    node.stop();
}

/// A table dropped and made again (or altered) by another session of the same front end: the
/// next statement of a session that cached plans over the old definition follows the new one,
/// also where the front end decides before the data node sees a request (a CHECK constraint,
/// a column's default).
#[test]
fn plans_made_before_another_session_changed_the_table_are_made_again() {
    let (node, server) = common::start(1 << 20);
    let port = server.address().port();
    let mut o = Raw::login_to(port, None);
    assert_eq!(o.query("CREATE DATABASE d"), Answer::Ok);
    assert_eq!(o.query("USE d"), Answer::Ok);
    assert_eq!(
        o.query("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(5), CONSTRAINT e2 CHECK (v IN ('four')))"),
        Answer::Ok
    );
    let mut c = Raw::login(port);
    let insert = c.prepare("INSERT INTO t (id, v) VALUES (?, 'four')");
    c.send(0, &execute(insert, 1));
    assert_eq!(c.answer(), Answer::Ok);
    assert_eq!(
        c.query("INSERT INTO t (id, v) VALUES (2, 'four')"),
        Answer::Ok
    );

    assert_eq!(o.query("DROP TABLE t"), Answer::Ok);
    assert_eq!(
        o.query(
            "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(5), CONSTRAINT e1 CHECK (v IN ('two')))"
        ),
        Answer::Ok
    );
    // Planned over the old table, these would fail its CHECK (4025) before reaching the data
    // node; the new table's refuses 'four' and takes 'two'.
    assert_eq!(
        c.query("INSERT INTO t (id, v) VALUES (3, 'two')"),
        Answer::Ok
    );
    c.send(0, &execute(insert, 4));
    assert_eq!(c.answer(), Answer::Err(4025));
    assert_eq!(
        c.query("INSERT INTO t (id, v) VALUES (5, 'four')"),
        Answer::Err(4025)
    );

    assert_eq!(
        o.query("ALTER TABLE t ADD COLUMN n INT NOT NULL DEFAULT 7"),
        Answer::Ok
    );
    assert_eq!(
        c.query("INSERT INTO t (id, v) VALUES (6, 'two')"),
        Answer::Ok
    );
    assert_eq!(
        c.query("SELECT id, n FROM t ORDER BY id"),
        Answer::Rows(vec![text_row_of(&["3", "7"]), text_row_of(&["6", "7"])])
    );
    server.stop();
    node.stop();
}

/// SLEEP and GET_LOCK wait on the connection's own thread: another client's prepared point
/// select (served by the event loop) is answered while one sleeps, and a lock one session waits
/// for is taken as soon as its holder's connection ends.
#[test]
fn waiting_statements_hold_up_no_other_client() {
    let (node, server) = common::start(1 << 20);
    let port = server.address().port();
    setup(port);
    let int_row = |n: &str| Answer::Rows(vec![format!("\x01{n}").into_bytes()]);
    let mut holder = Raw::login(port);
    assert_eq!(holder.query("SELECT GET_LOCK('m', 0)"), int_row("1"));
    let mut other = Raw::login(port);
    assert_eq!(other.query("SELECT GET_LOCK('m', 0)"), int_row("0"));
    assert_eq!(other.query("SELECT IS_FREE_LOCK('m')"), int_row("0"));

    let mut sleeper = Raw::login(port);
    let sleep = sleeper.prepare("SELECT SLEEP(?)");
    sleeper.send(0, &execute(sleep, 3));
    let point = other.prepare("SELECT v FROM t WHERE id = ?");
    let started = std::time::Instant::now();
    assert_eq!(
        other.execute(point, 7),
        Answer::Rows(vec![binary_text_row("v7")])
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "a point select waited {:?} behind SLEEP(3)",
        started.elapsed()
    );

    drop(holder);
    assert_eq!(other.query("SELECT GET_LOCK('m', 10)"), int_row("1"));
    assert_eq!(other.query("SELECT RELEASE_ALL_LOCKS()"), int_row("1"));
    // SLEEP's answer: one binary row holding INT 0.
    assert_eq!(sleeper.answer(), Answer::Rows(vec![vec![0, 0, 0, 0, 0, 0]]));
    server.stop();
    node.stop();
}
