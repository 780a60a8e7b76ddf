//! The redo log of one worker: every committed change, written before the commit is acknowledged
//! and replayed at restart, in preallocated segment files that are recycled once a checkpoint
//! covers them. Records carry a checksum seeded with their segment's number, so a torn tail, or
//! the stale records of a recycled file, end the log; a damaged record that a later record shows
//! was durable is an error naming the file and offset.
//!
//! Files (little-endian), drawn in docs/formats/redo-log.md: `redo-<worker>-<segment>.log`, each
//! `header: magic "CAIRNRDO" (8) | version u32 | worker u32 | segment u64 | CRC-32C u32 | 0 u32`
//! then records: `body length u32 | CRC-32C(segment, body) u32 | body`
//! body: `commit sequence u64 | transaction u64 | participants u16 | synced position u64 |
//! change count u32 | changes | [kind u8 | name session u64 | name transaction u64]`; change:
//! `table u32 | partition u32 | kind u8 (1 put, 2 delete) | key length u32 | key | [row length
//! u32 | row]` (row only for put). The trailer (version 3) gives the record's kind (1 a commit,
//! 2 a prepared part of a two-phase commit, held and not applied, 3 a prepared part dropped)
//! and the name of the two-phase commit it belongs to; a record without it (all of version 2)
//! is a commit without a name.
//!
//! All file access goes through [`LogFile`], the seam where tests inject failed writes and
//! fsyncs. After any failed write or fsync the log refuses everything (fail-stop): the node must
//! not acknowledge a commit it could not make durable.

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::fill_at;

/// The first bytes of every redo segment.
pub const MAGIC: &[u8; 8] = b"CAIRNRDO";
pub const VERSION: u32 = 3;
/// The older version still read: its records are commits without names.
pub const VERSION_UNNAMED: u32 = 2;
/// Bytes of a record's trailer: kind and name.
const TRAILER_BYTES: usize = 17;
/// Bytes of a segment's header; the first record starts here.
pub const HEADER_BYTES: u64 = 32;
/// Largest record body (2 GiB): a segment grown by one record keeps its offsets within the 32
/// bits a packed position holds.
pub const RECORD_BYTES_MAX: usize = 1 << 31;
/// Smallest record body: sequence, transaction, participants, synced position and change count.
const RECORD_BODY_MIN: usize = 30;
/// Segment sizes allowed: positions keep the offset in 32 bits.
pub const SEGMENT_BYTES_MIN: u64 = 64 * 1024;
pub const SEGMENT_BYTES_MAX: u64 = 1 << 30;
/// Default segment size.
pub const SEGMENT_BYTES_DEFAULT: u64 = 64 << 20;
/// Recycled segment files kept for reuse; more are deleted.
const FREE_SEGMENTS_MAX: usize = 4;

/// A place in a worker's log: segment number and byte offset within it. Ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Position {
    pub segment: u64,
    pub offset: u64,
}

impl Position {
    /// The position as one number (segment in the high 32 bits), as records store it.
    pub fn packed(self) -> u64 {
        (self.segment << 32) | (self.offset & 0xFFFF_FFFF)
    }

    pub fn unpack(v: u64) -> Position {
        Position {
            segment: v >> 32,
            offset: v & 0xFFFF_FFFF,
        }
    }
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "segment {} offset {}", self.segment, self.offset)
    }
}

/// The file name of `worker`'s segment `segment`.
pub fn segment_path(dir: &Path, worker: u32, segment: u64) -> PathBuf {
    dir.join(format!("redo-{worker}-{segment:08}.log"))
}

/// Parses a segment file name into (worker, segment).
pub fn parse_segment_name(name: &str) -> Option<(u32, u64)> {
    let rest = name.strip_prefix("redo-")?.strip_suffix(".log")?;
    let (worker, segment) = rest.split_once('-')?;
    Some((worker.parse().ok()?, segment.parse().ok()?))
}

/// Every redo segment in `dir`: (worker, segment, path), sorted.
pub fn list_segments(dir: &Path) -> io::Result<Vec<(u32, u64, PathBuf)>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if let Some((w, s)) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(parse_segment_name)
        {
            found.push((w, s, path));
        }
    }
    found.sort();
    Ok(found)
}

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
    /// Node-wide commit order, the same in every part: a later commit of the same row has a
    /// higher number.
    pub sequence: u64,
    pub transaction: u64,
    /// How many workers hold a part of this transaction; replay applies it only when every
    /// part is in the logs.
    pub participants: u16,
    pub changes: Vec<Change>,
    pub kind: RecordKind,
    /// The two-phase commit it belongs to (its decision's name), if any.
    pub name: Option<(u64, u64)>,
}

