//! The file assembler: the one place a Parquet file's layout is written, for the writer and
//! for merge alike. It writes the leading magic, takes column chunks as their pages reach the
//! sink (rebasing page locations to the file and building each chunk's metadata), closes row
//! groups, and ends the file with the page indexes and the footer.
//!
//! Bloom filters (header and bitset) go right after the column data of their row group, as
//! arrow-rs writes them by default (`BloomFilterPosition::AfterRowGroup`): a row group's
//! filters are held only until it closes, so a large file's filters never add up in memory.
//! (Arrow C++ holds them all and writes them before the page index; readers find them by
//! `bloom_filter_offset` either way.) A row group's `total_compressed_size` covers its
//! column chunks only.

use std::io::Write;

use crate::compress::Codec;
use crate::error::{Error, Result};
use crate::format::footer::MAGIC;
use crate::format::{
    encode_footer, encode_page_indexes, ColumnChunk, ColumnIndex, ColumnMetaData, CompressionCodec, Encoding,
    FileMetaData, OffsetIndex, PageEncodingStats, PageLocation, PhysicalType, RowGroup, SizeStatistics, SortingColumn,
    SplitBlockBloomFilter, Statistics,
};

/// A column chunk's page index: its column index (when it has statistics) and offset index.
pub type ChunkIndexes = (Option<ColumnIndex>, Option<OffsetIndex>);

/// What a column chunk's metadata is made of, once its pages are in the file.
pub(crate) struct ChunkParts<'a> {
    pub physical_type: PhysicalType,
    pub path: &'a [String],
    pub codec: Codec,
    /// The file offset of the chunk's first page (its dictionary page, if it has one).
    pub start: u64,
    /// Bytes of the dictionary page (0 without one).
    pub dictionary_len: usize,
    pub num_values: i64,
    pub uncompressed_size: i64,
    pub compressed_size: i64,
    pub encodings: Vec<Encoding>,
    pub encoding_stats: Option<Vec<PageEncodingStats>>,
    /// Where each data page starts, relative to `start`, and its first row in the row group.
    pub locations: Vec<PageLocation>,
    pub statistics: Option<Statistics>,
    pub size_statistics: Option<SizeStatistics>,
    pub column_index: Option<ColumnIndex>,
    /// Each data page's unencoded BYTE_ARRAY bytes, for the offset index.
    pub byte_array_bytes: Option<Vec<i64>>,
    /// The chunk's bloom filter.
    pub bloom_filter: Option<SplitBlockBloomFilter>,
}

/// A Parquet file being written to `W`.
pub(crate) struct FileAssembler<W> {
    sink: W,
    offset: u64,
    row_groups: Vec<RowGroup>,
    page_indexes: Vec<Vec<ChunkIndexes>>,
    rows: i64,
    open: Option<OpenRowGroup>,
}

/// The row group whose chunks are being written.
struct OpenRowGroup {
    start: u64,
    chunks: Vec<ColumnChunk>,
    indexes: Vec<ChunkIndexes>,
    /// Each chunk's bloom filter as stored (header and bitset), written when the group closes.
    bloom_filters: Vec<Option<Vec<u8>>>,
    uncompressed: i64,
}

impl OpenRowGroup {
    fn new(start: u64) -> Self {
        OpenRowGroup { start, chunks: Vec::new(), indexes: Vec::new(), bloom_filters: Vec::new(), uncompressed: 0 }
    }
}

impl<W: Write> FileAssembler<W> {
    /// Starts a file on `sink`: writes the leading magic.
    pub fn new(sink: W) -> Result<Self> {
        let mut file =
            FileAssembler { sink, offset: 0, row_groups: Vec::new(), page_indexes: Vec::new(), rows: 0, open: None };
        file.put(MAGIC)?;
        Ok(file)
    }

    /// The file offset the next byte goes to.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Row groups closed so far (the ordinal of the next one).
    pub fn row_groups(&self) -> usize {
        self.row_groups.len()
    }

