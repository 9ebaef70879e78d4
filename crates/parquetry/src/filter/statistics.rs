//! Whether a set of rows (a row group, a page) can hold a match, from its statistics: the
//! bounds of its values and its null count.
//!
//! Pruning must never lose a row, so everything here answers "maybe" unless the statistics
//! prove otherwise, and statistics that do not check out are not used at all: bounds that do
//! not decode as the column's type, a minimum above the maximum, a NaN bound, a null count
//! above the row count, or a sort order the spec leaves undefined (INT96, an order this
//! version does not know). Bounds that are not exact (`is_min_value_exact = false`, a
//! truncated string) are still bounds: every value lies between them, which is all pruning
//! uses.

use std::cmp::Ordering;

use super::bind::{nan_possible, BoundColumn, Node};
use super::expr::CmpOp;
use super::literal::{prefix_upper_bound, Domain, IntKind, Key, Test};
use crate::format::{PhysicalType, Statistics};

/// What is known of the values of a set of rows.
#[derive(Debug, Clone, Default)]
pub(crate) struct Stats {
    /// Bounds of the non-null values, both or neither.
    pub bounds: Option<(Key, Key)>,
    /// Nulls among the rows, if known.
    pub null_count: Option<u64>,
    /// The rows.
    pub rows: u64,
}

impl Stats {
    /// Nothing known but the row count: every test may match.
    pub fn unknown(rows: u64) -> Stats {
        Stats { bounds: None, null_count: None, rows }
    }

    /// Bounds and null count checked: bounds that decode and are in order, a null count
    /// within the rows; anything else is dropped.
    pub fn checked(
        column: &BoundColumn,
        min: Option<&[u8]>,
        max: Option<&[u8]>,
        null_count: Option<i64>,
        rows: u64,
    ) -> Stats {
        let null_count = null_count.and_then(|n| u64::try_from(n).ok()).filter(|&n| n <= rows);
        let bounds = match (min.and_then(|b| decode(column, b)), max.and_then(|b| decode(column, b))) {
            (Some(lo), Some(hi)) if lo.compare(&hi).is_some_and(|o| o != Ordering::Greater) => Some((lo, hi)),
            _ => None,
        };
        Stats { bounds, null_count, rows }
    }

    /// A column chunk's statistics (from the footer), checked.
    pub fn of_chunk(column: &BoundColumn, stats: Option<&Statistics>, rows: u64) -> Stats {
        let Some(s) = stats else { return Stats::unknown(rows) };
        // The deprecated fields hold signed-order bounds: right only for signed columns.
        let (min, max) = match (&s.min_value, &s.max_value) {
            (Some(lo), Some(hi)) => (Some(&lo[..]), Some(&hi[..])),
            _ if column.legacy_stats_ok => (s.min.as_deref(), s.max.as_deref()),
            _ => (None, None),
        };
        Stats::checked(column, min, max, s.null_count, rows)
    }

    fn all_null(&self) -> bool {
        self.null_count == Some(self.rows)
    }
}

/// A statistics bound (PLAIN bytes without a length prefix) as a key of the column's
/// domain; `None` if it does not decode.
pub(crate) fn decode(column: &BoundColumn, bytes: &[u8]) -> Option<Key> {
    let domain = column.stats_domain?;
    let unsigned = !column.legacy_stats_ok && matches!(domain, Domain::Int(IntKind::Plain));
    match (column.physical, domain) {
        (PhysicalType::BOOLEAN, Domain::Bool) => match bytes {
            [b] if *b <= 1 => Some(Key::Bool(*b == 1)),
            _ => None,
        },
        (PhysicalType::INT32, Domain::Int(_)) => {
            let v = i32::from_le_bytes(bytes.try_into().ok()?);
            Some(Key::Int(if unsigned { v as u32 as i128 } else { v as i128 }))
        }
        (PhysicalType::INT64, Domain::Int(_)) => {
            let v = i64::from_le_bytes(bytes.try_into().ok()?);
            Some(Key::Int(if unsigned { v as u64 as i128 } else { v as i128 }))
        }
        (PhysicalType::FLOAT, Domain::Float { .. }) => float(f32::from_le_bytes(bytes.try_into().ok()?) as f64),
        (PhysicalType::DOUBLE, Domain::Float { .. }) => float(f64::from_le_bytes(bytes.try_into().ok()?)),
        (PhysicalType::FIXED_LEN_BYTE_ARRAY, Domain::Float { .. }) => {
            float(f16_to_f64(u16::from_le_bytes(bytes.try_into().ok()?)))
        }
        (PhysicalType::BYTE_ARRAY | PhysicalType::FIXED_LEN_BYTE_ARRAY, Domain::Int(IntKind::Decimal(_))) => {
            big_endian_signed(bytes).map(Key::Int)
        }
        (PhysicalType::BYTE_ARRAY | PhysicalType::FIXED_LEN_BYTE_ARRAY, Domain::Bytes) => {
            Some(Key::Bytes(bytes.to_vec()))
        }
        _ => None,
    }
}

