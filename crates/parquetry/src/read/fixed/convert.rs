//! Which Arrow output types each fixed-width physical type produces, and the conversions that
//! run at `finish` when the output's layout differs from the physical values.

use std::sync::Arc;

use arrow_array::types::*;
use arrow_array::{ArrayRef, PrimitiveArray};
use arrow_buffer::{i256, Buffer, NullBuffer, ScalarBuffer};
use arrow_schema::{DataType, TimeUnit};

use crate::error::{Error, Result};
use crate::format::{ConvertedType, LogicalType, PhysicalType, TimeUnit as ParquetUnit};
use crate::schema::ColumnDescriptor;

/// How a decoder turns its physical values into the output array.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Target {
    /// The physical values reinterpreted as this type of the same width (no copy): Int32,
    /// UInt32, Date32, Time32, Decimal32 from INT32; Int64, UInt64, timestamps, durations,
    /// Time64, Date64, Decimal64 from INT64; Float32; Float64.
    Relabel(DataType),
    /// Each integer widened to 64 bits (zero-extended if the column is unsigned), scaled, then
    /// truncated or extended to the native type of `to`.
    Int {
        /// The output type.
        to: DataType,
        /// Whether INT32 values are unsigned (UINT_8/16/32 or an unsigned INTEGER annotation).
        unsigned: bool,
        /// A change of unit.
        scale: Scale,
    },
    /// INT96 (nanoseconds of day, Julian day) to this `Timestamp` type.
    Int96(DataType),
    /// BOOLEAN to Boolean.
    Boolean,
    /// FIXED_LEN_BYTE_ARRAY to FixedSizeBinary of the same width.
    FixedSizeBinary,
    /// FIXED_LEN_BYTE_ARRAY(2) to Float16 (little-endian IEEE half).
    Float16,
    /// FIXED_LEN_BYTE_ARRAY (big-endian two's complement) to this decimal type.
    Decimal(DataType),
}

/// A change of time unit applied to each value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scale {
    /// Same unit.
    None,
    /// Coarser to finer: multiply (wrapping, as pyarrow's reader does not check).
    Mul(i64),
    /// Finer to coarser: divide, truncating toward zero.
    Div(i64),
}

impl Scale {
    fn between(from: TimeUnit, to: TimeUnit) -> Self {
        let exp = |u: TimeUnit| match u {
            TimeUnit::Second => 0,
            TimeUnit::Millisecond => 3,
            TimeUnit::Microsecond => 6,
            TimeUnit::Nanosecond => 9,
        };
        let (a, b) = (exp(from), exp(to));
        match a.cmp(&b) {
            std::cmp::Ordering::Equal => Scale::None,
            std::cmp::Ordering::Less => Scale::Mul(10i64.pow(b - a)),
            std::cmp::Ordering::Greater => Scale::Div(10i64.pow(a - b)),
        }
    }
}

/// The time unit the column stores (TIME or TIMESTAMP annotations), if any.
fn stored_unit(c: &ColumnDescriptor) -> Option<TimeUnit> {
    let from_parquet = |u: &ParquetUnit| match u {
        ParquetUnit::Millis => TimeUnit::Millisecond,
        ParquetUnit::Micros => TimeUnit::Microsecond,
        ParquetUnit::Nanos => TimeUnit::Nanosecond,
    };
    match (&c.logical_type, c.converted_type) {
        (Some(LogicalType::Time { unit, .. } | LogicalType::Timestamp { unit, .. }), _) => Some(from_parquet(unit)),
        (_, Some(ConvertedType::TIME_MILLIS | ConvertedType::TIMESTAMP_MILLIS)) => Some(TimeUnit::Millisecond),
        (_, Some(ConvertedType::TIME_MICROS | ConvertedType::TIMESTAMP_MICROS)) => Some(TimeUnit::Microsecond),
        _ => None,
    }
}

fn is_unsigned(c: &ColumnDescriptor) -> bool {
    matches!(c.logical_type, Some(LogicalType::Integer { is_signed: false, .. }))
        || matches!(c.converted_type, Some(ConvertedType::UINT_8 | ConvertedType::UINT_16 | ConvertedType::UINT_32))
}

