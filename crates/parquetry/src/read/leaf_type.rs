//! The Arrow type a leaf column is read as: the schema's, under the read options' overrides
//! (string layouts, the INT96 unit) and the narrower types a filter asks for where that
//! saves work.

use arrow_schema::DataType;

use super::options::{ByteArrayType, ReadOptions};
use crate::format::PhysicalType;
use crate::schema::ColumnDescriptor;

/// The type leaf `leaf` reads as under the options' overrides (BYTE_ARRAY types, INT96 unit).
pub(crate) fn leaf_type(
    leaf: usize,
    column: &ColumnDescriptor,
    data_type: &DataType,
    options: &ReadOptions,
) -> DataType {
    if column.physical_type == PhysicalType::BYTE_ARRAY && options.dictionary_masks.iter().any(|m| m.leaf == leaf) {
        return DataType::Boolean;
    }
    if column.physical_type == PhysicalType::BYTE_ARRAY && options.dictionary_leaves.contains(&leaf) {
        return override_byte_array(data_type, ByteArrayType::Dictionary);
    }
    if options.narrow_decimal_leaves.contains(&leaf) {
        if let Some(t) = narrow_decimal(column, data_type) {
            return t;
        }
    }
    match (options.byte_array_type, column.physical_type) {
        (Some(t), PhysicalType::BYTE_ARRAY) => override_byte_array(data_type, t),
        (_, PhysicalType::INT96) => match (options.int96_unit, data_type) {
            (Some(unit), DataType::Timestamp(_, tz)) => DataType::Timestamp(unit, tz.clone()),
            _ => data_type.clone(),
        },
        _ => data_type.clone(),
    }
}

fn override_byte_array(current: &DataType, t: ByteArrayType) -> DataType {
    let text = matches!(current, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
        || matches!(current, DataType::Dictionary(_, v)
        if matches!(**v, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View));
    let binary = matches!(current, DataType::Binary | DataType::LargeBinary | DataType::BinaryView)
        || matches!(current, DataType::Dictionary(_, v)
        if matches!(**v, DataType::Binary | DataType::LargeBinary | DataType::BinaryView));
    if !text && !binary {
        return current.clone(); // decimals and other non-string BYTE_ARRAY types keep theirs
    }
    match (t, text) {
        (ByteArrayType::Regular, true) => DataType::Utf8,
        (ByteArrayType::Regular, false) => DataType::Binary,
        (ByteArrayType::Large, true) => DataType::LargeUtf8,
        (ByteArrayType::Large, false) => DataType::LargeBinary,
        (ByteArrayType::View, true) => DataType::Utf8View,
        (ByteArrayType::View, false) => DataType::BinaryView,
        (ByteArrayType::Dictionary, true) => DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
        (ByteArrayType::Dictionary, false) => {
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Binary))
        }
    }
}

/// The decimal type as wide as `column`'s INT32 or INT64 values, for a wider decimal output
/// whose precision it holds: reading it costs no conversion (the values are relabelled),
/// and a filter widens only the rows it keeps.
pub(crate) fn narrow_decimal(column: &ColumnDescriptor, data_type: &DataType) -> Option<DataType> {
    match (column.physical_type, data_type) {
        (PhysicalType::INT64, DataType::Decimal128(p, s) | DataType::Decimal256(p, s)) if *p <= 18 => {
            Some(DataType::Decimal64(*p, *s))
        }
        (PhysicalType::INT32, DataType::Decimal64(p, s) | DataType::Decimal128(p, s) | DataType::Decimal256(p, s))
            if *p <= 9 =>
        {
            Some(DataType::Decimal32(*p, *s))
        }
        _ => None,
    }
}
