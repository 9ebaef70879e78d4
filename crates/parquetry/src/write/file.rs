//! The file writer: batches in, row groups and a footer out.
//!
//! Each batch is cut at row-group boundaries and each column of it goes to that column's
//! [`ColumnChunkWriter`], which encodes it into pages at once (column by column, never row by
//! row), on the writer's threads when it has several. When a row group closes, every chunk's
//! pages are written in column order, offsets are rebased to the file, and the metadata is
//! kept for the footer (`row_group`); the page index of every row group is written after the
//! last one, before the footer, as Arrow C++ and arrow-rs do.

use std::io::Write;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use super::column::ColumnChunkWriter;
use super::options::WriteOptions;
use super::schema::parquet_schema;
use crate::compress::Compressor;
use crate::error::{Error, Result};
use crate::format::{ColumnOrder, FileMetaData, KeyValue, SchemaElement};
use crate::page::{CompressorPool, PageBlocks, SpillFile};
use crate::schema::{encode_arrow_schema, ARROW_SCHEMA_KEY};

mod held;
mod row_group;

use row_group::Out;

/// Writes Arrow record batches as one Parquet file to any [`Write`] sink.
///
/// ```no_run
/// # use std::sync::Arc;
/// # use arrow_array::{ArrayRef, Int32Array, RecordBatch};
/// use parquetry::write::{ParquetWriter, WriteOptions};
/// use parquetry::compress::Codec;
/// # let batch = RecordBatch::try_from_iter([("a", Arc::new(Int32Array::from(vec![1, 2])) as ArrayRef)]).unwrap();
/// let options = WriteOptions::default().with_compression(Codec::Zstd);
/// // A file at a path: written beside it, renamed into place by `close` (any other `Write`
/// // sink goes to `ParquetWriter::try_new`).
/// let mut writer = ParquetWriter::create("out.parquet", batch.schema(), options)?;
/// writer.write(&batch)?;
/// writer.close()?;
/// # Ok::<(), parquetry::Error>(())
/// ```
pub struct ParquetWriter<W: Write> {
    out: Out<W>,
    schema: SchemaRef,
    elements: Vec<SchemaElement>,
    columns: Vec<ColumnChunkWriter>,
    options: WriteOptions,
    compressor: Compressor,
    open_rows: u64,
    failed: Option<String>,
    /// The threads of `WriteOptions::with_threads`, when more than one.
    pool: Option<std::sync::Arc<rayon::ThreadPool>>,
    /// The compressors the pool's tasks take and give back: about one per thread, so a
    /// wide schema does not hold a codec context per column.
    compressors: CompressorPool,
    /// Blocks of chunks already written, for the next column that writes pages.
    spare_blocks: PageBlocks,
    /// The open row group's input, for the columns that encode it only when it closes.
    held: held::Held,
    /// What the sink does once the footer is written (a [`NewFile`](super::NewFile) renames
    /// itself into place).
    commit: Option<fn(&mut W) -> Result<()>>,
}

impl<W: Write> ParquetWriter<W> {
    /// A writer of batches of `schema`; checks the options against the schema and writes the
    /// file's leading magic.
    pub fn try_new(sink: W, schema: SchemaRef, options: WriteOptions) -> Result<Self> {
        options.validate()?;
        let (elements, leaves) = parquet_schema(&schema, &options)?;
        for path in options.per_column.keys() {
            if !leaves.iter().any(|l| &l.path == path) {
                return Err(Error::invalid_argument(format!(
                    "write options name column '{path}', which the schema does not have"
                )));
            }
        }
        let mut columns =
            leaves.into_iter().map(|leaf| ColumnChunkWriter::new(leaf, &options)).collect::<Result<Vec<_>>>()?;
        // Threads pay where columns are compressed. Uncompressed pages are written by memory
        // copies (and dictionary encoding falls back to them past its page limit), which more
        // threads only hand over: from Python, strings_plain_none took 176 ms on two threads
        // against 152 on one, strings_dict_none 211 against 138.
        let busy = columns.iter().any(|c| c.codec() != crate::compress::Codec::Uncompressed);
        let pool = match options.threads {
            n if n > 1 && busy => Some(crate::threads::pool(n)?),
            _ => None,
        };
        let compressors = CompressorPool::default();
        let columns_len = columns.len();
        if pool.is_some() {
            columns.iter_mut().for_each(|c| c.defer_compression(compressors.clone()));
        }
        let writer = ParquetWriter {
            out: Out::new(sink)?,
            schema,
            elements,
            columns,
            options,
            compressor: Compressor::new(),
            open_rows: 0,
            failed: None,
            pool,
            compressors,
            spare_blocks: PageBlocks::default(),
            held: held::Held::new(columns_len),
            commit: None,
        };
        Ok(writer)
    }

