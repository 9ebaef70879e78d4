//! The decoder for INT32, INT64, INT96, FLOAT and DOUBLE columns: one vector of the physical
//! native type, filled by PLAIN, dictionary, DELTA_BINARY_PACKED and BYTE_STREAM_SPLIT pages,
//! converted to the output type at `finish`.

use arrow_array::ArrayRef;
use arrow_buffer::NullBuffer;

use super::convert::{self, Target};
use super::expand::spread_lanes;
use super::{dense_count, read_dictionary, spread, try_reserve};
use crate::encoding::plain;
use crate::encoding::rle::Run;
use crate::error::{Error, Result};
use crate::read::page_values::FixedValues;
use crate::read::values::{PageValues, Validity, ValueDecoder};

/// A physical type stored as one native value per row.
pub(super) trait Native: Copy + Default + Send + 'static {
    /// Appends `n` PLAIN values; returns the bytes used.
    fn decode_plain(data: &[u8], n: usize, dst: &mut Vec<Self>) -> Result<usize>;

    /// The vector as INT32 values, which DELTA_BINARY_PACKED decodes into (`None`: not INT32).
    fn as_i32(_values: &mut Vec<Self>) -> Option<&mut Vec<i32>> {
        None
    }

    /// The vector as INT64 values, which DELTA_BINARY_PACKED decodes into (`None`: not INT64).
    fn as_i64(_values: &mut Vec<Self>) -> Option<&mut Vec<i64>> {
        None
    }

    /// Moves a page's `dense` values, at the start of `values` (one slot per row), to their
    /// rows: [`spread`], unless the type has a faster kernel.
    fn spread(values: &mut [Self], dense: usize, validity: &Validity<'_>) -> Result<()> {
        spread(values, 0, dense, validity)
    }

    /// The output array for `values`.
    fn build(values: Vec<Self>, nulls: Option<NullBuffer>, target: &Target) -> Result<ArrayRef>;
}

impl Native for i32 {
    fn spread(values: &mut [Self], dense: usize, validity: &Validity<'_>) -> Result<()> {
        spread_lanes(values, dense, validity)
    }
    fn decode_plain(data: &[u8], n: usize, dst: &mut Vec<Self>) -> Result<usize> {
        plain::decode_i32(data, n, dst)
    }
    fn as_i32(values: &mut Vec<Self>) -> Option<&mut Vec<i32>> {
        Some(values)
    }
    fn build(values: Vec<Self>, nulls: Option<NullBuffer>, target: &Target) -> Result<ArrayRef> {
        convert::from_i32(values, nulls, target)
    }
}

impl Native for i64 {
    fn spread(values: &mut [Self], dense: usize, validity: &Validity<'_>) -> Result<()> {
        spread_lanes(values, dense, validity)
    }
    fn decode_plain(data: &[u8], n: usize, dst: &mut Vec<Self>) -> Result<usize> {
        plain::decode_i64(data, n, dst)
    }
    fn as_i64(values: &mut Vec<Self>) -> Option<&mut Vec<i64>> {
        Some(values)
    }
    fn build(values: Vec<Self>, nulls: Option<NullBuffer>, target: &Target) -> Result<ArrayRef> {
        convert::from_i64(values, nulls, target)
    }
}

impl Native for f32 {
    fn spread(values: &mut [Self], dense: usize, validity: &Validity<'_>) -> Result<()> {
        spread_lanes(values, dense, validity)
    }
    fn decode_plain(data: &[u8], n: usize, dst: &mut Vec<Self>) -> Result<usize> {
        plain::decode_f32(data, n, dst)
    }
    fn build(values: Vec<Self>, nulls: Option<NullBuffer>, target: &Target) -> Result<ArrayRef> {
        convert::from_float(values, nulls, target)
    }
}

impl Native for f64 {
    fn spread(values: &mut [Self], dense: usize, validity: &Validity<'_>) -> Result<()> {
        spread_lanes(values, dense, validity)
    }
    fn decode_plain(data: &[u8], n: usize, dst: &mut Vec<Self>) -> Result<usize> {
        plain::decode_f64(data, n, dst)
    }
    fn build(values: Vec<Self>, nulls: Option<NullBuffer>, target: &Target) -> Result<ArrayRef> {
        convert::from_float(values, nulls, target)
    }
}

/// INT96 is kept as its raw 12 bytes until `finish` converts it to the output's unit.
impl Native for [u8; 12] {
    fn decode_plain(data: &[u8], n: usize, dst: &mut Vec<Self>) -> Result<usize> {
        plain::decode_int96(data, n, dst)
    }
    fn build(values: Vec<Self>, nulls: Option<NullBuffer>, target: &Target) -> Result<ArrayRef> {
        convert::from_int96(values, nulls, target)
    }
}

/// A native column's vector and dictionary, as [`PageValues::read_values`] appends to them.
struct NativeValues<'a, T> {
    values: &'a mut Vec<T>,
    dictionary: Option<&'a [T]>,
}

