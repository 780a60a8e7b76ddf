//! Planning a SELECT, step by step: its FROM tables and the scopes the compiler binds names in,
//! the select items and their result columns, GROUP BY, HAVING, ORDER BY and LIMIT, then the
//! first table's `Source` and, for a join, the steps `plan/join.rs` plans.

use base::types::Collation;
use base::TableDef;
use client::{LockMode, Table};
use myproto::response::Column;
use sqlparser::ast::{self, Expr as Ast, SelectItem, SetExpr};

use crate::expr::aggregate::Aggregate;
use crate::expr::meta::table_column;
use crate::expr::typing::unify_branches;
use crate::expr::{column_expr, BinOp, Compiler, Expr, Scope};
use crate::foundation::error::{Result, SqlError};
use crate::plan::join::{from_tables, join, table_at, FromTable, Joined, Layout};
use crate::plan::{
    calls_waiting, ident_last, limits, named_item, order_by, source, source_text, OrderKey,
    PlanInput, SelectPlan, Source, TableRef,
};

/// Each select item's name, and its alias when it has one.
type Names = Vec<(String, Option<String>)>;

/// An ORDER BY key: what it sorts by, descending, and the collation it compares in.
type Order = Vec<(OrderKey, bool, Collation)>;

/// Plans a SELECT. `resolve` finds a table by name.
pub fn select(
    input: &PlanInput,
    q: &ast::Query,
    resolve: &dyn Fn(&ast::ObjectName) -> Result<(Table, TableRef)>,
) -> Result<SelectPlan> {
    let select = plain_select(q)?;
    let scoped = crate::plan::derived::scope(input, q.with.as_ref(), resolve)?;
    let input = scoped.as_ref().unwrap_or(input);
    let lock = lock_mode(q)?;
    let (tables, read_order) = if is_dual(select) {
        (Vec::new(), Vec::new())
    } else {
        from_tables(&select.from, input, resolve)?
    };
    let defs: Vec<TableDef> = tables.iter().map(|t| t.table.def().clone()).collect();
    let (offsets, width) = offsets_of(&defs);
    let def = joined_definition(&defs);
    let mut c = compiler(input, &tables, &defs, &offsets);
    c.aggregates = Some(Vec::new());
    c.windows = Some(crate::expr::window::named_windows(select)?);
    let (mut items, names) = select_items(&mut c, input, select, &tables, &defs, &offsets)?;
    let windows = c.windows.take();
    let (group_by, group_collations, rollup) = group_by_clause(&mut c, select, &names, &items)?;
    c.place = "having clause";
    let having = having_clause(&mut c, select)?;
    c.windows = windows;
    let order = order_clause(
        &mut c,
        q,
        (&names, &items),
        def.as_ref(),
        rollup,
        (&group_by, &group_collations),
    )?;
    c.windows = None;
    let aggregates = c.aggregates.take().unwrap_or_default();
    let windowed = aggregates.iter().any(Aggregate::is_window);
    if windowed && rollup {
        return Err(SqlError::unsupported("window functions WITH ROLLUP"));
    }
    c.place = "on clause";
    let ons: Vec<Option<Expr>> = tables
        .iter()
        .map(|t| t.on.as_ref().map(|e| c.compile(e)).transpose())
        .collect::<Result<_>>()?;
    let group_ons = group_ons(&mut c, &tables)?;
    c.place = "where clause";
    let filter = select
        .selection
        .as_ref()
        .map(|w| c.compile(w))
        .transpose()?;
    let (limit, offset) = limits(&mut c, &q.limit_clause)?;
    let grouped = aggregates.iter().any(|a| !a.is_window()) || !group_by.is_empty();
    let distinct = distinct(select)?;
    // Metadata from the items before remapping (joined-row positions).
    c.aggregates = Some(aggregates);
    for e in &mut items {
        unify_branches(e, def.as_ref(), &c);
    }
    let derived = items
        .iter()
        .map(|e| c.derive(e))
        .collect::<Result<Vec<_>>>()?;
    let columns = result_columns(&c, &items, &names, &derived, &tables, &defs, &offsets, def);
    let mut reads = Reads {
        items,
        group_by,
        having,
        aggregates: c.aggregates.take().unwrap_or_default(),
        order,
    };
    let (source, joined) = sources(
        with_group_ons(tables, group_ons),
        &read_order,
        &offsets,
        width,
        &mut reads,
        ons,
        filter,
        lock,
    )?;
    let Reads {
        items,
        group_by,
        having,
        aggregates,
        order,
    } = reads;
    let mut plan = SelectPlan {
        source,
        joined,
        items,
        columns,
        derived,
        aggregates,
        group_by,
        group_collations,
        grouped,
        rollup,
        having,
        order,
        distinct,
        limit,
        offset,
        waits: false,
        large: crate::plan::Large::default(),
        pushed_aggregate: None,
    };
    plan.waits = calls_waiting(&plan);
    plan.pushed_aggregate = crate::plan::aggregate::pushed(&plan);
    Ok(plan)
}