/// What a record says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RecordKind {
    /// Committed changes, replayed at restart.
    #[default]
    Commit,
    /// A prepared part of a two-phase commit: its changes, held (not applied) until a commit
    /// or drop record of its name follows.
    Prepared,
    /// The prepared part of its name was rolled back.
    Dropped,
}

impl RecordKind {
    fn code(self) -> u8 {
        match self {
            RecordKind::Commit => 1,
            RecordKind::Prepared => 2,
            RecordKind::Dropped => 3,
        }
    }

    fn of(code: u8) -> Option<RecordKind> {
        match code {
            1 => Some(RecordKind::Commit),
            2 => Some(RecordKind::Prepared),
            3 => Some(RecordKind::Dropped),
            _ => None,
        }
    }
}

/// What a record is, besides its changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RecordHead {
    pub sequence: u64,
    pub transaction: u64,
    pub participants: u16,
    pub kind: RecordKind,
    pub name: Option<(u64, u64)>,
}

/// Storage for a segment: a real file, or a test double that fails on demand.
pub trait LogFile: Send {
    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()>;
    fn sync(&mut self) -> io::Result<()>;
}

impl LogFile for File {
    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()> {
        self.write_all_at(bytes, offset)
    }
    fn sync(&mut self) -> io::Result<()> {
        self.sync_data()
    }
}

/// A fault-injection point for the redo log's I/O: counts writes and syncs and fails the ones a
/// test chose. Shared by every log of a node, so a test can say "the third fsync fails" or "the
/// disk is full from the third write on".
#[derive(Debug, Default)]
pub struct Faults {
    /// Fail the sync with this 1-based number (0: never).
    pub fail_sync_number: std::sync::atomic::AtomicU64,
    /// Fail the write with this 1-based number, and every later one, with ENOSPC (0: never).
    pub full_from_write_number: std::sync::atomic::AtomicU64,
    /// Tear the write with this 1-based number: write half its bytes, then fail (0: never).
    pub torn_write_number: std::sync::atomic::AtomicU64,
    /// A power cut's view of the disk: writes stay in this process's memory until the file's
    /// next fsync, so a SIGKILL loses exactly what a power cut would (what no fsync covered).
    pub hold_unsynced: std::sync::atomic::AtomicBool,
    syncs: std::sync::atomic::AtomicU64,
    writes: std::sync::atomic::AtomicU64,
}

impl Faults {
    /// Faults that fail the `n`th fsync (1-based).
    pub fn fail_sync(n: u64) -> Faults {
        let faults = Faults::default();
        faults
            .fail_sync_number
            .store(n, std::sync::atomic::Ordering::SeqCst);
        faults
    }

    /// Faults that tear the `n`th record write (1-based): half of it reaches the file, as when
    /// the process dies or the machine loses power in the middle of a write.
    pub fn torn_write(n: u64) -> Faults {
        let faults = Faults::default();
        faults
            .torn_write_number
            .store(n, std::sync::atomic::Ordering::SeqCst);
        faults
    }

    /// Faults that hold every write until its file's next fsync (`hold_unsynced`).
    pub fn power_cut() -> Faults {
        let faults = Faults::default();
        faults
            .hold_unsynced
            .store(true, std::sync::atomic::Ordering::SeqCst);
        faults
    }

    /// Faults that make the disk full from the `n`th record write on (1-based).
    pub fn disk_full_from_write(n: u64) -> Faults {
        let faults = Faults::default();
        faults
            .full_from_write_number
            .store(n, std::sync::atomic::Ordering::SeqCst);
        faults
    }
}

/// A file whose syncs go through [`Faults`].
pub struct FaultyFile {
    pub file: File,
    pub faults: Arc<Faults>,
    /// Writes held until the next sync (`Faults::hold_unsynced`): offset and bytes.
    pub held: Vec<(u64, Vec<u8>)>,
}

impl FaultyFile {
    pub fn new(file: File, faults: Arc<Faults>) -> FaultyFile {
        FaultyFile {
            file,
            faults,
            held: Vec::new(),
        }
    }
}

