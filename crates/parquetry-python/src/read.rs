//! Reading: an opened file (`RawFile`, wrapped by Python's `parquetry.ParquetFile`), its
//! metadata as plain Python values, and readers exported as Arrow streams.

use std::fs::File;
use std::path::PathBuf;

use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use parquetry::format::{FileMetaData, KeyValue};
use parquetry::read::{ByteArrayType, ColumnSelector, ParquetFile, ParquetReaderBuilder, ReadOptions};
use parquetry::read::{BytesSource, FileSource};
use parquetry::store::{ObjectSource, StorageOptions};
use parquetry::Error;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use crate::errors::{invalid, type_error, IntoPy};
use crate::ffi::{ArrowSchema, ArrowStream, BoxedReader};

/// An opened file, by where its bytes are: an open file (reads are positional, so one handle
/// serves every reader), bytes in memory (pages are sliced from them without copies), or an
/// object in an object store (clones share its client and fetched bytes). A read clones the
/// `ParquetFile` (its handle, footer and schemas are shared, not copied or decoded again).
enum Source {
    File(ParquetFile<FileSource>),
    Bytes(ParquetFile<BytesSource>),
    Object(ParquetFile<ObjectSource>),
}

/// An opened Parquet file: its footer is decoded once; every read makes a new reader over the
/// same handle or bytes.
#[pyclass(module = "parquetry._parquetry", name = "RawFile", frozen)]
pub struct RawFile {
    source: Source,
}

impl RawFile {
    /// The decoded footer.
    fn footer(&self) -> &FileMetaData {
        match &self.source {
            Source::File(f) => f.metadata(),
            Source::Bytes(f) => f.metadata(),
            Source::Object(f) => f.metadata(),
        }
    }

    /// A reader with `options`; fails on an option that does not fit the file.
    fn reader(&self, options: ReadOptions) -> parquetry::Result<BoxedReader> {
        Ok(match &self.source {
            Source::File(f) => Box::new(ParquetReaderBuilder::new(f.clone()).with_options(options).build()?),
            Source::Bytes(f) => Box::new(ParquetReaderBuilder::new(f.clone()).with_options(options).build()?),
            Source::Object(f) => Box::new(ParquetReaderBuilder::new(f.clone()).with_options(options).build()?),
        })
    }
}

impl RawFile {
    /// Every batch `options` selects, and their schema.
    fn read_batches(&self, options: ReadOptions) -> parquetry::Result<(arrow_schema::SchemaRef, Vec<RecordBatch>)> {
        let mut reader = self.reader(options.with_reads_all(true))?;
        let schema = reader.schema();
        let batches = reader.by_ref().collect::<Result<Vec<_>, _>>().map_err(unwrap_arrow)?;
        Ok((schema, batches))
    }
}

/// Opens a file by path (`str` or `os.PathLike`, already turned into a path by the caller);
/// with `memory_map`, maps it (pyarrow's `memory_map=True`): pages are read from the page
/// cache without a `read` copy. As with pyarrow, a mapped file must not be truncated or
/// modified while its table is alive (a truncation is a `SIGBUS`).
#[pyfunction]
#[pyo3(signature = (path, memory_map=false))]
pub fn open_path(py: Python<'_>, path: PathBuf, memory_map: bool) -> PyResult<RawFile> {
    py.detach(|| {
        let mut file = File::open(&path).map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
        let source = match memory_map {
            // SAFETY: the caller asked for a memory map, whose contract (the file is neither
            // truncated nor modified while mapped) `memory_map=True` documents, as pyarrow's.
            true => unsafe { BytesSource::map(&file) }
                .and_then(|m| ParquetFile::from_bytes(m.bytes().clone()))
                .map(Source::Bytes),
            false => parquetry::format::read_metadata(&mut file)
                .and_then(|(metadata, _)| ParquetFile::with_source(FileSource::new(file)?, metadata))
                .map(Source::File),
        };
        Ok::<_, Error>(RawFile { source: source.map_err(|e| e.context(path.display()))? })
    })
    .py_err()
}

/// Opens the Parquet object at `url` (`s3://`, `gs://`, `az://`, `http(s)://`, `file://`)
/// with `storage_options` over the environment's settings: one request for the footer.
#[pyfunction]
#[pyo3(signature = (url, storage_options=None))]
pub fn open_url(py: Python<'_>, url: String, storage_options: Option<Vec<(String, String)>>) -> PyResult<RawFile> {
    let options: StorageOptions = storage_options.unwrap_or_default().into_iter().collect();
    py.detach(|| Ok::<_, Error>(RawFile { source: Source::Object(parquetry::store::open_url(&url, &options)?) }))
        .py_err()
}

