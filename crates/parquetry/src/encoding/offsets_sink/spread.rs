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
    /// layout); the sink checks what it gets back, one pass over the page's offsets: the
    /// page's start unchanged, never decreasing, the last at `data.len()`. A bitmap whose valid
    /// rows do not match the values (or a spread that broke the order) is an error, and the
    /// sink then holds the values before `first` only, as a reader undoing the page wants.
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
        // Folded rather than `all`, so that the pass has no early exit and vectorises.
        let ordered = ends.windows(2).fold(true, |ok, w| ok & (w[0].as_usize() <= w[1].as_usize()));
        let whole = ordered
            && ends.first().is_some_and(|e| e.as_usize() == start.as_usize())
            && ends.last().is_some_and(|e| e.as_usize() == self.data.len());
        if spread.is_ok() && whole {
            return Ok(());
        }
        debug_assert!(spread.is_err(), "a spread that reported success broke the OffsetsSink invariant");
        self.offsets.truncate(first + 1);
        self.offsets[first] = start;
        self.data.truncate(start.as_usize());
        spread.and(Err(Error::corrupt(format!("spreading {dense} values over {n} rows left them out of order"))))
    }
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

    /// A spread that reports success but leaves the ends out of order is caught: an error in
    /// release builds (the sink cut back to before the page), a panic in debug builds.
    #[test]
    #[cfg_attr(debug_assertions, should_panic(expected = "broke the OffsetsSink invariant"))]
    fn a_spread_that_breaks_the_order_is_caught() {
        let mut sink = sink_of::<i32>(&[0, 2, 4, 9]);
        let bad = TestRows { valid: vec![true, false, true], scramble: true };
        assert!(sink.spread_nulls(1, &bad).is_err());
        assert_eq!((sink.offsets(), sink.data().len()), (&[0, 2][..], 2));
    }
}
