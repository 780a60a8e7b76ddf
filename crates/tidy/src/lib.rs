//! Rules of the workspace's source that tests enforce, so that nobody has to remember them:
//! every Rust file opens with a `//!` line saying what it owns, no file passes
//! `FILE_LINES_MAX` lines, no function of the front ends passes `FUNCTION_LINES_MAX`, and
//! `crates/sql` imports only down its layer order (`SQL_LAYERS`).
//!
//! Each size and layer rule has an allow-list under `crates/tidy/allow/` of today's exceptions.
//! A list may only shrink: an entry that no longer applies fails the test too, so it is struck
//! in the change that mends the code, and a new exception cannot slip in beside an old one.
//!
//! The source is read as text, not parsed: comments and string and character literals are
//! blanked first (`blank_literals`), then functions are found by `fn` and their braces, and
//! imports by their `crate::` paths.

use std::path::{Path, PathBuf};

/// The most lines a Rust file may have.
pub const FILE_LINES_MAX: usize = 1_500;

/// The most lines a function of the front ends (`FUNCTION_RULE_DIRS`) may span, from its `fn`
/// to its closing brace.
pub const FUNCTION_LINES_MAX: usize = 120;

/// Where the function budget holds (the SQL and HandlerSocket front ends, whose layering
/// issue 41 is about).
pub const FUNCTION_RULE_DIRS: &[&str] = &["crates/sql/src", "crates/hs/src"];

/// The layers of `crates/sql/src`, low to high: a file of one may use its own layer and those
/// before it, never one after it. `lib.rs` (the crate root: `SqlServer`, `Shared`) stands above
/// them all, as `LIB`.
pub const SQL_LAYERS: &[&str] = &[
    "foundation",
    "parse",
    "expr",
    "catalog",
    "plan",
    "exec",
    "session",
    "commands",
    "dispatch",
    "server",
];

/// The layer name of `crates/sql/src/lib.rs` and of the items it defines.
pub const LIB: &str = "lib";

/// The workspace's root directory.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs` file under `dir`, sorted; build output, dependencies and hidden directories are
/// skipped.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if !name.starts_with('.') && name != "target" && name != "node_modules" {
                    stack.push(path);
                }
            } else if name.ends_with(".rs") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The source with every comment and every string, byte-string, raw-string and character
