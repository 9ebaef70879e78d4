//! Arrow schema → Parquet schema: one leaf per flat Arrow field, typed as pyarrow and arrow-rs
//! type them, so that every reader gives the same Arrow types back.
//!
//! Nested fields (structs, lists, maps) are refused until nested writing lands; the leaf
//! description already carries the levels so that repetition levels slot in then.

use arrow_schema::{DataType, Field, Schema, TimeUnit as ArrowTimeUnit};

use crate::error::{Error, Result};
use crate::format::{
    ConvertedType, LogicalType, PhysicalType, Repetition, SchemaElement, TimeUnit,
};

/// How an Arrow column's values become physical values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Conversion {
    /// Stored as they are (same width and bits).
    Same,
    /// Widened or reinterpreted into INT32/INT64 (8/16-bit ints, unsigned ints).
    Widen,
    /// Multiplied by a constant (seconds → milliseconds).
    Scale(i64),
    /// Divided by a constant (Date64 milliseconds → days).
    Divide(i64),
    /// Decimal → INT32/INT64 (precision ≤ 18) or big-endian FIXED_LEN_BYTE_ARRAY.
    Decimal,
    /// All-null column.
    Null,
}

/// The order of min/max statistics for a leaf, from the spec's column orders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StatOrder {
    /// false < true.
    Boolean,
    /// Two's complement integers.
    Signed,
    /// Unsigned integers (UINT_* annotations).
    Unsigned,
    /// IEEE floats, NaN excluded.
    Float,
    /// Bytes compared as unsigned, lexicographically.
    Bytes,
    /// Big-endian two's complement bytes (decimals in FIXED_LEN_BYTE_ARRAY).
    SignedBytes,
    /// Half floats in 2 little-endian bytes.
    Float16,
    /// No statistics (no order defined).
    Undefined,
}

/// One leaf column to write.
#[derive(Debug, Clone)]
pub(crate) struct LeafColumn {
    /// The dotted path, as users name the column.
    pub path: String,
    /// The top-level Arrow field index the leaf reads from.
    pub field: usize,
    /// The physical type of the leaf.
    pub physical_type: PhysicalType,
    /// The byte width of FIXED_LEN_BYTE_ARRAY values (0 otherwise).
    pub type_length: usize,
    /// How Arrow values become physical ones.
    pub conversion: Conversion,
    /// The statistics order.
    pub order: StatOrder,
    /// Maximum definition level (0 for required, 1 for optional flat columns).
    pub max_def_level: i16,
    /// Maximum repetition level (0 for flat columns).
    pub max_rep_level: i16,
    /// UTF-8 text: truncated statistics stay valid UTF-8.
    pub is_string: bool,
}

/// The Parquet schema elements (root first) and leaves of an Arrow schema.
pub(crate) fn parquet_schema(schema: &Schema) -> Result<(Vec<SchemaElement>, Vec<LeafColumn>)> {
    let mut elements = vec![SchemaElement {
        name: "schema".to_owned(),
        num_children: Some(schema.fields().len() as i32),
        ..Default::default()
    }];
    let mut leaves = Vec::with_capacity(schema.fields().len());
    for (i, field) in schema.fields().iter().enumerate() {
        let (element, leaf) = leaf(i, field)?;
        elements.push(element);
        leaves.push(leaf);
    }
    Ok((elements, leaves))
}

