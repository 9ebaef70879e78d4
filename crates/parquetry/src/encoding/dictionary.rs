//! The dictionary side of RLE_DICTIONARY: values interned into a dictionary numbered in
//! first-seen order, with its PLAIN dictionary page built as they arrive.
//!
//! The indexes this hands out are what the data pages hold (written by the RLE/bit-packing
//! hybrid in [`super::rle`]); the page is the column chunk's dictionary page body. Each value is
//! hashed once (design guide, lesson 5): the table's slot keeps the hash of a long value (the
//! bytes of a short one), a lookup compares it before any bytes, and growing the table takes
//! each hash from its slot, never from the values. Values live only in the page being built,
//! so nothing is allocated per value.

use core::hash::{BuildHasher, Hasher};

use foldhash::fast::FixedState;
use hashbrown::HashTable;

use super::OffsetSize;
use crate::format::PhysicalType;

#[cfg(test)]
#[path = "dictionary_tests.rs"]
mod tests;

/// The dictionary of a column chunk being dictionary-encoded, for whichever physical type:
/// what the writer's encoder builds, and what merge builds when it unifies its inputs'
/// dictionaries (the same values, the same page, the same indexes).
#[derive(Debug)]
pub(crate) enum Dictionary {
    /// BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY and INT96 values.
    Bytes(ByteArrayDictionary),
    /// INT32, INT64, FLOAT and DOUBLE values, by bit pattern.
    Fixed(FixedDictionary),
}

impl Dictionary {
    /// An empty dictionary for `physical` values (`type_length` bytes for
    /// FIXED_LEN_BYTE_ARRAY); `None` for BOOLEAN, and for a FIXED_LEN_BYTE_ARRAY without a
    /// width.
    pub(crate) fn new(physical: PhysicalType, type_length: usize) -> Option<Self> {
        Some(match physical {
            PhysicalType::BYTE_ARRAY => Dictionary::Bytes(ByteArrayDictionary::new()),
            PhysicalType::FIXED_LEN_BYTE_ARRAY if type_length > 0 => {
                Dictionary::Bytes(ByteArrayDictionary::new_fixed(type_length))
            }
            PhysicalType::INT96 => Dictionary::Bytes(ByteArrayDictionary::new_fixed(12)),
            PhysicalType::INT32 | PhysicalType::FLOAT => Dictionary::Fixed(FixedDictionary::new(4)),
            PhysicalType::INT64 | PhysicalType::DOUBLE => Dictionary::Fixed(FixedDictionary::new(8)),
            _ => return None,
        })
    }

    /// Number of distinct values.
    pub(crate) fn len(&self) -> usize {
        match self {
            Dictionary::Bytes(d) => d.len(),
            Dictionary::Fixed(d) => d.len(),
        }
    }

    /// The PLAIN dictionary page body so far.
    pub(crate) fn page(&self) -> &[u8] {
        match self {
            Dictionary::Bytes(d) => d.page(),
            Dictionary::Fixed(d) => d.page(),
        }
    }

    /// Forgets every value, keeping the memory, for the next column chunk.
    pub(crate) fn clear(&mut self) {
        match self {
            Dictionary::Bytes(d) => d.clear(),
            Dictionary::Fixed(d) => d.clear(),
        }
    }

    /// Calls `f` with each value's PLAIN bytes (without a length prefix), in index order.
    pub(crate) fn for_each_value(&self, mut f: impl FnMut(&[u8])) {
        match self {
            Dictionary::Bytes(d) => (0..d.len() as u32).for_each(|i| f(d.value(i))),
            Dictionary::Fixed(d) => d.page().chunks_exact(d.width).for_each(f),
        }
    }

    /// The index of `value` (its PLAIN bytes), added if new.
    pub(crate) fn intern(&mut self, value: &[u8]) -> u32 {
        match self {
            Dictionary::Bytes(d) => d.intern(value),
            Dictionary::Fixed(d) => {
                let mut b = [0u8; 8];
                let n = value.len().min(8);
                b[..n].copy_from_slice(&value[..n]);
                d.intern(u64::from_le_bytes(b))
            }
        }
    }
}

