//! Decimal output columns read at the width of their INT32/INT64 values and widened after
//! filtering.
//!
//! A `Decimal128` column stored as INT64 (TPC-H's prices and discounts, as most writers
//! store a precision up to 18) costs a conversion of every value read and twice the bytes
//! to filter. Read as `Decimal64`, its values are the page's own, and only the rows the
//! filter keeps are widened: a query keeping half of lineitem's rows spent a fifth of its
//! time widening and filtering 16-byte decimals.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Decimal128Type, Decimal256Type, Decimal32Type, Decimal64Type};
use arrow_array::{ArrayRef, PrimitiveArray, RecordBatch};
use arrow_buffer::i256;
use arrow_schema::{ArrowError, DataType, Schema, SchemaRef};

use super::bind::Bound;
use crate::error::{Error, Result};
use crate::read::narrow_decimal;
use crate::schema::SchemaDescriptor;

/// The leaves of `output`'s top-level decimal fields, not tested by the predicate (whose
/// columns keep the types the predicate was bound to), that read narrower than `output`
/// asks.
pub(super) fn narrow_leaves(schema: &SchemaDescriptor, output: &Schema, bound: &Bound) -> Vec<usize> {
    let mut out = Vec::new();
    for field in output.fields() {
        let Some(leaf) = schema.columns.iter().position(|c| c.path.len() == 1 && &c.path[0] == field.name()) else {
            continue;
        };
        let tested = bound.columns.iter().any(|c| c.leaf == leaf);
        if !tested && narrow_decimal(&schema.columns[leaf], field.data_type()).is_some() {
            out.push(leaf);
        }
    }
    out
}

/// Whether a column read as `from` is widened to `to` by [`widen`].
pub(super) fn widens(from: &DataType, to: &DataType) -> bool {
    use DataType as D;
    matches!(
        (from, to),
        (D::Decimal32(..), D::Decimal64(..) | D::Decimal128(..) | D::Decimal256(..))
            | (D::Decimal64(..), D::Decimal128(..) | D::Decimal256(..))
    )
}

/// `batch` with each column whose type is narrower than `output`'s widened to it.
pub(super) fn widen(batch: RecordBatch, output: &SchemaRef) -> Result<RecordBatch> {
    let differs = batch.columns().iter().zip(output.fields()).any(|(a, f)| a.data_type() != f.data_type());
    if !differs {
        return Ok(batch);
    }
    let columns = batch
        .columns()
        .iter()
        .zip(output.fields())
        .map(|(a, f)| match a.data_type() == f.data_type() {
            true => Ok(Arc::clone(a)),
            false => widen_array(a, f.data_type()),
        })
        .collect::<Result<Vec<_>>>()?;
    RecordBatch::try_new(Arc::clone(output), columns).map_err(|e| bad(&e))
}

fn widen_array(a: &ArrayRef, to: &DataType) -> Result<ArrayRef> {
    use DataType as D;
    let (p, s) = match to {
        D::Decimal64(p, s) | D::Decimal128(p, s) | D::Decimal256(p, s) => (*p, *s),
        _ => return Err(Error::invalid_argument(format!("filter: cannot widen {} to {to}", a.data_type()))),
    };
    macro_rules! widened {
        ($from:ty, $to:ty, $f:expr) => {{
            let out: PrimitiveArray<$to> = a.as_primitive::<$from>().unary($f);
            Arc::new(out.with_precision_and_scale(p, s).map_err(|e| bad(&e))?) as ArrayRef
        }};
    }
    Ok(match (a.data_type(), to) {
        (D::Decimal32(..), D::Decimal64(..)) => widened!(Decimal32Type, Decimal64Type, i64::from),
        (D::Decimal32(..), D::Decimal128(..)) => widened!(Decimal32Type, Decimal128Type, i128::from),
        (D::Decimal32(..), D::Decimal256(..)) => widened!(Decimal32Type, Decimal256Type, |v| i256::from_i128(v.into())),
        (D::Decimal64(..), D::Decimal128(..)) => widened!(Decimal64Type, Decimal128Type, i128::from),
        (D::Decimal64(..), D::Decimal256(..)) => widened!(Decimal64Type, Decimal256Type, |v| i256::from_i128(v.into())),
        (from, _) => return Err(Error::invalid_argument(format!("filter: cannot widen {from} to {to}"))),
    })
}

#[cold]
fn bad(e: &ArrowError) -> Error {
    Error::invalid_argument(format!("filter: widening decimals: {e}"))
}
