//! Checkpoint files: one worker's share of one local checkpoint, a header and then checksummed
//! blocks of rows (or, in a partial checkpoint, also of deleted keys), ended by an end block that
//! counts them. Worker threads build blocks ([`BlockBuilder`]); another thread appends them to
//! the file ([`CheckpointFile`]); a restart reads them back ([`read_checkpoint`]).
//!
//! Layout (little-endian), drawn in docs/formats/redo-log.md:
//! `header: magic "CAIRNLCP" (8) | version u32 | worker u32 | checkpoint id u64 | CRC-32C u32 | 0 u32`
//! then blocks: `body length u32 | CRC-32C of body u32 | body`;
//! body: `kind u8 (1 rows, 2 deleted keys, 3 end) | table u32 | partition u32 | count u32 |
//! count × (length u32 | bytes)`; the end block's body is `3 | 0 | 0 | partitions n | entries u64 |
//! blocks u64 | n × (table u32 | partition u32 | rows u64)` (the directory: rows per partition,
//! so a restart sizes each partition once), and the file ends with the end block's offset (u64).

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::fill_at;

pub const MAGIC: &[u8; 8] = b"CAIRNLCP";
pub const VERSION: u32 = 1;
pub const HEADER_BYTES: usize = 32;
/// A block is sealed once it holds this many bytes.
pub const BLOCK_BYTES_TARGET: usize = 256 * 1024;
/// The reader refuses a block length above this (a row is at most a frame's worth).
pub const BLOCK_BYTES_MAX: usize = 64 << 20;
const BLOCK_HEAD: usize = 13;

/// What a block holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    /// Row images.
    Rows = 1,
    /// Encoded primary keys of rows deleted since the previous checkpoint (partial only).
    Deleted = 2,
    End = 3,
}

/// The file name of worker `worker`'s part of checkpoint `id`.
pub fn file_path(dir: &Path, id: u64, worker: u32) -> PathBuf {
    dir.join(format!("lcp-{id:08}-{worker}.ckpt"))
}

/// Builds blocks from rows and keys; what it has built is taken as one byte chunk to append.
#[derive(Default)]
pub struct BlockBuilder {
    out: Vec<u8>,
    /// Start of the open block in `out`, and what it holds.
    open: Option<(usize, BlockKind, u32, u32, u32)>,
    entries: u64,
    blocks: u64,
    /// Row entries per (table, partition).
    rows: BTreeMap<(u32, u32), u64>,
}

/// Rows per partition in a file: (table, partition, rows).
pub type Directory = Vec<(u32, u32, u64)>;

impl BlockBuilder {
    pub fn new() -> BlockBuilder {
        BlockBuilder::default()
    }

    /// Adds one entry (a row or a key) for `table`'s `partition`.
    pub fn push(&mut self, kind: BlockKind, table: u32, partition: u32, bytes: &[u8]) {
        let reuse = matches!(self.open, Some((start, k, t, p, _))
            if k == kind && t == table && p == partition && self.out.len() - start < BLOCK_BYTES_TARGET);
        if !reuse {
            self.seal();
            let start = self.out.len();
            self.out.extend_from_slice(&[0; 8]);
            self.out.push(kind as u8);
            self.out.extend_from_slice(&table.to_le_bytes());
            self.out.extend_from_slice(&partition.to_le_bytes());
            self.out.extend_from_slice(&0u32.to_le_bytes());
            self.open = Some((start, kind, table, partition, 0));
        }
        self.out
            .extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        self.out.extend_from_slice(bytes);
        if let Some(open) = &mut self.open {
            open.4 += 1;
        }
        if kind == BlockKind::Rows {
            *self.rows.entry((table, partition)).or_default() += 1;
        }
        self.entries += 1;
    }

