//! How the byte ranges a read names become requests: merged where the gap between them costs
//! less than a request (up to a longest request), and cut into parts when asked.

use std::ops::Range;

/// `ranges` (sorted) with those longer than `part` cut into parts of `part` bytes (the last
/// shorter): requests that arrive one after another rather than all at once.
pub(crate) fn split(ranges: &[Range<u64>], part: u64) -> Vec<Range<u64>> {
    let part = part.max(1);
    let mut out = Vec::with_capacity(ranges.len());
    for r in ranges {
        let mut at = r.start;
        while r.end - at > part {
            out.push(at..at + part);
            at += part;
        }
        out.push(at..r.end);
    }
    out
}

/// Sorts `ranges` and merges those closer than `gap` (and overlapping ones), as long as a
/// merged range stays within `max_len` bytes (a range longer by itself stays whole): a long
/// read-ahead then comes in several requests at once, each usable as soon as it arrives.
/// A range given is never split, so a page inside one lies inside one merged range.
pub fn coalesce(ranges: &[Range<u64>], gap: u64, max_len: u64) -> Vec<Range<u64>> {
    coalesce_growing(ranges, gap, max_len, max_len)
}

/// Like [`coalesce`], with the first merged range within `first_len` bytes and each next
/// within twice the one before, up to `max_len`: the bytes needed first come in a short
/// request, the rest in fewer, longer ones.
pub fn coalesce_growing(ranges: &[Range<u64>], gap: u64, first_len: u64, max_len: u64) -> Vec<Range<u64>> {
    let mut limit = first_len.min(max_len);
    let mut sorted: Vec<Range<u64>> = ranges.iter().filter(|r| r.start < r.end).cloned().collect();
    sorted.sort_by_key(|r| r.start);
    let mut out: Vec<Range<u64>> = Vec::with_capacity(sorted.len());
    for r in sorted {
        match out.last_mut() {
            Some(last) if r.start < last.end => last.end = last.end.max(r.end),
            Some(last) if r.start <= last.end.saturating_add(gap) && r.end - last.start <= limit => last.end = r.end,
            Some(_) => {
                limit = limit.saturating_mul(2).min(max_len);
                out.push(r)
            }
            None => out.push(r),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{coalesce, coalesce_growing, split};

    #[test]
    fn long_ranges_are_cut_into_parts() {
        assert_eq!(split(&[0..25, 30..38, 40..50], 10), vec![0..10, 10..20, 20..25, 30..38, 40..50]);
        assert!(split(&[], 10).is_empty());
    }

    #[test]
    fn ranges_closer_than_the_gap_merge() {
        assert_eq!(coalesce(&[20..30, 0..10, 12..15, 100..110], 2, 1000), vec![0..15, 20..30, 100..110]);
        assert_eq!(coalesce(&[0..10, 5..8, 9..20], 0, 1000), vec![0..20]);
        assert_eq!(coalesce(&[5..5, 0..1], 100, 1000), vec![0..1]);
        assert!(coalesce(&[], 1, 1000).is_empty());
        // No merged range past the longest request; a longer range stays whole.
        assert_eq!(coalesce(&[0..10, 10..20, 20..30, 30..70, 70..75], 0, 20), vec![0..20, 20..30, 30..70, 70..75]);
    }

    #[test]
    fn merged_ranges_grow_from_the_first() {
        let pieces: Vec<_> = (0..16).map(|i| i * 10..i * 10 + 10).collect();
        // Up to 20 bytes, then 40, then 80 (the longest).
        assert_eq!(coalesce_growing(&pieces, 0, 20, 80), vec![0..20, 20..60, 60..140, 140..160]);
        // A range longer than the limit by itself stays whole, and the limit still grows.
        assert_eq!(coalesce_growing(&[0..50, 50..60, 60..70], 0, 10, 1000), vec![0..50, 50..70]);
    }
}
