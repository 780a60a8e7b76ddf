//! Key -> partition: the one function that decides where a row lives, shared by the client (for
//! routing hints) and the data node. hash(partition key encoding) -> bucket -> partition.

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
}
