//! Subqueries: a statement holding uncorrelated scalar, IN or EXISTS subqueries runs them
//! first (innermost first) and plans itself with their results in their place as literals, so
//! `id IN (SELECT ...)` becomes keyed reads like any IN list. A subquery of a statement with a
//! WITH clause sees the common table expressions defined before the place it stands in.

use std::ops::ControlFlow;

use base::Value;
use sqlparser::ast::{self, Expr as Ast, Spanned, Statement};
use sqlparser::tokenizer::{Location, Span};

use crate::error::SqlError;
use crate::exec::{Outcome, Result, Session};

/// How deeply statements with subqueries may nest while they run: each level plans (and may
/// inline) the next, so this bounds the recursion whatever the text (MariaDB's error 1473).
const SUBQUERY_DEPTH_MAX: usize = 32;

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
        let with = match &*s {
            Statement::Query(q) => q.with.clone(),
            _ => None,
        };
        let ctx = Context {
            sql,
            placeholders,
            params,
            with: with.as_ref(),
        };
        if self.subquery_depth >= SUBQUERY_DEPTH_MAX {
            return Err(SqlError::new(
                1473,
                "HY000",
                format!(
                    "Too high level of nesting for select (subqueries within subqueries: at most {SUBQUERY_DEPTH_MAX})"
                ),
            ));
        }
        self.subquery_depth += 1;
        let mut failure = None;
        let _ = ast::visit_expressions_mut(s, |e| {
            match self.subquery_result(e, &ctx) {
                Ok(Some(new)) => *e = new,
                Ok(None) => {}
                Err(err) => {
                    failure = Some(err);
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        });
        self.subquery_depth -= 1;
        failure.map_or(Ok(()), Err)
    }

    /// The literal that replaces `e`, if it is a subquery.
    fn subquery_result(&mut self, e: &Ast, ctx: &Context) -> Result<Option<Ast>> {
        let span = e.span();
        Ok(Some(match e {
            Ast::Subquery(q) => {
                let mut rows = self.subquery_rows(q, span, ctx)?;
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
                let rows = self.subquery_rows(subquery, span, ctx)?;
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
                let found = !self.query_rows(subquery, span, ctx)?.1.is_empty();
                boolean(found != *negated, span)
            }
            _ => return Ok(None),
        }))
    }

    /// The rows of a subquery that must give one column.
    fn subquery_rows(
        &mut self,
        q: &ast::Query,
        at: Span,
        ctx: &Context,
    ) -> Result<Vec<Vec<Value>>> {
        let (columns, rows) = self.query_rows(q, at, ctx)?;
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
        at: Span,
        ctx: &Context,
    ) -> Result<(usize, Vec<Vec<Value>>)> {
        let mut q = q.clone();
        if let Some(outer) = ctx.with {
            let with = visible(outer, at.start, q.with.take());
            q.with = (!with.cte_tables.is_empty() || with.recursive).then_some(with);
        }
        let statement = Statement::Query(Box::new(q));
        let compiled = self.compile(statement, ctx.sql, ctx.placeholders)?;
        match self.execute(&compiled, ctx.params)? {
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

/// What inlining a statement's subqueries needs from it.
struct Context<'a> {
    sql: &'a str,
    placeholders: &'a [Location],
    params: &'a [Value],
    /// The statement's WITH clause.
    with: Option<&'a ast::With>,
}

/// The WITH clause a subquery starting at `at` runs with: the statement's common table
/// expressions defined before the one whose body holds it (all of them when it stands in the
/// statement's body), then its own, which hide outer ones of the same name.
fn visible(outer: &ast::With, at: Location, own: Option<ast::With>) -> ast::With {
    let own_names: Vec<String> = own
        .iter()
        .flat_map(|w| w.cte_tables.iter().map(|c| c.alias.name.value.clone()))
        .collect();
    let mut tables: Vec<ast::Cte> = outer
        .cte_tables
        .iter()
        .take_while(|c| c.closing_paren_token.0.span.end <= at)
        .filter(|c| {
            !own_names
                .iter()
                .any(|n| n.eq_ignore_ascii_case(&c.alias.name.value))
        })
        .cloned()
        .collect();
    let recursive = outer.recursive || own.as_ref().is_some_and(|w| w.recursive);
    let with_token = match &own {
        Some(w) => w.with_token.clone(),
        None => outer.with_token.clone(),
    };
    tables.extend(own.into_iter().flat_map(|w| w.cte_tables));
    ast::With {
        with_token,
        recursive,
        cte_tables: tables,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names a subquery starting at the first `marker` in `sql` sees.
    fn seen(sql: &str, marker: &str, own: Option<&str>) -> Vec<String> {
        let parsed = |text: &str| {
            let mut s =
                sqlparser::parser::Parser::parse_sql(&crate::dialect::Cairn, text).expect("parses");
            match s.remove(0) {
                Statement::Query(q) => q.with.expect("a WITH clause"),
                other => panic!("{other}"),
            }
        };
        let outer = parsed(sql);
        let offset = sql.find(marker).expect("the marker");
        let at = Location::new(1, offset as u64 + 1);
        let own = own.map(parsed);
        visible(&outer, at, own)
            .cte_tables
            .iter()
            .map(|c| c.alias.name.value.clone())
            .collect()
    }

    #[test]
    fn a_subquery_sees_the_ctes_before_the_one_holding_it() {
        let sql = "WITH a AS (SELECT 1 AS x), b AS (SELECT x FROM a WHERE x IN (SELECT 2)), \
                   c AS (SELECT 3 AS x) SELECT * FROM b WHERE x IN (SELECT 4)";
        assert_eq!(seen(sql, "(SELECT 2)", None), ["a"]);
        assert_eq!(seen(sql, "(SELECT 4)", None), ["a", "b", "c"]);
        assert_eq!(seen(sql, "(SELECT 1 AS", None), Vec::<String>::new());
        // Its own WITH clause hides an outer CTE of the same name.
        let own = "WITH B AS (SELECT 5 AS x) SELECT x FROM B";
        assert_eq!(seen(sql, "(SELECT 4)", Some(own)), ["a", "c", "B"]);
    }
}
