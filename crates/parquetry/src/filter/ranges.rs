//! Sets of row numbers as sorted, disjoint, non-adjacent ranges: what page pruning produces
//! and what the reader's row selection takes.

use std::ops::Range;

/// Sorted, disjoint ranges of rows with no two touching.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct RowRanges(pub Vec<Range<u64>>);

impl RowRanges {
    /// All rows of `range` (none if it is empty).
    pub fn full(range: Range<u64>) -> RowRanges {
        RowRanges(if range.is_empty() { Vec::new() } else { vec![range] })
    }

    /// From ranges in order (possibly touching or empty): merged.
    pub fn from_sorted(ranges: impl IntoIterator<Item = Range<u64>>) -> RowRanges {
        let mut out: Vec<Range<u64>> = Vec::new();
        for r in ranges {
            if r.is_empty() {
                continue;
            }
            match out.last_mut() {
                Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
                _ => out.push(r),
            }
        }
        RowRanges(out)
    }

    /// The rows in both.
    pub fn intersect(&self, other: &RowRanges) -> RowRanges {
        let (a, b) = (&self.0, &other.0);
        let (mut i, mut j, mut out) = (0, 0, Vec::new());
        while i < a.len() && j < b.len() {
            let (s, e) = (a[i].start.max(b[j].start), a[i].end.min(b[j].end));
            if s < e {
                out.push(s..e);
            }
            if a[i].end < b[j].end {
                i += 1;
            } else {
                j += 1;
            }
        }
        RowRanges(out)
    }

    /// The rows in either.
    pub fn union(&self, other: &RowRanges) -> RowRanges {
        let mut all: Vec<Range<u64>> = self.0.iter().chain(&other.0).cloned().collect();
        all.sort_by_key(|r| r.start);
        RowRanges::from_sorted(all)
    }

    /// How many rows.
    pub fn rows(&self) -> u64 {
        self.0.iter().map(|r| r.end - r.start).sum()
    }

    /// Whether any row of `range` is in the set.
    pub fn overlaps(&self, range: &Range<u64>) -> bool {
        let i = self.0.partition_point(|r| r.end <= range.start);
        self.0.get(i).is_some_and(|r| r.start < range.end)
    }
}

/// Whether `ranges` are what a row selection must be: non-empty, in order, not overlapping.
pub(crate) fn well_formed(ranges: &[Range<u64>]) -> bool {
    ranges.iter().all(|r| r.start < r.end) && ranges.windows(2).all(|w| w[0].end <= w[1].start)
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)] // one-range selections are selections
mod tests {
    use super::*;

    #[test]
    fn set_operations_merge_and_cut() {
        let a = RowRanges::from_sorted([0..10, 10..12, 20..30, 31..31]);
        assert_eq!(a.0, vec![0..12, 20..30]);
        let b = RowRanges(vec![5..25, 29..40]);
        assert_eq!(a.intersect(&b).0, vec![5..12, 20..25, 29..30]);
        assert_eq!(a.union(&b).0, vec![0..40]);
        assert_eq!(a.rows(), 22);
        assert!(a.overlaps(&(11..15)) && !a.overlaps(&(12..20)) && a.overlaps(&(29..100)));
        assert!(well_formed(&[0..1, 1..2]) && !well_formed(&[0..2, 1..3]) && !well_formed(&[3..3]));
    }
}
