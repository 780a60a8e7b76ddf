//! The plan cache of text queries: the literals of a statement's WHERE clause, of an UPDATE's
//! SET and of an INSERT's VALUES become `?`, and the normalized text (with the current database) maps to the
//! statement's plan, so the same statement with other values is neither parsed nor planned
//! again; the literals are the plan's parameters.

use std::collections::HashMap;
use std::sync::Arc;

use crate::plan::compiled::Compiled;
use crate::plan::lex::{self, Kw, Lex};
use base::Value;

/// Plans a session keeps; when full, the cache starts over.
pub const QUERY_PLANS_MAX: usize = 256;

/// Statements longer than this are not cached: long texts (bulk INSERTs) are rarely repeated,
/// and a plan per text would hold them all.
pub const QUERY_TEXT_BYTES_MAX: usize = 4_096;

/// A statement's text with its value literals as `?`, and those values in order.
#[derive(Debug, PartialEq)]
pub(crate) struct Normalized {
    pub text: String,
    pub values: Vec<Value>,
}

/// Where literals are values: a WHERE clause, an UPDATE's SET or an INSERT's VALUES list.
#[derive(Clone, Copy, PartialEq)]
enum Region {
    Outside,
    Where,
    Values,
}

/// The statement normalized, or None when it is not one the cache serves (not a single
/// SELECT, UPDATE, DELETE or INSERT, a subquery, a `?` of its own, or nothing to replace).
/// Its tokens come from the plan/lex.rs scanner, or sqlparser's tokenizer for forms the
/// scanner leaves (the scanner costs a fraction of the tokenizer).
pub(crate) fn normalize(sql: &str) -> Option<Normalized> {
    if sql.len() > QUERY_TEXT_BYTES_MAX {
        return None;
    }
    let tokens = match lex::scanned(sql) {
        Some(tokens) => tokens,
        None => lex::tokenized(sql)?,
    };
    normalized(sql, &tokens)
}

/// `normalize` over the statement's tokens.
fn normalized(sql: &str, tokens: &[Lex]) -> Option<Normalized> {
    let mut first = None;
    let mut region = Region::Outside;
    let mut depth = 0usize;
    // The previous token.
    let mut previous: Option<&Lex> = None;
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let mut values = Vec::new();
    let mut ended = false;
    for token in tokens {
        if ended {
            // Something after a `;`: several statements.
            return None;
        }
        match token {
            Lex::Semi => ended = true,
            Lex::Placeholder => return None,
            Lex::LParen => depth += 1,
            Lex::RParen => depth = depth.saturating_sub(1),
            Lex::Word(w) => {
                let w = *w;
                if first.is_none() {
                    first = Some(w);
                }
                match w {
                    Kw::Select if depth > 0 || first != Some(Kw::Select) => return None,
                    Kw::Select if previous.is_some() => return None,
                    Kw::Where if depth == 0 && first != Some(Kw::Insert) => region = Region::Where,
                    Kw::Values | Kw::Value if depth == 0 && first == Some(Kw::Insert) => {
                        region = Region::Values
                    }
                    Kw::Set if depth == 0 && first == Some(Kw::Update) => region = Region::Values,
                    Kw::Ends if depth == 0 => region = Region::Outside,
                    _ => {}
                }
            }
            Lex::Number(n, (start, end)) | Lex::Str(n, (start, end))
                if region != Region::Outside && value_position(previous) =>
            {
                let value = match token {
                    Lex::Number(..) => crate::expr::number(n).ok()?,
                    // A non-ASCII literal's characters decide whether a utf8mb3 or latin1 operand
                    // may take it (1267 when not), which the plan checks on the literal itself.
                    _ if !n.is_ascii() => return None,
                    _ => Value::Bytes(n.as_bytes().to_vec()),
                };
                if start >= end {
                    return None;
                }
                cuts.push((*start, *end));
                values.push(value);
            }
            _ => {}
        }
        previous = Some(token);
    }
    if !matches!(
        first,
        Some(Kw::Select | Kw::Update | Kw::Delete | Kw::Insert)
    ) || cuts.is_empty()
    {
        return None;
    }
    let mut text = String::with_capacity(sql.len());
    let mut at = 0;
    for (start, end) in cuts {
        text.push_str(sql.get(at..start)?);
        text.push('?');
        at = end;
    }
    text.push_str(sql.get(at..)?);
    Some(Normalized { text, values })
}

/// Whether a literal after `previous` is a value in an expression (not a typed literal such as
/// `DATE '2024-01-01'`, an ESCAPE character or a charset introducer).
fn value_position(previous: Option<&Lex>) -> bool {
    matches!(
        previous,
        Some(
            Lex::Word(Kw::Where | Kw::Before | Kw::Values | Kw::Value)
                | Lex::LParen
                | Lex::Operator
        )
    )
}

/// A session's cached plans, by database and normalized text (looked up by reference: no
/// allocation per lookup).
#[derive(Default)]
pub(crate) struct QueryCache {
    plans: HashMap<Option<String>, HashMap<String, Arc<Compiled>>>,
    /// Plans held, over every database.
    len: usize,
}

impl QueryCache {
    /// The plan of `text` in `database`, if cached.
    pub fn get(&self, database: &Option<String>, text: &str) -> Option<Arc<Compiled>> {
        self.plans.get(database)?.get(text).cloned()
    }

