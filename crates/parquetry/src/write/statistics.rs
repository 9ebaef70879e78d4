//! Min/max statistics as the spec orders them, for pages (the column index) and chunks.
//!
//! Bounds are kept as PLAIN-encoded bytes (what the footer stores) and compared in the
//! column's order only when a page's or slice's own bounds are folded in: the per-value work is
//! a typed min/max loop over a slice ([`Bounds::fold_i32`] and friends), or a byte comparison
//! against the running bounds for byte arrays, never a conversion per value.

use std::cmp::Ordering;

use crate::format::{BoundaryOrder, ColumnIndex, Statistics};
use crate::schema::SortOrder;

/// The running min and max of a page or a chunk, PLAIN-encoded.
#[derive(Debug, Clone, Default)]
pub(crate) struct Bounds {
    min: Vec<u8>,
    max: Vec<u8>,
    set: bool,
}

impl Bounds {
    /// Whether any non-null (non-NaN) value was seen.
    pub fn is_set(&self) -> bool {
        self.set
    }

    /// The minimum, PLAIN-encoded.
    pub fn min(&self) -> &[u8] {
        &self.min
    }

    /// The maximum, PLAIN-encoded.
    pub fn max(&self) -> &[u8] {
        &self.max
    }

    /// Forgets the bounds (a new page or chunk).
    pub fn clear(&mut self) {
        self.set = false;
    }

    /// Folds in a candidate min and max (PLAIN bytes) under `order`.
    pub fn fold(&mut self, order: SortOrder, min: &[u8], max: &[u8]) {
        if !self.set {
            self.min.clear();
            self.min.extend_from_slice(min);
            self.max.clear();
            self.max.extend_from_slice(max);
            self.set = true;
            return;
        }
        if order.compare(min, &self.min) == Ordering::Less {
            self.min.clear();
            self.min.extend_from_slice(min);
        }
        if order.compare(max, &self.max) == Ordering::Greater {
            self.max.clear();
            self.max.extend_from_slice(max);
        }
    }

    /// Folds in another page's or chunk's bounds.
    pub fn merge(&mut self, order: SortOrder, other: &Bounds) {
        if other.set {
            self.fold(order, &other.min, &other.max);
        }
    }

    /// Folds in INT32 values (signed, or unsigned when `order` says so).
    pub fn fold_i32(&mut self, order: SortOrder, values: &[i32]) {
        let Some((min, max)) = (match order {
            SortOrder::Unsigned => min_max(values.iter().map(|&v| v as u32)).map(|(a, b)| (a as i32, b as i32)),
            _ => min_max(values.iter().copied()),
        }) else {
            return;
        };
        self.fold(order, &min.to_le_bytes(), &max.to_le_bytes());
    }

    /// Folds in INT64 values (signed, or unsigned when `order` says so).
    pub fn fold_i64(&mut self, order: SortOrder, values: &[i64]) {
        let Some((min, max)) = (match order {
            SortOrder::Unsigned => min_max(values.iter().map(|&v| v as u64)).map(|(a, b)| (a as i64, b as i64)),
            _ => min_max(values.iter().copied()),
        }) else {
            return;
        };
        self.fold(order, &min.to_le_bytes(), &max.to_le_bytes());
    }

    /// Folds in FLOAT values, leaving NaN out; a zero minimum is written as -0.0 and a zero
    /// maximum as +0.0, as the spec asks, so that either zero is inside the bounds.
    pub fn fold_f32(&mut self, values: &[f32]) {
        if let Some((min, max)) = float_min_max(values.iter().map(|&v| v as f64)) {
            let (min, max) = (min as f32, max as f32);
            let min = if min == 0.0 { -0.0f32 } else { min };
            let max = if max == 0.0 { 0.0f32 } else { max };
            self.fold(SortOrder::Float, &min.to_le_bytes(), &max.to_le_bytes());
        }
    }

    /// Folds in DOUBLE values, as [`Bounds::fold_f32`].
    pub fn fold_f64(&mut self, values: &[f64]) {
        if let Some((min, max)) = float_min_max(values.iter().copied()) {
            let min = if min == 0.0 { -0.0f64 } else { min };
            let max = if max == 0.0 { 0.0f64 } else { max };
            self.fold(SortOrder::Float, &min.to_le_bytes(), &max.to_le_bytes());
        }
    }

    /// Folds in BOOLEAN values.
    pub fn fold_bool(&mut self, any_false: bool, any_true: bool) {
        if any_false || any_true {
            self.fold(SortOrder::Boolean, &[u8::from(!any_false)], &[u8::from(any_true)]);
        }
    }

