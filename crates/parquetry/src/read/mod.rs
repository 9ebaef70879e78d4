//! Reading Parquet into Arrow: the file reader API, and the column readers that turn pages
//! into Arrow arrays.
//!
//! [`ParquetFile`] opens a file and holds its metadata; [`ParquetReaderBuilder`] takes it
//! (or opens one) with [`ReadOptions`] and builds a [`ParquetRecordBatchReader`], an Arrow
//! `RecordBatchReader`: the one way to read. Inside, each selected column has a `ColumnReader` that walks its chunk's pages,
//! decompresses them, decodes definition levels into validity bits, and hands the values to
//! a `values::ValueDecoder` for the output type.

mod assemble;
mod batches;
mod bits;
pub(crate) mod byte_array;
mod column;
mod data_page;
mod file;
pub(crate) mod fixed;
mod leaf;
mod leaf_type;
pub(crate) mod levels;
mod nested;
mod offset_index;
mod options;
mod reader;
experimental_modules! {
    page_values;
    values;
}
mod records;
mod selection;
mod spread;

/// Where a file's bytes come from: a local file, memory, any `Read + Seek`, or (feature
/// `object-store`) an object store's `ObjectSource`; [`ParquetFile`] is generic over it.
pub use crate::page::{BytesSource, ChunkSource, FileSource, ReaderSource};
pub use file::ParquetFile;
pub(crate) use leaf_type::narrow_decimal;
pub use options::{ByteArrayType, ColumnSelector, ReadOptions};
pub(crate) use options::{DictionaryMask, MaskedLeaf};
pub use reader::{ParquetReaderBuilder, ParquetRecordBatchReader};
pub(crate) use selection::Step;