/// The conversion that reads `c` as `output`, or `None` if `c`'s physical type cannot
/// produce `output`.
pub(super) fn resolve(c: &ColumnDescriptor, output: &DataType) -> Option<Target> {
    use DataType as D;
    let integer = |width: usize, scale: Scale| {
        if scale == Scale::None && output.primitive_width() == Some(width) {
            Target::Relabel(output.clone())
        } else {
            Target::Int { to: output.clone(), unsigned: is_unsigned(c), scale }
        }
    };
    // A time or timestamp output takes the stored unit to its own; without a stored unit
    // (durations, unannotated integers) the values are already in the output's unit.
    let rescale = |to: &TimeUnit| Scale::between(stored_unit(c).unwrap_or(*to), *to);
    match c.physical_type {
        PhysicalType::BOOLEAN => matches!(output, D::Boolean).then_some(Target::Boolean),
        PhysicalType::INT32 => match output {
            D::Int8
            | D::Int16
            | D::Int32
            | D::Int64
            | D::UInt8
            | D::UInt16
            | D::UInt32
            | D::UInt64
            | D::Date32
            | D::Decimal32(..)
            | D::Decimal64(..)
            | D::Decimal128(..)
            | D::Decimal256(..) => Some(integer(4, Scale::None)),
            D::Date64 => Some(integer(4, Scale::Mul(86_400_000))),
            D::Time32(u @ (TimeUnit::Second | TimeUnit::Millisecond))
            | D::Time64(u @ (TimeUnit::Microsecond | TimeUnit::Nanosecond)) => Some(integer(4, rescale(u))),
            _ => None,
        },
        PhysicalType::INT64 => match output {
            D::Int8
            | D::Int16
            | D::Int32
            | D::Int64
            | D::UInt8
            | D::UInt16
            | D::UInt32
            | D::UInt64
            | D::Date64
            | D::Decimal32(..)
            | D::Decimal64(..)
            | D::Decimal128(..)
            | D::Decimal256(..) => Some(integer(8, Scale::None)),
            D::Time32(u @ (TimeUnit::Second | TimeUnit::Millisecond))
            | D::Time64(u @ (TimeUnit::Microsecond | TimeUnit::Nanosecond))
            | D::Timestamp(u, _)
            | D::Duration(u) => Some(integer(8, rescale(u))),
            _ => None,
        },
        PhysicalType::INT96 => matches!(output, D::Timestamp(..)).then(|| Target::Int96(output.clone())),
        PhysicalType::FLOAT => matches!(output, D::Float32).then(|| Target::Relabel(output.clone())),
        PhysicalType::DOUBLE => matches!(output, D::Float64).then(|| Target::Relabel(output.clone())),
        PhysicalType::FIXED_LEN_BYTE_ARRAY => match output {
            D::FixedSizeBinary(w) if *w == c.type_length => Some(Target::FixedSizeBinary),
            D::Float16 if c.type_length == 2 => Some(Target::Float16),
            D::Decimal32(..) | D::Decimal64(..) | D::Decimal128(..) | D::Decimal256(..) => {
                Some(Target::Decimal(output.clone()))
            }
            _ => None,
        },
        _ => None,
    }
}

#[cold]
fn mismatch(target: &Target, physical: &str) -> Error {
    Error::invalid_argument(format!("cannot build {target:?} from {physical} values"))
}

/// Checks that `nulls` has one bit per value.
pub(super) fn check_nulls(nulls: Option<&NullBuffer>, len: usize) -> Result<()> {
    match nulls {
        Some(n) if n.len() != len => {
            Err(Error::invalid_argument(format!("a null buffer of {} bits for {len} values", n.len())))
        }
        _ => Ok(()),
    }
}

