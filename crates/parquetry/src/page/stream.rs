//! Streaming the pages of one column chunk from a [`ChunkSource`].
//!
//! Pages are read one at a time so that reading a whole file holds at most one page of input
//! besides the output (not the whole compressed chunk). Headers are found in a read-ahead
//! window; a page body that lies in the window is a zero-copy slice of it, a larger body is
//! read into its own buffer of exactly its size.

use arrow_buffer::Buffer;

use super::chunk::chunk_byte_range;
use super::source::ChunkSource;
use crate::error::{Error, Result};
use crate::format::{thrift, ColumnMetaData, PageHeader};

/// How much to read ahead for page headers: enough for several small pages at once.
const WINDOW: usize = 64 * 1024;
/// Buffers larger than this are not kept for reuse: data pages are about a megabyte, and
/// keeping a (much larger) dictionary page's buffer alive for the rest of the chunk would
/// cost more memory than reusing it saves time.
pub const MAX_RECYCLED: usize = 8 << 20;
/// The read-ahead for a page header after a page that was passed over: the next is likely
/// passed over too, and then only its header is wanted (a longer one widens the read).
const SKIP_WINDOW: usize = 4096;
/// Room beyond the last page's size when reading the next: for a larger header (statistics)
/// or body.
const PAGE_SLACK: usize = 4096;
/// A page header larger than this is not a real header (even with long statistics).
const MAX_HEADER: usize = 16 * 1024 * 1024;

/// One page as stored: header and (possibly compressed) body.
#[derive(Debug, Clone)]
pub struct Page {
    /// The decoded header.
    pub header: PageHeader,
    /// The stored body, `compressed_page_size` bytes.
    pub body: Buffer,
    /// The page's position in the chunk (0 for the first page).
    pub index: usize,
    /// File offset of the page header.
    pub offset: u64,
}

/// What [`PageStream::next_page_unless`] found.
#[derive(Debug)]
pub enum Next {
    /// A page, header and body.
    Page(Page),
    /// A page passed over: its header only, the body not read.
    Skipped(PageHeader),
}

/// The pages of one column chunk, read on demand.
#[derive(Debug)]
pub struct PageStream {
    pos: u64,
    end: u64,
    window: Buffer,
    window_start: u64,
    values_left: i64,
    index: usize,
    /// An allocation given back by [`recycle`](Self::recycle), for the next read.
    spare: Vec<u8>,
    /// The bytes the last page took, header and body: the next page is read with its
    /// header in one read of about that size, since a chunk's pages are alike.
    last_page_len: usize,
    /// Whether the last page was passed over: the next is likely to be too, so its header
    /// is read with a small window rather than a page's worth.
    last_skipped: bool,
}

impl PageStream {
    /// A stream over the chunk described by `meta` in a file of `file_len` bytes; `padding`
    /// widens the chunk for writers with the PARQUET-816 bug ([`super::has_parquet_816_bug`]).
    pub fn new(meta: &ColumnMetaData, file_len: u64, padding: bool) -> Result<Self> {
        let (start, len) = chunk_byte_range(meta, file_len, padding)?;
        Ok(PageStream {
            pos: start,
            end: start + len,
            window: Buffer::from_vec(Vec::<u8>::new()),
            window_start: start,
            values_left: meta.num_values,
            index: 0,
            spare: Vec::new(),
            last_page_len: 0,
            last_skipped: false,
        })
    }

    /// Where the next page starts in the file.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// How many pages were read or passed over so far (the index of the next page).
    pub fn pages_passed(&self) -> usize {
        self.index
    }

    /// Moves on to the page at file offset `offset` (found in the chunk's OffsetIndex),
    /// passing over the `pages` pages before it, which hold `values` values, without reading
    /// them. The offset must lie ahead, inside the chunk.
    pub fn seek(&mut self, offset: u64, pages: usize, values: i64) -> Result<()> {
        if offset < self.pos || offset >= self.end {
            return Err(Error::corrupt(format!(
                "offset index: a page at byte {offset} lies outside the rest of the column chunk \
                 ({}..{})",
                self.pos, self.end
            )));
        }
        self.pos = offset;
        self.index += pages;
        self.values_left -= values;
        self.last_skipped = true;
        Ok(())
    }

    /// The chunk's bytes in the file: offset and length (padding included).
    pub fn byte_range(&self) -> (u64, u64) {
        (self.pos, self.end - self.pos)
    }

    fn window_end(&self) -> u64 {
        self.window_start + self.window.len() as u64
    }

    /// Makes the window cover at least `want` bytes from `pos` (or up to the chunk's end).
    fn fill<S: ChunkSource>(&mut self, source: &S, want: usize) -> Result<()> {
        let mut len = (want as u64).min(self.end - self.pos) as usize;
        // Within what a remote source holds from here (the pages it was told are read): the
        // bytes after them would cost a request of their own (a header cut at the end is
        // widened as usual).
        let held = source.held_from(self.pos);
        if held > 0 && held < len as u64 {
            len = held as usize;
        }
        let old = std::mem::replace(&mut self.window, Buffer::from_vec(Vec::<u8>::new()));
        self.recycle(old);
        self.window = source.read_at_reusing(self.pos, len, std::mem::take(&mut self.spare))?;
        self.window_start = self.pos;
        Ok(())
    }

