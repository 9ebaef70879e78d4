//! The owning reader: a builder shaped like arrow-rs's `ParquetRecordBatchReaderBuilder`
//! and a reader that implements Arrow's [`RecordBatchReader`].
//!
//! A user of arrow-rs switches in one line, and the reader goes where Arrow readers go
//! (DataFusion-style consumers, the Arrow C stream interface, other threads): it owns its
//! file, is `Send` when the source is, and yields `ArrowError`s that wrap parquetry's
//! [`Error`] (downcast to get it back).

use std::ops::Range;
use std::path::Path;

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};

use super::batches::RecordBatchIter;
use super::file::ParquetFile;
use super::options::{ByteArrayType, ColumnSelector, ReadOptions};
use crate::error::{Error, Result};
use crate::format::FileMetaData;
use crate::page::{BytesSource, ChunkSource, FileSource};

/// Configures a [`ParquetRecordBatchReader`]: projection, row groups, row selection, batch
/// size, output types, threads.
pub struct ParquetReaderBuilder<S: ChunkSource + 'static> {
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

impl<S: ChunkSource + 'static> ParquetReaderBuilder<S> {
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

    /// Rows per batch (the last batch of each row group may be shorter).
    pub fn with_batch_size(mut self, rows: usize) -> Self {
        self.options = self.options.with_batch_size(rows);
        self
    }

    /// Reads only these top-level columns, by name or position, in this order.
    pub fn with_columns<C: Into<ColumnSelector>>(mut self, columns: impl IntoIterator<Item = C>) -> Self {
        self.options = self.options.with_columns(columns);
        self
    }

    /// Reads only these row groups, in this order.
    pub fn with_row_groups(mut self, row_groups: impl IntoIterator<Item = usize>) -> Self {
        self.options = self.options.with_row_groups(row_groups);
        self
    }

    /// Reads only these rows (see [`ReadOptions::with_row_selection`]).
    pub fn with_row_selection(mut self, ranges: impl IntoIterator<Item = Range<u64>>) -> Self {
        self.options = self.options.with_row_selection(ranges);
        self
    }

    /// Reads every string and binary column as this Arrow type.
    pub fn with_byte_array_type(mut self, t: ByteArrayType) -> Self {
        self.options = self.options.with_byte_array_type(t);
        self
    }

    /// Decodes up to `threads` column chunks at once.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.options = self.options.with_threads(threads);
        self
    }

    /// Checks page CRCs where the writer stored them.
    pub fn with_verify_crc(mut self, verify: bool) -> Self {
        self.options = self.options.with_verify_crc(verify);
        self
    }

    /// Returns only the rows where `predicate` is true (see [`ReadOptions::with_filter`]).
    pub fn with_filter(mut self, predicate: crate::filter::Predicate) -> Self {
        self.options = self.options.with_filter(predicate);
        self
    }

    /// Replaces every option at once.
    pub fn with_options(mut self, options: ReadOptions) -> Self {
        self.options = options;
        self
    }

    /// The reader. Fails if an option does not fit the file (a column or row group that does
    /// not exist, a row selection past its end, an output type a column cannot have).
    pub fn build(self) -> Result<ParquetRecordBatchReader<S>> {
        let batches = self.file.into_batches(self.options)?;
        Ok(ParquetRecordBatchReader { schema: batches.schema(), batches })
    }
}

/// Record batches of one file, owning it: an Arrow [`RecordBatchReader`].
pub struct ParquetRecordBatchReader<S: ChunkSource + 'static> {
    schema: SchemaRef,
    batches: RecordBatchIter<'static, S>,
}

impl<S: ChunkSource + 'static> ParquetRecordBatchReader<S> {
    /// What a filtered read pruned and read so far (`None` without a filter).
    pub fn scan_metrics(&self) -> Option<&crate::filter::ScanMetrics> {
        self.batches.scan_metrics()
    }

    /// The next batch with parquetry's own error type (the `Iterator` gives `ArrowError`s).
    pub fn next_batch(&mut self) -> Option<Result<RecordBatch, Error>> {
        self.batches.next()
    }
}

impl<S: ChunkSource + 'static> Iterator for ParquetRecordBatchReader<S> {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.batches.next().map(|r| r.map_err(ArrowError::from))
    }
}

impl<S: ChunkSource + 'static> RecordBatchReader for ParquetRecordBatchReader<S> {
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
