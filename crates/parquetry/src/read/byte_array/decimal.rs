//! `Decimal32/64/128/256` from BYTE_ARRAY: each value is the unscaled integer in big-endian
//! two's complement, of any length (writers use the minimum, some pad).
//!
//! Pages are decoded into a reused scratch sink and converted from there; the dictionary is
//! converted once, and dictionary-encoded pages then gather integers by index.

use std::sync::Arc;

use arrow_array::types::{Decimal128Type, Decimal256Type, Decimal32Type, Decimal64Type, DecimalType};
use arrow_array::{ArrayRef, PrimitiveArray};
use arrow_buffer::{i256, NullBuffer, ScalarBuffer};

use super::dict::Dict;
use super::{no_dictionary, page_rows};
use crate::encoding::rle::Run;
use crate::encoding::{OffsetSize, OffsetsSink};
use crate::error::{Error, Result};
use crate::read::values::{spread_nulls, PageValues, Validity, ValueDecoder};

/// A decimal type whose native integer can be read from big-endian two's complement bytes.
pub(super) trait FromBigEndian: DecimalType {
    /// The value of `bytes`, or `None` if it does not fit the native integer.
    fn from_be(bytes: &[u8]) -> Option<Self::Native>;
}

/// Sign-extends big-endian two's complement `b` to `N` bytes; `None` if it needs more (bytes
/// beyond `N` that are only sign extension are accepted). An empty value is 0.
#[inline]
fn sign_extend<const N: usize>(b: &[u8]) -> Option<[u8; N]> {
    let negative = b.first().is_some_and(|&x| x & 0x80 != 0);
    let fill = if negative { 0xFF } else { 0 };
    let b = match b.len().checked_sub(N) {
        Some(extra) if extra > 0 => {
            let (high, low) = b.split_at(extra);
            let low_negative = low.first().is_some_and(|&x| x & 0x80 != 0);
            if high.iter().any(|&x| x != fill) || low_negative != negative {
                return None;
            }
            low
        }
        _ => b,
    };
    let mut out = [fill; N];
    out[N - b.len()..].copy_from_slice(b);
    Some(out)
}

impl FromBigEndian for Decimal32Type {
    fn from_be(bytes: &[u8]) -> Option<i32> {
        sign_extend::<4>(bytes).map(i32::from_be_bytes)
    }
}

impl FromBigEndian for Decimal64Type {
    fn from_be(bytes: &[u8]) -> Option<i64> {
        sign_extend::<8>(bytes).map(i64::from_be_bytes)
    }
}

impl FromBigEndian for Decimal128Type {
    fn from_be(bytes: &[u8]) -> Option<i128> {
        sign_extend::<16>(bytes).map(i128::from_be_bytes)
    }
}

impl FromBigEndian for Decimal256Type {
    fn from_be(bytes: &[u8]) -> Option<i256> {
        sign_extend::<32>(bytes).map(i256::from_be_bytes)
    }
}

/// Decodes BYTE_ARRAY decimal pages into `T`'s integers.
#[derive(Debug)]
pub(super) struct DecimalDecoder<T: FromBigEndian> {
    precision: u8,
    scale: i8,
    /// One value per row of the batch.
    values: Vec<T::Native>,
    /// The dictionary, converted.
    dict: Option<Vec<T::Native>>,
    /// The raw values of one page.
    raw: OffsetsSink<i64>,
}

/// The longest decimal bytes any page may expand to: far above a real page of decimals,
/// and a bound on what a malformed DELTA_BYTE_ARRAY page can make us allocate.
const MAX_PAGE_BYTES: u64 = 1 << 32;

/// Converts the values `offsets` delimit in `data`, appending them to `out`.
fn convert<T: FromBigEndian, O: OffsetSize>(data: &[u8], offsets: &[O], out: &mut Vec<T::Native>) -> Result<()> {
    out.reserve(offsets.len().saturating_sub(1));
    for (i, w) in offsets.windows(2).enumerate() {
        let bytes = data.get(w[0].as_usize()..w[1].as_usize()).unwrap_or_default();
        let Some(v) = T::from_be(bytes) else {
            return Err(Error::corrupt(format!(
                "value {i} of the page: a {}-byte decimal does not fit {}",
                bytes.len(),
                T::PREFIX
            )));
        };
        out.push(v);
    }
    Ok(())
}

impl<T: FromBigEndian> DecimalDecoder<T> {
    /// A decoder producing `T` arrays with this precision and scale.
    pub(super) fn new(precision: u8, scale: i8) -> Self {
        Self { precision, scale, values: Vec::new(), dict: None, raw: OffsetsSink::new() }
    }

