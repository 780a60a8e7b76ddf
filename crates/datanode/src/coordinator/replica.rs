//! A coordinator's part in its node group (`crate::replication`): on the primary, a commit's
//! rows gathered from its workers and sent to the backups before the workers commit, and schema
//! changes sent to the backups as soon as they change the catalog here; on a backup, the
//! primary's link (its hello, the rows it sends, its schema changes, each done once); on either,
//! refusing what the node does not serve in the current view.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use base::{limits, Error, ErrorCode};
use wire::{ExecuteOutcome, Message, OpResult, RowChange};

use super::{Coordinator, OpenTxn, Pending};
use crate::messages::*;
use crate::replication::{CommitName, Outcome, Restart, SchemaJob};

/// A commit whose row images are coming from its workers.
pub(super) struct Gather {
    pub(super) request_id: u64,
    pub(super) client_txn: u64,
    pub(super) txn: OpenTxn,
    pub(super) results: Vec<OpResult>,
    pub(super) waiting: usize,
    pub(super) changes: Vec<RowChange>,
    pub(super) purpose: super::twophase::Purpose,
}

/// Schema changes that copy rows (a column change) or build a unique index: the primary fences
/// the table and waits for its lock holders first, so they go to the backups once done here
/// (`forward_long`), after every commit to the old table; the backup, holding no locks, then
/// runs them at once.
pub(super) fn copies_rows(message: &Message) -> bool {
    matches!(
        message,
        Message::AlterTable {
            change: wire::TableChange::Columns { .. },
            ..
        } | Message::AddIndex {
            kind: base::schema::IndexKind::Unique,
            ..
        }
    )
}

/// Requests that change the schema: done by every replica, in the same place among the commits.
fn is_schema_change(message: &Message) -> bool {
    matches!(
        message,
        Message::CreateTable(_)
            | Message::AddIndex { .. }
            | Message::AlterTable { .. }
            | Message::CreateDatabase { .. }
            | Message::AlterDatabase { .. }
            | Message::DropTable { .. }
            | Message::DropDatabase { .. }
    )
}

impl Coordinator {
    /// Whether `message` is a request a backup answers while it serves reads: an `Execute` of
    /// committed primary-key reads of READ_BACKUP tables, ending with Commit (it leaves nothing
    /// open); a `Scan` of such a table outside any transaction, in a cluster of one node group
    /// (a backup reads no other group's partitions), and the next batches of a scan it runs.
    fn backup_may_read(&self, message: &Message) -> bool {
        let Ok(catalog) = self.shared.catalog.read() else {
            return false;
        };
        let read_backup = |table: u32| {
            catalog
                .get(table)
                .is_some_and(|t| t.def.options.reads_any_replica())
        };
        match message {
            Message::Execute {
                statement: 0,
                exec: wire::ExecType::Commit,
                operations,
                ..
            } => {
                !operations.is_empty()
                    && operations.iter().all(|op| {
                        op.kind == wire::OpKind::Read(wire::LockMode::CommittedRead)
                            && op.index.is_none()
                            && read_backup(op.table)
                    })
            }
            Message::Scan(request) => {
                request.transaction == 0
                    && self.shared.placement.groups == 1
                    && read_backup(request.table)
                    && request.join.iter().all(|c| read_backup(c.table))
            }
            Message::ScanNext | Message::ScanClose => true,
            _ => false,
        }
    }

