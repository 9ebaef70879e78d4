//! A column chunk's bloom filter in the making.
//!
//! Values are hashed as the spec says (xxHash64 of their PLAIN bytes) when they go into a
//! page that is not dictionary-encoded. While a chunk is dictionary-encoded, nothing is
//! hashed per row: each distinct value is hashed once from the dictionary, when the chunk
//! ends (or falls back, after which the values that follow are hashed as they come). A chunk
//! that stays dictionary-encoded knows its distinct count, and its filter is sized for it
//! (never more than the asked `ndv`); any other is sized for `ndv` and folded at the end
//! while its estimated false positive rate stays within `fpp`.

use arrow_buffer::ToByteSlice;

use super::encoder::Dictionary;
use super::options::BloomFilterOptions;
use crate::encoding::OffsetSize;
use crate::format::{bloom_hash, SplitBlockBloomFilter};

/// The bloom filter of the chunk being written, and how to size the next.
#[derive(Debug)]
pub(crate) struct BloomFilterWriter {
    ndv: u64,
    fpp: f64,
    filter: Option<SplitBlockBloomFilter>,
}

impl BloomFilterWriter {
    /// A writer for `options`; `default_ndv` stands for an `ndv` not given (the row group
    /// row limit, as Arrow C++ takes it).
    pub fn new(options: &BloomFilterOptions, default_ndv: u64) -> Self {
        BloomFilterWriter { ndv: options.ndv.unwrap_or(default_ndv), fpp: options.fpp, filter: None }
    }

    fn filter(&mut self) -> &mut SplitBlockBloomFilter {
        let (ndv, fpp) = (self.ndv, self.fpp);
        self.filter.get_or_insert_with(|| SplitBlockBloomFilter::new(ndv, fpp))
    }

    /// Adds fixed-width values given as their little-endian bytes, `width` each.
    pub fn put_fixed(&mut self, bytes: &[u8], width: usize) {
        insert_batched(self.filter(), bytes.chunks_exact(width.max(1)));
    }

    /// Adds INT32 values.
    pub fn put_i32(&mut self, values: &[i32]) {
        self.put_fixed(values.to_byte_slice(), 4);
    }

    /// Adds INT64 values.
    pub fn put_i64(&mut self, values: &[i64]) {
        self.put_fixed(values.to_byte_slice(), 8);
    }

    /// Adds BYTE_ARRAY values given as Arrow offsets into `data`.
    pub fn put_offsets<O: OffsetSize>(&mut self, offsets: &[O], data: &[u8]) {
        insert_batched(self.filter(), offsets.windows(2).map(|w| &data[w[0].as_usize()..w[1].as_usize()]));
    }

    /// Adds one value by its PLAIN bytes (a BYTE_ARRAY's without the length).
    pub fn put_value(&mut self, value: &[u8]) {
        self.filter().insert_hash(bloom_hash(value));
    }

    /// Adds every value of `dictionary`, once each (at fallback).
    pub fn put_dictionary(&mut self, dictionary: &Dictionary) {
        let filter = self.filter();
        insert_dictionary(filter, dictionary);
    }

    /// Ends the chunk's filter. `dictionary`: the chunk's dictionary if every one of its data
    /// pages is dictionary-encoded, whose values are then the chunk's distinct values.
    pub fn finish_chunk(&mut self, dictionary: Option<&Dictionary>) -> SplitBlockBloomFilter {
        let mut filter = match (self.filter.take(), dictionary) {
            (None, Some(d)) => {
                let mut f = SplitBlockBloomFilter::new(self.ndv.min(d.len() as u64), self.fpp);
                insert_dictionary(&mut f, d);
                f
            }
            (Some(f), _) => f,
            // No value at all (every row null): the smallest filter, which says no to all.
            (None, None) => SplitBlockBloomFilter::with_num_bytes(0),
        };
        filter.fold_to_fpp(self.fpp);
        filter
    }
}

/// Values hashed a batch at a time before they are inserted (see
/// [`SplitBlockBloomFilter::insert_hashes`]).
const BATCH: usize = 256;

fn insert_batched<'v>(filter: &mut SplitBlockBloomFilter, values: impl Iterator<Item = &'v [u8]>) {
    let mut hashes = [0u64; BATCH];
    let mut n = 0;
    for v in values {
        hashes[n] = bloom_hash(v);
        n += 1;
        if n == BATCH {
            filter.insert_hashes(&hashes);
            n = 0;
        }
    }
    filter.insert_hashes(&hashes[..n]);
}

fn insert_dictionary(filter: &mut SplitBlockBloomFilter, dictionary: &Dictionary) {
    match dictionary {
        Dictionary::Bytes(d) => insert_batched(filter, (0..d.len() as u32).map(|i| d.value(i))),
        Dictionary::Fixed(d) => {
            let width = d.page().len().checked_div(d.len()).unwrap_or(1);
            insert_batched(filter, d.page().chunks_exact(width.max(1)));
        }
    }
}
