//! The predicate a read is filtered by: comparisons of a column with a literal, `IN` lists,
//! null tests and string prefixes, combined with `and`, `or` and `not`.
//!
//! A predicate names columns by their Parquet leaf path (`"x"`, or `"rec.a"` for a field of a
//! struct); it is checked against a file's schema when a read is built, and an unknown column
//! or a literal of the wrong type is an error then, not a silent empty result.

use std::fmt;

use arrow_schema::TimeUnit;

/// A typed constant a column is compared with.
///
/// The literal is converted to the column's type when the read is built: an integer literal
/// compares with integer, decimal and floating point columns; a decimal literal with integer
/// and decimal columns at any scale; a date with date columns; a timestamp with timestamp
/// columns of any unit; strings and bytes with string and binary columns (byte by byte,
/// unsigned, as the Parquet spec orders them).
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    /// A boolean.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer (for UINT_64 columns past `i64::MAX`).
    UInt(u64),
    /// A floating point number (compared as IEEE 754: NaN is never equal, less or greater).
    Float(f64),
    /// UTF-8 text.
    Str(String),
    /// Bytes, for binary columns.
    Binary(Vec<u8>),
    /// A decimal `unscaled × 10^-scale`, e.g. `12.50` is `Decimal { unscaled: 1250, scale: 2 }`.
    Decimal {
        /// The digits as an integer.
        unscaled: i128,
        /// Digits after the decimal point.
        scale: u8,
    },
    /// Days since 1970-01-01.
    Date(i32),
    /// An instant (or local date-time) counted in `unit` since 1970-01-01T00:00.
    Timestamp {
        /// The count of units.
        value: i64,
        /// The unit of `value`.
        unit: TimeUnit,
    },
}

/// A literal, from any Rust value that has one (`lit(5)`, `lit("abc")`, `lit(2.5)`).
pub fn lit(value: impl Into<Literal>) -> Literal {
    value.into()
}

macro_rules! literal_from {
    ($($t:ty => $variant:ident as $as:ty),* $(,)?) => {
        $(impl From<$t> for Literal {
            fn from(v: $t) -> Literal {
                Literal::$variant(v as $as)
            }
        })*
    };
}

literal_from!(i8 => Int as i64, i16 => Int as i64, i32 => Int as i64, i64 => Int as i64,
    u8 => Int as i64, u16 => Int as i64, u32 => Int as i64, u64 => UInt as u64,
    f32 => Float as f64, f64 => Float as f64);

impl From<bool> for Literal {
    fn from(v: bool) -> Literal {
        Literal::Bool(v)
    }
}

impl From<&str> for Literal {
    fn from(v: &str) -> Literal {
        Literal::Str(v.to_owned())
    }
}

impl From<String> for Literal {
    fn from(v: String) -> Literal {
        Literal::Str(v)
    }
}

impl From<&[u8]> for Literal {
    fn from(v: &[u8]) -> Literal {
        Literal::Binary(v.to_vec())
    }
}

impl From<Vec<u8>> for Literal {
    fn from(v: Vec<u8>) -> Literal {
        Literal::Binary(v)
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Bool(v) => write!(f, "{v}"),
            Literal::Int(v) => write!(f, "{v}"),
            Literal::UInt(v) => write!(f, "{v}"),
            Literal::Float(v) => write!(f, "{v:?}"),
            Literal::Str(v) => write!(f, "'{}'", v.replace('\'', "''")),
            Literal::Binary(v) => {
                f.write_str("X'")?;
                v.iter().try_for_each(|b| write!(f, "{b:02x}"))?;
                f.write_str("'")
            }
            Literal::Decimal { unscaled, scale } => {
                let s = unscaled.unsigned_abs().to_string();
                let scale = *scale as usize;
                let s = format!("{s:0>width$}", width = scale + 1);
                let (int, frac) = s.split_at(s.len() - scale);
                let sign = if *unscaled < 0 { "-" } else { "" };
                match scale {
                    0 => write!(f, "{sign}{int}"),
                    _ => write!(f, "{sign}{int}.{frac}"),
                }
            }
            Literal::Date(d) => write!(f, "DATE {d} days"),
            Literal::Timestamp { value, unit } => write!(f, "TIMESTAMP {value} {unit:?}"),
        }
    }
}

