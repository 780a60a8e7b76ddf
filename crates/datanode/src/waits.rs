//! The waits-for graph of one data node's transactions: which transactions each request parked
//! on a row lock waits for, on every worker, so a wait that would close a cycle (a deadlock) is
//! refused at once instead of waiting out the lock-wait timeout.
//!
//! Workers touch it only when a step blocks on a lock and when a request that waited ends, so
//! the one mutex is off the path of every request that takes its locks at once. Each wait is
//! recorded under the mutex after the cycle check, so of two waits that close a cycle together
//! the second sees the first: every cycle is found by the wait that completes it.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use crate::messages::TxnId;

/// Where a wait is recorded: the worker and its own number for the parked request.
pub type WaitKey = (usize, u64);

/// Per waiting transaction, each of its parked requests and the transactions it waits for.
type Edges = HashMap<TxnId, Vec<(WaitKey, Vec<TxnId>)>>;

#[derive(Default)]
pub struct WaitGraph {
    edges: Mutex<Edges>,
}

impl WaitGraph {
    /// Records that `txn`'s request `key` waits for `holders` (replacing what it waited for
    /// before). Returns false, recording nothing and forgetting the request's earlier wait,
    /// when one of `holders` already waits, directly or through others, for `txn`.
    pub fn wait(&self, txn: TxnId, key: WaitKey, holders: &[TxnId]) -> bool {
        let Ok(mut edges) = self.edges.lock() else {
            return true;
        };
        forget(&mut edges, txn, key);
        if reaches(&edges, holders, txn) {
            return false;
        }
        edges.entry(txn).or_default().push((key, holders.to_vec()));
        true
    }

    /// Forgets the wait of `txn`'s request `key` (it got its lock, failed or ended).
    pub fn clear(&self, txn: TxnId, key: WaitKey) {
        if let Ok(mut edges) = self.edges.lock() {
            forget(&mut edges, txn, key);
        }
    }
}

fn forget(edges: &mut Edges, txn: TxnId, key: WaitKey) {
    if let Some(waits) = edges.get_mut(&txn) {
        waits.retain(|(k, _)| *k != key);
        if waits.is_empty() {
            edges.remove(&txn);
        }
    }
}

/// Whether `target` is among `from` or the transactions they wait for, at any depth.
fn reaches(edges: &Edges, from: &[TxnId], target: TxnId) -> bool {
    let mut stack: Vec<TxnId> = from.to_vec();
    let mut seen = HashSet::new();
    while let Some(t) = stack.pop() {
        if t == target {
            return true;
        }
        if !seen.insert(t) {
            continue;
        }
        for (_, holders) in edges.get(&t).into_iter().flatten() {
            stack.extend(holders.iter().copied());
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_closing_a_cycle_is_refused() {
        let g = WaitGraph::default();
        assert!(g.wait(1, (0, 1), &[2]));
        assert!(g.wait(2, (1, 1), &[3]));
        // 3 waiting for 1 closes 1 -> 2 -> 3 -> 1, across workers.
        assert!(!g.wait(3, (0, 2), &[1]));
        // Refused waits are not recorded: 4 may wait for 3.
        assert!(g.wait(4, (0, 3), &[3]));
        // Once 2's request got its lock, 3 may wait for 1.
        g.clear(2, (1, 1));
        assert!(g.wait(3, (0, 2), &[1]));
        // Two waits of one transaction on two workers are kept apart.
        assert!(g.wait(5, (0, 4), &[6]));
        assert!(g.wait(5, (1, 2), &[7]));
        g.clear(5, (0, 4));
        assert!(!g.wait(7, (0, 5), &[5]));
        assert!(g.wait(6, (0, 6), &[5]));
    }

    #[test]
    fn a_request_waiting_again_replaces_its_wait() {
        let g = WaitGraph::default();
        assert!(g.wait(1, (0, 1), &[2]));
        // The same request now waits for 3 (2 released, 3 took the lock first).
        assert!(g.wait(1, (0, 1), &[3]));
        assert!(g.wait(2, (0, 2), &[1]));
        // A shared lock's holders: a wait for any of them counts.
        assert!(!g.wait(3, (1, 1), &[4, 2]));
    }
}
