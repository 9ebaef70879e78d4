//! Page pruning with the page index: a column chunk's ColumnIndex (per-page bounds and null
//! counts) and OffsetIndex (where each page is, and its first row) give, for each page, the
//! rows it holds and whether any of them may match. The rows of pages that may are the row
//! group's candidate rows; the reader's row selection then passes over the other pages
//! without reading them.
//!
//! An index is used only if it checks out as a whole: both indexes decode, have one entry per
//! page, the pages' first rows rise from 0 within the row group and their offsets lie inside
//! the chunk, and null counts fit the pages' rows. Otherwise the chunk is treated as one page
//! of unknown values (all its rows are candidates). A single page whose bounds do not decode
//! or are out of order is likewise a page of unknown values.

use std::ops::Range;

use super::bind::{nan_possible, BoundColumn, Node};
use super::ranges::RowRanges;
use super::statistics::{leaf_may_match, Stats};
use crate::format::thrift::decode;
use crate::format::{ColumnChunk, ColumnIndex, OffsetIndex, RowGroup};
use crate::page::{chunk_byte_range, ChunkSource};

/// The pages of one column chunk, as far as the page index tells.
#[derive(Debug, Clone)]
pub(crate) struct ChunkPages {
    /// Each page's rows (within the row group) and what is known of its values.
    pub pages: Vec<(Range<u64>, Stats)>,
    /// Each page's compressed bytes (with its header).
    pub bytes: Vec<u64>,
}

/// The byte ranges [`read`] reads for `columns` in the row groups `rgs`: each chunk's
/// OffsetIndex, and its ColumnIndex where statistics can be used. Named to the source before
/// reading, they come in few requests: writers put the indexes of a file together.
pub(crate) fn ranges<'a>(columns: &[BoundColumn], rgs: impl Iterator<Item = &'a RowGroup>) -> Vec<(u64, u64)> {
    let range = |offset: Option<i64>, len: Option<i32>| Some((u64::try_from(offset?).ok()?, u64::try_from(len?).ok()?));
    let mut out = Vec::new();
    for rg in rgs {
        for c in columns {
            let Some(chunk) = rg.columns.get(c.leaf) else { continue };
            out.extend(range(chunk.offset_index_offset, chunk.offset_index_length));
            if c.stats_domain.is_some() {
                out.extend(range(chunk.column_index_offset, chunk.column_index_length));
            }
        }
    }
    out
}

