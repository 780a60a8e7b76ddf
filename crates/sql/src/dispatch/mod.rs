//! The one dispatcher: a command's text (in turns, with multi-statements and the plan cache)
//! or a prepared statement is parsed once, classified and handed to the planner and executor, to
//! a command (`commands/`) or to the session's own state (SET, USE, transactions). The
//! connection threads and the reactor call it; nothing below it does.

mod exec;

use std::sync::Arc;

use base::Value;
use sqlparser::ast::{self, ObjectName, Statement};
use sqlparser::parser::Parser;

use crate::exec::Inserting;
use crate::exec::{Executor, SetOperations, Streaming, Subqueries, Writes};
use crate::expr::Compiler;
use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use crate::parse::dialect::Cairn;
use crate::parse::ident;
use crate::parse::mentions;
use crate::parse::partition;
use crate::parse::starts_with_word;
use crate::plan::cache;
use crate::plan::compiled::Compiled;
use crate::plan::{self};

use crate::session::failover::FailoverRetry;
use crate::session::*;

impl Session {
    /// Runs every statement of a COM_QUERY; stops after the first failure. A first statement
    /// that a data node's failover interrupted, in a transaction of its own, runs again once
    /// the cluster serves (`retry_after_failover`).
    pub(crate) fn run(&mut self, sql: &str) -> Vec<Outcome> {
        let alone = !self.in_transaction();
        let read_only = starts_with_word(sql.trim_start(), "select");
        let mut retry = FailoverRetry::new();
        let streams = std::mem::take(&mut self.stream_allowed);
        loop {
            self.command_streams = streams;
            let mut outcomes = self.run_once(sql);
            self.command_streams = false;
            if let Some(last) = outcomes.pop() {
                let last = self.resolve_lost_commit(last);
                self.leave_if_rolled_back(&last);
                outcomes.push(last);
            }
            match outcomes.as_slice() {
                [failed] if self.retry_after_failover(failed, alone, read_only, &mut retry) => {
                    continue
                }
                _ => return outcomes,
            }
        }
    }

