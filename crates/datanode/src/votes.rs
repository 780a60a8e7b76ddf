//! The management node's votes on disk: the arbitrator's promises, accepted values and the
//! views it was told were chosen (`cluster::arbitrator::Arbitrator::votes`), saved whole before
//! any answer that depends on them goes out, so a management node started again keeps every
//! promise it made (Paxos's rule for an acceptor).
//!
//! File `arbitrator-votes` (little-endian): `magic "CAIRNVOT" | version u32 | count u32`, then
//! per vote `body length u32 | body` (a cluster message's body, `cluster::codec::encode_body`),
//! then `CRC-32C u32` of every byte before it. Written to `arbitrator-votes.tmp`, fsynced, renamed
//! over the file and the directory fsynced: a crash leaves the old file or the new one whole.

use std::io::Write;
use std::path::{Path, PathBuf};

use cluster::msg::Msg;

/// The file's name in the management node's data directory.
pub const FILE: &str = "arbitrator-votes";
const MAGIC: &[u8; 8] = b"CAIRNVOT";
const VERSION: u32 = 1;
/// The largest votes file read: far above what an arbitrator keeps (at most 256 chosen views,
/// and the promises and accepted values of the epochs after the oldest).
pub const FILE_BYTES_MAX: u64 = 16 << 20;

/// The highest epoch `votes` name (0: none).
pub fn max_epoch(votes: &[Msg]) -> u64 {
    votes
        .iter()
        .filter_map(|vote| match vote {
            Msg::ViewPrepare { epoch, .. }
            | Msg::ViewAccept { epoch, .. }
            | Msg::ViewChosen { epoch, .. } => Some(*epoch),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// Where the votes are kept in `dir`.
pub fn path_in(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

/// Saves `votes` at `path`, replacing what was there only once the new file is on disk.
pub fn save(path: &Path, votes: &[Msg]) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(64 + votes.len() * 64);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    bytes.extend_from_slice(&(votes.len() as u32).to_le_bytes());
    let mut body = Vec::new();
    for vote in votes {
        body.clear();
        cluster::codec::encode_body(vote, &mut body);
        bytes.extend_from_slice(&(body.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&body);
    }
    let crc = crc32c::crc32c(&bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
    let tmp = path.with_extension("tmp");
    {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(&bytes)?;
        file.sync_all()?;
    }
    std::fs::rename(&tmp, path)?;
    storage::redo::sync_directory(path)
}

/// The votes saved at `path` (none when there is no file); an error naming the file when it
/// is damaged, too large or of another version: a voter must not start forgetting its
/// promises.
pub fn load(path: &Path) -> Result<Vec<Msg>, String> {
    let what = |why: String| format!("{}: {why}", path.display());
    let bytes = match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(what(e.to_string())),
        Ok(meta) if meta.len() > FILE_BYTES_MAX => {
            return Err(what(format!(
                "{} bytes, more than a votes file may hold ({FILE_BYTES_MAX})",
                meta.len()
            )))
        }
        Ok(_) => std::fs::read(path).map_err(|e| what(e.to_string()))?,
    };
    if bytes.len() < 20 || &bytes[..8] != MAGIC {
        return Err(what("not a votes file".into()));
    }
    let (content, crc) = bytes.split_at(bytes.len() - 4);
    if crc32c::crc32c(content) != u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]) {
        return Err(what("checksum mismatch: the file is damaged".into()));
    }
    let u32_at = |at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(
            content.get(at..at + 4)?.try_into().ok()?,
        ))
    };
    let version = u32_at(8).unwrap_or_default();
    if version != VERSION {
        return Err(what(format!("unsupported votes file version {version}")));
    }
    let count = u32_at(12).unwrap_or_default() as usize;
    let mut votes = Vec::with_capacity(count.min(content.len() / 4));
    let mut at = 16;
    for i in 0..count {
        let len = u32_at(at).ok_or_else(|| what(format!("vote {i} is cut short")))? as usize;
        let body = content
            .get(at + 4..at + 4 + len)
            .ok_or_else(|| what(format!("vote {i} is cut short")))?;
        votes.push(cluster::codec::decode(body).map_err(|e| what(format!("vote {i}: {e}")))?);
        at += 4 + len;
    }
    if at != content.len() {
        return Err(what("bytes after the last vote".into()));
    }
    Ok(votes)
}

#[cfg(test)]
mod tests {
    use cluster::msg::{Ballot, Msg};

    /// Votes saved come back as they were; a damaged file is an error, a missing one none.
    #[test]
    fn votes_round_trip_and_damage_is_refused() {
        let dir = std::env::temp_dir().join(format!("cairn-votes-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = super::path_in(&dir);
        assert_eq!(super::load(&path).unwrap(), Vec::<Msg>::new());
        let ballot = Ballot { round: 3, node: 2 };
        let votes = vec![
            Msg::ViewPrepare { epoch: 7, ballot },
            Msg::ViewAccept {
                epoch: 7,
                ballot,
                members: [1, 2].into(),
            },
            Msg::ViewChosen {
                epoch: 6,
                members: [1, 2, 3].into(),
                installer: 1,
            },
        ];
        super::save(&path, &votes).unwrap();
        assert_eq!(super::load(&path).unwrap(), votes);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[20] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(super::load(&path).unwrap_err().contains("damaged"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