    /// Refuses (and answers) a request this node does not serve in the current view: data and
    /// schema requests anywhere but on the group's primary, except what the primary's own link
    /// brings a backup (a schema change it sent before is answered as it was, not done twice).
    /// A schema change a primary will do is noted, to go to the backups once it has changed
    /// the catalog here. True when the request was answered.
    pub(super) fn refused_by_role(&mut self, id: u64, message: &Message) -> bool {
        let Some(role) = self.shared.role.clone() else {
            return false;
        };
        let refusal = match message {
            Message::Hello { .. }
            | Message::Ping { .. }
            | Message::Status
            | Message::GetTable { .. }
            | Message::ListTables
            | Message::ListDatabases
            | Message::Checkpoint
            | Message::Shutdown { .. }
            | Message::ChecksumsRequest
            | Message::PeerHello { .. }
            | Message::StepHello { .. } => None,
            Message::Steps { .. }
            | Message::EndRemote { .. }
            | Message::UndoRemote { .. }
            | Message::ScanPart { .. } => self.refuses_step_request(),
            Message::Replicate {
                session,
                transaction,
                decision,
                ..
            } => match self.replica {
                // Checked, and the commit recorded, in one look at the view.
                Some((node, epoch)) => {
                    let decision = (*decision != 0)
                        .then(|| crate::replication::decision_name(node, *decision));
                    role.take_commit(epoch, (*session, *transaction), decision, (id, message))
                        .err()
                }
                None => Some(Error::new(
                    ErrorCode::Protocol,
                    "replicated rows come only on a primary's link (after PeerHello)",
                )),
            },
            // A new primary bringing the group level (`replication::level`).
            Message::LevelUp {
                seq,
                session,
                transaction,
                ..
            } => match self.replica {
                // Kept as the earlier primary's job it is.
                Some((_, epoch)) => role
                    .take_commit(epoch, (*session, *transaction), None, (*seq, message))
                    .err(),
                None => Some(Error::new(
                    ErrorCode::Protocol,
                    "levelled rows come only on a primary's link (after PeerHello)",
                )),
            },
            Message::TakenAsk { .. } => match self.replica {
                Some((_, epoch)) => role.accepts_commit(epoch).err(),
                None => Some(Error::new(
                    ErrorCode::Protocol,
                    "a primary asks what a member took only on its link (after PeerHello)",
                )),
            },
            Message::TableIds { .. } => match self.replica {
                Some((node, epoch)) => role.accepts_schema(node, epoch, (id, message)).err(),
                None => Some(Error::new(
                    ErrorCode::Protocol,
                    "table ids come only on a primary's link (after PeerHello)",
                )),
            },
            // Asked by other groups' resolvers too, whose parts this node's holding waits on.
            Message::CommitOutcome { .. } => role.serving_links().err(),
            // From the schema master on a step link, or from the primary on its link here.
            Message::Gcp { .. } => match (self.replica, self.step_peer) {
                (Some((_, epoch)), _) => role.take_job(epoch, id, message).err(),
                (None, Some(_)) => self.refuses_step_request(),
                (None, None) => Some(Error::new(
                    ErrorCode::Protocol,
                    "global checkpoint steps come only on a step link or a primary's link",
                )),
            },
            Message::Prepared { .. } | Message::Resolve { .. } => match self.replica {
                Some((_, epoch)) => role.take_job(epoch, id, message).err(),
                None => Some(Error::new(
                    ErrorCode::Protocol,
                    "prepared rows come only on a primary's link (after PeerHello)",
                )),
            },
            Message::CopyCatalog { .. }
            | Message::CopyRows { .. }
            | Message::CopyNames { .. }
            | Message::CopyPrimaries { .. }
            | Message::CopyDone { .. } => match self.replica {
                Some((_, epoch)) => role.take_job(epoch, id, message).err(),
                None => Some(Error::new(
                    ErrorCode::Protocol,
                    "copies come only on a primary's link (after PeerHello)",
                )),
            },
            m if is_schema_change(m) && self.replica.is_some() => {
                let (node, epoch) = self.replica.unwrap_or_default();
                match role.accepts_schema(node, epoch, (id, message)) {
                    Err(e) => Some(e),
                    Ok(forward) => match role.schema_job(node, id) {
                        SchemaJob::New => {
                            self.schema_jobs.insert(id, node);
                            if forward {
                                // Another group's primary taking the master's change: its own
                                // backups take it from here, after its commits before it.
                                self.forwarding.insert(id, message.clone());
                            }
                            None
                        }
                        SchemaJob::Running => Some(Error::new(
                            ErrorCode::Overloaded,
                            "this schema change is still running here; retry",
                        )),
                        SchemaJob::Done(answer) => {
                            self.reply(id, &answer);
                            return true;
                        }
                    },
                }
            }
            m => match role.serving() {
                // A backup answers committed reads of READ_BACKUP tables (checked again, key by
                // key, once the operations are prepared: `on_execute`).
                Err(e) if self.backup_may_read(m) => {
                    self.reading_as_backup = role.serving_reads().is_ok();
                    if self.reading_as_backup
                        && !matches!(m, Message::ScanNext | Message::ScanClose)
                    {
                        role.count_backup_read();
                    }
                    (!self.reading_as_backup).then_some(e)
                }
                Err(e) => Some(e),
                Ok(_) if is_schema_change(m) && !role.is_master() => {
                    // Every schema change is made by the master, which sends it to this node.
                    self.relay_schema(id, m.clone());
                    return true;
                }
                Ok(_) if is_schema_change(m) => {
                    if let Some(node) = role.has_starting() {
                        Some(Error::new(
                            ErrorCode::Overloaded,
                            format!("data node {node} of this node group is starting (copying its partitions): schema changes wait until it is a member; retry"),
                        ))
                    } else if self.shared.schema_change_busy.swap(true, Ordering::AcqRel) {
                        Some(Error::new(
                            ErrorCode::Overloaded,
                            "another schema change is being made on the node group; retry",
                        ))
                    } else {
                        self.forwarding.insert(id, message.clone());
                        None
                    }
                }
                Ok(_) => None,
            },
        };
        match refusal {
            Some(e) => {
                // A transaction whose request is refused cannot go on here: it is rolled back
                // now (its client hears a temporary error and runs it again). Its next request
                // hears it again rather than opening it anew without what it did before.
                if let Message::Execute { transaction, .. }
                | Message::Steps { transaction, .. }
                | Message::EndRemote { transaction, .. }
                | Message::UndoRemote { transaction, .. }
                | Message::ScanPart { transaction, .. } = message
                {
                    if let Some(txn) = self.txns.remove(transaction) {
                        self.abort_txn(&txn);
                        // (One that held nothing is forgotten, as an idle one is.)
                        if txn.touched != 0 || !txn.remote.is_empty() {
                            self.remember_rolled_back(*transaction, e.clone());
                        }
                    }
                }
                self.fail(id, e);
                true
            }
            None => false,
        }
    }

