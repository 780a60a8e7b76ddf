//! Join planning: the tables of a FROM clause and the order they are read in, and for each
//! table after the first how its rows are found for the rows joined so far (keyed reads computed
//! from them, batched, or one read of the table) and which of them match. A derived table or
//! common table expression joins like any table read once: its rows exist only in the API node.

use std::sync::Arc;

use client::{LockMode, Table};
use sqlparser::ast::{self, Expr as Ast};

use crate::expr::{BinOp, Expr};
use crate::foundation::error::SqlError;
use crate::plan::derived::Derived;
use crate::plan::{
    conjuncts, relation as relation_of, source, Access, PlanInput, Source, TableRef,
};

type Result<T> = std::result::Result<T, SqlError>;

/// One table of a join after the first one read: how its rows are found for the joined rows
/// so far, and which of them match.
#[derive(Debug, Clone)]
pub struct JoinStep {
    /// The table with its own conditions only: read once, joined in the API node, when `lookup`
    /// is None or a joined row's key cannot be an exact key value.
    pub source: Source,
    /// Keyed reads (primary key, or unique index n) for keys computed from each joined row:
    /// the keys of all rows go out together, in batches.
    pub lookup: Option<(Option<u16>, Vec<Vec<Expr>>)>,
    /// Read through an ordered index whose first column the join binds (when `lookup` is
    /// None): per batch of joined rows, one index scan over their key values' range with the
    /// values pushed as an IN filter, hash-joined in the API node by `equal`.
    pub probe: Option<IndexProbe>,
    /// Hash-join pairs for a source read once: (its column, in the joined row; the value it must
    /// equal, over the joined row).
    pub equal: Vec<(usize, Expr)>,
    /// Where its columns start in the joined row.
    pub offset: usize,
    /// LEFT JOIN: a joined row without a match goes on with NULLs for this table.
    pub outer: bool,
    /// What a match must satisfy, over the joined row.
    pub on: Option<Expr>,
    /// The rows read and kept per joined row (keyed reads, index probe) or in all (read once),
    /// when the table was analyzed.
    pub estimate: Option<crate::plan::estimate::Estimate>,
    /// The first table of a group of a nested join: the joined rows before it are kept, to
    /// NULL-fill those the group does not match.
    pub group_start: bool,
    /// The last table of a group: what completes it.
    pub group_end: Option<StepGroup>,
}

/// The most distinct values an index probe reads by (more: the table is read once and
/// hash-joined, which then costs about as much); fewer when the table's statistics say a
/// quarter of its rows would be probed.
pub(crate) const PROBE_VALUES_MAX: usize = 262_144;

/// The most distinct values an index probe of `table` reads by: [`PROBE_VALUES_MAX`], or a
/// quarter of the table's rows by its statistics (at least 1,024).
pub(crate) fn probe_values_max(table: &Table) -> usize {
    table.stats().map_or(PROBE_VALUES_MAX, |s| {
        usize::try_from(s.rows / 4)
            .unwrap_or(usize::MAX)
            .clamp(1_024, PROBE_VALUES_MAX)
    })
}

/// The most values one probe scan reads by (its keys, a batch of NDB's batched key access).
pub(crate) const PROBE_KEYS_PER_SCAN: usize = 2_048;

/// The most probe scans one statement keeps open at once (a connection holds at most
/// `base::limits::SCANS_OPEN_PER_CONNECTION_MAX`, shared with other sessions).
pub(crate) const PROBE_SCANS_IN_FLIGHT: usize = 8;

/// An ordered index a join step reads by the joined rows' values of its first column.
#[derive(Debug, Clone)]
pub struct IndexProbe {
    pub index: String,
    /// The index's first column (an integer column), in the table.
    pub column: u16,
    /// The value that column must equal, over the joined row.
    pub key: Expr,
}

/// A SELECT over several tables: the plan's `source` is read first (into its place in the joined
/// row), then each step in turn; the WHERE is applied to the complete rows.
#[derive(Debug, Clone)]
pub struct Joined {
    pub first_offset: usize,
    pub width: usize,
    pub steps: Vec<JoinStep>,
    pub filter: Option<Expr>,
    /// The first steps a pushed join reads with the first table (`plan/pushed.rs`), one each.
    pub pushed: Vec<crate::plan::pushed::PushedChild>,
    /// What of `filter` the API node still checks after a pushed join's exact reads.
    pub pushed_filter: Option<Expr>,
}

impl Joined {
    /// The WHERE the API node checks over the joined rows: after a pushed join's exact reads,
    /// what they did not decide (`pushed_filter`); else all of it.
    pub(crate) fn rest(&self, exact: bool) -> Option<&Expr> {
        let correlated = self.filter.as_ref().is_some_and(Expr::has_correlated);
        if exact && !self.pushed.is_empty() && !correlated {
            self.pushed_filter.as_ref()
        } else {
            self.filter.as_ref()
        }
    }

    /// Whether the data node reads the whole join in one request (every step pushed), leaving
    /// the API node only checks without subqueries.
    pub(crate) fn fully_pushed(&self) -> bool {
        !self.pushed.is_empty()
            && self.pushed.len() == self.steps.len()
            && !self.filter.as_ref().is_some_and(Expr::has_correlated)
    }
}

