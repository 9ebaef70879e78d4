//! Arrow values → physical values: the non-null rows of a flat Arrow array, converted where
//! Parquet stores them otherwise (narrow and unsigned integers, seconds, Date64, decimals),
//! handed to the column's encoder and folded into the page's statistics.
//!
//! Callers pass ranges of rows that are all valid, so nothing here looks at validity.

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::Array;
use arrow_buffer::ToByteSlice;
use arrow_schema::{DataType, TimeUnit};

use super::encoder::ValueEncoder;
use super::schema::{Conversion, LeafColumn};
use super::statistics::Bounds;
use crate::error::{Error, Result};
use crate::format::PhysicalType;

/// The longest BYTE_ARRAY value a page can hold: PLAIN and DELTA_LENGTH store lengths as
/// 32-bit numbers, which readers take as signed.
const MAX_VALUE_LEN: u64 = i32::MAX as u64;

/// Fails if a value among rows `start..end` of a byte array (large offsets or views; values
/// with 32-bit offsets are shorter by construction) is longer than a BYTE_ARRAY value can be.
/// Over large offsets it costs one subtraction unless the rows hold more than 2 GiB in all.
pub(crate) fn check_value_lengths(leaf: &LeafColumn, array: &dyn Array, start: usize, end: usize) -> Result<()> {
    fn large(offsets: &[i64]) -> u64 {
        if (offsets[offsets.len() - 1] - offsets[0]) as u64 <= MAX_VALUE_LEN {
            return 0;
        }
        offsets.windows(2).map(|w| (w[1] - w[0]) as u64).max().unwrap_or(0)
    }
    let longest = match array.data_type() {
        DataType::LargeUtf8 => large(&array.as_string::<i64>().value_offsets()[start..=end]),
        DataType::LargeBinary => large(&array.as_binary::<i64>().value_offsets()[start..=end]),
        DataType::Utf8View => view_lengths(&array.as_string_view().views()[start..end]).1,
        DataType::BinaryView => view_lengths(&array.as_binary_view().views()[start..end]).1,
        _ => 0,
    };
    match longest > MAX_VALUE_LEN {
        true => Err(too_long(leaf, longest)),
        false => Ok(()),
    }
}

/// The total and the longest length of the values of `views`, in one pass.
fn view_lengths(views: &[u128]) -> (u64, u64) {
    views.iter().fold((0, 0), |(total, longest), &v| {
        let len = u64::from(v as u32);
        (total + len, longest.max(len))
    })
}

/// The error of a value of `len` bytes, past [`MAX_VALUE_LEN`], in `leaf`.
fn too_long(leaf: &LeafColumn, len: u64) -> Error {
    Error::invalid_argument(format!(
        "column '{}': a value of {len} bytes, more than the {MAX_VALUE_LEN} a Parquet BYTE_ARRAY value can hold",
        leaf.path
    ))
}

/// Reused conversion buffers of one column.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    i32s: Vec<i32>,
    i64s: Vec<i64>,
    bytes: Vec<u8>,
}

