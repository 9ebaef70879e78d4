//! A predicate checked against a file: its columns found among the leaf columns, its literals
//! converted to each column's keys, once for the Parquet values (statistics, page index) and
//! once for the Arrow arrays the reader produces (whose units may differ, e.g. a timestamp in
//! seconds stored as milliseconds).

use arrow_schema::{DataType, TimeUnit};

use super::expr::Predicate;
use super::literal::{self, Domain, IntKind, Test};
use crate::error::{Error, Result};
use crate::format::{ColumnOrder, ConvertedType, LogicalType, PhysicalType, TimeUnit as PqUnit};
use crate::schema::{ColumnDescriptor, SchemaDescriptor};

/// A predicate over bound columns (indexes into [`Bound::columns`]'s owner).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    Leaf(usize, Test),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Not(Box<Node>),
}

/// A leaf column a predicate reads.
#[derive(Debug, Clone)]
pub(crate) struct BoundColumn {
    /// Its dotted path, as the predicate names it.
    pub path: String,
    /// Its index among the file's leaf columns.
    pub leaf: usize,
    /// The domain of its Parquet values; `None` where statistics must not be used (a sort
    /// order the spec leaves undefined, or one this version does not know).
    pub stats_domain: Option<Domain>,
    /// The column's physical type, to decode statistics.
    pub physical: PhysicalType,
    /// Whether the deprecated `min`/`max` statistics (signed order) may stand in for
    /// `min_value`/`max_value`: only where the column's order is the signed one.
    pub legacy_stats_ok: bool,
    /// The byte width of a FIXED_LEN_BYTE_ARRAY column's values (a bloom filter hashes a
    /// decimal's big-endian bytes at that width); 0 for other types.
    pub type_length: i32,
}

/// A predicate bound to a file's leaf columns.
#[derive(Debug, Clone)]
pub(crate) struct Bound {
    pub columns: Vec<BoundColumn>,
    /// The tree with literals as the Parquet values' keys.
    pub parquet: Node,
}

/// Binds `predicate` to `schema`: an unknown or repeated column, or a literal that does not
/// fit its column, is an error naming it.
pub(crate) fn bind(predicate: &Predicate, schema: &SchemaDescriptor, orders: Option<&[ColumnOrder]>) -> Result<Bound> {
    check_depth(predicate)?;
    let mut columns = Vec::new();
    for path in predicate.columns() {
        let leaf = find_leaf(schema, path)?;
        let c = &schema.columns[leaf];
        let domain = parquet_domain(c).ok_or_else(|| {
            Error::unsupported(format!(
                "filter: column '{path}' ({:?}{}) cannot be filtered yet",
                c.physical_type,
                c.converted_type.map(|t| format!(" {t}")).unwrap_or_default()
            ))
        })?;
        let known_order = match orders.and_then(|o| o.get(leaf)) {
            Some(ColumnOrder::TypeDefined) | None => true,
            Some(ColumnOrder::Ieee754TotalOrder) => matches!(domain, Domain::Float { .. }),
            Some(_) => false,
        };
        let defined = c.physical_type != PhysicalType::INT96;
        let signed = match domain {
            Domain::Int(IntKind::Plain) => !is_unsigned(c),
            Domain::Int(_) | Domain::Float { .. } => {
                matches!(
                    c.physical_type,
                    PhysicalType::INT32 | PhysicalType::INT64 | PhysicalType::FLOAT | PhysicalType::DOUBLE
                )
            }
            Domain::Bool | Domain::Bytes => false,
        };
        columns.push(BoundColumn {
            path: path.to_owned(),
            leaf,
            stats_domain: (known_order && defined).then_some(domain),
            physical: c.physical_type,
            legacy_stats_ok: signed,
            type_length: if c.physical_type == PhysicalType::FIXED_LEN_BYTE_ARRAY { c.type_length } else { 0 },
        });
    }
    let paths: Vec<&str> = columns.iter().map(|c| c.path.as_str()).collect();
    let parquet =
        tree(predicate, &paths, &|i| Ok(parquet_domain(&schema.columns[columns[i].leaf]).unwrap_or(Domain::Bytes)))?;
    Ok(Bound { columns, parquet })
}

/// The deepest nesting of `and`/`or`/`not` a predicate may have.
pub(crate) const MAX_DEPTH: usize = 1000;