impl<T: Native> FixedValues for NativeValues<'_, T> {
    fn extend_plain(&mut self, bytes: &[u8], n: usize) -> Result<()> {
        T::decode_plain(bytes, n, self.values).map(drop)
    }

    fn dictionary_len(&self) -> Option<usize> {
        self.dictionary.map(<[T]>::len)
    }

    // Kept out of line: inlined into the decoder's read, the gather below compiled to a third
    // more instructions (half of TPC-H lineitem's three columns: 84 to 116 M, callgrind).
    #[inline(never)]
    fn extend_from_dictionary(&mut self, run: Run<'_>) {
        let dict = self.dictionary.unwrap_or_default();
        // The runs' indexes are checked against the dictionary, so `get` never misses.
        match run {
            Run::Repeated { value, len } => {
                let v = dict.get(value as usize).copied().unwrap_or_default();
                self.values.extend(std::iter::repeat_n(v, len));
            }
            Run::Packed(indexes) => {
                self.values.extend(indexes.iter().map(|&i| dict.get(i as usize).copied().unwrap_or_default()))
            }
        }
    }

    fn as_i32(&mut self) -> Option<&mut Vec<i32>> {
        T::as_i32(self.values)
    }

    fn as_i64(&mut self) -> Option<&mut Vec<i64>> {
        T::as_i64(self.values)
    }
}

/// Decodes the pages of one INT32/INT64/INT96/FLOAT/DOUBLE column chunk.
pub(super) struct NativeDecoder<T: Native> {
    /// One value per row appended since the last `finish`.
    values: Vec<T>,
    /// The chunk's dictionary, once its page has been seen.
    dictionary: Option<Vec<T>>,
    target: Target,
}

impl<T: Native> NativeDecoder<T> {
    /// A decoder producing `target`.
    pub(super) fn new(target: Target) -> Self {
        Self { values: Vec::new(), dictionary: None, target }
    }

    fn append(&mut self, page: &mut PageValues, dense: usize, validity: Option<&Validity<'_>>) -> Result<()> {
        let start = self.values.len();
        dense_count(dense, validity)?;
        let validity = validity.filter(|v| v.null_count > 0);
        if let Some(v) = validity {
            // Room for the nulls too, so spreading does not reallocate.
            try_reserve(&mut self.values, v.len);
        }
        if dense > 0 {
            // An all-null page has nothing to decode, whatever its encoding says.
            let dictionary = self.dictionary.as_deref();
            page.read_values(dense, &mut NativeValues { values: &mut self.values, dictionary })?;
        }
        if self.values.len() - start != dense {
            return Err(Error::corrupt(format!(
                "{} page decoded to {} values, {dense} expected",
                page.encoding(),
                self.values.len() - start
            )));
        }
        if let Some(v) = validity {
            self.values.resize(start + v.len, T::default());
            T::spread(&mut self.values[start..], dense, v)?;
        }
        Ok(())
    }
}

impl<T: Native> ValueDecoder for NativeDecoder<T> {
    fn reserve(&mut self, rows: usize, _value_bytes: usize) {
        try_reserve(&mut self.values, rows);
    }

    fn set_dictionary(&mut self, page: &PageValues) -> Result<()> {
        read_dictionary(&mut self.dictionary, |dict| T::decode_plain(page.data(), page.len(), dict).map(drop))
    }

    fn read(&mut self, page: &mut PageValues, values: usize, validity: Option<&Validity<'_>>) -> Result<()> {
        let start = self.values.len();
        let result = self.append(page, values, validity);
        if result.is_err() {
            // Leave the rows of earlier pages intact and this page's out entirely.
            self.values.truncate(start);
        }
        result
    }

    fn len(&self) -> usize {
        self.values.len()
    }

    fn finish(&mut self, nulls: Option<NullBuffer>) -> Result<ArrayRef> {
        convert::check_nulls(nulls.as_ref(), self.values.len())?;
        let values = std::mem::take(&mut self.values);
        T::build(values, nulls, &self.target)
    }
}

#[cfg(test)]
mod tests {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{TimestampMillisecondType, UInt32Type};
    use arrow_buffer::Buffer;
    use arrow_schema::{DataType, TimeUnit};

    use super::*;
    use crate::format::{Encoding, PhysicalType};
    use crate::read::page_values::{PageScratch, ValueKind};

    /// Outputs with the physical layout take the decoded vector itself, not a copy.
    #[test]
    fn same_layout_outputs_are_not_copied() {
        let data: Vec<u8> = [1i64, -2, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
        let buffer = Buffer::from_vec(data);
        let kind = ValueKind { physical_type: PhysicalType::INT64, type_length: 0 };
        let mut page = PageValues::new(buffer.clone(), Encoding::PLAIN, 3, kind, &mut PageScratch::default()).unwrap();
        let ts = DataType::Timestamp(TimeUnit::Millisecond, None);
        let mut d = NativeDecoder::<i64>::new(Target::Relabel(ts));
        d.reserve(3, 0);
        d.read(&mut page, 3, None).unwrap();
        let ptr = d.values.as_ptr();
        let a = d.finish(None).unwrap();
        assert_eq!(a.as_primitive::<TimestampMillisecondType>().values().as_ptr(), ptr);

        let mut d = NativeDecoder::<i32>::new(Target::Relabel(DataType::UInt32));
        let kind = ValueKind { physical_type: PhysicalType::INT32, type_length: 0 };
        let mut page = PageValues::new(buffer, Encoding::PLAIN, 6, kind, &mut PageScratch::default()).unwrap();
        d.read(&mut page, 6, None).unwrap();
        let ptr = d.values.as_ptr();
        let a = d.finish(None).unwrap();
        assert_eq!(a.as_primitive::<UInt32Type>().values().as_ptr().cast(), ptr);
        assert_eq!(a.as_primitive::<UInt32Type>().value(3), u32::MAX);
    }
}
