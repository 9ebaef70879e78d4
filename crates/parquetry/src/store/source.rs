//! [`ObjectSource`]: a [`ChunkSource`] over an object in an object store.
//!
//! Every read is a ranged GET, so the count of requests is what costs (tens of milliseconds
//! each on a real store). The footer comes with the object's size in one suffix request
//! (`open`); the column chunks of the row group being read, and those of the next, are named
//! ahead by the reader ([`ChunkSource::prefetch`]), merged into few ranges (gaps below
//! [`FetchOptions::coalesce_gap`] are fetched rather than paid for with a request) and
//! fetched concurrently in the background while earlier row groups decode, sent in the order
//! they are read. A response's bytes reach the reader as they arrive: a page read waits for
//! its own bytes only, so decoding follows the transfer instead of waiting for a whole 16 MiB
//! request (when several share the bandwidth, they all end near the end of the transfer).
//! A response is gathered into one buffer of its range's length as it arrives, so page reads
//! are slices of those bytes, also across the HTTP client's pieces (no copy on the decoding
//! thread). Fetched bytes are kept up to
//! [`FetchOptions::max_ahead`]; the oldest are dropped first.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use arrow_buffer::Buffer;
use futures_util::StreamExt;
use object_store::{GetOptions, GetRange, ObjectStore};

use super::error::store_error;
use super::fetch::{FetchOptions, RequestStats};
use super::fetched::Fetched;
use super::options::Location;
use super::ranges::{coalesce_growing, split};
use super::runtime;
use crate::error::{Error, Result};
use crate::page::ChunkSource;

/// The most bytes of an object's end that a dataset keeps per file between reading its
/// footer and its rows (see [`ObjectSource::detached_keeping`]).
pub(crate) const KEPT_TAIL: u64 = 64 << 10;

/// A [`ChunkSource`] over one object of an object store (see the module's documentation).
/// A clone shares the store's client, the request counts and the bytes fetched so far.
#[derive(Debug)]
pub struct ObjectSource {
    location: Location,
    len: u64,
    /// The object's ETag when it was opened: later reads ask for this version only, so a
    /// file replaced while it is read is an error, not a mix of two files.
    e_tag: Option<String>,
    stats: Arc<RequestStats>,
    fetch: FetchOptions,
    /// Fetched ranges, oldest first.
    fetched: Mutex<Vec<Arc<Fetched>>>,
}

impl ObjectSource {
    /// Opens the object with one request for its last `tail` bytes (all of it when smaller),
    /// which also tells its size; returns the source and those bytes.
    pub(crate) fn open(location: Location, tail: u64, fetch: FetchOptions) -> Result<(Self, Buffer)> {
        let got = runtime::block_on(get_tail(location.clone(), tail))?;
        Self::from_tail(location, tail, fetch, got)
    }

    /// Opens the objects at `locations` as [`open`](Self::open) does, with up to `at_once`
    /// of their requests in flight: a dataset's footers come in about one round trip
    /// instead of one per object. One result per object, in order.
    pub(crate) fn open_many(
        locations: Vec<Location>,
        tail: u64,
        fetch: FetchOptions,
        at_once: usize,
    ) -> Result<Vec<Result<(Self, Buffer)>>> {
        let jobs = locations.clone().into_iter().map(move |l| get_tail(l, tail));
        let got = runtime::block_on(async move {
            futures_util::stream::iter(jobs).buffered(at_once.max(1)).collect::<Vec<_>>().await
        })?;
        Ok(locations.into_iter().zip(got).map(|(l, got)| Self::from_tail(l, tail, fetch, got)).collect())
    }

    /// The source over an object whose last `tail` bytes `got` brought.
    fn from_tail(
        location: Location,
        tail: u64,
        fetch: FetchOptions,
        got: object_store::Result<Tail>,
    ) -> Result<(Self, Buffer)> {
        let (meta, range, tail_bytes) = got.map_err(|e| store_error(&location.url, "opening", e))?;
        if tail_bytes.len() as u64 != range.end - range.start || range.end != meta.size {
            return Err(Error::corrupt(format!(
                "opening {}: asked for its last {tail} bytes, got bytes {range:?} of {} ({} bytes)",
                location.url,
                meta.size,
                tail_bytes.len()
            )));
        }
        let stats = Arc::new(RequestStats::default());
        stats.add(tail_bytes.len() as u64);
        // The tail stays fetched: page indexes and bloom filters usually lie just before the
        // footer, so reading them costs no request.
        let kept = Fetched::filled(range, tail_bytes.clone());
        let source =
            ObjectSource { location, len: meta.size, e_tag: meta.e_tag, stats, fetch, fetched: Mutex::new(vec![kept]) };
        Ok((source, tail_bytes))
    }