/// Refuses a predicate that nests deeper than [`MAX_DEPTH`]: every step of a read walks the
/// tree recursively, so its depth is bounded, not the stack.
pub(crate) fn check_depth(predicate: &Predicate) -> Result<()> {
    let depth = depth(predicate);
    if depth > MAX_DEPTH {
        return Err(Error::invalid_argument(format!(
            "filter: the predicate nests {depth} deep (at most {MAX_DEPTH}); use is_in for long lists of values"
        )));
    }
    Ok(())
}

/// How deep `predicate` nests, without recursing (a deep predicate is what this guards).
fn depth(predicate: &Predicate) -> usize {
    let (mut deepest, mut stack) = (0, vec![(predicate, 1usize)]);
    while let Some((p, d)) = stack.pop() {
        deepest = deepest.max(d);
        match p {
            Predicate::And(a, b) | Predicate::Or(a, b) => stack.extend([(&**a, d + 1), (&**b, d + 1)]),
            Predicate::Not(a) => stack.push((&**a, d + 1)),
            _ => {}
        }
    }
    deepest
}

/// The tree of `predicate` with literals converted by the domain `domain(i)` of column `i`,
/// the column at `paths[i]`.
pub(crate) fn tree(predicate: &Predicate, paths: &[&str], domain: &dyn Fn(usize) -> Result<Domain>) -> Result<Node> {
    let columns = paths;
    let index = |path: &str| columns.iter().position(|c| *c == path).unwrap_or(0);
    Ok(match predicate {
        Predicate::Compare { column, op, value } => {
            let i = index(column);
            Node::Leaf(i, literal::compare(*op, value, domain(i)?, column)?)
        }
        Predicate::InList { column, values } => {
            let i = index(column);
            Node::Leaf(i, literal::in_list(values, domain(i)?, column)?)
        }
        Predicate::IsNull(column) => Node::Leaf(index(column), Test::IsNull(false)),
        Predicate::IsNotNull(column) => Node::Leaf(index(column), Test::IsNull(true)),
        Predicate::StartsWith { column, prefix: pattern } | Predicate::Contains { column, pattern } => {
            let i = index(column);
            let bytes = pattern.as_bytes().to_vec();
            match (domain(i)?, predicate) {
                (Domain::Bytes, Predicate::StartsWith { .. }) => Node::Leaf(i, Test::StartsWith(bytes, false)),
                (Domain::Bytes, _) => Node::Leaf(i, Test::Contains(bytes, false)),
                _ => {
                    return Err(Error::invalid_argument(format!(
                        "filter: {predicate} needs a string or binary column; '{column}' is not one"
                    )))
                }
            }
        }
        Predicate::And(a, b) => Node::And(Box::new(tree(a, columns, domain)?), Box::new(tree(b, columns, domain)?)),
        Predicate::Or(a, b) => Node::Or(Box::new(tree(a, columns, domain)?), Box::new(tree(b, columns, domain)?)),
        Predicate::Not(p) => Node::Not(Box::new(tree(p, columns, domain)?)),
    })
}

/// The leaf column at the dotted `path`: it must exist and not repeat.
fn find_leaf(schema: &SchemaDescriptor, path: &str) -> Result<usize> {
    let parts: Vec<&str> = path.split('.').collect();
    if let Some(i) = schema.columns.iter().position(|c| c.path.iter().map(String::as_str).eq(parts.iter().copied())) {
        let c = &schema.columns[i];
        if c.max_rep_level > 0 {
            return Err(Error::unsupported(format!(
                "filter: column '{path}' is inside a list or map: filters on repeated columns are not supported yet"
            )));
        }
        return Ok(i);
    }
    let below =
        schema.columns.iter().any(|c| c.path.len() > parts.len() && c.path.iter().zip(&parts).all(|(a, b)| a == b));
    let names: Vec<String> = schema.columns.iter().map(|c| c.dotted_path()).collect();
    Err(Error::invalid_argument(match below {
        true => format!(
            "filter: '{path}' is a group, not a leaf column; filter on one of its leaves ({})",
            names.join(", ")
        ),
        false => format!("filter: no column '{path}' in the file (leaf columns: {})", names.join(", ")),
    }))
}

