//! `Utf8View` / `BinaryView`: 16-byte views that point into the pages themselves.
//!
//! PLAIN and DELTA_LENGTH_BYTE_ARRAY pages are not copied at all: their views point into the
//! page buffer, which the batch holds as one of its data buffers (values of at most 12 bytes
//! live inside their views, so a page whose values are all short is not kept). Dictionary
//! views are built once per dictionary page and point into that page; a data page is then
//! one 16-byte copy per index. DELTA_BYTE_ARRAY values do not exist contiguously in the
//! page: each page is rebuilt into one arena that becomes a data buffer.

use std::sync::Arc;

use arrow_array::{ArrayRef, BinaryViewArray, StringViewArray};
use arrow_buffer::{Buffer, NullBuffer, ScalarBuffer};

use super::{
    check_dict_utf8, check_dictionary_encoding, check_null_rows, check_utf8_lengths, check_utf8_offsets,
    check_utf8_plain, is_dictionary_encoded, no_dictionary, page_rows, unsupported_encoding, utf8_error_at,
};
use crate::encoding::plain::decode_byte_array;
use crate::encoding::rle::Run;
use crate::encoding::{extend_views_over_offsets, OffsetsSink, ViewSink};
use crate::error::{Error, Result};
use crate::format::Encoding;
use crate::read::values::{spread_nulls, PageValues, Validity, ValueDecoder};

/// The dictionary as views into the dictionary page's buffer.
#[derive(Debug)]
struct ViewDict {
    /// One view per dictionary value.
    views: Vec<u128>,
    /// The dictionary page's values section.
    buffer: Buffer,
    /// Whether any view points into `buffer` (a value over 12 bytes).
    has_long: bool,
    /// The buffer index written in `views` (rewritten when the batch puts `buffer`
    /// elsewhere).
    baked: u32,
    /// The index of `buffer` in the current batch's buffers, once a page used it.
    registered: Option<u32>,
}

/// Decodes BYTE_ARRAY pages into views, validating UTF-8 if the output is `Utf8View`.
#[derive(Debug)]
pub(super) struct ViewDecoder {
    utf8: bool,
    /// `sink.views` holds the batch's views, one per row.
    sink: ViewSink,
    /// The batch's data buffers: pages, dictionary pages, DELTA_BYTE_ARRAY arenas.
    buffers: Vec<Buffer>,
    dict: Option<ViewDict>,
    /// Offsets of the DELTA_BYTE_ARRAY arena, kept across pages.
    arena_offsets: Vec<i64>,
}

/// The length of the value a view describes.
#[inline]
fn view_len(v: u128) -> u32 {
    v as u32
}

/// Whether any of `views` points into a buffer (rather than holding its value inline).
fn any_long(views: &[u128]) -> bool {
    views.iter().any(|&v| view_len(v) > 12)
}

/// Index of the next buffer pushed to `buffers`, as a view stores it.
fn next_index(buffers: &[Buffer]) -> Result<u32> {
    u32::try_from(buffers.len()).map_err(|_| Error::invalid_argument("too many view buffers"))
}

impl ViewDecoder {
    /// A decoder for a `Utf8View` (`utf8`) or `BinaryView` output.
    pub(super) fn new(utf8: bool) -> Self {
        Self { utf8, sink: ViewSink::new(u32::MAX), buffers: Vec::new(), dict: None, arena_offsets: Vec::new() }
    }

