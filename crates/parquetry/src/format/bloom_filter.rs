//! The spec's split-block bloom filter (SBBF): a bitset of 32-byte blocks, each of eight
//! 32-bit words; a value's xxHash64 (seed 0) of its PLAIN bytes picks one block by its upper
//! half and one bit in each word by its lower half times eight odd salts. Written after a
//! [`BloomFilterHeader`] (split block, xxHash64, uncompressed), the bitset follows at once.
//!
//! Shared by the writer (which builds one per column chunk), merge (which unions the filters
//! of chunks it coalesces) and row-group pruning (which probes them). Sized as Arrow C++,
//! arrow-rs and parquet-java size theirs: the optimal bits for `ndv` values at `fpp`, rounded
//! up to a power of two between 32 bytes and 128 MiB. A filter whose block count is a power
//! of two can be folded in half (block `2j` OR `2j + 1` becomes block `j`: the block index is
//! the hash's top bits, so halving drops one) without losing a value; the writer folds while
//! the estimated false positive rate stays within the asked one (as Arrow C++ does), so a
//! chunk with fewer distinct values than planned gets a smaller filter.

use super::page_index::BloomFilterHeader;
use super::thrift;

/// The smallest bitset: one block.
pub const MIN_BLOOM_FILTER_BYTES: usize = 32;
/// The largest bitset written or read (the spec's writers cap theirs at 128 MiB).
pub const MAX_BLOOM_FILTER_BYTES: usize = 128 << 20;

const SALT: [u32; 8] =
    [0x47b6_137b, 0x4497_4d91, 0x8824_ad5b, 0xa2b7_289d, 0x7054_95c7, 0x2df1_424b, 0x9efc_4947, 0x5c6b_fb31];

/// xxHash64 with seed 0 of a value's PLAIN bytes (a BYTE_ARRAY's bytes without their length,
/// fixed-width values little-endian): what the spec's bloom filters hash. `xxhash-rust` is the
/// field's well-kept implementation.
pub fn bloom_hash(plain: &[u8]) -> u64 {
    xxhash_rust::xxh64::xxh64(plain, 0)
}

/// The bitset bytes for `ndv` distinct values at false positive probability `fpp` (in
/// (0, 1)): `-8 ndv / ln(1 - fpp^(1/8))` bits, a power of two between the bounds.
pub fn optimal_num_bytes(ndv: u64, fpp: f64) -> usize {
    let bits = -8.0 * ndv as f64 / (1.0 - fpp.powf(1.0 / 8.0)).ln();
    let bytes = if bits.is_finite() && bits >= 0.0 { (bits / 8.0) as u64 } else { MAX_BLOOM_FILTER_BYTES as u64 };
    (bytes.clamp(MIN_BLOOM_FILTER_BYTES as u64, MAX_BLOOM_FILTER_BYTES as u64) as usize).next_power_of_two()
}

/// A column chunk's split-block bloom filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitBlockBloomFilter {
    blocks: Vec<[u32; 8]>,
}

/// The block of `hash` among `n`.
#[inline]
fn locate_block(hash: u64, n: usize) -> usize {
    (((hash >> 32) * n as u64) >> 32) as usize
}

/// The block of `hash` among `n` and the bit it sets in each word of that block.
#[inline]
fn locate(hash: u64, n: usize) -> (usize, [u32; 8]) {
    let block = locate_block(hash, n);
    let key = hash as u32;
    (block, SALT.map(|salt| 1u32 << (key.wrapping_mul(salt) >> 27)))
}

impl SplitBlockBloomFilter {
    /// An empty filter of `num_bytes` (rounded up to a power of two within the bounds).
    pub fn with_num_bytes(num_bytes: usize) -> Self {
        let bytes = num_bytes.clamp(MIN_BLOOM_FILTER_BYTES, MAX_BLOOM_FILTER_BYTES).next_power_of_two();
        SplitBlockBloomFilter { blocks: vec![[0; 8]; bytes / 32] }
    }

    /// An empty filter sized for `ndv` distinct values at `fpp` ([`optimal_num_bytes`]).
    pub fn new(ndv: u64, fpp: f64) -> Self {
        Self::with_num_bytes(optimal_num_bytes(ndv, fpp))
    }

    /// Bytes of the bitset.
    pub fn num_bytes(&self) -> usize {
        self.blocks.len() * 32
    }

