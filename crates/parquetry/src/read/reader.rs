//! The owning reader: a builder shaped like arrow-rs's `ParquetRecordBatchReaderBuilder`
//! and a reader that implements Arrow's [`RecordBatchReader`].
//!
//! A user of arrow-rs switches in one line, and the reader goes where Arrow readers go
//! (DataFusion-style consumers, the Arrow C stream interface, other threads): it owns its
//! file, is `Send` when the source is, and yields `ArrowError`s that wrap parquetry's
//! [`Error`] (downcast to get it back).

use std::path::Path;

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};

use super::batches::RecordBatchIter;
use super::file::ParquetFile;
use super::options::ReadOptions;
use crate::error::{Error, Result};
use crate::format::FileMetaData;
use crate::page::{BytesSource, ChunkSource, FileSource};

/// Configures a [`ParquetRecordBatchReader`], the one way to read a file: its
/// [`ReadOptions`] (projection, row groups, row selection, filter, batch size, output types,
/// threads) are given whole with [`with_options`](Self::with_options).
///
/// ```no_run
/// use parquetry::read::{ParquetReaderBuilder, ReadOptions};
/// let builder = ParquetReaderBuilder::open("data.parquet")?;
/// println!("{} rows", builder.metadata().num_rows);
/// let reader = builder.with_options(ReadOptions::default().with_columns(["id"]).with_batch_size(8_192)).build()?;
/// for batch in reader {
///     println!("{} rows", batch?.num_rows());
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ParquetReaderBuilder<S: ChunkSource> {
    file: ParquetFile<S>,
    options: ReadOptions,
}

impl ParquetReaderBuilder<FileSource> {
    /// Opens a file by path and reads its footer.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Ok(Self::new(ParquetFile::open(path)?))
    }
}

impl ParquetReaderBuilder<BytesSource> {
    /// Reads a file held in memory (pages are sliced from these bytes without a copy).
    pub fn from_bytes(bytes: impl Into<arrow_buffer::Buffer>) -> Result<Self> {
        Ok(Self::new(ParquetFile::from_bytes(bytes)?))
    }
}

impl<S: ChunkSource> ParquetReaderBuilder<S> {
    /// A builder over an opened file, with the default options (everything, 65,536-row
    /// batches, one thread).
    pub fn new(file: ParquetFile<S>) -> Self {
        ParquetReaderBuilder { file, options: ReadOptions::default() }
    }

    /// The file's metadata (footer), to plan a read.
    pub fn metadata(&self) -> &FileMetaData {
        self.file.metadata()
    }

    /// The file's Arrow schema (all columns, before any projection).
    pub fn schema(&self) -> SchemaRef {
        self.file.arrow_schema()
    }

    /// What to read and how: projection, row groups, row selection, filter, batch size,
    /// output types, threads (see [`ReadOptions`]). The options are one value rather than a
    /// second list of setters here, so that a dataset, the CLI or the Python package can
    /// carry them to each file they read; the last call wins.
    pub fn with_options(mut self, options: ReadOptions) -> Self {
        self.options = options;
        self
    }

    /// The reader. Fails if an option does not fit the file (a column or row group that does
    /// not exist, a row selection past its end, an output type a column cannot have).
    pub fn build(self) -> Result<ParquetRecordBatchReader<S>> {
        let batches = RecordBatchIter::new(self.file, self.options)?;
        Ok(ParquetRecordBatchReader { schema: batches.schema(), batches })
    }
}

/// Record batches of one file, owning it: an Arrow [`RecordBatchReader`].
pub struct ParquetRecordBatchReader<S: ChunkSource> {
    schema: SchemaRef,
    batches: RecordBatchIter<S>,
}

impl<S: ChunkSource> ParquetRecordBatchReader<S> {
    /// What a filtered read pruned and read so far (`None` without a filter).
    pub fn scan_metrics(&self) -> Option<&crate::filter::ScanMetrics> {
        self.batches.scan_metrics()
    }

    /// The next batch with parquetry's own error type (the `Iterator` gives `ArrowError`s).
    pub fn next_batch(&mut self) -> Option<Result<RecordBatch, Error>> {
        self.batches.next()
    }

    /// Has the source fetch what the read starts with (its first row groups) now, before
    /// any batch is asked for: a dataset over an object store names its next file's while
    /// the one before is read, instead of waiting a round trip at each file's start. A
    /// local file does nothing.
    pub fn name_ahead(&self) {
        self.batches.name_ahead();
    }

    /// Whether the read found a row group whose filter's second pass needed every page of
    /// the other columns (an object store only): a dataset then tells its next file.
    pub(crate) fn found_dense(&self) -> bool {
        self.batches.found_dense()
    }

    /// Takes the read's row groups to be as dense in pages as the file before found its own,
    /// and names ahead what it then fetches first (see [`name_ahead`](Self::name_ahead)).
    pub(crate) fn assume_dense(&self) {
        self.batches.assume_dense();
    }
}

impl<S: ChunkSource> Iterator for ParquetRecordBatchReader<S> {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.batches.next().map(|r| r.map_err(ArrowError::from))
    }
}

impl<S: ChunkSource> RecordBatchReader for ParquetRecordBatchReader<S> {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send<T: Send>() {}

    #[test]
    fn readers_over_files_and_bytes_are_send() {
        assert_send::<ParquetRecordBatchReader<FileSource>>();
        assert_send::<ParquetRecordBatchReader<BytesSource>>();
    }
}
