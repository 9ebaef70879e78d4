//! The thread pools of readers and writers: one per size, started on first use and kept for
//! the life of the process, as pyarrow's and polars' pools are.
//!
//! A pool per reader or writer started its threads on every call and every one of them
//! faulted in its allocator's memory afresh: reading the 27 MB `blobs` file from Python took
//! 14.9 ms with two threads against 10.4 ms with one.

use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};

static POOLS: Mutex<Vec<Arc<rayon::ThreadPool>>> = Mutex::new(Vec::new());

/// The shared pool of `threads` threads (at least 2; one thread needs no pool).
pub(crate) fn pool(threads: usize) -> Result<Arc<rayon::ThreadPool>> {
    let threads = threads.max(2);
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(pool) = pools.iter().find(|p| p.current_num_threads() == threads) {
        return Ok(pool.clone());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(move |i| format!("parquetry-{threads}-{i}"))
        .build()
        .map_err(|e| Error::io("starting the threads", std::io::Error::other(e)))?;
    let pool = Arc::new(pool);
    pools.push(pool.clone());
    Ok(pool)
}
