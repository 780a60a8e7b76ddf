//! A coordinator's DDL: schema changes the catalog takes first and every worker then applies,
//! answered once all have (CREATE TABLE, indexes, ALTER, DROP), and the column change, which
//! copies rows on every worker before the catalog names the new table.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use base::{Error, ErrorCode, TableDef};
use wire::{Message, NewColumn, TableChange};

use super::{Coordinator, Pending};
use crate::messages::*;

impl Coordinator {
    /// CREATE TABLE: the catalog registers it, then every worker creates its partitions.
    pub(super) fn create_table(&mut self, id: u64, def: TableDef) {
        let created = match self.shared.register_table(def) {
            Ok(created) => created,
            Err(e) => return self.fail(id, e),
        };
        let reply = Message::TableInfo {
            table: (*created[0]).clone(),
            index_tables: created[1..].iter().map(|t| (**t).clone()).collect(),
        };
        let shared = self.shared.clone();
        self.ddl_on_workers(id, reply, |w, tag, reply_to| {
            let tables = created
                .iter()
                .map(|t| (t.clone(), shared.partitions_of(t, w)))
                .collect();
            ToWorker::CreateTables {
                tables,
                tag,
                reply_to,
            }
        });
    }

    /// An ordered index added to a table: the catalog first, then every worker builds it.
    pub(super) fn add_index(&mut self, id: u64, table: &str, name: &str, columns: Vec<u16>) {
        let def = match self.shared.register_index(table, name, columns) {
            Ok(def) => def,
            Err(e) => return self.fail(id, e),
        };
        let reply = self.table_reply(table);
        self.ddl_on_workers(id, reply, |_, tag, reply_to| ToWorker::AddIndex {
            table: def.clone(),
            tag,
            reply_to,
        });
    }

    /// A change that moves no rows (drop an index, rename, options): the catalog first, then
    /// every worker takes the new definitions.
    pub(super) fn alter_table(&mut self, id: u64, table: &str, change: &TableChange) {
        match self.shared.alter_table(table, change) {
            Ok(redefinition) => self.redefine_on_workers(id, redefinition),
            Err(e) => self.fail(id, e),
        }
    }

    /// Has every worker take the new definitions of a change that moves no rows, then answers
    /// request `id` with the base table's definition.
    fn redefine_on_workers(&mut self, id: u64, redefinition: crate::Redefinition) {
        let reply = self.table_reply(&redefinition.tables[0].name);
        self.ddl_on_workers(id, reply, |_, tag, reply_to| ToWorker::Redefine {
            tables: redefinition.tables.clone(),
            dropped_index: redefinition.dropped_index,
            drop: redefinition.drop.clone(),
            tag,
            reply_to,
        });
    }

    /// The answer to a DDL that leaves table `name` in place: its definition as the catalog
    /// holds it now.
    fn table_reply(&self, name: &str) -> Message {
        self.shared.table_info(name).unwrap_or_else(|| {
            Message::Failure(Error::new(
                ErrorCode::NoSuchTable,
                format!("unknown table '{name}'"),
            ))
        })
    }

    /// Sends a DDL step to every worker; `reply` answers request `id` once all have done it.
    pub(super) fn ddl_on_workers(
        &mut self,
        id: u64,
        reply: Message,
        make: impl Fn(usize, u64, ReplyTo) -> ToWorker,
    ) {
        let (tag, waiting) = self.send_to_every_worker(make);
        self.pending.insert(
            tag,
            Pending::Ddl {
                request_id: id,
                waiting,
                reply,
            },
        );
    }

    /// Answers a DROP once every worker dropped the partitions of the tables taken out of the
    /// catalog.
    pub(super) fn drop_tables(&mut self, id: u64, dropped: Result<Vec<u32>, Error>) {
        match dropped {
            Ok(ids) => {
                self.ddl_on_workers(id, Message::Done, |_, tag, reply_to| ToWorker::DropTables {
                    ids: ids.clone(),
                    tag,
                    reply_to,
                })
            }
            Err(e) => self.fail(id, e),
        }
    }

    /// A column change: one of names and defaults only is a redefinition; otherwise the catalog
    /// reserves the new table, every worker copies its rows into it (`on_converted` goes on
    /// once all answered).
    pub(super) fn change_columns(
        &mut self,
        id: u64,
        table: &str,
        version: u32,
        columns: &[NewColumn],
    ) {
        let conversion = match self.shared.begin_columns(table, version, columns) {
            Ok(crate::ColumnChange::Copy(c)) => Arc::new(c),
            Ok(crate::ColumnChange::InPlace(redefinition)) => {
                return self.redefine_on_workers(id, redefinition)
            }
            Err(e) => return self.fail(id, e),
        };
        let shared = self.shared.clone();
        let (tag, waiting) = self.send_to_every_worker(|_, tag, reply_to| ToWorker::Convert {
            conversion: conversion.clone(),
            txn: shared.next_txn.fetch_add(1, Ordering::Relaxed),
            sequence: shared.sequence.clone(),
            tag,
            reply_to,
        });
        self.pending.insert(
            tag,
            Pending::Convert {
                request_id: id,
                waiting,
                conversion,
                error: None,
            },
        );
    }

    /// A worker copied its rows for a column change (or could not). Once all answered, the
    /// catalog names the new table and the old partitions go; after any failure the new ones
    /// go and the table stays as it was.
    pub(super) fn on_converted(&mut self, tag: u64, result: Result<(), Error>) {
        let Some(Pending::Convert {
            request_id,
            waiting,
            conversion,
            mut error,
        }) = self.pending.remove(&tag)
        else {
            return;
        };
        if let Err(e) = result {
            error.get_or_insert(e);
        }
        if waiting > 1 {
            self.pending.insert(
                tag,
                Pending::Convert {
                    request_id,
                    waiting: waiting - 1,
                    conversion,
                    error,
                },
            );
            return;
        }
        let (reply, done, hidden) = match error {
            None => match self.shared.finish_columns(&conversion) {
                Ok(hidden) => (self.table_reply(&conversion.to.name), true, hidden),
                Err(e) => (Message::Failure(e), false, Vec::new()),
            },
            Some(e) => {
                self.shared.abort_columns(&conversion);
                (Message::Failure(e), false, Vec::new())
            }
        };
        self.ddl_on_workers(request_id, reply, |_, tag, reply_to| {
            ToWorker::EndConversion {
                conversion: conversion.clone(),
                done,
                hidden: hidden.clone(),
                tag,
                reply_to,
            }
        });
    }
}