/// Where each table's columns start in the joined row, and the joined row's width.
fn offsets_of(defs: &[TableDef]) -> (Vec<usize>, usize) {
    let mut offsets = Vec::with_capacity(defs.len());
    let mut width = 0;
    for d in defs {
        offsets.push(width);
        width += d.columns.len();
    }
    (offsets, width)
}

/// SELECT DISTINCT (DISTINCTROW), or ALL.
fn distinct(select: &ast::Select) -> Result<bool> {
    match &select.distinct {
        None | Some(ast::Distinct::All) => Ok(false),
        Some(ast::Distinct::Distinct) => Ok(true),
        Some(other) => Err(SqlError::unsupported(format!("{other}"))),
    }
}

/// The query's SELECT, refused when it is another form or has FETCH or INTO.
fn plain_select(q: &ast::Query) -> Result<&ast::Select> {
    let SetExpr::Select(select) = q.body.as_ref() else {
        // Not shown: a set operation's tree may be deep.
        return Err(SqlError::unsupported(match q.body.as_ref() {
            SetExpr::Values(_) => "VALUES as a query",
            SetExpr::Table(_) => "TABLE as a query",
            _ => "this form of query here",
        }));
    };
    if q.fetch.is_some() || select.into.is_some() {
        return Err(SqlError::unsupported("FETCH or SELECT INTO"));
    }
    if let Some(top) = &select.top {
        // SQL Server's, which sqlparser reads in every dialect: no word of MariaDB's.
        return Err(SqlError::parse(format!("near '{top}'")));
    }
    Ok(select)
}

/// The locks FOR UPDATE or FOR SHARE (LOCK IN SHARE MODE) take; none: committed reads.
fn lock_mode(q: &ast::Query) -> Result<LockMode> {
    Ok(match q.locks.as_slice() {
        [] => LockMode::CommittedRead,
        [l] if l.lock_type == ast::LockType::Update => LockMode::Exclusive,
        [l] if l.lock_type == ast::LockType::Share => LockMode::Shared,
        _ => return Err(SqlError::unsupported("several locking clauses")),
    })
}

/// No FROM, or FROM DUAL.
fn is_dual(select: &ast::Select) -> bool {
    match select.from.as_slice() {
        [] => true,
        [one] if one.joins.is_empty() => matches!(&one.relation,
            ast::TableFactor::Table { name, .. }
                if name.0.len() == 1 && name.to_string().eq_ignore_ascii_case("dual")),
        _ => false,
    }
}

/// One definition whose columns are the joined row's, for typing computed columns.
fn joined_definition(defs: &[TableDef]) -> Option<TableDef> {
    match defs {
        [] => None,
        [one] => Some(one.clone()),
        many => {
            let mut d = many[0].clone();
            d.columns = many
                .iter()
                .flat_map(|d| d.columns.iter().cloned())
                .collect();
            d.primary_key.clear();
            d.indexes.clear();
            Some(d)
        }
    }
}

/// A compiler whose names bind to the FROM tables' columns at their places in the joined row.
fn compiler<'a>(
    input: &'a PlanInput,
    tables: &'a [FromTable],
    defs: &'a [TableDef],
    offsets: &[usize],
) -> Compiler<'a> {
    let scopes = tables
        .iter()
        .zip(defs)
        .zip(offsets)
        .map(|((t, def), offset)| Scope {
            def,
            name: &t.tref.2,
            database: &t.tref.0,
            offset: *offset,
        })
        .collect();
    let mut c = Compiler::with_scopes(scopes, input.placeholders);
    if tables.iter().any(|t| !t.using.is_empty()) {
        // An unqualified USING column names its one coalesced value, not either side's.
        let shown = crate::plan::join::result_columns(tables);
        for t in tables {
            for u in &t.using {
                let mut same = shown.iter().filter(|(_, _, n)| n.eq_ignore_ascii_case(u));
                if let (Some((i, p, _)), None) = (same.next(), same.next()) {
                    c.coalesced.push((u.clone(), offsets[*i] + p));
                }
            }
        }
    }
    c
}

