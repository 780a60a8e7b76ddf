//! Subqueries: a statement holding uncorrelated scalar, IN or EXISTS subqueries runs them
//! first (innermost first) and plans itself with their results in their place as literals, so
//! `id IN (SELECT ...)` becomes keyed reads like any IN list. A subquery of a statement with a
//! WITH clause sees the common table expressions defined before the place it stands in.
//!
//! A subquery naming columns of the statement's own tables (correlated) is planned once with
//! those columns as parameters, and stands in the statement as [`Expr::Correlated`]: before
//! the statement's expressions are evaluated over its rows, the subquery runs once for each
//! distinct set of outer values, in the statement's transaction, and its results are kept in
//! the session for the evaluation to read.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::Arc;

use base::Value;
use client::{ExecType, Transaction};
use myproto::response::types;
use sqlparser::ast::{self, Expr as Ast, Spanned, Statement};
use sqlparser::tokenizer::{Location, Span};

use crate::error::SqlError;
use crate::exec::{Compiled, Outcome, Result, Session};
use crate::expr::Expr;
use crate::plan::{OrderKey, SelectPlan};
use crate::run::Fetch;

/// The function name standing for a correlated subquery in a rewritten statement (a NUL
/// starts it, which no identifier of a client's text holds).
const MARKER: &str = "\0correlated";
/// The `?` positions given to a correlated subquery's outer values start on this line, past
/// every line of a statement's text.
const OUTER_LINE: u64 = 1 << 40;

/// How a correlated subquery's rows become its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Scalar,
    Exists { negated: bool },
    In { negated: bool },
}

impl Kind {
    fn code(self) -> u8 {
        match self {
            Kind::Scalar => 0,
            Kind::Exists { negated } => 1 + negated as u8,
            Kind::In { negated } => 3 + negated as u8,
        }
    }

    fn from_code(c: u64) -> Option<Kind> {
        Some(match c {
            0 => Kind::Scalar,
            1 | 2 => Kind::Exists { negated: c == 2 },
            3 | 4 => Kind::In { negated: c == 4 },
            _ => return None,
        })
    }
}

/// A correlated subquery of the running statement.
pub(crate) struct Correlated {
    plan: Arc<SelectPlan>,
    kind: Kind,
    /// Parameters of the statement itself; the outer values follow them.
    params: usize,
    /// Results by the exact argument values they were run for. An error (more than one row
    /// for a scalar subquery) is raised only if the statement reads it: a condition may never
    /// need this row's value.
    results: HashMap<Vec<u8>, Result<Value>>,
}

/// The marker function [`Expr::Correlated`] is compiled from: `n`, the result type and the
/// argument expressions, read back by the expression compiler.
pub(crate) struct Marker;

