//! Spatial columns through the protocol, where MariaDB cannot be the reference: MySQL 8's SRID
//! attribute (what `/*!80003 SRID 0 */` says to a server claiming MySQL 8), the GEOMETRY type
//! code in result metadata, and ALTER TABLE turning a BLOB into a spatial column only when
//! every value is one. The rest is in the differential suite, beside MariaDB.

mod common;
use common::raw::{values, Answer, Raw};

fn rows(c: &mut Raw, sql: &str) -> Vec<Vec<Option<String>>> {
    match c.query(sql) {
        Answer::Rows(rows) => rows.iter().map(|r| values(r)).collect(),
        other => panic!("{sql}: {other:?}"),
    }
}

/// The type code and flags of each column a query's result has.
fn column_types(c: &mut Raw, sql: &str) -> Vec<(u8, u16)> {
    let mut p = vec![0x03];
    p.extend_from_slice(sql.as_bytes());
    c.send(0, &p);
    let first = c.packet().unwrap();
    let mut types = Vec::new();
    for _ in 0..first[0] {
        let d = c.packet().unwrap();
        // catalog, schema, table, org_table, name, org_name; then 0x0c, the collation (2),
        // the length (4), the type (1), the flags (2).
        let mut at = 0;
        for _ in 0..6 {
            at += 1 + d[at] as usize;
        }
        types.push((d[at + 7], u16::from_le_bytes([d[at + 8], d[at + 9]])));
    }
    assert_eq!(c.packet().unwrap()[0], 0xfe);
    while c.packet().unwrap()[0] != 0xfe {}
    types
}

#[test]
fn srid_attribute_metadata_and_alter_to_a_spatial_type() {
    let (node, server) = common::start(1 << 20);
    let port = server.address().port();
    let mut c = Raw::login_to(port, None);
    assert_eq!(c.query("CREATE DATABASE d"), Answer::Ok);
    assert_eq!(c.query("USE d"), Answer::Ok);
    // PyMySQL's test_issue_363, but for its SPATIAL KEY (NDB has none: 1464).
    assert_eq!(
        c.query(
            "CREATE TABLE issue363 (id INTEGER PRIMARY KEY, geom LINESTRING NOT NULL \
             /*!80003 SRID 0 */, SPATIAL KEY geom (geom)) ENGINE=MyISAM"
        ),
        Answer::Err(1464)
    );
    assert_eq!(
        c.query(
            "CREATE TABLE issue363 (id INTEGER PRIMARY KEY, geom LINESTRING NOT NULL \
             /*!80003 SRID 0 */) ENGINE=MyISAM"
        ),
        Answer::Ok
    );
    let create = rows(&mut c, "SHOW CREATE TABLE issue363");
    let text = create[0][1].as_deref().unwrap();
    assert!(
        text.contains("`geom` linestring NOT NULL /*!80003 SRID 0 */"),
        "{text}"
    );
    assert_eq!(
        c.query(
            "INSERT INTO issue363 (id, geom) VALUES \
             (1998, ST_GeomFromText('LINESTRING(1.1 1.1,2.2 2.2)'))"
        ),
        Answer::Ok
    );
    // A view, and a table made from a query, keep the column's kind.
    assert_eq!(
        c.query("CREATE VIEW v363 AS SELECT geom FROM issue363"),
        Answer::Ok
    );
    assert_eq!(
        c.query("CREATE TABLE copy363 AS SELECT geom FROM issue363"),
        Answer::Ok
    );
    for table in ["v363", "copy363"] {
        let columns = rows(&mut c, &format!("SHOW COLUMNS FROM {table}"));
        assert_eq!(columns[0][1].as_deref(), Some("linestring"), "{table}");
    }
    assert_eq!(
        c.query("INSERT INTO copy363 VALUES ('junk')"),
        Answer::Err(1416)
    );
    // Another SRID than the column's: MySQL's 3643.
    assert_eq!(
        c.query("INSERT INTO issue363 VALUES (1, ST_GeomFromText('LINESTRING(1 1,2 2)', 4326))"),
        Answer::Err(3643)
    );
    assert_eq!(
        rows(&mut c, "SELECT ST_AsText(geom), HEX(ST_AsBinary(geom)) FROM issue363"),
        [[
            Some("LINESTRING(1.1 1.1,2.2 2.2)".to_string()),
            Some(
                "0102000000020000009A9999999999F13F9A9999999999F13F9A999999999901409A99999999990140"
                    .to_string()
            )
        ]]
    );
    // GEOMETRY (255), binary and a BLOB to clients, as MariaDB describes it; NOT NULL kept
    // (MariaDB adds NO_DEFAULT_VALUE, which Cairn sets on no column yet).
    assert_eq!(
        column_types(
            &mut c,
            "SELECT geom, POINT(1, 2), ST_AsText(geom), ST_SRID(geom), ST_X(POINT(1, 2)) \
             FROM issue363"
        ),
        [
            (255, 128 | 16 | 1),
            (255, 128),
            (0xfb, 0),
            (3, 128 | 32768),
            (5, 128 | 32768)
        ]
    );
    // A BLOB column becomes a spatial one only when every value is a spatial value of its
    // kind; the values are kept.
    assert_eq!(
        c.query("CREATE TABLE b (id INT PRIMARY KEY, v LONGBLOB)"),
        Answer::Ok
    );
    assert_eq!(
        c.query("INSERT INTO b VALUES (1, POINT(1, 2)), (2, 'not a geometry')"),
        Answer::Ok
    );
    assert!(matches!(
        c.query("ALTER TABLE b MODIFY v POINT"),
        Answer::Err(_)
    ));
    assert_eq!(c.query("DELETE FROM b WHERE id = 2"), Answer::Ok);
    assert!(matches!(
        c.query("ALTER TABLE b MODIFY v LINESTRING"),
        Answer::Err(_)
    ));
    assert_eq!(c.query("ALTER TABLE b MODIFY v POINT"), Answer::Ok);
    assert_eq!(
        rows(&mut c, "SELECT ST_AsText(v) FROM b"),
        [[Some("POINT(1 2)".to_string())]]
    );
    assert_eq!(
        c.query("INSERT INTO b VALUES (3, 'still not')"),
        Answer::Err(1416)
    );
    server.stop();
    node.stop();
}