    /// Whether a schema change this coordinator drives is under way, or a two-phase commit's
    /// decision not yet logged here: it must run to its end even after the connection closes
    /// (the event loop keeps the coordinator until then).
    pub fn has_schema_work(&self) -> bool {
        !self.schema_jobs.is_empty()
            || !self.forwarding.is_empty()
            || !self.forwarded.is_empty()
            || self.pending.values().any(|p| {
                matches!(
                    p,
                    Pending::Ddl { .. }
                        | Pending::Convert { .. }
                        | Pending::Unique(_)
                        | Pending::Forward { .. }
                        // A decision goes on to its parts' commits without the connection.
                        | Pending::Replicating {
                            decided: Some(_),
                            ..
                        }
                        | Pending::Deciding { .. }
                )
            })
    }

    /// The highest table id the catalog has given.
    fn last_table_id(&self) -> u32 {
        self.shared
            .catalog
            .read()
            .map(|c| c.last_id())
            .unwrap_or_default()
    }

    /// A primary opens its replication link to this node.
    pub(super) fn peer_hello(&mut self, id: u64, node: u32, epoch: u64) {
        let Some(role) = self.shared.role.clone() else {
            return self.fail(
                id,
                Error::new(
                    ErrorCode::Protocol,
                    "this data node runs alone, in no node group",
                ),
            );
        };
        match role.accepts_peer(node, epoch) {
            Ok(()) => {
                self.replica = Some((node, epoch));
                let reply = self.hello_reply(false);
                self.reply(id, &reply);
            }
            Err(e) => self.fail(id, e),
        }
    }

    /// A backup applies its primary's commit on the workers owning the rows' partitions, as one
    /// logged transaction, and answers once every part is written (and synced, as the node's
    /// durability says).
    pub(super) fn apply_replicated(
        &mut self,
        id: u64,
        name: CommitName,
        changes: Vec<RowChange>,
        decision: Option<CommitName>,
    ) {
        // A restarted node that holds no table yet drops them: the copy reads them applied.
        if self
            .shared
            .role
            .as_ref()
            .is_some_and(|r| r.restart() == Restart::AwaitingCatalog)
        {
            return self.reply(id, &Message::Done);
        }
        // (Recorded as committed here with the view's check, `Role::take_commit`: the workers
        // take the rows before anything queued after.)
        let _ = name;
        self.apply_rows(id, decision, changes, false);
    }

    /// A backup takes a prepared part of its primary: held in memory (`Role::hold`) and
    /// logged as a prepared record by the workers owning its rows' partitions, then
    /// answered, so the part survives this node's restart (`worker::prepared`).
    pub(super) fn hold_prepared(&mut self, id: u64, part: (u32, u64), changes: Vec<RowChange>) {
        let Some(role) = self.shared.role.clone() else {
            return self.reply(id, &Message::Done);
        };
        let name = crate::replication::decision_name(part.0, part.1);
        let workers = self.shared.worker_count();
        let mut parts: Vec<Vec<RowChange>> = (0..workers).map(|_| Vec::new()).collect();
        for change in &changes {
            parts[self.shared.placement.worker_of(change.partition)].push(change.clone());
        }
        role.hold(part, changes);
        let tag = self.tag();
        let mut waiting = 0;
        for (w, rows) in parts.into_iter().enumerate() {
            if rows.is_empty() {
                continue;
            }
            self.outbox.push((
                w,
                ToWorker::LogPrepared {
                    name,
                    changes: rows,
                    tag,
                    reply_to: self.me,
                },
            ));
            waiting += 1;
        }
        self.done_after_workers(id, tag, waiting);
    }

    /// Copied rows from the primary (node restart): each applied unless a replicated commit
    /// changed its key since the copy began, logged as one transaction.
    pub(super) fn apply_copied(&mut self, id: u64, changes: Vec<RowChange>) {
        let restart = self.shared.role.as_ref().map(|r| r.restart());
        // A copy sent again after this node's copy ended (a view changed before it became a
        // member): it holds every row already, and every commit since.
        if restart == Some(Restart::No) {
            return self.reply(id, &Message::Done);
        }
        if restart != Some(Restart::Copying) {
            return self.fail(
                id,
                Error::new(
                    ErrorCode::Protocol,
                    "copied rows come only to a restarted node, after the catalog",
                ),
            );
        }
        if let Some(role) = &self.shared.role {
            role.copy_batch_taken();
        }
        self.apply_rows(id, None, changes, true);
    }

