//! The plan of an INSERT or REPLACE (`InsertPlan`, `plan/write.rs`): the target columns, each row's
//! values or DEFAULT from VALUES or SET, or the SELECT it reads, and ON DUPLICATE KEY UPDATE's
//! assignments, checked against the table as MariaDB checks them (1136, 1364, ...).

use crate::expr::{Compiler, Expr, Scope};
use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use crate::parse::ident;
use crate::plan::write::InsertPlan;
use crate::plan::write::OnDuplicate;
use crate::plan::{PlanInput, TableRef};
use base::types::ColumnType;
use base::Value;
use client::Table;
use sqlparser::ast::{self, SetExpr};

impl InsertPlan {
    pub(crate) fn table(&self) -> &Table {
        &self.table
    }

    /// An INSERT of rows already computed, each value into the column of `columns` at its
    /// position (CREATE TABLE ... SELECT).
    pub(crate) fn of_rows(
        table: Table,
        columns: Vec<u16>,
        rows: Vec<Vec<Value>>,
    ) -> Result<InsertPlan> {
        defaults_for_the_rest(table.def(), &columns)?;
        Ok(InsertPlan {
            table,
            columns,
            rows: rows
                .into_iter()
                .map(|r| r.into_iter().map(|v| Some(Expr::Const(v))).collect())
                .collect(),
            select: None,
            duplicate: OnDuplicate::Fail,
        })
    }
}

/// MariaDB's 1364 for a NOT NULL column without a default that an INSERT into `columns` leaves
/// out.
pub(crate) fn defaults_for_the_rest(def: &base::TableDef, columns: &[u16]) -> Result<()> {
    if let Some(missing) = def.columns.iter().enumerate().find(|(p, c)| {
        !c.nullable
            && !c.has_default()
            && !c.auto_increment
            && !c.hidden
            && c.generated.is_none()
            && !columns.contains(&(*p as u16))
    }) {
        return Err(SqlError::new(
            1364,
            "HY000",
            format!("Field '{}' doesn't have a default value", missing.1.name),
        ));
    }
    Ok(())
}

