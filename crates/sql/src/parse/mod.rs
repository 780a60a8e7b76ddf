//! Statement text to syntax: Cairn's dialect of sqlparser, the bounds checked on a text's tokens
//! before it is parsed, the clauses sqlparser does not read (PARTITION BY KEY) and the literals
//! of a client's bytes. Uses only the foundation.

pub(crate) mod dialect;
pub(crate) mod guard;
pub(crate) mod literals;
pub(crate) mod partition;

use sqlparser::ast::ObjectName;
use sqlparser::tokenizer::Location;

use crate::foundation::error::{Result, SqlError};

/// Whether `word` appears in `sql`, in any case: a cheap test before tokenizing for a rewrite.
pub(crate) fn mentions(sql: &str, word: &str) -> bool {
    mentions_bytes(sql.as_bytes(), word.as_bytes())
}

/// [`mentions`] over bytes that need be no UTF-8 (a client's text before it is decoded).
pub(crate) fn mentions_bytes(text: &[u8], word: &[u8]) -> bool {
    if word.is_empty() {
        return true;
    }
    if word.len() > text.len() {
        return false;
    }
    // A word is tried only where its first two bytes stand, compared with the ASCII case bit
    // set (a filter: the comparison after it decides), since texts run to megabytes.
    let folded = |b: u8| b | 0x20;
    let second = word.len().min(2) - 1;
    let head = [folded(word[0]), folded(word[second])];
    text.windows(word.len()).any(|w| {
        folded(w[0]) == head[0] && folded(w[second]) == head[1] && w.eq_ignore_ascii_case(word)
    })
}

/// Whether `sql` begins (after white space) with `word`, in any case.
pub(crate) fn starts_with_word(sql: &str, word: &str) -> bool {
    let sql = sql.trim_start().as_bytes();
    sql.len() > word.len()
        && sql[..word.len()].eq_ignore_ascii_case(word.as_bytes())
        && !sql[word.len()].is_ascii_alphanumeric()
}

/// The byte offset of a location in `sql` (for a single lookup; `SourceIndex` answers many).
pub(crate) fn offset(sql: &str, l: Location) -> Option<usize> {
    Lines::new(sql).offset(sql, l)
}

/// Characters between the byte offsets a line of other than ASCII keeps: a location in it is
/// found by walking at most this many characters.
const LINE_MARK_CHARS: usize = 256;

/// Where a text's lines start, so that a location (line and character column, as sqlparser
/// gives them) becomes a byte offset without walking the text from its start.
pub(crate) struct Lines {
    /// Per line: its first byte, its length (with its newline), and for a line of other than
    /// ASCII the byte offset (from the line's start) of every `LINE_MARK_CHARS`th character.
    lines: Vec<(usize, usize, Option<Vec<usize>>)>,
}

impl Lines {
    pub(crate) fn new(sql: &str) -> Lines {
        let mut lines = Vec::new();
        let mut start = 0;
        for line in sql.split_inclusive('\n') {
            let marks = (!line.is_ascii()).then(|| {
                line.char_indices()
                    .step_by(LINE_MARK_CHARS)
                    .map(|(i, _)| i)
                    .collect()
            });
            lines.push((start, line.len(), marks));
            start += line.len();
        }
        Lines { lines }
    }

    pub(crate) fn offset(&self, sql: &str, l: Location) -> Option<usize> {
        if l.line == 0 || l.column == 0 {
            return None;
        }
        let (start, length, marks) = self.lines.get(l.line as usize - 1)?;
        let line = sql.get(*start..start + length)?;
        let column = l.column as usize - 1;
        let in_line = match marks {
            None => column.min(line.len()),
            Some(marks) => {
                let from = marks
                    .get(column / LINE_MARK_CHARS)
                    .copied()
                    .unwrap_or(line.len());
                line[from..]
                    .char_indices()
                    .nth(column % LINE_MARK_CHARS)
                    .map_or(line.len(), |(i, _)| from + i)
            }
        };
        Some(start + in_line)
    }
}

/// An object name as (database, name): `name` or `database.name`.
pub(crate) fn ident(name: &ObjectName) -> Result<(Option<String>, String)> {
    let parts: Vec<String> = name
        .0
        .iter()
        .map(|p| match p.as_ident() {
            Some(i) => Ok(i.value.clone()),
            None => Err(SqlError::unsupported(format!("the name {name}"))),
        })
        .collect::<Result<_>>()?;
    match parts.as_slice() {
        [t] => Ok((None, t.clone())),
        [d, t] => Ok((Some(d.clone()), t.clone())),
        _ => Err(SqlError::unsupported(format!("the name {name}"))),
    }
}

/// A system variable's name as written (`@@session.Autocommit`) without `@@` and scope, in
/// lower case.
pub(crate) fn variable_name(name: &str) -> String {
    let name = name.trim_start_matches("@@").to_ascii_lowercase();
    ["session.", "global.", "local."]
        .iter()
        .find_map(|p| name.strip_prefix(p))
        .map(str::to_string)
        .unwrap_or(name)
}

#[cfg(test)]
mod word_tests {
    use super::mentions;

    #[test]
    fn mentions_finds_a_word_in_any_case_and_nothing_else() {
        assert!(mentions("SELECT 1 UNION SELECT 2", "union"));
        assert!(mentions("x'C0C0' comment='a'", "COMMENT"));
        assert!(!mentions("x'C0C0C0'", "comment"));
        assert!(mentions("a", "a"));
        assert!(!mentions("a", "ab"));
        assert!(mentions("anything", ""));
        assert!(!mentions("sql_modf", "sql_mode"));
        assert!(mentions("SET SQL_MODE=''", "sql_mode"));
    }
}
