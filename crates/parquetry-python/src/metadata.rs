//! A file's footer as plain Python values: dicts and lists that print, compare and serialise
//! without any class of ours.

use parquetry::format::{ColumnChunk, FileMetaData, Statistics};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use crate::read::key_values;

/// `{num_rows, num_row_groups, created_by, version, key_value_metadata, row_groups: [...]}`.
pub fn to_dict<'py>(py: Python<'py>, m: &FileMetaData) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("num_rows", m.num_rows)?;
    d.set_item("num_row_groups", m.row_groups.len())?;
    d.set_item("created_by", m.created_by.as_deref())?;
    d.set_item("version", m.version)?;
    d.set_item("key_value_metadata", key_values(py, m.key_value_metadata.as_deref())?)?;
    let groups = PyList::empty(py);
    for rg in &m.row_groups {
        let g = PyDict::new(py);
        g.set_item("num_rows", rg.num_rows)?;
        g.set_item("total_byte_size", rg.total_byte_size)?;
        g.set_item("total_compressed_size", rg.total_compressed_size)?;
        let columns = PyList::empty(py);
        for c in &rg.columns {
            columns.append(column(py, c)?)?;
        }
        g.set_item("columns", columns)?;
        groups.append(g)?;
    }
    d.set_item("row_groups", groups)?;
    Ok(d)
}

/// One column chunk: path, physical type, encodings, codec, sizes, statistics.
fn column<'py>(py: Python<'py>, c: &ColumnChunk) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("file_offset", c.file_offset)?;
    let Some(m) = &c.meta_data else {
        // Encrypted column metadata: nothing readable beyond the offset.
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
    d.set_item("dictionary_page_offset", m.dictionary_page_offset)?;
    d.set_item("has_column_index", c.column_index_offset.is_some())?;
    d.set_item("has_offset_index", c.offset_index_offset.is_some())?;
    d.set_item("statistics", m.statistics.as_ref().map(|s| statistics(py, s)).transpose()?)?;
    Ok(d)
}

/// Statistics as stored: min/max are the PLAIN-encoded bytes of the physical type (decode
/// them with the column's type; the raw form is exact for every type, which a guess is not).
fn statistics<'py>(py: Python<'py>, s: &Statistics) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let bytes = |b: &Option<parquetry::format::StatBytes>| b.as_ref().map(|b| PyBytes::new(py, b));
    // The modern fields first; the deprecated min/max only when they are all there is.
    d.set_item("min", bytes(&s.min_value).or_else(|| bytes(&s.min)))?;
    d.set_item("max", bytes(&s.max_value).or_else(|| bytes(&s.max)))?;
    d.set_item("null_count", s.null_count)?;
    d.set_item("distinct_count", s.distinct_count)?;
    Ok(d)
}
