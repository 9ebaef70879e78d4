//! Bloom filters through a merge. A chunk copied whole keeps its input's filter, byte for
//! byte. A coalesced chunk (pages of several input chunks) gets the union of their filters,
//! which needs no value: split-block filters whose block counts are powers of two fold to the
//! smallest one and OR together, and every value of every input is then still found. The
//! union is kept only when every input chunk had a filter that checks out (a value of an
//! input without one could be missing) and its estimated false positive rate is at most
//! [`MAX_MERGED_FPP`]: filters that were already full (Arrow C++ and parquetry fold theirs
//! until they are) say "maybe" to most values once several are OR-ed, and would cost their
//! bytes for no pruning.

use crate::filter::bloom::read_filter;
use crate::format::{ColumnChunk, SplitBlockBloomFilter};
use crate::page::ChunkSource;

/// The largest estimated false positive rate of a merged filter that is written.
pub const MAX_MERGED_FPP: f64 = 0.25;

/// The input chunk's bloom filter as it is to be stored again (header and bitset), if it
/// has one that checks out.
pub(super) fn copied<S: ChunkSource>(source: &S, chunk: &ColumnChunk) -> Option<Vec<u8>> {
    let filter = read_filter(source, chunk, &mut 0)?;
    let mut bytes = Vec::new();
    filter.encode(&mut bytes);
    Some(bytes)
}

/// The union of the bloom filters of a coalesced chunk's inputs.
#[derive(Debug, Default)]
pub(super) struct BloomUnion {
    filter: Option<SplitBlockBloomFilter>,
    lost: bool,
}

impl BloomUnion {
    /// Adds one input chunk's filter; an input without one (or one that cannot be folded)
    /// loses the union.
    pub(super) fn add<S: ChunkSource>(&mut self, source: &S, chunk: &ColumnChunk) {
        if self.lost {
            return;
        }
        match (read_filter(source, chunk, &mut 0), self.filter.as_mut()) {
            (None, _) => self.lose(),
            (Some(f), None) => self.filter = Some(f),
            (Some(f), Some(acc)) => {
                if !acc.union(&f) {
                    self.lose();
                }
            }
        }
    }

    fn lose(&mut self) {
        self.lost = true;
        self.filter = None;
    }

    /// The merged filter, if it is kept.
    pub(super) fn finish(self) -> Option<SplitBlockBloomFilter> {
        self.filter.filter(|f| !self.lost && f.estimated_fpp() <= MAX_MERGED_FPP)
    }
}