    /// Folds in byte-array values (or fixed-width byte values) under `order`.
    pub fn fold_bytes<'v>(&mut self, order: SortOrder, values: impl IntoIterator<Item = &'v [u8]>) {
        let mut values = values.into_iter();
        let Some(first) = values.by_ref().find(|v| order != SortOrder::Float16 || !is_nan16(v)) else {
            return;
        };
        let (mut min, mut max) = (first, first);
        if order == SortOrder::Bytes {
            // Every value between min and max shares their common prefix, so the 8 bytes
            // after it (`o`: that prefix in whole words), as a big-endian number, order most
            // values against both at once: `https://www.example...` and `category_...` share
            // their first 8 bytes, and compared from the start each took two long comparisons.
            // A value without the prefix lies outside the range and is compared whole, as are
            // values whose 8 bytes tie.
            let mut o = 0usize;
            let (mut min_key, mut max_key) = (prefix_key(first), prefix_key(first));
            for v in values {
                if v.len() >= o && same_words(&v[..o], &min[..o]) {
                    let k = prefix_key(&v[o..]);
                    if k < min_key || (k == min_key && cmp_bytes(v, min) == Ordering::Less) {
                        min = v;
                    } else if k > max_key || (k == max_key && cmp_bytes(v, max) == Ordering::Greater) {
                        max = v;
                    } else {
                        continue;
                    }
                } else if cmp_bytes(v, min) == Ordering::Less {
                    min = v;
                } else if cmp_bytes(v, max) == Ordering::Greater {
                    max = v;
                } else {
                    continue;
                }
                o = common_words(min, max);
                (min_key, max_key) = (prefix_key(&min[o..]), prefix_key(&max[o..]));
            }
            self.fold(order, min, max);
            return;
        }
        for v in values {
            if order == SortOrder::Float16 && is_nan16(v) {
                continue;
            }
            if order.compare(v, min) == Ordering::Less {
                min = v;
            } else if order.compare(v, max) == Ordering::Greater {
                max = v;
            }
        }
        if order == SortOrder::Float16 {
            // -0.0 and +0.0 as for FLOAT and DOUBLE.
            let zero = |v: &[u8]| u16::from_le_bytes([v[0], v[1]]) & 0x7fff == 0;
            let min: &[u8] = if zero(min) { &[0x00, 0x80] } else { min };
            let max: &[u8] = if zero(max) { &[0x00, 0x00] } else { max };
            self.fold(order, min, max);
        } else {
            self.fold(order, min, max);
        }
    }
}

/// `a == b` for two slices of one length, a whole number of 8-byte words, without a call.
#[inline]
fn same_words(a: &[u8], b: &[u8]) -> bool {
    a.chunks_exact(8).zip(b.chunks_exact(8)).all(|(x, y)| word(x) == word(y))
}

/// The bytes `a` and `b` share at their start, rounded down to whole 8-byte words.
fn common_words(a: &[u8], b: &[u8]) -> usize {
    a.chunks_exact(8).zip(b.chunks_exact(8)).take_while(|(x, y)| word(x) == word(y)).count() * 8
}

/// An 8-byte chunk as one number (one load, no call to compare slices).
#[inline(always)]
fn word(chunk: &[u8]) -> u64 {
    u64::from_ne_bytes(chunk.try_into().unwrap_or_default())
}

/// `v`'s first 8 bytes, zero-padded, as a big-endian number: if two keys differ, so do the
/// values, in the same order.
#[inline]
fn prefix_key(v: &[u8]) -> u64 {
    if let Some(head) = v.first_chunk::<8>() {
        // A fixed-size load: the copy below, of variable length, is a call to memcpy.
        return u64::from_be_bytes(*head);
    }
    // Shorter (the tail of `category_042` after its common 8 bytes): fixed-size loads too,
    // since copying `n` bytes into a zeroed word is a call to memcpy per value.
    let n = v.len();
    if n >= 4 {
        let word = |at: usize| u64::from(u32::from_be_bytes(v[at..at + 4].try_into().unwrap_or_default()));
        // The last 4 bytes, shifted so that `v[4..n]` follows the first 4 and zeros follow them.
        return word(0) << 32 | (word(n - 4) << (8 * (8 - n))) & 0xFFFF_FFFF;
    }
    v.iter().enumerate().fold(0, |key, (i, &b)| key | u64::from(b) << (56 - 8 * i))
}

