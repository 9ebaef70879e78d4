//! `Utf8View` / `BinaryView`: 16-byte views that point into the pages themselves.
//!
//! PLAIN and DELTA_LENGTH_BYTE_ARRAY pages are not copied at all: their views point into the
//! page buffer, which the batch holds as one of its data buffers (values of at most 12 bytes
//! live inside their views, so a page whose values are all short is not kept). Dictionary
//! views are built once per dictionary page and point into that page; a data page is then
//! one 16-byte copy per index. DELTA_BYTE_ARRAY values do not exist contiguously in the
//! page: each page is rebuilt into one arena that becomes a data buffer.

use std::sync::Arc;

use arrow_array::ArrayRef;
use arrow_buffer::{Buffer, NullBuffer};

use super::arrays::{view_array, Kind};
use super::utf8::{check_dict_utf8, check_plain_run, check_utf8_lengths, check_utf8_offsets, Utf8Checked};
use super::{check_null_rows, no_dictionary, page_rows};
use crate::encoding::plain::decode_byte_array;
use crate::encoding::{ByteArraySink, OffsetsSink, ViewSink};
use crate::error::{Error, Result};
use crate::read::page_values::ReadBytes;
use crate::read::values::{PageValues, Validity, ValueDecoder};

/// The dictionary as views into the dictionary page's buffer.
#[derive(Debug)]
struct ViewDict {
    /// One view per dictionary value.
    views: ViewSink,
    /// The proof that the values were validated as UTF-8 (of strings).
    proof: Option<Utf8Checked>,
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
    /// `sink.views()` holds the batch's views, one per row.
    sink: ViewSink,
    /// The proof that this batch's values were validated as UTF-8 (of strings); taken by
    /// `finish`.
    proof: Option<Utf8Checked>,
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
        Self {
            utf8,
            sink: ViewSink::new(u32::MAX),
            proof: None,
            buffers: Vec::new(),
            dict: None,
            arena_offsets: Vec::new(),
        }
    }

    /// Appends the page's next `n` values densely (no null slots yet). Views point into
    /// the page's section at the positions the page hands the sink.
    fn append_values(&mut self, page: &mut PageValues, n: usize, base: usize) -> Result<()> {
        if page.holds_indexes() {
            return self.gather(page, n);
        }
        if !page.values_in_section() {
            return self.rebuild(page, n);
        }
        self.sink.set_page_buffer(next_index(&self.buffers)?);
        self.sink.reset_plain_length_bits();
        // Nothing to bound: the values stay in the page, which views point into.
        let read = page.read_byte_arrays(n, &mut self.sink, |_| Ok(()))?;
        if self.utf8 {
            // Views are made before the values are checked; until the proof is set they are
            // no more than positions, and an error leaves the page out (see `read`).
            self.proof = Some(match read {
                ReadBytes::Prefixed(bytes) => check_plain_run(bytes, n, self.sink.plain_length_bits())?,
                // The value bytes lie back to back: one validation.
                ReadBytes::Packed { lengths, bytes } => check_utf8_lengths(bytes, lengths)?,
                ReadBytes::Rebuilt => return Err(Error::corrupt("byte arrays rebuilt where views were expected")),
            });
        }
        self.keep_if_used(page.buffer().clone(), base);
        Ok(())
    }

    /// Adds the page's buffer to the batch if a view of the page (from `base` on) uses it.
    fn keep_if_used(&mut self, buffer: Buffer, base: usize) {
        if any_long(&self.sink.views()[base..]) {
            self.buffers.push(buffer);
        }
    }

    /// Rebuilds values that are not in the page as they are (DELTA_BYTE_ARRAY) into one
    /// arena (exactly sized from the prefix and suffix lengths), validates it as one run, and
    /// points views into it.
    fn rebuild(&mut self, page: &mut PageValues, n: usize) -> Result<()> {
        let bytes = page.next_value_bytes(n);
        if bytes > u64::from(u32::MAX) {
            return Err(Error::corrupt(format!(
                "a page of byte arrays expands to {bytes} bytes, past the 4 GiB a view can address"
            )));
        }
        let mut arena = OffsetsSink::recycle(std::mem::take(&mut self.arena_offsets), bytes as usize);
        page.read_byte_arrays(n, &mut arena, |_| Ok(()))?;
        if self.utf8 {
            self.proof = Some(check_utf8_offsets(arena.data(), arena.offsets())?);
        }
        let index = next_index(&self.buffers)?;
        let long = self.sink.extend_over_offsets(arena.data(), arena.offsets(), index);
        let (offsets, data) = arena.into_parts();
        self.arena_offsets = offsets;
        if long {
            self.buffers.push(Buffer::from_vec(data));
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
            dict.views.move_buffer(index);
            dict.baked = index;
        }
        let sink = &mut self.sink;
        let dv = &dict.views;
        // In bounds: read_indexes checks every index against dv.len() first.
        page.read_indexes(n, dv.len(), |run| sink.gather(dv, run))?;
        if self.utf8 && n > 0 {
            self.proof = self.proof.or(dict.proof);
        }
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
        self.sink.reserve(rows, 0);
    }

    fn set_dictionary(&mut self, page: &PageValues) -> Result<()> {
        let buffer = page.buffer().clone();
        let (data, n) = (page.data(), page.len());
        let mut sink = ViewSink::new(u32::MAX);
        sink.reserve(n.min(data.len() / 4), 0);
        let mut proof = None;
        // A stretch of values at a time, each checked right after its views were made, while
        // its bytes are still in cache (see PageDict::read).
        let (mut i, mut p) = (0usize, 0usize);
        while i < n {
            let k = (n - i).min(DICT_STRETCH_VALUES);
            sink.reset_plain_length_bits();
            let Ok(end) = decode_byte_array(data, p, k, &mut sink) else {
                // Again over the whole page, so that the error names the value's index in it
                // (the stretch that failed is part of it, so it fails too).
                let again = decode_byte_array(data, 0, n, &mut ViewSink::new(u32::MAX));
                return Err(again.err().unwrap_or_else(|| Error::corrupt("dictionary page: bad value")));
            };
            if self.utf8 {
                proof = Some(check_dict_utf8(data, (i, p), (i + k, end), sink.plain_length_bits())?);
            }
            (i, p) = (i + k, end);
        }
        let has_long = any_long(sink.views());
        self.dict = Some(ViewDict { views: sink, proof, buffer, has_long, baked: 0, registered: None });
        Ok(())
    }

    fn read(&mut self, page: &mut PageValues, values: usize, validity: Option<&Validity<'_>>) -> Result<()> {
        page_rows(values, validity)?;
        let base = self.sink.len();
        let buffers = self.buffers.len();
        if let Err(e) = self.append_values(page, values, base) {
            // Leave the batch as it was before the page, so the decoder stays consistent.
            self.sink.truncate(base);
            self.buffers.truncate(buffers);
            return Err(e);
        }
        if let Some(v) = validity.filter(|v| v.null_count > 0) {
            // A null view is all zeros: an empty inline value.
            self.sink.spread_nulls(base, v)?;
        }
        Ok(())
    }

    fn len(&self) -> usize {
        self.sink.len()
    }

    fn finish(&mut self, nulls: Option<NullBuffer>) -> Result<ArrayRef> {
        let len = self.sink.len();
        check_null_rows(nulls.as_ref(), len)?;
        let views = self.sink.take_views();
        let buffers: Arc<[Buffer]> = std::mem::take(&mut self.buffers).into();
        if let Some(d) = self.dict.as_mut() {
            d.registered = None;
        }
        let kind = if self.utf8 { Kind::Utf8(self.proof.take()) } else { Kind::Binary };
        // SAFETY: every view came from the sink (see ViewSink's invariant), made from a slice
        // of the buffer whose index it records: a page's values section (set_page_buffer
        // before the page, the page kept by keep_if_used whenever a view points into it),
        // the dictionary page's (kept at its first use, its views' index moved there), or a
        // DELTA_BYTE_ARRAY arena (kept when a value is long). Null views are zero.
        unsafe { view_array(views, buffers, nulls, kind) }
    }
}
