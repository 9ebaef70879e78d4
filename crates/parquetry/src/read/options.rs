//! Options of a read: batch size, projection, row groups, row selection, string output
//! type, threads, CRC checks.

use std::ops::Range;

/// Which columns to read: a top-level field by name or by position in the Arrow schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnSelector {
    /// A top-level field name.
    Name(String),
    /// A top-level field position (0-based).
    Index(usize),
}

impl From<&str> for ColumnSelector {
    fn from(s: &str) -> Self {
        ColumnSelector::Name(s.to_owned())
    }
}

impl From<String> for ColumnSelector {
    fn from(s: String) -> Self {
        ColumnSelector::Name(s)
    }
}

impl From<usize> for ColumnSelector {
    fn from(i: usize) -> Self {
        ColumnSelector::Index(i)
    }
}

/// The Arrow type BYTE_ARRAY columns are read as.
///
/// By default a column reads as its `ARROW:schema` type if the file has one, else as
/// `Utf8`/`Binary`. Choosing a type here overrides both for every BYTE_ARRAY column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteArrayType {
    /// `Utf8` / `Binary`: i32 offsets and one data buffer.
    Regular,
    /// `LargeUtf8` / `LargeBinary`: i64 offsets, for more than 2 GiB of values per batch.
    Large,
    /// `Utf8View` / `BinaryView`: 16-byte views that point into the pages (no copy of
    /// PLAIN and DELTA_LENGTH_BYTE_ARRAY values).
    View,
    /// `Dictionary(Int32, Utf8/Binary)`: keeps the file's dictionary instead of expanding it.
    Dictionary,
}

/// How to read a file: refinements of "everything, in 65,536-row batches, on one thread", set
/// with the `with_*` methods (each documents its field).
///
/// A value given whole to [`ParquetReaderBuilder::with_options`](super::ParquetReaderBuilder::with_options)
/// (or to a dataset's reader), not a second list of setters on the builder: the setters live
/// here once, and a caller reading many files (a dataset, the CLI, the Python package) carries
/// one value to each.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    pub(crate) batch_size: usize,
    pub(crate) columns: Option<Vec<ColumnSelector>>,
    pub(crate) row_groups: Option<Vec<usize>>,
    pub(crate) byte_array_type: Option<ByteArrayType>,
    pub(crate) int96_unit: Option<arrow_schema::TimeUnit>,
    pub(crate) verify_crc: bool,
    pub(crate) row_selection: Option<Vec<Range<u64>>>,
    pub(crate) threads: usize,
    pub(crate) filter: Option<crate::filter::Predicate>,
    /// Leaf columns (string or binary) read as `Dictionary(Int32, _)` whatever the other
    /// settings say: a filter sets it for the columns only it reads, whose chunks are all
    /// dictionary-encoded, so that its tests run once per dictionary value.
    pub(crate) dictionary_leaves: Vec<usize>,
    /// Leaf columns (INT32 or INT64 under a wider decimal type) read as the decimal type of
    /// their physical width: a filter sets it for output columns it copies, and widens the
    /// rows it keeps (see `read::leaf_type::narrow_decimal`).
    pub(crate) narrow_decimal_leaves: Vec<usize>,
    /// Leaf columns (string or binary) read as `Boolean`: each row is a mask's result on its
    /// value, worked out once per dictionary value and looked up through the dictionary
    /// indexes without building keys (see [`DictionaryMask`]). A filter sets it for the
    /// columns only its test reads.
    pub(crate) dictionary_masks: Vec<MaskedLeaf>,
    /// Whether the caller reads every batch (see [`ReadOptions::with_reads_all`]).
    pub(crate) reads_all: bool,
}

/// A function of a column's values, computed once per value of a dictionary (and once per
/// value of a page that is not dictionary-encoded) rather than once per row: a leaf column in
/// [`ReadOptions`]'s `dictionary_masks` is read as its result on each row's value.
pub(crate) trait DictionaryMask: std::fmt::Debug + Send + Sync {
    /// The result on each value of `values`, a `Binary` array (one per value, in order).
    fn on_values(&self, values: &arrow_array::ArrayRef) -> crate::error::Result<Vec<bool>>;
}