    /// Forgets the plan of `text` in `database` (its table changed under it).
    pub fn forget(&mut self, database: &Option<String>, text: &str) {
        if let Some(plans) = self.plans.get_mut(database) {
            if plans.remove(text).is_some() {
                self.len -= 1;
            }
        }
    }

    pub fn put(&mut self, database: &Option<String>, text: String, plan: Arc<Compiled>) {
        if self.len >= QUERY_PLANS_MAX {
            self.clear();
        }
        let plans = match self.plans.get_mut(database) {
            Some(plans) => plans,
            None => self.plans.entry(database.clone()).or_default(),
        };
        if plans.insert(text, plan).is_none() {
            self.len += 1;
        }
    }

    /// Forgets every plan (after DDL in this session, or a reset).
    pub fn clear(&mut self) {
        self.plans.clear();
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(sql: &str) -> Option<(String, Vec<Value>)> {
        normalize(sql).map(|n| (n.text, n.values))
    }

    #[test]
    fn where_and_values_literals_become_placeholders() {
        assert_eq!(
            norm("SELECT c, 1 + 2 FROM t WHERE id = 5 AND name LIKE 'a%' ORDER BY 1 LIMIT 3"),
            Some((
                "SELECT c, 1 + 2 FROM t WHERE id = ? AND name LIKE ? ORDER BY 1 LIMIT 3".into(),
                vec![Value::Int(5), Value::Bytes(b"a%".to_vec())]
            ))
        );
        assert_eq!(
            norm("SELECT c FROM t WHERE id BETWEEN 1 AND 99"),
            Some((
                "SELECT c FROM t WHERE id BETWEEN ? AND ?".into(),
                vec![Value::Int(1), Value::Int(99)]
            ))
        );
        assert_eq!(
            norm("INSERT INTO t (a, b) VALUES (1, 'x'), (-2, \"y\")"),
            Some((
                "INSERT INTO t (a, b) VALUES (?, ?), (-?, ?)".into(),
                vec![
                    Value::Int(1),
                    Value::Bytes(b"x".to_vec()),
                    Value::Int(2),
                    Value::Bytes(b"y".to_vec())
                ]
            ))
        );
        assert_eq!(
            norm("UPDATE t SET k = k + 1, c = 'x' WHERE id IN (3, 4)").map(|n| n.0),
            Some("UPDATE t SET k = k + ?, c = ? WHERE id IN (?, ?)".into())
        );
        // Multi-line text keeps its other lines as typed.
        assert_eq!(
            norm("SELECT\n  'é' AS x\nFROM t\nWHERE v = 'u' AND id = 7").map(|n| n.0),
            Some("SELECT\n  'é' AS x\nFROM t\nWHERE v = ? AND id = ?".into())
        );
        // A non-ASCII value literal is planned with the statement, not cached.
        assert_eq!(norm("SELECT a FROM t WHERE v = 'ü'").map(|n| n.0), None);
    }

    #[test]
    fn other_statements_and_forms_are_left_alone() {
        for sql in [
            "SELECT 1",
            "SELECT * FROM t",
            "SELECT * FROM t WHERE d = DATE '2024-01-01'",
            "SELECT * FROM t WHERE id IN (SELECT id FROM u WHERE x = 1)",
            "SELECT * FROM t WHERE id = 1; SELECT 2",
            "SELECT * FROM t WHERE id = ?",
            "SHOW TABLES LIKE 'a%'",
            "SET @a = 1",
            "INSERT INTO t SELECT * FROM u WHERE id = 1",
        ] {
            assert_eq!(norm(sql), None, "{sql}");
        }
        // A trailing semicolon is one statement.
        assert!(norm("DELETE FROM t WHERE id = 1;").is_some());
        // A bulk INSERT is too long to be worth a plan of its own.
        let rows: Vec<String> = (0..1_000).map(|i| format!("({i}, 'x')")).collect();
        assert_eq!(
            norm(&format!("INSERT INTO t VALUES {}", rows.join(","))),
            None
        );
    }

    #[test]
    fn plans_are_kept_per_database_and_bounded() {
        let commit = sqlparser::parser::Parser::parse_sql(&crate::parse::dialect::Cairn, "COMMIT");
        let statement = commit.expect("COMMIT parses").remove(0);
        let plan = || Arc::new(Compiled::Other(Box::new(statement.clone())));
        let (a, b) = (Some("a".to_string()), None);
        let mut cache = QueryCache::default();
        cache.put(&a, "SELECT ?".into(), plan());
        assert!(cache.get(&a, "SELECT ?").is_some());
        assert!(cache.get(&b, "SELECT ?").is_none());
        cache.put(&b, "SELECT ?".into(), plan());
        cache.forget(&a, "SELECT ?");
        assert!(cache.get(&a, "SELECT ?").is_none());
        assert!(cache.get(&b, "SELECT ?").is_some());
        // The same text again replaces its plan, not counted twice.
        cache.put(&b, "SELECT ?".into(), plan());
        assert_eq!(cache.len, 1);
        for i in 1..QUERY_PLANS_MAX {
            cache.put(&a, format!("SELECT {i}"), plan());
        }
        assert_eq!(cache.len, QUERY_PLANS_MAX);
        // Full: the next plan starts the cache over.
        cache.put(&a, "SELECT x".into(), plan());
        assert_eq!(cache.len, 1);
        assert!(cache.get(&b, "SELECT ?").is_none());
        assert!(cache.get(&a, "SELECT x").is_some());
    }
}
