//! A coordinator's DDL: schema changes the catalog takes first and every worker then applies,
//! answered once all have (CREATE TABLE, indexes, ALTER, DROP), and the column change, which
//! copies rows on every worker before the catalog names the new table.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use base::schema::{IndexDef, IndexKind};
use base::{Error, ErrorCode, TableDef};
use wire::{Message, NewColumn, TableChange};

use super::{Coordinator, Pending, UniqueState};
use crate::messages::*;

impl Coordinator {
    /// CREATE TABLE: the catalog registers it, then every worker creates its partitions.
    pub(super) fn create_table(&mut self, id: u64, def: TableDef) {
        if let Err(e) = self.options_held(&def.options) {
            return self.fail(id, e);
        }
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

    /// An index added to a table. An ordered one: the catalog first, then every worker builds
    /// it. A unique one is built before the catalog names it (`add_unique_index`).
    pub(super) fn add_index(&mut self, id: u64, table: &str, version: u32, index: IndexDef) {
        if index.kind == IndexKind::Unique {
            return self.add_unique_index(id, table, version, index);
        }
        let def = match self.shared.register_index(table, version, index) {
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

    /// A unique index over a table's rows, in three rounds: every worker fences the table and
    /// collects its rows' entries (`on_collected`); each worker owning hidden partitions
    /// fills them, finding any key two rows share (`on_filled`); then the catalog names the
    /// index, or after any failure the table stays as it was, and every worker ends the build.
    fn add_unique_index(&mut self, id: u64, table: &str, version: u32, index: IndexDef) {
        let build = match self.shared.begin_unique(table, version, index) {
            Ok(build) => Arc::new(build),
            Err(e) => return self.fail(id, e),
        };
        let (tag, waiting) =
            self.send_to_every_worker(|_, tag, reply_to| ToWorker::CollectUnique {
                build: build.clone(),
                tag,
                reply_to,
            });
        let workers = self.shared.worker_count();
        self.pending.insert(
            tag,
            Pending::Unique(UniqueState {
                request_id: id,
                waiting,
                build,
                routed: (0..workers).map(|_| Vec::new()).collect(),
                error: None,
                durable: false,
            }),
        );
    }

    /// A worker's entries for a unique index: each goes to the worker owning its partition.
    /// Once every worker answered, those workers fill the hidden table.
    pub(super) fn on_collected(&mut self, tag: u64, entries: Result<IndexEntries, Error>) {
        let Some(Pending::Unique(mut state)) = self.pending.remove(&tag) else {
            return;
        };
        match entries {
            Ok(entries) if state.error.is_none() => {
                let placement = self.shared.placement;
                for (p, entry) in entries {
                    state.routed[placement.worker_of(p)].push((p, entry));
                }
            }
            Ok(_) => {}
            Err(e) => {
                state.error.get_or_insert(e);
                state.routed.iter_mut().for_each(Vec::clear);
            }
        }
        state.waiting -= 1;
        if state.waiting > 0 {
            self.pending.insert(tag, Pending::Unique(state));
            return;
        }
        if state.error.is_some() {
            return self.end_unique(state);
        }
        let shared = self.shared.clone();
        let mut routed = std::mem::take(&mut state.routed);
        let build = state.build.clone();
        let (tag, waiting) = self.send_to_every_worker(|w, tag, reply_to| ToWorker::FillUnique {
            build: build.clone(),
            partitions: shared.partitions_of(&build.hidden, w),
            entries: std::mem::take(&mut routed[w]),
            txn: shared.next_txn.fetch_add(1, Ordering::Relaxed),
            sequence: shared.sequence.clone(),
            tag,
            reply_to,
        });
        state.waiting = waiting;
        self.pending.insert(tag, Pending::Unique(state));
    }

    /// A worker filled its hidden partitions (or found a duplicate key); once all answered,
    /// the build ends.
    pub(super) fn on_filled(&mut self, tag: u64, result: Result<(), Error>) {
        let Some(Pending::Unique(mut state)) = self.pending.remove(&tag) else {
            return;
        };
        if let Err(e) = result {
            state.error.get_or_insert(e);
        }
        state.waiting -= 1;
        if state.waiting > 0 {
            self.pending.insert(tag, Pending::Unique(state));
            return;
        }
        if state.error.is_none() && !state.durable && self.after_global_checkpoint(tag) {
            state.durable = true;
            state.waiting = 1;
            self.pending.insert(tag, Pending::Unique(state));
            return;
        }
        self.end_unique(state);
    }

    /// In `interval` durability, the rows a column change or a unique index wrote (logged and
    /// fsynced, numbered as commits) must be below the global checkpoint's cut before the
    /// catalog names them, or a restart would drop them with the commits past the cut (the
    /// whole table's rows). Runs a round on a thread of its own, which then answers `tag` as
    /// a worker does (`Event::Converted`). False when there is nothing to wait for.
    fn after_global_checkpoint(&mut self, tag: u64) -> bool {
        self.global_checkpoint_then(move |result| Event::Converted { tag, result })
    }

    /// In `interval` durability: runs a global checkpoint round on a thread of its own, which
    /// then sends this coordinator `event(result)`. False (and nothing sent) in other modes.
    pub(super) fn global_checkpoint_then(
        &mut self,
        event: impl FnOnce(Result<(), Error>) -> Event + Send + 'static,
    ) -> bool {
        if !matches!(self.shared.durability, crate::Durability::Interval(_))
            || self.shared.gcp.is_none()
        {
            return false;
        }
        let (shared, me) = (self.shared.clone(), self.me);
        let spawned = std::thread::Builder::new()
            .name("global-checkpoint-wait".into())
            .spawn(move || {
                let below = shared.sequence.load(std::sync::atomic::Ordering::SeqCst);
                // In a cluster, a member's rows count once a round of the cluster covers them
                // (a system restart restores such a round); a node still copying is in none.
                let result = crate::gcp::round(&shared)
                    .and_then(|()| {
                        if crate::gcp_rounds::member(&shared) {
                            crate::gcp_rounds::wait_covered(
                                &shared,
                                below,
                                crate::gcp_rounds::COVER_MAX,
                            )
                        } else {
                            Ok(())
                        }
                    })
                    .map_err(|why| Error::new(ErrorCode::ShuttingDown, why));
                shared.workers[me.worker].send(ToWorker::ToCoordinator {
                    connection: me.connection,
                    event: event(result),
                });
            });
        spawned.is_ok()
    }

    /// Ends a unique-index build: the catalog names the index when every round went well, else
    /// the table stays as it was; every worker ends it, and the request is answered after.
    fn end_unique(&mut self, state: UniqueState) {
        let build = state.build;
        let (reply, done) = match state.error {
            None => match self.shared.finish_unique(&build) {
                Ok(()) => {
                    self.forward_long(state.request_id);
                    (self.table_reply(&build.to.name), true)
                }
                Err(e) => (Message::Failure(e), false),
            },
            Some(e) => {
                self.shared.abort_unique(&build);
                (Message::Failure(e), false)
            }
        };
        self.ddl_on_workers(state.request_id, reply, |_, tag, reply_to| {
            ToWorker::EndUnique {
                build: build.clone(),
                done,
                tag,
                reply_to,
            }
        });
    }

    /// A change that moves no rows (drop an index, rename, options): the catalog first, then
    /// every worker takes the new definitions.
    pub(super) fn alter_table(&mut self, id: u64, table: &str, change: &TableChange) {
        if let TableChange::Options { options, .. } = change {
            if let Err(e) = self.options_held(options) {
                return self.fail(id, e);
            }
        }
        match self.shared.alter_table(table, change) {
            Ok(redefinition) => self.redefine_on_workers(id, redefinition),
            Err(e) => self.fail(id, e),
        }
    }

    /// Refuses table options this cluster cannot keep: FULLY_REPLICATED (a copy of the whole
    /// table on every data node) holds in a cluster of one node group, where every node holds
    /// every partition already and any replica answers its committed reads; over several
    /// groups a write would have to reach every group, which is not built.
    fn options_held(&self, options: &base::schema::TableOptions) -> Result<(), Error> {
        if options.fully_replicated && self.shared.placement.groups > 1 {
            return Err(Error::new(
                ErrorCode::BadSchema,
                format!(
                    "FULLY_REPLICATED=1 is not supported yet in a cluster of {} node groups (only of one, where every data node holds the whole table); use READ_BACKUP=1",
                    self.shared.placement.groups
                ),
            ));
        }
        Ok(())
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
                durable: false,
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
            durable,
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
                    durable,
                },
            );
            return;
        }
        if error.is_none() && !durable && self.after_global_checkpoint(tag) {
            self.pending.insert(
                tag,
                Pending::Convert {
                    request_id,
                    waiting: 1,
                    conversion,
                    error,
                    durable: true,
                },
            );
            return;
        }
        let (reply, done, hidden) = match error {
            None => match self.shared.finish_columns(&conversion) {
                Ok(hidden) => {
                    self.forward_long(request_id);
                    (self.table_reply(&conversion.to.name), true, hidden)
                }
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