/// A table of a FROM clause.
pub(crate) struct FromTable {
    pub(crate) table: Table,
    pub(crate) tref: TableRef,
    /// Joined by LEFT JOIN (or the left side of a RIGHT JOIN): its columns may be NULL-filled.
    pub(crate) outer: bool,
    /// Its join condition (ON, or USING's equalities).
    pub(crate) on: Option<Ast>,
    /// A derived table or common table expression: the query its rows come from.
    pub(crate) derived: Option<Arc<Derived>>,
    /// The columns its join names in USING (or NATURAL JOIN finds in common), which `*` shows
    /// once, first.
    pub(crate) using: Vec<String>,
    /// The first table of a comma-separated item of FROM: USING and NATURAL JOIN look back
    /// only to it (`a, b JOIN c USING (x)` joins b and c).
    pub(crate) item_start: bool,
    /// Joined by STRAIGHT_JOIN: the tables are read in the order written.
    pub(crate) straight: bool,
    /// In a group of a nested join (`x LEFT JOIN (b JOIN c ON ...) ON ...`): the index of the
    /// group's first table. The tables of a query with a group are read in the order written.
    pub(crate) group: Option<usize>,
    /// The last table of a group: how the group joins.
    pub(crate) group_end: Option<GroupEnd>,
    /// In a group a LEFT JOIN NULL-fills: its columns may be NULL though it is no outer table.
    pub(crate) null_filled: bool,
}

impl FromTable {
    /// Its columns may be NULL-filled (an outer table, or in a LEFT-joined group).
    pub(crate) fn nullable(&self) -> bool {
        self.outer || self.null_filled
    }
}

/// How a group of a nested join joins the tables before it, checked once its last table is
/// joined: its ON, and whether a row before it that no joined row of the group matches goes on
/// with NULLs for every table of the group (LEFT JOIN).
pub(crate) struct GroupEnd {
    pub(crate) outer: bool,
    pub(crate) on: Option<Ast>,
    /// `on` compiled over the joined row (by the SELECT's planning).
    pub(crate) compiled: Option<Expr>,
}

/// A join step that completes a group of a nested join (`GroupEnd`), as run.
#[derive(Debug, Clone)]
pub struct StepGroup {
    /// NULLs for the group's tables where no joined row of the group matched.
    pub outer: bool,
    /// The part of the group's ON its steps did not check, over the joined row.
    pub on: Option<Expr>,
    /// Where the group's tables' columns sit in the joined row (contiguous).
    pub columns: std::ops::Range<usize>,
}

/// The tables of a FROM clause in the order written, and the order they are read in (a RIGHT
/// JOIN of the first two tables reads its right table first).
pub(crate) fn from_tables(
    from: &[ast::TableWithJoins],
    input: &PlanInput,
    resolve: &dyn Fn(&ast::ObjectName) -> Result<(Table, TableRef)>,
) -> Result<(Vec<FromTable>, Vec<usize>)> {
    let mut tables: Vec<FromTable> = Vec::new();
    let mut swapped = false;
    for item in from {
        let item_at = tables.len();
        push_relation(&mut tables, &item.relation, true, input, resolve)?;
        for j in &item.joins {
            join_one(&mut tables, j, item_at, &mut swapped, input, resolve)?;
        }
    }
    for (n, t) in tables.iter().enumerate() {
        if tables[..n].iter().any(|o| o.tref.2 == t.tref.2) {
            return Err(SqlError::new(
                1066,
                "42000",
                format!("Not unique table/alias: '{}'", t.tref.2),
            ));
        }
    }
    if tables.len() > JOIN_TABLES_MAX {
        return Err(SqlError::new(
            1116,
            "HY000",
            format!("Too many tables; MariaDB can only use {JOIN_TABLES_MAX} tables in a join"),
        ));
    }
    let mut order: Vec<usize> = (0..tables.len()).collect();
    if swapped {
        order.swap(0, 1);
    }
    Ok((tables, order))
}

/// Adds `relation` (the first of an item of FROM, or of a nested join) to `tables`: a table, or
/// the tables of a nested join in its place, `(a JOIN b ON ...) JOIN c` being `a JOIN b ON ...
/// JOIN c` (joins group to the left).
fn push_relation(
    tables: &mut Vec<FromTable>,
    relation: &ast::TableFactor,
    item_start: bool,
    input: &PlanInput,
    resolve: &dyn Fn(&ast::ObjectName) -> Result<(Table, TableRef)>,
) -> Result<()> {
    if let ast::TableFactor::NestedJoin {
        table_with_joins,
        alias,
    } = relation
    {
        if alias.is_some() {
            return Err(SqlError::parse(format!("near '{relation}'")));
        }
        let at = tables.len();
        push_relation(
            tables,
            &table_with_joins.relation,
            item_start,
            input,
            resolve,
        )?;
        let mut swapped = false;
        for j in &table_with_joins.joins {
            join_one(tables, j, at, &mut swapped, input, resolve)?;
        }
        if swapped {
            return Err(SqlError::unsupported("RIGHT JOIN inside parentheses"));
        }
        return Ok(());
    }
    let r = relation_of(relation, input, resolve)?;
    tables.push(FromTable {
        table: r.table,
        tref: r.tref,
        outer: false,
        on: None,
        derived: r.derived,
        using: Vec::new(),
        item_start,
        straight: false,
        group: None,
        group_end: None,
        null_filled: false,
    });
    Ok(())
}

/// Joins `j` to `tables` (those from `item_at` on make the comma-separated item USING and
/// NATURAL JOIN look back to). A nested join on the right, `x JOIN (b JOIN c ON ...) ON ...`,
/// adds its tables in its place: under an inner join with inner joins only inside, the outer
/// ON joins the last one's; else they form a group ([`GroupEnd`]) whose ON is checked once all
/// of them are joined and which, under a LEFT JOIN, is NULL-filled as one.
fn join_one(
    tables: &mut Vec<FromTable>,
    j: &ast::Join,
    item_at: usize,
    swapped: &mut bool,
    input: &PlanInput,
    resolve: &dyn Fn(&ast::ObjectName) -> Result<(Table, TableRef)>,
) -> Result<()> {
    if let ast::TableFactor::NestedJoin { .. } = &j.relation {
        return join_nested(tables, j, input, resolve);
    }
    use ast::JoinOperator as J;
    let straight = matches!(j.join_operator, J::StraightJoin(_));
    let (outer, right, constraint) = match &j.join_operator {
        J::Join(c) | J::Inner(c) | J::CrossJoin(c) | J::StraightJoin(c) => (false, false, c),
        J::Left(c) | J::LeftOuter(c) => (true, false, c),
        J::Right(c) | J::RightOuter(c) => (true, true, c),
        _ => return Err(SqlError::unsupported("this kind of join")),
    };
    let crate::plan::Relation {
        table,
        tref,
        derived,
    } = relation_of(&j.relation, input, resolve)?;
    let (on, named) = join_condition(&tables[item_at..], constraint, &table, &tref)?;
    if outer && on.is_none() {
        return Err(SqlError::parse("an outer join needs ON or USING"));
    }
    let (outer, on) = if right {
        if tables.len() != 1 {
            return Err(SqlError::unsupported("RIGHT JOIN after other joins"));
        }
        // t1 RIGHT JOIN t2 is t2 LEFT JOIN t1: read t2 first.
        tables[0].outer = true;
        tables[0].on = on;
        *swapped = true;
        (false, None)
    } else {
        (outer, on)
    };
    tables.push(FromTable {
        table,
        tref,
        outer,
        on,
        derived,
        using: named,
        item_start: false,
        straight,
        group: None,
        group_end: None,
        null_filled: false,
    });
    Ok(())
}