    /// A restarted node takes its primary's catalog and creates every table's partitions (one
    /// restored from its own files checks that the catalog is its own, and has them); from then
    /// on its workers keep the keys replicated commits write. The same catalog sent again (a
    /// new view's copy) is answered without change.
    pub(super) fn take_catalog(&mut self, id: u64, bytes: &[u8]) {
        let Some(role) = self.shared.role.clone() else {
            return;
        };
        if role.restart() != Restart::AwaitingCatalog {
            return self.reply(id, &Message::Done);
        }
        let copied = match crate::catalog::Catalog::from_bytes(bytes, "from the primary") {
            Ok(c) => c,
            Err(e) => {
                let why = format!("the primary's catalog could not be read: {}", e.message);
                self.shared.fail(why.clone());
                return self.fail(id, Error::new(ErrorCode::Internal, why));
            }
        };
        let tables: Vec<Arc<base::TableDef>> = copied.entries().map(|e| e.def.clone()).collect();
        // Restarted from its own files: what they hold is brought level with the primary's
        // rows by the copy (`CopyPhase::Begin`), when they hold the same tables. Otherwise
        // (a schema change while it was down) the node starts again empty.
        let (restored, same) = match self.shared.catalog.read() {
            Ok(local) => (local.entries().next().is_some(), local.to_bytes() == bytes),
            Err(_) => (true, false),
        };
        if restored && !same {
            let why = "this node restarted from its own files, but its tables differ from its primary's (a schema change while it was down): it stops, to start again empty and copy every partition (--initial)".to_string();
            self.shared.fail_initial(why.clone());
            return self.fail(id, Error::new(ErrorCode::Internal, why));
        }
        if !restored {
            if let Err(e) = self.shared.replace_catalog(copied) {
                return self.fail(id, e);
            }
        }
        tracing::info!(
            tables = tables.len(),
            restored,
            "took the primary's catalog (restored: it is this node's own, and only rows that differ are written); copying rows"
        );
        role.restart_reached(Restart::Copying);
        // Through the outbox, as every later replicated commit's rows go: a worker keeps keys
        // from before the first of them (its own worker takes both from its local queue, which
        // runs ahead of its channel).
        for w in 0..self.shared.worker_count() {
            self.outbox
                .push((w, ToWorker::Copying(CopyPhase::Begin { restored })));
        }
        if restored {
            // Its partitions are there already.
            return self.reply(id, &Message::Done);
        }
        let shared = self.shared.clone();
        self.ddl_on_workers(id, Message::Done, |w, tag, reply_to| {
            ToWorker::CreateTables {
                tables: tables
                    .iter()
                    .map(|t| (t.clone(), shared.partitions_of(t, w)))
                    .collect(),
                tag,
                reply_to,
            }
        });
    }

    /// The primary's copy ended: the workers stop keeping keys, and the membership may say
    /// this node caught up.
    pub(super) fn copy_done(&mut self, id: u64, rows: u64) {
        let Some(role) = self.shared.role.clone() else {
            return;
        };
        if role.restart() == Restart::Copying && !role.primaries_learned() {
            // The copy's primaries were of another view than this node's: the next view's
            // copy brings them, and ends the restart.
            tracing::info!(
                rows,
                "copy from the primary done, but its node groups' primaries were of another view; waiting for the next view's copy"
            );
            return self.reply(id, &Message::Done);
        }
        if role.restart() == Restart::Copying {
            // The node caught up once every worker is done with the copy's end (a restored
            // node's deletions): only then may the membership say so.
            let end = Arc::new(CopyEnd {
                left: std::sync::atomic::AtomicUsize::new(self.shared.worker_count()),
                role: role.clone(),
            });
            for w in 0..self.shared.worker_count() {
                // Numbers for the rows a worker of a restored node deletes, if any.
                let txn = self.shared.next_txn.fetch_add(1, Ordering::Relaxed);
                let sequence = self.shared.sequence.fetch_add(1, Ordering::SeqCst);
                let end = end.clone();
                self.outbox
                    .push((w, ToWorker::Copying(CopyPhase::End { txn, sequence, end })));
            }
            role.restart_reached(Restart::No);
            tracing::info!(rows, "copy from the primary done: caught up");
            println!("node restart: copied {rows} rows from the primary; caught up");
            // In `interval` durability the copied rows are below the global checkpoint's cut
            // before the node becomes a member (a system restart may start from its disk).
            let tag = self.tag();
            if self.global_checkpoint_then(move |_| Event::Finished { tag }) {
                return self.done_after_workers(id, tag, 1);
            }
        }
        self.reply(id, &Message::Done);
    }