    /// A source over the same object version with nothing fetched yet and no request made:
    /// what a dataset keeps per file between reading its footer and reading its rows (the
    /// tail is not held for thousands of files). Requests are counted in `stats`.
    pub(crate) fn detached(&self, stats: Arc<RequestStats>) -> ObjectSource {
        ObjectSource {
            location: self.location.clone(),
            len: self.len,
            e_tag: self.e_tag.clone(),
            stats,
            fetch: self.fetch,
            fetched: Mutex::new(Vec::new()),
        }
    }

    /// Like [`detached`](Self::detached), keeping a copy of the fetched bytes from `from` to
    /// the object's end (the page indexes and bloom filters writers put before the footer)
    /// when they are all fetched and at most [`KEPT_TAIL`]: a filter reads them next, and
    /// without them a dataset's file cost a request more for what its footer's request had
    /// brought.
    pub(crate) fn detached_keeping(&self, stats: Arc<RequestStats>, from: u64) -> ObjectSource {
        let detached = self.detached(stats);
        let len = self.len.saturating_sub(from);
        if from >= self.len || len > KEPT_TAIL {
            return detached;
        }
        let Some(tail) = self.find(from, len as usize).filter(|f| f.is_done()) else { return detached };
        let Ok(bytes) = tail.wait_slice(from, len as usize) else { return detached };
        // A copy: a slice would keep the whole first read alive.
        let kept = Fetched::filled(from..self.len, Buffer::from_vec(bytes.as_slice().to_vec()));
        detached.fetched.lock().unwrap_or_else(PoisonError::into_inner).push(kept);
        detached
    }

    /// The object's URL.
    pub fn url(&self) -> &str {
        &self.location.url
    }

    /// Requests made and bytes fetched so far (shared: the counts go on as the source reads).
    pub fn stats(&self) -> Arc<RequestStats> {
        Arc::clone(&self.stats)
    }

    /// Sets how the source fetches ahead.
    pub fn set_fetch_options(&mut self, fetch: FetchOptions) {
        self.fetch = fetch;
    }

    fn get_options(&self, range: Range<u64>) -> GetOptions {
        GetOptions { range: Some(GetRange::Bounded(range)), if_match: self.e_tag.clone(), ..Default::default() }
    }

    /// One request for `range`, now.
    fn get_now(&self, range: Range<u64>) -> Result<Buffer> {
        let job = get(self.location.clone(), self.get_options(range.clone()), Arc::clone(&self.stats));
        runtime::block_on(job)?.map_err(|e| self.range_error(&range, e))
    }

    fn range_error(&self, range: &Range<u64>, e: object_store::Error) -> Error {
        store_error(&self.location.url, &format!("reading bytes {}..{} of", range.start, range.end), e)
    }

    /// The fetched (or being fetched) range that holds `len` bytes at `offset`.
    fn find(&self, offset: u64, len: usize) -> Option<Arc<Fetched>> {
        let end = offset + len as u64;
        let fetched = self.fetched.lock().unwrap_or_else(PoisonError::into_inner);
        fetched.iter().rev().find(|f| f.range.start <= offset && end <= f.range.end).cloned()
    }

    /// Fetched ranges that follow each other and together hold `len` bytes at `offset`, with
    /// the part of those bytes each holds: a page across the end of one read-ahead and the
    /// start of the next (or of the footer's tail, which read-aheads stop short of).
    fn span(&self, offset: u64, len: usize) -> Option<Vec<(Arc<Fetched>, Range<u64>)>> {
        let end = offset + len as u64;
        let fetched = self.fetched.lock().unwrap_or_else(PoisonError::into_inner);
        let (mut at, mut parts) = (offset, Vec::new());
        while at < end {
            let f = fetched.iter().rev().find(|f| f.range.start <= at && at < f.range.end)?;
            let to = f.range.end.min(end);
            parts.push((Arc::clone(f), at..to));
            at = to;
        }
        Some(parts)
    }

    /// Cuts from `range` the parts at either end that a fetched range already holds (a
    /// read-ahead reaching into the footer's tail); `None` when nothing is left.
    fn unfetched(&self, mut range: Range<u64>) -> Option<Range<u64>> {
        let fetched = self.fetched.lock().unwrap_or_else(PoisonError::into_inner);
        while let Some(f) = fetched.iter().find(|f| f.range.start <= range.start && range.start < f.range.end) {
            range.start = f.range.end.min(range.end);
            if range.is_empty() {
                return None;
            }
        }
        while let Some(f) = fetched.iter().find(|f| f.range.start < range.end && range.end <= f.range.end) {
            range.end = f.range.start.max(range.start);
            if range.is_empty() {
                return None;
            }
        }
        Some(range)
    }
}

