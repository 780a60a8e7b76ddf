//! A session's diagnostics area, as MariaDB keeps it: the notes, warnings and errors of the
//! last statement that raised any, read by SHOW WARNINGS, SHOW ERRORS, SHOW COUNT(*) ... and
//! @@warning_count, and the count each OK or EOF packet carries. A statement that raises
//! conditions replaces the list; one that reads or changes tables and raises none empties it;
//! others (SET, USE, BEGIN, SELECT without a table, SHOW WARNINGS itself) leave it.
//! It also keeps where a division by zero warns and where it fails the statement (`Storing`,
//! and the parts of an UPDATE's WHERE that MariaDB works out while optimizing).

use sqlparser::ast::Ident;
use std::cell::{Cell, RefCell};

use base::Value;

use crate::expr::{Env, Expr};
use crate::foundation::error::Result;
use crate::plan::compiled::Compiled;
use crate::plan::Source;

/// Conditions kept per statement (MariaDB's max_error_count); more are counted, not kept.
pub const CONDITIONS_MAX: usize = 64;

/// Statements of one COM_QUERY whose counts are kept for their answers.
pub(crate) const STATEMENT_COUNTS_MAX: usize = 4_096;

/// A condition's level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Note,
    Warning,
    Error,
}

impl Level {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Level::Note => "Note",
            Level::Warning => "Warning",
            Level::Error => "Error",
        }
    }
}

/// What storing a value means for a division by zero in its expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Storing {
    /// Not storing (a SELECT, a WHERE): warning 1365, NULL.
    #[default]
    No,
    /// INSERT, UPDATE: strict mode's error 1365.
    Strict,
    /// INSERT IGNORE: warning 1365, NULL stored.
    Ignoring,
}

#[derive(Debug, Clone)]
pub struct Condition {
    pub level: Level,
    pub code: u16,
    pub message: String,
}

/// What kind of statement is running, for the diagnostics rules and the Com_ counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Select {
        tables: bool,
    },
    Insert,
    Update,
    Delete,
    /// Anything else; `tables` when it reads or changes tables (DDL, SHOW, DESCRIBE).
    Other {
        tables: bool,
    },
    /// SHOW WARNINGS, SHOW ERRORS, SHOW COUNT(*) ...: reads the list and keeps it.
    Diagnostic,
}

impl Kind {
    pub(crate) fn of(c: &Compiled) -> Kind {
        use sqlparser::ast::Statement as S;
        match c {
            Compiled::Select(p) => Kind::Select {
                tables: p.source.is_some(),
            },
            Compiled::Set(_) => Kind::Select { tables: true },
            Compiled::Do(select) => Kind::of(select),
            Compiled::Insert(_) => Kind::Insert,
            Compiled::Update(_) => Kind::Update,
            Compiled::Delete(_) => Kind::Delete,
            Compiled::Multi(p) if p.delete => Kind::Delete,
            Compiled::Multi(_) => Kind::Update,
            Compiled::Deferred(d) => match &d.statement {
                S::Insert(_) => Kind::Insert,
                S::Update(_) => Kind::Update,
                S::Delete(_) => Kind::Delete,
                S::CreateTable(_) => Kind::Other { tables: true },
                _ => Kind::Select { tables: true },
            },
            Compiled::Other(s) => match s.as_ref() {
                S::ShowVariable { variable }
                    if crate::exec::diagnostics::is_diagnostic(variable) =>
                {
                    Kind::Diagnostic
                }
                S::Set(_)
                | S::Use(_)
                | S::StartTransaction { .. }
                | S::Commit { .. }
                | S::Rollback { .. }
                | S::CreateDatabase { .. } => Kind::Other { tables: false },
                S::Drop {
                    object_type:
                        sqlparser::ast::ObjectType::Database | sqlparser::ast::ObjectType::Schema,
                    ..
                } => Kind::Other { tables: false },
                _ => Kind::Other { tables: true },
            },
        }
    }
}

#[derive(Debug, Default)]
pub struct Diagnostics {
    /// The last statement's conditions, at most CONDITIONS_MAX.
    pub(crate) list: Vec<Condition>,
    /// Conditions the last statement raised, kept or not.
    pub(crate) total: usize,
    /// Raised by the statement running now, kept or not; expressions raise warnings into it
    /// from where the session is shared (`expr::Context`).
    pub(crate) raised: RefCell<Vec<Condition>>,
    pub(crate) raised_total: Cell<usize>,
    /// The running statement reads or changes tables.
    pub(crate) tables: bool,
    /// The running statement reads the list and keeps it.
    pub(crate) reading: bool,
    /// Each statement's count so far in this COM_QUERY, for its answer.
    pub(crate) counts: Vec<u16>,
    /// Whether expressions being evaluated make values to store.
    pub(crate) storing: Storing,
}

impl Diagnostics {
    /// Conditions of every level in the list (@@warning_count).
    pub fn warning_count(&self) -> usize {
        self.total
    }

    /// Errors in the list (@@error_count).
    pub fn error_count(&self) -> usize {
        self.list.iter().filter(|c| c.level == Level::Error).count()
    }

    /// Records a warning of the running statement.
    pub(crate) fn warn(&self, code: u16, message: impl Into<String>) {
        self.raise(Condition {
            level: Level::Warning,
            code,
            message: message.into(),
        });
    }

    /// The last statement's conditions listed (code and message), and how many it raised.
    pub(crate) fn last_conditions(&self) -> (Vec<(u16, String)>, usize) {
        let list = self
            .list
            .iter()
            .map(|c| (c.code, c.message.clone()))
            .collect();
        (list, self.total)
    }

