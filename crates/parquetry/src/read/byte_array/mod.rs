//! Value decoders for BYTE_ARRAY columns: pages of PLAIN, dictionary (PLAIN_DICTIONARY /
//! RLE_DICTIONARY), DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY values into every Arrow kind
//! a byte array can become.
//!
//! One module per output family, each built on the encoding kernels in
//! [`crate::encoding`] through their [`ByteArraySink`]s:
//! - [`offsets`]: `Utf8`, `Binary`, `LargeUtf8`, `LargeBinary` (offsets + one data buffer);
//! - [`view`]: `Utf8View`, `BinaryView` (views into the pages themselves: no value copy);
//! - [`dictionary`]: `Dictionary(K, Utf8/Binary/LargeUtf8/LargeBinary)` (keys per page, the
//!   file's dictionary shared by all batches of a column chunk);
//! - [`dictionary_mask`]: `Boolean`, a function of the values worked out once per dictionary
//!   value and looked up through the index runs (a filter's test, without keys);
//! - [`decimal`]: `Decimal128` / `Decimal256` from big-endian two's complement bytes.
//!
//! This file holds the factory and what the families share: the value-count and offsets-room
//! checks. Beside it: the dictionary page as offsets + data ([`dict`]), UTF-8
//! validation and its proof ([`utf8`]), and the arrays' unchecked constructors ([`arrays`]).

mod arrays;
mod decimal;
mod dict;
mod dictionary;
mod dictionary_mask;
mod offsets;
mod utf8;
mod view;

use arrow_array::types::{Decimal128Type, Decimal256Type, Decimal32Type, Decimal64Type};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;

pub(crate) use dictionary_mask::mask_decoder;

use crate::encoding::OffsetSize;
use crate::error::{Error, Result};
use crate::format::PhysicalType;
use crate::read::page_values::no_dictionary;
use crate::read::values::{Validity, ValueDecoder};
use crate::schema::ColumnDescriptor;

/// Chooses the value decoder that reads BYTE_ARRAY column `column` as Arrow type `output`.
///
/// Supported outputs: `Utf8`, `Binary`, `LargeUtf8`, `LargeBinary`, `Utf8View`, `BinaryView`,
/// `Dictionary(K, V)` with any integer key type `K` and `V` one of `Utf8`, `Binary`,
/// `LargeUtf8`, `LargeBinary`, and `Decimal32` / `Decimal64` / `Decimal128` / `Decimal256`. Anything else is an
/// unsupported-type error naming the column, so a caller learns at planning time rather than
/// at the first page.
pub(crate) fn byte_array_decoder(column: &ColumnDescriptor, output: &DataType) -> Result<Box<dyn ValueDecoder>> {
    let unsupported = || {
        Error::unsupported(format!(
            "column '{}': cannot read {} values as Arrow {output}",
            column.dotted_path(),
            column.physical_type
        ))
    };
    if column.physical_type != PhysicalType::BYTE_ARRAY {
        return Err(unsupported());
    }
    Ok(match output {
        DataType::Utf8 => Box::new(offsets::OffsetsDecoder::<i32>::new(true)),
        DataType::Binary => Box::new(offsets::OffsetsDecoder::<i32>::new(false)),
        DataType::LargeUtf8 => Box::new(offsets::OffsetsDecoder::<i64>::new(true)),
        DataType::LargeBinary => Box::new(offsets::OffsetsDecoder::<i64>::new(false)),
        DataType::Utf8View => Box::new(view::ViewDecoder::new(true)),
        DataType::BinaryView => Box::new(view::ViewDecoder::new(false)),
        DataType::Dictionary(key, value) => dictionary::new_decoder(key, value).ok_or_else(unsupported)?,
        DataType::Decimal32(p, s) => Box::new(decimal::DecimalDecoder::<Decimal32Type>::new(*p, *s)),
        DataType::Decimal64(p, s) => Box::new(decimal::DecimalDecoder::<Decimal64Type>::new(*p, *s)),
        DataType::Decimal128(p, s) => Box::new(decimal::DecimalDecoder::<Decimal128Type>::new(*p, *s)),
        DataType::Decimal256(p, s) => Box::new(decimal::DecimalDecoder::<Decimal256Type>::new(*p, *s)),
        _ => return Err(unsupported()),
    })
}

/// Checks a read's value count against its validity and returns its number of rows.
fn page_rows(values: usize, validity: Option<&Validity<'_>>) -> Result<usize> {
    match validity {
        None => Ok(values),
        Some(v) if v.len.checked_sub(v.null_count) == Some(values) => Ok(v.len),
        Some(v) => Err(Error::corrupt(format!(
            "page has {} rows of which {} are null, but {values} encoded values",
            v.len, v.null_count
        ))),
    }
}

/// The error for more value bytes than the output's offsets can address.
#[cold]
fn offsets_overflow(have: usize, add: u64, limit: usize) -> Error {
    Error::invalid_argument(format!(
        "{have} + {add} bytes of values in one batch overflow the {limit}-byte limit of 32-bit \
         offsets; read this column with ByteArrayType::Large (or View), or use smaller batches"
    ))
}

/// Checks that `have + add` value bytes fit offsets limited to `O::MAX`.
fn check_room<O: OffsetSize>(have: usize, add: u64) -> Result<()> {
    match u64::try_from(have).ok().and_then(|h| h.checked_add(add)) {
        Some(total) if total <= O::MAX as u64 => Ok(()),
        _ => Err(offsets_overflow(have, add, O::MAX)),
    }
}

/// Scratch vectors kept across pages, so decoding a page allocates nothing once they have
/// grown to the page size.
#[derive(Debug, Default)]
struct Scratch {
    /// Dictionary indexes of one read.
    indexes: Vec<u32>,
}

/// Checks that a null buffer handed to `finish` covers exactly the `len` decoded rows.
fn check_null_rows(nulls: Option<&NullBuffer>, len: usize) -> Result<()> {
    match nulls {
        Some(n) if n.len() != len => {
            Err(Error::invalid_argument(format!("null buffer of {} rows for {len} decoded rows", n.len())))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod dictionary_tests;
#[cfg(test)]
mod sizing_tests;
#[cfg(test)]
mod spread_tests;
#[cfg(test)]
mod tests;
