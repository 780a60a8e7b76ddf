//! Views in statements: a name in FROM that is no table but a view (`catalog/view.rs`)
//! becomes its query as a derived table in the statement's text, `(query) AS name(columns)`,
//! and the text is parsed again, so every span the planner reads names the text it plans;
//! views over views expand in turn, up to `VIEW_DEPTH_MAX` deep (MariaDB's 1462 past it).

use std::ops::ControlFlow;

use sqlparser::ast::{self, ObjectName, Statement, TableFactor, Visit, Visitor};
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Location, Token, Tokenizer};

use crate::catalog::definition::backticked;
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
    /// The views the statement itself reads (not those they read in turn).
    pub views: Vec<View>,
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
        let mut views = Vec::new();
        for _ in 0..=VIEW_DEPTH_MAX {
            let (statement, text) = match &current {
                Some(e) => (&e.statement, e.sql.as_str()),
                None => (s, sql),
            };
            let Some((sql, at, read)) = self.expand_once(statement, text)? else {
                return Ok(current);
            };
            if current.is_none() {
                views = read;
            }
            self.planned_view.set(true);
            let mut statements = Parser::parse_sql(&Cairn, &sql).map_err(SqlError::parse)?;
            if at >= statements.len() {
                return Err(SqlError::unsupported("a view that is not one query"));
            }
            let mut statement = statements.swap_remove(at);
            // A CREATE TABLE's partitioning was taken out of the text before it was parsed.
            if let (Statement::CreateTable(old), Statement::CreateTable(new)) = (s, &mut statement)
            {
                new.partition_by = old.partition_by.clone();
            }
            let placeholders = crate::plan::placeholders(&sql)?;
            current = Some(Expanded {
                statement,
                sql,
                placeholders,
                views: views.clone(),
            });
        }
        Err(SqlError::new(
            1462,
            "HY000",
            format!("Views nest more than {VIEW_DEPTH_MAX} deep (or refer to themselves)"),
        ))
    }

    /// The text with the views `s` reads in FROM replaced by their queries, which of the
    /// text's statements `s` is (a text may hold several), and the views; None when it reads
    /// none.
    fn expand_once(&self, s: &Statement, sql: &str) -> Result<Option<(String, usize, Vec<View>)>> {
        let mut relations = Relations::default();
        let _ = s.visit(&mut relations);
        let mut cuts: Vec<(usize, usize, String)> = Vec::new();
        let mut views = Vec::new();
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
            views.push(view);
        }
        let Some(first) = cuts.iter().map(|c| c.0).min() else {
            return Ok(None);
        };
        let at = statements_before(sql, first);
        cuts.sort_by_key(|c| std::cmp::Reverse(c.0));
        let mut text = sql.to_string();
        for (start, end, with) in cuts {
            if start > end || end > text.len() {
                return Err(SqlError::unsupported("a view read in this place"));
            }
            text.replace_range(start..end, &with);
        }
        Ok(Some((text, at, views)))
    }

    /// An error planning statement `s` once its views were expanded: MariaDB's 1356 for the
    /// view when a table is missing that `s` does not name itself (one its view reads).
    pub(crate) fn expanded_error(&self, e: SqlError, s: &Statement, views: &[View]) -> SqlError {
        if e.code != 1146 || views.is_empty() {
            return e;
        }
        let mentions = |name: &str| {
            e.message.contains(&format!(".{name}'")) || e.message.contains(&format!("'{name}'"))
        };
        let mut relations = Relations::default();
        let _ = s.visit(&mut relations);
        let mut names: Vec<&ObjectName> = relations.factors.iter().map(|(n, _)| n).collect();
        if let Statement::Insert(ast::Insert {
            table: ast::TableObject::TableName(target),
            ..
        }) = s
        {
            names.push(target);
        }
        if names.iter().any(|n| mentions(&crate::plan::ident_last(n))) {
            return e;
        }
        // The view whose query names the missing table (a view over views: the outermost).
        let missing = e.message.split('\'').nth(1).unwrap_or_default();
        let table = missing.rsplit('.').next().unwrap_or(missing).to_lowercase();
        let culprit = views
            .iter()
            .find(|v| v.query.to_lowercase().contains(&table))
            .unwrap_or(&views[0]);
        view::invalid(e, culprit)
    }

    /// The view `name` names, when it names no table (nor a WITH clause's query).
    fn view_named(&self, name: &ObjectName, ctes: &[String]) -> Result<Option<View>> {
        if let [part] = name.0.as_slice() {
            if part.as_ident().is_some_and(|i| {
                ctes.contains(&i.value.to_lowercase()) || i.value.eq_ignore_ascii_case("dual")
            }) {
                return Ok(None);
            }
        }
        match self.table(name) {
            Ok(_) => Ok(None),
            // No database: not a view either (the planner says which error it is).
            Err(e) if e.code == 1046 => Ok(None),
            Err(e) if e.code == 1146 => {
                let (_, db, table) = self.permanent_table_name(name)?;
                view::find(&self.shared.cluster(), &db, &table)
            }
            Err(e) => Err(e),
        }
    }
}

