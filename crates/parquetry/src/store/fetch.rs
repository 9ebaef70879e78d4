//! What an [`ObjectSource`](super::ObjectSource) is told and tells: how it fetches ahead
//! ([`FetchOptions`]) and what its requests cost ([`RequestStats`]).

use std::sync::atomic::{AtomicU64, Ordering};

/// Requests an object source made and the bytes they brought (shared, so a caller can keep
/// reading them after the source moved into a reader).
#[derive(Debug, Default)]
pub struct RequestStats {
    requests: AtomicU64,
    bytes: AtomicU64,
}

impl RequestStats {
    /// GET requests sent (a retry of a failed request is not counted again).
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    /// Bytes received.
    pub fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    pub(crate) fn add(&self, bytes: u64) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Counts a request as it is sent, its bytes coming with [`add_bytes`](Self::add_bytes)
    /// as they arrive: a read that needs the front of a request's range may end before the
    /// rest has arrived, and the request is counted all the same.
    pub(crate) fn add_request(&self) {
        self.requests.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts bytes received by a request counted with [`add_request`](Self::add_request).
    pub(crate) fn add_bytes(&self, bytes: u64) {
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Adds another source's counts to these.
    pub(crate) fn add_from(&self, other: &RequestStats) {
        self.requests.fetch_add(other.requests(), Ordering::Relaxed);
        self.bytes.fetch_add(other.bytes(), Ordering::Relaxed);
    }
}

/// How an [`ObjectSource`] fetches ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchOptions {
    /// Ranges closer than this are fetched as one (the bytes between are read and dropped):
    /// a request costs about what this many bytes take to arrive. 1 MiB by default.
    pub coalesce_gap: u64,
    /// The most bytes fetched ahead and kept at once. 256 MiB by default.
    pub max_ahead: u64,
    /// Requests in flight at once. 32 by default: a filtered read names a request per row
    /// group of a column (54 on TPC-H `lineitem`), and 8 at once made it wait for seven round
    /// trips where polars waits for about two (object stores take hundreds at once).
    pub concurrency: usize,
    /// Requests longer than this (a column chunk longer than `max_request` by itself) are
    /// sent as parts of this size. Off by default (`u64::MAX`): a response's bytes reach the
    /// reader as they arrive, in order, so a long chunk gains nothing from parts, and they
    /// cost requests (16 MiB parts made the S3 benchmark's `point_id` 5 → 7 requests, its
    /// two chunks of 26 and 23 MiB cut in two).
    pub part: u64,
    /// The most bytes asked for and not yet arrived at once (at least one request):
    /// requests at once share the bandwidth, and with the four 16 MiB requests of a whole
    /// read in flight together, all ended near the end of the transfer and decoding waited
    /// for the first at a quarter of the bandwidth while the others, needed later, took the
    /// rest. 32 MiB by default: two 16 MiB requests, in the order they are read, the next
    /// sent once 16 MiB of theirs arrived, so that its wait for the first byte overlaps
    /// their last bytes (sent only once one ended, each waited a round trip with nothing
    /// arriving: `is_null` in the S3 benchmark, 7 requests, spent one of its four round
    /// trips so).
    pub in_flight: u64,
    /// The longest request that merging ranges makes (a column chunk longer by itself is
    /// fetched whole). 16 MiB by default.
    pub max_request: u64,
    /// The longest first request of a read-ahead; each next one may be twice as long, up to
    /// `max_request`. Requests in flight together share the bandwidth: a short first one
    /// ends early. 16 MiB by default (as `max_request`: no growth): with the bytes handed to
    /// the reader as they arrive, 4 MiB cost a request or two more per read-ahead and no
    /// time measurable in the S3 benchmark (docs/benchmarks.md).
    pub first_request: u64,
}

impl Default for FetchOptions {
    fn default() -> Self {
        FetchOptions {
            coalesce_gap: 1 << 20,
            max_ahead: 256 << 20,
            concurrency: 32,
            part: u64::MAX,
            in_flight: 32 << 20,
            max_request: 16 << 20,
            first_request: 16 << 20,
        }
    }
}
