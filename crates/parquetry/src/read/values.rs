//! The contract between the column reader and the value decoders of each Arrow output kind.
//!
//! The column reader (`column.rs`) walks a chunk's pages, decompresses them, decodes the
//! definition levels into validity bits, and hands each page's values section to a
//! [`ValueDecoder`] chosen for the output type (fixed width, boolean, byte array, view,
//! dictionary, ...). A decoder reads as many of a page's values as the batch needs; the
//! page keeps its place for the next batch ([`PageValues`]).

use arrow_array::ArrayRef;
use arrow_buffer::NullBuffer;

pub use super::page_values::PageValues;
pub use super::spread::spread_nulls;
use crate::error::Result;

/// Which of a page's rows are valid: a run of bits in an LSB-first bitmap (1 = valid).
#[derive(Debug, Clone, Copy)]
pub struct Validity<'a> {
    /// The bitmap bytes.
    pub bits: &'a [u8],
    /// The bit position of the page's first row.
    pub offset: usize,
    /// Number of rows (bits).
    pub len: usize,
    /// Number of zero bits among them.
    pub null_count: usize,
}

impl Validity<'_> {
    /// Whether row `i` (0-based within the page) is valid.
    #[inline]
    pub fn is_valid(&self, i: usize) -> bool {
        let bit = self.offset + i;
        self.bits.get(bit / 8).is_some_and(|b| b & (1 << (bit % 8)) != 0)
    }
}

/// Decodes pages of one column chunk into one Arrow output kind.
///
/// Implementations append to their own buffers; [`finish`](ValueDecoder::finish) hands over
/// everything appended since the last `finish` as one array.
pub trait ValueDecoder: Send {
    /// A capacity hint before the first page: rows to come and, for byte arrays, the total
    /// bytes of their values if known (from `SizeStatistics`) or estimated.
    fn reserve(&mut self, rows: usize, value_bytes: usize);

    /// The chunk's dictionary page (PLAIN-encoded values, read whole from
    /// [`PageValues::data`]), before any data page using it.
    fn set_dictionary(&mut self, page: &PageValues) -> Result<()>;

    /// Appends the next `values` values of a data page, where the last read of it stopped.
    /// With `validity` they fill the valid ones of `validity.len` rows in order (so `values`
    /// is `validity.len - validity.null_count`); without it every value is a row. On error
    /// the decoder's rows are as they were before the call.
    fn read(&mut self, page: &mut PageValues, values: usize, validity: Option<&Validity<'_>>) -> Result<()>;

    /// Number of rows appended since the last `finish`.
    fn len(&self) -> usize;

    /// Whether no rows were appended since the last `finish`.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Takes the rows appended so far as an array with these nulls (`None`: no nulls).
    fn finish(&mut self, nulls: Option<NullBuffer>) -> Result<ArrayRef>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_nulls_places_values_at_valid_rows() {
        // rows: valid, null, valid, valid, null, null, valid  (bits LSB first)
        let bits = [0b0100_1101u8];
        let v = Validity { bits: &bits, offset: 0, len: 7, null_count: 3 };
        let mut values = vec![99, 1, 2, 3, 4];
        spread_nulls(&mut values, 1, &v).unwrap();
        assert_eq!(values, vec![99, 1, 0, 2, 3, 0, 0, 4]);

        // An offset into the bitmap, no nulls, and all nulls.
        let bits = [0b1111_0000u8];
        let v = Validity { bits: &bits, offset: 4, len: 4, null_count: 0 };
        let mut values = vec![5, 6, 7, 8];
        spread_nulls(&mut values, 0, &v).unwrap();
        assert_eq!(values, vec![5, 6, 7, 8]);
        let v = Validity { bits: &bits, offset: 0, len: 4, null_count: 4 };
        let mut values: Vec<i64> = vec![];
        spread_nulls(&mut values, 0, &v).unwrap();
        assert_eq!(values, vec![0, 0, 0, 0]);
    }
}
