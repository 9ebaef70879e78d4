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
//! - [`decimal`]: `Decimal128` / `Decimal256` from big-endian two's complement bytes.
//!
//! This file holds the factory and what the families share: the dictionary page, dictionary
//! index runs, dense decoding into a sink, UTF-8 validation over whole byte runs, and
//! spreading dense offsets over null rows.

mod decimal;
mod dictionary;
mod offsets;
mod view;

use arrow_array::types::{Decimal128Type, Decimal256Type, Decimal32Type, Decimal64Type};
use arrow_buffer::{Buffer, NullBuffer};
use arrow_schema::DataType;

use crate::encoding::plain::decode_byte_array;
use crate::encoding::{ByteArraySink, OffsetSize, OffsetsSink};
use crate::error::{Error, Result};
use crate::format::{Encoding, PhysicalType};
use crate::read::spread::spread_offsets;
use crate::read::values::{PageValues, Validity, ValueDecoder};
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

/// Whether data pages in `encoding` hold dictionary indexes.
fn is_dictionary_encoded(encoding: Encoding) -> bool {
    encoding == Encoding::RLE_DICTIONARY || encoding == Encoding::PLAIN_DICTIONARY
}

/// The error for a data page encoding that BYTE_ARRAY values cannot have.
#[cold]
fn unsupported_encoding(encoding: Encoding) -> Error {
    Error::unsupported(format!("BYTE_ARRAY values in encoding {encoding} are not supported"))
}

/// The error for dictionary indexes without a dictionary to look them up in.
#[cold]
fn no_dictionary() -> Error {
    Error::corrupt("a dictionary-encoded data page, but the column chunk has no dictionary page")
}

