//! `SchemaElement` and the `LogicalType` union: one node of the flattened schema tree.

use super::enums::{ConvertedType, EdgeInterpolationAlgorithm, PhysicalType, Repetition};
use super::thrift::{required, ThriftReader, ThriftStruct, ThriftWriter};
use crate::error::Result;

/// The unit of a TIME or TIMESTAMP logical type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// Milliseconds.
    Millis,
    /// Microseconds.
    Micros,
    /// Nanoseconds.
    Nanos,
}

/// The modern logical-type annotation of a schema element (the Thrift `LogicalType` union).
///
/// Union members this version does not know are kept as [`LogicalType::Unknown`] with their
/// field id, so a file from a newer writer still opens and its schema still prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogicalType {
    /// UTF-8 text (BYTE_ARRAY).
    String,
    /// A map group.
    Map,
    /// A list group.
    List,
    /// An enum stored as UTF-8 bytes.
    Enum,
    /// A decimal of the given scale and precision.
    Decimal {
        /// Digits after the decimal point.
        scale: i32,
        /// Total number of digits.
        precision: i32,
    },
    /// Days since the Unix epoch (INT32).
    Date,
    /// Time of day.
    Time {
        /// Whether the value is normalised to UTC.
        is_adjusted_to_utc: bool,
        /// The unit of the stored integer.
        unit: TimeUnit,
    },
    /// An instant or a local date-time.
    Timestamp {
        /// Whether the value is normalised to UTC (an instant) or local.
        is_adjusted_to_utc: bool,
        /// The unit of the stored integer.
        unit: TimeUnit,
    },
    /// An integer of the given width and signedness.
    Integer {
        /// 8, 16, 32 or 64.
        bit_width: i8,
        /// Signed or unsigned.
        is_signed: bool,
    },
    /// A column whose values are all null (Thrift `UNKNOWN`/`NullType`).
    Null,
    /// A JSON document.
    Json,
    /// A BSON document.
    Bson,
    /// A 16-byte UUID (FIXED_LEN_BYTE_ARRAY(16)).
    Uuid,
    /// IEEE half precision float (FIXED_LEN_BYTE_ARRAY(2)).
    Float16,
    /// A Variant group.
    Variant {
        /// The Variant specification version the writer used.
        specification_version: Option<i8>,
    },
    /// Geometry in WKB, planar edges.
    Geometry {
        /// The coordinate reference system; `None` means OGC:CRS84.
        crs: Option<String>,
    },
    /// Geography in WKB, with an edge interpolation algorithm.
    Geography {
        /// The coordinate reference system; `None` means OGC:CRS84.
        crs: Option<String>,
        /// The edge interpolation; `None` means SPHERICAL.
        algorithm: Option<EdgeInterpolationAlgorithm>,
    },
    /// A fixed-size vector group.
    Vector,
    /// A union member this version does not know; the value is its field id.
    Unknown(i16),
}

fn read_time_unit(r: &mut ThriftReader<'_>, ty: u8) -> Result<TimeUnit> {
    let mut unit = None;
    r.expect_struct(ty)?;
    r.read_struct("TimeUnit", |r, id, ty| {
        match id {
            1 => unit = Some(TimeUnit::Millis),
            2 => unit = Some(TimeUnit::Micros),
            3 => unit = Some(TimeUnit::Nanos),
            _ => {}
        }
        r.skip(ty)
    })?;
    required(unit, "TimeUnit member")
}

fn write_time_unit(w: &mut ThriftWriter, id: i16, unit: TimeUnit) {
    w.struct_begin_field(id);
    w.empty_struct(match unit {
        TimeUnit::Millis => 1,
        TimeUnit::Micros => 2,
        TimeUnit::Nanos => 3,
    });
    w.struct_end();
}

/// Decodes TimeType / TimestampType, which share one layout.
fn read_time(r: &mut ThriftReader<'_>, ty: u8, name: &'static str) -> Result<(bool, TimeUnit)> {
    let (mut utc, mut unit) = (None, None);
    r.expect_struct(ty)?;
    r.read_struct(name, |r, id, ty| {
        match id {
            1 => utc = Some(r.bool(ty)?),
            2 => unit = Some(read_time_unit(r, ty)?),
            _ => r.skip(ty)?,
        }
        Ok(())
    })?;
    Ok((required(utc, "isAdjustedToUTC")?, required(unit, "unit")?))
}

