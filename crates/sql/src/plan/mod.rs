//! The planner: turns a parsed SELECT, UPDATE or DELETE over one table into a plan that names
//! its access path (primary-key or unique-key lookups, many keys per round trip; an ordered-index
//! range; or a full scan), the conditions pushed into the data node's scan filter, the columns
//! fetched, and the work left to the API node (residual WHERE, grouping, ordering, limits); a
//! SELECT over several tables through `plan/join.rs`, whose tables may be derived tables or common
//! table expressions (`plan/derived.rs`); set operations are `plan/setop.rs`'s.
//! Plans hold `?` parameters unresolved, so a prepared statement plans once.

pub(crate) mod access;
pub(crate) mod aggregate;
pub(crate) mod cache;
pub(crate) mod compiled;
pub(crate) mod derived;
pub(crate) mod estimate;
pub(crate) mod explain;
pub(crate) mod insert;
pub(crate) mod join;
pub(crate) mod lex;
pub(crate) mod pushed;
pub(crate) mod select;
pub use select::select;
pub(crate) mod setop;
pub(crate) mod write;

use std::sync::Arc;

use base::types::Collation;
use base::types::ColumnType;
use base::Value;
use client::{CmpOp, LockMode, Table};
use myproto::response::Column;
use sqlparser::ast::{self, Expr as Ast, SetExpr, Spanned};
use sqlparser::tokenizer::Location;

use crate::catalog::infoschema::{Virtual, NAME};
use crate::expr::aggregate::Aggregate;
use crate::expr::{BinOp, Compiler, Expr, Scope};
use crate::foundation::error::SqlError;
use crate::parse::Lines;
use crate::plan::derived::{Cte, Derived};
use crate::plan::join::Joined;
use crate::plan::setop::SetPlan;

type Result<T> = std::result::Result<T, SqlError>;

/// How rows are found.
#[derive(Debug, Clone)]
pub enum Access {
    /// Keyed reads: by the primary key (`unique` None) or a unique index, one read per key, all
    /// in one round trip. Keys are in index-column order.
    Lookup {
        unique: Option<(u16, String)>,
        keys: Vec<Vec<Expr>>,
    },
    /// An ordered-index scan: equal values on a prefix of the index columns, then optional
    /// inclusive bounds on the next column.
    Range {
        index: String,
        columns: Vec<u16>,
        equal: Vec<Expr>,
        lower: Option<Expr>,
        upper: Option<Expr>,
    },
    /// Every row of every partition, filtered in the data node.
    Full,
}

/// A condition the data node can evaluate: a column against a row-free value.
#[derive(Debug, Clone)]
pub enum Pushed {
    Cmp(u16, CmpOp, Expr),
    Between(u16, Expr, Expr),
    In(u16, Vec<Expr>),
    Like(u16, Expr),
    IsNull(u16, bool),
    /// An OR whose every branch is a conjunction of the conditions above (each branch's
    /// conditions that cannot be pushed are left out of it, which only widens it).
    Any(Vec<Vec<Pushed>>),
    /// `SUBSTRING(column, start, length)` (or `LEFT(column, length)`: start 1) equal to one of
    /// `values`: pushed as `column LIKE 'value%'` for each, when start is 1 and every value is
    /// exactly `length` ASCII letters or digits (`prefix_like`), else not at all.
    Prefixes {
        column: u16,
        start: Expr,
        length: Expr,
        values: Vec<Expr>,
    },
}

/// The table a statement reads and how.
#[derive(Debug, Clone)]
pub struct Source {
    pub table: Table,
    pub name: String,
    pub access: Access,
    pub pushed: Vec<Pushed>,
    /// The whole WHERE, over fetched rows: the access path and pushed filter only narrow.
    pub filter: Option<Expr>,
    /// Every conjunct of the WHERE is pushed, as a comparison, BETWEEN, IN or IS NULL on an
    /// integer column, where the data node's filter decides exactly as MySQL does: a scan whose
    /// pushed values all convert exactly needs no re-check of its committed rows.
    pub pushed_decides: bool,
    /// Table column positions fetched; fetched row position i holds column `fetch[i]`.
    pub fetch: Vec<u16>,
    /// Set when the key lookup decides the WHERE (`lookup_decides`): how many of `fetch`'s
    /// columns the statement reads beyond the WHERE (at least one). The columns after them
    /// are fetched only to re-check it, which a read whose key values are of their columns'
    /// own kind skips.
    pub decided_fetch: Option<usize>,
    pub lock: LockMode,
    /// The rows its access path reads and its conditions keep, when the table was analyzed.
    pub estimate: Option<crate::plan::estimate::Estimate>,
    /// A derived table or common table expression: its rows are this query's, run in the API
    /// node when the statement runs (`table` is then a definition no data node holds).
    pub derived: Option<Arc<Derived>>,
}

impl Source {
    /// Whether the API node makes this source's rows itself (information_schema, a derived
    /// table): they are never asked of a data node, so never read by key nor by the reactor.
    pub(crate) fn made_in_api_node(&self) -> bool {
        self.derived.is_some() || crate::plan::virtual_of(self).is_some()
    }

    /// The names of the columns it fetches, in `fetch`'s order (as a scan names them).
    pub(crate) fn fetch_names(&self) -> Vec<&str> {
        let def = self.table.def();
        self.fetch
            .iter()
            .map(|c| def.columns[*c as usize].name.as_str())
            .collect()
    }
}

/// Where an ORDER BY key comes from.
#[derive(Debug, Clone)]
pub enum OrderKey {
    /// The n-th select item.
    Item(usize),
    Expr(Expr),
}

#[derive(Debug, Clone)]
pub struct SelectPlan {
    pub source: Option<Source>,
    /// Set for a join; `source` is then the first table read.
    pub joined: Option<Box<Joined>>,
    pub items: Vec<Expr>,
    pub columns: Vec<Column>,
    /// Each item's collation and coercibility, for the set operations it takes part in.
    pub derived: Vec<crate::expr::collate::Derived>,
    pub aggregates: Vec<Aggregate>,
    pub group_by: Vec<Expr>,
    /// The collation each GROUP BY key's strings group under.
    pub group_collations: Vec<Collation>,
    pub grouped: bool,
    /// GROUP BY ... WITH ROLLUP: after each group, a row per shorter prefix of its keys that
    /// ends there, aggregating all the rows of that prefix, the keys past it NULL.
    pub rollup: bool,
    pub having: Option<Expr>,
    /// (key, descending, the collation its strings sort under).
    pub order: Vec<(OrderKey, bool, Collation)>,
    pub distinct: bool,
    pub limit: Option<Expr>,
    pub offset: Option<Expr>,
    /// Whether it calls a function that may wait (SLEEP, GET_LOCK): the event loop leaves it
    /// to the connection's thread.
    pub waits: bool,
    /// Its result took more than a scan batch last time: the reactor leaves it to the thread.
    pub large: crate::plan::Large,
    /// The data node may fold its rows into groups (`plan/aggregate.rs`).
    pub pushed_aggregate: Option<crate::plan::aggregate::PushedAggregate>,
}

