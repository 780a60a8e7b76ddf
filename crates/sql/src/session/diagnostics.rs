//! A session's diagnostics area as its statements begin and end: a statement's kind decides
//! whether its conditions replace the list, its outcome's counts, SHOW WARNINGS and SHOW ERRORS
//! (the area itself is `exec/diagnostics.rs`'s).

use crate::exec::diagnostics::*;
use crate::exec::Outcome;
use crate::session::Session;
use base::Value;
use myproto::response::{types, Column};

impl Session {
    /// Marks the start of a statement of `kind` (counted in the status counters, and the time
    /// NOW() gives throughout it).
    pub(crate) fn begin_statement(&mut self, kind: Kind) {
        self.statement_micros = crate::expr::temporal::wall_clock_micros();
        self.randoms.get_mut().statement_starts();
        self.activity.count(&self.shared, kind);
        let d = &mut self.diagnostics;
        d.tables = matches!(
            kind,
            Kind::Select { tables: true }
                | Kind::Insert
                | Kind::Update
                | Kind::Delete
                | Kind::Other { tables: true }
        );
        d.reading = kind == Kind::Diagnostic;
        // A statement the reactor started and gave to the thread runs again from the start.
        d.raised.get_mut().clear();
        d.raised_total.set(0);
    }

    /// Marks the running statement as one that changes tables (so it empties the conditions
    /// list), whatever kind it began as.
    pub(crate) fn changes_tables(&mut self) {
        self.diagnostics.tables = true;
    }

    /// Records a note of the running statement (an IF EXISTS that found nothing, ...).
    pub(crate) fn note(&mut self, code: u16, message: impl Into<String>) {
        self.diagnostics.raise(Condition {
            level: Level::Note,
            code,
            message: message.into(),
        });
    }

    /// Ends the running statement with `outcome`: updates the list and the Questions counter;
    /// returns the count its answer carries.
    pub(crate) fn conclude(&mut self, outcome: &Outcome) -> u16 {
        self.activity.question(&self.shared);
        self.row_count = match outcome {
            Outcome::Done { affected, .. } => (*affected).min(i64::MAX as u64) as i64,
            Outcome::Rows { .. } | Outcome::Stream(_) | Outcome::Failed(_) => -1,
        };
        let d = &mut self.diagnostics;
        if let Outcome::Failed(e) = outcome {
            d.raise(Condition {
                level: Level::Error,
                code: e.code,
                message: e.message.clone(),
            });
        }
        let raised = d.raised.take();
        let raised_total = d.raised_total.replace(0);
        let tables = std::mem::replace(&mut d.tables, false);
        let reading = std::mem::replace(&mut d.reading, false);
        if raised_total > 0 {
            d.list = raised;
            d.total = raised_total;
        } else if tables && !reading {
            d.list.clear();
            d.total = 0;
        }
        raised_total.min(u16::MAX as usize) as u16
    }

    /// Ends one statement of a COM_QUERY, keeping its count for `take_counts`.
    pub(crate) fn concluded(&mut self, outcome: Outcome) -> Outcome {
        let count = self.conclude(&outcome);
        let counts = &mut self.diagnostics.counts;
        if counts.len() >= STATEMENT_COUNTS_MAX {
            counts.clear();
        }
        counts.push(count);
        outcome
    }

    /// The counts of the statements `run` concluded, in order.
    pub(crate) fn take_counts(&mut self) -> Vec<u16> {
        std::mem::take(&mut self.diagnostics.counts)
    }

    /// SHOW WARNINGS (every level) or SHOW ERRORS.
    pub(crate) fn show_conditions(&mut self, errors_only: bool) -> Outcome {
        let rows = self
            .diagnostics
            .list
            .iter()
            .filter(|c| !errors_only || c.level == Level::Error)
            .map(|c| {
                vec![
                    Value::Bytes(c.level.name().as_bytes().to_vec()),
                    Value::UInt(c.code as u64),
                    Value::Bytes(c.message.clone().into_bytes()),
                ]
            })
            .collect();
        Outcome::Rows {
            columns: vec![
                Column::computed("Level", types::VAR_STRING, 7 * 4, 0),
                Column::computed("Code", types::LONG, 4, 0),
                Column::computed("Message", types::VAR_STRING, 512 * 4, 0),
            ],
            rows,
        }
    }

    /// SHOW COUNT(*) WARNINGS or SHOW COUNT(*) ERRORS.
    pub(crate) fn show_condition_count(&mut self, errors_only: bool) -> Outcome {
        let (name, n) = if errors_only {
            ("@@session.error_count", self.diagnostics.error_count())
        } else {
            ("@@session.warning_count", self.diagnostics.warning_count())
        };
        Outcome::Rows {
            columns: vec![Column::computed(name, types::LONGLONG, 21, 0)],
            rows: vec![vec![Value::UInt(n as u64)]],
        }
    }
}