    /// Appends the page's next `n` values densely (no null slots yet).
    fn append_values(&mut self, page: &mut PageValues, n: usize) -> Result<()> {
        if page.holds_indexes() {
            let dict = self.dict.as_deref().ok_or_else(no_dictionary)?;
            let values = &mut self.values;
            return page.read_indexes(n, dict.len(), |run| match run {
                Run::Repeated { value, len } => {
                    values.extend(std::iter::repeat_n(dict[value as usize], len));
                }
                Run::Packed(ix) => values.extend(ix.iter().map(|&i| dict[i as usize])),
            });
        }
        self.raw.clear();
        page.read_byte_arrays(n, &mut self.raw, |add| {
            if add <= MAX_PAGE_BYTES {
                return Ok(());
            }
            Err(Error::corrupt(format!("a page of decimals expands to {add} bytes")))
        })?;
        // On error append_page drops what was converted.
        convert::<T, _>(self.raw.data(), self.raw.offsets(), &mut self.values)
    }
}

impl<T: FromBigEndian> ValueDecoder for DecimalDecoder<T> {
    fn reserve(&mut self, rows: usize, _value_bytes: usize) {
        self.values.reserve(rows);
    }

    fn set_dictionary(&mut self, page: &PageValues) -> Result<()> {
        let d = Dict::read(page, false)?;
        let mut dict = Vec::new();
        convert::<T, _>(d.data(), d.offsets(), &mut dict).map_err(|e| e.context("dictionary page"))?;
        self.dict = Some(dict);
        Ok(())
    }

    fn read(&mut self, page: &mut PageValues, values: usize, validity: Option<&Validity<'_>>) -> Result<()> {
        page_rows(values, validity)?;
        let base = self.values.len();
        if let Err(e) = self.append_values(page, values) {
            self.values.truncate(base);
            return Err(e);
        }
        if let Some(v) = validity {
            spread_nulls(&mut self.values, base, v)?;
        }
        Ok(())
    }

    fn len(&self) -> usize {
        self.values.len()
    }

    fn finish(&mut self, nulls: Option<NullBuffer>) -> Result<ArrayRef> {
        let values = ScalarBuffer::from(std::mem::take(&mut self.values));
        let array = PrimitiveArray::<T>::try_new(values, nulls)
            .and_then(|a| a.with_precision_and_scale(self.precision, self.scale))
            .map_err(|e| Error::invalid_argument(e.to_string()))?;
        Ok(Arc::new(array))
    }
}

#[cfg(test)]
mod tests {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Decimal128Type;
    use arrow_array::Array;
    use arrow_schema::DataType;

    use super::super::tests::{append, decoder, encode, finish, indexes, DENSE};
    use super::*;
    use crate::format::Encoding;

    #[test]
    fn decimals_from_big_endian_bytes() {
        let values: [&[u8]; 6] = [
            &[0x01, 0x00],
            &[0xFF],
            &[],
            &[0xFF, 0xFF, 0x80],
            &[0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x7F],
            &[0xFF; 20],
        ];
        let want = [256i128, -1, 0, -128, 127, -1];
        for enc in DENSE {
            let mut d = decoder(&DataType::Decimal128(38, 2));
            let valid =
                append(d.as_mut(), &encode(enc, &values), Some(&[true, true, true, false, true, true, true])).unwrap();
            let a = finish(d.as_mut(), &valid);
            let a = a.as_primitive::<Decimal128Type>();
            assert_eq!(a.data_type(), &DataType::Decimal128(38, 2));
            let got: Vec<Option<i128>> = a.iter().collect();
            assert_eq!(got, [Some(256), Some(-1), Some(0), None, Some(-128), Some(127), Some(-1)]);
        }
        let mut d = decoder(&DataType::Decimal256(76, 0));
        d.set_dictionary(&encode(Encoding::PLAIN, &values).values()).unwrap();
        append(d.as_mut(), &indexes(&[3, 0, 0], 3), None).unwrap();
        let a = finish(d.as_mut(), &[true; 3]);
        let got: Vec<_> = a.as_primitive::<Decimal256Type>().values().to_vec();
        assert_eq!(got, [i256::from_i128(want[3]), i256::from_i128(256), i256::from_i128(256)]);
        // 17 bytes that are not sign extension do not fit 128 bits.
        let mut d = decoder(&DataType::Decimal128(38, 0));
        let big: [&[u8]; 2] = [&[1], &[0x01; 17]];
        let e = append(d.as_mut(), &encode(Encoding::PLAIN, &big), None).unwrap_err();
        assert!(e.to_string().contains("value 1 of the page: a 17-byte decimal does not fit"), "{e}");
        let small: [&[u8]; 1] = [&[0x00, 0x80]];
        let mut d = decoder(&DataType::Decimal32(9, 0));
        append(d.as_mut(), &encode(Encoding::PLAIN, &small), None).unwrap();
        assert_eq!(finish(d.as_mut(), &[true]).as_primitive::<arrow_array::types::Decimal32Type>().value(0), 128);
    }
}
