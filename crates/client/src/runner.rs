//! A transaction runner over a cluster named by its data nodes' addresses: it runs a transaction
//! again, with backoff, when it failed in a way that left nothing of it committed (a temporary
//! error, or a connection lost before the commit was sent), and after a connection lost during
//! the commit it asks the cluster how the commit ended instead of guessing. NDB leaves this loop
//! to every application; here it is written once.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::{ClientError, Cluster, Result, Transaction};

/// The first pause after a failed try; it doubles up to `PAUSE_MAX`.
const PAUSE_FIRST: Duration = Duration::from_millis(5);
const PAUSE_MAX: Duration = Duration::from_millis(200);
/// A node answers "not committed" surely only for a commit made less than a minute before the
/// question (it forgets old ones): the runner asks within half of that.
const ASK_WITHIN: Duration = Duration::from_secs(30);
/// How long one connection attempt may take (a node group fails over within about a second).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// Runs transactions, retrying what may be retried (see the module's comment). Cheap to share
/// between threads: each call takes the current connection.
pub struct Runner {
    addresses: String,
    /// How long one `run` keeps trying before it returns the last error.
    patience: Duration,
    cluster: Mutex<Option<Cluster>>,
}

impl Runner {
    /// A runner over the data nodes at `addresses` (`host:port`, comma-separated), trying each
    /// transaction for up to `patience`.
    pub fn new(addresses: &str, patience: Duration) -> Runner {
        Runner {
            addresses: addresses.to_string(),
            patience,
            cluster: Mutex::new(None),
        }
    }

    /// The connection in use, made now if there is none (or the last one was lost).
    pub fn cluster(&self) -> Result<Cluster> {
        let mut current = self.cluster.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = current.as_ref().filter(|c| !c.is_closed()) {
            return Ok(c.clone());
        }
        let fresh = Cluster::connect_timeout(&self.addresses, CONNECT_TIMEOUT)?;
        *current = Some(fresh.clone());
        Ok(fresh)
    }

    fn forget(&self, lost: &Cluster) {
        let mut current = self.cluster.lock().unwrap_or_else(|e| e.into_inner());
        if current
            .as_ref()
            .is_some_and(|c| c.session() == lost.session())
        {
            *current = None;
        }
    }

    /// Runs `work` in a new transaction and commits it; `work` may execute with NoCommit as it
    /// goes and returns the value `run` returns once the commit took effect. On a failure that
    /// committed nothing, `work` runs again in a new transaction (so it must not keep effects
    /// outside the transaction). A permanent error, or `patience` used up, returns the error;
    /// a commit whose outcome no node can tell returns `ConnectionLost`. `work` should leave
    /// the commit to `run`: one it sends itself cannot be asked about after a lost connection.
    pub fn run<T>(
        &self,
        mut work: impl FnMut(&Cluster, &mut Transaction) -> Result<T>,
    ) -> Result<T> {
        let since = Instant::now();
        let mut pause = PAUSE_FIRST;
        loop {
            let failed = match self.try_once(&mut work) {
                Ok(value) => return Ok(value),
                Err(e) => e,
            };
            let retry = match &failed {
                Failure::Before(e) => {
                    e.is_temporary() || matches!(e, ClientError::ConnectionLost(_))
                }
                Failure::Unknown(_) => false,
            };
            let failed = match failed {
                Failure::Before(e) | Failure::Unknown(e) => e,
            };
            if !retry || since.elapsed() + pause >= self.patience {
                return Err(failed);
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(PAUSE_MAX);
        }
    }

    fn try_once<T>(
        &self,
        work: &mut impl FnMut(&Cluster, &mut Transaction) -> Result<T>,
    ) -> std::result::Result<T, Failure> {
        let cluster = self.cluster().map_err(Failure::Before)?;
        let mut txn = cluster.transaction();
        let value = match work(&cluster, &mut txn) {
            Ok(value) => value,
            Err(e) => {
                if matches!(e, ClientError::ConnectionLost(_)) {
                    self.forget(&cluster);
                }
                // Committed, then failed (joining a long value read after the commit): it
                // took effect, so it must not run again.
                if txn.is_committed() {
                    return Err(Failure::Unknown(e));
                }
                return Err(Failure::Before(e));
            }
        };
        // `work` committed the transaction itself: what it returns stands.
        if txn.is_committed() {
            return Ok(value);
        }
        let name = txn.commit_name();
        match txn.execute(wire::ExecType::Commit) {
            Ok(()) => Ok(value),
            // Committed, then a read's long value failed to join: it must not run again.
            Err(e) if txn.is_committed() => Err(Failure::Unknown(e)),
            Err(e @ ClientError::ConnectionLost(_)) => {
                self.forget(&cluster);
                match self.outcome(name) {
                    Some(true) => Ok(value),
                    Some(false) => Err(Failure::Before(e)),
                    None => Err(Failure::Unknown(e)),
                }
            }
            Err(e) => Err(Failure::Before(e)),
        }
    }

    /// How the commit `name` ended, asked of the cluster's nodes until one can tell (None:
    /// none can say within the runner's patience, or a data node alone, which keeps no
    /// record).
    fn outcome(&self, name: (u64, u64)) -> Option<bool> {
        Cluster::outcome_among(&self.addresses, name, self.patience.min(ASK_WITHIN))
    }
}

/// How a try failed: before anything could have committed, or with the outcome unknown (or
/// known to have committed, the failure coming after: a long value read failing to join).
/// Only the first runs again.
enum Failure {
    Before(ClientError),
    Unknown(ClientError),
}