/// A join's condition from its ON, USING or NATURAL over `tables` (those of its item of FROM
/// before it), and the columns USING names (or NATURAL JOIN shares).
fn join_condition(
    tables: &[FromTable],
    constraint: &ast::JoinConstraint,
    table: &Table,
    tref: &TableRef,
) -> Result<(Option<Ast>, Vec<String>)> {
    // NATURAL JOIN: USING the visible columns the right table shares with the tables
    // before it, in their order.
    let left: Vec<(usize, usize, String)> = result_columns(tables);
    let natural: Vec<String> = match constraint {
        ast::JoinConstraint::Natural => {
            let right_def = table.def();
            let mut common: Vec<String> = Vec::new();
            for (_, _, name) in &left {
                let shared = right_def
                    .column(name)
                    .is_some_and(|p| !right_def.columns[p].hidden);
                if shared && !common.iter().any(|n| n.eq_ignore_ascii_case(name)) {
                    common.push(name.clone());
                }
            }
            common
        }
        _ => Vec::new(),
    };
    let named: Vec<String> = match constraint {
        ast::JoinConstraint::Using(names) => names.iter().map(|n| n.to_string()).collect(),
        _ => natural,
    };
    let on = match constraint {
        ast::JoinConstraint::On(e) => Some(e.clone()),
        ast::JoinConstraint::None => None,
        // Nothing shared: a cross join (every pair matches, for a LEFT JOIN too).
        ast::JoinConstraint::Natural if named.is_empty() => {
            Some(Ast::Value(ast::Value::Boolean(true).into()))
        }
        ast::JoinConstraint::Using(_) | ast::JoinConstraint::Natural => {
            let mut on: Option<Ast> = None;
            for column in &named {
                let column = column.clone();
                let unknown = || {
                    SqlError::new(
                        1054,
                        "42S22",
                        format!("Unknown column '{column}' in 'FROM'"),
                    )
                };
                // The one column of that name the tables before show (coalesced by
                // their own USING); two are ambiguous, as in MariaDB.
                let mut sides = left
                    .iter()
                    .filter(|(_, _, n)| n.eq_ignore_ascii_case(&column));
                let (i, _, _) = sides.next().ok_or_else(unknown)?;
                if sides.next().is_some() {
                    return Err(SqlError::new(
                        1052,
                        "23000",
                        format!("Column '{column}' in FROM is ambiguous"),
                    ));
                }
                let left = &tables[*i];
                table
                    .def()
                    .column(&column)
                    .filter(|p| !table.def().columns[*p].hidden)
                    .ok_or_else(unknown)?;
                let side = |t: &str| {
                    Ast::CompoundIdentifier(vec![
                        ast::Ident::new(t),
                        ast::Ident::new(column.clone()),
                    ])
                };
                let eq = Ast::BinaryOp {
                    left: Box::new(side(&left.tref.2)),
                    op: ast::BinaryOperator::Eq,
                    right: Box::new(side(&tref.2)),
                };
                on = Some(match on {
                    None => eq,
                    Some(prev) => Ast::BinaryOp {
                        left: Box::new(prev),
                        op: ast::BinaryOperator::And,
                        right: Box::new(eq),
                    },
                });
            }
            on
        }
    };
    Ok((on, named))
}

/// [`join_one`] of a nested join on the right.
fn join_nested(
    tables: &mut Vec<FromTable>,
    j: &ast::Join,
    input: &PlanInput,
    resolve: &dyn Fn(&ast::ObjectName) -> Result<(Table, TableRef)>,
) -> Result<()> {
    use ast::JoinOperator as J;
    let (outer, constraint) = match &j.join_operator {
        J::Join(c) | J::Inner(c) | J::CrossJoin(c) => (false, c),
        J::Left(c) | J::LeftOuter(c) => (true, c),
        _ => return Err(SqlError::unsupported("this kind of join of a nested join")),
    };
    let on = match constraint {
        ast::JoinConstraint::On(e) => Some(e.clone()),
        ast::JoinConstraint::None if !outer => None,
        ast::JoinConstraint::None => {
            return Err(SqlError::parse("an outer join needs ON or USING"))
        }
        _ => {
            return Err(SqlError::unsupported(
                "USING or NATURAL JOIN of a nested join",
            ))
        }
    };
    let first = tables.len();
    push_relation(tables, &j.relation, false, input, resolve)?;
    let group = &mut tables[first..];
    if group.iter().any(|t| t.group.is_some()) {
        return Err(SqlError::unsupported(
            "a nested join inside a nested join's group",
        ));
    }
    if !outer && !group.iter().any(|t| t.outer) {
        // Inner joins all: the ON is one more condition of the last table's.
        if let (Some(on), Some(last)) = (on, group.last_mut()) {
            last.on = Some(match last.on.take() {
                None => on,
                Some(prev) => Ast::BinaryOp {
                    left: Box::new(Ast::Nested(Box::new(prev))),
                    op: ast::BinaryOperator::And,
                    right: Box::new(Ast::Nested(Box::new(on))),
                },
            });
        }
        return Ok(());
    }
    for t in group.iter_mut() {
        t.group = Some(first);
        t.null_filled = outer;
    }
    if let Some(last) = group.last_mut() {
        last.group_end = Some(GroupEnd {
            outer,
            on,
            compiled: None,
        });
    }
    Ok(())
}

