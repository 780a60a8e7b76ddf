//! The redo log of one worker: every committed change, written before the commit is acknowledged
//! and replayed at restart. Records carry a checksum; a torn or corrupt tail is found by it and
//! cut at the last whole record.
//!
//! File layout (little-endian), drawn in docs/formats/redo-log.md:
//! `header: magic "CAIRNRDO" (8) | version u32 | worker u32`
//! then records: `body length u32 | CRC-32C of body u32 | body`
//! body: `commit sequence u64 | transaction u64 | participants u16 | change count u32 | changes`
//! change: `table u32 | partition u32 | kind u8 (1 put, 2 delete) | key length u32 | key |
//! [row length u32 | row]` (row only for put).
//!
//! All file access goes through [`LogFile`], the seam where tests inject failed writes and
//! fsyncs. After any failed write or fsync the log refuses everything (fail-stop): the node must
//! not acknowledge a commit it could not make durable.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The first bytes of every redo file.
pub const MAGIC: &[u8; 8] = b"CAIRNRDO";
pub const VERSION: u32 = 1;
const HEADER_BYTES: usize = 16;
/// Largest record body: its length is a u32.
pub const RECORD_BYTES_MAX: usize = u32::MAX as usize;
/// Smallest record body: sequence, transaction, participants and change count.
const RECORD_BODY_MIN: usize = 22;

/// One changed row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub table: u32,
    pub partition: u32,
    /// Encoded primary key.
    pub key: Vec<u8>,
    /// The row image after the commit; None for a delete.
    pub row: Option<Box<[u8]>>,
}

/// A changed row as the worker holds it, borrowed for writing.
#[derive(Debug, Clone, Copy)]
pub struct ChangeRef<'a> {
    pub table: u32,
    pub partition: u32,
    pub key: &'a [u8],
    pub row: Option<&'a [u8]>,
}

/// One worker's part of one committed transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Node-wide commit order: a later commit of the same row has a higher number.
    pub sequence: u64,
    pub transaction: u64,
    /// How many workers hold a part of this transaction; replay applies it only when every
    /// part is in the logs.
    pub participants: u16,
    pub changes: Vec<Change>,
}

/// Storage for a log: a real file, or a test double that fails on demand.
pub trait LogFile: Send {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()>;
    fn sync(&mut self) -> io::Result<()>;
}

impl LogFile for File {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.write_all(bytes)
    }
    fn sync(&mut self) -> io::Result<()> {
        self.sync_data()
    }
}

/// A fault-injection point for the redo log's I/O: counts syncs and writes and fails the ones a
/// test chose. Shared by every log of a node, so a test can say "the third fsync fails".
#[derive(Debug, Default)]
pub struct Faults {
    /// Fail the sync with this 1-based number (0: never).
    pub fail_sync_number: std::sync::atomic::AtomicU64,
    syncs: std::sync::atomic::AtomicU64,
}

impl Faults {
    /// Faults that fail the `n`th fsync (1-based).
    pub fn fail_sync(n: u64) -> Faults {
        Faults {
            fail_sync_number: std::sync::atomic::AtomicU64::new(n),
            syncs: std::sync::atomic::AtomicU64::new(0),
        }
    }
}

/// A file whose syncs go through [`Faults`].
pub struct FaultyFile {
    pub file: File,
    pub faults: std::sync::Arc<Faults>,
}

impl LogFile for FaultyFile {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file.write_all(bytes)
    }
    fn sync(&mut self) -> io::Result<()> {
        use std::sync::atomic::Ordering;
        let n = self.faults.syncs.fetch_add(1, Ordering::SeqCst) + 1;
        if n == self.faults.fail_sync_number.load(Ordering::SeqCst) {
            return Err(io::Error::other(format!(
                "injected failure of fsync number {n}"
            )));
        }
        self.file.sync_data()
    }
}

/// Why the log cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RedoError {
    #[error("redo log {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("redo log {path} at byte {offset}: {what}")]
    Corrupt {
        path: PathBuf,
        offset: u64,
        what: String,
    },
    #[error("redo log {path} failed earlier ({why}); refusing further writes")]
    Poisoned { path: PathBuf, why: String },
}

/// An open redo log being appended to.
pub struct RedoLog {
    path: PathBuf,
    file: Box<dyn LogFile>,
    buffer: Vec<u8>,
    poisoned: Option<String>,
    written_bytes: u64,
}