    /// Makes the window cover `want` bytes from `pos` (or up to the chunk's end), keeping the
    /// bytes from `pos` it already holds (a header cut by the window's end) and reading only
    /// those after them.
    fn widen<S: ChunkSource>(&mut self, source: &S, want: usize) -> Result<()> {
        let have = self.window_end().saturating_sub(self.pos) as usize;
        let len = (want as u64).min(self.end - self.pos) as usize;
        if have == 0 || len <= have || source.in_memory(self.window_end(), len - have) {
            return self.fill(source, want);
        }
        let mut head = std::mem::take(&mut self.spare);
        head.clear();
        head.reserve_exact(len);
        head.extend_from_slice(&self.window.as_slice()[self.window.len() - have..]);
        let window = source.read_at_after(head, self.window_end(), len - have)?;
        let old = std::mem::replace(&mut self.window, window);
        self.recycle(old);
        self.window_start = self.pos;
        Ok(())
    }

    /// Takes back a buffer that came from this stream (a page body, or anything else no
    /// longer referenced elsewhere) so the next read can reuse its allocation.
    pub fn recycle(&mut self, buffer: Buffer) {
        if let Ok(v) = buffer.into_vec::<u8>() {
            if v.capacity() > self.spare.capacity() && v.capacity() <= MAX_RECYCLED {
                self.spare = v;
            }
        }
    }

    /// The next page, or `None` after the last one.
    ///
    /// The chunk ends when the data pages have delivered the chunk's `num_values` or when its
    /// bytes run out, whichever comes first: some writers leave padding after the last page.
    pub fn next_page<S: ChunkSource>(&mut self, source: &S) -> Result<Option<Page>> {
        self.next_page_unless(source, |_| false).map(|p| match p {
            Some(Next::Page(page)) => Some(page),
            _ => None,
        })
    }

    /// Like [`next_page`](Self::next_page), but a page whose header `skip` accepts is passed
    /// over without its body being read (a row selection's pages outside the rows it wants).
    pub fn next_page_unless<S: ChunkSource>(
        &mut self,
        source: &S,
        skip: impl FnOnce(&PageHeader) -> bool,
    ) -> Result<Option<Next>> {
        if self.pos >= self.end || self.values_left <= 0 {
            return Ok(None);
        }
        let index = self.index;
        let offset = self.pos;
        self.read_page(source, skip).map(Some).map_err(|e| {
            // Once a page is bad, nothing after it can be located: end the stream.
            self.pos = self.end;
            e.context(format_args!("page {index} at file offset {offset}"))
        })
    }

    fn read_page<S: ChunkSource>(&mut self, source: &S, skip: impl FnOnce(&PageHeader) -> bool) -> Result<Next> {
        // Enough for a page like the last one and its header, so that a page usually comes
        // in one read (header and body together, the body a slice of it): no second read of
        // the body's first bytes and one buffer per page to recycle.
        let mut want = match self.last_skipped {
            true => SKIP_WINDOW,
            false => WINDOW.max(self.last_page_len.saturating_add(PAGE_SLACK)).min(MAX_RECYCLED),
        };
        let (header, header_len) = loop {
            if self.pos < self.window_start || self.pos >= self.window_end() {
                self.fill(source, want)?;
            }
            let at = (self.pos - self.window_start) as usize;
            let avail = &self.window.as_slice()[at..];
            match thrift::decode::<PageHeader>(avail) {
                Ok(h) => break h,
                // The header may continue past the window: widen it while the chunk has
                // more bytes, up to a bound no real header reaches.
                Err(e) => {
                    let more = self.window_end() < self.end;
                    if !more || avail.len() >= MAX_HEADER {
                        return Err(e);
                    }
                    want = avail.len().saturating_mul(2).max(WINDOW);
                    self.widen(source, want)?;
                }
            }
        };
        let size = header.compressed_page_size;
        if size < 0 || header.uncompressed_page_size < 0 {
            return Err(Error::corrupt(format!(
                "negative page size (compressed {size}, uncompressed {})",
                header.uncompressed_page_size
            )));
        }
        let size = size as usize;
        let body_start = self.pos + header_len as u64;
        if body_start + size as u64 > self.end {
            return Err(Error::corrupt(format!(
                "page body of {size} bytes runs past the end of the column chunk ({} bytes left)",
                self.end.saturating_sub(body_start)
            )));
        }
        self.last_skipped = skip(&header);
        if self.last_skipped {
            self.pos = body_start + size as u64;
            self.index += 1;
            self.count_values(&header);
            return Ok(Next::Skipped(header));
        }
        let body = if body_start + size as u64 <= self.window_end() {
            self.window.slice_with_length((body_start - self.window_start) as usize, size)
        } else if body_start >= self.window_end() || source.in_memory(body_start, size) {
            source.read_at_reusing(body_start, size, std::mem::take(&mut self.spare))?
        } else {
            // The body's first bytes came with the header: keep them and read only the rest,
            // so that each byte of the chunk is read once (reading the body whole cost 11-26%
            // more bytes than the chunks hold, and a request per chunk on an object store).
            let have = (self.window_end() - body_start) as usize;
            let mut head = std::mem::take(&mut self.spare);
            head.clear();
            head.reserve_exact(size);
            head.extend_from_slice(&self.window.as_slice()[self.window.len() - have..]);
            source.read_at_after(head, self.window_end(), size - have)?
        };
        let page = Page { header, body, index: self.index, offset: self.pos };
        self.last_page_len = header_len + size;
        self.pos = body_start + size as u64;
        self.index += 1;
        self.count_values(&page.header);
        Ok(Next::Page(page))
    }

    /// Counts a data page's values against the chunk's. A negative count counts as 0 (the
    /// page's reader rejects it): `values_left` (positive while pages are read) minus a
    /// non-negative i32 cannot overflow.
    fn count_values(&mut self, header: &PageHeader) {
        if let Some(h) = &header.data_page_header {
            self.values_left -= i64::from(h.num_values.max(0));
        } else if let Some(h) = &header.data_page_header_v2 {
            self.values_left -= i64::from(h.num_values.max(0));
        }
    }
}
