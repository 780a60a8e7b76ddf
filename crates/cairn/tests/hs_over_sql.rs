//! HandlerSocket over tables made through SQL, on one `cairn start`: an index named by number
//! in `P` counts as MySQL counts keys (0 the primary key, then unique keys, then the others; the
//! ordered index every SQL table has over its primary key is the primary key's, not one more),
//! as MariaDB's plugin answered the same requests.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;

mod common;
use common::mysql;

/// A HandlerSocket connection to `address`: each call sends a request line and answers the
/// response line.
fn asker(address: &str) -> impl FnMut(&str) -> String {
    let s = TcpStream::connect(address).unwrap();
    let mut lines = BufReader::new(s.try_clone().unwrap()).lines();
    move |line: &str| {
        (&s).write_all(format!("{line}\n").as_bytes()).unwrap();
        lines.next().unwrap().unwrap()
    }
}

#[test]
fn an_index_named_by_number_is_the_tables_nth_key() {
    let dir = common::fresh_dir("cairn-hs-sql");
    let cairn = common::start(&dir, common::free_port());
    let sql = cairn.listening("sql (mysql protocol): ").trim().to_string();
    let (hs_read, _) = cairn.hs_addresses();
    mysql(
        &sql,
        "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, n INT, s VARCHAR(5), \
         KEY kn (n), UNIQUE KEY us (s)); INSERT INTO d.t VALUES (1, 7, 'a'), (2, 8, 'b')",
    );
    let mut ask = asker(&hs_read);
    assert_eq!(ask("P\t0\td\tt\t0\tid"), "0\t1");
    assert_eq!(ask("0\t=\t1\t2"), "0\t1\t2");
    assert_eq!(ask("P\t1\td\tt\t1\tid"), "0\t1");
    assert_eq!(ask("1\t=\t1\tb"), "0\t1\t2", "index 1 is the unique key us");
    assert_eq!(ask("P\t2\td\tt\t2\tid"), "0\t1");
    assert_eq!(ask("2\t=\t1\t7"), "0\t1\t1", "index 2 is kn");
    assert_eq!(ask("P\t3\td\tt\t3\tid"), "2\t1\tidxnum");
    cairn.terminate();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A table dropped and created again through SQL with other columns while a HandlerSocket
/// connection has it open: the next requests use the new definition (its key type, its
/// columns and their conversions), and an open index naming a column the new table lacks
/// answers as opening it would.
#[test]
fn a_table_made_again_through_sql_is_seen_by_open_indexes_at_their_next_request() {
    let dir = common::fresh_dir("cairn-hs-sql-again");
    let cairn = common::start(&dir, common::free_port());
    let sql = cairn.listening("sql (mysql protocol): ").trim().to_string();
    let (_, hs_write) = cairn.hs_addresses();
    mysql(
        &sql,
        "CREATE DATABASE d; CREATE TABLE d.t (k INT PRIMARY KEY, v VARCHAR(10), n INT); \
         INSERT INTO d.t VALUES (1, 'one', 10), (2, 'two', 20)",
    );
    let mut ask = asker(&hs_write);
    assert_eq!(ask("P\t0\td\tt\tPRIMARY\tk,v"), "0\t1");
    assert_eq!(ask("P\t1\td\tt\tPRIMARY\tk,n"), "0\t1");
    assert_eq!(ask("0\t=\t1\t2"), "0\t2\t2\ttwo");
    mysql(
        &sql,
        "DROP TABLE d.t; CREATE TABLE d.t (k VARCHAR(10) PRIMARY KEY, w DATE, v INT); \
         INSERT INTO d.t VALUES ('2', '2020-01-02', 5), ('b', NULL, 6)",
    );
    // The key is text now, and v a number: what the old definition could not have answered.
    assert_eq!(ask("0\t=\t1\tb"), "0\t2\tb\t6");
    assert_eq!(ask("0\t=\t1\t2"), "0\t2\t2\t5");
    // Stored by the new definition: '12abc' into the INT column v is 12, and the DATE w it
    // leaves out the zero date, as MariaDB's plugin stores them.
    assert_eq!(ask("0\t+\t2\tc\t12abc"), "0\t1");
    // The index naming n, which the new table lacks, answers as opening it would now.
    assert_eq!(ask("1\t=\t1\tb"), "2\t1\tfld");
    assert_eq!(
        mysql(&sql, "SELECT k, w, v FROM d.t ORDER BY k").trim(),
        "k\tw\tv\n2\t2020-01-02\t5\nb\tNULL\t6\nc\t0000-00-00\t12"
    );
    cairn.terminate();
    let _ = std::fs::remove_dir_all(&dir);
}

/// ENUM and SET columns made through SQL read and write their members' names over
/// HandlerSocket, as MariaDB's plugin does (they are stored as numbers).
#[test]
fn enum_and_set_columns_answer_names_over_handlersocket() {
    let dir = common::fresh_dir("cairn-hs-sql-enum");
    let cairn = common::start(&dir, common::free_port());
    let sql = cairn.listening("sql (mysql protocol): ").trim().to_string();
    let (_, hs_write) = cairn.hs_addresses();
    mysql(
        &sql,
        "CREATE DATABASE d; CREATE TABLE d.t (k INT PRIMARY KEY, e ENUM('a', 'bb', 'c'), \
         s SET('x', 'y', 'z')); INSERT INTO d.t VALUES (1, 'bb', 'z,x')",
    );
    let mut ask = asker(&hs_write);
    assert_eq!(ask("P\t0\td\tt\tPRIMARY\tk,e,s"), "0\t1");
    assert_eq!(ask("0\t=\t1\t1"), "0\t3\t1\tbb\tx,z");
    assert_eq!(ask("0\t+\t3\t2\tC\ty,x"), "0\t1");
    assert_eq!(
        mysql(&sql, "SELECT k, e, e + 0, s, s + 0 FROM d.t ORDER BY k").trim(),
        "k\te\te + 0\ts\ts + 0\n1\tbb\t2\tx,z\t5\n2\tc\t3\tx,y\t3"
    );
    cairn.terminate();
    let _ = std::fs::remove_dir_all(&dir);
}