impl LogFile for FaultyFile {
    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()> {
        use std::sync::atomic::Ordering;
        let n = self.faults.writes.fetch_add(1, Ordering::SeqCst) + 1;
        let full = self.faults.full_from_write_number.load(Ordering::SeqCst);
        if full != 0 && n >= full {
            return Err(io::Error::from_raw_os_error(libc::ENOSPC));
        }
        if n == self.faults.torn_write_number.load(Ordering::SeqCst) {
            let half = bytes.get(..bytes.len() / 2).unwrap_or_default();
            self.file.write_all_at(half, offset)?;
            return Err(io::Error::other(format!(
                "injected torn write number {n}: {} of {} bytes written",
                bytes.len() / 2,
                bytes.len()
            )));
        }
        if self.faults.hold_unsynced.load(Ordering::SeqCst) {
            self.held.push((offset, bytes.to_vec()));
            return Ok(());
        }
        self.file.write_all_at(bytes, offset)
    }
    fn sync(&mut self) -> io::Result<()> {
        use std::sync::atomic::Ordering;
        let n = self.faults.syncs.fetch_add(1, Ordering::SeqCst) + 1;
        if n == self.faults.fail_sync_number.load(Ordering::SeqCst) {
            return Err(io::Error::other(format!(
                "injected failure of fsync number {n}"
            )));
        }
        for (offset, bytes) in std::mem::take(&mut self.held) {
            self.file.write_all_at(&bytes, offset)?;
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

/// How a worker's log is laid out and where its I/O goes.
#[derive(Clone)]
pub struct LogConfig {
    pub dir: PathBuf,
    pub worker: u32,
    pub segment_bytes: u64,
    pub faults: Option<Arc<Faults>>,
}

struct Segment {
    number: u64,
    path: PathBuf,
    file: Box<dyn LogFile>,
    /// Bytes written so far (the header included).
    written: u64,
}

/// An open redo log being appended to.
pub struct RedoLog {
    config: LogConfig,
    current: Segment,
    /// Filled segments whose last writes still wait for the next fsync.
    unsynced: Vec<Segment>,
    /// Numbers of the segments still needed, oldest first (the current one last).
    live: VecDeque<u64>,
    /// Segment files a checkpoint covers, kept to be renamed and reused.
    free: Vec<PathBuf>,
    buffer: Vec<u8>,
    synced: Position,
    poisoned: Option<String>,
    written_bytes: u64,
    recycled: u64,
}

impl RedoLog {
    /// Opens the log of a worker where [`read_log`] found its end (`end`: None for a worker
    /// without segments), creating the first segment if needed. `free` are segment files that
    /// may be reused.
    pub fn open(
        config: LogConfig,
        end: Option<Position>,
        live: Vec<u64>,
        free: Vec<PathBuf>,
    ) -> Result<RedoLog, RedoError> {
        let first = end.map_or(1, |e| e.segment);
        let mut log = RedoLog {
            current: Segment {
                number: first,
                path: segment_path(&config.dir, config.worker, first),
                file: Box::new(NoFile),
                written: HEADER_BYTES,
            },
            config,
            unsynced: Vec::new(),
            live: VecDeque::new(),
            free,
            buffer: Vec::with_capacity(64 * 1024),
            synced: Position::default(),
            poisoned: None,
            written_bytes: 0,
            recycled: 0,
        };
        match end {
            Some(end) => {
                // What an earlier run wrote may sit only in the page cache: records written from
                // now on claim everything before them durable, so make it so. The segments stay
                // live until a checkpoint covers them.
                for &number in live.iter().filter(|n| **n < end.segment) {
                    let path = segment_path(&log.config.dir, log.config.worker, number);
                    let io_error = |source| RedoError::Io {
                        path: path.clone(),
                        source,
                    };
                    File::open(&path)
                        .and_then(|f| f.sync_all())
                        .map_err(io_error)?;
                    log.live.push_back(number);
                }
                let path = segment_path(&log.config.dir, log.config.worker, end.segment);
                let file = OpenOptions::new()
                    .read(true)
                    .write(true)
                    .open(&path)
                    .map_err(|source| RedoError::Io {
                        path: path.clone(),
                        source,
                    })?;
                if end.offset <= HEADER_BYTES {
                    // The header never reached the disk: write it again.
                    let header = segment_header(log.config.worker, end.segment);
                    file.write_all_at(&header, 0)
                        .map_err(|source| RedoError::Io {
                            path: path.clone(),
                            source,
                        })?;
                }
                file.sync_all().map_err(|source| RedoError::Io {
                    path: path.clone(),
                    source,
                })?;
                log.current = Segment {
                    number: end.segment,
                    file: log.wrap(file),
                    path,
                    written: end.offset.max(HEADER_BYTES),
                };
                log.live.push_back(end.segment);
            }
            None => {
                log.current = log
                    .new_segment(first)
                    .map_err(|(path, source)| RedoError::Io { path, source })?;
                log.live.push_back(first);
            }
        }
        log.synced = log.position();
        Ok(log)
    }

    /// A log writing its first segment to `file` (tests inject failures here).
    pub fn with_file(path: &Path, file: Box<dyn LogFile>) -> RedoLog {
        RedoLog {
            config: LogConfig {
                dir: path.parent().unwrap_or(Path::new(".")).to_path_buf(),
                worker: 0,
                segment_bytes: SEGMENT_BYTES_MAX,
                faults: None,
            },
            current: Segment {
                number: 1,
                path: path.to_path_buf(),
                file,
                written: HEADER_BYTES,
            },
            unsynced: Vec::new(),
            live: VecDeque::from([1]),
            free: Vec::new(),
            buffer: Vec::new(),
            synced: Position {
                segment: 1,
                offset: HEADER_BYTES,
            },
            poisoned: None,
            written_bytes: 0,
            recycled: 0,
        }
    }

    fn wrap(&self, file: File) -> Box<dyn LogFile> {
        match &self.config.faults {
            Some(faults) => Box::new(FaultyFile::new(file, faults.clone())),
            None => Box::new(file),
        }
    }

    /// Creates segment `number`, reusing a free file if there is one (its stale records fail
    /// the new number's checksums), else a new preallocated one. The header is written and
    /// fsynced before a reused file takes its new name, so a file under a segment's name always
    /// has that segment's header; then the directory is fsynced, so the name survives a power cut.
    fn new_segment(&mut self, number: u64) -> Result<Segment, (PathBuf, io::Error)> {
        let path = segment_path(&self.config.dir, self.config.worker, number);
        let with_path = |e| (path.clone(), e);
        let file = match self.free.pop() {
            Some(old) => {
                let file = OpenOptions::new()
                    .read(true)
                    .write(true)
                    .open(&old)
                    .map_err(with_path)?;
                forget_contents(&file).map_err(with_path)?;
                file.write_all_at(&segment_header(self.config.worker, number), 0)
                    .map_err(with_path)?;
                file.sync_all().map_err(with_path)?;
                std::fs::rename(&old, &path).map_err(with_path)?;
                self.recycled += 1;
                file
            }
            None => {
                let file = OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .open(&path)
                    .map_err(with_path)?;
                preallocate(&file, self.config.segment_bytes).map_err(with_path)?;
                file
            }
        };
        file.write_all_at(&segment_header(self.config.worker, number), 0)
            .map_err(with_path)?;
        file.sync_all().map_err(with_path)?;
        sync_directory(&path).map_err(with_path)?;
        Ok(Segment {
            number,
            file: self.wrap(file),
            path,
            written: HEADER_BYTES,
        })
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
            RecordHead {
                sequence: record.sequence,
                transaction: record.transaction,
                participants: record.participants,
                kind: record.kind,
                name: record.name,
            },
            changes,
        )
    }

    /// Adds a record made of borrowed changes (no copy of the rows before they are written).
    /// When the record does not fit the current segment, what is buffered is written there and
    /// the record starts the next segment.
    pub fn append_changes<'a>(
        &mut self,
        head: RecordHead,
        changes: impl Iterator<Item = ChangeRef<'a>>,
    ) -> Result<(), RedoError> {
        self.check()?;
        let mut start = self.buffer.len();
        self.buffer.extend_from_slice(&[0; 8]);
        self.buffer.extend_from_slice(&head.sequence.to_le_bytes());
        self.buffer
            .extend_from_slice(&head.transaction.to_le_bytes());
        self.buffer
            .extend_from_slice(&head.participants.to_le_bytes());
        self.buffer
            .extend_from_slice(&self.synced.packed().to_le_bytes());
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
        fill_at(&mut self.buffer, count_at, &count.to_le_bytes());
        if head.kind != RecordKind::Commit || head.name.is_some() {
            let (session, transaction) = head.name.unwrap_or_default();
            self.buffer.push(head.kind.code());
            self.buffer.extend_from_slice(&session.to_le_bytes());
            self.buffer.extend_from_slice(&transaction.to_le_bytes());
        }
        let body_bytes = self.buffer.len() - start - 8;
        if body_bytes > RECORD_BYTES_MAX {
            self.buffer.truncate(start);
            return Err(RedoError::Corrupt {
                path: self.current.path.clone(),
                offset: self.current.written,
                what: format!("a record of {body_bytes} bytes exceeds {RECORD_BYTES_MAX}"),
            });
        }
        // A record larger than a segment gets a segment of its own, grown past the usual size.
        let has_records = self.current.written + start as u64 > HEADER_BYTES;
        if has_records
            && self.current.written + self.buffer.len() as u64 > self.config.segment_bytes
        {
            let record = self.buffer.split_off(start);
            self.rotate()?;
            self.buffer = record;
            start = 0;
        }
        let crc = crc32c::crc32c_append(
            crc32c::crc32c(&self.current.number.to_le_bytes()),
            self.buffer.get(start + 8..).unwrap_or_default(),
        );
        fill_at(&mut self.buffer, start, &(body_bytes as u32).to_le_bytes());
        fill_at(&mut self.buffer, start + 4, &crc.to_le_bytes());
        Ok(())
    }

    /// Writes the buffer to the current segment and moves to the next one; the filled one is
    /// fsynced with the next flush that syncs.
    fn rotate(&mut self) -> Result<(), RedoError> {
        self.write_buffer()?;
        let next = self.current.number + 1;
        let segment = match self.new_segment(next) {
            Ok(s) => s,
            Err((path, e)) => {
                let why = format!("{}: {e}", path.display());
                self.poisoned = Some(why);
                return Err(RedoError::Io { path, source: e });
            }
        };
        // The end marker: whatever follows in a reused file (perhaps made larger under another
        // segment size) is not read as records.
        if let Err(e) = self.current.file.write_at(self.current.written, &[0; 8]) {
            return Err(self.poison(e));
        }
        let filled = std::mem::replace(&mut self.current, segment);
        self.unsynced.push(filled);
        self.live.push_back(next);
        Ok(())
    }

    fn write_buffer(&mut self) -> Result<(), RedoError> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        if let Err(e) = self
            .current
            .file
            .write_at(self.current.written, &self.buffer)
        {
            let e = io::Error::new(
                e.kind(),
                format!(
                    "writing {} bytes at byte {}: {e}",
                    self.buffer.len(),
                    self.current.written
                ),
            );
            return Err(self.poison(e));
        }
        self.current.written += self.buffer.len() as u64;
        self.written_bytes += self.buffer.len() as u64;
        self.buffer.clear();
        Ok(())
    }

