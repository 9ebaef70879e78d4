//! Where a file's bytes come from: a file (positional reads), any `Read + Seek` (a cursor),
//! or bytes in memory.
//!
//! Sources read through `&self`, so that threads decoding different column chunks can share
//! one: a file is read with positional reads (no shared cursor), a generic reader behind a
//! lock, and memory needs neither.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

use arrow_buffer::Buffer;

use crate::error::{Error, Result};

/// A random-access source of a Parquet file's bytes.
///
/// Reads return Arrow [`Buffer`]s so that decoded arrays can point into them without a copy:
/// an in-memory source hands out slices of its own buffer, a reader source reads into a fresh
/// allocation of exactly the requested size. Sources are shared by the threads that decode
/// column chunks at once, hence `Send + Sync` and reads through `&self`.
pub trait ChunkSource: Send + Sync {
    /// The total length of the file.
    fn len(&self) -> u64;

    /// Whether the file is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Reads exactly `len` bytes at `offset`.
    fn read_at(&self, offset: u64, len: usize) -> Result<Buffer> {
        self.read_at_reusing(offset, len, Vec::new())
    }

    /// Like [`read_at`](Self::read_at), but may read into `spare` (an allocation the caller no
    /// longer needs) instead of a fresh one: reusing page-sized buffers avoids a fresh
    /// allocation, and the kernel's zeroing of its memory, for every page.
    fn read_at_reusing(&self, offset: u64, len: usize, spare: Vec<u8>) -> Result<Buffer>;

    /// Says that `len` bytes at `offset` (a column chunk) will be read soon. A memory-mapped
    /// source maps them in one call instead of one page fault per 64 KiB; others ignore it.
    fn will_need(&self, offset: u64, len: u64) {
        let _ = (offset, len);
    }

    /// Says that these byte ranges `(offset, len)` (the selected column chunks of the row
    /// groups about to be read) will be read soon. A remote source fetches them now, merged
    /// and concurrently, so that page reads cost no request each; others ignore it.
    fn prefetch(&self, ranges: &[(u64, u64)]) {
        let _ = ranges;
    }

    /// What fetching these byte ranges `(offset, len)` ahead would cost a remote source: the
    /// requests it would send and the bytes they would bring (what it holds already left
    /// out, the rest merged as [`prefetch`](Self::prefetch) merges it). `None` where reading
    /// costs no request: a reader then has no fetch to shape.
    fn fetch_cost(&self, ranges: &[(u64, u64)]) -> Option<(usize, u64)> {
        let _ = ranges;
        None
    }

    /// Whether `len` bytes at `offset` are in memory, so that reading them (again) costs no
    /// I/O: then a page is better read as a slice than by copying a part already read.
    fn in_memory(&self, offset: u64, len: usize) -> bool {
        let _ = (offset, len);
        false
    }

    /// How many bytes from `offset` on a remote source holds (fetched or being fetched), or 0
    /// where it holds none or reading costs no request: a page stream then keeps its
    /// read-ahead window within them, rather than paying a request for bytes past the pages
    /// it was told it will read.
    fn held_from(&self, offset: u64) -> u64 {
        let _ = offset;
        0
    }

    /// Reads `len` bytes at `offset` after the bytes already in `head` and returns them all:
    /// a page whose first bytes were read with its header is completed without reading those
    /// bytes again.
    fn read_at_after(&self, head: Vec<u8>, offset: u64, len: usize) -> Result<Buffer> {
        let rest = self.read_at(offset, len)?;
        let mut all = head;
        all.extend_from_slice(rest.as_slice());
        Ok(Buffer::from_vec(all))
    }
}

/// A source over a file, read with positional reads (`pread`): threads share it without a
/// lock or a shared position.
#[derive(Debug)]
pub struct FileSource {
    file: File,
    len: u64,
}

