//! Row selection: which rows of a file to read, as ranges of row numbers, turned into the
//! skips and reads each row group's column readers make.
//!
//! Row numbers count from the file's first row (row group 0 starts at 0), whichever row
//! groups are read. A row group without a selected row is not opened at all; inside one,
//! the rows between two ranges are skipped by the column readers, which pass over pages
//! wholly inside a skip without decompressing them and walk the rest without producing
//! values.

use std::collections::VecDeque;
use std::ops::Range;

use crate::error::{Error, Result};

/// One step through a row group: pass over rows, or read them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Pass over this many rows.
    Skip(usize),
    /// Read this many rows.
    Read(usize),
}

/// Checks that `ranges` are non-empty, in order, do not overlap and end within the file's
/// `rows` rows.
pub(crate) fn check(ranges: &[Range<u64>], rows: u64) -> Result<()> {
    let mut end = 0u64;
    for (i, r) in ranges.iter().enumerate() {
        if r.start >= r.end {
            return Err(Error::invalid_argument(format!("row selection: range {i} ({}..{}) is empty", r.start, r.end)));
        }
        if i > 0 && r.start < end {
            return Err(Error::invalid_argument(format!(
                "row selection: range {i} ({}..{}) starts before the range before it ends ({end}); \
                 ranges must be in order and must not overlap",
                r.start, r.end
            )));
        }
        if r.end > rows {
            return Err(Error::invalid_argument(format!(
                "row selection: range {i} ({}..{}) ends past the file's {rows} rows",
                r.start, r.end
            )));
        }
        end = r.end;
    }
    Ok(())
}

/// The steps through the row group whose rows are `first..first + rows` of the file, for the
/// selection `ranges` (checked by [`check`]); no step at all if no row of it is selected,
/// and no trailing skip.
pub(crate) fn steps(ranges: &[Range<u64>], first: u64, rows: usize) -> VecDeque<Step> {
    let end = first + rows as u64;
    let mut out = VecDeque::new();
    let mut at = first;
    // The first range that ends after the row group starts.
    let from = ranges.partition_point(|r| r.end <= first);
    for r in &ranges[from..] {
        if r.start >= end {
            break;
        }
        let (s, e) = (r.start.max(first), r.end.min(end));
        if s > at {
            out.push_back(Step::Skip((s - at) as usize));
        }
        out.push_back(Step::Read((e - s) as usize));
        at = e;
    }
    out
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)] // one-range selections are selections
mod tests {
    use super::*;

    #[test]
    fn steps_cover_the_selected_rows_of_each_row_group() {
        let ranges = [2..5, 8..12, 30..31];
        // Row groups of 10 rows: 0..10, 10..20, 20..30, 30..40.
        assert_eq!(steps(&ranges, 0, 10), [Step::Skip(2), Step::Read(3), Step::Skip(3), Step::Read(2)]);
        assert_eq!(steps(&ranges, 10, 10), [Step::Read(2)]);
        assert!(steps(&ranges, 20, 10).is_empty());
        assert_eq!(steps(&ranges, 30, 10), [Step::Read(1)]);
        assert!(steps(&ranges, 40, 10).is_empty());
        assert_eq!(steps(&[0..100], 10, 10), [Step::Read(10)]);
    }

    #[test]
    fn bad_selections_are_refused_with_the_range_named() {
        assert!(check(&[0..5, 5..6], 6).is_ok());
        let e = check(&[0..5, 4..6], 10).unwrap_err().to_string();
        assert!(e.contains("range 1 (4..6)") && e.contains("overlap"), "{e}");
        let e = check(&[3..3], 10).unwrap_err().to_string();
        assert!(e.contains("empty"), "{e}");
        let e = check(&[5..11], 10).unwrap_err().to_string();
        assert!(e.contains("past the file's 10 rows"), "{e}");
        let e = check(&[5..6, 1..2], 10).unwrap_err().to_string();
        assert!(e.contains("in order"), "{e}");
    }
}
