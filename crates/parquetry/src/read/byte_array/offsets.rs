//! `Utf8` / `Binary` (i32 offsets) and `LargeUtf8` / `LargeBinary` (i64 offsets): every
//! value copied once into one data buffer per batch.

use std::sync::Arc;

use arrow_array::{ArrayRef, GenericBinaryArray, GenericStringArray, OffsetSizeTrait};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};

use super::view::page_buffer;
use super::{
    check_dictionary_encoding, check_null_rows, check_room, check_utf8_offsets,
    check_utf8_plain, decode_dense, for_each_index_run, is_dictionary_encoded, no_dictionary,
    page_rows, spread_offsets, utf8_error_at, Scratch,
};
use crate::encoding::rle::Run;
use crate::encoding::{ByteArraySink, OffsetSize, OffsetsSink};
use crate::error::{Error, Result};
use crate::read::values::{PageValues, Validity, ValueDecoder};

/// Decodes BYTE_ARRAY pages into offsets + data with `O` offsets, validating UTF-8 if the
/// output is a string type.
#[derive(Debug)]
pub(super) struct OffsetsDecoder<O: OffsetSize> {
    utf8: bool,
    /// The batch being built: `sink.offsets` has one entry per row plus the leading 0.
    sink: OffsetsSink<O>,
    dict: Option<PageDict>,
    scratch: Scratch,
}

/// A dictionary page kept as it is, values still length-prefixed: gathered values are copied
/// straight from the page, so the dictionary itself is never copied. (Dictionaries of mostly
/// distinct values, common for ids and URLs, are as large as the data; copying them first
/// doubled the work and the memory of reading such a column.)
#[derive(Debug)]
struct PageDict {
    /// The dictionary page's values section.
    page: Buffer,
    /// Value `i` has its length prefix at `prefixes[i]` and ends at `prefixes[i + 1]`.
    prefixes: Vec<u32>,
}

impl PageDict {
    /// Finds every value of a PLAIN dictionary page, checking lengths against the page and,
    /// for strings, UTF-8 once over all values.
    fn read(page: &PageValues<'_>, utf8: bool) -> Result<Self> {
        check_dictionary_encoding(page)?;
        let data = page.data;
        let n = page.num_values;
        if data.len() > u32::MAX as usize {
            return Err(Error::corrupt(format!("dictionary page of {} bytes", data.len())));
        }
        let mut prefixes = Vec::with_capacity(n.min(data.len() / 4) + 1);
        let mut p = 0usize;
        let mut lengths_or = 0u32;
        for i in 0..n {
            let Some(len) = data.get(p..).and_then(|s| s.first_chunk::<4>()) else {
                return Err(Error::corrupt(format!(
                    "dictionary page: value {i} of {n} needs a length at byte {p} of {}",
                    data.len()
                )));
            };
            let len = u32::from_le_bytes(*len);
            lengths_or |= len;
            let end = (p + 4).saturating_add(len as usize);
            if end > data.len() {
                return Err(Error::corrupt(format!(
                    "dictionary page: value {i} of {n} runs to byte {end} of {}",
                    data.len()
                )));
            }
            prefixes.push(p as u32);
            p = end;
        }
        prefixes.push(p as u32);
        // With every length below 128 the length prefixes are ASCII bytes, which no
        // multi-byte character can span: the whole section is then UTF-8 exactly when every
        // value is, and one check over it saves a second walk over the values. Otherwise (or
        // to name the bad value) the check goes value run by value run.
        if utf8 && (lengths_or >= 128 || utf8_error_at(&data[..p]).is_some()) {
            check_utf8_plain(&data[..p], n).map_err(|e| e.context("dictionary page"))?;
        }
        Ok(PageDict { page: page_buffer(page)?, prefixes })
    }

    fn len(&self) -> usize {
        self.prefixes.len() - 1
    }

    /// Length of value `i` (< len).
    #[inline]
    fn value_len(&self, i: usize) -> usize {
        (self.prefixes[i + 1] - self.prefixes[i] - 4) as usize
    }
}

impl<O: OffsetSize + OffsetSizeTrait> OffsetsDecoder<O> {
    /// A decoder for a string (`utf8`) or binary output.
    pub(super) fn new(utf8: bool) -> Self {
        Self { utf8, sink: OffsetsSink::new(), dict: None, scratch: Scratch::default() }
    }

