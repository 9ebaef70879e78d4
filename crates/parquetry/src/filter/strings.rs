//! String tests that look at a column's array as a whole rather than at one value at a time.
//!
//! `=` and `LIKE 'p%'` on a view array are decided on the views (a value's length and first
//! bytes are in its view), reading a value's bytes only where its view agrees.
//!
//! `LIKE '%s%'`: one search over the bytes the values lie in. A search per value paid the searcher's start-up for every value: on TPC-H's `l_comment`
//! (6M values of 10-43 bytes) it was ~30% of `like_substring`'s time, against 43% for
//! decompressing the pages. The values of an array read from a page lie next to one another
//! (a view array points into the page, an offsets array holds them back to back), so one
//! search over that span finds every candidate, and a candidate is a match of the value it
//! starts in when it also ends inside it (one across two values is no match). After each
//! candidate the search goes on from the next byte, so a false candidate that starts in one
//! value and overlaps a true match in the next cannot hide it.

use arrow_array::types::{ByteArrayType, ByteViewType};
use arrow_array::{Array, GenericByteArray, GenericByteViewArray};
use arrow_buffer::{ArrowNativeType, BooleanBuffer};
use memchr::memmem::Finder;

/// Span bytes allowed per value byte before a search per value is the cheaper one (a view
/// array sliced out of a larger page would otherwise search bytes that are not its own).
const SPAN_PER_USED: usize = 2;

/// Span bytes a search over the span may always take, however few value bytes there are.
const SPAN_FREE: usize = 64 << 10;

/// Where `pattern` (not empty) occurs in each value of `array`, negated when `not`; `None`
/// where the values are spread too thinly over their buffers for one search to pay.
pub(super) fn in_views<T: ByteViewType + ?Sized>(
    array: &GenericByteViewArray<T>,
    pattern: &[u8],
    not: bool,
) -> Option<BooleanBuffer> {
    let views = array.views();
    let buffers = array.data_buffers();
    let m = pattern.len();
    if m == 0 {
        return None;
    }
    // The bytes of each buffer that the values stored out of line lie in.
    let mut spans = vec![(usize::MAX, 0usize); buffers.len()];
    let mut used = 0usize;
    for &v in views.iter() {
        let len = v as u32 as usize;
        if len > 12 {
            let (b, o) = ((v >> 64) as u32 as usize, (v >> 96) as u32 as usize);
            let span = spans.get_mut(b)?;
            if o + len > buffers[b].len() {
                return None;
            }
            *span = (span.0.min(o), span.1.max(o + len));
            used += len;
        }
    }
    let spanned: usize = spans.iter().map(|&(lo, hi)| hi.saturating_sub(lo)).sum();
    if spanned > SPAN_PER_USED * used + SPAN_FREE {
        return None;
    }
    let finder = Finder::new(pattern);
    let found: Vec<Vec<usize>> = spans
        .iter()
        .zip(buffers.iter())
        .map(|(&(lo, hi), buffer)| if hi > lo { starts(&finder, &buffer[lo..hi], lo) } else { Vec::new() })
        .collect();
    let mut cursors = vec![0usize; buffers.len()];
    Some(BooleanBuffer::collect_bool(views.len(), |i| {
        let v = views[i];
        let len = v as u32 as usize;
        let hit = if len <= 12 {
            let bytes = v.to_le_bytes();
            len >= m && bytes[4..4 + len].windows(m).any(|w| w == pattern)
        } else {
            let (b, o) = ((v >> 64) as u32 as usize, (v >> 96) as u32 as usize);
            len >= m && starts_within(&found[b], &mut cursors[b], o, o + len - m)
        };
        hit != not
    }))
}

/// As [`in_views`], for an array of offsets into one buffer of values.
pub(super) fn in_offsets<T: ByteArrayType>(
    array: &GenericByteArray<T>,
    pattern: &[u8],
    not: bool,
) -> Option<BooleanBuffer> {
    let m = pattern.len();
    let offsets = array.value_offsets();
    let (lo, hi) = (offsets.first()?.as_usize(), offsets.last()?.as_usize());
    if m == 0 || hi < lo || hi > array.value_data().len() {
        return None;
    }
    let found = starts(&Finder::new(pattern), &array.value_data()[lo..hi], lo);
    let mut cursor = 0;
    Some(BooleanBuffer::collect_bool(array.len(), |i| {
        let (start, end) = (offsets[i].as_usize(), offsets[i + 1].as_usize());
        let hit = end >= start + m && starts_within(&found, &mut cursor, start, end - m);
        hit != not
    }))
}

