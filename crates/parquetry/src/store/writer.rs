//! [`ObjectWriter`]: writing an object by multipart upload, the object store's form of
//! write-then-rename. Parts are uploaded in the background while the caller writes more;
//! the object appears only when [`ObjectWriter::finish`] completes the upload, and an upload
//! that is dropped unfinished (an error while writing) is aborted: no half-written object
//! is ever visible under the name. An object smaller than one part is sent with one plain
//! PUT at `finish`, which is as atomic.

use std::io::Write;
use std::sync::Arc;

use object_store::{MultipartUpload, ObjectStoreExt, PutPayload};

use super::error::store_error;
use super::fetch::RequestStats;
use super::options::Location;
use super::runtime;
use crate::error::{Error, Result};

/// The size of each uploaded part (S3 takes parts of 5 MiB at least, but the last).
const PART_SIZE: usize = 8 << 20;
/// Parts uploading at once: bounds the memory held to about this many parts.
const CONCURRENCY: usize = 4;

type PartJob = tokio::task::JoinHandle<object_store::Result<()>>;

/// A `Write` that uploads to an object store (see the module's documentation).
pub struct ObjectWriter {
    location: Location,
    buffer: Vec<u8>,
    upload: Option<Box<dyn MultipartUpload>>,
    parts: std::collections::VecDeque<PartJob>,
    stats: Arc<RequestStats>,
    /// Set when a request failed: later writes fail at once.
    failed: Option<String>,
}

impl std::fmt::Debug for ObjectWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectWriter").field("url", &self.location.url).finish_non_exhaustive()
    }
}

impl ObjectWriter {
    pub(crate) fn new(location: Location) -> Self {
        ObjectWriter {
            location,
            buffer: Vec::new(),
            upload: None,
            parts: Default::default(),
            stats: Arc::new(RequestStats::default()),
            failed: None,
        }
    }

    /// The object's URL.
    pub fn url(&self) -> &str {
        &self.location.url
    }

    /// Requests made and bytes sent so far.
    pub fn stats(&self) -> Arc<RequestStats> {
        Arc::clone(&self.stats)
    }

    fn error(&self, doing: &str, e: object_store::Error) -> Error {
        store_error(&self.location.url, doing, e)
    }

    /// Sends the buffered bytes as the next part, starting the upload at the first.
    fn send_part(&mut self) -> Result<()> {
        if self.upload.is_none() {
            let (store, path) = (Arc::clone(&self.location.store), self.location.path.clone());
            let upload = runtime::block_on(async move { store.put_multipart(&path).await })?
                .map_err(|e| self.error("starting an upload to", e))?;
            self.stats.add(0);
            self.upload = Some(upload);
        }
        while self.parts.len() >= CONCURRENCY {
            self.wait_part()?;
        }
        let data = std::mem::replace(&mut self.buffer, Vec::with_capacity(PART_SIZE));
        let size = data.len() as u64;
        let Some(upload) = self.upload.as_mut() else { return Err(self.not_started()) };
        let part = upload.put_part(PutPayload::from(data));
        let rt = runtime::runtime()?;
        self.parts.push_back(rt.spawn(part));
        self.stats.add(size);
        Ok(())
    }

    fn wait_part(&mut self) -> Result<()> {
        let Some(job) = self.parts.pop_front() else { return Ok(()) };
        let joined = runtime::block_on(job)?;
        let done = joined.map_err(|e| Error::io(format!("uploading a part of {}", self.location.url), e.into()))?;
        done.map_err(|e| self.error("uploading a part of", e))
    }

    /// Completes the upload: only now does the object exist (replacing any object of that
    /// name). On an error the upload is aborted and nothing is left.
    pub fn finish(mut self) -> Result<()> {
        let result = self.finish_inner();
        if result.is_err() {
            self.abort();
        }
        result
    }

    /// The error for an upload that should have been started (never, by the code above; an
    /// error rather than a panic all the same).
    fn not_started(&self) -> Error {
        Error::io(
            format!("writing {}", self.location.url),
            std::io::Error::other("the multipart upload was not started"),
        )
    }

    fn finish_inner(&mut self) -> Result<()> {
        if let Some(message) = &self.failed {
            return Err(Error::io(format!("writing {}", self.location.url), std::io::Error::other(message.clone())));
        }
        if self.upload.is_none() {
            let data = PutPayload::from(std::mem::take(&mut self.buffer));
            let size = data.content_length() as u64;
            let (store, path) = (Arc::clone(&self.location.store), self.location.path.clone());
            runtime::block_on(async move { store.put(&path, data).await })?.map_err(|e| self.error("writing", e))?;
            self.stats.add(size);
            return Ok(());
        }
        if !self.buffer.is_empty() {
            self.send_part()?;
        }
        while !self.parts.is_empty() {
            self.wait_part()?;
        }
        let Some(mut upload) = self.upload.take() else { return Err(self.not_started()) };
        let (done, upload) = runtime::block_on(async move { (upload.complete().await, upload) })?;
        self.stats.add(0);
        if let Err(e) = done {
            self.upload = Some(upload);
            return Err(self.error("completing the upload of", e));
        }
        Ok(())
    }

    /// Aborts a started upload (its parts are discarded by the store).
    fn abort(&mut self) {
        for job in self.parts.drain(..) {
            job.abort();
        }
        if let Some(mut upload) = self.upload.take() {
            let _ = runtime::block_on(async move { upload.abort().await });
        }
    }
}

impl Write for ObjectWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if let Some(message) = &self.failed {
            return Err(std::io::Error::other(message.clone()));
        }
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= PART_SIZE {
            if let Err(e) = self.send_part() {
                self.failed = Some(e.message().to_owned());
                self.abort();
                return Err(std::io::Error::other(e.message().to_owned()));
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for ObjectWriter {
    fn drop(&mut self) {
        self.abort();
    }
}