/// Reads and checks the page index of `chunk` (a row group of `rows` rows) for `column`:
/// the pages, or `None` if the chunk has no usable index. `index_bytes` counts the bytes
/// read.
pub(crate) fn read<S: ChunkSource>(
    source: &S,
    chunk: &ColumnChunk,
    column: &BoundColumn,
    rows: u64,
    index_bytes: &mut u64,
) -> Option<ChunkPages> {
    let meta = chunk.meta_data.as_ref()?;
    let fetch = |offset: Option<i64>, len: Option<i32>, bytes: &mut u64| {
        let (offset, len) = (u64::try_from(offset?).ok()?, usize::try_from(len?).ok()?);
        if offset.checked_add(len as u64)? > source.len() {
            return None;
        }
        *bytes += len as u64;
        source.read_at(offset, len).ok()
    };
    let offsets = fetch(chunk.offset_index_offset, chunk.offset_index_length, index_bytes)?;
    let (offsets, _) = decode::<OffsetIndex>(offsets.as_slice()).ok()?;
    let (start, len) = chunk_byte_range(meta, source.len(), false).ok()?;
    let locations = &offsets.page_locations;
    let first = locations.first()?;
    let ordered =
        locations.windows(2).all(|w| w[0].offset < w[1].offset && w[0].first_row_index < w[1].first_row_index);
    let inside = locations.iter().all(|l| {
        let (o, size) = (l.offset as u64, l.compressed_page_size as i64);
        l.offset >= 0 && size > 0 && o >= start && o + size as u64 <= start + len
    });
    let last_row = locations.last().map_or(0, |l| l.first_row_index);
    if !ordered || !inside || first.first_row_index != 0 || last_row < 0 || last_row as u64 >= rows {
        return None;
    }
    let page_rows: Vec<Range<u64>> = (0..locations.len())
        .map(|i| {
            let end = locations.get(i + 1).map_or(rows, |l| l.first_row_index as u64);
            locations[i].first_row_index as u64..end
        })
        .collect();
    let bytes: Vec<u64> = locations.iter().map(|l| l.compressed_page_size as u64).collect();
    let n = locations.len();
    let unknown =
        |page_rows: &[Range<u64>]| page_rows.iter().map(|r| (r.clone(), Stats::unknown(r.end - r.start))).collect();
    // Without usable statistics (or a ColumnIndex), pages are still counted.
    let Some(index) = (column.stats_domain.is_some())
        .then(|| fetch(chunk.column_index_offset, chunk.column_index_length, index_bytes))
        .flatten()
        .and_then(|b| decode::<ColumnIndex>(b.as_slice()).ok().map(|(c, _)| c))
    else {
        return Some(ChunkPages { pages: unknown(&page_rows), bytes });
    };
    let counts_ok = index
        .null_counts
        .as_ref()
        .is_none_or(|c| c.len() == n && c.iter().zip(&page_rows).all(|(&k, r)| k >= 0 && k as u64 <= r.end - r.start));
    let lengths_ok = index.null_pages.len() == n && index.min_values.len() == n && index.max_values.len() == n;
    if !counts_ok || !lengths_ok {
        return Some(ChunkPages { pages: unknown(&page_rows), bytes });
    }
    let mut pages = Vec::with_capacity(n);
    for (i, r) in page_rows.iter().cloned().enumerate() {
        let page_len = r.end - r.start;
        let null_count = index.null_counts.as_ref().map(|c| c[i]);
        let stats = if index.null_pages[i] {
            // A null page must have all its rows null if the counts say anything.
            match null_count {
                Some(k) if k as u64 != page_len => return Some(ChunkPages { pages: unknown(&page_rows), bytes }),
                _ => Stats { bounds: None, null_count: Some(page_len), rows: page_len },
            }
        } else {
            let (lo, hi) = (&index.min_values[i], &index.max_values[i]);
            Stats::checked(column, Some(lo), Some(hi), null_count, page_len)
        };
        pages.push((r, stats));
    }
    Some(ChunkPages { pages, bytes })
}

/// The rows (within a row group of `rows` rows) that may satisfy `node` (`negated`: its
/// negation), given each column's pages (`None`: nothing known, every row may).
pub(crate) fn candidate_rows<'a>(
    node: &Node,
    negated: bool,
    columns: &[BoundColumn],
    pages: &dyn Fn(usize) -> Option<&'a ChunkPages>,
    rows: u64,
) -> RowRanges {
    match (node, negated) {
        (Node::And(a, b), false) | (Node::Or(a, b), true) => {
            let a = candidate_rows(a, negated, columns, pages, rows);
            if a.0.is_empty() {
                return a;
            }
            a.intersect(&candidate_rows(b, negated, columns, pages, rows))
        }
        (Node::Or(a, b), false) | (Node::And(a, b), true) => {
            candidate_rows(a, negated, columns, pages, rows).union(&candidate_rows(b, negated, columns, pages, rows))
        }
        (Node::Not(p), _) => candidate_rows(p, !negated, columns, pages, rows),
        (Node::Leaf(i, test), _) => match pages(*i) {
            None => RowRanges::full(0..rows),
            Some(chunk) => {
                let nan = nan_possible(columns[*i].stats_domain);
                let may = chunk.pages.iter().filter(|(_, s)| leaf_may_match(test, negated, s, nan));
                RowRanges::from_sorted(may.map(|(r, _)| r.clone()))
            }
        },
    }
}
