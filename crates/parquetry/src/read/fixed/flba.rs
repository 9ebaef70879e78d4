//! The decoder for FIXED_LEN_BYTE_ARRAY columns: values kept as raw bytes back to back (the
//! FixedSizeBinary layout, handed to Arrow without a copy), converted at `finish` for
//! decimals and Float16.

use arrow_array::ArrayRef;
use arrow_buffer::NullBuffer;

use super::convert::{self, Target};
use super::{dense_count, read_dictionary, spread, try_reserve, ByteSlots};
use crate::encoding::plain;
use crate::encoding::rle::Run;
use crate::error::{Error, Result};
use crate::read::page_values::FixedValues;
use crate::read::values::{PageValues, Validity, ValueDecoder};

/// Decodes the pages of one FIXED_LEN_BYTE_ARRAY column chunk.
pub(super) struct FixedLenDecoder {
    /// Bytes per value (at least 1).
    width: usize,
    /// `width` bytes per row appended since the last `finish`.
    values: Vec<u8>,
    /// The chunk's dictionary (`width` bytes per entry), once its page has been seen.
    dictionary: Option<Vec<u8>>,
    target: Target,
}

impl FixedLenDecoder {
    /// A decoder for values of `width` (> 0) bytes producing `target`.
    pub(super) fn new(width: usize, target: Target) -> Self {
        Self { width: width.max(1), values: Vec::new(), dictionary: None, target }
    }

    fn rows(&self) -> usize {
        self.values.len() / self.width
    }

    fn append(&mut self, page: &mut PageValues, dense: usize, validity: Option<&Validity<'_>>) -> Result<()> {
        let w = self.width;
        let start = self.rows();
        dense_count(dense, validity)?;
        let validity = validity.filter(|v| v.null_count > 0);
        if let Some(v) = validity {
            try_reserve(&mut self.values, v.len.saturating_mul(w));
        }
        if dense > 0 {
            // An all-null page has nothing to decode, whatever its encoding says.
            let dictionary = self.dictionary.as_deref();
            page.read_values(dense, &mut FixedLenValues { values: &mut self.values, width: w, dictionary })?;
        }
        let got = self.values.len() - start * w;
        if got != dense * w {
            return Err(Error::corrupt(format!(
                "{} page decoded to {got} bytes, {dense} values of {w} bytes expected",
                page.encoding()
            )));
        }
        if let Some(v) = validity {
            self.values.resize((start + v.len) * w, 0);
            spread(&mut ByteSlots { bytes: &mut self.values, width: w }, start, dense, v)?;
        }
        Ok(())
    }
}

impl ValueDecoder for FixedLenDecoder {
    fn reserve(&mut self, rows: usize, _value_bytes: usize) {
        try_reserve(&mut self.values, rows.saturating_mul(self.width));
    }

    fn set_dictionary(&mut self, page: &PageValues) -> Result<()> {
        let width = self.width;
        read_dictionary(&mut self.dictionary, |dict| {
            plain::decode_fixed_len(page.data(), width, page.len(), dict).map(drop)
        })
    }

    fn read(&mut self, page: &mut PageValues, values: usize, validity: Option<&Validity<'_>>) -> Result<()> {
        let start = self.values.len();
        let result = self.append(page, values, validity);
        if result.is_err() {
            self.values.truncate(start);
        }
        result
    }

    fn len(&self) -> usize {
        self.rows()
    }

    fn finish(&mut self, nulls: Option<NullBuffer>) -> Result<ArrayRef> {
        convert::check_nulls(nulls.as_ref(), self.rows())?;
        let values = std::mem::take(&mut self.values);
        convert::from_fixed(values, self.width, nulls, &self.target)
    }
}

/// A FIXED_LEN_BYTE_ARRAY column's bytes and dictionary, as [`PageValues::read_values`]
/// appends to them.
struct FixedLenValues<'a> {
    values: &'a mut Vec<u8>,
    width: usize,
    /// `width` bytes per entry.
    dictionary: Option<&'a [u8]>,
}

impl FixedValues for FixedLenValues<'_> {
    fn extend_plain(&mut self, bytes: &[u8], _n: usize) -> Result<()> {
        self.values.extend_from_slice(bytes);
        Ok(())
    }

    fn dictionary_len(&self) -> Option<usize> {
        self.dictionary.map(|d| d.len() / self.width)
    }

    fn extend_from_dictionary(&mut self, run: Run<'_>) {
        let (dict, w) = (self.dictionary.unwrap_or_default(), self.width);
        // Indexes are checked against the dictionary, so every `get` hits; a miss would show
        // as a short page, caught by the caller's count check.
        let entry = |i: usize| dict.get(i * w..i * w + w).unwrap_or_default();
        match run {
            Run::Repeated { value, len } => {
                let v = entry(value as usize);
                self.values.reserve(len.saturating_mul(w));
                for _ in 0..len {
                    self.values.extend_from_slice(v);
                }
            }
            Run::Packed(indexes) => {
                self.values.reserve(indexes.len() * w);
                for &i in indexes {
                    self.values.extend_from_slice(entry(i as usize));
                }
            }
        }
    }

    fn as_fixed_bytes(&mut self) -> Option<(&mut Vec<u8>, usize)> {
        Some((self.values, self.width))
    }
}