pub(crate) fn insert_plan(
    input: &PlanInput,
    i: &ast::Insert,
    resolve: &dyn Fn(&ast::ObjectName) -> Result<(Table, TableRef)>,
) -> Result<InsertPlan> {
    let ast::TableObject::TableName(name) = &i.table else {
        return Err(SqlError::unsupported("INSERT into a table function"));
    };
    let (table, tref) = resolve(name)?;
    let def = table.def().clone();
    let column_of = |n: &str| {
        def.column(n)
            .filter(|p| !def.columns[*p].hidden)
            .map(|p| p as u16)
            .ok_or_else(|| SqlError::unknown_column(n, "field list"))
    };
    let set_columns: Vec<String> = i
        .assignments
        .iter()
        .map(|a| match &a.target {
            ast::AssignmentTarget::ColumnName(n) => Ok(ident(n)?.1),
            _ => Err(SqlError::unsupported("tuple assignment")),
        })
        .collect::<Result<_>>()?;
    // `INSERT INTO t () VALUES ()` or `INSERT INTO t VALUES (), ()`: rows of defaults only.
    let defaults_only = set_columns.is_empty()
        && i.columns.is_empty()
        && matches!(
            i.source.as_ref().map(|q| q.body.as_ref()),
            Some(SetExpr::Values(v)) if v.rows.iter().all(|r| r.content.is_empty())
        );
    let columns: Vec<u16> = if !set_columns.is_empty() {
        set_columns
            .iter()
            .map(|n| column_of(n))
            .collect::<Result<_>>()?
    } else if defaults_only {
        Vec::new()
    } else if i.columns.is_empty() {
        (0..def.columns.len() as u16)
            .filter(|c| !def.columns[*c as usize].hidden)
            .collect()
    } else {
        i.columns
            .iter()
            .map(|c| column_of(&ident(c)?.1))
            .collect::<Result<_>>()?
    };
    for (n, c) in columns.iter().enumerate() {
        if columns[..n].contains(c) {
            return Err(SqlError::new(
                1110,
                "42000",
                format!("Column '{}' specified twice", def.columns[*c as usize].name),
            ));
        }
    }
    defaults_for_the_rest(&def, &columns)?;
    let mut c = Compiler::new(None, input.placeholders);
    let value = |c: &mut Compiler, e: &ast::Expr| match e {
        ast::Expr::Identifier(i)
            if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("default") =>
        {
            Ok(None)
        }
        e => c.compile(e).map(Some),
    };
    let mut rows = Vec::new();
    let mut select = None;
    match i.source.as_ref().map(|q| q.body.as_ref()) {
        None => {
            rows.push(
                i.assignments
                    .iter()
                    .map(|a| value(&mut c, &a.value))
                    .collect::<Result<_>>()?,
            );
        }
        Some(SetExpr::Values(values)) => {
            rows.reserve(values.rows.len());
            for (n, row) in values.rows.iter().enumerate() {
                if row.content.len() != columns.len() {
                    return Err(column_count(n + 1));
                }
                rows.push(
                    row.content
                        .iter()
                        .map(|e| value(&mut c, e))
                        .collect::<Result<_>>()?,
                );
            }
        }
        Some(_) => {
            let q = i.source.as_ref().expect("a source");
            let mut plan = crate::plan::query(input, q, resolve)?;
            if plan.columns().len() != columns.len() {
                return Err(column_count(1));
            }
            if let crate::plan::QueryPlan::Select(p) = &mut plan {
                // An ENUM or SET read into a column that does not hold names gets its number,
                // as MariaDB copies it.
                for (item, c) in p.items.iter_mut().zip(&columns) {
                    let target = &def.columns[*c as usize];
                    let names = target.ty.is_string()
                        || matches!(target.ty, ColumnType::Enum | ColumnType::Set);
                    if !names && matches!(item, Expr::Members { .. }) {
                        *item = std::mem::replace(item, Expr::Const(Value::Null)).numbered();
                    }
                }
            }
            select = Some(Box::new(plan));
        }
    }
    let duplicate = match (&i.on, i.ignore, i.replace_into) {
        (None, false, false) => OnDuplicate::Fail,
        (None, true, _) => OnDuplicate::Ignore,
        (None, false, true) => OnDuplicate::Replace,
        (Some(ast::OnInsert::DuplicateKeyUpdate(assignments)), _, false) => {
            let alias = match &i.insert_alias {
                None => String::new(),
                Some(a) if a.col_aliases.as_ref().is_none_or(Vec::is_empty) => {
                    ident(&a.row_alias)?.1
                }
                Some(_) => return Err(SqlError::unsupported("column aliases of the inserted row")),
            };
            let scopes = vec![
                Scope {
                    def: &def,
                    name: &tref.2,
                    database: &tref.0,
                    offset: 0,
                },
                Scope {
                    def: &def,
                    name: &alias,
                    database: &tref.0,
                    offset: def.columns.len(),
                },
            ];
            let mut c = Compiler::with_scopes(scopes, input.placeholders);
            c.inserted = Some(1);
            let mut out = Vec::with_capacity(assignments.len());
            for a in assignments {
                let ast::AssignmentTarget::ColumnName(n) = &a.target else {
                    return Err(SqlError::unsupported("tuple assignment"));
                };
                let column = column_of(&ident(n)?.1)?;
                if def.primary_key.contains(&column) {
                    return Err(SqlError::unsupported("UPDATE of a primary key column"));
                }
                out.push((column, c.compile(&a.value)?));
            }
            OnDuplicate::Update(out)
        }
        _ => return Err(SqlError::unsupported("this form of INSERT")),
    };
    Ok(InsertPlan {
        table,
        columns,
        rows,
        select,
        duplicate,
    })
}

pub(crate) fn column_count(row: usize) -> SqlError {
    SqlError::new(
        1136,
        "21S01",
        format!("Column count doesn't match value count at row {row}"),
    )
}
