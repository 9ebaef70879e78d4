//! Arrow schema → Parquet schema: leaves typed as pyarrow and arrow-rs type them, so that every
//! reader gives the same Arrow types back.
//!
//! Nested fields become groups as pyarrow writes them: a struct is a group; List, LargeList
//! and FixedSizeList are the spec's three-level `LIST` (`<name> (LIST) { repeated group list
//! { element } }`); a map is `<name> (MAP) { repeated group key_value { required key; value }
//! }`. Each leaf records the steps from its top-level field down to it ([`Nesting`]), which the
//! record shredder (`shred`) follows to compute its levels.

use crate::schema::SortOrder;
use arrow_schema::{DataType, Field, Schema, TimeUnit as ArrowTimeUnit};

use super::options::WriteOptions;
use crate::error::{Error, Result};
use crate::format::{ConvertedType, LogicalType, PhysicalType, Repetition, SchemaElement, TimeUnit};

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
    /// A timestamp → INT96: nanoseconds of the day, then the Julian day.
    Int96,
    /// Decimal → INT32/INT64 (precision ≤ 18) or big-endian FIXED_LEN_BYTE_ARRAY.
    Decimal,
    /// All-null column.
    Null,
}

/// One step from a top-level Arrow field down to a leaf under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Nesting {
    /// A struct (or a map's entries): whether it is nullable, and which child leads to the leaf.
    Struct { nullable: bool, child: usize },
    /// A List, LargeList, FixedSizeList or Map (the list of its entries): whether it is nullable.
    List { nullable: bool },
}

/// One leaf column to write.
#[derive(Debug, Clone)]
pub(crate) struct LeafColumn {
    /// The dotted path, as users name the column.
    pub path: String,
    /// The path's parts, as the column chunk's `path_in_schema` holds them.
    pub path_in_schema: Vec<String>,
    /// The steps from the top-level field to the leaf; empty for a flat column, which is
    /// written straight from its validity bitmap.
    pub nesting: Vec<Nesting>,
    /// The top-level Arrow field index the leaf reads from.
    pub field: usize,
    /// The physical type of the leaf.
    pub physical_type: PhysicalType,
    /// The byte width of FIXED_LEN_BYTE_ARRAY values (12 for INT96, 0 otherwise).
    pub type_length: usize,
    /// How Arrow values become physical ones.
    pub conversion: Conversion,
    /// The statistics order.
    pub order: SortOrder,
    /// Maximum definition level (0 for required, 1 for optional flat columns).
    pub max_def_level: i16,
    /// Maximum repetition level (0 outside lists and maps).
    pub max_rep_level: i16,
    /// UTF-8 text: truncated statistics stay valid UTF-8.
    pub is_string: bool,
}

/// The Parquet schema elements (root first) and leaves of an Arrow schema, as the options
/// that change types and names (INT96 timestamps, list element names, TIME's UTC flag) ask.
pub(crate) fn parquet_schema(schema: &Schema, options: &WriteOptions) -> Result<(Vec<SchemaElement>, Vec<LeafColumn>)> {
    let mut out = Out {
        int96: options.int96_timestamps,
        compliant: options.compliant_nested_types,
        time_utc: options.time_adjusted_to_utc,
        elements: vec![SchemaElement {
            name: "schema".to_owned(),
            num_children: Some(schema.fields().len() as i32),
            ..Default::default()
        }],
        leaves: Vec::with_capacity(schema.fields().len()),
    };
    for (i, field) in schema.fields().iter().enumerate() {
        let place = Place { field: i, path: Vec::new(), nesting: Vec::new(), def: 0, rep: 0 };
        add_field(field, field.name(), field.is_nullable(), &place, &mut out)?;
    }
    Ok((out.elements, out.leaves))
}

struct Out {
    int96: bool,
    compliant: bool,
    time_utc: bool,
    elements: Vec<SchemaElement>,
    leaves: Vec<LeafColumn>,
}

