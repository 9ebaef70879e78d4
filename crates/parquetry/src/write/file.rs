//! The file writer: batches in, row groups and a footer out.
//!
//! Each batch is cut at row-group boundaries and each column of it goes to that column's
//! [`ColumnChunkWriter`], which encodes it into pages at once (column by column, never row by
//! row). When a row group closes, every chunk's pages are written in column order, offsets
//! are rebased to the file, and the metadata is kept for the footer; the page index of every
//! row group is written after the last one, before the footer, as Arrow C++ and arrow-rs do.

use std::io::Write;
use std::sync::Mutex;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use super::column::{ChunkResult, ColumnChunkWriter};
use super::options::WriteOptions;
use super::schema::parquet_schema;
use crate::compress::Compressor;
use crate::error::{Error, Result};
use crate::format::{
    encode_footer, encode_page_indexes, ColumnChunk, ColumnIndex, ColumnMetaData, ColumnOrder,
    CompressionCodec, FileMetaData, KeyValue, OffsetIndex, RowGroup, SchemaElement,
};
use crate::page::{PageBlocks, SpillFile};
use crate::schema::{encode_arrow_schema, ARROW_SCHEMA_KEY};

const MAGIC: &[u8; 4] = b"PAR1";

/// Writes Arrow record batches as one Parquet file to any [`Write`] sink.
///
/// ```no_run
/// # use std::sync::Arc;
/// # use arrow_array::{ArrayRef, Int32Array, RecordBatch};
/// use parquetry::write::{ParquetWriter, WriteOptions};
/// use parquetry::compress::Codec;
/// # let batch = RecordBatch::try_from_iter([("a", Arc::new(Int32Array::from(vec![1, 2])) as ArrayRef)]).unwrap();
/// let file = std::fs::File::create("out.parquet")?;
/// let options = WriteOptions::default().with_compression(Codec::Zstd);
/// let mut writer = ParquetWriter::try_new(file, batch.schema(), options)?;
/// writer.write(&batch)?;
/// writer.close()?;
/// # Ok::<(), parquetry::Error>(())
/// ```
pub struct ParquetWriter<W: Write> {
    sink: W,
    offset: u64,
    schema: SchemaRef,
    elements: Vec<SchemaElement>,
    columns: Vec<ColumnChunkWriter>,
    options: WriteOptions,
    compressor: Compressor,
    row_groups: Vec<RowGroup>,
    page_indexes: Vec<Vec<(Option<ColumnIndex>, Option<OffsetIndex>)>>,
    open_rows: u64,
    rows: u64,
    failed: Option<String>,
    spill: Option<SpillFile>,
    copy_buffer: Vec<u8>,
    /// The threads of `WriteOptions::with_threads`, when more than one.
    pool: Option<rayon::ThreadPool>,
    /// The compressors the pool's tasks take and give back: one per thread at most, so a
    /// wide schema does not hold a codec context per column.
    spare_compressors: Vec<Compressor>,
    /// Blocks of chunks already written, for the next column that writes pages.
    spare_blocks: PageBlocks,
}

/// A row group being written: where it starts and its chunks' metadata so far.
struct RowGroupParts {
    ordinal: usize,
    start: u64,
    chunks: Vec<ColumnChunk>,
    indexes: Vec<(Option<ColumnIndex>, Option<OffsetIndex>)>,
    uncompressed: u64,
    compressed: u64,
}

