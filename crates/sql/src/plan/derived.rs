//! Derived tables (`FROM (SELECT ...) AS t`) and common table expressions (`WITH a AS
//! (SELECT ...) ...`, and `WITH RECURSIVE`): a query planned with the statement that reads it, whose
//! result the API node materializes when the statement runs and then reads as a table. This
//! module owns the table definition made from the query's result columns, the names a WITH
//! clause brings into scope, and materialization under [`DERIVED_TABLE_ROWS_MAX`].
//!
//! It is not a cache: every execution (and every reference to a common table expression) runs
//! the query again, and a derived table's rows never reach a data node nor outlive the
//! statement. It never reads a derived table by key: the planner reads it once and joins it in
//! the API node.

use std::sync::Arc;

use base::types::{ColumnType, LobSize};
use base::{TableDef, Value};
use client::Table;
use myproto::response::{flags, types, Column, BINARY_COLLATION_ID};
use sqlparser::ast::{self, ObjectName};

use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use crate::plan::{PlanInput, QueryPlan, SelectPlan, TableRef};

/// The most rows one derived table or common table expression holds in the API node; past it
/// the statement fails with MariaDB's error 1114 (a full temporary table) naming the table.
pub const DERIVED_TABLE_ROWS_MAX: usize = 1_000_000;

/// The longest chain of derived tables reading derived tables (a derived table within a
/// derived table, or a common table expression reading the one before it): materializing one
/// runs the next on the connection thread's stack. MariaDB's limit on nested SELECTs
/// (MAX_SELECT_NESTING), answered with its error 1473.
pub const DERIVED_DEPTH_MAX: usize = 63;

/// A query whose result a statement reads as a table.
#[derive(Debug)]
pub struct Derived {
    /// The derived table's alias or the common table expression's name, for errors.
    pub name: String,
    pub query: QueryPlan,
    /// 1, plus the depth of the deepest derived table its query reads.
    pub depth: usize,
    /// What else makes its rows: a recursive common table expression's steps, or the rows of
    /// the recursion's last step that its recursive part reads.
    pub kind: DerivedKind,
}

/// How a derived table's rows are made beyond running its query.
#[derive(Debug)]
pub enum DerivedKind {
    /// Its query's rows.
    Query,
    /// WITH RECURSIVE: `query` (the anchor) gives the first rows; `step`, which reads the rows
    /// the step before added as table `working`, runs until it adds none. `distinct`: UNION
    /// DISTINCT, a row already there is not added again.
    Recursive {
        step: QueryPlan,
        working: u64,
        distinct: bool,
    },
    /// The rows the running recursion's last step added (read by its recursive part).
    Working(u64),
}

/// The most steps one recursive common table expression runs, MariaDB's max_recursive_iterations
/// default: past it the recursion stops with what it has and warning 1931, as in MariaDB.
pub const RECURSION_STEPS_MAX: usize = 1_000;

/// Numbers the working tables of recursive common table expressions.
static WORKING_TABLES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// A common table expression in scope: planned once where its WITH clause names it; every
/// reference reads the same plan, materialized for itself.
#[derive(Debug)]
pub struct Cte {
    pub name: String,
    pub table: Table,
    pub derived: Arc<Derived>,
}

/// A derived table without an alias. MariaDB 10.11's grammar requires the alias, so it answers
/// a syntax error (1064) where MySQL answers ER_DERIVED_MUST_HAVE_ALIAS (1248).
pub(crate) fn no_alias() -> SqlError {
    SqlError::parse("every derived table must have its own alias")
}

/// The common table expression `name` refers to, if one is in scope (the innermost of that
/// name; a name qualified by a database is always a table).
pub(crate) fn cte<'i>(input: &'i PlanInput, name: &ObjectName) -> Option<&'i Arc<Cte>> {
    let [part] = name.0.as_slice() else {
        return None;
    };
    let ident = part.as_ident()?;
    // MariaDB compares query names without regard to case, unlike table names.
    input
        .ctes
        .iter()
        .rev()
        .find(|c| c.name.eq_ignore_ascii_case(&ident.value))
}