    pub(crate) fn run_once(&mut self, sql: &str) -> Vec<Outcome> {
        self.reconnect_if_lost();
        if let Some(failed) =
            self.report_lost_transaction(starts_with_word(sql.trim_start(), "rollback"))
        {
            return vec![failed];
        }
        self.refresh_grants();
        self.refresh_catalog();
        let sql = &share_mode(executable_comment(sql));
        if consistent_snapshot(sql) {
            // mysqldump --single-transaction's: a transaction, whose reads are READ COMMITTED
            // as all of Cairn's are (no snapshot across tables; a warning says so).
            let outcomes = self.run("START TRANSACTION");
            self.diagnostics.warn(
                1235,
                "This version of Cairn doesn't yet support 'WITH CONSISTENT SNAPSHOT': the transaction reads committed rows",
            );
            return outcomes;
        }
        self.take_counts();
        if let Some(refused) = crate::catalog::plugins::statement(sql)
            .or_else(|| crate::commands::ddl::fulltext_or_spatial_index(sql))
        {
            self.begin_statement(crate::exec::diagnostics::Kind::Other { tables: false });
            return vec![self.concluded(Outcome::Failed(refused))];
        }
        if starts_with_word(sql, "alter") {
            if let Some((name, options)) = crate::commands::ddl::option_alter(sql) {
                self.plans.clear();
                self.begin_statement(crate::exec::diagnostics::Kind::Other { tables: true });
                let outcome = self
                    .alter_options(&name, &options)
                    .unwrap_or_else(Outcome::Failed);
                self.shared.tables_changed();
                return vec![self.concluded(outcome)];
            }
        }
        if starts_with_word(sql, "alter") {
            if let Some((name, rest)) = crate::commands::ddl::alter_keys(sql) {
                self.begin_statement(crate::exec::diagnostics::Kind::Other { tables: true });
                let outcome = self
                    .need_on_tables(
                        crate::catalog::privilege::ALTER,
                        "ALTER",
                        std::slice::from_ref(&name),
                    )
                    .and_then(|()| self.table(&name))
                    .map(|_| done(0))
                    .unwrap_or_else(Outcome::Failed);
                return self.then_run(outcome, rest);
            }
            if let Some((parsed, rest)) = crate::commands::ddl::alter_database(sql) {
                self.begin_statement(crate::exec::diagnostics::Kind::Other { tables: false });
                let outcome = parsed
                    .and_then(|(name, spec)| self.alter_database(name, &spec))
                    .unwrap_or_else(Outcome::Failed);
                return self.then_run(outcome, rest);
            }
        }
        if starts_with_word(sql, "do") {
            // DO e[, e ...]: the expressions are evaluated (their warnings and errors kept) and
            // their values dropped, as MariaDB's DO.
            if let Some((_, _, rest)) = crate::commands::account::lex_ends(sql) {
                let statement = &sql[..sql.len() - rest.len()];
                let body = statement
                    .trim_start()
                    .get(2..)
                    .unwrap_or_default()
                    .trim_end()
                    .trim_end_matches(';');
                let outcome = match self.run(&format!("SELECT {body}")).pop() {
                    Some(Outcome::Failed(e)) => Outcome::Failed(e),
                    _ => done(0),
                };
                return self.then_run(outcome, rest);
            }
        }
        if let Some((parsed, rest)) = crate::commands::routine_text::parse_statement(sql) {
            // Stored procedures (commands/routines.rs): a CALL answers each SELECT's rows, then its OK.
            let outcomes = match parsed {
                Ok(statement) => self.routine(statement),
                Err(e) => {
                    self.begin_statement(crate::exec::diagnostics::Kind::Other { tables: false });
                    vec![Outcome::Failed(e)]
                }
            };
            return self.then_run_all(outcomes, rest);
        }
        if starts_with_word(sql, "xa") {
            // XA (two-phase commit run by a client's transaction manager): not a statement
            // Cairn takes, refused as not supported rather than as a syntax error.
            if let Some((_, _, rest)) = crate::commands::account::lex_ends(sql) {
                self.begin_statement(crate::exec::diagnostics::Kind::Other { tables: false });
                let outcome = Outcome::Failed(SqlError::unsupported("XA transactions"));
                return self.then_run(outcome, rest);
            }
        }
        if let Some((parsed, rest)) = crate::commands::maintenance::parse(sql) {
            self.begin_statement(crate::exec::diagnostics::Kind::Other { tables: true });
            let outcome = parsed
                .and_then(|(op, names)| self.maintain(op, &names))
                .unwrap_or_else(Outcome::Failed);
            return self.then_run(outcome, rest);
        }
        if starts_with_word(sql, "show") {
            if let Some(rest) = crate::commands::show::show_routine_status(sql) {
                self.begin_statement(crate::exec::diagnostics::Kind::Other { tables: false });
                let procedures = mentions(&sql[..sql.len() - rest.len()], "procedure");
                let outcome = if procedures {
                    self.procedure_status()
                        .map(crate::commands::show::routine_status)
                } else {
                    Ok(crate::commands::show::routine_status(Vec::new()))
                };
                return self.then_run(outcome.unwrap_or_else(Outcome::Failed), rest);
            }
            if let Some((db, filter, rest)) = crate::commands::show::show_table_status_filtered(sql)
            {
                self.begin_statement(crate::exec::diagnostics::Kind::Other { tables: false });
                let outcome = self
                    .show_table_status(db, &filter)
                    .unwrap_or_else(Outcome::Failed);
                return self.then_run(outcome, rest);
            }
            if let Some((if_not_exists, name, rest)) =
                crate::commands::show::show_create_database(sql)
            {
                self.begin_statement(crate::exec::diagnostics::Kind::Other { tables: false });
                let outcome = self
                    .show_create_database(&name, if_not_exists)
                    .unwrap_or_else(Outcome::Failed);
                return self.then_run(outcome, rest);
            }
        }
        if let Some((outcome, rest)) = self.run_account_statement(sql) {
            // Account statements one after another in a loop (a long chain must not grow the
            // stack), then what follows them in a multi-statement query.
            let mut outcomes = Vec::new();
            let mut counts = Vec::new();
            let (mut outcome, mut rest) = (outcome, rest);
            loop {
                let done = self.concluded(outcome);
                let failed = matches!(done, Outcome::Failed(_));
                outcomes.push(done);
                counts.extend(self.take_counts());
                if failed || rest.trim().is_empty() {
                    break;
                }
                match self.run_account_statement(rest) {
                    Some(next) => (outcome, rest) = next,
                    None => {
                        outcomes.extend(self.run(rest));
                        counts.extend(self.take_counts());
                        break;
                    }
                }
            }
            self.diagnostics.counts = counts;
            return outcomes;
        }
        if let Some(outcome) = self.run_cached(sql) {
            return vec![self.concluded(outcome)];
        }
        let (sql, statements) = match parse(sql) {
            Ok(parsed) => parsed,
            Err(e) => {
                // Several statements of which a later one does not parse: MariaDB runs those
                // before it and answers their results first, the error in its place. One at a
                // time in a loop (a long text must not deepen the stack), each parsed alone
                // (the rest is never parsed again and again), looking for a KILL between them.
                let mut outcomes = Vec::new();
                let mut counts = Vec::new();
                let mut text: &str = sql;
                while !text.trim().is_empty() {
                    let split = crate::commands::account::lex_ends(text)
                        .map(|(_, _, rest)| (&text[..text.len() - rest.len()], rest));
                    // DO is read before the parser (which has no DO).
                    let runs = |first: &str| starts_with_word(first, "do") || parse(first).is_ok();
                    let Some((first, rest)) = split.filter(|(first, _)| runs(first)) else {
                        let error = match parse(text) {
                            Err(e) => e,
                            Ok(_) => e.clone(),
                        };
                        outcomes.push(self.concluded(Outcome::Failed(error)));
                        counts.extend(self.take_counts());
                        break;
                    };
                    if let Err(killed) = self.activity.interrupt.check_killed() {
                        outcomes.push(self.concluded(Outcome::Failed(killed)));
                        counts.extend(self.take_counts());
                        break;
                    }
                    outcomes.extend(self.run(first));
                    counts.extend(self.take_counts());
                    if outcomes.iter().any(|o| matches!(o, Outcome::Failed(_))) {
                        break;
                    }
                    text = rest;
                }
                self.diagnostics.counts = counts;
                return outcomes;
            }
        };
        let sql = sql.as_ref();
        if statements.is_empty() {
            // Nothing but comments is a statement that does nothing, as MariaDB answers it (an
            // OK); nothing at all, or only `;`, is empty.
            let commented = sql
                .trim_matches(|c: char| c.is_whitespace() || c == ';')
                .starts_with(['/', '-', '#']);
            let outcome = if commented {
                done(0)
            } else {
                Outcome::Failed(SqlError::new(1065, "42000", "Query was empty"))
            };
            return vec![self.concluded(outcome)];
        }
        let mut outcomes = Vec::new();
        let alone_in_text = statements.len() == 1;
        for (i, s) in statements.into_iter().enumerate() {
            if i > 0 {
                // Each statement of a text gets its own max_statement_time (the first got it,
                // or its MAX_EXECUTION_TIME hint, when the command began).
                let limit = self.statement_time_limit(0, b"");
                self.activity.interrupt.limit(limit);
            }
            let ddl = matches!(
                s,
                Statement::CreateTable(_)
                    | Statement::CreateIndex(_)
                    | Statement::Drop { .. }
                    | Statement::AlterTable { .. }
                    | Statement::Truncate { .. }
                    | Statement::RenameTable(_)
            );
            if ddl {
                // Plans may name what this changes (or miss an index it adds).
                self.plans.clear();
            }
            if let Statement::Call(_) | Statement::DropProcedure { .. } = &s {
                // A CALL or DROP PROCEDURE among other statements (commands/routines.rs reads it).
                let text = s.to_string();
                if let Some((Ok(routine), _)) =
                    crate::commands::routine_text::parse_statement(&text)
                {
                    let mut answers = self.routine(routine);
                    let last = answers.pop().unwrap_or_else(|| done(0));
                    for rows in answers {
                        self.diagnostics.counts.push(0);
                        outcomes.push(rows);
                    }
                    let outcome = self.concluded(last);
                    let failed = matches!(outcome, Outcome::Failed(_));
                    outcomes.push(outcome);
                    if failed {
                        break;
                    }
                    continue;
                }
            }
            let alone = !self.in_transaction();
            let mut outcome = self
                .compile(s, sql, &[])
                .and_then(|c| {
                    self.may_stream = alone_in_text && self.command_streams;
                    self.execute(&c, &[])
                })
                .unwrap_or_else(Outcome::Failed);
            if self.schema_changed(&outcome, alone) {
                // Planned from a definition DDL has changed since: plan it again from the
                // definitions as they are now.
                if let Ok((_, mut again)) = parse(sql) {
                    if i < again.len() {
                        outcome = self
                            .compile(again.swap_remove(i), sql, &[])
                            .and_then(|c| self.execute(&c, &[]))
                            .unwrap_or_else(Outcome::Failed);
                    }
                }
            }
            let outcome = self.concluded(outcome);
            let failed = matches!(outcome, Outcome::Failed(_));
            outcomes.push(outcome);
            if failed {
                break;
            }
        }
        outcomes
    }