impl SelectPlan {
    /// It has window functions (`exec/window.rs`), computed over its result rows.
    pub fn windowed(&self) -> bool {
        self.aggregates.iter().any(Aggregate::is_window)
    }
}

#[derive(Debug, Clone)]
pub struct UpdatePlan {
    pub source: Source,
    /// (table column, new value over the fetched row).
    pub assignments: Vec<(u16, Expr)>,
    /// (key, descending, the collation its strings sort under).
    pub order: Vec<(OrderKey, bool, Collation)>,
    pub limit: Option<Expr>,
    /// UPDATE IGNORE: a row whose new key is taken is skipped, a value strict mode refuses is
    /// changed to fit with a warning.
    pub ignore: bool,
}

#[derive(Debug, Clone)]
pub struct DeletePlan {
    pub source: Source,
    /// (key, descending, the collation its strings sort under).
    pub order: Vec<(OrderKey, bool, Collation)>,
    pub limit: Option<Expr>,
}

/// Where each `?` of `sql` starts, in text order (the parser's spans point at these).
pub fn placeholders(sql: &str) -> Result<Vec<Location>> {
    let dialect = crate::parse::dialect::Cairn;
    let tokens = sqlparser::tokenizer::Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .map_err(SqlError::parse)?;
    Ok(tokens
        .into_iter()
        .filter(|t| matches!(&t.token, sqlparser::tokenizer::Token::Placeholder(p) if p == "?"))
        .map(|t| t.span.start)
        .collect())
}

/// A statement's tokens and line offsets, made once per statement at the first select item
/// named by its text: naming every item of a wide SELECT then costs one tokenization, where a
/// tokenization per item grew with the square of the item count.
pub struct SourceIndex {
    tokens: Vec<sqlparser::tokenizer::TokenWithSpan>,
    lines: Lines,
}

impl SourceIndex {
    fn new(sql: &str) -> Option<SourceIndex> {
        let dialect = crate::parse::dialect::Cairn;
        let tokens = sqlparser::tokenizer::Tokenizer::new(&dialect, sql)
            .tokenize_with_location()
            .ok()?;
        Some(SourceIndex {
            tokens,
            lines: Lines::new(sql),
        })
    }
}

/// The text of the select item starting at the start of `e`, as typed (MySQL names computed
/// columns by it): its tokens up to the comma or clause keyword that ends it.
pub fn source_text(input: &PlanInput, e: &Ast) -> String {
    use sqlparser::keywords::Keyword;
    use sqlparser::tokenizer::Token;
    let sql = input.sql;
    let typed = || -> Option<String> {
        let start = e.span().start;
        let index = input
            .source
            .get_or_init(|| SourceIndex::new(sql))
            .as_ref()?;
        let tokens = &index.tokens;
        // Tokens come in text order: the item's first is found by its start.
        let at = tokens.binary_search_by(|t| t.span.start.cmp(&start)).ok()?;
        // Back to where the item begins: after the comma or SELECT keyword before it (a unary
        // operator or an opening parenthesis may come before the expression's own start).
        let mut first = at;
        let mut depth = 0i32;
        for i in (0..at).rev() {
            match &tokens[i].token {
                Token::RParen => depth += 1,
                Token::LParen if depth > 0 => depth -= 1,
                Token::Comma if depth == 0 => break,
                Token::Word(w)
                    if depth == 0
                        && matches!(
                            w.keyword,
                            Keyword::SELECT
                                | Keyword::DISTINCT
                                | Keyword::ALL
                                | Keyword::DISTINCTROW
                        ) =>
                {
                    break
                }
                Token::Whitespace(_) => continue,
                _ => {}
            }
            first = i;
        }
        let start = tokens[first].span.start;
        let mut depth = 0i32;
        let mut last = first;
        for (i, t) in tokens.iter().enumerate().skip(first) {
            match &t.token {
                Token::LParen => depth += 1,
                Token::RParen if depth == 0 => break,
                Token::RParen => depth -= 1,
                Token::Comma | Token::SemiColon if depth == 0 => break,
                Token::EOF => break,
                Token::Whitespace(_) => continue,
                Token::Word(w)
                    if depth == 0
                        && i > first
                        && matches!(
                            w.keyword,
                            Keyword::FROM
                                | Keyword::WHERE
                                | Keyword::GROUP
                                | Keyword::HAVING
                                | Keyword::ORDER
                                | Keyword::LIMIT
                                | Keyword::INTO
                                | Keyword::UNION
                                | Keyword::INTERSECT
                                | Keyword::EXCEPT
                                | Keyword::FOR
                                | Keyword::LOCK
                                | Keyword::AS
                        ) =>
                {
                    break
                }
                _ => {}
            }
            last = i;
        }
        let a = index.lines.offset(sql, start)?;
        let b = index.lines.offset(sql, tokens[last].span.end)?;
        (a < b).then(|| sql[a..b].to_string())
    };
    typed().unwrap_or_else(|| e.to_string())
}

/// The conjuncts of a WHERE clause. A conjunct every branch of an OR holds is one of them too:
/// `(a AND b) OR (a AND c)` gives `a` and `b OR c` (as true for the same rows, NULLs included),
/// so a join key or an indexed equality written in each branch is used as one.
pub(crate) fn conjuncts(e: &Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::Binary(BinOp::And, l, r) => {
            conjuncts(l, out);
            conjuncts(r, out);
        }
        Expr::Binary(BinOp::Or, ..) => factored(e, out),
        other => out.push(other.clone()),
    }
}

