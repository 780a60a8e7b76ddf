//! Reading one worker's log at restart (`read_log`): every segment from a checkpoint's
//! position, each record checked and parsed, a torn tail cut, and damage told from a torn write.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::file::drop_cache;
use super::*;

/// What reading a worker's log found.
#[derive(Debug, Default)]
pub struct LogContents {
    pub records: Vec<Record>,
    /// Where appending continues (None: the worker has no segments).
    pub end: Option<Position>,
    /// Segment files before the start position: free for reuse.
    pub free: Vec<PathBuf>,
    /// The segments read (their numbers), the last one holding the end.
    pub live: Vec<u64>,
    /// Where a torn tail was cut, if anywhere.
    pub cut_at: Option<(PathBuf, u64)>,
    /// Segments read.
    pub segments: usize,
}

/// Reads the records of `worker`'s log in `dir` from `from` (a checkpoint's position; the
/// default position reads every segment). A record that is truncated, fails its checksum or
/// carries another segment's seed ends the log, unless a whole record after it (in its segment,
/// while lengths hold, or in a later segment) shows by its synced position that the bad one had
/// been fsynced: that is damage, an error naming the file and offset. A record whose checksum
/// matches but which does not parse is an error too. At the end, stale bytes are zeroed and later
/// segments deleted, so nothing after the end can ever be read as a record. Each file's cached
/// pages are dropped once read.
pub fn read_log(dir: &Path, worker: u32, from: Position) -> Result<LogContents, RedoError> {
    let segments: Vec<(u64, PathBuf)> = list_segments(dir)
        .map_err(|source| RedoError::Io {
            path: dir.to_path_buf(),
            source,
        })?
        .into_iter()
        .filter(|(w, _, _)| *w == worker)
        .map(|(_, s, p)| (s, p))
        .collect();
    let mut out = LogContents::default();
    let mut live = Vec::new();
    for (number, path) in segments {
        if number < from.segment {
            out.free.push(path);
        } else {
            live.push((number, path));
        }
    }
    if live.is_empty() {
        if from.segment > 0 {
            return Err(RedoError::Corrupt {
                path: segment_path(dir, worker, from.segment),
                offset: from.offset,
                what: "the redo segment the checkpoint starts from is missing".into(),
            });
        }
        return Ok(out);
    }
    if from.segment > 0 && live.first().map(|(n, _)| *n) != Some(from.segment) {
        return Err(RedoError::Corrupt {
            path: segment_path(dir, worker, from.segment),
            offset: from.offset,
            what: "the redo segment the checkpoint starts from is missing".into(),
        });
    }
    for pair in live.windows(2) {
        let [(before, _), (number, _)] = pair else {
            continue;
        };
        if *number != before + 1 {
            return Err(RedoError::Corrupt {
                path: segment_path(dir, worker, before + 1),
                offset: 0,
                what: format!("segment missing between {before} and {number}"),
            });
        }
    }
    let last = live.len() - 1;
    for (i, (number, path)) in live.iter().enumerate() {
        let later_segments = live.get(i + 1..).unwrap_or_default();
        let bytes = read_file(path)?;
        let start = if *number == from.segment {
            from.offset.max(HEADER_BYTES)
        } else {
            HEADER_BYTES
        };
        out.segments += 1;
        out.live.push(*number);
        match check_header(&bytes, worker, *number) {
            Ok(()) => {}
            Err(what) => {
                // A segment created just before a crash may lack its header; nothing in it can
                // have been acknowledged. Anywhere else a bad header is damage.
                let blank = bytes.iter().take(HEADER_BYTES as usize).all(|b| *b == 0);
                if i == last && blank && start == HEADER_BYTES {
                    out.end = Some(Position {
                        segment: *number,
                        offset: HEADER_BYTES,
                    });
                    return Ok(out);
                }
                return Err(RedoError::Corrupt {
                    path: path.clone(),
                    offset: 0,
                    what,
                });
            }
        }
        let mut at = start as usize;
        if at > bytes.len() {
            return Err(RedoError::Corrupt {
                path: path.clone(),
                offset: start,
                what: "the checkpoint's position lies past the end of the segment".into(),
            });
        }
        loop {
            match next_record(&bytes, at, *number) {
                Next::Record(record, len) => {
                    out.records.push(record);
                    at += len;
                }
                Next::Broken => {
                    return Err(RedoError::Corrupt {
                        path: path.clone(),
                        offset: at as u64,
                        what: "record does not parse (its checksum matches)".into(),
                    })
                }
                Next::End => {
                    if i == last {
                        // Appending resumes here: bytes a power cut left after the end (or a
                        // reused file's stale ones) are zeroed first.
                        cut(path, &bytes, at)?;
                    }
                    break;
                }
                Next::Bad(len) => {
                    // A record appended after an fsync that covered this one proves it durable:
                    // look for one among the whole records after it (while lengths hold), then
                    // in the later segments.
                    let here = Position {
                        segment: *number,
                        offset: at as u64,
                    };
                    let mut after = len.and_then(|len| last_synced(&bytes, at + len, *number));
                    if after.is_none_or(|s| s <= here) {
                        for (n, later) in later_segments {
                            let later_bytes = read_file(later)?;
                            if check_header(&later_bytes, worker, *n).is_err() {
                                break;
                            }
                            let found = last_synced(&later_bytes, HEADER_BYTES as usize, *n);
                            after = after.max(found);
                        }
                    }
                    if after.is_some_and(|s| s > here) {
                        return Err(RedoError::Corrupt {
                            path: path.clone(),
                            offset: at as u64,
                            what: "damaged record (a later record shows it had been fsynced)"
                                .into(),
                        });
                    }
                    cut(path, &bytes, at)?;
                    for (_, later) in later_segments {
                        std::fs::remove_file(later).map_err(|source| RedoError::Io {
                            path: later.clone(),
                            source,
                        })?;
                    }
                    if i < last {
                        sync_directory(path).map_err(|source| RedoError::Io {
                            path: path.clone(),
                            source,
                        })?;
                    }
                    out.cut_at = Some((path.clone(), at as u64));
                    out.end = Some(here);
                    return Ok(out);
                }
            }
        }
        out.end = Some(Position {
            segment: *number,
            offset: at as u64,
        });
    }
    Ok(out)
}

