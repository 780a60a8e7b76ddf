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

use crate::exec::literal::{balanced, boolean, literal};
use crate::exec::prefetch::Prefetching;
use crate::exec::semijoin::SemiJoining;
use crate::exec::Outcome;
use crate::exec::{Exec, Executor};
use crate::expr::correlated::{Kind, Marker};
use crate::expr::outer_param_index;
use crate::expr::Expr;
use crate::expr::OUTER_PARAM;
use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use crate::plan::compiled::Compiled;
use crate::plan::{OrderKey, SelectPlan};

/// A correlated subquery of the running statement.
pub(crate) struct Correlated {
    pub(crate) plan: Arc<SelectPlan>,
    pub(crate) kind: Kind,
    /// Parameters of the statement itself (and, nested, the outer values of the correlated
    /// subqueries around it); the outer values follow them.
    pub(crate) params: usize,
    /// How many of those parameters key its results with the arguments: none for one of the
    /// statement's own level, whose parameters stay as they are while it runs; all for one
    /// reading the outer values of a correlated subquery around it.
    keyed: usize,
    /// Its plan holds correlated subqueries of its own.
    pub(crate) nested: bool,
    /// Its rows are its table's matching rows as they are (no grouping, HAVING, LIMIT or
    /// correlated item): an EXISTS over rows read ahead answers from them directly.
    plain: bool,
    /// An EXISTS over one table tied by one equality on an integer column: the query without
    /// it and the column it answers (`semijoin::once_query`), run once for every outer value
    /// when that is cheaper.
    pub(crate) once: Option<(Arc<SelectPlan>, u16)>,
    /// Results by the exact argument values they were run for. An error (more than one row
    /// for a scalar subquery) is raised only if the statement reads it: a condition may never
    /// need this row's value.
    pub(crate) results: HashMap<Vec<u8>, Result<Value>>,
}

impl Correlated {
    /// It asks only whether one of its plain rows matches (EXISTS, NOT EXISTS): one row per
    /// outer value set is enough to answer.
    pub(crate) fn semi(&self) -> bool {
        self.plain && matches!(self.kind, Kind::Exists { .. })
    }
}

/// A table of a FROM clause, as its columns may be named.
pub(crate) struct Named {
    name: String,
    /// Empty for a derived table or a WITH table.
    database: String,
    /// None when they are not known before planning (a derived or WITH table selecting `*`, a
    /// table that does not exist): then only names qualified with the table's are its own.
    columns: Option<Vec<String>>,
}

impl Named {
    /// Whether `parts` (column, table.column or db.table.column) names one of its columns.
    fn has(&self, parts: &[String]) -> bool {
        let column = |c: &str| {
            self.columns
                .as_ref()
                .is_none_or(|cs| cs.iter().any(|x| x.eq_ignore_ascii_case(c)))
        };
        match parts {
            [c] => self.columns.is_some() && column(c),
            _ => self.qualifies(parts) && column(&parts[parts.len() - 1]),
        }
    }

    /// Whether `parts` is qualified with this table's name.
    fn qualifies(&self, parts: &[String]) -> bool {
        match parts {
            [t, _] => t.eq_ignore_ascii_case(&self.name),
            [d, t, _] => {
                !self.database.is_empty()
                    && d.eq_ignore_ascii_case(&self.database)
                    && t.eq_ignore_ascii_case(&self.name)
            }
            _ => false,
        }
    }
}

