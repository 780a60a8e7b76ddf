//! The statement path under mutated SQL: the differential suite's statements, run once to make
//! its schema and data, then changed at random (tokens dropped, repeated, swapped, or
//! subqueries, operators and extreme literals put in) and sent again. Every answer must be an
//! OK, an error or rows, and the connection must stay: a panic or a stack overflow in parsing,
//! planning or running a statement fails the test, naming the statement and the seed.
//!
//! `CAIRN_FUZZ_SEED` replays a seed (`time` draws one); `CAIRN_FUZZ_ROUNDS` sets how many statements are sent;
//! `CAIRN_FUZZ_LOG` names a file that gets them (each as its length in bytes on a line, then
//! its text and a newline); `CAIRN_FUZZ_REPLAY` names such a file to send instead of mutating
//! (cut it short to find which statement left the state a failure needs).

mod common;

use std::path::Path;
use std::time::SystemTime;

use common::raw::Raw;
use common::Rng;
use sqlparser::dialect::MySqlDialect;
use sqlparser::tokenizer::{Token, Tokenizer};

/// Statements that would change what the rest of the run can do (accounts, global settings,
/// the database itself) or wait on purpose; they run in the setup, not mutated.
const SKIPPED: &[&str] = &[
    "CREATE USER",
    "DROP USER",
    "ALTER USER",
    "GRANT",
    "REVOKE",
    "SET PASSWORD",
    "SET GLOBAL",
    "DROP DATABASE",
    "KILL",
    "SHUTDOWN",
    "SLEEP",
    "GET_LOCK",
    "LOCK TABLES",
];

/// Expressions a mutation may put in place of a value or a column.
const EXPRESSIONS: &[&str] = &[
    "NULL",
    "1/0",
    "'x'",
    "?",
    "18446744073709551615",
    "-9223372036854775808",
    "1e308",
    "0.000000000000000000000000000001",
    "'2024-02-30'",
    "(SELECT 1)",
    "(SELECT NULL UNION SELECT 2)",
    "(SELECT id FROM people WHERE people.id = id)",
    "(SELECT COUNT(*) FROM orders o WHERE o.person = id AND EXISTS (SELECT 1 FROM items i WHERE i.id = o.item_id))",
    "(SELECT MAX(x.n) FROM orders x WHERE x.person = (SELECT MIN(y.person) FROM orders y WHERE y.id = x.id))",
    "EXISTS (SELECT 1 FROM (SELECT id FROM items) d WHERE d.id = id)",
    "(SELECT 1 FROM people p WHERE p.id IN (SELECT person FROM orders WHERE orders.n = p.age))",
    "CAST('9' AS SIGNED)",
    "_latin1'\u{e9}'",
    "'a' COLLATE utf8mb4_bin",
    "IF(NULL, 1, 'a')",
    "CASE WHEN 1 THEN NULL END",
    "JSON_EXTRACT('{\"a\": [1, {\"b\": null}]}', '$**.b')",
    "JSON_SET(REPEAT('[', 40), '$[0]', 1)",
    "JSON_ARRAYAGG(DISTINCT id)",
];

/// Syntax a mutation may put anywhere.
const TOKENS: &[&str] = &[
    "(",
    ")",
    ",",
    "-",
    "*",
    "AND",
    "OR",
    "NOT",
    "IN",
    "EXISTS",
    "DESC",
    "DISTINCT",
    "AS",
    "UNION SELECT 1",
    "ORDER BY 1",
    "GROUP BY 1",
    "WITH ROLLUP",
    "LIMIT 1",
    "JOIN people ON TRUE",
    "WITH w AS (SELECT 1 AS id)",
    "GROUP_CONCAT(",
    "END",
];

/// The seed the suite runs with (one whose 20,000 statements all answer).
const DEFAULT_SEED: u64 = 1_795_396_951_517_393_658;

