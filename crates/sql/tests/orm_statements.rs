//! Statements ORMs and migration tools send that Cairn answers as MySQL Cluster does: a
//! FULLTEXT or SPATIAL index is the engine's refusal (1214, 1464), not a syntax error; XA is
//! "not supported" (1235); `SHOW FULL TABLES` names each table's type; a row of defaults only.

mod common;
use common::raw::{values, Answer, Raw};

#[test]
fn orm_statements_get_mysql_clusters_answers() {
    let (node, server) = common::start(16 << 20);
    let mut c = Raw::login_to(server.address().port(), None);
    for sql in [
        "CREATE DATABASE d",
        "USE d",
        "CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, a INT NOT NULL DEFAULT 7, b TEXT)",
    ] {
        assert_eq!(c.query(sql), Answer::Ok, "{sql}");
    }
    assert_eq!(
        c.query("CREATE TABLE f (id INT PRIMARY KEY, a TEXT, FULLTEXT KEY (a))"),
        Answer::Err(1214)
    );
    assert_eq!(
        c.query("ALTER TABLE t ADD FULLTEXT INDEX fb (b)"),
        Answer::Err(1214)
    );
    assert_eq!(c.query("XA START 'x'"), Answer::Err(1235));
    assert_eq!(c.query("XA RECOVER"), Answer::Err(1235));
    assert_eq!(c.query("INSERT INTO t () VALUES ()"), Answer::Ok);
    assert_eq!(c.query("INSERT INTO t VALUES (), ()"), Answer::Ok);
    match c.query("SELECT id, a, b FROM t ORDER BY id") {
        Answer::Rows(rows) => {
            let rows: Vec<_> = rows.iter().map(|r| values(r)).collect();
            let row = |id: &str| vec![Some(id.to_string()), Some("7".to_string()), None];
            assert_eq!(rows, vec![row("1"), row("2"), row("3")]);
        }
        other => panic!("{other:?}"),
    }
    match c.query("SHOW FULL TABLES") {
        Answer::Rows(rows) => assert_eq!(
            values(&rows[0]),
            vec![Some("t".to_string()), Some("BASE TABLE".to_string())]
        ),
        other => panic!("{other:?}"),
    }
    server.stop();
    node.stop();
}