/// Bounds of NaN alone, for the column index entry of a page whose only non-null values are
/// NaN: it is not a null page, and NaN is the one bound that covers its values.
pub(crate) fn nan_bounds(physical: crate::format::PhysicalType) -> Bounds {
    let nan: Vec<u8> = match physical {
        crate::format::PhysicalType::FLOAT => f32::NAN.to_le_bytes().to_vec(),
        crate::format::PhysicalType::DOUBLE => f64::NAN.to_le_bytes().to_vec(),
        _ => 0x7e00u16.to_le_bytes().to_vec(),
    };
    Bounds { min: nan.clone(), max: nan, set: true }
}

/// Lexicographic comparison 8 bytes at a time without a call: values that share a long
/// prefix (`category_…`, `https://www.example…`) otherwise cost a `memcmp` call per value.
#[inline]
fn cmp_bytes(a: &[u8], b: &[u8]) -> Ordering {
    let (mut x, mut y) = (a, b);
    while x.len() >= 8 && y.len() >= 8 {
        let (p, q) = (prefix_key(x), prefix_key(y));
        if p != q {
            return p.cmp(&q);
        }
        (x, y) = (&x[8..], &y[8..]);
    }
    // Under 8 bytes left on one side: byte by byte, inline (`x.cmp(y)` is a call to memcmp).
    for (a, b) in x.iter().zip(y) {
        if a != b {
            return a.cmp(b);
        }
    }
    x.len().cmp(&y.len())
}

fn min_max<T: Ord + Copy>(mut values: impl Iterator<Item = T>) -> Option<(T, T)> {
    let first = values.next()?;
    Some(values.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v))))
}

fn float_min_max(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut any = false;
    for v in values {
        // NaN fails both comparisons, so it never becomes a bound.
        if v < lo {
            lo = v;
        }
        if v > hi {
            hi = v;
        }
        any |= !v.is_nan();
    }
    any.then_some((lo, hi))
}

fn is_nan16(v: &[u8]) -> bool {
    let bits = u16::from_le_bytes([v[0], v[1]]);
    bits & 0x7c00 == 0x7c00 && bits & 0x03ff != 0
}

/// A min or max ready for the footer: possibly truncated, with whether it is exact.
pub(crate) struct Bound {
    pub bytes: Vec<u8>,
    pub exact: bool,
}

/// `bounds` as footer values, truncating long byte arrays to `limit` bytes: the minimum to a
/// prefix, the maximum to a prefix with its last byte (or, for UTF-8, character) incremented,
/// so both stay bounds. Only unsigned-lexicographic values are truncated.
pub(crate) fn truncated(bounds: &Bounds, order: SortOrder, utf8: bool, limit: Option<usize>) -> Option<(Bound, Bound)> {
    if !bounds.is_set() || order == SortOrder::Undefined {
        return None;
    }
    let (min, max) = (bounds.min(), bounds.max());
    let limit = match limit {
        Some(l) if order == SortOrder::Bytes => l,
        _ => return Some((Bound { bytes: min.to_vec(), exact: true }, Bound { bytes: max.to_vec(), exact: true })),
    };
    let min = if min.len() > limit {
        Bound { bytes: min[..prefix_len(min, limit, utf8)].to_vec(), exact: false }
    } else {
        Bound { bytes: min.to_vec(), exact: true }
    };
    let max = if max.len() > limit {
        match increment_prefix(max, limit, utf8) {
            Some(bytes) => Bound { bytes, exact: false },
            None => Bound { bytes: max.to_vec(), exact: true },
        }
    } else {
        Bound { bytes: max.to_vec(), exact: true }
    };
    Some((min, max))
}

fn prefix_len(v: &[u8], limit: usize, utf8: bool) -> usize {
    let mut n = limit.min(v.len());
    // A UTF-8 continuation byte is 0b10xx_xxxx: back up to a character start.
    while utf8 && n > 0 && n < v.len() && v[n] & 0xc0 == 0x80 {
        n -= 1;
    }
    n
}

/// The shortest value above every value starting with `v`'s first `limit` bytes, if any.
fn increment_prefix(v: &[u8], limit: usize, utf8: bool) -> Option<Vec<u8>> {
    let mut out = v[..prefix_len(v, limit, utf8)].to_vec();
    if utf8 {
        let text = std::str::from_utf8(&out).ok()?.to_owned();
        let mut chars: Vec<char> = text.chars().collect();
        while let Some(c) = chars.pop() {
            let next = (c as u32 + 1..=char::MAX as u32).find_map(char::from_u32);
            if let Some(n) = next {
                chars.push(n);
                return Some(chars.into_iter().collect::<String>().into_bytes());
            }
        }
        return None;
    }
    while let Some(last) = out.pop() {
        if last < 0xff {
            out.push(last + 1);
            return Some(out);
        }
    }
    None
}