    /// [`Session::then_run`] after a statement with several answers (a CALL's result sets,
    /// then its own outcome, which alone ends the statement).
    pub(crate) fn then_run_all(&mut self, mut outcomes: Vec<Outcome>, rest: &str) -> Vec<Outcome> {
        let Some(last) = outcomes.pop() else {
            return self.run(rest);
        };
        let results = outcomes.len();
        let mut answers = self.then_run(last, rest);
        let mut counts = vec![0; results];
        counts.extend(self.take_counts());
        self.diagnostics.counts = counts;
        outcomes.append(&mut answers);
        outcomes
    }

    /// Concludes a statement read before sqlparser, then runs the statements after it in a
    /// multi-statement query unless it failed.
    pub(crate) fn then_run(&mut self, outcome: Outcome, rest: &str) -> Vec<Outcome> {
        let done = self.concluded(outcome);
        if matches!(done, Outcome::Failed(_)) || rest.trim().is_empty() {
            return vec![done];
        }
        let mut counts = self.take_counts();
        let mut outcomes = vec![done];
        outcomes.extend(self.run(rest));
        counts.extend(self.take_counts());
        self.diagnostics.counts = counts;
        outcomes
    }

    /// Runs a text query through the plan cache: None when the cache does not serve it (the
    /// caller parses it as typed, so errors name the text as typed).
    pub(crate) fn run_cached(&mut self, sql: &str) -> Option<Outcome> {
        let n = cache::normalize(sql)?;
        let database = self.database.clone();
        self.planned_view.set(false);
        let (compiled, cached) = match self.plans.get(&database, &n.text) {
            Some(c) => (c, true),
            None => {
                crate::parse::guard::check(&n.text).ok()?;
                let mut statements = Parser::parse_sql(&Cairn, &n.text).ok()?;
                if statements.len() != 1 {
                    return None;
                }
                let placeholders = plan::placeholders(&n.text).ok()?;
                let compiled = self
                    .compile(statements.remove(0), &n.text, &placeholders)
                    .ok()?;
                if matches!(compiled, Compiled::Other(_)) {
                    return None;
                }
                (Arc::new(compiled), false)
            }
        };
        let alone = !self.in_transaction();
        self.may_stream = self.command_streams;
        match self.execute(&compiled, &n.values) {
            // The table changed under the plan: plan it again from the text as typed.
            Err(e) if e.code == 1146 => {
                self.plans.forget(&database, &n.text);
                None
            }
            Err(e) if e.code == 1412 => {
                self.plans.forget(&database, &n.text);
                let failed = Outcome::Failed(e);
                (!self.schema_changed(&failed, alone)).then_some(failed)
            }
            result => {
                if !cached && !self.planned_view.get() {
                    self.plans.put(&database, n.text, compiled);
                }
                Some(result.unwrap_or_else(Outcome::Failed))
            }
        }
    }

    /// COM_STMT_PREPARE: parses and plans one statement; returns its id.
    pub(crate) fn prepare(&mut self, sql: &str) -> Result<u32> {
        if self.statements.len() >= PREPARED_MAX {
            return Err(SqlError::new(
                1461,
                "42000",
                format!("Can't create more than max_prepared_stmt_count statements (current value: {PREPARED_MAX})"),
            ));
        }
        if starts_with_word(sql, "do") {
            // DO e[, e ...]: prepared as the SELECT of its expressions, whose rows each
            // execution drops (sqlparser has no DO).
            let id = self.prepare(&do_as_select(sql))?;
            if let Some(mut p) = self.statements.remove(&id) {
                // Just made, so held nowhere else.
                let Ok(select) = Arc::try_unwrap(p.compiled) else {
                    return Err(SqlError::new(
                        1105,
                        "HY000",
                        "internal: a new plan was shared",
                    ));
                };
                p.compiled = Arc::new(Compiled::Do(Box::new(select)));
                p.columns.clear();
                p.sql = sql.to_string();
                self.statements.insert(id, p);
            }
            return Ok(id);
        }
        let sql = share_mode(sql);
        let (sql, mut statements) = parse(&sql)?;
        let sql = sql.as_ref();
        if statements.len() != 1 {
            return Err(SqlError::new(
                1064,
                "42000",
                "A prepared statement holds exactly one statement",
            ));
        }
        let placeholders = plan::placeholders(sql)?;
        let statement = statements.remove(0);
        self.planned_view.set(false);
        let compiled = self.compile(statement, sql, &placeholders)?;
        let columns = match &compiled {
            Compiled::Select(p) => p.columns.clone(),
            Compiled::Set(p) => p.columns.clone(),
            _ => Vec::new(),
        };
        let id = self.next_statement;
        self.next_statement = self.next_statement.wrapping_add(1).max(1);
        self.statements.insert(
            id,
            Prepared {
                sql: sql.to_string(),
                epoch: self.plan_epoch(),
                reads_view: self.planned_view.get(),
                compiled: Arc::new(compiled),
                params: placeholders.len(),
                columns,
                types: Vec::new(),
                long_data: Vec::new(),
            },
        );
        Ok(id)
    }

    /// COM_STMT_EXECUTE of a prepared statement with its parameters; run again, as a text
    /// query is, when a data node's failover interrupted it alone.
    pub(crate) fn execute_prepared(&mut self, id: u32, params: &[Value]) -> Outcome {
        let alone = !self.in_transaction();
        let read_only = self
            .statements
            .get(&id)
            .is_some_and(|p| matches!(*p.compiled, Compiled::Select(_)));
        let mut retry = FailoverRetry::new();
        loop {
            let outcome = self.execute_prepared_once(id, params);
            let outcome = self.resolve_lost_commit(outcome);
            self.leave_if_rolled_back(&outcome);
            if !self.retry_after_failover(&outcome, alone, read_only, &mut retry) {
                return outcome;
            }
        }
    }