/// The columns `*` over the FROM tables shows, in MySQL's order, each as (table, position in
/// it, name): a column a join names in USING (or NATURAL JOIN shares) once, first, its value
/// the left side's (the right side's for a RIGHT JOIN), then the rest of the tables before it,
/// then the joined table's others.
pub(crate) fn result_columns(tables: &[FromTable]) -> Vec<(usize, usize, String)> {
    let mut all = Vec::new();
    let mut start = 0;
    while start < tables.len() {
        // One comma-separated item of FROM at a time.
        let end = (start + 1..tables.len())
            .find(|i| tables[*i].item_start)
            .unwrap_or(tables.len());
        all.extend(
            item_columns(&tables[start..end])
                .into_iter()
                .map(|(t, p, n)| (start + t, p, n)),
        );
        start = end;
    }
    all
}

/// `result_columns` of one comma-separated item of FROM.
fn item_columns(tables: &[FromTable]) -> Vec<(usize, usize, String)> {
    let mut shown: Vec<(usize, usize, String)> = Vec::new();
    for (i, t) in tables.iter().enumerate() {
        let own: Vec<(usize, usize, String)> = t
            .table
            .def()
            .columns
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.hidden)
            .map(|(p, c)| (i, p, c.name.clone()))
            .collect();
        if t.using.is_empty() {
            shown.extend(own);
            continue;
        }
        let named = |n: &str| t.using.iter().any(|u| u.eq_ignore_ascii_case(n));
        let mut next = Vec::with_capacity(shown.len() + own.len());
        // t1 RIGHT JOIN t2: t1 is marked outer, and t2's columns lead.
        if i == 1 && tables[0].outer {
            for u in &t.using {
                next.extend(own.iter().find(|c| c.2.eq_ignore_ascii_case(u)).cloned());
            }
            next.extend(own.iter().filter(|c| !named(&c.2)).cloned());
            next.extend(shown.drain(..).filter(|c| !named(&c.2)));
        } else {
            for u in &t.using {
                if let Some(k) = shown.iter().position(|c| c.2.eq_ignore_ascii_case(u)) {
                    next.push(shown.remove(k));
                }
            }
            next.append(&mut shown);
            next.extend(own.into_iter().filter(|c| !named(&c.2)));
        }
        shown = next;
    }
    shown
}

/// The most tables one SELECT joins (MySQL's limit).
const JOIN_TABLES_MAX: usize = 61;

/// The table (index into `offsets`, where each table's columns start) holding joined-row
/// position `p`.
pub(crate) fn table_at(offsets: &[usize], p: usize) -> usize {
    offsets.iter().rposition(|o| *o <= p).unwrap_or(0)
}

/// Where each table's columns sit in the joined row, and which of them are read.
pub(crate) struct Layout<'a> {
    pub(crate) offsets: &'a [usize],
    pub(crate) width: usize,
    pub(crate) used: &'a [bool],
}

impl Layout<'_> {
    fn table_of(&self, p: usize) -> usize {
        table_at(self.offsets, p)
    }

    /// The tables an expression reads, as a bit set.
    fn tables_in(&self, e: &Expr) -> u64 {
        let mut m = 0u64;
        e.columns(&mut |p| m |= 1 << self.table_of(p));
        m
    }

    /// `e` over table `t`'s own columns (positions in the table), columns of other tables as
    /// [`Expr::Outer`].
    fn localize(&self, e: &Expr, t: usize) -> Expr {
        let mut e = e.clone();
        e.rewrite(&|x| match x {
            Expr::Column(p) if self.table_of(*p) == t => Some(Expr::Column(p - self.offsets[t])),
            Expr::Column(p) => Some(Expr::Outer(*p)),
            _ => None,
        });
        e
    }
}

fn all_of(parts: Vec<Expr>) -> Option<Expr> {
    parts
        .into_iter()
        .reduce(|a, b| Expr::Binary(BinOp::And, Box::new(a), Box::new(b)))
}

