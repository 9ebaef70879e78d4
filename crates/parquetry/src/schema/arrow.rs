//! Parquet schema → Arrow schema.
//!
//! Leaves map by physical and logical type (falling back to the legacy converted type), as
//! pyarrow and arrow-rs read them. Groups become structs, lists and maps following the
//! backward-compatibility rules of the Parquet LogicalTypes spec. When the file carries an
//! `ARROW:schema` entry, each field takes the stored Arrow type wherever the Parquet data can
//! produce it (large or view strings, dictionaries, time zones, durations).

use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, Schema, TimeUnit as ArrowTimeUnit};

use super::arrow_hint::{decode_arrow_schema, ARROW_SCHEMA_KEY};
use super::{ColumnDescriptor, SchemaDescriptor, SchemaNode};
use crate::error::Result;
use crate::format::{ConvertedType, KeyValue, LogicalType, PhysicalType, Repetition, TimeUnit};

/// The Arrow schema of a file: from the Parquet schema, refined by `ARROW:schema` if present.
///
/// A malformed `ARROW:schema` entry is ignored rather than failing the file, as other readers
/// do: the Parquet schema alone is always enough to read the data.
pub fn arrow_schema(desc: &SchemaDescriptor, kv: Option<&[KeyValue]>) -> Result<Schema> {
    let hint = kv
        .and_then(|kv| kv.iter().find(|e| e.key == ARROW_SCHEMA_KEY))
        .and_then(|e| e.value.as_deref())
        .and_then(|v| decode_arrow_schema(v).ok());
    let mut fields = Vec::with_capacity(desc.root.children.len());
    for child in &desc.root.children {
        let mut field = node_field(desc, child);
        if let Some(h) = hint.as_ref().and_then(|h| h.field_with_name(field.name()).ok()) {
            let dt = apply_hint(field.data_type(), h.data_type());
            let metadata = merged_metadata(&field, h);
            field = field.with_data_type(dt).with_metadata(metadata);
        }
        fields.push(field);
    }
    let metadata = hint.map(|h| h.metadata().clone()).unwrap_or_default();
    Ok(Schema::new_with_metadata(fields, metadata))
}

fn nullable(desc: &SchemaDescriptor, node: &SchemaNode) -> bool {
    desc.element(node).repetition == Some(Repetition::OPTIONAL)
}

pub(crate) fn is_list(desc: &SchemaDescriptor, node: &SchemaNode) -> bool {
    let e = desc.element(node);
    matches!(e.logical_type, Some(LogicalType::List)) || e.converted_type == Some(ConvertedType::LIST)
}

pub(crate) fn is_map(desc: &SchemaDescriptor, node: &SchemaNode) -> bool {
    let e = desc.element(node);
    matches!(e.logical_type, Some(LogicalType::Map))
        || matches!(e.converted_type, Some(ConvertedType::MAP) | Some(ConvertedType::MAP_KEY_VALUE))
}

/// The Arrow field of a node, ignoring its own repetition if it is REPEATED (the caller wraps
/// repeated nodes in a list).
fn node_field(desc: &SchemaDescriptor, node: &SchemaNode) -> Field {
    let e = desc.element(node);
    let name = e.name.clone();
    if e.repetition == Some(Repetition::REPEATED) {
        // A repeated field outside a LIST/MAP annotation is a list of required elements.
        let element = with_extension(desc, node, Field::new(name.clone(), inner_type(desc, node), false));
        return Field::new(name, DataType::List(Arc::new(element)), false);
    }
    with_extension(desc, node, Field::new(name, inner_type(desc, node), nullable(desc, node)))
}

/// A field's metadata with the hint's entries added (the hint wins on a shared key).
fn merged_metadata(ours: &Field, hint: &Field) -> std::collections::HashMap<String, String> {
    let mut metadata: std::collections::HashMap<String, String> =
        ours.metadata().iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    metadata.extend(hint.metadata().iter().map(|(k, v)| (k.clone(), v.clone())));
    metadata
}

