//! The decoder for FIXED_LEN_BYTE_ARRAY columns: values kept as raw bytes back to back (the
//! FixedSizeBinary layout, handed to Arrow without a copy), converted at `finish` for
//! decimals and Float16.

use arrow_array::ArrayRef;
use arrow_buffer::NullBuffer;

use super::convert::{self, Target};
use super::{dense_count, no_dictionary, read_dictionary, spread, try_reserve, unsupported_encoding, ByteSlots};
use crate::encoding::rle::Run;
use crate::encoding::{plain, ByteArraySink};
use crate::error::{Error, Result};
use crate::format::Encoding;
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

    /// Appends the page's `n` encoded values densely.
    fn decode_dense(&mut self, page: &mut PageValues, n: usize) -> Result<()> {
        let w = self.width;
        match page.encoding() {
            Encoding::PLAIN => {
                self.values.extend_from_slice(page.read_fixed(n)?);
                Ok(())
            }
            Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY => {
                let dict = self.dictionary.as_deref().ok_or_else(no_dictionary)?;
                let values = &mut self.values;
                // Indexes are checked against the dictionary, so every `get` hits; a miss would
                // show as a short page, caught by the caller's count check.
                let entry = |i: usize| dict.get(i * w..i * w + w).unwrap_or_default();
                page.read_indexes(n, dict.len() / w, |run| match run {
                    Run::Repeated { value, len } => {
                        let v = entry(value as usize);
                        values.reserve(len.saturating_mul(w));
                        for _ in 0..len {
                            values.extend_from_slice(v);
                        }
                    }
                    Run::Packed(indexes) => {
                        values.reserve(indexes.len() * w);
                        for &i in indexes {
                            values.extend_from_slice(entry(i as usize));
                        }
                    }
                })
            }
            Encoding::BYTE_STREAM_SPLIT => page.read_split(n, &mut self.values),
            Encoding::DELTA_BYTE_ARRAY => {
                // Every value must be `w` bytes: checking the total first bounds the output by
                // what the page declares, before anything is rebuilt.
                let expected = (n as u64).saturating_mul(w as u64);
                let bytes = page.next_value_bytes(n);
                if bytes != expected {
                    return Err(Error::corrupt(format!(
                        "DELTA_BYTE_ARRAY: {n} values of {bytes} bytes in all, but \
                         FIXED_LEN_BYTE_ARRAY({w}) values were expected"
                    )));
                }
                let start = self.values.len();
                let mut sink = FixedSink { bytes: &mut self.values, width: w, start };
                page.read_byte_arrays(n, &mut sink).map(drop)
            }
            other => Err(unsupported_encoding(other, "FIXED_LEN_BYTE_ARRAY")),
        }
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
            self.decode_dense(page, dense)?;
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
        read_dictionary(&mut self.dictionary, page, |dict| {
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

/// A [`ByteArraySink`] that appends values of exactly `width` bytes back to back, for
/// DELTA_BYTE_ARRAY pages of FIXED_LEN_BYTE_ARRAY columns.
struct FixedSink<'a> {
    bytes: &'a mut Vec<u8>,
    width: usize,
    /// Where this page's values start in `bytes`: earlier values are not this page's to
    /// prefix from.
    start: usize,
}

impl FixedSink<'_> {
    #[cold]
    fn wrong_length(&self, len: usize) -> Error {
        Error::corrupt(format!(
            "DELTA_BYTE_ARRAY: a value of {len} bytes in a FIXED_LEN_BYTE_ARRAY({}) column",
            self.width
        ))
    }

    /// Where the last value of this page starts, if there is one.
    fn last_start(&self) -> Option<usize> {
        self.bytes.len().checked_sub(self.width).filter(|&s| s >= self.start)
    }
}

impl ByteArraySink for FixedSink<'_> {
    fn reserve(&mut self, _values: usize, bytes: usize) {
        self.bytes.reserve(bytes);
    }

    fn push_slice_from_page(&mut self, _page_pos: usize, bytes: &[u8]) -> Result<()> {
        self.push_owned(bytes)
    }

    fn push_owned(&mut self, bytes: &[u8]) -> Result<()> {
        if bytes.len() != self.width {
            return Err(self.wrong_length(bytes.len()));
        }
        self.bytes.extend_from_slice(bytes);
        Ok(())
    }

    fn push_prefixed(&mut self, prefix_len: usize, suffix: &[u8]) -> Result<()> {
        if prefix_len.saturating_add(suffix.len()) != self.width {
            return Err(self.wrong_length(prefix_len.saturating_add(suffix.len())));
        }
        let Some(last) = self.last_start() else {
            return Err(Error::corrupt(format!("DELTA_BYTE_ARRAY: prefix length {prefix_len} with no previous value")));
        };
        self.bytes.extend_from_within(last..last + prefix_len);
        self.bytes.extend_from_slice(suffix);
        Ok(())
    }

    fn copy_last(&self, out: &mut Vec<u8>) -> bool {
        out.clear();
        match self.last_start().and_then(|s| self.bytes.get(s..)) {
            Some(v) => {
                out.extend_from_slice(v);
                true
            }
            None => false,
        }
    }

    fn extend_from_lengths(&mut self, lengths: &[u32], data: &[u8], _data_pos: usize) -> Result<()> {
        if let Some(&bad) = lengths.iter().find(|&&l| l as usize != self.width) {
            return Err(self.wrong_length(bad as usize));
        }
        if lengths.len().checked_mul(self.width) != Some(data.len()) {
            return Err(Error::corrupt(format!(
                "{} values of {} bytes but {} bytes were given",
                lengths.len(),
                self.width,
                data.len()
            )));
        }
        self.bytes.extend_from_slice(data);
        Ok(())
    }
}
