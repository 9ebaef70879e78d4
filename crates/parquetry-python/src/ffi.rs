//! The Arrow PyCapsule interface both ways: exporting record batches to Python consumers
//! (pyarrow, polars, duckdb) and importing whatever they hand us, without copying buffers.
//!
//! Exported streams and arrays carry the Rust buffers themselves; the consumer releases them
//! through the C interface's `release` callback. The capsule names are fixed by the protocol
//! (`arrow_array_stream`, `arrow_schema`, `arrow_array`).

use std::ffi::CString;
use std::sync::{Arc, Mutex};

use arrow_array::ffi::{from_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use arrow_array::{Array, RecordBatch, RecordBatchIterator, RecordBatchReader, StructArray};
use arrow_schema::{ArrowError, SchemaRef};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};

use crate::errors::{from_arrow, invalid, type_error};

/// A reader of record batches that can cross threads (the consumer pulls batches with the
/// GIL released).
pub type BoxedReader = Box<dyn RecordBatchReader + Send>;

fn capsule_name(name: &str) -> CString {
    CString::new(name).expect("no NUL in a capsule name")
}

/// The addresses of the non-empty buffers of `batches` (for the zero-copy test).
pub fn batch_addresses(batches: &[RecordBatch]) -> Vec<usize> {
    let mut out = Vec::new();
    for batch in batches {
        batch.columns().iter().for_each(|c| collect_addresses(&c.to_data(), &mut out));
    }
    out
}

/// The addresses of the non-empty buffers of `data` and its children.
fn collect_addresses(data: &arrow_data::ArrayData, out: &mut Vec<usize>) {
    out.extend(data.buffers().iter().filter(|b| !b.is_empty()).map(|b| b.as_ptr() as usize));
    data.child_data().iter().for_each(|c| collect_addresses(c, out));
}

/// A one-shot stream of record batches: `__arrow_c_stream__` hands the whole stream to a
/// consumer (`pa.table(s)`, `pa.RecordBatchReader.from_stream(s)`, `polars.from_arrow`), or
/// `next_batch` hands out one batch at a time. Either way each batch is produced once.
#[pyclass(module = "parquetry._parquetry", name = "ArrowStream")]
pub struct ArrowStream {
    schema: SchemaRef,
    // A Mutex because pyo3 classes must be `Sync` and a reader is only `Send`.
    reader: Mutex<Option<BoxedReader>>,
}

impl ArrowStream {
    /// A stream over `reader`.
    pub fn new(reader: BoxedReader) -> Self {
        ArrowStream { schema: reader.schema(), reader: Mutex::new(Some(reader)) }
    }

    /// A stream over batches already in memory.
    pub fn from_batches(schema: SchemaRef, batches: Vec<RecordBatch>) -> Self {
        Self::new(Box::new(RecordBatchIterator::new(batches.into_iter().map(Ok), schema)))
    }

    fn take(&self) -> PyResult<BoxedReader> {
        self.reader
            .lock()
            .map_err(|_| invalid("the stream's reader panicked earlier"))?
            .take()
            .ok_or_else(|| invalid("this stream was already consumed (a reader can be read once)"))
    }
}

#[pymethods]
impl ArrowStream {
    /// Exports the stream as an `arrow_array_stream` PyCapsule (the Arrow PyCapsule
    /// interface). `requested_schema` is accepted and ignored: the protocol allows a producer
    /// to keep its own schema, and the consumer casts if it must.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let stream = FFI_ArrowArrayStream::new(self.take()?);
        // The capsule owns the struct; if no consumer moves it out, dropping it calls
        // `release` (FFI_ArrowArrayStream's Drop), as the protocol asks of the destructor.
        PyCapsule::new(py, stream, Some(capsule_name("arrow_array_stream")))
    }

    /// The stream's schema as an `arrow_schema` PyCapsule.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &self.schema)
    }

    /// The next batch (as an object with `__arrow_c_array__`), or `None` at the end. Decoding
    /// runs with the GIL released, and errors come as parquetry's exceptions.
    fn next_batch(&self, py: Python<'_>) -> PyResult<Option<ArrowBatch>> {
        let mut guard = self.reader.lock().map_err(|_| invalid("the stream's reader panicked earlier"))?;
        let Some(reader) = guard.as_mut() else {
            return Err(invalid("this stream was already consumed (a reader can be read once)"));
        };
        match py.detach(|| reader.next()) {
            Some(Ok(batch)) => Ok(Some(ArrowBatch(batch))),
            Some(Err(e)) => {
                *guard = None;
                Err(from_arrow(e))
            }
            None => Ok(None),
        }
    }
}

/// One record batch, exported through `__arrow_c_array__` (`pa.record_batch(b)`).
#[pyclass(module = "parquetry._parquetry", name = "ArrowBatch", frozen)]
pub struct ArrowBatch(RecordBatch);

