//! ANALYZE, CHECK, OPTIMIZE and REPAIR TABLE: MySQL's table-maintenance statements. ANALYZE
//! measures a table's statistics for the planner (`client::Cluster::analyze`); the others are
//! answered as MariaDB answers them for a storage engine without the operation (Cairn keeps no
//! files to check, compact or repair), so tools that send them (mysqlcheck, admin consoles) get
//! their result set instead of a syntax error.

use myproto::response::{types, Column};
use sqlparser::ast::{Ident, ObjectName};

use crate::commands::account::{lex, Cursor};
use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use crate::session::{Outcome, Session};

/// One of the maintenance operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Analyze,
    Check,
    Optimize,
    Repair,
}

impl Op {
    /// The operation as the `Op` column names it.
    fn name(self) -> &'static str {
        match self {
            Op::Analyze => "analyze",
            Op::Check => "check",
            Op::Optimize => "optimize",
            Op::Repair => "repair",
        }
    }
}

/// A maintenance statement read from the text: its operation and tables.
type Parsed = Result<(Op, Vec<ObjectName>)>;

/// `OP [NO_WRITE_TO_BINLOG | LOCAL] TABLE[S] t [, t ...] [options]` at the start of `sql`: the
/// operation and its tables (a malformed list is a syntax error), and the text after the
/// statement; None when the text is not such a statement.
pub(crate) fn parse(sql: &str) -> Option<(Parsed, &str)> {
    // Every statement passes here: the first word decides before anything is lexed.
    let first = ["analyze", "check", "optimize", "repair"];
    if !first.iter().any(|w| crate::parse::starts_with_word(sql, w)) {
        return None;
    }
    let (tokens, rest) = lex(sql)?;
    let mut c = Cursor::new(tokens);
    let op = [
        ("ANALYZE", Op::Analyze),
        ("CHECK", Op::Check),
        ("OPTIMIZE", Op::Optimize),
        ("REPAIR", Op::Repair),
    ]
    .into_iter()
    .find_map(|(word, op)| c.word(word).then_some(op))?;
    // CHECK TABLE takes no NO_WRITE_TO_BINLOG; the others take it or LOCAL.
    if op != Op::Check && !c.word("NO_WRITE_TO_BINLOG") {
        c.word("LOCAL");
    }
    if !c.word("TABLE") && !c.word("TABLES") {
        return None;
    }
    let mut names = Vec::new();
    loop {
        match table(&mut c) {
            Some(name) => names.push(name),
            None => return Some((Err(c.syntax()), rest)),
        }
        if !c.punct(',') {
            break;
        }
    }
    // The options (QUICK, FAST, MEDIUM, EXTENDED, CHANGED, FOR UPGRADE, USE_FRM,
    // PERSISTENT FOR ...) change nothing here.
    Some((Ok((op, names)), rest))
}

/// A table name: `t`, `db.t`, or either part backquoted.
fn table(c: &mut Cursor) -> Option<ObjectName> {
    let first = c.identifier()?;
    let parts = match first.split_once('.') {
        Some((db, t)) if !db.is_empty() && !t.is_empty() => vec![db.to_string(), t.to_string()],
        Some(_) => return None,
        None if c.punct('.') => vec![first, c.identifier()?],
        None => vec![first],
    };
    Some(ObjectName::from(
        parts.into_iter().map(Ident::new).collect::<Vec<_>>(),
    ))
}

impl Session {
    /// Runs a maintenance statement: commits the transaction in progress (as MariaDB does),
    /// then answers each table with MariaDB's note for an engine without the operation, or
    /// its error and "Operation failed" for a table that does not exist.
    pub(crate) fn maintain(&mut self, op: Op, names: &[ObjectName]) -> Result<Outcome> {
        // ANALYZE writes the statistics every session plans with: SELECT and INSERT, as
        // MySQL asks.
        let needed = match op {
            Op::Analyze => crate::catalog::privilege::SELECT | crate::catalog::privilege::INSERT,
            _ => crate::catalog::privilege::SELECT,
        };
        self.need_on_tables(needed, &op.name().to_uppercase(), names)?;
        self.end_transaction(true)?;
        let text = |s: &str| base::Value::Bytes(s.as_bytes().to_vec());
        let mut rows = Vec::new();
        for name in names {
            let (full, db, table) = self.table_name(name)?;
            let shown = format!("{db}.{table}");
            let found = match op {
                Op::Analyze => self.shared.cluster().analyze(&full),
                _ => self.shared.cluster().table(&full),
            };
            match found {
                // ANALYZE measured the table's statistics (client::TableStats): InnoDB's answer.
                Ok(_) if op == Op::Analyze => {
                    self.plans.clear();
                    rows.push(vec![
                        text(&shown),
                        text(op.name()),
                        text("status"),
                        text("OK"),
                    ])
                }
                Ok(_) => rows.push(vec![
                    text(&shown),
                    text(op.name()),
                    text("note"),
                    text(&format!(
                        "The storage engine for the table doesn't support {}",
                        op.name()
                    )),
                ]),
                Err(e) if e.code() == base::ErrorCode::NoSuchTable => {
                    let missing = format!("Table '{shown}' doesn't exist");
                    rows.push(vec![
                        text(&shown),
                        text(op.name()),
                        text("Error"),
                        text(&missing),
                    ]);
                    rows.push(vec![
                        text(&shown),
                        text(op.name()),
                        text("status"),
                        text("Operation failed"),
                    ]);
                }
                Err(e) => return Err(SqlError::from_client(&e)),
            }
        }
        let column =
            |name: &str, chars: u32| Column::computed(name, types::VAR_STRING, chars * 4, 0);
        Ok(Outcome::Rows {
            columns: vec![
                column("Table", 128),
                column("Op", 10),
                column("Msg_type", 10),
                column("Msg_text", 512),
            ],
            rows,
        })
    }
}