/// The planning input with a query's WITH clause's common table expressions in scope (None
/// without one): each is planned in turn, seeing those before it (and those of enclosing WITH
/// clauses), as MariaDB resolves them, so one that names a later one, or itself, finds no such
/// table.
pub(crate) fn scope<'a>(
    input: &PlanInput<'a>,
    with: Option<&ast::With>,
    resolve: &dyn Fn(&ObjectName) -> Result<(Table, TableRef)>,
) -> Result<Option<PlanInput<'a>>> {
    let Some(with) = with else {
        return Ok(None);
    };
    let mut scoped = PlanInput {
        sql: input.sql,
        placeholders: input.placeholders,
        ctes: input.ctes.clone(),
        source: std::cell::OnceCell::new(),
    };
    for (n, cte) in with.cte_tables.iter().enumerate() {
        let name = cte.alias.name.value.clone();
        if with.cte_tables[..n]
            .iter()
            .any(|c| c.alias.name.value.eq_ignore_ascii_case(&name))
        {
            return Err(SqlError::new(
                4004,
                "HY000",
                format!("Duplicate query name `{name}` in WITH clause"),
            ));
        }
        if cte.from.is_some() {
            return Err(SqlError::unsupported("WITH ... AS (...) FROM"));
        }
        let (table, derived) = if with.recursive && names_itself(&cte.query, &name) {
            plan_recursive(&mut scoped, &cte.query, &name, &cte.alias.columns, resolve)?
        } else {
            plan(&scoped, &cte.query, &name, &cte.alias.columns, resolve)?
        };
        scoped.ctes.push(Arc::new(Cte {
            name,
            table,
            derived,
        }));
    }
    Ok(Some(scoped))
}