/// Encodes rows `start..end` of `array` (all valid) and folds their bounds into `bounds`
/// (unless `None`); returns the BYTE_ARRAY value bytes, for SizeStatistics.
pub(crate) fn put_valid_range(
    leaf: &LeafColumn,
    array: &dyn Array,
    start: usize,
    end: usize,
    enc: &mut ValueEncoder,
    mut bounds: Option<&mut Bounds>,
    scratch: &mut Scratch,
) -> Result<u64> {
    let order = leaf.order;
    let n = end - start;
    macro_rules! ints32 {
        ($t:ty) => {{
            let v = &array.as_primitive::<$t>().values()[start..end];
            scratch.i32s.clear();
            scratch.i32s.extend(v.iter().map(|&x| x as i32));
            put_i32s(&scratch.i32s, enc, bounds, order);
        }};
    }
    use DataType as D;
    match array.data_type() {
        D::Boolean => {
            let values = array.as_boolean().values();
            let ones = values.slice(start, n).count_set_bits();
            enc.put_bools(values.values(), values.offset() + start, n);
            if let Some(b) = bounds {
                b.fold_bool(ones < n, ones > 0);
            }
        }
        D::Int8 => ints32!(Int8Type),
        D::Int16 => ints32!(Int16Type),
        D::UInt8 => ints32!(UInt8Type),
        D::UInt16 => ints32!(UInt16Type),
        D::UInt32 => ints32!(UInt32Type),
        D::Int32 | D::Date32 | D::Time32(_) | D::Decimal32(..) => {
            let v = &i32_values(array)[start..end];
            match leaf.conversion {
                Conversion::Scale(k) => {
                    scratch.i32s.clear();
                    // Seconds of a day times 1000 stay far below i32::MAX for valid times.
                    scratch.i32s.extend(v.iter().map(|&x| x.wrapping_mul(k as i32)));
                    put_i32s(&scratch.i32s, enc, bounds, order);
                }
                _ => put_i32s(v, enc, bounds, order),
            }
        }
        D::Date64 => {
            let v = &array.as_primitive::<Date64Type>().values()[start..end];
            scratch.i32s.clear();
            scratch.i32s.extend(v.iter().map(|&ms| (ms / 86_400_000) as i32));
            put_i32s(&scratch.i32s, enc, bounds, order);
        }
        D::UInt64 => {
            let v = &array.as_primitive::<UInt64Type>().values()[start..end];
            scratch.i64s.clear();
            scratch.i64s.extend(v.iter().map(|&x| x as i64));
            put_i64s(&scratch.i64s, enc, bounds, order);
        }
        D::Decimal64(..) => {
            let v = &array.as_primitive::<Decimal64Type>().values()[start..end];
            if leaf.physical_type == PhysicalType::INT32 {
                scratch.i32s.clear();
                scratch.i32s.extend(v.iter().map(|&x| x as i32));
                put_i32s(&scratch.i32s, enc, bounds, order);
            } else {
                put_i64s(v, enc, bounds, order);
            }
        }
        D::Int64 | D::Time64(_) | D::Timestamp(..) | D::Duration(_) => {
            let v = &i64_values(array)[start..end];
            match leaf.conversion {
                Conversion::Int96 => {
                    let D::Timestamp(unit, _) = array.data_type() else {
                        return Err(Error::unsupported(format!(
                            "column '{}': only timestamps are written as INT96, not {}",
                            leaf.path,
                            array.data_type()
                        )));
                    };
                    scratch.bytes.clear();
                    for &x in v {
                        let value = int96(x, *unit).ok_or_else(|| {
                            Error::invalid_argument(format!(
                                "column '{}': the timestamp {x} ({unit:?}) is outside the Julian days INT96 \
                                 can hold",
                                leaf.path
                            ))
                        })?;
                        scratch.bytes.extend_from_slice(&value);
                    }
                    enc.put_fixed(&scratch.bytes);
                }
                Conversion::Scale(k) => {
                    scratch.i64s.clear();
                    for &x in v {
                        scratch.i64s.push(x.checked_mul(k).ok_or_else(|| {
                            Error::invalid_argument(format!(
                                "column '{}': the value {x} overflows INT64 when converted to \
                                 milliseconds",
                                leaf.path
                            ))
                        })?);
                    }
                    put_i64s(&scratch.i64s, enc, bounds, order);
                }
                _ => put_i64s(v, enc, bounds, order),
            }
        }
        D::Float16 => {
            let v = array.as_primitive::<Float16Type>().values()[start..end].to_byte_slice();
            enc.put_fixed(v);
            if let Some(b) = bounds {
                b.fold_bytes(order, v.chunks_exact(2));
            }
        }
        D::Float32 => {
            let v = &array.as_primitive::<Float32Type>().values()[start..end];
            enc.put_float_bytes(v.to_byte_slice());
            if let Some(b) = bounds {
                b.fold_f32(v);
            }
        }
        D::Float64 => {
            let v = &array.as_primitive::<Float64Type>().values()[start..end];
            enc.put_float_bytes(v.to_byte_slice());
            if let Some(b) = bounds {
                b.fold_f64(v);
            }
        }
        D::Decimal128(..) => {
            let v = &array.as_primitive::<Decimal128Type>().values()[start..end];
            put_wide_decimal(leaf, v.iter().map(|x| x.to_be_bytes()), enc, bounds, scratch)?;
        }
        D::Decimal256(..) => {
            let v = &array.as_primitive::<Decimal256Type>().values()[start..end];
            put_wide_decimal(leaf, v.iter().map(|x| x.to_be_bytes()), enc, bounds, scratch)?;
        }
        D::Utf8 | D::Binary => {
            let (offsets, data) = match array.data_type() {
                D::Utf8 => (array.as_string::<i32>().value_offsets(), array.as_string::<i32>().value_data()),
                _ => (array.as_binary::<i32>().value_offsets(), array.as_binary::<i32>().value_data()),
            };
            let offsets = &offsets[start..=end];
            enc.put_offsets(offsets, data);
            if let Some(b) = bounds.as_deref_mut() {
                b.fold_bytes(order, offsets.windows(2).map(|w| &data[w[0] as usize..w[1] as usize]));
            }
            return Ok((offsets[n] - offsets[0]) as u64);
        }
        D::LargeUtf8 | D::LargeBinary => {
            check_value_lengths(leaf, array, start, end)?;
            let (offsets, data) = match array.data_type() {
                D::LargeUtf8 => (array.as_string::<i64>().value_offsets(), array.as_string::<i64>().value_data()),
                _ => (array.as_binary::<i64>().value_offsets(), array.as_binary::<i64>().value_data()),
            };
            let offsets = &offsets[start..=end];
            enc.put_offsets(offsets, data);
            if let Some(b) = bounds.as_deref_mut() {
                b.fold_bytes(order, offsets.windows(2).map(|w| &data[w[0] as usize..w[1] as usize]));
            }
            return Ok((offsets[n] - offsets[0]) as u64);
        }
        D::Utf8View | D::BinaryView => {
            let views = match array.data_type() {
                D::Utf8View => array.as_string_view().clone().to_binary_view(),
                _ => array.as_binary_view().clone(),
            };
            let (total, longest) = view_lengths(&views.views()[start..end]);
            if longest > MAX_VALUE_LEN {
                return Err(too_long(leaf, longest));
            }
            let values = (start..end).map(|i| views.value(i));
            enc.put_byte_values(values.clone());
            if let Some(b) = bounds.as_deref_mut() {
                b.fold_bytes(order, values);
            }
            return Ok(total);
        }
        D::FixedSizeBinary(w) => {
            let w = *w as usize;
            let data = &array.as_fixed_size_binary().value_data()[start * w..end * w];
            enc.put_fixed(data);
            if let Some(b) = bounds {
                b.fold_bytes(order, data.chunks_exact(w.max(1)));
            }
        }
        D::Null => {}
        other => return Err(Error::unsupported(format!("column '{}': cannot write Arrow {other} values", leaf.path))),
    }
    Ok(0)
}