    pub(crate) fn execute_prepared_once(&mut self, id: u32, params: &[Value]) -> Outcome {
        self.reconnect_if_lost();
        if let Some(failed) = self.report_lost_transaction(false) {
            return failed;
        }
        self.refresh_grants();
        self.refresh_catalog();
        let Some(prepared) = self.statements.get(&id) else {
            return Outcome::Failed(unknown_statement(id));
        };
        let mut compiled = prepared.compiled.clone();
        if prepared.epoch != self.plan_epoch() || prepared.reads_view {
            // Checked under grants that changed since, planned before a temporary table came
            // or went, or reading a view (which may have changed anywhere): planned again.
            match self.replan_prepared(id) {
                Ok(c) => compiled = c,
                Err(e) => return Outcome::Failed(e),
            }
        }
        let alone = !self.in_transaction();
        self.may_stream = true;
        let mut outcome = self
            .execute(&compiled, params)
            .unwrap_or_else(Outcome::Failed);
        if matches!(&outcome, Outcome::Failed(e) if e.code == 1146)
            || self.schema_changed(&outcome, alone)
        {
            // The table was dropped (and perhaps made again), renamed or changed since the
            // statement was planned: forget its cached definition and plan once more.
            if let Some(name) = compiled.table_name() {
                self.shared.cluster().forget_table(&name);
            }
            match self.replan_prepared(id) {
                Ok(c) => {
                    self.may_stream = true;
                    outcome = self.execute(&c, params).unwrap_or_else(Outcome::Failed);
                }
                // What the statement names is no longer there as it was.
                Err(e) => outcome = Outcome::Failed(e),
            }
        }
        if let Some(p) = self.statements.get_mut(&id) {
            p.long_data.clear();
        }
        outcome
    }

    /// Plans prepared statement `id` again (under the session's grants now) and keeps the new
    /// plan in it.
    fn replan_prepared(&mut self, id: u32) -> Result<Arc<Compiled>> {
        let sql = match self.statements.get(&id) {
            Some(p) => p.sql.clone(),
            None => return Err(unknown_statement(id)),
        };
        let compiled = Arc::new(self.replan(&sql)?);
        let epoch = self.plan_epoch();
        if let Some(p) = self.statements.get_mut(&id) {
            p.compiled = compiled.clone();
            p.epoch = epoch;
        }
        Ok(compiled)
    }

    /// Plans a prepared statement's text again.
    pub(crate) fn replan(&self, sql: &str) -> Result<Compiled> {
        if starts_with_word(sql, "do") {
            return Ok(Compiled::Do(Box::new(self.replan(&do_as_select(sql))?)));
        }
        let (_, mut statements) = parse(sql)?;
        let placeholders = plan::placeholders(sql)?;
        self.compile(statements.remove(0), sql, &placeholders)
    }

    pub(crate) fn execute(&mut self, c: &Compiled, params: &[Value]) -> Result<Outcome> {
        // Taken here, so no statement this one runs inside itself streams.
        let may_stream = std::mem::take(&mut self.may_stream);
        self.begin_statement(crate::exec::diagnostics::Kind::of(c));
        // A schema change commits the transaction in progress first, so the session's mode
        // decides it.
        let changes_schema = matches!(c, Compiled::Other(s) if changes_schema(s));
        let read_only = if self.explicit && !changes_schema {
            self.read_only
        } else {
            self.session_read_only
        };
        if read_only {
            let writes = changes_schema
                || match c {
                    Compiled::Update(_)
                    | Compiled::Delete(_)
                    | Compiled::Insert(_)
                    | Compiled::Multi(_) => true,
                    Compiled::Deferred(d) => matches!(
                        d.statement,
                        Statement::Insert(_) | Statement::Update(_) | Statement::Delete(_)
                    ),
                    _ => false,
                };
            if writes {
                return Err(SqlError::new(
                    1792,
                    "25006",
                    "Cannot execute statement in a READ ONLY transaction",
                ));
            }
        }
        match c {
            Compiled::Select(p) if may_stream => self.run_select_streaming(p, params),
            Compiled::Select(p) => self.run_select(p, params),
            Compiled::Set(p) => self.run_set(p, params),
            Compiled::Deferred(d) if matches!(d.statement, Statement::CreateTable(_)) => {
                let created = self.create_table_select(d, params);
                if changes_shared_tables(&d.statement) {
                    self.shared.tables_changed();
                }
                created
            }
            Compiled::Deferred(d) => {
                // The correlated subqueries this statement adds go when it ends.
                let base = self.correlated.len();
                let mut run = || {
                    let mut statement = d.statement.clone();
                    self.inline_subqueries(&mut statement, &d.sql, &d.placeholders, params)?;
                    match self.compile(statement, &d.sql, &d.placeholders)? {
                        // A subquery left where inlining does not reach.
                        Compiled::Deferred(_) => {
                            Err(SqlError::unsupported("a subquery in this place"))
                        }
                        c => self.execute(&c, params),
                    }
                };
                let result = run();
                self.correlated.truncate(base);
                result
            }
            Compiled::Update(p) => self.run_update(p, params),
            Compiled::Delete(p) => self.run_delete(p, params),
            Compiled::Multi(p) => self.run_multi(p, params),
            Compiled::Insert(p) => self.run_insert(p, params),
            Compiled::Do(select) => self.execute(select, params).map(|_| done(0)),
            Compiled::Other(s) => {
                let outcome = self.statement(s);
                if changes_shared_tables(s) {
                    // Every session's plans are made again (`Session::refresh_catalog`).
                    self.shared.tables_changed();
                }
                outcome
            }
        }
    }