/// The statements of the differential suite's cases file, in order, but for those it runs as
/// another account (`-- as:`), which test what that account may not do.
fn cases() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential/cases.sql");
    let text = std::fs::read_to_string(path).expect("the cases file");
    let mut out = Vec::new();
    let mut pending = String::new();
    let mut other_account = false;
    for line in text.lines() {
        let stripped = line.trim();
        if pending.is_empty() && stripped.starts_with("-- as:") {
            other_account = true;
        }
        if stripped.starts_with("--") || (pending.is_empty() && stripped.is_empty()) {
            continue;
        }
        pending.push_str(line);
        pending.push('\n');
        if stripped.ends_with(';') {
            if !other_account {
                out.push(pending.trim().trim_end_matches(';').to_string());
            }
            pending.clear();
            other_account = false;
        }
    }
    out
}

/// The statements of a `CAIRN_FUZZ_LOG` file, in order.
fn read_log(path: &Path) -> Vec<String> {
    let data = std::fs::read(path).expect("the replay file");
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(nl) = data[at..].iter().position(|&b| b == b'\n') {
        let len: usize = std::str::from_utf8(&data[at..at + nl])
            .ok()
            .and_then(|n| n.parse().ok())
            .expect("a statement's length");
        let start = at + nl + 1;
        out.push(String::from_utf8_lossy(&data[start..start + len]).into_owned());
        at = start + len + 1;
    }
    out
}

/// `sql` changed by one or two random edits of its tokens: most put an expression in place
/// of a value or a name, which keeps the statement readable more often than not.
fn mutate(sql: &str, rng: &mut Rng) -> String {
    let Ok(tokens) = Tokenizer::new(&MySqlDialect {}, sql).tokenize() else {
        return sql.to_string();
    };
    let replaceable: Vec<usize> = tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            matches!(
                t,
                Token::Number(..) | Token::SingleQuotedString(_) | Token::Word(_)
            ) && !matches!(t, Token::Word(w) if w.keyword != sqlparser::keywords::Keyword::NoKeyword)
        })
        .map(|(i, _)| i)
        .collect();
    let mut parts: Vec<String> = tokens.iter().map(Token::to_string).collect();
    for _ in 0..1 + rng.below(2) {
        if parts.is_empty() {
            break;
        }
        let at = rng.below(parts.len());
        match rng.below(8) {
            0 => {
                parts.remove(at);
            }
            1 => {
                let t = parts[at].clone();
                parts.insert(at, t);
            }
            2 if at + 1 < parts.len() => parts.swap(at, at + 1),
            3 => parts.insert(at, format!(" {} ", TOKENS[rng.below(TOKENS.len())])),
            _ if !replaceable.is_empty() => {
                let at = replaceable[rng.below(replaceable.len())];
                if at < parts.len() {
                    parts[at] = format!(" {} ", EXPRESSIONS[rng.below(EXPRESSIONS.len())]);
                }
            }
            _ => {}
        }
    }
    parts.concat()
}

/// Sends `sql` and reads its whole answer; panics naming it when the connection is lost.
/// True when it answered an error.
fn run(c: &mut Raw, sql: &str, seed: u64) -> bool {
    let mut p = vec![0x03];
    p.extend_from_slice(sql.as_bytes());
    c.send(0, &p);
    let lost = || -> ! {
        panic!("the connection was lost after this statement (seed {seed}):\n{sql}");
    };
    // Every result set of the answer (a multi-statement text gives several), to its end.
    loop {
        let Some(first) = c.packet() else { lost() };
        if first[0] == 0xff {
            return true;
        }
        let more = match first[0] {
            0x00 => {
                first.len() > 3 && {
                    // OK: affected rows and insert id are length-encoded; the status follows.
                    let mut at = 1;
                    for _ in 0..2 {
                        at += match first.get(at) {
                            Some(0xfc) => 3,
                            Some(0xfd) => 4,
                            Some(0xfe) => 9,
                            _ => 1,
                        };
                    }
                    first.get(at).is_some_and(|s| s & 0x08 != 0)
                }
            }
            0xff => false,
            _ => {
                // A result set: column definitions, EOF, rows, EOF with the status flags.
                let mut eofs = 0;
                let mut status = 0u16;
                while eofs < 2 {
                    let Some(p) = c.packet() else { lost() };
                    if p[0] == 0xfe && p.len() < 9 {
                        eofs += 1;
                        status = u16::from_le_bytes([p[3], p[4]]);
                    } else if p[0] == 0xff {
                        break;
                    }
                }
                status & 0x08 != 0
            }
        };
        if !more {
            return false;
        }
    }
}