fn read_file(path: &Path) -> Result<Vec<u8>, RedoError> {
    let io_error = |source| RedoError::Io {
        path: path.to_path_buf(),
        source,
    };
    // Sized to the file up front: growing by doubling would copy and fault in the data twice.
    let mut file = File::open(path).map_err(io_error)?;
    let length = file.metadata().map_err(io_error)?.len() as usize;
    let mut bytes = Vec::with_capacity(length);
    file.read_to_end(&mut bytes).map_err(io_error)?;
    drop_cache(&file);
    Ok(bytes)
}

fn check_header(bytes: &[u8], worker: u32, number: u64) -> Result<(), String> {
    let Some(bytes) = bytes
        .first_chunk::<{ HEADER_BYTES as usize }>()
        .filter(|h| &h[..8] == MAGIC)
    else {
        return Err("not a Cairn redo segment (bad header)".into());
    };
    let crc = u32::from_le_bytes([bytes[24], bytes[25], bytes[26], bytes[27]]);
    if crc32c::crc32c(&bytes[..24]) != crc {
        return Err("segment header checksum mismatch".into());
    }
    let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    if version != VERSION && version != VERSION_UNNAMED {
        return Err(format!("unsupported redo log version {version}"));
    }
    let w = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]);
    let s = u64::from_le_bytes(bytes[16..24].try_into().unwrap_or_default());
    if w != worker || s != number {
        return Err(format!(
            "header names worker {w} segment {s}, the file name worker {worker} segment {number}"
        ));
    }
    Ok(())
}

enum Next {
    /// A whole record and its length with framing.
    Record(Record, usize),
    /// Zero bytes (or none) left: the segment's end.
    End,
    /// A bad record; its framed length when the length field was plausible.
    Bad(Option<usize>),
    /// A record whose checksum matches but whose body does not parse: never a torn write.
    Broken,
}