#[cfg(test)]
#[path = "dictionary_bench.rs"]
mod bench;

/// The foldhash seed: any fixed value, so that runs (and their page orders) are reproducible.
const SEED: u64 = 0x5851_F42D_4C95_7F2D;

/// Hashes a byte value with foldhash. Its `write` mixes the length in itself, so this skips
/// the separate length that `Hash for [u8]` (and so `BuildHasher::hash_one`) would add.
/// The seed is fixed, but nothing the dictionary produces depends on it: indexes and the
/// page follow first-seen order, only the table's layout changes with the seed.
#[inline(always)]
fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut hasher = FixedState::with_seed(SEED).build_hasher();
    hasher.write(bytes);
    hasher.finish()
}

/// What the table holds per value: its index, its length, and a key: for a value of up to 8
/// bytes the bytes themselves (zero-padded), for a longer one its hash. A probe then finds a
/// short value, and tells long values apart, without a dependent load of the entry and the
/// page; repeated short values (tags, codes) were bound by those loads, three dependent reads
/// per lookup. The slot also gives its value's hash back ([`Slot::hash`]), so growing the
/// table reads nothing else.
#[derive(Clone, Copy, Debug)]
struct Slot {
    index: u32,
    len: u32,
    key: u64,
}

/// The hash and [`Slot::key`] of `value`. Up to 8 bytes, the key is a word that holds every
/// byte, so that two values of one length have one key only if they are equal, built from
/// fixed-size loads (two overlapping ones), not a copy of variable length, which is a call to
/// `memcpy`; and the hash is one folded multiply of that word and the length, where foldhash
/// over the bytes took 12 of the ~80 instructions interning an 8-byte tag took. Longer, the
/// hash is foldhash's and the key is the hash.
#[inline(always)]
fn hash_and_key(value: &[u8]) -> (u64, u64) {
    let n = value.len();
    let word = |at: usize| u32::from_le_bytes(value[at..at + 4].try_into().unwrap_or_default()) as u64;
    let key = match n {
        0 => 0,
        1..=3 => value[0] as u64 | (value[n / 2] as u64) << 8 | (value[n - 1] as u64) << 16,
        4..=8 => word(0) | word(n - 4) << 32,
        _ => {
            let hash = hash_bytes(value);
            return (hash, hash);
        }
    };
    (short_hash(key, n), key)
}

/// The hash of a value of up to 8 bytes whose key is `key`.
#[inline(always)]
fn short_hash(key: u64, len: usize) -> u64 {
    hash_u64(key ^ (len as u64).wrapping_mul(0xA076_1D64_78BD_642F))
}

impl Slot {
    /// The hash of the slot's value as [`hash_and_key`] made it, from the slot alone: a long
    /// value's key is its hash, a short value's hash is its key's. Growing the table takes
    /// it from here; reading it from the entries, in the table's order, was a cache miss per
    /// value and 12% of writing the `strings` dataset with snappy.
    #[inline(always)]
    fn hash(&self) -> u64 {
        if self.len > 8 {
            self.key
        } else {
            short_hash(self.key, self.len as usize)
        }
    }
}

/// Interns BYTE_ARRAY (or fixed-width byte) values, numbering them in first-seen order, and
/// builds the PLAIN dictionary page as values arrive.
///
/// The writer feeds it a column chunk's values and writes the indexes it returns into data
/// pages; it falls back to another encoding once [`page_len`](Self::page_len) passes the
/// dictionary page size limit, and calls [`clear`](Self::clear) for the next column chunk.
#[derive(Clone, Debug)]
pub struct ByteArrayDictionary {
    /// Per value, hashed by [`Slot::hash`].
    table: HashTable<Slot>,
    /// Per value, in index order: where its bytes start in the page (after its length
    /// prefix, if any).
    starts: Vec<usize>,
    /// The PLAIN dictionary page: every value in index order.
    page: Vec<u8>,
    /// `None` for BYTE_ARRAY (each value in the page has a 4-byte length prefix), else the
    /// width of every value (FIXED_LEN_BYTE_ARRAY, INT96), which the page stores bare.
    width: Option<usize>,
}