    /// True when records wait in the buffer.
    pub fn has_pending(&self) -> bool {
        !self.buffer.is_empty()
    }

    /// Writes the buffered records; with `sync`, also makes them (and every earlier write)
    /// durable. Any failure poisons the log.
    pub fn flush(&mut self, sync: bool) -> Result<(), RedoError> {
        self.check()?;
        self.write_buffer()?;
        if sync {
            for mut old in std::mem::take(&mut self.unsynced) {
                if let Err(e) = old.file.sync() {
                    self.current.path = old.path;
                    return Err(self.poison(e));
                }
            }
            if let Err(e) = self.current.file.sync() {
                return Err(self.poison(e));
            }
            let synced = self.position();
            // Records are only ever appended: a durable point never moves back.
            assert!(
                synced >= self.synced,
                "redo: synced position moved back from {} to {synced}",
                self.synced
            );
            self.synced = synced;
        }
        Ok(())
    }

    /// Where the next record will start: every record appended so far lies before it.
    pub fn position(&self) -> Position {
        Position {
            segment: self.current.number,
            offset: self.current.written + self.buffer.len() as u64,
        }
    }

    /// A checkpoint covers everything before `upto`: segments wholly before it become free,
    /// to be reused as later segments (a few are kept; the rest are deleted).
    pub fn release(&mut self, upto: Position) {
        // A checkpoint covers only records the log has been given.
        assert!(
            upto <= self.position(),
            "redo: a checkpoint covers {upto}, past the log's end {}",
            self.position()
        );
        while self.live.len() > 1 && self.live.front().is_some_and(|s| *s < upto.segment) {
            let Some(number) = self.live.pop_front() else {
                break;
            };
            let path = segment_path(&self.config.dir, self.config.worker, number);
            if self.free.len() < FREE_SEGMENTS_MAX {
                self.free.push(path);
            } else {
                // A file left behind is harmless: the next restart treats it as free.
                let _ = std::fs::remove_file(&path);
            }
        }
    }