/// The conjuncts of an OR: those common to all its branches, then the OR of what is left of
/// each (none when a branch has nothing left: it is true wherever the common ones are).
/// Conjuncts that give another value at each evaluation (RAND) or hold subqueries stay put.
fn factored(e: &Expr, out: &mut Vec<Expr>) {
    let mut branches = Vec::new();
    disjuncts(e, &mut branches);
    let parts: Vec<Vec<Expr>> = branches
        .iter()
        .map(|b| {
            let mut p = Vec::new();
            conjuncts(b, &mut p);
            p
        })
        .collect();
    let common: Vec<Expr> = match parts.first() {
        Some(first) => first
            .iter()
            .filter(|c| stable(c) && parts[1..].iter().all(|p| p.contains(c)))
            .fold(Vec::new(), |mut kept, c| {
                if !kept.contains(c) {
                    kept.push(c.clone());
                }
                kept
            }),
        None => Vec::new(),
    };
    if common.is_empty() {
        out.push(e.clone());
        return;
    }
    let mut rest = Vec::with_capacity(parts.len());
    for p in parts {
        let left: Vec<Expr> = p.into_iter().filter(|c| !common.contains(c)).collect();
        match left
            .into_iter()
            .reduce(|a, b| Expr::Binary(BinOp::And, Box::new(a), Box::new(b)))
        {
            Some(branch) => rest.push(branch),
            // This branch is the common conjuncts alone: the OR adds nothing.
            None => {
                out.extend(common);
                return;
            }
        }
    }
    out.extend(common);
    if let Some(or) = rest
        .into_iter()
        .reduce(|a, b| Expr::Binary(BinOp::Or, Box::new(a), Box::new(b)))
    {
        out.push(or);
    }
}

pub(crate) fn disjuncts(e: &Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::Binary(BinOp::Or, l, r) => {
            disjuncts(l, out);
            disjuncts(r, out);
        }
        other => out.push(other.clone()),
    }
}

/// The comparison under an [`Expr::Collated`] as the planner may use it: the comparison itself
/// when every column it compares holds strings of that very collation (indexes and the data
/// node's filters compare by the column's collation, so they then agree with it); the node
/// unchanged otherwise, which nothing matches.
pub(crate) fn look_through(e: &Expr, collation_of: impl Fn(usize) -> Option<Collation>) -> &Expr {
    let Expr::Collated(c, inner) = e else {
        return e;
    };
    let operands: Vec<&Expr> = match inner.as_ref() {
        Expr::Binary(_, l, r) => vec![l, r],
        Expr::Between(x, ..) | Expr::In(x, ..) | Expr::Like(x, ..) => vec![x],
        _ => return e,
    };
    let mut any = false;
    for o in operands {
        if let Expr::Column(p) = o {
            // A column of numbers or dates does not compare by a collation.
            if collation_of(*p).is_some_and(|own| own != *c) {
                return e;
            }
            any = true;
        }
    }
    if any {
        inner
    } else {
        e
    }
}

/// The most filter nodes a pushed OR may take (the data node's whole program holds at most
/// `base::limits::FILTER_NODES_MAX`).
const PUSHED_OR_NODES_MAX: usize = 512;

/// The filter nodes a pushed condition becomes, counting an OR's nesting as nodes too.
fn pushed_size(p: &Pushed) -> usize {
    match p {
        Pushed::Any(branches) => {
            1 + branches
                .iter()
                .map(|b| 1 + b.iter().map(pushed_size).sum::<usize>())
                .sum::<usize>()
        }
        Pushed::In(_, list) => 1 + list.len(),
        Pushed::Prefixes { values, .. } => 1 + values.len(),
        _ => 1,
    }
}

/// Whether a condition gives the same answer each time it is evaluated over the same row: no
/// volatile function (RAND, UUID, ...) and no correlated subquery.
pub(crate) fn stable(c: &Expr) -> bool {
    let mut ok = true;
    c.walk(&mut |x| {
        ok &= !matches!(x, Expr::Correlated { .. })
            && !matches!(x, Expr::Call(f, _) if f.is_volatile());
    });
    ok
}

/// `SUBSTRING(col, start, n)` or `LEFT(col, n)` equal to (or IN) constants or parameters, on a
/// string column whose collation weighs each character on its own (no expansions or ignorable
/// characters): narrowed in the data node as `col LIKE 'value%'` (an OR of them) when, as the
/// statement runs, start is 1 and each value is exactly n ASCII letters or digits, so a prefix
/// equal to it is a LIKE match too. It only narrows: the WHERE is still checked in the API node.
fn prefix_like(part: &Expr, def: &base::TableDef, free: &dyn Fn(&Expr) -> bool) -> Option<Pushed> {
    use crate::expr::funcs::Func;
    // The collation the comparison runs under: a bare one compares as utf8mb4_general_ci.
    let (part, compared_as) = match part {
        Expr::Collated(c, inner) => (inner.as_ref(), *c),
        bare => (bare, base::Collation::Utf8mb4GeneralCi),
    };
    let (e, list) = match part {
        Expr::Binary(BinOp::Eq, l, r) => (l.as_ref(), std::slice::from_ref(r.as_ref())),
        Expr::In(e, list, false) => (e.as_ref(), list.as_slice()),
        _ => return None,
    };
    // A binary string's LEFT or SUBSTRING counts bytes (`Compiler::binary_units`).
    let e = match e {
        Expr::Collated(base::Collation::Binary, inner) => inner.as_ref(),
        e => e,
    };
    let (c, start, length) = match e {
        Expr::Call(Func::Substring, args) => match args.as_slice() {
            [Expr::Column(c), start, length] => (*c, start.clone(), length.clone()),
            _ => return None,
        },
        Expr::Call(Func::Left, args) => match args.as_slice() {
            [Expr::Column(c), length] => (*c, Expr::Const(Value::Int(1)), length.clone()),
            _ => return None,
        },
        _ => return None,
    };
    let column = def.columns.get(c)?;
    if !pushable(column.ty) {
        return None;
    }
    if column.collation != compared_as {
        // The data node's LIKE runs under the column's collation, which may keep less.
        return None;
    }
    let one_weight_each = !matches!(
        column.collation,
        base::Collation::Utf8mb4UnicodeCi
            | base::Collation::Utf8mb3UnicodeCi
            | base::Collation::Utf8mb4Unicode520Ci
            | base::Collation::Utf8mb3Unicode520Ci
    );
    let all_free = free(&start) && free(&length) && list.iter().all(free);
    // Constants known now that could never push leave it out of the plan (and EXPLAIN).
    let may_fit = |v: &Expr| match crate::expr::string_const(v) {
        Some(b) => prefix_literal(b),
        None => matches!(v, Expr::Param(_)),
    };
    let starts_at_one = !matches!(&start, Expr::Const(v) if *v != Value::Int(1));
    if !column.ty.is_string()
        || !one_weight_each
        || !all_free
        || list.is_empty()
        || !starts_at_one
        || !list.iter().all(may_fit)
    {
        return None;
    }
    // (Its size is held to the pushed ORs' budget in `Facts::gather`.)
    Some(Pushed::Prefixes {
        column: c as u16,
        start,
        length,
        values: list.to_vec(),
    })
}

