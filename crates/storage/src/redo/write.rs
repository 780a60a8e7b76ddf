//! The writer of one worker's log (`RedoLog`): records appended to a buffer and written out,
//! segments created, switched and recycled, fsyncs, and the poisoning that stops it after a
//! failed write or fsync.

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::file::{forget_contents, preallocate, NoFile};
use super::*;
use crate::fill_at;

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
