//! The blocking bridge: the reader is synchronous, the object store client is async. One small
//! tokio runtime for the whole process drives the client's futures; callers wait on a channel
//! for a future's result, so waiting works from any thread (even one inside another runtime,
//! where `Runtime::block_on` would panic).

use std::future::Future;
use std::sync::OnceLock;

use crate::error::{Error, Result};

/// Two worker threads: enough for prefetches to progress while a caller decodes, and for the
/// HTTP client's connections; requests are I/O-bound, not CPU-bound.
const WORKERS: usize = 2;

static RUNTIME: OnceLock<std::result::Result<tokio::runtime::Runtime, String>> = OnceLock::new();

/// The process's object-store runtime, started at the first use; also installs ring as the
/// TLS provider of the HTTP client (rustls has no provider of its own in this build).
pub(crate) fn runtime() -> Result<&'static tokio::runtime::Runtime> {
    let rt = RUNTIME.get_or_init(|| {
        // Fails only when another provider was installed first, which serves as well.
        let _ = rustls::crypto::ring::default_provider().install_default();
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(WORKERS)
            .thread_name("parquetry-store")
            .enable_all()
            .build()
            .map_err(|e| e.to_string())
    });
    rt.as_ref().map_err(|e| Error::io("starting the object store's runtime", std::io::Error::other(e.clone())))
}

/// Runs `future` on the runtime and waits for its result.
pub(crate) fn block_on<F>(future: F) -> Result<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let rt = runtime()?;
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    rt.spawn(async move {
        let _ = tx.send(future.await);
    });
    rx.recv().map_err(|_| Error::io("waiting for the object store", std::io::Error::other("the request's task ended")))
}