/// Plans a join: the first table read (with the WHERE conditions on it alone), then each other
/// table in turn, read by keys computed from the rows joined so far when its join condition
/// gives a whole primary or unique key, else read once with its own conditions and joined in
/// the API node (hashing on an equality when there is one).
pub(crate) fn join(
    layout: &Layout,
    tables: Vec<FromTable>,
    order: &[usize],
    mut ons: Vec<Option<Expr>>,
    filter: Option<Expr>,
    lock: LockMode,
) -> Result<(Source, Joined)> {
    let order_given = order;
    let mut wheres = Vec::new();
    if let Some(f) = &filter {
        conjuncts(f, &mut wheres);
    }
    // A correlated subquery runs for the joined rows only: its conditions wait for them.
    wheres.retain(|w| !w.has_correlated());
    let inner_only = !tables
        .iter()
        .any(|t| t.outer || t.straight || t.group.is_some())
        && !ons.iter().flatten().any(Expr::has_correlated);
    if inner_only {
        implied(layout, &tables, &ons, &mut wheres);
    }
    let locking = lock != LockMode::CommittedRead;
    let order = &read_order(layout, &tables, order, &ons, &wheres);
    let mut filter = filter;
    if order != order_given {
        // Read in another order, an inner join's ON conditions are the WHERE's: each checked
        // by the step whose table completes it, or, reading no table (`ON ? = 1`), with the
        // WHERE over the joined rows.
        let mut free = Vec::new();
        for on in ons.iter_mut().filter_map(Option::take) {
            let mut parts = Vec::new();
            conjuncts(&on, &mut parts);
            for p in parts {
                if layout.tables_in(&p) == 0 {
                    free.push(p);
                } else {
                    wheres.push(p);
                }
            }
        }
        if !free.is_empty() {
            filter = all_of(filter.into_iter().chain(free).collect());
        }
    }
    let mut done = 0u64;
    let mut first = None;
    let mut steps = Vec::new();
    // The ON conjuncts of the group being joined, and whether a step checked each already.
    let mut group_parts: Vec<(Expr, bool)> = Vec::new();
    // The ON conjuncts of the inner tables outside groups: each checked by the first inner
    // step that completes it (a row failing it would not join its own table either), so a
    // nested join's ON, which joins its last table, keys the reads of the ones before.
    let mut inner_parts: Vec<(Expr, bool)> = Vec::new();
    for &k in order {
        let t = &tables[k];
        if let (false, None, Some(on)) = (t.outer, t.group, &ons[k]) {
            let mut all = Vec::new();
            conjuncts(on, &mut all);
            inner_parts.extend(all.into_iter().map(|p| (p, false)));
        }
    }
    for (i, &k) in order.iter().enumerate() {
        let bit = 1u64 << k;
        let ready = done | bit;
        let t = &tables[k];
        // What a match must satisfy here: its ON, and (unless NULLs may fill it) the WHERE
        // conditions this table completes.
        let mut parts = Vec::new();
        if t.outer || t.group.is_some() {
            if let Some(on) = &ons[k] {
                conjuncts(on, &mut parts);
            }
        } else {
            for (p, checked) in inner_parts.iter_mut().filter(|(_, c)| !*c) {
                let m = layout.tables_in(p);
                // The first table takes only its own (it is read alone).
                let complete = if i == 0 { m == bit } else { m & !ready == 0 };
                if complete {
                    parts.push(p.clone());
                    *checked = true;
                }
            }
        }
        if t.group == Some(k) {
            let on = tables[k..]
                .iter()
                .find_map(|t| t.group_end.as_ref())
                .and_then(|g| g.compiled.clone());
            let mut all = Vec::new();
            if let Some(on) = on {
                conjuncts(&on, &mut all);
            }
            group_parts = all.into_iter().map(|p| (p, false)).collect();
        }
        if t.group.is_some() && !t.outer {
            // A group's ON conjunct is checked by the first of its (inner) steps that can: a
            // joined row failing it has no match in the group either way.
            for (p, checked) in group_parts.iter_mut().filter(|(_, c)| !*c) {
                if layout.tables_in(p) & !ready == 0 {
                    parts.push(p.clone());
                    *checked = true;
                }
            }
        }
        let group_end = t.group_end.as_ref().map(|g| {
            let start = layout.offsets[t.group.unwrap_or(k)];
            let end = layout.offsets.get(k + 1).copied().unwrap_or(layout.width);
            StepGroup {
                outer: g.outer,
                on: all_of(
                    std::mem::take(&mut group_parts)
                        .into_iter()
                        .filter(|(_, c)| !c)
                        .map(|(p, _)| p)
                        .collect(),
                ),
                columns: start..end,
            }
        });
        if !t.outer && t.group.is_none() {
            parts.extend(
                wheres
                    .iter()
                    .filter(|w| {
                        let m = layout.tables_in(w);
                        m & bit != 0 && m & !ready == 0
                    })
                    .cloned(),
            );
        }
        let own: Vec<Expr> = parts
            .iter()
            .filter(|p| layout.tables_in(p) == bit)
            .map(|p| layout.localize(p, k))
            .collect();
        let offset = layout.offsets[k];
        let end = layout.offsets.get(k + 1).copied().unwrap_or(layout.width);
        let extra: Vec<u16> = (offset..end)
            .filter(|p| layout.used[*p])
            .map(|p| (p - offset) as u16)
            .collect();
        let mut read_once = source(
            t.table.clone(),
            &t.tref,
            all_of(own.clone()),
            lock,
            locking,
            &mut [],
            &mut [],
            &extra,
        );
        read_once.derived = t.derived.clone();
        if i == 0 {
            first = Some(read_once);
            done = ready;
            continue;
        }
        let linked: Vec<&Expr> = parts
            .iter()
            .filter(|p| {
                let m = layout.tables_in(p);
                m & bit != 0 && m != bit && m & !ready == 0
            })
            .collect();
        let mut lookup = None;
        let mut probe_index = None;
        let mut estimate = read_once.estimate;
        // information_schema and derived tables are made whole in the API node: never read by
        // key.
        if !linked.is_empty() && !read_once.made_in_api_node() {
            let mut probe_parts = own;
            probe_parts.extend(linked.iter().map(|p| layout.localize(p, k)));
            let probe = source(
                t.table.clone(),
                &t.tref,
                all_of(probe_parts),
                lock,
                locking,
                &mut [],
                &mut [],
                &extra,
            );
            if let Access::Range {
                index,
                columns,
                equal,
                ..
            } = &probe.access
            {
                probe_index = index_probe(&t.table, index, columns, equal);
                if probe_index.is_some() {
                    estimate = probe.estimate;
                }
            }
            if let Access::Lookup { unique, keys } = probe.access {
                if keys.iter().flatten().any(reads_outer) {
                    let keys = keys
                        .into_iter()
                        .map(|key| {
                            key.into_iter()
                                .map(|mut e| {
                                    e.rewrite(&|x| match x {
                                        Expr::Outer(p) => Some(Expr::Column(*p)),
                                        _ => None,
                                    });
                                    e
                                })
                                .collect()
                        })
                        .collect();
                    lookup = Some((unique.map(|u| u.0), keys));
                    estimate = probe.estimate;
                }
            }
        }
        let equal = linked
            .iter()
            .filter_map(|p| {
                match crate::plan::look_through(p, |c| {
                    let t = layout.table_of(c);
                    tables[t]
                        .table
                        .def()
                        .columns
                        .get(c - layout.offsets[t])
                        .and_then(crate::expr::collate::of_column)
                }) {
                    Expr::Binary(BinOp::Eq, l, r) => {
                        let inner =
                            |x: &Expr| matches!(x, Expr::Column(c) if layout.table_of(*c) == k);
                        let before = |x: &Expr| {
                            let m = layout.tables_in(x);
                            m != 0 && m & bit == 0
                        };
                        match (l.as_ref(), r.as_ref()) {
                            (Expr::Column(c), e) if inner(l) && before(e) => Some((*c, e.clone())),
                            (e, Expr::Column(c)) if inner(r) && before(e) => Some((*c, e.clone())),
                            _ => None,
                        }
                    }
                    _ => None,
                }
            })
            .collect();
        steps.push(JoinStep {
            source: read_once,
            probe: probe_index.filter(|_| lookup.is_none()),
            lookup,
            equal,
            offset,
            outer: t.outer,
            on: all_of(parts),
            estimate,
            group_start: t.group == Some(k),
            group_end,
        });
        done = ready;
    }
    // What no inner step could check (an ON naming a table read after it): checked last.
    let unchecked: Vec<Expr> = inner_parts
        .into_iter()
        .filter(|(_, c)| !c)
        .map(|(p, _)| p)
        .collect();
    if !unchecked.is_empty() {
        filter = all_of(filter.into_iter().chain(unchecked).collect());
    }
    let first = first.ok_or_else(|| SqlError::parse("a join without tables"))?;
    let first_offset = layout.offsets[order[0]];
    let (pushed, pushed_filter) =
        crate::plan::pushed::pushable(&first, first_offset, &steps, filter.as_ref());
    Ok((
        first,
        Joined {
            first_offset,
            width: layout.width,
            steps,
            filter,
            pushed,
            pushed_filter,
        },
    ))
}

