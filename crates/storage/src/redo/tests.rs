//! The redo log's writer and reader together: round trips, segment rotation and recycling,
//! torn tails, damage, and injected write and fsync failures.

use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

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
