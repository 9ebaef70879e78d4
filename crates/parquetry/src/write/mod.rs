//! Writing Parquet from Arrow: [`ParquetWriter`] takes record batches and writes a file to
//! any `Write` sink; [`write_table`] writes batches to a path safely (a temporary file beside
//! it, renamed into place only once complete).
//!
//! Layers, as for reading but in reverse: Arrow arrays are converted to physical values
//! (`arrow_input`), encoded by the kernels of [`crate::encoding`] (`encoder`), assembled into
//! pages by [`crate::page::PageWriter`] (`column`), and placed in the file with the footer and
//! page index (`file`). Nested columns (structs, lists, maps at any depth) map to Parquet
//! groups (`schema`) and each of their leaves is shredded into repetition and definition
//! levels (`shred`) before its values take the same path.

mod arrow_input;
mod behind;
mod column;
mod encoder;
mod file;
mod options;
pub(crate) mod schema;
pub(crate) mod shred;
pub(crate) mod statistics;

pub use behind::WriteBehind;
pub use file::ParquetWriter;
pub use options::{
    ColumnOptions, DataPageVersion, StatisticsLevel, WriteOptions, DEFAULT_DATA_PAGE_ROW_LIMIT,
    DEFAULT_DATA_PAGE_SIZE, DEFAULT_DICTIONARY_PAGE_SIZE_LIMIT, DEFAULT_ROW_GROUP_ROWS,
    DEFAULT_STATISTICS_TRUNCATE_LENGTH, WRITABLE_ENCODINGS, writable_encoding,
};
pub use crate::temp::TempFile;

use std::path::Path;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use crate::error::Result;
use crate::format::FileMetaData;

/// Writes `batches` (all of `schema`) to a Parquet file at `path`.
///
/// The file is written to a temporary file in the same directory and renamed to `path` only
/// when complete, so `path` never holds a partial file: on any error it is left as it was.
/// With more than one thread in `options`, the file is written by a thread of its own
/// ([`WriteBehind`]) while the next columns are encoded.
pub fn write_table<'b>(
    path: impl AsRef<Path>,
    schema: SchemaRef,
    batches: impl IntoIterator<Item = &'b RecordBatch>,
    options: WriteOptions,
) -> Result<FileMetaData> {
    let path = path.as_ref();
    let temp = TempFile::beside(path)?;
    let sink = TableSink::new(temp.file()?, options.threads > 1)?;
    let mut writer = ParquetWriter::try_new(sink, schema, options)?;
    for batch in batches {
        writer.write(batch)?;
    }
    let (sink, meta) = writer.into_inner()?;
    let file = sink.into_file()?;
    file.sync_all().map_err(|e| crate::Error::io(format!("syncing {}", temp.path().display()), e))?;
    drop(file);
    temp.persist(path)?;
    Ok(meta)
}

/// The sink of a file written whole: buffered, and written behind on a thread of its own
/// when the writer may use more than one.
pub enum TableSink {
    /// Buffered on the caller's thread.
    Buffered(std::io::BufWriter<std::fs::File>),
    /// Written on a thread of its own.
    Behind(WriteBehind<std::fs::File>),
}

impl TableSink {
    /// A sink for `file`; `behind` writes it on a thread of its own.
    pub fn new(file: std::fs::File, behind: bool) -> Result<Self> {
        Ok(if behind {
            TableSink::Behind(
                WriteBehind::new(file).map_err(|e| crate::Error::io("starting the write-behind thread", e))?,
            )
        } else {
            TableSink::Buffered(std::io::BufWriter::with_capacity(1 << 20, file))
        })
    }

    /// Writes what is buffered and returns the file.
    pub fn into_file(self) -> Result<std::fs::File> {
        match self {
            TableSink::Buffered(b) => b.into_inner().map_err(|e| crate::Error::io("flushing the file", e.into_error())),
            TableSink::Behind(b) => b.into_inner().map_err(|e| crate::Error::io("writing the file", e)),
        }
    }
}

impl std::io::Write for TableSink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        match self {
            TableSink::Buffered(b) => b.write(bytes),
            TableSink::Behind(b) => b.write(bytes),
        }
    }

    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match self {
            TableSink::Buffered(b) => b.write_all(bytes),
            TableSink::Behind(b) => b.write_all(bytes),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            TableSink::Buffered(b) => b.flush(),
            TableSink::Behind(b) => b.flush(),
        }
    }
}