/// The select items compiled, with their names.
fn select_items(
    c: &mut Compiler,
    input: &PlanInput,
    select: &ast::Select,
    tables: &[FromTable],
    defs: &[TableDef],
    offsets: &[usize],
) -> Result<(Vec<Expr>, Names)> {
    let mut items: Vec<Expr> = Vec::new();
    let mut names: Names = Vec::new();
    for item in &select.projection {
        match item {
            SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..) => {
                wildcard(item, tables, defs, offsets, &mut items, &mut names)?
            }
            SelectItem::UnnamedExpr(e) => {
                items.push(c.compile(e)?);
                names.push((item_name(input, e), None));
            }
            SelectItem::ExprWithAlias { expr, alias } => {
                items.push(c.compile(expr)?);
                names.push((alias.value.clone(), Some(alias.value.clone())));
            }
            SelectItem::ExprWithAliases { .. } => {
                return Err(SqlError::unsupported("several aliases"))
            }
        }
    }
    Ok((items, names))
}

/// `*` or `t.*`: the columns it stands for, added to `items` and `names`.
fn wildcard(
    item: &SelectItem,
    tables: &[FromTable],
    defs: &[TableDef],
    offsets: &[usize],
    items: &mut Vec<Expr>,
    names: &mut Names,
) -> Result<()> {
    if tables.is_empty() {
        return Err(SqlError::new(1096, "HY000", "No tables used"));
    }
    let only = match item {
        SelectItem::QualifiedWildcard(ast::SelectItemQualifiedWildcardKind::ObjectName(n), _) => {
            Some(ident_last(n))
        }
        SelectItem::QualifiedWildcard(..) => return Err(SqlError::unsupported(format!("{item}"))),
        _ => None,
    };
    if only.is_none() && tables.iter().any(|t| !t.using.is_empty()) {
        // A join's USING columns once, first, as MySQL lists them.
        for (t, p, name) in crate::plan::join::result_columns(tables) {
            items.push(column_expr(&defs[t].columns[p], offsets[t] + p));
            names.push((name, None));
        }
        return Ok(());
    }
    let mut any = false;
    for ((t, d), offset) in tables.iter().zip(defs).zip(offsets) {
        if only.as_ref().is_some_and(|n| *n != t.tref.2) {
            continue;
        }
        any = true;
        for (p, col) in d.columns.iter().enumerate() {
            if !col.hidden {
                items.push(column_expr(col, offset + p));
                names.push((col.name.clone(), None));
            }
        }
    }
    if !any {
        return Err(SqlError::new(
            1051,
            "42S02",
            format!("Unknown table '{}'", only.unwrap_or_default()),
        ));
    }
    Ok(())
}

/// The name MySQL gives an item without an alias.
fn item_name(input: &PlanInput, e: &Ast) -> String {
    // MySQL names a string literal by its value, introduced (`_utf8mb4'x'`) or not.
    let literal = match e {
        Ast::Prefixed { value, .. } => match &**value {
            Ast::Value(v) => Some(&v.value),
            _ => None,
        },
        Ast::Value(v) => Some(&v.value),
        _ => None,
    };
    match (e, literal) {
        (_, Some(ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s))) => {
            s.clone()
        }
        (Ast::Identifier(i), _) => i.value.clone(),
        (Ast::Value(_) | Ast::Prefixed { .. }, _) => source_text(input, e),
        // `@@session.x` is named as written; `t.c` by its column.
        (Ast::CompoundIdentifier(parts), _)
            if parts.first().is_some_and(|p| p.value.starts_with("@@")) =>
        {
            source_text(input, e)
        }
        (Ast::CompoundIdentifier(parts), _) => {
            parts.last().map(|p| p.value.clone()).unwrap_or_default()
        }
        (other, _) => source_text(input, other),
    }
}

/// GROUP BY's keys (a select item named by position or alias, else compiled), their
/// collations, and WITH ROLLUP.
fn group_by_clause(
    c: &mut Compiler,
    select: &ast::Select,
    names: &Names,
    items: &[Expr],
) -> Result<(Vec<Expr>, Vec<Collation>, bool)> {
    let (group_exprs, rollup) = match &select.group_by {
        ast::GroupByExpr::Expressions(e, modifiers) if modifiers.is_empty() => (e.clone(), false),
        ast::GroupByExpr::Expressions(e, modifiers)
            if !e.is_empty() && modifiers == &[ast::GroupByWithModifier::Rollup] =>
        {
            (e.clone(), true)
        }
        other => return Err(SqlError::unsupported(format!("{other}"))),
    };
    c.place = "group statement";
    let saved = c.aggregates.take();
    let group_by: Vec<Expr> = group_exprs
        .iter()
        .map(|e| match named_item(e, names, "group statement")? {
            Some(n) if reads_window(&items[n], saved.as_deref().unwrap_or(&[])) => {
                Err(crate::expr::window::misplaced())
            }
            Some(n) => Ok(items[n].clone()),
            None => c.compile(e),
        })
        .collect::<Result<_>>()?;
    let group_collations = group_by
        .iter()
        .map(|e| c.sort_collation(e))
        .collect::<Result<_>>()?;
    c.aggregates = saved;
    Ok((group_by, group_collations, rollup))
}

