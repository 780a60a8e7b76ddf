//! Views in statements: a name in FROM that is no table but a view (`catalog/view.rs`)
//! becomes its query as a derived table in the statement's text, `(query) AS name(columns)`,
//! and the text is parsed again, so every span the planner reads names the text it plans;
//! views over views expand in turn, up to `VIEW_DEPTH_MAX` deep (MariaDB's 1462 past it).

use std::ops::ControlFlow;

use sqlparser::ast::{self, ObjectName, Statement, TableFactor, Visit, Visitor};
use sqlparser::parser::Parser;
use sqlparser::tokenizer::Location;

use crate::catalog::view::{self, View, VIEW_DEPTH_MAX};
use crate::foundation::error::{Result, SqlError};
use crate::parse::dialect::Cairn;
use crate::session::Session;

/// The names a statement reads in FROM (tables, maybe views) and the names its WITH clauses
/// define.
#[derive(Default)]
struct Relations {
    factors: Vec<(ObjectName, Option<ast::TableAlias>)>,
    ctes: Vec<String>,
}

impl Visitor for Relations {
    type Break = ();

    fn pre_visit_query(&mut self, query: &ast::Query) -> ControlFlow<()> {
        if let Some(with) = &query.with {
            for cte in &with.cte_tables {
                self.ctes.push(cte.alias.name.value.to_lowercase());
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        if let TableFactor::Table {
            name,
            alias,
            args: None,
            ..
        } = factor
        {
            self.factors.push((name.clone(), alias.clone()));
        }
        ControlFlow::Continue(())
    }
}

/// A statement with its views expanded: its text, the statement parsed from it and its
/// placeholders.
pub(crate) struct Expanded {
    pub sql: String,
    pub statement: Statement,
    pub placeholders: Vec<Location>,
}

impl Session {
    /// `s` (parsed from `sql`) with every view it reads expanded, or None when it reads none.
    pub(crate) fn expand_views(&self, s: &Statement, sql: &str) -> Result<Option<Expanded>> {
        if let Statement::Insert(ast::Insert {
            table: ast::TableObject::TableName(name),
            ..
        }) = s
        {
            if self.view_named(name, &[])?.is_some() {
                // Cairn's views are read only.
                return Err(SqlError::new(
                    1471,
                    "HY000",
                    format!(
                        "The target table {} of the INSERT is not insertable-into",
                        crate::plan::ident_last(name)
                    ),
                ));
            }
        }
        let mut current: Option<Expanded> = None;
        for _ in 0..=VIEW_DEPTH_MAX {
            let (statement, text) = match &current {
                Some(e) => (&e.statement, e.sql.as_str()),
                None => (s, sql),
            };
            let Some(sql) = self.expand_once(statement, text)? else {
                return Ok(current);
            };
            self.planned_view.set(true);
            let mut statements = Parser::parse_sql(&Cairn, &sql).map_err(SqlError::parse)?;
            if statements.len() != 1 {
                return Err(SqlError::unsupported("a view that is not one query"));
            }
            let placeholders = crate::plan::placeholders(&sql)?;
            current = Some(Expanded {
                statement: statements.remove(0),
                sql,
                placeholders,
            });
        }
        Err(SqlError::new(
            1462,
            "HY000",
            format!("Views nest more than {VIEW_DEPTH_MAX} deep (or refer to themselves)"),
        ))
    }

    /// The text with the views `s` reads in FROM replaced by their queries; None when it
    /// reads none.
    fn expand_once(&self, s: &Statement, sql: &str) -> Result<Option<String>> {
        let mut relations = Relations::default();
        let _ = s.visit(&mut relations);
        let mut cuts: Vec<(usize, usize, String)> = Vec::new();
        for (name, alias) in &relations.factors {
            let Some(view) = self.view_named(name, &relations.ctes)? else {
                continue;
            };
            let Some(start) = name
                .0
                .first()
                .and_then(|p| p.as_ident())
                .and_then(|i| crate::parse::offset(sql, i.span.start))
            else {
                return Err(SqlError::unsupported(format!("the view name {name}")));
            };
            let last = match alias {
                Some(a) if !a.columns.is_empty() => {
                    return Err(SqlError::unsupported(format!(
                        "column names given to view {name} where it is read"
                    )))
                }
                Some(a) => a.name.span.end,
                None => name
                    .0
                    .last()
                    .and_then(|p| p.as_ident())
                    .map(|i| i.span.end)
                    .unwrap_or(Location::empty()),
            };
            let Some(end) = crate::parse::offset(sql, last) else {
                return Err(SqlError::unsupported(format!("the view name {name}")));
            };
            let shown = alias.as_ref().map_or(view.name.as_str(), |a| &a.name.value);
            cuts.push((start, end, derived(&view, shown)));
        }
        if cuts.is_empty() {
            return Ok(None);
        }
        cuts.sort_by_key(|c| std::cmp::Reverse(c.0));
        let mut text = sql.to_string();
        for (start, end, with) in cuts {
            if start > end || end > text.len() {
                return Err(SqlError::unsupported("a view read in this place"));
            }
            text.replace_range(start..end, &with);
        }
        Ok(Some(text))
    }

    /// The view `name` names, when it names no table (nor a WITH clause's query).
    fn view_named(&self, name: &ObjectName, ctes: &[String]) -> Result<Option<View>> {
        if let [part] = name.0.as_slice() {
            if part
                .as_ident()
                .is_some_and(|i| ctes.contains(&i.value.to_lowercase()))
            {
                return Ok(None);
            }
        }
        match self.table(name) {
            Ok(_) => Ok(None),
            Err(e) if e.code == 1146 => {
                let (_, db, table) = self.permanent_table_name(name)?;
                view::find(&self.shared.cluster(), &db, &table)
            }
            Err(e) => Err(e),
        }
    }
}

/// A view's query as a derived table named `shown`, with the view's column names.
fn derived(view: &View, shown: &str) -> String {
    let columns = if view.columns.is_empty() {
        String::new()
    } else {
        let quoted: Vec<String> = view.columns.iter().map(|c| quote(c)).collect();
        format!("({})", quoted.join(", "))
    };
    format!("({}) AS {}{columns}", view.query, quote(shown))
}

fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}
