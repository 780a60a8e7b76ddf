//! A connection's session and the statements it runs so far: SELECT of expressions and of one
//! table's rows (a filtered table scan), SHOW DATABASES/TABLES, USE, CREATE/DROP DATABASE,
//! CREATE/DROP TABLE, INSERT ... VALUES and SET; anything else is refused with
//! ER_NOT_SUPPORTED_YET naming it. The planner and executor of issue 3 replace the SELECT path.

use std::cmp::Ordering;
use std::sync::Arc;

use base::schema::{ColumnDef, IndexKind};
use base::text::{from_text, value_text};
use base::types::{Collation, ColumnType};
use base::{TableDef, Value};
use client::{ExecType, OpResult, Scan, Table};
use myproto::handshake::status;
use myproto::response::{flags, types, Column};
use sqlparser::ast::{self, Expr, ObjectName, SelectItem, SetExpr, Statement};
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::Parser;

use crate::error::SqlError;
use crate::Shared;

/// What one statement answers.
pub enum Outcome {
    Done {
        affected: u64,
        last_insert_id: u64,
    },
    Rows {
        columns: Vec<Column>,
        rows: Vec<Vec<Option<Vec<u8>>>>,
    },
    Failed(SqlError),
}

pub struct Session {
    pub shared: Arc<Shared>,
    pub id: u32,
    pub user: String,
    database: Option<String>,
    last_insert_id: u64,
}

type Result<T> = std::result::Result<T, SqlError>;

fn done(affected: u64) -> Outcome {
    Outcome::Done {
        affected,
        last_insert_id: 0,
    }
}

/// An object name as (database, name): `name` or `database.name`.
fn ident(name: &ObjectName) -> Result<(Option<String>, String)> {
    let parts: Vec<String> = name
        .0
        .iter()
        .map(|p| match p.as_ident() {
            Some(i) => Ok(i.value.clone()),
            None => Err(SqlError::unsupported(format!("the name {name}"))),
        })
        .collect::<Result<_>>()?;
    match parts.as_slice() {
        [t] => Ok((None, t.clone())),
        [d, t] => Ok((Some(d.clone()), t.clone())),
        _ => Err(SqlError::unsupported(format!("the name {name}"))),
    }
}

impl Session {
    pub fn new(shared: Arc<Shared>, id: u32) -> Session {
        Session {
            shared,
            id,
            user: String::new(),
            database: None,
            last_insert_id: 0,
        }
    }

    pub fn status_flags(&self) -> u16 {
        status::AUTOCOMMIT
    }

    pub fn warning_count(&self) -> u16 {
        0
    }

    pub fn use_database(&mut self, name: &str) -> Result<()> {
        let known = self
            .shared
            .cluster
            .databases()
            .map_err(|e| SqlError::from_client(&e))?;
        match known.into_iter().find(|d| d.eq_ignore_ascii_case(name)) {
            Some(d) => {
                self.database = Some(d);
                Ok(())
            }
            None => Err(SqlError::unknown_database(name)),
        }
    }

    /// Runs every statement of a COM_QUERY; stops after the first failure.
    pub fn run(&mut self, sql: &str) -> Vec<Outcome> {
        let statements = match Parser::parse_sql(&MySqlDialect {}, sql) {
            Ok(s) => s,
            Err(e) => return vec![Outcome::Failed(SqlError::parse(e))],
        };
        if statements.is_empty() {
            return vec![Outcome::Failed(SqlError::new(
                1065,
                "42000",
                "Query was empty",
            ))];
        }
        let mut outcomes = Vec::new();
        for s in &statements {
            let outcome = self.statement(s).unwrap_or_else(Outcome::Failed);
            let failed = matches!(outcome, Outcome::Failed(_));
            outcomes.push(outcome);
            if failed {
                break;
            }
        }
        outcomes
    }

    /// The catalog name of `db.table` (or `table` in the current database).
    fn table_name(&self, name: &ObjectName) -> Result<(String, String, String)> {
        let (db, table) = ident(name)?;
        let db = match db.or_else(|| self.database.clone()) {
            Some(d) => d,
            None => return Err(SqlError::no_database()),
        };
        Ok((format!("{db}/{table}"), db, table))
    }

    fn table(&self, name: &ObjectName) -> Result<(Table, String, String)> {
        let (full, db, table) = self.table_name(name)?;
        match self.shared.cluster.table(&full) {
            Ok(t) => Ok((t, db, table)),
            Err(e) if e.code() == base::ErrorCode::NoSuchTable => {
                Err(SqlError::no_table(&db, &table))
            }
            Err(e) => Err(SqlError::from_client(&e)),
        }
    }

