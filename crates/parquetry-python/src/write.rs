//! Writing and merging: `write_table` streams any Arrow producer into a Parquet file, and
//! `merge` combines files by copying pages. Both run with the GIL released and write through
//! a temporary file beside the destination, renamed into place only when complete.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use arrow_schema::ffi::FFI_ArrowSchema;

use parquetry::compress::{Codec, Compression};
use parquetry::format::{Encoding, FileMetaData, SortingColumn};
use parquetry::io::{FileSink, TempFile};
use parquetry::merge::{merge_files, MergeOptions};
use parquetry::write::{ContentDefinedChunking, DataPageVersion, ParquetWriter, StatisticsLevel, WriteOptions};
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

/// A value of the options dict, `None` when absent or `None`.
fn opt<'py, T>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<Option<T>>
where
    T: for<'a> FromPyObject<'a, 'py>,
    for<'a> <T as FromPyObject<'a, 'py>>::Error: Into<PyErr>,
{
    match d.get_item(key)? {
        Some(v) if !v.is_none() => Ok(Some(v.extract().map_err(Into::into)?)),
        _ => Ok(None),
    }
}

/// The options of `write_table` and `ParquetWriter`, from the dict the Python wrapper builds
/// (it has already checked pyarrow's argument forms and turned per-column arguments into
/// dicts): `compression`, `compression_level`, `column_compression` (`{column: (codec,
/// level)}`), `row_group_size`, `use_dictionary`, `column_dictionary`, `data_page_version`,
/// `write_statistics`, `column_statistics`, `write_page_index`, `encoding_all`,
/// `column_encoding`, `data_page_size`, `dictionary_pagesize_limit`, `write_page_checksum`,
/// `max_rows_per_page`, `key_value_metadata` (pairs), `sorting_columns` (`(column,
/// descending, nulls_first)`), `bloom_filters` (`{column: (ndv, fpp)}`, either `None` for
/// the default), `store_schema`, `int96_timestamps`, `compliant_nested_types`,
/// `time_adjusted_to_utc`, `format_version` (1 or 2), `content_defined_chunking`
/// (`(min, max, norm_level)`), `threads`.
fn write_options(d: &Bound<'_, PyDict>) -> PyResult<WriteOptions> {
    let compression: String = opt(d, "compression")?.unwrap_or_else(|| "none".to_owned());
    let default_codec = codec(&compression)?;
    let compression_level: Option<i32> = opt(d, "compression_level")?;
    let mut o = match compression_level {
        Some(level) => WriteOptions::new().with_compression(Compression::new(default_codec, Some(level))),
        None => WriteOptions::new().with_compression(default_codec),
    };
    o = o.with_dictionary(opt(d, "use_dictionary")?.unwrap_or(true));
    if let Some(limit) = opt::<usize>(d, "dictionary_pagesize_limit")? {
        o = o.with_dictionary_page_size_limit(limit);
    }
    let column_compression: HashMap<String, (String, Option<i32>)> = opt(d, "column_compression")?.unwrap_or_default();
    for (column, (name, level)) in &column_compression {
        o = o.with_column_compression(column, Compression::new(codec(name)?, *level));
    }
    let column_dictionary: HashMap<String, bool> = opt(d, "column_dictionary")?.unwrap_or_default();
    for (column, on) in &column_dictionary {
        o = o.with_column_dictionary(column, *on);
    }
    if let Some(name) = opt::<String>(d, "encoding_all")? {
        // One encoding for every column; a non-dictionary one turns the dictionary off, as
        // pyarrow requires `use_dictionary=False` with `column_encoding`.
        o = match encoding(&name)? {
            Encoding::RLE_DICTIONARY => o.with_dictionary(true),
            e => o.with_dictionary(false).with_encoding(e),
        };
    }
    let column_encoding: HashMap<String, String> = opt(d, "column_encoding")?.unwrap_or_default();
    for (column, name) in &column_encoding {
        o = o.with_column_encoding(column, encoding(name)?);
    }
    if let Some(rows) = opt::<usize>(d, "row_group_size")? {
        if rows == 0 {
            return Err(invalid("row_group_size must be at least 1"));
        }
        o = o.with_row_group_rows(rows);
    }
    if let Some(rows) = opt::<usize>(d, "max_rows_per_page")? {
        o = o.with_data_page_row_limit(rows.max(1));
    }
    if let Some(bytes) = opt::<usize>(d, "data_page_size")? {
        o = o.with_data_page_size(bytes.max(1));
    }
    let version: String = opt(d, "data_page_version")?.unwrap_or_else(|| "1.0".to_owned());
    o = o.with_data_page_version(match version.as_str() {
        "1.0" => DataPageVersion::V1,
        "2.0" => DataPageVersion::V2,
        other => return Err(invalid(format!("data_page_version must be '1.0' or '2.0', not '{other}'"))),
    });
    if !opt(d, "write_statistics")?.unwrap_or(true) {
        o = o.with_statistics(StatisticsLevel::None);
    }
    let column_statistics: HashMap<String, bool> = opt(d, "column_statistics")?.unwrap_or_default();
    for (column, on) in &column_statistics {
        let level = if *on { StatisticsLevel::Page } else { StatisticsLevel::None };
        o = o.with_column_statistics(column, level);
    }
    let bloom_filters: HashMap<String, (Option<u64>, Option<f64>)> = opt(d, "bloom_filters")?.unwrap_or_default();
    for (column, (ndv, fpp)) in &bloom_filters {
        o = o.with_column_bloom_filter_enabled(column, true);
        if let Some(ndv) = ndv {
            o = o.with_column_bloom_filter_ndv(column, *ndv);
        }
        if let Some(fpp) = fpp {
            o = o.with_column_bloom_filter_fpp(column, *fpp);
        }
    }
    o = o.with_page_index(opt(d, "write_page_index")?.unwrap_or(false));
    o = o.with_crc(opt(d, "write_page_checksum")?.unwrap_or(false));
    o = o.with_arrow_schema(opt(d, "store_schema")?.unwrap_or(true));
    o = o.with_int96_timestamps(opt(d, "int96_timestamps")?.unwrap_or(false));
    o = o.with_compliant_nested_types(opt(d, "compliant_nested_types")?.unwrap_or(true));
    o = o.with_time_adjusted_to_utc(opt(d, "time_adjusted_to_utc")?.unwrap_or(false));
    o = o.with_format_version(opt(d, "format_version")?.unwrap_or(2));
    if let Some((min, max, norm_level)) = opt::<(usize, usize, i32)>(d, "content_defined_chunking")? {
        let c = ContentDefinedChunking { min_chunk_size: min, max_chunk_size: max, norm_level };
        o = o.with_content_defined_chunking(Some(c));
    }
    let kv: Vec<(String, String)> = opt(d, "key_value_metadata")?.unwrap_or_default();
    for (k, v) in kv {
        o = o.with_key_value(k, v);
    }
    if let Some(sorting) = opt::<Vec<(i32, bool, bool)>>(d, "sorting_columns")? {
        o = o.with_sorting_columns(
            sorting
                .into_iter()
                .map(|(column_idx, descending, nulls_first)| SortingColumn { column_idx, descending, nulls_first })
                .collect(),
        );
    }
    Ok(o.with_threads(opt(d, "threads")?.unwrap_or(1)))
}