/// An IEEE 754 half precision float, from its bits.
pub(crate) fn f16_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let (exp, frac) = ((bits >> 10) & 0x1F, (bits & 0x3FF) as f64);
    sign * match exp {
        0 => frac * 2f64.powi(-24),
        0x1F if frac == 0.0 => f64::INFINITY,
        0x1F => f64::NAN,
        e => (1.0 + frac / 1024.0) * 2f64.powi(e as i32 - 15),
    }
}

/// Whether `pattern` occurs in `value`.
pub(crate) fn contains(value: &[u8], pattern: &[u8]) -> bool {
    pattern.is_empty() || value.windows(pattern.len()).any(|w| w == pattern)
}

/// A NaN bound says nothing (writers should leave NaN out of bounds; some did not).
fn float(v: f64) -> Option<Key> {
    (!v.is_nan()).then_some(Key::Float(v))
}

/// A big-endian two's complement integer of 1 to 16 bytes (longer if the extra leading bytes
/// only extend the sign).
fn big_endian_signed(bytes: &[u8]) -> Option<i128> {
    let (&first, _) = bytes.split_first()?;
    let fill = if first & 0x80 != 0 { 0xFF } else { 0 };
    let skip = bytes.len().saturating_sub(16);
    if bytes[..skip].iter().any(|&b| b != fill) || (skip > 0 && (bytes[skip] & 0x80 != 0) != (fill == 0xFF)) {
        return None;
    }
    let mut buf = [fill; 16];
    buf[16 - (bytes.len() - skip)..].copy_from_slice(&bytes[skip..]);
    Some(i128::from_be_bytes(buf))
}

/// Whether any row may satisfy `node` (with `negated`, its negation), given whether any
/// value of column `i` may satisfy a test (or its negation): `leaf(i, test, negated)`.
pub(crate) fn may_match(node: &Node, negated: bool, leaf: &mut dyn FnMut(usize, &Test, bool) -> bool) -> bool {
    match (node, negated) {
        (Node::And(a, b), false) | (Node::Or(a, b), true) => may_match(a, negated, leaf) && may_match(b, negated, leaf),
        (Node::Or(a, b), false) | (Node::And(a, b), true) => may_match(a, negated, leaf) || may_match(b, negated, leaf),
        (Node::Not(p), _) => may_match(p, !negated, leaf),
        (Node::Leaf(i, test), _) => leaf(*i, test, negated),
    }
}

/// [`leaf_may_match`] for column `i` of `columns` with statistics `s`.
pub(crate) fn column_may_match(columns: &[BoundColumn], i: usize, test: &Test, negated: bool, s: &Stats) -> bool {
    leaf_may_match(test, negated, s, nan_possible(columns[i].stats_domain))
}