/// A UUID leaf's field marked as Arrow's canonical `arrow.uuid` extension (its storage is
/// FixedSizeBinary(16)), which pyarrow reads it as; other fields as they are.
fn with_extension(desc: &SchemaDescriptor, node: &SchemaNode, field: Field) -> Field {
    let is_uuid = node.leaf.is_some_and(|l| matches!(desc.columns[l].logical_type, Some(LogicalType::Uuid)));
    if !is_uuid {
        return field;
    }
    let metadata = [("ARROW:extension:name", "arrow.uuid"), ("ARROW:extension:metadata", "")];
    field.with_metadata(
        metadata
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<std::collections::HashMap<String, String>>(),
    )
}

/// The Arrow type of a node's values, before any list wrapping for its own repetition.
fn inner_type(desc: &SchemaDescriptor, node: &SchemaNode) -> DataType {
    if let Some(leaf) = node.leaf {
        return leaf_arrow_type(&desc.columns[leaf]);
    }
    // A MAP whose key/value group lost its value column reads as a list of keys, as pyarrow
    // and arrow-rs read it.
    let keys_only = is_map(desc, node) && node.children.len() == 1 && node.children[0].children.len() == 1;
    if (is_list(desc, node) || keys_only) && node.children.len() == 1 {
        let repeated = &node.children[0];
        let element = list_element(desc, node, repeated);
        return DataType::List(Arc::new(element));
    }
    if is_map(desc, node) && node.children.len() == 1 && node.children[0].children.len() == 2 {
        let kv = &node.children[0];
        let key = {
            let f = node_field(desc, &kv.children[0]);
            f.with_nullable(false)
        };
        let value = node_field(desc, &kv.children[1]);
        // Arrow names the entries `entries` whatever the Parquet group is called (`key_value`,
        // `map`), as pyarrow reads them.
        let entries = Field::new("entries", DataType::Struct(Fields::from(vec![key, value])), false);
        return DataType::Map(Arc::new(entries), false);
    }
    let fields: Vec<Field> = node.children.iter().map(|c| node_field(desc, c)).collect();
    DataType::Struct(Fields::from(fields))
}

/// The element field of a LIST-annotated group whose only child is `repeated`, following the
/// spec's backward-compatibility rules for two-level and three-level lists.
fn list_element(desc: &SchemaDescriptor, list: &SchemaNode, repeated: &SchemaNode) -> Field {
    let re = desc.element(repeated);
    if repeated_is_element(desc, list, repeated) {
        with_extension(desc, repeated, Field::new(re.name.clone(), inner_type(desc, repeated), false))
    } else {
        node_field(desc, &repeated.children[0])
    }
}

/// Whether the repeated child of a LIST-annotated group is itself the list's element (a
/// two-level list: a repeated leaf, a repeated group of several fields, or one named `array`
/// or `<list>_tuple`) rather than a wrapper around it (three levels).
pub(crate) fn repeated_is_element(desc: &SchemaDescriptor, list: &SchemaNode, repeated: &SchemaNode) -> bool {
    let re = desc.element(repeated);
    let list_name = &desc.element(list).name;
    repeated.leaf.is_some()
        || repeated.children.len() != 1
        || re.name == "array"
        || re.name == format!("{list_name}_tuple")
}

fn arrow_unit(unit: TimeUnit) -> ArrowTimeUnit {
    match unit {
        TimeUnit::Millis => ArrowTimeUnit::Millisecond,
        TimeUnit::Micros => ArrowTimeUnit::Microsecond,
        TimeUnit::Nanos => ArrowTimeUnit::Nanosecond,
    }
}

fn decimal(precision: i32, scale: i32) -> DataType {
    let p = precision.clamp(1, 76) as u8;
    let s = scale.clamp(-128, 127) as i8;
    if p <= 38 {
        DataType::Decimal128(p, s)
    } else {
        DataType::Decimal256(p, s)
    }
}

