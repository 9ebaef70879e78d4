//! Literals converted to a column's type, as keys in the column's sort order.
//!
//! Every value a filter compares (a literal, a statistics bound, a decoded value) becomes a
//! [`Key`] of the column's [`Domain`]: integers, decimals, dates and timestamps are `i128` in
//! the column's own unit (so signed and unsigned 64-bit values both fit, and comparing is
//! exact); floats are `f64`; strings and binary are bytes compared unsigned, as the Parquet
//! spec orders them. A literal that falls between two values of the column's type (`x < 2.5`
//! on an integer column, `1.234` on a DECIMAL(9,2)) is rounded down and the comparison
//! adjusted, so the answer is the exact one.

use std::cmp::Ordering;

use arrow_schema::TimeUnit;

use super::expr::{CmpOp, Literal};
use crate::error::{Error, Result};

/// A value in a column's sort order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Key {
    Bool(bool),
    Int(i128),
    Float(f64),
    Bytes(Vec<u8>),
}

impl Key {
    /// The order of two keys of one domain; `None` across domains or with a NaN.
    pub(crate) fn compare(&self, other: &Key) -> Option<Ordering> {
        match (self, other) {
            (Key::Bool(a), Key::Bool(b)) => Some(a.cmp(b)),
            (Key::Int(a), Key::Int(b)) => Some(a.cmp(b)),
            // IEEE comparison: -0 and +0 are equal, NaN is unordered.
            (Key::Float(a), Key::Float(b)) => a.partial_cmp(b),
            (Key::Bytes(a), Key::Bytes(b)) => Some(a.as_slice().cmp(b.as_slice())),
            _ => None,
        }
    }
}

/// What an integer-keyed column counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IntKind {
    /// Plain integers (and times of day, compared as their raw counts).
    Plain,
    /// Decimals, as unscaled integers at this scale.
    Decimal(i32),
    /// Dates, counted in units of which a day has this many (1 for days, 86,400,000 for ms).
    Date(i64),
    /// Timestamps in this unit.
    Timestamp(TimeUnit),
}

/// The kind of values a column holds, for converting literals into its keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Domain {
    Bool,
    Int(IntKind),
    /// `f32`: literals are rounded to single precision first, as the column's type.
    Float {
        single: bool,
    },
    Bytes,
}

/// A literal as a key of `domain`, and whether it is exactly a value of the domain (false:
/// the key is the largest value below the literal).
pub(crate) fn to_key(literal: &Literal, domain: Domain, column: &str) -> Result<(Key, bool)> {
    let wrong = || {
        Error::invalid_argument(format!(
            "filter: the literal {literal} cannot be compared with column '{column}' ({})",
            describe(domain)
        ))
    };
    match (domain, literal) {
        (Domain::Bool, Literal::Bool(b)) => Ok((Key::Bool(*b), true)),
        (Domain::Bytes, Literal::Str(s)) => Ok((Key::Bytes(s.as_bytes().to_vec()), true)),
        (Domain::Bytes, Literal::Binary(b)) => Ok((Key::Bytes(b.clone()), true)),
        (Domain::Float { single }, _) => {
            let v = match *literal {
                Literal::Int(v) => v as f64,
                Literal::UInt(v) => v as f64,
                Literal::Float(v) => v,
                Literal::Decimal { unscaled, scale } => unscaled as f64 / 10f64.powi(scale as i32),
                _ => return Err(wrong()),
            };
            Ok((Key::Float(if single { v as f32 as f64 } else { v }), true))
        }
        (Domain::Int(kind), _) => {
            int_key(literal, kind, column)?.map(|(v, exact)| (Key::Int(v), exact)).ok_or_else(wrong)
        }
        _ => Err(wrong()),
    }
}

