//! One column chunk being written: Arrow arrays in, pages out.
//!
//! An array is cut into steps that fit the open data page (by rows, and by value bytes where
//! they are known up front: offsets give a page's PLAIN size by a binary search, so byte-array
//! pages end near the limit even with 50 KB values). Each step writes its definition levels
//! straight from the validity bitmap and hands its valid runs of rows to the encoder. A page
//! closes when full; a dictionary that passes its limit closes the page, writes the dictionary
//! page and switches the rest of the chunk to the fallback encoding, as Arrow C++ does.
//!
//! A leaf under nested fields is shredded into levels first and written in steps of whole
//! records (`nested`); flat columns never take that path.

mod chunk_statistics;
mod nested;
mod page_fill;

use crate::page::level_bit_width;
use arrow_array::cast::AsArray;
use arrow_array::downcast_dictionary_array;
use arrow_array::{Array, ArrayRef};
use arrow_buffer::bit_iterator::BitSliceIterator;
use arrow_buffer::ArrowNativeType;
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;

use super::arrow_input::{check_value_lengths, put_valid_range, Scratch};
use super::bloom::BloomFilterWriter;
use super::encoder::{Dictionary, ValueEncoder};
use super::options::{ColumnOptions, WriteOptions};
use super::schema::LeafColumn;
use super::shred::Shredded;
use crate::compress::Compressor;
use crate::encoding::dictionary::DictionaryMap;
use crate::encoding::rle::RleEncoder;
use crate::error::{Error, Result};
use crate::format::{ColumnIndex, Encoding, PhysicalType, SizeStatistics, SplitBlockBloomFilter, Statistics};
use crate::page::{DataPage, DataPageVersion, FinishedChunk, PageWriter};
use chunk_statistics::{ChunkStatistics, PageCounts};

/// What a finished chunk hands to the file writer besides its pages.
#[derive(Debug)]
pub(crate) struct ChunkResult {
    pub pages: FinishedChunk,
    pub statistics: Option<Statistics>,
    pub size_statistics: Option<SizeStatistics>,
    pub column_index: Option<ColumnIndex>,
    /// Per page BYTE_ARRAY value bytes, for the OffsetIndex.
    pub page_byte_array_bytes: Option<Vec<i64>>,
    /// The chunk's bloom filter, when the column has them.
    pub bloom_filter: Option<SplitBlockBloomFilter>,
}

/// Writes one leaf column's chunks, one row group after another.
#[derive(Debug)]
pub(crate) struct ColumnChunkWriter {
    leaf: LeafColumn,
    options: ColumnOptions,
    page_size: usize,
    page_row_limit: usize,
    pages: PageWriter,
    encoder: ValueEncoder,
    definition_levels: RleEncoder,
    repetition_levels: RleEncoder,
    /// Records in the open page (rows of a flat column).
    page_rows: usize,
    /// Level entries in the open page (the page's `num_values`; rows of a flat column).
    page_values: usize,
    /// Entries without a value (definition level below the maximum).
    page_nulls: usize,
    shredded: Shredded,
    /// Bounds, null counts, level histograms and byte sizes of the open page and chunk.
    statistics: ChunkStatistics,
    /// An input dictionary already interned: the array and each of its values' index.
    dictionary_map: Option<(ArrayRef, DictionaryMap)>,
    /// The dictionary page's size after the chunk's first input dictionary (0 without one).
    dictionary_floor: usize,
    /// Content-defined page cuts, when asked (flat columns).
    chunker: Option<super::cdc::Chunker>,
    scratch: Scratch,
    levels: Vec<u8>,
    rep_levels: Vec<u8>,
    values: Vec<u8>,
}

