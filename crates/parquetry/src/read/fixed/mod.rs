//! Value decoders for the fixed-width physical types: BOOLEAN, INT32, INT64, INT96, FLOAT,
//! DOUBLE and FIXED_LEN_BYTE_ARRAY.
//!
//! One decoder per physical type serves every Arrow output type that type can produce: pages
//! are decoded into a vector of the *physical* native type (`Vec<i32>`, `Vec<i64>`, raw bytes
//! for FIXED_LEN_BYTE_ARRAY, ...), and only [`finish`](ValueDecoder::finish) converts, when the
//! output differs (Int32 → Int8, INT96 → timestamps, big-endian bytes → decimals). Outputs
//! with the physical layout (Int32, Int64, Float32, Date32, timestamps in the stored unit,
//! UInt32 and UInt64 as reinterpretations) hand the vector to Arrow without a copy.
//!
//! Nulls: a page's non-null values are decoded densely at the end of the vector, then moved
//! to their row positions in place ([`spread`]), a 64-row word of the validity bitmap at a
//! time.
//!
//! The modules:
//! - [`convert`] says which output types each physical type can produce, and converts.
//! - [`native`] decodes INT32, INT64, INT96, FLOAT and DOUBLE.
//! - [`flba`] decodes FIXED_LEN_BYTE_ARRAY.
//! - [`boolean`] decodes BOOLEAN into a bitmap.

use arrow_schema::DataType;

use super::values::{PageValues, Validity, ValueDecoder};
use crate::error::{Error, Result};
use crate::format::{Encoding, PhysicalType};
use crate::schema::ColumnDescriptor;

mod boolean;
mod convert;
mod expand;
mod flba;
mod native;
#[cfg(test)]
mod tests;

/// The decoder for a fixed-width `column` read as `output`.
///
/// Fails with [`Error::unsupported`] naming the column and both types when the column's
/// physical type cannot produce `output`, and with a corrupt-file error for a
/// FIXED_LEN_BYTE_ARRAY column without a positive width.
pub(crate) fn fixed_decoder(column: &ColumnDescriptor, output: &DataType) -> Result<Box<dyn ValueDecoder>> {
    let Some(target) = convert::resolve(column, output) else {
        let annotation = match (&column.logical_type, column.converted_type) {
            (Some(l), _) => format!(" ({l:?})"),
            (None, Some(c)) => format!(" ({c})"),
            (None, None) => String::new(),
        };
        return Err(Error::unsupported(format!(
            "column '{}': cannot read Parquet {}{annotation} as Arrow {output}",
            column.dotted_path(),
            physical_name(column),
        )));
    };
    Ok(match column.physical_type {
        PhysicalType::BOOLEAN => Box::new(boolean::BoolDecoder::new()),
        PhysicalType::INT32 => Box::new(native::NativeDecoder::<i32>::new(target)),
        PhysicalType::INT64 => Box::new(native::NativeDecoder::<i64>::new(target)),
        PhysicalType::INT96 => Box::new(native::NativeDecoder::<[u8; 12]>::new(target)),
        PhysicalType::FLOAT => Box::new(native::NativeDecoder::<f32>::new(target)),
        PhysicalType::DOUBLE => Box::new(native::NativeDecoder::<f64>::new(target)),
        PhysicalType::FIXED_LEN_BYTE_ARRAY => {
            let width = usize::try_from(column.type_length).ok().filter(|&w| w > 0);
            let Some(width) = width else {
                return Err(Error::corrupt(format!(
                    "column '{}': FIXED_LEN_BYTE_ARRAY with type length {}",
                    column.dotted_path(),
                    column.type_length
                )));
            };
            Box::new(flba::FixedLenDecoder::new(width, target))
        }
        // `resolve` accepts no other physical type.
        _ => {
            return Err(Error::unsupported(format!(
                "column '{}': {} is not a fixed-width type",
                column.dotted_path(),
                column.physical_type
            )))
        }
    })
}

fn physical_name(column: &ColumnDescriptor) -> String {
    if column.physical_type == PhysicalType::FIXED_LEN_BYTE_ARRAY {
        format!("FIXED_LEN_BYTE_ARRAY({})", column.type_length)
    } else {
        column.physical_type.to_string()
    }
}

/// Checks a read's encoded (non-null) value count against its validity.
fn dense_count(values: usize, validity: Option<&Validity<'_>>) -> Result<usize> {
    if let Some(v) = validity {
        if v.len.checked_sub(v.null_count) != Some(values) {
            return Err(Error::corrupt(format!(
                "the page has {} rows with {} nulls but {values} encoded values",
                v.len, v.null_count
            )));
        }
    }
    Ok(values)
}

#[cold]
fn unsupported_encoding(encoding: Encoding, physical: &str) -> Error {
    Error::unsupported(format!("encoding {encoding} is not supported for {physical} values"))
}

#[cold]
fn no_dictionary() -> Error {
    Error::corrupt("a dictionary-encoded page comes before any dictionary page")
}

/// Checks that a dictionary page has an encoding whose values are PLAIN.
fn check_dictionary_encoding(page: &PageValues) -> Result<()> {
    // Old writers label the dictionary page itself PLAIN_DICTIONARY.
    match page.encoding() {
        Encoding::PLAIN | Encoding::PLAIN_DICTIONARY => Ok(()),
        other => Err(Error::unsupported(format!("dictionary page encoding {other}"))),
    }
}