    /// Applies a replicated commit (`copy`: copied rows) on the workers owning the rows'
    /// partitions, as one logged transaction, and answers once every part is written. A
    /// two-phase commit's decision or part (`name`) is logged under its name, an empty
    /// decision as a record of its own.
    pub(super) fn apply_rows(
        &mut self,
        id: u64,
        name: Option<CommitName>,
        changes: Vec<RowChange>,
        copy: bool,
    ) {
        // Rows of a table this node never held mean its catalog is behind the primary's: the
        // replica has left the primary's state, and the node stops. (Rows of a table dropped
        // here since are dropped with it, as on the primary.)
        let last = self.last_table_id();
        if let Some(c) = changes.iter().find(|c| c.table > last) {
            let why = format!(
                "the primary sent rows of table {} that this backup never created (its newest is {last})",
                c.table
            );
            self.shared.fail(why.clone());
            return self.fail(id, Error::new(ErrorCode::Internal, why));
        }
        // A backup keeps its AUTO_INCREMENT counters past every value its rows hold, so as
        // the primary after a failover it hands out none of them again.
        crate::recovery::observe_counters(&self.shared, &changes);
        let workers = self.shared.worker_count();
        let mut parts: Vec<Vec<RowChange>> = (0..workers).map(|_| Vec::new()).collect();
        for change in changes {
            parts[self.shared.placement.worker_of(change.partition)].push(change);
        }
        let participants = parts.iter().filter(|p| !p.is_empty()).count();
        if participants == 0 {
            let Some(name) = name else {
                return self.reply(id, &Message::Done);
            };
            let tag = self.tag();
            self.log_decision(name, tag);
            return self.done_after_workers(id, tag, 1);
        }
        let txn = self.shared.next_txn.fetch_add(1, Ordering::Relaxed);
        let sequence = self.shared.sequence.fetch_add(1, Ordering::SeqCst);
        let tag = self.tag();
        for (w, part) in parts.into_iter().enumerate() {
            if part.is_empty() {
                continue;
            }
            self.outbox.push((
                w,
                ToWorker::Apply {
                    changes: part,
                    txn,
                    participants: participants as u16,
                    sequence,
                    tag,
                    reply_to: self.me,
                    copy,
                    name,
                },
            ));
        }
        self.pending.insert(
            tag,
            Pending::Ddl {
                request_id: id,
                waiting: participants,
                reply: Message::Done,
            },
        );
    }

    /// Asks every worker the transaction wrote on for its row images: for a commit, a
    /// two-phase commit's decision, or a prepared part (`purpose`).
    pub(super) fn gather_images(
        &mut self,
        request_id: u64,
        client_txn: u64,
        txn: OpenTxn,
        results: Vec<OpResult>,
    ) {
        self.gather_for(
            request_id,
            client_txn,
            txn,
            results,
            super::twophase::Purpose::Commit,
        );
    }

    pub(super) fn gather_for(
        &mut self,
        request_id: u64,
        client_txn: u64,
        txn: OpenTxn,
        results: Vec<OpResult>,
        purpose: super::twophase::Purpose,
    ) {
        if let Some(role) = &self.shared.role {
            // A step of a commit begun already: not held by a global checkpoint's gate.
            if !matches!(purpose, super::twophase::Purpose::Prepare { .. })
                && role.commit_started((self.session, client_txn), false)
                    == crate::replication::Start::Refused
            {
                self.abort_txn(&txn);
                if let super::twophase::Purpose::Decide(decided) = &purpose {
                    self.release_remote(txn.id, &decided.parts, wire::RemoteEnd::Rollback);
                }
                return self.reply(
                    request_id,
                    &Message::ExecuteReply(ExecuteOutcome::Aborted {
                        op_index: 0,
                        error: super::execute::told_not_committed(),
                    }),
                );
            }
        }
        // A two-phase commit's records carry its decision's name (`worker::prepared`): a
        // prepared part's images are logged as such before they are answered.
        let named = match &purpose {
            super::twophase::Purpose::Commit => None,
            super::twophase::Purpose::Decide(_) => Some((
                crate::replication::decision_name(self.shared.node_id, txn.id),
                false,
            )),
            super::twophase::Purpose::Prepare {
                coordinator,
                transaction,
            } => Some((
                crate::replication::decision_name(*coordinator, *transaction),
                true,
            )),
        };
        let tag = self.tag();
        let mut waiting = 0;
        for w in 0..self.shared.worker_count() {
            if txn.written & (1 << w) != 0 {
                self.outbox.push((
                    w,
                    ToWorker::Images {
                        txn: txn.id,
                        tag,
                        reply_to: self.me,
                        named,
                    },
                ));
                waiting += 1;
            }
        }
        let gather = Box::new(Gather {
            request_id,
            client_txn,
            txn,
            results,
            waiting,
            changes: Vec::new(),
            purpose,
        });
        if waiting == 0 {
            // Nothing written here (a decision for writes in other groups only).
            return self.images_gathered(tag, *gather);
        }
        self.pending.insert(tag, Pending::Gather(gather));
    }