/// The order to read an inner join's tables in: the cheapest by the tables' statistics
/// ([`costed_order`]) when every table was analyzed; else as given, but a table its own
/// conditions read by whole keys (a "const" table, at most a batch of rows) first, so the tables after it are
/// reached from its rows by key or index instead of being read whole; then, each time, the
/// first table (in the given order) a condition links to the tables already read, so no table
/// is joined without a condition (a cross product) while another could be. Outer joins and
/// STRAIGHT_JOIN keep the given order.
fn read_order(
    layout: &Layout,
    tables: &[FromTable],
    order: &[usize],
    ons: &[Option<Expr>],
    wheres: &[Expr],
) -> Vec<usize> {
    // An ON with a correlated subquery is checked where it is written.
    let correlated = ons.iter().flatten().any(Expr::has_correlated);
    if correlated
        || tables
            .iter()
            .any(|t| t.outer || t.straight || t.group.is_some())
    {
        return order.to_vec();
    }
    // Every condition, with the tables it reads (ON conditions too: all joins here are inner).
    let mut conditions: Vec<(Expr, u64)> = wheres
        .iter()
        .map(|w| (w.clone(), layout.tables_in(w)))
        .collect();
    for on in ons.iter().flatten() {
        let mut parts = Vec::new();
        conjuncts(on, &mut parts);
        conditions.extend(parts.into_iter().map(|p| {
            let m = layout.tables_in(&p);
            (p, m)
        }));
    }
    if let Some(costed) = costed_order(layout, tables, order, &conditions) {
        return costed;
    }
    let links: Vec<u64> = conditions.iter().map(|(_, m)| *m).collect();
    let first = const_first(layout, tables, order, ons, wheres);
    let Some((&head, rest)) = first.split_first() else {
        return first;
    };
    let mut rest = rest.to_vec();
    let mut chosen = vec![head];
    let mut ready = 1u64 << head;
    while !rest.is_empty() {
        let linked = |k: usize| {
            let bit = 1u64 << k;
            links
                .iter()
                .any(|m| m & bit != 0 && m & ready != 0 && m & !(ready | bit) == 0)
        };
        let at = rest.iter().position(|k| linked(*k)).unwrap_or(0);
        let k = rest.remove(at);
        chosen.push(k);
        ready |= 1u64 << k;
    }
    chosen
}

/// [`read_order`]'s first step: a table its own conditions read by whole keys first.
fn const_first(
    layout: &Layout,
    tables: &[FromTable],
    order: &[usize],
    ons: &[Option<Expr>],
    wheres: &[Expr],
) -> Vec<usize> {
    let keep = order.to_vec();
    let keyed = |k: usize| {
        let bit = 1u64 << k;
        let mut parts = Vec::new();
        if let Some(on) = ons.get(k).and_then(Option::as_ref) {
            conjuncts(on, &mut parts);
        }
        parts.extend(wheres.iter().cloned());
        let own: Vec<Expr> = parts
            .iter()
            .filter(|p| layout.tables_in(p) == bit)
            .map(|p| layout.localize(p, k))
            .collect();
        let t = &tables[k];
        let mut alone = source(
            t.table.clone(),
            &t.tref,
            all_of(own),
            LockMode::CommittedRead,
            false,
            &mut [],
            &mut [],
            &[],
        );
        alone.derived = t.derived.clone();
        !alone.made_in_api_node() && matches!(alone.access, Access::Lookup { .. })
    };
    match order.iter().position(|k| keyed(*k)) {
        None | Some(0) => keep,
        Some(i) => {
            let mut order = keep;
            let k = order.remove(i);
            order.insert(0, k);
            order
        }
    }
}