impl Default for ByteArrayDictionary {
    fn default() -> Self {
        Self::new()
    }
}

impl ByteArrayDictionary {
    /// An empty BYTE_ARRAY dictionary: its page holds each value as a 4-byte little-endian
    /// length followed by the bytes.
    pub fn new() -> Self {
        Self { table: HashTable::new(), starts: Vec::new(), page: Vec::new(), width: None }
    }

    /// An empty dictionary of `width`-byte values (FIXED_LEN_BYTE_ARRAY, INT96): its page
    /// holds the values' bytes back to back, without length prefixes.
    pub fn new_fixed(width: usize) -> Self {
        Self { width: Some(width), ..Self::new() }
    }

    /// The index of `value`, inserting it at the next index if it is new.
    ///
    /// Panics if a fixed-width dictionary is given a value of another width, or a BYTE_ARRAY
    /// value is longer than `u32::MAX` bytes (PLAIN cannot encode it).
    #[inline]
    pub fn intern(&mut self, value: &[u8]) -> u32 {
        match self.width {
            None => self.intern_value::<true>(value),
            Some(width) => {
                check_width(value, width);
                self.intern_value::<false>(value)
            }
        }
    }

    /// Interns the `offsets.len() - 1` values `data[offsets[i]..offsets[i + 1]]` (Arrow's
    /// `Utf8`/`Binary` layout) and appends their indexes to `out`.
    ///
    /// Panics if the offsets are not valid for `data`, or on a value [`intern`](Self::intern)
    /// panics on.
    pub fn intern_offsets<O: OffsetSize>(&mut self, offsets: &[O], data: &[u8], out: &mut Vec<u32>) {
        // One branch on the page layout per call, so the per-value loop is specialised.
        match self.width {
            None => out.extend(offsets.windows(2).map(|w| {
                let value = &data[w[0].as_usize()..w[1].as_usize()];
                self.intern_value::<true>(value)
            })),
            Some(width) => out.extend(offsets.windows(2).map(|w| {
                let value = &data[w[0].as_usize()..w[1].as_usize()];
                check_width(value, width);
                self.intern_value::<false>(value)
            })),
        }
    }

    /// Interns the values of a fixed-width dictionary that lie back to back in `data`
    /// (Arrow's `FixedSizeBinary` layout) and appends their indexes to `out`.
    ///
    /// Panics if this is a BYTE_ARRAY dictionary or `data` is not a whole number of values.
    pub fn intern_fixed(&mut self, data: &[u8], out: &mut Vec<u32>) {
        let width = self.width.expect("intern_fixed needs a dictionary made by new_fixed");
        if width == 0 {
            // There are no values to count in zero bytes; the caller interns them one by one.
            assert!(data.is_empty(), "values of width 0 have no bytes");
            return;
        }
        let n = data.len();
        assert!(n.is_multiple_of(width), "{n} bytes are not whole values of {width} bytes");
        let values = data.chunks_exact(width);
        out.extend(values.map(|value| self.intern_value::<false>(value)));
    }

    /// The number of distinct values interned.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// True if no value has been interned.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The PLAIN dictionary page body so far: the values in index order.
    pub fn page(&self) -> &[u8] {
        &self.page
    }

    /// The size of [`page`](Self::page) in bytes, which the writer compares with the
    /// dictionary page size limit.
    pub fn page_len(&self) -> usize {
        self.page.len()
    }