    fn seal(&mut self) {
        if let Some((start, _, _, _, count)) = self.open.take() {
            fill_at(&mut self.out, start + 8 + 9, &count.to_le_bytes());
            let body = self.out.get(start + 8..).unwrap_or_default();
            let crc = crc32c::crc32c(body);
            let len = body.len() as u32;
            fill_at(&mut self.out, start, &len.to_le_bytes());
            fill_at(&mut self.out, start + 4, &crc.to_le_bytes());
            self.blocks += 1;
        }
    }

    /// Bytes built so far (sealed or not).
    pub fn len(&self) -> usize {
        self.out.len()
    }

    pub fn is_empty(&self) -> bool {
        self.out.is_empty()
    }

    /// Seals the open block and hands over everything built.
    pub fn take(&mut self) -> Vec<u8> {
        self.seal();
        std::mem::take(&mut self.out)
    }

    /// Entries and blocks built since the builder was made.
    pub fn totals(&self) -> (u64, u64) {
        (self.entries, self.blocks)
    }

    /// Rows built per partition.
    pub fn directory(&self) -> Directory {
        self.rows.iter().map(|(&(t, p), &n)| (t, p, n)).collect()
    }
}

/// A checkpoint file being written.
pub struct CheckpointFile {
    path: PathBuf,
    file: File,
    bytes: u64,
}

impl CheckpointFile {
    /// Creates the file (replacing a leftover of an abandoned attempt) and writes its header.
    pub fn create(dir: &Path, id: u64, worker: u32) -> io::Result<CheckpointFile> {
        let path = file_path(dir, id, worker);
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)?;
        let mut header = [0u8; HEADER_BYTES];
        header[..8].copy_from_slice(MAGIC);
        header[8..12].copy_from_slice(&VERSION.to_le_bytes());
        header[12..16].copy_from_slice(&worker.to_le_bytes());
        header[16..24].copy_from_slice(&id.to_le_bytes());
        let crc = crc32c::crc32c(&header[..24]);
        header[24..28].copy_from_slice(&crc.to_le_bytes());
        file.write_all(&header)?;
        Ok(CheckpointFile {
            path,
            file,
            bytes: HEADER_BYTES as u64,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends blocks a [`BlockBuilder`] made.
    pub fn append(&mut self, chunk: &[u8]) -> io::Result<()> {
        self.file.write_all(chunk)?;
        self.bytes += chunk.len() as u64;
        Ok(())
    }

    /// Writes the end block (with the directory) and its offset, and fsyncs the file; returns
    /// its size. The file's name is made durable by whoever publishes the checkpoint (the
    /// manifest's directory fsync).
    pub fn finish(
        mut self,
        entries: u64,
        blocks: u64,
        directory: &[(u32, u32, u64)],
    ) -> io::Result<u64> {
        let mut body = Vec::with_capacity(BLOCK_HEAD + 16 + 16 * directory.len());
        body.push(BlockKind::End as u8);
        body.extend_from_slice(&[0; 8]);
        body.extend_from_slice(&(directory.len() as u32).to_le_bytes());
        body.extend_from_slice(&entries.to_le_bytes());
        body.extend_from_slice(&blocks.to_le_bytes());
        for (table, partition, rows) in directory {
            body.extend_from_slice(&table.to_le_bytes());
            body.extend_from_slice(&partition.to_le_bytes());
            body.extend_from_slice(&rows.to_le_bytes());
        }
        let end_at = self.bytes;
        let mut block = Vec::with_capacity(16 + body.len());
        block.extend_from_slice(&(body.len() as u32).to_le_bytes());
        block.extend_from_slice(&crc32c::crc32c(&body).to_le_bytes());
        block.extend_from_slice(&body);
        block.extend_from_slice(&end_at.to_le_bytes());
        self.append(&block)?;
        self.file.sync_all()?;
        Ok(self.bytes)
    }
}

/// Why a checkpoint file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("checkpoint file {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("checkpoint file {path} at byte {offset}: {what}")]
    Corrupt {
        path: PathBuf,
        offset: u64,
        what: String,
    },
}

/// One block as the reader hands it over, its entries copied out (rows ready to store).
pub struct Block {
    pub kind: BlockKind,
    pub table: u32,
    pub partition: u32,
    pub entries: Vec<Box<[u8]>>,
}

/// Blocks read ahead of the one being applied.
const READ_AHEAD_BLOCKS: usize = 8;

/// Reads a whole checkpoint file: first its directory (handed to `directory`, so partitions can
/// be sized), then every block in file order (handed to `visit`). A second thread reads, checks
/// and copies out the blocks while this one applies them. Every check failure names the file
/// and the offset: a bad header, a missing or damaged end block (a file cut short), a block whose
/// checksum fails or whose entries overrun it, counts that disagree.
pub fn read_checkpoint(
    path: &Path,
    worker: u32,
    id: u64,
    directory: impl FnOnce(&[(u32, u32, u64)]),
    mut visit: impl FnMut(Block) -> Result<(), String>,
) -> Result<(u64, u64), CheckpointError> {
    let io_error = |source| CheckpointError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = File::open(path).map_err(io_error)?;
    let (end_at, end) = read_end(path, &mut file, worker, id)?;
    directory(&end.directory);
    file.seek(SeekFrom::Start(HEADER_BYTES as u64))
        .map_err(io_error)?;
    let (tx, rx) =
        std::sync::mpsc::sync_channel::<Result<(u64, Block), CheckpointError>>(READ_AHEAD_BLOCKS);
    let reader_path = path.to_path_buf();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let mut offset = HEADER_BYTES as u64;
            while offset < end_at {
                let block = read_block(&reader_path, &mut file, offset);
                let stop = block.is_err();
                let next = block.as_ref().map_or(0, |(len, _)| *len);
                if tx.send(block.map(|(_, b)| (offset, b))).is_err() || stop {
                    return;
                }
                offset += next;
            }
        });
        let (mut entries, mut blocks) = (0u64, 0u64);
        for item in rx {
            let (offset, block) = item?;
            entries += block.entries.len() as u64;
            blocks += 1;
            visit(block).map_err(|what| CheckpointError::Corrupt {
                path: path.to_path_buf(),
                offset,
                what,
            })?;
        }
        if entries != end.entries || blocks != end.blocks {
            return Err(CheckpointError::Corrupt {
                path: path.to_path_buf(),
                offset: end_at,
                what: format!(
                    "end block counts {} entries in {} blocks, the file holds {entries} in {blocks}",
                    end.entries, end.blocks
                ),
            });
        }
        Ok((entries, blocks))
    })
}