/// A primitive array of type `dt` over `buffer`, which holds `len` values of `dt`'s native
/// type, aligned for it (callers build `buffer` from a `Vec` of a type of that width).
pub(super) fn array_from_buffer(
    dt: &DataType,
    buffer: Buffer,
    len: usize,
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef> {
    use DataType as D;
    use TimeUnit as U;
    check_nulls(nulls.as_ref(), len)?;
    if dt.primitive_width().is_none_or(|w| len.checked_mul(w) > Some(buffer.len())) {
        return Err(Error::invalid_argument(format!(
            "a buffer of {} bytes does not hold {len} {dt} values",
            buffer.len()
        )));
    }
    macro_rules! arr {
        ($t:ty) => {
            Arc::new(PrimitiveArray::<$t>::new(ScalarBuffer::new(buffer, 0, len), nulls).with_data_type(dt.clone()))
                as ArrayRef
        };
    }
    Ok(match dt {
        D::Int8 => arr!(Int8Type),
        D::Int16 => arr!(Int16Type),
        D::Int32 => arr!(Int32Type),
        D::Int64 => arr!(Int64Type),
        D::UInt8 => arr!(UInt8Type),
        D::UInt16 => arr!(UInt16Type),
        D::UInt32 => arr!(UInt32Type),
        D::UInt64 => arr!(UInt64Type),
        D::Float16 => arr!(Float16Type),
        D::Float32 => arr!(Float32Type),
        D::Float64 => arr!(Float64Type),
        D::Date32 => arr!(Date32Type),
        D::Date64 => arr!(Date64Type),
        D::Time32(U::Second) => arr!(Time32SecondType),
        D::Time32(U::Millisecond) => arr!(Time32MillisecondType),
        D::Time64(U::Microsecond) => arr!(Time64MicrosecondType),
        D::Time64(U::Nanosecond) => arr!(Time64NanosecondType),
        D::Timestamp(U::Second, _) => arr!(TimestampSecondType),
        D::Timestamp(U::Millisecond, _) => arr!(TimestampMillisecondType),
        D::Timestamp(U::Microsecond, _) => arr!(TimestampMicrosecondType),
        D::Timestamp(U::Nanosecond, _) => arr!(TimestampNanosecondType),
        D::Duration(U::Second) => arr!(DurationSecondType),
        D::Duration(U::Millisecond) => arr!(DurationMillisecondType),
        D::Duration(U::Microsecond) => arr!(DurationMicrosecondType),
        D::Duration(U::Nanosecond) => arr!(DurationNanosecondType),
        D::Decimal32(..) => arr!(Decimal32Type),
        D::Decimal64(..) => arr!(Decimal64Type),
        D::Decimal128(..) => arr!(Decimal128Type),
        D::Decimal256(..) => arr!(Decimal256Type),
        // Time32 in µs/ns and Time64 in s/ms are not valid Arrow types.
        _ => return Err(Error::unsupported(format!("Arrow type {dt} from fixed-width values"))),
    })
}

/// Builds `to` from integers: `f` widens (and scales) each value to `i64`, which is then
/// truncated or sign-extended to the width of `to`'s native type (`as` semantics, which is
/// how pyarrow reinterprets annotated integers).
fn narrow<S: Copy>(values: &[S], f: impl Fn(S) -> i64, to: &DataType, nulls: Option<NullBuffer>) -> Result<ArrayRef> {
    let buffer = match to.primitive_width() {
        Some(1) => Buffer::from_vec(values.iter().map(|&v| f(v) as i8).collect::<Vec<_>>()),
        Some(2) => Buffer::from_vec(values.iter().map(|&v| f(v) as i16).collect::<Vec<_>>()),
        Some(4) => Buffer::from_vec(values.iter().map(|&v| f(v) as i32).collect::<Vec<_>>()),
        Some(8) => Buffer::from_vec(values.iter().map(|&v| f(v)).collect::<Vec<_>>()),
        Some(16) => Buffer::from_vec(values.iter().map(|&v| i128::from(f(v))).collect::<Vec<_>>()),
        Some(32) => Buffer::from_vec(values.iter().map(|&v| i256::from_i128(i128::from(f(v)))).collect::<Vec<_>>()),
        _ => return Err(Error::unsupported(format!("Arrow type {to} from integers"))),
    };
    array_from_buffer(to, buffer, values.len(), nulls)
}

/// [`narrow`] with the scale applied, chosen once outside the loop.
fn scaled<S: Copy>(
    values: &[S],
    widen: impl Fn(S) -> i64 + Copy,
    to: &DataType,
    scale: Scale,
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef> {
    match scale {
        Scale::None => narrow(values, widen, to, nulls),
        Scale::Mul(m) => narrow(values, move |v| widen(v).wrapping_mul(m), to, nulls),
        // m > 1, so the division cannot overflow or divide by zero.
        Scale::Div(m) => narrow(values, move |v| widen(v) / m, to, nulls),
    }
}

/// The output array for INT32 values.
pub(super) fn from_i32(values: Vec<i32>, nulls: Option<NullBuffer>, t: &Target) -> Result<ArrayRef> {
    match t {
        Target::Relabel(dt) => {
            let len = values.len();
            array_from_buffer(dt, Buffer::from_vec(values), len, nulls)
        }
        Target::Int { to, unsigned: true, scale } => scaled(&values, |v| i64::from(v as u32), to, *scale, nulls),
        Target::Int { to, unsigned: false, scale } => scaled(&values, i64::from, to, *scale, nulls),
        _ => Err(mismatch(t, "INT32")),
    }
}

/// The output array for INT64 values.
pub(super) fn from_i64(values: Vec<i64>, nulls: Option<NullBuffer>, t: &Target) -> Result<ArrayRef> {
    match t {
        Target::Relabel(dt) => {
            let len = values.len();
            array_from_buffer(dt, Buffer::from_vec(values), len, nulls)
        }
        Target::Int { to, scale, .. } => scaled(&values, |v| v, to, *scale, nulls),
        _ => Err(mismatch(t, "INT64")),
    }
}

/// The output array for FLOAT or DOUBLE values (`Relabel` only).
pub(super) fn from_float<T: arrow_buffer::ArrowNativeType>(
    values: Vec<T>,
    nulls: Option<NullBuffer>,
    t: &Target,
) -> Result<ArrayRef> {
    match t {
        Target::Relabel(dt) => {
            let len = values.len();
            array_from_buffer(dt, Buffer::from_vec(values), len, nulls)
        }
        _ => Err(mismatch(t, "floating-point")),
    }
}

/// Days from the Julian day number epoch to 1970-01-01.
const JULIAN_UNIX_EPOCH: u64 = 2_440_588;

/// An INT96 timestamp (8 bytes nanoseconds of day, 4 bytes Julian day, little endian) in
/// `unit` since the Unix epoch. Computed as Arrow C++ does: unsigned arithmetic that wraps,
/// and the nanoseconds of day divided down to the unit, so out-of-range values match pyarrow.
#[inline]
pub(super) fn int96_to_i64(v: [u8; 12], unit: TimeUnit) -> i64 {
    let [n0, n1, n2, n3, n4, n5, n6, n7, d0, d1, d2, d3] = v;
    let nanos = u64::from_le_bytes([n0, n1, n2, n3, n4, n5, n6, n7]);
    let days = u64::from(u32::from_le_bytes([d0, d1, d2, d3])).wrapping_sub(JULIAN_UNIX_EPOCH);
    let (per_day, divisor) = match unit {
        TimeUnit::Second => (86_400, 1_000_000_000),
        TimeUnit::Millisecond => (86_400_000, 1_000_000),
        TimeUnit::Microsecond => (86_400_000_000, 1_000),
        TimeUnit::Nanosecond => (86_400_000_000_000, 1),
    };
    days.wrapping_mul(per_day).wrapping_add(nanos / divisor) as i64
}

/// The output array for INT96 values.
pub(super) fn from_int96(values: Vec<[u8; 12]>, nulls: Option<NullBuffer>, t: &Target) -> Result<ArrayRef> {
    let Target::Int96(dt @ DataType::Timestamp(unit, _)) = t else {
        return Err(mismatch(t, "INT96"));
    };
    let unit = *unit;
    let out: Vec<i64> = values.iter().map(|&v| int96_to_i64(v, unit)).collect();
    array_from_buffer(dt, Buffer::from_vec(out), values.len(), nulls)
}

/// A big-endian two's complement integer of any width, sign-extended or truncated to 128 bits.
#[inline]
pub(super) fn be_to_i128(b: &[u8]) -> i128 {
    let fill = if b.first().is_some_and(|&x| x & 0x80 != 0) { 0xFF } else { 0 };
    let mut buf = [fill; 16];
    let take = b.len().min(16);
    buf[16 - take..].copy_from_slice(&b[b.len() - take..]);
    i128::from_be_bytes(buf)
}

/// A big-endian two's complement integer of any width, sign-extended or truncated to 256 bits.
#[inline]
pub(super) fn be_to_i256(b: &[u8]) -> i256 {
    let fill = if b.first().is_some_and(|&x| x & 0x80 != 0) { 0xFF } else { 0 };
    let mut buf = [fill; 32];
    let take = b.len().min(32);
    buf[32 - take..].copy_from_slice(&b[b.len() - take..]);
    i256::from_be_bytes(buf)
}

/// The output array for FIXED_LEN_BYTE_ARRAY values of `width` bytes, back to back.
pub(super) fn from_fixed(bytes: Vec<u8>, width: usize, nulls: Option<NullBuffer>, t: &Target) -> Result<ArrayRef> {
    let len = bytes.len() / width.max(1);
    let values = bytes.chunks_exact(width.max(1));
    match t {
        Target::FixedSizeBinary => {
            check_nulls(nulls.as_ref(), len)?;
            let w = i32::try_from(width).map_err(|_| mismatch(t, "FIXED_LEN_BYTE_ARRAY"))?;
            let array = arrow_array::FixedSizeBinaryArray::try_new(w, Buffer::from_vec(bytes), nulls)
                .map_err(|e| Error::invalid_argument(e.to_string()))?;
            Ok(Arc::new(array))
        }
        Target::Float16 => {
            let out: Vec<u16> = values.map(|c| c.first_chunk::<2>().map_or(0, |b| u16::from_le_bytes(*b))).collect();
            array_from_buffer(&DataType::Float16, Buffer::from_vec(out), len, nulls)
        }
        Target::Decimal(dt @ DataType::Decimal256(..)) => {
            let out: Vec<i256> = values.map(be_to_i256).collect();
            array_from_buffer(dt, Buffer::from_vec(out), len, nulls)
        }
        Target::Decimal(dt) => {
            let buffer = match dt {
                DataType::Decimal32(..) => Buffer::from_vec(values.map(|c| be_to_i128(c) as i32).collect::<Vec<_>>()),
                DataType::Decimal64(..) => Buffer::from_vec(values.map(|c| be_to_i128(c) as i64).collect::<Vec<_>>()),
                _ => Buffer::from_vec(values.map(be_to_i128).collect::<Vec<_>>()),
            };
            array_from_buffer(dt, buffer, len, nulls)
        }
        _ => Err(mismatch(t, "FIXED_LEN_BYTE_ARRAY")),
    }
}
