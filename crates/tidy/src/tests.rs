//! The rules, checked over the workspace, and the reader's own tests.

use super::*;
use std::collections::BTreeSet;

fn relative(path: &Path) -> String {
    let root = workspace().canonicalize().unwrap();
    let path = path.canonicalize().unwrap();
    path.strip_prefix(&root)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Checks found exceptions against an allow-list: every exception must be listed, and every
/// entry must still be an exception (the list only shrinks).
fn hold(rule: &str, list_file: &str, list: &str, found: &BTreeSet<String>, how: &str) {
    let allowed: BTreeSet<String> = allow_list(list).into_iter().collect();
    let new: Vec<_> = found.difference(&allowed).collect();
    let stale: Vec<_> = allowed.difference(found).collect();
    if !stale.is_empty() && new.is_empty() && std::env::var_os("TIDY_STRIKE").is_some() {
        // Strikes what holds no more (never adds): `TIDY_STRIKE=1 cargo test -p tidy`.
        let kept: String = list
            .lines()
            .filter(|l| !stale.iter().any(|s| l.trim() == s.as_str()))
            .map(|l| format!("{l}\n"))
            .collect();
        let path = workspace().join("crates/tidy/allow").join(list_file);
        std::fs::write(&path, kept).unwrap();
        return;
    }
    let mut message = String::new();
    if !new.is_empty() {
        message += &format!("{rule}: {how}:\n");
        for n in &new {
            message += &format!("  {n}\n");
        }
    }
    if !stale.is_empty() {
        message += &format!(
            "{rule}: these entries of crates/tidy/allow/{list_file} hold no more; strike them \
             (the list only shrinks; TIDY_STRIKE=1 cargo test -p tidy strikes them):\n"
        );
        for s in &stale {
            message += &format!("  {s}\n");
        }
    }
    assert!(message.is_empty(), "{message}");
}

#[test]
fn every_rust_file_opens_with_a_line_saying_what_it_owns() {
    let mut missing = Vec::new();
    for file in rust_files(&workspace().join("crates")) {
        let text = read(&file);
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        if !first.starts_with("//!") {
            missing.push(relative(&file));
        }
    }
    assert!(
        missing.is_empty(),
        "these files do not open with a `//!` line saying what they own:\n  {}",
        missing.join("\n  ")
    );
}

#[test]
fn no_file_passes_the_line_budget() {
    let mut long = BTreeSet::new();
    for file in rust_files(&workspace().join("crates")) {
        if read(&file).lines().count() > FILE_LINES_MAX {
            long.insert(relative(&file));
        }
    }
    hold(
        "file budget",
        "long_files.txt",
        include_str!("../allow/long_files.txt"),
        &long,
        &format!("these files pass {FILE_LINES_MAX} lines; split them along what they own"),
    );
}

#[test]
fn no_front_end_function_passes_the_line_budget() {
    let mut long = BTreeSet::new();
    for dir in FUNCTION_RULE_DIRS {
        for file in rust_files(&workspace().join(dir)) {
            for f in functions(&blank_literals(&read(&file))) {
                if f.lines > FUNCTION_LINES_MAX {
                    long.insert(format!("{} {}", relative(&file), f.name));
                }
            }
        }
    }
    hold(
        "function budget",
        "long_functions.txt",
        include_str!("../allow/long_functions.txt"),
        &long,
        &format!(
            "these functions pass {FUNCTION_LINES_MAX} lines; split them into steps with names"
        ),
    );
}

#[test]
fn sql_imports_run_down_the_layer_order() {
    let src = workspace().join("crates/sql/src");
    let mut against = BTreeSet::new();
    let mut unknown = Vec::new();
    for file in rust_files(&src) {
        let inside = file.strip_prefix(&src).unwrap().to_path_buf();
        let layer = sql_layer(&inside);
        let Some(rank) = sql_rank(&layer) else {
            unknown.push(inside.display().to_string());
            continue;
        };
        for (_, first) in crate_paths(&blank_literals(&read(&file))) {
            let target = sql_target(&first);
            if sql_rank(&target).unwrap() > rank {
                against.insert(format!("{} -> {target}", inside.display()));
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "files of crates/sql/src outside every layer folder (add the folder to SQL_LAYERS or \
         move the file): {unknown:?}"
    );
    hold(
        "layer order",
        "sql_layers.txt",
        include_str!("../allow/sql_layers.txt"),
        &against,
        &format!(
            "these files import from a layer above their own (order, low to high: {}, then \
             lib.rs); move the shared thing down or pass what is needed in",
            SQL_LAYERS.join(", ")
        ),
    );
}

#[test]
fn literals_and_comments_are_blanked_and_lines_kept() {
    let src = "let a = \"{ crate::x }\"; // crate::y {\n/* { /* nested } */ } */ let c = '{';\n\
               let r = r#\"}\"#; let l: &'a str = b\"}\"; fn f<'a>() {}\n";
    let blanked = blank_literals(src);
    assert_eq!(blanked.lines().count(), src.lines().count());
    assert!(
        !blanked.contains('}') || blanked.matches('}').count() == 1,
        "{blanked}"
    );
    assert!(!blanked.contains("crate::"), "{blanked}");
    assert!(blanked.contains("&'a str"), "{blanked}");
    assert!(blanked.contains("fn f<'a>() {}"), "{blanked}");
}

#[test]
fn functions_are_measured_from_fn_to_their_closing_brace() {
    let src = "fn short() { let x = \"}\"; }\n\
               pub(crate) fn long(\n    a: u32,\n) -> u32 {\n    if a > 0 {\n        1\n    } else {\n        2\n    }\n}\n\
               trait T { fn declared(&self); fn given(&self) {} }\n\
               type F = fn(u32) -> u32;\n";
    let found = functions(&blank_literals(src));
    let named: Vec<_> = found
        .iter()
        .map(|f| (f.name.as_str(), f.line, f.lines))
        .collect();
    assert_eq!(
        named,
        vec![("short", 1, 1), ("long", 2, 9), ("given", 11, 1)],
        "{found:?}"
    );
}

#[test]
fn crate_paths_give_their_first_segments() {
    let src = "use crate::plan::{Source, join::Step};\nuse crate::{exec::run, session::Session as S, Shared};\n\
               let x = crate::LIMIT; macro_rules! m { () => { $crate::x } }\n// crate::commented\n";
    let found = crate_paths(&blank_literals(src));
    let words: Vec<_> = found.iter().map(|(l, w)| (*l, w.as_str())).collect();
    assert_eq!(
        words,
        vec![
            (1, "plan"),
            (2, "exec"),
            (2, "session"),
            (2, "Shared"),
            (3, "LIMIT")
        ]
    );
    assert_eq!(sql_target("Shared"), LIB);
    assert_eq!(sql_target("plan"), "plan");
    assert_eq!(sql_layer(Path::new("lib.rs")), LIB);
    assert_eq!(sql_layer(Path::new("expr/funcs/json.rs")), "expr");
    assert!(sql_rank("server") < sql_rank(LIB));
    assert!(sql_rank("foundation") < sql_rank("parse"));
}

/// The crates that read bytes from the network or disk, which deny `unwrap`, `expect` and slice
/// indexing outside their tests: a bad byte answers an error, never a panic.
const BYTE_READERS: &[&str] = &["wire", "transport", "storage", "myproto", "hs"];

#[test]
fn crates_that_read_bytes_deny_panicking_shortcuts() {
    let lint = "#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, \
                clippy::indexing_slicing))]";
    let missing: Vec<&str> = BYTE_READERS
        .iter()
        .filter(|c| {
            // Compared without whitespace: rustfmt wraps the attribute.
            let bare = |t: &str| t.split_whitespace().collect::<String>();
            let lib = read(&workspace().join("crates").join(c).join("src/lib.rs"));
            !bare(&lib).contains(&bare(lint))
        })
        .copied()
        .collect();
    assert!(
        missing.is_empty(),
        "these crates read bytes from the network or disk but do not open with `{lint}`: {missing:?}"
    );
}
