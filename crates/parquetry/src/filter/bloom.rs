//! Row group pruning by bloom filter: the spec's split-block bloom filter (SBBF) with
//! xxHash64, read for `=` and `IN` tests on chunks that have one. A filter says "surely not
//! here" or "maybe": a row group none of whose tested values may be in it is ruled out.
//!
//! Used only when it checks out: the header decodes and names the one algorithm, hash and
//! compression the spec defines, the bitset is a whole number of 32-byte blocks of a plausible
//! size and lies inside the file. Floating point values are never looked up (-0 and +0 are
//! equal but hash differently), nor decimals stored as bytes (their width is the writer's).

use super::bind::BoundColumn;
use super::expr::CmpOp;
use super::literal::{Domain, IntKind, Key, Test};
use crate::format::thrift::decode;
use crate::format::{BloomFilterHeader, ColumnChunk, PhysicalType};
use crate::page::ChunkSource;

/// The largest bitset read (the spec's writers cap theirs at 128 MiB).
const MAX_BITSET: usize = 128 << 20;

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

/// A column chunk's bloom filter.
#[derive(Debug, Clone)]
pub(crate) struct Sbbf {
    blocks: Vec<[u32; 8]>,
}

impl Sbbf {
    /// Whether a value whose PLAIN bytes hash to `hash` may be in the chunk.
    fn may_contain(&self, hash: u64) -> bool {
        let block = (((hash >> 32) * self.blocks.len() as u64) >> 32) as usize;
        let key = hash as u32;
        let words = &self.blocks[block];
        SALT.iter().zip(words).all(|(salt, word)| word & (1u32 << (key.wrapping_mul(*salt) >> 27)) != 0)
    }

    /// Whether any value that passes `test` may be in the chunk; `true` for keys it cannot
    /// hash.
    pub(crate) fn any_may_match(&self, column: &BoundColumn, test: &Test) -> bool {
        let keys: &[Key] = match test {
            Test::Cmp(_, k) => std::slice::from_ref(k),
            Test::In(keys, _) => keys,
            _ => return true,
        };
        keys.iter().any(|k| plain_bytes(column, k).is_none_or(|b| self.may_contain(xxh64(&b))))
    }
}

const SALT: [u32; 8] =
    [0x47b6_137b, 0x4497_4d91, 0x8824_ad5b, 0xa2b7_289d, 0x705495c7, 0x2df1_424b, 0x9efc_4947, 0x5c6b_fb31];

/// A key's PLAIN encoding in the column (what the writer hashed), if it has a sure one.
fn plain_bytes(column: &BoundColumn, key: &Key) -> Option<Vec<u8>> {
    match (column.physical, column.stats_domain?, key) {
        (PhysicalType::INT32, Domain::Int(_), Key::Int(v)) => Some((*v as i32).to_le_bytes().to_vec()),
        (PhysicalType::INT64, Domain::Int(_), Key::Int(v)) => Some((*v as i64).to_le_bytes().to_vec()),
        (PhysicalType::BYTE_ARRAY | PhysicalType::FIXED_LEN_BYTE_ARRAY, Domain::Bytes, Key::Bytes(b)) => {
            Some(b.clone())
        }
        (_, Domain::Int(IntKind::Decimal(_)), _) | (_, Domain::Float { .. }, _) => None,
        _ => None,
    }
}

/// Reads and checks `chunk`'s bloom filter; `None` if it has none that checks out. `bytes`
/// counts the bytes read.
pub(crate) fn read<S: ChunkSource>(source: &S, chunk: &ColumnChunk, bytes: &mut u64) -> Option<Sbbf> {
    let meta = chunk.meta_data.as_ref()?;
    let offset = u64::try_from(meta.bloom_filter_offset?).ok()?;
    let window = match meta.bloom_filter_length {
        Some(len) => usize::try_from(len).ok()?,
        None => HEADER_WINDOW,
    };
    let window = window.min(usize::try_from(source.len().checked_sub(offset)?).ok()?);
    let head = source.read_at(offset, window).ok()?;
    *bytes += head.len() as u64;
    let (header, used) = decode::<BloomFilterHeader>(head.as_slice()).ok()?;
    let size = usize::try_from(header.num_bytes).ok()?;
    if (header.algorithm, header.hash, header.compression) != (1, 1, 1)
        || size == 0
        || size % 32 != 0
        || size > MAX_BITSET
    {
        return None;
    }
    let bitset = match head.as_slice().get(used..used + size) {
        Some(b) => b.to_vec(),
        None => {
            let start = offset.checked_add(used as u64)?;
            if start.checked_add(size as u64)? > source.len() {
                return None;
            }
            *bytes += size as u64;
            source.read_at(start, size).ok()?.as_slice().to_vec()
        }
    };
    let blocks = bitset
        .chunks_exact(32)
        .map(|b| std::array::from_fn(|i| u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])))
        .collect();
    Some(Sbbf { blocks })
}

/// xxHash64 with seed 0, the hash the spec's bloom filters use (`xxhash-rust`: the field's
/// well-kept implementation, rather than our own).
pub(crate) fn xxh64(data: &[u8]) -> u64 {
    xxhash_rust::xxh64::xxh64(data, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xxh64_matches_the_reference_for_every_tail_length() {
        // Reference values of XXH64 with seed 0.
        assert_eq!(xxh64(b""), 0xEF46_DB37_51D8_E999);
        assert_eq!(xxh64(b"a"), 0xD24E_C4F1_A98C_6E5B);
        assert_eq!(xxh64(b"abc"), 0x44BC_2CF5_AD77_0999);
    }
}