impl Marker {
    fn make(n: usize, kind: Kind, ty: (u8, u32, u8), args: Vec<Ast>, at: Span) -> Ast {
        let number = |v: u64| {
            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(Ast::Value(ast::ValueWithSpan {
                value: ast::Value::Number(v.to_string(), false),
                span: Span::empty(),
            })))
        };
        let mut list = vec![
            number(kind.code() as u64),
            number(n as u64),
            number(ty.0 as u64),
            number(ty.1 as u64),
            number(ty.2 as u64),
        ];
        list.extend(
            args.into_iter()
                .map(|a| ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(a))),
        );
        Ast::Function(ast::Function {
            name: ast::ObjectName::from(vec![ast::Ident::with_span(at, MARKER)]),
            uses_odbc_syntax: false,
            parameters: ast::FunctionArguments::None,
            args: ast::FunctionArguments::List(ast::FunctionArgumentList {
                duplicate_treatment: None,
                args: list,
                clauses: Vec::new(),
            }),
            filter: None,
            null_treatment: None,
            over: None,
            within_group: Vec::new(),
        })
    }

    /// For a call of the marker function: the subquery's number, its result type and the
    /// argument expressions (an error for a malformed call).
    #[allow(clippy::type_complexity)]
    pub(crate) fn read<'a>(
        name: &str,
        args: &[&'a ast::FunctionArg],
    ) -> Option<Result<(usize, (u8, u32, u8), Vec<&'a Ast>)>> {
        if name != MARKER {
            return None;
        }
        let exprs: Option<Vec<&Ast>> = args
            .iter()
            .map(|a| match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => Some(e),
                _ => None,
            })
            .collect();
        let number = |e: &Ast| match e {
            Ast::Value(ast::ValueWithSpan {
                value: ast::Value::Number(n, false),
                ..
            }) => n.parse::<u64>().ok(),
            _ => None,
        };
        let read = || {
            let exprs = exprs?;
            let head: Vec<u64> = exprs
                .iter()
                .take(5)
                .map(|e| number(e))
                .collect::<Option<_>>()?;
            let [kind, n, code, length, decimals] = head[..] else {
                return None;
            };
            Kind::from_code(kind)?;
            Some((
                usize::try_from(n).ok()?,
                (
                    u8::try_from(code).ok()?,
                    u32::try_from(length).ok()?,
                    u8::try_from(decimals).ok()?,
                ),
                exprs[5..].to_vec(),
            ))
        };
        Some(read().ok_or_else(|| SqlError::unsupported("the function this name stands for")))
    }
}

/// A table of a FROM clause, as its columns may be named.
struct Named {
    name: String,
    database: String,
    columns: Vec<String>,
}

impl Named {
    /// Whether `parts` (column, table.column or db.table.column) names one of its columns.
    fn has(&self, parts: &[String]) -> bool {
        let column = |c: &str| self.columns.iter().any(|x| x.eq_ignore_ascii_case(c));
        match parts {
            [c] => column(c),
            [t, c] => t.eq_ignore_ascii_case(&self.name) && column(c),
            [d, t, c] => {
                d.eq_ignore_ascii_case(&self.database)
                    && t.eq_ignore_ascii_case(&self.name)
                    && column(c)
            }
            _ => false,
        }
    }

    /// Whether `parts` is qualified with this table's name.
    fn qualifies(&self, parts: &[String]) -> bool {
        match parts {
            [t, _] => t.eq_ignore_ascii_case(&self.name),
            [d, t, _] => {
                d.eq_ignore_ascii_case(&self.database) && t.eq_ignore_ascii_case(&self.name)
            }
            _ => false,
        }
    }
}

/// The parts of a column reference.
fn column_parts(e: &Ast) -> Option<Vec<String>> {
    match e {
        Ast::Identifier(i) => Some(vec![i.value.clone()]),
        Ast::CompoundIdentifier(parts) if parts.len() <= 3 => {
            Some(parts.iter().map(|i| i.value.clone()).collect())
        }
        _ => None,
    }
}

/// Whether span `inner` lies within `outer`.
fn within(inner: Span, outer: Span) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// A SELECT (or UPDATE, DELETE) of a statement a correlated subquery may stand in: the parts
/// of it where one may stand (a SELECT's items, WHERE, HAVING and ORDER BY; an UPDATE's values
/// and WHERE; a DELETE's WHERE), and the FROM tables it may name.
struct CorrelationScope<'a> {
    places: Vec<Span>,
    from: Vec<&'a ast::TableWithJoins>,
}

/// The scopes of a statement: its own SELECT, and those of its set operations' members, its
/// derived tables and its WITH clause's bodies, at any depth, outside expression subqueries
/// (each of those is planned with its own scopes).
fn correlation_scopes(s: &Statement) -> Vec<CorrelationScope<'_>> {
    let mut scopes = Vec::new();
    match s {
        Statement::Query(q) => query_scopes(q, &mut scopes),
        Statement::Update(u) => scopes.push(CorrelationScope {
            places: u
                .assignments
                .iter()
                .map(|a| a.value.span())
                .chain(u.selection.iter().map(|e| e.span()))
                .collect(),
            from: from_of(s).unwrap_or_default(),
        }),
        Statement::Delete(d) => scopes.push(CorrelationScope {
            places: d.selection.iter().map(|e| e.span()).collect(),
            from: from_of(s).unwrap_or_default(),
        }),
        _ => {}
    }
    scopes
}