impl<W: Write> ParquetWriter<W> {
    /// A writer of batches of `schema`; checks the options against the schema and writes the
    /// file's leading magic.
    pub fn try_new(sink: W, schema: SchemaRef, options: WriteOptions) -> Result<Self> {
        options.validate()?;
        let (elements, leaves) = parquet_schema(&schema)?;
        for path in options.per_column.keys() {
            if !leaves.iter().any(|l| &l.path == path) {
                return Err(Error::invalid_argument(format!(
                    "write options name column '{path}', which the schema does not have"
                )));
            }
        }
        let columns = leaves
            .into_iter()
            .map(|leaf| ColumnChunkWriter::new(leaf, &options))
            .collect::<Result<Vec<_>>>()?;
        let pool = match options.threads.min(columns.len()) {
            0 | 1 => None,
            n => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .thread_name(|i| format!("parquetry-write-{i}"))
                    .build()
                    .map_err(|e| Error::io("starting the encoding threads", std::io::Error::other(e)))?,
            ),
        };
        let mut writer = ParquetWriter {
            sink,
            offset: 0,
            schema,
            elements,
            columns,
            options,
            compressor: Compressor::new(),
            row_groups: Vec::new(),
            page_indexes: Vec::new(),
            open_rows: 0,
            rows: 0,
            failed: None,
            spill: None,
            copy_buffer: Vec::new(),
            pool,
            spare_compressors: Vec::new(),
            spare_blocks: PageBlocks::default(),
        };
        writer.put(MAGIC)?;
        Ok(writer)
    }

    /// The Arrow schema the writer takes.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.sink.write_all(bytes).map_err(|e| Error::io(format!("writing at offset {}", self.offset), e))?;
        self.offset += bytes.len() as u64;
        Ok(())
    }

    fn check(&self) -> Result<()> {
        match &self.failed {
            Some(why) => Err(Error::invalid_argument(format!(
                "the writer failed earlier and takes no more writes ({why})"
            ))),
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
            if matches!(field.data_type(), D::Struct(_) | D::List(_) | D::LargeList(_) | D::FixedSizeList(..) | D::Map(..)) {
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
            if self.pool.is_none() && self.open_rows + n as u64 >= limit {
                self.write_closing_slice(batch, row, n)?;
                row += n;
                continue;
            }
            if self.pool.is_some() {
                let arrays: Vec<_> =
                    self.columns.iter().map(|c| batch.column(c.leaf().field).slice(row, n)).collect();
                self.on_threads(|i, column, compressor| column.write(&arrays[i], compressor))?;
                self.spill_if_over()?;
            } else {
                for i in 0..self.columns.len() {
                    self.columns[i].recycle(std::mem::take(&mut self.spare_blocks));
                    let array = batch.column(self.columns[i].leaf().field).slice(row, n);
                    self.columns[i].write(&array, &mut self.compressor)?;
                    self.spare_blocks.recycle(self.columns[i].take_spare_blocks());
                    self.spill_if_over()?;
                }
            }
            self.open_rows += n as u64;
            row += n;
            if self.open_rows >= limit {
                self.flush_row_group()?;
            }
        }
        let buffered: usize = self.columns.iter().map(ColumnChunkWriter::buffered_bytes).sum();
        if self.open_rows > 0 && buffered >= self.options.row_group_bytes {
            self.flush_row_group()?;
        }
        Ok(())
    }

    /// Runs `f` on every column on the pool's threads, each task with a compressor of its
    /// own, and returns the results in column order (the first error if any fails).
    fn on_threads<T: Send>(
        &mut self,
        f: impl Fn(usize, &mut ColumnChunkWriter, &mut Compressor) -> Result<T> + Sync,
    ) -> Result<Vec<T>> {
        use rayon::prelude::*;
        let Some(pool) = &self.pool else { unreachable!("on_threads is called only with a pool") };
        let spare = Mutex::new(std::mem::take(&mut self.spare_compressors));
        let take = || spare.lock().unwrap_or_else(|e| e.into_inner()).pop().unwrap_or_default();
        let give = |c| spare.lock().unwrap_or_else(|e| e.into_inner()).push(c);
        let columns = &mut self.columns;
        let results = pool.install(|| {
            columns
                .par_iter_mut()
                .enumerate()
                .with_max_len(1)
                .map(|(i, column)| {
                    let mut compressor = take();
                    let result = f(i, column, &mut compressor);
                    give(compressor);
                    result
                })
                .collect::<Result<Vec<T>>>()
        });
        self.spare_compressors = spare.into_inner().unwrap_or_else(|e| e.into_inner());
        results
    }

    /// Past `max_buffered_bytes`, moves every column's finished pages to the spill file.
    fn spill_if_over(&mut self) -> Result<()> {
        let Some(limit) = self.options.max_buffered_bytes else { return Ok(()) };
        let buffered: usize = self.columns.iter().map(ColumnChunkWriter::buffered_bytes).sum();
        if buffered <= limit {
            return Ok(());
        }
        if self.spill.is_none() {
            self.spill = Some(SpillFile::new()?);
        }
        if let Some(file) = self.spill.as_mut() {
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

    /// Rows in the row group not yet written.
    pub fn buffered_rows(&self) -> u64 {
        self.open_rows
    }

    fn flush_row_group(&mut self) -> Result<()> {
        if self.open_rows == 0 {
            return Ok(());
        }
        let mut group = self.begin_row_group();
        let rows = self.open_rows;
        let results: Vec<ChunkResult> = if self.pool.is_some() {
            self.on_threads(|_, column, compressor| column.finish_chunk(rows, compressor))
        } else {
            let compressor = &mut self.compressor;
            self.columns.iter_mut().map(|column| column.finish_chunk(rows, compressor)).collect()
        }
        .map_err(|e| e.context(format!("row group {}", group.ordinal)))?;
        for (i, result) in results.into_iter().enumerate() {
            self.put_chunk(i, result, &mut group)?;
        }
        self.end_row_group(group)
    }

    /// Writes the slice of `n` rows at `row` that closes the open row group, one thread:
    /// each column is encoded, finished and written before the next is encoded, so only one
    /// column's pages of the slice are held at a time and the next column writes into the
    /// same (already faulted-in) blocks.
    fn write_closing_slice(&mut self, batch: &RecordBatch, row: usize, n: usize) -> Result<()> {
        let mut group = self.begin_row_group();
        let rows = self.open_rows + n as u64;
        for i in 0..self.columns.len() {
            self.columns[i].recycle(std::mem::take(&mut self.spare_blocks));
            let array = batch.column(self.columns[i].leaf().field).slice(row, n);
            self.columns[i].write(&array, &mut self.compressor)?;
            self.spill_if_over()?;
            let result = self.columns[i]
                .finish_chunk(rows, &mut self.compressor)
                .map_err(|e| e.context(format!("row group {}", group.ordinal)))?;
            self.put_chunk(i, result, &mut group)?;
        }
        self.open_rows = rows;
        self.end_row_group(group)
    }

    fn begin_row_group(&self) -> RowGroupParts {
        RowGroupParts {
            ordinal: self.row_groups.len(),
            start: self.offset,
            chunks: Vec::with_capacity(self.columns.len()),
            indexes: Vec::with_capacity(self.columns.len()),
            uncompressed: 0,
            compressed: 0,
        }
    }

    /// Writes column `i`'s finished chunk at the current offset and keeps its metadata.
    fn put_chunk(&mut self, i: usize, result: ChunkResult, group: &mut RowGroupParts) -> Result<()> {
        let ordinal = group.ordinal;
        let chunk_start = self.offset;
        let pages = result.pages;
        self.put(&pages.dictionary)?;
        if let Some(file) = self.spill.as_mut() {
            for &segment in &pages.spilled {
                file.copy_to(segment, &mut self.sink, &mut self.copy_buffer).map_err(|e| {
                    e.context(format!("writing row group {ordinal} at offset {}", self.offset))
                })?;
                self.offset += segment.1;
            }
        }
        for block in pages.pages.blocks() {
            self.put(block)?;
        }
        // One thread hands the blocks on to whichever column writes next; threads write
        // columns at once, so each keeps its own.
        match self.pool {
            Some(_) => self.columns[i].recycle(pages.pages),
            None => {
                self.spare_blocks.recycle(pages.pages);
                self.spare_blocks.recycle(self.columns[i].take_spare_blocks());
            }
        }
        let leaf = self.columns[i].leaf();
        let data_page_offset = chunk_start as i64 + pages.dictionary.len() as i64;
        group.uncompressed += pages.uncompressed_size;
        group.compressed += pages.compressed_size;
        let meta = ColumnMetaData {
            physical_type: leaf.physical_type,
            encodings: pages.encodings.into(),
            path_in_schema: leaf.path_in_schema.clone().into(),
            codec: CompressionCodec(self.columns[i].codec().to_thrift()),
            num_values: pages.num_values as i64,
            total_uncompressed_size: pages.uncompressed_size as i64,
            total_compressed_size: pages.compressed_size as i64,
            data_page_offset,
            dictionary_page_offset: (!pages.dictionary.is_empty()).then_some(chunk_start as i64),
            statistics: result.statistics,
            encoding_stats: Some(pages.encoding_stats.into()),
            size_statistics: result.size_statistics,
            ..Default::default()
        };
        let mut locations = pages.locations;
        for l in &mut locations {
            l.offset += chunk_start as i64;
        }
        group.indexes.push((
            result.column_index,
            Some(OffsetIndex { page_locations: locations, unencoded_byte_array_data_bytes: result.page_byte_array_bytes }),
        ));
        group.chunks.push(ColumnChunk { file_offset: chunk_start as i64, meta_data: Some(meta), ..Default::default() });
        Ok(())
    }

    fn end_row_group(&mut self, group: RowGroupParts) -> Result<()> {
        let rows = self.open_rows;
        self.row_groups.push(RowGroup {
            columns: group.chunks,
            total_byte_size: group.uncompressed as i64,
            num_rows: rows as i64,
            sorting_columns: self.options.sorting_columns.clone(),
            file_offset: Some(group.start as i64),
            total_compressed_size: Some(group.compressed as i64),
            ordinal: i16::try_from(group.ordinal).ok(),
        });
        self.page_indexes.push(group.indexes);
        self.rows += rows;
        self.open_rows = 0;
        if let Some(file) = self.spill.as_mut() {
            file.reset()?;
        }
        Ok(())
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
            w.write_page_indexes()?;
            let meta = w.file_metadata();
            w.put(&encode_footer(&meta))?;
            w.sink.flush().map_err(|e| Error::io("flushing the file", e))?;
            Ok(meta)
        })?;
        Ok((self.sink, meta))
    }

    fn write_page_indexes(&mut self) -> Result<()> {
        let indexes = std::mem::take(&mut self.page_indexes);
        if self.options.page_index {
            let bytes = encode_page_indexes(self.offset, &mut self.row_groups, &indexes);
            self.put(&bytes)?;
        }
        Ok(())
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

    fn file_metadata(&mut self) -> FileMetaData {
        let mut kv = self.options.key_value_metadata.clone();
        if self.options.store_arrow_schema && !kv.iter().any(|e| e.key == ARROW_SCHEMA_KEY) {
            kv.push(KeyValue {
                key: ARROW_SCHEMA_KEY.to_owned(),
                value: Some(encode_arrow_schema(&self.hint_schema())),
            });
        }
        FileMetaData {
            version: 2,
            schema: self.elements.clone(),
            num_rows: self.rows as i64,
            row_groups: std::mem::take(&mut self.row_groups),
            key_value_metadata: (!kv.is_empty()).then_some(kv),
            created_by: Some(self.options.created_by.clone()),
            column_orders: Some(vec![ColumnOrder::TypeDefined; self.columns.len()]),
            encryption_algorithm: None,
            footer_signing_key_metadata: None,
        }
    }
}
