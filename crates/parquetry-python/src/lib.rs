//! The native half of the `parquetry` Python package (`parquetry._parquetry`).
//!
//! It is kept thin: files are opened, read, written and merged by the parquetry crate, and
//! Arrow data crosses into and out of Python through the Arrow PyCapsule interface (the C
//! data and C stream interfaces), so buffers are handed over, never copied. The Python half
//! (`python/parquetry/`) shapes the API after `pyarrow.parquet` and turns streams into
//! pyarrow objects.

mod dataset;
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

/// How long freed memory stays with the allocator before it goes back to the kernel (unless
/// `MIMALLOC_PURGE_DELAY` says otherwise): 10 s, jemalloc's default decay, where mimalloc's
/// own is 1 s. Memory the kernel takes back must be zeroed again on its next first touch, and
/// from Python a table is often freed and the next one read seconds later. With 1 s, the
/// Python bench (pyarrow and polars run between parquetry's calls) read strings_dict_none in
/// 243 ms on two threads instead of 89 ms, and wrote blobs_zstd in 44 ms instead of 26 ms.
const PURGE_DELAY_MS: std::ffi::c_long = 10_000;

fn keep_freed_memory() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets an option of the allocator this module links; mimalloc's options may
        // be set at any time, from any thread.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
    }
}

/// `mi_option_purge_delay` in mimalloc v3's `mi_option_t` (libmimalloc-sys does not name it).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// The number of cores, for `threads=True`.
#[pyfunction]
fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The module `parquetry._parquetry`.
#[pymodule]
fn _parquetry(m: &Bound<'_, PyModule>) -> PyResult<()> {
    keep_freed_memory();
    m.add_class::<ffi::ArrowStream>()?;
    m.add_class::<ffi::ArrowBatch>()?;
    m.add_class::<ffi::ArrowSchema>()?;
    m.add_class::<read::RawFile>()?;
    m.add_class::<write::NativeWriter>()?;
    m.add_class::<dataset::RawDataset>()?;
    m.add_function(wrap_pyfunction!(dataset::open_dataset, m)?)?;
    m.add_function(wrap_pyfunction!(dataset::compact, m)?)?;
    m.add_function(wrap_pyfunction!(dataset::compact_url, m)?)?;
    m.add_function(wrap_pyfunction!(dataset::compact_group, m)?)?;
    m.add_function(wrap_pyfunction!(dataset::compact_recover, m)?)?;
    m.add_function(wrap_pyfunction!(dataset::compact_group_url, m)?)?;
    m.add_function(wrap_pyfunction!(dataset::compact_recover_url, m)?)?;
    m.add_function(wrap_pyfunction!(read::open_path, m)?)?;
    m.add_function(wrap_pyfunction!(read::open_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(read::open_url, m)?)?;
    m.add_function(wrap_pyfunction!(read::list_url, m)?)?;
    m.add_function(wrap_pyfunction!(read::delete_url_prefix, m)?)?;
    m.add_function(wrap_pyfunction!(write::upload_file, m)?)?;
    m.add_function(wrap_pyfunction!(write::write_table, m)?)?;
    m.add_function(wrap_pyfunction!(write::merge, m)?)?;
    m.add_function(wrap_pyfunction!(metadata::edit_footer, m)?)?;
    m.add_function(wrap_pyfunction!(available_threads, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
