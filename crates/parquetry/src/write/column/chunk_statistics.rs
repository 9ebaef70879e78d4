//! What a column chunk writer records about its values besides the pages: min/max bounds and
//! null counts (chunk `Statistics`, page header statistics, the ColumnIndex), level
//! histograms and byte-array sizes (`SizeStatistics`, the OffsetIndex's byte counts).
//!
//! Kept apart from the writer, which frames pages and feeds the encoder: the writer tells
//! this type what each step wrote and when a page or chunk ends, and takes the structures
//! the footer needs.

use super::super::options::{ColumnOptions, StatisticsLevel, WriteOptions};
use super::super::schema::LeafColumn;
use super::super::statistics::{nan_bounds, statistics, Bounds, ColumnIndexBuilder};
use crate::format::{ColumnIndex, PhysicalType, SizeStatistics, Statistics};
use crate::schema::SortOrder;

/// The counts of the page being closed, as the writer framed it.
#[derive(Debug, Clone, Copy)]
pub(super) struct PageCounts {
    /// Records (rows of a flat column).
    pub rows: usize,
    /// Level entries (the page's `num_values`).
    pub values: usize,
    /// Entries without a value.
    pub nulls: usize,
}

/// The structures a finished chunk's statistics give the footer.
#[derive(Debug)]
pub(super) struct ChunkSummary {
    pub statistics: Option<Statistics>,
    pub size_statistics: Option<SizeStatistics>,
    pub column_index: Option<ColumnIndex>,
    /// Per page BYTE_ARRAY value bytes, for the OffsetIndex.
    pub page_byte_array_bytes: Option<Vec<i64>>,
}

/// The statistics of one leaf's open page and chunk.
#[derive(Debug)]
pub(super) struct ChunkStatistics {
    /// Bounds and null counts are kept (a level other than none, and an order to keep them in).
    bounds_on: bool,
    /// Per page too: header statistics and the ColumnIndex may be written.
    page_level: bool,
    order: SortOrder,
    physical_type: PhysicalType,
    is_string: bool,
    flat: bool,
    has_def: bool,
    has_rep: bool,
    truncate: Option<usize>,
    page_index: bool,
    header_statistics: bool,
    size_statistics: bool,
    page_bounds: Bounds,
    page_byte_array_bytes: u64,
    /// Level histograms of a nested leaf's open page and chunk (flat ones count nulls).
    page_def_histogram: Vec<i64>,
    page_rep_histogram: Vec<i64>,
    chunk_def_histogram: Vec<i64>,
    chunk_rep_histogram: Vec<i64>,
    chunk_bounds: Bounds,
    chunk_nulls: u64,
    chunk_byte_array_bytes: u64,
    chunk_page_bytes: Vec<i64>,
    column_index: ColumnIndexBuilder,
    /// For each dictionary value, the serial of the last page whose bounds it was folded into.
    dictionary_stamps: Vec<u32>,
    /// The dictionary indexes a page names, each once (reused from page to page).
    page_fresh: Vec<u32>,
    page_serial: u32,
}

impl ChunkStatistics {
    /// The statistics `options` ask for `leaf` (with its column's own `column` options).
    pub fn new(leaf: &LeafColumn, column: &ColumnOptions, options: &WriteOptions) -> Self {
        let bounds_on = column.statistics != StatisticsLevel::None && leaf.order != SortOrder::Undefined;
        ChunkStatistics {
            bounds_on,
            page_level: bounds_on && column.statistics == StatisticsLevel::Page,
            order: leaf.order,
            physical_type: leaf.physical_type,
            is_string: leaf.is_string,
            flat: leaf.nesting.is_empty(),
            has_def: leaf.max_def_level > 0,
            has_rep: leaf.max_rep_level > 0,
            truncate: options.statistics_truncate_length,
            page_index: options.page_index,
            header_statistics: options.page_header_statistics,
            size_statistics: options.size_statistics,
            page_bounds: Bounds::default(),
            page_byte_array_bytes: 0,
            page_def_histogram: vec![0; leaf.max_def_level as usize + 1],
            page_rep_histogram: vec![0; leaf.max_rep_level as usize + 1],
            chunk_def_histogram: vec![0; leaf.max_def_level as usize + 1],
            chunk_rep_histogram: vec![0; leaf.max_rep_level as usize + 1],
            chunk_bounds: Bounds::default(),
            chunk_nulls: 0,
            chunk_byte_array_bytes: 0,
            chunk_page_bytes: Vec::new(),
            column_index: ColumnIndexBuilder::new(),
            dictionary_stamps: Vec::new(),
            page_fresh: Vec::new(),
            page_serial: 0,
        }
    }

    /// The open page's bounds, for the values written next to be folded into; `None` when
    /// bounds are not kept, or come from the dictionary (`from_dictionary`) when the page
    /// ends.
    pub fn value_bounds(&mut self, from_dictionary: bool) -> Option<&mut Bounds> {
        (self.bounds_on && !from_dictionary).then_some(&mut self.page_bounds)
    }

    /// Adds the unencoded bytes of byte-array values written to the open page.
    pub fn add_byte_array_bytes(&mut self, bytes: u64) {
        self.page_byte_array_bytes += bytes;
    }

    /// Whether level histograms are kept (nested leaves pass theirs to [`Self::histograms`]).
    pub fn counts_levels(&self) -> bool {
        self.size_statistics
    }