/// The Arrow type a leaf column reads as, from its physical, logical and converted types alone.
pub fn leaf_arrow_type(c: &ColumnDescriptor) -> DataType {
    use DataType as D;
    let utc = |adjusted: bool| if adjusted { Some(Arc::from("UTC")) } else { None };
    if let Some(lt) = &c.logical_type {
        let from_logical = match (lt, c.physical_type) {
            (LogicalType::Null, _) => Some(D::Null),
            (LogicalType::String | LogicalType::Enum | LogicalType::Json, PhysicalType::BYTE_ARRAY) => Some(D::Utf8),
            (LogicalType::Decimal { scale, precision }, _) => Some(decimal(*precision, *scale)),
            (LogicalType::Date, PhysicalType::INT32) => Some(D::Date32),
            (LogicalType::Time { unit, .. }, PhysicalType::INT32) => Some(D::Time32(arrow_unit(*unit))),
            (LogicalType::Time { unit, .. }, PhysicalType::INT64) => Some(D::Time64(arrow_unit(*unit))),
            (LogicalType::Timestamp { is_adjusted_to_utc, unit }, PhysicalType::INT64) => {
                Some(D::Timestamp(arrow_unit(*unit), utc(*is_adjusted_to_utc)))
            }
            (LogicalType::Integer { bit_width, is_signed }, PhysicalType::INT32 | PhysicalType::INT64) => {
                Some(match (bit_width, is_signed) {
                    (8, true) => D::Int8,
                    (16, true) => D::Int16,
                    (32, true) => D::Int32,
                    (64, true) => D::Int64,
                    (8, false) => D::UInt8,
                    (16, false) => D::UInt16,
                    (32, false) => D::UInt32,
                    (64, false) => D::UInt64,
                    _ => return physical_default(c),
                })
            }
            (LogicalType::Float16, PhysicalType::FIXED_LEN_BYTE_ARRAY) if c.type_length == 2 => Some(D::Float16),
            _ => None,
        };
        if let Some(t) = from_logical {
            return t;
        }
        return physical_default(c);
    }
    if let Some(ct) = c.converted_type {
        let from_converted = match (ct, c.physical_type) {
            (ConvertedType::UTF8 | ConvertedType::ENUM | ConvertedType::JSON, PhysicalType::BYTE_ARRAY) => {
                Some(D::Utf8)
            }
            (ConvertedType::DECIMAL, _) => Some(decimal(c.precision, c.scale)),
            (ConvertedType::DATE, PhysicalType::INT32) => Some(D::Date32),
            (ConvertedType::TIME_MILLIS, PhysicalType::INT32) => Some(D::Time32(ArrowTimeUnit::Millisecond)),
            (ConvertedType::TIME_MICROS, PhysicalType::INT64) => Some(D::Time64(ArrowTimeUnit::Microsecond)),
            (ConvertedType::TIMESTAMP_MILLIS, PhysicalType::INT64) => {
                Some(D::Timestamp(ArrowTimeUnit::Millisecond, utc(true)))
            }
            (ConvertedType::TIMESTAMP_MICROS, PhysicalType::INT64) => {
                Some(D::Timestamp(ArrowTimeUnit::Microsecond, utc(true)))
            }
            (ConvertedType::INT_8, PhysicalType::INT32) => Some(D::Int8),
            (ConvertedType::INT_16, PhysicalType::INT32) => Some(D::Int16),
            (ConvertedType::INT_32, PhysicalType::INT32) => Some(D::Int32),
            (ConvertedType::INT_64, PhysicalType::INT64) => Some(D::Int64),
            (ConvertedType::UINT_8, PhysicalType::INT32) => Some(D::UInt8),
            (ConvertedType::UINT_16, PhysicalType::INT32) => Some(D::UInt16),
            (ConvertedType::UINT_32, PhysicalType::INT32) => Some(D::UInt32),
            (ConvertedType::UINT_64, PhysicalType::INT64) => Some(D::UInt64),
            _ => None,
        };
        if let Some(t) = from_converted {
            return t;
        }
    }
    physical_default(c)
}

fn physical_default(c: &ColumnDescriptor) -> DataType {
    match c.physical_type {
        PhysicalType::BOOLEAN => DataType::Boolean,
        PhysicalType::INT32 => DataType::Int32,
        PhysicalType::INT64 => DataType::Int64,
        PhysicalType::INT96 => DataType::Timestamp(ArrowTimeUnit::Nanosecond, None),
        PhysicalType::FLOAT => DataType::Float32,
        PhysicalType::DOUBLE => DataType::Float64,
        PhysicalType::FIXED_LEN_BYTE_ARRAY => DataType::FixedSizeBinary(c.type_length),
        _ => DataType::Binary,
    }
}