/// The Julian day of the Unix epoch (1970-01-01).
const JULIAN_DAY_OF_EPOCH: i64 = 2_440_588;

/// A timestamp of `unit`s since the epoch as INT96: the nanoseconds into its day (8 bytes,
/// little-endian), then its Julian day (4 bytes), as Impala and pyarrow write it. The day is
/// split off in the timestamp's own unit, so seconds far from 1970 (the year 1000 or 3000)
/// do not overflow on the way through nanoseconds. `None` past the Julian days an `i32` holds.
pub(crate) fn int96(value: i64, unit: TimeUnit) -> Option<[u8; 12]> {
    let per_second: i64 = match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    };
    let per_day = per_second * 86_400;
    let day = i32::try_from(value.div_euclid(per_day) + JULIAN_DAY_OF_EPOCH).ok()?;
    let nanos = value.rem_euclid(per_day) * (1_000_000_000 / per_second);
    let mut out = [0u8; 12];
    out[..8].copy_from_slice(&nanos.to_le_bytes());
    out[8..].copy_from_slice(&day.to_le_bytes());
    Some(out)
}

/// The values of an array whose Parquet form is INT32 as it is (Int32, Date32, Time32,
/// Decimal32): one native type, several logical ones.
fn i32_values(array: &dyn Array) -> &[i32] {
    match array.data_type() {
        DataType::Date32 => array.as_primitive::<Date32Type>().values(),
        DataType::Time32(TimeUnit::Second) => array.as_primitive::<Time32SecondType>().values(),
        DataType::Time32(_) => array.as_primitive::<Time32MillisecondType>().values(),
        DataType::Decimal32(..) => array.as_primitive::<Decimal32Type>().values(),
        _ => array.as_primitive::<Int32Type>().values(),
    }
}