impl RedoLog {
    /// Opens (creating if needed) the log of `worker` for appending. An existing log must have
    /// been read with [`read_log`] first, which cuts a torn tail.
    pub fn open(path: &Path, worker: u32) -> Result<RedoLog, RedoError> {
        RedoLog::open_with_faults(path, worker, None)
    }

    /// [`RedoLog::open`], with syncs going through `faults` when given.
    pub fn open_with_faults(
        path: &Path,
        worker: u32,
        faults: Option<std::sync::Arc<Faults>>,
    ) -> Result<RedoLog, RedoError> {
        let io_error = |source| RedoError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)
            .map_err(io_error)?;
        let length = file.seek(SeekFrom::End(0)).map_err(io_error)?;
        if length == 0 {
            let mut header = Vec::with_capacity(HEADER_BYTES);
            header.extend_from_slice(MAGIC);
            header.extend_from_slice(&VERSION.to_le_bytes());
            header.extend_from_slice(&worker.to_le_bytes());
            file.write_all(&header).map_err(io_error)?;
            file.sync_all().map_err(io_error)?;
            sync_directory(path).map_err(io_error)?;
        }
        Ok(match faults {
            Some(faults) => RedoLog::with_file(path, Box::new(FaultyFile { file, faults })),
            None => RedoLog::with_file(path, Box::new(file)),
        })
    }

    /// A log over any [`LogFile`] (tests inject failures here).
    pub fn with_file(path: &Path, file: Box<dyn LogFile>) -> RedoLog {
        RedoLog {
            path: path.to_path_buf(),
            file,
            buffer: Vec::with_capacity(64 * 1024),
            poisoned: None,
            written_bytes: 0,
        }
    }

    /// Adds a record to the buffer; nothing reaches the file until [`RedoLog::flush`].
    pub fn append(&mut self, record: &Record) -> Result<(), RedoError> {
        let changes = record.changes.iter().map(|c| ChangeRef {
            table: c.table,
            partition: c.partition,
            key: &c.key,
            row: c.row.as_deref(),
        });
        self.append_changes(
            record.sequence,
            record.transaction,
            record.participants,
            changes,
        )
    }

    /// Adds a record made of borrowed changes (no copy of the rows before they are written).
    pub fn append_changes<'a>(
        &mut self,
        sequence: u64,
        transaction: u64,
        participants: u16,
        changes: impl Iterator<Item = ChangeRef<'a>>,
    ) -> Result<(), RedoError> {
        self.check()?;
        let start = self.buffer.len();
        self.buffer.extend_from_slice(&[0; 8]);
        self.buffer.extend_from_slice(&sequence.to_le_bytes());
        self.buffer.extend_from_slice(&transaction.to_le_bytes());
        self.buffer.extend_from_slice(&participants.to_le_bytes());
        let count_at = self.buffer.len();
        self.buffer.extend_from_slice(&0u32.to_le_bytes());
        let mut count = 0u32;
        for c in changes {
            count += 1;
            self.buffer.extend_from_slice(&c.table.to_le_bytes());
            self.buffer.extend_from_slice(&c.partition.to_le_bytes());
            self.buffer.push(if c.row.is_some() { 1 } else { 2 });
            self.buffer
                .extend_from_slice(&(c.key.len() as u32).to_le_bytes());
            self.buffer.extend_from_slice(c.key);
            if let Some(row) = c.row {
                self.buffer
                    .extend_from_slice(&(row.len() as u32).to_le_bytes());
                self.buffer.extend_from_slice(row);
            }
        }
        self.buffer[count_at..count_at + 4].copy_from_slice(&count.to_le_bytes());
        let body_bytes = self.buffer.len() - start - 8;
        if body_bytes > RECORD_BYTES_MAX {
            self.buffer.truncate(start);
            return Err(RedoError::Corrupt {
                path: self.path.clone(),
                offset: self.written_bytes,
                what: format!("a record of {body_bytes} bytes exceeds {RECORD_BYTES_MAX}"),
            });
        }
        let body_len = body_bytes as u32;
        let crc = crc32c::crc32c(&self.buffer[start + 8..]);
        self.buffer[start..start + 4].copy_from_slice(&body_len.to_le_bytes());
        self.buffer[start + 4..start + 8].copy_from_slice(&crc.to_le_bytes());
        Ok(())
    }

    /// True when records wait in the buffer.
    pub fn has_pending(&self) -> bool {
        !self.buffer.is_empty()
    }

    /// Writes the buffered records; with `sync`, also makes them durable. Any failure poisons
    /// the log.
    pub fn flush(&mut self, sync: bool) -> Result<(), RedoError> {
        self.check()?;
        if !self.buffer.is_empty() {
            if let Err(e) = self.file.append(&self.buffer) {
                return Err(self.poison(e));
            }
            self.written_bytes += self.buffer.len() as u64;
            self.buffer.clear();
        }
        if sync {
            if let Err(e) = self.file.sync() {
                return Err(self.poison(e));
            }
        }
        Ok(())
    }

    /// Bytes written to the file since it was opened.
    pub fn written_bytes(&self) -> u64 {
        self.written_bytes
    }

    fn check(&self) -> Result<(), RedoError> {
        match &self.poisoned {
            Some(why) => Err(RedoError::Poisoned {
                path: self.path.clone(),
                why: why.clone(),
            }),
            None => Ok(()),
        }
    }

    fn poison(&mut self, e: io::Error) -> RedoError {
        self.poisoned = Some(e.to_string());
        RedoError::Io {
            path: self.path.clone(),
            source: e,
        }
    }
}

