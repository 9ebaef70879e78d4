//! Bloom filters through a merge; no value is decoded for them.
//!
//! A chunk copied whole keeps its input's filter. A coalesced chunk (pages of several input
//! chunks) gets one only when every input chunk had a filter that checks out (a value of an
//! input without one could be missing), made the cheapest way that holds every value:
//! - when every data page of the output chunk is dictionary-encoded, the unified dictionary
//!   holds every value: a new filter is sized for its values and each is hashed once, at the
//!   false positive rate of the least precise input (at most 5%);
//! - otherwise, the union of the inputs' filters: split-block filters whose block counts are
//!   powers of two fold to the smallest one and OR together. The union is written only if
//!   its estimated false positive rate is at most [`MAX_MERGED_FPP`]: filters that were full
//!   already (Arrow C++ and parquetry fold theirs until they are) say "maybe" to most values
//!   once several are OR-ed, and would cost their bytes for no pruning.

use crate::encoding::dictionary::Dictionary;
use crate::filter::bloom::read_filter;
use crate::format::{ColumnChunk, Encoding, PageEncodingStats, PageType, SplitBlockBloomFilter};
use crate::page::ChunkSource;
use crate::write::DEFAULT_BLOOM_FILTER_FPP;

/// The largest estimated false positive rate of a union of filters that is written.
pub const MAX_MERGED_FPP: f64 = 0.25;

/// The input chunk's bloom filter as it is to be stored again (header and bitset), if it
/// has one that checks out.
pub(super) fn copied<S: ChunkSource>(source: &S, chunk: &ColumnChunk) -> Option<Vec<u8>> {
    let filter = read_filter(source, chunk, &mut 0)?;
    let mut bytes = Vec::new();
    filter.encode(&mut bytes);
    Some(bytes)
}

/// The bloom filters of a coalesced chunk's inputs, folded into one as they come.
#[derive(Debug, Default)]
pub(super) struct BloomUnion {
    filter: Option<SplitBlockBloomFilter>,
    /// The largest estimated false positive rate of an input's filter.
    input_fpp: f64,
    /// An input had no filter that checks out.
    lost: bool,
    /// The union cannot be formed (a block count that is not a power of two).
    unfoldable: bool,
}

impl BloomUnion {
    /// Adds one input chunk's filter.
    pub(super) fn add<S: ChunkSource>(&mut self, source: &S, chunk: &ColumnChunk) {
        if self.lost {
            return;
        }
        let Some(f) = read_filter(source, chunk, &mut 0) else {
            self.lost = true;
            self.filter = None;
            return;
        };
        self.input_fpp = self.input_fpp.max(f.estimated_fpp());
        match self.filter.as_mut() {
            _ if self.unfoldable => {}
            None => self.filter = Some(f),
            Some(acc) => {
                if !acc.union(&f) {
                    self.unfoldable = true;
                    self.filter = None;
                }
            }
        }
    }

    /// A filter of every value of the unified `dictionary` (hashed once each), to be used
    /// if every data page turns out dictionary-encoded; `None` when no filter is wanted.
    pub(super) fn rebuild(&self, dictionary: Option<&Dictionary>) -> Option<SplitBlockBloomFilter> {
        let d = dictionary.filter(|_| !self.lost && (self.filter.is_some() || self.unfoldable))?;
        let fpp = self.input_fpp.clamp(0.001, DEFAULT_BLOOM_FILTER_FPP);
        let mut filter = SplitBlockBloomFilter::new(d.len() as u64, fpp);
        d.for_each_value(|v| filter.insert(v));
        filter.fold_to_fpp(fpp);
        Some(filter)
    }

    /// The output chunk's filter, if it gets one: `rebuilt` when every data page (per
    /// `encoding_stats`) is dictionary-encoded, else the union if it is kept.
    pub(super) fn finish(
        self,
        rebuilt: Option<SplitBlockBloomFilter>,
        encoding_stats: &[PageEncodingStats],
    ) -> Option<SplitBlockBloomFilter> {
        if self.lost {
            return None;
        }
        let all_dictionary = encoding_stats.iter().all(|s| {
            s.page_type == PageType::DICTIONARY_PAGE
                || matches!(s.encoding, Encoding::RLE_DICTIONARY | Encoding::PLAIN_DICTIONARY)
        });
        match rebuilt {
            Some(f) if all_dictionary => Some(f),
            _ => self.filter.filter(|f| f.estimated_fpp() <= MAX_MERGED_FPP),
        }
    }
}
