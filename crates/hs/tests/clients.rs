//! Third-party HandlerSocket clients against Cairn's front end: the npm `node-handlersocket`
//! package (find, IN, filters, an ordered index, insert, update, increment, decrement-and-get,
//! delete, a duplicate key) driven by `tests/clients/node/client.js`, and Maven Central's hs4j
//! (find with its operators, an ordered index, insert, update, delete; it has no IN, filter or
//! increment) driven by `tests/clients/java/Client.java`. Needs Node.js and a JDK, and the
//! clients fetched: `npm install` in the node directory, `mvn dependency:copy-dependencies
//! -DoutputDirectory=lib` in the java one (`.ci/run` does both).

mod common;

use std::path::PathBuf;
use std::process::Command;

use base::schema::{ColumnDef, IndexKind};
use base::types::ColumnType;
use base::Value;
use client::{Cluster, TableDef};
use datanode::DataNode;
use hs::HsServer;

/// A data node with the `people` table and a HandlerSocket front end over it.
fn serve() -> (DataNode, HsServer) {
    let node = common::start_node();
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    let people = TableDef::new(
        "people",
        vec![
            ColumnDef::new("id", ColumnType::Int { unsigned: false }),
            ColumnDef::new("name", ColumnType::VarChar { length: 20 }),
            ColumnDef::new("age", ColumnType::Int { unsigned: false }),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("iage", IndexKind::Ordered, &["age"])
    .unwrap();
    let t = cluster.create_table(people).unwrap();
    let mut txn = cluster.transaction();
    for (id, name, age) in [
        (1, "Ann", 34),
        (2, "Bob", 28),
        (3, "Cleo", 45),
        (4, "Dan", 40),
    ] {
        txn.insert(
            &t,
            t.values(&[
                ("id", Value::Int(id)),
                ("name", name.into()),
                ("age", Value::Int(age)),
            ])
            .unwrap(),
        );
    }
    txn.commit().unwrap();
    let front = common::start_front(&node, b"", b"");
    drop(cluster);
    (node, front)
}

/// Checks each output line ends with the expected text, in order.
fn expect_lines(stdout: &str, want: &[&str]) {
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), want.len(), "{stdout}");
    for (line, want) in lines.iter().zip(want) {
        assert!(
            line.ends_with(want),
            "got {line:?}, want it to end with {want:?}\n{stdout}"
        );
    }
}

#[test]
fn node_handlersocket_works_unchanged() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/clients/node");
    assert!(
        dir.join("node_modules/node-handlersocket").is_dir(),
        "node-handlersocket is not installed: run `npm install` in {} (.ci/run does)",
        dir.display()
    );
    let (node, front) = serve();
    let run = Command::new("node")
        .arg("client.js")
        .current_dir(&dir)
        .env("HS_READ", front.read_address().port().to_string())
        .env("HS_WRITE", front.write_address().port().to_string())
        .output()
        .expect("node runs (install Node.js)");
    let stdout = String::from_utf8_lossy(&run.stdout).to_string();
    assert!(
        run.status.success(),
        "client.js failed: {stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let want = [
        r#"find= [["2","Bob","28"]]"#,
        r#"find>= [["2","Bob","28"],["3","Cleo","45"]]"#,
        r#"findIN [["3","Cleo","45"],["1","Ann","34"]]"#,
        r#"filter [["1","Ann","34"],["3","Cleo","45"],["4","Dan","40"]]"#,
        r#"index<= [["40","Dan"],["34","Ann"],["28","Bob"]]"#,
        r#"insert [["10","Ken","41"]]"#,
        r#"update 1"#,
        r#"increment 1"#,
        r#"decrementAndGet [["45"]]"#,
        r#"after [["10","Kenji","40"]]"#,
        r#"delete 1"#,
        r#"gone []"#,
        r#""error""#,
    ];
    expect_lines(&stdout, &want);
    front.stop();
    node.stop();
}

#[test]
fn hs4j_works_unchanged() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/clients/java");
    assert!(
        dir.join("lib/hs4j-0.1.jar").is_file(),
        "hs4j is not fetched: run `mvn dependency:copy-dependencies -DoutputDirectory=lib` in {} (.ci/run does)",
        dir.display()
    );
    let build = std::env::temp_dir().join(format!("cairn-hs4j-{}", std::process::id()));
    std::fs::create_dir_all(&build).unwrap();
    let javac = Command::new("javac")
        .args(["-cp", "lib/*", "-d"])
        .arg(&build)
        .arg("Client.java")
        .current_dir(&dir)
        .output()
        .expect("javac runs (install a JDK)");
    assert!(
        javac.status.success(),
        "javac: {}",
        String::from_utf8_lossy(&javac.stderr)
    );
    let (node, front) = serve();
    let classpath = format!("{}:{}/lib/*", build.display(), dir.display());
    let run = Command::new("java")
        .args(["-cp", &classpath, "Client", "127.0.0.1"])
        .arg(front.read_address().port().to_string())
        .arg(front.write_address().port().to_string())
        .output()
        .expect("java runs");
    let stdout = String::from_utf8_lossy(&run.stdout).to_string();
    assert!(
        run.status.success(),
        "Client.java failed: {stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    expect_lines(
        &stdout,
        &[
            "find= [[2,Bob,28]]",
            "find>= [[2,Bob,28],[3,Cleo,45]]",
            "find< [[2,Bob,28],[1,Ann,34]]",
            "index> [[40,Dan],[45,Cleo]]",
            "insert true",
            "after insert [[10,Ken,41]]",
            "update 1",
            "after update [[10,Kenji,42]]",
            "delete 1",
            "after delete []",
        ],
    );
    front.stop();
    node.stop();
    let _ = std::fs::remove_dir_all(&build);
}