    /// Appends the page's values densely (no null slots yet).
    fn append_values(&mut self, page: &PageValues<'_>, start: usize) -> Result<()> {
        if is_dictionary_encoded(page.encoding) {
            // The dictionary was validated once when it was read: gathered values need not be.
            return self.gather(page);
        }
        let have = self.sink.data.len();
        decode_dense(page, &mut self.sink, &mut self.scratch, have, check_room::<O>)?;
        if self.utf8 {
            check_utf8_offsets(&self.sink.data, &self.sink.offsets[start..])?;
        }
        Ok(())
    }

    /// Copies the dictionary values a page's indexes select: first the indexes and their
    /// total size (a repeated run adds its value's length times the run), then one
    /// reservation, then one copy per value.
    fn gather(&mut self, page: &PageValues<'_>) -> Result<()> {
        let dict = self.dict.as_ref().ok_or_else(no_dictionary)?;
        let indexes = &mut self.scratch.indexes;
        indexes.clear();
        // In bounds: for_each_index_run checks every index against dict.len() first.
        let value_len = |i: u32| dict.value_len(i as usize) as u64;
        let mut bytes = 0u64;
        for_each_index_run(page, dict.len(), |run| match run {
            Run::Repeated { value, len } => {
                bytes += value_len(value) * len as u64;
                indexes.extend(std::iter::repeat_n(value, len));
            }
            Run::Packed(ix) => {
                bytes += ix.iter().map(|&i| value_len(i)).sum::<u64>();
                indexes.extend_from_slice(ix);
            }
        })?;
        check_room::<O>(self.sink.data.len(), bytes)?;
        // Exactly the gathered bytes while the hint holds: no slack, so an exact hint is
        // never outgrown (the last few values then take the plain copy instead of the block
        // copy); past it, growth by projection.
        self.sink.reserve(indexes.len(), bytes as usize);
        let src = dict.page.as_slice();
        let done = self.sink.extend_gathered(src, &dict.prefixes, indexes);
        for &i in &indexes[done..] {
            let i = i as usize;
            self.sink.push_plain_value(src, dict.prefixes[i] as usize, dict.value_len(i))?;
        }
        Ok(())
    }
}

impl<O: OffsetSize + OffsetSizeTrait> ValueDecoder for OffsetsDecoder<O> {
    fn reserve(&mut self, rows: usize, value_bytes: usize) {
        crate::alloc::reserve(&mut self.sink.offsets, rows);
        crate::alloc::reserve(&mut self.sink.data, value_bytes);
        self.sink.expect(self.sink.len() + rows);
    }

    fn set_dictionary(&mut self, page: &PageValues<'_>) -> Result<()> {
        self.dict = Some(PageDict::read(page, self.utf8)?);
        Ok(())
    }

    fn append_page(
        &mut self,
        page: &PageValues<'_>,
        validity: Option<&Validity<'_>>,
    ) -> Result<()> {
        page_rows(page, validity)?;
        let start = self.sink.offsets.len() - 1;
        let data_len = self.sink.data.len();
        if let Err(e) = self.append_values(page, start) {
            // Leave the batch as it was before the page, so the decoder stays consistent.
            self.sink.offsets.truncate(start + 1);
            self.sink.data.truncate(data_len);
            return Err(e);
        }
        if let Some(v) = validity {
            spread_offsets(&mut self.sink.offsets, start, v);
        }
        Ok(())
    }

    fn len(&self) -> usize {
        self.sink.len()
    }

    fn finish(&mut self, nulls: Option<NullBuffer>) -> Result<ArrayRef> {
        let len = self.sink.len();
        check_null_rows(nulls.as_ref(), len)?;
        let OffsetsSink { offsets, data, .. } = std::mem::take(&mut self.sink);
        // SAFETY: the sink's offsets start at 0 and only grow by value lengths (null rows
        // repeat the previous offset), the last one is data.len(), and all fit `O` (checked
        // before each page was decoded): the OffsetBuffer invariants.
        let offsets = unsafe { OffsetBuffer::new_unchecked(ScalarBuffer::from(offsets)) };
        let values = Buffer::from_vec(data);
        if self.utf8 {
            // SAFETY: the offsets are valid (above) and every value's bytes were validated as
            // UTF-8: each page's appended region and its value boundaries by
            // check_utf8_offsets, dictionary values once when the dictionary was read; null
            // slots are empty.
            let a = unsafe { GenericStringArray::<O>::new_unchecked(offsets, values, nulls) };
            Ok(Arc::new(a))
        } else {
            let a = GenericBinaryArray::<O>::try_new(offsets, values, nulls)
                .map_err(|e| Error::invalid_argument(e.to_string()))?;
            Ok(Arc::new(a))
        }
    }
}
