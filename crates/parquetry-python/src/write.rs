//! Writing and merging: `write_table` streams any Arrow producer into a Parquet file, and
//! `merge` combines files by copying pages. Both run with the GIL released and write through
//! a temporary file beside the destination, renamed into place only when complete.

use std::collections::HashMap;
use std::path::PathBuf;

use parquetry::compress::Codec;
use parquetry::format::Encoding;
use parquetry::merge::{merge_files, MergeOptions};
use parquetry::write::{DataPageVersion, FileSink, ParquetWriter, StatisticsLevel, TempFile, WriteOptions};
use parquetry::Error;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{from_arrow, invalid, IntoPy};
use crate::ffi::import_reader;

/// A codec by its pyarrow name (case-insensitive). pyarrow's "lz4" writes LZ4_RAW, the
/// codec meant by that name today; the deprecated Hadoop-framed LZ4 is "lz4_hadoop".
fn codec(name: &str) -> PyResult<Codec> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "none" | "uncompressed" => Codec::Uncompressed,
        "snappy" => Codec::Snappy,
        "gzip" => Codec::Gzip,
        "brotli" => Codec::Brotli,
        "lz4" | "lz4_raw" => Codec::Lz4Raw,
        "lz4_hadoop" => Codec::Lz4,
        "zstd" => Codec::Zstd,
        _ => {
            return Err(invalid(format!(
                "unknown compression '{name}' (one of: none, snappy, gzip, brotli, lz4, lz4_raw, lz4_hadoop, zstd)"
            )))
        }
    })
}

/// An encoding by its Parquet name (case-insensitive), for `column_encoding`.
fn encoding(name: &str) -> PyResult<Encoding> {
    parquetry::write::writable_encoding(name).map_err(|e| invalid(e.message().to_owned()))
}

/// The options of `write_table` (the Python wrapper has already turned per-column arguments
/// into dicts, and `use_dictionary` into `(default, {column: bool})`).
#[allow(clippy::too_many_arguments)]
fn write_options(
    compression: &str,
    column_compression: HashMap<String, String>,
    compression_level: Option<i32>,
    row_group_size: Option<usize>,
    use_dictionary: bool,
    column_dictionary: HashMap<String, bool>,
    data_page_version: &str,
    write_statistics: bool,
    column_statistics: HashMap<String, bool>,
    write_page_index: bool,
    encoding_all: Option<&str>,
    column_encoding: HashMap<String, String>,
) -> PyResult<WriteOptions> {
    let default_codec = codec(compression)?;
    let mut o = match compression_level {
        Some(level) => WriteOptions::new().with_compression_level(default_codec, level),
        None => WriteOptions::new().with_compression(default_codec),
    };
    o = o.with_dictionary(use_dictionary);
    for (column, name) in &column_compression {
        o = o.with_column_compression(column, codec(name)?, compression_level);
    }
    for (column, on) in &column_dictionary {
        o = o.with_column_dictionary(column, *on);
    }
    if let Some(name) = encoding_all {
        // One encoding for every column; a non-dictionary one turns the dictionary off, as
        // pyarrow requires `use_dictionary=False` with `column_encoding`.
        o = match encoding(name)? {
            Encoding::RLE_DICTIONARY => o.with_dictionary(true),
            e => o.with_dictionary(false).with_encoding(e),
        };
    }
    for (column, name) in &column_encoding {
        o = o.with_column_encoding(column, encoding(name)?);
    }
    if let Some(rows) = row_group_size {
        if rows == 0 {
            return Err(invalid("row_group_size must be at least 1"));
        }
        o = o.with_row_group_rows(rows);
    }
    o = o.with_data_page_version(match data_page_version {
        "1.0" => DataPageVersion::V1,
        "2.0" => DataPageVersion::V2,
        other => return Err(invalid(format!("data_page_version must be '1.0' or '2.0', not '{other}'"))),
    });
    if !write_statistics {
        o = o.with_statistics(StatisticsLevel::None);
    }
    for (column, on) in &column_statistics {
        let level = if *on { StatisticsLevel::Page } else { StatisticsLevel::None };
        o = o.with_column_statistics(column, level);
    }
    Ok(o.with_page_index(write_page_index))
}

/// Writes the Arrow data of `data` to `path`, pulling batches from the producer one at a
/// time (nothing is materialised first). Returns the rows written.
#[pyfunction]
#[pyo3(signature = (data, path, compression, column_compression, compression_level, row_group_size,
    use_dictionary, column_dictionary, data_page_version, write_statistics, column_statistics,
    write_page_index, encoding_all, column_encoding, threads=1))]
