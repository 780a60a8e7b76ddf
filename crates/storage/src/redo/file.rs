//! The files under the log: the `LogFile` seam where tests inject failed writes and fsyncs
//! (`Faults`, `FaultyFile`), and the file-system calls the writer and the reader make
//! (preallocation, recycling a file's blocks, dropping cached pages, fsyncing a directory).

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

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

/// A placeholder file before the first segment is opened.
pub(super) struct NoFile;

impl LogFile for NoFile {
    fn write_at(&mut self, _: u64, _: &[u8]) -> io::Result<()> {
        Err(io::Error::other("no segment open"))
    }
    fn sync(&mut self) -> io::Result<()> {
        Err(io::Error::other("no segment open"))
    }
}

/// Reserves `bytes` of disk for a new segment, so appends do not grow the file (and a full disk
/// shows up here, at a segment switch, rather than in the middle of a commit's write).
pub(super) fn preallocate(file: &File, bytes: u64) -> io::Result<()> {
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
pub(super) fn forget_contents(file: &File) -> io::Result<()> {
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
pub(super) fn drop_cache(file: &File) {
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
