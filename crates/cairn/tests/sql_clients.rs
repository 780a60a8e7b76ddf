//! Real SQL clients against `cairn start`: sysbench's OLTP workloads (prepare, run, cleanup)
//! with server-side prepared statements (`--db-ps-mode=auto`) and without (`=disable`), each
//! run required to finish with zero errors; and MySQL Connector/J from Maven Central with
//! server-side prepared statements (`useServerPrepStmts=true`), driven by
//! `tests/clients/java/Client.java`. Needs sysbench and a JDK, and Connector/J fetched: `mvn
//! dependency:copy-dependencies -DoutputDirectory=lib` in tests/clients/java (`scripts/test`
//! does).

use std::path::PathBuf;
use std::process::Command;

mod common;
use common::{free_port, mysql, start};

/// Runs sysbench against `address`; its output, or a panic with it.
fn sysbench(address: &str, test: &str, command: &str, extra: &[&str]) -> String {
    let out = Command::new("sysbench")
        .args(common::sysbench_args(address, "2000"))
        .args(extra)
        .args([test, command])
        .output()
        .expect("sysbench runs (apt-get install sysbench)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "sysbench {test} {command} failed:\n{text}"
    );
    text
}

/// The count sysbench reports on the line starting with `label`.
fn reported(output: &str, label: &str) -> u64 {
    output
        .lines()
        .find_map(|l| l.trim().strip_prefix(label))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no {label:?} in sysbench output:\n{output}"))
}

#[test]
fn sysbench_oltp_workloads_run_with_zero_errors() {
    let dir = std::env::temp_dir().join(format!("cairn-sysbench-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let node = start(&dir, free_port());
    let sql = node.listening("sql (mysql protocol): ");
    mysql(&sql, "CREATE DATABASE sbtest");
    let tests = [
        "oltp_point_select",
        "oltp_read_only",
        "oltp_read_write",
        "oltp_update_index",
        "oltp_delete",
        "oltp_insert",
    ];
    for test in tests {
        for mode in ["auto", "disable"] {
            sysbench(&sql, test, "prepare", &[]);
            // Two threads contend for rows, except in read_write, whose multi-row transactions
            // could deadlock (an error sysbench counts) as they can on any database.
            let threads = if test == "oltp_read_write" { "1" } else { "2" };
            let out = sysbench(
                &sql,
                test,
                "run",
                &[
                    &format!("--db-ps-mode={mode}"),
                    &format!("--threads={threads}"),
                    "--time=0",
                    "--events=300",
                ],
            );
            assert_eq!(
                reported(&out, "transactions:"),
                300,
                "{test} {mode}:\n{out}"
            );
            assert_eq!(
                reported(&out, "ignored errors:"),
                0,
                "{test} {mode}:\n{out}"
            );
            sysbench(&sql, test, "cleanup", &[]);
            assert_eq!(mysql(&sql, "SHOW TABLES FROM sbtest"), "", "{test} cleanup");
        }
    }
    node.terminate();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn connector_j_with_server_side_prepared_statements() {
    let java = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/clients/java");
    assert!(
        java.join("lib/mysql-connector-j-8.4.0.jar").is_file(),
        "Connector/J is not fetched: run `mvn dependency:copy-dependencies -DoutputDirectory=lib` in {} (scripts/test does)",
        java.display()
    );
    let dir = std::env::temp_dir().join(format!("cairn-jdbc-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let classes = dir.join("classes");
    let javac = Command::new("javac")
        .arg("-d")
        .arg(&classes)
        .arg(java.join("Client.java"))
        .output()
        .expect("javac runs (install a JDK)");
    assert!(
        javac.status.success(),
        "javac: {}",
        String::from_utf8_lossy(&javac.stderr)
    );
    let node = start(&dir.join("data"), free_port());
    let sql = node.listening("sql (mysql protocol): ");
    let classpath = format!("{}/lib/*:{}", java.display(), classes.display());
    let run = Command::new("java")
        .args(["-cp", &classpath, "Client", &sql])
        .output()
        .expect("java runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success() && stdout.trim() == "ok",
        "Client.java failed: {stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    node.terminate();
    let _ = std::fs::remove_dir_all(&dir);
}