    /// Bytes written to the segments since the log was opened.
    pub fn written_bytes(&self) -> u64 {
        self.written_bytes
    }

    /// Segment files reused so far.
    pub fn recycled(&self) -> u64 {
        self.recycled
    }

    /// Segments still needed (not yet covered by a checkpoint).
    pub fn live_segments(&self) -> usize {
        self.live.len()
    }

    fn check(&self) -> Result<(), RedoError> {
        match &self.poisoned {
            Some(why) => Err(RedoError::Poisoned {
                path: self.current.path.clone(),
                why: why.clone(),
            }),
            None => Ok(()),
        }
    }

    fn poison(&mut self, e: io::Error) -> RedoError {
        self.poisoned = Some(e.to_string());
        RedoError::Io {
            path: self.current.path.clone(),
            source: e,
        }
    }
}

/// A placeholder file before the first segment is opened.
struct NoFile;

impl LogFile for NoFile {
    fn write_at(&mut self, _: u64, _: &[u8]) -> io::Result<()> {
        Err(io::Error::other("no segment open"))
    }
    fn sync(&mut self) -> io::Result<()> {
        Err(io::Error::other("no segment open"))
    }
}

fn segment_header(worker: u32, segment: u64) -> [u8; HEADER_BYTES as usize] {
    let mut h = [0u8; HEADER_BYTES as usize];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&worker.to_le_bytes());
    h[16..24].copy_from_slice(&segment.to_le_bytes());
    let crc = crc32c::crc32c(&h[..24]);
    h[24..28].copy_from_slice(&crc.to_le_bytes());
    h
}

