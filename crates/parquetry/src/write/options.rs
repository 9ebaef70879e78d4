//! How to write a file: codec, encodings, page and row-group sizes, statistics, page index,
//! bloom filters.
//!
//! Defaults follow the peers (Arrow C++/pyarrow and arrow-rs) wherever their meaning is the
//! same, so that file sizes and speeds compare like for like: dictionary encoding with a
//! 1 MiB dictionary page limit and PLAIN fallback, 1 MiB / 20,000-row data pages, 1,048,576-row
//! row groups, v1 data pages, chunk statistics and a page index.

use std::collections::HashMap;

use crate::compress::{Codec, Compression};
use crate::error::{Error, Result};
use crate::format::{Encoding, KeyValue, SortingColumn};
pub use crate::page::DataPageVersion;

/// Which statistics to compute and write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatisticsLevel {
    /// None at all (no chunk statistics, no column index).
    None,
    /// Min/max/null count per column chunk.
    Chunk,
    /// Per chunk and per page: the page statistics go to the column index (when the page
    /// index is on) and, if asked, into each data page header.
    Page,
}

/// Options that may differ per column; [`WriteOptions`] holds the file's defaults and the
/// per-column overrides.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnOptions {
    /// Codec of every page of the column.
    pub codec: Codec,
    /// Codec level (ZSTD, GZIP, BROTLI); `None` is the codec's default.
    pub level: Option<i32>,
    /// Try RLE_DICTIONARY first, falling back to [`ColumnOptions::encoding`] when the
    /// dictionary page passes [`ColumnOptions::dictionary_page_size_limit`].
    pub dictionary: bool,
    /// The encoding of data pages when no dictionary is used (or after fallback); `None` is
    /// PLAIN (RLE for booleans in v2 pages, as Arrow C++ writes them).
    pub encoding: Option<Encoding>,
    /// Largest dictionary page before falling back, in bytes.
    pub dictionary_page_size_limit: usize,
    /// Statistics for this column.
    pub statistics: StatisticsLevel,
    /// A bloom filter per chunk of this column, and how big (`None`: no filter).
    pub bloom_filter: Option<BloomFilterOptions>,
}

/// How to size a column's bloom filters (arrow-rs `BloomFilterProperties`, Arrow C++
/// `BloomFilterOptions`).
///
/// Each chunk's filter is sized for `ndv` distinct values at false positive probability
/// `fpp`, then folded in half while its estimated false positive rate stays within `fpp`
/// (as Arrow C++ does), so a chunk with fewer distinct values than planned gets a smaller
/// filter. A chunk that is dictionary-encoded throughout is sized for its dictionary.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BloomFilterOptions {
    /// Distinct values planned for per chunk; `None`: the row group row limit (as Arrow C++),
    /// at most [`DEFAULT_ROW_GROUP_ROWS`].
    pub ndv: Option<u64>,
    /// False positive probability, in (0, 1).
    pub fpp: f64,
}

/// The default false positive probability of a bloom filter: 0.05, as Arrow C++ and arrow-rs.
pub const DEFAULT_BLOOM_FILTER_FPP: f64 = 0.05;

impl Default for BloomFilterOptions {
    fn default() -> Self {
        BloomFilterOptions { ndv: None, fpp: DEFAULT_BLOOM_FILTER_FPP }
    }
}

/// Everything the writer can be told; build it with the `with_*` methods.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    pub(crate) column: ColumnOptions,
    pub(crate) per_column: HashMap<String, ColumnOptions>,
    pub(crate) data_page_size: usize,
    pub(crate) data_page_row_limit: usize,
    pub(crate) row_group_rows: usize,
    pub(crate) row_group_bytes: usize,
    pub(crate) data_page_version: DataPageVersion,
    pub(crate) statistics_truncate_length: Option<usize>,
    pub(crate) page_index: bool,
    pub(crate) page_header_statistics: bool,
    pub(crate) size_statistics: bool,
    pub(crate) crc: bool,
    pub(crate) key_value_metadata: Vec<KeyValue>,
    pub(crate) sorting_columns: Option<Vec<SortingColumn>>,
    pub(crate) store_arrow_schema: bool,
    pub(crate) max_buffered_bytes: Option<usize>,
    pub(crate) threads: usize,
    pub(crate) created_by: String,
    pub(crate) int96_timestamps: bool,
    pub(crate) compliant_nested_types: bool,
    pub(crate) time_adjusted_to_utc: bool,
    pub(crate) format_version: i32,
    pub(crate) content_defined_chunking: Option<super::cdc::ContentDefinedChunking>,
}