impl FileSource {
    /// Wraps an open file, taking its length from its metadata.
    pub fn new(file: File) -> Result<Self> {
        let len = file.metadata().map_err(|e| Error::io("finding the file size", e))?.len();
        Ok(FileSource { file, len })
    }
}

impl ChunkSource for FileSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at_reusing(&self, offset: u64, len: usize, spare: Vec<u8>) -> Result<Buffer> {
        let mut buf = spare;
        buf.clear();
        self.read_at_after(buf, offset, len)
    }

    fn read_at_after(&self, head: Vec<u8>, offset: u64, len: usize) -> Result<Buffer> {
        check_range(offset, len, self.len)?;
        let mut buf = head;
        buf.reserve_exact(len);
        let mut done = 0;
        while done < len {
            let n = pread(&self.file, &mut buf, len - done, offset + done as u64)
                .map_err(|e| Error::io(format!("reading {len} bytes at {offset}"), e))?;
            if n == 0 {
                return Err(Error::corrupt(format!("file ended after {done} of {len} bytes at offset {offset}")));
            }
            done += n;
        }
        Ok(Buffer::from_vec(buf))
    }
}

/// Appends up to `max` bytes read at `offset` to `buf` (which has room for them) with one
/// positional read, straight into its spare capacity: nothing is zeroed first.
#[cfg(unix)]
fn pread(file: &File, buf: &mut Vec<u8>, max: usize, offset: u64) -> std::io::Result<usize> {
    use std::os::fd::AsRawFd;
    let max = max.min(buf.capacity() - buf.len()).min(isize::MAX as usize);
    let offset = libc::off_t::try_from(offset).map_err(std::io::Error::other)?;
    // SAFETY: the destination is the vector's spare capacity, of at least `max` bytes; pread
    // writes at most `max` bytes there and returns how many (or -1), and only those are then
    // counted as initialised. No reference to uninitialised memory is made.
    let n = unsafe { libc::pread(file.as_raw_fd(), buf.as_mut_ptr().add(buf.len()).cast(), max, offset) };
    if n < 0 {
        let e = std::io::Error::last_os_error();
        if e.kind() == std::io::ErrorKind::Interrupted {
            return pread(file, buf, max, offset as u64);
        }
        return Err(e);
    }
    let n = n as usize;
    // SAFETY: pread initialised the `n` bytes after the old length (n <= max <= spare).
    unsafe { buf.set_len(buf.len() + n) };
    Ok(n)
}

/// Appends up to `max` bytes read at `offset` to `buf` with one positional read (zeroing
/// the room first: Windows has no read into uninitialised memory in std).
#[cfg(windows)]
fn pread(file: &File, buf: &mut Vec<u8>, max: usize, offset: u64) -> std::io::Result<usize> {
    let before = buf.len();
    buf.resize(before + max, 0);
    let n = std::os::windows::fs::FileExt::seek_read(file, &mut buf[before..], offset);
    buf.truncate(before + *n.as_ref().unwrap_or(&0));
    n
}

/// Checks that `len` bytes at `offset` lie inside a file of `file_len` bytes.
fn check_range(offset: u64, len: usize, file_len: u64) -> Result<()> {
    if offset.checked_add(len as u64).is_none_or(|end| end > file_len) {
        return Err(Error::corrupt(format!(
            "bytes {offset}..{} lie past the end of the file ({file_len} bytes)",
            offset.saturating_add(len as u64),
        )));
    }
    Ok(())
}

/// A source over any `Read + Seek`, behind a lock (a seek and a read must not interleave
/// with another thread's).
#[derive(Debug)]
pub struct ReaderSource<R> {
    reader: Mutex<R>,
    len: u64,
}

impl<R: Read + Seek> ReaderSource<R> {
    /// Wraps a reader, finding its length by seeking to the end.
    pub fn new(mut reader: R) -> Result<Self> {
        let len = reader.seek(SeekFrom::End(0)).map_err(|e| Error::io("finding the file size", e))?;
        Ok(ReaderSource { reader: Mutex::new(reader), len })
    }