    fn statement(&mut self, s: &Statement) -> Result<Outcome> {
        let cluster = &self.shared.cluster;
        let client = |e: client::ClientError| SqlError::from_client(&e);
        match s {
            Statement::Query(q) => self.query(q),
            Statement::Set(_) => Ok(done(0)),
            Statement::Use(u) => {
                let name = match u {
                    ast::Use::Object(n) | ast::Use::Database(n) | ast::Use::Schema(n) => n,
                    other => return Err(SqlError::unsupported(other)),
                };
                let (_, db) = ident(name)?;
                self.use_database(&db)?;
                Ok(done(0))
            }
            Statement::ShowDatabases { .. } => {
                let mut names = cluster.databases().map_err(client)?;
                names.insert(0, "information_schema".into());
                Ok(one_column("Database", names))
            }
            Statement::ShowTables { .. } => {
                let Some(db) = self.database.clone() else {
                    return Err(SqlError::no_database());
                };
                let prefix = format!("{}/", db.to_ascii_lowercase());
                let names = cluster
                    .list_tables()
                    .map_err(client)?
                    .into_iter()
                    .filter(|n| n.to_ascii_lowercase().starts_with(&prefix))
                    .map(|n| n[prefix.len()..].to_string())
                    .collect();
                Ok(one_column(&format!("Tables_in_{db}"), names))
            }
            Statement::CreateDatabase {
                db_name,
                if_not_exists,
                ..
            } => {
                let (_, name) = ident(db_name)?;
                match cluster.create_database(&name) {
                    Ok(()) => Ok(done(1)),
                    Err(e) if *if_not_exists && e.code() == base::ErrorCode::DatabaseExists => {
                        Ok(done(0))
                    }
                    Err(e) if e.code() == base::ErrorCode::DatabaseExists => Err(SqlError::new(
                        1007,
                        "HY000",
                        format!("Can't create database '{name}'; database exists"),
                    )),
                    Err(e) => Err(client(e)),
                }
            }
            Statement::Drop {
                object_type,
                if_exists,
                names,
                ..
            } => self.drop(object_type, *if_exists, names),
            Statement::CreateTable(c) => self.create_table(c),
            Statement::Insert(i) => self.insert(i),
            other => {
                let text = other.to_string();
                let head: String = text
                    .split_whitespace()
                    .take(3)
                    .collect::<Vec<_>>()
                    .join(" ");
                Err(SqlError::unsupported(head))
            }
        }
    }

    fn drop(
        &mut self,
        object_type: &ast::ObjectType,
        if_exists: bool,
        names: &[ObjectName],
    ) -> Result<Outcome> {
        let cluster = &self.shared.cluster;
        match object_type {
            ast::ObjectType::Database | ast::ObjectType::Schema => {
                let [name] = names else {
                    return Err(SqlError::parse("DROP DATABASE takes one name"));
                };
                let (_, name) = ident(name)?;
                match cluster.drop_database(&name) {
                    Ok(()) => {
                        if self
                            .database
                            .as_deref()
                            .is_some_and(|d| d.eq_ignore_ascii_case(&name))
                        {
                            self.database = None;
                        }
                        Ok(done(0))
                    }
                    Err(e) if e.code() == base::ErrorCode::NoSuchDatabase => {
                        if if_exists {
                            Ok(done(0))
                        } else {
                            Err(SqlError::new(
                                1008,
                                "HY000",
                                format!("Can't drop database '{name}'; database doesn't exist"),
                            ))
                        }
                    }
                    Err(e) => Err(SqlError::from_client(&e)),
                }
            }
            ast::ObjectType::Table => {
                let mut missing = Vec::new();
                for name in names {
                    let (full, db, table) = self.table_name(name)?;
                    match cluster.drop_table(&full) {
                        Ok(()) => {}
                        Err(e) if e.code() == base::ErrorCode::NoSuchTable => {
                            missing.push(format!("{db}.{table}"))
                        }
                        Err(e) => return Err(SqlError::from_client(&e)),
                    }
                }
                if missing.is_empty() || if_exists {
                    Ok(done(0))
                } else {
                    Err(SqlError::new(
                        1051,
                        "42S02",
                        format!("Unknown table '{}'", missing.join(",")),
                    ))
                }
            }
            other => Err(SqlError::unsupported(format!("DROP {other}"))),
        }
    }