/// The encodings a column can be given to write (`with_encoding`, `with_column_encoding`), in
/// the order front ends list them; a name becomes one with [`Encoding::from_name`].
pub const WRITABLE_ENCODINGS: [Encoding; 7] = [
    Encoding::PLAIN,
    Encoding::RLE,
    Encoding::DELTA_BINARY_PACKED,
    Encoding::DELTA_LENGTH_BYTE_ARRAY,
    Encoding::DELTA_BYTE_ARRAY,
    Encoding::BYTE_STREAM_SPLIT,
    Encoding::RLE_DICTIONARY,
];

/// The writable encoding named `name` (case-insensitive), or an error listing them.
pub fn writable_encoding(name: &str) -> Result<Encoding> {
    Encoding::from_name(name).filter(|e| WRITABLE_ENCODINGS.contains(e)).ok_or_else(|| {
        let names: Vec<String> = WRITABLE_ENCODINGS.iter().map(ToString::to_string).collect();
        Error::invalid_argument(format!("unknown encoding '{name}' (encodings: {})", names.join(", ")))
    })
}

/// The default data page size: 1 MiB, as Arrow C++, arrow-rs and parquet-java.
pub const DEFAULT_DATA_PAGE_SIZE: usize = 1 << 20;
/// The default row limit of a data page: 20,000, as Arrow C++ and arrow-rs.
pub const DEFAULT_DATA_PAGE_ROW_LIMIT: usize = 20_000;
/// The default dictionary page limit: 1 MiB, as Arrow C++ and arrow-rs.
pub const DEFAULT_DICTIONARY_PAGE_SIZE_LIMIT: usize = 1 << 20;
/// The default rows per row group: 1,048,576, as pyarrow and arrow-rs.
pub const DEFAULT_ROW_GROUP_ROWS: usize = 1 << 20;
/// The default statistics truncation: 64 bytes, as arrow-rs.
pub const DEFAULT_STATISTICS_TRUNCATE_LENGTH: usize = 64;

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            column: ColumnOptions {
                codec: Codec::Uncompressed,
                level: None,
                dictionary: true,
                encoding: None,
                dictionary_page_size_limit: DEFAULT_DICTIONARY_PAGE_SIZE_LIMIT,
                statistics: StatisticsLevel::Page,
                bloom_filter: None,
            },
            per_column: HashMap::new(),
            data_page_size: DEFAULT_DATA_PAGE_SIZE,
            data_page_row_limit: DEFAULT_DATA_PAGE_ROW_LIMIT,
            row_group_rows: DEFAULT_ROW_GROUP_ROWS,
            row_group_bytes: usize::MAX,
            data_page_version: DataPageVersion::V1,
            statistics_truncate_length: Some(DEFAULT_STATISTICS_TRUNCATE_LENGTH),
            page_index: true,
            page_header_statistics: false,
            size_statistics: true,
            crc: false,
            key_value_metadata: Vec::new(),
            sorting_columns: None,
            store_arrow_schema: true,
            max_buffered_bytes: None,
            threads: 1,
            created_by: format!("parquetry version {}", env!("CARGO_PKG_VERSION")),
            int96_timestamps: false,
            compliant_nested_types: true,
            time_adjusted_to_utc: false,
            format_version: 2,
            content_defined_chunking: None,
        }
    }
}

impl WriteOptions {
    /// The default options (uncompressed, dictionary on, v1 pages, page index on).
    pub fn new() -> Self {
        Self::default()
    }

    /// The options of the column whose dotted path is `path`: its overrides or the defaults.
    pub fn column_options(&self, path: &str) -> &ColumnOptions {
        self.per_column.get(path).unwrap_or(&self.column)
    }

    fn column_mut(&mut self, path: &str) -> &mut ColumnOptions {
        let default = self.column.clone();
        self.per_column.entry(path.to_owned()).or_insert(default)
    }