/// Where a field sits: its top-level field, the path and steps above it, and the levels of
/// its parent.
#[derive(Clone)]
struct Place {
    field: usize,
    path: Vec<String>,
    nesting: Vec<Nesting>,
    def: i16,
    rep: i16,
}

/// The deepest nesting written: far beyond real schemas, and it keeps levels (and the
/// recursion over them) small.
const MAX_DEPTH: usize = 128;

impl Place {
    /// The place one step (`step`) down, through the groups `names`, which add `def` and
    /// `rep` levels.
    fn down(&self, names: &[&str], step: Nesting, def: i16, rep: i16) -> Result<Place> {
        let mut p = self.clone();
        p.path.extend(names.iter().map(|n| (*n).to_owned()));
        if p.nesting.len() >= MAX_DEPTH {
            return Err(Error::unsupported(format!(
                "column '{}': nested more than {MAX_DEPTH} levels deep",
                p.path.join(".")
            )));
        }
        p.nesting.push(step);
        p.def += def;
        p.rep += rep;
        Ok(p)
    }
}

/// Adds `field` (named `name` in Parquet) and everything under it.
fn add_field(field: &Field, name: &str, nullable: bool, place: &Place, out: &mut Out) -> Result<()> {
    let group = |name: &str, repetition, children: usize| SchemaElement {
        name: name.to_owned(),
        repetition: Some(repetition),
        num_children: Some(children as i32),
        field_id: field_id(field),
        ..Default::default()
    };
    let optional = |nullable: bool| if nullable { Repetition::OPTIONAL } else { Repetition::REQUIRED };
    let d = i16::from(nullable);
    match field.data_type() {
        DataType::Struct(children) => {
            if children.is_empty() {
                return Err(Error::unsupported(format!(
                    "column '{}': a struct without fields has no Parquet form (a group needs a child)",
                    dotted(&place.path, name)
                )));
            }
            out.elements.push(group(name, optional(nullable), children.len()));
            for (i, child) in children.iter().enumerate() {
                let p = place.down(&[name], Nesting::Struct { nullable, child: i }, d, 0)?;
                add_field(child, child.name(), child.is_nullable(), &p, out)?;
            }
        }
        DataType::List(element) | DataType::LargeList(element) | DataType::FixedSizeList(element, _) => {
            let mut e = group(name, optional(nullable), 1);
            e.logical_type = Some(LogicalType::List);
            e.converted_type = Some(ConvertedType::LIST);
            out.elements.push(e);
            out.elements.push(SchemaElement {
                name: "list".to_owned(),
                repetition: Some(Repetition::REPEATED),
                num_children: Some(1),
                ..Default::default()
            });
            let p = place.down(&[name, "list"], Nesting::List { nullable }, d + 1, 1)?;
            // pyarrow's use_compliant_nested_type=False keeps the Arrow name (`item`).
            let element_name = if out.compliant { "element" } else { element.name().as_str() };
            add_field(element, element_name, element.is_nullable(), &p, out)?;
        }
        DataType::Map(entries, _) => {
            let DataType::Struct(kv) = entries.data_type() else {
                return Err(Error::invalid_argument(format!(
                    "column '{}': a map's entries must be a struct of key and value, not {}",
                    dotted(&place.path, name),
                    entries.data_type()
                )));
            };
            if kv.len() != 2 {
                return Err(Error::invalid_argument(format!(
                    "column '{}': a map's entries must have 2 fields (key, value), not {}",
                    dotted(&place.path, name),
                    kv.len()
                )));
            }
            let mut e = group(name, optional(nullable), 1);
            e.logical_type = Some(LogicalType::Map);
            e.converted_type = Some(ConvertedType::MAP);
            out.elements.push(e);
            out.elements.push(SchemaElement {
                name: "key_value".to_owned(),
                repetition: Some(Repetition::REPEATED),
                num_children: Some(2),
                ..Default::default()
            });
            let p = place.down(&[name, "key_value"], Nesting::List { nullable }, d + 1, 1)?;
            // Parquet map keys are required: a null key is refused when written.
            let key = p.down(&[], Nesting::Struct { nullable: false, child: 0 }, 0, 0)?;
            add_field(&kv[0], "key", false, &key, out)?;
            let value = p.down(&[], Nesting::Struct { nullable: false, child: 1 }, 0, 0)?;
            add_field(&kv[1], "value", kv[1].is_nullable(), &value, out)?;
        }
        _ => {
            let (element, leaf) = leaf(field, name, nullable, place, out)?;
            out.elements.push(element);
            out.leaves.push(leaf);
        }
    }
    Ok(())
}