    fn create_table(&mut self, c: &ast::CreateTable) -> Result<Outcome> {
        let (full, _, table) = self.table_name(&c.name)?;
        let mut columns = Vec::new();
        let mut primary: Vec<String> = Vec::new();
        let mut indexes: Vec<(String, IndexKind, Vec<String>)> = Vec::new();
        for col in &c.columns {
            let ty = column_type(&col.data_type)?;
            let mut def = ColumnDef::new(&col.name.value, ty);
            if ty.is_string()
                && !matches!(
                    ty,
                    ColumnType::Binary { .. } | ColumnType::VarBinary { .. } | ColumnType::Blob
                )
            {
                def = def.collation(Collation::Utf8mb4GeneralCi);
            }
            let mut nullable = true;
            let mut default = None;
            for option in &col.options {
                match &option.option {
                    ast::ColumnOption::NotNull => nullable = false,
                    ast::ColumnOption::Null => nullable = true,
                    ast::ColumnOption::PrimaryKey(_) => {
                        nullable = false;
                        primary = vec![col.name.value.clone()];
                    }
                    ast::ColumnOption::Unique(_) => indexes.push((
                        col.name.value.clone(),
                        IndexKind::Unique,
                        vec![col.name.value.clone()],
                    )),
                    ast::ColumnOption::Default(e) => default = Some(e.clone()),
                    ast::ColumnOption::DialectSpecific(tokens)
                        if tokens
                            .iter()
                            .any(|t| t.to_string().eq_ignore_ascii_case("AUTO_INCREMENT")) =>
                    {
                        def = def.auto_increment();
                    }
                    ast::ColumnOption::Comment(_) => {}
                    other => return Err(SqlError::unsupported(format!("column option {other}"))),
                }
            }
            if nullable {
                def = def.nullable();
            }
            if let Some(e) = default {
                let v = constant(&e)?;
                let v = store(&def, v)?;
                def = def.default(v);
            }
            columns.push(def);
        }
        for constraint in &c.constraints {
            match constraint {
                ast::TableConstraint::PrimaryKey(p) => {
                    primary = p
                        .columns
                        .iter()
                        .map(|c| c.column.expr.to_string())
                        .collect();
                }
                ast::TableConstraint::Unique(u) => {
                    let cols: Vec<String> = u
                        .columns
                        .iter()
                        .map(|c| c.column.expr.to_string())
                        .collect();
                    let name = u
                        .index_name
                        .as_ref()
                        .or(u.name.as_ref())
                        .map(|i| i.value.clone())
                        .unwrap_or_else(|| cols[0].clone());
                    indexes.push((name, IndexKind::Unique, cols));
                }
                ast::TableConstraint::Index(i) => {
                    let cols: Vec<String> = i
                        .columns
                        .iter()
                        .map(|c| c.column.expr.to_string())
                        .collect();
                    let name = i
                        .name
                        .as_ref()
                        .map(|n| n.value.clone())
                        .unwrap_or_else(|| cols[0].clone());
                    indexes.push((name, IndexKind::Ordered, cols));
                }
                other => return Err(SqlError::unsupported(format!("constraint {other}"))),
            }
        }
        for key in &primary {
            if let Some(col) = columns
                .iter_mut()
                .find(|c| c.name.eq_ignore_ascii_case(key))
            {
                col.nullable = false;
            }
        }
        let pk: Vec<&str> = primary.iter().map(String::as_str).collect();
        let mut def = TableDef::new(&full, columns, &pk).map_err(|e| schema_error(&table, e))?;
        for (name, kind, cols) in &indexes {
            let cols: Vec<&str> = cols.iter().map(String::as_str).collect();
            def = def
                .with_index(name, *kind, &cols)
                .map_err(|e| schema_error(&table, e))?;
        }
        match self.shared.cluster.create_table(def) {
            Ok(_) => Ok(done(0)),
            Err(e) if c.if_not_exists && e.code() == base::ErrorCode::TableExists => Ok(done(0)),
            Err(e) if e.code() == base::ErrorCode::TableExists => Err(SqlError::new(
                1050,
                "42S01",
                format!("Table '{table}' already exists"),
            )),
            Err(e) if e.code() == base::ErrorCode::NoSuchDatabase => Err(
                SqlError::unknown_database(self.database.as_deref().unwrap_or_default()),
            ),
            Err(e) => Err(SqlError::from_client(&e)),
        }
    }

