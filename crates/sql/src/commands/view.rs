//! CREATE [OR REPLACE] VIEW, ALTER VIEW, DROP VIEW, SHOW CREATE VIEW, and what a view answers
//! where a table is looked for (DESCRIBE, SHOW COLUMNS, SHOW CREATE TABLE, DROP TABLE,
//! CREATE TABLE over its name). The definitions are `catalog/view.rs`'s; reading one is
//! `session/views.rs`'s.

use base::TableDef;
use myproto::response::Column;
use sqlparser::ast::{self, ObjectName};
use sqlparser::parser::Parser;

use crate::catalog::view::{self, View};
use crate::foundation::error::{Result, SqlError};
use crate::parse::dialect::Cairn;
use crate::plan::compiled::Compiled;
use crate::session::{done, Outcome, Session};

impl Session {
    /// CREATE [OR REPLACE] [ALGORITHM=...] [DEFINER=...] [SQL SECURITY ...] VIEW v [(columns)]
    /// AS query, and ALTER VIEW (`alter`: the view must exist). The query is planned and run
    /// to no rows first, so a view that cannot be read (a missing table, an unknown column,
    /// another count of columns than named, a column named twice) is refused as MariaDB
    /// refuses it.
    pub(crate) fn create_view(&mut self, c: &ast::CreateView) -> Result<Outcome> {
        if c.materialized || c.temporary || c.secure || c.to.is_some() {
            return Err(SqlError::parse(format!("near '{}'", c.name)));
        }
        let columns = c.columns.iter().map(|col| col.name.value.clone()).collect();
        let how = Defining {
            or_replace: c.or_replace,
            if_not_exists: c.if_not_exists,
            alter: false,
        };
        self.define_view(&c.name, columns, &c.query, c.params.as_ref(), how)
    }

    /// ALTER VIEW v [(columns)] AS query: the view must exist.
    pub(crate) fn alter_view(
        &mut self,
        name: &ObjectName,
        columns: &[ast::Ident],
        query: &ast::Query,
    ) -> Result<Outcome> {
        let columns = columns.iter().map(|c| c.value.clone()).collect();
        let how = Defining {
            or_replace: true,
            if_not_exists: false,
            alter: true,
        };
        self.define_view(name, columns, query, None, how)
    }

    fn define_view(
        &mut self,
        view_name: &ObjectName,
        columns: Vec<String>,
        query: &ast::Query,
        params: Option<&ast::CreateViewParams>,
        how: Defining,
    ) -> Result<Outcome> {
        let Defining {
            or_replace,
            if_not_exists,
            alter,
        } = how;
        let (full, db, name) = self.permanent_table_name(view_name)?;
        if crate::catalog::infoschema::is_schema(&db) {
            return Err(SqlError::unsupported("a view in information_schema"));
        }
        if self.database(&db)?.is_none() {
            return Err(SqlError::unknown_database(&db));
        }
        let cluster = self.shared.cluster();
        let existing = view::find(&cluster, &db, &name)?;
        if alter && existing.is_none() {
            return Err(SqlError::no_table(&db, &name));
        }
        if cluster.table(&full).is_ok() || (existing.is_some() && !or_replace) {
            if if_not_exists {
                self.note(1050, format!("Table '{name}' already exists"));
                return Ok(done(0));
            }
            return Err(crate::commands::create::already_exists(&name));
        }
        let word = |s: String| s.to_uppercase();
        // The query as typed, its tables named with the view's database; a column list goes
        // into the select items' aliases, which takes the query as sqlparser writes it back.
        let typed = self.view_text.borrow_mut().take();
        let current = self.database.clone().ok_or_else(SqlError::no_database)?;
        let (text, columns) = match named_items(query, &columns) {
            Some(named) => (
                crate::session::views::qualified(&named, &current)?,
                Vec::new(),
            ),
            None => match typed {
                Some(text) => (text?, columns),
                None => (
                    crate::session::views::qualified(&query.to_string(), &current)?,
                    columns,
                ),
            },
        };
        let view = View {
            db,
            name,
            definer: params
                .and_then(|p| p.definer.as_ref())
                .map(|d| d.to_string().replace(['`', '\'', '"'], ""))
                .unwrap_or_else(|| format!("{}@{}", self.user, self.account_host)),
            security: word(
                params
                    .and_then(|p| p.security.as_ref())
                    .map_or("DEFINER".into(), |s| s.to_string()),
            ),
            algorithm: word(
                params
                    .and_then(|p| p.algorithm.as_ref())
                    .map_or("UNDEFINED".into(), |a| a.to_string()),
            ),
            check_option: "NONE".into(),
            query: text,
            columns,
        };
        self.view_columns(&view)?;
        view::store(&cluster, &view, existing.is_some())?;
        self.plans.clear();
        Ok(done(0))
    }