    /// The wrapped reader.
    pub fn get_mut(&mut self) -> &mut R {
        self.reader.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl<R: Read + Seek + Send> ChunkSource for ReaderSource<R> {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at_reusing(&self, offset: u64, len: usize, spare: Vec<u8>) -> Result<Buffer> {
        let mut buf = spare;
        buf.clear();
        self.read_at_after(buf, offset, len)
    }

    fn read_at_after(&self, head: Vec<u8>, offset: u64, len: usize) -> Result<Buffer> {
        check_range(offset, len, self.len)?;
        let mut reader = self.reader.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        reader.seek(SeekFrom::Start(offset)).map_err(|e| Error::io(format!("seeking to byte {offset}"), e))?;
        // read_to_end writes into the spare capacity without zero-filling it first.
        let mut buf = head;
        let before = buf.len();
        buf.reserve_exact(len);
        (&mut *reader)
            .take(len as u64)
            .read_to_end(&mut buf)
            .map_err(|e| Error::io(format!("reading {len} bytes at {offset}"), e))?;
        if buf.len() - before != len {
            return Err(Error::corrupt(format!(
                "file ended after {} of {len} bytes at offset {offset}",
                buf.len() - before
            )));
        }
        Ok(Buffer::from_vec(buf))
    }
}

/// A source over a whole file already in memory (or memory-mapped); reads are zero-copy
/// slices.
#[derive(Debug, Clone)]
pub struct BytesSource {
    bytes: Buffer,
    /// The mapping behind `bytes`, when there is one: for [`ChunkSource::will_need`].
    map: Option<Arc<memmap2::Mmap>>,
}

impl BytesSource {
    /// Wraps the bytes of a whole file.
    pub fn new(bytes: impl Into<Buffer>) -> Self {
        BytesSource { bytes: bytes.into(), map: None }
    }

    /// Maps a whole file into memory: pages are then slices of the page cache, with no
    /// `read` copy of the file (the largest cost of reading uncompressed files), and views
    /// over uncompressed pages point straight into the mapping.
    ///
    /// # Safety
    ///
    /// The file must not be truncated or modified, by this or any other process, while the
    /// source or any buffer read from it (including arrays decoded from it) is alive:
    /// truncation makes the next access to the lost pages fail with `SIGBUS`, and a
    /// modification changes bytes that were already validated (e.g. as UTF-8) under the
    /// arrays that point into them. This is the contract of every memory map (see
    /// `memmap2::Mmap::map`).
    pub unsafe fn map(file: &File) -> Result<Self> {
        let len = file.metadata().map_err(|e| Error::io("finding the file size", e))?.len();
        if len == 0 {
            // A zero-length mapping is an error on most systems; an empty file is simply empty.
            return Ok(BytesSource::new(Vec::<u8>::new()));
        }
        // SAFETY: the caller promises the file is neither truncated nor modified while the
        // mapping (kept alive by every buffer sliced from it) exists.
        let map = unsafe { memmap2::Mmap::map(file) }.map_err(|e| Error::io("mapping the file", e))?;
        let map = Arc::new(map);
        let ptr = NonNull::new(map.as_ptr().cast_mut())
            .ok_or_else(|| Error::io("mapping the file", std::io::Error::other("the mapping has a null address")))?;
        let len = map.len();
        // SAFETY: `ptr..ptr + len` is the mapping, readable for as long as `map` lives; the
        // buffer owns `map` through the Arc, so every slice of it keeps the mapping alive.
        let bytes = unsafe { Buffer::from_custom_allocation(ptr, len, Arc::clone(&map) as _) };
        Ok(BytesSource { bytes, map: Some(map) })
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

    fn read_at_reusing(&self, offset: u64, len: usize, _spare: Vec<u8>) -> Result<Buffer> {
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

    fn in_memory(&self, _offset: u64, _len: usize) -> bool {
        true
    }

    fn will_need(&self, offset: u64, len: u64) {
        let Some(map) = &self.map else { return };
        let (Ok(offset), Ok(len)) = (usize::try_from(offset), usize::try_from(len)) else { return };
        if offset.checked_add(len).is_some_and(|end| end <= map.len()) {
            // Mapping the whole chunk at once costs a fraction of faulting it in 64 KiB at a
            // time (plain_none: 66 -> 58 ms). A failure (an old kernel without
            // MADV_POPULATE_READ) only loses that gain; the pages still fault in on use.
            #[cfg(target_os = "linux")]
            let _ = map.advise_range(memmap2::Advice::PopulateRead, offset, len);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn temp_file(name: &str, bytes: &[u8]) -> (std::path::PathBuf, File) {
        let path = std::env::temp_dir().join(format!("parquetry-source-{}-{name}", std::process::id()));
        File::create(&path).and_then(|mut f| f.write_all(bytes)).expect("write temp file");
        let file = File::open(&path).expect("open temp file");
        (path, file)
    }

    #[test]
    fn a_mapped_file_reads_like_its_bytes_and_outlives_its_source() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let (path, file) = temp_file("map", &data);
        // SAFETY: the temp file is this test's own and is not modified while mapped.
        let source = unsafe { BytesSource::map(&file) }.unwrap();
        assert_eq!(source.len(), data.len() as u64);
        // The first and last byte of the mapping, and a slice that outlives the source.
        assert_eq!(source.read_at(0, 1).unwrap().as_slice(), &data[..1]);
        let tail = source.read_at(data.len() as u64 - 1, 1).unwrap();
        let middle = source.read_at(4093, 5000).unwrap();
        assert!(source.read_at(data.len() as u64 - 1, 2).is_err());
        // Hints inside, at the end and past the end of the mapping never fail or panic.
        source.will_need(0, data.len() as u64);
        source.will_need(data.len() as u64, 0);
        source.will_need(data.len() as u64 - 1, 2);
        source.will_need(u64::MAX, u64::MAX);
        drop(source);
        drop(file);
        assert_eq!(tail.as_slice(), &data[data.len() - 1..]);
        assert_eq!(middle.as_slice(), &data[4093..9093]);
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn an_empty_file_maps_to_an_empty_source() {
        let (path, file) = temp_file("empty", &[]);
        // SAFETY: the temp file is this test's own and is not modified while mapped.
        let source = unsafe { BytesSource::map(&file) }.unwrap();
        assert_eq!(source.len(), 0);
        assert!(source.read_at(0, 1).is_err());
        assert_eq!(source.read_at(0, 0).unwrap().len(), 0);
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn positional_reads_from_threads_get_their_own_bytes() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i * 13 % 251) as u8).collect();
        let (path, file) = temp_file("pread", &data);
        let source = FileSource::new(file).unwrap();
        assert_eq!(source.len(), data.len() as u64);
        // Two threads reading interleaved ranges through one shared source: no shared cursor.
        std::thread::scope(|s| {
            for t in 0..2u64 {
                let (source, data) = (&source, &data);
                s.spawn(move || {
                    for k in 0..50u64 {
                        let at = (k * 3_989 + t * 17) as usize;
                        let got = source.read_at_reusing(at as u64, 1_000, Vec::with_capacity(10)).unwrap();
                        assert_eq!(got.as_slice(), &data[at..at + 1_000]);
                    }
                });
            }
        });
        assert_eq!(source.read_at(data.len() as u64 - 3, 3).unwrap().as_slice(), &data[data.len() - 3..]);
        assert!(source.read_at(data.len() as u64 - 3, 4).is_err());
        assert!(source.read_at(u64::MAX, 1).is_err());
        let _ = std::fs::remove_file(path);
    }
}
