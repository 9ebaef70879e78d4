//! A file's footer as plain Python values: dicts and lists that print, compare and serialise
//! without any class of ours. The Python side (`parquetry/_metadata.py`) builds pyarrow's
//! metadata classes (`FileMetaData`, `RowGroupMetaData`, `Statistics`...) over them.

use parquetry::format::{ColumnChunk, FileMetaData, LogicalType, SchemaElement, SortingColumn, Statistics};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use crate::read::key_values;

/// `{num_rows, num_row_groups, created_by, version, key_value_metadata, schema: [...],
/// row_groups: [...], serialized_size, footer}`; `footer` is the Thrift-encoded footer with
/// its length and magic (what `write_metadata_file` appends to `PAR1`).
pub fn to_dict<'py>(py: Python<'py>, m: &FileMetaData) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("num_rows", m.num_rows)?;
    d.set_item("num_row_groups", m.row_groups.len())?;
    d.set_item("created_by", m.created_by.as_deref())?;
    d.set_item("version", m.version)?;
    d.set_item("key_value_metadata", key_values(py, m.key_value_metadata.as_deref())?)?;
    d.set_item("schema", schema_elements(py, m)?)?;
    let groups = PyList::empty(py);
    for (i, rg) in m.row_groups.iter().enumerate() {
        let g = PyDict::new(py);
        g.set_item("num_rows", rg.num_rows)?;
        g.set_item("total_byte_size", rg.total_byte_size)?;
        g.set_item("total_compressed_size", rg.total_compressed_size)?;
        g.set_item("file_offset", rg.file_offset)?;
        g.set_item("ordinal", rg.ordinal.map_or(i as i64, i64::from))?;
        g.set_item("sorting_columns", rg.sorting_columns.as_deref().map(sorting_columns))?;
        let columns = PyList::empty(py);
        for c in &rg.columns {
            columns.append(column(py, c)?)?;
        }
        g.set_item("columns", columns)?;
        groups.append(g)?;
    }
    d.set_item("row_groups", groups)?;
    let footer = parquetry::format::encode_footer(m);
    d.set_item("serialized_size", footer.len().saturating_sub(8))?;
    d.set_item("footer", PyBytes::new(py, &footer))?;
    Ok(d)
}

/// The schema elements (depth first, the root first) as dicts: what `ParquetSchema` is
/// built from, without exporting the row groups.
pub fn schema_elements<'py>(py: Python<'py>, m: &FileMetaData) -> PyResult<Bound<'py, PyList>> {
    let schema = PyList::empty(py);
    for e in &m.schema {
        schema.append(schema_element(py, e)?)?;
    }
    Ok(schema)
}

/// `(column_idx, descending, nulls_first)` per sorting column.
fn sorting_columns(s: &[SortingColumn]) -> Vec<(i32, bool, bool)> {
    s.iter().map(|c| (c.column_idx, c.descending, c.nulls_first)).collect()
}

/// One schema element (depth first; the root first): names as the specification spells them,
/// the logical type printed as the specification writes it (`TIMESTAMP(MICROS,true)`).
fn schema_element<'py>(py: Python<'py>, e: &SchemaElement) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &e.name)?;
    d.set_item("physical_type", e.physical_type.map(|t| t.to_string()))?;
    d.set_item("type_length", e.type_length)?;
    d.set_item("repetition", e.repetition.map(|r| r.to_string()))?;
    d.set_item("num_children", e.num_children)?;
    d.set_item("converted_type", e.converted_type.map(|t| t.to_string()))?;
    d.set_item("scale", e.scale)?;
    d.set_item("precision", e.precision)?;
    d.set_item("field_id", e.field_id)?;
    d.set_item("logical_type", e.logical_type.as_ref().map(|t| t.to_string()))?;
    // The printed GEOMETRY/GEOGRAPHY fills in defaults; the stored values, for pyarrow's form.
    let (crs, algorithm) = match &e.logical_type {
        Some(LogicalType::Geometry { crs }) => (crs.clone(), None),
        Some(LogicalType::Geography { crs, algorithm }) => (crs.clone(), algorithm.map(|a| a.to_string())),
        _ => (None, None),
    };
    d.set_item("geo_crs", crs)?;
    d.set_item("geo_algorithm", algorithm)?;
    Ok(d)
}

