//! Chunk statistics of a merged chunk, from the inputs' statistics alone (no value is
//! decoded): min/max compared in the column's order, null counts and SizeStatistics summed.
//! Whatever one input lacks, the output lacks too.

use std::cmp::Ordering;

use crate::format::{ColumnIndex, SizeStatistics, Statistics};
use crate::schema::SortOrder;

/// Merged chunk statistics: `None` once any input had none.
#[derive(Debug)]
pub(crate) struct StatisticsMerger {
    order: SortOrder,
    stats: Option<Statistics>,
    first: bool,
    size: Option<SizeStatistics>,
    index: Option<ColumnIndex>,
    page_bytes: Option<Vec<i64>>,
}

impl StatisticsMerger {
    /// An empty merger for a column of `order`.
    pub fn new(order: SortOrder) -> Self {
        StatisticsMerger { order, stats: None, first: true, size: None, index: None, page_bytes: Some(Vec::new()) }
    }

    /// Folds in one input chunk's statistics, size statistics, column index and per-page
    /// BYTE_ARRAY sizes (its OffsetIndex's).
    pub fn add(
        &mut self,
        stats: Option<&Statistics>,
        size: Option<&SizeStatistics>,
        index: Option<ColumnIndex>,
        page_bytes: Option<Vec<i64>>,
    ) {
        let first = std::mem::replace(&mut self.first, false);
        self.stats = match (first, self.stats.take(), stats) {
            (true, _, Some(s)) => Some(s.clone()),
            (false, Some(acc), Some(s)) => merge_statistics(self.order, acc, s),
            _ => None,
        };
        self.size = match (first, self.size.take(), size) {
            (true, _, Some(s)) => Some(s.clone()),
            (false, Some(acc), Some(s)) => Some(merge_size(acc, s)),
            _ => None,
        };
        self.index = match (first, self.index.take(), index) {
            (true, _, Some(i)) => Some(i),
            (false, Some(acc), Some(i)) => merge_index(acc, i),
            _ => None,
        };
        self.page_bytes = self.page_bytes.take().zip(page_bytes).map(|(mut acc, b)| {
            acc.extend(b);
            acc
        });
    }

    /// The merged statistics, size statistics, column index and per-page BYTE_ARRAY sizes;
    /// the last two only if they cover all `pages` data pages of the output chunk.
    #[allow(clippy::type_complexity)]
    pub fn finish(
        self,
        pages: usize,
    ) -> (Option<Statistics>, Option<SizeStatistics>, Option<ColumnIndex>, Option<Vec<i64>>) {
        let index = self.index.filter(|i| i.null_pages.len() == pages);
        let page_bytes = self.page_bytes.filter(|b| b.len() == pages);
        (self.stats, self.size, index, page_bytes)
    }
}

fn merge_statistics(order: SortOrder, mut acc: Statistics, s: &Statistics) -> Option<Statistics> {
    acc.null_count = acc.null_count.zip(s.null_count).map(|(a, b)| a + b);
    acc.distinct_count = None;
    acc.nan_count = acc.nan_count.zip(s.nan_count).map(|(a, b)| a + b);
    // The deprecated signed-order fields are dropped: their order may not be the column's.
    acc.min = None;
    acc.max = None;
    let keep_bounds = order != SortOrder::Undefined;
    match (acc.min_value.take(), s.min_value.as_ref()) {
        (Some(a), Some(b)) if keep_bounds => {
            if order.compare(b, &a) == Ordering::Less {
                acc.min_value = Some(b.clone());
                acc.is_min_value_exact = s.is_min_value_exact;
            } else {
                acc.min_value = Some(a);
            }
        }
        _ => acc.is_min_value_exact = None,
    }
    match (acc.max_value.take(), s.max_value.as_ref()) {
        (Some(a), Some(b)) if keep_bounds => {
            if order.compare(b, &a) == Ordering::Greater {
                acc.max_value = Some(b.clone());
                acc.is_max_value_exact = s.is_max_value_exact;
            } else {
                acc.max_value = Some(a);
            }
        }
        _ => acc.is_max_value_exact = None,
    }
    Some(acc)
}

fn add_histograms(a: Option<Vec<i64>>, b: &Option<Vec<i64>>) -> Option<Vec<i64>> {
    match (a, b) {
        (Some(mut a), Some(b)) if a.len() == b.len() => {
            a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
            Some(a)
        }
        _ => None,
    }
}

fn merge_size(acc: SizeStatistics, s: &SizeStatistics) -> SizeStatistics {
    SizeStatistics {
        unencoded_byte_array_data_bytes: acc
            .unencoded_byte_array_data_bytes
            .zip(s.unencoded_byte_array_data_bytes)
            .map(|(a, b)| a + b),
        repetition_level_histogram: add_histograms(acc.repetition_level_histogram, &s.repetition_level_histogram),
        definition_level_histogram: add_histograms(acc.definition_level_histogram, &s.definition_level_histogram),
    }
}

fn merge_index(mut acc: ColumnIndex, i: ColumnIndex) -> Option<ColumnIndex> {
    acc.null_pages.extend(i.null_pages);
    acc.min_values.extend(i.min_values);
    acc.max_values.extend(i.max_values);
    acc.null_counts = acc.null_counts.zip(i.null_counts).map(|(mut a, b)| {
        a.extend(b);
        a
    });
    let concat = |a: Option<Vec<i64>>, b: Option<Vec<i64>>| {
        a.zip(b).map(|(mut a, b)| {
            a.extend(b);
            a
        })
    };
    acc.repetition_level_histograms = concat(acc.repetition_level_histograms, i.repetition_level_histograms);
    acc.definition_level_histograms = concat(acc.definition_level_histograms, i.definition_level_histograms);
    acc.nan_counts = concat(acc.nan_counts, i.nan_counts);
    // Ordered within each input says nothing about the order across inputs.
    acc.boundary_order = crate::format::BoundaryOrder::UNORDERED;
    Some(acc)
}