    /// Compresses every page with a codec at a level (`Codec::Snappy`, or
    /// `Compression::zstd(3)`: ZSTD 1..=22, GZIP 0..=9, BROTLI 0..=11).
    pub fn with_compression(mut self, compression: impl Into<Compression>) -> Self {
        let compression = compression.into();
        let (codec, level) = (compression.codec(), compression.level());
        self.column.codec = codec;
        self.column.level = level;
        self.per_column.values_mut().for_each(|c| (c.codec, c.level) = (codec, level));
        self
    }

    /// Turns dictionary encoding on or off for every column.
    pub fn with_dictionary(mut self, on: bool) -> Self {
        self.column.dictionary = on;
        self.per_column.values_mut().for_each(|c| c.dictionary = on);
        self
    }

    /// Sets the encoding of non-dictionary data pages for every column (the columns whose
    /// type cannot take it are refused when the writer is made).
    pub fn with_encoding(mut self, encoding: Encoding) -> Self {
        self.column.encoding = Some(encoding);
        self.per_column.values_mut().for_each(|c| c.encoding = Some(encoding));
        self
    }

    /// Sets one column's encoding (dotted path) and turns its dictionary off unless the
    /// encoding is a dictionary encoding.
    pub fn with_column_encoding(mut self, path: &str, encoding: Encoding) -> Self {
        let c = self.column_mut(path);
        if encoding == Encoding::RLE_DICTIONARY || encoding == Encoding::PLAIN_DICTIONARY {
            c.dictionary = true;
        } else {
            c.dictionary = false;
            c.encoding = Some(encoding);
        }
        self
    }

    /// Turns dictionary encoding on or off for one column.
    pub fn with_column_dictionary(mut self, path: &str, on: bool) -> Self {
        self.column_mut(path).dictionary = on;
        self
    }

    /// Sets one column's codec and level.
    pub fn with_column_compression(mut self, path: &str, compression: impl Into<Compression>) -> Self {
        let compression = compression.into();
        let c = self.column_mut(path);
        (c.codec, c.level) = (compression.codec(), compression.level());
        self
    }

    /// The largest dictionary page before a column falls back to its non-dictionary encoding.
    pub fn with_dictionary_page_size_limit(mut self, bytes: usize) -> Self {
        self.column.dictionary_page_size_limit = bytes;
        self.per_column.values_mut().for_each(|c| c.dictionary_page_size_limit = bytes);
        self
    }

    /// Target size of a data page's encoded values and levels (before compression).
    pub fn with_data_page_size(mut self, bytes: usize) -> Self {
        self.data_page_size = bytes;
        self
    }

    /// Most rows in one data page.
    pub fn with_data_page_row_limit(mut self, rows: usize) -> Self {
        self.data_page_row_limit = rows;
        self
    }

    /// Most rows in one row group.
    pub fn with_row_group_rows(mut self, rows: usize) -> Self {
        self.row_group_rows = rows;
        self
    }

    /// Ends a row group once its encoded pages reach this many bytes (checked after each
    /// batch, so a row group may pass it by up to one batch).
    pub fn with_row_group_bytes(mut self, bytes: usize) -> Self {
        self.row_group_bytes = bytes;
        self
    }

    /// Writes v1 or v2 data pages.
    pub fn with_data_page_version(mut self, version: DataPageVersion) -> Self {
        self.data_page_version = version;
        self
    }

    /// Which statistics every column gets.
    pub fn with_statistics(mut self, level: StatisticsLevel) -> Self {
        self.column.statistics = level;
        self.per_column.values_mut().for_each(|c| c.statistics = level);
        self
    }

    /// Which statistics one column (dotted path) gets, over [`with_statistics`]'s level for
    /// the others: e.g. none for a column nobody filters on, whose page headers, chunk
    /// metadata and column index then carry no min/max (pyarrow's `write_statistics` list).
    ///
    /// [`with_statistics`]: Self::with_statistics
    pub fn with_column_statistics(mut self, path: &str, level: StatisticsLevel) -> Self {
        self.column_mut(path).statistics = level;
        self
    }