fn next_record(bytes: &[u8], at: usize, segment: u64) -> Next {
    let rest = bytes.get(at..).unwrap_or_default();
    let Some((head, after)) = rest.split_first_chunk::<8>() else {
        // No room for a record: the physical end of the file.
        return Next::End;
    };
    let body_len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize;
    let crc = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
    if body_len == 0 && crc == 0 {
        // Never written (preallocated zeros), or the end marker a full segment gets.
        return Next::End;
    }
    let Some(body) = after
        .get(..body_len)
        .filter(|_| body_len >= RECORD_BODY_MIN)
    else {
        return Next::Bad(None);
    };
    let seeded = crc32c::crc32c_append(crc32c::crc32c(&segment.to_le_bytes()), body);
    if seeded != crc {
        return Next::Bad(Some(8 + body_len));
    }
    match parse_body(body) {
        Some(record) => Next::Record(record, 8 + body_len),
        None => Next::Broken,
    }
}

/// The synced position stored in the (valid) record at `at`.
fn synced_of(bytes: &[u8], at: usize) -> Option<Position> {
    let b = bytes.get(at + 8 + 18..at + 8 + 26)?;
    Some(Position::unpack(u64::from_le_bytes(b.try_into().ok()?)))
}

/// The synced position of the last of the whole records from `at` on (they ascend).
fn last_synced(bytes: &[u8], mut at: usize, segment: u64) -> Option<Position> {
    let mut last = None;
    while let Next::Record(_, len) = next_record(bytes, at, segment) {
        last = synced_of(bytes, at).or(last);
        at += len;
    }
    last
}

/// Ends a segment at `at`: every non-zero byte after it is zeroed and fsynced, so stale or torn
/// bytes can never be read as records once new ones are written before them.
fn cut(path: &Path, bytes: &[u8], at: usize) -> Result<(), RedoError> {
    let io_error = |source| RedoError::Io {
        path: path.to_path_buf(),
        source,
    };
    let tail = bytes.get(at..).unwrap_or_default();
    let Some(last) = tail.iter().rposition(|b| *b != 0) else {
        return Ok(());
    };
    let file = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(io_error)?;
    let zeros = vec![0u8; 1 << 20];
    let mut offset = 0;
    while offset <= last {
        let n = (last + 1 - offset).min(zeros.len());
        file.write_all_at(zeros.get(..n).unwrap_or_default(), (at + offset) as u64)
            .map_err(io_error)?;
        offset += n;
    }
    file.sync_all().map_err(io_error)
}

fn parse_body(body: &[u8]) -> Option<Record> {
    let mut r = body;
    let mut take = |n: usize| -> Option<&[u8]> {
        if r.len() < n {
            return None;
        }
        let (head, tail) = r.split_at(n);
        r = tail;
        Some(head)
    };
    let u64_at = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
    let u32_at = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap_or([0; 4]));
    let sequence = u64_at(take(8)?);
    let transaction = u64_at(take(8)?);
    let participants = u16::from_le_bytes(take(2)?.try_into().ok()?);
    let _synced = u64_at(take(8)?);
    let count = u32_at(take(4)?) as usize;
    let mut changes = Vec::with_capacity(count.min(body.len() / 13));
    for _ in 0..count {
        let table = u32_at(take(4)?);
        let partition = u32_at(take(4)?);
        let kind = *take(1)?.first()?;
        let key_len = u32_at(take(4)?) as usize;
        let key = take(key_len)?.to_vec();
        let row = match kind {
            1 => {
                let len = u32_at(take(4)?) as usize;
                Some(take(len)?.to_vec().into_boxed_slice())
            }
            2 => None,
            _ => return None,
        };
        changes.push(Change {
            table,
            partition,
            key,
            row,
        });
    }
    let (kind, name) = match r.len() {
        0 => (RecordKind::Commit, None),
        TRAILER_BYTES => {
            let kind = RecordKind::of(*r.first()?)?;
            let session = u64_at(r.get(1..9)?);
            let named = u64_at(r.get(9..17)?);
            let name = (session != 0 || named != 0).then_some((session, named));
            (kind, name)
        }
        _ => return None,
    };
    Some(Record {
        sequence,
        transaction,
        participants,
        changes,
        kind,
        name,
    })
}