/// The type to produce for a field whose Parquet-derived type is `ours` and whose stored Arrow
/// type is `hint`: the hint where the Parquet data can produce it, else ours.
fn apply_hint(ours: &DataType, hint: &DataType) -> DataType {
    use DataType as D;
    let is_bytes =
        |t: &DataType| matches!(t, D::Utf8 | D::LargeUtf8 | D::Utf8View | D::Binary | D::LargeBinary | D::BinaryView);
    match (ours, hint) {
        // Dictionary outputs exist for strings and binaries (the decoders keep the file's
        // dictionary); a dictionary of numbers reads as plain values. The key type is the
        // stored one, the values are regular strings or binaries whatever their stored width:
        // pyarrow reads polars' categoricals, dictionary<large_string, uint32>, as
        // dictionary<string, uint32>.
        (_, D::Dictionary(key, value)) if !matches!(ours, D::Dictionary(..)) => {
            let value = match apply_hint(ours, value) {
                D::LargeUtf8 | D::Utf8View => D::Utf8,
                D::LargeBinary | D::BinaryView => D::Binary,
                other => other,
            };
            if is_bytes(&value) {
                D::Dictionary(key.clone(), Box::new(value))
            } else {
                value
            }
        }
        (a, b) if is_bytes(a) && is_bytes(b) => hint.clone(),
        // The time zone comes from the hint; the unit stays the stored one (a writer coerces
        // units Parquet lacks, like seconds, and pyarrow reads the stored unit back).
        (D::Timestamp(unit, _), D::Timestamp(_, tz)) => D::Timestamp(*unit, tz.clone()),
        (D::Int64, D::Duration(_)) => hint.clone(),
        (
            D::Decimal128(p, s) | D::Decimal256(p, s),
            D::Decimal32(hp, hs) | D::Decimal64(hp, hs) | D::Decimal128(hp, hs) | D::Decimal256(hp, hs),
        ) if p == hp && s == hs => hint.clone(),
        // Children keep their Parquet names but take the stored field metadata, at every
        // depth, as pyarrow's do.
        (D::List(f), D::List(h) | D::LargeList(h) | D::ListView(h) | D::LargeListView(h)) => {
            let child = Arc::new(
                f.as_ref()
                    .clone()
                    .with_data_type(apply_hint(f.data_type(), h.data_type()))
                    .with_metadata(h.metadata().clone()),
            );
            match hint {
                D::LargeList(_) => D::LargeList(child),
                D::ListView(_) => D::ListView(child),
                D::LargeListView(_) => D::LargeListView(child),
                _ => D::List(child),
            }
        }
        (D::List(f), D::FixedSizeList(h, n)) => {
            let child = f
                .as_ref()
                .clone()
                .with_data_type(apply_hint(f.data_type(), h.data_type()))
                .with_metadata(h.metadata().clone());
            D::FixedSizeList(Arc::new(child), *n)
        }
        (D::Struct(fs), D::Struct(hs)) if fs.len() == hs.len() => {
            let fields: Vec<Field> = fs
                .iter()
                .zip(hs.iter())
                .map(|(f, h)| {
                    f.as_ref()
                        .clone()
                        .with_data_type(apply_hint(f.data_type(), h.data_type()))
                        .with_metadata(merged_metadata(f, h))
                })
                .collect();
            D::Struct(Fields::from(fields))
        }
        (D::Map(f, _), D::Map(h, sorted)) => {
            let entries = f
                .as_ref()
                .clone()
                .with_data_type(apply_hint(f.data_type(), h.data_type()))
                .with_metadata(h.metadata().clone());
            D::Map(Arc::new(entries), *sorted)
        }
        (D::FixedSizeBinary(a), D::FixedSizeBinary(b)) if a == b => hint.clone(),
        (
            D::Int32 | D::Int64,
            D::Int8 | D::Int16 | D::Int32 | D::Int64 | D::UInt8 | D::UInt16 | D::UInt32 | D::UInt64,
        ) => hint.clone(),
        (D::Time32(_) | D::Time64(_), D::Time32(_) | D::Time64(_)) => hint.clone(),
        _ => ours.clone(),
    }
}
