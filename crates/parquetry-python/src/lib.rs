//! The native half of the `parquetry` Python package (`parquetry._parquetry`).
//!
//! It is kept thin: files are opened, read, written and merged by the parquetry crate, and
//! Arrow data crosses into and out of Python through the Arrow PyCapsule interface (the C
//! data and C stream interfaces), so buffers are handed over, never copied. The Python half
//! (`python/parquetry/`) shapes the API after `pyarrow.parquet` and turns streams into
//! pyarrow objects.

mod errors;
mod ffi;
mod metadata;
mod read;
mod write;

use pyo3::prelude::*;

/// Every Rust allocation of the extension (Arrow buffers handed to Python included: they are
/// freed by their release callback, in Rust, through this same allocator).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The number of cores, for `threads=True`.
#[pyfunction]
fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The module `parquetry._parquetry`.
#[pymodule]
fn _parquetry(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ffi::ArrowStream>()?;
    m.add_class::<ffi::ArrowBatch>()?;
    m.add_class::<ffi::ArrowSchema>()?;
    m.add_class::<read::RawFile>()?;
    m.add_function(wrap_pyfunction!(read::open_path, m)?)?;
    m.add_function(wrap_pyfunction!(read::open_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(write::write_table, m)?)?;
    m.add_function(wrap_pyfunction!(write::merge, m)?)?;
    m.add_function(wrap_pyfunction!(available_threads, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