/// Whether `b` may stand before a LIKE's `%` as a prefix `SUBSTRING(col, 1, n) = b` implies:
/// one or more ASCII letters or digits (no wildcard, no character a collation weighs apart).
pub(crate) fn prefix_literal(b: &[u8]) -> bool {
    !b.is_empty() && b.iter().all(u8::is_ascii_alphanumeric)
}

/// Whether bare condition `part` (no collation around it: compared as utf8mb4_general_ci)
/// has a string column of another collation as an operand.
fn foreign_collation(part: &Expr, def: &base::TableDef) -> bool {
    let foreign = |e: &Expr| match e {
        Expr::Column(c) => def.columns.get(*c).is_some_and(|col| {
            col.ty.is_string()
                && !matches!(
                    col.collation,
                    base::Collation::Utf8mb4GeneralCi | base::Collation::Binary
                )
        }),
        _ => false,
    };
    match part {
        Expr::Binary(op, l, r) if *op != BinOp::Or && *op != BinOp::And => foreign(l) || foreign(r),
        Expr::Between(x, lo, hi, _) => foreign(x) || foreign(lo) || foreign(hi),
        Expr::In(x, list, _) => foreign(x) || list.iter().any(foreign),
        Expr::Like(x, p, _) => foreign(x) || foreign(p),
        _ => false,
    }
}

/// What the WHERE clause says about each column, for choosing an access path.
#[derive(Default)]
struct Facts {
    equal: Vec<(usize, Expr)>,
    in_list: Vec<(usize, Vec<Expr>)>,
    lower: Vec<(usize, Expr)>,
    upper: Vec<(usize, Expr)>,
    /// Conjuncts that gave none of the facts above (for estimates).
    others: Vec<Expr>,
}

impl Facts {
    /// The facts, the pushed conditions, and whether every conjunct was pushed.
    fn gather(filter: Option<&Expr>, def: &base::TableDef) -> (Facts, Vec<Pushed>, bool) {
        let mut facts = Facts::default();
        let mut pushed = Vec::new();
        let mut parts = Vec::new();
        if let Some(f) = filter {
            conjuncts(f, &mut parts);
        }
        let free = |e: &Expr| e.is_row_free();
        let collation_of = |p: usize| def.columns.get(p).and_then(crate::expr::collate::of_column);
        for part in &parts {
            let facts_before = facts.count();
            let pushed_before = pushed.len();
            let seen = look_through(part, collation_of);
            // A comparison left bare runs under utf8mb4_general_ci: a string column of another
            // collation (`a = 'x' COLLATE utf8mb4_general_ci` on a _bin column) is not compared
            // as the data node would compare it, so it gives no fact and is not pushed.
            if !std::ptr::eq(seen, part) || !foreign_collation(part, def) {
                facts.gather_one(seen, &mut pushed, &free);
            }
            if facts.count() == facts_before {
                facts.others.push(part.clone());
            }
            if pushed.len() == pushed_before {
                pushed.extend(prefix_like(part, def, &free));
            }
        }
        // The data node's filter program is bounded: ORs past the budget stay in the API node.
        let mut budget = PUSHED_OR_NODES_MAX;
        pushed.retain(|p| match p {
            Pushed::Any(_) | Pushed::Prefixes { .. } => {
                let n = pushed_size(p);
                let fits = n <= budget;
                budget = budget.saturating_sub(n);
                fits
            }
            _ => true,
        });
        let all = pushed.len() == parts.len();
        (facts, pushed, all)
    }

    /// The facts gathered so far.
    fn count(&self) -> usize {
        self.equal.len() + self.in_list.len() + self.lower.len() + self.upper.len()
    }

    /// The fact and pushed condition of one conjunct, if it gives any.
    fn gather_one(&mut self, part: &Expr, pushed: &mut Vec<Pushed>, free: &dyn Fn(&Expr) -> bool) {
        let facts = self;
        match part {
            Expr::Binary(BinOp::Or, ..) => {
                let mut branches = Vec::new();
                disjuncts(part, &mut branches);
                let mut any = Vec::with_capacity(branches.len());
                for b in &branches {
                    let mut parts = Vec::new();
                    conjuncts(b, &mut parts);
                    let mut branch = Facts::default();
                    let mut conditions = Vec::new();
                    for p in &parts {
                        branch.gather_one(p, &mut conditions, free);
                    }
                    if conditions.is_empty() {
                        // A branch nothing narrows: the OR narrows nothing either.
                        return;
                    }
                    any.push(conditions);
                }
                let or = Pushed::Any(any);
                // The data node refuses large filter programs; a wide OR stays in the API
                // node (leaving it out only widens the pushed filter).
                if pushed_size(&or) <= PUSHED_OR_NODES_MAX {
                    pushed.push(or);
                }
            }
            Expr::Binary(op, l, r) => {
                let (col, value, op) = match (l.as_ref(), r.as_ref()) {
                    (Expr::Column(c), v) if free(v) => (*c, v, *op),
                    (v, Expr::Column(c)) if free(v) => (*c, v, flip(*op)),
                    _ => return,
                };
                let cmp = match op {
                    BinOp::Eq => {
                        facts.equal.push((col, value.clone()));
                        CmpOp::Eq
                    }
                    BinOp::Ne => CmpOp::Ne,
                    BinOp::Lt | BinOp::Le => {
                        facts.upper.push((col, value.clone()));
                        if op == BinOp::Lt {
                            CmpOp::Lt
                        } else {
                            CmpOp::Le
                        }
                    }
                    BinOp::Gt | BinOp::Ge => {
                        facts.lower.push((col, value.clone()));
                        if op == BinOp::Gt {
                            CmpOp::Gt
                        } else {
                            CmpOp::Ge
                        }
                    }
                    _ => return,
                };
                pushed.push(Pushed::Cmp(col as u16, cmp, value.clone()));
            }
            Expr::Between(e, lo, hi, false) => {
                if let (Expr::Column(c), true, true) = (e.as_ref(), free(lo), free(hi)) {
                    facts.lower.push((*c, (**lo).clone()));
                    facts.upper.push((*c, (**hi).clone()));
                    pushed.push(Pushed::Between(*c as u16, (**lo).clone(), (**hi).clone()));
                }
            }
            Expr::In(e, list, false) => {
                if let Expr::Column(c) = e.as_ref() {
                    if list.iter().all(free) {
                        facts.in_list.push((*c, list.clone()));
                        pushed.push(Pushed::In(*c as u16, list.clone()));
                    }
                }
            }
            Expr::Like(e, p, false) => {
                if let (Expr::Column(c), true) = (e.as_ref(), free(p)) {
                    pushed.push(Pushed::Like(*c as u16, (**p).clone()));
                }
            }
            Expr::IsNull(e, negated) => {
                if let Expr::Column(c) = e.as_ref() {
                    pushed.push(Pushed::IsNull(*c as u16, *negated));
                }
            }
            _ => {}
        }
    }

