//! parquetry: fast Apache Parquet reading, writing and merging, with Arrow arrays as the
//! in-memory format.
//!
//! The public API is what an arrow-rs user looks for:
//! - [`read`]: [`read::ParquetReaderBuilder`] (the one way to read: it builds an Arrow
//!   `RecordBatchReader`), [`read::ParquetFile`] (an opened file and its metadata),
//!   [`read::ReadOptions`] (what to read, given to the builder whole);
//! - [`write`](mod@write): [`write::ParquetWriter`], [`write::write_table`], [`write::WriteOptions`];
//! - [`merge`]: files merged by copying pages, [`merge::MergeOptions`];
//! - [`filter`]: predicates pushed into reads; [`dataset`]: folders, globs and hive
//!   partitions; `store` (feature `object-store`): `s3://`, `gs://`, `az://`, `http(s)://`;
//! - the metadata: [`format`](mod@format) (the footer's structures), [`schema`], [`compress`]
//!   ([`compress::Compression`]: a codec and its level), and [`Error`].
//!
//! The internal layers (`page`, `encoding`, `io`, `format::thrift`, `read::values`) are
//! public only with the `experimental` feature, for the CLI, the Python package, the fuzz
//! targets and the benchmarks; they change with the internals.
//!
//! The crate is layered, and data flows one way through the layers:
//! [`format`](mod@format) (Thrift, metadata, footer) → [`schema`] (the schema tree and its
//! Arrow mapping) → pages → encoding kernels → Arrow reading and writing → merging. A layer
//! only uses the layers before it.

#![forbid(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

/// Declares the modules that are public only with the `experimental` feature: the page layer,
/// the encoding kernels and the output plumbing. The CLI, the Python package, the fuzz targets
/// and the benchmarks build on them; a user of the library reads, writes and merges through
/// the modules below, which stay stable while these change.
macro_rules! experimental_modules {
    ($($(#[$attr:meta])* $name:ident;)*) => {$(
        $(#[$attr])*
        #[cfg(feature = "experimental")]
        pub mod $name;
        $(#[$attr])*
        #[cfg(not(feature = "experimental"))]
        #[allow(dead_code, unused_imports)]
        pub(crate) mod $name;
    )*};
}

mod alloc;
pub mod compress;
pub mod dataset;
pub mod error;
pub mod filter;
pub mod format;
pub mod merge;
pub mod read;
pub mod schema;
#[cfg(feature = "object-store")]
pub mod store;
mod threads;
pub mod write;

experimental_modules! {
    encoding;
    io;
    page;
}

pub use error::{Error, ErrorKind, Result};

/// The Rust examples of the README and of `docs/rust.md`, compiled as doctests so that they
/// stay true.
#[cfg(doctest)]
mod readme_examples {
    #[doc = include_str!("../../../README.md")]
    struct Readme;
    #[doc = include_str!("../../../docs/rust.md")]
    struct RustGuide;
    #[doc = include_str!("../../../docs/datasets.md")]
    struct DatasetsGuide;
}