impl ObjectSource {
    /// The requests that fetch `ranges` `(offset, len)`: those within the object, less what
    /// is fetched already, merged (see [`coalesce_growing`]).
    fn merged(&self, ranges: &[(u64, u64)]) -> Vec<Range<u64>> {
        let wanted: Vec<Range<u64>> = ranges
            .iter()
            .filter_map(|&(start, len)| Some(start..start.checked_add(len).filter(|&e| e <= self.len)?))
            .filter_map(|r| self.unfetched(r))
            .collect();
        coalesce_growing(&wanted, self.fetch.coalesce_gap, self.fetch.first_request, self.fetch.max_request)
    }
}

impl Clone for ObjectSource {
    fn clone(&self) -> Self {
        let fetched = self.fetched.lock().unwrap_or_else(PoisonError::into_inner).clone();
        ObjectSource {
            location: self.location.clone(),
            len: self.len,
            e_tag: self.e_tag.clone(),
            stats: Arc::clone(&self.stats),
            fetch: self.fetch,
            fetched: Mutex::new(fetched),
        }
    }
}

/// An object's metadata, the range of its end a suffix request brought, and those bytes.
type Tail = (object_store::ObjectMeta, Range<u64>, Buffer);

/// A request for the last `tail` bytes of the object at `location` (not counted: the
/// source counts it once made).
async fn get_tail(location: Location, tail: u64) -> object_store::Result<Tail> {
    let options = GetOptions { range: Some(GetRange::Suffix(tail)), ..Default::default() };
    let result = location.store.get_opts(&location.path, options).await?;
    let (meta, range) = (result.meta.clone(), result.range.clone());
    Ok((meta, range, Buffer::from(result.bytes().await?)))
}

/// A ranged GET, counted.
async fn get(location: Location, options: GetOptions, stats: Arc<RequestStats>) -> object_store::Result<Buffer> {
    let result = location.store.get_opts(&location.path, options).await?;
    let bytes = result.bytes().await?;
    stats.add(bytes.len() as u64);
    Ok(Buffer::from(bytes))
}