impl ColumnChunkWriter {
    /// A writer for `leaf` with the file's options; refuses encodings that do not fit.
    pub fn new(leaf: LeafColumn, options: &WriteOptions) -> Result<Self> {
        let column = options.column_options(&leaf.path).clone();
        let v2 = options.data_page_version == DataPageVersion::V2;
        let fallback = match column.encoding {
            Some(e) => e,
            None if v2 && leaf.physical_type == PhysicalType::BOOLEAN => Encoding::RLE,
            None => Encoding::PLAIN,
        };
        let dictionary = column.dictionary && leaf.physical_type != PhysicalType::BOOLEAN;
        // An `ndv` not given is the row group row limit (as Arrow C++), at most the default
        // limit: a writer bounded by bytes alone would otherwise start every chunk at 128 MiB.
        let default_ndv = options.row_group_rows.min(super::options::DEFAULT_ROW_GROUP_ROWS) as u64;
        let bloom = column.bloom_filter.map(|b| BloomFilterWriter::new(&b, default_ndv));
        let encoder = ValueEncoder::new(leaf.physical_type, leaf.type_length, dictionary, fallback)
            .map_err(|e| e.context(format!("column '{}'", leaf.path)))?
            .with_bloom_filter(bloom);
        if options.content_defined_chunking.is_some() && !leaf.nesting.is_empty() {
            let what = format!("column '{}': content-defined chunking of nested columns", leaf.path);
            return Err(Error::unsupported(what));
        }
        Ok(ColumnChunkWriter {
            pages: PageWriter::new(column.codec, column.level, options.data_page_version, options.crc),
            page_size: options.data_page_size,
            page_row_limit: options.data_page_row_limit,
            encoder,
            // At least one bit, as flat columns have always been written.
            definition_levels: RleEncoder::new(level_bit_width(leaf.max_def_level.max(1))),
            repetition_levels: RleEncoder::new(level_bit_width(leaf.max_rep_level.max(1))),
            page_rows: 0,
            page_values: 0,
            page_nulls: 0,
            shredded: Shredded::default(),
            statistics: ChunkStatistics::new(&leaf, &column, options),
            dictionary_map: None,
            dictionary_floor: 0,
            chunker: options.content_defined_chunking.as_ref().map(super::cdc::Chunker::new),
            scratch: Scratch::default(),
            levels: Vec::new(),
            rep_levels: Vec::new(),
            values: Vec::new(),
            options: column,
            leaf,
        })
    }

    /// The leaf this writer writes.
    pub fn leaf(&self) -> &LeafColumn {
        &self.leaf
    }

    /// Moves the chunk's finished data pages to `file` (see [`PageWriter::spill`]).
    pub fn spill(&mut self, file: &mut crate::page::SpillFile) -> Result<()> {
        self.pages.spill(file)
    }

    /// Gives back a written chunk's page buffer for the next chunk.
    pub fn recycle(&mut self, blocks: crate::page::PageBlocks) {
        self.pages.recycle(blocks);
    }

    /// Whether the chunk's pages so far may be written to the file now, before the chunk ends:
    /// not while a dictionary is being built (its page comes first), nor after a spill.
    pub fn can_drain(&self) -> bool {
        !self.encoder.is_dictionary() && !self.pages.has_spilled()
    }

    /// Moves out the chunk's pages so far, to be written before the rest of the chunk (see
    /// [`PageWriter::drain_blocks`]).
    pub fn drain_blocks(&mut self) -> Result<(Vec<u8>, crate::page::PageBlocks)> {
        self.pages.drain_blocks()
    }

    /// Compresses this column's pages a batch at a time on the threads of the pool that calls
    /// it, with compressors from `compressors` (see [`PageWriter::defer_compression`]).
    pub fn defer_compression(&mut self, compressors: crate::page::CompressorPool) {
        self.pages.defer_compression(compressors);
    }

    /// Moves out the page blocks this writer holds but does not use.
    pub fn take_spare_blocks(&mut self) -> crate::page::PageBlocks {
        self.pages.take_spare_blocks()
    }

    /// The codec of the column's pages.
    pub fn codec(&self) -> crate::compress::Codec {
        self.pages.codec()
    }

    /// Bytes of the chunk's pages so far, plus the open page and dictionary (estimated).
    pub fn buffered_bytes(&self) -> usize {
        self.pages.buffered_bytes() + self.encoder.estimated_len() + self.encoder.dictionary_page_len()
    }

    /// Memory the column's pages take, for the memory bound: like
    /// [`buffered_bytes`](Self::buffered_bytes), with the pages' buffers counted whole.
    pub fn held_bytes(&self) -> usize {
        self.pages.held_bytes() + self.encoder.estimated_len() + self.encoder.dictionary_page_len()
    }

