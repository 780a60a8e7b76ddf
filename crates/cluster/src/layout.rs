//! Where partitions live: node groups, each partition's replicas in preference order, and the
//! view (an epoch and the data nodes it counts as members) that picks each partition's primary.

use std::collections::BTreeSet;

/// A node's id in the cluster. Data nodes are numbered from 1; `ARBITRATOR` is the management node.
pub type NodeId = u16;

/// The management node that arbitrates: it votes in view agreement and holds no data.
pub const ARBITRATOR: NodeId = 0;

/// The number of a view. Every message that depends on membership carries the sender's epoch, and
/// a node drops protocol messages from any epoch other than its own.
pub type Epoch = u64;

/// A partition of the (single, for now) replicated key space.
pub type PartitionId = u32;

/// Time as the protocol sees it: microseconds from the runtime's origin. The protocol never reads a
/// clock; the runtime passes `now` with every input.
pub type Time = u64;

/// The fixed shape of a cluster: data nodes `1..=data_nodes` in node groups of `replicas`
/// consecutive ids, and partitions spread over the groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    groups: Vec<Vec<NodeId>>,
    partition_count: u32,
}

/// The most data nodes a layout may hold (NDB allows 144).
pub const DATA_NODES_MAX: u16 = 144;
/// The most replicas of a partition (NDB's NoOfReplicas limit).
pub const REPLICAS_MAX: u16 = 4;

impl Layout {
    /// A layout of `data_nodes` nodes in groups of `replicas`, with `partitions_per_group`
    /// partitions per node group (NDB's default balance is one per worker per node).
    pub fn new(
        data_nodes: u16,
        replicas: u16,
        partitions_per_group: u32,
    ) -> Result<Layout, String> {
        if replicas == 0 || replicas > REPLICAS_MAX {
            return Err(format!(
                "replicas must be 1..={REPLICAS_MAX}, not {replicas}"
            ));
        }
        if data_nodes == 0 || data_nodes > DATA_NODES_MAX || !data_nodes.is_multiple_of(replicas) {
            return Err(format!(
                "data nodes must be a multiple of replicas ({replicas}) up to {DATA_NODES_MAX}, not {data_nodes}"
            ));
        }
        if partitions_per_group == 0 || partitions_per_group > 1024 {
            return Err(format!(
                "partitions per node group must be 1..=1024, not {partitions_per_group}"
            ));
        }
        let groups: Vec<Vec<NodeId>> = (0..data_nodes / replicas)
            .map(|g| (0..replicas).map(|r| g * replicas + r + 1).collect())
            .collect();
        let partition_count = partitions_per_group * groups.len() as u32;
        Ok(Layout {
            groups,
            partition_count,
        })
    }

    /// Every data node's id, ascending.
    pub fn data_nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.groups.iter().flatten().copied()
    }

    pub fn groups(&self) -> &[Vec<NodeId>] {
        &self.groups
    }

    pub fn partition_count(&self) -> u32 {
        self.partition_count
    }

    /// The partition's replicas in preference order: its node group, rotated so that primaries
    /// spread evenly over the group's nodes.
    pub fn replicas(&self, partition: PartitionId) -> Vec<NodeId> {
        let group_count = self.groups.len() as u32;
        let group = &self.groups[(partition % group_count) as usize];
        let shift = (partition / group_count) as usize % group.len();
        (0..group.len())
            .map(|i| group[(i + shift) % group.len()])
            .collect()
    }

    /// Whether `members` holds at least one node of every node group: only such a set may serve.
    pub fn viable(&self, members: &BTreeSet<NodeId>) -> bool {
        self.groups
            .iter()
            .all(|g| g.iter().any(|n| members.contains(n)))
    }
}

/// What view agreement decides for an epoch: the members, and the nodes starting (restarted and
/// copying their partitions: they take every new commit but serve nothing and vote on nothing).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Membership {
    pub members: BTreeSet<NodeId>,
    pub starting: BTreeSet<NodeId>,
}

/// A membership of these members, none starting.
impl<const N: usize> From<[NodeId; N]> for Membership {
    fn from(members: [NodeId; N]) -> Membership {
        Membership {
            members: members.into(),
            starting: BTreeSet::new(),
        }
    }
}

impl Membership {
    pub fn contains(&self, node: NodeId) -> bool {
        self.members.contains(&node) || self.starting.contains(&node)
    }
}

/// One agreed membership: the data nodes that serve in `epoch`, and those starting. At most one
/// view exists per epoch (view agreement guarantees it and the simulator checks it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    pub epoch: Epoch,
    pub members: BTreeSet<NodeId>,
    pub starting: BTreeSet<NodeId>,
}

