//! HandlerSocket over tables made through SQL, on one `cairn start`: an index named by number
//! in `P` counts as MySQL counts keys (0 the primary key, then unique keys, then the others; the
//! ordered index every SQL table has over its primary key is the primary key's, not one more),
//! as MariaDB's plugin answered the same requests.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;

mod common;
use common::mysql;

#[test]
fn an_index_named_by_number_is_the_tables_nth_key() {
    let dir = common::fresh_dir("cairn-hs-sql");
    let cairn = common::start(&dir, common::free_port());
    let sql = cairn.listening("sql (mysql protocol): ").trim().to_string();
    let hs_read = cairn
        .listening("handlersocket: read ")
        .split(" write ")
        .next()
        .unwrap()
        .trim()
        .to_string();
    mysql(
        &sql,
        "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, n INT, s VARCHAR(5), \
         KEY kn (n), UNIQUE KEY us (s)); INSERT INTO d.t VALUES (1, 7, 'a'), (2, 8, 'b')",
    );
    let s = TcpStream::connect(&hs_read).unwrap();
    let mut lines = BufReader::new(s.try_clone().unwrap()).lines();
    let mut ask = |line: &str| {
        (&s).write_all(format!("{line}\n").as_bytes()).unwrap();
        lines.next().unwrap().unwrap()
    };
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