    /// A worker's images came; with the last, the rows go to the backups. Once they answered,
    /// the link's thread has the coordinator's worker commit the transaction
    /// (`ToWorker::CommitReplicated`), so it ends even if this connection closed meanwhile.
    pub(super) fn on_images(&mut self, tag: u64, changes: Vec<RowChange>) {
        let Some(Pending::Gather(mut gather)) = self.pending.remove(&tag) else {
            return;
        };
        gather.changes.extend(changes);
        gather.waiting -= 1;
        if gather.waiting > 0 {
            self.pending.insert(tag, Pending::Gather(gather));
            return;
        }
        self.images_gathered(tag, *gather);
    }

    fn images_gathered(&mut self, tag: u64, gather: Gather) {
        let Gather {
            request_id,
            client_txn,
            txn,
            results,
            changes,
            purpose,
            ..
        } = gather;
        let name = (self.session, client_txn);
        let bytes: usize = changes.iter().map(RowChange::encoded_bytes).sum();
        if bytes + 64 > limits::FRAME_BODY_BYTES_MAX as usize
            || changes.len() > wire::REPLICATED_ROWS_MAX
        {
            self.abort_txn(&txn);
            if let Some(role) = &self.shared.role {
                role.commit_ended(name, false);
            }
            let error = Error::new(
                ErrorCode::LimitExceeded,
                format!(
                    "transaction rolled back: its {} rows take {bytes} bytes, more than one replication message holds ({} rows, {} bytes)",
                    changes.len(),
                    wire::REPLICATED_ROWS_MAX,
                    limits::FRAME_BODY_BYTES_MAX
                ),
            );
            if let super::twophase::Purpose::Decide(decided) = &purpose {
                self.release_remote(txn.id, &decided.parts, wire::RemoteEnd::Rollback);
            }
            return self.reply(
                request_id,
                &Message::ExecuteReply(ExecuteOutcome::Aborted { op_index: 0, error }),
            );
        }
        let Some(role) = self.shared.role.clone() else {
            return;
        };
        let (id, touched, written) = (txn.id, txn.touched, txn.written);
        let decision = match purpose {
            super::twophase::Purpose::Prepare {
                coordinator,
                transaction,
            } => {
                return self.send_prepared(
                    tag,
                    request_id,
                    txn,
                    (coordinator, transaction),
                    changes,
                )
            }
            super::twophase::Purpose::Decide(decided) => {
                let name = crate::replication::decision_name(self.shared.node_id, id);
                if !role.begin_decision(name) {
                    // A participant was told the transaction did not commit: it never will.
                    self.abort_on_workers(id, touched);
                    self.release_remote(id, &decided.parts, wire::RemoteEnd::Rollback);
                    role.commit_ended((self.session, client_txn), false);
                    let error = Error::new(
                        ErrorCode::ViewChanged,
                        "transaction rolled back: another node group lost its coordinator's link and was told it did not commit; retry",
                    );
                    return self.reply(
                        request_id,
                        &Message::ExecuteReply(ExecuteOutcome::Aborted { op_index: 0, error }),
                    );
                }
                Some(decided)
            }
            super::twophase::Purpose::Commit => None,
        };
        let (shared, me) = (self.shared.clone(), self.me);
        let waiting = touched.count_ones() as usize;
        let decided_name = decision
            .as_ref()
            .map(|_| crate::replication::decision_name(self.shared.node_id, id));
        self.pending.insert(
            tag,
            Pending::Replicating {
                request_id,
                results,
                waiting,
                decided: decision,
                name,
            },
        );
        let decided = role.clone();
        role.replicate(
            Message::Replicate {
                session: name.0,
                transaction: name.1,
                changes,
                decision: if decided_name.is_some() { id } else { 0 },
            },
            true,
            Box::new(move |result, generation| {
                let ok = result.is_ok();
                // A decision taken is answered as committed only once this node logged it
                // too (`Pending::Deciding`): a part told "committed" earlier could commit
                // while the decision is on no disk this node's restart would read.
                if decided_name.is_none() || !ok {
                    decided.commit_ended(name, ok);
                    if let Some(d) = decided_name {
                        decided.commit_ended(d, ok);
                    }
                }
                // The coordinator hears first: the workers' answers to the commit come after.
                let worker = &shared.workers[me.worker];
                worker.send(ToWorker::ToCoordinator {
                    connection: me.connection,
                    event: Event::Replicated {
                        tag,
                        result: result.map(|_| Vec::new()),
                    },
                });
                if ok {
                    worker.send(ToWorker::CommitReplicated {
                        txn: id,
                        touched,
                        written,
                        tag,
                        reply_to: me,
                        generation,
                    });
                    return;
                }
                for w in (0..shared.worker_count()).filter(|w| touched & (1 << w) != 0) {
                    shared.workers[w].send(ToWorker::Abort {
                        txn: id,
                        tag: 0,
                        reply_to: None,
                    });
                }
                decided.settled(generation);
            }),
        );
    }

