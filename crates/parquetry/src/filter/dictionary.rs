//! Row group pruning by dictionary: when every data page of a column chunk is
//! dictionary-encoded (as its `encoding_stats` say), the dictionary page lists every value the
//! chunk holds, so an `=`, `IN`, prefix or substring test that no dictionary value passes rules the row
//! group out, where min/max statistics (a range) cannot.
//!
//! Used only when it checks out: `encoding_stats` present and naming only dictionary
//! encodings for data pages, a first page that is a PLAIN dictionary page of a plausible size,
//! and values that all decode as the column's keys (a NaN in a dictionary stops it: NaN is not
//! ordered). Anything else leaves the row group to the other checks.

use super::bind::BoundColumn;
use super::expr::CmpOp;
use super::literal::{Key, Test};
use super::statistics::{decode, leaf_may_match, Stats};
use crate::compress::{Codec, Decompressor};
use crate::format::thrift;
use crate::format::{ColumnChunk, ColumnMetaData, Encoding, PageHeader, PageType, PhysicalType};
use crate::page::{ChunkSource, PageStream};

/// The largest dictionary page decompressed to prune (bigger ones are left to the read).
const MAX_DICTIONARY_BYTES: usize = 16 << 20;

/// Whether a dictionary can rule out rows for `test` (`negated`: its negation): tests that
/// hold for few values. `!=`, `NOT IN` and ranges rarely exclude a whole dictionary, and
/// loading it would cost a read for nothing.
pub(crate) fn worth_it(test: &Test, negated: bool) -> bool {
    match (test, negated) {
        (Test::Cmp(CmpOp::Eq, _), false) | (Test::Cmp(CmpOp::Ne, _), true) => true,
        (Test::In(_, not), _) => *not == negated,
        (Test::StartsWith(_, not), _) | (Test::Contains(_, not), _) => *not == negated,
        _ => false,
    }
}

/// Whether any value of the dictionary satisfies `test` (`negated`: its negation).
pub(crate) fn any_matches(values: &[Key], test: &Test, negated: bool) -> bool {
    // `=` and `IN`, the tests most worth a dictionary, compared value by value: a `Stats` of
    // each value for `leaf_may_match` took more time than decoding the dictionary (a point
    // lookup on TPC-H's l_orderkey, 14,000 values a chunk). Values that do not compare
    // (NaN, another domain) may match, as there.
    let equal = |v: &Key, k: &Key| v.compare(k).is_none_or(|o| o == std::cmp::Ordering::Equal);
    match (test, negated) {
        (Test::Cmp(CmpOp::Eq, k), false) | (Test::Cmp(CmpOp::Ne, k), true) => {
            return values.iter().any(|v| equal(v, k));
        }
        (Test::In(keys, not), _) if *not == negated => return values.iter().any(|v| keys.iter().any(|k| equal(v, k))),
        _ => {}
    }
    values.iter().any(|v| {
        let one = Stats { bounds: Some((v.clone(), v.clone())), null_count: Some(0), rows: 1 };
        leaf_may_match(test, negated, &one, false)
    })
}

/// The values of `chunk`'s dictionary if every data page of it is dictionary-encoded, else
/// `None`. `bytes` counts the bytes read.
pub(crate) fn values<S: ChunkSource>(
    source: &S,
    chunk: &ColumnChunk,
    column: &BoundColumn,
    bytes: &mut u64,
) -> Option<Vec<Key>> {
    let meta = chunk.meta_data.as_ref()?;
    column.stats_domain?;
    if !all_dictionary(meta) {
        return None;
    }
    let (page, body) = match exact_range(meta) {
        Some((start, len)) => {
            let read = source.read_at(start, len).ok()?;
            let (header, used) = thrift::decode::<PageHeader>(read.as_slice()).ok()?;
            let size = usize::try_from(header.compressed_page_size).ok()?;
            // A page that does not fit where the footer says the dictionary is: no pruning.
            (used.checked_add(size)? <= len).then_some(())?;
            (header, read.slice_with_length(used, size))
        }
        None => {
            let mut stream = PageStream::new(meta, source.len(), false).ok()?;
            let page = stream.next_page(source).ok()??;
            (page.header, page.body)
        }
    };
    let header = page.dictionary_page_header.as_ref()?;
    if page.page_type != PageType::DICTIONARY_PAGE
        || !matches!(header.encoding, Encoding::PLAIN | Encoding::PLAIN_DICTIONARY)
    {
        return None;
    }
    *bytes += body.len() as u64;
    let size = usize::try_from(page.uncompressed_page_size).ok()?;
    if size > MAX_DICTIONARY_BYTES {
        return None;
    }
    let mut plain = Vec::new();
    let codec = Codec::from_thrift(meta.codec.0).ok()?;
    Decompressor::new().decompress(codec, body.as_slice(), size, &mut plain).ok()?;
    let n = usize::try_from(header.num_values).ok()?;
    let width = match column.physical {
        PhysicalType::INT32 | PhysicalType::FLOAT => Some(4),
        PhysicalType::INT64 | PhysicalType::DOUBLE => Some(8),
        PhysicalType::FIXED_LEN_BYTE_ARRAY => Some(meta_type_length(&plain, n)?),
        PhysicalType::BYTE_ARRAY => None,
        _ => return None,
    };
    let mut out = Vec::with_capacity(n.min(plain.len()));
    let mut at = 0usize;
    for _ in 0..n {
        let (start, len) = match width {
            Some(w) => (at, w),
            None => {
                let len = u32::from_le_bytes(plain.get(at..at + 4)?.try_into().ok()?) as usize;
                (at + 4, len)
            }
        };
        let value = plain.get(start..start.checked_add(len)?)?;
        out.push(decode(column, value)?);
        at = start + len;
    }
    Some(out)
}

