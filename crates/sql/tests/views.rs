//! Views as statements read them where the differential suite cannot look: a prepared
//! statement over a view follows the view's changes.

mod common;
use common::raw::{Answer, Raw};

#[test]
fn a_prepared_statement_over_a_view_follows_its_changes() {
    let (node, server) = common::start(16 << 20);
    let mut c = Raw::login_to(server.address().port(), None);
    for sql in [
        "CREATE DATABASE d",
        "USE d",
        "CREATE TABLE t (a INT PRIMARY KEY)",
        "INSERT INTO t VALUES (1), (2), (3)",
        "CREATE VIEW v AS SELECT a FROM t WHERE a > 2",
    ] {
        assert_eq!(c.query(sql), Answer::Ok, "{sql}");
    }
    let prepared = c.prepare("SELECT a FROM v WHERE a > ?");
    let found = |c: &mut Raw| match c.execute(prepared, 0) {
        Answer::Rows(rows) => rows.len(),
        other => panic!("{other:?}"),
    };
    assert_eq!(found(&mut c), 1);
    assert_eq!(
        c.query("CREATE OR REPLACE VIEW v AS SELECT a FROM t WHERE a > 1"),
        Answer::Ok
    );
    assert_eq!(found(&mut c), 2);
    assert_eq!(c.query("DROP VIEW v"), Answer::Ok);
    assert_eq!(c.execute(prepared, 0), Answer::Err(1146));
    server.stop();
    node.stop();
}
