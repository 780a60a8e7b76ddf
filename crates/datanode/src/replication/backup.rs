//! What a node checks before it takes a peer's link, a replicated commit or a schema change:
//! as a backup of its group's primary, or as another group's primary taking the schema
//! master's changes; and the schema change it last took, so one sent again is not done twice.

use base::{Error, ErrorCode};
use wire::Message;

use super::{CommitName, Role, ViewState};

impl Role {
    /// Whether a peer connection's hello may be taken: the sender is the primary of this
    /// node's view `epoch`.
    pub fn accepts_peer(&self, node: u32, epoch: u64) -> Result<(), Error> {
        let view = self.view();
        if view.epoch == epoch && self.primary_in(&view) == Some(node) && node != self.me {
            return Ok(());
        }
        if view.epoch == epoch && self.takes_schema_from_master(&view, node) {
            return Ok(());
        }
        Err(Error::new(
            ErrorCode::NotPrimary,
            format!(
                "data node {} is in view {} (primary {:?}), not in view {epoch} with {node} as primary",
                self.me,
                view.epoch,
                self.primary_in(&view)
            ),
        ))
    }

    /// Whether a replicated commit or schema change sent on a connection whose hello named
    /// `epoch` may be applied here now.
    pub fn accepts_commit(&self, epoch: u64) -> Result<(), Error> {
        self.backup_in(&self.view.read().unwrap_or_else(|e| e.into_inner()), epoch)
    }

    /// `accepts_commit`, and, when it does, records the commit named `name` as committed here
    /// under the same look at the view: a view this node opens later (as the new primary)
    /// already knows it, so no client hears "not committed" for rows about to be applied.
    /// The job (`seq`, `message`, a `Replicate` or a `LevelUp`) is kept in the member's log
    /// under that look too (`level`).
    pub fn take_commit(
        &self,
        epoch: u64,
        name: CommitName,
        decision: Option<CommitName>,
        job: (u64, &Message),
    ) -> Result<(), Error> {
        let view = self.view.read().unwrap_or_else(|e| e.into_inner());
        self.backup_in(&view, epoch)?;
        self.commit_ended(name, true);
        if let Some(decision) = decision {
            self.commit_ended(decision, true);
        }
        self.log_taken(&view, job.0, job.1);
        Ok(())
    }

    /// `accepts_commit` for another job of the primary's (a prepared part, its resolution, a
    /// checkpoint step, part of a copy), kept in the member's log under the same look at the
    /// view.
    pub fn take_job(&self, epoch: u64, seq: u64, message: &Message) -> Result<(), Error> {
        let view = self.view.read().unwrap_or_else(|e| e.into_inner());
        self.backup_in(&view, epoch)?;
        self.log_taken(&view, seq, message);
        Ok(())
    }

    /// The schema master in `view`: the primary of the first node group. Every schema change
    /// of the cluster is made there, and sent from there to its backups and to every other
    /// group's primary (which sends it on to its own backups), so every catalog takes them in
    /// one order and gives tables the same ids.
    pub fn master_in(view: &ViewState) -> Option<u32> {
        view.primaries.get(&0).copied()
    }

    /// Whether this node is the schema master now.
    pub fn is_master(&self) -> bool {
        Self::master_in(&self.view()) == Some(self.me)
    }

    /// Whether `node` is the schema master of `view` and this node another group's primary in
    /// it: it takes the master's schema changes (and sends them on to its backups).
    fn takes_schema_from_master(&self, view: &ViewState, node: u32) -> bool {
        // (Not while it brings its group level: the change would reach its members before
        // the commits they lack. The master sends it again.)
        self.group_index != 0
            && Self::master_in(view) == Some(node)
            && self.primary_in(view) == Some(self.me)
            && self.leveling().is_none()
    }

    /// Whether a schema change, or table ids, sent on a link whose hello named `from` and
    /// `epoch` may be done here now: as a backup of `from`'s group, or as another group's
    /// primary taking the master's (`forward`: it then sends it on to its own backups).
    /// As a backup, the job (`seq`, `message`) is kept in the member's log under the same look
    /// at the view (`level`).
    pub fn accepts_schema(
        &self,
        from: u32,
        epoch: u64,
        job: (u64, &Message),
    ) -> Result<bool, Error> {
        let view = self.view.read().unwrap_or_else(|e| e.into_inner());
        if view.epoch == epoch && self.takes_schema_from_master(&view, from) {
            return Ok(true);
        }
        self.backup_in(&view, epoch)?;
        self.log_taken(&view, job.0, job.1);
        Ok(false)
    }

    /// Whether `view` is the view of `epoch` and this node a backup (or starting) in it.
    fn backup_in(&self, view: &ViewState, epoch: u64) -> Result<(), Error> {
        if view.epoch == epoch && self.primary_in(view) != Some(self.me) {
            return Ok(());
        }
        Err(Error::new(
            ErrorCode::NotPrimary,
            format!(
                "data node {} is in view {}, not {epoch}: the commit is not applied",
                self.me, view.epoch
            ),
        ))
    }

    /// Remembers the answer to a schema change a primary sent (`Some` once done), so the same
    /// job sent again after a lost connection is answered as before, not done twice.
    pub fn schema_job(&self, node: u32, request_id: u64) -> SchemaJob {
        let mut last = self.last_schema.lock().unwrap_or_else(|e| e.into_inner());
        match &*last {
            Some((n, id, Some(answer))) if (*n, *id) == (node, request_id) => {
                SchemaJob::Done(Box::new(answer.clone()))
            }
            Some((n, id, None)) if (*n, *id) == (node, request_id) => SchemaJob::Running,
            _ => {
                *last = Some((node, request_id, None));
                SchemaJob::New
            }
        }
    }

    /// The schema change `request_id` from `node` ended here with `answer`. A temporary failure
    /// (nothing changed; retry) is not kept: the same job sent again runs again.
    pub fn schema_job_done(&self, node: u32, request_id: u64, answer: &Message) {
        let mut last = self.last_schema.lock().unwrap_or_else(|e| e.into_inner());
        if last
            .as_ref()
            .is_some_and(|(n, id, _)| (*n, *id) == (node, request_id))
        {
            let failed = matches!(answer, Message::Failure(e) if e.is_temporary());
            self.schema_job_ended(request_id, failed);
            *last = (!failed).then(|| (node, request_id, Some(answer.clone())));
        }
    }
}

/// What a backup does with a schema change its primary sent.
pub enum SchemaJob {
    New,
    /// Sent again while the first copy still runs: answer "retry".
    Running,
    /// Done before: its answer again.
    Done(Box<Message>),
}
