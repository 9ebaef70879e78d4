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
//! to their row positions in place ([`spread`](super::spread)), a 64-row word of the validity bitmap at a
//! time.
//!
//! The modules:
//! - [`convert`] says which output types each physical type can produce, and converts.
//! - [`native`] decodes INT32, INT64, INT96, FLOAT and DOUBLE.
//! - [`flba`] decodes FIXED_LEN_BYTE_ARRAY.
//! - [`boolean`] decodes BOOLEAN into a bitmap.

use arrow_schema::DataType;

use super::spread::{spread, ByteSlots, Slots};
use super::values::{Validity, ValueDecoder};
use crate::error::{Error, Result};
use crate::format::PhysicalType;
use crate::schema::ColumnDescriptor;

mod boolean;
pub(crate) mod compress;
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

/// Decodes a dictionary page's PLAIN values with `decode` into `slot`, reusing the vector of
/// the previous chunk's dictionary (every fixed-width decoder keeps its dictionary this way).
fn read_dictionary<T>(slot: &mut Option<Vec<T>>, decode: impl FnOnce(&mut Vec<T>) -> Result<()>) -> Result<()> {
    let mut dict = slot.take().unwrap_or_default();
    dict.clear();
    decode(&mut dict).map_err(|e| e.context("dictionary page"))?;
    *slot = Some(dict);
    Ok(())
}

/// Reserves room for `additional` more values if the allocator can provide it. The column
/// reader calls [`reserve`](ValueDecoder::reserve) before each batch with a bounded hint; should
/// a hint still be more than memory allows, failing here must not abort the process, so the
/// vector simply grows as values arrive.
fn try_reserve<T>(v: &mut Vec<T>, additional: usize) {
    let _ = v.try_reserve(additional);
}
