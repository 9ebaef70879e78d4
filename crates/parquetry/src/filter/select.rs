//! The matching rows of a decoded batch, where late materialization read every row: each
//! 32- and 64-bit column without nulls copied straight from the predicate's bitmap by AVX-512's
//! compress (eight or sixteen values an instruction), a decimal read narrower than asked
//! widened in the same pass; other columns, and all of them on processors without AVX-512,
//! through arrow's filter.
//!
//! Arrow's filter turns a half-selected bitmap into a list of indexes, then gathers each
//! column through it; with the decimals widened after, that was 15% of a query keeping half
//! of lineitem's rows (`l_shipdate <= ..`, three columns), most of what made it slower than
//! reading the columns unfiltered.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{ArrowPrimitiveType, Decimal128Type};
use arrow_array::{
    downcast_primitive_array, Array, ArrayRef, BooleanArray, PrimitiveArray, RecordBatch, RecordBatchOptions,
};
use arrow_buffer::{BooleanBuffer, Buffer, ScalarBuffer};
use arrow_schema::{DataType, SchemaRef};
use arrow_select::filter::{FilterBuilder, FilterPredicate};

use crate::error::{Error, Result};
use crate::read::fixed::compress::{compressed, has_avx512, widened};

/// The rows of `batch` where `keep` is set, its columns' types kept but for a `Decimal64`
/// column where `output` (the fields of `batch`, in order) asks `Decimal128`, widened here;
/// other widening is left to the caller.
pub(super) fn select(batch: &RecordBatch, keep: &BooleanBuffer, output: &SchemaRef) -> Result<RecordBatch> {
    select_with(batch, keep, output, has_avx512())
}

/// [`select`], with this module's kernels only if `kernels` (tests take arrow's way on a
/// processor that has AVX-512 too).
fn select_with(batch: &RecordBatch, keep: &BooleanBuffer, output: &SchemaRef, kernels: bool) -> Result<RecordBatch> {
    let mut arrow: Option<FilterPredicate> = None;
    let mut columns = Vec::with_capacity(batch.num_columns());
    for (a, field) in batch.columns().iter().zip(output.fields()) {
        let column = match own(a, keep, field.data_type()).filter(|_| kernels) {
            Some(c) => c,
            None => {
                let p = arrow.get_or_insert_with(|| {
                    FilterBuilder::new(&BooleanArray::new(keep.clone(), None)).optimize().build()
                });
                p.filter(a).map_err(|e| bad(&e))?
            }
        };
        columns.push(column);
    }
    let before = batch.schema();
    // The row count, for a batch without columns (`count(*)`).
    let rows = RecordBatchOptions::new().with_row_count(Some(keep.count_set_bits()));
    if columns.iter().zip(before.fields()).all(|(c, f)| c.data_type() == f.data_type()) {
        return RecordBatch::try_new_with_options(before, columns, &rows).map_err(|e| bad(&e));
    }
    let fields: Vec<_> = columns
        .iter()
        .zip(before.fields())
        .map(|(c, f)| f.as_ref().clone().with_data_type(c.data_type().clone()))
        .collect();
    let schema = Arc::new(arrow_schema::Schema::new_with_metadata(fields, before.metadata().clone()));
    RecordBatch::try_new_with_options(schema, columns, &rows).map_err(|e| bad(&e))
}

/// `a` at `keep`'s set rows by this module's kernels; `None` for a column they do not take
/// (nulls, other widths, other types).
fn own(a: &ArrayRef, keep: &BooleanBuffer, to: &DataType) -> Option<ArrayRef> {
    if a.null_count() != 0 || a.len() != keep.len() || !has_avx512() {
        return None;
    }
    if let (DataType::Decimal64(..), DataType::Decimal128(p, s)) = (a.data_type(), to) {
        let v: &[i64] = a.as_primitive::<arrow_array::types::Decimal64Type>().values();
        let out: PrimitiveArray<Decimal128Type> = PrimitiveArray::new(ScalarBuffer::from(widened(v, keep)?), None);
        return out.with_precision_and_scale(*p, *s).ok().map(|o| Arc::new(o) as ArrayRef);
    }
    downcast_primitive_array!(
        a => same_width(a, keep),
        _ => None
    )
}

/// A primitive array of 32- or 64-bit values at `keep`'s set rows.
fn same_width<T: ArrowPrimitiveType>(a: &PrimitiveArray<T>, keep: &BooleanBuffer) -> Option<ArrayRef> {
    let values: &Buffer = a.values().inner();
    // Only types aligned to their size: the buffer is then aligned for `u32`/`u64` too.
    if align_of::<T::Native>() != size_of::<T::Native>() {
        return None;
    }
    let (buffer, n) = match size_of::<T::Native>() {
        4 => {
            let out = compressed(values.typed_data::<u32>(), keep)?;
            let n = out.len();
            (Buffer::from_vec(out), n)
        }
        8 => {
            let out = compressed(values.typed_data::<u64>(), keep)?;
            let n = out.len();
            (Buffer::from_vec(out), n)
        }
        _ => return None,
    };
    let out = PrimitiveArray::<T>::try_new(ScalarBuffer::new(buffer, 0, n), None).ok()?;
    Some(Arc::new(out.with_data_type(a.data_type().clone())))
}

#[cold]
fn bad(e: &arrow_schema::ArrowError) -> Error {
    Error::invalid_argument(format!("filter: selecting the matching rows: {e}"))
}

#[cfg(test)]
#[path = "select_tests.rs"]
mod tests;