/// A FIXED_LEN_BYTE_ARRAY dictionary's value width: its bytes shared evenly by its values.
/// Whether the chunk's `encoding_stats` say it has a dictionary page and every data page is
/// dictionary-encoded (then the dictionary lists every value).
pub(crate) fn all_dictionary(meta: &ColumnMetaData) -> bool {
    let Some(stats) = meta.encoding_stats.as_ref() else { return false };
    let dictionary = |e: Encoding| matches!(e, Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY);
    let data = |t: PageType| matches!(t, PageType::DATA_PAGE | PageType::DATA_PAGE_V2);
    stats.iter().all(|s| !data(s.page_type) || s.count == 0 || dictionary(s.encoding))
        && stats.iter().any(|s| s.page_type == PageType::DICTIONARY_PAGE && s.count > 0)
}

/// Where the dictionary page of a chunk lies, header and body, when the footer bounds it: from
/// its `dictionary_page_offset` (the chunk's start) to the first data page. Read alone, it
/// costs its own bytes, where a page stream's first read takes a 64 KiB window (on an object
/// store, that much per row group checked). `None` without a dictionary offset or with
/// offsets out of order or past the chunk; then the page is found by reading.
fn exact_range(meta: &ColumnMetaData) -> Option<(u64, usize)> {
    let dictionary = u64::try_from(meta.dictionary_page_offset?).ok()?;
    let data = u64::try_from(meta.data_page_offset).ok()?;
    let len = u64::try_from(meta.total_compressed_size).ok()?;
    (dictionary > 0 && data > dictionary && data - dictionary <= len)
        .then(|| usize::try_from(data - dictionary).ok())
        .flatten()
        .map(|len| (dictionary, len))
}

/// The bytes [`values`] reads for a chunk (its dictionary page), where the footer tells them
/// exactly: `None` if it reads none, or finds the page by reading.
pub(crate) fn page_range(meta: &ColumnMetaData) -> Option<(u64, usize)> {
    all_dictionary(meta).then(|| exact_range(meta)).flatten()
}

fn meta_type_length(plain: &[u8], n: usize) -> Option<usize> {
    (n > 0 && plain.len().is_multiple_of(n)).then(|| plain.len() / n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The equality fast path decides as the statistics of each single value do.
    #[test]
    fn equality_on_dictionary_values_agrees_with_single_value_statistics() {
        let values = [
            vec![Key::Int(1), Key::Int(5), Key::Int(9)],
            vec![Key::Float(-0.0), Key::Float(2.5), Key::Float(f64::NAN)],
            vec![Key::Bytes(b"ab".to_vec()), Key::Bytes(b"b".to_vec())],
            vec![],
        ];
        let keys =
            [Key::Int(5), Key::Int(4), Key::Float(0.0), Key::Float(3.0), Key::Bytes(b"b".to_vec()), Key::Bool(true)];
        for vs in &values {
            for k in &keys {
                let tests = [
                    (Test::Cmp(CmpOp::Eq, k.clone()), false),
                    (Test::Cmp(CmpOp::Ne, k.clone()), true),
                    (Test::In(vec![Key::Int(100), k.clone()], false), false),
                    (Test::In(vec![k.clone()], true), true),
                ];
                for (test, negated) in tests {
                    let one = |v: &Key| Stats { bounds: Some((v.clone(), v.clone())), null_count: Some(0), rows: 1 };
                    let want = vs.iter().any(|v| leaf_may_match(&test, negated, &one(v), false));
                    assert_eq!(any_matches(vs, &test, negated), want, "{vs:?} {test:?} {negated}");
                }
            }
        }
    }
}