/// Fsyncs the directory holding `path`, so a created or renamed file survives a power cut.
pub fn sync_directory(path: &Path) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    File::open(dir)?.sync_all()
}

/// What reading a log found.
#[derive(Debug)]
pub struct LogContents {
    pub records: Vec<Record>,
    /// Where a torn or corrupt tail was cut, if anywhere.
    pub cut_at: Option<u64>,
}

/// Reads every whole record of a log. A record that is truncated or fails its checksum ends the
/// log: the file is cut there (the bytes after it never made a commit durable, since records are
/// written in order and a commit waits for its own). Bad headers and impossible lengths inside a
/// checksummed record are errors naming the file and offset.
pub fn read_log(path: &Path) -> Result<LogContents, RedoError> {
    let io_error = |source| RedoError::Io {
        path: path.to_path_buf(),
        source,
    };
    let corrupt = |offset: u64, what: String| RedoError::Corrupt {
        path: path.to_path_buf(),
        offset,
        what,
    };
    // Sized to the file up front: growing by doubling would copy and fault in the log twice.
    let mut file = File::open(path).map_err(io_error)?;
    let length = file.metadata().map_err(io_error)?.len() as usize;
    let mut bytes = Vec::with_capacity(length);
    file.read_to_end(&mut bytes).map_err(io_error)?;
    if bytes.len() < HEADER_BYTES && MAGIC.starts_with(&bytes[..bytes.len().min(8)]) {
        // Created but cut short before its header reached the disk: an empty log.
        let file = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(io_error)?;
        file.set_len(0).map_err(io_error)?;
        file.sync_all().map_err(io_error)?;
        return Ok(LogContents {
            records: Vec::new(),
            cut_at: Some(0),
        });
    }
    if bytes.len() < HEADER_BYTES || &bytes[..8] != MAGIC {
        return Err(corrupt(0, "not a Cairn redo log (bad header)".into()));
    }
    let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    if version != VERSION {
        return Err(corrupt(
            8,
            format!("unsupported redo log version {version}"),
        ));
    }
    let mut records = Vec::new();
    let mut at = HEADER_BYTES;
    let mut cut_at = None;
    while at < bytes.len() {
        let rest = &bytes[at..];
        if rest.len() < 8 {
            cut_at = Some(at as u64);
            break;
        }
        let body_len = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        let crc = u32::from_le_bytes([rest[4], rest[5], rest[6], rest[7]]);
        let whole = body_len >= RECORD_BODY_MIN && rest.len() >= 8 + body_len;
        if !whole || crc32c::crc32c(&rest[8..8 + body_len]) != crc {
            // A torn tail is the last write, cut short or never filled in (zeros). A bad record
            // with written data after it is damage in the middle of the log: refuse to guess.
            let after = if whole {
                &rest[8 + body_len..]
            } else {
                &[][..]
            };
            if after.iter().any(|b| *b != 0) {
                return Err(corrupt(
                    at as u64,
                    "checksum mismatch with records after it".into(),
                ));
            }
            cut_at = Some(at as u64);
            break;
        }
        let record = parse_body(&rest[8..8 + body_len])
            .ok_or_else(|| corrupt(at as u64, "record does not parse".into()))?;
        records.push(record);
        at += 8 + body_len;
    }
    if let Some(offset) = cut_at {
        let file = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(io_error)?;
        file.set_len(offset).map_err(io_error)?;
        file.sync_all().map_err(io_error)?;
    }
    Ok(LogContents { records, cut_at })
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
    let count = u32_at(take(4)?) as usize;
    let mut changes = Vec::with_capacity(count.min(body.len() / 13));
    for _ in 0..count {
        let table = u32_at(take(4)?);
        let partition = u32_at(take(4)?);
        let kind = take(1)?[0];
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
    if !r.is_empty() {
        return None;
    }
    Some(Record {
        sequence,
        transaction,
        participants,
        changes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(sequence: u64, n: usize) -> Record {
        Record {
            sequence,
            transaction: sequence * 10,
            participants: 2,
            changes: (0..n)
                .map(|i| Change {
                    table: 1,
                    partition: i as u32,
                    key: vec![i as u8; 8],
                    row: if i % 3 == 2 {
                        None
                    } else {
                        Some(vec![7u8; 20 + i].into_boxed_slice())
                    },
                })
                .collect(),
        }
    }

    #[test]
    fn records_round_trip_and_a_torn_tail_is_cut() {
        let dir = std::env::temp_dir().join(format!("cairn-redo-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("redo-0.log");
        let _ = std::fs::remove_file(&path);
        let mut log = RedoLog::open(&path, 0).unwrap();
        let written: Vec<Record> = (1..=5).map(|s| record(s, s as usize)).collect();
        for r in &written {
            log.append(r).unwrap();
        }
        log.flush(true).unwrap();
        drop(log);
        let full = std::fs::metadata(&path).unwrap().len();
        assert_eq!(read_log(&path).unwrap().records, written);
        // Tear the last record: it is cut and the others survive.
        let file = OpenOptions::new().write(true).open(&path).unwrap();
        file.set_len(full - 3).unwrap();
        let contents = read_log(&path).unwrap();
        assert_eq!(contents.records, written[..4]);
        assert!(contents.cut_at.is_some());
        // A zero-filled tail (space allocated, never written) is cut like a torn one.
        let mut bytes = std::fs::read(&path).unwrap();
        let whole = bytes.len();
        bytes.extend_from_slice(&[0; 64]);
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(read_log(&path).unwrap().records, written[..4]);
        assert_eq!(std::fs::metadata(&path).unwrap().len() as usize, whole);
        // A damaged record with records after it is an error naming the offset, not a cut.
        let mut bytes = std::fs::read(&path).unwrap();
        let third = HEADER_BYTES
            + (0..2)
                .map(|i| 8 + body_len(&bytes, HEADER_BYTES, i))
                .sum::<usize>();
        bytes[third + 12] ^= 0xFF;
        std::fs::write(&path, &bytes).unwrap();
        match read_log(&path) {
            Err(RedoError::Corrupt { offset, .. }) => assert_eq!(offset as usize, third),
            other => panic!("expected corruption at {third}, got {other:?}"),
        }
        // A log cut short inside its header is an empty log.
        std::fs::write(&path, &MAGIC[..5]).unwrap();
        assert!(read_log(&path).unwrap().records.is_empty());
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn body_len(bytes: &[u8], start: usize, index: usize) -> usize {
        let mut at = start;
        for _ in 0..index {
            at += 8 + u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        }
        u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize
    }

    struct FailingFile;
    impl LogFile for FailingFile {
        fn append(&mut self, _: &[u8]) -> io::Result<()> {
            Ok(())
        }
        fn sync(&mut self) -> io::Result<()> {
            Err(io::Error::other("injected fsync failure"))
        }
    }

    #[test]
    fn a_failed_fsync_poisons_the_log() {
        let mut log = RedoLog::with_file(Path::new("injected"), Box::new(FailingFile));
        log.append(&record(1, 1)).unwrap();
        assert!(matches!(log.flush(true), Err(RedoError::Io { .. })));
        assert!(matches!(
            log.append(&record(2, 1)),
            Err(RedoError::Poisoned { .. })
        ));
        assert!(matches!(log.flush(false), Err(RedoError::Poisoned { .. })));
    }
}
