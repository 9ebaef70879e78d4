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
use arrow_array::{downcast_primitive_array, Array, ArrayRef, BooleanArray, PrimitiveArray, RecordBatch};
use arrow_buffer::{BooleanBuffer, Buffer, ScalarBuffer};
use arrow_schema::{DataType, SchemaRef};
use arrow_select::filter::{FilterBuilder, FilterPredicate};

use crate::error::{Error, Result};

/// The rows of `batch` where `keep` is set, its columns' types kept but for a `Decimal64`
/// column where `output` (the fields of `batch`, in order) asks `Decimal128`, widened here;
/// other widening is left to the caller.
pub(super) fn select(batch: &RecordBatch, keep: &BooleanBuffer, output: &SchemaRef) -> Result<RecordBatch> {
    let mut arrow: Option<FilterPredicate> = None;
    let mut columns = Vec::with_capacity(batch.num_columns());
    for (a, field) in batch.columns().iter().zip(output.fields()) {
        let column = match own(a, keep, field.data_type()) {
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
    if columns.iter().zip(before.fields()).all(|(c, f)| c.data_type() == f.data_type()) {
        return RecordBatch::try_new(before, columns).map_err(|e| bad(&e));
    }
    let fields: Vec<_> = columns
        .iter()
        .zip(before.fields())
        .map(|(c, f)| f.as_ref().clone().with_data_type(c.data_type().clone()))
        .collect();
    let schema = Arc::new(arrow_schema::Schema::new_with_metadata(fields, before.metadata().clone()));
    RecordBatch::try_new(schema, columns).map_err(|e| bad(&e))
}

/// `a` at `keep`'s set rows by this module's kernels; `None` for a column they do not take
/// (nulls, other widths, other types).
fn own(a: &ArrayRef, keep: &BooleanBuffer, to: &DataType) -> Option<ArrayRef> {
    if a.null_count() != 0 || a.len() != keep.len() || !avx512() {
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

/// `v`'s values at `keep`'s set bits, in order; `None` unless `v` is as long as `keep` and
/// the processor has AVX-512.
fn compressed<T: Lane>(v: &[T], keep: &BooleanBuffer) -> Option<Vec<T>> {
    let mut out = Vec::new();
    T::compress(v, keep, &mut out).then_some(out)
}

/// `v`'s values at `keep`'s set bits, widened to i128 (`None` as [`compressed`]).
fn widened(v: &[i64], keep: &BooleanBuffer) -> Option<Vec<i128>> {
    #[cfg(target_arch = "x86_64")]
    if v.len() == keep.len() && avx512() {
        let mut out = Vec::new();
        // SAFETY: the processor has AVX-512F; `v` is as long as `keep`.
        unsafe { avx512::widen64(v, keep, &mut out) };
        return Some(out);
    }
    None
}

/// Whether this module's kernels run here: without AVX-512 arrow's filter is about as fast
/// as a loop over the set bits, so every column goes that way.
fn avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::is_x86_feature_detected!("avx512f");
    #[allow(unreachable_code)]
    false
}

/// A value type the compress kernels copy: 32 or 64 bits.
trait Lane: Copy {
    /// `v`'s values at `keep`'s set bits into `out`; `false` (nothing done) unless `v` is as
    /// long as `keep` and the processor has AVX-512.
    fn compress(v: &[Self], keep: &BooleanBuffer, out: &mut Vec<Self>) -> bool;
}

impl Lane for u32 {
    fn compress(v: &[u32], keep: &BooleanBuffer, out: &mut Vec<u32>) -> bool {
        #[cfg(target_arch = "x86_64")]
        if v.len() == keep.len() && avx512() {
            // SAFETY: the processor has AVX-512F; `v` is as long as `keep`.
            unsafe { avx512::compress32(v, keep, out) };
            return true;
        }
        let _ = (v, keep, out);
        false
    }
}

impl Lane for u64 {
    fn compress(v: &[u64], keep: &BooleanBuffer, out: &mut Vec<u64>) -> bool {
        #[cfg(target_arch = "x86_64")]
        if v.len() == keep.len() && avx512() {
            // SAFETY: the processor has AVX-512F; `v` is as long as `keep`.
            unsafe { avx512::compress64(v, keep, out) };
            return true;
        }
        let _ = (v, keep, out);
        false
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    //! Each kernel reserves `count + slack` values (the set bits of `keep`, plus what one
    //! full vector store may write past the last value), stores whole vectors at the write
    //! position, which moves on by the popcount of the mask, and sets the length to `count`
    //! at the end. The write position is the popcount of the bits before: it never passes
    //! `count`, so a store at it stays within the reservation.

    use std::arch::x86_64::*;

    use arrow_buffer::BooleanBuffer;

    /// 32-bit values, sixteen to a vector.
    #[target_feature(enable = "avx512f")]
    pub(super) fn compress32(v: &[u32], keep: &BooleanBuffer, out: &mut Vec<u32>) {
        let count = keep.count_set_bits();
        *out = Vec::with_capacity(count + 16);
        let dst = out.as_mut_ptr();
        let chunks = keep.bit_chunks();
        let mut k = 0usize;
        for (w, word) in chunks.iter().enumerate() {
            for q in 0..4 {
                let m = (word >> (16 * q)) as u16;
                let at = 64 * w + 16 * q;
                // SAFETY: `at + 16 <= 64 * chunks.chunk_len() <= v.len()` (a full word of
                // `keep`, as long as `v`); the store writes 16 values at `k`, and `k <= count`
                // (the module's note) with `count + 16` reserved.
                unsafe {
                    let x = _mm512_loadu_si512(v.as_ptr().add(at).cast());
                    _mm512_storeu_si512(dst.add(k).cast(), _mm512_maskz_compress_epi32(m, x));
                }
                k += m.count_ones() as usize;
            }
        }
        let base = 64 * chunks.chunk_len();
        let mut word = chunks.remainder_bits();
        while word != 0 {
            // SAFETY: as above; one value at `k < count`.
            unsafe { dst.add(k).write(v[base + word.trailing_zeros() as usize]) };
            k += 1;
            word &= word - 1;
        }
        debug_assert_eq!(k, count);
        // SAFETY: `out[..count]` was written: every set bit of `keep` wrote its value at its
        // rank, and `count <= capacity`.
        unsafe { out.set_len(count) };
    }

    /// 64-bit values, eight to a vector.
    #[target_feature(enable = "avx512f")]
    pub(super) fn compress64(v: &[u64], keep: &BooleanBuffer, out: &mut Vec<u64>) {
        let count = keep.count_set_bits();
        *out = Vec::with_capacity(count + 8);
        let dst = out.as_mut_ptr();
        let chunks = keep.bit_chunks();
        let mut k = 0usize;
        for (w, word) in chunks.iter().enumerate() {
            for q in 0..8 {
                let m = (word >> (8 * q)) as u8;
                let at = 64 * w + 8 * q;
                // SAFETY: as in `compress32`, with 8 values a store and `count + 8` reserved.
                unsafe {
                    let x = _mm512_loadu_si512(v.as_ptr().add(at).cast());
                    _mm512_storeu_si512(dst.add(k).cast(), _mm512_maskz_compress_epi64(m, x));
                }
                k += m.count_ones() as usize;
            }
        }
        let base = 64 * chunks.chunk_len();
        let mut word = chunks.remainder_bits();
        while word != 0 {
            // SAFETY: as above; one value at `k < count`.
            unsafe { dst.add(k).write(v[base + word.trailing_zeros() as usize]) };
            k += 1;
            word &= word - 1;
        }
        debug_assert_eq!(k, count);
        // SAFETY: as in `compress32`.
        unsafe { out.set_len(count) };
    }

    /// 64-bit values widened to 128 bits (sign-extended), eight to a vector: the compressed
    /// values and their sign words interleaved into two vectors of four i128 each.
    #[target_feature(enable = "avx512f")]
    pub(super) fn widen64(v: &[i64], keep: &BooleanBuffer, out: &mut Vec<i128>) {
        let count = keep.count_set_bits();
        *out = Vec::with_capacity(count + 8);
        let dst = out.as_mut_ptr();
        let chunks = keep.bit_chunks();
        let low = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
        let high = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
        let mut k = 0usize;
        for (w, word) in chunks.iter().enumerate() {
            for q in 0..8 {
                let m = (word >> (8 * q)) as u8;
                let at = 64 * w + 8 * q;
                // SAFETY: as in `compress64`: 8 values read within `v`; 8 i128 written at `k`
                // with `count + 8` reserved.
                unsafe {
                    let x = _mm512_maskz_compress_epi64(m, _mm512_loadu_si512(v.as_ptr().add(at).cast()));
                    let sign = _mm512_srai_epi64::<63>(x);
                    let to = dst.add(k).cast::<__m512i>();
                    _mm512_storeu_si512(to, _mm512_permutex2var_epi64(x, low, sign));
                    _mm512_storeu_si512(to.add(1), _mm512_permutex2var_epi64(x, high, sign));
                }
                k += m.count_ones() as usize;
            }
        }
        let base = 64 * chunks.chunk_len();
        let mut word = chunks.remainder_bits();
        while word != 0 {
            // SAFETY: as above; one value at `k < count`.
            unsafe { dst.add(k).write(i128::from(v[base + word.trailing_zeros() as usize])) };
            k += 1;
            word &= word - 1;
        }
        debug_assert_eq!(k, count);
        // SAFETY: as in `compress32`.
        unsafe { out.set_len(count) };
    }
}

#[cold]
fn bad(e: &arrow_schema::ArrowError) -> Error {
    Error::invalid_argument(format!("filter: selecting the matching rows: {e}"))
}

#[cfg(test)]
#[path = "select_tests.rs"]
mod tests;
