//! Column statistics: `Statistics` (min/max/null count), `SizeStatistics` (unencoded sizes and
//! level histograms) and `GeospatialStatistics`.

use super::stat_bytes::StatBytes;
use super::thrift::{required, ThriftReader, ThriftStruct, ThriftWriter};
use crate::error::Result;

/// Min/max and counts of a column chunk or a page.
///
/// `min_value`/`max_value` follow the column order; the deprecated `min`/`max` use signed
/// comparison and are kept for old files. Values are PLAIN-encoded without a length prefix.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Statistics {
    /// Deprecated maximum (signed order).
    pub max: Option<StatBytes>,
    /// Deprecated minimum (signed order).
    pub min: Option<StatBytes>,
    /// Number of nulls; absent means unknown, not zero.
    pub null_count: Option<i64>,
    /// Number of distinct values.
    pub distinct_count: Option<i64>,
    /// Upper bound under the column order.
    pub max_value: Option<StatBytes>,
    /// Lower bound under the column order.
    pub min_value: Option<StatBytes>,
    /// Whether `max_value` is the actual maximum (not a truncated bound).
    pub is_max_value_exact: Option<bool>,
    /// Whether `min_value` is the actual minimum.
    pub is_min_value_exact: Option<bool>,
    /// Number of NaN values (floating point columns).
    pub nan_count: Option<i64>,
}

impl Statistics {
    /// The minimum under the column order if present, else the deprecated signed minimum.
    pub fn min_bytes(&self) -> Option<&[u8]> {
        self.min_value.as_deref().or(self.min.as_deref())
    }

    /// The maximum under the column order if present, else the deprecated signed maximum.
    pub fn max_bytes(&self) -> Option<&[u8]> {
        self.max_value.as_deref().or(self.max.as_deref())
    }
}

impl ThriftStruct for Statistics {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let mut s = Statistics::default();
        Self::read_into(&mut s, r)?;
        Ok(s)
    }

    fn read_into(s: &mut Self, r: &mut ThriftReader<'_>) -> Result<()> {
        r.read_struct("Statistics", |r, id, ty| {
            match id {
                1 => s.max = Some(StatBytes::new(r.binary(ty)?)),
                2 => s.min = Some(StatBytes::new(r.binary(ty)?)),
                3 => s.null_count = Some(r.i64(ty)?),
                4 => s.distinct_count = Some(r.i64(ty)?),
                5 => s.max_value = Some(StatBytes::new(r.binary(ty)?)),
                6 => s.min_value = Some(StatBytes::new(r.binary(ty)?)),
                7 => s.is_max_value_exact = Some(r.bool(ty)?),
                8 => s.is_min_value_exact = Some(r.bool(ty)?),
                9 => s.nan_count = Some(r.i64(ty)?),
                _ => r.skip(ty)?,
            }
            Ok(())
        })
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        w.opt_binary(1, self.max.as_deref());
        w.opt_binary(2, self.min.as_deref());
        w.opt_i64(3, self.null_count);
        w.opt_i64(4, self.distinct_count);
        w.opt_binary(5, self.max_value.as_deref());
        w.opt_binary(6, self.min_value.as_deref());
        w.opt_bool(7, self.is_max_value_exact);
        w.opt_bool(8, self.is_min_value_exact);
        w.opt_i64(9, self.nan_count);
        w.struct_end();
    }
}

/// Sizes a reader needs to allocate the decoded data exactly, and level histograms.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SizeStatistics {
    /// Total bytes of BYTE_ARRAY values, without length prefixes: the exact size of an Arrow
    /// data buffer holding them.
    pub unencoded_byte_array_data_bytes: Option<i64>,
    /// Count of each repetition level, index = level.
    pub repetition_level_histogram: Option<Vec<i64>>,
    /// Count of each definition level, index = level.
    pub definition_level_histogram: Option<Vec<i64>>,
}

impl ThriftStruct for SizeStatistics {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let mut s = SizeStatistics::default();
        r.read_struct("SizeStatistics", |r, id, ty| {
            match id {
                1 => s.unencoded_byte_array_data_bytes = Some(r.i64(ty)?),
                2 => s.repetition_level_histogram = Some(r.i64_list(ty)?),
                3 => s.definition_level_histogram = Some(r.i64_list(ty)?),
                _ => r.skip(ty)?,
            }
            Ok(())
        })?;
        Ok(s)
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        w.opt_i64(1, self.unencoded_byte_array_data_bytes);
        if let Some(h) = &self.repetition_level_histogram {
            w.i64_list(2, h);
        }
        if let Some(h) = &self.definition_level_histogram {
            w.i64_list(3, h);
        }
        w.struct_end();
    }
}

/// The bounding box of a geometry or geography column.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BoundingBox {
    /// Minimum x (longitude).
    pub xmin: f64,
    /// Maximum x.
    pub xmax: f64,
    /// Minimum y (latitude).
    pub ymin: f64,
    /// Maximum y.
    pub ymax: f64,
    /// Minimum z, if the data has z.
    pub zmin: Option<f64>,
    /// Maximum z.
    pub zmax: Option<f64>,
    /// Minimum m, if the data has m.
    pub mmin: Option<f64>,
    /// Maximum m.
    pub mmax: Option<f64>,
}

impl Eq for BoundingBox {}

impl ThriftStruct for BoundingBox {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let mut v = [None; 8];
        r.read_struct("BoundingBox", |r, id, ty| {
            match id {
                1..=8 => v[(id - 1) as usize] = Some(r.double(ty)?),
                _ => r.skip(ty)?,
            }
            Ok(())
        })?;
        Ok(BoundingBox {
            xmin: required(v[0], "BoundingBox.xmin")?,
            xmax: required(v[1], "BoundingBox.xmax")?,
            ymin: required(v[2], "BoundingBox.ymin")?,
            ymax: required(v[3], "BoundingBox.ymax")?,
            zmin: v[4],
            zmax: v[5],
            mmin: v[6],
            mmax: v[7],
        })
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        w.double(1, self.xmin);
        w.double(2, self.xmax);
        w.double(3, self.ymin);
        w.double(4, self.ymax);
        for (id, v) in [(5, self.zmin), (6, self.zmax), (7, self.mmin), (8, self.mmax)] {
            if let Some(v) = v {
                w.double(id, v);
            }
        }
        w.struct_end();
    }
}

/// Statistics of GEOMETRY and GEOGRAPHY columns.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GeospatialStatistics {
    /// The bounding box of all values.
    pub bbox: Option<BoundingBox>,
    /// The WKB geometry type codes present.
    pub geospatial_types: Option<Vec<i32>>,
}

impl ThriftStruct for GeospatialStatistics {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let mut s = GeospatialStatistics::default();
        r.read_struct("GeospatialStatistics", |r, id, ty| {
            match id {
                1 => s.bbox = Some(r.read_struct_field(ty)?),
                2 => s.geospatial_types = Some(r.i32_list(ty)?),
                _ => r.skip(ty)?,
            }
            Ok(())
        })?;
        Ok(s)
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        if let Some(b) = &self.bbox {
            w.struct_field(1, b);
        }
        if let Some(t) = &self.geospatial_types {
            w.i32_list(2, t);
        }
        w.struct_end();
    }
}
