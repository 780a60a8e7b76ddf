//! Key -> partition -> node group: the functions that decide where a row lives, shared by the
//! client (for routing hints) and the data node. hash(partition key encoding) -> bucket ->
//! partition -> node group; inside the group, partition -> the worker that owns it on each replica.

use crate::limits::BUCKET_COUNT;

/// The 32-bit hash of an encoded partition key.
pub fn key_hash(key: &[u8]) -> u32 {
    crc32c::crc32c(key)
}

/// The bucket of a key hash; buckets let partitions be split or moved later without rehashing.
pub fn bucket(hash: u32) -> u32 {
    hash % BUCKET_COUNT
}

/// The partition (0-based) that holds an encoded partition key.
pub fn partition_of(key: &[u8], partition_count: u32) -> u32 {
    bucket(key_hash(key)) % partition_count.max(1)
}

/// The node group (0-based) that holds partition `partition` when the cluster has `groups` node
/// groups: partitions go round the groups, so a table of groups x workers partitions (the
/// default) gives every worker of every group one.
pub fn group_of(partition: u32, groups: u32) -> u32 {
    partition % groups.max(1)
}

/// The worker (0-based) that owns partition `partition` on each data node of its group, with
/// `groups` node groups and `workers` workers per data node. With one group this is
/// `partition % workers`, the single node's rule.
pub fn worker_of(partition: u32, groups: u32, workers: u32) -> u32 {
    (partition / groups.max(1)) % workers.max(1)
}

/// A 64-bit hash for in-memory hash tables, spread over all bits from the same key hash.
pub fn table_hash(key: &[u8]) -> u64 {
    u64::from(key_hash(key)).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (key.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_spread_over_partitions() {
        let mut counts = [0u32; 4];
        for i in 0u64..4000 {
            counts[partition_of(&i.to_be_bytes(), 4) as usize] += 1;
        }
        assert!(counts.iter().all(|c| *c > 800), "{counts:?}");
    }

    #[test]
    fn every_worker_of_every_group_owns_one_of_the_default_partitions() {
        for (groups, workers) in [(1, 1), (1, 3), (2, 2), (3, 4), (2, 1)] {
            let mut owners = std::collections::BTreeSet::new();
            for p in 0..groups * workers {
                assert!(owners.insert((group_of(p, groups), worker_of(p, groups, workers))));
            }
            assert_eq!(owners.len() as u32, groups * workers);
        }
        // One group keeps the single node's rule.
        for p in 0..64 {
            assert_eq!(worker_of(p, 1, 5), p % 5);
            assert_eq!(group_of(p, 1), 0);
        }
    }
}