/// literal replaced by spaces (newlines kept, so lines still count), so braces and paths inside
/// them are not read as code. Lifetimes (`'a`) are kept.
pub fn blank_literals(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        let after_word = i > 0 && word_byte(b[i - 1]);
        if rest.starts_with(b"//") {
            let end = find(b, i, b"\n").unwrap_or(b.len());
            blank(&mut out, i, end);
            i = end;
        } else if rest.starts_with(b"/*") {
            // Block comments nest in Rust.
            let (mut depth, mut j) = (0usize, i);
            while j < b.len() {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if let Some(hashes) = (!after_word).then(|| raw_string_start(rest)).flatten() {
            let open = rest.iter().position(|&c| c == b'"').unwrap_or(0) + 1;
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let end = find(b, i + open, &close).map_or(b.len(), |e| e + close.len());
            blank(&mut out, i, end);
            i = end;
        } else if rest[0] == b'"' || (!after_word && rest.starts_with(b"b\"")) {
            let mut j = i + if rest[0] == b'"' { 1 } else { 2 };
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i, j + 1);
            i = j + 1;
        } else if rest[0] == b'\'' || (!after_word && rest.starts_with(b"b'")) {
            let start = i + if rest[0] == b'\'' { 1 } else { 2 };
            match char_literal_end(b, start) {
                Some(end) => {
                    blank(&mut out, i, end);
                    i = end;
                }
                None => i = start, // a lifetime or a loop label
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

fn find(b: &[u8], from: usize, what: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(what.len())
        .position(|w| w == what)
        .map(|p| p + from)
}

/// `r"`, `r#"`, `br##"` ...: the number of `#`s of a raw string starting here.
fn raw_string_start(rest: &[u8]) -> Option<usize> {
    let r = match rest {
        [b'b', b'r', ..] => 2,
        [b'r', ..] => 1,
        _ => return None,
    };
    let hashes = rest[r..].iter().take_while(|&&c| c == b'#').count();
    (rest.get(r + hashes) == Some(&b'"')).then_some(hashes)
}

/// The end (one past the closing quote) of a character literal whose body starts at `start`,
/// or None when the quote opened a lifetime or a label.
fn char_literal_end(b: &[u8], start: usize) -> Option<usize> {
    if b.get(start) == Some(&b'\\') {
        let close = find(b, start + 1, b"'")?;
        return (close - start <= 11).then_some(close + 1);
    }
    // One character, up to four bytes of UTF-8, then the closing quote.
    let len = match *b.get(start)? {
        c if c < 0x80 => 1,
        c if c >> 5 == 0b110 => 2,
        c if c >> 4 == 0b1110 => 3,
        _ => 4,
    };
    (b.get(start + len) == Some(&b'\'')).then_some(start + len + 1)
}

/// A function found in a source: its name, the line of its `fn` (1-based) and how many lines
/// it spans to its closing brace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    pub line: usize,
    pub lines: usize,
}

/// The functions (with bodies) of a source `blank_literals` has blanked, nested ones too.
pub fn functions(blanked: &str) -> Vec<Function> {
    let b = blanked.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while let Some(at) = find(b, i, b"fn ") {
        i = at + 3;
        if at > 0 && word_byte(b[at - 1]) {
            continue;
        }
        let name = leading_word(&blanked[i..]);
        if name.is_empty() {
            continue; // `fn(` types
        }
        // The body opens at the first `{` before any `;` (a declaration without a body).
        let Some(open) = b[i..]
            .iter()
            .position(|&c| c == b'{' || c == b';')
            .map(|p| p + i)
        else {
            break;
        };
        if b[open] == b';' {
            continue;
        }
        let mut depth = 0usize;
        let mut close = open;
        for (k, &c) in b.iter().enumerate().skip(open) {
            match c {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = k;
                        break;
                    }
                }
                _ => {}
            }
        }
        let line = line_of(b, at);
        found.push(Function {
            name,
            line,
            lines: line_of(b, close) - line + 1,
        });
    }
    found
}

fn word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The identifier `text` starts with (after white space); empty when there is none.
fn leading_word(text: &str) -> String {
    text.trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

fn line_of(b: &[u8], at: usize) -> usize {
    b[..at].iter().filter(|&&c| c == b'\n').count() + 1
}

/// The first segment of every `crate::` path in a blanked source, with its line: for
/// `crate::a::b` it is `a`, and `crate::{a::b, c}` gives `a` and `c`.
pub fn crate_paths(blanked: &str) -> Vec<(usize, String)> {
    let b = blanked.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while let Some(at) = find(b, i, b"crate::") {
        i = at + 7;
        if at > 0 && (word_byte(b[at - 1]) || b[at - 1] == b'$') {
            continue;
        }
        let line = line_of(b, at);
        if b.get(i) == Some(&b'{') {
            found.extend(group_entries(&blanked[i..]).into_iter().map(|w| (line, w)));
        } else {
            let word = leading_word(&blanked[i..]);
            if !word.is_empty() {
                found.push((line, word));
            }
        }
    }
    found
}

/// The first word of each top-level entry of a `{...}` group that `text` starts with.
fn group_entries(text: &str) -> Vec<String> {
    let mut entries = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '{' => {
                depth += 1;
                if depth == 1 {
                    continue;
                }
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    entries.push(std::mem::take(&mut current));
                    break;
                }
            }
            ',' if depth == 1 => {
                entries.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    entries
        .iter()
        .map(|e| leading_word(e))
        .filter(|w| !w.is_empty())
        .collect()
}

/// The layer of a file of `crates/sql/src`, from its path inside that folder.
pub fn sql_layer(relative: &Path) -> String {
    match relative.components().next() {
        Some(first) if relative.components().count() > 1 => {
            first.as_os_str().to_string_lossy().into_owned()
        }
        _ => LIB.to_string(),
    }
}

/// A layer's place in the order (`LIB` last); None for a name that is no layer.
pub fn sql_rank(layer: &str) -> Option<usize> {
    if layer == LIB {
        return Some(SQL_LAYERS.len());
    }
    SQL_LAYERS.iter().position(|l| *l == layer)
}

/// The layer a `crate::` path's first segment names: a layer module, or an item of `lib.rs`.
pub fn sql_target(first_segment: &str) -> String {
    if sql_rank(first_segment).is_some() {
        first_segment.to_string()
    } else {
        LIB.to_string()
    }
}

/// The lines of an allow-list file that are entries (not blank, not `#` comments).
pub fn allow_list(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests;