/// A leaf column read through a [`DictionaryMask`].
#[derive(Debug, Clone)]
pub(crate) struct MaskedLeaf {
    /// The leaf column.
    pub leaf: usize,
    /// Whether its values are strings (validated as UTF-8 before the mask sees them).
    pub utf8: bool,
    /// The function of its values.
    pub mask: std::sync::Arc<dyn DictionaryMask>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            batch_size: 65_536,
            columns: None,
            row_groups: None,
            byte_array_type: None,
            int96_unit: None,
            verify_crc: false,
            row_selection: None,
            threads: 1,
            filter: None,
            dictionary_leaves: Vec::new(),
            narrow_decimal_leaves: Vec::new(),
            dictionary_masks: Vec::new(),
            reads_all: false,
        }
    }
}

impl ReadOptions {
    /// Tells the reader its caller reads every batch (collects a table), so that on an
    /// object store the row groups after the first are fetched from the start: by default
    /// they are named only once a second batch is asked for, so that a read stopped after
    /// one batch (`cat --limit`) costs no request for them, and a whole read waited a round
    /// trip after its first row group. Off by default.
    pub fn with_reads_all(mut self, reads_all: bool) -> Self {
        self.reads_all = reads_all;
        self
    }

    /// Sets the rows per record batch (at least 1; default 65,536). The last batch of a file
    /// may be shorter.
    pub fn with_batch_size(mut self, rows: usize) -> Self {
        self.batch_size = rows.max(1);
        self
    }

    /// The rows per record batch.
    pub fn batch_size(&self) -> usize {
        self.batch_size
    }

    /// Reads only these top-level fields, in this order.
    pub fn with_columns<C: Into<ColumnSelector>>(mut self, columns: impl IntoIterator<Item = C>) -> Self {
        self.columns = Some(columns.into_iter().map(Into::into).collect());
        self
    }

    /// Reads only these row groups, in this order.
    pub fn with_row_groups(mut self, row_groups: impl IntoIterator<Item = usize>) -> Self {
        self.row_groups = Some(row_groups.into_iter().collect());
        self
    }

    /// The row groups to read, if not all.
    pub fn row_groups(&self) -> Option<&[usize]> {
        self.row_groups.as_deref()
    }

    /// Reads every BYTE_ARRAY column as this Arrow type.
    pub fn with_byte_array_type(mut self, t: ByteArrayType) -> Self {
        self.byte_array_type = Some(t);
        self
    }

    /// Reads INT96 timestamps in `unit` (converted from days and nanoseconds straight to
    /// it, so no date overflows on the way through nanoseconds).
    pub fn with_int96_unit(mut self, unit: arrow_schema::TimeUnit) -> Self {
        self.int96_unit = Some(unit);
        self
    }

    /// Reads only the rows in `ranges` (row numbers from the file's first row, in order, not
    /// overlapping, within the file: otherwise reading fails with an error naming the range).
    /// Pages wholly outside the selection are not decompressed, and inside a page the rows
    /// between ranges are passed over without producing values.
    pub fn with_row_selection(mut self, ranges: impl IntoIterator<Item = Range<u64>>) -> Self {
        self.row_selection = Some(ranges.into_iter().collect());
        self
    }

    /// Decodes up to `threads` column chunks at once (at least 1). The output is the same
    /// for any number. Batches smaller than a row group are decoded ahead, several at once,
    /// so that every thread has work: 65,536 rows' worth of batches (or one batch, if
    /// larger), or up to 4 of those per thread when one column holds half of a row group's
    /// bytes and each thread then reads runs of rows of its own.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// The column chunks decoded at once.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Returns only the rows where `predicate` is true, reading as little of the file as its
    /// statistics and page index allow (see [`crate::filter`]).
    pub fn with_filter(mut self, predicate: crate::filter::Predicate) -> Self {
        self.filter = Some(predicate);
        self
    }

    /// Turns page CRC verification on or off.
    pub fn with_verify_crc(mut self, verify: bool) -> Self {
        self.verify_crc = verify;
        self
    }
}