    /// Writes a bloom filter for every column (but BOOLEAN ones), or none (arrow-rs
    /// `set_bloom_filter_enabled`). Off by default.
    pub fn with_bloom_filter_enabled(mut self, on: bool) -> Self {
        let set = |b: &mut Option<BloomFilterOptions>| *b = if on { Some(b.unwrap_or_default()) } else { None };
        set(&mut self.column.bloom_filter);
        self.per_column.values_mut().for_each(|c| set(&mut c.bloom_filter));
        self
    }

    /// Sets every column's bloom filter false positive probability, turning the filters on
    /// (arrow-rs `set_bloom_filter_fpp`).
    pub fn with_bloom_filter_fpp(mut self, fpp: f64) -> Self {
        let set = |b: &mut Option<BloomFilterOptions>| b.get_or_insert_with(Default::default).fpp = fpp;
        set(&mut self.column.bloom_filter);
        self.per_column.values_mut().for_each(|c| set(&mut c.bloom_filter));
        self
    }

    /// Sets every column's planned distinct values per bloom filter, turning the filters on
    /// (arrow-rs `set_bloom_filter_ndv`).
    pub fn with_bloom_filter_ndv(mut self, ndv: u64) -> Self {
        let set = |b: &mut Option<BloomFilterOptions>| b.get_or_insert_with(Default::default).ndv = Some(ndv);
        set(&mut self.column.bloom_filter);
        self.per_column.values_mut().for_each(|c| set(&mut c.bloom_filter));
        self
    }

    /// Turns one column's bloom filters on or off (arrow-rs
    /// `set_column_bloom_filter_enabled`).
    pub fn with_column_bloom_filter_enabled(mut self, path: &str, on: bool) -> Self {
        let b = &mut self.column_mut(path).bloom_filter;
        *b = if on { Some(b.unwrap_or_default()) } else { None };
        self
    }

    /// Sets one column's bloom filter false positive probability, turning its filters on
    /// (arrow-rs `set_column_bloom_filter_fpp`).
    pub fn with_column_bloom_filter_fpp(mut self, path: &str, fpp: f64) -> Self {
        self.column_mut(path).bloom_filter.get_or_insert_with(Default::default).fpp = fpp;
        self
    }

    /// Sets one column's planned distinct values per bloom filter, turning its filters on
    /// (arrow-rs `set_column_bloom_filter_ndv`).
    pub fn with_column_bloom_filter_ndv(mut self, path: &str, ndv: u64) -> Self {
        self.column_mut(path).bloom_filter.get_or_insert_with(Default::default).ndv = Some(ndv);
        self
    }

    /// Truncates byte-array min/max statistics to `bytes` (`None`: never), marking them inexact.
    pub fn with_statistics_truncate_length(mut self, bytes: Option<usize>) -> Self {
        self.statistics_truncate_length = bytes;
        self
    }

    /// Writes the page index (ColumnIndex and OffsetIndex) after the row groups.
    pub fn with_page_index(mut self, on: bool) -> Self {
        self.page_index = on;
        self
    }

    /// Also writes each page's statistics into its data page header (with
    /// [`StatisticsLevel::Page`]).
    pub fn with_page_header_statistics(mut self, on: bool) -> Self {
        self.page_header_statistics = on;
        self
    }

    /// Writes SizeStatistics (unencoded byte-array sizes, level histograms) per chunk.
    pub fn with_size_statistics(mut self, on: bool) -> Self {
        self.size_statistics = on;
        self
    }

    /// Stores a CRC-32 of every page.
    pub fn with_crc(mut self, on: bool) -> Self {
        self.crc = on;
        self
    }

    /// Adds a key/value entry to the footer.
    pub fn with_key_value(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.key_value_metadata.push(KeyValue { key: key.into(), value: Some(value.into()) });
        self
    }

    /// Declares the sort order of every row group.
    pub fn with_sorting_columns(mut self, columns: Vec<SortingColumn>) -> Self {
        self.sorting_columns = Some(columns);
        self
    }

    /// Stores the Arrow schema as `ARROW:schema` (on by default), so that types Parquet cannot
    /// name (large and view strings, dictionaries, time zones, durations) read back as written.
    pub fn with_arrow_schema(mut self, on: bool) -> Self {
        self.store_arrow_schema = on;
        self
    }