/// How many statements of `sql` end before byte `offset` (top-level semicolons).
fn statements_before(sql: &str, offset: usize) -> usize {
    let Ok(tokens) = Tokenizer::new(&Cairn, sql).tokenize_with_location() else {
        return 0;
    };
    tokens
        .iter()
        .filter(|t| matches!(t.token, Token::SemiColon))
        .filter_map(|t| crate::parse::offset(sql, t.span.start))
        .filter(|o| *o < offset)
        .count()
}

/// The query of the CREATE or ALTER VIEW statement that names view `name` in `sql`, as typed
/// (what follows its AS, to the statement's end), its tables named with database `db`, the
/// current one (MariaDB keeps them so: a view reads the same tables wherever it is read).
pub(crate) fn view_query_text(sql: &str, name: &ObjectName, db: &str) -> Result<String> {
    let start = name
        .0
        .first()
        .and_then(|p| p.as_ident())
        .and_then(|i| crate::parse::offset(sql, i.span.start))
        .ok_or_else(|| SqlError::unsupported("this view's text"))?;
    let tokens = Tokenizer::new(&Cairn, sql)
        .tokenize_with_location()
        .map_err(SqlError::parse)?;
    let mut depth = 0usize;
    let mut from = None;
    let mut to = sql.len();
    for t in &tokens {
        let Some(at) = crate::parse::offset(sql, t.span.start) else {
            continue;
        };
        if at < start {
            continue;
        }
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            Token::SemiColon if depth == 0 && from.is_some() => {
                to = at;
                break;
            }
            Token::Word(w)
                if depth == 0
                    && from.is_none()
                    && w.keyword == sqlparser::keywords::Keyword::AS =>
            {
                from = crate::parse::offset(sql, t.span.end);
            }
            _ => {}
        }
    }
    let from = from.ok_or_else(|| SqlError::parse("a view needs AS and its query"))?;
    qualified(sql.get(from..to).unwrap_or_default().trim(), db)
}

/// `query` with its one-part table names (not a WITH clause's) prefixed with database `db`.
pub(crate) fn qualified(query: &str, db: &str) -> Result<String> {
    let statements = Parser::parse_sql(&Cairn, query).map_err(SqlError::parse)?;
    let [statement] = statements.as_slice() else {
        return Err(SqlError::parse("a view's query must be one SELECT"));
    };
    let mut relations = Relations::default();
    let _ = statement.visit(&mut relations);
    let mut at: Vec<usize> = relations
        .factors
        .iter()
        .filter_map(|(name, _)| match name.0.as_slice() {
            [part] => part.as_ident(),
            _ => None,
        })
        .filter(|i| {
            let lower = i.value.to_lowercase();
            !relations.ctes.contains(&lower) && lower != "dual"
        })
        .filter_map(|i| crate::parse::offset(query, i.span.start))
        .collect();
    at.sort_unstable();
    at.dedup();
    let mut text = query.to_string();
    for offset in at.into_iter().rev() {
        text.insert_str(offset, &format!("{}.", backticked(db)));
    }
    Ok(text)
}

/// A view's query as a derived table named `shown`, with the view's column names.
pub(crate) fn derived(view: &View, shown: &str) -> String {
    let columns = if view.columns.is_empty() {
        String::new()
    } else {
        let quoted: Vec<String> = view.columns.iter().map(|c| backticked(c)).collect();
        format!("({})", quoted.join(", "))
    };
    format!("({}) AS {}{columns}", view.query, backticked(shown))
}
