//! Where a dataset's file is read from: a local file, or (feature `object-store`) an object
//! of an object store. One type, so that a dataset's reader is one type whatever its files.

use arrow_buffer::Buffer;

use crate::error::Result;
use crate::page::{ChunkSource, FileSource};

/// A dataset file's bytes: local or remote.
#[derive(Debug)]
pub enum DatasetSource {
    /// A local file, read with positional reads.
    File(FileSource),
    /// An object, fetched in coalesced ranges ahead of decoding.
    #[cfg(feature = "object-store")]
    Object(crate::store::ObjectSource),
}

impl ChunkSource for DatasetSource {
    fn len(&self) -> u64 {
        match self {
            DatasetSource::File(s) => s.len(),
            #[cfg(feature = "object-store")]
            DatasetSource::Object(s) => s.len(),
        }
    }

    fn read_at_reusing(&self, offset: u64, len: usize, spare: Vec<u8>) -> Result<Buffer> {
        match self {
            DatasetSource::File(s) => s.read_at_reusing(offset, len, spare),
            #[cfg(feature = "object-store")]
            DatasetSource::Object(s) => s.read_at_reusing(offset, len, spare),
        }
    }

    fn will_need(&self, offset: u64, len: u64) {
        match self {
            DatasetSource::File(s) => s.will_need(offset, len),
            #[cfg(feature = "object-store")]
            DatasetSource::Object(s) => s.will_need(offset, len),
        }
    }

    fn prefetch(&self, ranges: &[(u64, u64)]) {
        match self {
            DatasetSource::File(s) => s.prefetch(ranges),
            #[cfg(feature = "object-store")]
            DatasetSource::Object(s) => s.prefetch(ranges),
        }
    }

    fn fetch_cost(&self, ranges: &[(u64, u64)]) -> Option<(usize, u64)> {
        match self {
            DatasetSource::File(s) => s.fetch_cost(ranges),
            #[cfg(feature = "object-store")]
            DatasetSource::Object(s) => s.fetch_cost(ranges),
        }
    }

    fn in_memory(&self, offset: u64, len: usize) -> bool {
        match self {
            DatasetSource::File(s) => s.in_memory(offset, len),
            #[cfg(feature = "object-store")]
            DatasetSource::Object(s) => s.in_memory(offset, len),
        }
    }

    fn held_from(&self, offset: u64) -> u64 {
        match self {
            DatasetSource::File(s) => s.held_from(offset),
            #[cfg(feature = "object-store")]
            DatasetSource::Object(s) => s.held_from(offset),
        }
    }

    fn read_at_after(&self, head: Vec<u8>, offset: u64, len: usize) -> Result<Buffer> {
        match self {
            DatasetSource::File(s) => s.read_at_after(head, offset, len),
            #[cfg(feature = "object-store")]
            DatasetSource::Object(s) => s.read_at_after(head, offset, len),
        }
    }
}