fn dotted(path: &[String], name: &str) -> String {
    let mut s = path.join(".");
    if !s.is_empty() {
        s.push('.');
    }
    s.push_str(name);
    s
}

fn field_id(field: &Field) -> Option<i32> {
    field.metadata().get("PARQUET:field_id").and_then(|v| v.parse().ok())
}

fn leaf(field: &Field, name: &str, nullable: bool, place: &Place, out: &Out) -> Result<(SchemaElement, LeafColumn)> {
    let path = dotted(&place.path, name);
    let value_type = match field.data_type() {
        DataType::Dictionary(_, v) => v.as_ref(),
        t => t,
    };
    let unsupported = || {
        Error::unsupported(format!(
            "column '{path}': the Arrow type {} has no Parquet mapping in this version",
            field.data_type(),
        ))
    };
    let nullable = nullable || matches!(value_type, DataType::Null);
    let mut e = SchemaElement {
        name: name.to_owned(),
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
    let (physical, conversion, type_length) = match value_type {
        D::Null => {
            e.logical_type = Some(LogicalType::Null);
            (P::INT32, C::Null, 0)
        }
        D::Boolean => (P::BOOLEAN, C::Same, 0),
        D::Int8 => {
            int(&mut e, 8, true, ConvertedType::INT_8);
            (P::INT32, C::Widen, 0)
        }
        D::Int16 => {
            int(&mut e, 16, true, ConvertedType::INT_16);
            (P::INT32, C::Widen, 0)
        }
        D::Int32 => (P::INT32, C::Same, 0),
        D::Int64 => (P::INT64, C::Same, 0),
        D::UInt8 => {
            int(&mut e, 8, false, ConvertedType::UINT_8);
            (P::INT32, C::Widen, 0)
        }
        D::UInt16 => {
            int(&mut e, 16, false, ConvertedType::UINT_16);
            (P::INT32, C::Widen, 0)
        }
        D::UInt32 => {
            int(&mut e, 32, false, ConvertedType::UINT_32);
            (P::INT32, C::Same, 0)
        }
        D::UInt64 => {
            int(&mut e, 64, false, ConvertedType::UINT_64);
            (P::INT64, C::Same, 0)
        }
        D::Float16 => {
            e.logical_type = Some(LogicalType::Float16);
            (P::FIXED_LEN_BYTE_ARRAY, C::Same, 2)
        }
        D::Float32 => (P::FLOAT, C::Same, 0),
        D::Float64 => (P::DOUBLE, C::Same, 0),
        D::Date32 | D::Date64 => {
            e.logical_type = Some(LogicalType::Date);
            e.converted_type = Some(ConvertedType::DATE);
            let c = if *value_type == D::Date64 { C::Divide(86_400_000) } else { C::Same };
            (P::INT32, c, 0)
        }
        D::Time32(unit) => {
            // Parquet has no seconds: stored as milliseconds, as pyarrow does. Arrow times
            // are local (pyarrow writes isAdjustedToUTC=false and no legacy annotation, which
            // would imply UTC).
            let utc = out.time_utc;
            e.logical_type = Some(LogicalType::Time { is_adjusted_to_utc: utc, unit: TimeUnit::Millis });
            let c = if *unit == ArrowTimeUnit::Second { C::Scale(1000) } else { C::Same };
            (P::INT32, c, 0)
        }
        D::Time64(unit) => {
            let unit = parquet_unit(*unit);
            e.logical_type = Some(LogicalType::Time { is_adjusted_to_utc: out.time_utc, unit });
            (P::INT64, C::Same, 0)
        }
        // INT96 has no logical type: readers know it as a timestamp by its physical type.
        D::Timestamp(..) if out.int96 => (P::INT96, C::Int96, 12),
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
            (P::INT64, c, 0)
        }
        D::Duration(_) => (P::INT64, C::Same, 0),
        D::Decimal32(p, s) | D::Decimal64(p, s) | D::Decimal128(p, s) | D::Decimal256(p, s) => {
            let (p, s) = (*p as i32, *s as i32);
            if s < 0 || s > p {
                // Arrow allows it; Parquet's DECIMAL does not, and readers refuse the file.
                return Err(Error::unsupported(format!(
                    "column '{path}': {} has a scale outside 0..=precision, which Parquet's DECIMAL needs",
                    field.data_type(),
                )));
            }
            e.logical_type = Some(LogicalType::Decimal { scale: s, precision: p });
            e.converted_type = Some(ConvertedType::DECIMAL);
            (e.scale, e.precision) = (Some(s), Some(p));
            if p <= 9 {
                (P::INT32, C::Decimal, 0)
            } else if p <= 18 {
                (P::INT64, C::Decimal, 0)
            } else {
                let width = decimal_width(p as u32);
                (P::FIXED_LEN_BYTE_ARRAY, C::Decimal, width)
            }
        }
        D::Utf8 | D::LargeUtf8 | D::Utf8View if extension(field) == Some("arrow.json") => {
            // Arrow's canonical JSON extension is Parquet's JSON, as pyarrow writes it.
            e.logical_type = Some(LogicalType::Json);
            e.converted_type = Some(ConvertedType::JSON);
            (P::BYTE_ARRAY, C::Same, 0)
        }
        D::Utf8 | D::LargeUtf8 | D::Utf8View => {
            e.logical_type = Some(LogicalType::String);
            e.converted_type = Some(ConvertedType::UTF8);
            (P::BYTE_ARRAY, C::Same, 0)
        }
        D::FixedSizeBinary(16) if extension(field) == Some("arrow.uuid") => {
            e.logical_type = Some(LogicalType::Uuid);
            (P::FIXED_LEN_BYTE_ARRAY, C::Same, 16)
        }
        D::Binary | D::LargeBinary | D::BinaryView => (P::BYTE_ARRAY, C::Same, 0),
        D::FixedSizeBinary(n) if *n > 0 => (P::FIXED_LEN_BYTE_ARRAY, C::Same, *n as usize),
        _ => return Err(unsupported()),
    };
    e.physical_type = Some(physical);
    if physical == P::FIXED_LEN_BYTE_ARRAY {
        e.type_length = Some(type_length as i32);
    }
    e.field_id = field_id(field);
    let order = SortOrder::of(physical, e.logical_type.as_ref(), e.converted_type);
    let leaf = LeafColumn {
        path_in_schema: place.path.iter().cloned().chain([name.to_owned()]).collect(),
        path,
        nesting: place.nesting.clone(),
        field: place.field,
        physical_type: physical,
        type_length,
        conversion,
        order,
        max_def_level: place.def + i16::from(nullable),
        max_rep_level: place.rep,
        is_string: matches!(e.logical_type, Some(LogicalType::String | LogicalType::Json)),
    };
    Ok((e, leaf))
}

/// The Arrow extension type a field is marked with (its `ARROW:extension:name`).
fn extension(field: &Field) -> Option<&str> {
    field.metadata().get("ARROW:extension:name").map(String::as_str)
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