    pub(crate) fn statement(&mut self, s: &Statement) -> Result<Outcome> {
        let client = |e: client::ClientError| SqlError::from_client(&e);
        // What MariaDB's parser refuses fails first, committing nothing.
        match s {
            Statement::CreateTable(c) => crate::commands::create::create_checks(c)?,
            Statement::AlterTable(a) => crate::commands::create::alter_checks(a)?,
            _ => {}
        }
        if commits_first(s) {
            // As MariaDB: DDL commits the transaction in progress before it runs (whether or not
            // it then succeeds), so a ROLLBACK after it cannot undo what came before.
            self.end_transaction(true)?;
        }
        match s {
            Statement::Set(set) => self.set(set),
            Statement::StartTransaction { modes, .. } => {
                // BEGIN commits a transaction in progress, as MySQL does.
                self.end_transaction(true)?;
                self.explicit = true;
                let next = self.next_read_only.take();
                self.read_only = access_mode(modes)
                    .or(next)
                    .unwrap_or(self.session_read_only);
                Ok(done(0))
            }
            Statement::Commit { .. } => {
                self.end_transaction(true)?;
                Ok(done(0))
            }
            // Account statements reach every session at its next statement (grants_epoch);
            // FLUSH TABLES drops the cached definitions and plans, so the next statement loads
            // them again with the statistics another API node's ANALYZE kept.
            Statement::Flush {
                object_type: object @ (ast::FlushType::Privileges | ast::FlushType::Tables),
                read_lock: false,
                export: false,
                tables,
                ..
            } if tables.is_empty() => {
                if !self.holds(crate::catalog::privilege::RELOAD) {
                    return Err(SqlError::new(
                        1227,
                        "42000",
                        "Access denied; you need (at least one of) the RELOAD privilege(s) for this operation",
                    ));
                }
                if matches!(object, ast::FlushType::Tables) {
                    self.shared.cluster().forget_tables();
                    self.plans.clear();
                    self.shared.tables_changed();
                }
                Ok(done(0))
            }
            Statement::Kill { modifier, id } => match modifier {
                None | Some(ast::KillType::Connection) => self.kill(*id, true),
                Some(ast::KillType::Query) => self.kill(*id, false),
                Some(other) => Err(SqlError::unsupported(format!("KILL {other}"))),
            },
            Statement::Savepoint { name } => {
                if self.in_transaction() {
                    if self.txn.is_none() {
                        self.txn = Some(self.data().transaction());
                    }
                    let Some(txn) = self.txn.as_mut() else {
                        return Ok(done(0));
                    };
                    let savepoint = Savepoint {
                        name: name.value.clone(),
                        writes: txn.writes_sent(),
                        statement: txn.next_statement(),
                    };
                    self.savepoints
                        .retain(|s| !s.name.eq_ignore_ascii_case(&savepoint.name));
                    self.savepoints.push(savepoint);
                    self.keep_savepoints_undo();
                }
                Ok(done(0))
            }
            Statement::ReleaseSavepoint { name } => {
                let at = self.savepoint(&name.value)?;
                self.savepoints.truncate(at);
                self.keep_savepoints_undo();
                Ok(done(0))
            }
            Statement::Rollback {
                savepoint: Some(name),
                ..
            } => {
                let at = self.savepoint(&name.value)?;
                let Savepoint {
                    writes, statement, ..
                } = self.savepoints[at];
                // The savepoint stays; those made after it go, as in MySQL.
                self.savepoints.truncate(at + 1);
                let Some(txn) = self.txn.as_mut() else {
                    return Ok(done(0));
                };
                if txn.writes_sent() == writes {
                    // Nothing written since: nothing to undo (mysqldump --single-transaction's).
                    return Ok(done(0));
                }
                // Undone on the data node; the locks taken since stay, as InnoDB keeps them.
                if let Err(e) = txn.undo_from(statement) {
                    if !txn.is_open() {
                        // The data node ended the transaction.
                        self.txn = None;
                        self.explicit = false;
                        self.savepoints.clear();
                    }
                    return Err(SqlError::from_client(&e));
                }
                Ok(done(0))
            }
            Statement::Rollback {
                savepoint: None, ..
            } => {
                self.end_transaction(false)?;
                Ok(done(0))
            }
            Statement::Use(u) => {
                let name = match u {
                    ast::Use::Object(n) | ast::Use::Database(n) | ast::Use::Schema(n) => n,
                    other => return Err(SqlError::unsupported(other)),
                };
                let (_, db) = ident(name)?;
                self.use_database(&db)?;
                Ok(done(0))
            }
            Statement::ShowDatabases { show_options, .. }
            | Statement::ShowSchemas { show_options, .. } => {
                let mut names = self.shared.cluster().databases().map_err(client)?;
                // An account sees the databases it holds a privilege on (as MariaDB).
                names.retain(|db| self.sees_database(db));
                crate::commands::show::databases_like(names, show_options)
            }
            Statement::ShowTables { show_options, .. }
                if crate::commands::show::tables_of_information_schema(self, show_options) =>
            {
                self.show(s)
            }
            Statement::ShowVariables { .. }
            | Statement::ShowStatus { .. }
            | Statement::ShowProcessList { .. }
            | Statement::ShowCreate { .. }
            | Statement::ShowCollation { .. }
            | Statement::ShowCharset(_)
            | Statement::ShowVariable { .. } => self.show(s),
            Statement::ShowTables {
                show_options, full, ..
            } => {
                let named = match &show_options.show_in {
                    Some(ast::ShowStatementIn {
                        parent_name: Some(name),
                        ..
                    }) => Some(ident(name)?.1),
                    _ => None,
                };
                let Some(db) = named.or_else(|| self.database.clone()) else {
                    return Err(SqlError::no_database());
                };
                if !self
                    .shared
                    .cluster()
                    .databases()
                    .map_err(client)?
                    .iter()
                    .any(|d| d.eq_ignore_ascii_case(&db))
                {
                    return Err(SqlError::unknown_database(&db));
                }
                let prefix = format!("{}/", db.to_ascii_lowercase());
                let mut names = self
                    .shared
                    .cluster()
                    .list_tables()
                    .map_err(client)?
                    .into_iter()
                    .filter(|n| n.to_ascii_lowercase().starts_with(&prefix))
                    .map(|n| n[prefix.len()..].to_string())
                    .filter(|n| self.sees_table(&db, n))
                    .collect::<Vec<String>>();
                let views: Vec<String> = crate::catalog::view::all(&self.shared.cluster())?
                    .into_iter()
                    .filter(|v| v.db.eq_ignore_ascii_case(&db) && self.sees_table(&db, &v.name))
                    .map(|v| v.name)
                    .collect();
                names.extend(views.iter().cloned());
                names.sort();
                crate::commands::show::tables_like(
                    &db,
                    names,
                    show_options,
                    full.then_some("BASE TABLE"),
                    &views,
                )
            }
            Statement::CreateDatabase {
                db_name,
                if_not_exists,
                default_charset,
                default_collation,
                ..
            } => {
                let (_, name) = ident(db_name)?;
                let spec = crate::expr::collate::CollationSpec {
                    charset: default_charset.clone(),
                    collation: default_collation.clone(),
                };
                let collation = if spec.is_empty() {
                    base::types::Collation::Utf8mb4GeneralCi
                } else {
                    spec.resolve()?
                };
                match self.shared.cluster().create_database_with(&name, collation) {
                    Ok(()) => Ok(done(1)),
                    Err(e) if *if_not_exists && e.code() == base::ErrorCode::DatabaseExists => {
                        let m = format!("Can't create database '{name}'; database exists");
                        self.note(1007, m);
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
            // CREATE SCHEMA is CREATE DATABASE in MariaDB.
            Statement::CreateSchema {
                schema_name: ast::SchemaName::Simple(name),
                if_not_exists,
                or_replace: false,
                with: None,
                options: None,
                default_collate_spec: None,
                clone: None,
            } => {
                let text = format!(
                    "CREATE DATABASE {}{name}",
                    if *if_not_exists { "IF NOT EXISTS " } else { "" }
                );
                match Parser::parse_sql(&Cairn, &text) {
                    Ok(statements) if statements.len() == 1 => self.statement(&statements[0]),
                    _ => Err(SqlError::parse(format!("near '{name}'"))),
                }
            }
            Statement::Drop {
                object_type: ast::ObjectType::Index,
                names,
                table,
                ..
            } => match (names.as_slice(), table) {
                ([name], Some(table)) => self.drop_index(name, table),
                _ => Err(SqlError::parse(
                    "DROP INDEX takes one index name and ON table",
                )),
            },
            Statement::Drop {
                object_type: ast::ObjectType::View,
                if_exists,
                names,
                ..
            } => self.drop_views(*if_exists, names),
            Statement::Drop {
                object_type,
                if_exists,
                temporary,
                names,
                ..
            } => self.drop(object_type, *if_exists, *temporary, names),
            Statement::CreateView(c) => self.create_view(c),
            Statement::AlterView {
                name,
                columns,
                query,
                with_options,
            } if with_options.is_empty() => self.alter_view(name, columns, query),
            Statement::RenameTable(renames) => self.rename_tables(renames),
            Statement::CreateTable(c) => self.create_table(c),
            Statement::Truncate(t) => self.truncate(t),
            Statement::CreateIndex(c) => self.create_index(c),
            Statement::AlterTable(a) => self.alter_table(a),
            Statement::Analyze(a) => match &a.table_name {
                Some(name) => self.maintain(
                    crate::commands::maintenance::Op::Analyze,
                    std::slice::from_ref(name),
                ),
                None => Err(SqlError::parse("ANALYZE needs TABLE and a table name")),
            },
            Statement::LockTables { tables } => {
                // Cairn takes no table locks (a warning says so): the tables must exist, as in
                // MariaDB, and a transaction in progress commits first, so mysqldump's
                // `LOCK TABLES t READ LOCAL` runs; writes by others are not held off.
                self.end_transaction(true)?;
                for t in tables {
                    self.table(&ObjectName::from(vec![t.table.clone()]))?;
                }
                self.diagnostics.warn(
                    1235,
                    "This version of Cairn doesn't yet support 'table locks': LOCK TABLES takes none",
                );
                Ok(done(0))
            }
            Statement::UnlockTables => Ok(done(0)),
            Statement::Explain { statement, .. } => {
                let text = statement.to_string();
                match self.compile((**statement).clone(), &text, &[])? {
                    Compiled::Other(s) => Err(SqlError::unsupported(format!(
                        "EXPLAIN of {}",
                        s.to_string().split_whitespace().next().unwrap_or_default()
                    ))),
                    Compiled::Deferred(d) if !matches!(d.statement, Statement::CreateTable(_)) => {
                        crate::exec::subquery::explain_deferred(self, &d)
                    }
                    Compiled::Deferred(_) => {
                        Err(SqlError::unsupported("EXPLAIN of CREATE TABLE ... SELECT"))
                    }
                    c => Ok(crate::exec::rows(crate::plan::explain::explain(&c))),
                }
            }
            Statement::ExplainTable { table_name, .. } => {
                let def = self.described(table_name)?;
                Ok(crate::exec::rows(crate::plan::explain::describe(
                    &def, false, None,
                )))
            }
            Statement::ShowColumns {
                show_options, full, ..
            } => {
                let Some(ast::ShowStatementIn {
                    parent_name: Some(name),
                    ..
                }) = &show_options.show_in
                else {
                    return Err(SqlError::parse("SHOW COLUMNS needs FROM table"));
                };
                let like = crate::commands::show::like_pattern("SHOW COLUMNS", show_options)?;
                let def = self.described(name)?;
                Ok(crate::exec::rows(crate::plan::explain::describe(
                    &def,
                    *full,
                    like.as_deref(),
                )))
            }
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

    pub(crate) fn set(&mut self, set: &ast::Set) -> Result<Outcome> {
        let assignments: Vec<(String, &ast::Expr)> = match set {
            ast::Set::SingleAssignment {
                variable, values, ..
            } => match values.as_slice() {
                [v] => vec![(variable.to_string(), v)],
                _ => return Err(SqlError::unsupported(format!("{set}"))),
            },
            ast::Set::MultipleAssignments { assignments } => assignments
                .iter()
                .map(|a| (a.name.to_string(), &a.value))
                .collect(),
            ast::Set::SetNames {
                charset_name,
                collation_name,
            } => {
                let charset = crate::foundation::charset::named(&charset_name.value)?;
                let collation = match collation_name {
                    None => None,
                    Some(name) => {
                        let (of, name) = crate::foundation::charset::named_collation(name)?;
                        if of != charset {
                            return Err(SqlError::new(
                                1253,
                                "42000",
                                format!(
                                    "COLLATION '{name}' is not valid for CHARACTER SET '{}'",
                                    charset.name()
                                ),
                            ));
                        }
                        Some(name)
                    }
                };
                self.charsets = crate::foundation::charset::Charsets::all(charset, collation);
                return Ok(done(0));
            }
            ast::Set::SetNamesDefault {} => {
                self.charsets = crate::foundation::charset::Charsets::default();
                return Ok(done(0));
            }
            // SET [SESSION] TRANSACTION ...: READ COMMITTED is the isolation Cairn serves; the
            // access mode is kept.
            ast::Set::SetTransaction { modes, session, .. } => {
                let mode = access_mode(modes);
                if *session {
                    if let Some(read_only) = mode {
                        self.session_read_only = read_only;
                    }
                } else if self.explicit {
                    return Err(SqlError::new(
                        1568,
                        "25001",
                        "Transaction characteristics can't be changed while a transaction is in progress",
                    ));
                } else if mode.is_some() {
                    self.next_read_only = mode;
                }
                return Ok(done(0));
            }
            _ => return Ok(done(0)),
        };
        for (name, value) in assignments {
            let key = name
                .trim_start_matches("@@")
                .to_ascii_lowercase()
                .trim_start_matches("session.")
                .trim_start_matches("local.")
                .trim_start_matches("global.")
                .to_string();
            let v = match value {
                // `SET x = @y`: a user variable an earlier SET kept (NULL when none did), as
                // mysqldump's output restores character_set_client.
                ast::Expr::Identifier(i)
                    if i.value.starts_with('@') && !i.value.starts_with("@@") =>
                {
                    self.vars
                        .get(&i.value.to_ascii_lowercase())
                        .cloned()
                        .unwrap_or(Value::Null)
                }
                // `SET x = ON/OFF/DEFAULT` and other bare words (`@@y` is an expression).
                ast::Expr::Identifier(i) if !i.value.starts_with('@') => {
                    Value::Bytes(i.value.clone().into_bytes())
                }
                e => {
                    let compiled = Compiler::new(None, &[]).compile(e)?;
                    self.free(&compiled, &[])?
                }
            };
            if key == "autocommit" {
                let on = match &v {
                    Value::Bytes(b) => {
                        let t = String::from_utf8_lossy(b).to_ascii_lowercase();
                        t == "on" || t == "1" || t == "true"
                    }
                    other => crate::expr::truthy(other),
                };
                if on && !self.autocommit {
                    // Turning autocommit on commits the transaction in progress.
                    self.end_transaction(true)?;
                }
                self.autocommit = on;
                continue;
            }
            if key == "tx_read_only" || key == "transaction_read_only" {
                let read_only = match &v {
                    Value::Bytes(b) => {
                        let t = String::from_utf8_lossy(b).to_ascii_lowercase();
                        t == "on" || t == "1" || t == "true"
                    }
                    other => crate::expr::truthy(other),
                };
                // `@@tx_read_only` without SESSION is the next transaction's, as in MariaDB.
                let lower = name.to_ascii_lowercase();
                if lower.starts_with("@@")
                    && !lower.starts_with("@@session.")
                    && !lower.starts_with("@@local.")
                {
                    self.next_read_only = Some(read_only);
                } else {
                    self.session_read_only = read_only;
                }
                continue;
            }
            if self.set_charset_variable(&key, &v)? {
                continue;
            }
            if matches!(value, ast::Expr::Identifier(i) if i.value.eq_ignore_ascii_case("default"))
            {
                // The server's value again.
                self.vars.remove(&key);
                continue;
            }
            let v = if key == "group_concat_max_len" {
                // Kept as the length in use, as MariaDB shows it.
                Value::UInt(crate::session::variables::group_concat_max_len(&v) as u64)
            } else {
                v
            };
            self.vars.insert(key, v);
        }
        Ok(done(0))
    }

    /// A system variable's value: set in this session, or the server's.
    pub(crate) fn system_variable(&self, name: &str) -> Value {
        let name = crate::parse::variable_name(name);
        if let Some(v) = self.vars.get(&name) {
            return v.clone();
        }
        crate::session::variables::server_value(self, &name).unwrap_or(Value::Null)
    }
}

/// The statements that commit the transaction in progress before they run: those that change
/// the schema (but for a temporary table, which Cairn refuses anyway).
/// `SET SESSION TRANSACTION ...` (or LOCAL) as `SET SESSION CHARACTERISTICS AS TRANSACTION
/// ...`, the only spelling after which sqlparser says the session's mode is meant (it drops
/// the SESSION of MySQL's); None for any other text.
pub(crate) fn session_transaction(sql: &str) -> Option<String> {
    let mut words = sql.split_whitespace();
    let set = words.next()?;
    let scope = words.next()?;
    let transaction = words.next()?;
    if !set.eq_ignore_ascii_case("set")
        || !(scope.eq_ignore_ascii_case("session") || scope.eq_ignore_ascii_case("local"))
        || !transaction.eq_ignore_ascii_case("transaction")
    {
        return None;
    }
    let at = sql.to_ascii_lowercase().find("transaction")? + "transaction".len();
    Some(format!(
        "SET SESSION CHARACTERISTICS AS TRANSACTION{}",
        &sql[at..]
    ))
}

/// `DO e[, e ...]` as `SELECT e[, e ...]`.
pub(crate) fn do_as_select(sql: &str) -> String {
    let body = sql.trim().get(2..).unwrap_or_default();
    format!("SELECT {}", body.trim_end().trim_end_matches(';'))
}

/// The access mode a list of transaction modes names, if any (true: READ ONLY).
pub(crate) fn access_mode(modes: &[ast::TransactionMode]) -> Option<bool> {
    modes.iter().rev().find_map(|m| match m {
        ast::TransactionMode::AccessMode(a) => {
            Some(matches!(a, ast::TransactionAccessMode::ReadOnly))
        }
        _ => None,
    })
}

/// Whether `s` may create, change or drop a table other sessions' plans can name (a temporary
/// table is its session's own).
fn changes_shared_tables(s: &Statement) -> bool {
    match s {
        Statement::CreateTable(t) => !t.temporary,
        Statement::Drop { temporary, .. } => !temporary,
        Statement::CreateIndex(_)
        | Statement::AlterTable(_)
        | Statement::RenameTable(_)
        | Statement::Truncate(_) => true,
        _ => false,
    }
}

/// Whether a statement creates, changes or drops a table, index, view or database (refused in
/// a read-only session with 1792, temporary tables included, as MariaDB).
pub(crate) fn changes_schema(s: &Statement) -> bool {
    matches!(
        s,
        Statement::CreateTable(_)
            | Statement::Drop { .. }
            | Statement::CreateIndex(_)
            | Statement::AlterTable(_)
            | Statement::RenameTable(_)
            | Statement::Truncate(_)
            | Statement::CreateDatabase { .. }
            | Statement::CreateView(_)
    )
}

pub(crate) fn commits_first(s: &Statement) -> bool {
    changes_shared_tables(s)
        || matches!(
            s,
            Statement::CreateView(_)
                | Statement::AlterView { .. }
                | Statement::CreateDatabase { .. }
        )
}

pub(crate) fn unknown_statement(id: u32) -> SqlError {
    SqlError::new(
        1243,
        "HY000",
        format!("Unknown prepared statement handler ({id}) given to mysqld_stmt_execute"),
    )
}

/// `COMMENT "text"` (NDB's documented `COMMENT="NDB_TABLE=..."`) with the text single-quoted,
/// the only form sqlparser reads after COMMENT; MySQL reads both.
pub(crate) fn double_quoted_comment(sql: &str) -> std::borrow::Cow<'_, str> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    if !mentions(sql, "comment") {
        return sql.into();
    }
    let Ok(tokens) = Tokenizer::new(&Cairn, sql).tokenize_with_location() else {
        return sql.into();
    };
    let mut edits = Vec::new();
    let mut after_comment = false;
    for t in &tokens {
        match &t.token {
            Token::Whitespace(_) => {}
            Token::Eq if after_comment => {}
            Token::DoubleQuotedString(text) if after_comment => {
                let (Some(a), Some(b)) = (
                    crate::parse::offset(sql, t.span.start),
                    crate::parse::offset(sql, t.span.end),
                ) else {
                    return sql.into();
                };
                let quoted = format!("'{}'", text.replace('\\', "\\\\").replace('\'', "''"));
                edits.push((a, b, quoted));
                after_comment = false;
            }
            Token::Word(w) => after_comment = w.value.eq_ignore_ascii_case("comment"),
            _ => after_comment = false,
        }
    }
    if edits.is_empty() {
        return sql.into();
    }
    let mut out = String::with_capacity(sql.len() + 8);
    let mut at = 0;
    for (a, b, quoted) in edits {
        out.push_str(&sql[at..a]);
        out.push_str(&quoted);
        at = b;
    }
    out.push_str(&sql[at..]);
    out.into()
}

/// The statements of a text the plan cache does not serve, after the rewrites sqlparser needs
/// (a double-quoted table comment; PARTITION BY clauses taken out and attached to their CREATE
/// TABLE; ALTER TABLE's DROP KEY and RENAME without TO); and the text they were parsed from,
/// whose positions match the client's but in a respelled ALTER TABLE.
pub(crate) fn parse(sql: &str) -> Result<(std::borrow::Cow<'_, str>, Vec<Statement>)> {
    if starts_with_word(sql, "alter") {
        if let std::borrow::Cow::Owned(respelled) = crate::commands::ddl::alter_spellings(sql) {
            let (text, statements) = parse(&respelled)?;
            return Ok((std::borrow::Cow::Owned(text.into_owned()), statements));
        }
    }
    if let Some(respelled) =
        session_transaction(sql).or_else(|| crate::parse::literals::quoted_user_variables(sql))
    {
        let (text, statements) = parse(&respelled)?;
        let text = text.into_owned();
        return Ok((std::borrow::Cow::Owned(text), statements));
    }
    if sql.ends_with("--") {
        // `--` ending the text is a comment, as MariaDB reads it (sqlparser wants a space
        // after it).
        let spaced = format!("{sql} ");
        let (text, statements) = parse(&spaced)?;
        let text = text.into_owned();
        return Ok((std::borrow::Cow::Owned(text), statements));
    }
    let commented = double_quoted_comment(sql);
    let (taken, clauses) = partition::take(&commented)?;
    let mut text = match taken {
        Some(t) => std::borrow::Cow::Owned(t),
        None => commented,
    };
    // The guard's tokens, when it read them, are the parser's (a long text is read once).
    let parsed = match crate::parse::guard::check(&text)? {
        Some(tokens) => Parser::new(&Cairn)
            .with_tokens_with_locations(tokens)
            .parse_statements(),
        None => Parser::parse_sql(&Cairn, &text),
    };
    let mut statements = match parsed {
        Ok(statements) => statements,
        Err(e) => {
            if let Some(again) = from_dual_before_lock(&text) {
                // `SELECT 1 FOR UPDATE`: sqlparser reads a locking clause only after a FROM.
                Parser::parse_sql(&Cairn, &again).map_err(|_| SqlError::parse(e))?
            } else if let Some(again) = crate::parse::dialect::top_as_name(&text) {
                // A table or column named `top`; the text read is the one with it quoted.
                let statements =
                    Parser::parse_sql(&Cairn, &again).map_err(|_| SqlError::parse(e))?;
                text = std::borrow::Cow::Owned(again);
                statements
            } else {
                return Err(SqlError::parse(e));
            }
        }
    };
    partition::attach(&mut statements, clauses)?;
    Ok((text, statements))
}

/// A text ending in `FOR UPDATE` or `FOR SHARE` (and NOWAIT or SKIP LOCKED) with `FROM DUAL`
/// before that clause, for a SELECT without FROM; None for any other text.
pub(crate) fn from_dual_before_lock(sql: &str) -> Option<String> {
    let body = sql.trim_end().trim_end_matches(';').trim_end();
    let lower = body.to_ascii_lowercase();
    let mut clause_at = None;
    for ending in ["for update", "for share"] {
        for suffix in ["", " nowait", " skip locked"] {
            let tail = format!("{ending}{suffix}");
            if lower.ends_with(&tail)
                && lower[..lower.len() - tail.len()].ends_with(char::is_whitespace)
            {
                clause_at = Some(lower.len() - tail.len());
            }
        }
    }
    let at = clause_at?;
    Some(format!("{}FROM DUAL {}", &body[..at], &body[at..]))
}

/// Whether the text is `START TRANSACTION WITH CONSISTENT SNAPSHOT`, the last three words maybe
/// in an executable comment (`/*!40100 ... */` as mysqldump writes it, `/*!40108 ... */` as
/// mydumper does).
pub(crate) fn consistent_snapshot(sql: &str) -> bool {
    // Five words and a comment: a long text is none, and is not copied to see it.
    let sql = sql.trim();
    if !starts_with_word(sql, "start") || sql.len() > 128 {
        return false;
    }
    let mut text = sql.to_string();
    while let Some(at) = text.find("/*!") {
        let digits = text[at + 3..]
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        text.replace_range(at..at + 3 + digits, " ");
    }
    let text = text.replace("*/", " ");
    let words: Vec<String> = text
        .trim()
        .trim_end_matches(';')
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    words == ["start", "transaction", "with", "consistent", "snapshot"]
}

/// The statement inside a text that is one executable comment, `/*!NNNNN statement */` (how
/// mysqldump writes what only some servers run; MariaDB and MySQL run it whatever the
/// version, as Cairn does), else the text itself.
pub(crate) fn executable_comment(sql: &str) -> &str {
    let t = sql.trim();
    let t = t.strip_suffix(';').unwrap_or(t).trim_end();
    let Some(inner) = t.strip_prefix("/*!").and_then(|r| r.strip_suffix("*/")) else {
        return sql;
    };
    if inner.contains("*/") {
        return sql;
    }
    inner.trim_start_matches(|c: char| c.is_ascii_digit())
}

/// MySQL's `... LOCK IN SHARE MODE` (which sqlparser does not parse) as `... FOR SHARE`, its
/// MySQL 8 spelling, when a statement ends with it.
pub(crate) fn share_mode(sql: &str) -> std::borrow::Cow<'_, str> {
    const OLD: &str = "lock in share mode";
    let body = sql.trim_end().trim_end_matches(';').trim_end();
    let cut = body.len().saturating_sub(OLD.len());
    match body.get(cut..) {
        Some(tail)
            if tail.eq_ignore_ascii_case(OLD) && body[..cut].ends_with(char::is_whitespace) =>
        {
            format!("{}FOR SHARE{}", &body[..cut], &sql[body.len()..]).into()
        }
        _ => sql.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::consistent_snapshot;

    #[test]
    fn consistent_snapshot_in_the_dumpers_spellings() {
        for text in [
            "START TRANSACTION WITH CONSISTENT SNAPSHOT",
            "  start transaction /*!40100 WITH CONSISTENT SNAPSHOT */;",
            "START TRANSACTION /*!40108 WITH CONSISTENT SNAPSHOT */",
        ] {
            assert!(consistent_snapshot(text), "{text}");
        }
        assert!(!consistent_snapshot("START TRANSACTION"));
        assert!(!consistent_snapshot("SELECT 'WITH CONSISTENT SNAPSHOT'"));
    }
}