    /// Writes every row of `column` (this leaf's top-level column of one batch slice).
    pub fn write(&mut self, column: &ArrayRef, compressor: &mut Compressor) -> Result<()> {
        if !self.leaf.nesting.is_empty() {
            return self.write_nested(column, compressor);
        }
        let array = column.as_ref();
        let nulls = match array.data_type() {
            DataType::Dictionary(..) | DataType::Null => array.logical_nulls(),
            _ => array.nulls().cloned(),
        };
        if self.leaf.max_def_level == 0 && nulls.as_ref().is_some_and(|n| n.null_count() > 0) {
            return Err(Error::invalid_argument(format!(
                "column '{}' is not nullable but the batch has nulls in it",
                self.leaf.path
            )));
        }
        let dictionary_input = matches!(array.data_type(), DataType::Dictionary(..));
        let nullable = self.leaf.max_def_level > 0;
        let cuts = self.chunker.as_mut().map(|c| c.cuts(array, nulls.as_ref(), nullable)).transpose()?;
        let mut cuts = cuts.unwrap_or_default().into_iter().peekable();
        let mut row = 0;
        while row < array.len() {
            let rows_left = (self.page_row_limit - self.page_rows.min(self.page_row_limit)).max(1);
            let bytes_left = self.page_size.saturating_sub(self.encoder.estimated_len());
            let max_rows = rows_left.min(cuts.peek().unwrap_or(&array.len()) - row);
            let n = self.rows_fit(array, row, max_rows, bytes_left).max(1);
            self.write_rows(array, nulls.as_ref(), dictionary_input, row, row + n)?;
            row += n;
            self.end_step(compressor, 0)?;
            if cuts.next_if_eq(&row).is_some() {
                self.close_page(compressor)?;
            }
        }
        Ok(())
    }

    /// How many rows from `row` (at most `max_rows`) fit in `bytes` more page bytes.
    fn rows_fit(&self, array: &dyn Array, row: usize, max_rows: usize, bytes: usize) -> usize {
        if self.encoder.is_dictionary() {
            // Index pages are small; the step bounds how far one call can carry the
            // dictionary page past its limit (Arrow C++ checks every 1,024 values too).
            return max_rows.min(1024);
        }
        let width = self.leaf.physical_type.fixed_width().unwrap_or(self.leaf.type_length).max(1);
        page_fill::rows_fit(array, row, max_rows, bytes, width)
    }
}

impl ColumnChunkWriter {
    /// Whether page bounds come from the dictionary values a page's indexes name (byte
    /// arrays being dictionary-encoded), not from a comparison per row.
    fn bounds_from_dictionary(&self) -> bool {
        matches!(self.encoder.dictionary(), Some(Dictionary::Bytes(_)))
    }

    /// After a step of rows: past the dictionary page limit, ends the page, writes the
    /// dictionary and falls back for the rest of the chunk (as Arrow C++ does); otherwise ends
    /// the page if it is full (by rows, or by its values plus `levels_len` bytes of levels).
    ///
    /// The limit is at most [`MAX_DICTIONARY_PAGE`] whatever the options say, which also
    /// keeps the dictionary's indexes within `u32` (a value takes at least one byte of it, a
    /// step adds at most 1,024 values, and an input dictionary of more values than that bound
    /// is gathered, not interned).
    /// An input Arrow dictionary is kept whole however large, as Arrow C++ writes one, so that
    /// readers that keep dictionaries give it back; the limit applies to what others add.
    pub(super) fn end_step(&mut self, compressor: &mut Compressor, levels_len: usize) -> Result<()> {
        let limit = self.options.dictionary_page_size_limit.max(self.dictionary_floor).min(MAX_DICTIONARY_PAGE);
        if self.encoder.is_dictionary() && self.encoder.dictionary_page_len() > limit {
            self.close_page(compressor)?;
            self.write_dictionary_page(compressor)?;
            self.encoder.fall_back();
            self.dictionary_map = None;
            self.dictionary_floor = 0;
        } else if self.page_rows >= self.page_row_limit || self.encoder.estimated_len() + levels_len >= self.page_size {
            self.close_page(compressor)?;
        }
        Ok(())
    }