    fn equal(&self, col: u16) -> Option<&Expr> {
        self.equal
            .iter()
            .find(|(c, _)| *c == col as usize)
            .map(|(_, e)| e)
    }

    fn in_list(&self, col: u16) -> Option<&Vec<Expr>> {
        self.in_list
            .iter()
            .find(|(c, _)| *c == col as usize)
            .map(|(_, e)| e)
    }

    /// Keys covering `columns` by equalities and at most one IN list (at most `max` keys).
    fn keys(&self, columns: &[u16]) -> Option<Vec<Vec<Expr>>> {
        let mut keys: Vec<Vec<Expr>> = vec![Vec::new()];
        let mut used_in = false;
        for c in columns {
            if let Some(e) = self.equal(*c) {
                keys.iter_mut().for_each(|k| k.push(e.clone()));
            } else if let (Some(list), false) = (self.in_list(*c), used_in) {
                if list.len() > base::limits::BATCH_OPERATIONS_MAX {
                    return None;
                }
                used_in = true;
                keys = keys
                    .into_iter()
                    .flat_map(|k| {
                        list.iter().map(move |v| {
                            let mut k = k.clone();
                            k.push(v.clone());
                            k
                        })
                    })
                    .collect();
            } else {
                return None;
            }
        }
        Some(keys)
    }
}

fn flip(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        other => other,
    }
}

/// The columns of the key a lookup reads: the primary key (`unique` None) or unique index n.
pub(crate) fn key_columns(def: &base::TableDef, unique: Option<u16>) -> &[u16] {
    match unique {
        None => &def.primary_key,
        Some(i) => def.indexes.get(i as usize).map_or(&[], |x| &x.columns),
    }
}

/// A table reference: (database, table, the name columns may be qualified with).
pub type TableRef = (String, String, String);

/// Everything planning needs from the session.
pub struct PlanInput<'a> {
    pub sql: &'a str,
    pub placeholders: &'a [Location],
    /// The common table expressions in scope (of enclosing WITH clauses), innermost last.
    pub ctes: Vec<Arc<Cte>>,
    /// The statement's tokens, made when a select item is first named by its text (None
    /// inside: the text does not tokenize).
    pub source: std::cell::OnceCell<Option<SourceIndex>>,
}

impl<'a> PlanInput<'a> {
    pub fn new(sql: &'a str, placeholders: &'a [Location]) -> PlanInput<'a> {
        PlanInput {
            sql,
            placeholders,
            ctes: Vec::new(),
            source: std::cell::OnceCell::new(),
        }
    }
}

/// A planned query: a SELECT, or a set operation (UNION, INTERSECT, EXCEPT) of queries.
#[derive(Debug, Clone)]
pub enum QueryPlan {
    Select(Box<SelectPlan>),
    Set(Box<SetPlan>),
}

impl QueryPlan {
    /// The result's columns.
    pub fn columns(&self) -> &[Column] {
        match self {
            QueryPlan::Select(p) => &p.columns,
            QueryPlan::Set(p) => &p.columns,
        }
    }
}

/// Plans a query: a SELECT, or any other body (set operations, a parenthesized query) as a
/// set operation.
pub(crate) fn query(
    input: &PlanInput,
    q: &ast::Query,
    resolve: &dyn Fn(&ast::ObjectName) -> Result<(Table, TableRef)>,
) -> Result<QueryPlan> {
    Ok(match q.body.as_ref() {
        SetExpr::Select(_) => QueryPlan::Select(Box::new(select(input, q, resolve)?)),
        _ => QueryPlan::Set(Box::new(crate::plan::setop::plan(input, q, resolve)?)),
    })
}

/// Builds the source of a single-table statement; `exprs` are compiled against it first (they
/// decide which columns are fetched), then remapped to fetched positions.
#[allow(clippy::too_many_arguments)]
pub(crate) fn source(
    table: Table,
    tref: &TableRef,
    filter: Option<Expr>,
    lock: LockMode,
    need_primary_key: bool,
    exprs: &mut [&mut Expr],
    keys: &mut [&mut OrderKey],
    extra: &[u16],
) -> Source {
    let def = table.def().clone();
    let (facts, pushed, all_pushed) = Facts::gather(filter.as_ref(), &def);
    let access = access::choose_access(&table, &facts);
    let estimate = crate::plan::estimate::estimate(&table, &access, &facts);
    let pushed_decides = all_pushed
        && pushed.iter().all(|p| {
            let column = |c: &u16| def.columns[*c as usize].ty.is_integer();
            match p {
                Pushed::Cmp(c, ..) | Pushed::Between(c, ..) | Pushed::In(c, _) => column(c),
                Pushed::IsNull(..) => true,
                Pushed::Like(..) | Pushed::Any(_) | Pushed::Prefixes { .. } => false,
            }
        });
    let decides = lookup_decides(filter.as_ref(), &def, &access);
    let mut used = vec![false; def.columns.len()];
    {
        let mut mark = |p: usize| {
            if let Some(u) = used.get_mut(p) {
                *u = true;
            }
        };
        for e in exprs.iter() {
            e.columns(&mut mark);
        }
        for k in keys.iter() {
            if let OrderKey::Expr(e) = k {
                e.columns(&mut mark);
            }
        }
        for c in extra {
            mark(*c as usize);
        }
    }
    if need_primary_key {
        for c in &def.primary_key {
            used[*c as usize] = true;
        }
    }
    // The columns only the WHERE reads: last, so that a lookup which decides it may leave
    // them out and keep every other column's position.
    let mut only_filter = vec![false; def.columns.len()];
    if let Some(f) = &filter {
        f.columns(&mut |p: usize| {
            if let (Some(false), Some(o)) = (used.get(p), only_filter.get_mut(p)) {
                *o = true;
            }
        });
    }
    if used.iter().chain(&only_filter).all(|u| !u) {
        for c in &def.primary_key {
            used[*c as usize] = true;
        }
    }
    let mut fetch: Vec<u16> = (0..def.columns.len() as u16)
        .filter(|c| used[*c as usize])
        .collect();
    let read = fetch.len();
    fetch.extend((0..def.columns.len() as u16).filter(|c| only_filter[*c as usize]));
    if !decides {
        fetch.sort_unstable();
    }
    let decided_fetch = decides.then_some(read.max(1));
    let mut position = vec![usize::MAX; def.columns.len()];
    for (i, c) in fetch.iter().enumerate() {
        position[*c as usize] = i;
    }
    let map = |p: usize| position[p];
    for e in exprs.iter_mut() {
        e.remap(&map);
    }
    for k in keys.iter_mut() {
        if let OrderKey::Expr(e) = k {
            e.remap(&map);
        }
    }
    let filter = filter.map(|mut f| {
        f.remap(&map);
        // Its facts are read: long integer IN lists may now be searched by halves.
        crate::expr::integer_in_lists(f)
    });
    Source {
        table,
        name: tref.1.clone(),
        access,
        pushed,
        filter,
        pushed_decides,
        fetch,
        decided_fetch,
        lock,
        estimate,
        derived: None,
    }
}