#[test]
fn mutated_statements_never_lose_the_connection() {
    // A fixed seed by default, so the suite's runs agree; `CAIRN_FUZZ_SEED=time` draws one.
    let seed = match std::env::var("CAIRN_FUZZ_SEED").ok().as_deref() {
        Some("time") => SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64,
        Some(s) => s.parse().expect("CAIRN_FUZZ_SEED: a number or `time`"),
        None => DEFAULT_SEED,
    };
    let rounds: usize = std::env::var("CAIRN_FUZZ_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    println!("mutated statements seed: {seed} (CAIRN_FUZZ_SEED replays it)");
    let (node, server) = common::start(16 << 20);
    let port = server.address().port();
    let mut c = Raw::login_to(port, None);
    // The database the cases are written for.
    run(&mut c, "CREATE DATABASE diff", seed);
    run(&mut c, "USE diff", seed);
    let all = cases();
    let setup_failed = all.iter().filter(|s| run(&mut c, s, seed)).count();
    println!(
        "setup: {} statements, {setup_failed} answered errors",
        all.len()
    );
    let pool: Vec<&String> = all
        .iter()
        .filter(|s| {
            let upper = s.to_ascii_uppercase();
            !SKIPPED.iter().any(|k| upper.contains(k)) && !upper.starts_with("USE ")
        })
        .collect();
    let mut rng = Rng(seed | 1);
    // CAIRN_FUZZ_LOG names a file that gets every mutated statement, to replay by hand.
    let mut log = std::env::var("CAIRN_FUZZ_LOG")
        .ok()
        .map(|p| std::fs::File::create(p).expect("the log file"));
    // CAIRN_FUZZ_REPLAY sends a log's statements in place of drawn ones.
    let mut replay = std::env::var("CAIRN_FUZZ_REPLAY")
        .ok()
        .map(|p| read_log(Path::new(&p)).into_iter());
    let rounds = replay.as_ref().map_or(rounds, |r| r.len());
    let mut failed = 0;
    // The statements sent last, which a failure names (state they left may be the cause).
    let mut last: std::collections::VecDeque<String> = std::collections::VecDeque::new();
    for _ in 0..rounds {
        let sql = match replay.as_mut() {
            Some(r) => r.next().unwrap_or_default(),
            None => mutate(pool[rng.below(pool.len())], &mut rng),
        };
        if let Some(log) = log.as_mut() {
            use std::io::Write;
            let _ = writeln!(log, "{}\n{sql}", sql.len());
        }
        last.push_back(sql.clone());
        if last.len() > 20 {
            last.pop_front();
        }
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&mut c, &sql, seed))) {
            Ok(f) => failed += f as usize,
            Err(_) => panic!(
                "seed {seed}: the statements sent last, oldest first:\n{}",
                Vec::from(last).join(";\n")
            ),
        }
        if replay.is_none() && rng.below(50) == 0 {
            // Now and then from a clean state: no transaction left open, the database in use.
            run(&mut c, "ROLLBACK", seed);
            run(&mut c, "USE diff", seed);
            if let Some(log) = log.as_mut() {
                use std::io::Write;
                let _ = writeln!(log, "8\nROLLBACK\n8\nUSE diff");
            }
        }
    }
    println!(
        "{rounds} mutated statements of {} cases: {failed} answered errors",
        pool.len()
    );
    // The session still answers as it should.
    assert_eq!(
        c.query("SELECT 1"),
        common::raw::Answer::Rows(vec![vec![1, b'1']])
    );
    server.stop();
    node.stop();
}