    /// The bytes of the value at `index`, for statistics.
    ///
    /// Panics if `index` was not returned since the last [`clear`](Self::clear).
    pub fn value(&self, index: u32) -> &[u8] {
        let start = self.starts[index as usize];
        &self.page[start..start + self.stored_len(start)]
    }

    /// The sum of the values' lengths, without length prefixes (what Arrow would hold).
    pub fn value_bytes(&self) -> usize {
        match self.width {
            None => self.page.len() - 4 * self.starts.len(),
            Some(_) => self.page.len(),
        }
    }

    /// Forgets every value, keeping the memory, for the next column chunk.
    pub fn clear(&mut self) {
        self.table.clear();
        self.starts.clear();
        self.page.clear();
    }

    /// Makes room for `values` more values of `page_bytes` more page bytes in all, so that
    /// interning a known batch (a whole dictionary page) grows each buffer once instead of by
    /// doubling (each doubling faults in fresh memory).
    pub fn reserve(&mut self, values: usize, page_bytes: usize) {
        self.table.reserve(values, Slot::hash);
        self.starts.reserve(values);
        self.page.reserve(page_bytes);
    }

    /// The length of the value whose bytes start at `start` in the page.
    #[inline(always)]
    fn stored_len(&self, start: usize) -> usize {
        match self.width {
            None => prefix_at(&self.page, start),
            Some(width) => width,
        }
    }

    /// [`intern`](Self::intern) without the width check; `PREFIXED` is
    /// `self.width.is_none()`, lifted out of the per-value path.
    #[inline(always)]
    fn intern_value<const PREFIXED: bool>(&mut self, value: &[u8]) -> u32 {
        let (hash, key) = hash_and_key(value);
        self.intern_hashed::<PREFIXED>(value, hash, key)
    }

    /// [`intern_value`](Self::intern_value) for a value whose hash and key are known.
    #[inline(always)]
    fn intern_hashed<const PREFIXED: bool>(&mut self, value: &[u8], hash: u64, key: u64) -> u32 {
        debug_assert!(PREFIXED == self.width.is_none());
        let len = value.len() as u32;
        // The probe compares what the slot holds, inlined into its loop; a value longer than
        // 8 bytes with the same length and hash is compared in the page after (only two such
        // values with one 64-bit hash, possible but not seen in practice, take the full
        // search).
        match self.table.find(hash, |s| s.key == key && s.len == len) {
            Some(s) if value.len() <= 8 || self.holds(s.index, value) => s.index,
            Some(_) => self.intern_colliding(value, hash, key),
            None => self.insert::<PREFIXED>(value, hash, key),
        }
    }

    /// True if the value at `index`, known to be `value.len()` bytes long, is `value`.
    #[inline(always)]
    fn holds(&self, index: u32, value: &[u8]) -> bool {
        let start = self.starts[index as usize];
        self.page.get(start..start + value.len()).is_some_and(|stored| same_bytes(stored, value))
    }

    /// [`intern_hashed`](Self::intern_hashed) for a long value whose length and hash equal
    /// those of another value: every such value is compared.
    #[cold]
    #[inline(never)]
    fn intern_colliding(&mut self, value: &[u8], hash: u64, key: u64) -> u32 {
        let len = value.len() as u32;
        let found = self.table.find(hash, |s| s.key == key && s.len == len && self.holds(s.index, value));
        match found {
            Some(s) => s.index,
            None if self.width.is_none() => self.insert::<true>(value, hash, key),
            None => self.insert::<false>(value, hash, key),
        }
    }

    /// Adds `value`, which is not in the dictionary, at the next index.
    #[inline(always)]
    fn insert<const PREFIXED: bool>(&mut self, value: &[u8], hash: u64, key: u64) -> u32 {
        let Self { table, starts, page, .. } = self;
        let index = u32::try_from(starts.len()).expect("more than u32::MAX dictionary values");
        let len = u32::try_from(value.len()).expect("a BYTE_ARRAY value longer than u32::MAX bytes");
        if PREFIXED {
            page.extend_from_slice(&len.to_le_bytes());
        }
        starts.push(page.len());
        page.extend_from_slice(value);
        table.insert_unique(hash, Slot { index, len, key }, Slot::hash);
        index
    }
}