impl ThriftStruct for LogicalType {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let mut value = None;
        r.read_struct("LogicalType", |r, id, ty| {
            let v = match id {
                1 => LogicalType::String,
                2 => LogicalType::Map,
                3 => LogicalType::List,
                4 => LogicalType::Enum,
                5 => {
                    let (mut scale, mut precision) = (None, None);
                    r.expect_struct(ty)?;
                    r.read_struct("DecimalType", |r, id, ty| {
                        match id {
                            1 => scale = Some(r.i32(ty)?),
                            2 => precision = Some(r.i32(ty)?),
                            _ => r.skip(ty)?,
                        }
                        Ok(())
                    })?;
                    let scale = required(scale, "DecimalType.scale")?;
                    let precision = required(precision, "DecimalType.precision")?;
                    value = Some(LogicalType::Decimal { scale, precision });
                    return Ok(());
                }
                6 => LogicalType::Date,
                7 | 8 => {
                    let (is_adjusted_to_utc, unit) =
                        read_time(r, ty, if id == 7 { "TimeType" } else { "TimestampType" })?;
                    value = Some(if id == 7 {
                        LogicalType::Time { is_adjusted_to_utc, unit }
                    } else {
                        LogicalType::Timestamp { is_adjusted_to_utc, unit }
                    });
                    return Ok(());
                }
                10 => {
                    let (mut bit_width, mut is_signed) = (None, None);
                    r.expect_struct(ty)?;
                    r.read_struct("IntType", |r, id, ty| {
                        match id {
                            1 => bit_width = Some(r.i8(ty)?),
                            2 => is_signed = Some(r.bool(ty)?),
                            _ => r.skip(ty)?,
                        }
                        Ok(())
                    })?;
                    value = Some(LogicalType::Integer {
                        bit_width: required(bit_width, "IntType.bitWidth")?,
                        is_signed: required(is_signed, "IntType.isSigned")?,
                    });
                    return Ok(());
                }
                11 => LogicalType::Null,
                12 => LogicalType::Json,
                13 => LogicalType::Bson,
                14 => LogicalType::Uuid,
                15 => LogicalType::Float16,
                16 => {
                    let mut specification_version = None;
                    r.expect_struct(ty)?;
                    r.read_struct("VariantType", |r, id, ty| {
                        match id {
                            1 => specification_version = Some(r.i8(ty)?),
                            _ => r.skip(ty)?,
                        }
                        Ok(())
                    })?;
                    value = Some(LogicalType::Variant { specification_version });
                    return Ok(());
                }
                17 | 18 => {
                    let (mut crs, mut algorithm) = (None, None);
                    r.expect_struct(ty)?;
                    r.read_struct("GeoType", |r, fid, ty| {
                        match fid {
                            1 => crs = Some(r.string(ty)?),
                            2 if id == 18 => algorithm = Some(EdgeInterpolationAlgorithm(r.i32(ty)?)),
                            _ => r.skip(ty)?,
                        }
                        Ok(())
                    })?;
                    value = Some(if id == 17 {
                        LogicalType::Geometry { crs }
                    } else {
                        LogicalType::Geography { crs, algorithm }
                    });
                    return Ok(());
                }
                19 => LogicalType::Vector,
                other => LogicalType::Unknown(other),
            };
            value = Some(v);
            r.skip(ty)
        })?;
        required(value, "LogicalType member")
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        match self {
            LogicalType::String => w.empty_struct(1),
            LogicalType::Map => w.empty_struct(2),
            LogicalType::List => w.empty_struct(3),
            LogicalType::Enum => w.empty_struct(4),
            LogicalType::Decimal { scale, precision } => {
                w.struct_begin_field(5);
                w.i32(1, *scale);
                w.i32(2, *precision);
                w.struct_end();
            }
            LogicalType::Date => w.empty_struct(6),
            LogicalType::Time { is_adjusted_to_utc, unit } | LogicalType::Timestamp { is_adjusted_to_utc, unit } => {
                w.struct_begin_field(if matches!(self, LogicalType::Time { .. }) { 7 } else { 8 });
                w.bool(1, *is_adjusted_to_utc);
                write_time_unit(w, 2, *unit);
                w.struct_end();
            }
            LogicalType::Integer { bit_width, is_signed } => {
                w.struct_begin_field(10);
                w.i8(1, *bit_width);
                w.bool(2, *is_signed);
                w.struct_end();
            }
            LogicalType::Null => w.empty_struct(11),
            LogicalType::Json => w.empty_struct(12),
            LogicalType::Bson => w.empty_struct(13),
            LogicalType::Uuid => w.empty_struct(14),
            LogicalType::Float16 => w.empty_struct(15),
            LogicalType::Variant { specification_version } => {
                w.struct_begin_field(16);
                if let Some(v) = specification_version {
                    w.i8(1, *v);
                }
                w.struct_end();
            }
            LogicalType::Geometry { crs } => {
                w.struct_begin_field(17);
                if let Some(c) = crs {
                    w.binary(1, c.as_bytes());
                }
                w.struct_end();
            }
            LogicalType::Geography { crs, algorithm } => {
                w.struct_begin_field(18);
                if let Some(c) = crs {
                    w.binary(1, c.as_bytes());
                }
                if let Some(a) = algorithm {
                    w.i32(2, a.0);
                }
                w.struct_end();
            }
            LogicalType::Vector => w.empty_struct(19),
            LogicalType::Unknown(id) => w.empty_struct(*id),
        }
        w.struct_end();
    }
}

