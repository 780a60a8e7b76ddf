//! The leveler: on a new primary of a node group of three or more replicas, a thread that
//! brings every member to the same commits before the node serves (`replication::level` says
//! why). It asks each member where its log of taken jobs stands, takes from the member
//! furthest on the commits this node lacks and applies them, and sends every member the
//! commits it lacks (`LevelUp`), oldest first. A member whose gap it cannot fill (the jobs it
//! lacks are no longer kept, or one is a schema change or a two-phase commit's part) is told
//! to start again empty and copy (`Shutdown`), as is a node still copying from the old
//! primary; when that is this node, it stops so, before it touches another, and the next
//! view's primary levels the group.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use transport::{FrameReader, Stream};
use wire::{Message, TakenEntry, TakenKind};

use crate::replication::{taken_log_parts, Role};
use crate::Shared;

/// How often the leveler looks whether there is leveling to do.
const POLL: Duration = Duration::from_millis(20);
/// How long a member may take to answer a question.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(2);
/// How often a failed attempt is logged.
const LOG_EVERY: Duration = Duration::from_secs(2);

/// Starts the leveler for a data node of a group of three or more.
pub fn spawn(shared: Weak<Shared>) {
    let spawned = std::thread::Builder::new()
        .name("leveler".into())
        .spawn(move || run(shared));
    if let Err(e) = spawned {
        // The node would never serve as a primary: a broken invariant.
        panic!("starting the leveler: {e}");
    }
}

fn run(weak: Weak<Shared>) {
    let mut logged = Instant::now() - LOG_EVERY;
    loop {
        std::thread::sleep(POLL);
        let Some(shared) = weak.upgrade() else {
            return;
        };
        if shared.stopping.load(Ordering::Relaxed) || shared.stop_requested().is_some() {
            return;
        }
        let Some(role) = shared.role.clone() else {
            return;
        };
        let Some(epoch) = role.leveling() else {
            continue;
        };
        match level(&shared, &role, epoch) {
            Ok(last) => role.leveled(epoch, last),
            Err(why) if logged.elapsed() >= LOG_EVERY => {
                logged = Instant::now();
                tracing::warn!(epoch, "bringing the node group level: {why}; trying again");
            }
            Err(_) => {}
        }
    }
}

/// Where one member's log stands, and the connection it answered on (None: this node).
struct Member {
    node: u32,
    from: u64,
    last: u64,
    link: Option<Asker>,
}

/// A connection to a member, opened as its primary in the view.
struct Asker {
    stream: Stream,
    reader: FrameReader,
}

impl Asker {
    fn open(role: &Role, node: u32, epoch: u64) -> Result<Asker, String> {
        let address = role
            .api_addresses
            .get(&node)
            .ok_or_else(|| format!("data node {node} has no address"))?;
        let hello = Message::PeerHello {
            node_id: role.me,
            epoch,
        };
        let mut stream = crate::replication::dial(address, role, &hello, "member")
            .map_err(|e| format!("data node {node}: {e}"))?;
        stream
            .set_read_timeout(Some(ANSWER_TIMEOUT))
            .map_err(|e| e.to_string())?;
        let reader = FrameReader::new(stream.try_clone().map_err(|e| e.to_string())?);
        Ok(Asker { stream, reader })
    }

    fn ask(&mut self, message: &Message) -> Result<Message, String> {
        let mut frame = Vec::new();
        message.write_frame(&mut frame, 0, 0, 1);
        self.stream.write_all(&frame).map_err(|e| e.to_string())?;
        match self.reader.read() {
            Ok(Some((_, Message::Failure(e)))) => Err(e.message),
            Ok(Some((_, answer))) => Ok(answer),
            Ok(None) => Err("the member closed the connection".into()),
            Err(e) => Err(e.to_string()),
        }
    }
}