/// One column chunk: path, physical type, encodings, codec, sizes, offsets, statistics.
fn column<'py>(py: Python<'py>, c: &ColumnChunk) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("file_offset", c.file_offset)?;
    d.set_item("file_path", c.file_path.as_deref())?;
    d.set_item("has_column_index", c.column_index_offset.is_some())?;
    d.set_item("has_offset_index", c.offset_index_offset.is_some())?;
    d.set_item("column_index_offset", c.column_index_offset)?;
    d.set_item("column_index_length", c.column_index_length)?;
    d.set_item("offset_index_offset", c.offset_index_offset)?;
    d.set_item("offset_index_length", c.offset_index_length)?;
    let Some(m) = &c.meta_data else {
        // Encrypted column metadata: nothing readable beyond the offsets.
        return Ok(d);
    };
    d.set_item("path_in_schema", m.path_in_schema.join("."))?;
    d.set_item("physical_type", m.physical_type.to_string())?;
    let encodings: Vec<String> = m.encodings.iter().map(|e| e.to_string()).collect();
    d.set_item("encodings", encodings)?;
    d.set_item("compression", m.codec.to_string())?;
    d.set_item("num_values", m.num_values)?;
    d.set_item("total_compressed_size", m.total_compressed_size)?;
    d.set_item("total_uncompressed_size", m.total_uncompressed_size)?;
    d.set_item("data_page_offset", m.data_page_offset)?;
    d.set_item("index_page_offset", m.index_page_offset)?;
    d.set_item("dictionary_page_offset", m.dictionary_page_offset)?;
    d.set_item("bloom_filter_offset", m.bloom_filter_offset)?;
    d.set_item("bloom_filter_length", m.bloom_filter_length)?;
    d.set_item("statistics", m.statistics.as_ref().map(|s| statistics(py, s)).transpose()?)?;
    let kv = m.key_value_metadata.as_deref().map(|kv| key_values(py, Some(kv))).transpose()?;
    d.set_item("key_value_metadata", kv)?;
    d.set_item("geo_statistics", m.geospatial_statistics.as_deref().map(|g| geo_statistics(py, g)).transpose()?)?;
    Ok(d)
}

/// Geospatial statistics: the bounding box (`xmin`..`mmax`, absent dimensions `None`) and
/// the WKB geometry type codes.
fn geo_statistics<'py>(py: Python<'py>, g: &parquetry::format::GeospatialStatistics) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("geospatial_types", g.geospatial_types.clone())?;
    let b = g.bbox.as_ref();
    d.set_item("xmin", b.map(|b| b.xmin))?;
    d.set_item("xmax", b.map(|b| b.xmax))?;
    d.set_item("ymin", b.map(|b| b.ymin))?;
    d.set_item("ymax", b.map(|b| b.ymax))?;
    d.set_item("zmin", b.and_then(|b| b.zmin))?;
    d.set_item("zmax", b.and_then(|b| b.zmax))?;
    d.set_item("mmin", b.and_then(|b| b.mmin))?;
    d.set_item("mmax", b.and_then(|b| b.mmax))?;
    Ok(d)
}

/// Statistics as stored: min/max are the PLAIN-encoded bytes of the physical type (decode
/// them with the column's type; the raw form is exact for every type, which a guess is not).
fn statistics<'py>(py: Python<'py>, s: &Statistics) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let bytes = |b: &Option<parquetry::format::StatBytes>| b.as_ref().map(|b| PyBytes::new(py, b));
    // The modern fields first; the deprecated min/max only when they are all there is.
    let modern = s.min_value.is_some() || s.max_value.is_some();
    d.set_item("min", bytes(&s.min_value).or_else(|| bytes(&s.min)))?;
    d.set_item("max", bytes(&s.max_value).or_else(|| bytes(&s.max)))?;
    d.set_item("deprecated_min_max", !modern && (s.min.is_some() || s.max.is_some()))?;
    d.set_item("null_count", s.null_count)?;
    d.set_item("distinct_count", s.distinct_count)?;
    d.set_item("nan_count", s.nan_count)?;
    d.set_item("is_min_value_exact", s.is_min_value_exact)?;
    d.set_item("is_max_value_exact", s.is_max_value_exact)?;
    Ok(d)
}

/// Edits a footer for `_metadata` summary files (pyarrow's `FileMetaData.set_file_path` and
/// `append_row_groups`): `footer` and `append` are footers as `to_dict` exports them (Thrift,
/// length, magic). Every column chunk gets `file_path` when given (`""` clears it); the row
/// groups of `append` are added after `footer`'s (the caller has checked the schemas are
/// equal). Returns the new footer as `to_dict` exports it.
#[pyfunction]
#[pyo3(signature = (footer, file_path=None, append=None))]
pub fn edit_footer<'py>(
    py: Python<'py>,
    footer: &[u8],
    file_path: Option<String>,
    append: Option<&[u8]>,
) -> PyResult<Bound<'py, PyDict>> {
    let decode = |footer: &[u8]| {
        let mut file = b"PAR1".to_vec();
        file.extend_from_slice(footer);
        parquetry::format::read_metadata_from_bytes(&file).map_err(crate::errors::to_py)
    };
    let mut meta = decode(footer)?;
    if let Some(path) = file_path {
        let path = (!path.is_empty()).then_some(path);
        for rg in &mut meta.row_groups {
            for c in &mut rg.columns {
                c.file_path = path.clone();
            }
        }
    }
    if let Some(other) = append {
        let other = decode(other)?;
        meta.num_rows += other.num_rows;
        meta.row_groups.extend(other.row_groups);
    }
    to_dict(py, &meta)
}