/// Whether every row a key lookup finds satisfies the WHERE: each conjunct is an equality (or
/// an IN list) on its own column of the key, against a constant or a parameter, compared as
/// the column compares (in its collation; an integer or string column). Whether the values
/// are of the column's kind is known only when it runs (`Resolved::Keys`).
fn lookup_decides(filter: Option<&Expr>, def: &base::TableDef, access: &Access) -> bool {
    let (Access::Lookup { unique, .. }, Some(filter)) = (access, filter) else {
        return false;
    };
    let key = match unique {
        None => &def.primary_key,
        Some((i, _)) => match def.indexes.get(*i as usize) {
            Some(index) => &index.columns,
            None => return false,
        },
    };
    let mut parts = Vec::new();
    conjuncts(filter, &mut parts);
    if parts.len() != key.len() {
        return false;
    }
    let plain = |e: &Expr| {
        matches!(e, Expr::Const(_) | Expr::Param(_)) || crate::expr::string_const(e).is_some()
    };
    let collation_of = |p: usize| def.columns.get(p).and_then(crate::expr::collate::of_column);
    let mut seen: Vec<usize> = Vec::with_capacity(key.len());
    for part in &parts {
        let column = match look_through(part, collation_of) {
            Expr::Binary(BinOp::Eq, l, r) => match (l.as_ref(), r.as_ref()) {
                (Expr::Column(c), v) | (v, Expr::Column(c)) if plain(v) => *c,
                _ => return false,
            },
            Expr::In(e, list, false) if list.iter().all(plain) => match e.as_ref() {
                Expr::Column(c) => *c,
                _ => return false,
            },
            _ => return false,
        };
        let kind = def
            .columns
            .get(column)
            .is_some_and(|c| !c.json && (c.ty.is_integer() || c.ty.is_string()));
        if !kind || seen.contains(&column) || !key.iter().any(|k| *k as usize == column) {
            return false;
        }
        seen.push(column);
    }
    true
}

/// A LIMIT or OFFSET: a literal or a `?`.
fn count_expr(c: &mut Compiler, e: &Ast) -> Result<Expr> {
    let compiled = c.compile(e)?;
    match &compiled {
        Expr::Param(_) => Ok(compiled),
        Expr::Const(Value::Int(i)) if *i >= 0 => Ok(compiled),
        Expr::Const(Value::UInt(_)) => Ok(compiled),
        _ => Err(SqlError::parse(format!("near '{e}': LIMIT takes a count"))),
    }
}

pub(crate) fn limits(
    c: &mut Compiler,
    clause: &Option<ast::LimitClause>,
) -> Result<(Option<Expr>, Option<Expr>)> {
    Ok(match clause {
        None => (None, None),
        Some(ast::LimitClause::LimitOffset {
            limit,
            offset,
            limit_by,
        }) => {
            if !limit_by.is_empty() {
                return Err(SqlError::unsupported("LIMIT BY"));
            }
            let l = limit.as_ref().map(|e| count_expr(c, e)).transpose()?;
            let o = offset
                .as_ref()
                .map(|o| count_expr(c, &o.value))
                .transpose()?;
            (l, o)
        }
        Some(ast::LimitClause::OffsetCommaLimit { offset, limit }) => {
            let o = count_expr(c, offset)?;
            let l = count_expr(c, limit)?;
            (Some(l), Some(o))
        }
    })
}

/// The select item an ORDER BY or GROUP BY term names, by position (`1`) or by alias.
pub(crate) fn named_item(
    e: &Ast,
    items: &[(String, Option<String>)],
    clause: &str,
) -> Result<Option<usize>> {
    match e {
        Ast::Value(v) if matches!(v.value, ast::Value::Number(..)) => {
            let n: usize = v.value.to_string().parse().unwrap_or(0);
            if n == 0 || n > items.len() {
                return Err(SqlError::new(
                    1054,
                    "42S22",
                    format!("Unknown column '{}' in '{clause}'", v.value),
                ));
            }
            Ok(Some(n - 1))
        }
        Ast::Identifier(i) => Ok(items.iter().position(|(_, a)| {
            a.as_deref()
                .is_some_and(|a| a.eq_ignore_ascii_case(&i.value))
        })),
        _ => Ok(None),
    }
}

pub(crate) fn order_by(
    c: &mut Compiler,
    items: &[(String, Option<String>)],
    item_exprs: &[Expr],
    exprs: &[ast::OrderByExpr],
) -> Result<Vec<(OrderKey, bool, Collation)>> {
    let mut out = Vec::new();
    for o in exprs {
        let desc = matches!(o.options.sort, Some(ast::OrderBySort::Desc));
        // An ENUM or SET sorts by its number, as in MySQL.
        let (key, collation) = match named_item(&o.expr, items, "order clause")? {
            Some(n) if matches!(item_exprs[n], Expr::Members { .. }) => (
                OrderKey::Expr(item_exprs[n].clone().numbered()),
                Collation::Binary,
            ),
            Some(n) => (OrderKey::Item(n), c.sort_collation(&item_exprs[n])?),
            None => {
                c.place = "order clause";
                c.item_aliases = crate::expr::ItemAlias::of(items, item_exprs, c);
                let e = c.compile(&o.expr);
                c.item_aliases.clear();
                let e = e?;
                if matches!(e, Expr::Members { .. }) {
                    (OrderKey::Expr(e.numbered()), Collation::Binary)
                } else {
                    let collation = c.sort_collation(&e)?;
                    (OrderKey::Expr(e), collation)
                }
            }
        };
        out.push((key, desc, collation));
    }
    Ok(out)
}