/// Uploads the local file at `path` to `url` by multipart upload: the object exists only
/// once the whole file is there. Returns the bytes sent.
#[pyfunction]
#[pyo3(signature = (path, url, storage_options=None))]
pub fn upload_file(
    py: Python<'_>,
    path: PathBuf,
    url: String,
    storage_options: Option<Vec<(String, String)>>,
) -> PyResult<u64> {
    let options: parquetry::store::StorageOptions = storage_options.unwrap_or_default().into_iter().collect();
    py.detach(|| parquetry::store::upload_file(&path, &url, &options)).map_err(crate::errors::to_py)
}

/// Writes the Arrow data of `data` to `path`, pulling batches from the producer one at a
/// time (nothing is materialised first). Returns the rows written.
#[pyfunction]
pub fn write_table(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    path: PathBuf,
    options: &Bound<'_, PyDict>,
) -> PyResult<u64> {
    let threads: usize = opt(options, "threads")?.unwrap_or(1);
    let options = write_options(options)?;
    let mut reader = import_reader(data)?;
    // Producers that need Python (a reader over a Python generator) take the GIL back
    // themselves inside their C callbacks, so the whole write can run without it.
    let result = py.detach(move || -> Result<u64, PyErrLater> {
        let temp = TempFile::beside(&path)?;
        // With threads, the file's writes run on a thread of their own, beside the encoding.
        let sink =
            FileSink::new(temp.file()?, threads).map_err(|e| Error::io("starting the file's writing thread", e))?;
        let mut writer = ParquetWriter::try_new(sink, reader.schema(), options).map_err(PyErrLater::Options)?;
        let mut rows = 0u64;
        for batch in reader.by_ref() {
            let batch = batch.map_err(PyErrLater::Arrow)?;
            rows += batch.num_rows() as u64;
            writer.write(&batch)?;
        }
        finish(writer, temp, &path)?;
        Ok(rows)
    });
    result.map_err(PyErrLater::into_py)
}

/// Ends `writer`'s file, syncs it and renames it from `temp` to `path`.
fn finish(writer: ParquetWriter<FileSink>, temp: TempFile, path: &std::path::Path) -> Result<FileMetaData, Error> {
    let (sink, meta) = writer.into_inner()?;
    let file = sink.into_file().map_err(|e| Error::io("flushing the file", e))?;
    file.sync_all().map_err(|e| Error::io(format!("syncing {}", temp.path().display()), e))?;
    drop(file);
    temp.persist(path)?;
    Ok(meta)
}

/// An open file being written batch by batch (Python's `parquetry.ParquetWriter`). The file
/// is written to a temporary path beside `path` and renamed into place by `close`; a writer
/// dropped without `close` (or after an error) removes it, leaving nothing valid-looking.
#[pyclass(module = "parquetry._parquetry", name = "NativeWriter", frozen)]
pub struct NativeWriter {
    state: Mutex<Option<(ParquetWriter<FileSink>, TempFile)>>,
    path: PathBuf,
}

