//! A column chunk's byte range, and iteration over its pages.

use crate::error::{Error, Result};
use crate::format::{thrift, ColumnMetaData, PageHeader};

/// Old parquet-mr versions (before 1.2.9, PARQUET-816) wrote `total_compressed_size` too small
/// by up to the size of a dictionary page header, so their last page runs past the recorded
/// chunk end. Readers (Arrow C++ among them) widen such chunks by this much.
const PARQUET_816_PADDING: u64 = 100;

/// Whether `created_by` names a writer affected by PARQUET-816: parquet-mr before 1.2.9, or
/// parquet-mr with no version at all.
pub fn has_parquet_816_bug(created_by: Option<&str>) -> bool {
    let Some(rest) = created_by.and_then(|c| c.strip_prefix("parquet-mr")) else {
        return false;
    };
    let version = rest.trim_start().strip_prefix("version").map(str::trim_start).unwrap_or("");
    let numbers: Vec<u64> = version
        .split(|c: char| !c.is_ascii_digit())
        .take_while(|p| !p.is_empty())
        .take(3)
        .filter_map(|p| p.parse().ok())
        .collect();
    match numbers.as_slice() {
        [major, minor, patch] => (*major, *minor, *patch) < (1, 2, 9),
        _ => true,
    }
}

/// The byte range `(start, length)` of a column chunk in its file, checked against the file's
/// length. With `padding` (see [`has_parquet_816_bug`]) the range is widened by up to 100
/// bytes, never past the end of the file.
///
/// The chunk starts at its dictionary page if it has one, else at its first data page. Some
/// writers store `dictionary_page_offset = 0` to mean "none", or an offset past the first data
/// page; both are treated as no dictionary offset, as other readers do.
pub fn chunk_byte_range(meta: &ColumnMetaData, file_len: u64, padding: bool) -> Result<(u64, u64)> {
    let mut start = meta.data_page_offset;
    if let Some(dict) = meta.dictionary_page_offset {
        if dict > 0 && dict < start {
            start = dict;
        }
    }
    let len = meta.total_compressed_size;
    if start < 0 || len < 0 || (start as u64).saturating_add(len as u64) > file_len {
        return Err(Error::corrupt(format!(
            "column chunk bytes {start}..{} lie outside the file ({file_len} bytes)",
            start.saturating_add(len)
        )));
    }
    let (start, mut len) = (start as u64, len as u64);
    if padding {
        len += PARQUET_816_PADDING.min(file_len - start - len);
    }
    Ok((start, len))
}

/// One page as stored: its decoded header and its (possibly compressed) body.
#[derive(Debug, Clone)]
pub struct RawPage<'a> {
    /// The page header.
    pub header: PageHeader,
    /// Offset of the header from the start of the chunk.
    pub offset: usize,
    /// Length of the serialized header.
    pub header_len: usize,
    /// The page body as stored (`compressed_page_size` bytes).
    pub body: &'a [u8],
}

/// Iterates over the pages of a column chunk held in memory.
///
/// Stops after `num_values` values of data pages have been seen (so trailing bytes after the
/// last page, which some writers leave, are not misread as a page) or at the end of the bytes.
/// A header that does not decode or a body that runs past the chunk is an error naming the
/// page number and offset; iteration ends after the first error.
pub struct ChunkPages<'a> {
    data: &'a [u8],
    pos: usize,
    index: usize,
    values_left: i64,
    failed: bool,
}

impl<'a> ChunkPages<'a> {
    /// Pages of a chunk whose bytes are `data`, holding `num_values` values in total.
    pub fn new(data: &'a [u8], num_values: i64) -> Self {
        ChunkPages { data, pos: 0, index: 0, values_left: num_values, failed: false }
    }

    fn next_page(&mut self) -> Result<RawPage<'a>> {
        let rest = &self.data[self.pos..];
        let (header, header_len) = thrift::decode::<PageHeader>(rest)?;
        let size = header.compressed_page_size;
        if size < 0 || header.uncompressed_page_size < 0 {
            return Err(Error::corrupt(format!(
                "negative page size (compressed {size}, uncompressed {})",
                header.uncompressed_page_size
            )));
        }
        let size = size as usize;
        if size > rest.len() - header_len {
            return Err(Error::corrupt(format!(
                "page body of {size} bytes runs past the end of the column chunk ({} bytes left)",
                rest.len() - header_len
            )));
        }
        let body = &rest[header_len..header_len + size];
        let offset = self.pos;
        self.pos += header_len + size;
        if let Some(h) = &header.data_page_header {
            self.values_left -= i64::from(h.num_values);
        } else if let Some(h) = &header.data_page_header_v2 {
            self.values_left -= i64::from(h.num_values);
        }
        Ok(RawPage { header, offset, header_len, body })
    }
}

impl<'a> Iterator for ChunkPages<'a> {
    type Item = Result<RawPage<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.pos >= self.data.len() || self.values_left <= 0 {
            return None;
        }
        let index = self.index;
        self.index += 1;
        let at = self.pos;
        let page = self.next_page().map_err(|e| e.context(format_args!("page {index} at chunk offset {at}")));
        self.failed = page.is_err();
        Some(page)
    }
}

#[cfg(test)]
mod tests {
    use super::has_parquet_816_bug;

    #[test]
    fn parquet_816_writers() {
        assert!(has_parquet_816_bug(Some("parquet-mr")));
        assert!(has_parquet_816_bug(Some("parquet-mr version 1.2.8 (build abc)")));
        assert!(!has_parquet_816_bug(Some("parquet-mr version 1.2.9 (build abc)")));
        assert!(!has_parquet_816_bug(Some("parquet-mr version 1.10.0 (build abc)")));
        assert!(!has_parquet_816_bug(Some("parquet-cpp-arrow version 14.0.0")));
        assert!(!has_parquet_816_bug(None));
    }
}