/// Reserves `bytes` of disk for a new segment, so appends do not grow the file (and a full disk
/// shows up here, at a segment switch, rather than in the middle of a commit's write).
fn preallocate(file: &File, bytes: u64) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: posix_fallocate only reads its integer arguments; the descriptor is open.
    let rc = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, bytes as libc::off_t) };
    match rc {
        0 => Ok(()),
        // File systems without fallocate: a sparse file still works, only fsyncs cost more.
        libc::EOPNOTSUPP | libc::EINVAL => file.set_len(bytes),
        e => Err(io::Error::from_raw_os_error(e)),
    }
}

/// Makes a reused segment file read as zeros again without writing them (FALLOC_FL_ZERO_RANGE:
/// its blocks become unwritten extents) and drops its cached pages. Besides removing the stale
/// records, this matters for speed: the kernel caches a file written in one stream in large
/// folios (up to 2 MiB), and a small append into one dirties, and the next fsync writes, the
/// whole folio. On file systems without zero-range the cached pages are only dropped.
fn forget_contents(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let len = file.metadata()?.len() as libc::off_t;
    // SAFETY: fallocate and posix_fadvise only read their integer arguments; the fd is open.
    let rc = unsafe { libc::fallocate(file.as_raw_fd(), libc::FALLOC_FL_ZERO_RANGE, 0, len) };
    if rc != 0 {
        let e = io::Error::last_os_error();
        if !matches!(
            e.raw_os_error(),
            Some(libc::EOPNOTSUPP) | Some(libc::EINVAL)
        ) {
            return Err(e);
        }
        file.sync_data()?;
        drop_cache(file);
    }
    Ok(())
}

