//! Null rows spread into an [`OffsetsSink`]'s offsets in place.

use super::{OffsetSize, OffsetsSink};
use crate::encoding::SpreadRows;
use crate::error::{Error, Result};

impl<O: OffsetSize> OffsetsSink<O> {
    /// Spreads the dense values of one page over its rows: before the call the values from
    /// `first` on are the page's non-null values; after it there is one value per row of
    /// `rows`, a null row empty (ending where the row before it ends).
    ///
    /// The spread itself is `rows`' ([`SpreadRows::spread_ends`], shared with every other
    /// layout), which an `unsafe impl` promises keeps the ends in order: a pass here to check
    /// them cost lists_none 1% more instructions, so only debug builds make it. Release builds
    /// check the ends of the page (its start unchanged, the last at `data.len()`). A bitmap
    /// whose valid rows do not match the values is an error, and the sink then holds the
    /// values before `first` only, as a reader undoing the page wants.
    ///
    /// Never inlined: it runs once a page, and inlined into the decoder's `read` it pushed
    /// `read_indexes` out of line there.
    #[inline(never)]
    pub fn spread_nulls(&mut self, first: usize, rows: &impl SpreadRows) -> Result<()> {
        let Some(dense) = self.len().checked_sub(first) else {
            return Err(Error::invalid_argument(format!("no value {first} to spread from in {}", self.len())));
        };
        let n = rows.rows();
        if n == dense {
            return Ok(()); // no null row: nothing moves
        }
        let start = self.offsets[first];
        self.offsets.resize(first + 1 + n, O::default());
        let spread = rows.spread_ends(&mut self.offsets[first..], dense);
        let ends = &self.offsets[first..];
        let whole = ends.first().is_some_and(|e| e.as_usize() == start.as_usize())
            && ends.last().is_some_and(|e| e.as_usize() == self.data.len());
        if spread.is_ok() && whole {
            debug_assert!(never_decreasing(ends), "a spread that reported success broke the OffsetsSink invariant");
            return Ok(());
        }
        self.offsets.truncate(first + 1);
        self.offsets[first] = start;
        self.data.truncate(start.as_usize());
        spread.and(Err(Error::corrupt(format!("spreading {dense} values over {n} rows moved the page's ends"))))
    }
}

/// Whether `ends` never decreases (the debug builds' check of a spread).
fn never_decreasing<O: OffsetSize>(ends: &[O]) -> bool {
    ends.windows(2).all(|w| w[0].as_usize() <= w[1].as_usize())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::{ByteArraySink, TestRows};

    fn rows(valid: &[bool]) -> TestRows {
        TestRows::new(valid)
    }

    /// A sink whose offsets are `offsets` (starting at 0), over as many zero bytes as the last.
    fn sink_of<O: OffsetSize>(offsets: &[usize]) -> OffsetsSink<O> {
        let mut sink = OffsetsSink::new();
        for w in offsets.windows(2) {
            sink.push_owned(&vec![0; w[1] - w[0]]).unwrap();
        }
        sink
    }

    #[test]
    fn spread_offsets_in_place() {
        // Offsets before the page end at 7; the page's dense values end at 9, 9, 12.
        let mut sink = sink_of::<i32>(&[0, 7, 9, 9, 12]);
        sink.spread_nulls(1, &rows(&[false, true, false, true, true, false])).unwrap();
        assert_eq!(sink.offsets(), [0, 7, 7, 9, 9, 9, 12, 12]);
        // All valid: unchanged; all null: repeats.
        let mut sink = sink_of::<i64>(&[0, 3, 5]);
        sink.spread_nulls(0, &rows(&[true, true])).unwrap();
        assert_eq!(sink.offsets(), [0, 3, 5]);
        sink.spread_nulls(2, &rows(&[false; 3])).unwrap();
        assert_eq!(sink.offsets(), [0, 3, 5, 5, 5, 5]);
        // Zero rows of an empty sink, and one null row of it.
        let mut sink = OffsetsSink::<i32>::new();
        sink.spread_nulls(0, &rows(&[])).unwrap();
        sink.spread_nulls(0, &rows(&[false])).unwrap();
        assert_eq!((sink.offsets(), sink.data()), (&[0, 0][..], &[][..]));
    }

    /// Rows whose valid count does not match the values, or a first value past the sink, are
    /// refused, and the sink keeps the values before the page: with more valid rows the
    /// offsets would be taken from before the page.
    #[test]
    fn spread_refuses_a_miscounted_validity() {
        let mut sink = sink_of::<i32>(&[0, 2, 4]);
        assert!(sink.spread_nulls(1, &rows(&[true, true, true])).is_err());
        assert_eq!((sink.offsets(), sink.data().len()), (&[0, 2][..], 2));
        let mut sink = sink_of::<i32>(&[0, 2, 4]);
        assert!(sink.spread_nulls(3, &rows(&[false])).is_err());
        assert_eq!(sink.offsets(), [0, 2, 4]);
    }

    /// A spread that reports success but leaves the ends out of order breaks its `unsafe
    /// impl`'s promise: debug builds (every test run) catch it.
    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "broke the OffsetsSink invariant")]
    fn a_spread_that_breaks_the_order_is_caught_in_debug_builds() {
        let mut sink = sink_of::<i32>(&[0, 2, 4, 9]);
        let bad = TestRows { valid: vec![false, true, false, true, false], scramble: true };
        let _ = sink.spread_nulls(1, &bad);
    }
}