/// Brings the group level in view `epoch` (returns the last job any member took), or says
/// why not yet.
fn level(shared: &Arc<Shared>, role: &Arc<Role>, epoch: u64) -> Result<u64, String> {
    let view = role.view();
    if view.epoch != epoch {
        return Err(format!("the view is {} now", view.epoch));
    }
    let (from, last, _, _) = taken_log_parts(role.taken_page(u64::MAX))?;
    let mut members = vec![Member {
        node: role.me,
        from,
        last,
        link: None,
    }];
    for node in role
        .group
        .iter()
        .copied()
        .filter(|n| *n != role.me && view.members.contains(n) && !view.starting.contains(n))
    {
        let mut link = Asker::open(role, node, epoch)?;
        let (from, last, _, _) =
            taken_log_parts(link.ask(&Message::TakenAsk { after: u64::MAX })?)?;
        members.push(Member {
            node,
            from,
            last,
            link: Some(link),
        });
    }
    let plan = plan(&members);
    tracing::info!(
        epoch,
        last = plan.last,
        behind = ?plan.behind,
        restart = ?plan.restart,
        "took over the node group: bringing its replicas level"
    );
    // The commits after the furthest-behind member's last, from the member furthest on.
    let entries = match plan.behind.values().min() {
        Some(after) => fetch(role, &mut members, plan.source, *after)?,
        None => Vec::new(),
    };
    let lacking = |node: u32| -> Vec<&TakenEntry> {
        let after = plan.behind.get(&node).copied().unwrap_or(u64::MAX);
        entries.iter().filter(|e| e.seq > after).collect()
    };
    // This node first: one that cannot be brought level stops before it touches another.
    if plan.restart.contains(&role.me)
        || lacking(role.me)
            .iter()
            .any(|e| e.kind == TakenKind::Restart)
    {
        shared.request_stop(true, true);
        return Err("this node lacks jobs another replica took that it cannot be sent (no longer kept, or a schema change or a two-phase commit's part): it starts again empty".into());
    }
    restart_starting(role, &view.starting, epoch)?;
    // (Every entry lacking here is a commit's rows: checked above.)
    for e in lacking(role.me) {
        role.commit_ended((e.session, e.transaction), true);
        crate::indoubt::apply_here(shared, None, e.changes.clone());
        role.took_while_leveling(e.clone());
    }
    let (tx, rx) = mpsc::channel();
    let mut sending = Sending {
        role,
        epoch,
        tx,
        rx,
        waiting: 0,
        bytes: 0,
    };
    for node in plan.behind.keys().copied().filter(|n| *n != role.me) {
        let lacks = lacking(node);
        if lacks.iter().any(|e| e.kind == TakenKind::Restart) {
            restart(&mut members, node)?;
            continue;
        }
        for e in lacks {
            sending.send(node, e)?;
        }
    }
    for node in &plan.restart {
        restart(&mut members, *node)?;
    }
    // Every member answered (or left the view, and stopped serving).
    sending.wait(0)?;
    Ok(plan.last)
}

/// A node still copying from the old primary may hold rows of the old primary's that this node
/// lacks: each of `starting` in this node's group starts its copy again, empty, from this node.
fn restart_starting(
    role: &Role,
    starting: &std::collections::BTreeSet<u32>,
    epoch: u64,
) -> Result<(), String> {
    for node in role
        .group
        .iter()
        .copied()
        .filter(|n| *n != role.me && starting.contains(n))
    {
        tracing::warn!(
            node,
            "a replica was copying from the old primary: it starts again empty"
        );
        Asker::open(role, node, epoch)?.ask(&Message::Shutdown {
            restart: true,
            initial: true,
        })?;
    }
    Ok(())
}

/// Bytes of rows the leveler has out to members at once; past them it waits for answers.
const SENDING_BYTES_MAX: usize = 8 << 20;

/// The `LevelUp`s out to members, bounded by `SENDING_BYTES_MAX`.
struct Sending<'a> {
    role: &'a Arc<Role>,
    epoch: u64,
    tx: mpsc::Sender<Result<usize, String>>,
    rx: mpsc::Receiver<Result<usize, String>>,
    waiting: usize,
    bytes: usize,
}

impl Sending<'_> {
    /// Sends member `node` the commit `e` it lacks, after the ones before it.
    fn send(&mut self, node: u32, e: &TakenEntry) -> Result<(), String> {
        let bytes = e
            .changes
            .iter()
            .map(wire::RowChange::encoded_bytes)
            .sum::<usize>();
        self.wait(SENDING_BYTES_MAX.saturating_sub(bytes))?;
        let tx = self.tx.clone();
        self.waiting += 1;
        self.bytes += bytes;
        self.role.send_level_up(
            node,
            Message::LevelUp {
                seq: e.seq,
                session: e.session,
                transaction: e.transaction,
                changes: e.changes.clone(),
            },
            Box::new(move |result, _| {
                let _ = tx.send(result.map(|_| bytes).map_err(|e| e.message));
            }),
        );
        Ok(())
    }

    /// Waits until at most `bytes` are out (0: every member answered, or left the view).
    fn wait(&mut self, bytes: usize) -> Result<(), String> {
        while self.waiting > 0 && (self.bytes > bytes || bytes == 0) {
            match self.rx.recv_timeout(POLL) {
                Ok(Ok(answered)) => {
                    self.waiting -= 1;
                    self.bytes -= answered;
                }
                Ok(Err(e)) => return Err(e),
                Err(_) if self.role.leveling() != Some(self.epoch) => {
                    return Err("the view changed while the group was brought level".into())
                }
                Err(_) => {}
            }
        }
        Ok(())
    }
}