    /// Appends the page's next `n` values densely (no null slots yet). Views point into
    /// the page's section at the positions the page hands the sink.
    fn append_values(&mut self, page: &mut PageValues, n: usize, base: usize) -> Result<()> {
        match page.encoding() {
            e if is_dictionary_encoded(e) => self.gather(page, n),
            Encoding::PLAIN => {
                self.sink.page_buffer_index = next_index(&self.buffers)?;
                self.sink.plain_length_bits = 0;
                let (start, end) = page.read_byte_arrays(n, &mut self.sink)?;
                if self.utf8 {
                    // With every length below 128, each 4-byte prefix is ASCII ([len, 0, 0, 0]):
                    // no UTF-8 sequence can run across it, so one pass over the values read
                    // validates each of them. Otherwise check value run by value run.
                    let ascii_prefixes = self.sink.plain_length_bits < 128;
                    let read = &page.data()[start..end];
                    if !ascii_prefixes || utf8_error_at(read).is_some() {
                        check_utf8_plain(read, n)?;
                    }
                }
                self.keep_if_used(page.buffer().clone(), base);
                Ok(())
            }
            Encoding::DELTA_LENGTH_BYTE_ARRAY => {
                if self.utf8 {
                    // The value bytes lie back to back: one validation.
                    if let Some((lengths, region)) = page.next_delta_lengths(n) {
                        check_utf8_lengths(region, lengths)?;
                    }
                }
                self.sink.page_buffer_index = next_index(&self.buffers)?;
                page.read_byte_arrays(n, &mut self.sink)?;
                self.keep_if_used(page.buffer().clone(), base);
                Ok(())
            }
            Encoding::DELTA_BYTE_ARRAY => self.delta_byte_array(page, n),
            e => Err(unsupported_encoding(e)),
        }
    }

    /// Adds the page's buffer to the batch if a view of the page (from `base` on) uses it.
    fn keep_if_used(&mut self, buffer: Buffer, base: usize) {
        if any_long(&self.sink.views[base..]) {
            self.buffers.push(buffer);
        }
    }

    /// Rebuilds a DELTA_BYTE_ARRAY page into one arena (exactly sized from the prefix and
    /// suffix lengths), validates it as one run, and points views into it.
    fn delta_byte_array(&mut self, page: &mut PageValues, n: usize) -> Result<()> {
        let bytes = page.next_value_bytes(n);
        if bytes > u64::from(u32::MAX) {
            return Err(Error::corrupt(format!(
                "DELTA_BYTE_ARRAY page expands to {bytes} bytes, past the 4 GiB a view can address"
            )));
        }
        let mut offsets = std::mem::take(&mut self.arena_offsets);
        offsets.clear();
        offsets.push(0);
        let mut arena = OffsetsSink::with_capacity(0, bytes as usize);
        arena.offsets = offsets;
        page.read_byte_arrays(n, &mut arena)?;
        if self.utf8 {
            check_utf8_offsets(&arena.data, &arena.offsets)?;
        }
        let index = next_index(&self.buffers)?;
        let long = extend_views_over_offsets(&mut self.sink.views, &arena.data, &arena.offsets, index);
        self.arena_offsets = arena.offsets;
        if long {
            self.buffers.push(Buffer::from_vec(arena.data));
        }
        Ok(())
    }

    /// Appends the dictionary views a page's indexes select (a repeated run is one fill).
    fn gather(&mut self, page: &mut PageValues, n: usize) -> Result<()> {
        let dict = self.dict.as_mut().ok_or_else(no_dictionary)?;
        // The dictionary buffer goes into the batch once, at the first page that uses it.
        let index = match dict.registered {
            Some(i) => i,
            None => next_index(&self.buffers)?,
        };
        if dict.has_long && dict.baked != index {
            for v in dict.views.iter_mut().filter(|v| view_len(**v) > 12) {
                *v = (*v & !(u128::from(u32::MAX) << 64)) | u128::from(index) << 64;
            }
            dict.baked = index;
        }
        let views = &mut self.sink.views;
        let dv = &dict.views;
        // In bounds: read_indexes checks every index against dv.len() first.
        page.read_indexes(n, dv.len(), |run| match run {
            Run::Repeated { value, len } => {
                views.extend(std::iter::repeat_n(dv[value as usize], len));
            }
            Run::Packed(ix) => views.extend(ix.iter().map(|&i| dv[i as usize])),
        })?;
        if dict.has_long && dict.registered.is_none() {
            self.buffers.push(dict.buffer.clone());
            dict.registered = Some(index);
        }
        Ok(())
    }
}

