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
pub mod error;
pub mod format;
pub mod compress;
pub mod encoding;
pub mod page;
pub mod read;
pub mod schema;
pub mod temp;
mod threads;
pub mod write;
pub mod merge;
pub mod filter;

pub use error::{Error, ErrorKind, Result};