/// One node of the schema, as stored in the footer: the tree is flattened depth first, and a
/// group node says how many children follow it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SchemaElement {
    /// Physical type; set on leaves only.
    pub physical_type: Option<PhysicalType>,
    /// For FIXED_LEN_BYTE_ARRAY, the byte width of each value.
    pub type_length: Option<i32>,
    /// Required, optional or repeated; the root has none.
    pub repetition: Option<Repetition>,
    /// The field name.
    pub name: String,
    /// Number of children; set on groups only.
    pub num_children: Option<i32>,
    /// The legacy annotation.
    pub converted_type: Option<ConvertedType>,
    /// Legacy decimal scale.
    pub scale: Option<i32>,
    /// Legacy decimal precision.
    pub precision: Option<i32>,
    /// The field id of the original schema, if it had ids (Iceberg, Arrow).
    pub field_id: Option<i32>,
    /// The modern annotation.
    pub logical_type: Option<LogicalType>,
    /// For VECTOR repetition, the number of slots.
    pub vector_length: Option<i32>,
}

impl ThriftStruct for SchemaElement {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let mut e = SchemaElement::default();
        Self::read_into(&mut e, r)?;
        Ok(e)
    }

    fn read_into(e: &mut Self, r: &mut ThriftReader<'_>) -> Result<()> {
        let mut name = None;
        r.read_struct("SchemaElement", |r, id, ty| {
            match id {
                1 => e.physical_type = Some(PhysicalType(r.i32(ty)?)),
                2 => e.type_length = Some(r.i32(ty)?),
                3 => e.repetition = Some(Repetition(r.i32(ty)?)),
                4 => name = Some(r.string(ty)?),
                5 => e.num_children = Some(r.i32(ty)?),
                6 => e.converted_type = Some(ConvertedType(r.i32(ty)?)),
                7 => e.scale = Some(r.i32(ty)?),
                8 => e.precision = Some(r.i32(ty)?),
                9 => e.field_id = Some(r.i32(ty)?),
                10 => e.logical_type = Some(r.read_struct_field(ty)?),
                11 => e.vector_length = Some(r.i32(ty)?),
                _ => r.skip(ty)?,
            }
            Ok(())
        })?;
        e.name = required(name, "SchemaElement.name")?;
        Ok(())
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        if let Some(t) = self.physical_type {
            w.i32(1, t.0);
        }
        w.opt_i32(2, self.type_length);
        if let Some(rep) = self.repetition {
            w.i32(3, rep.0);
        }
        w.binary(4, self.name.as_bytes());
        w.opt_i32(5, self.num_children);
        if let Some(c) = self.converted_type {
            w.i32(6, c.0);
        }
        w.opt_i32(7, self.scale);
        w.opt_i32(8, self.precision);
        w.opt_i32(9, self.field_id);
        if let Some(l) = &self.logical_type {
            w.struct_field(10, l);
        }
        w.opt_i32(11, self.vector_length);
        w.struct_end();
    }
}

impl std::fmt::Display for TimeUnit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TimeUnit::Millis => "MILLIS",
            TimeUnit::Micros => "MICROS",
            TimeUnit::Nanos => "NANOS",
        })
    }
}

/// Prints the annotation as the Parquet specification writes it, e.g. `DECIMAL(10,2)` or
/// `TIMESTAMP(MICROS,true)` (the flag is isAdjustedToUTC).
impl std::fmt::Display for LogicalType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LogicalType::String => f.write_str("STRING"),
            LogicalType::Map => f.write_str("MAP"),
            LogicalType::List => f.write_str("LIST"),
            LogicalType::Enum => f.write_str("ENUM"),
            LogicalType::Decimal { scale, precision } => write!(f, "DECIMAL({precision},{scale})"),
            LogicalType::Date => f.write_str("DATE"),
            LogicalType::Time { is_adjusted_to_utc, unit } => {
                write!(f, "TIME({unit},{is_adjusted_to_utc})")
            }
            LogicalType::Timestamp { is_adjusted_to_utc, unit } => {
                write!(f, "TIMESTAMP({unit},{is_adjusted_to_utc})")
            }
            LogicalType::Integer { bit_width, is_signed } => {
                write!(f, "INTEGER({bit_width},{is_signed})")
            }
            LogicalType::Null => f.write_str("UNKNOWN"),
            LogicalType::Json => f.write_str("JSON"),
            LogicalType::Bson => f.write_str("BSON"),
            LogicalType::Uuid => f.write_str("UUID"),
            LogicalType::Float16 => f.write_str("FLOAT16"),
            LogicalType::Variant { specification_version: Some(v) } => write!(f, "VARIANT({v})"),
            LogicalType::Variant { specification_version: None } => f.write_str("VARIANT"),
            LogicalType::Geometry { crs: Some(c) } => write!(f, "GEOMETRY({c})"),
            LogicalType::Geometry { crs: None } => f.write_str("GEOMETRY"),
            LogicalType::Geography { crs, algorithm } => {
                f.write_str("GEOGRAPHY")?;
                match (crs, algorithm) {
                    (None, None) => Ok(()),
                    (c, a) => write!(
                        f,
                        "({},{})",
                        c.as_deref().unwrap_or("OGC:CRS84"),
                        a.map_or("SPHERICAL".to_owned(), |a| a.to_string())
                    ),
                }
            }
            LogicalType::Vector => f.write_str("VECTOR"),
            LogicalType::Unknown(id) => write!(f, "UNKNOWN_LOGICAL_TYPE({id})"),
        }
    }
}