/// Dictionary values a stretch: with the common short strings, tens of KiB, well inside L2.
const DICT_STRETCH_VALUES: usize = 2048;

impl ValueDecoder for ViewDecoder {
    fn reserve(&mut self, rows: usize, _value_bytes: usize) {
        // Value bytes stay in the pages: only the views need room.
        self.sink.views.reserve(rows);
    }

    fn set_dictionary(&mut self, page: &PageValues) -> Result<()> {
        check_dictionary_encoding(page)?;
        let buffer = page.buffer().clone();
        let (data, n) = (page.data(), page.len());
        let mut sink = ViewSink::new(u32::MAX);
        sink.views.reserve(n.min(data.len() / 4));
        // A stretch of values at a time, each checked right after its views were made, while
        // its bytes are still in cache (see PageDict::read).
        let (mut i, mut p) = (0usize, 0usize);
        while i < n {
            let k = (n - i).min(DICT_STRETCH_VALUES);
            sink.plain_length_bits = 0;
            let Ok(end) = decode_byte_array(data, p, k, &mut sink) else {
                // Again over the whole page, so that the error names the value's index in it
                // (the stretch that failed is part of it, so it fails too).
                let again = decode_byte_array(data, 0, n, &mut ViewSink::new(u32::MAX));
                return Err(again.err().unwrap_or_else(|| Error::corrupt("dictionary page: bad value")));
            };
            if self.utf8 {
                check_dict_utf8(data, (i, p), (i + k, end), sink.plain_length_bits)?;
            }
            (i, p) = (i + k, end);
        }
        let has_long = any_long(&sink.views);
        self.dict = Some(ViewDict { views: sink.views, buffer, has_long, baked: 0, registered: None });
        Ok(())
    }

    fn read(&mut self, page: &mut PageValues, values: usize, validity: Option<&Validity<'_>>) -> Result<()> {
        page_rows(values, validity)?;
        let base = self.sink.views.len();
        let buffers = self.buffers.len();
        if let Err(e) = self.append_values(page, values, base) {
            // Leave the batch as it was before the page, so the decoder stays consistent.
            self.sink.views.truncate(base);
            self.buffers.truncate(buffers);
            return Err(e);
        }
        if let Some(v) = validity {
            // A null view is all zeros: an empty inline value.
            spread_nulls(&mut self.sink.views, base, v)?;
        }
        Ok(())
    }

    fn len(&self) -> usize {
        self.sink.views.len()
    }

    fn finish(&mut self, nulls: Option<NullBuffer>) -> Result<ArrayRef> {
        let len = self.sink.views.len();
        check_null_rows(nulls.as_ref(), len)?;
        let views = ScalarBuffer::from(std::mem::take(&mut self.sink.views));
        let buffers: Arc<[Buffer]> = std::mem::take(&mut self.buffers).into();
        if let Some(d) = self.dict.as_mut() {
            d.registered = None;
        }
        // SAFETY (both arms): every view was made (by `make_view`, or for PLAIN values by
        // ViewSink::push_plain_value from the value's own length prefix) from a slice of the buffer
        // whose index it records, at the offset it records: a page's values section (whose
        // which the page hands out whole), the dictionary page's, or a DELTA_BYTE_ARRAY arena;
        // a buffer is in `buffers` whenever a view points into it, and the dictionary views'
        // index is rewritten to where the dictionary buffer sits in this batch. Null views
        // are zero (empty, inline). So every view is in bounds with a correct prefix.
        if self.utf8 {
            // SAFETY (continued): every value was validated as UTF-8: PLAIN pages in one pass
            // when all length prefixes are ASCII (no sequence can cross them), else with
            // check_utf8_plain, DELTA_LENGTH data with check_utf8_lengths, arenas with
            // check_utf8_offsets, and the dictionary page once when it was read.
            Ok(Arc::new(unsafe { StringViewArray::new_unchecked(views, buffers, nulls) }))
        } else {
            Ok(Arc::new(unsafe { BinaryViewArray::new_unchecked(views, buffers, nulls) }))
        }
    }
}