/// Whether query `q` reads a table called `name` (a recursive common table expression).
fn names_itself(q: &ast::Query, name: &str) -> bool {
    ast::visit_relations(q, |r| {
        if r.0.len() == 1
            && r.0[0]
                .as_ident()
                .is_some_and(|i| i.value.eq_ignore_ascii_case(name))
        {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    })
    .is_break()
}

/// Plans a recursive common table expression `anchor UNION [ALL | DISTINCT] step`: the anchor
/// (which must not read `name`) gives the table's columns; the step is planned with `name`
/// standing for the working table, the rows the step before added.
fn plan_recursive(
    scoped: &mut PlanInput,
    q: &ast::Query,
    name: &str,
    renames: &[ast::TableAliasColumnDef],
    resolve: &dyn Fn(&ObjectName) -> Result<(Table, TableRef)>,
) -> Result<(Table, Arc<Derived>)> {
    let unsupported = || {
        SqlError::unsupported(format!(
            "a recursive WITH query `{name}` other than anchor UNION [ALL] one recursive SELECT"
        ))
    };
    let ast::SetExpr::SetOperation {
        op: ast::SetOperator::Union,
        set_quantifier,
        left,
        right,
    } = q.body.as_ref()
    else {
        return Err(unsupported());
    };
    if q.order_by.is_some() || q.limit_clause.is_some() || q.with.is_some() {
        return Err(unsupported());
    }
    let distinct = match set_quantifier {
        ast::SetQuantifier::All => false,
        ast::SetQuantifier::None | ast::SetQuantifier::Distinct => true,
        _ => return Err(unsupported()),
    };
    let part = |body: &ast::SetExpr| {
        let mut part = q.clone();
        part.body = Box::new(body.clone());
        part
    };
    let (anchor, step) = (part(left), part(right));
    if names_itself(&anchor, name) || !matches!(right.as_ref(), ast::SetExpr::Select(_)) {
        return Err(unsupported());
    }
    let (table, anchor) = plan(scoped, &anchor, name, renames, resolve)?;
    let working = WORKING_TABLES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let anchor = Arc::into_inner(anchor).ok_or_else(unsupported)?;
    // The step reads the working table under the query's name.
    scoped.ctes.push(Arc::new(Cte {
        name: name.to_string(),
        table: table.clone(),
        derived: Arc::new(Derived {
            name: name.to_string(),
            query: anchor.query.clone(),
            depth: anchor.depth,
            kind: DerivedKind::Working(working),
        }),
    }));
    let step = crate::plan::query(scoped, &step, resolve);
    scoped.ctes.pop();
    let step = step?;
    if step.columns().len() != anchor.query.columns().len() {
        return Err(SqlError::new(
            1222,
            "21000",
            "The used SELECT statements have a different number of columns",
        ));
    }
    Ok((
        table,
        Arc::new(Derived {
            name: name.to_string(),
            query: anchor.query,
            depth: anchor.depth,
            kind: DerivedKind::Recursive {
                step,
                working,
                distinct,
            },
        }),
    ))
}

/// Plans a derived table's query and makes its table definition: the result's columns, named
/// as the query names them or by `renames` (a column list after the alias or the CTE name).
pub(crate) fn plan(
    input: &PlanInput,
    q: &ast::Query,
    name: &str,
    renames: &[ast::TableAliasColumnDef],
    resolve: &dyn Fn(&ObjectName) -> Result<(Table, TableRef)>,
) -> Result<(Table, Arc<Derived>)> {
    let query = crate::plan::query(input, q, resolve)?;
    let depth = 1 + match &query {
        QueryPlan::Select(p) => select_depth(p),
        QueryPlan::Set(p) => p.tree.derived_depth(),
    };
    if depth > DERIVED_DEPTH_MAX {
        return Err(SqlError::new(
            1473,
            "HY000",
            format!("Too high level of nesting for select (derived tables within derived tables: at most {DERIVED_DEPTH_MAX})"),
        ));
    }
    let columns = query.columns();
    let names: Vec<String> = if renames.is_empty() {
        columns.iter().map(|c| c.name.clone()).collect()
    } else if renames.len() != columns.len() {
        return Err(SqlError::new(
            4002,
            "HY000",
            "WITH column list and SELECT field list have different column counts",
        ));
    } else {
        renames.iter().map(|c| c.name.value.clone()).collect()
    };
    let table = Table::virtual_table(definition(name, columns, &names)?);
    Ok((
        table,
        Arc::new(Derived {
            name: name.to_string(),
            query,
            depth,
            kind: DerivedKind::Query,
        }),
    ))
}

/// The deepest chain of derived tables a SELECT reads (0: none).
pub(crate) fn select_depth(p: &SelectPlan) -> usize {
    let steps = p
        .joined
        .iter()
        .flat_map(|j| j.steps.iter().map(|s| &s.source));
    p.source
        .iter()
        .chain(steps)
        .filter_map(|s| s.derived.as_ref())
        .map(|d| d.depth)
        .max()
        .unwrap_or(0)
}

/// A derived table's definition: a column per result column, typed as the result announces
/// it, named `names` (which must differ, ER_DUP_FIELDNAME otherwise), and the hidden key.
fn definition(table: &str, columns: &[Column], names: &[String]) -> Result<TableDef> {
    let mut defs = Vec::with_capacity(columns.len());
    for (n, (column, name)) in columns.iter().zip(names).enumerate() {
        if names[..n].iter().any(|o| o.eq_ignore_ascii_case(name)) {
            return Err(SqlError::new(
                1060,
                "42S21",
                format!("Duplicate column name '{name}'"),
            ));
        }
        defs.push(result_column(column, name));
    }
    // No primary key of its own: the hidden key numbers the rows.
    TableDef::new(&format!("$derived/{table}"), defs, &[])
        .map_err(|e| SqlError::new(1105, "HY000", format!("derived table {table}: {e}")))
}

/// A table column named `name` holding result column `column`'s values: its type, collation and
/// nullability as the result announces them.
pub(crate) fn result_column(column: &Column, name: &str) -> base::schema::ColumnDef {
    let mut def = base::schema::ColumnDef::new(name, column_type(column));
    // Strings keep the collation the inner query derived (a `_bin` column stays `_bin`).
    if let Some(c) = crate::expr::meta::collation_of(column).filter(|_| def.ty.is_string()) {
        if def.collation != base::types::Collation::Binary {
            def = def.collation(c);
        }
    }
    // A spatial value: a GEOMETRY column (the kind of a table's column comes back through
    // `with_origin`).
    if column.column_type == types::GEOMETRY {
        def.geometry = Some(base::geometry::GeometryColumn {
            kind: base::geometry::GeometryKind::Geometry,
            srid: None,
        });
    }
    if column.flags & flags::NOT_NULL == 0 {
        def.nullable()
    } else {
        def
    }
}

/// The column type a result column announces: the inverse of `typing::column_type_code`, so the
/// outer query shows a derived table's columns as the inner query did.
fn column_type(c: &Column) -> ColumnType {
    let unsigned = c.flags & flags::UNSIGNED != 0;
    let binary = c.collation == BINARY_COLLATION_ID;
    let fsp = c.decimals.min(6);
    match c.column_type {
        types::TINY => ColumnType::TinyInt { unsigned },
        types::SHORT => ColumnType::SmallInt { unsigned },
        types::INT24 => ColumnType::MediumInt { unsigned },
        types::LONG => ColumnType::Int { unsigned },
        types::LONGLONG => ColumnType::BigInt { unsigned },
        types::FLOAT => ColumnType::Float,
        types::DOUBLE => ColumnType::Double,
        types::DECIMAL | types::NEWDECIMAL => {
            let scale = c.decimals.min(base::limits::DECIMAL_SCALE_MAX);
            let precision = c.length.saturating_sub(2).clamp(1, 65) as u8;
            ColumnType::Decimal {
                precision: precision.max(scale).max(1),
                scale,
            }
        }
        types::DATE => ColumnType::Date,
        types::DATETIME => ColumnType::DateTime { fsp },
        types::TIMESTAMP => ColumnType::Timestamp { fsp },
        types::TIME => ColumnType::Time { fsp },
        types::YEAR => ColumnType::Year,
        types::STRING if binary => ColumnType::Binary { length: c.length },
        types::STRING => ColumnType::Char {
            length: c.length / 4,
        },
        // A spatial value: the LONGBLOB underneath (the kind is not carried over).
        types::GEOMETRY => ColumnType::Blob {
            size: LobSize::Long,
        },
        types::BLOB | types::LONG_BLOB if binary => ColumnType::Blob {
            size: LobSize::holding(c.length.into()).unwrap_or(LobSize::Long),
        },
        types::BLOB | types::LONG_BLOB => ColumnType::Text {
            size: LobSize::holding((c.length / 4).into()).unwrap_or(LobSize::Long),
        },
        // SELECT NULL: MariaDB makes a BINARY(0) column.
        types::NULL => ColumnType::Binary { length: 0 },
        _ if binary => ColumnType::VarBinary { length: c.length },
        _ => ColumnType::VarChar {
            length: c.length / 4,
        },
    }
}

/// The rows of a derived table, or ER_RECORD_FILE_FULL when there are more than `rows_max`.
pub(crate) fn bounded(
    rows: Vec<Vec<Value>>,
    name: &str,
    rows_max: usize,
) -> Result<Vec<Vec<Value>>> {
    if rows.len() > rows_max {
        return Err(SqlError::new(
            1114,
            "HY000",
            format!("The table '{name}' is full (derived tables hold at most {rows_max} rows)"),
        ));
    }
    Ok(rows)
}

/// Result rows as a derived table's fetched rows: the columns `fetch` names, the hidden key
/// (after the result's columns) numbering the rows from 1.
pub(crate) fn fetched(rows: Vec<Vec<Value>>, fetch: &[u16]) -> Vec<Vec<Value>> {
    rows.into_iter()
        .enumerate()
        .map(|(n, row)| {
            fetch
                .iter()
                .map(|c| match row.get(*c as usize) {
                    Some(v) => v.clone(),
                    None => Value::UInt(n as u64 + 1),
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str, column_type: u8, length: u32, decimals: u8, flags: u16) -> Column {
        let mut c = Column::computed(name, column_type, length, decimals);
        c.flags |= flags;
        c
    }

    #[test]
    fn result_columns_keep_their_types() {
        for ty in [
            ColumnType::TinyInt { unsigned: false },
            ColumnType::SmallInt { unsigned: true },
            ColumnType::Int { unsigned: false },
            ColumnType::BigInt { unsigned: true },
            ColumnType::Double,
            ColumnType::Decimal {
                precision: 10,
                scale: 2,
            },
            ColumnType::VarChar { length: 40 },
            ColumnType::Char { length: 10 },
            ColumnType::TEXT,
            ColumnType::BLOB,
            ColumnType::Text {
                size: LobSize::Tiny,
            },
            ColumnType::Text {
                size: LobSize::Medium,
            },
            ColumnType::Text {
                size: LobSize::Long,
            },
            ColumnType::Blob {
                size: LobSize::Long,
            },
            ColumnType::VarBinary { length: 16 },
            ColumnType::Date,
            ColumnType::DateTime { fsp: 3 },
            ColumnType::Time { fsp: 0 },
        ] {
            let def = TableDef::new("d/t", vec![base::schema::ColumnDef::new("c", ty)], &[])
                .expect("a definition");
            let shown = crate::expr::meta::table_column("d", "t", "t", &def, 0, "c");
            assert_eq!(column_type(&shown), ty, "{ty:?}");
        }
    }

    #[test]
    fn duplicate_names_are_refused_in_any_case() {
        let c = column("a", types::LONGLONG, 21, 0, 0);
        let e = definition("t", &[c.clone(), c], &["a".into(), "A".into()]).unwrap_err();
        assert_eq!(e.code, 1060);
        let ok = definition(
            "t",
            &[column("a", types::LONGLONG, 21, 0, flags::NOT_NULL)],
            &["a".into()],
        )
        .expect("one column");
        assert!(!ok.columns[0].nullable);
        assert!(ok.has_hidden_pk());
    }

    #[test]
    fn materialization_stops_past_its_limit() {
        let rows = vec![vec![Value::Int(1)]; 3];
        assert_eq!(
            bounded(rows.clone(), "t", 3).expect("at the limit").len(),
            3
        );
        let e = bounded(rows, "t", 2).unwrap_err();
        assert_eq!(e.code, 1114);
        assert!(e.message.contains("'t'"), "{}", e.message);
    }

    #[test]
    fn fetched_rows_number_the_hidden_key() {
        let rows = vec![
            vec![Value::Int(7), Value::Null],
            vec![Value::Int(8), Value::Null],
        ];
        assert_eq!(
            fetched(rows, &[2, 0]),
            vec![
                vec![Value::UInt(1), Value::Int(7)],
                vec![Value::UInt(2), Value::Int(8)]
            ]
        );
    }
}