/// What leveling does, decided from where each member's log stands.
#[derive(Debug, PartialEq, Eq)]
struct Plan {
    /// The last job any member took.
    last: u64,
    /// The member that took it (index in the members).
    source: usize,
    /// Members that lack jobs and can be sent them: after which job.
    behind: BTreeMap<u32, u64>,
    /// Members that must start again empty: they lack jobs the member furthest on no longer
    /// keeps.
    restart: Vec<u32>,
}

/// Plans the leveling of `members` (this node first, preferred as the source on a tie).
fn plan(members: &[Member]) -> Plan {
    let (source, furthest) = members
        .iter()
        .enumerate()
        .max_by_key(|(i, m)| (m.last, std::cmp::Reverse(*i)))
        .unwrap_or((0, &members[0]));
    let mut behind = BTreeMap::new();
    let mut restart = Vec::new();
    for m in members.iter().filter(|m| m.last < furthest.last) {
        if furthest.from > m.last {
            restart.push(m.node);
        } else {
            behind.insert(m.node, m.last);
        }
    }
    Plan {
        last: furthest.last,
        source,
        behind,
        restart,
    }
}

/// The jobs member `source` keeps after job `after`, oldest first, page by page; fails if it
/// no longer keeps every one of them.
fn fetch(
    role: &Role,
    members: &mut [Member],
    source: usize,
    after: u64,
) -> Result<Vec<TakenEntry>, String> {
    let mut entries: Vec<TakenEntry> = Vec::new();
    loop {
        let at = entries.last().map_or(after, |e| e.seq);
        let page = match &mut members[source].link {
            None => role.taken_page(at),
            Some(link) => link.ask(&Message::TakenAsk { after: at })?,
        };
        let (from, _, got, more) = taken_log_parts(page)?;
        if from > at {
            return Err(format!(
                "data node {} no longer keeps the jobs after {at}",
                members[source].node
            ));
        }
        let empty = got.is_empty();
        entries.extend(got);
        if !more || empty {
            return Ok(entries);
        }
    }
}

/// Tells member `node` to start again empty and copy from this primary.
fn restart(members: &mut [Member], node: u32) -> Result<(), String> {
    let Some(link) = members
        .iter_mut()
        .find(|m| m.node == node)
        .and_then(|m| m.link.as_mut())
    else {
        return Ok(());
    };
    tracing::warn!(
        node,
        "a replica holds commits this node cannot bring level: it starts again empty"
    );
    link.ask(&Message::Shutdown {
        restart: true,
        initial: true,
    })
    .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(node: u32, from: u64, last: u64) -> Member {
        Member {
            node,
            from,
            last,
            link: None,
        }
    }

    #[test]
    fn the_member_furthest_on_fills_the_others_gaps_where_it_keeps_them() {
        // Node 2 took over; node 3 took two more jobs, node 4 fewer.
        let p = plan(&[member(2, 100, 150), member(3, 120, 152), member(4, 90, 149)]);
        assert_eq!((p.last, p.source), (152, 1));
        assert_eq!(p.behind, [(2, 150), (4, 149)].into());
        assert!(p.restart.is_empty());
        // Node 2 is furthest on, and keeps what node 4 lacks.
        let p = plan(&[member(2, 100, 152), member(3, 151, 152), member(4, 90, 120)]);
        assert_eq!((p.source, p.restart.clone()), (0, vec![]));
        assert_eq!(p.behind, [(4, 120)].into());
        // Node 3 is furthest on and no longer keeps what node 4 lacks.
        let p = plan(&[member(2, 130, 152), member(4, 90, 120)]);
        assert_eq!(p.restart, vec![4]);
        assert!(p.behind.is_empty());
        // Nor what this node lacks.
        let p = plan(&[member(2, 0, 10), member(3, 50, 900)]);
        assert_eq!(p.restart, vec![2]);
    }

    #[test]
    fn members_that_took_the_same_are_level() {
        // Nobody took anything.
        let p = plan(&[member(2, 0, 0), member(3, 0, 0)]);
        assert!(p.restart.is_empty() && p.behind.is_empty());
        let p = plan(&[member(2, 3, 9), member(3, 5, 9)]);
        assert!(p.restart.is_empty() && p.behind.is_empty());
        assert_eq!(p.source, 0);
        // A member of the first view that took nothing yet: sent everything.
        let p = plan(&[member(2, 0, 9), member(3, 0, 0)]);
        assert_eq!(p.behind, [(3, 0)].into());
    }
}
