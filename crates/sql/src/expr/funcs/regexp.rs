//! Regular expressions: REGEXP/RLIKE, REGEXP_REPLACE, REGEXP_SUBSTR and REGEXP_INSTR over the
//! `regex` crate, case-insensitive under a case-insensitive collation as MariaDB's PCRE is.
//! A pattern the crate cannot read (a syntax error, or PCRE's backreferences and lookaround,
//! which it lacks) is MariaDB's error 1139. Compiled patterns are kept per thread.

use std::cell::RefCell;
use std::collections::HashMap;

use base::types::Collation;
use regex::bytes::{Regex, RegexBuilder};

use crate::foundation::error::SqlError;

type Result<T> = std::result::Result<T, SqlError>;

/// Compiled patterns a thread keeps (forgotten all at once past this many).
const CACHED_PATTERNS_MAX: usize = 64;
/// The most bytes a compiled pattern may take.
const PATTERN_BYTES_MAX: usize = 1 << 20;

thread_local! {
    static PATTERNS: RefCell<HashMap<(Vec<u8>, bool), Regex>> = RefCell::new(HashMap::new());
}

/// Whether strings under `c` match letters of either case (not binary, not a `_bin`).
fn caseless(c: Collation) -> bool {
    c != Collation::Binary && !c.is_bin()
}

/// `pattern` compiled (from the thread's cache when it was before).
pub(crate) fn compiled(pattern: &[u8], c: Collation) -> Result<Regex> {
    let key = (pattern.to_vec(), caseless(c));
    if let Some(r) = PATTERNS.with(|p| p.borrow().get(&key).cloned()) {
        return Ok(r);
    }
    let text = String::from_utf8_lossy(pattern);
    let regex = RegexBuilder::new(&text)
        .case_insensitive(key.1)
        .size_limit(PATTERN_BYTES_MAX)
        .build()
        .map_err(|e| {
            let reason = match e {
                regex::Error::Syntax(s) => s.lines().last().unwrap_or("").trim().to_string(),
                other => other.to_string(),
            };
            SqlError::new(1139, "42000", format!("Regex error '{reason}'"))
        })?;
    PATTERNS.with(|p| {
        let mut p = p.borrow_mut();
        if p.len() >= CACHED_PATTERNS_MAX {
            p.clear();
        }
        p.insert(key, regex.clone());
    });
    Ok(regex)
}

/// REGEXP_REPLACE: every non-empty match replaced (`\0` to `\9` in `with` stand for the
/// match and its groups), as MariaDB, which leaves empty matches alone.
pub(crate) fn replace(subject: &[u8], r: &Regex, with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(subject.len());
    let mut last = 0;
    for caps in r.captures_iter(subject) {
        let Some(m) = caps.get(0) else {
            continue;
        };
        if m.is_empty() {
            continue;
        }
        out.extend_from_slice(&subject[last..m.start()]);
        let mut i = 0;
        while i < with.len() {
            match (with[i], with.get(i + 1)) {
                (b'\\', Some(d @ b'0'..=b'9')) => {
                    if let Some(g) = caps.get(usize::from(d - b'0')) {
                        out.extend_from_slice(g.as_bytes());
                    }
                    i += 2;
                }
                (b'\\', Some(other)) => {
                    out.push(*other);
                    i += 2;
                }
                (b, _) => {
                    out.push(b);
                    i += 1;
                }
            }
        }
        last = m.end();
    }
    out.extend_from_slice(&subject[last..]);
    out
}

/// REGEXP_INSTR: the 1-based character position of the first match, 0 without one.
pub(crate) fn instr(subject: &[u8], r: &Regex) -> i64 {
    match r.find(subject) {
        Some(m) => {
            let before = &subject[..m.start()];
            String::from_utf8_lossy(before).chars().count() as i64 + 1
        }
        None => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CI: Collation = Collation::Utf8mb4GeneralCi;

    #[test]
    fn matches_replaces_and_finds_as_mariadb() {
        let r = compiled(b"B", CI).unwrap();
        assert!(r.is_match(b"abc"));
        assert!(!compiled(b"B", Collation::Binary).unwrap().is_match(b"abc"));
        assert_eq!(replace(b"aaa", &compiled(b"a*", CI).unwrap(), b"X"), b"X");
        assert_eq!(replace(b"abc", &compiled(b"", CI).unwrap(), b"-"), b"abc");
        assert_eq!(
            replace(b"abc", &compiled(b"(b)", CI).unwrap(), b"<\\1\\0>"),
            b"a<bb>c"
        );
        assert_eq!(instr("aéb".as_bytes(), &compiled(b"b", CI).unwrap()), 3);
        assert_eq!(compiled(b"(", CI).unwrap_err().code, 1139);
        assert_eq!(compiled(b"(a)\\1", CI).unwrap_err().code, 1139);
    }
}