/// Whether a value among rows with statistics `s` may satisfy `test` (or, `negated`, its
/// negation, which like the test itself is never true for a null).
pub(crate) fn leaf_may_match(test: &Test, negated: bool, s: &Stats, nan: bool) -> bool {
    if s.rows == 0 {
        return false;
    }
    if let Test::IsNull(not) = test {
        return match *not != negated {
            false => s.null_count != Some(0),
            true => !s.all_null(),
        };
    }
    if s.all_null() {
        return false; // every other test is null (not true) on a null
    }
    let Some((lo, hi)) = &s.bounds else { return true };
    // `a op b`, true when unknown (NaN or mixed domains).
    let holds = |a: &Key, op: CmpOp, b: &Key| match a.compare(b) {
        None => true,
        Some(o) => match op {
            CmpOp::Eq => o == Ordering::Equal,
            CmpOp::Ne => o != Ordering::Equal,
            CmpOp::Lt => o == Ordering::Less,
            CmpOp::Le => o != Ordering::Greater,
            CmpOp::Gt => o == Ordering::Greater,
            CmpOp::Ge => o != Ordering::Less,
        },
    };
    // Every non-null value equals `v` (a NaN, not in the bounds, would not).
    let all_equal = |v: &Key| !nan && lo.compare(v) == Some(Ordering::Equal) && hi.compare(v) == Some(Ordering::Equal);
    match (test, negated) {
        (Test::Cmp(op, v), _) => {
            let op = match negated {
                false => *op,
                // NOT (x < v) also holds for NaN, which no bound shows.
                true if nan && !matches!(op, CmpOp::Eq | CmpOp::Ne) => return true,
                true => op.negate(),
            };
            match op {
                CmpOp::Eq => holds(lo, CmpOp::Le, v) && holds(hi, CmpOp::Ge, v),
                CmpOp::Ne => !all_equal(v),
                CmpOp::Lt => holds(lo, CmpOp::Lt, v),
                CmpOp::Le => holds(lo, CmpOp::Le, v),
                CmpOp::Gt => holds(hi, CmpOp::Gt, v),
                CmpOp::Ge => holds(hi, CmpOp::Ge, v),
            }
        }
        (Test::In(keys, not), _) if *not == negated => {
            keys.iter().any(|v| holds(lo, CmpOp::Le, v) && holds(hi, CmpOp::Ge, v))
        }
        (Test::In(keys, _), _) => !keys.iter().any(all_equal),
        (Test::StartsWith(prefix, not), _) => {
            let (Key::Bytes(lo), Key::Bytes(hi)) = (lo, hi) else { return true };
            match *not != negated {
                // Values starting with the prefix lie in [prefix, upper bound).
                false => hi.as_slice() >= prefix.as_slice() && prefix_upper_bound(prefix).is_none_or(|up| lo < &up),
                // If both bounds start with it, so does every value between them.
                true => !(lo.starts_with(prefix) && hi.starts_with(prefix)),
            }
        }
        (Test::Contains(pattern, not), _) => match (lo, hi) {
            // Bounds say nothing about the middle of a value, unless there is one value.
            (Key::Bytes(lo), Key::Bytes(hi)) if lo == hi => contains(lo, pattern) != (*not != negated),
            _ => true,
        },
        (Test::IsNull(_), _) => true, // answered above
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int_column(physical: PhysicalType) -> BoundColumn {
        BoundColumn {
            path: "x".into(),
            leaf: 0,
            stats_domain: Some(Domain::Int(IntKind::Plain)),
            physical,
            legacy_stats_ok: true,
            type_length: 0,
        }
    }

    fn ints(lo: i128, hi: i128, nulls: u64, rows: u64) -> Stats {
        Stats { bounds: Some((Key::Int(lo), Key::Int(hi))), null_count: Some(nulls), rows }
    }

    #[test]
    fn comparisons_prune_only_what_the_bounds_exclude() {
        let s = ints(10, 20, 0, 100);
        let may = |op, v| leaf_may_match(&Test::Cmp(op, Key::Int(v)), false, &s, false);
        assert!(may(CmpOp::Eq, 10) && may(CmpOp::Eq, 20) && !may(CmpOp::Eq, 21) && !may(CmpOp::Eq, 9));
        assert!(!may(CmpOp::Lt, 10) && may(CmpOp::Le, 10) && !may(CmpOp::Gt, 20) && may(CmpOp::Ge, 20));
        assert!(may(CmpOp::Ne, 10));
        let one = ints(7, 7, 0, 5);
        assert!(!leaf_may_match(&Test::Cmp(CmpOp::Ne, Key::Int(7)), false, &one, false));
        // With NaN possible, != and NOT < cannot be ruled out by bounds.
        let f = Stats { bounds: Some((Key::Float(1.0), Key::Float(1.0))), null_count: Some(0), rows: 5 };
        assert!(leaf_may_match(&Test::Cmp(CmpOp::Ne, Key::Float(1.0)), false, &f, true));
        assert!(leaf_may_match(&Test::Cmp(CmpOp::Lt, Key::Float(5.0)), true, &f, true));
        assert!(!leaf_may_match(&Test::Cmp(CmpOp::Lt, Key::Float(5.0)), true, &one_float(), false));
        // -0 and +0 are equal.
        let z = Stats { bounds: Some((Key::Float(0.0), Key::Float(0.0))), null_count: None, rows: 5 };
        assert!(leaf_may_match(&Test::Cmp(CmpOp::Eq, Key::Float(-0.0)), false, &z, true));
    }

    fn one_float() -> Stats {
        Stats { bounds: Some((Key::Float(1.0), Key::Float(1.0))), null_count: Some(0), rows: 5 }
    }

    #[test]
    fn null_counts_decide_null_tests_and_all_null_chunks() {
        let all_null = Stats { bounds: None, null_count: Some(4), rows: 4 };
        assert!(!leaf_may_match(&Test::Cmp(CmpOp::Ne, Key::Int(1)), false, &all_null, false));
        assert!(!leaf_may_match(&Test::IsNull(true), false, &all_null, false));
        assert!(leaf_may_match(&Test::IsNull(false), false, &all_null, false));
        assert!(!leaf_may_match(&Test::IsNull(false), false, &ints(1, 2, 0, 4), false));
        assert!(leaf_may_match(&Test::IsNull(false), false, &Stats::unknown(4), false));
    }

    #[test]
    fn statistics_that_do_not_check_out_are_dropped() {
        let c = int_column(PhysicalType::INT32);
        let s = Stats::checked(&c, Some(&9i32.to_le_bytes()), Some(&3i32.to_le_bytes()), Some(0), 10);
        assert!(s.bounds.is_none(), "min > max");
        let s = Stats::checked(&c, Some(&[1, 2, 3]), Some(&3i32.to_le_bytes()), Some(11), 10);
        assert!(s.bounds.is_none() && s.null_count.is_none(), "short bound, null count past the rows");
        let s = Stats::checked(&c, Some(&(-3i32).to_le_bytes()), Some(&3i32.to_le_bytes()), Some(-1), 10);
        assert_eq!(s.bounds, Some((Key::Int(-3), Key::Int(3))));
        assert!(s.null_count.is_none());
        let mut u = int_column(PhysicalType::INT32);
        u.legacy_stats_ok = false; // UINT_32: the bytes are unsigned
        assert_eq!(decode(&u, &(-1i32).to_le_bytes()), Some(Key::Int(u32::MAX as i128)));
    }

    #[test]
    fn decimals_decode_from_big_endian_bytes() {
        assert_eq!(big_endian_signed(&[0xFF, 0x38]), Some(-200));
        assert_eq!(big_endian_signed(&[0x01, 0x00]), Some(256));
        let mut long = vec![0xFF; 4];
        long.extend_from_slice(&(-5i128).to_be_bytes());
        assert_eq!(big_endian_signed(&long), Some(-5));
        let mut bad = vec![0x01; 4];
        bad.extend_from_slice(&5i128.to_be_bytes());
        assert_eq!(big_endian_signed(&bad), None);
        assert_eq!(big_endian_signed(&[]), None);
    }

    #[test]
    fn prefixes_prune_by_range() {
        let s = Stats {
            bounds: Some((Key::Bytes(b"apple".to_vec()), Key::Bytes(b"banana".to_vec()))),
            null_count: None,
            rows: 9,
        };
        let sw = |p: &[u8], neg| leaf_may_match(&Test::StartsWith(p.to_vec(), false), neg, &s, false);
        assert!(sw(b"ap", false) && sw(b"b", false) && sw(b"az", false));
        assert!(!sw(b"c", false) && !sw(b"aa", false) && !sw(b"bb", false));
        let t = Stats {
            bounds: Some((Key::Bytes(b"ab1".to_vec()), Key::Bytes(b"ab9".to_vec()))),
            null_count: None,
            rows: 9,
        };
        assert!(!leaf_may_match(&Test::StartsWith(b"ab".to_vec(), false), true, &t, false));
    }
}