    fn insert(&mut self, i: &ast::Insert) -> Result<Outcome> {
        let ast::TableObject::TableName(name) = &i.table else {
            return Err(SqlError::unsupported("INSERT into a table function"));
        };
        let (table, _, _) = self.table(name)?;
        let def = table.def().clone();
        let positions: Vec<u16> = if i.columns.is_empty() {
            (0..def.columns.len() as u16)
                .filter(|c| !def.columns[*c as usize].hidden)
                .collect()
        } else {
            i.columns
                .iter()
                .map(|c| {
                    let (_, n) = ident(c)?;
                    def.column(&n)
                        .map(|p| p as u16)
                        .ok_or_else(|| SqlError::unknown_column(&n, "field list"))
                })
                .collect::<Result<_>>()?
        };
        let Some(SetExpr::Values(values)) = i.source.as_ref().map(|q| q.body.as_ref()) else {
            return Err(SqlError::unsupported("INSERT without VALUES"));
        };
        if i.ignore || i.on.is_some() || !i.assignments.is_empty() {
            return Err(SqlError::unsupported(
                "INSERT IGNORE / ON DUPLICATE KEY UPDATE / SET",
            ));
        }
        let mut txn = self.shared.cluster.transaction();
        let mut ops = Vec::new();
        for (n, row) in values.rows.iter().enumerate() {
            if row.content.len() != positions.len() {
                return Err(SqlError::new(
                    1136,
                    "21S01",
                    format!("Column count doesn't match value count at row {}", n + 1),
                ));
            }
            let mut given = Vec::with_capacity(positions.len());
            for (p, e) in positions.iter().zip(&row.content) {
                let column = &def.columns[*p as usize];
                let v = store(column, constant(e)?).map_err(|m| {
                    SqlError::new(
                        1366,
                        "22007",
                        format!(
                            "{} for column '{}' at row {}",
                            m.message,
                            column.name,
                            n + 1
                        ),
                    )
                })?;
                given.push((*p, v));
            }
            ops.push(txn.insert(&table, given));
        }
        txn.execute(ExecType::Commit)
            .map_err(|e| SqlError::from_client(&e))?;
        // The first AUTO_INCREMENT value handed out (hidden keys are not reported).
        let first_assigned = if def.auto_increment_column().is_some() {
            ops.iter()
                .find_map(|op| match txn.result(*op) {
                    Some(OpResult::Done { assigned: Some(id) }) => Some(*id),
                    _ => None,
                })
                .unwrap_or(0)
        } else {
            0
        };
        if first_assigned != 0 {
            self.last_insert_id = first_assigned;
        }
        Ok(Outcome::Done {
            affected: values.rows.len() as u64,
            last_insert_id: first_assigned,
        })
    }

    fn query(&mut self, q: &ast::Query) -> Result<Outcome> {
        let SetExpr::Select(select) = q.body.as_ref() else {
            return Err(SqlError::unsupported(format!("{}", q.body)));
        };
        if q.order_by.is_some() || select.distinct.is_some() || select.having.is_some() {
            return Err(SqlError::unsupported("ORDER BY, DISTINCT or HAVING"));
        }
        if !matches!(&select.group_by, ast::GroupByExpr::Expressions(e, _) if e.is_empty()) {
            return Err(SqlError::unsupported("GROUP BY"));
        }
        let limit = match &q.limit_clause {
            None => None,
            Some(ast::LimitClause::LimitOffset {
                limit: Some(l),
                offset: None,
                ..
            }) => Some(count(l)?),
            Some(ast::LimitClause::LimitOffset {
                limit: None,
                offset: None,
                ..
            }) => None,
            Some(other) => return Err(SqlError::unsupported(format!("{other}"))),
        };
        let source = match select.from.as_slice() {
            [] => None,
            [one] if one.joins.is_empty() => match &one.relation {
                ast::TableFactor::Table { name, .. } => Some(self.table(name)?),
                other => return Err(SqlError::unsupported(format!("FROM {other}"))),
            },
            _ => return Err(SqlError::unsupported("joins")),
        };
        let Some((table, db, table_name)) = source else {
            // Expressions only: one row.
            let mut columns = Vec::new();
            let mut row = Vec::new();
            for item in &select.projection {
                let (expr, name) = match item {
                    SelectItem::UnnamedExpr(e) => (e, e.to_string()),
                    SelectItem::ExprWithAlias { expr, alias } => (expr, alias.value.clone()),
                    other => return Err(SqlError::unsupported(format!("{other} without FROM"))),
                };
                let v = self.eval(expr, None)?;
                columns.push(computed_column(&name, &v));
                row.push(value_text(&v));
            }
            let rows = if limit == Some(0) { vec![] } else { vec![row] };
            return Ok(Outcome::Rows { columns, rows });
        };
        let def = table.def().clone();
        // The projection: column positions, in order.
        let mut picked: Vec<(usize, String)> = Vec::new();
        for item in &select.projection {
            match item {
                SelectItem::Wildcard(_) => {
                    for (p, c) in def.columns.iter().enumerate() {
                        if !c.hidden {
                            picked.push((p, c.name.clone()));
                        }
                    }
                }
                SelectItem::UnnamedExpr(Expr::Identifier(i)) => {
                    let p = def
                        .column(&i.value)
                        .ok_or_else(|| SqlError::unknown_column(&i.value, "field list"))?;
                    picked.push((p, i.value.clone()));
                }
                SelectItem::ExprWithAlias {
                    expr: Expr::Identifier(i),
                    alias,
                } => {
                    let p = def
                        .column(&i.value)
                        .ok_or_else(|| SqlError::unknown_column(&i.value, "field list"))?;
                    picked.push((p, alias.value.clone()));
                }
                other => return Err(SqlError::unsupported(format!("the select item {other}"))),
            }
        }
        let rows = self
            .shared
            .cluster
            .scan(&table, &Scan::table())
            .map_err(|e| SqlError::from_client(&e))?;
        let mut out = Vec::new();
        for row in &rows {
            if limit.is_some_and(|l| out.len() as u64 >= l) {
                break;
            }
            if let Some(w) = &select.selection {
                if !truthy(&self.eval(w, Some((&def, row)))?) {
                    continue;
                }
            }
            out.push(picked.iter().map(|(p, _)| value_text(&row[*p])).collect());
        }
        let columns = picked
            .iter()
            .map(|(p, name)| table_column(&db, &table_name, &def, *p, name))
            .collect();
        Ok(Outcome::Rows { columns, rows: out })
    }

