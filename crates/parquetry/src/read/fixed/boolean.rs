//! The decoder for BOOLEAN columns, straight into an Arrow bitmap.
//!
//! PLAIN values are already an LSB-first bitmap, so a page without nulls is one bit-range
//! copy. RLE pages (a 4-byte length, then the hybrid at bit width 1) fill repeated runs and
//! pack bit-packed runs a word at a time. With nulls, the page's values are decoded densely
//! into a scratch bitmap first and then copied range by range, one range per run of valid rows.

use std::sync::Arc;

use arrow_array::{ArrayRef, BooleanArray};
use arrow_buffer::{BooleanBufferBuilder, NullBuffer};

use super::{dense_count, read_dictionary};
use crate::encoding::plain;
use crate::error::Result;
use crate::read::spread::spread_bits;
use crate::read::values::{PageValues, Validity, ValueDecoder};

/// Decodes the pages of one BOOLEAN column chunk.
pub(super) struct BoolDecoder {
    /// One bit per row appended since the last `finish`.
    bits: BooleanBufferBuilder,
    /// A page's non-null values, when it has nulls.
    dense: BooleanBufferBuilder,
    /// The chunk's dictionary (some writers dictionary-encode booleans too).
    dictionary: Option<Vec<bool>>,
}

impl BoolDecoder {
    /// An empty decoder.
    pub(super) fn new() -> Self {
        Self { bits: BooleanBufferBuilder::new(0), dense: BooleanBufferBuilder::new(0), dictionary: None }
    }

    fn append(&mut self, page: &mut PageValues, n: usize, validity: Option<&Validity<'_>>) -> Result<()> {
        dense_count(n, validity)?;
        let Some(v) = validity.filter(|v| v.null_count > 0) else {
            return page.read_bits(n, self.dictionary.as_deref(), &mut self.bits);
        };
        self.dense.truncate(0); // keeps its allocation for the next page
        page.read_bits(n, self.dictionary.as_deref(), &mut self.dense)?;
        spread_bits(&self.dense, v, &mut self.bits)
    }
}

impl ValueDecoder for BoolDecoder {
    fn reserve(&mut self, rows: usize, _value_bytes: usize) {
        // A bit per row: even an absurd hint costs an eighth of what it says.
        self.bits.reserve(rows.min(1 << 31));
    }

    fn set_dictionary(&mut self, page: &PageValues) -> Result<()> {
        read_dictionary(&mut self.dictionary, |dict| plain::decode_bools(page.data(), 0, page.len(), dict).map(drop))
    }

    fn read(&mut self, page: &mut PageValues, values: usize, validity: Option<&Validity<'_>>) -> Result<()> {
        let start = self.bits.len();
        let result = self.append(page, values, validity);
        if result.is_err() {
            self.bits.truncate(start);
        }
        result
    }

    fn len(&self) -> usize {
        self.bits.len()
    }

    fn finish(&mut self, nulls: Option<NullBuffer>) -> Result<ArrayRef> {
        super::convert::check_nulls(nulls.as_ref(), self.bits.len())?;
        let values = self.bits.finish();
        Ok(Arc::new(BooleanArray::new(values, nulls)))
    }
}