/// `= literal` (or `!=` when `not`) on a view array, decided on the views themselves: a
/// literal of up to 12 bytes is held whole in a matching view, a longer one must match the
/// view's length and 4-byte prefix before its bytes are compared. A point lookup on a string
/// column otherwise spent more time in `memcmp` than in building the views.
pub(super) fn view_equality<T: ByteViewType + ?Sized>(
    array: &GenericByteViewArray<T>,
    literal: &[u8],
    not: bool,
) -> BooleanBuffer {
    let views = array.views();
    let n = literal.len();
    let mut head = [0u8; 16];
    head[..4].copy_from_slice(&(n as u32).to_le_bytes());
    let eq = if n <= 12 {
        head[4..4 + n].copy_from_slice(literal);
        let want = u128::from_le_bytes(head);
        // Bytes past the value's end are padding, whatever a writer left there.
        let mask = if n == 12 { u128::MAX } else { (1u128 << (32 + 8 * n)) - 1 };
        BooleanBuffer::collect_bool(views.len(), |i| views[i] & mask == want)
    } else {
        head[4..8].copy_from_slice(&literal[..4]);
        let want = u64::from_le_bytes(head[..8].try_into().unwrap_or_default());
        BooleanBuffer::collect_bool(views.len(), |i| {
            views[i] as u64 == want && AsRef::<[u8]>::as_ref(array.value(i)) == literal
        })
    };
    if not {
        !&eq
    } else {
        eq
    }
}

/// `LIKE prefix%` (negated when `not`) on a view array: a value shorter than the prefix, or
/// whose first bytes (in its view) differ from the prefix's, fails without a look at its
/// bytes. A search per value spent ~15% of `like_prefix`'s time comparing bytes.
pub(super) fn view_starts_with<T: ByteViewType + ?Sized>(
    array: &GenericByteViewArray<T>,
    prefix: &[u8],
    not: bool,
) -> BooleanBuffer {
    let views = array.views();
    let k = prefix.len().min(4);
    let mut head = [0u8; 4];
    head[..k].copy_from_slice(&prefix[..k]);
    let want = u32::from_le_bytes(head);
    // Only the prefix's own bytes: past a short value's end a view holds padding.
    let mask = if k == 4 { u32::MAX } else { (1u32 << (8 * k)) - 1 };
    let (n, long) = (prefix.len() as u64, prefix.len() > 4);
    let r = BooleanBuffer::collect_bool(views.len(), |i| {
        let v = views[i];
        u64::from(v as u32) >= n
            && (v >> 32) as u32 & mask == want
            && (!long || AsRef::<[u8]>::as_ref(array.value(i)).starts_with(prefix))
    });
    if not {
        !&r
    } else {
        r
    }
}

/// Every position (plus `base`) where `finder`'s pattern starts in `hay`, overlapping ones
/// included, in order.
fn starts(finder: &Finder, hay: &[u8], base: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(i) = finder.find(&hay[at..]) {
        out.push(base + at + i);
        at += i + 1;
        if at >= hay.len() {
            break;
        }
    }
    out
}