    /// Adds a value by its [`bloom_hash`].
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) {
        let (block, bits) = locate(hash, self.blocks.len());
        let words = &mut self.blocks[block];
        for (word, bit) in words.iter_mut().zip(bits) {
            *word |= bit;
        }
    }

    /// Adds values by their [`bloom_hash`]es. Hashing a batch first and then inserting it
    /// lets the processor overlap the inserts' cache misses (a 1 MiB filter is read at
    /// random): one insert after each hash waited on every miss.
    pub fn insert_hashes(&mut self, hashes: &[u64]) {
        let n = self.blocks.len();
        // Every block of the batch read first, in a loop of loads alone (no store to wait
        // behind), so that their misses overlap; the inserts then find them in cache.
        let mut touched = 0u32;
        for &hash in hashes {
            touched ^= self.blocks[locate_block(hash, n)][0];
        }
        std::hint::black_box(touched);
        for &hash in hashes {
            let (block, bits) = locate(hash, n);
            let words = &mut self.blocks[block];
            for (word, bit) in words.iter_mut().zip(bits) {
                *word |= bit;
            }
        }
    }

    /// Adds a value by its PLAIN bytes.
    #[inline]
    pub fn insert(&mut self, plain: &[u8]) {
        self.insert_hash(bloom_hash(plain));
    }

    /// Whether a value of this [`bloom_hash`] may have been added (false: surely not).
    pub fn check_hash(&self, hash: u64) -> bool {
        let (block, bits) = locate(hash, self.blocks.len());
        self.blocks[block].iter().zip(bits).all(|(word, bit)| word & bit != 0)
    }

    /// Whether a value of these PLAIN bytes may have been added.
    pub fn check(&self, plain: &[u8]) -> bool {
        self.check_hash(bloom_hash(plain))
    }

    /// The chance that a value never added is said to be there: over the blocks, the mean of
    /// the product of each word's share of bits set (a probe tests one bit per word).
    pub fn estimated_fpp(&self) -> f64 {
        mean_fpp(self.blocks.iter().copied())
    }

    /// Folds the filter in half while the result's [`estimated_fpp`](Self::estimated_fpp)
    /// stays at most `fpp` (only a power-of-two block count folds).
    pub fn fold_to_fpp(&mut self, fpp: f64) {
        while self.blocks.len() > 1 && self.blocks.len().is_power_of_two() {
            let halves = self.blocks.chunks_exact(2).map(|p| or_blocks(&p[0], &p[1]));
            if mean_fpp(halves) > fpp {
                break;
            }
            self.fold_once();
        }
    }

    fn fold_once(&mut self) {
        let n = self.blocks.len() / 2;
        for j in 0..n {
            self.blocks[j] = or_blocks(&self.blocks[2 * j], &self.blocks[2 * j + 1]);
        }
        self.blocks.truncate(n);
    }

    /// Adds every value of `other`: both are folded to the smaller block count, then OR-ed.
    /// False (and `self` unchanged) when a block count is not a power of two.
    pub fn union(&mut self, other: &SplitBlockBloomFilter) -> bool {
        let (a, b) = (self.blocks.len(), other.blocks.len());
        if !a.is_power_of_two() || !b.is_power_of_two() {
            return false;
        }
        while self.blocks.len() > b {
            self.fold_once();
        }
        let mut other = std::borrow::Cow::Borrowed(other);
        while other.blocks.len() > self.blocks.len() {
            other.to_mut().fold_once();
        }
        for (x, y) in self.blocks.iter_mut().zip(&other.blocks) {
            *x = or_blocks(x, y);
        }
        true
    }

    /// Appends the filter as it is stored: its header, then the bitset.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let header = BloomFilterHeader { num_bytes: self.num_bytes() as i32, algorithm: 1, hash: 1, compression: 1 };
        thrift::encode(&header, out);
        out.reserve(self.num_bytes());
        for word in self.blocks.iter().flatten() {
            out.extend_from_slice(&word.to_le_bytes());
        }
    }

    /// The filter stored at the start of `bytes` (header, then bitset), if it checks out: the
    /// header decodes and names the one algorithm, hash and compression the spec defines, the
    /// bitset is a whole number of blocks no larger than [`MAX_BLOOM_FILTER_BYTES`] and is all
    /// there. `Err` says what is wrong, `Ok` gives the filter and its stored length.
    pub fn decode(bytes: &[u8]) -> Result<(Self, usize), String> {
        let (header, used) = decode_header(bytes)?;
        let bitset = bytes
            .get(used..used + header)
            .ok_or_else(|| format!("the bitset of {header} bytes runs past the {} bytes given", bytes.len()))?;
        Ok((Self::from_bitset(bitset), used + header))
    }

    /// The filter of a checked bitset (a whole number of 32-byte blocks).
    pub(crate) fn from_bitset(bitset: &[u8]) -> Self {
        let blocks = bitset
            .chunks_exact(32)
            .map(|b| std::array::from_fn(|i| u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])))
            .collect();
        SplitBlockBloomFilter { blocks }
    }
}