    fn write_rows(
        &mut self,
        array: &dyn Array,
        nulls: Option<&NullBuffer>,
        dictionary_input: bool,
        start: usize,
        end: usize,
    ) -> Result<()> {
        let n = end - start;
        let nulls = nulls.filter(|nb| nb.null_count() > 0);
        let null_count = nulls.map_or(0, |nb| nb.slice(start, n).null_count());
        if self.leaf.max_def_level > 0 {
            match nulls {
                Some(nb) if null_count > 0 => self.definition_levels.put_bits(nb.validity(), nb.offset() + start, n),
                _ => self.definition_levels.put_run(1, n),
            }
        }
        self.page_rows += n;
        self.page_values += n;
        self.page_nulls += null_count;
        if null_count == n || matches!(array.data_type(), DataType::Null) {
            return Ok(());
        }
        match nulls {
            Some(nb) if null_count > 0 => {
                for (a, b) in BitSliceIterator::new(nb.validity(), nb.offset() + start, n) {
                    self.put_range(array, dictionary_input, start + a, start + b)?;
                }
            }
            _ => self.put_range(array, dictionary_input, start, end)?,
        }
        Ok(())
    }

    fn put_range(&mut self, array: &dyn Array, dictionary_input: bool, start: usize, end: usize) -> Result<()> {
        let from_dictionary = self.bounds_from_dictionary();
        if !dictionary_input {
            let bounds = self.statistics.value_bounds(from_dictionary);
            let bytes = put_valid_range(&self.leaf, array, start, end, &mut self.encoder, bounds, &mut self.scratch)?;
            self.statistics.add_byte_array_bytes(bytes);
            return Ok(());
        }
        let dictionary = array.as_any_dictionary();
        let values = dictionary.values();
        if from_dictionary {
            // Intern the input dictionary once (per chunk), then remap its keys row by row.
            let mapped = matches!(&self.dictionary_map, Some((a, _)) if std::sync::Arc::ptr_eq(a, values));
            if !mapped && values.len() <= MAX_DICTIONARY_PAGE {
                check_value_lengths(&self.leaf, values.as_ref(), 0, values.len())?;
                if let Ok(bytes) = byte_values(values.as_ref()) {
                    let lengths = bytes.iter().map(|v| v.len() as u32).collect();
                    let first = self.encoder.dictionary_page_len() == 0;
                    let indexes = self.encoder.intern_all(&bytes).unwrap_or_default();
                    if first {
                        self.dictionary_floor = self.encoder.dictionary_page_len();
                    }
                    self.dictionary_map = Some((values.clone(), DictionaryMap { indexes, lengths }));
                }
            }
            if let Some((dict, map)) = &self.dictionary_map {
                if std::sync::Arc::ptr_eq(dict, values) {
                    let encoder = &mut self.encoder;
                    let mut bytes = 0u64;
                    downcast_dictionary_array!(
                        array => encoder.put_indexes(array.keys().values()[start..end].iter().map(|k| {
                            bytes += u64::from(map.lengths[k.as_usize()]);
                            map.indexes[k.as_usize()]
                        })),
                        _ => {}
                    );
                    self.statistics.add_byte_array_bytes(bytes);
                    return Ok(());
                }
            }
        }
        // Not dictionary-encoding (or a dictionary of values that are not bytes): gather them.
        let keys = dictionary.keys().slice(start, end - start);
        let taken = arrow_select::take::take(values.as_ref(), keys.as_ref(), None)
            .map_err(|e| Error::invalid_argument(format!("column '{}': {e}", self.leaf.path)))?;
        let bounds = self.statistics.value_bounds(from_dictionary);
        let bytes =
            put_valid_range(&self.leaf, taken.as_ref(), 0, taken.len(), &mut self.encoder, bounds, &mut self.scratch)?;
        self.statistics.add_byte_array_bytes(bytes);
        Ok(())
    }

    /// Folds the bounds of the dictionary values the page's indexes name, each
    /// distinct value once.
    fn fold_dictionary_page(&mut self) {
        let Some(Dictionary::Bytes(d)) = self.encoder.dictionary() else { return };
        self.statistics.fold_dictionary_page(self.encoder.page_indexes(), d.len(), |i| d.value(i));
    }

    fn close_page(&mut self, compressor: &mut Compressor) -> Result<()> {
        if self.page_rows == 0 {
            return Ok(());
        }
        self.write_page(compressor)
    }