    /// Evaluates an expression (over a row of `table`, when given).
    fn eval(&self, e: &Expr, row: Option<(&TableDef, &[Value])>) -> Result<Value> {
        match e {
            Expr::Value(_) => constant(e),
            Expr::Nested(inner) => self.eval(inner, row),
            Expr::Identifier(i) if i.value.starts_with("@@") => Ok(self.variable(&i.value)),
            Expr::Identifier(i) => match row {
                Some((def, values)) => def
                    .column(&i.value)
                    .map(|p| values[p].clone())
                    .ok_or_else(|| SqlError::unknown_column(&i.value, "where clause")),
                None => Err(SqlError::unknown_column(&i.value, "field list")),
            },
            Expr::IsNull(inner) => Ok(bool_value(self.eval(inner, row)? == Value::Null)),
            Expr::IsNotNull(inner) => Ok(bool_value(self.eval(inner, row)? != Value::Null)),
            Expr::UnaryOp { op, expr } => {
                let v = self.eval(expr, row)?;
                match (op, v) {
                    (_, Value::Null) => Ok(Value::Null),
                    (ast::UnaryOperator::Not, v) => Ok(bool_value(!truthy(&v))),
                    (ast::UnaryOperator::Minus, Value::Int(i)) => Ok(Value::Int(-i)),
                    (ast::UnaryOperator::Minus, Value::UInt(u)) if u <= i64::MAX as u64 => {
                        Ok(Value::Int(-(u as i64)))
                    }
                    (ast::UnaryOperator::Minus, Value::Double(d)) => Ok(Value::Double(-d)),
                    (op, _) => Err(SqlError::unsupported(format!("the operator {op}"))),
                }
            }
            Expr::BinaryOp { left, op, right } => {
                let l = self.eval(left, row)?;
                let r = self.eval(right, row)?;
                binary(op, l, r)
            }
            Expr::Function(f) => {
                let name = f.name.to_string().to_ascii_lowercase();
                let no_args = matches!(&f.args, ast::FunctionArguments::None)
                    || matches!(&f.args, ast::FunctionArguments::List(l) if l.args.is_empty());
                if !no_args {
                    return Err(SqlError::unsupported(format!("the function {f}")));
                }
                Ok(match name.as_str() {
                    "database" | "schema" => match &self.database {
                        Some(d) => Value::Bytes(d.clone().into_bytes()),
                        None => Value::Null,
                    },
                    "version" => Value::Bytes(crate::SERVER_VERSION.as_bytes().to_vec()),
                    "connection_id" => Value::UInt(self.id as u64),
                    "user" | "current_user" | "session_user" | "system_user" => {
                        Value::Bytes(format!("{}@localhost", self.user).into_bytes())
                    }
                    "last_insert_id" => Value::UInt(self.last_insert_id),
                    _ => return Err(SqlError::unsupported(format!("the function {f}"))),
                })
            }
            other => Err(SqlError::unsupported(format!("the expression {other}"))),
        }
    }