    /// DROP VIEW [IF EXISTS] v[, w ...]: MariaDB's 4092 names those that are no view.
    pub(crate) fn drop_views(&mut self, if_exists: bool, names: &[ObjectName]) -> Result<Outcome> {
        let cluster = self.shared.cluster();
        let mut missing = Vec::new();
        for name in names {
            let (_, db, table) = self.permanent_table_name(name)?;
            if !view::delete(&cluster, &db, &table)? {
                missing.push(format!("{db}.{table}"));
            }
        }
        self.plans.clear();
        if missing.is_empty() {
            return Ok(done(0));
        }
        let message = format!("Unknown VIEW: '{}'", missing.join(","));
        if if_exists {
            self.note(4092, message);
            Ok(done(0))
        } else {
            Err(SqlError::new(4092, "42S02", message))
        }
    }

    /// The view `name` names when it names no table (nor temporary table).
    pub(crate) fn view_of(&self, name: &ObjectName) -> Result<Option<View>> {
        let (_, db, table) = self.table_name(name)?;
        if self.temporaries.get(&db, &table).is_some() {
            return Ok(None);
        }
        view::find(&self.shared.cluster(), &db, &table)
    }

    /// The definition DESCRIBE and SHOW COLUMNS show of a table, or of a view.
    pub(crate) fn described(&mut self, name: &ObjectName) -> Result<TableDef> {
        match self.table(name) {
            Ok((table, _, _)) => Ok(table.def().clone()),
            Err(e) if e.code == 1146 => match self.view_of(name)? {
                Some(view) => self
                    .view_definition(&view)
                    .map_err(|e| view::invalid(e, &view)),
                None => Err(e),
            },
            Err(e) => Err(e),
        }
    }

    /// SHOW CREATE VIEW v, and SHOW CREATE TABLE of a view: MariaDB's four columns.
    pub(crate) fn show_create_view(&mut self, view: &View) -> Outcome {
        let text = |s: &str| base::Value::Bytes(s.as_bytes().to_vec());
        let columns = [
            "View",
            "Create View",
            "character_set_client",
            "collation_connection",
        ]
        .iter()
        .map(|c| Column::computed(c, myproto::response::types::VAR_STRING, 1024 * 4, 0))
        .collect();
        let (charset, collation) = (self.charsets.client.name(), self.charsets.collation);
        Outcome::Rows {
            columns,
            rows: vec![vec![
                text(&view.name),
                text(&view::create_text(view)),
                text(charset),
                text(collation),
            ]],
        }
    }

    /// What DESCRIBE and SHOW COLUMNS show of a view: a definition of its result's columns.
    pub(crate) fn view_definition(&mut self, view: &View) -> Result<TableDef> {
        let columns = self.view_columns(view)?;
        self.defined_view(view, &columns)
    }

    /// A view's definition as planning alone tells it (information_schema.COLUMNS): None for
    /// a view whose query does not plan (a table it reads is gone) or must run to tell.
    pub(crate) fn view_definition_planned(&self, view: &View) -> Option<TableDef> {
        let columns = self.view_columns_planned(view).ok()?.ok()?;
        self.defined_view(view, &columns).ok()
    }

    fn defined_view(&self, view: &View, columns: &[Column]) -> Result<TableDef> {
        let origins = self.view_origins(view, columns.len());
        let mut defs = Vec::with_capacity(columns.len());
        for (n, column) in columns.iter().enumerate() {
            let name = view.columns.get(n).unwrap_or(&column.name);
            let def = crate::plan::derived::result_column(column, name);
            defs.push(self.with_origin(def, origins.get(n).and_then(Option::as_ref)));
        }
        TableDef::new(&view.name, defs, &[])
            .map_err(|e| crate::commands::ddl::schema_error(&view.name, e))
    }

