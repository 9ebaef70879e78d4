//! parquetry: fast Apache Parquet reading, writing and merging, with Arrow arrays as the
//! in-memory format.
//!
//! The crate is layered, and data flows one way through the layers:
//! [`format`] (Thrift, metadata, footer) → [`schema`] (the schema tree and its Arrow mapping)
//! → pages → encoding kernels → Arrow reading and writing → merging. A layer only uses the
//! layers before it.

#![forbid(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

mod alloc;
pub mod compress;
pub mod dataset;
pub mod encoding;
pub mod error;
pub mod filter;
pub mod format;
pub mod io;
pub mod merge;
pub mod page;
pub mod read;
pub mod schema;
#[cfg(feature = "object-store")]
pub mod store;
mod threads;
pub mod write;

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