/// The rows per partition a checkpoint file holds, from its end block (headers checked).
pub fn read_directory(path: &Path, worker: u32, id: u64) -> Result<Directory, CheckpointError> {
    let mut file = File::open(path).map_err(|source| CheckpointError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(read_end(path, &mut file, worker, id)?.1.directory)
}

struct End {
    entries: u64,
    blocks: u64,
    directory: Directory,
}

/// Checks the header and reads the end block through the offset the file ends with.
fn read_end(
    path: &Path,
    file: &mut File,
    worker: u32,
    id: u64,
) -> Result<(u64, End), CheckpointError> {
    let io_error = |source| CheckpointError::Io {
        path: path.to_path_buf(),
        source,
    };
    let corrupt = |offset: u64, what: String| CheckpointError::Corrupt {
        path: path.to_path_buf(),
        offset,
        what,
    };
    let mut header = [0u8; HEADER_BYTES];
    read_exact_or(file, &mut header)
        .map_err(io_error)?
        .then_some(())
        .ok_or_else(|| corrupt(0, "file shorter than its header".into()))?;
    if &header[..8] != MAGIC
        || crc32c::crc32c(&header[..24])
            != u32::from_le_bytes([header[24], header[25], header[26], header[27]])
    {
        return Err(corrupt(
            0,
            "not a Cairn checkpoint file (bad header)".into(),
        ));
    }
    let version = u32::from_le_bytes([header[8], header[9], header[10], header[11]]);
    if version != VERSION {
        return Err(corrupt(
            8,
            format!("unsupported checkpoint version {version}"),
        ));
    }
    let w = u32::from_le_bytes([header[12], header[13], header[14], header[15]]);
    let i = u64::from_le_bytes(header[16..24].try_into().unwrap_or_default());
    if w != worker || i != id {
        return Err(corrupt(
            12,
            format!(
                "header names worker {w} checkpoint {i}, expected worker {worker} checkpoint {id}"
            ),
        ));
    }
    let length = file.metadata().map_err(io_error)?.len();
    let cut_short = |offset| corrupt(offset, "file ends without its end block (cut short)".into());
    if length < HEADER_BYTES as u64 + 8 {
        return Err(cut_short(length));
    }
    file.seek(SeekFrom::Start(length - 8)).map_err(io_error)?;
    let mut trailer = [0u8; 8];
    read_exact_or(file, &mut trailer).map_err(io_error)?;
    let end_at = u64::from_le_bytes(trailer);
    if end_at < HEADER_BYTES as u64 || end_at > length - 8 {
        return Err(cut_short(length - 8));
    }
    file.seek(SeekFrom::Start(end_at)).map_err(io_error)?;
    let (len, block) = match read_block(path, file, end_at) {
        Ok(b) => b,
        Err(_) => return Err(cut_short(end_at)),
    };
    if block.kind != BlockKind::End || end_at + len != length - 8 {
        return Err(cut_short(end_at));
    }
    // The end block's entries are its directory, raw: entry 0 holds the totals.
    let raw = block.entries.first().map(|e| &e[..]).unwrap_or_default();
    let Some(([e0, e1, e2, e3, e4, e5, e6, e7, blocks @ ..], listed)) = raw
        .split_first_chunk::<16>()
        .filter(|(_, listed)| listed.len() % 16 == 0)
    else {
        return Err(corrupt(end_at, "bad end block".into()));
    };
    let entries = u64::from_le_bytes([*e0, *e1, *e2, *e3, *e4, *e5, *e6, *e7]);
    let blocks = u64::from_le_bytes(*blocks);
    let directory = listed
        .chunks_exact(16)
        .filter_map(|c| <[u8; 16]>::try_from(c).ok())
        .map(|[t0, t1, t2, t3, p0, p1, p2, p3, rows @ ..]| {
            (
                u32::from_le_bytes([t0, t1, t2, t3]),
                u32::from_le_bytes([p0, p1, p2, p3]),
                u64::from_le_bytes(rows),
            )
        })
        .collect();
    Ok((
        end_at,
        End {
            entries,
            blocks,
            directory,
        },
    ))
}

/// Reads and checks the block at `offset`; returns its framed length and the block. An end
/// block comes back with its tail (totals and directory) as its single entry.
fn read_block(path: &Path, file: &mut File, offset: u64) -> Result<(u64, Block), CheckpointError> {
    let io_error = |source| CheckpointError::Io {
        path: path.to_path_buf(),
        source,
    };
    let corrupt = |what: String| CheckpointError::Corrupt {
        path: path.to_path_buf(),
        offset,
        what,
    };
    let mut head = [0u8; 8];
    if !read_exact_or(file, &mut head).map_err(io_error)? {
        return Err(corrupt(
            "file ends without its end block (cut short)".into(),
        ));
    }
    let len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize;
    let crc = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
    if !(BLOCK_HEAD..=BLOCK_BYTES_MAX).contains(&len) {
        return Err(corrupt(format!("impossible block length {len}")));
    }
    let mut body = vec![0u8; len];
    if !read_exact_or(file, &mut body).map_err(io_error)? {
        return Err(corrupt("block cut short".into()));
    }
    if crc32c::crc32c(&body) != crc {
        return Err(corrupt("block checksum mismatch".into()));
    }
    let Some((head, mut rest)) = body.split_first_chunk::<BLOCK_HEAD>() else {
        return Err(corrupt(format!("impossible block length {len}")));
    };
    let kind = match head[0] {
        1 => BlockKind::Rows,
        2 => BlockKind::Deleted,
        3 => BlockKind::End,
        k => return Err(corrupt(format!("unknown block kind {k}"))),
    };
    let table = u32::from_le_bytes([head[1], head[2], head[3], head[4]]);
    let partition = u32::from_le_bytes([head[5], head[6], head[7], head[8]]);
    let count = u32::from_le_bytes([head[9], head[10], head[11], head[12]]) as usize;
    if kind == BlockKind::End {
        return Ok((
            8 + len as u64,
            Block {
                kind,
                table,
                partition,
                entries: vec![rest.into()],
            },
        ));
    }
    let mut entries = Vec::with_capacity(count.min(rest.len() / 4));
    for _ in 0..count {
        let overrun = || corrupt("entries overrun the block".into());
        let (n, after) = rest.split_first_chunk::<4>().ok_or_else(overrun)?;
        let n = u32::from_le_bytes(*n) as usize;
        let (entry, after) = after.split_at_checked(n).ok_or_else(overrun)?;
        entries.push(entry.into());
        rest = after;
    }
    if !rest.is_empty() {
        return Err(corrupt("bytes after the last entry".into()));
    }
    Ok((
        8 + len as u64,
        Block {
            kind,
            table,
            partition,
            entries,
        },
    ))
}

/// Fills `buf`; false when the file ended first (even partway).
fn read_exact_or(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<bool> {
    match reader.read_exact(buf) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_round_trip_and_damage_names_the_offset() {
        let dir = std::env::temp_dir().join(format!("cairn-lcp-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut builder = BlockBuilder::new();
        let mut file = CheckpointFile::create(&dir, 7, 1).unwrap();
        let mut expected = Vec::new();
        for i in 0..5000u32 {
            let row = vec![(i % 251) as u8; 40 + (i % 100) as usize];
            let (kind, partition) = if i % 10 == 0 {
                (BlockKind::Deleted, 0)
            } else {
                (BlockKind::Rows, i / 2000)
            };
            builder.push(kind, 3, partition, &row);
            expected.push((kind, partition, row));
            if builder.len() > 100_000 {
                file.append(&builder.take()).unwrap();
            }
        }
        file.append(&builder.take()).unwrap();
        let (entries, blocks) = builder.totals();
        let directory = builder.directory();
        assert_eq!(directory, vec![(3, 0, 1800), (3, 1, 1800), (3, 2, 900)]);
        file.finish(entries, blocks, &directory).unwrap();
        let path = file_path(&dir, 7, 1);
        let mut seen = Vec::new();
        let mut listed = Vec::new();
        let totals = read_checkpoint(
            &path,
            1,
            7,
            |d| listed = d.to_vec(),
            |b| {
                for e in b.entries {
                    seen.push((b.kind, b.partition, e.to_vec()));
                }
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(totals, (5000, blocks));
        assert_eq!(listed, directory);
        assert_eq!(seen, expected);
        // A flipped byte in a block is an error at that block's offset.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[HEADER_BYTES + 20] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        match read_checkpoint(&path, 1, 7, |_| {}, |_| Ok(())) {
            Err(CheckpointError::Corrupt { offset, .. }) => assert_eq!(offset, HEADER_BYTES as u64),
            other => panic!("expected corruption, got {other:?}"),
        }
        // A file cut short lacks its end block.
        bytes[HEADER_BYTES + 20] ^= 1;
        bytes.truncate(bytes.len() - 10);
        std::fs::write(&path, &bytes).unwrap();
        let err = read_checkpoint(&path, 1, 7, |_| {}, |_| Ok(())).unwrap_err();
        assert!(err.to_string().contains("cut short"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