    /// Writes the open page, which may be empty (the one page of an empty chunk).
    fn write_page(&mut self, compressor: &mut Compressor) -> Result<()> {
        if self.bounds_from_dictionary() {
            self.fold_dictionary_page();
        }
        self.values.clear();
        let encoding = self.encoder.finish_page(&mut self.values);
        self.levels.clear();
        self.rep_levels.clear();
        let has_def = self.leaf.max_def_level > 0;
        let has_rep = self.leaf.max_rep_level > 0;
        if has_rep {
            self.repetition_levels.finish_into(&mut self.rep_levels);
        }
        if has_def {
            self.definition_levels.finish_into(&mut self.levels);
        }
        let header_statistics = self.statistics.page_header(self.page_nulls);
        let page = DataPage {
            num_values: self.page_values,
            num_nulls: self.page_nulls,
            num_rows: self.page_rows,
            encoding,
            repetition_levels: &self.rep_levels,
            definition_levels: &self.levels,
            has_definition_levels: has_def,
            has_repetition_levels: has_rep,
            values: &mut self.values,
            statistics: header_statistics,
        };
        self.pages
            .write_data_page(page, compressor)
            .map_err(|e| e.context(format!("column '{}', page {}", self.leaf.path, self.pages.data_pages())))?;
        let counts = PageCounts { rows: self.page_rows, values: self.page_values, nulls: self.page_nulls };
        self.statistics.end_page(counts);
        self.page_rows = 0;
        self.page_values = 0;
        self.page_nulls = 0;
        Ok(())
    }

    fn write_dictionary_page(&mut self, compressor: &mut Compressor) -> Result<()> {
        if let Some(d) = self.encoder.dictionary() {
            self.pages
                .write_dictionary_page(d.page(), d.len(), compressor)
                .map_err(|e| e.context(format!("column '{}', dictionary page", self.leaf.path)))?;
        }
        Ok(())
    }

    /// Ends the chunk of the open row group: its pages and metadata, ready to be placed in
    /// the file. The writer is ready for the next row group's chunk.
    pub fn finish_chunk(&mut self, rows: u64, compressor: &mut Compressor) -> Result<ChunkResult> {
        if rows == 0 && self.pages.data_pages() == 0 {
            // A chunk of no rows still gets a data page (of none), so its data page offset
            // points at a page of its own.
            self.write_page(compressor)?;
        } else {
            self.close_page(compressor)?;
        }
        if self.encoder.is_dictionary() {
            self.write_dictionary_page(compressor)?;
        }
        let summary = self.statistics.finish_chunk(rows);
        let bloom_filter = self.encoder.finish_bloom_filter();
        let result = ChunkResult {
            bloom_filter,
            pages: self.pages.finish()?,
            statistics: summary.statistics,
            size_statistics: summary.size_statistics,
            column_index: summary.column_index,
            page_byte_array_bytes: summary.page_byte_array_bytes,
        };
        self.encoder.reset_chunk(self.options.dictionary);
        self.dictionary_map = None;
        self.dictionary_floor = 0;
        if let Some(c) = self.chunker.as_mut() {
            c.reset();
        }
        Ok(result)
    }
}

/// The largest dictionary page a chunk builds before falling back: a page's size is an `i32`
/// in its header.
const MAX_DICTIONARY_PAGE: usize = i32::MAX as usize;

/// The values of a byte-like dictionary (strings, binaries, fixed-size binaries) as slices.
fn byte_values(values: &dyn Array) -> Result<Vec<&[u8]>> {
    let n = values.len();
    Ok(match values.data_type() {
        DataType::Utf8 => (0..n).map(|i| values.as_string::<i32>().value(i).as_bytes()).collect(),
        DataType::LargeUtf8 => (0..n).map(|i| values.as_string::<i64>().value(i).as_bytes()).collect(),
        DataType::Utf8View => (0..n).map(|i| values.as_string_view().value(i).as_bytes()).collect(),
        DataType::Binary => (0..n).map(|i| values.as_binary::<i32>().value(i)).collect(),
        DataType::LargeBinary => (0..n).map(|i| values.as_binary::<i64>().value(i)).collect(),
        DataType::BinaryView => (0..n).map(|i| values.as_binary_view().value(i)).collect(),
        DataType::FixedSizeBinary(_) => (0..n).map(|i| values.as_fixed_size_binary().value(i)).collect(),
        other => return Err(Error::unsupported(format!("a dictionary of {other} values cannot be written"))),
    })
}