fn query_scopes<'a>(q: &'a ast::Query, scopes: &mut Vec<CorrelationScope<'a>>) {
    if let Some(with) = &q.with {
        for cte in &with.cte_tables {
            query_scopes(&cte.query, scopes);
        }
    }
    let order: Vec<Span> = match &q.order_by {
        Some(ast::OrderBy {
            kind: ast::OrderByKind::Expressions(exprs),
            ..
        }) => exprs.iter().map(|o| o.expr.span()).collect(),
        _ => Vec::new(),
    };
    set_expr_scopes(&q.body, order, scopes);
}

fn set_expr_scopes<'a>(
    body: &'a ast::SetExpr,
    order: Vec<Span>,
    scopes: &mut Vec<CorrelationScope<'a>>,
) {
    match body {
        ast::SetExpr::Select(sel) => {
            let mut places = Vec::new();
            for item in &sel.projection {
                match item {
                    ast::SelectItem::UnnamedExpr(e)
                    | ast::SelectItem::ExprWithAlias { expr: e, .. } => places.push(e.span()),
                    _ => {}
                }
            }
            places.extend(sel.selection.iter().map(|e| e.span()));
            places.extend(sel.having.iter().map(|e| e.span()));
            places.extend(order);
            // A join's ON, run over the joined rows it is checked against.
            use ast::JoinOperator as J;
            for j in sel.from.iter().flat_map(|t| &t.joins) {
                if let J::Join(c)
                | J::Inner(c)
                | J::Left(c)
                | J::LeftOuter(c)
                | J::Right(c)
                | J::RightOuter(c)
                | J::StraightJoin(c) = &j.join_operator
                {
                    if let ast::JoinConstraint::On(e) = c {
                        places.push(e.span());
                    }
                }
            }
            scopes.push(CorrelationScope {
                places,
                from: sel.from.iter().collect(),
            });
            for t in &sel.from {
                for factor in
                    std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation))
                {
                    if let ast::TableFactor::Derived { subquery, .. } = factor {
                        query_scopes(subquery, scopes);
                    }
                }
            }
        }
        ast::SetExpr::SetOperation { left, right, .. } => {
            set_expr_scopes(left, Vec::new(), scopes);
            set_expr_scopes(right, Vec::new(), scopes);
        }
        ast::SetExpr::Query(q) => query_scopes(q, scopes),
        _ => {}
    }
}

/// The FROM tables correlation resolves against: a statement's, or a subquery's.
fn from_of(s: &Statement) -> Option<Vec<&ast::TableWithJoins>> {
    match s {
        Statement::Query(q) => match &*q.body {
            ast::SetExpr::Select(sel) => Some(sel.from.iter().collect()),
            _ => None,
        },
        Statement::Update(u) => {
            let mut from = vec![&u.table];
            if let Some(
                ast::UpdateTableFromKind::BeforeSet(more)
                | ast::UpdateTableFromKind::AfterSet(more),
            ) = &u.from
            {
                from.extend(more);
            }
            Some(from)
        }
        Statement::Delete(d) if d.using.is_some() => d.using.as_ref().map(|u| u.iter().collect()),
        Statement::Delete(d) => match &d.from {
            ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f) => {
                Some(f.iter().collect())
            }
        },
        _ => None,
    }
}