impl View {
    pub fn new(epoch: Epoch, membership: Membership) -> View {
        View {
            epoch,
            members: membership.members,
            starting: membership.starting,
        }
    }

    pub fn membership(&self) -> Membership {
        Membership {
            members: self.members.clone(),
            starting: self.starting.clone(),
        }
    }

    /// Members and starting nodes: everyone who takes part in the view.
    pub fn nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.members.union(&self.starting).copied()
    }

    /// Every replica of `partition` a commit must reach in this view, primary first: the
    /// primary, then the other members and the starting nodes in preference order. Empty if no
    /// member holds it.
    pub fn replicas(&self, layout: &Layout, partition: PartitionId) -> Vec<NodeId> {
        let Some(primary) = self.primary(layout, partition) else {
            return Vec::new();
        };
        let mut all = vec![primary];
        all.extend(
            layout.replicas(partition).into_iter().filter(|n| {
                *n != primary && (self.members.contains(n) || self.starting.contains(n))
            }),
        );
        all
    }

    /// The replicas of `partition` that serve reads: its members.
    pub fn serving(&self, layout: &Layout, partition: PartitionId) -> Vec<NodeId> {
        layout
            .replicas(partition)
            .into_iter()
            .filter(|n| self.members.contains(n))
            .collect()
    }

    /// The partition's primary in this view: its first member in preference order.
    pub fn primary(&self, layout: &Layout, partition: PartitionId) -> Option<NodeId> {
        layout
            .replicas(partition)
            .into_iter()
            .find(|n| self.members.contains(n))
    }

    /// The vote weight needed to agree on the view after this one: more than half of twice the
    /// members plus the arbitrator's one. So a strict majority of the data nodes decides alone,
    /// exactly half needs the arbitrator, and less than half never decides (NDB's rule).
    pub fn next_quorum(&self) -> u32 {
        self.members.len() as u32 + 1
    }

    /// A voter's weight in agreeing on the next view: 2 for a member, 1 for the arbitrator.
    pub fn weight(&self, voter: NodeId) -> u32 {
        if voter == ARBITRATOR {
            1
        } else if self.members.contains(&voter) {
            2
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primaries_spread_over_the_group() {
        let layout = Layout::new(4, 2, 4).unwrap();
        assert_eq!(layout.partition_count(), 8);
        assert_eq!(layout.replicas(0), vec![1, 2]);
        assert_eq!(layout.replicas(1), vec![3, 4]);
        assert_eq!(layout.replicas(2), vec![2, 1]);
        assert_eq!(layout.replicas(3), vec![4, 3]);
        let view = View {
            epoch: 1,
            members: [2, 3, 4].into(),
            starting: [1].into(),
        };
        assert_eq!(view.primary(&layout, 0), Some(2));
        assert_eq!(view.replicas(&layout, 1), vec![3, 4]);
        assert_eq!(view.replicas(&layout, 0), vec![2, 1]);
        assert_eq!(view.serving(&layout, 0), vec![2]);
    }

    #[test]
    fn quorum_is_majority_or_half_with_the_arbitrator() {
        let view = View {
            epoch: 1,
            members: [1, 2, 3, 4].into(),
            starting: BTreeSet::new(),
        };
        let weight = |voters: &[NodeId]| voters.iter().map(|v| view.weight(*v)).sum::<u32>();
        assert!(weight(&[1, 2, 3]) >= view.next_quorum());
        assert!(weight(&[1, 2]) < view.next_quorum());
        assert!(weight(&[1, 2, ARBITRATOR]) >= view.next_quorum());
        assert!(weight(&[1, ARBITRATOR]) < view.next_quorum());
        let pair = View {
            epoch: 1,
            members: [1, 2].into(),
            starting: [3].into(),
        };
        assert_eq!(pair.weight(3), 0);
        assert!(pair.weight(1) < pair.next_quorum());
        assert!(pair.weight(1) + pair.weight(ARBITRATOR) >= pair.next_quorum());
    }

    #[test]
    fn bad_shapes_are_refused() {
        assert!(Layout::new(3, 2, 1).is_err());
        assert!(Layout::new(4, 5, 1).is_err());
        assert!(Layout::new(4, 2, 0).is_err());
        let layout = Layout::new(4, 2, 1).unwrap();
        assert!(layout.viable(&[1, 4].into()));
        assert!(!layout.viable(&[1, 2].into()));
    }
}