#[allow(clippy::too_many_arguments)]
pub fn write_table(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    path: PathBuf,
    compression: &str,
    column_compression: HashMap<String, String>,
    compression_level: Option<i32>,
    row_group_size: Option<usize>,
    use_dictionary: bool,
    column_dictionary: HashMap<String, bool>,
    data_page_version: &str,
    write_statistics: bool,
    column_statistics: HashMap<String, bool>,
    write_page_index: bool,
    encoding_all: Option<&str>,
    column_encoding: HashMap<String, String>,
    threads: usize,
) -> PyResult<u64> {
    let options = write_options(
        compression, column_compression, compression_level, row_group_size, use_dictionary,
        column_dictionary, data_page_version, write_statistics, column_statistics, write_page_index,
        encoding_all, column_encoding,
    )?
    .with_threads(threads);
    let mut reader = import_reader(data)?;
    // Producers that need Python (a reader over a Python generator) take the GIL back
    // themselves inside their C callbacks, so the whole write can run without it.
    let result = py.detach(move || -> Result<u64, PyErrLater> {
        let temp = TempFile::beside(&path)?;
        // With threads, the file's writes run on a thread of their own, beside the encoding.
        let sink = FileSink::new(temp.file()?, threads).map_err(|e| Error::io("starting the file's writing thread", e))?;
        let mut writer = ParquetWriter::try_new(sink, reader.schema(), options)?;
        let mut rows = 0u64;
        for batch in reader.by_ref() {
            let batch = batch.map_err(PyErrLater::Arrow)?;
            rows += batch.num_rows() as u64;
            writer.write(&batch)?;
        }
        let (sink, _) = writer.into_inner()?;
        let file = sink.into_file().map_err(|e| Error::io("flushing the file", e))?;
        file.sync_all().map_err(|e| Error::io(format!("syncing {}", temp.path().display()), e))?;
        drop(file);
        temp.persist(&path)?;
        Ok(rows)
    });
    result.map_err(PyErrLater::into_py)
}

/// An error made without the GIL, turned into a Python exception once it is held again.
enum PyErrLater {
    Parquet(Error),
    Arrow(arrow_schema::ArrowError),
}

impl From<Error> for PyErrLater {
    fn from(e: Error) -> Self {
        PyErrLater::Parquet(e)
    }
}

impl PyErrLater {
    fn into_py(self) -> PyErr {
        match self {
            PyErrLater::Parquet(e) => crate::errors::to_py(e),
            PyErrLater::Arrow(e) => from_arrow(e),
        }
    }
}

/// Merges `inputs` into `output` by copying pages; returns what the merge did.
#[pyfunction]
#[pyo3(signature = (inputs, output, row_group_rows=None, compression=None, compression_level=None, threads=1))]
pub fn merge<'py>(
    py: Python<'py>,
    inputs: Vec<PathBuf>,
    output: PathBuf,
    row_group_rows: Option<u64>,
    compression: Option<&str>,
    compression_level: Option<i32>,
    threads: usize,
) -> PyResult<Bound<'py, PyDict>> {
    if inputs.is_empty() {
        return Err(invalid("merge needs at least one input file"));
    }
    let mut options = MergeOptions { threads, ..MergeOptions::default() };
    if let Some(rows) = row_group_rows {
        if rows == 0 {
            return Err(invalid("row_group_rows must be at least 1"));
        }
        options.row_group_rows = rows;
    }
    if let Some(name) = compression {
        options.compression = Some((codec(name)?, compression_level));
    }
    let s = py.detach(|| merge_files(&inputs, &output, &options)).py_err()?;
    let d = PyDict::new(py);
    d.set_item("rows", s.rows)?;
    d.set_item("files", s.files)?;
    d.set_item("row_groups_in", s.row_groups_in)?;
    d.set_item("row_groups_out", s.row_groups_out)?;
    d.set_item("row_groups_copied", s.row_groups_copied)?;
    d.set_item("bytes_out", s.bytes_out)?;
    d.set_item("pages_copied", s.pages.copied)?;
    d.set_item("pages_remapped", s.pages.remapped)?;
    d.set_item("pages_reencoded", s.pages.reencoded)?;
    d.set_item("pages_from_dictionary", s.pages.from_dictionary)?;
    Ok(d)
}