/// The 4-byte length prefix before `start` in a BYTE_ARRAY page.
#[inline(always)]
fn prefix_at(page: &[u8], start: usize) -> usize {
    let prefix: [u8; 4] = page[start - 4..start].try_into().unwrap_or_default();
    u32::from_le_bytes(prefix) as usize
}

#[inline(always)]
fn check_width(value: &[u8], width: usize) {
    assert!(value.len() == width, "a {}-byte value in a dictionary of {width}-byte values", value.len());
}

/// `a == b` for slices of equal length. Dictionary values are mostly short, and comparing them
/// as two overlapping words inline is cheaper than the call to `memcmp` that `==` makes.
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    debug_assert_eq!(n, b.len());
    if n > 32 || b.len() != n {
        return a == b;
    }
    if n >= 16 {
        return word::<16>(a, 0) == word::<16>(b, 0) && word::<16>(a, n - 16) == word::<16>(b, n - 16);
    }
    if n >= 8 {
        return word::<8>(a, 0) == word::<8>(b, 0) && word::<8>(a, n - 8) == word::<8>(b, n - 8);
    }
    if n >= 4 {
        return word::<4>(a, 0) == word::<4>(b, 0) && word::<4>(a, n - 4) == word::<4>(b, n - 4);
    }
    a == b
}

/// The `N` bytes at `at` as an integer-like array (compared as one load each).
#[inline(always)]
fn word<const N: usize>(s: &[u8], at: usize) -> u128 {
    let mut w = [0u8; 16];
    w[..N].copy_from_slice(&s[at..at + N]);
    u128::from_ne_bytes(w)
}

/// A multiplicative hash of a fixed-width value: the two halves of the 128-bit product
/// folded together, so the low bits (the table's bucket) and the high bits (its tag) both
/// depend on every input bit. A plain multiply would leave the low bits to the low input
/// bits, which are all zero for doubles like 1.0, 2.0, 3.0.
#[inline(always)]
fn hash_u64(bits: u64) -> u64 {
    let product = u128::from(bits ^ SEED) * 0x9E37_79B9_7F4A_7C15;
    (product as u64) ^ ((product >> 64) as u64)
}

/// Interns INT32, INT64, FLOAT and DOUBLE values, numbering them in first-seen order, and
/// builds the PLAIN dictionary page (little-endian values of `width` bytes) as they arrive.
///
/// Values are keyed by bit pattern, so NaN payloads and -0.0/+0.0 are distinct values, as
/// Arrow C++ does: a reader then gets back exactly the bits that were written.
#[derive(Clone, Debug)]
pub struct FixedDictionary {
    /// Each value (zero-extended to 64 bits) with its index, hashed by [`hash_u64`] of the
    /// value. A lookup compares values in the table without reading anything else, and growth
    /// re-hashes them with one multiply each, so a stored hash would save nothing. (Slots of
    /// an index alone, with the values beside the table, measured 10% slower when values
    /// repeat and 10% faster when they are all distinct; dictionary columns mostly repeat.)
    table: HashTable<(u64, u32)>,
    /// The PLAIN dictionary page, which is also where [`value_bits`](Self::value_bits) reads.
    page: Vec<u8>,
    /// 4 or 8.
    width: usize,
}

impl FixedDictionary {
    /// An empty dictionary of `width`-byte values: 4 for INT32/FLOAT, 8 for INT64/DOUBLE.
    ///
    /// Panics on any other width.
    pub fn new(width: usize) -> Self {
        assert!(width == 4 || width == 8, "a FixedDictionary holds 4 or 8-byte values, not {width}");
        Self { table: HashTable::new(), page: Vec::new(), width }
    }

