//! [`ScanMetrics`]: what a filtered read pruned and read at each level.

/// What a filtered read pruned and read, level by level: counts, not times, so that tests
/// and benchmarks can check that pruning happened.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanMetrics {
    /// Row groups the read considered (all, or those the options name).
    pub row_groups_total: usize,
    /// Row groups skipped because their statistics rule out a match.
    pub row_groups_pruned: usize,
    /// Row groups skipped because no value of a column's dictionary (every data page of the
    /// chunk dictionary-encoded) passes an `=`, `IN`, prefix or substring test.
    pub row_groups_pruned_by_dictionary: usize,
    /// Bytes of dictionary pages read to prune row groups.
    pub dictionary_bytes_read: u64,
    /// Row groups skipped because a column's bloom filter has none of an `=` or `IN` test's
    /// values.
    pub row_groups_pruned_by_bloom_filter: usize,
    /// Bytes of bloom filters read to prune row groups.
    pub bloom_filter_bytes_read: u64,
    /// Data pages of the predicate's columns in the row groups left, as their OffsetIndex
    /// lists them (chunks without a usable page index are not counted).
    pub pages_total: usize,
    /// Those of them holding no candidate row: not read at all.
    pub pages_pruned: usize,
    /// Compressed bytes (with headers) of the pruned pages.
    pub page_bytes_pruned: u64,
    /// Bytes of ColumnIndex and OffsetIndex structures read to prune pages.
    pub index_bytes_read: u64,
    /// Rows of the row groups considered.
    pub rows_total: u64,
    /// Rows left after pruning (and the caller's row selection): the rows decoded.
    pub rows_candidate: u64,
    /// Rows decoded so far.
    pub rows_decoded: u64,
    /// Rows that matched and were returned so far.
    pub rows_selected: u64,
    /// Row groups read with late materialization so far: the predicate's columns first,
    /// then the others only at the matching rows.
    pub late_row_groups: usize,
    /// Rows of the predicate's columns decoded in those first passes.
    pub predicate_rows_decoded: u64,
    /// String columns only the filter reads, read as dictionaries (indexes and values) so
    /// that each test runs once per dictionary value rather than once per row.
    pub columns_read_as_dictionaries: usize,
    /// Of those, the ones whose tests involve no other column: read straight from their
    /// dictionary indexes as the tests' result per row, without building keys.
    pub columns_read_as_masks: usize,
}

impl std::fmt::Display for ScanMetrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "row groups: {} of {} pruned by statistics, {} by dictionaries ({} dictionary bytes read), \
             {} by bloom filters",
            self.row_groups_pruned,
            self.row_groups_total,
            self.row_groups_pruned_by_dictionary,
            self.dictionary_bytes_read,
            self.row_groups_pruned_by_bloom_filter
        )?;
        writeln!(
            f,
            "pages (predicate columns): {} of {} pruned by the page index ({} bytes; {} index bytes read)",
            self.pages_pruned, self.pages_total, self.page_bytes_pruned, self.index_bytes_read
        )?;
        writeln!(
            f,
            "rows: {} total, {} candidates, {} decoded, {} selected",
            self.rows_total, self.rows_candidate, self.rows_decoded, self.rows_selected
        )?;
        writeln!(
            f,
            "late materialization: {} row groups ({} rows of the predicate's columns decoded first)",
            self.late_row_groups, self.predicate_rows_decoded
        )?;
        write!(
            f,
            "filter-only string columns: {} read as dictionaries, {} of them as masks",
            self.columns_read_as_dictionaries, self.columns_read_as_masks
        )
    }
}
