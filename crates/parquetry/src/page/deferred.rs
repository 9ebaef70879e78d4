//! Data pages compressed a few at a time on the threads of the pool the caller runs on.
//!
//! A column chunk is encoded by one thread, in order, but its pages need not be compressed
//! by that thread: kept back in a small batch, they are compressed by jobs of their own on
//! the writer's pool while the column goes on encoding the next batch, and appended in
//! order. On a file whose weight is in one column (the `strings` dataset's `url` is over
//! half its bytes), compressing column by column leaves the other threads idle while that
//! column's pages are compressed; compressing a batch with every thread while its column
//! waits left them idle while the column encoded.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::compress::{Codec, Compressor};
use crate::error::{Error, Result};
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

/// A batch of pages being compressed by jobs of their own, which send each page back.
#[derive(Debug)]
struct InFlight {
    pages: Vec<Option<PendingPage>>,
    done: mpsc::Receiver<(usize, PendingPage, Result<()>)>,
    missing: usize,
    bytes: usize,
    error: Option<Error>,
}

impl InFlight {
    /// Takes in the pages sent back so far.
    fn receive(&mut self) {
        while let Ok((i, page, result)) = self.done.try_recv() {
            self.land(i, page, result);
        }
    }

    fn land(&mut self, i: usize, page: PendingPage, result: Result<()>) {
        self.pages[i] = Some(page);
        self.missing -= 1;
        if let Err(e) = result {
            self.error.get_or_insert(e);
        }
    }
}

/// The pages kept back, the batch being compressed, and the buffers of pages already
/// appended, for reuse.
#[derive(Debug)]
pub(super) struct Deferred {
    pool: CompressorPool,
    pending: Vec<PendingPage>,
    in_flight: Option<InFlight>,
    spare: Vec<PendingPage>,
}

impl Deferred {
    pub fn new(pool: CompressorPool) -> Self {
        Deferred { pool, pending: Vec::new(), in_flight: None, spare: Vec::new() }
    }

    /// An empty page to fill and [`push`](Self::push).
    pub fn page(&mut self) -> PendingPage {
        let mut page = self.spare.pop().unwrap_or_default();
        page.prefix.clear();
        page.input.clear();
        page.output.clear();
        page
    }

    /// Keeps `page` back; true when the batch is full and should be [`launch`](Self::launch)ed.
    pub fn push(&mut self, page: PendingPage) -> bool {
        self.pending.push(page);
        self.pending.len() >= BATCH_PAGES
    }

    /// Data pages kept back or being compressed.
    pub fn pages(&self) -> usize {
        self.pending.len() + self.in_flight.as_ref().map_or(0, |f| f.pages.len())
    }

    /// Bytes kept back or being compressed, uncompressed.
    pub fn pending_bytes(&self) -> usize {
        let flying = self.in_flight.as_ref().map_or(0, |f| f.bytes);
        self.pending.iter().map(|p| p.prefix.len() + p.input.len()).sum::<usize>() + flying
    }

    /// Waits for the batch being compressed (if any), then starts on the pages kept back: by
    /// jobs on the current pool while the caller goes on encoding when called from a pool's
    /// thread, else here and now. One batch is in flight at a time, so a column holds at most
    /// two. Returns the pages compressed by now, in order, to be appended and then
    /// [`recycle`](Self::recycle)d.
    pub fn launch(&mut self, codec: Codec, level: Option<i32>) -> Result<Vec<PendingPage>> {
        let mut done = self.wait()?;
        if self.pending.is_empty() {
            return Ok(done);
        }
        if rayon::current_thread_index().is_none() {
            done.extend(self.compress_here(codec, level)?);
            return Ok(done);
        }
        let pages = std::mem::take(&mut self.pending);
        let bytes = pages.iter().map(|p| p.prefix.len() + p.input.len()).sum();
        let (to_batch, from_jobs) = mpsc::channel();
        let n = pages.len();
        for (i, mut page) in pages.into_iter().enumerate() {
            let (pool, to_batch) = (self.pool.clone(), to_batch.clone());
            rayon::spawn(move || {
                let result = compress(&pool, codec, level, &mut page);
                // Nobody listens only after the writer failed and was dropped.
                let _ = to_batch.send((i, page, result));
            });
        }
        let pages = (0..n).map(|_| None).collect();
        self.in_flight = Some(InFlight { pages, done: from_jobs, missing: n, bytes, error: None });
        Ok(done)
    }

    /// Without waiting: the pages of the batch in flight if it is done (then the pages kept
    /// back are [`launch`](Self::launch)ed), else none.
    pub fn ready(&mut self, codec: Codec, level: Option<i32>) -> Result<Vec<PendingPage>> {
        if let Some(flight) = self.in_flight.as_mut() {
            flight.receive();
            if flight.missing > 0 {
                return Ok(Vec::new());
            }
        }
        self.launch(codec, level)
    }

    /// Every page kept back or in flight, compressed, in order: waits for the batch in flight
    /// and compresses the rest now (with every thread of the pool when called from one).
    pub fn finish(&mut self, codec: Codec, level: Option<i32>) -> Result<Vec<PendingPage>> {
        let mut pages = self.wait()?;
        pages.extend(self.compress_here(codec, level)?);
        Ok(pages)
    }

    /// Compresses the pages kept back: on the current pool's threads when called from one,
    /// else on this one.
    fn compress_here(&mut self, codec: Codec, level: Option<i32>) -> Result<Vec<PendingPage>> {
        let mut pages = std::mem::take(&mut self.pending);
        let pool = &self.pool;
        if rayon::current_thread_index().is_some() && pages.len() > 1 {
            use rayon::prelude::*;
            pages.par_iter_mut().with_max_len(1).try_for_each(|p| compress(pool, codec, level, p))?;
        } else {
            pages.iter_mut().try_for_each(|p| compress(pool, codec, level, p))?;
        }
        Ok(pages)
    }

    /// The batch in flight once every page is back, in order (none without one).
    fn wait(&mut self) -> Result<Vec<PendingPage>> {
        let Some(mut flight) = self.in_flight.take() else { return Ok(Vec::new()) };
        loop {
            flight.receive();
            if flight.missing == 0 {
                break;
            }
            // The batch's jobs may wait in this thread's own queue: run them (or any other
            // job of the pool) rather than block, which would leave them to a thread that
            // may be waiting too.
            if let Some(rayon::Yield::Executed) = rayon::yield_now() {
                continue;
            }
            match flight.done.recv_timeout(Duration::from_micros(100)) {
                Ok((i, page, result)) => flight.land(i, page, result),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    let lost = std::io::Error::other("a compression job ended without its page");
                    return Err(Error::io("compressing pages on the writer's threads", lost));
                }
            }
        }
        match flight.error {
            Some(e) => Err(e),
            None => Ok(flight.pages.into_iter().flatten().collect()),
        }
    }

    /// Takes back the buffers of appended pages.
    pub fn recycle(&mut self, pages: Vec<PendingPage>) {
        self.spare.extend(pages);
        self.spare.truncate(2 * BATCH_PAGES);
    }
}

/// Compresses `page` with a compressor from `pool`.
fn compress(pool: &CompressorPool, codec: Codec, level: Option<i32>, page: &mut PendingPage) -> Result<()> {
    if page.v2 && page.input.is_empty() {
        // v2 stores no bytes for no values (duckdb fails on an empty LZ4 block).
        return Ok(());
    }
    let mut compressor = pool.take();
    let result = compressor.compress(codec, level, &page.input, &mut page.output);
    pool.give(compressor);
    result
}