fn leaf(index: usize, field: &Field) -> Result<(SchemaElement, LeafColumn)> {
    let value_type = match field.data_type() {
        DataType::Dictionary(_, v) => v.as_ref(),
        t => t,
    };
    let unsupported = || {
        Error::unsupported(format!(
            "column '{}': the Arrow type {} has no Parquet mapping in this version{}",
            field.name(),
            field.data_type(),
            if value_type.is_nested() { " (nested columns come in a later release)" } else { "" }
        ))
    };
    let nullable = field.is_nullable() || matches!(value_type, DataType::Null);
    let mut e = SchemaElement {
        name: field.name().clone(),
        repetition: Some(if nullable { Repetition::OPTIONAL } else { Repetition::REQUIRED }),
        ..Default::default()
    };
    let int = |e: &mut SchemaElement, bits: i8, signed: bool, converted: ConvertedType| {
        e.logical_type = Some(LogicalType::Integer { bit_width: bits, is_signed: signed });
        e.converted_type = Some(converted);
    };
    use Conversion as C;
    use DataType as D;
    use PhysicalType as P;
    let (physical, conversion, order, type_length) = match value_type {
        D::Null => {
            e.logical_type = Some(LogicalType::Null);
            (P::INT32, C::Null, StatOrder::Signed, 0)
        }
        D::Boolean => (P::BOOLEAN, C::Same, StatOrder::Boolean, 0),
        D::Int8 => {
            int(&mut e, 8, true, ConvertedType::INT_8);
            (P::INT32, C::Widen, StatOrder::Signed, 0)
        }
        D::Int16 => {
            int(&mut e, 16, true, ConvertedType::INT_16);
            (P::INT32, C::Widen, StatOrder::Signed, 0)
        }
        D::Int32 => (P::INT32, C::Same, StatOrder::Signed, 0),
        D::Int64 => (P::INT64, C::Same, StatOrder::Signed, 0),
        D::UInt8 => {
            int(&mut e, 8, false, ConvertedType::UINT_8);
            (P::INT32, C::Widen, StatOrder::Unsigned, 0)
        }
        D::UInt16 => {
            int(&mut e, 16, false, ConvertedType::UINT_16);
            (P::INT32, C::Widen, StatOrder::Unsigned, 0)
        }
        D::UInt32 => {
            int(&mut e, 32, false, ConvertedType::UINT_32);
            (P::INT32, C::Same, StatOrder::Unsigned, 0)
        }
        D::UInt64 => {
            int(&mut e, 64, false, ConvertedType::UINT_64);
            (P::INT64, C::Same, StatOrder::Unsigned, 0)
        }
        D::Float16 => {
            e.logical_type = Some(LogicalType::Float16);
            (P::FIXED_LEN_BYTE_ARRAY, C::Same, StatOrder::Float16, 2)
        }
        D::Float32 => (P::FLOAT, C::Same, StatOrder::Float, 0),
        D::Float64 => (P::DOUBLE, C::Same, StatOrder::Float, 0),
        D::Date32 | D::Date64 => {
            e.logical_type = Some(LogicalType::Date);
            e.converted_type = Some(ConvertedType::DATE);
            let c = if *value_type == D::Date64 { C::Divide(86_400_000) } else { C::Same };
            (P::INT32, c, StatOrder::Signed, 0)
        }
        D::Time32(unit) => {
            // Parquet has no seconds: stored as milliseconds, as pyarrow does. Arrow times
            // are local (pyarrow writes isAdjustedToUTC=false and no legacy annotation, which
            // would imply UTC).
            e.logical_type =
                Some(LogicalType::Time { is_adjusted_to_utc: false, unit: TimeUnit::Millis });
            let c = if *unit == ArrowTimeUnit::Second { C::Scale(1000) } else { C::Same };
            (P::INT32, c, StatOrder::Signed, 0)
        }
        D::Time64(unit) => {
            let unit = parquet_unit(*unit);
            e.logical_type = Some(LogicalType::Time { is_adjusted_to_utc: false, unit });
            (P::INT64, C::Same, StatOrder::Signed, 0)
        }
        D::Timestamp(unit, tz) => {
            let (stored, c) = match unit {
                ArrowTimeUnit::Second => (TimeUnit::Millis, C::Scale(1000)),
                u => (parquet_unit(*u), C::Same),
            };
            let utc = tz.is_some();
            e.logical_type = Some(LogicalType::Timestamp { is_adjusted_to_utc: utc, unit: stored });
            // The legacy annotations mean UTC-normalised instants; local times get none.
            e.converted_type = match (utc, stored) {
                (true, TimeUnit::Millis) => Some(ConvertedType::TIMESTAMP_MILLIS),
                (true, TimeUnit::Micros) => Some(ConvertedType::TIMESTAMP_MICROS),
                _ => None,
            };
            (P::INT64, c, StatOrder::Signed, 0)
        }
        D::Duration(_) => (P::INT64, C::Same, StatOrder::Signed, 0),
        D::Decimal32(p, s) | D::Decimal64(p, s) | D::Decimal128(p, s) | D::Decimal256(p, s) => {
            let (p, s) = (*p as i32, *s as i32);
            e.logical_type = Some(LogicalType::Decimal { scale: s, precision: p });
            e.converted_type = Some(ConvertedType::DECIMAL);
            (e.scale, e.precision) = (Some(s), Some(p));
            if p <= 9 {
                (P::INT32, C::Decimal, StatOrder::Signed, 0)
            } else if p <= 18 {
                (P::INT64, C::Decimal, StatOrder::Signed, 0)
            } else {
                let width = decimal_width(p as u32);
                (P::FIXED_LEN_BYTE_ARRAY, C::Decimal, StatOrder::SignedBytes, width)
            }
        }
        D::Utf8 | D::LargeUtf8 | D::Utf8View => {
            e.logical_type = Some(LogicalType::String);
            e.converted_type = Some(ConvertedType::UTF8);
            (P::BYTE_ARRAY, C::Same, StatOrder::Bytes, 0)
        }
        D::Binary | D::LargeBinary | D::BinaryView => (P::BYTE_ARRAY, C::Same, StatOrder::Bytes, 0),
        D::FixedSizeBinary(n) if *n > 0 => {
            (P::FIXED_LEN_BYTE_ARRAY, C::Same, StatOrder::Bytes, *n as usize)
        }
        _ => return Err(unsupported()),
    };
    e.physical_type = Some(physical);
    if physical == P::FIXED_LEN_BYTE_ARRAY {
        e.type_length = Some(type_length as i32);
    }
    if let Some(id) = field.metadata().get("PARQUET:field_id").and_then(|v| v.parse().ok()) {
        e.field_id = Some(id);
    }
    let leaf = LeafColumn {
        path: field.name().clone(),
        field: index,
        physical_type: physical,
        type_length,
        conversion,
        order,
        max_def_level: i16::from(nullable),
        max_rep_level: 0,
        is_string: e.logical_type == Some(LogicalType::String),
    };
    Ok((e, leaf))
}