#[pymethods]
impl NativeWriter {
    /// Opens the temporary file and writes the leading magic; `schema` is anything with
    /// `__arrow_c_schema__`.
    #[new]
    fn new(py: Python<'_>, path: PathBuf, schema: &Bound<'_, PyAny>, options: &Bound<'_, PyDict>) -> PyResult<Self> {
        let schema = Arc::new(import_schema(schema)?);
        let threads: usize = opt(options, "threads")?.unwrap_or(1);
        let options = write_options(options)?;
        let state = py
            .detach(|| -> Result<_, PyErrLater> {
                let temp = TempFile::beside(&path)?;
                let sink = FileSink::new(temp.file()?, threads)
                    .map_err(|e| Error::io("starting the file's writing thread", e))?;
                Ok((ParquetWriter::try_new(sink, schema, options).map_err(PyErrLater::Options)?, temp))
            })
            .map_err(PyErrLater::into_py)?;
        Ok(NativeWriter { state: Mutex::new(Some(state)), path })
    }

    /// Writes every batch of `data` (a stream or a record batch over the PyCapsule
    /// interface), whose schema must be the writer's (checked by the Python side first).
    fn write(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<u64> {
        let mut reader = import_reader(data)?;
        let mut guard = self.state.lock().map_err(|_| invalid("the writer failed earlier"))?;
        let Some((writer, _)) = guard.as_mut() else {
            return Err(invalid("the ParquetWriter is closed"));
        };
        let result = py.detach(|| -> Result<u64, PyErrLater> {
            let mut rows = 0u64;
            for batch in reader.by_ref() {
                let batch = batch.map_err(PyErrLater::Arrow)?;
                rows += batch.num_rows() as u64;
                writer.write(&batch)?;
            }
            Ok(rows)
        });
        result.map_err(PyErrLater::into_py)
    }

    /// Adds a key/value entry to the footer (replacing one of the same key), at any time
    /// before `close`.
    fn add_key_value(&self, key: String, value: String) -> PyResult<()> {
        let mut guard = self.state.lock().map_err(|_| invalid("the writer failed earlier"))?;
        let Some((writer, _)) = guard.as_mut() else {
            return Err(invalid("the ParquetWriter is closed"));
        };
        writer.add_key_value(key, value);
        Ok(())
    }

    /// Ends the open row group (the next rows start a new one).
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        let mut guard = self.state.lock().map_err(|_| invalid("the writer failed earlier"))?;
        let Some((writer, _)) = guard.as_mut() else {
            return Err(invalid("the ParquetWriter is closed"));
        };
        py.detach(|| writer.flush()).py_err()
    }

    /// Ends the open row group, or writes a row group of no rows when it is empty (pyarrow
    /// writes one per empty table).
    fn write_empty_row_group(&self, py: Python<'_>) -> PyResult<()> {
        let mut guard = self.state.lock().map_err(|_| invalid("the writer failed earlier"))?;
        let Some((writer, _)) = guard.as_mut() else {
            return Err(invalid("the ParquetWriter is closed"));
        };
        py.detach(|| writer.write_empty_row_group()).py_err()
    }

    /// Ends the file and renames it into place; returns its footer as plain values.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let state = self.state.lock().map_err(|_| invalid("the writer failed earlier"))?.take();
        let Some((writer, temp)) = state else {
            return Ok(None);
        };
        let meta = py.detach(|| finish(writer, temp, &self.path)).py_err()?;
        crate::metadata::to_dict(py, &meta).map(Some)
    }

    /// Drops the file without finishing it (the temporary file is removed).
    fn abort(&self) {
        if let Ok(mut guard) = self.state.lock() {
            guard.take();
        }
    }
}

/// An Arrow schema from an object with `__arrow_c_schema__` (a pyarrow Schema...).
pub(crate) fn import_schema(obj: &Bound<'_, PyAny>) -> PyResult<arrow_schema::Schema> {
    let capsule = obj.call_method0("__arrow_c_schema__")?;
    let ptr = crate::ffi::checked_pointer(&capsule, "arrow_schema")? as *const FFI_ArrowSchema;
    // SAFETY: the capsule is named `arrow_schema`, so by the PyCapsule protocol it points to
    // a valid FFI_ArrowSchema, which stays owned by the capsule while it is borrowed here.
    let ffi = unsafe { &*ptr };
    arrow_schema::Schema::try_from(ffi).map_err(from_arrow)
}

/// An error made without the GIL, turned into a Python exception once it is held again.
enum PyErrLater {
    Parquet(Error),
    /// The writer refused its options for the schema.
    Options(Error),
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
            PyErrLater::Options(e) => crate::errors::write_options_error(e),
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
    let mut options = MergeOptions::default().with_threads(threads);
    if let Some(rows) = row_group_rows {
        if rows == 0 {
            return Err(invalid("row_group_rows must be at least 1"));
        }
        options = options.with_row_group_rows(rows);
    }
    if let Some(name) = compression {
        options = options.with_compression(Compression::new(codec(name)?, compression_level));
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
