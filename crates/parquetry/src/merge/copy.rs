//! Column chunks copied as they are into a coalesced chunk: when no input chunk of a column
//! has a dictionary and the codec stays, the output chunk is the inputs' chunks one after the
//! other. Only the page headers are read (for the offset index); the bytes go from the input
//! to the output without passing through a page buffer.

use crate::error::{Error, Result};
use crate::format::{thrift, PageHeader, PageLocation, PageType};
use crate::page::ChunkSource;

/// What walking one input chunk's page headers found.
#[derive(Debug, Default)]
pub(crate) struct Walked {
    /// Data page locations, offsets relative to the chunk start.
    pub locations: Vec<PageLocation>,
    /// Rows of the chunk's data pages.
    pub rows: u64,
    /// Bytes of the pages uncompressed, headers included.
    pub uncompressed: u64,
}

/// Walks the page headers of the chunk at `from..from + len` of `source`. Rows are counted
/// from value counts, so the column must be flat (v2 headers say their rows).
pub(crate) fn walk_pages<S: ChunkSource>(source: &S, from: u64, len: u64) -> Result<Walked> {
    let end = from + len;
    let mut pos = from;
    let mut walked = Walked::default();
    while pos < end {
        let mut window = 1usize << 14;
        let (header, header_len) = loop {
            let n = (window as u64).min(end - pos) as usize;
            let bytes = source.read_at(pos, n)?;
            match thrift::decode::<PageHeader>(bytes.as_slice()) {
                Ok(h) => break h,
                Err(e) if n as u64 == end - pos || window >= 16 << 20 => {
                    return Err(e.context(format!("page header at file offset {pos}")))
                }
                Err(_) => window *= 4,
            }
        };
        let size = u64::try_from(header.compressed_page_size)
            .map_err(|_| Error::corrupt(format!("negative page size at file offset {pos}")))?;
        let page_end = pos + header_len as u64 + size;
        if page_end > end {
            return Err(Error::corrupt(format!("the page at file offset {pos} runs past the end of its column chunk")));
        }
        let rows = match (&header.data_page_header, &header.data_page_header_v2) {
            (Some(h), _) => Some(h.num_values.max(0) as u64),
            (None, Some(h)) => Some(h.num_rows.max(0) as u64),
            _ => None,
        };
        if let (Some(rows), PageType::DATA_PAGE | PageType::DATA_PAGE_V2) = (rows, header.page_type) {
            walked.locations.push(PageLocation {
                offset: (pos - from) as i64,
                compressed_page_size: (page_end - pos) as i32,
                first_row_index: walked.rows as i64,
            });
            walked.rows += rows;
        }
        walked.uncompressed += header_len as u64 + header.uncompressed_page_size.max(0) as u64;
        pos = page_end;
    }
    Ok(walked)
}