    /// A system variable's value (the ones clients read at connect).
    fn variable(&self, name: &str) -> Value {
        let name = name.trim_start_matches("@@").to_ascii_lowercase();
        let name = name
            .strip_prefix("session.")
            .or_else(|| name.strip_prefix("global."))
            .unwrap_or(&name);
        let text = |s: &str| Value::Bytes(s.as_bytes().to_vec());
        match name {
            "version_comment" => text("Cairn"),
            "version" => text(crate::SERVER_VERSION),
            "autocommit" => Value::Int(1),
            "max_allowed_packet" => Value::Int(self.shared.config.max_packet as i64),
            "character_set_client" | "character_set_connection" | "character_set_results"
            | "character_set_server" | "character_set_database" => text("utf8mb4"),
            "collation_connection" | "collation_server" | "collation_database" => {
                text("utf8mb4_general_ci")
            }
            "sql_mode" => text("STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"),
            "lower_case_table_names" => Value::Int(0),
            "transaction_isolation" | "tx_isolation" => text("READ-COMMITTED"),
            "time_zone" | "system_time_zone" => text("SYSTEM"),
            "wait_timeout" | "interactive_timeout" => Value::Int(28_800),
            _ => Value::Null,
        }
    }
}

fn schema_error(table: &str, e: base::Error) -> SqlError {
    SqlError::new(1105, "HY000", format!("table '{table}': {}", e.message))
}

/// A literal.
fn constant(e: &Expr) -> Result<Value> {
    match e {
        Expr::Value(v) => Ok(match &v.value {
            ast::Value::Number(n, _) => {
                if let Ok(i) = n.parse::<i64>() {
                    Value::Int(i)
                } else if let Ok(u) = n.parse::<u64>() {
                    Value::UInt(u)
                } else {
                    Value::Double(
                        n.parse()
                            .map_err(|_| SqlError::parse(format!("bad number {n}")))?,
                    )
                }
            }
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                Value::Bytes(s.clone().into_bytes())
            }
            ast::Value::Boolean(b) => Value::Int(*b as i64),
            ast::Value::Null => Value::Null,
            other => return Err(SqlError::unsupported(format!("the literal {other}"))),
        }),
        Expr::UnaryOp {
            op: ast::UnaryOperator::Minus,
            expr,
        } => match constant(expr)? {
            Value::Int(i) => Ok(Value::Int(-i)),
            Value::Double(d) => Ok(Value::Double(-d)),
            other => Err(SqlError::unsupported(format!("-{other}"))),
        },
        Expr::Nested(inner) => constant(inner),
        other => Err(SqlError::unsupported(format!("the value {other}"))),
    }
}

/// A value as `column` stores it (MySQL's conversion from the value's text).
fn store(column: &ColumnDef, v: Value) -> Result<Value> {
    if v == Value::Null {
        return Ok(Value::Null);
    }
    let text = value_text(&v).unwrap_or_default();
    from_text(column, Some(&text)).map_err(|m| SqlError::new(1366, "22007", m))
}

fn count(e: &Expr) -> Result<u64> {
    match constant(e)? {
        Value::Int(i) if i >= 0 => Ok(i as u64),
        Value::UInt(u) => Ok(u),
        other => Err(SqlError::parse(format!("bad LIMIT {other}"))),
    }
}

fn bool_value(b: bool) -> Value {
    Value::Int(b as i64)
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Int(i) => *i != 0,
        Value::UInt(u) => *u != 0,
        Value::Double(d) => *d != 0.0,
        Value::Float(f) => *f != 0.0,
        other => numeric(other).is_some_and(|n| n != 0.0),
    }
}

/// A value's number, for comparisons and arithmetic (strings by their leading number).
fn numeric(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::UInt(u) => Some(*u as f64),
        Value::Double(d) => Some(*d),
        Value::Float(f) => Some(*f as f64),
        Value::Null => None,
        other => {
            let text = value_text(other)?;
            let s = String::from_utf8_lossy(&text);
            let s = s.trim();
            let end = s
                .char_indices()
                .take_while(|(i, c)| {
                    c.is_ascii_digit() || *c == '.' || (*i == 0 && (*c == '-' || *c == '+'))
                })
                .count();
            Some(s[..end].parse().unwrap_or(0.0))
        }
    }
}

fn compare(l: &Value, r: &Value) -> Option<Ordering> {
    match (l, r) {
        (Value::Null, _) | (_, Value::Null) => None,
        (Value::Bytes(a), Value::Bytes(b)) => {
            Some(base::collation::compare(a, b, Collation::Utf8mb4GeneralCi))
        }
        (Value::Int(a), Value::Int(b)) => Some(a.cmp(b)),
        (Value::UInt(a), Value::UInt(b)) => Some(a.cmp(b)),
        _ => numeric(l)?.partial_cmp(&numeric(r)?),
    }
}

