//! Data pages compressed a few at a time on the threads of the pool the caller runs on.
//!
//! A column chunk is encoded by one thread, in order, but its pages need not be compressed
//! by that thread: kept back in a small batch, they are compressed at once by every thread
//! of the writer's pool and then appended in order. On a file whose weight is in one column
//! (the `strings` dataset's `url` is over half its bytes), compressing column by column
//! leaves the other threads idle while that column's pages are compressed.

use std::sync::{Arc, Mutex};

use crate::compress::{Codec, Compressor};
use crate::error::Result;
use crate::format::PageHeader;

/// Pages kept back before a batch is compressed: enough for every thread to take one or two.
const BATCH_PAGES: usize = 8;

/// Compressors shared by the threads of one writer; one per thread that compresses at once,
/// not one per column.
#[derive(Clone, Default)]
pub struct CompressorPool(Arc<Mutex<Vec<Compressor>>>);

impl std::fmt::Debug for CompressorPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CompressorPool")
    }
}

impl CompressorPool {
    /// A compressor from the pool, or a new one.
    pub fn take(&self) -> Compressor {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).pop().unwrap_or_default()
    }

    /// Gives a compressor back for the next task.
    pub fn give(&self, compressor: Compressor) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(compressor);
    }
}

/// A data page kept back: its header without sizes or CRC, and its bytes.
#[derive(Debug, Default)]
pub(super) struct PendingPage {
    pub header: Option<PageHeader>,
    /// Bytes stored as they are before the compressed ones (v2 levels).
    pub prefix: Vec<u8>,
    /// Bytes to compress.
    pub input: Vec<u8>,
    /// `input` compressed.
    pub output: Vec<u8>,
    pub uncompressed_len: usize,
    pub rows: usize,
    pub has_levels: bool,
    /// A v2 page, whose empty values are stored as no bytes rather than compressed.
    pub v2: bool,
}

/// The pages kept back and the buffers of pages already appended, for reuse.
#[derive(Debug)]
pub(super) struct Deferred {
    pool: CompressorPool,
    pub pending: Vec<PendingPage>,
    spare: Vec<PendingPage>,
}

impl Deferred {
    pub fn new(pool: CompressorPool) -> Self {
        Deferred { pool, pending: Vec::new(), spare: Vec::new() }
    }

    /// An empty page to fill and [`push`](Self::push).
    pub fn page(&mut self) -> PendingPage {
        let mut page = self.spare.pop().unwrap_or_default();
        page.prefix.clear();
        page.input.clear();
        page.output.clear();
        page
    }

    /// Keeps `page` back; true when the batch is full and should be compressed.
    pub fn push(&mut self, page: PendingPage) -> bool {
        self.pending.push(page);
        self.pending.len() >= BATCH_PAGES
    }

    /// Bytes kept back, uncompressed.
    pub fn pending_bytes(&self) -> usize {
        self.pending.iter().map(|p| p.prefix.len() + p.input.len()).sum()
    }

    /// Compresses every page kept back: on the current pool's threads when called from one,
    /// else here. Returns them in order, to be appended and then [`recycle`](Self::recycle)d.
    pub fn compress(&mut self, codec: Codec, level: Option<i32>) -> Result<Vec<PendingPage>> {
        let mut pages = std::mem::take(&mut self.pending);
        let pool = &self.pool;
        let one = |page: &mut PendingPage| -> Result<()> {
            let mut compressor = pool.take();
            let result = if page.v2 && page.input.is_empty() {
                // v2 stores no bytes for no values (duckdb fails on an empty LZ4 block).
                Ok(())
            } else {
                compressor.compress(codec, level, &page.input, &mut page.output)
            };
            pool.give(compressor);
            result
        };
        if rayon::current_thread_index().is_some() && pages.len() > 1 {
            use rayon::prelude::*;
            pages.par_iter_mut().with_max_len(1).try_for_each(one)?;
        } else {
            pages.iter_mut().try_for_each(one)?;
        }
        Ok(pages)
    }

    /// Takes back the buffers of appended pages.
    pub fn recycle(&mut self, pages: Vec<PendingPage>) {
        self.spare.extend(pages);
        self.spare.truncate(2 * BATCH_PAGES);
    }
}