fn parquet_unit(unit: ArrowTimeUnit) -> TimeUnit {
    match unit {
        ArrowTimeUnit::Second | ArrowTimeUnit::Millisecond => TimeUnit::Millis,
        ArrowTimeUnit::Microsecond => TimeUnit::Micros,
        ArrowTimeUnit::Nanosecond => TimeUnit::Nanos,
    }
}

/// The fewest bytes whose two's complement holds every decimal of `precision` digits, as
/// Arrow C++ sizes FIXED_LEN_BYTE_ARRAY decimals.
pub(crate) fn decimal_width(precision: u32) -> usize {
    // 10^p - 1 < 2^(8w - 1)  <=>  p * log2(10) < 8w - 1, rounded up.
    let bits = (precision as f64 * std::f64::consts::LOG2_10).ceil() as usize + 1;
    bits.div_ceil(8)
}

#[cfg(test)]
mod tests {
    use super::decimal_width;

    #[test]
    fn decimal_widths_match_the_spec_table() {
        // The spec's table of maximum precision per FIXED_LEN_BYTE_ARRAY width: 4 bytes hold 9
        // digits, 8 hold 18, 9 hold 21, 16 hold 38, 32 hold 76.
        for (p, w) in [(9, 4), (10, 5), (18, 8), (19, 9), (21, 9), (22, 10), (38, 16), (76, 32)] {
            assert_eq!(decimal_width(p), w, "precision {p}");
        }
    }
}