    /// `def`, a result column's definition as its metadata announces it, completed from the
    /// table column it passes through (`origin`, its metadata) with what metadata cannot say:
    /// an ENUM's or SET's members, and ZEROFILL, as MariaDB keeps them in a view's columns and
    /// CREATE TABLE ... SELECT's.
    pub(crate) fn with_origin(
        &self,
        mut def: base::schema::ColumnDef,
        origin: Option<&Column>,
    ) -> base::schema::ColumnDef {
        use myproto::response::flags;
        let Some(origin) = origin.filter(|o| !o.org_table.is_empty() && !o.org_name.is_empty())
        else {
            return def;
        };
        let members = origin.flags & (flags::ENUM | flags::SET) != 0;
        let zerofill = origin.flags & flags::ZEROFILL != 0 && def.ty.is_integer();
        let spatial = def.geometry.is_some();
        if !(members || zerofill || spatial)
            || self
                .temporaries
                .get(&origin.schema, &origin.org_table)
                .is_some()
        {
            return def;
        }
        let full = format!("{}/{}", origin.schema, origin.org_table);
        let Ok(table) = self.shared.cluster().table(&full) else {
            return def;
        };
        let Some(c) = table
            .def()
            .column(&origin.org_name)
            .map(|p| &table.def().columns[p])
        else {
            return def;
        };
        use base::types::ColumnType as T;
        let same = match c.ty {
            T::Enum => origin.flags & flags::ENUM != 0,
            T::Set => origin.flags & flags::SET != 0,
            _ if spatial => c.geometry.is_some(),
            ty => zerofill && c.zerofill && ty == def.ty,
        };
        if same {
            def.ty = c.ty;
            def.members = c.members.clone();
            def.collation = c.collation;
            def.zerofill = c.zerofill;
            def.display_width = c.display_width;
            def.geometry = c.geometry;
        }
        def
    }

    /// The table columns a view's query passes through as they are, by position (None for a
    /// computed one, or when its query is no single SELECT): their definitions say what its
    /// result's metadata cannot (an ENUM's members, ZEROFILL).
    fn view_origins(&self, view: &View, width: usize) -> Vec<Option<Column>> {
        let Ok(mut statements) = Parser::parse_sql(&Cairn, &view.query) else {
            return Vec::new();
        };
        if statements.len() != 1 {
            return Vec::new();
        }
        match self.compile(statements.remove(0), &view.query, &[]) {
            Ok(Compiled::Select(p)) if p.columns.len() == width => {
                p.columns.iter().map(|c| Some(c.clone())).collect()
            }
            _ => Vec::new(),
        }
    }

    /// The columns a view's rows have as its query's plan tells them, or the plan when only
    /// running it tells (a subquery in it).
    fn view_columns_planned(
        &self,
        view: &View,
    ) -> Result<std::result::Result<Vec<Column>, Compiled>> {
        let sql = format!(
            "SELECT * FROM {} LIMIT 0",
            crate::session::views::derived(view, &view.name)
        );
        let mut statements = Parser::parse_sql(&Cairn, &sql).map_err(SqlError::parse)?;
        if statements.len() != 1 {
            return Err(SqlError::unsupported("a view that is not one query"));
        }
        let compiled = self
            .compile(statements.remove(0), &sql, &[])
            .map_err(|e| view_error(e, view))?;
        Ok(match &compiled {
            Compiled::Select(p) => Ok(p.columns.clone()),
            Compiled::Set(p) => Ok(p.columns.clone()),
            _ => Err(compiled),
        })
    }

    /// The columns a view's rows have: its query planned, and run to no rows when planning
    /// alone does not tell (a subquery in it).
    fn view_columns(&mut self, view: &View) -> Result<Vec<Column>> {
        let compiled = match self.view_columns_planned(view)? {
            Ok(columns) => return Ok(columns),
            Err(compiled) => compiled,
        };
        match self
            .execute(&compiled, &[])
            .map_err(|e| view_error(e, view))?
        {
            Outcome::Rows { columns, .. } => Ok(columns),
            _ => Err(SqlError::unsupported("a view whose query returns no rows")),
        }
    }
}

/// The query with its select items named as `columns` say, as MariaDB keeps a view's column
/// list: when the query is one SELECT of as many items as names, none a wildcard.
fn named_items(query: &ast::Query, columns: &[String]) -> Option<String> {
    if columns.is_empty() {
        return None;
    }
    let mut query = query.clone();
    let ast::SetExpr::Select(select) = query.body.as_mut() else {
        return None;
    };
    if select.projection.len() != columns.len() {
        return None;
    }
    for (item, name) in select.projection.iter_mut().zip(columns) {
        let expr = match item {
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                e.clone()
            }
            _ => return None,
        };
        *item = ast::SelectItem::ExprWithAlias {
            expr,
            alias: ast::Ident::with_quote('`', name),
        };
    }
    Some(query.to_string())
}

/// How a view is being defined: CREATE [OR REPLACE] [IF NOT EXISTS], or ALTER.
struct Defining {
    or_replace: bool,
    if_not_exists: bool,
    alter: bool,
}

/// A failure planning a view's query, in MariaDB's words for a view: a column count other than
/// the view's list is 1353 (a derived table's is 4002, plan/derived.rs).
fn view_error(e: SqlError, view: &View) -> SqlError {
    if e.code == 4002 && !view.columns.is_empty() {
        return SqlError::new(
            1353,
            "HY000",
            "View's SELECT and view's field list have different column counts",
        );
    }
    e
}