/// Decodes a dictionary page's PLAIN values with `decode` into `slot`, reusing the vector of
/// the previous chunk's dictionary (every fixed-width decoder keeps its dictionary this way).
fn read_dictionary<T>(
    slot: &mut Option<Vec<T>>,
    page: &PageValues,
    decode: impl FnOnce(&mut Vec<T>) -> Result<()>,
) -> Result<()> {
    check_dictionary_encoding(page)?;
    let mut dict = slot.take().unwrap_or_default();
    dict.clear();
    decode(&mut dict).map_err(|e| e.context("dictionary page"))?;
    *slot = Some(dict);
    Ok(())
}

/// Storage that [`spread`] can move values in, addressed in values (slots).
trait Slots {
    /// Moves `n` values from `src` to `dst` (`src <= dst`; the ranges may overlap).
    fn move_block(&mut self, src: usize, dst: usize, n: usize);
    /// Moves one value from `src` to `dst`.
    fn move_one(&mut self, src: usize, dst: usize);
    /// Sets `n` values from `at` to the default (null slots read as zero, as pyarrow's do).
    fn clear(&mut self, at: usize, n: usize);
    /// Places the `n` rows from `dst` whose validity bits are `word`: the valid rows take, in
    /// order, the values from `src` on, the null rows the default. `src <= dst`, so going from
    /// the last row down never overwrites a value before it is moved.
    fn move_mixed(&mut self, src: usize, dst: usize, word: u64, n: usize) {
        let mut from = src + word.count_ones() as usize;
        for j in (0..n).rev() {
            if word >> j & 1 == 1 {
                from -= 1;
                self.move_one(from, dst + j);
            } else {
                self.clear(dst + j, 1);
            }
        }
    }
}

impl<T: Copy + Default> Slots for [T] {
    #[inline]
    fn move_block(&mut self, src: usize, dst: usize, n: usize) {
        self.copy_within(src..src + n, dst);
    }
    #[inline]
    fn move_one(&mut self, src: usize, dst: usize) {
        if let Some(&v) = self.get(src) {
            if let Some(d) = self.get_mut(dst) {
                *d = v;
            }
        }
    }
    #[inline]
    fn clear(&mut self, at: usize, n: usize) {
        if let Some(s) = self.get_mut(at..at + n) {
            s.fill(T::default());
        }
    }
}

/// Raw bytes of values `width` bytes wide (FIXED_LEN_BYTE_ARRAY).
struct ByteSlots<'a> {
    bytes: &'a mut Vec<u8>,
    width: usize,
}

impl Slots for ByteSlots<'_> {
    #[inline]
    fn move_block(&mut self, src: usize, dst: usize, n: usize) {
        let w = self.width;
        self.bytes.copy_within(src * w..(src + n) * w, dst * w);
    }
    #[inline]
    fn move_one(&mut self, src: usize, dst: usize) {
        self.move_block(src, dst, 1);
    }
    #[inline]
    fn clear(&mut self, at: usize, n: usize) {
        let w = self.width;
        if let Some(s) = self.bytes.get_mut(at * w..(at + n) * w) {
            s.fill(0);
        }
    }
}

/// Up to 64 bits (`n` ≤ 64) of `bits` starting at bit `pos`, LSB first; bits past the end of
/// `bits` read as zero.
#[inline]
fn load_bits(bits: &[u8], pos: usize, n: usize) -> u64 {
    let mut buf = [0u8; 16];
    let src = bits.get(pos / 8..).unwrap_or_default();
    let take = src.len().min(9);
    buf[..take].copy_from_slice(&src[..take]);
    let word = (u128::from_le_bytes(buf) >> (pos % 8)) as u64;
    if n >= 64 {
        word
    } else {
        word & ((1u64 << n) - 1)
    }
}

/// Moves the `dense` values at `start..start + dense` of `slots` (already extended to
/// `start + validity.len` values) to their row positions: afterwards value `start + i` is
/// row `i` of the page, and null rows hold the default.
///
/// Works backwards in place a 64-row word at a time: an all-valid word is one block move, an
/// all-null word one fill, and only mixed words go row by row. Stops as soon as every earlier
/// row is valid and already in place. A bitmap whose valid rows do not number `dense` is an
/// error (after which the values are unspecified), never an out-of-bounds access.
fn spread<S: Slots + ?Sized>(slots: &mut S, start: usize, dense: usize, validity: &Validity<'_>) -> Result<()> {
    let mut left = dense; // values not yet moved, at start..start + left
    let mut end = validity.len; // rows not yet placed, 0..end
    while end > left {
        let n = end.min(64);
        let first = end - n;
        let word = load_bits(validity.bits, validity.offset + first, n);
        let valid = word.count_ones() as usize;
        let Some(src) = left.checked_sub(valid) else {
            break;
        };
        if valid == n {
            slots.move_block(start + src, start + first, n);
        } else if valid == 0 {
            slots.clear(start + first, n);
        } else {
            slots.move_mixed(start + src, start + first, word, n);
        }
        left = src;
        end = first;
    }
    if left != end {
        return Err(Error::corrupt(format!(
            "the validity bitmap of {} rows does not have {dense} valid rows",
            validity.len
        )));
    }
    Ok(())
}

/// Reserves room for `additional` more values if the allocator can provide it. The column
/// reader calls [`reserve`](ValueDecoder::reserve) before each batch with a bounded hint; should
/// a hint still be more than memory allows, failing here must not abort the process, so the
/// vector simply grows as values arrive.
fn try_reserve<T>(v: &mut Vec<T>, additional: usize) {
    let _ = v.try_reserve(additional);
}