/// The values of an array whose Parquet form is INT64 as it is (Int64, Time64, timestamps,
/// durations).
fn i64_values(array: &dyn Array) -> &[i64] {
    use TimeUnit as U;
    match array.data_type() {
        DataType::Time64(U::Nanosecond) => array.as_primitive::<Time64NanosecondType>().values(),
        DataType::Time64(_) => array.as_primitive::<Time64MicrosecondType>().values(),
        DataType::Timestamp(U::Second, _) => array.as_primitive::<TimestampSecondType>().values(),
        DataType::Timestamp(U::Millisecond, _) => array.as_primitive::<TimestampMillisecondType>().values(),
        DataType::Timestamp(U::Microsecond, _) => array.as_primitive::<TimestampMicrosecondType>().values(),
        DataType::Timestamp(U::Nanosecond, _) => array.as_primitive::<TimestampNanosecondType>().values(),
        DataType::Duration(U::Second) => array.as_primitive::<DurationSecondType>().values(),
        DataType::Duration(U::Millisecond) => array.as_primitive::<DurationMillisecondType>().values(),
        DataType::Duration(U::Microsecond) => array.as_primitive::<DurationMicrosecondType>().values(),
        DataType::Duration(U::Nanosecond) => array.as_primitive::<DurationNanosecondType>().values(),
        _ => array.as_primitive::<Int64Type>().values(),
    }
}

fn put_i32s(v: &[i32], enc: &mut ValueEncoder, bounds: Option<&mut Bounds>, order: crate::schema::SortOrder) {
    enc.put_i32(v);
    if let Some(b) = bounds {
        b.fold_i32(order, v);
    }
}

fn put_i64s(v: &[i64], enc: &mut ValueEncoder, bounds: Option<&mut Bounds>, order: crate::schema::SortOrder) {
    enc.put_i64(v);
    if let Some(b) = bounds {
        b.fold_i64(order, v);
    }
}

/// Decimal128/256 values given big-endian: INT32/INT64 by precision, else the low
/// `type_length` bytes of the big-endian two's complement (sign bytes dropped). A value whose
/// dropped bytes are more than its sign (one past what the precision holds, which Arrow does
/// not check) is refused: it would be written as another number.
fn put_wide_decimal<const N: usize>(
    leaf: &LeafColumn,
    values: impl Iterator<Item = [u8; N]>,
    enc: &mut ValueEncoder,
    bounds: Option<&mut Bounds>,
    scratch: &mut Scratch,
) -> Result<()> {
    let width = match leaf.physical_type {
        PhysicalType::INT32 => 4,
        PhysicalType::INT64 => 8,
        _ => leaf.type_length,
    };
    // The bytes kept of each value; a width wider than the value (none of the widths
    // precisions give) gets sign bytes in front.
    let kept = width.min(N);
    let sign = |be: &[u8; N]| if kept > 0 && be[N - kept] & 0x80 != 0 { 0xFF } else { 0 };
    let check = |be: &[u8; N]| match kept > 0 && be[..N - kept].iter().all(|&b| b == sign(be)) {
        true => Ok(()),
        false => Err(Error::invalid_argument(format!(
            "column '{}': a decimal value does not fit the {width} bytes its precision is stored in \
             (Arrow does not check values against the precision)",
            leaf.path
        ))),
    };
    // The kept bytes as an integer (INT32 and INT64 keep 4 and 8).
    let low = |be: &[u8; N]| {
        let mut b = [0u8; 8];
        b[8 - kept..].copy_from_slice(&be[N - kept..]);
        i64::from_be_bytes(b)
    };
    match leaf.physical_type {
        PhysicalType::INT32 => {
            scratch.i32s.clear();
            for be in values {
                check(&be)?;
                scratch.i32s.push(low(&be) as i32);
            }
            put_i32s(&scratch.i32s, enc, bounds, leaf.order);
        }
        PhysicalType::INT64 => {
            scratch.i64s.clear();
            for be in values {
                check(&be)?;
                scratch.i64s.push(low(&be));
            }
            put_i64s(&scratch.i64s, enc, bounds, leaf.order);
        }
        _ => {
            scratch.bytes.clear();
            for be in values {
                check(&be)?;
                scratch.bytes.extend(std::iter::repeat_n(sign(&be), width - kept));
                scratch.bytes.extend_from_slice(&be[N - kept..]);
            }
            enc.put_fixed(&scratch.bytes);
            if let Some(b) = bounds {
                b.fold_bytes(leaf.order, scratch.bytes.chunks_exact(width.max(1)));
            }
        }
    }
    Ok(())
}