/// Whether `e` reads a window function's value.
fn reads_window(e: &Expr, aggregates: &[Aggregate]) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if let Expr::Agg(i) = x {
            found |= aggregates.get(*i).is_some_and(Aggregate::is_window);
        }
    });
    found
}

/// HAVING compiled; it may name a select item by its alias (before any table column).
fn having_clause(c: &mut Compiler, select: &ast::Select) -> Result<Option<Expr>> {
    let Some(h) = &select.having else {
        return Ok(None);
    };
    let mut h = h.clone();
    let _ = ast::visit_expressions_mut(&mut h, |e| {
        if let Ast::Identifier(i) = e {
            let aliased = select.projection.iter().find_map(|item| match item {
                SelectItem::ExprWithAlias { expr, alias }
                    if alias.value.eq_ignore_ascii_case(&i.value) =>
                {
                    Some(expr.clone())
                }
                _ => None,
            });
            if let Some(expr) = aliased {
                *e = Ast::Nested(Box::new(expr));
            }
        }
        std::ops::ControlFlow::<()>::Continue(())
    });
    Ok(Some(c.compile(&h)?))
}

/// ORDER BY's keys, each sorted by the type MySQL aggregates for it (IF of a string and a
/// number: strings); with none, GROUP BY's keys ascending, as MariaDB sorts a grouped result
/// (`ORDER BY NULL` leaves it unsorted).
fn order_clause(
    c: &mut Compiler,
    q: &ast::Query,
    (names, items): (&Names, &[Expr]),
    def: Option<&TableDef>,
    rollup: bool,
    (group_by, group_collations): (&[Expr], &[Collation]),
) -> Result<Order> {
    let order_exprs = order_exprs(q, rollup)?;
    let mut order = order_by(c, names, items, order_exprs)?;
    for (key, _, collation) in &mut order {
        if let OrderKey::Expr(e) = key {
            unify_branches(e, def, c);
            *collation = c.sort_collation(e)?;
        }
    }
    // With window functions, the rows come in their first window's order instead.
    let windowed = c
        .aggregates
        .as_deref()
        .is_some_and(|list| list.iter().any(Aggregate::is_window));
    if order_exprs.is_empty() && !group_by.is_empty() && !windowed {
        order = group_by
            .iter()
            .cloned()
            .zip(group_collations)
            .map(|(e, c): (Expr, &Collation)| (OrderKey::Expr(e), false, *c))
            .collect();
    }
    Ok(order)
}

/// ORDER BY's terms, refused beside WITH ROLLUP as MariaDB 10.11 does (the super-aggregate
/// rows have their places in the grouped order).
fn order_exprs(q: &ast::Query, rollup: bool) -> Result<&[ast::OrderByExpr]> {
    let order_exprs: &[ast::OrderByExpr] = match &q.order_by {
        None => &[],
        Some(ast::OrderBy {
            kind: ast::OrderByKind::Expressions(e),
            interpolate: None,
        }) => e,
        Some(other) => return Err(SqlError::unsupported(format!("{other}"))),
    };
    if rollup && !order_exprs.is_empty() {
        return Err(SqlError::new(
            1221,
            "HY000",
            "Incorrect usage of CUBE/ROLLUP and ORDER BY",
        ));
    }
    Ok(order_exprs)
}

/// The result columns' metadata: a table column's own, else typed from the expression.
#[allow(clippy::too_many_arguments)]
fn result_columns(
    c: &Compiler,
    items: &[Expr],
    names: &Names,
    derived: &[crate::expr::collate::Derived],
    tables: &[FromTable],
    defs: &[TableDef],
    offsets: &[usize],
    def: Option<TableDef>,
) -> Vec<Column> {
    items
        .iter()
        .zip(names)
        .zip(derived)
        .map(|((e, (name, _)), derived)| match e.column_under_names() {
            Some(p) if !tables.is_empty() => {
                let t = table_at(offsets, p);
                let (tref, def) = (&tables[t].tref, &defs[t]);
                let mut column = table_column(&tref.0, &tref.2, &tref.1, def, p - offsets[t], name);
                if tables[t].nullable() {
                    column.flags &= !myproto::response::flags::NOT_NULL;
                }
                column
            }
            _ => {
                let aggregates = c.aggregates.as_deref().unwrap_or(&[]);
                let mut column = crate::expr::meta::computed(name, e, def.as_ref(), aggregates);
                if column.collation == myproto::response::UTF8MB4_GENERAL_CI_ID
                    && derived.is_string()
                {
                    column.collation = crate::expr::meta::collation_id(derived.collation);
                }
                column
            }
        })
        .collect()
}