fn is_unsigned(c: &ColumnDescriptor) -> bool {
    match &c.logical_type {
        Some(LogicalType::Integer { is_signed, .. }) => !is_signed,
        _ => matches!(
            c.converted_type,
            Some(ConvertedType::UINT_8 | ConvertedType::UINT_16 | ConvertedType::UINT_32 | ConvertedType::UINT_64)
        ),
    }
}

/// The domain of a leaf's Parquet values (what statistics hold), `None` for a type a
/// predicate cannot test (INTERVAL, geometry).
pub(crate) fn parquet_domain(c: &ColumnDescriptor) -> Option<Domain> {
    let unit = |u: &PqUnit| match u {
        PqUnit::Millis => TimeUnit::Millisecond,
        PqUnit::Micros => TimeUnit::Microsecond,
        PqUnit::Nanos => TimeUnit::Nanosecond,
    };
    let logical = match &c.logical_type {
        Some(LogicalType::Decimal { scale, .. }) => Some(Domain::Int(IntKind::Decimal(*scale))),
        Some(LogicalType::Date) => Some(Domain::Int(IntKind::Date(1))),
        Some(LogicalType::Timestamp { unit: u, .. }) => Some(Domain::Int(IntKind::Timestamp(unit(u)))),
        Some(LogicalType::Float16) => Some(Domain::Float { single: true }),
        Some(LogicalType::Geometry { .. } | LogicalType::Geography { .. } | LogicalType::Variant { .. }) => {
            return None
        }
        _ => None,
    };
    if logical.is_some() {
        return logical;
    }
    Some(match c.converted_type {
        Some(ConvertedType::DECIMAL) => Domain::Int(IntKind::Decimal(c.scale)),
        Some(ConvertedType::DATE) => Domain::Int(IntKind::Date(1)),
        Some(ConvertedType::TIMESTAMP_MILLIS) => Domain::Int(IntKind::Timestamp(TimeUnit::Millisecond)),
        Some(ConvertedType::TIMESTAMP_MICROS) => Domain::Int(IntKind::Timestamp(TimeUnit::Microsecond)),
        Some(ConvertedType::INTERVAL) => return None,
        _ => match c.physical_type {
            PhysicalType::BOOLEAN => Domain::Bool,
            PhysicalType::INT32 | PhysicalType::INT64 => Domain::Int(IntKind::Plain),
            PhysicalType::INT96 => Domain::Int(IntKind::Timestamp(TimeUnit::Nanosecond)),
            PhysicalType::FLOAT => Domain::Float { single: true },
            PhysicalType::DOUBLE => Domain::Float { single: false },
            PhysicalType::BYTE_ARRAY | PhysicalType::FIXED_LEN_BYTE_ARRAY => Domain::Bytes,
            _ => return None,
        },
    })
}

/// The domain of an Arrow array's values, `None` for a type a predicate cannot test.
pub(crate) fn arrow_domain(t: &DataType) -> Option<Domain> {
    Some(match t {
        DataType::Boolean => Domain::Bool,
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => Domain::Int(IntKind::Plain),
        DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 => Domain::Int(IntKind::Plain),
        DataType::Time32(_) | DataType::Time64(_) => Domain::Int(IntKind::Plain),
        DataType::Decimal32(_, s)
        | DataType::Decimal64(_, s)
        | DataType::Decimal128(_, s)
        | DataType::Decimal256(_, s) => Domain::Int(IntKind::Decimal(*s as i32)),
        DataType::Date32 => Domain::Int(IntKind::Date(1)),
        DataType::Date64 => Domain::Int(IntKind::Date(86_400_000)),
        DataType::Timestamp(u, _) => Domain::Int(IntKind::Timestamp(*u)),
        DataType::Float16 | DataType::Float32 => Domain::Float { single: true },
        DataType::Float64 => Domain::Float { single: false },
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Domain::Bytes,
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView | DataType::FixedSizeBinary(_) => Domain::Bytes,
        DataType::Dictionary(_, v) => return arrow_domain(v),
        _ => return None,
    })
}

/// Whether a test on keys of this domain can be false for a value whose every bound says
/// otherwise: NaN in a floating point column satisfies `!=` and `NOT <` though no bound
/// shows it (statistics leave NaN out).
pub(crate) fn nan_possible(domain: Option<Domain>) -> bool {
    matches!(domain, Some(Domain::Float { .. }))
}
