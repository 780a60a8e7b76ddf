//! go-sql-driver/mysql's own test suite (a pinned version from the Go module proxy, which
//! carries its tests) run against MariaDB 10.11 and against `cairn start` in the same run: every
//! test that passes on MariaDB must pass on Cairn, except those docs/sql.md lists under
//! "Drivers' own test suites", and every test listed there must still fail (so the list only
//! shrinks). Needs Go 1.24 or newer and Debian's mariadb-server.

// `common` and `mariadb` both take the port helpers from testsupport/ports.rs.
#![allow(clippy::duplicate_mod)]

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

mod common;
use common::{fresh_dir, mysql, start};

#[path = "../../../testsupport/mariadb.rs"]
mod mariadb;
use mariadb::Mariadb;

const MODULE: &str = "github.com/go-sql-driver/mysql@v1.10.1";

/// Tests never run anywhere: `TestConnectorReturnsTimeout` dials 1.1.1.1, and traffic here goes
/// only to this machine's addresses.
const SKIPPED: &str = "^TestConnectorReturnsTimeout$";

/// The module's directory in Go's module cache, downloaded from the proxy when missing.
fn module_dir() -> String {
    let out = Command::new("go")
        .args(["mod", "download", "-json", MODULE])
        .output()
        .expect("go runs (Go 1.24 or newer is needed for go-sql-driver's suite)");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "go mod download {MODULE} failed: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text.lines()
        .find_map(|l| l.trim().strip_prefix("\"Dir\": \""))
        .and_then(|rest| rest.strip_suffix("\","))
        .unwrap_or_else(|| panic!("no Dir in go mod download's answer: {text}"))
        .to_string()
}

/// The suite's top-level tests that passed and failed against `address` (database `gotest`).
fn run_suite(dir: &str, address: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let out = Command::new("go")
        .current_dir(dir)
        .env("GOFLAGS", "-mod=mod")
        .env("MYSQL_TEST_ADDR", address)
        .env("MYSQL_TEST_DBNAME", "gotest")
        .args([
            "test", "-v", "-count=1", "-timeout", "600s", "-skip", SKIPPED, ".",
        ])
        .output()
        .expect("go test runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let (mut passed, mut failed) = (BTreeSet::new(), BTreeSet::new());
    for line in text.lines() {
        let name = |rest: &str| rest.split_whitespace().next().unwrap_or("").to_string();
        if let Some(rest) = line.strip_prefix("--- PASS: ") {
            passed.insert(name(rest));
        } else if let Some(rest) = line.strip_prefix("--- FAIL: ") {
            failed.insert(name(rest));
        }
    }
    // A panic or a timeout ends the run without a line for the test that broke it.
    if text.contains("\npanic: ") || !(text.contains("\nok ") || text.contains("\nFAIL\t")) {
        failed.insert(format!("(the run ended early against {address})"));
        eprintln!("{text}\n{}", String::from_utf8_lossy(&out.stderr));
    }
    (passed, failed)
}

/// The tests docs/sql.md lists as failing on Cairn: the backquoted name that opens each item
/// of the lists under "Drivers' own test suites" that follow a line starting
/// "go-sql-driver/mysql's tests that" (those that fail where NDB differs from InnoDB, and
/// those that do not pass yet).
fn listed() -> BTreeSet<String> {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/sql.md");
    let text = std::fs::read_to_string(&docs).unwrap();
    let section = text
        .split("\n## Drivers' own test suites\n")
        .nth(1)
        .expect("docs/sql.md has a section \"Drivers' own test suites\"");
    let section = section.split("\n## ").next().unwrap();
    let mut names = BTreeSet::new();
    let mut in_list = false;
    for line in section.lines() {
        if line.starts_with("go-sql-driver/mysql's tests that") {
            in_list = true;
        } else if let Some(item) = line.strip_prefix("- `").filter(|_| in_list) {
            names.extend(item.split('`').next().map(str::to_string));
        } else if !line.starts_with("  ") {
            in_list = false;
        }
    }
    names
}

#[test]
fn go_sql_drivers_suite_passes_on_cairn_wherever_it_passes_on_mariadb() {
    let dir = module_dir();
    let allowed = listed();

    let reference = Mariadb::start("gosql", "");
    reference.sql("CREATE DATABASE gotest");
    let (maria_passed, maria_failed) = run_suite(&dir, &format!("127.0.0.1:{}", reference.port));
    drop(reference);

    let data = fresh_dir("cairn-gosql-test");
    let node = start(&data, common::free_port());
    let sql = node.listening("sql (mysql protocol): ");
    mysql(&sql, "CREATE DATABASE gotest");
    let (cairn_passed, cairn_failed) = run_suite(&dir, &sql);
    node.terminate();
    let _ = std::fs::remove_dir_all(&data);

    println!(
        "go-sql-driver/mysql {MODULE}: MariaDB {} passed, {} failed; Cairn {} passed, {} failed",
        maria_passed.len(),
        maria_failed.len(),
        cairn_passed.len(),
        cairn_failed.len()
    );
    println!("failed on MariaDB: {maria_failed:?}");
    println!("failed on Cairn: {cairn_failed:?}");
    assert!(
        maria_passed.len() > 100,
        "MariaDB passed only {} tests: the suite did not run as it should",
        maria_passed.len()
    );
    let regressions: Vec<_> = cairn_failed
        .iter()
        .filter(|t| !maria_failed.contains(*t) && !allowed.contains(*t))
        .collect();
    assert!(
        regressions.is_empty(),
        "tests that pass on MariaDB fail on Cairn and are not listed in docs/sql.md: {regressions:?}"
    );
    let fixed: Vec<_> = allowed
        .iter()
        .filter(|t| cairn_passed.contains(*t))
        .collect();
    assert!(
        fixed.is_empty(),
        "tests listed in docs/sql.md as not passing pass now: take them off the list: {fixed:?}"
    );
}