    /// Counts `n` more conditions of the running statement that its list does not hold.
    pub(crate) fn count_unlisted(&self, n: usize) {
        self.raised_total.set(self.raised_total.get() + n);
    }

    /// Records a note of the running statement where only the session is at hand (an
    /// expression's context).
    pub(crate) fn note_shared(&self, code: u16, message: impl Into<String>) {
        self.raise(Condition {
            level: Level::Note,
            code,
            message: message.into(),
        });
    }

    pub(crate) fn raise(&self, c: Condition) {
        self.raised_total.set(self.raised_total.get() + 1);
        let mut raised = self.raised.borrow_mut();
        if raised.len() < CONDITIONS_MAX {
            raised.push(c);
        } else if c.level == Level::Error {
            // The statement's error is kept over the last warning (SHOW ERRORS,
            // @@error_count).
            raised[CONDITIONS_MAX - 1] = c;
        }
    }
}

/// `e` (a WHERE) with the parts MariaDB's optimizer works out ahead replaced by their
/// values, a division by zero there a warning: its AND-ed conditions that read no row, and
/// the values an indexed column is compared with (`id = 1/0`, `id BETWEEN 1/0 AND 3`; not
/// an IN list's, which MariaDB evaluates row by row).
pub(crate) fn fold_optimized(
    ctx: &dyn crate::expr::Context,
    src: &Source,
    e: &Expr,
    params: &[Value],
) -> Result<Expr> {
    use crate::expr::BinOp as B;
    let indexed = |c: &Expr| match c {
        Expr::Column(p) => src.fetch.get(*p).is_some_and(|col| {
            let def = src.table.def();
            def.primary_key.first() == Some(col)
                || def.indexes.iter().any(|i| i.columns.first() == Some(col))
        }),
        _ => false,
    };
    let fold = |x: &Expr| -> Result<Expr> {
        if !x.is_row_free() || !divides(x) {
            return Ok(x.clone());
        }
        let folding = Folding(ctx);
        let env = Env {
            row: &[],
            params,
            aggs: &[],
            ctx: &folding,
        };
        Ok(Expr::Const(x.eval(&env)?))
    };
    Ok(match e {
        Expr::Binary(B::And, l, r) => Expr::Binary(
            B::And,
            Box::new(fold_optimized(ctx, src, l, params)?),
            Box::new(fold_optimized(ctx, src, r, params)?),
        ),
        _ if e.is_row_free() => fold(e)?,
        Expr::Binary(op @ (B::Eq | B::NullSafeEq | B::Lt | B::Le | B::Gt | B::Ge), l, r)
            if indexed(l) || indexed(r) =>
        {
            Expr::Binary(*op, Box::new(fold(l)?), Box::new(fold(r)?))
        }
        Expr::Between(c, lo, hi, not) if indexed(c) => {
            Expr::Between(c.clone(), Box::new(fold(lo)?), Box::new(fold(hi)?), *not)
        }
        _ => e.clone(),
    })
}

pub(crate) use crate::expr::divides;

/// The session, as the parts of an expression that read no row see it while they are worked
/// out ahead: a division by zero there is a warning.
pub(crate) struct Folding<'a>(pub(crate) &'a dyn crate::expr::Context);

impl crate::expr::Context for Folding<'_> {
    fn variable(&self, name: &str) -> Value {
        self.0.variable(name)
    }

    fn session(&self, f: crate::expr::SessionFn) -> Value {
        self.0.session(f)
    }

    fn statement_micros(&self) -> i64 {
        self.0.statement_micros()
    }

    fn division_by_zero(&self) -> Result<()> {
        self.0.warn(1365, "Division by 0".into());
        Ok(())
    }

    fn random(&self, seed: Option<(usize, u32)>) -> f64 {
        self.0.random(seed)
    }

    fn lock_owner(&self) -> Option<u32> {
        self.0.lock_owner()
    }

    fn warn(&self, code: u16, message: String) {
        self.0.warn(code, message);
    }

    fn truncated(&self, kind: &str, text: &[u8], spaces_only: bool) -> Result<()> {
        self.0.truncated(kind, text, spaces_only)
    }
}

/// Whether a `SHOW word ...` that sqlparser left as words reads the diagnostics area.
pub(crate) fn is_diagnostic(words: &[Ident]) -> bool {
    let w: Vec<String> = words.iter().map(|i| i.value.to_ascii_uppercase()).collect();
    matches!(
        w.iter().map(String::as_str).collect::<Vec<_>>().as_slice(),
        ["WARNINGS"] | ["ERRORS"] | ["COUNT", "WARNINGS"] | ["COUNT", "ERRORS"]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_is_kept_past_the_warnings_limit_and_every_warning_counted() {
        let d = Diagnostics::default();
        for _ in 0..CONDITIONS_MAX + 6 {
            d.warn(1365, "Division by 0");
        }
        d.raise(Condition {
            level: Level::Error,
            code: 1690,
            message: "out of range".into(),
        });
        let raised = d.raised.take();
        assert_eq!(raised.len(), CONDITIONS_MAX);
        assert_eq!(d.raised_total.get(), CONDITIONS_MAX + 7);
        assert_eq!(raised.last().map(|c| c.code), Some(1690));
        assert_eq!(
            raised.iter().filter(|c| c.level == Level::Warning).count(),
            CONDITIONS_MAX - 1
        );
    }
}
