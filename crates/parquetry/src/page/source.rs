//! Where a file's bytes come from: a `Read + Seek` (a file, a cursor) or bytes in memory.

use std::io::{Read, Seek, SeekFrom};

use arrow_buffer::Buffer;

use crate::error::{Error, Result};

/// A random-access source of a Parquet file's bytes.
///
/// Reads return Arrow [`Buffer`]s so that decoded arrays can point into them without a copy:
/// an in-memory source hands out slices of its own buffer, a reader source reads into a fresh
/// allocation of exactly the requested size.
pub trait ChunkSource {
    /// The total length of the file.
    fn len(&self) -> u64;

    /// Whether the file is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Reads exactly `len` bytes at `offset`.
    fn read_at(&mut self, offset: u64, len: usize) -> Result<Buffer> {
        self.read_at_reusing(offset, len, Vec::new())
    }

    /// Like [`read_at`](Self::read_at), but may read into `spare` (an allocation the caller no
    /// longer needs) instead of a fresh one: reusing page-sized buffers avoids a fresh
    /// allocation, and the kernel's zeroing of its memory, for every page.
    fn read_at_reusing(&mut self, offset: u64, len: usize, spare: Vec<u8>) -> Result<Buffer>;
}

/// A source over any `Read + Seek`.
#[derive(Debug)]
pub struct ReaderSource<R> {
    reader: R,
    len: u64,
}

impl<R: Read + Seek> ReaderSource<R> {
    /// Wraps a reader, finding its length by seeking to the end.
    pub fn new(mut reader: R) -> Result<Self> {
        let len = reader.seek(SeekFrom::End(0)).map_err(|e| Error::io("finding the file size", e))?;
        Ok(ReaderSource { reader, len })
    }

    /// The wrapped reader.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.reader
    }
}

impl<R: Read + Seek> ChunkSource for ReaderSource<R> {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at_reusing(&mut self, offset: u64, len: usize, spare: Vec<u8>) -> Result<Buffer> {
        if offset.checked_add(len as u64).is_none_or(|end| end > self.len) {
            return Err(Error::corrupt(format!(
                "bytes {offset}..{} lie past the end of the file ({} bytes)",
                offset.saturating_add(len as u64),
                self.len
            )));
        }
        self.reader
            .seek(SeekFrom::Start(offset))
            .map_err(|e| Error::io(format!("seeking to byte {offset}"), e))?;
        // read_to_end writes into the spare capacity without zero-filling it first.
        let mut buf = spare;
        buf.clear();
        buf.reserve_exact(len);
        (&mut self.reader)
            .take(len as u64)
            .read_to_end(&mut buf)
            .map_err(|e| Error::io(format!("reading {len} bytes at {offset}"), e))?;
        if buf.len() != len {
            return Err(Error::corrupt(format!(
                "file ended after {} of {len} bytes at offset {offset}",
                buf.len()
            )));
        }
        Ok(Buffer::from_vec(buf))
    }
}

/// A source over a whole file already in memory; reads are zero-copy slices.
#[derive(Debug, Clone)]
pub struct BytesSource {
    bytes: Buffer,
}

impl BytesSource {
    /// Wraps the bytes of a whole file.
    pub fn new(bytes: impl Into<Buffer>) -> Self {
        BytesSource { bytes: bytes.into() }
    }

    /// All the bytes.
    pub fn bytes(&self) -> &Buffer {
        &self.bytes
    }
}

impl ChunkSource for BytesSource {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn read_at_reusing(&mut self, offset: u64, len: usize, _spare: Vec<u8>) -> Result<Buffer> {
        let end = offset.checked_add(len as u64);
        if end.is_none_or(|end| end > self.bytes.len() as u64) {
            return Err(Error::corrupt(format!(
                "bytes {offset}..{} lie past the end of the file ({} bytes)",
                offset.saturating_add(len as u64),
                self.bytes.len()
            )));
        }
        Ok(self.bytes.slice_with_length(offset as usize, len))
    }
}
