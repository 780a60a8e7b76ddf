//! Subqueries: a statement holding uncorrelated scalar, IN or EXISTS subqueries runs them
//! first (innermost first) and plans itself with their results in their place as literals, so
//! `id IN (SELECT ...)` becomes keyed reads like any IN list.

use std::ops::ControlFlow;

use base::Value;
use sqlparser::ast::{self, Expr as Ast, Spanned, Statement};
use sqlparser::tokenizer::{Location, Span};

use crate::error::SqlError;
use crate::exec::{Outcome, Result, Session};

/// Whether the statement holds a subquery in an expression.
pub(crate) fn has_subquery(s: &Statement) -> bool {
    ast::visit_expressions(s, |e| {
        if matches!(
            e,
            Ast::Subquery(_) | Ast::InSubquery { .. } | Ast::Exists { .. }
        ) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .is_break()
}

/// A value as a literal of the same value (its span: the subquery it replaces, so a select
/// item keeps the name its text gives it).
fn literal(v: Value, span: Span) -> Ast {
    let text = |v: &Value| {
        String::from_utf8_lossy(&base::text::value_text(v).unwrap_or_default()).into_owned()
    };
    let value = match &v {
        Value::Null => ast::Value::Null,
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) | Value::Float(_) => {
            ast::Value::Number(text(&v), false)
        }
        Value::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => ast::Value::SingleQuotedString(s.to_string()),
            Err(_) => ast::Value::HexStringLiteral(b.iter().map(|x| format!("{x:02X}")).collect()),
        },
        other => ast::Value::SingleQuotedString(text(other)),
    };
    Ast::Value(ast::ValueWithSpan { value, span })
}

fn boolean(b: bool, span: Span) -> Ast {
    Ast::Value(ast::ValueWithSpan {
        value: ast::Value::Boolean(b),
        span,
    })
}

impl Session {
    /// Replaces every subquery of `s` by its result, innermost first.
    pub(crate) fn inline_subqueries(
        &mut self,
        s: &mut Statement,
        sql: &str,
        placeholders: &[Location],
        params: &[Value],
    ) -> Result<()> {
        let mut failure = None;
        let _ = ast::visit_expressions_mut(s, |e| {
            match self.subquery_result(e, sql, placeholders, params) {
                Ok(Some(new)) => *e = new,
                Ok(None) => {}
                Err(err) => {
                    failure = Some(err);
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        });
        failure.map_or(Ok(()), Err)
    }

    /// The literal that replaces `e`, if it is a subquery.
    fn subquery_result(
        &mut self,
        e: &Ast,
        sql: &str,
        placeholders: &[Location],
        params: &[Value],
    ) -> Result<Option<Ast>> {
        let span = e.span();
        Ok(Some(match e {
            Ast::Subquery(q) => {
                let mut rows = self.subquery_rows(q, sql, placeholders, params)?;
                if rows.len() > 1 {
                    return Err(SqlError::new(
                        1242,
                        "21000",
                        "Subquery returns more than 1 row",
                    ));
                }
                let value = rows.pop().and_then(|mut r| r.pop()).unwrap_or(Value::Null);
                // Nested, so a select item is named by its text, not by a string's value.
                Ast::Nested(Box::new(literal(value, span)))
            }
            Ast::InSubquery {
                expr,
                subquery,
                negated,
            } => {
                let rows = self.subquery_rows(subquery, sql, placeholders, params)?;
                if rows.is_empty() {
                    // Nothing is IN an empty set, not even NULL.
                    boolean(*negated, span)
                } else {
                    Ast::InList {
                        expr: expr.clone(),
                        list: rows
                            .into_iter()
                            .map(|mut r| literal(r.pop().unwrap_or(Value::Null), span))
                            .collect(),
                        negated: *negated,
                    }
                }
            }
            Ast::Exists { subquery, negated } => {
                let found = !self
                    .query_rows(subquery, sql, placeholders, params)?
                    .1
                    .is_empty();
                boolean(found != *negated, span)
            }
            _ => return Ok(None),
        }))
    }

    /// The rows of a subquery that must give one column.
    fn subquery_rows(
        &mut self,
        q: &ast::Query,
        sql: &str,
        placeholders: &[Location],
        params: &[Value],
    ) -> Result<Vec<Vec<Value>>> {
        let (columns, rows) = self.query_rows(q, sql, placeholders, params)?;
        if columns != 1 {
            return Err(SqlError::new(
                1241,
                "21000",
                "Operand should contain 1 column(s)",
            ));
        }
        Ok(rows)
    }

    /// A subquery's column count and rows.
    fn query_rows(
        &mut self,
        q: &ast::Query,
        sql: &str,
        placeholders: &[Location],
        params: &[Value],
    ) -> Result<(usize, Vec<Vec<Value>>)> {
        let statement = Statement::Query(Box::new(q.clone()));
        let compiled = self.compile(statement, sql, placeholders)?;
        match self.execute(&compiled, params)? {
            Outcome::Rows { columns, rows } => Ok((columns.len(), rows)),
            Outcome::Failed(e) => Err(e),
            _ => Err(SqlError::new(
                1105,
                "HY000",
                "internal: a subquery without rows",
            )),
        }
    }
}