/// An integer key from a literal: `Ok(None)` for a literal of another kind.
fn int_key(literal: &Literal, kind: IntKind, column: &str) -> Result<Option<(i128, bool)>> {
    let overflow =
        || Error::invalid_argument(format!("filter: the literal {literal} is out of range for column '{column}'"));
    let scaled = |v: i128, from: i32, to: i32| -> Result<(i128, bool)> {
        if to >= from {
            let f = 10i128.checked_pow((to - from) as u32).ok_or_else(overflow)?;
            Ok((v.checked_mul(f).ok_or_else(overflow)?, true))
        } else {
            let Some(f) = 10i128.checked_pow((from - to) as u32) else {
                return Ok((if v < 0 { -1 } else { 0 }, v == 0));
            };
            Ok((v.div_euclid(f), v.rem_euclid(f) == 0))
        }
    };
    Ok(Some(match (kind, literal) {
        (IntKind::Plain, Literal::Int(v)) => (*v as i128, true),
        (IntKind::Plain, Literal::UInt(v)) => (*v as i128, true),
        (IntKind::Decimal(s), Literal::Int(v)) => scaled(*v as i128, 0, s)?,
        (IntKind::Decimal(s), Literal::UInt(v)) => scaled(*v as i128, 0, s)?,
        (IntKind::Plain, Literal::Decimal { unscaled, scale }) => scaled(*unscaled, *scale as i32, 0)?,
        (IntKind::Decimal(s), Literal::Decimal { unscaled, scale }) => scaled(*unscaled, *scale as i32, s)?,
        (IntKind::Plain | IntKind::Decimal(_), Literal::Float(v)) => {
            let s = if let IntKind::Decimal(s) = kind { s } else { 0 };
            if v.is_nan() {
                return Err(Error::invalid_argument(format!(
                    "filter: NaN cannot be compared with the non-floating point column '{column}'"
                )));
            }
            let x = v * 10f64.powi(s);
            let f = x.floor();
            // Past i128's range: the saturating cast keeps the order (every stored value
            // of the column is far inside it).
            (f as i128, f == x && f.abs() < 1e38)
        }
        (IntKind::Date(per_day), Literal::Date(d)) => (*d as i128 * per_day as i128, true),
        (IntKind::Timestamp(unit), Literal::Timestamp { value, unit: from }) => {
            scaled(*value as i128, digits(*from), digits(unit))?
        }
        _ => return Ok(None),
    }))
}

/// Decimal digits of a second in `unit`.
fn digits(unit: TimeUnit) -> i32 {
    match unit {
        TimeUnit::Second => 0,
        TimeUnit::Millisecond => 3,
        TimeUnit::Microsecond => 6,
        TimeUnit::Nanosecond => 9,
    }
}

fn describe(domain: Domain) -> &'static str {
    match domain {
        Domain::Bool => "boolean",
        Domain::Int(IntKind::Plain) => "integer",
        Domain::Int(IntKind::Decimal(_)) => "decimal",
        Domain::Int(IntKind::Date(_)) => "date",
        Domain::Int(IntKind::Timestamp(_)) => "timestamp",
        Domain::Float { .. } => "floating point",
        Domain::Bytes => "string or binary",
    }
}

/// One test of a column's value, with its literals converted to the column's keys.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Test {
    Cmp(CmpOp, Key),
    /// In the list (`negated`: not in it). An empty list is never true for a value.
    In(Vec<Key>, bool),
    /// Is null (`negated`: is not null). Never null itself.
    IsNull(bool),
    /// The bytes start with the prefix (`negated`: they do not).
    StartsWith(Vec<u8>, bool),
    /// The bytes contain the pattern (`negated`: they do not).
    Contains(Vec<u8>, bool),
}

/// `column op literal` as a test on keys of `domain`, exact also where the literal falls
/// between two of the domain's values.
pub(crate) fn compare(op: CmpOp, literal: &Literal, domain: Domain, column: &str) -> Result<Test> {
    let (key, exact) = to_key(literal, domain, column)?;
    if exact {
        return Ok(Test::Cmp(op, key));
    }
    // `key` is the largest value below the literal: no value equals it, and a value is
    // below it exactly when it is at most `key`.
    Ok(match op {
        CmpOp::Eq => Test::In(Vec::new(), false),
        CmpOp::Ne => Test::In(Vec::new(), true),
        CmpOp::Lt | CmpOp::Le => Test::Cmp(CmpOp::Le, key),
        CmpOp::Gt | CmpOp::Ge => Test::Cmp(CmpOp::Gt, key),
    })
}