/// How a column is compared with a literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    /// The operator that is true exactly where this one is false (for values that are not
    /// null and not NaN).
    pub fn negate(self) -> CmpOp {
        match self {
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Ge => CmpOp::Lt,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

/// A condition on the rows of a file, with SQL's meaning: a comparison with a null value is
/// not true (nor false: `not` of it is not true either), and a row is kept only where the
/// whole predicate is true.
#[derive(Debug, Clone, PartialEq)]
pub enum Predicate {
    /// `column op value`.
    Compare {
        /// The column's leaf path (dotted).
        column: String,
        /// The comparison.
        op: CmpOp,
        /// The constant compared with.
        value: Literal,
    },
    /// `column IN (values)`.
    InList {
        /// The column's leaf path.
        column: String,
        /// The values; an empty list matches no row.
        values: Vec<Literal>,
    },
    /// `column IS NULL`.
    IsNull(String),
    /// `column IS NOT NULL`.
    IsNotNull(String),
    /// `column LIKE 'prefix%'`: the value's bytes start with the prefix's.
    StartsWith {
        /// The column's leaf path.
        column: String,
        /// The prefix.
        prefix: String,
    },
    /// `column LIKE '%pattern%'`: the value's bytes contain the pattern's.
    Contains {
        /// The column's leaf path.
        column: String,
        /// The bytes looked for.
        pattern: String,
    },
    /// Both hold.
    And(Box<Predicate>, Box<Predicate>),
    /// Either holds.
    Or(Box<Predicate>, Box<Predicate>),
    /// The predicate is false (a null stays null).
    Not(Box<Predicate>),
}

/// A column named in a predicate: the start of `col("x").gt(lit(5))`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column(String);

/// The column at this leaf path (`"x"`, or `"rec.a"` inside a struct).
pub fn col(path: impl Into<String>) -> Column {
    Column(path.into())
}

/// `not predicate` (also `!predicate`).
pub fn not(predicate: Predicate) -> Predicate {
    Predicate::Not(Box::new(predicate))
}

impl Column {
    fn compare(&self, op: CmpOp, value: impl Into<Literal>) -> Predicate {
        Predicate::Compare { column: self.0.clone(), op, value: value.into() }
    }

    /// `column = value`.
    pub fn eq(&self, value: impl Into<Literal>) -> Predicate {
        self.compare(CmpOp::Eq, value)
    }

    /// `column != value` (not true for a null).
    pub fn ne(&self, value: impl Into<Literal>) -> Predicate {
        self.compare(CmpOp::Ne, value)
    }

    /// `column < value`.
    pub fn lt(&self, value: impl Into<Literal>) -> Predicate {
        self.compare(CmpOp::Lt, value)
    }

    /// `column <= value`.
    pub fn le(&self, value: impl Into<Literal>) -> Predicate {
        self.compare(CmpOp::Le, value)
    }

    /// `column > value`.
    pub fn gt(&self, value: impl Into<Literal>) -> Predicate {
        self.compare(CmpOp::Gt, value)
    }

    /// `column >= value`.
    pub fn ge(&self, value: impl Into<Literal>) -> Predicate {
        self.compare(CmpOp::Ge, value)
    }

    /// `column BETWEEN low AND high`, both ends included.
    pub fn between(&self, low: impl Into<Literal>, high: impl Into<Literal>) -> Predicate {
        self.ge(low).and(self.le(high))
    }

    /// `column IN (values)`.
    pub fn is_in<L: Into<Literal>>(&self, values: impl IntoIterator<Item = L>) -> Predicate {
        Predicate::InList { column: self.0.clone(), values: values.into_iter().map(Into::into).collect() }
    }

    /// `column IS NULL`.
    pub fn is_null(&self) -> Predicate {
        Predicate::IsNull(self.0.clone())
    }

    /// `column IS NOT NULL`.
    pub fn is_not_null(&self) -> Predicate {
        Predicate::IsNotNull(self.0.clone())
    }

    /// `column LIKE 'prefix%'`, for string and binary columns.
    pub fn starts_with(&self, prefix: impl Into<String>) -> Predicate {
        Predicate::StartsWith { column: self.0.clone(), prefix: prefix.into() }
    }

    /// `column LIKE '%pattern%'`, for string and binary columns.
    pub fn contains(&self, pattern: impl Into<String>) -> Predicate {
        Predicate::Contains { column: self.0.clone(), pattern: pattern.into() }
    }
}

impl Predicate {
    /// `self AND other`.
    pub fn and(self, other: Predicate) -> Predicate {
        Predicate::And(Box::new(self), Box::new(other))
    }

    /// `self OR other`.
    pub fn or(self, other: Predicate) -> Predicate {
        Predicate::Or(Box::new(self), Box::new(other))
    }

    /// The leaf paths the predicate reads, each once, in order of first use.
    pub fn columns(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        self.visit_columns(&mut |c| {
            if !out.contains(&c) {
                out.push(c);
            }
        });
        out
    }

    fn visit_columns<'a>(&'a self, f: &mut impl FnMut(&'a str)) {
        match self {
            Predicate::Compare { column, .. }
            | Predicate::InList { column, .. }
            | Predicate::StartsWith { column, .. }
            | Predicate::Contains { column, .. }
            | Predicate::IsNull(column)
            | Predicate::IsNotNull(column) => f(column),
            Predicate::And(a, b) | Predicate::Or(a, b) => {
                a.visit_columns(f);
                b.visit_columns(f);
            }
            Predicate::Not(p) => p.visit_columns(f),
        }
    }
}

impl std::ops::Not for Predicate {
    type Output = Predicate;
    fn not(self) -> Predicate {
        not(self)
    }
}

impl fmt::Display for Predicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Predicate::Compare { column, op, value } => write!(f, "{column} {} {value}", op.symbol()),
            Predicate::InList { column, values } => {
                write!(f, "{column} IN (")?;
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str(")")
            }
            Predicate::IsNull(c) => write!(f, "{c} IS NULL"),
            Predicate::IsNotNull(c) => write!(f, "{c} IS NOT NULL"),
            Predicate::StartsWith { column, prefix } => {
                write!(f, "{column} LIKE {}", Literal::Str(format!("{prefix}%")))
            }
            Predicate::Contains { column, pattern } => {
                write!(f, "{column} LIKE {}", Literal::Str(format!("%{pattern}%")))
            }
            Predicate::And(a, b) => write!(f, "({a} AND {b})"),
            Predicate::Or(a, b) => write!(f, "({a} OR {b})"),
            Predicate::Not(p) => write!(f, "NOT {p}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predicates_print_as_sql() {
        let p = col("x").between(1, 5).and(!col("s").starts_with("ab")).or(col("d").is_null());
        assert_eq!(p.to_string(), "(((x >= 1 AND x <= 5) AND NOT s LIKE 'ab%') OR d IS NULL)");
        assert_eq!(p.columns(), ["x", "s", "d"]);
        let d = Literal::Decimal { unscaled: -5, scale: 2 };
        assert_eq!(d.to_string(), "-0.05");
        assert_eq!(lit("it's").to_string(), "'it''s'");
    }
}