    /// The open page's definition and repetition level histograms, to count a step's levels
    /// into.
    pub fn histograms(&mut self) -> (&mut Vec<i64>, &mut Vec<i64>) {
        (&mut self.page_def_histogram, &mut self.page_rep_histogram)
    }

    /// Folds into the open page's bounds the dictionary values its `indexes` name, each
    /// distinct value once; `value(i)` is dictionary value `i` of `dictionary_len`.
    pub fn fold_dictionary_page<'v>(
        &mut self,
        indexes: &[u32],
        dictionary_len: usize,
        value: impl Fn(u32) -> &'v [u8],
    ) {
        if !self.bounds_on {
            return;
        }
        if self.page_serial == u32::MAX {
            self.dictionary_stamps.clear();
            self.page_serial = 0;
        }
        self.page_serial += 1;
        let serial = self.page_serial;
        self.dictionary_stamps.resize(dictionary_len, 0);
        // The page's distinct indexes first, in a loop of its own, then their values folded:
        // one iterator doing both was 16 instructions an index.
        let (stamps, fresh) = (&mut self.dictionary_stamps, &mut self.page_fresh);
        fresh.clear();
        for &i in indexes {
            let stamp = &mut stamps[i as usize];
            if *stamp != serial {
                *stamp = serial;
                fresh.push(i);
            }
        }
        self.page_bounds.fold_bytes(self.order, fresh.iter().map(|&i| value(i)));
    }

    /// The statistics of the page about to be written, for its header (when asked for).
    pub fn page_header(&self, nulls: usize) -> Option<Statistics> {
        (self.page_level && self.header_statistics)
            .then(|| statistics(&self.page_bounds, nulls as u64, self.order, self.is_string, self.truncate))
    }

    /// After the open page was written: its entry in the ColumnIndex, and its counts added to
    /// the chunk's.
    pub fn end_page(&mut self, page: PageCounts) {
        if self.page_level && self.page_index {
            let all_nan = !self.page_bounds.is_set() && page.values > page.nulls;
            let bounds = if all_nan { nan_bounds(self.physical_type) } else { self.page_bounds.clone() };
            let nulls = page.nulls as u64;
            self.column_index.push(&bounds, nulls, self.order, self.is_string, self.truncate, !all_nan);
            if self.has_def && self.size_statistics {
                if self.flat {
                    let valid = (page.rows - page.nulls) as i64;
                    self.column_index.push_definition_histogram(&[page.nulls as i64, valid]);
                } else {
                    self.column_index.push_definition_histogram(&self.page_def_histogram);
                }
            }
            if self.has_rep && self.size_statistics {
                self.column_index.push_repetition_histogram(&self.page_rep_histogram);
            }
        }
        for (chunk, page) in [
            (&mut self.chunk_def_histogram, &mut self.page_def_histogram),
            (&mut self.chunk_rep_histogram, &mut self.page_rep_histogram),
        ] {
            chunk.iter_mut().zip(page.iter_mut()).for_each(|(c, p)| *c += std::mem::take(p));
        }
        self.chunk_page_bytes.push(self.page_byte_array_bytes as i64);
        self.chunk_bounds.merge(self.order, &self.page_bounds);
        self.chunk_nulls += page.nulls as u64;
        self.chunk_byte_array_bytes += self.page_byte_array_bytes;
        self.page_bounds.clear();
        self.page_byte_array_bytes = 0;
    }

    /// The finished chunk's structures (of `rows` rows); ready for the next chunk.
    pub fn finish_chunk(&mut self, rows: u64) -> ChunkSummary {
        // No statistics for a chunk of no rows, as pyarrow: there is nothing to bound.
        let bounds_on = self.bounds_on && rows > 0;
        let statistics = bounds_on
            .then(|| statistics(&self.chunk_bounds, self.chunk_nulls, self.order, self.is_string, self.truncate));
        let byte_array = self.physical_type == PhysicalType::BYTE_ARRAY;
        let size_statistics = self.size_statistics.then(|| SizeStatistics {
            unencoded_byte_array_data_bytes: byte_array.then_some(self.chunk_byte_array_bytes as i64),
            repetition_level_histogram: self.has_rep.then(|| self.chunk_rep_histogram.clone()),
            definition_level_histogram: self.has_def.then(|| match self.flat {
                true => vec![self.chunk_nulls as i64, (rows - self.chunk_nulls) as i64],
                false => self.chunk_def_histogram.clone(),
            }),
        });
        self.chunk_def_histogram.iter_mut().for_each(|c| *c = 0);
        self.chunk_rep_histogram.iter_mut().for_each(|c| *c = 0);
        let index = std::mem::replace(&mut self.column_index, ColumnIndexBuilder::new());
        let column_index = if bounds_on && self.page_level && self.page_index { index.finish() } else { None };
        let page_bytes = std::mem::take(&mut self.chunk_page_bytes);
        self.dictionary_stamps.clear();
        self.chunk_bounds.clear();
        self.chunk_nulls = 0;
        self.chunk_byte_array_bytes = 0;
        ChunkSummary {
            statistics,
            size_statistics,
            column_index,
            page_byte_array_bytes: (byte_array && self.size_statistics).then_some(page_bytes),
        }
    }
}