/// Whether a SELECT calls a function that may wait.
pub(crate) fn calls_waiting(plan: &SelectPlan) -> bool {
    let mut found = false;
    let mut look = |e: &Expr| e.walk(&mut |x| found |= matches!(x, Expr::Call(f, _) if f.waits()));
    plan.items.iter().for_each(&mut look);
    plan.group_by.iter().for_each(&mut look);
    plan.aggregates
        .iter()
        .flat_map(|a| a.exprs())
        .for_each(&mut look);
    plan.having.iter().for_each(&mut look);
    plan.limit.iter().chain(&plan.offset).for_each(&mut look);
    if let Some(f) = plan.source.as_ref().and_then(|s| s.filter.as_ref()) {
        look(f);
    }
    found
}

/// The last part of a name (`t` of `db.t`).
pub(crate) fn ident_last(n: &ast::ObjectName) -> String {
    n.0.last()
        .and_then(|p| p.as_ident())
        .map(|i| i.value.clone())
        .unwrap_or_default()
}

/// The one table an UPDATE or DELETE writes: a named table (MariaDB refuses a derived one:
/// `UPDATE (SELECT ...) t` is 1288, `DELETE FROM (SELECT ...) t` a syntax error).
fn single_table(
    from: &[ast::TableWithJoins],
    input: &PlanInput,
    statement: &str,
    resolve: &dyn Fn(&ast::ObjectName) -> Result<(Table, TableRef)>,
) -> Result<(Table, TableRef)> {
    let [one] = from else {
        return Err(SqlError::unsupported(format!("multi-table {statement}")));
    };
    if !one.joins.is_empty() {
        return Err(SqlError::unsupported(format!("multi-table {statement}")));
    }
    let r = relation(&one.relation, input, resolve)?;
    if r.derived.is_none() {
        return Ok((r.table, r.tref));
    }
    Err(if statement == "UPDATE" {
        SqlError::new(
            1288,
            "HY000",
            format!(
                "The target table {} of the UPDATE is not updatable",
                r.tref.2
            ),
        )
    } else {
        SqlError::parse(format!("{statement} from a derived table"))
    })
}

/// A table of a FROM clause as planning sees it.
pub(crate) struct Relation {
    pub(crate) table: Table,
    pub(crate) tref: TableRef,
    /// A derived table or common table expression: the query its rows come from.
    pub(crate) derived: Option<Arc<Derived>>,
}

/// A named table (with its alias, if any), a common table expression in scope, or a derived
/// table `(SELECT ...) AS alias`.
pub(crate) fn relation(
    factor: &ast::TableFactor,
    input: &PlanInput,
    resolve: &dyn Fn(&ast::ObjectName) -> Result<(Table, TableRef)>,
) -> Result<Relation> {
    match factor {
        ast::TableFactor::Table {
            name,
            alias,
            args: None,
            ..
        } => {
            if alias.as_ref().is_some_and(|a| !a.columns.is_empty()) {
                // MariaDB's grammar has column lists only after a derived table's alias.
                return Err(SqlError::parse(format!("near '{factor}'")));
            }
            let alias = alias.as_ref().map(|a| a.name.value.clone());
            if let Some(cte) = crate::plan::derived::cte(input, name) {
                return Ok(Relation {
                    table: cte.table.clone(),
                    tref: (
                        String::new(),
                        cte.name.clone(),
                        alias.unwrap_or_else(|| cte.name.clone()),
                    ),
                    derived: Some(cte.derived.clone()),
                });
            }
            let (table, mut tref) = resolve(name)?;
            if let Some(a) = alias {
                tref.2 = a;
            }
            Ok(Relation {
                table,
                tref,
                derived: None,
            })
        }
        ast::TableFactor::Derived {
            lateral: false,
            subquery,
            alias,
            sample: None,
        } => {
            let Some(alias) = alias else {
                return Err(crate::plan::derived::no_alias());
            };
            let name = alias.name.value.clone();
            let (table, derived) =
                crate::plan::derived::plan(input, subquery, &name, &alias.columns, resolve)?;
            Ok(Relation {
                table,
                tref: (String::new(), name.clone(), name),
                derived: Some(derived),
            })
        }
        other => Err(SqlError::unsupported(format!("FROM {other}"))),
    }
}

pub fn update(
    input: &PlanInput,
    u: &ast::Update,
    resolve: &dyn Fn(&ast::ObjectName) -> Result<(Table, TableRef)>,
) -> Result<UpdatePlan> {
    let ignore = match u.or {
        None => false,
        Some(ast::SqliteOnConflict::Ignore) => true,
        Some(_) => return Err(SqlError::unsupported("UPDATE OR ...")),
    };
    if u.from.is_some() || u.returning.is_some() {
        return Err(SqlError::unsupported("UPDATE ... FROM or RETURNING"));
    }
    let (table, tref) = single_table(std::slice::from_ref(&u.table), input, "UPDATE", resolve)?;
    let def = table.def().clone();
    let scope = Scope {
        def: &def,
        name: &tref.2,
        database: &tref.0,
        offset: 0,
    };
    let mut c = Compiler::new(Some(scope), input.placeholders);
    let mut assignments = Vec::new();
    for a in &u.assignments {
        let ast::AssignmentTarget::ColumnName(name) = &a.target else {
            return Err(SqlError::unsupported("tuple assignment"));
        };
        let column = name
            .0
            .last()
            .and_then(|p| p.as_ident())
            .map(|i| i.value.clone())
            .unwrap_or_default();
        let p = def
            .column(&column)
            .filter(|p| !def.columns[*p].hidden)
            .ok_or_else(|| SqlError::unknown_column(&column, "field list"))?;
        let default = matches!(&a.value, Ast::Identifier(i)
            if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("default"));
        if def.columns[p].generated.is_some() {
            // Computed from the row as written (`exec/generated.rs`): DEFAULT (or NULL, as
            // MariaDB takes it) is what it gets.
            let null = matches!(&a.value, Ast::Value(v) if v.value == ast::Value::Null);
            if default || null || ignore {
                continue;
            }
            return Err(SqlError::generated_value_ignored(&tref.1, &column));
        }
        let e = match &a.value {
            _ if default => default_of(&def.columns[p])?,
            e => c.compile(e)?,
        };
        assignments.push((p as u16, e));
    }
    c.place = "where clause";
    let filter = u.selection.as_ref().map(|w| c.compile(w)).transpose()?;
    let mut order = order_by(&mut c, &[], &[], &u.order_by)?;
    let limit = u
        .limit
        .as_ref()
        .map(|l| count_expr(&mut c, l))
        .transpose()?;
    let mut exprs: Vec<&mut Expr> = assignments.iter_mut().map(|(_, e)| e).collect();
    let mut keys: Vec<&mut OrderKey> = order.iter_mut().map(|(k, ..)| k).collect();
    // Every column is fetched: the update compares old and new values.
    let every: Vec<u16> = (0..def.columns.len() as u16).collect();
    let source = source(
        table,
        &tref,
        filter,
        LockMode::Exclusive,
        true,
        &mut exprs,
        &mut keys,
        &every,
    );
    Ok(UpdatePlan {
        source,
        assignments,
        order,
        limit,
        ignore,
    })
}

