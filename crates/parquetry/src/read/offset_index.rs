//! A column chunk's OffsetIndex, read for a selective read: where each data page starts and
//! its first row, so that skips jump over pages without reading even their headers, and
//! prefetching names only the pages a selection needs.

use crate::format::{ColumnChunk, OffsetIndex, PageLocation};
use crate::page::ChunkSource;

/// The chunk's page locations from its OffsetIndex, if it has one that is consistent: pages
/// in order inside the chunk's bytes, first rows rising from 0 below the chunk's rows.
/// Anything else (missing, unreadable, inconsistent) gives `None`, and skips then walk the
/// page headers instead.
pub(crate) fn page_locations<S: ChunkSource>(
    source: &S,
    chunk: &ColumnChunk,
    (start, len): (u64, u64),
    rows: usize,
) -> Option<Vec<PageLocation>> {
    let offset = u64::try_from(chunk.offset_index_offset?).ok()?;
    let size = usize::try_from(chunk.offset_index_length?).ok()?;
    if size as u64 > source.len() {
        return None;
    }
    let bytes = source.read_at(offset, size).ok()?;
    let (index, _) = crate::format::thrift::decode::<OffsetIndex>(bytes.as_slice()).ok()?;
    let locations = index.page_locations;
    let first = locations.first()?;
    let in_chunk = |l: &PageLocation| l.offset as u64 >= start && (l.offset as u64) < start + len;
    let ordered =
        locations.windows(2).all(|w| w[0].offset < w[1].offset && w[0].first_row_index < w[1].first_row_index);
    let rows_ok = first.first_row_index == 0 && locations.iter().all(|l| (l.first_row_index as u64) < rows as u64);
    (ordered && rows_ok && locations.iter().all(in_chunk)).then_some(locations)
}