/// Whether a position of `found` (sorted) lies in `first..=last`. `cursor` is where the
/// previous question left off: values mostly come in the order of their bytes, so it moves
/// forward, and is searched for again when a value lies before it.
fn starts_within(found: &[usize], cursor: &mut usize, first: usize, last: usize) -> bool {
    if first > last {
        return false;
    }
    if *cursor > found.len() || (*cursor > 0 && found[*cursor - 1] >= first) {
        *cursor = found.partition_point(|&p| p < first);
    }
    while *cursor < found.len() && found[*cursor] < first {
        *cursor += 1;
    }
    *cursor < found.len() && found[*cursor] <= last
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{BinaryViewArray, LargeStringArray, StringArray, StringViewArray};

    /// The answer of a search per value, the independent reference.
    fn each(values: &[Option<&str>], pattern: &str, not: bool) -> Vec<bool> {
        values.iter().map(|v| v.is_some_and(|v| v.contains(pattern)) != not).collect()
    }

    fn bits(b: BooleanBuffer) -> Vec<bool> {
        b.iter().collect()
    }

    #[test]
    fn one_search_over_the_span_matches_a_search_per_value() {
        // Matches across two values ("ab" + "c" holds "bc"), overlapping ones ("aaa"),
        // values shorter than the pattern, inline (<= 12 bytes) and out-of-line values.
        let mut values: Vec<Option<&str>> = vec![
            Some("xxxxxxxxxxxxxab"),
            Some("cxxxxxxxxxxxxxx"),
            Some("aa"),
            Some("aaaaaaaaaaaaaaaaa"),
            Some("b"),
            Some("bc"),
            Some("short abc"),
            Some(""),
            Some("the pattern abc at the end abc"),
            Some("xxxxxxxxxxxxxxxxxxxxxxxxa"),
            Some("bcxxxxxxxxxxxxxxxxxxxxxx"),
        ];
        let long: Vec<String> = (0..3000).map(|i| format!("value number {i} {}", "ab".repeat(i % 7))).collect();
        values.extend(long.iter().map(|s| Some(s.as_str())));
        for pattern in ["abc", "bc", "aa", "a", "abab", "value number 29", "zzz", "xxxxxxxxxxxxxxxxxxxxxxxxxx"] {
            for not in [false, true] {
                let want = each(&values, pattern, not);
                let views = StringViewArray::from(values.clone());
                assert_eq!(bits(in_views(&views, pattern.as_bytes(), not).unwrap()), want, "{pattern}");
                let binary = BinaryViewArray::from_iter(values.iter().map(|v| v.map(str::as_bytes)));
                assert_eq!(bits(in_views(&binary, pattern.as_bytes(), not).unwrap()), want, "{pattern}");
                let utf8 = StringArray::from(values.clone());
                assert_eq!(bits(in_offsets(&utf8, pattern.as_bytes(), not).unwrap()), want, "{pattern}");
                let large = LargeStringArray::from(values.clone());
                assert_eq!(bits(in_offsets(&large, pattern.as_bytes(), not).unwrap()), want, "{pattern}");
            }
        }
    }

    #[test]
    fn prefixes_on_views_match_a_test_per_value() {
        let long: Vec<String> = (0..500).map(|i| format!("{}special {i} and more", "sp".repeat(i % 3))).collect();
        let mut values: Vec<Option<&str>> = vec![
            Some(""),
            None,
            Some("s"),
            Some("sp"),
            Some("spe"),
            Some("spec"),
            Some("special"),
            Some("specia"),
            Some("special-12ch"),
            Some("special-13chr"),
            Some("xpecial long value here"),
        ];
        values.extend(long.iter().map(|s| Some(s.as_str())));
        for prefix in ["", "s", "sp", "spe", "spec", "speci", "special", "special-12ch", "special-13chr", "spspecial 1"]
        {
            for not in [false, true] {
                let want: Vec<bool> = values.iter().map(|v| v.unwrap_or("").starts_with(prefix) != not).collect();
                let views = StringViewArray::from(values.clone());
                assert_eq!(bits(view_starts_with(&views, prefix.as_bytes(), not)), want, "{prefix} {not}");
            }
        }
    }

    #[test]
    fn slices_and_views_out_of_order_are_answered_per_value() {
        let values: Vec<String> = (0..5000).map(|i| format!("{i:05} a longer value {}", i % 11)).collect();
        let all = StringViewArray::from_iter_values(values.iter());
        // Views in reverse order of their bytes: the cursor is searched for again.
        let reversed: StringViewArray =
            arrow_select::take::take(&all, &arrow_array::UInt32Array::from_iter_values((0..5000).rev()), None)
                .unwrap()
                .as_any()
                .downcast_ref::<StringViewArray>()
                .unwrap()
                .clone();
        let want: Vec<bool> = values.iter().rev().map(|v| v.contains("value 1")).collect();
        assert_eq!(bits(in_views(&reversed, b"value 1", false).unwrap()), want);
        // A slice: its span is its own values'.
        let want: Vec<bool> = values[100..103].iter().map(|v| v.contains("01 a")).collect();
        assert_eq!(bits(in_views(&all.slice(100, 3), b"01 a", false).unwrap()), want);
        // Every 50th value: their buffers hold 50 times the bytes they use, so one search over
        // the buffers would not pay, and there is no answer here (the caller searches each).
        let sparse =
            arrow_select::take::take(&all, &arrow_array::UInt32Array::from_iter_values((0..5000).step_by(50)), None)
                .unwrap();
        assert!(in_views(sparse.as_any().downcast_ref::<StringViewArray>().unwrap(), b"value", false).is_none());
        let sliced = StringArray::from_iter_values(values.iter()).slice(1000, 400);
        let want: Vec<bool> = values[1000..1400].iter().map(|v| v.contains("value 3")).collect();
        assert_eq!(bits(in_offsets(&sliced, b"value 3", false).unwrap()), want);
    }
}