    /// Spills encoded pages to a temporary file once the open row group holds more than
    /// `bytes`, so that a large row group needs about `bytes` of memory.
    pub fn with_max_buffered_bytes(mut self, bytes: usize) -> Self {
        self.max_buffered_bytes = Some(bytes);
        self
    }

    /// Encodes up to `threads` column chunks at once and compresses their data pages on as
    /// many threads (at least 1). The file is byte for byte the same for any number: each
    /// column is still encoded by one thread, in order, and pages are placed in column order.
    /// A file whose columns are all uncompressed is written on the caller's thread: its
    /// writing is memory copies, which more threads only hand over.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Writes every timestamp column (at any depth) as the deprecated INT96 (nanoseconds of
    /// the day, then the Julian day, as Impala, Spark and pyarrow's
    /// `use_deprecated_int96_timestamps` write them), without a logical type or statistics
    /// (INT96 has no defined order). For readers that know no other timestamp: old Spark,
    /// Hive and Impala. Off by default: INT64 timestamps keep their unit and time zone.
    pub fn with_int96_timestamps(mut self, on: bool) -> Self {
        self.int96_timestamps = on;
        self
    }

    /// Names a list's element `element`, as the spec's LIST has it (on by default); off, the
    /// element keeps its Arrow field's name (`item` for most), as pyarrow's
    /// `use_compliant_nested_type=False` and older Arrow writers do.
    pub fn with_compliant_nested_types(mut self, on: bool) -> Self {
        self.compliant_nested_types = on;
        self
    }

    /// Marks TIME columns as adjusted to UTC (`isAdjustedToUTC=true`), as pyarrow's
    /// `write_time_adjusted_to_utc=True` does. Arrow times carry no zone, so by default
    /// they are written as local times (false); the values are the same either way.
    pub fn with_time_adjusted_to_utc(mut self, on: bool) -> Self {
        self.time_adjusted_to_utc = on;
        self
    }

    /// The `version` in the footer: 2 by default, 1 for readers that refuse files of the
    /// newer format (pyarrow's `version='1.0'` writes 1). The version is a label: the pages
    /// and types written are the options' either way.
    pub fn with_format_version(mut self, version: i32) -> Self {
        self.format_version = version;
        self
    }

    /// Ends data pages where the values say (content-defined chunking, see
    /// [`ContentDefinedChunking`](super::ContentDefinedChunking)) as well as at the page size,
    /// so that an edit to a table changes few pages of its file (flat columns only).
    pub fn with_content_defined_chunking(mut self, chunking: Option<super::cdc::ContentDefinedChunking>) -> Self {
        self.content_defined_chunking = chunking;
        self
    }

    /// Checks the options that do not depend on the schema.
    pub(crate) fn validate(&self) -> Result<()> {
        let bad = |what: &str| Err(Error::invalid_argument(what.to_owned()));
        if self.data_page_size == 0 {
            return bad("write options: the data page size must be at least 1 byte");
        }
        if self.data_page_row_limit == 0 {
            return bad("write options: the data page row limit must be at least 1 row");
        }
        if self.row_group_rows == 0 {
            return bad("write options: a row group must hold at least 1 row");
        }
        if self.row_group_bytes == 0 {
            return bad("write options: the row group byte limit must be at least 1 byte");
        }
        if let Some(c) = &self.content_defined_chunking {
            c.validate()?;
        }
        if !matches!(self.format_version, 1 | 2) {
            return Err(Error::invalid_argument(format!(
                "write options: the format version must be 1 or 2, not {}",
                self.format_version
            )));
        }
        if self.statistics_truncate_length == Some(0) {
            return bad("write options: statistics cannot be truncated to 0 bytes");
        }
        let columns = std::iter::once((None, &self.column)).chain(self.per_column.iter().map(|(p, c)| (Some(p), c)));
        for (path, c) in columns {
            if let Some(fpp) = c.bloom_filter.map(|b| b.fpp).filter(|f| !(*f > 0.0 && *f < 1.0)) {
                let of = path.map_or(String::new(), |p| format!(" of column '{p}'"));
                return Err(Error::invalid_argument(format!(
                    "write options: the bloom filter false positive probability{of} must be in (0, 1), got {fpp}"
                )));
            }
        }
        Ok(())
    }
}