/// An exact key of argument values (not collation-folded: a subquery may tell 'a' from 'A').
pub(crate) fn exact_key(values: &[Value]) -> Vec<u8> {
    let mut key = Vec::new();
    for v in values {
        let tag: u8 = match v {
            Value::Null => 0,
            Value::Int(_) => 1,
            Value::UInt(_) => 2,
            Value::Decimal(_) => 3,
            Value::Double(_) => 4,
            Value::Float(_) => 5,
            Value::Bytes(_) => 6,
            Value::Date(_) => 7,
            Value::DateTime(_) => 8,
            Value::Time(_) => 9,
            Value::Year(_) => 10,
        };
        key.push(tag);
        // Floating-point values by their bits: their text rounds.
        let text = match v {
            Value::Double(d) => d.to_bits().to_le_bytes().to_vec(),
            Value::Float(f) => f.to_bits().to_le_bytes().to_vec(),
            _ => base::text::value_text(v).unwrap_or_default(),
        };
        key.extend_from_slice(&(text.len() as u64).to_le_bytes());
        key.extend_from_slice(&text);
    }
    key
}

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
        // Where correlated subqueries may stand, and the tables each place may name. A WITH
        // name could hide a stored table of the same name: no correlation with a FROM naming
        // one.
        let cte_names: Vec<String> = ctx
            .with
            .map(|w| {
                w.cte_tables
                    .iter()
                    .map(|c| c.alias.name.value.to_ascii_lowercase())
                    .collect()
            })
            .unwrap_or_default();
        let scopes: Vec<(Vec<Span>, Option<Vec<Named>>)> = correlation_scopes(s)
            .into_iter()
            .filter(|scope| !scope.places.is_empty())
            .map(|scope| {
                let hidden = scope.from.iter().any(|t| {
                    std::iter::once(&t.relation)
                        .chain(t.joins.iter().map(|j| &j.relation))
                        .any(|f| match f {
                            ast::TableFactor::Table { name, .. } => {
                                name.0.len() == 1
                                    && name.0[0].as_ident().is_some_and(|i| {
                                        cte_names.contains(&i.value.to_ascii_lowercase())
                                    })
                            }
                            _ => false,
                        })
                });
                let named = (!hidden).then(|| self.named_tables(&scope.from)).flatten();
                (scope.places, named)
            })
            .collect();
        let mut spans = Vec::new();
        if !scopes.is_empty() {
            let _ = ast::visit_expressions(&*s, |e| {
                if matches!(
                    e,
                    Ast::Subquery(_) | Ast::InSubquery { .. } | Ast::Exists { .. }
                ) {
                    spans.push(e.span());
                }
                ControlFlow::<()>::Continue(())
            });
        }
        self.subquery_depth += 1;
        let mut failure = None;
        let _ = ast::visit_expressions_mut(s, |e| {
            let at = e.span();
            // Only a subquery standing directly in a SELECT's clauses (not in another subquery
            // or an ON) may name that SELECT's tables.
            let scope = scopes
                .iter()
                .find(|(places, _)| places.iter().any(|p| within(at, *p)))
                .filter(|_| !spans.iter().any(|o| *o != at && within(at, *o)));
            let outer = scope.and_then(|(_, named)| named.as_deref());
            match self.subquery_result(e, &ctx, outer) {
                Ok(Some(new)) => *e = new,
                Ok(None) => {}
                Err(err) => {
                    // A column the subquery cannot find may be one of a derived or WITH table
                    // around it, which correlation cannot name yet: say so.
                    let unresolved = scope.is_some_and(|(_, named)| named.is_none());
                    failure = Some(if err.code == 1054 && unresolved {
                        SqlError::unsupported(format!(
                            "a correlated subquery in a SELECT reading a derived table or a WITH table ({})",
                            err.message
                        ))
                    } else {
                        err
                    });
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        });
        self.subquery_depth -= 1;
        failure.map_or(Ok(()), Err)
    }

    /// The literal that replaces `e`, if it is a subquery (or the marker of a correlated one,
    /// when `outer` gives the statement's tables it may name).
    fn subquery_result(
        &mut self,
        e: &Ast,
        ctx: &Context,
        outer: Option<&[Named]>,
    ) -> Result<Option<Ast>> {
        let span = e.span();
        let (query, kind, lhs) = match e {
            Ast::Subquery(q) => (q, Kind::Scalar, None),
            Ast::InSubquery {
                expr,
                subquery,
                negated,
            } => (subquery, Kind::In { negated: *negated }, Some(&**expr)),
            Ast::Exists { subquery, negated } => {
                (subquery, Kind::Exists { negated: *negated }, None)
            }
            _ => return Ok(None),
        };
        if let Some(outer) = outer {
            if let Some(marker) = self.correlate(query, kind, lhs, span, outer, ctx)? {
                return Ok(Some(marker));
            }
        }
        Ok(Some(match kind {
            Kind::Scalar => {
                let mut rows = self.subquery_rows(query, span, ctx)?;
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
            Kind::In { negated } => {
                let rows = self.subquery_rows(query, span, ctx)?;
                if rows.is_empty() {
                    // Nothing is IN an empty set, not even NULL.
                    boolean(negated, span)
                } else {
                    Ast::InList {
                        expr: Box::new(lhs.cloned().unwrap_or(Ast::Value(ast::Value::Null.into()))),
                        list: rows
                            .into_iter()
                            .map(|mut r| literal(r.pop().unwrap_or(Value::Null), span))
                            .collect(),
                        negated,
                    }
                }
            }
            Kind::Exists { negated } => {
                let found = !self.query_rows(query, span, ctx)?.1.is_empty();
                boolean(found != negated, span)
            }
        }))
    }

    /// The tables of a FROM clause with their columns; None when one is not a stored table
    /// (a derived table, a CTE, or a table that does not exist).
    fn named_tables(&self, from: &[&ast::TableWithJoins]) -> Option<Vec<Named>> {
        let mut out = Vec::new();
        for t in from {
            for factor in std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)) {
                let ast::TableFactor::Table {
                    name,
                    alias,
                    args: None,
                    ..
                } = factor
                else {
                    return None;
                };
                let (table, database, table_name) = self.table(name).ok()?;
                out.push(Named {
                    name: alias.as_ref().map_or(table_name, |a| a.name.value.clone()),
                    database,
                    columns: table
                        .def()
                        .columns
                        .iter()
                        .filter(|c| !c.hidden)
                        .map(|c| c.name.clone())
                        .collect(),
                });
            }
        }
        Some(out)
    }

    /// If subquery `q` names columns of the `outer` tables (and is a single SELECT over stored
    /// tables): plans it with those columns as parameters and gives the marker that stands
    /// for it in the statement. None when it names none of them.
    fn correlate(
        &mut self,
        q: &ast::Query,
        kind: Kind,
        lhs: Option<&Ast>,
        at: Span,
        outer: &[Named],
        ctx: &Context,
    ) -> Result<Option<Ast>> {
        if q.with.is_some() {
            return Ok(None);
        }
        let ast::SetExpr::Select(select) = &*q.body else {
            return Ok(None);
        };
        let Some(inner) = self.named_tables(&select.from.iter().collect::<Vec<_>>()) else {
            return Ok(None);
        };
        let aliases: Vec<&str> = select
            .projection
            .iter()
            .filter_map(|i| match i {
                ast::SelectItem::ExprWithAlias { alias, .. } => Some(alias.value.as_str()),
                _ => None,
            })
            .collect();
        let mut q = q.clone();
        // The outer columns named, each once (lowercase parts), with the text naming it.
        let mut refs: Vec<(Vec<String>, Ast)> = Vec::new();
        let _ = ast::visit_expressions_mut(&mut q, |e| {
            let Some(parts) = column_parts(e) else {
                return ControlFlow::<()>::Continue(());
            };
            let own = inner.iter().any(|t| t.has(&parts) || t.qualifies(&parts))
                || (parts.len() == 1 && aliases.iter().any(|a| a.eq_ignore_ascii_case(&parts[0])));
            if own || !outer.iter().any(|t| t.has(&parts)) {
                return ControlFlow::Continue(());
            }
            let key: Vec<String> = parts.iter().map(|p| p.to_ascii_lowercase()).collect();
            let k = match refs.iter().position(|(p, _)| *p == key) {
                Some(k) => k,
                None => {
                    refs.push((key, e.clone()));
                    refs.len() - 1
                }
            };
            let line = OUTER_LINE + k as u64;
            *e = Ast::Value(ast::ValueWithSpan {
                value: ast::Value::Placeholder("?".to_string()),
                span: Span::new(Location::new(line, 1), Location::new(line, 2)),
            });
            ControlFlow::Continue(())
        });
        if refs.is_empty() {
            return Ok(None);
        }
        let mut placeholders = ctx.placeholders.to_vec();
        placeholders.extend((0..refs.len()).map(|k| Location::new(OUTER_LINE + k as u64, 1)));
        let statement = Statement::Query(Box::new(q));
        let Compiled::Select(plan) = self.compile(statement, ctx.sql, &placeholders)? else {
            return Err(SqlError::unsupported(
                "a correlated subquery other than one SELECT over stored tables",
            ));
        };
        if !matches!(kind, Kind::Exists { .. }) && plan.columns.len() != 1 {
            return Err(SqlError::new(
                1241,
                "21000",
                "Operand should contain 1 column(s)",
            ));
        }
        let ty = match kind {
            Kind::Scalar => {
                let c = &plan.columns[0];
                (c.column_type, c.length, c.decimals)
            }
            _ => (types::LONGLONG, 1, 0),
        };
        let n = self.correlated.len();
        self.correlated.push(Correlated {
            plan: Arc::new(*plan),
            kind,
            params: ctx.placeholders.len(),
            results: HashMap::new(),
        });
        let mut args: Vec<Ast> = lhs.cloned().into_iter().collect();
        args.extend(refs.into_iter().map(|(_, a)| a));
        Ok(Some(Marker::make(n, kind, ty, args, at)))
    }

    /// Runs the correlated subqueries `exprs` hold for each of `rows` (once per distinct set
    /// of outer values), in `txn`, so evaluating `exprs` over those rows finds their results.
    pub(crate) fn run_correlated<'e>(
        &mut self,
        txn: &mut Transaction,
        exprs: impl IntoIterator<Item = &'e Expr>,
        rows: &[Vec<Value>],
        params: &[Value],
    ) -> Result<()> {
        if self.correlated.is_empty() {
            return Ok(());
        }
        let mut calls: Vec<(usize, Vec<Expr>)> = Vec::new();
        for e in exprs {
            e.walk(&mut |x| {
                if let Expr::Correlated { n, args, .. } = x {
                    calls.push((*n, args.clone()));
                }
            });
        }
        // The argument values each subquery has not run for yet, in the order met.
        let mut wanted: Vec<(usize, Vec<u8>, Vec<Value>)> = Vec::new();
        let mut met = std::collections::HashSet::new();
        for row in rows {
            for (n, args) in &calls {
                let env = self.env(row, params, &[]);
                let values = args
                    .iter()
                    .map(|a| a.eval(&env))
                    .collect::<Result<Vec<_>>>()?;
                let key = exact_key(&values);
                let known = self
                    .correlated
                    .get(*n)
                    .is_none_or(|c| c.results.contains_key(&key));
                if !known && met.insert((*n, key.clone())) {
                    wanted.push((*n, key, values));
                }
            }
        }
        let fetched = self.prefetch(txn, &wanted, params)?;
        for ((n, key, values), rows) in wanted.into_iter().zip(fetched) {
            let value = match self.correlated_value(txn, n, values, params, rows) {
                // A row too many is this row's answer; a failed read ends the statement.
                Err(e) if e.code == 1242 => Err(e),
                other => Ok(other?),
            };
            self.correlated[n].results.insert(key, value);
        }
        Ok(())
    }

    /// A SELECT's rows read in `txn`: once its correlated subqueries ran for them when the
    /// statement has any (`correlated_source_rows`), else as `source_rows` reads them.
    pub(crate) fn select_source_rows(
        &mut self,
        txn: &mut Transaction,
        exec: ExecType,
        p: &SelectPlan,
        params: &[Value],
    ) -> Result<Vec<Vec<Value>>> {
        if self.correlated.is_empty() {
            self.source_rows(txn, exec, p, params)
        } else {
            self.correlated_source_rows(txn, p, params)
        }
    }

    /// A SELECT's rows (read in `txn` without committing), once the correlated subqueries of
    /// its items, HAVING, GROUP BY, ORDER BY and aggregates ran for them.
    pub(crate) fn correlated_source_rows(
        &mut self,
        txn: &mut Transaction,
        p: &SelectPlan,
        params: &[Value],
    ) -> Result<Vec<Vec<Value>>> {
        let rows = self.source_rows(txn, ExecType::NoCommit, p, params)?;
        // Aggregates over no rows still answer one row, evaluated over no columns.
        let empty = [Vec::new()];
        let seen: &[Vec<Value>] = if rows.is_empty() && p.grouped && p.group_by.is_empty() {
            &empty
        } else {
            &rows
        };
        let order = p.order.iter().filter_map(|(k, ..)| match k {
            OrderKey::Expr(e) => Some(e),
            OrderKey::Item(_) => None,
        });
        let exprs = p
            .items
            .iter()
            .chain(&p.having)
            .chain(&p.group_by)
            .chain(order)
            .chain(p.aggregates.iter().flat_map(|a| a.exprs()));
        self.run_correlated(txn, exprs, seen, params)?;
        Ok(rows)
    }

    /// For a correlated subquery reading one table by keys: the rows for each of the `wanted`
    /// argument values, read in one batch (as a join reads its inner table) instead of one
    /// round trip each. None for the values of other subqueries, which read on their own.
    #[allow(clippy::type_complexity)]
    fn prefetch(
        &mut self,
        txn: &mut Transaction,
        wanted: &[(usize, Vec<u8>, Vec<Value>)],
        params: &[Value],
    ) -> Result<Vec<Option<Vec<Vec<Value>>>>> {
        let mut out = vec![None; wanted.len()];
        let mut subqueries: Vec<usize> = wanted.iter().map(|w| w.0).collect();
        subqueries.sort_unstable();
        subqueries.dedup();
        'subquery: for n in subqueries {
            let plan = Arc::clone(&self.correlated[n].plan);
            let Some(src) = plan.source.as_ref().filter(|s| {
                plan.joined.is_none()
                    && s.derived.is_none()
                    && crate::infoschema::virtual_of(s).is_none()
            }) else {
                continue;
            };
            // The index read (None: the primary key), the keys, and each value set's share.
            let mut index: Option<Option<u16>> = None;
            let mut keys = Vec::new();
            let mut shares = Vec::new();
            for (i, w) in wanted.iter().enumerate().filter(|(_, w)| w.0 == n) {
                let (_, all) = self.arguments(n, w.2.clone(), params);
                let start = keys.len();
                match self.fetch_request(src, &all)? {
                    Fetch::Nothing => {}
                    Fetch::Keys { unique, keys: k } if index.is_none_or(|i| i == unique) => {
                        index = Some(unique);
                        keys.extend(k);
                    }
                    _ => continue 'subquery,
                }
                shares.push((i, start, keys.len()));
            }
            if shares.len() < 2 {
                continue;
            }
            let unique = index.flatten();
            let mut found =
                self.read_each(txn, ExecType::NoCommit, &src.table, unique, &keys, src)?;
            for (i, start, end) in shares {
                out[i] = Some(
                    found[start..end]
                        .iter_mut()
                        .filter_map(Option::take)
                        .collect(),
                );
            }
        }
        Ok(out)
    }

    /// Subquery `n`'s `?` values for outer argument `values` (the statement's own, then the
    /// outer columns), and for IN the value looked for.
    fn arguments(
        &self,
        n: usize,
        mut values: Vec<Value>,
        params: &[Value],
    ) -> (Option<Value>, Vec<Value>) {
        let c = &self.correlated[n];
        let mut all: Vec<Value> = params.iter().take(c.params).cloned().collect();
        all.resize(c.params, Value::Null);
        let lhs = match c.kind {
            Kind::In { .. } if !values.is_empty() => Some(values.remove(0)),
            _ => None,
        };
        all.extend(values);
        (lhs, all)
    }

    /// Correlated subquery `n`'s value for the argument `values`.
    /// (`fetched`: the rows its keyed reads found, when [`Session::prefetch`] read them.)
    fn correlated_value(
        &mut self,
        txn: &mut Transaction,
        n: usize,
        values: Vec<Value>,
        params: &[Value],
        fetched: Option<Vec<Vec<Value>>>,
    ) -> Result<Value> {
        let (plan, kind) = (
            Arc::clone(&self.correlated[n].plan),
            self.correlated[n].kind,
        );
        let (lhs, all) = self.arguments(n, values, params);
        // The subquery's rows leave FOUND_ROWS() as the statement's.
        let found_rows = self.last_found_rows;
        let rows = match (fetched, &plan.source) {
            (Some(rows), Some(src)) => self.matching(src, &all, rows),
            _ => self.source_rows(txn, ExecType::NoCommit, &plan, &all),
        };
        let outcome = rows.and_then(|rows| self.select_rows(&plan, &all, rows));
        self.last_found_rows = found_rows;
        let Outcome::Rows { mut rows, .. } = outcome? else {
            return Err(SqlError::new(
                1105,
                "HY000",
                "internal: a subquery without rows",
            ));
        };
        Ok(match kind {
            Kind::Scalar => {
                if rows.len() > 1 {
                    return Err(SqlError::new(
                        1242,
                        "21000",
                        "Subquery returns more than 1 row",
                    ));
                }
                rows.pop().and_then(|mut r| r.pop()).unwrap_or(Value::Null)
            }
            Kind::Exists { negated } => Value::Int((rows.is_empty() == negated) as i64),
            Kind::In { negated } => {
                if rows.is_empty() {
                    // Nothing is IN an empty set, not even NULL.
                    Value::Int(negated as i64)
                } else {
                    let list = rows
                        .into_iter()
                        .map(|mut r| Expr::Const(r.pop().unwrap_or(Value::Null)))
                        .collect();
                    let lhs = Expr::Const(lhs.unwrap_or(Value::Null));
                    Expr::In(Box::new(lhs), list, negated).eval(&self.env(&[], params, &[]))?
                }
            }
        })
    }

    /// The result correlated subquery `n` gave for `args`, if it ran for them.
    pub(crate) fn correlated_result(&self, n: usize, args: &[Value]) -> Option<Result<Value>> {
        self.correlated
            .get(n)?
            .results
            .get(&exact_key(args))
            .cloned()
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
    fn argument_keys_tell_apart_what_text_would_round_or_fold() {
        let key = |v: Value| exact_key(&[v]);
        assert_ne!(key(Value::Float(1.0)), key(Value::Float(1.000_000_1)));
        assert_ne!(key(Value::Double(0.1 + 0.2)), key(Value::Double(0.3)));
        assert_ne!(
            key(Value::Bytes(b"a".to_vec())),
            key(Value::Bytes(b"A".to_vec()))
        );
        assert_ne!(key(Value::Int(1)), key(Value::Bytes(b"1".to_vec())));
        assert_ne!(key(Value::Null), key(Value::Bytes(Vec::new())));
        assert_eq!(key(Value::Int(7)), key(Value::Int(7)));
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