/// What reads the rows FROM gives, remapped to the columns fetched once the source is planned.
struct Reads {
    items: Vec<Expr>,
    group_by: Vec<Expr>,
    having: Option<Expr>,
    aggregates: Vec<Aggregate>,
    order: Order,
}

/// The ON conditions of the nested joins' groups (`GroupEnd`), compiled, per table.
fn group_ons(c: &mut Compiler, tables: &[FromTable]) -> Result<Vec<Option<Expr>>> {
    tables
        .iter()
        .map(|t| {
            let on = t.group_end.as_ref().and_then(|g| g.on.as_ref());
            on.map(|e| c.compile(e)).transpose()
        })
        .collect()
}

fn with_group_ons(mut tables: Vec<FromTable>, ons: Vec<Option<Expr>>) -> Vec<FromTable> {
    for (t, on) in tables.iter_mut().zip(ons) {
        if let Some(g) = &mut t.group_end {
            g.compiled = on;
        }
    }
    tables
}

/// The first table's `Source` and, for a join, its steps. With no table, WHERE is evaluated on
/// the one row, as HAVING is.
#[allow(clippy::too_many_arguments)]
fn sources(
    tables: Vec<FromTable>,
    read_order: &[usize],
    offsets: &[usize],
    width: usize,
    reads: &mut Reads,
    ons: Vec<Option<Expr>>,
    filter: Option<Expr>,
    lock: LockMode,
) -> Result<(Option<Source>, Option<Box<Joined>>)> {
    let locking = lock != LockMode::CommittedRead;
    match tables.len() {
        0 => {
            if filter.is_some() {
                // WHERE without FROM: evaluate it as a row filter on the single row.
                reads.having = match (reads.having.take(), filter) {
                    (Some(h), Some(f)) => Some(Expr::Binary(BinOp::And, Box::new(f), Box::new(h))),
                    (h, f) => h.or(f),
                };
            }
            Ok((None, None))
        }
        1 => {
            let Some(FromTable {
                table,
                tref,
                derived,
                ..
            }) = tables.into_iter().next()
            else {
                return Ok((None, None));
            };
            let mut exprs: Vec<&mut Expr> = reads.items.iter_mut().collect();
            exprs.extend(reads.group_by.iter_mut());
            exprs.extend(reads.having.iter_mut());
            exprs.extend(reads.aggregates.iter_mut().flat_map(|a| a.exprs_mut()));
            let mut keys: Vec<&mut OrderKey> = reads.order.iter_mut().map(|(k, ..)| k).collect();
            let mut src = source(
                table,
                &tref,
                filter,
                lock,
                locking,
                &mut exprs,
                &mut keys,
                &[],
            );
            src.derived = derived;
            Ok((Some(src), None))
        }
        _ => {
            // A nested join's group ON reads columns too.
            let mut read_by = ons.clone();
            read_by.extend(
                tables
                    .iter()
                    .filter_map(|t| t.group_end.as_ref())
                    .map(|g| g.compiled.clone()),
            );
            let used = used_columns(reads, &read_by, &filter, width);
            let layout = Layout {
                offsets,
                width,
                used: &used,
            };
            let (first, plan) = join(&layout, tables, read_order, ons, filter, lock)?;
            Ok((Some(first), Some(Box::new(plan))))
        }
    }
}

/// Which columns of the joined row anything reads.
fn used_columns(
    reads: &Reads,
    ons: &[Option<Expr>],
    filter: &Option<Expr>,
    width: usize,
) -> Vec<bool> {
    let mut used = vec![false; width];
    let mut mark = |p: usize| {
        if let Some(u) = used.get_mut(p) {
            *u = true;
        }
    };
    let exprs = reads
        .items
        .iter()
        .chain(&reads.group_by)
        .chain(&reads.having)
        .chain(reads.aggregates.iter().flat_map(|a| a.exprs()))
        .chain(ons.iter().flatten())
        .chain(filter)
        .chain(reads.order.iter().filter_map(|(k, ..)| match k {
            OrderKey::Expr(e) => Some(e),
            OrderKey::Item(_) => None,
        }));
    for e in exprs {
        e.columns(&mut mark);
    }
    used
}