/// The `Statistics` of a chunk or page.
pub(crate) fn statistics(
    bounds: &Bounds,
    null_count: u64,
    order: SortOrder,
    utf8: bool,
    limit: Option<usize>,
) -> Statistics {
    let mut s = Statistics { null_count: Some(null_count as i64), ..Default::default() };
    if let Some((min, max)) = truncated(bounds, order, utf8, limit) {
        // The deprecated fields are signed-order only: write them just where that is the
        // column's order, as Arrow C++ does, so old readers never misuse them.
        if matches!(order, SortOrder::Signed | SortOrder::Boolean | SortOrder::Float) {
            s.min = Some(min.bytes.as_slice().into());
            s.max = Some(max.bytes.as_slice().into());
        }
        s.is_min_value_exact = Some(min.exact);
        s.is_max_value_exact = Some(max.exact);
        s.min_value = Some(min.bytes.into());
        s.max_value = Some(max.bytes.into());
    }
    s
}

/// Builds a chunk's ColumnIndex page by page.
#[derive(Debug, Default)]
pub(crate) struct ColumnIndexBuilder {
    index: ColumnIndex,
    ascending: bool,
    descending: bool,
    /// False once a page's bounds could not be stored (then no index is written).
    valid: bool,
    last: Option<(Vec<u8>, Vec<u8>)>,
}

impl ColumnIndexBuilder {
    /// An empty index.
    pub fn new() -> Self {
        ColumnIndexBuilder {
            index: ColumnIndex { null_counts: Some(Vec::new()), ..Default::default() },
            ascending: true,
            descending: true,
            valid: true,
            last: None,
        }
    }

    /// Adds one page's entry. `ordered` is false for a page whose bounds say nothing about
    /// the order of the pages (NaN bounds of a page of NaN), which then does not take part in
    /// the boundary order, as null pages do not.
    pub fn push(
        &mut self,
        bounds: &Bounds,
        null_count: u64,
        order: SortOrder,
        utf8: bool,
        limit: Option<usize>,
        ordered: bool,
    ) {
        if let Some(n) = self.index.null_counts.as_mut() {
            n.push(null_count as i64);
        }
        match truncated(bounds, order, utf8, limit) {
            Some((min, max)) if !ordered => {
                self.index.null_pages.push(false);
                self.index.min_values.push(min.bytes);
                self.index.max_values.push(max.bytes);
            }
            Some((min, max)) => {
                if let Some((lmin, lmax)) = &self.last {
                    let (a, d) = (
                        order.compare(lmin, &min.bytes) != Ordering::Greater
                            && order.compare(lmax, &max.bytes) != Ordering::Greater,
                        order.compare(lmin, &min.bytes) != Ordering::Less
                            && order.compare(lmax, &max.bytes) != Ordering::Less,
                    );
                    self.ascending &= a;
                    self.descending &= d;
                }
                self.last = Some((min.bytes.clone(), max.bytes.clone()));
                self.index.null_pages.push(false);
                self.index.min_values.push(min.bytes);
                self.index.max_values.push(max.bytes);
            }
            None if order == SortOrder::Undefined => self.valid = false,
            None => {
                self.index.null_pages.push(true);
                self.index.min_values.push(Vec::new());
                self.index.max_values.push(Vec::new());
            }
        }
    }

    /// Adds a page's definition level histogram (for columns with levels).
    pub fn push_definition_histogram(&mut self, histogram: &[i64]) {
        self.index.definition_level_histograms.get_or_insert_with(Vec::new).extend_from_slice(histogram);
    }

    /// Adds a page's repetition level histogram (for columns under lists).
    pub fn push_repetition_histogram(&mut self, histogram: &[i64]) {
        self.index.repetition_level_histograms.get_or_insert_with(Vec::new).extend_from_slice(histogram);
    }

    /// The finished index, or `None` when the column has no order to index by.
    pub fn finish(mut self) -> Option<ColumnIndex> {
        if !self.valid {
            return None;
        }
        self.index.boundary_order = match (self.ascending, self.descending) {
            (true, _) => BoundaryOrder::ASCENDING,
            (false, true) => BoundaryOrder::DESCENDING,
            _ => BoundaryOrder::UNORDERED,
        };
        Some(self.index)
    }
}

#[cfg(test)]
#[path = "statistics_tests.rs"]
mod tests;