    /// The Arrow schema the writer takes.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn check(&self) -> Result<()> {
        match &self.failed {
            Some(why) => {
                Err(Error::invalid_argument(format!("the writer failed earlier and takes no more writes ({why})")))
            }
            None => Ok(()),
        }
    }

    /// Runs `f`, and on error refuses every later write: a failed write may have left part of
    /// a row group behind, so the file can no longer be completed correctly.
    fn guard<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.check()?;
        let result = f(self);
        if let Err(e) = &result {
            self.failed = Some(e.message().to_owned());
        }
        result
    }

    /// Writes a batch; row groups are closed as they reach the row (or byte) limit.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.check()?;
        self.check_schema(batch)?;
        self.guard(|w| w.write_checked(batch))
    }

    fn check_schema(&self, batch: &RecordBatch) -> Result<()> {
        let (ours, theirs) = (self.schema.fields(), batch.schema_ref().fields());
        if ours.len() != theirs.len() {
            return Err(Error::invalid_argument(format!(
                "the batch has {} columns, the writer's schema {}",
                theirs.len(),
                ours.len()
            )));
        }
        for (a, b) in ours.iter().zip(theirs.iter()) {
            if a.name() != b.name() || a.data_type() != b.data_type() {
                return Err(Error::invalid_argument(format!(
                    "the batch's column '{}' ({}) differs from the writer's '{}' ({})",
                    b.name(),
                    b.data_type(),
                    a.name(),
                    a.data_type()
                )));
            }
        }
        Ok(())
    }

    fn write_checked(&mut self, batch: &RecordBatch) -> Result<()> {
        use arrow_schema::DataType as D;
        for (field, column) in self.schema.fields().iter().zip(batch.columns()) {
            if matches!(
                field.data_type(),
                D::Struct(_) | D::List(_) | D::LargeList(_) | D::FixedSizeList(..) | D::Map(..)
            ) {
                super::shred::check_structure(field.name(), column)?;
            }
        }
        let mut row = 0;
        let limit = self.options.row_group_rows as u64;
        while row < batch.num_rows() {
            let mut n = ((limit - self.open_rows) as usize).min(batch.num_rows() - row);
            if self.options.max_buffered_bytes.is_some() {
                // Check the bound every 65,536 rows, not once per (possibly huge) batch.
                n = n.min(65_536);
            }
            if self.open_rows + n as u64 >= limit {
                self.write_closing_slice(batch, row, n)?;
            } else {
                self.write_open_slice(batch, row, n)?;
                self.open_rows += n as u64;
            }
            row += n;
        }
        let buffered: usize =
            self.columns.iter().map(ColumnChunkWriter::buffered_bytes).sum::<usize>() + self.held.bytes();
        if self.open_rows > 0 && buffered >= self.options.row_group_bytes {
            self.flush_row_group()?;
        }
        Ok(())
    }

    /// Past `max_buffered_bytes`, moves every column's finished pages to the spill file.
    fn spill_if_over(&mut self) -> Result<()> {
        let Some(limit) = self.options.max_buffered_bytes else { return Ok(()) };
        let held: usize = self.columns.iter().map(ColumnChunkWriter::held_bytes).sum();
        if held <= limit {
            return Ok(());
        }
        if self.out.spill.is_none() {
            self.out.spill = Some(SpillFile::new()?);
        }
        if let Some(file) = self.out.spill.as_mut() {
            for column in &mut self.columns {
                column.spill(file)?;
            }
        }
        Ok(())
    }

    /// Ends the open row group (if it has rows), writing its column chunks.
    pub fn flush(&mut self) -> Result<()> {
        self.guard(|w| w.flush_row_group())
    }

    /// Ends the open row group like [`flush`](Self::flush), but when it has no rows writes
    /// a row group of none (each column chunk one empty data page, no statistics) where
    /// `flush` writes nothing: pyarrow's `ParquetWriter` writes one for every empty table it
    /// is given, and readers count it (`num_row_groups`).
    pub fn write_empty_row_group(&mut self) -> Result<()> {
        self.guard(|w| if w.open_rows == 0 && w.held.is_empty() { w.write_row_group() } else { w.flush_row_group() })
    }

    /// Adds a key/value entry to the footer, replacing an entry of the same key (pyarrow's
    /// `ParquetWriter.add_key_value_metadata`, which may come after rows are written).
    pub fn add_key_value(&mut self, key: impl Into<String>, value: impl Into<String>) {
        let key = key.into();
        self.options.key_value_metadata.retain(|kv| kv.key != key);
        self.options.key_value_metadata.push(crate::format::KeyValue { key, value: Some(value.into()) });
    }

    /// Rows in the row group not yet written.
    pub fn buffered_rows(&self) -> u64 {
        self.open_rows
    }

    /// Ends the file: the open row group, the page index and the footer. Returns the footer's
    /// metadata.
    pub fn close(self) -> Result<FileMetaData> {
        self.into_inner().map(|(_, meta)| meta)
    }

    /// Ends the file like [`ParquetWriter::close`] and gives back the sink.
    pub fn into_inner(mut self) -> Result<(W, FileMetaData)> {
        let meta = self.guard(|w| {
            w.flush_row_group()?;
            let meta = w.file_metadata();
            w.out.file.finish(w.options.page_index, meta)
        })?;
        let mut sink = self.out.file.into_sink();
        if let Some(commit) = self.commit {
            commit(&mut sink)?;
        }
        Ok((sink, meta))
    }

    /// The writer, with `commit` run on the sink after the footer.
    pub(super) fn with_commit(mut self, commit: fn(&mut W) -> Result<()>) -> Self {
        self.commit = Some(commit);
        self
    }

    /// The schema stored as `ARROW:schema`: the writer's, except that a dictionary column
    /// (at any depth) whose pages may be DELTA or BYTE_STREAM_SPLIT is stored as its value
    /// type, since pyarrow reads a dictionary type only from dictionary or PLAIN pages
    /// ("DecodeArrow of DictAccumulator ... not implemented"), even from its own files.
    fn hint_schema(&self) -> arrow_schema::Schema {
        // Leaves come in schema order, so a walk of the fields meets them in the same order.
        let mut leaves = self.columns.iter().map(ColumnChunkWriter::leaf);
        let fields: Vec<arrow_schema::FieldRef> =
            self.schema.fields().iter().map(|f| self.hint_field(f, &mut leaves)).collect();
        arrow_schema::Schema::new_with_metadata(fields, self.schema.metadata().clone())
    }

    fn hint_field<'l>(
        &self,
        field: &arrow_schema::FieldRef,
        leaves: &mut impl Iterator<Item = &'l super::schema::LeafColumn>,
    ) -> arrow_schema::FieldRef {
        use arrow_schema::{DataType as D, Field, Fields};
        use std::sync::Arc;
        let with = |t: D| Arc::new(field.as_ref().clone().with_data_type(t));
        match field.data_type() {
            D::Struct(children) => {
                with(D::Struct(children.iter().map(|c| self.hint_field(c, leaves)).collect::<Fields>()))
            }
            D::List(e) => with(D::List(self.hint_field(e, leaves))),
            D::LargeList(e) => with(D::LargeList(self.hint_field(e, leaves))),
            D::FixedSizeList(e, n) => with(D::FixedSizeList(self.hint_field(e, leaves), *n)),
            D::Map(entries, sorted) => with(D::Map(self.hint_field(entries, leaves), *sorted)),
            t => {
                let encoding = leaves.next().and_then(|l| self.options.column_options(&l.path).encoding);
                match (t, encoding) {
                    (D::Dictionary(_, value), Some(e)) if e != crate::format::Encoding::PLAIN => {
                        Arc::new(Field::clone(field).with_data_type(value.as_ref().clone()))
                    }
                    _ => field.clone(),
                }
            }
        }
    }

    /// The footer's metadata but for the row groups, which the file assembler fills in.
    fn file_metadata(&self) -> FileMetaData {
        let mut kv = self.options.key_value_metadata.clone();
        if self.options.store_arrow_schema && !kv.iter().any(|e| e.key == ARROW_SCHEMA_KEY) {
            kv.push(KeyValue {
                key: ARROW_SCHEMA_KEY.to_owned(),
                value: Some(encode_arrow_schema(&self.hint_schema())),
            });
        }
        FileMetaData {
            version: self.options.format_version,
            schema: self.elements.clone(),
            num_rows: 0,
            row_groups: Vec::new(),
            key_value_metadata: (!kv.is_empty()).then_some(kv),
            created_by: Some(self.options.created_by.clone()),
            column_orders: Some(vec![ColumnOrder::TypeDefined; self.columns.len()]),
            encryption_algorithm: None,
            footer_signing_key_metadata: None,
        }
    }
}