/// `column IN (literals)`: literals no value can equal are left out.
pub(crate) fn in_list(literals: &[Literal], domain: Domain, column: &str) -> Result<Test> {
    let mut keys = Vec::with_capacity(literals.len());
    for l in literals {
        let (key, exact) = to_key(l, domain, column)?;
        if exact {
            keys.push(key);
        }
    }
    Ok(Test::In(keys, false))
}

/// The smallest byte string greater than every string that starts with `prefix`, if any
/// (none when the prefix is empty or all 0xFF bytes).
pub(crate) fn prefix_upper_bound(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut up = prefix.to_vec();
    while let Some(last) = up.pop() {
        if last < 0xFF {
            up.push(last + 1);
            return Some(up);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_between_a_columns_values_round_down_and_adjust_the_comparison() {
        let int = Domain::Int(IntKind::Plain);
        assert_eq!(compare(CmpOp::Lt, &Literal::Float(2.5), int, "x").unwrap(), Test::Cmp(CmpOp::Le, Key::Int(2)));
        assert_eq!(compare(CmpOp::Ge, &Literal::Float(-2.5), int, "x").unwrap(), Test::Cmp(CmpOp::Gt, Key::Int(-3)));
        assert_eq!(compare(CmpOp::Eq, &Literal::Float(2.5), int, "x").unwrap(), Test::In(vec![], false));
        assert_eq!(compare(CmpOp::Eq, &Literal::Float(2.0), int, "x").unwrap(), Test::Cmp(CmpOp::Eq, Key::Int(2)));
        let dec = Domain::Int(IntKind::Decimal(2));
        let d = Literal::Decimal { unscaled: 1234, scale: 3 };
        assert_eq!(compare(CmpOp::Gt, &d, dec, "x").unwrap(), Test::Cmp(CmpOp::Gt, Key::Int(123)));
        assert_eq!(compare(CmpOp::Eq, &Literal::Int(5), dec, "x").unwrap(), Test::Cmp(CmpOp::Eq, Key::Int(500)));
        let ms = Domain::Int(IntKind::Timestamp(TimeUnit::Millisecond));
        let ns = Literal::Timestamp { value: 1_500_000, unit: TimeUnit::Nanosecond };
        assert_eq!(compare(CmpOp::Ge, &ns, ms, "t").unwrap(), Test::Cmp(CmpOp::Gt, Key::Int(1)));
        let s = Literal::Timestamp { value: 2, unit: TimeUnit::Second };
        assert_eq!(compare(CmpOp::Ge, &s, ms, "t").unwrap(), Test::Cmp(CmpOp::Ge, Key::Int(2000)));
    }

    #[test]
    fn literals_of_the_wrong_type_are_errors_naming_the_column() {
        let e = to_key(&Literal::Str("a".into()), Domain::Int(IntKind::Plain), "x").unwrap_err().to_string();
        assert!(e.contains("'a'") && e.contains("'x'") && e.contains("integer"), "{e}");
        assert!(to_key(&Literal::Int(1), Domain::Int(IntKind::Date(1)), "d").is_err());
        assert!(to_key(&Literal::Float(f64::NAN), Domain::Int(IntKind::Plain), "x").is_err());
        let big = Literal::Int(i64::MAX);
        assert!(to_key(&big, Domain::Int(IntKind::Decimal(30)), "x").is_err());
    }

    #[test]
    fn prefix_bounds_carry_past_ff() {
        assert_eq!(prefix_upper_bound(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(prefix_upper_bound(b"a\xff"), Some(b"b".to_vec()));
        assert_eq!(prefix_upper_bound(b"\xff\xff"), None);
        assert_eq!(prefix_upper_bound(b""), None);
    }
}