fn binary(op: &ast::BinaryOperator, l: Value, r: Value) -> Result<Value> {
    use ast::BinaryOperator as B;
    Ok(match op {
        B::And => match (l == Value::Null, r == Value::Null) {
            _ if (l != Value::Null && !truthy(&l)) || (r != Value::Null && !truthy(&r)) => {
                bool_value(false)
            }
            (false, false) => bool_value(true),
            _ => Value::Null,
        },
        B::Or => match (l == Value::Null, r == Value::Null) {
            _ if truthy(&l) || truthy(&r) => bool_value(true),
            (false, false) => bool_value(false),
            _ => Value::Null,
        },
        B::Eq | B::NotEq | B::Lt | B::LtEq | B::Gt | B::GtEq => match compare(&l, &r) {
            None => Value::Null,
            Some(o) => bool_value(match op {
                B::Eq => o == Ordering::Equal,
                B::NotEq => o != Ordering::Equal,
                B::Lt => o == Ordering::Less,
                B::LtEq => o != Ordering::Greater,
                B::Gt => o == Ordering::Greater,
                _ => o != Ordering::Less,
            }),
        },
        B::Plus | B::Minus | B::Multiply => {
            if l == Value::Null || r == Value::Null {
                return Ok(Value::Null);
            }
            if let (Value::Int(a), Value::Int(b)) = (&l, &r) {
                let v = match op {
                    B::Plus => a.checked_add(*b),
                    B::Minus => a.checked_sub(*b),
                    _ => a.checked_mul(*b),
                };
                return v.map(Value::Int).ok_or_else(|| {
                    SqlError::new(
                        1690,
                        "22003",
                        format!("BIGINT value is out of range in '({a} {op} {b})'"),
                    )
                });
            }
            let (a, b) = (numeric(&l).unwrap_or(0.0), numeric(&r).unwrap_or(0.0));
            Value::Double(match op {
                B::Plus => a + b,
                B::Minus => a - b,
                _ => a * b,
            })
        }
        other => return Err(SqlError::unsupported(format!("the operator {other}"))),
    })
}

/// Result metadata for a computed value.
fn computed_column(name: &str, v: &Value) -> Column {
    match v {
        Value::Int(_) | Value::UInt(_) => Column::computed(name, types::LONGLONG, 21, 0),
        Value::Double(_) | Value::Float(_) => Column::computed(name, types::DOUBLE, 23, 31),
        Value::Null => Column::computed(name, types::NULL, 0, 0),
        _ => {
            let len = value_text(v).map_or(0, |t| t.len() as u32 * 4);
            Column::computed(name, types::VAR_STRING, len, 31)
        }
    }
}

/// Result metadata for a table column.
fn table_column(db: &str, table: &str, def: &TableDef, p: usize, name: &str) -> Column {
    let c = &def.columns[p];
    let (column_type, length, decimals) = match c.ty {
        ColumnType::TinyInt { .. } => (types::TINY, 4, 0),
        ColumnType::SmallInt { .. } => (types::SHORT, 6, 0),
        ColumnType::MediumInt { .. } => (types::INT24, 9, 0),
        ColumnType::Int { .. } => (types::LONG, 11, 0),
        ColumnType::BigInt { .. } => (types::LONGLONG, 20, 0),
        ColumnType::Float => (types::FLOAT, 12, 31),
        ColumnType::Double => (types::DOUBLE, 22, 31),
        ColumnType::Decimal { precision, scale } => {
            (types::NEWDECIMAL, precision as u32 + 2, scale)
        }
        ColumnType::Char { length } => (types::STRING, length * 4, 0),
        ColumnType::Binary { length } => (types::STRING, length, 0),
        ColumnType::VarChar { length } => (types::VAR_STRING, length * 4, 0),
        ColumnType::VarBinary { length } => (types::VAR_STRING, length, 0),
        ColumnType::Text => (types::BLOB, 65_535 * 4, 0),
        ColumnType::Blob => (types::BLOB, 65_535, 0),
        ColumnType::Date => (types::DATE, 10, 0),
        ColumnType::DateTime { fsp } => (types::DATETIME, 19 + fsp as u32 + (fsp > 0) as u32, fsp),
        ColumnType::Timestamp { fsp } => {
            (types::TIMESTAMP, 19 + fsp as u32 + (fsp > 0) as u32, fsp)
        }
        ColumnType::Time { fsp } => (types::TIME, 10 + fsp as u32 + (fsp > 0) as u32, fsp),
        ColumnType::Year => (types::YEAR, 4, 0),
    };
    let mut f = 0;
    if !c.nullable {
        f |= flags::NOT_NULL;
    }
    if def.primary_key.contains(&(p as u16)) {
        f |= flags::PRI_KEY;
    }
    if c.auto_increment {
        f |= flags::AUTO_INCREMENT;
    }
    if matches!(
        c.ty,
        ColumnType::TinyInt { unsigned: true }
            | ColumnType::SmallInt { unsigned: true }
            | ColumnType::MediumInt { unsigned: true }
            | ColumnType::Int { unsigned: true }
            | ColumnType::BigInt { unsigned: true }
    ) {
        f |= flags::UNSIGNED;
    }
    let binary = c.collation == Collation::Binary;
    if c.ty.is_integer()
        || matches!(
            c.ty,
            ColumnType::Float | ColumnType::Double | ColumnType::Decimal { .. }
        )
    {
        f |= flags::NUM;
    }
    if binary {
        f |= flags::BINARY;
    }
    if matches!(c.ty, ColumnType::Text | ColumnType::Blob) {
        f |= flags::BLOB;
    }
    Column {
        schema: db.to_string(),
        table: table.to_string(),
        org_table: table.to_string(),
        name: name.to_string(),
        org_name: c.name.clone(),
        collation: if c.ty.is_string() && !binary {
            myproto::response::UTF8MB4_GENERAL_CI_ID
        } else {
            myproto::response::BINARY_COLLATION_ID
        },
        length,
        column_type,
        flags: f,
        decimals,
    }
}

