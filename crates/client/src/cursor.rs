//! A scan read a batch at a time: the data node keeps the scan's place between batches and
//! sends the next when asked, and the cursor asks as soon as a batch arrives, so one batch is
//! read while the next is on its way and at most those two are held, whatever the table's size.

use std::sync::mpsc::{self, Receiver};

use base::Value;
use wire::frame::FLAG_LAST;
use wire::{Message, ScanRequest};

use crate::connection::{unexpected, Cluster};
use crate::{ClientError, Result};

/// An open scan (`Cluster::scan_cursor`, `Transaction::scan_cursor`). Dropping it before its
/// last batch ends the scan in the data node.
pub struct ScanCursor {
    cluster: Cluster,
    id: u64,
    rx: Receiver<crate::connection::Delivery>,
    /// The data node sent the last batch (or failed the scan): nothing more is asked.
    ended: bool,
    /// A scan sent to a READ_BACKUP reader (`Cluster::reader`): where it runs again if the
    /// reader refuses it or is lost before its first batch.
    fallback: Option<(Cluster, ScanRequest)>,
    /// Where references to parts in its rows are joined (`crate::lob`): by the connection the
    /// scan was asked of, in the transaction it runs in, if any.
    joiner: Cluster,
    reading: crate::lob::Reading,
    /// Rows are answered as the data node sends them, references to parts unjoined.
    raw: bool,
}

impl Cluster {
    /// Opens a scan; its rows come a batch at a time from [`ScanCursor::next_batch`].
    pub fn scan_cursor(&self, table: &crate::Table, scan: &crate::Scan) -> Result<ScanCursor> {
        self.open_scan(table, scan.request(table)?)
    }

    /// Sends a scan: a committed scan of a READ_BACKUP table outside any transaction goes to
    /// the replica this connection reads from (a cluster of one node group; see `reader`).
    pub(crate) fn open_scan(
        &self,
        table: &crate::Table,
        request: ScanRequest,
    ) -> Result<ScanCursor> {
        // A pushed join's children are read on the node it reaches: the primary, unless this
        // client knew every child table reads any replica (it does not keep them here).
        if request.transaction == 0
            && request.join.is_empty()
            && self.groups().1 == 1
            && table.def().options.reads_any_replica()
        {
            if let Some(reader) = self.reader(0) {
                if let Ok(mut cursor) = reader.send_scan(request.clone()) {
                    cursor.joiner = self.clone();
                    cursor.fallback = Some((self.clone(), request));
                    return Ok(cursor);
                }
                self.forget_reader(0);
            }
        }
        self.send_scan(request)
    }

    fn send_scan(&self, request: ScanRequest) -> Result<ScanCursor> {
        let (tx, rx) = mpsc::channel();
        let id = self.send_request(&Message::Scan(request), tx)?;
        Ok(ScanCursor {
            cluster: self.clone(),
            id,
            rx,
            ended: false,
            fallback: None,
            joiner: self.clone(),
            reading: crate::lob::Reading { transaction: None },
            raw: false,
        })
    }
}

impl ScanCursor {
    /// The next batch of rows (projected columns, in the order asked for), or None once the
    /// scan has returned every row. A failure ends the scan.
    pub fn next_batch(&mut self) -> Result<Option<Vec<Vec<Value>>>> {
        let first = self.fallback.is_some();
        let batch = self.next_batch_here();
        let mut batch = match (self.fallback.take(), batch) {
            (Some((primary, request)), Err(e)) if first && reader_refused(&e) => {
                // The reader stopped serving reads (or its connection broke) before anything
                // came: the scan runs where its transaction would.
                primary.forget_reader(0);
                let (reading, raw) = (self.reading, self.raw);
                *self = primary.send_scan(request)?;
                self.reading = reading;
                self.raw = raw;
                self.next_batch_here()
            }
            (_, batch) => batch,
        }?;
        if let (Some(rows), false) = (&mut batch, self.raw) {
            if crate::lob::has_parts(rows.iter().map(Vec::as_slice)) {
                crate::lob::join(&self.joiner, self.reading, rows.iter_mut(), 0)?;
            }
        }
        Ok(batch)
    }

    /// Answers references to parts as they are, unjoined.
    pub(crate) fn unjoined(mut self) -> ScanCursor {
        self.raw = true;
        self
    }

    /// Joins references to parts in this transaction (see `Transaction::scan_cursor`).
    pub(crate) fn join_in(&mut self, reading: crate::lob::Reading) {
        self.reading = reading;
    }

    fn next_batch_here(&mut self) -> Result<Option<Vec<Vec<Value>>>> {
        if self.ended {
            return Ok(None);
        }
        let frame = self.cluster.wait_watched(&self.rx);
        let (header, reply) = match frame {
            Ok(frame) => frame,
            Err(e) => {
                self.ended = true;
                return Err(e);
            }
        };
        let last = header.flags & FLAG_LAST != 0;
        match reply {
            Message::ScanRows { rows } => {
                if last {
                    self.ended = true;
                } else if let Err(e) = self.ask(&Message::ScanNext) {
                    self.ended = true;
                    return Err(e);
                }
                Ok(Some(rows))
            }
            Message::Failure(e) => {
                self.ended = true;
                if !last {
                    self.cluster.forget(self.id);
                }
                Err(ClientError::Failed(e))
            }
            other => {
                self.ended = true;
                self.cluster.forget(self.id);
                Err(unexpected(&other))
            }
        }
    }

    /// Whether the data node sent the scan's last batch (or failed it): `next_batch` has
    /// nothing more after the batches already taken.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Every row left, gathered (for a scan known to be small).
    pub fn collect_all(mut self) -> Result<Vec<Vec<Value>>> {
        let mut rows = Vec::new();
        while let Some(batch) = self.next_batch()? {
            if rows.is_empty() {
                rows = batch;
            } else {
                rows.extend(batch);
            }
        }
        Ok(rows)
    }

    fn ask(&self, message: &Message) -> Result<()> {
        let mut out = Vec::with_capacity(64);
        self.cluster.frame(message, self.id, &mut out)?;
        self.cluster.send_frames(&out)
    }
}

impl Drop for ScanCursor {
    fn drop(&mut self) {
        if !self.ended {
            // Whatever is on its way, the data node ends the scan and answers with a last
            // frame, which unregisters the request; nothing waits for it.
            let _ = self.ask(&Message::ScanClose);
        }
    }
}

/// Whether a read sent to a READ_BACKUP reader failed because of where it went (the node no
/// longer serves reads, or its connection broke): it then goes to the primary.
pub(crate) fn reader_refused(e: &ClientError) -> bool {
    match e {
        ClientError::ConnectionLost(_) => true,
        ClientError::Failed(e) | ClientError::Aborted { error: e, .. } => {
            e.code == base::ErrorCode::NotPrimary
        }
        _ => false,
    }
}