    /// The index of the value with bit pattern `bits` (for 4-byte values, its low 32 bits),
    /// inserting it at the next index if it is new.
    #[inline]
    pub fn intern(&mut self, bits: u64) -> u32 {
        if self.width == 4 {
            self.intern_width::<4>(bits & u64::from(u32::MAX))
        } else {
            self.intern_width::<8>(bits)
        }
    }

    /// Interns 4-byte values and appends their indexes to `out`.
    ///
    /// Panics if this is an 8-byte dictionary.
    pub fn intern_u32s(&mut self, values: &[u32], out: &mut Vec<u32>) {
        assert!(self.width == 4, "intern_u32s on a dictionary of {}-byte values", self.width);
        out.extend(values.iter().map(|&v| self.intern_width::<4>(u64::from(v))));
    }

    /// Interns 8-byte values and appends their indexes to `out`.
    ///
    /// Panics if this is a 4-byte dictionary.
    pub fn intern_u64s(&mut self, values: &[u64], out: &mut Vec<u32>) {
        assert!(self.width == 8, "intern_u64s on a dictionary of {}-byte values", self.width);
        out.extend(values.iter().map(|&v| self.intern_width::<8>(v)));
    }

    /// The number of distinct values interned.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// True if no value has been interned.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// The PLAIN dictionary page body so far: the values in index order.
    pub fn page(&self) -> &[u8] {
        &self.page
    }

    /// The size of [`page`](Self::page) in bytes, which the writer compares with the
    /// dictionary page size limit.
    pub fn page_len(&self) -> usize {
        self.page.len()
    }

    /// The bit pattern of the value at `index` (zero-extended for 4-byte values), for
    /// statistics.
    ///
    /// Panics if `index` was not returned since the last [`clear`](Self::clear).
    pub fn value_bits(&self, index: u32) -> u64 {
        let at = index as usize * self.width;
        let mut bits = [0u8; 8];
        bits[..self.width].copy_from_slice(&self.page[at..at + self.width]);
        u64::from_le_bytes(bits)
    }

    /// Forgets every value, keeping the memory, for the next column chunk.
    pub fn clear(&mut self) {
        self.table.clear();
        self.page.clear();
    }

    /// [`intern`](Self::intern) with the width lifted out of the per-value path; `bits` has
    /// no bits set above `W` bytes.
    #[inline(always)]
    fn intern_width<const W: usize>(&mut self, bits: u64) -> u32 {
        let Self { table, page, .. } = self;
        let hash = hash_u64(bits);
        if let Some(&(_, index)) = table.find(hash, |&(v, _)| v == bits) {
            return index;
        }
        let index = u32::try_from(table.len()).expect("more than u32::MAX dictionary values");
        page.extend_from_slice(&bits.to_le_bytes()[..W]);
        table.insert_unique(hash, (bits, index), |&(v, _)| hash_u64(v));
        index
    }
}

/// An input dictionary interned into a chunk's [`Dictionary`]: the output index of each of its
/// values, and each value's byte length (for SizeStatistics). The writer keeps one for an
/// Arrow dictionary array's values, merge one per input dictionary page; a data page of
/// input indexes is then remapped index by index, its values never looked at again.
#[derive(Debug, Default)]
pub(crate) struct DictionaryMap {
    /// `indexes[i]`: input value `i`'s index in the output dictionary.
    pub(crate) indexes: Vec<u32>,
    /// `lengths[i]`: input value `i`'s length in bytes.
    pub(crate) lengths: Vec<u32>,
}

impl DictionaryMap {
    /// Interns `values`, in input index order, into `dictionary`.
    pub(crate) fn intern<'v>(dictionary: &mut Dictionary, values: impl Iterator<Item = &'v [u8]>) -> Self {
        let mut map = DictionaryMap::default();
        for v in values {
            map.indexes.push(dictionary.intern(v));
            map.lengths.push(v.len() as u32);
        }
        map
    }
}