/// The index probe of a step whose best index range starts with an equality the joined rows
/// bind (an [`Expr::Outer`] value) on an integer column: its values order and compare exactly
/// as the index keeps them, so their range and IN list find every match.
fn index_probe(table: &Table, index: &str, columns: &[u16], equal: &[Expr]) -> Option<IndexProbe> {
    let (first, column) = (equal.first()?, *columns.first()?);
    let def = table.def();
    if !def.columns.get(column as usize)?.ty.is_integer() {
        return None;
    }
    if !reads_outer(first) {
        return None;
    }
    let mut key = first.clone();
    key.rewrite(&|x| match x {
        Expr::Outer(p) => Some(Expr::Column(*p)),
        _ => None,
    });
    Some(IndexProbe {
        index: index.to_string(),
        column,
        key,
    })
}

/// Costs of the join-order search, in units of one row a data node sends the API node.
/// A row a data node examines (a scan's, filtered there).
pub(crate) const SCAN_ROW: f64 = 0.1;
/// A row sent to the API node.
pub(crate) const SHIP_ROW: f64 = 1.0;
/// A keyed read or one index probe value (batched with the others).
pub(crate) const KEY_READ: f64 = 1.0;
/// A joined row made in the API node.
const JOINED_ROW: f64 = 0.2;
/// Joins of up to this many tables try every order (by subsets of tables read); larger ones
/// add the cheapest next table each time.
const ORDER_SEARCH_TABLES_MAX: usize = 10;

/// The cheapest order of an inner join by its tables' statistics, None when a table has none
/// (never analyzed, a derived table, information_schema). Each order is costed as [`join`]
/// would read it: a table reached by key from the rows before it costs a keyed read per row,
/// by index probe the same while the values are few enough to probe by, else one read of the
/// table (its rows examined in the data node, those its conditions keep shipped), and every
/// joined row is made in the API node.
fn costed_order(
    layout: &Layout,
    tables: &[FromTable],
    order: &[usize],
    conditions: &[(Expr, u64)],
) -> Option<Vec<usize>> {
    let n = order.len();
    if n < 2
        || tables
            .iter()
            .any(|t| t.derived.is_some() || t.table.stats().is_none())
    {
        return None;
    }
    let coster = Coster {
        layout,
        tables,
        conditions,
    };
    let firsts: Vec<(f64, f64)> = order
        .iter()
        .map(|k| coster.first(*k))
        .collect::<Option<_>>()?;
    if n > ORDER_SEARCH_TABLES_MAX {
        return coster.greedy(order, &firsts);
    }
    // best[set of positions in `order`]: (cost, rows, the order read).
    let mut best: Vec<Option<(f64, f64, Vec<usize>)>> = vec![None; 1 << n];
    for (i, (cost, rows)) in firsts.iter().enumerate() {
        best[1 << i] = Some((*cost, *rows, vec![order[i]]));
    }
    for set in 1..(1usize << n) {
        let Some((cost, rows, read)) = best[set].clone() else {
            continue;
        };
        let ready: u64 = read.iter().map(|k| 1u64 << k).sum();
        for (i, &k) in order.iter().enumerate() {
            if set & (1 << i) != 0 {
                continue;
            }
            let (step, out) = coster.step(ready, k, rows)?;
            let total = cost + step + out * JOINED_ROW;
            let next = set | (1 << i);
            if best[next]
                .as_ref()
                .is_none_or(|(c, _, _)| total < *c * (1.0 - 1e-9))
            {
                let mut read = read.clone();
                read.push(k);
                best[next] = Some((total, out, read));
            }
        }
    }
    best[(1 << n) - 1].take().map(|(_, _, read)| read)
}

/// Costs one table read first, or joined to the tables read before it.
struct Coster<'a, 'b> {
    layout: &'a Layout<'b>,
    tables: &'a [FromTable],
    conditions: &'a [(Expr, u64)],
}

impl Coster<'_, '_> {
    /// Table `k` as [`join`] reads it with conditions `parts` (over the joined row).
    fn source(&self, k: usize, parts: Vec<Expr>) -> Source {
        let t = &self.tables[k];
        source(
            t.table.clone(),
            &t.tref,
            all_of(parts.iter().map(|p| self.layout.localize(p, k)).collect()),
            LockMode::CommittedRead,
            false,
            &mut [],
            &mut [],
            &[],
        )
    }

    /// The conditions table `k` completes once the tables of `ready` are read: its own (its
    /// bit alone) and those linking it to them.
    fn parts(&self, ready: u64, k: usize) -> (Vec<Expr>, Vec<Expr>) {
        let bit = 1u64 << k;
        let own = self.conditions.iter().filter(|(_, m)| *m == bit);
        let linked = self
            .conditions
            .iter()
            .filter(|(_, m)| m & bit != 0 && *m != bit && m & !(ready | bit) == 0);
        (
            own.map(|(e, _)| e.clone()).collect(),
            linked.map(|(e, _)| e.clone()).collect(),
        )
    }

    /// Cost and rows of reading table `k` first.
    fn first(&self, k: usize) -> Option<(f64, f64)> {
        let (own, _) = self.parts(0, k);
        let src = self.source(k, own);
        let e = src.estimate?;
        let per_read = match src.access {
            Access::Lookup { .. } => KEY_READ,
            _ => SCAN_ROW,
        };
        Some(finite((e.read * per_read + e.kept * SHIP_ROW, e.kept)))
    }

    /// Cost and rows of joining table `k` to `rows` rows of the tables of `ready`.
    fn step(&self, ready: u64, k: usize, rows: f64) -> Option<(f64, f64)> {
        let (own, linked) = self.parts(ready, k);
        let once = self.source(k, own.clone());
        let e_once = once.estimate?;
        let once_cost = e_once.read * SCAN_ROW + e_once.kept * SHIP_ROW;
        if linked.is_empty() {
            return Some(finite((once_cost, rows * e_once.kept)));
        }
        let mut all = own;
        all.extend(linked);
        let probe = self.source(k, all);
        let e = probe.estimate?;
        let keyed = rows * (KEY_READ + e.read * SCAN_ROW + e.kept * SHIP_ROW);
        let cost = match &probe.access {
            Access::Lookup { keys, .. } if keys.iter().flatten().any(reads_outer) => keyed,
            Access::Range {
                index,
                columns,
                equal,
                ..
            } if rows <= probe_values_max(&self.tables[k].table) as f64
                && index_probe(&self.tables[k].table, index, columns, equal).is_some() =>
            {
                keyed
            }
            _ => once_cost,
        };
        Some(finite((cost, rows * e.kept)))
    }