/// `SET column = DEFAULT`: the column's default value, the statement's time for a DEFAULT
/// CURRENT_TIMESTAMP, NULL for a nullable column without one; MariaDB's 1364 for a NOT NULL
/// column without one.
fn default_of(column: &base::schema::ColumnDef) -> Result<Expr> {
    if let Some(fsp) = column.default_now {
        return Ok(Expr::Call(
            crate::expr::funcs::Func::Temporal(crate::expr::temporal::Temporal::Now),
            vec![Expr::Const(Value::Int(i64::from(fsp)))],
        ));
    }
    match &column.default {
        Some(v) => Ok(Expr::Const(v.clone())),
        None if column.nullable || column.auto_increment => Ok(Expr::Const(Value::Null)),
        None => Err(SqlError::new(
            1364,
            "HY000",
            format!("Field '{}' doesn't have a default value", column.name),
        )),
    }
}

pub fn delete(
    input: &PlanInput,
    d: &ast::Delete,
    resolve: &dyn Fn(&ast::ObjectName) -> Result<(Table, TableRef)>,
) -> Result<DeletePlan> {
    if !d.tables.is_empty() || d.using.is_some() || d.returning.is_some() {
        return Err(SqlError::unsupported("multi-table DELETE"));
    }
    let from = match &d.from {
        ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f) => f,
    };
    let (table, tref) = single_table(from, input, "DELETE", resolve)?;
    let def = table.def().clone();
    let scope = Scope {
        def: &def,
        name: &tref.2,
        database: &tref.0,
        offset: 0,
    };
    let mut c = Compiler::new(Some(scope), input.placeholders);
    c.place = "where clause";
    let filter = d.selection.as_ref().map(|w| c.compile(w)).transpose()?;
    let mut order = order_by(&mut c, &[], &[], &d.order_by)?;
    let limit = d
        .limit
        .as_ref()
        .map(|l| count_expr(&mut c, l))
        .transpose()?;
    let mut keys: Vec<&mut OrderKey> = order.iter_mut().map(|(k, ..)| k).collect();
    // Every column a key holds is fetched: a foreign key may reference any of them, and its
    // enforcement finds the children by the deleted rows' values (`exec/foreign.rs`).
    let mut keyed: Vec<u16> = def.indexes.iter().flat_map(|i| i.columns.clone()).collect();
    keyed.sort_unstable();
    keyed.dedup();
    let source = source(
        table,
        &tref,
        filter,
        LockMode::Exclusive,
        true,
        &mut [],
        &mut keys,
        &keyed,
    );
    Ok(DeletePlan {
        source,
        order,
        limit,
    })
}

/// True for column types whose values a pushed comparison may hold exactly, and that the data
/// node reads (not MEDIUM/LONG TEXT and BLOB, whose values may be kept in parts, as NDB pushes
/// no condition on a BLOB or TEXT).
pub fn pushable(ty: ColumnType) -> bool {
    !matches!(ty, ColumnType::Float | ColumnType::Double) && !base::lob::holds_parts(ty)
}

/// A plan's note that its result was large (`SelectPlan::large`); set through a shared
/// reference by whoever runs the plan, kept by the caches that hold it.
#[derive(Debug, Default)]
pub struct Large(std::sync::atomic::AtomicBool);

impl Large {
    pub(crate) fn get(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub(crate) fn set(&self, large: bool) {
        self.0.store(large, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Clone for Large {
    fn clone(&self) -> Large {
        Large(std::sync::atomic::AtomicBool::new(self.get()))
    }
}

/// Which virtual table a source reads, if it reads one.
pub(crate) fn virtual_of(src: &Source) -> Option<Virtual> {
    let def = src.table.def();
    if def.id != 0 {
        return None;
    }
    let name = def.name.strip_prefix(NAME)?.strip_prefix('/')?;
    Virtual::ALL.iter().copied().find(|v| v.name() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A location's byte offset the slow way: walking the text from its start.
    fn walked(sql: &str, l: Location) -> usize {
        let mut line_start = 0;
        for _ in 1..l.line {
            line_start += sql[line_start..].find('\n').unwrap() + 1;
        }
        let line = &sql[line_start..];
        let line = &line[..line.find('\n').map_or(line.len(), |n| n + 1)];
        line_start
            + line
                .char_indices()
                .nth(l.column as usize - 1)
                .map_or(line.len(), |(i, _)| i)
    }

    #[test]
    fn locations_become_the_offsets_a_walk_finds() {
        let long: String = (0..700)
            .map(|i| if i % 3 == 0 { 'é' } else { 'x' })
            .collect();
        let sql = format!("SELECT 1,\n  'ü€😀', {long}\nFROM t\n");
        let lines = Lines::new(&sql);
        for (line, text) in sql.split_inclusive('\n').enumerate() {
            for column in 1..=text.chars().count() as u64 + 1 {
                let l = Location::new(line as u64 + 1, column);
                assert_eq!(lines.offset(&sql, l), Some(walked(&sql, l)), "{l:?}");
            }
        }
    }
}
