//! A column chunk's byte range in its file (and the PARQUET-816 widening of old writers).

use crate::error::{Error, Result};
use crate::format::ColumnMetaData;

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