/// A one-column result of names (SHOW DATABASES, SHOW TABLES).
fn one_column(title: &str, names: Vec<String>) -> Outcome {
    Outcome::Rows {
        columns: vec![Column::computed(title, types::VAR_STRING, 256, 0)],
        rows: names
            .into_iter()
            .map(|n| vec![Some(n.into_bytes())])
            .collect(),
    }
}

/// Cairn's column type for a SQL type.
fn column_type(t: &ast::DataType) -> Result<ColumnType> {
    use ast::DataType as D;
    let length = |l: &Option<ast::CharacterLength>, default: u32| -> u32 {
        match l {
            Some(ast::CharacterLength::IntegerLength { length, .. }) => *length as u32,
            _ => default,
        }
    };
    let fsp = |p: &Option<u64>| p.unwrap_or(0).min(6) as u8;
    Ok(match t {
        D::TinyInt(_) => ColumnType::TinyInt { unsigned: false },
        D::TinyIntUnsigned(_) => ColumnType::TinyInt { unsigned: true },
        D::SmallInt(_) => ColumnType::SmallInt { unsigned: false },
        D::SmallIntUnsigned(_) => ColumnType::SmallInt { unsigned: true },
        D::MediumInt(_) => ColumnType::MediumInt { unsigned: false },
        D::MediumIntUnsigned(_) => ColumnType::MediumInt { unsigned: true },
        D::Int(_) | D::Integer(_) => ColumnType::Int { unsigned: false },
        D::IntUnsigned(_) | D::IntegerUnsigned(_) => ColumnType::Int { unsigned: true },
        D::BigInt(_) => ColumnType::BigInt { unsigned: false },
        D::BigIntUnsigned(_) => ColumnType::BigInt { unsigned: true },
        D::Float(_) | D::Real => ColumnType::Float,
        D::Double(_) | D::DoublePrecision => ColumnType::Double,
        D::Decimal(info) | D::Numeric(info) => {
            let (precision, scale) = match info {
                ast::ExactNumberInfo::None => (10, 0),
                ast::ExactNumberInfo::Precision(p) => (*p as u8, 0),
                ast::ExactNumberInfo::PrecisionAndScale(p, s) => (*p as u8, *s as u8),
            };
            ColumnType::Decimal { precision, scale }
        }
        D::Char(l) | D::Character(l) => ColumnType::Char {
            length: length(l, 1),
        },
        D::Varchar(l) | D::CharacterVarying(l) => ColumnType::VarChar {
            length: length(l, 255),
        },
        D::Binary(l) => ColumnType::Binary {
            length: l.unwrap_or(1) as u32,
        },
        D::Varbinary(l) => ColumnType::VarBinary {
            length: match l {
                Some(ast::BinaryLength::IntegerLength { length }) => *length as u32,
                _ => 255,
            },
        },
        D::Text => ColumnType::Text,
        D::Blob(_) => ColumnType::Blob,
        D::Date => ColumnType::Date,
        D::Datetime(p) => ColumnType::DateTime { fsp: fsp(p) },
        D::Timestamp(p, _) => ColumnType::Timestamp { fsp: fsp(p) },
        D::Time(p, _) => ColumnType::Time { fsp: fsp(p) },
        other => return Err(SqlError::unsupported(format!("the type {other}"))),
    })
}