/// Drops a file's clean cached pages (advice only; errors are ignored), so later small writes
/// do not land in the large folios a sequential read or write left (see [`forget_contents`]).
fn drop_cache(file: &File) {
    use std::os::fd::AsRawFd;
    // SAFETY: posix_fadvise only reads its integer arguments; the fd is open.
    unsafe {
        libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED);
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
            kind: RecordKind::Commit,
            name: None,
        }
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cairn-redo-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn config(dir: &Path, segment_bytes: u64) -> LogConfig {
        LogConfig {
            dir: dir.to_path_buf(),
            worker: 0,
            segment_bytes,
            faults: None,
        }
    }

    fn open(dir: &Path, segment_bytes: u64) -> (RedoLog, Vec<Record>) {
        open_from(dir, segment_bytes, Position::default())
    }

    fn open_from(dir: &Path, segment_bytes: u64, from: Position) -> (RedoLog, Vec<Record>) {
        let contents = read_log(dir, 0, from).unwrap();
        let log = RedoLog::open(
            config(dir, segment_bytes),
            contents.end,
            contents.live,
            contents.free,
        )
        .unwrap();
        (log, contents.records)
    }

    /// Flips bits of the byte at `offset` in worker 0's segment 1.
    fn flip(dir: &Path, offset: usize, mask: u8) {
        let path = segment_path(dir, 0, 1);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[offset] ^= mask;
        std::fs::write(&path, &bytes).unwrap();
    }

    /// Reading the log must fail with damage at `offset`.
    fn expect_corrupt_at(dir: &Path, offset: u64) {
        match read_log(dir, 0, Position::default()) {
            Err(RedoError::Corrupt { offset: at, .. }) => assert_eq!(at, offset),
            other => panic!("expected corruption at {offset}, got {other:?}"),
        }
    }

    #[test]
    fn prepared_dropped_and_named_records_round_trip_and_version_2_logs_are_read() {
        let dir = temp_dir("kinds");
        let (mut log, _) = open(&dir, SEGMENT_BYTES_MIN);
        let name = Some((0xC0DE_0000_0000_0003, 77));
        let written = vec![
            Record {
                kind: RecordKind::Prepared,
                name,
                ..record(1, 3)
            },
            Record {
                kind: RecordKind::Dropped,
                name,
                ..record(2, 0)
            },
            Record {
                name,
                ..record(3, 2)
            },
            record(4, 1),
        ];
        for r in &written {
            log.append(r).unwrap();
        }
        log.flush(true).unwrap();
        drop(log);
        assert_eq!(
            read_log(&dir, 0, Position::default()).unwrap().records,
            written
        );
        // A log of the version before names: its header says 2, and its records (all without
        // a trailer, as that version wrote them) are commits without names.
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (mut log, _) = open(&dir, SEGMENT_BYTES_MIN);
        let old: Vec<Record> = (1..=3).map(|s| record(s, 2)).collect();
        for r in &old {
            log.append(r).unwrap();
        }
        log.flush(true).unwrap();
        drop(log);
        let path = segment_path(&dir, 0, 1);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[8..12].copy_from_slice(&VERSION_UNNAMED.to_le_bytes());
        let crc = crc32c::crc32c(&bytes[..24]);
        bytes[24..28].copy_from_slice(&crc.to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(read_log(&dir, 0, Position::default()).unwrap().records, old);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn records_round_trip_and_a_torn_tail_is_cut() {
        let dir = temp_dir("torn");
        let (mut log, found) = open(&dir, SEGMENT_BYTES_MIN);
        assert!(found.is_empty());
        let written: Vec<Record> = (1..=5).map(|s| record(s, s as usize)).collect();
        for r in &written {
            log.append(r).unwrap();
        }
        log.flush(true).unwrap();
        let end = log.position();
        drop(log);
        let path = segment_path(&dir, 0, 1);
        assert_eq!(
            read_log(&dir, 0, Position::default()).unwrap().records,
            written
        );
        // Tear the last record: it is cut (zeroed) and the others survive.
        flip(&dir, end.offset as usize - 3, 0x55);
        let contents = read_log(&dir, 0, Position::default()).unwrap();
        assert_eq!(contents.records, written[..4]);
        let cut = contents.cut_at.unwrap().1;
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes[cut as usize..].iter().all(|b| *b == 0));
        // Appending after the cut, then reading again, finds old and new records.
        let (mut log, found) = open(&dir, SEGMENT_BYTES_MIN);
        assert_eq!(found, written[..4]);
        log.append(&record(9, 2)).unwrap();
        log.flush(true).unwrap();
        drop(log);
        let again = read_log(&dir, 0, Position::default()).unwrap().records;
        assert_eq!(again.len(), 5);
        assert_eq!(again[4], record(9, 2));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_damaged_record_that_was_fsynced_is_an_error() {
        let dir = temp_dir("damage");
        let (mut log, _) = open(&dir, SEGMENT_BYTES_MIN);
        log.append(&record(1, 2)).unwrap();
        log.flush(true).unwrap();
        let second = log.position();
        log.append(&record(2, 2)).unwrap();
        log.flush(true).unwrap();
        log.append(&record(3, 2)).unwrap();
        log.flush(true).unwrap();
        drop(log);
        flip(&dir, second.offset as usize + 40, 0xFF);
        expect_corrupt_at(&dir, second.offset);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn damage_in_a_batch_is_found_by_a_record_of_a_later_batch() {
        // Records 1 and 2 share one write and one fsync; record 3 comes in the next batch and
        // carries a synced position past both, so damage to record 1 is an error, not a tail.
        let dir = temp_dir("batch");
        let (mut log, _) = open(&dir, SEGMENT_BYTES_MIN);
        let first = log.position();
        log.append(&record(1, 2)).unwrap();
        log.append(&record(2, 2)).unwrap();
        log.flush(true).unwrap();
        log.append(&record(3, 2)).unwrap();
        log.flush(true).unwrap();
        drop(log);
        flip(&dir, first.offset as usize + 40, 0xFF);
        expect_corrupt_at(&dir, first.offset);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_record_larger_than_a_segment_gets_one_of_its_own() {
        let dir = temp_dir("large");
        let (mut log, _) = open(&dir, SEGMENT_BYTES_MIN);
        let small = record(1, 2);
        let large = Record {
            sequence: 2,
            transaction: 20,
            participants: 1,
            changes: vec![Change {
                table: 1,
                partition: 0,
                key: vec![1; 8],
                row: Some(vec![9u8; 3 * SEGMENT_BYTES_MIN as usize].into_boxed_slice()),
            }],
            kind: RecordKind::Commit,
            name: None,
        };
        let after = record(3, 2);
        for r in [&small, &large, &after] {
            log.append(r).unwrap();
        }
        log.flush(true).unwrap();
        drop(log);
        let contents = read_log(&dir, 0, Position::default()).unwrap();
        assert_eq!(contents.records, vec![small, large, after]);
        assert_eq!(contents.live, vec![1, 2, 3]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_record_that_passes_its_checksum_but_does_not_parse_is_an_error() {
        let dir = temp_dir("broken");
        let (mut log, _) = open(&dir, SEGMENT_BYTES_MIN);
        let at = log.position();
        log.flush(true).unwrap();
        drop(log);
        // A body with a change of kind 9, checksummed with the segment's seed.
        let mut body = Vec::new();
        body.extend_from_slice(&1u64.to_le_bytes());
        body.extend_from_slice(&1u64.to_le_bytes());
        body.extend_from_slice(&1u16.to_le_bytes());
        body.extend_from_slice(&0u64.to_le_bytes());
        body.extend_from_slice(&1u32.to_le_bytes());
        body.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0]);
        let crc = crc32c::crc32c_append(crc32c::crc32c(&1u64.to_le_bytes()), &body);
        let mut framed = (body.len() as u32).to_le_bytes().to_vec();
        framed.extend_from_slice(&crc.to_le_bytes());
        framed.extend_from_slice(&body);
        let file = OpenOptions::new()
            .write(true)
            .open(segment_path(&dir, 0, 1))
            .unwrap();
        file.write_all_at(&framed, at.offset).unwrap();
        let err = read_log(&dir, 0, Position::default()).unwrap_err();
        assert!(err.to_string().contains("does not parse"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unsynced_batch_written_out_of_order_is_a_torn_tail() {
        // Two records written in one unsynced write: a power cut may keep the second and lose
        // the first. The second's synced position predates the first, so this is a tail.
        let dir = temp_dir("unsynced");
        let (mut log, _) = open(&dir, SEGMENT_BYTES_MIN);
        log.append(&record(1, 1)).unwrap();
        log.flush(true).unwrap();
        let first = log.position();
        log.append(&record(2, 1)).unwrap();
        log.append(&record(3, 1)).unwrap();
        log.flush(false).unwrap();
        drop(log);
        flip(&dir, first.offset as usize + 30, 0xFF);
        let contents = read_log(&dir, 0, Position::default()).unwrap();
        assert_eq!(contents.records, vec![record(1, 1)]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn segments_rotate_are_recycled_and_stale_records_are_not_read() {
        let dir = temp_dir("segments");
        let (mut log, _) = open(&dir, SEGMENT_BYTES_MIN);
        let mut written = Vec::new();
        for s in 1..=800 {
            let r = record(s, 6);
            log.append(&r).unwrap();
            written.push(r);
            if s % 7 == 0 {
                log.flush(true).unwrap();
            }
        }
        log.flush(true).unwrap();
        assert!(log.live_segments() >= 3, "{} segments", log.live_segments());
        assert_eq!(
            read_log(&dir, 0, Position::default()).unwrap().records,
            written
        );
        // A checkpoint covers everything so far: older segments become free and are reused.
        let mark = log.position();
        log.release(mark);
        assert_eq!(log.live_segments(), 1);
        let mut after = Vec::new();
        for s in 801..=1100 {
            let r = record(s, 6);
            log.append(&r).unwrap();
            after.push(r);
        }
        log.flush(true).unwrap();
        assert!(log.recycled() >= 1);
        let end = log.position();
        drop(log);
        let contents = read_log(&dir, 0, mark).unwrap();
        assert_eq!(contents.records, after);
        assert_eq!(contents.end, Some(end));
        // The recycled files held old records; none of them is read as new.
        let (mut log, found) = open_from(&dir, SEGMENT_BYTES_MIN, mark);
        assert_eq!(found, after);
        log.append(&record(999, 1)).unwrap();
        log.flush(true).unwrap();
        drop(log);
        let last = read_log(&dir, 0, mark).unwrap().records;
        assert_eq!(last.last(), Some(&record(999, 1)));
        assert_eq!(last.len(), after.len() + 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_missing_segment_is_an_error() {
        let dir = temp_dir("missing");
        let (mut log, _) = open(&dir, SEGMENT_BYTES_MIN);
        for s in 1..=800 {
            log.append(&record(s, 6)).unwrap();
        }
        log.flush(true).unwrap();
        drop(log);
        std::fs::remove_file(segment_path(&dir, 0, 2)).unwrap();
        let err = read_log(&dir, 0, Position::default()).unwrap_err();
        assert!(err.to_string().contains("segment missing"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    struct FailingFile;
    impl LogFile for FailingFile {
        fn write_at(&mut self, _: u64, _: &[u8]) -> io::Result<()> {
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