/// Rejects a dictionary page in anything but PLAIN (which PLAIN_DICTIONARY means there).
pub(super) fn check_dictionary_encoding(page: &PageValues) -> Result<()> {
    if page.encoding() == Encoding::PLAIN || page.encoding() == Encoding::PLAIN_DICTIONARY {
        Ok(())
    } else {
        Err(Error::unsupported(format!(
            "dictionary page in encoding {}: only PLAIN dictionary pages exist in the spec",
            page.encoding()
        )))
    }
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

/// The most bytes one read of a DELTA_BYTE_ARRAY page may expand to (4 GiB).
const MAX_PAGE_EXPANSION: u64 = 1 << 32;

/// Decodes the next `n` values of a PLAIN, DELTA_LENGTH_BYTE_ARRAY or DELTA_BYTE_ARRAY page
/// into `sink` (which copies them), failing before any large allocation if they would add
/// more than `room` bytes to it.
fn decode_dense<S: ByteArraySink>(
    page: &mut PageValues,
    n: usize,
    sink: &mut S,
    have: usize,
    room: impl Fn(usize, u64) -> Result<()>,
) -> Result<()> {
    if n == 0 {
        // An all-null page has nothing to decode, whatever its encoding says.
        return Ok(());
    }
    let bytes = match page.encoding() {
        // The cheap bound: only near the offsets' limit are the values' lengths summed.
        Encoding::PLAIN | Encoding::DELTA_LENGTH_BYTE_ARRAY => page.value_bytes_bound(),
        Encoding::DELTA_BYTE_ARRAY => {
            // Shared prefixes can make a small page expand enormously: check before the
            // sink reserves the expanded size. No real page expands past 4 GiB (pages are
            // about a megabyte), so more is taken as malformed even where offsets allow it.
            let bytes = page.next_value_bytes(n);
            if bytes > MAX_PAGE_EXPANSION {
                return Err(Error::corrupt(format!(
                    "DELTA_BYTE_ARRAY page of {} bytes expands to {bytes} bytes of values",
                    page.data().len(),
                )));
            }
            bytes
        }
        e => return Err(unsupported_encoding(e)),
    };
    if room(have, bytes).is_err() {
        room(have, page.next_value_bytes(n))?;
    }
    page.read_byte_arrays(n, sink)?;
    Ok(())
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

/// The dictionary page of a column chunk as offsets + one data buffer, shared by the
/// offsets, dictionary and decimal outputs.
#[derive(Debug, Clone)]
struct Dict {
    /// `offsets[i]..offsets[i + 1]` is value `i` in `data`; starts at 0.
    offsets: Vec<i32>,
    /// All values back to back, frozen so a `Dictionary` output shares it without a copy.
    data: Buffer,
}

impl Dict {
    /// Decodes a dictionary page (one copy of its values), validating UTF-8 once over all of
    /// them if `utf8`.
    fn read(page: &PageValues, utf8: bool) -> Result<Self> {
        check_dictionary_encoding(page)?;
        let (n, data) = (page.len(), page.data());
        let mut sink =
            OffsetsSink::<i32>::with_capacity(n.min(data.len() / 4), data.len().saturating_sub(n.saturating_mul(4)));
        decode_byte_array(data, 0, n, &mut sink)?;
        if utf8 {
            check_utf8_offsets(&sink.data, &sink.offsets).map_err(|e| e.context("dictionary page"))?;
        }
        Ok(Dict { offsets: sink.offsets, data: Buffer::from_vec(sink.data) })
    }

    /// The number of values.
    fn len(&self) -> usize {
        self.offsets.len() - 1
    }
}

/// Whether `b` continues a UTF-8 sequence (0b10xxxxxx), i.e. is not the start of a char.
#[inline]
fn is_continuation(b: u8) -> bool {
    (b as i8) < -0x40
}

/// The position of the first bad byte of `bytes` if it is not UTF-8. The fast check runs
/// first; the slower one that finds the position only on failure.
#[inline]
pub(super) fn utf8_error_at(bytes: &[u8]) -> Option<usize> {
    if simdutf8::basic::from_utf8(bytes).is_ok() {
        return None;
    }
    Some(simdutf8::compat::from_utf8(bytes).err().map_or(0, |e| e.valid_up_to()))
}

/// The error for invalid UTF-8 in value `value` (0-based, among the page's values).
#[cold]
fn invalid_utf8(value: usize) -> Error {
    Error::corrupt(format!("value {value} of the page is not valid UTF-8; read the column as Binary to get its bytes"))
}

/// Checks that the values `offsets` delimit in `data` (`offsets[0]` need not be 0) are all
/// UTF-8 with one validation of the whole run of bytes, plus a pass over the offsets: a
/// concatenation can be valid while a value ends in the middle of a char that the next value
/// completes, so every interior offset must also fall on a char boundary. Errors name the
/// value's index in `offsets`.
fn check_utf8_offsets<O: OffsetSize>(data: &[u8], offsets: &[O]) -> Result<()> {
    let (Some(first), Some(last)) = (offsets.first(), offsets.last()) else { return Ok(()) };
    let (base, end) = (first.as_usize(), last.as_usize());
    let region = data.get(base..end).unwrap_or_default();
    if region.is_ascii() {
        // Every byte starts a char, so the offsets need no pass. The check costs what the
        // validator's own ASCII path costs, so nothing is lost when the region is not ASCII.
        return Ok(());
    }
    if let Some(p) = utf8_error_at(region) {
        let i = offsets.partition_point(|o| o.as_usize() <= base + p);
        return Err(invalid_utf8(i.saturating_sub(1)));
    }
    for (i, o) in offsets.iter().enumerate().skip(1) {
        let o = o.as_usize();
        if o < end && data.get(o).is_some_and(|&b| is_continuation(b)) {
            return Err(invalid_utf8(i - 1));
        }
    }
    Ok(())
}

/// [`check_utf8_offsets`] for values given by their `lengths`, back to back in `region`.
fn check_utf8_lengths(region: &[u8], lengths: &[u32]) -> Result<()> {
    if region.is_ascii() {
        return Ok(());
    }
    if let Some(p) = utf8_error_at(region) {
        let mut end = 0usize;
        let i = lengths.iter().position(|&l| {
            end += l as usize;
            end > p
        });
        return Err(invalid_utf8(i.unwrap_or(0)));
    }
    let mut pos = 0usize;
    for (i, &l) in lengths.iter().enumerate() {
        pos += l as usize;
        if region.get(pos).is_some_and(|&b| is_continuation(b)) {
            return Err(invalid_utf8(i));
        }
    }
    Ok(())
}

/// Checks that the dictionary values `from.0..to.0`, at bytes `from.1..to.1` of `data` with
/// their length prefixes, are UTF-8. With every length below 128 the length prefixes are
/// ASCII bytes, which no multi-byte character can span: the stretch is then UTF-8 exactly
/// when every value is, and one check over it saves a walk over the values. Otherwise (or to
/// name the bad value) the check goes value run by value run.
pub(super) fn check_dict_utf8(data: &[u8], from: (usize, usize), to: (usize, usize), lengths_or: u32) -> Result<()> {
    let stretch = &data[from.1..to.1];
    if lengths_or < 128 && (stretch.is_ascii() || utf8_error_at(stretch).is_none()) {
        return Ok(());
    }
    if check_utf8_plain(stretch, to.0 - from.0).is_err() {
        // Again from the start of the page, so that the error names the value's index in it.
        return check_utf8_plain(&data[..to.1], to.0).map_err(|e| e.context("dictionary page"));
    }
    Ok(())
}

/// Checks that the `n` values of a PLAIN page (already decoded, so in bounds) are UTF-8
/// without copying them out. A length below 128 is the bytes `[len, 0, 0, 0]`: ASCII, which
/// is valid UTF-8 and cannot join the chars around it, so runs of values with such lengths
/// are validated as one slice together with their lengths, and a run is only cut at a
/// longer value's length.
pub(super) fn check_utf8_plain(data: &[u8], n: usize) -> Result<()> {
    if data.is_ascii() {
        // The values are parts of `data`, so they are ASCII too: no walk over the lengths.
        return Ok(());
    }
    let mut begin = 0;
    let mut p = 0;
    for _ in 0..n {
        let Some(len) = data.get(p..).and_then(|s| s.first_chunk::<4>()) else { break };
        let len = u32::from_le_bytes(*len) as usize;
        if len >= 128 {
            if utf8_error_at(data.get(begin..p).unwrap_or_default()).is_some() {
                return Err(plain_utf8_culprit(data, n));
            }
            begin = p + 4;
        }
        p += 4 + len;
    }
    if utf8_error_at(data.get(begin..p.min(data.len())).unwrap_or_default()).is_some() {
        return Err(plain_utf8_culprit(data, n));
    }
    Ok(())
}

/// Finds which value of a PLAIN page is not UTF-8 (the slow path, value by value).
#[cold]
fn plain_utf8_culprit(data: &[u8], n: usize) -> Error {
    let mut p = 0;
    for i in 0..n {
        let Some(len) = data.get(p..).and_then(|s| s.first_chunk::<4>()) else { break };
        let len = u32::from_le_bytes(*len) as usize;
        let value = data.get(p + 4..p + 4 + len).unwrap_or_default();
        if std::str::from_utf8(value).is_err() {
            return invalid_utf8(i);
        }
        p += 4 + len;
    }
    invalid_utf8(0)
}

#[cfg(test)]
mod dictionary_tests;
#[cfg(test)]
mod sizing_tests;
#[cfg(test)]
mod spread_tests;
#[cfg(test)]
mod tests;