    /// Writes `bytes` at the current offset.
    pub fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.sink.write_all(bytes).map_err(|e| Error::io(format!("writing at offset {}", self.offset), e))?;
        self.offset += bytes.len() as u64;
        Ok(())
    }

    /// Writes `len` bytes by handing the sink to `write` (copies from spill files or input
    /// files that bypass `put`).
    pub fn put_with(&mut self, len: u64, write: impl FnOnce(&mut W) -> Result<()>) -> Result<()> {
        write(&mut self.sink)?;
        self.offset += len;
        Ok(())
    }

    fn open(&mut self) -> &mut OpenRowGroup {
        let start = self.offset;
        self.open.get_or_insert_with(|| OpenRowGroup::new(start))
    }

    /// Adds the metadata of a chunk whose pages were just written (the row group opens with
    /// its first chunk).
    pub fn add_chunk(&mut self, parts: ChunkParts<'_>) {
        let start = parts.start as i64;
        let meta = ColumnMetaData {
            physical_type: parts.physical_type,
            encodings: parts.encodings.into(),
            path_in_schema: parts.path.to_vec().into(),
            codec: CompressionCodec(parts.codec.to_thrift()),
            num_values: parts.num_values,
            total_uncompressed_size: parts.uncompressed_size,
            total_compressed_size: parts.compressed_size,
            data_page_offset: start + parts.dictionary_len as i64,
            dictionary_page_offset: (parts.dictionary_len > 0).then_some(start),
            statistics: parts.statistics,
            encoding_stats: parts.encoding_stats.map(Into::into),
            size_statistics: parts.size_statistics,
            ..Default::default()
        };
        let mut locations = parts.locations;
        locations.iter_mut().for_each(|l| l.offset += start);
        let offset_index =
            OffsetIndex { page_locations: locations, unencoded_byte_array_data_bytes: parts.byte_array_bytes };
        let chunk = ColumnChunk { file_offset: start, meta_data: Some(meta), ..Default::default() };
        let bloom_filter = parts.bloom_filter.map(|f| {
            let mut bytes = Vec::new();
            f.encode(&mut bytes);
            bytes
        });
        self.add_copied_chunk(chunk, (parts.column_index, Some(offset_index)), bloom_filter);
    }

    /// Adds a chunk whose metadata is complete and rebased already (a chunk copied whole),
    /// with its bloom filter as stored (header and bitset), which goes after the row group.
    pub fn add_copied_chunk(&mut self, chunk: ColumnChunk, indexes: ChunkIndexes, bloom_filter: Option<Vec<u8>>) {
        let group = self.open();
        group.uncompressed += chunk.meta_data.as_ref().map_or(0, |m| m.total_uncompressed_size);
        group.chunks.push(chunk);
        group.indexes.push(indexes);
        group.bloom_filters.push(bloom_filter);
    }

    /// Closes the open row group of `num_rows` rows, writing its chunks' bloom filters. Its
    /// byte size is the sum of its chunks' uncompressed sizes unless `total_byte_size` says
    /// otherwise (a row group copied whole keeps its own).
    pub fn end_row_group(
        &mut self,
        num_rows: i64,
        sorting_columns: Option<Vec<SortingColumn>>,
        total_byte_size: Option<i64>,
    ) -> Result<()> {
        let start = self.offset;
        let mut group = self.open.take().unwrap_or_else(|| OpenRowGroup::new(start));
        let total_compressed_size = (self.offset - group.start) as i64;
        for (chunk, filter) in group.chunks.iter_mut().zip(std::mem::take(&mut group.bloom_filters)) {
            let Some(meta) = chunk.meta_data.as_mut() else { continue };
            (meta.bloom_filter_offset, meta.bloom_filter_length) = (None, None);
            let Some(filter) = filter else { continue };
            let length = i32::try_from(filter.len())
                .map_err(|_| Error::invalid_argument("a bloom filter of more than 2 GiB".to_owned()))?;
            meta.bloom_filter_offset = Some(self.offset as i64);
            meta.bloom_filter_length = Some(length);
            self.put(&filter)?;
        }
        let ordinal = self.row_groups.len();
        self.row_groups.push(RowGroup {
            columns: group.chunks,
            total_byte_size: total_byte_size.unwrap_or(group.uncompressed),
            num_rows,
            sorting_columns,
            file_offset: Some(group.start as i64),
            total_compressed_size: Some(total_compressed_size),
            ordinal: i16::try_from(ordinal).ok(),
        });
        self.page_indexes.push(group.indexes);
        self.rows += num_rows;
        Ok(())
    }

    /// Ends the file: the page indexes (unless `page_index` is false), then the footer made
    /// of `meta` with the row groups and row count filled in, then the trailing magic; flushes
    /// the sink and returns the footer's metadata.
    pub fn finish(&mut self, page_index: bool, mut meta: FileMetaData) -> Result<FileMetaData> {
        let indexes = std::mem::take(&mut self.page_indexes);
        if page_index {
            let bytes = encode_page_indexes(self.offset, &mut self.row_groups, &indexes);
            self.put(&bytes)?;
        }
        meta.row_groups = std::mem::take(&mut self.row_groups);
        meta.num_rows = self.rows;
        self.put(&encode_footer(&meta))?;
        self.sink.flush().map_err(|e| Error::io("flushing the file", e))?;
        Ok(meta)
    }

    /// The sink, once the file is finished.
    pub fn into_sink(self) -> W {
        self.sink
    }
}
