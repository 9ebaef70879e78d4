//! Writing Parquet from Arrow: [`ParquetWriter`] takes record batches and writes a file to
//! any `Write` sink, or to a path safely ([`ParquetWriter::create`]: a temporary file beside
//! it, renamed into place only once complete); [`write_table`] writes batches to a path
//! that way at once.
//!
//! Layers, as for reading but in reverse: Arrow arrays are converted to physical values
//! (`arrow_input`), encoded by the kernels of `crate::encoding` (`encoder`), assembled into
//! pages by `crate::page::PageWriter` (`column`), and placed in the file with the footer and
//! page index (`file`). Nested columns (structs, lists, maps at any depth) map to Parquet
//! groups (`schema`) and each of their leaves is shredded into repetition and definition
//! levels (`shred`) before its values take the same path.

mod arrow_input;
mod bloom;
mod cdc;
mod column;
mod encoder;
mod file;
mod new_file;
mod options;
pub(crate) mod schema;
pub(crate) mod shred;
pub(crate) mod statistics;

pub use cdc::ContentDefinedChunking;
pub use file::ParquetWriter;
pub use new_file::NewFile;
pub use options::{
    writable_encoding, BloomFilterOptions, ColumnOptions, DataPageVersion, StatisticsLevel, WriteOptions,
    DEFAULT_BLOOM_FILTER_FPP, DEFAULT_DATA_PAGE_ROW_LIMIT, DEFAULT_DATA_PAGE_SIZE, DEFAULT_DICTIONARY_PAGE_SIZE_LIMIT,
    DEFAULT_ROW_GROUP_ROWS, DEFAULT_STATISTICS_TRUNCATE_LENGTH, WRITABLE_ENCODINGS,
};

use std::path::Path;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use crate::error::Result;
use crate::format::FileMetaData;

/// Writes `batches` (all of `schema`) to a Parquet file at `path`.
///
/// The file is written to a temporary file in the same directory and renamed to `path` only
/// when complete, so `path` never holds a partial file: on any error it is left as it was.
pub fn write_table<'b>(
    path: impl AsRef<Path>,
    schema: SchemaRef,
    batches: impl IntoIterator<Item = &'b RecordBatch>,
    options: WriteOptions,
) -> Result<FileMetaData> {
    new_file::write_batches(path.as_ref(), schema, batches, options)
}