    /// The order adding, after the cheapest first table, the next table that costs least.
    fn greedy(&self, order: &[usize], firsts: &[(f64, f64)]) -> Option<Vec<usize>> {
        let at = (0..order.len()).min_by(|a, b| firsts[*a].0.total_cmp(&firsts[*b].0))?;
        let mut read = vec![order[at]];
        let mut ready = 1u64 << order[at];
        let mut rows = firsts[at].1;
        while read.len() < order.len() {
            let mut next: Option<(f64, f64, usize)> = None;
            for &k in order.iter().filter(|k| ready & (1 << **k) == 0) {
                let (cost, out) = self.step(ready, k, rows)?;
                let total = cost + out * JOINED_ROW;
                if next.is_none_or(|(c, _, _)| total < c) {
                    next = Some((total, out, k));
                }
            }
            let (_, out, k) = next?;
            read.push(k);
            ready |= 1 << k;
            rows = out;
        }
        Some(read)
    }
}

/// The most a cost or row estimate counts: huge products of estimates (or an empty table's
/// zero times infinity) stay comparable.
const ESTIMATE_MAX: f64 = 1e18;

fn finite((cost, rows): (f64, f64)) -> (f64, f64) {
    let bound = |x: f64| {
        if x.is_nan() {
            ESTIMATE_MAX
        } else {
            x.min(ESTIMATE_MAX)
        }
    };
    (bound(cost), bound(rows))
}

/// Whether `e` reads a value of the joined row ([`Expr::Outer`]).
pub(crate) fn reads_outer(e: &Expr) -> bool {
    let mut outer = false;
    e.walk(&mut |x| outer |= matches!(x, Expr::Outer(_)));
    outer
}

/// Adds to an inner join's WHERE conditions what its conditions imply for the planner to use
/// (each is true of every joined row the originals keep, so checking it too changes nothing):
/// - equalities between integer columns carried through (`a = b AND b = c` gives `a = c`), so a
///   table linked to another only through a third can be reached from it directly;
/// - for an OR over several tables, each table's own part of every branch (`(t.x = 1 AND u.y =
///   2) OR (t.x = 3 AND u.y = 4)` gives `t.x = 1 OR t.x = 3`), so the table is narrowed
///   before it is joined.
fn implied(layout: &Layout, tables: &[FromTable], ons: &[Option<Expr>], wheres: &mut Vec<Expr>) {
    let mut all = wheres.clone();
    for on in ons.iter().flatten() {
        conjuncts(on, &mut all);
    }
    // A derived table's column may hold values of another kind than its declared type.
    let integer = |p: usize| {
        let t = layout.table_of(p);
        tables[t].derived.is_none()
            && tables[t]
                .table
                .def()
                .columns
                .get(p - layout.offsets[t])
                .is_some_and(|c| c.ty.is_integer())
    };
    // Classes of integer columns that equalities make equal: each column's representative.
    let mut class: Vec<usize> = (0..layout.width).collect();
    fn root(class: &mut [usize], mut p: usize) -> usize {
        while class[p] != p {
            class[p] = class[class[p]];
            p = class[p];
        }
        p
    }
    let mut equal_pairs: Vec<(usize, usize)> = Vec::new();
    for c in &all {
        if let Expr::Binary(BinOp::Eq, l, r) = c {
            if let (Expr::Column(a), Expr::Column(b)) = (l.as_ref(), r.as_ref()) {
                if *a < layout.width && *b < layout.width && integer(*a) && integer(*b) {
                    equal_pairs.push((*a.min(b), *a.max(b)));
                    let (ra, rb) = (root(&mut class, *a), root(&mut class, *b));
                    class[ra] = rb;
                }
            }
        }
    }
    let mut columns: Vec<usize> = equal_pairs.iter().flat_map(|(a, b)| [*a, *b]).collect();
    columns.sort_unstable();
    columns.dedup();
    let mut members: Vec<(usize, usize)> = Vec::with_capacity(columns.len());
    for p in columns {
        members.push((root(&mut class, p), p));
    }
    members.sort_unstable();
    for (i, (ra, a)) in members.iter().enumerate() {
        for (rb, b) in &members[i + 1..] {
            let known = equal_pairs.contains(&(*a.min(b), *a.max(b)));
            if ra == rb && !known && layout.table_of(*a) != layout.table_of(*b) {
                wheres.push(Expr::Binary(
                    BinOp::Eq,
                    Box::new(Expr::Column(*a)),
                    Box::new(Expr::Column(*b)),
                ));
            }
        }
    }
    for c in &all {
        // A volatile part would be drawn twice (once alone, once in the OR).
        if !matches!(c, Expr::Binary(BinOp::Or, ..)) || !crate::plan::stable(c) {
            continue;
        }
        let mask = layout.tables_in(c);
        let mut branches = Vec::new();
        crate::plan::disjuncts(c, &mut branches);
        for t in (0..tables.len()).filter(|t| mask & (1 << t) != 0 && mask != 1 << t) {
            let own: Option<Vec<Expr>> = branches
                .iter()
                .map(|b| {
                    let mut parts = Vec::new();
                    conjuncts(b, &mut parts);
                    parts.retain(|p| layout.tables_in(p) == 1 << t);
                    all_of(parts)
                })
                .collect();
            if let Some(or) = own.and_then(|o| {
                o.into_iter()
                    .reduce(|a, b| Expr::Binary(BinOp::Or, Box::new(a), Box::new(b)))
            }) {
                wheres.push(or);
            }
        }
    }
}
