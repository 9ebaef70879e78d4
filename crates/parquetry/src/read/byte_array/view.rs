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
    check_count, check_dict_utf8, check_dictionary_encoding, check_null_rows, check_utf8_lengths,
    check_utf8_offsets, check_utf8_plain, for_each_index_run, is_dictionary_encoded,
    no_dictionary, page_rows, unsupported_encoding, utf8_error_at, Scratch,
};
use crate::encoding::delta_byte_array::DeltaByteArrayDecoder;
use crate::encoding::delta_length_byte_array::DeltaLengthByteArrayDecoder;
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
    scratch: Scratch,
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

/// The page's values section as a buffer that views may point into (positions relative to
/// `page.data`), after checking that `page.data` really is that part of `page.buffer`: the
/// views are built from `page.data` and read through the buffer.
pub(super) fn page_buffer(page: &PageValues<'_>) -> Result<Buffer> {
    let end = page.offset.checked_add(page.data.len());
    let section = end.and_then(|end| page.buffer.as_slice().get(page.offset..end));
    match section {
        Some(s) if std::ptr::eq(s.as_ptr(), page.data.as_ptr()) => {
            Ok(page.buffer.slice_with_length(page.offset, page.data.len()))
        }
        _ => Err(Error::invalid_argument(format!(
            "page values of {} bytes are not at offset {} of the page buffer",
            page.data.len(),
            page.offset
        ))),
    }
}

/// Index of the next buffer pushed to `buffers`, as a view stores it.
fn next_index(buffers: &[Buffer]) -> Result<u32> {
    u32::try_from(buffers.len()).map_err(|_| Error::invalid_argument("too many view buffers"))
}

impl ViewDecoder {
    /// A decoder for a `Utf8View` (`utf8`) or `BinaryView` output.
    pub(super) fn new(utf8: bool) -> Self {
        Self {
            utf8,
            sink: ViewSink::new(u32::MAX),
            buffers: Vec::new(),
            dict: None,
            scratch: Scratch::default(),
            arena_offsets: Vec::new(),
        }
    }

    /// Appends the page's values densely (no null slots yet).
    fn append_values(&mut self, page: &PageValues<'_>, base: usize) -> Result<()> {
        let n = page.num_values;
        match page.encoding {
            e if is_dictionary_encoded(e) => self.gather(page),
            Encoding::PLAIN => {
                let buffer = page_buffer(page)?;
                self.sink.page_buffer_index = next_index(&self.buffers)?;
                self.sink.plain_length_bits = 0;
                let end = decode_byte_array(page.data, 0, n, &mut self.sink)?;
                if self.utf8 {
                    // With every length below 128, each 4-byte prefix is ASCII ([len, 0, 0, 0]):
                    // no UTF-8 sequence can run across it, so one pass over the whole page
                    // validates each value. Otherwise check value run by value run.
                    let ascii_prefixes = self.sink.plain_length_bits < 128;
                    if !ascii_prefixes || utf8_error_at(&page.data[..end]).is_some() {
                        check_utf8_plain(page.data, n)?;
                    }
                }
                self.keep_if_used(buffer, base);
                Ok(())
            }
            Encoding::DELTA_LENGTH_BYTE_ARRAY => {
                let buffer = page_buffer(page)?;
                let lengths = std::mem::take(&mut self.scratch.lengths);
                let mut d = DeltaLengthByteArrayDecoder::with_buffer(page.data, 0, n, lengths)?;
                check_count("DELTA_LENGTH_BYTE_ARRAY", d.len(), n)?;
                if self.utf8 {
                    // The value bytes are the end of the data, back to back: one validation.
                    let total: usize = d.lengths().iter().map(|&l| l as usize).sum();
                    let region = page.data.get(d.end() - total..d.end()).unwrap_or_default();
                    check_utf8_lengths(region, d.lengths())?;
                }
                self.sink.page_buffer_index = next_index(&self.buffers)?;
                d.decode(n, &mut self.sink)?;
                self.scratch.lengths = d.into_buffer();
                self.keep_if_used(buffer, base);
                Ok(())
            }
            Encoding::DELTA_BYTE_ARRAY => self.delta_byte_array(page),
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
    fn delta_byte_array(&mut self, page: &PageValues<'_>) -> Result<()> {
        let n = page.num_values;
        let buffers = std::mem::take(&mut self.scratch.delta);
        let mut d = DeltaByteArrayDecoder::with_buffers(page.data, 0, n, buffers)?;
        check_count("DELTA_BYTE_ARRAY", d.len(), n)?;
        let bytes = d.value_bytes();
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
        d.decode(n, &mut arena)?;
        self.scratch.delta = d.into_buffers();
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
    fn gather(&mut self, page: &PageValues<'_>) -> Result<()> {
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
        // In bounds: for_each_index_run checks every index against dv.len() first.
        for_each_index_run(page, dv.len(), |run| match run {
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

    fn set_dictionary(&mut self, page: &PageValues<'_>) -> Result<()> {
        check_dictionary_encoding(page)?;
        let buffer = page_buffer(page)?;
        let (data, n) = (page.data, page.num_values);
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
        self.dict =
            Some(ViewDict { views: sink.views, buffer, has_long, baked: 0, registered: None });
        Ok(())
    }

    fn append_page(
        &mut self,
        page: &PageValues<'_>,
        validity: Option<&Validity<'_>>,
    ) -> Result<()> {
        page_rows(page, validity)?;
        let base = self.sink.views.len();
        let buffers = self.buffers.len();
        if let Err(e) = self.append_values(page, base) {
            // Leave the batch as it was before the page, so the decoder stays consistent.
            self.sink.views.truncate(base);
            self.buffers.truncate(buffers);
            return Err(e);
        }
        if let Some(v) = validity {
            // A null view is all zeros: an empty inline value.
            spread_nulls(&mut self.sink.views, base, v);
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
        // address page_buffer checked), the dictionary page's, or a DELTA_BYTE_ARRAY arena;
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