/// Whether one of `scope`'s tables owns the column `parts` name, or may: an unqualified name
/// may be a column of a table whose columns are not known.
fn owns(scope: &[Named], parts: &[String]) -> bool {
    scope
        .iter()
        .any(|t| t.has(parts) || t.qualifies(parts) || (parts.len() == 1 && t.columns.is_none()))
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

/// The query of an expression subquery (scalar, IN or EXISTS).
fn subquery_of(e: &Ast) -> Option<&ast::Query> {
    match e {
        Ast::Subquery(q)
        | Ast::InSubquery { subquery: q, .. }
        | Ast::Exists { subquery: q, .. } => Some(q),
        _ => None,
    }
}

/// How many derived or WITH tables deep a `*` is expanded to name columns (a WITH table may
/// name itself: past this its columns are not known).
const NAMES_DEPTH_MAX: usize = 8;

/// The FROM tables of an UPDATE or DELETE, which its subqueries may name.
fn from_of(s: &Statement) -> Option<Vec<&ast::TableWithJoins>> {
    match s {
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

fn outer_param(index: usize) -> Ast {
    Ast::Value(ast::ValueWithSpan {
        value: ast::Value::Placeholder(format!("{OUTER_PARAM}{index}")),
        span: Span::empty(),
    })
}

/// Whether `q` holds an outer value's placeholder (it depends on the values of a correlated
/// subquery around it).
fn reads_outer_params(q: &ast::Query) -> bool {
    ast::visit_expressions(q, |e| match e {
        Ast::Value(v) if matches!(&v.value, ast::Value::Placeholder(p) if outer_param_index(p).is_some()) => {
            ControlFlow::Break(())
        }
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

/// Walks a statement's expressions, keeping the tables of the SELECTs around them: each
/// SELECT's, pushed when it is entered (a query's ORDER BY sees the tables of its SELECT).
/// Expression subqueries the walk was told of (`pre_expr`) are left whole.
struct Scoping<'a> {
    with: Option<&'a ast::With>,
    scopes: Vec<Vec<Named>>,
    /// Per query entered: whether it is an expression subquery's left whole, and whether it
    /// pushed the scope of the SELECT that is its body.
    queries: Vec<(bool, bool)>,
    /// The queries of the expression subqueries left whole, and how many of them hold the walk.
    subqueries: Vec<*const ast::Query>,
    inside: usize,
    /// SELECTs whose scope their query pushed.
    owned: Vec<*const ast::Select>,
}

impl<'a> Scoping<'a> {
    fn new(with: Option<&'a ast::With>) -> Self {
        Scoping {
            with,
            scopes: Vec::new(),
            queries: Vec::new(),
            subqueries: Vec::new(),
            inside: 0,
            owned: Vec::new(),
        }
    }

    /// Whether the walk is at the level it works on (not inside a subquery left whole).
    fn here(&self) -> bool {
        self.inside == 0
    }

    fn pre_expr(&mut self, e: &Ast) {
        if let Some(q) = subquery_of(e) {
            if self.here() {
                self.subqueries.push(q as *const ast::Query);
            }
        }
    }

    fn pre_query<S: Exec>(&mut self, q: &ast::Query, session: &S) {
        let of_subquery = self.subqueries.contains(&(q as *const ast::Query));
        if of_subquery {
            self.inside += 1;
        }
        let mut pushed = false;
        if self.here() {
            if let ast::SetExpr::Select(select) = &*q.body {
                self.scopes
                    .push(session.named_tables(select.from.iter(), self.with));
                self.owned.push(&**select as *const ast::Select);
                pushed = true;
            }
        }
        self.queries.push((of_subquery, pushed));
    }

    fn post_query(&mut self) {
        if let Some((of_subquery, pushed)) = self.queries.pop() {
            if pushed {
                self.scopes.pop();
                self.owned.pop();
            }
            if of_subquery {
                self.inside -= 1;
                self.subqueries.pop();
            }
        }
    }

    fn pre_select<S: Exec>(&mut self, select: &ast::Select, session: &S) {
        if self.here() && !self.owned.contains(&(select as *const ast::Select)) {
            self.scopes
                .push(session.named_tables(select.from.iter(), self.with));
        }
    }

    fn post_select(&mut self, select: &ast::Select) {
        if self.here() && !self.owned.contains(&(select as *const ast::Select)) {
            self.scopes.pop();
        }
    }
}

/// The visitor methods that keep a walk's [`Scoping`] (in a struct with `scoping` and
/// `session` fields).
macro_rules! scoped_walk {
    () => {
        fn pre_visit_query(&mut self, q: &mut ast::Query) -> ControlFlow<()> {
            self.scoping.pre_query(q, self.session);
            ControlFlow::Continue(())
        }

        fn post_visit_query(&mut self, _: &mut ast::Query) -> ControlFlow<()> {
            self.scoping.post_query();
            ControlFlow::Continue(())
        }

        fn pre_visit_select(&mut self, s: &mut ast::Select) -> ControlFlow<()> {
            self.scoping.pre_select(s, self.session);
            ControlFlow::Continue(())
        }

        fn post_visit_select(&mut self, s: &mut ast::Select) -> ControlFlow<()> {
            self.scoping.post_select(s);
            ControlFlow::Continue(())
        }
    };
}

/// Replaces a correlated subquery's names of the outer tables' columns by outer values'
/// placeholders, numbered from `base` (one per distinct name), wherever in the subquery they
/// stand, but for names a table of the subquery, or of a query within it, owns.
struct OuterNames<'a, S> {
    session: &'a S,
    scoping: Scoping<'a>,
    outer: &'a [Named],
    /// The select items' aliases of the subquery itself, which its clauses may name.
    aliases: Vec<String>,
    base: usize,
    /// The names replaced (lowercase parts), with the text naming each.
    refs: Vec<(Vec<String>, Ast)>,
}

impl<S: Exec> ast::VisitorMut for OuterNames<'_, S> {
    type Break = ();

    scoped_walk!();

    fn pre_visit_expr(&mut self, e: &mut Ast) -> ControlFlow<()> {
        let Some(parts) = column_parts(e) else {
            return ControlFlow::Continue(());
        };
        let own = self.scoping.scopes.iter().any(|s| owns(s, &parts))
            || (parts.len() == 1
                && self
                    .aliases
                    .iter()
                    .any(|a| a.eq_ignore_ascii_case(&parts[0])));
        if own || !self.outer.iter().any(|t| t.has(&parts)) {
            return ControlFlow::Continue(());
        }
        let key: Vec<String> = parts.iter().map(|p| p.to_ascii_lowercase()).collect();
        let k = match self.refs.iter().position(|(p, _)| *p == key) {
            Some(k) => k,
            None => {
                self.refs.push((key, e.clone()));
                self.refs.len() - 1
            }
        };
        *e = outer_param(self.base + k);
        ControlFlow::Continue(())
    }
}

/// Replaces the subqueries standing at a statement's own level (not those inside another
/// subquery, planned with it) by their results or markers, after what stands inside them
/// (the left side of an IN first). Each correlates with the tables of the SELECT it stands
/// in (an UPDATE's or DELETE's for theirs).
struct Inliner<'s, 'c, S> {
    session: &'s mut S,
    ctx: &'c Context<'c>,
    scoping: Scoping<'c>,
    failure: Option<SqlError>,
}

impl<S: Exec> ast::VisitorMut for Inliner<'_, '_, S> {
    type Break = ();

    scoped_walk!();

    fn pre_visit_expr(&mut self, e: &mut Ast) -> ControlFlow<()> {
        self.scoping.pre_expr(e);
        // `x op ALL|ANY (subquery)` before its subquery is read as a scalar one.
        if !self.scoping.here() {
            return ControlFlow::Continue(());
        }
        let outer = self.scoping.scopes.last().map(|s| s.as_slice());
        let result = self.session.quantified(e, self.ctx, outer);
        self.replace(e, result)
    }

    fn post_visit_expr(&mut self, e: &mut Ast) -> ControlFlow<()> {
        if !self.scoping.here() || subquery_of(e).is_none() {
            return ControlFlow::Continue(());
        }
        let outer = self.scoping.scopes.last().map(|s| s.as_slice());
        let result = self.session.subquery_result(e, self.ctx, outer);
        self.replace(e, result)
    }
}

impl<S: Exec> Inliner<'_, '_, S> {
    /// Puts what replaces `e` in its place, or keeps the failure and stops the walk.
    fn replace(&mut self, e: &mut Ast, result: Result<Option<Ast>>) -> ControlFlow<()> {
        match result {
            Ok(Some(new)) => *e = new,
            Ok(None) => {}
            Err(err) => {
                self.failure = Some(err);
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }
}

/// An exact key of argument values (not collation-folded: a subquery may tell 'a' from 'A').
pub(crate) fn exact_key(values: &[Value]) -> Vec<u8> {
    let mut key = Vec::with_capacity(values.len() * 9);
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
            // Joined by the client library before SQL sees a row.
            Value::Parts(_) => 11,
        };
        key.push(tag);
        // Integers by their bits (fixed width within their tag), floating-point values too
        // (their text rounds), strings as they are.
        match v {
            Value::Int(i) => {
                key.extend_from_slice(&i.to_le_bytes());
                continue;
            }
            Value::UInt(u) => {
                key.extend_from_slice(&u.to_le_bytes());
                continue;
            }
            Value::Bytes(b) => {
                key.extend_from_slice(&(b.len() as u64).to_le_bytes());
                key.extend_from_slice(b);
                continue;
            }
            _ => {}
        }
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
/// `EXISTS (SELECT * FROM ...)` asks only whether a row is found: its `*` (with no grouping,
/// so no aggregate can make one row of none) becomes `1`, so no column is read for it.
fn existence_only(q: &mut ast::Query) {
    let ast::SetExpr::Select(s) = q.body.as_mut() else {
        return;
    };
    let star = matches!(
        s.projection.as_slice(),
        [ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..)]
    );
    let grouped =
        !matches!(&s.group_by, ast::GroupByExpr::Expressions(e, m) if e.is_empty() && m.is_empty());
    if star && !grouped && s.having.is_none() {
        s.projection = vec![ast::SelectItem::UnnamedExpr(Ast::Value(
            ast::Value::Number("1".into(), false).into(),
        ))];
    }
}

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

pub(crate) trait Subqueries: Exec {
    /// Replaces every subquery of `s` by its result (or, when correlated, by the marker
    /// standing for it), innermost first.
    fn inline_subqueries(
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
            param_count: placeholders.len(),
            nested: false,
        };
        self.inline_in(s, &ctx)
    }

    /// [`Self::inline_subqueries`] with `ctx`: in a correlated subquery's body (`nested`),
    /// a subquery reading its tables or the outer values becomes a marker too.
    fn inline_in(&mut self, s: &mut Statement, ctx: &Context) -> Result<()> {
        if self.subquery_depth >= SUBQUERY_DEPTH_MAX {
            return Err(SqlError::new(
                1473,
                "HY000",
                format!(
                    "Too high level of nesting for select (subqueries within subqueries: at most {SUBQUERY_DEPTH_MAX})"
                ),
            ));
        }
        let mut scoping = Scoping::new(ctx.with);
        if let Some(from) = from_of(s) {
            scoping
                .scopes
                .push(self.named_tables(from.into_iter(), ctx.with));
        }
        self.subquery_depth += 1;
        let mut inliner = Inliner {
            session: self,
            ctx,
            scoping,
            failure: None,
        };
        let _ = ast::VisitMut::visit(s, &mut inliner);
        let failure = inliner.failure.take();
        self.subquery_depth -= 1;
        failure.map_or(Ok(()), Err)
    }

    /// The literal that replaces `e`, if it is a subquery (or the marker of a correlated one,
    /// when `outer` gives the tables of the SELECT it stands in).
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
        if let Some(marker) = self.correlate(query, kind, lhs, span, outer.unwrap_or(&[]), ctx)? {
            return Ok(Some(marker));
        }
        if ctx.nested && reads_outer_params(query) {
            // It would need the outer values, which the marker's subquery does not have.
            return Err(SqlError::unsupported(
                "a subquery other than one SELECT naming an outer query's columns",
            ));
        }
        Ok(Some(match kind {
            Kind::Scalar => {
                let (binary, mut rows) = self.subquery_rows(query, span, ctx)?;
                if rows.len() > 1 {
                    return Err(SqlError::new(
                        1242,
                        "21000",
                        "Subquery returns more than 1 row",
                    ));
                }
                let value = rows.pop().and_then(|mut r| r.pop()).unwrap_or(Value::Null);
                // Nested, so a select item is named by its text, not by a string's value.
                Ast::Nested(Box::new(literal(value, binary, span)))
            }
            Kind::In { negated } => {
                let (binary, rows) = self.subquery_rows(query, span, ctx)?;
                if rows.is_empty() {
                    // Nothing is IN an empty set, not even NULL.
                    boolean(negated, span)
                } else {
                    Ast::InList {
                        expr: Box::new(lhs.cloned().unwrap_or(Ast::Value(ast::Value::Null.into()))),
                        list: rows
                            .into_iter()
                            .map(|mut r| literal(r.pop().unwrap_or(Value::Null), binary, span))
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

    /// What replaces `x op ALL (subquery)` or `x op ANY|SOME (subquery)`, if `e` is one: the
    /// comparisons with each of its values joined by AND (ALL: TRUE over no rows) or OR (ANY:
    /// FALSE over no rows), which gives MySQL's answers with NULLs too. A correlated one is
    /// refused (1235).
    fn quantified(
        &mut self,
        e: &Ast,
        ctx: &Context,
        outer: Option<&[Named]>,
    ) -> Result<Option<Ast>> {
        let (left, op, right, all) = match e {
            Ast::AllOp {
                left,
                compare_op,
                right,
            } => (left, compare_op, right, true),
            Ast::AnyOp {
                left,
                compare_op,
                right,
                ..
            } => (left, compare_op, right, false),
            _ => return Ok(None),
        };
        let mut right = &**right;
        while let Ast::Nested(inner) = right {
            right = inner;
        }
        let Ast::Subquery(query) = right else {
            return Ok(None);
        };
        let span = e.span();
        let correlated = self
            .correlate(query, Kind::Scalar, None, span, outer.unwrap_or(&[]), ctx)?
            .is_some();
        if correlated || (ctx.nested && reads_outer_params(query)) {
            return Err(SqlError::unsupported(
                "ALL, ANY or SOME over a subquery naming an outer query's columns",
            ));
        }
        let (binary, rows) = self.subquery_rows(query, span, ctx)?;
        let comparisons: Vec<Ast> = rows
            .into_iter()
            .map(|mut r| Ast::BinaryOp {
                left: left.clone(),
                op: op.clone(),
                right: Box::new(literal(r.pop().unwrap_or(Value::Null), binary, span)),
            })
            .collect();
        let joiner = if all {
            ast::BinaryOperator::And
        } else {
            ast::BinaryOperator::Or
        };
        Ok(Some(match balanced(comparisons, &joiner) {
            Some(tree) => Ast::Nested(Box::new(tree)),
            None => boolean(all, span),
        }))
    }

    /// The tables of a FROM clause with the names of their columns: a stored table's, a
    /// derived table's or a WITH table's (of `with`) as their queries' text gives them.
    fn named_tables<'t>(
        &self,
        from: impl Iterator<Item = &'t ast::TableWithJoins>,
        with: Option<&ast::With>,
    ) -> Vec<Named> {
        self.named_tables_at(from, with, 0)
    }

    /// [`Self::named_tables`] `depth` derived or WITH tables down (each may name more).
    fn named_tables_at<'t>(
        &self,
        from: impl Iterator<Item = &'t ast::TableWithJoins>,
        with: Option<&ast::With>,
        depth: usize,
    ) -> Vec<Named> {
        let mut out = Vec::new();
        for t in from {
            self.named_factors(&t.relation, with, depth, &mut out);
            for j in &t.joins {
                self.named_factors(&j.relation, with, depth, &mut out);
            }
        }
        out
    }

    /// The names of a query's columns as its text gives them (those of its first SELECT, `*`
    /// as the columns of the tables it names), or None when they are not known.
    fn projection_columns(
        &self,
        q: &ast::Query,
        with: Option<&ast::With>,
        depth: usize,
    ) -> Option<Vec<String>> {
        let mut body = &*q.body;
        loop {
            match body {
                ast::SetExpr::SetOperation { left, .. } => body = left,
                ast::SetExpr::Query(q) => body = &q.body,
                _ => break,
            }
        }
        let ast::SetExpr::Select(select) = body else {
            return None;
        };
        let mut out = Vec::new();
        let mut from: Option<Vec<Named>> = None;
        for item in &select.projection {
            match item {
                ast::SelectItem::ExprWithAlias { alias, .. } => out.push(alias.value.clone()),
                ast::SelectItem::UnnamedExpr(Ast::Identifier(i)) => out.push(i.value.clone()),
                ast::SelectItem::UnnamedExpr(Ast::CompoundIdentifier(parts)) => {
                    out.push(parts.last()?.value.clone())
                }
                ast::SelectItem::UnnamedExpr(e) => out.push(e.to_string()),
                ast::SelectItem::ExprWithAliases { .. } => return None,
                ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => {
                    // The columns of the tables it reads (`t.*`: of that one).
                    if depth >= NAMES_DEPTH_MAX {
                        return None;
                    }
                    let tables = from.get_or_insert_with(|| {
                        self.named_tables_at(select.from.iter(), with, depth + 1)
                    });
                    let wanted: Option<String> = match item {
                        ast::SelectItem::QualifiedWildcard(
                            ast::SelectItemQualifiedWildcardKind::ObjectName(name),
                            _,
                        ) => Some(name.0.last()?.as_ident()?.value.clone()),
                        ast::SelectItem::QualifiedWildcard(..) => return None,
                        _ => None,
                    };
                    for t in tables.iter() {
                        if wanted
                            .as_ref()
                            .is_none_or(|w| w.eq_ignore_ascii_case(&t.name))
                        {
                            out.extend(t.columns.clone()?);
                        }
                    }
                }
            }
        }
        Some(out)
    }

    /// A WITH table's column names: its column list, else its query's.
    fn cte_columns(
        &self,
        cte: &ast::Cte,
        with: Option<&ast::With>,
        depth: usize,
    ) -> Option<Vec<String>> {
        if cte.alias.columns.is_empty() {
            self.projection_columns(&cte.query, with, depth)
        } else {
            Some(
                cte.alias
                    .columns
                    .iter()
                    .map(|c| c.name.value.clone())
                    .collect(),
            )
        }
    }

    fn named_factors(
        &self,
        factor: &ast::TableFactor,
        with: Option<&ast::With>,
        depth: usize,
        out: &mut Vec<Named>,
    ) {
        let alias_of = |a: &Option<ast::TableAlias>| a.as_ref().map(|a| a.name.value.clone());
        match factor {
            ast::TableFactor::Table { name, alias, .. } => {
                let single = match &name.0[..] {
                    [part] => part.as_ident().map(|i| i.value.clone()),
                    _ => None,
                };
                let cte = single.as_ref().and_then(|n| {
                    with?
                        .cte_tables
                        .iter()
                        .find(|c| c.alias.name.value.eq_ignore_ascii_case(n))
                });
                if let Some(cte) = cte {
                    out.push(Named {
                        name: alias_of(alias).unwrap_or_else(|| cte.alias.name.value.clone()),
                        database: String::new(),
                        columns: self.cte_columns(cte, with, depth),
                    });
                    return;
                }
                match self.table(name) {
                    Ok((table, database, table_name)) => out.push(Named {
                        name: alias_of(alias).unwrap_or(table_name),
                        database,
                        columns: Some(
                            table
                                .def()
                                .columns
                                .iter()
                                .filter(|c| !c.hidden)
                                .map(|c| c.name.clone())
                                .collect(),
                        ),
                    }),
                    Err(_) => out.push(Named {
                        name: alias_of(alias)
                            .or_else(|| {
                                name.0
                                    .last()
                                    .and_then(|p| p.as_ident())
                                    .map(|i| i.value.clone())
                            })
                            .unwrap_or_default(),
                        database: String::new(),
                        columns: None,
                    }),
                }
            }
            ast::TableFactor::Derived {
                subquery, alias, ..
            } => {
                let listed = alias.as_ref().filter(|a| !a.columns.is_empty());
                out.push(Named {
                    name: alias_of(alias).unwrap_or_default(),
                    database: String::new(),
                    columns: match listed {
                        Some(a) => Some(a.columns.iter().map(|c| c.name.value.clone()).collect()),
                        None => self.projection_columns(subquery, with, depth),
                    },
                });
            }
            ast::TableFactor::NestedJoin {
                table_with_joins, ..
            } => {
                out.extend(self.named_tables_at(std::iter::once(&**table_with_joins), with, depth));
            }
            _ => out.push(Named {
                name: String::new(),
                database: String::new(),
                columns: None,
            }),
        }
    }

    /// If subquery `q` names columns of the `outer` tables (and is a single SELECT), or, in a
    /// correlated subquery's body, reads its outer values: plans it with those columns as
    /// parameters and gives the marker that stands for it in the statement. None when it
    /// names none of them.
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
        let aliases: Vec<String> = select
            .projection
            .iter()
            .filter_map(|i| match i {
                ast::SelectItem::ExprWithAlias { alias, .. } => Some(alias.value.clone()),
                _ => None,
            })
            .collect();
        // In a correlated subquery's body, one reading the outer values runs for each set of
        // them, as a marker without arguments of its own.
        let dependent = ctx.nested && reads_outer_params(q);
        let mut q = q.clone();
        let mut names = OuterNames {
            session: self,
            scoping: Scoping::new(ctx.with),
            outer,
            aliases,
            base: ctx.param_count,
            refs: Vec::new(),
        };
        let _ = ast::VisitMut::visit(&mut q, &mut names);
        let refs = names.refs;
        if refs.is_empty() && !dependent {
            return Ok(None);
        }
        if matches!(kind, Kind::Exists { .. }) {
            existence_only(&mut q);
        }
        // It sees the WITH tables defined before it.
        if let Some(with) = ctx.with {
            let with = visible(with, at.start, None);
            q.with = (!with.cte_tables.is_empty() || with.recursive).then_some(with);
        }
        let param_count = ctx.param_count + refs.len();
        let once_query = match (kind, dependent, refs.len()) {
            (Kind::Exists { .. }, false, 1) => {
                crate::exec::semijoin::once_query(&q, &outer_param(ctx.param_count))
            }
            _ => None,
        };
        let mut statement = Statement::Query(Box::new(q));
        let before = self.correlated.len();
        if has_subquery(&statement) {
            let inner = Context {
                sql: ctx.sql,
                placeholders: ctx.placeholders,
                params: ctx.params,
                with: ctx.with,
                param_count,
                nested: true,
            };
            self.inline_in(&mut statement, &inner)?;
        }
        let nested = self.correlated.len() > before;
        let Compiled::Select(plan) = self.compile(statement, ctx.sql, ctx.placeholders)? else {
            return Err(SqlError::unsupported(
                "a correlated subquery other than one SELECT",
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
        let plain = !plan.grouped
            && !plan.windowed()
            && plan.having.is_none()
            && plan.limit.is_none()
            && plan.offset.is_none()
            && plan.items.iter().all(|e| !e.has_correlated());
        let once = match once_query.filter(|_| plain && !nested) {
            Some(q) => self.once_plan(q, ctx.sql, ctx.placeholders),
            None => None,
        };
        self.correlated.push(Correlated {
            plain,
            once,
            plan: Arc::new(*plan),
            kind,
            params: ctx.param_count,
            keyed: if dependent { ctx.param_count } else { 0 },
            nested,
            results: HashMap::new(),
        });
        let mut args: Vec<Ast> = lhs.cloned().into_iter().collect();
        args.extend(refs.into_iter().map(|(_, a)| a));
        Ok(Some(Marker::make(n, kind, ty, args, at)))
    }
    /// Runs the correlated subqueries `exprs` hold for each of `rows` (once per distinct set
    /// of outer values), in `txn`, so evaluating `exprs` over those rows finds their results.
    fn run_correlated<'e>(
        &mut self,
        txn: &mut Transaction,
        exprs: impl IntoIterator<Item = &'e Expr>,
        rows: &[Vec<Value>],
        params: &[Value],
    ) -> Result<()> {
        if self.correlated.is_empty() {
            return Ok(());
        }
        // Each call with how many markers deep its arguments hold others (a correlated left
        // side of a correlated IN): those run first, their results read by the arguments.
        let mut calls: Vec<(usize, usize, Vec<Expr>)> = Vec::new();
        for e in exprs {
            e.walk(&mut |x| {
                if let Expr::Correlated { n, args, .. } = x {
                    let mut inner = 0;
                    for a in args {
                        a.walk(&mut |y| inner += matches!(y, Expr::Correlated { .. }) as usize);
                    }
                    calls.push((inner, *n, args.clone()));
                }
            });
        }
        calls.sort_by_key(|c| c.0);
        let mut from = 0;
        while from < calls.len() {
            let level = calls[from].0;
            let to = calls[from..]
                .iter()
                .position(|c| c.0 != level)
                .map_or(calls.len(), |k| from + k);
            self.run_calls(txn, &calls[from..to], rows, params)?;
            from = to;
        }
        Ok(())
    }

    /// Runs each of `calls` (a subquery and its argument expressions) for each of `rows`,
    /// once per distinct set of argument values it has no result for yet.
    fn run_calls(
        &mut self,
        txn: &mut Transaction,
        calls: &[(usize, usize, Vec<Expr>)],
        rows: &[Vec<Value>],
        params: &[Value],
    ) -> Result<()> {
        // The argument values each subquery has not run for yet, in the order met.
        let mut wanted: Vec<(usize, Vec<u8>, Vec<Value>)> = Vec::new();
        let mut met = std::collections::HashSet::new();
        for row in rows {
            for (_, n, args) in calls {
                let env = self.env(row, params, &[]);
                let values = args
                    .iter()
                    .map(|a| a.eval(&env))
                    .collect::<Result<Vec<_>>>()?;
                let key = self.result_key(*n, params, &values);
                let known = self
                    .correlated
                    .get(*n)
                    .is_none_or(|c| c.results.contains_key(&key));
                if !known && met.insert((*n, key.clone())) {
                    wanted.push((*n, key, values));
                }
            }
        }
        self.semi_joins_once(txn, &mut wanted, params)?;
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
    fn select_source_rows(
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
    fn correlated_source_rows(
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
    /// (`fetched`: the rows its keyed reads found, when [`Self::prefetch`] read them.)
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
        // EXISTS over plain rows read ahead: whether one matches, without making a result.
        let plain = self.correlated[n].plain;
        if let (Kind::Exists { negated }, Some(src), true) = (kind, &plan.source, plain) {
            if let Some(rows) = fetched {
                let found = !self.matching(src, &all, rows)?.is_empty();
                return Ok(Value::Int((found != negated) as i64));
            }
        }
        let rows = match (fetched, &plan.source) {
            (Some(rows), Some(src)) => self.matching(src, &all, rows),
            _ if self.correlated[n].nested => self.correlated_source_rows(txn, &plan, &all),
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
    fn correlated_result(
        &self,
        n: usize,
        params: &[Value],
        args: &[Value],
    ) -> Option<Result<Value>> {
        self.correlated
            .get(n)?
            .results
            .get(&self.result_key(n, params, args))
            .cloned()
    }

    /// What correlated subquery `n`'s result for `args` is kept under, with the parameters
    /// `params` of the level it runs at.
    fn result_key(&self, n: usize, params: &[Value], args: &[Value]) -> Vec<u8> {
        let keyed = self.correlated.get(n).map_or(0, |c| c.keyed);
        let mut key = exact_key(&params[..keyed.min(params.len())]);
        key.extend(exact_key(args));
        key
    }

    /// The rows of a subquery that must give one column.
    fn subquery_rows(
        &mut self,
        q: &ast::Query,
        at: Span,
        ctx: &Context,
    ) -> Result<(bool, Vec<Vec<Value>>)> {
        let (columns, rows) = self.query_rows(q, at, ctx)?;
        if columns.len() != 1 {
            return Err(SqlError::new(
                1241,
                "21000",
                "Operand should contain 1 column(s)",
            ));
        }
        Ok((columns[0], rows))
    }

    /// A subquery's columns (whether each holds binary strings) and rows.
    fn query_rows(
        &mut self,
        q: &ast::Query,
        at: Span,
        ctx: &Context,
    ) -> Result<(Vec<bool>, Vec<Vec<Value>>)> {
        let mut q = q.clone();
        if let Some(outer) = ctx.with {
            let with = visible(outer, at.start, q.with.take());
            q.with = (!with.cte_tables.is_empty() || with.recursive).then_some(with);
        }
        let statement = Statement::Query(Box::new(q));
        let compiled = self.compile(statement, ctx.sql, ctx.placeholders)?;
        if self.explaining.is_some() {
            // EXPLAIN: planned, not run; one row of NULLs stands for its result.
            let columns = self.explain_subquery(compiled, ctx.params)?;
            return Ok((vec![false; columns], vec![vec![Value::Null; columns]]));
        }
        match self.execute(&compiled, ctx.params)? {
            Outcome::Rows { columns, rows } => Ok((
                columns
                    .iter()
                    .map(|c| c.collation == myproto::response::BINARY_COLLATION_ID)
                    .collect(),
                rows,
            )),
            Outcome::Failed(e) => Err(e),
            _ => Err(SqlError::new(
                1105,
                "HY000",
                "internal: a subquery without rows",
            )),
        }
    }
}

trait Explaining: Subqueries {
    /// Keeps the EXPLAIN rows of a subquery (its own subqueries planned the same way) as
    /// SELECT number 2, 3, ...; answers its column count.
    fn explain_subquery(&mut self, compiled: Compiled, params: &[Value]) -> Result<usize> {
        let compiled = match compiled {
            Compiled::Deferred(d) => {
                let mut statement = d.statement.clone();
                self.inline_subqueries(&mut statement, &d.sql, &d.placeholders, params)?;
                self.compile(statement, &d.sql, &d.placeholders)?
            }
            c => c,
        };
        let columns = match &compiled {
            Compiled::Select(p) => p.columns.len(),
            Compiled::Set(p) => p.columns.len(),
            _ => return Err(SqlError::unsupported("EXPLAIN of a subquery in this place")),
        };
        let (_, rows) = crate::plan::explain::explain(&compiled);
        if let Some(kept) = self.explaining.as_mut() {
            let id = kept.len() as i64 + 2;
            kept.push(crate::plan::explain::numbered(rows, id, Some("SUBQUERY")));
        }
        Ok(columns)
    }
}

impl<S: Subqueries> Explaining for S {}

/// EXPLAIN of a statement with subqueries (`Compiled::Deferred`): its plan, and each subquery's
/// planned, never run (MariaDB's SUBQUERY and DEPENDENT SUBQUERY rows). The statement's own
/// plan is made with a NULL where each uncorrelated subquery's value would be.
pub(crate) fn explain_deferred<S: Exec>(
    s: &mut S,
    d: &crate::plan::compiled::Deferred,
) -> Result<Outcome> {
    let base = s.correlated.len();
    let outer = s.explaining.replace(Vec::new());
    let mut statement = d.statement.clone();
    let planned = s
        .inline_subqueries(&mut statement, &d.sql, &d.placeholders, &[])
        .and_then(|()| s.compile(statement, &d.sql, &d.placeholders));
    let subqueries = std::mem::replace(&mut s.explaining, outer).unwrap_or_default();
    let dependent: Vec<Arc<SelectPlan>> = s.correlated[base..]
        .iter()
        .map(|c| Arc::clone(&c.plan))
        .collect();
    s.correlated.truncate(base);
    let compiled = planned?;
    if matches!(compiled, Compiled::Deferred(_)) {
        return Err(SqlError::unsupported("EXPLAIN of a subquery in this place"));
    }
    let (columns, mut rows) = crate::plan::explain::explain(&compiled);
    if !subqueries.is_empty() || !dependent.is_empty() {
        for r in &mut rows {
            if r.get(1) == Some(&Value::Bytes(b"SIMPLE".to_vec())) {
                r[1] = Value::Bytes(b"PRIMARY".to_vec());
            }
        }
    }
    let first = subqueries.len() as i64 + 2;
    rows.extend(subqueries.into_iter().flatten());
    for (next, plan) in (first..).zip(dependent) {
        let (_, more) = crate::plan::explain::explain(&Compiled::Select(Box::new((*plan).clone())));
        rows.extend(crate::plan::explain::numbered(
            more,
            next,
            Some("DEPENDENT SUBQUERY"),
        ));
    }
    Ok(crate::exec::rows((columns, rows)))
}

impl<S: Exec> Subqueries for S {}

/// What inlining a statement's subqueries needs from it.
pub(crate) struct Context<'a> {
    sql: &'a str,
    placeholders: &'a [Location],
    params: &'a [Value],
    /// The statement's WITH clause.
    with: Option<&'a ast::With>,
    /// How many parameters the level being inlined reads: the statement's, then the outer
    /// values of the correlated subqueries around it.
    param_count: usize,
    /// Inlining a correlated subquery's body.
    nested: bool,
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
            let mut s = sqlparser::parser::Parser::parse_sql(&crate::parse::dialect::Cairn, text)
                .expect("parses");
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