    /// The backups answered a commit's rows (the workers are committing it now), or a schema
    /// change.
    pub(super) fn on_replicated(&mut self, tag: u64, result: Result<Vec<Message>, Error>) {
        match self.pending.remove(&tag) {
            Some(Pending::Replicating {
                request_id,
                results,
                waiting,
                decided,
                name,
            }) => match result {
                Ok(_) => {
                    if let Some(decided) = decided {
                        // A two-phase commit is decided: the other groups commit their parts
                        // once this node logged the decision too. Without rows here its
                        // name gets a record of its own.
                        let mut waiting = waiting;
                        if decided.written == 0 {
                            let name =
                                crate::replication::decision_name(self.shared.node_id, decided.txn);
                            self.log_decision(name, tag);
                            waiting += 1;
                        }
                        self.pending.insert(
                            tag,
                            Pending::Deciding {
                                request_id,
                                waiting,
                                results,
                                decided,
                                name,
                            },
                        );
                        return;
                    }
                    self.await_commit(tag, request_id, waiting, results);
                }
                Err(error) => {
                    if let Some(d) = decided {
                        self.release_remote(d.txn, &d.parts, wire::RemoteEnd::Rollback);
                    }
                    self.reply(
                        request_id,
                        &Message::ExecuteReply(ExecuteOutcome::Aborted { op_index: 0, error }),
                    )
                }
            },
            Some(Pending::PreparingHere { request_id }) => {
                self.on_prepared_here(request_id, result.map(|_| ()))
            }
            Some(Pending::Forward {
                request_id, local, ..
            }) => match result {
                Ok(answers) => self.forward_part(tag, request_id, local, Some(answers)),
                // Nothing was sent: this node is no longer the primary (it stops). The client
                // hears that now; the change's own answer, if it comes later, is dropped
                // (`ANSWERED`).
                Err(e) => {
                    if local.is_none() {
                        self.forwarded.insert(request_id, ANSWERED);
                    } else {
                        self.forwarded.remove(&request_id);
                    }
                    self.write_reply(request_id, &Message::Failure(e));
                }
            },
            Some(other) => {
                self.pending.insert(tag, other);
            }
            None => {}
        }
    }

    /// A step of a global checkpoint round (`gcp_rounds`), run by this node's participant,
    /// which answers it through this connection once done (here and on the backups).
    pub(super) fn gcp_step(&mut self, id: u64, round: u64, step: wire::GcpStep) {
        let Some(rounds) = &self.shared.rounds else {
            return self.fail(
                id,
                Error::new(
                    ErrorCode::BadRequest,
                    "this data node takes no global checkpoint rounds (they run in interval durability, in a cluster)",
                ),
            );
        };
        let (shared, me) = (self.shared.clone(), self.me);
        rounds.step(
            round,
            step,
            Box::new(move |result| {
                let message = match result {
                    Ok(()) => Message::Done,
                    Err(e) => Message::Failure(e),
                };
                shared.workers[me.worker].send(ToWorker::ToCoordinator {
                    connection: me.connection,
                    event: Event::Reply {
                        request_id: id,
                        message: Box::new(message),
                    },
                });
            }),
        );
    }

    /// A client that lost its connection during a commit asks how it ended: known on its node
    /// group's primary (which took every commit its predecessor sent), once it is no longer
    /// under way there.
    pub(super) fn commit_outcome(&mut self, id: u64, name: CommitName) {
        let Some(role) = self.shared.role.clone() else {
            return self.fail(
                id,
                Error::new(
                    ErrorCode::BadRequest,
                    "a data node alone keeps no record of its commits' outcomes",
                ),
            );
        };
        let outcome = role.commit_outcome(name);
        // Rare (a client that lost its connection mid-commit asks): worth a line each.
        tracing::info!(
            session = name.0,
            transaction = name.1,
            view = role.view().epoch,
            primary = role.view().primary == Some(role.me),
            "a commit's outcome asked: {outcome:?}"
        );
        match outcome {
            Outcome::Committed => self.reply(id, &Message::Outcome { committed: true }),
            Outcome::NotCommitted => self.reply(id, &Message::Outcome { committed: false }),
            Outcome::UnderWay => self.fail(
                id,
                Error::new(
                    ErrorCode::Overloaded,
                    "that commit is still under way here; ask again",
                ),
            ),
            Outcome::Unknown => self.fail(
                id,
                Error::new(
                    ErrorCode::BadRequest,
                    format!(
                        "this node does not know that commit and may have forgotten it (it remembers the last {} commits): its outcome is unknown",
                        crate::replication::COMMITS_REMEMBERED
                    ),
                ),
            ),
        }
    }