impl ChunkSource for ObjectSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at_reusing(&self, offset: u64, len: usize, _spare: Vec<u8>) -> Result<Buffer> {
        let end = offset.checked_add(len as u64).filter(|&end| end <= self.len);
        let Some(end) = end else {
            return Err(Error::corrupt(format!(
                "{}: bytes {offset}..{} lie past the end of the object ({} bytes)",
                self.location.url,
                offset.saturating_add(len as u64),
                self.len
            )));
        };
        if len == 0 {
            return Ok(Buffer::from_vec(Vec::<u8>::new()));
        }
        let at = |e: Error| e.context(format_args!("{}", self.location.url));
        if let Some(f) = self.find(offset, len) {
            return f.wait_slice(offset, len).map_err(at);
        }
        let Some(parts) = self.span(offset, len) else { return self.get_now(offset..end) };
        let mut out = Vec::with_capacity(len);
        for (f, part) in parts {
            let bytes = f.wait_slice(part.start, (part.end - part.start) as usize).map_err(at)?;
            out.extend_from_slice(bytes.as_slice());
        }
        Ok(Buffer::from_vec(out))
    }

    fn in_memory(&self, offset: u64, len: usize) -> bool {
        self.find(offset, len).is_some() || self.span(offset, len).is_some()
    }

    fn held_from(&self, offset: u64) -> u64 {
        let fetched = self.fetched.lock().unwrap_or_else(PoisonError::into_inner);
        // Through fetched ranges that follow each other.
        let mut at = offset;
        while let Some(end) =
            fetched.iter().filter(|f| f.range.start <= at && at < f.range.end).map(|f| f.range.end).max()
        {
            at = end;
        }
        at - offset
    }

    fn fetch_cost(&self, ranges: &[(u64, u64)]) -> Option<(usize, u64)> {
        let merged = self.merged(ranges);
        Some((merged.len(), merged.iter().map(|r| r.end - r.start).sum()))
    }

    fn prefetch(&self, ranges: &[(u64, u64)]) {
        let merged = self.merged(ranges);
        if merged.is_empty() {
            return;
        }
        let Ok(rt) = runtime::runtime() else { return };
        let mut jobs = Vec::new();
        {
            let mut fetched = self.fetched.lock().unwrap_or_else(PoisonError::into_inner);
            let mut held: u64 = fetched.iter().map(|f| f.range.end - f.range.start).sum();
            for range in split(&merged, self.fetch.part) {
                let size = range.end - range.start;
                // Make room by dropping the oldest finished fetches; what still does not fit
                // is read page by page when its turn comes.
                while held + size > self.fetch.max_ahead {
                    let Some(i) = fetched.iter().position(|f| f.is_done()) else { break };
                    let old = fetched.remove(i);
                    held -= old.range.end - old.range.start;
                }
                if held + size > self.fetch.max_ahead {
                    break;
                }
                held += size;
                let entry = Fetched::new(range.clone());
                fetched.push(Arc::clone(&entry));
                jobs.push((entry, self.get_options(range)));
            }
        }
        let (location, stats, fetch) = (self.location.clone(), Arc::clone(&self.stats), self.fetch);
        rt.spawn(async move {
            let mut jobs = jobs.into_iter().peekable();
            // Bytes asked for and not arrived yet: lowered as each piece arrives (the
            // requests' futures run inside this task, polled below), so the next request
            // goes out while the last bytes of those before are on their way, and waits
            // for its first byte then instead of after they all ended.
            let outstanding = AtomicU64::new(0);
            let mut running = futures_util::stream::FuturesUnordered::new();
            loop {
                // Sent in order, the range needed first asked for first; the next goes out as
                // soon as it fits: up to `concurrency` requests and `in_flight` bytes not yet
                // arrived (one request however long when none is in flight).
                while let Some((entry, _)) = jobs.peek() {
                    let size = entry.range.end - entry.range.start;
                    let room = running.len() < fetch.concurrency.max(1)
                        && outstanding.load(Ordering::Relaxed) + size <= fetch.in_flight;
                    if !running.is_empty() && !room {
                        break;
                    }
                    let Some((entry, options)) = jobs.next() else { break };
                    outstanding.fetch_add(size, Ordering::Relaxed);
                    let (location, stats, outstanding) = (&location, Arc::clone(&stats), &outstanding);
                    running.push(async move {
                        let range = entry.range.clone();
                        let result = stream_into(location, options, &entry, &stats, outstanding).await.map_err(|e| {
                            store_error(&location.url, &format!("reading bytes {}..{} of", range.start, range.end), e)
                        });
                        // What never arrived (a failed or short response) is not awaited.
                        release(outstanding, range.end - entry.received_to());
                        entry.finish(result);
                    });
                }
                if running.is_empty() {
                    break;
                }
                let next = jobs.peek().map(|(entry, _)| entry.range.end - entry.range.start);
                // Until a request ends, or enough bytes arrived for the next to fit.
                futures_util::future::poll_fn(|cx| {
                    let mut ended = false;
                    loop {
                        match running.poll_next_unpin(cx) {
                            std::task::Poll::Ready(Some(())) => ended = true,
                            std::task::Poll::Ready(None) => return std::task::Poll::Ready(()),
                            std::task::Poll::Pending => break,
                        }
                    }
                    let fits = next.is_some_and(|size| {
                        running.len() < fetch.concurrency.max(1)
                            && outstanding.load(Ordering::Relaxed) + size <= fetch.in_flight
                    });
                    match ended || fits {
                        true => std::task::Poll::Ready(()),
                        false => std::task::Poll::Pending,
                    }
                })
                .await;
            }
        });
    }
}

/// Takes `len` bytes from those awaited (`outstanding`), never below none.
fn release(outstanding: &AtomicU64, len: u64) {
    let _ = outstanding.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |o| Some(o.saturating_sub(len)));
}

/// A ranged GET whose response is handed to `entry` piece by piece as it arrives, counted
/// when sent, its bytes as they arrive. A response longer than the range asked for is cut there (and `finish`
/// reports it short).
///
/// The pieces are gathered into one buffer of the range's length, each handed over as a
/// frozen part of it: the parts lie end to end, so a page across several of them is a slice
/// rather than a copy on the decoding thread (see [`Fetched::wait_slice`]; the HTTP client's
/// pieces are a few hundred KiB at most, a page often a MiB), and the client's own buffer is
/// free again for its next read instead of staying held by the piece.
async fn stream_into(
    location: &Location,
    options: GetOptions,
    entry: &Fetched,
    stats: &RequestStats,
    outstanding: &AtomicU64,
) -> object_store::Result<()> {
    stats.add_request();
    let result = location.store.get_opts(&location.path, options).await?;
    let mut body = result.into_stream();
    let mut gathered = entry.gatherer();
    let mut outcome = Ok(());
    while let Some(piece) = body.next().await {
        match piece {
            Ok(piece) => {
                let len = piece.len() as u64;
                stats.add_bytes(len);
                if !entry.push_gathered(piece, &mut gathered) {
                    break;
                }
                release(outstanding, len);
            }
            Err(e) => {
                outcome = Err(e);
                break;
            }
        }
    }
    outcome
}
