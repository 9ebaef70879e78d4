//! Row group pruning by bloom filter: the spec's split-block bloom filter (SBBF) with
//! xxHash64, read for `=` and `IN` tests on chunks that have one. A filter says "surely not
//! here" or "maybe": a row group none of whose tested values may be in it is ruled out.
//!
//! Used only when it checks out: the header decodes and names the one algorithm, hash and
//! compression the spec defines, the bitset is a whole number of 32-byte blocks of a plausible
//! size and lies inside the file. A float equal to zero is looked up as both -0 and +0 (equal,
//! but hashed apart), NaN never (it equals nothing, and a filter that cannot say is read);
//! a decimal stored as FIXED_LEN_BYTE_ARRAY as its big-endian bytes at the column's width;
//! one stored as BYTE_ARRAY never (its width is the writer's choice).

use super::bind::BoundColumn;
use super::expr::CmpOp;
use super::literal::{Domain, IntKind, Key, Test};
use crate::format::bloom_filter::{decode_header, MAX_BLOOM_FILTER_BYTES};
use crate::format::{bloom_hash, ColumnChunk, PhysicalType, SplitBlockBloomFilter};
use crate::page::ChunkSource;

/// The header's bytes read when the footer does not give the filter's length.
const HEADER_WINDOW: usize = 64;

/// Whether a bloom filter can decide `test` (`negated`: its negation): equality only.
pub(crate) fn worth_it(test: &Test, negated: bool) -> bool {
    match (test, negated) {
        (Test::Cmp(CmpOp::Eq, _), false) | (Test::Cmp(CmpOp::Ne, _), true) => true,
        (Test::In(_, not), _) => *not == negated,
        _ => false,
    }
}

/// A column chunk's bloom filter, as pruning uses it.
#[derive(Debug, Clone)]
pub(crate) struct Sbbf(SplitBlockBloomFilter);

impl Sbbf {
    /// Whether any value that passes `test` may be in the chunk; `true` for keys it cannot
    /// hash.
    pub(crate) fn any_may_match(&self, column: &BoundColumn, test: &Test) -> bool {
        let keys: &[Key] = match test {
            Test::Cmp(_, k) => std::slice::from_ref(k),
            Test::In(keys, _) => keys,
            _ => return true,
        };
        keys.iter().any(|k| match plain_bytes(column, k) {
            None => true,
            Some(forms) => forms.iter().any(|b| self.0.check_hash(bloom_hash(b))),
        })
    }
}

/// A key's PLAIN encodings in the column (what a writer hashed for a value equal to it: two
/// for a float zero), if it has sure ones.
fn plain_bytes(column: &BoundColumn, key: &Key) -> Option<Vec<Vec<u8>>> {
    let one = |b: &[u8]| Some(vec![b.to_vec()]);
    match (column.physical, column.stats_domain?, key) {
        (PhysicalType::INT32, Domain::Int(_), Key::Int(v)) => one(&(*v as i32).to_le_bytes()),
        (PhysicalType::INT64, Domain::Int(_), Key::Int(v)) => one(&(*v as i64).to_le_bytes()),
        (PhysicalType::FIXED_LEN_BYTE_ARRAY, Domain::Int(IntKind::Decimal(_)), Key::Int(v)) => {
            // Big-endian two's complement at the column's width; a value that does not fit
            // is in no row, but is left to the read rather than reasoned about here.
            let width = usize::try_from(column.type_length).ok().filter(|w| (1..=16).contains(w))?;
            let bytes = v.to_be_bytes();
            let (high, low) = bytes.split_at(16 - width);
            let sign = if low[0] & 0x80 != 0 { 0xff } else { 0 };
            high.iter().all(|&b| b == sign).then(|| vec![low.to_vec()])
        }
        (PhysicalType::FLOAT, Domain::Float { .. }, Key::Float(v)) if !v.is_nan() => {
            // The literal was rounded to the column's f32 when bound.
            Some(if *v == 0.0 {
                vec![0f32.to_le_bytes().to_vec(), (-0f32).to_le_bytes().to_vec()]
            } else {
                vec![(*v as f32).to_le_bytes().to_vec()]
            })
        }
        (PhysicalType::DOUBLE, Domain::Float { .. }, Key::Float(v)) if !v.is_nan() => Some(if *v == 0.0 {
            vec![0f64.to_le_bytes().to_vec(), (-0f64).to_le_bytes().to_vec()]
        } else {
            vec![v.to_le_bytes().to_vec()]
        }),
        (PhysicalType::BYTE_ARRAY | PhysicalType::FIXED_LEN_BYTE_ARRAY, Domain::Bytes, Key::Bytes(b)) => one(b),
        _ => None,
    }
}

/// Reads and checks `chunk`'s bloom filter; `None` if it has none that checks out. `bytes`
/// counts the bytes read.
pub(crate) fn read<S: ChunkSource>(source: &S, chunk: &ColumnChunk, bytes: &mut u64) -> Option<Sbbf> {
    read_filter(source, chunk, bytes).map(Sbbf)
}

/// Reads and checks `chunk`'s bloom filter (for pruning, and for merge to carry over);
/// `None` if it has none that checks out. `bytes` counts the bytes read.
pub(crate) fn read_filter<S: ChunkSource>(
    source: &S,
    chunk: &ColumnChunk,
    bytes: &mut u64,
) -> Option<SplitBlockBloomFilter> {
    let meta = chunk.meta_data.as_ref()?;
    let offset = u64::try_from(meta.bloom_filter_offset?).ok()?;
    let length = match meta.bloom_filter_length {
        Some(len) => Some(usize::try_from(len).ok()?),
        None => None,
    };
    // A length past the largest filter is no filter: never read more than one can be.
    let window = length.unwrap_or(HEADER_WINDOW).min(MAX_BLOOM_FILTER_BYTES + HEADER_WINDOW);
    let window = window.min(usize::try_from(source.len().checked_sub(offset)?).ok()?);
    let head = source.read_at(offset, window).ok()?;
    *bytes += head.len() as u64;
    let (size, used) = decode_header(head.as_slice()).ok()?;
    if length.is_some_and(|len| len != used + size) {
        // The footer's length is the header's and the bitset's (every writer sets it so):
        // one that disagrees says the bitset is truncated, or is not where the footer says.
        return None;
    }
    let bitset = match head.as_slice().get(used..used + size) {
        Some(b) => SplitBlockBloomFilter::from_bitset(b),
        None => {
            let start = offset.checked_add(used as u64)?;
            if start.checked_add(size as u64)? > source.len() {
                return None;
            }
            *bytes += size as u64;
            SplitBlockBloomFilter::from_bitset(source.read_at(start, size).ok()?.as_slice())
        }
    };
    Some(bitset)
}