    /// Where a reply to a schema change goes in a node group. On a backup, the answer to a
    /// primary's schema change is remembered (a copy sent again gets it, not a second run). On a
    /// primary: a change that failed before it changed anything is answered at once and goes
    /// nowhere; one answered as soon as it started (it was the catalog's alone) goes to the
    /// backups now; one sent to the backups waits for them. True when the answer is held.
    pub(super) fn held_for_backups(&mut self, request_id: u64, message: &Message) -> bool {
        if self.held_for_forwarding(request_id, message) {
            return true;
        }
        // The answer goes out: a schema change a link brought is remembered with it.
        if let Some(node) = self.schema_jobs.remove(&request_id) {
            if let Some(role) = &self.shared.role {
                role.schema_job_done(node, request_id, message);
            }
        }
        false
    }

    /// `held_for_backups` for a schema change this node sends on to its backups.
    fn held_for_forwarding(&mut self, request_id: u64, message: &Message) -> bool {
        if let Some(change) = self.forwarding.remove(&request_id) {
            if matches!(message, Message::Failure(_)) {
                // Nothing of it reached the backups, but it may have taken a table id here:
                // the backups take the same, so their next tables' ids stay the primary's.
                if let Some(role) = self.shared.role.clone() {
                    let last = self.last_table_id();
                    role.replicate(Message::TableIds { last }, false, Box::new(|_, _| {}));
                }
                self.shared
                    .schema_change_busy
                    .store(false, Ordering::Release);
                return false;
            }
            self.forward(request_id, change, Some(message.clone()));
            return true;
        }
        let Some(tag) = self.forwarded.get(&request_id).copied() else {
            return false;
        };
        if tag == ANSWERED {
            self.forwarded.remove(&request_id);
            return true;
        }
        if let Some(Pending::Forward {
            request_id,
            answers,
            ..
        }) = self.pending.remove(&tag)
        {
            self.forward_part(tag, request_id, Some(message.clone()), answers);
        }
        true
    }

    /// A schema change that copies rows changed the catalog here now: it goes to the backups,
    /// before any commit that uses it.
    pub(super) fn forward_long(&mut self, request_id: u64) {
        if let Some(change) = self.forwarding.remove(&request_id) {
            self.forward(request_id, change, None);
        }
    }

    /// Sends a schema change that changed the catalog here to the backups, which do it at the
    /// same place among the commits; `local` is its answer here when it already has one.
    pub(super) fn forward(&mut self, request_id: u64, change: Message, local: Option<Message>) {
        let Some(role) = self.shared.role.clone() else {
            return;
        };
        let tag = self.tag();
        self.forwarded.insert(request_id, tag);
        self.pending.insert(
            tag,
            Pending::Forward {
                request_id,
                local,
                answers: None,
            },
        );
        let (shared, me) = (self.shared.clone(), self.me);
        role.replicate(
            change,
            false,
            Box::new(move |result, _| {
                shared.schema_change_busy.store(false, Ordering::Release);
                shared.workers[me.worker].send(ToWorker::ToCoordinator {
                    connection: me.connection,
                    event: Event::Replicated { tag, result },
                });
            }),
        );
    }

    /// One side of a forwarded schema change ended; with both, the client hears, once the
    /// backups ended as this node did (else the replicas' catalogs differ, and the node stops).
    fn forward_part(
        &mut self,
        tag: u64,
        request_id: u64,
        local: Option<Message>,
        answers: Option<Vec<Message>>,
    ) {
        let (Some(local), Some(answers)) = (&local, &answers) else {
            self.pending.insert(
                tag,
                Pending::Forward {
                    request_id,
                    local,
                    answers,
                },
            );
            return;
        };
        self.forwarded.remove(&request_id);
        if let Some(other) = answers.iter().find(|a| !same_outcome(a, local)) {
            let why = format!(
                "a backup ended a schema change otherwise than this primary: here {local:?}, there {other:?}"
            );
            self.shared.fail(why.clone());
            return self.fail(request_id, Error::new(ErrorCode::Internal, why));
        }
        let local = local.clone();
        self.reply(request_id, &local);
    }
}

/// A forwarded schema change whose client already heard its failure (no `Pending::Forward`).
const ANSWERED: u64 = 0;

/// Whether two replicas ended a schema change alike: the same answer (a table's definition with
/// its ids and version), or failures of the same kind.
fn same_outcome(a: &Message, b: &Message) -> bool {
    match (a, b) {
        (Message::Failure(x), Message::Failure(y)) => x.code == y.code,
        _ => a == b,
    }
}