/// The objects under the URL prefix `url` (a "folder", recursively) as `(url, size)` pairs,
/// sorted: what a dataset over an object store holds.
#[pyfunction]
#[pyo3(signature = (url, storage_options=None))]
pub fn list_url(
    py: Python<'_>,
    url: String,
    storage_options: Option<Vec<(String, String)>>,
) -> PyResult<Vec<(String, u64)>> {
    let options: StorageOptions = storage_options.unwrap_or_default().into_iter().collect();
    py.detach(|| parquetry::store::list(&url, &options)).py_err()
}

/// Deletes the objects under the URL prefix `url` (a "folder", recursively, by whole path
/// segments); returns their URLs, sorted. For `write_to_dataset`'s `delete_matching`.
#[pyfunction]
#[pyo3(signature = (url, storage_options=None))]
pub fn delete_url_prefix(
    py: Python<'_>,
    url: String,
    storage_options: Option<Vec<(String, String)>>,
) -> PyResult<Vec<String>> {
    let options: StorageOptions = storage_options.unwrap_or_default().into_iter().collect();
    py.detach(|| parquetry::store::delete_prefix(&url, &options)).py_err()
}

/// Opens a file held in memory: `bytes` or any object with the buffer protocol. The bytes
/// are copied once into an Arrow buffer (Python's memory may move or be freed with its object).
#[pyfunction]
pub fn open_bytes(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<RawFile> {
    let bytes: Vec<u8> = if let Ok(b) = data.cast::<PyBytes>() {
        b.as_bytes().to_vec()
    } else {
        // memoryview, bytearray, numpy arrays: through `bytes(...)`.
        let b = py.import("builtins")?.getattr("bytes")?.call1((data,))?;
        b.cast::<PyBytes>()?.as_bytes().to_vec()
    };
    py.detach(|| Ok::<_, Error>(RawFile { source: Source::Bytes(ParquetFile::from_bytes(Buffer::from(bytes))?) }))
        .py_err()
}

/// Turns the Python-side options into [`ReadOptions`]; `filter` is a condition in the text
/// form of `parquetry::filter::parse`, pushed down into the read.
#[allow(clippy::too_many_arguments)] // Python's keyword arguments, one by one.
pub(crate) fn options(
    columns: Option<&Bound<'_, PyList>>,
    filter: Option<&str>,
    row_groups: Option<Vec<usize>>,
    threads: usize,
    binary_type: Option<&str>,
    batch_size: usize,
    verify_crc: bool,
    int96_unit: Option<&str>,
) -> PyResult<ReadOptions> {
    let mut o = ReadOptions::default().with_threads(threads).with_batch_size(batch_size).with_verify_crc(verify_crc);
    if let Some(unit) = int96_unit {
        o = o.with_int96_unit(match unit {
            "s" => arrow_schema::TimeUnit::Second,
            "ms" => arrow_schema::TimeUnit::Millisecond,
            "us" => arrow_schema::TimeUnit::Microsecond,
            "ns" => arrow_schema::TimeUnit::Nanosecond,
            other => return Err(invalid(format!("unknown INT96 timestamp unit '{other}' (one of: s, ms, us, ns)"))),
        });
    }
    if let Some(f) = filter {
        o = o.with_filter(parquetry::filter::parse(f).py_err()?);
    }
    if let Some(columns) = columns {
        let mut selected = Vec::with_capacity(columns.len());
        for c in columns.iter() {
            selected.push(match c.extract::<usize>() {
                Ok(i) => ColumnSelector::Index(i),
                Err(_) => ColumnSelector::Name(
                    c.extract::<String>().map_err(|_| type_error("columns must be names (str) or positions (int)"))?,
                ),
            });
        }
        o = o.with_columns(selected);
    }
    if let Some(rg) = row_groups {
        o = o.with_row_groups(rg);
    }
    if let Some(t) = binary_type {
        o = o.with_byte_array_type(match t {
            "string" | "binary" | "regular" => ByteArrayType::Regular,
            "large_string" | "large_binary" | "large" => ByteArrayType::Large,
            "string_view" | "binary_view" | "view" => ByteArrayType::View,
            "dictionary" => ByteArrayType::Dictionary,
            other => {
                return Err(invalid(format!(
                    "unknown binary_type '{other}' (one of: binary, large_binary, binary_view, dictionary)"
                )))
            }
        });
    }
    Ok(o)
}

#[pymethods]
impl RawFile {
    /// `(requests, bytes)` an object store file fetched so far; `None` for other files.
    fn request_stats(&self) -> Option<(u64, u64)> {
        match &self.source {
            Source::Object(f) => Some((f.source().stats().requests(), f.source().stats().bytes())),
            _ => None,
        }
    }

    /// A lazy stream of batches: each batch is decoded when the consumer asks for it.
    /// `verify_crc` checks the CRC-32 of every page that has one. `filter` (a condition, see
    /// `parquetry::filter::parse`) keeps the matching rows, pruned and read selectively.
    #[pyo3(signature = (columns=None, row_groups=None, threads=1, binary_type=None, batch_size=65536, verify_crc=false, int96_unit=None, filter=None))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments, one by one.
    fn stream(
        &self,
        py: Python<'_>,
        columns: Option<Bound<'_, PyList>>,
        row_groups: Option<Vec<usize>>,
        threads: usize,
        binary_type: Option<&str>,
        batch_size: usize,
        verify_crc: bool,
        int96_unit: Option<&str>,
        filter: Option<&str>,
    ) -> PyResult<ArrowStream> {
        let o =
            options(columns.as_ref(), filter, row_groups, threads, binary_type, batch_size, verify_crc, int96_unit)?;
        Ok(ArrowStream::new(py.detach(|| self.reader(o)).py_err()?))
    }

    /// Reads everything selected (whole row groups per batch, so threads decode several row
    /// groups at once) with the GIL released, then hands the batches over as a stream.
    /// `filter` as in `stream`.
    #[pyo3(signature = (columns=None, row_groups=None, threads=1, binary_type=None, verify_crc=false, int96_unit=None, filter=None))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments, one by one.
    fn read_all(
        &self,
        py: Python<'_>,
        columns: Option<Bound<'_, PyList>>,
        row_groups: Option<Vec<usize>>,
        threads: usize,
        binary_type: Option<&str>,
        verify_crc: bool,
        int96_unit: Option<&str>,
        filter: Option<&str>,
    ) -> PyResult<ArrowStream> {
        let o =
            options(columns.as_ref(), filter, row_groups, threads, binary_type, usize::MAX, verify_crc, int96_unit)?;
        let (schema, batches) = py.detach(|| self.read_batches(o)).py_err()?;
        Ok(ArrowStream::from_batches(schema, batches))
    }

    /// For the zero-copy test: `read_all`, plus the addresses of every non-empty values and
    /// offsets buffer of the arrays read, as Rust holds them before the export. The test
    /// checks that pyarrow's buffers are at the same addresses (handed over, not copied).
    #[pyo3(signature = (columns=None, threads=1))]
    fn _read_all_with_addresses(
        &self,
        py: Python<'_>,
        columns: Option<Bound<'_, PyList>>,
        threads: usize,
    ) -> PyResult<(ArrowStream, Vec<usize>)> {
        let o = options(columns.as_ref(), None, None, threads, None, usize::MAX, false, None)?;
        let (schema, batches) = py.detach(|| self.read_batches(o)).py_err()?;
        let addresses = crate::ffi::batch_addresses(&batches);
        Ok((ArrowStream::from_batches(schema, batches), addresses))
    }

    /// The file's Arrow schema.
    fn schema(&self) -> ArrowSchema {
        ArrowSchema(match &self.source {
            Source::File(f) => f.arrow_schema(),
            Source::Bytes(f) => f.arrow_schema(),
            Source::Object(f) => f.arrow_schema(),
        })
    }

    /// Number of row groups.
    fn num_row_groups(&self) -> usize {
        self.footer().row_groups.len()
    }

    /// The schema elements only (cheap beside `metadata` for files with many row groups).
    fn schema_elements<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        crate::metadata::schema_elements(py, self.footer())
    }

    /// The footer's key/value metadata only, as a dict.
    fn key_value_metadata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        key_values(py, self.footer().key_value_metadata.as_deref())
    }

    /// The footer as plain Python values (see `parquetry.ParquetFile.metadata`).
    fn metadata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        crate::metadata::to_dict(py, self.footer())
    }
}

/// The reader's errors are `ArrowError::ExternalError(parquetry::Error)`; get the original
/// back so the Python exception has the right class.
fn unwrap_arrow(e: arrow_schema::ArrowError) -> Error {
    match e {
        arrow_schema::ArrowError::ExternalError(inner) => match inner.downcast::<Error>() {
            Ok(e) => *e,
            Err(other) => Error::corrupt(other.to_string()),
        },
        other => Error::corrupt(other.to_string()),
    }
}

/// `key_value_metadata` as a dict (a key without a value maps to `None`).
pub fn key_values<'py>(py: Python<'py>, kv: Option<&[KeyValue]>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for k in kv.unwrap_or_default() {
        d.set_item(&k.key, k.value.as_deref())?;
    }
    Ok(d)
}
