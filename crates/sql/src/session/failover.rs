//! A session through a data node's failover: a statement interrupted with nothing committed
//! runs again once the node group serves (within `FAILOVER_RETRY_TIME`), a commit whose
//! connection was lost is asked about instead of guessed, and a transaction a lost connection
//! rolled back is reported on the next statement.

use std::time::{Duration, Instant};

use super::{done, Outcome, Session};
use crate::foundation::error::SqlError;
use client::Cluster;

/// How long a statement a data node's failover interrupted is tried again before its error
/// goes to the client (a failover takes about a second on loopback).
pub(super) const FAILOVER_RETRY_TIME: Duration = Duration::from_secs(10);
/// The longest pause between two tries.
const FAILOVER_PAUSE_MAX: Duration = Duration::from_millis(200);

/// The tries of one statement after failovers: since when, and the next pause.
pub(crate) struct FailoverRetry {
    since: Instant,
    pause: Duration,
}

impl FailoverRetry {
    pub(crate) fn new() -> FailoverRetry {
        FailoverRetry {
            since: Instant::now(),
            pause: Duration::from_millis(10),
        }
    }

    /// Sleeps the next pause (each twice the last, up to `FAILOVER_PAUSE_MAX`) and says true,
    /// or says false once `FAILOVER_RETRY_TIME` has passed.
    fn wait(&mut self) -> bool {
        if self.since.elapsed() >= FAILOVER_RETRY_TIME {
            return false;
        }
        std::thread::sleep(self.pause);
        self.pause = (self.pause * 2).min(FAILOVER_PAUSE_MAX);
        true
    }
}

/// A commit the cluster says did not take effect after its connection was lost: the retry class.
pub(crate) fn rolled_back_in_failover(e: &dyn std::fmt::Display) -> SqlError {
    let mut error = SqlError::new(
        1213,
        "40001",
        format!(
            "Deadlock found when trying to get lock; try restarting transaction (rolled back: {e})"
        ),
    );
    error.cause = Some(base::ErrorCode::ViewChanged);
    error
}

impl Session {
    /// Whether a statement that failed may run again after a data node's failover: it ran in a
    /// transaction of its own and nothing of it was committed (any of its failover errors, or,
    /// for a read, a lost connection); and the cluster is given time to fail over. Reconnects.
    pub(crate) fn retry_after_failover(
        &mut self,
        failed: &Outcome,
        alone: bool,
        read_only: bool,
        retry: &mut FailoverRetry,
    ) -> bool {
        let Outcome::Failed(e) = failed else {
            return false;
        };
        if !alone || !e.failover_retry(read_only) || !retry.wait() {
            return false;
        }
        self.reconnect_if_lost();
        true
    }

    /// After a statement failed with the retry class (1213: a deadlock, a failover, a stopping
    /// data node), whichever path it took: as in MySQL, the session's whole transaction is
    /// rolled back and the session is out of it. Kept open, a client that runs the transaction
    /// again from BEGIN (as sysbench and ORMs do) would commit what ran before the failure,
    /// since BEGIN commits a transaction in progress: half a transaction.
    pub(crate) fn leave_if_rolled_back(&mut self, outcome: &Outcome) {
        let Outcome::Failed(e) = outcome else {
            return;
        };
        if e.code != 1213 {
            return;
        }
        let txn = self.txn.take();
        self.leave_transaction(txn);
    }

    /// Rolls `txn` back (when the data node holds it open) and takes the session out of its
    /// transaction, as after the retry class (1213).
    pub(crate) fn leave_transaction(&mut self, txn: Option<client::Transaction>) {
        if let Some(txn) = txn.filter(|t| t.is_open()) {
            if let Err(e) = txn.rollback() {
                tracing::debug!("sql session {}: rolling back: {e}", self.id);
            }
        }
        self.explicit = false;
        self.savepoints.clear();
    }

    /// The first statement after a reconnect that dropped an open transaction fails with the
    /// retry class (the transaction was rolled back; nothing of it, nor of this statement, is
    /// committed), as MySQL reports a deadlock on the statement that meets it; a ROLLBACK
    /// succeeds. Either way the session is out of the transaction from then on.
    pub(crate) fn report_lost_transaction(&mut self, rollback: bool) -> Option<Outcome> {
        if !std::mem::take(&mut self.lost_transaction) || rollback {
            return None;
        }
        Some(Outcome::Failed(rolled_back_in_failover(
            &"the transaction's connection to the data node was lost",
        )))
    }

    /// A statement in a transaction of its own whose connection was lost while its commit was
    /// out: the cluster is asked how the commit ended. Committed: the statement succeeded (its
    /// row count is not known, and a warning says so). Not committed: the retry class, and the
    /// statement may run again. Not known (a data node alone keeps no record): the failure as
    /// it was, NDB's "unknown result".
    pub(crate) fn resolve_lost_commit(&mut self, outcome: Outcome) -> Outcome {
        let Some(name) = self.lost_commit.take() else {
            return outcome;
        };
        let Outcome::Failed(e) = &outcome else {
            return outcome;
        };
        match self.commit_outcome(name) {
            Some(true) => {
                self.diagnostics.warn(
                    1297,
                    "the statement committed, but its connection to the data node was lost before the answer: its row count is not known",
                );
                done(0)
            }
            // (An autocommit statement in this class runs again: `retry_after_failover`.)
            Some(false) => Outcome::Failed(rolled_back_in_failover(&e.message)),
            None => outcome,
        }
    }

    /// How the commit named `name` ended, asked of the cluster's data nodes until one can tell
    /// (the node group that coordinated it), for up to `FAILOVER_RETRY_TIME`; None when none
    /// can say.
    pub(crate) fn commit_outcome(&mut self, name: (u64, u64)) -> Option<bool> {
        let addresses = self.shared.config.datanode.clone();
        Cluster::outcome_among(&addresses, name, FAILOVER_RETRY_TIME)
    }
}