#[pymethods]
impl ArrowBatch {
    /// `(arrow_schema, arrow_array)` capsules of the batch as a struct array.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema;
        let schema = schema_capsule(py, &self.0.schema())?;
        let data = StructArray::from(self.0.clone()).into_data();
        let array = PyCapsule::new(py, FFI_ArrowArray::new(&data), Some(capsule_name("arrow_array")))?;
        PyTuple::new(py, [schema.into_any(), array.into_any()])
    }

    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &self.0.schema())
    }
}

/// An Arrow schema, exported through `__arrow_c_schema__` (`pa.schema(s)`).
#[pyclass(module = "parquetry._parquetry", name = "ArrowSchema", frozen)]
pub struct ArrowSchema(pub SchemaRef);

#[pymethods]
impl ArrowSchema {
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &self.0)
    }
}

fn schema_capsule<'py>(py: Python<'py>, schema: &SchemaRef) -> PyResult<Bound<'py, PyCapsule>> {
    let ffi = FFI_ArrowSchema::try_from(schema.as_ref()).map_err(from_arrow)?;
    PyCapsule::new(py, ffi, Some(capsule_name("arrow_schema")))
}

/// The pointer a PyCapsule holds, checked to be named `name` (the PyCapsule protocol's
/// `arrow_schema`, `arrow_array`, `arrow_array_stream`).
pub(crate) fn checked_pointer<'a>(capsule: &Bound<'a, PyAny>, name: &str) -> PyResult<*mut std::ffi::c_void> {
    let capsule = capsule.cast::<PyCapsule>().map_err(|_| type_error(format!("expected a '{name}' PyCapsule")))?;
    let name = capsule_name(name);
    Ok(capsule.pointer_checked(Some(&name))?.as_ptr())
}

/// Takes the Arrow data of a Python object: its `__arrow_c_stream__` (pyarrow Table and
/// RecordBatchReader, polars DataFrame, ...) or else its `__arrow_c_array__` (a pyarrow
/// RecordBatch or struct array). The result pulls batches lazily from the producer: nothing
/// is materialised here.
pub fn import_reader(data: &Bound<'_, PyAny>) -> PyResult<BoxedReader> {
    if data.hasattr("__arrow_c_stream__")? {
        let capsule = data.call_method0("__arrow_c_stream__")?;
        let ptr = checked_pointer(&capsule, "arrow_array_stream")? as *mut FFI_ArrowArrayStream;
        // SAFETY: the capsule is named `arrow_array_stream`, so by the PyCapsule protocol it
        // points to a valid FFI_ArrowArrayStream. `from_raw` moves the struct out and marks
        // the capsule's copy released, so the capsule's destructor will not release it again.
        let stream = unsafe { FFI_ArrowArrayStream::from_raw(ptr) };
        let reader = RecordBatchStreamReader::try_new(stream).map_err(from_arrow)?;
        return Ok(Box::new(reader));
    }
    if data.hasattr("__arrow_c_array__")? {
        let pair = data.call_method0("__arrow_c_array__")?;
        let (schema_capsule, array_capsule): (Bound<'_, PyAny>, Bound<'_, PyAny>) = pair.extract()?;
        let schema_ptr = checked_pointer(&schema_capsule, "arrow_schema")? as *const FFI_ArrowSchema;
        let array_ptr = checked_pointer(&array_capsule, "arrow_array")? as *mut FFI_ArrowArray;
        // SAFETY: by the protocol the capsules point to a valid schema and array. The array
        // is moved out (its `release` left null in the capsule, so the capsule's destructor
        // does nothing); the schema is only borrowed and stays owned by its capsule.
        let (array, schema) = unsafe { (std::ptr::replace(array_ptr, FFI_ArrowArray::empty()), &*schema_ptr) };
        // SAFETY: `array` and `schema` describe the same data (they come as one pair).
        let data = unsafe { from_ffi(array, schema) }.map_err(from_arrow)?;
        let arrow_schema::DataType::Struct(_) = data.data_type() else {
            return Err(PyValueError::new_err(format!(
                "__arrow_c_array__ gave a {} array; a table needs a struct array (a record batch)",
                data.data_type()
            )));
        };
        let ffi_schema = arrow_schema::Field::try_from(schema).map_err(from_arrow)?;
        let batch = RecordBatch::from(StructArray::from(data));
        let schema = Arc::new(batch.schema().as_ref().clone().with_metadata(ffi_schema.metadata().clone()));
        let batch = batch.with_schema(schema.clone()).map_err(from_arrow)?;
        return Ok(Box::new(RecordBatchIterator::new([Ok::<_, ArrowError>(batch)], schema)));
    }
    Err(type_error(format!(
        "expected Arrow data (an object with __arrow_c_stream__ or __arrow_c_array__, such as a \
         pyarrow Table or a polars DataFrame), got {}",
        data.get_type().name()?
    )))
}