/// Decodes and checks a bloom filter header at the start of `bytes`: the bitset's length
/// and the header's.
pub fn decode_header(bytes: &[u8]) -> Result<(usize, usize), String> {
    let (header, used) =
        thrift::decode::<BloomFilterHeader>(bytes).map_err(|e| format!("the header does not decode: {e}"))?;
    if (header.algorithm, header.hash, header.compression) != (1, 1, 1) {
        return Err(format!(
            "unknown algorithm, hash or compression (union members {}, {}, {})",
            header.algorithm, header.hash, header.compression
        ));
    }
    match usize::try_from(header.num_bytes) {
        Ok(n) if n > 0 && n % 32 == 0 && n <= MAX_BLOOM_FILTER_BYTES => Ok((n, used)),
        _ => {
            Err(format!("a bitset of {} bytes is not a whole number of 32-byte blocks up to 128 MiB", header.num_bytes))
        }
    }
}

fn or_blocks(a: &[u32; 8], b: &[u32; 8]) -> [u32; 8] {
    std::array::from_fn(|i| a[i] | b[i])
}

fn mean_fpp(blocks: impl ExactSizeIterator<Item = [u32; 8]>) -> f64 {
    let n = blocks.len().max(1) as f64;
    let sum: f64 = blocks.map(|b| b.iter().map(|w| w.count_ones() as f64 / 32.0).product::<f64>()).sum();
    sum / n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xxh64_matches_the_reference() {
        // Reference values of XXH64 with seed 0.
        assert_eq!(bloom_hash(b""), 0xEF46_DB37_51D8_E999);
        assert_eq!(bloom_hash(b"a"), 0xD24E_C4F1_A98C_6E5B);
        assert_eq!(bloom_hash(b"abc"), 0x44BC_2CF5_AD77_0999);
    }

    #[test]
    fn sizes_as_the_peers_do() {
        // Arrow C++'s table (properties.h, BloomFilterOptions): 1,000,000 values at 5% take
        // 1024 KiB, at 1% 2048 KiB; 100,000 at 1% take 128 KiB.
        assert_eq!(optimal_num_bytes(1_000_000, 0.05), 1 << 20);
        assert_eq!(optimal_num_bytes(1_000_000, 0.01), 2 << 20);
        assert_eq!(optimal_num_bytes(100_000, 0.01), 128 << 10);
        assert_eq!(optimal_num_bytes(0, 0.05), 32);
        assert_eq!(optimal_num_bytes(u64::MAX, 0.05), MAX_BLOOM_FILTER_BYTES);
        assert_eq!(optimal_num_bytes(10, 1e-300), MAX_BLOOM_FILTER_BYTES);
    }

    #[test]
    fn every_value_added_is_found_and_folding_keeps_them() {
        let mut f = SplitBlockBloomFilter::new(10_000, 0.01);
        let values: Vec<Vec<u8>> = (0..1000u32).map(|i| format!("value-{i}").into_bytes()).collect();
        values.iter().for_each(|v| f.insert(v));
        let before = f.num_bytes();
        f.fold_to_fpp(0.01);
        assert!(f.num_bytes() < before, "{} bytes", f.num_bytes());
        assert!(f.estimated_fpp() <= 0.01);
        assert!(values.iter().all(|v| f.check(v)));
        let absent = (0..10_000u32).filter(|i| f.check(format!("absent-{i}").as_bytes())).count();
        assert!(absent < 300, "{absent} of 10,000 absent values found");
    }

    #[test]
    fn union_keeps_both_sides() {
        let mut a = SplitBlockBloomFilter::with_num_bytes(1024);
        let mut b = SplitBlockBloomFilter::with_num_bytes(256);
        a.insert(b"left");
        b.insert(b"right");
        assert!(a.union(&b));
        assert_eq!(a.num_bytes(), 256);
        assert!(a.check(b"left") && a.check(b"right"));
    }

    #[test]
    fn decodes_what_it_encodes_and_refuses_what_does_not_check_out() {
        let mut f = SplitBlockBloomFilter::with_num_bytes(64);
        f.insert(b"x");
        let mut bytes = Vec::new();
        f.encode(&mut bytes);
        let (g, len) = SplitBlockBloomFilter::decode(&bytes).unwrap();
        assert_eq!((g, len), (f, bytes.len()));
        assert!(SplitBlockBloomFilter::decode(&bytes[..bytes.len() - 1]).is_err());
        for bad in [0, 33, -32, i32::MAX] {
            let mut out = Vec::new();
            let h = BloomFilterHeader { num_bytes: bad, algorithm: 1, hash: 1, compression: 1 };
            thrift::encode(&h, &mut out);
            out.resize(out.len() + 64, 0);
            assert!(SplitBlockBloomFilter::decode(&out).is_err(), "{bad}");
        }
    }
}
