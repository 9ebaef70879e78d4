//! The hardware limits a read or a write is compared with (GUIDE.md, "Measuring"):
//!
//! - decompress: the time to only decompress the same pages. The file is read into memory and
//!   every column chunk's pages are located with parquetry's page layer before timing; a run
//!   decompresses every page (dictionary and data pages; for data page v2 only the values
//!   part, since levels are stored uncompressed; nothing for v2 pages with
//!   `is_compressed = false`) into one reused scratch buffer. That is the least work any
//!   reader must do, so it is the lower bound on read time.
//! - compress (writes): the time to only compress the pages of parquetry's own output with
//!   the same codec and level. The pages are located and decompressed once before timing
//!   (each into its own buffer); a run compresses every page (dictionary and data pages, v1)
//!   with `parquetry::compress::Compressor` into one reused output buffer. That is the least
//!   work any writer of these pages must do.
//! - memcpy: copying the file's value bytes from one buffer to another preallocated,
//!   already-touched buffer: the limit for uncompressed data.

use parquetry::compress::{Codec, Compressor, Decompressor};
use parquetry::format;
use parquetry::page::{has_parquet_816_bug, BytesSource, PageStream};
use serde_json::json;

use crate::read::{NotRun, Output, Prepared};

/// One page to decompress: where its compressed bytes lie in the file, and its codec and
/// decompressed size.
struct PageJob {
    codec: Codec,
    start: usize,
    len: usize,
    expected: usize,
}

/// The pages of a file held in memory: what to decompress, and the largest page.
struct FilePages {
    source: BytesSource,
    jobs: Vec<PageJob>,
    pages: usize,
    /// The largest uncompressed page (data or dictionary), any codec.
    largest_page: usize,
}

/// Reads the file into memory and walks every column chunk's pages with parquetry's page layer.
fn walk_pages(path: &str) -> Result<FilePages, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("reading {path}: {e}"))?;
    walk_pages_in(bytes)
}

/// [`walk_pages`] over a file already in memory.
fn walk_pages_in(bytes: Vec<u8>) -> Result<FilePages, String> {
    let meta = format::read_metadata_from_bytes(&bytes).map_err(|e| e.to_string())?;
    let file_len = bytes.len() as u64;
    let mut source = BytesSource::new(bytes);
    let base = source.bytes().as_ptr() as usize;
    let padding = has_parquet_816_bug(meta.created_by.as_deref());
    let (mut jobs, mut pages, mut largest_page) = (Vec::new(), 0usize, 0usize);
    for (g, rg) in meta.row_groups.iter().enumerate() {
        for (c, chunk) in rg.columns.iter().enumerate() {
            let at = |e: String| format!("row group {g} column {c}: {e}");
            let cm = chunk.meta_data.as_ref().ok_or_else(|| at("no column metadata".into()))?;
            let codec = Codec::from_thrift(cm.codec.0).map_err(|e| at(e.to_string()))?;
            let mut stream = PageStream::new(cm, file_len, padding).map_err(|e| at(e.to_string()))?;
            while let Some(page) = stream.next_page(&mut source).map_err(|e| at(e.to_string()))? {
                pages += 1;
                let h = &page.header;
                // BytesSource hands out slices of the file: the body's place in it.
                let start = (page.body.as_ptr() as usize)
                    .checked_sub(base)
                    .filter(|s| s + page.body.len() <= file_len as usize)
                    .ok_or_else(|| at("page body is not a slice of the in-memory file".into()))?;
                let (skip, compressed) = if let Some(v2) = &h.data_page_header_v2 {
                    let levels =
                        (v2.definition_levels_byte_length.max(0) + v2.repetition_levels_byte_length.max(0)) as usize;
                    (levels, v2.is_compressed.unwrap_or(true))
                } else if h.data_page_header.is_some() || h.dictionary_page_header.is_some() {
                    (0, true)
                } else {
                    continue; // index pages: nothing a reader decompresses
                };
                largest_page = largest_page.max(h.uncompressed_page_size.max(0) as usize);
                if codec == Codec::Uncompressed || !compressed {
                    continue;
                }
                let bad = || at(format!("page {}: levels exceed the page", page.index));
                let len = page.body.len().checked_sub(skip).ok_or_else(bad)?;
                let expected = (h.uncompressed_page_size.max(0) as usize).checked_sub(skip).ok_or_else(bad)?;
                jobs.push(PageJob { codec, start: start + skip, len, expected });
            }
        }
    }
    Ok(FilePages { source, jobs, pages, largest_page })
}

/// The largest uncompressed page of the file (for the peak-memory target).
pub fn largest_page(path: &str) -> Result<u64, String> {
    walk_pages(path).map(|p| p.largest_page as u64)
}

/// Decompress-only limit of the file at `path`; skipped for files with no compressed page.
pub fn decompress(path: &str) -> Result<Prepared, NotRun> {
    let FilePages { source, jobs, pages, largest_page } = walk_pages(path).map_err(NotRun::Failed)?;
    if jobs.is_empty() {
        return Err(NotRun::Skipped("no compressed pages: the limit is memcpy".into()));
    }
    let codecs: std::collections::BTreeSet<&str> = jobs.iter().map(|j| j.codec.name()).collect();
    let max_page = jobs.iter().map(|j| j.expected).max().unwrap_or(0);
    let info = json!({
        "what": "decompress every compressed page (v2: values part) into one reused scratch buffer; \
                 file in memory, pages located before timing",
        "pages": pages,
        "compressed_pages": jobs.len(),
        "codecs": codecs,
        "compressed_bytes": jobs.iter().map(|j| j.len as u64).sum::<u64>(),
        "decompressed_bytes": jobs.iter().map(|j| j.expected as u64).sum::<u64>(),
        "largest_decompressed_bytes": max_page,
        "largest_page_bytes": largest_page,
    });
    let mut decompressor = Decompressor::new();
    let mut scratch: Vec<u8> = Vec::with_capacity(max_page);
    let run = move || -> Result<Output, String> {
        let file = source.bytes().as_slice();
        let mut total = 0u64;
        for j in &jobs {
            scratch.clear();
            decompressor
                .decompress(j.codec, &file[j.start..j.start + j.len], j.expected, &mut scratch)
                .map_err(|e| e.to_string())?;
            total += std::hint::black_box(&scratch).len() as u64;
        }
        Ok(Output::Bytes(total))
    };
    Ok(Prepared { run: Box::new(run), info })
}

/// [`decompress`], but each page into a new buffer that is kept until the run ends, as a
/// reader whose output points into its pages (views) must: what fresh memory adds.
pub fn decompress_fresh(path: &str) -> Result<Prepared, NotRun> {
    let FilePages { source, jobs, .. } = walk_pages(path).map_err(NotRun::Failed)?;
    if jobs.is_empty() {
        return Err(NotRun::Skipped("no compressed pages: the limit is memcpy".into()));
    }
    let info =
        json!({"what": "decompress every compressed page into a new buffer per page, all kept until the run ends"});
    let mut decompressor = Decompressor::new();
    let run = move || -> Result<Output, String> {
        let file = source.bytes().as_slice();
        let mut kept = Vec::with_capacity(jobs.len());
        let mut total = 0u64;
        for j in &jobs {
            let mut page = Vec::with_capacity(j.expected);
            decompressor
                .decompress(j.codec, &file[j.start..j.start + j.len], j.expected, &mut page)
                .map_err(|e| e.to_string())?;
            total += page.len() as u64;
            kept.push(page);
        }
        std::hint::black_box(&kept);
        Ok(Output::Bytes(total))
    };
    Ok(Prepared { run: Box::new(run), info })
}

/// [`decompress`] with the `snap` crate (the arrow-rs reader's SNAPPY decoder) instead of
/// parquetry's own, on files whose compressed pages are all SNAPPY: the two decoders compared
/// on the same pages.
pub fn decompress_snap(path: &str) -> Result<Prepared, NotRun> {
    let FilePages { source, jobs, .. } = walk_pages(path).map_err(NotRun::Failed)?;
    if jobs.is_empty() || jobs.iter().any(|j| j.codec != Codec::Snappy) {
        return Err(NotRun::Skipped("not a SNAPPY file".into()));
    }
    let info = json!({"what": "decompress every page with snap::raw::Decoder into one reused scratch buffer"});
    let max_page = jobs.iter().map(|j| j.expected).max().unwrap_or(0);
    let mut scratch = vec![0u8; max_page];
    let mut decoder = snap::raw::Decoder::new();
    let run = move || -> Result<Output, String> {
        let file = source.bytes().as_slice();
        let mut total = 0u64;
        for j in &jobs {
            let n = decoder
                .decompress(&file[j.start..j.start + j.len], &mut scratch[..j.expected])
                .map_err(|e| e.to_string())?;
            total += std::hint::black_box(&scratch[..n]).len() as u64;
        }
        Ok(Output::Bytes(total))
    };
    Ok(Prepared { run: Box::new(run), info })
}

/// Compress-only limit of a write whose output is `file` (parquetry's, written untimed with
/// the same settings); skipped when no page is compressed.
pub fn compress(file: Vec<u8>) -> Result<Prepared, NotRun> {
    let FilePages { source, jobs, pages, .. } = walk_pages_in(file).map_err(NotRun::Failed)?;
    if jobs.is_empty() {
        return Err(NotRun::Skipped("no compressed pages: the limit is memcpy".into()));
    }
    let mut decompressor = Decompressor::new();
    let mut plain = Vec::with_capacity(jobs.len());
    let bytes = source.bytes().as_slice();
    for j in &jobs {
        let mut page = Vec::with_capacity(j.expected);
        decompressor
            .decompress(j.codec, &bytes[j.start..j.start + j.len], j.expected, &mut page)
            .map_err(|e| NotRun::Failed(e.to_string()))?;
        // The writers' level: ZSTD 1 (write_spec::ZSTD_LEVEL); the other codecs have none.
        let level = (j.codec == Codec::Zstd).then_some(crate::write_spec::ZSTD_LEVEL);
        plain.push((j.codec, level, page));
    }
    let codecs: std::collections::BTreeSet<&str> = jobs.iter().map(|j| j.codec.name()).collect();
    let largest = jobs.iter().map(|j| j.expected).max().unwrap_or(0);
    let info = json!({
        "what": "compress every page of parquetry's output (dictionary and data pages, decompressed \
                 before timing, one buffer each) into one reused output buffer, same codec and level",
        "pages": pages,
        "compressed_pages": jobs.len(),
        "codecs": codecs,
        "uncompressed_bytes": jobs.iter().map(|j| j.expected as u64).sum::<u64>(),
        "compressed_bytes": jobs.iter().map(|j| j.len as u64).sum::<u64>(),
    });
    let mut compressor = Compressor::new();
    // Room for any page: snappy's bound is the largest (32 + n + n/6).
    let mut out: Vec<u8> = Vec::with_capacity(32 + largest + largest / 6 + (1 << 16));
    let run = move || -> Result<Output, String> {
        let mut total = 0u64;
        for (codec, level, page) in &plain {
            out.clear();
            compressor.compress(*codec, *level, page, &mut out).map_err(|e| e.to_string())?;
            total += std::hint::black_box(&out).len() as u64;
        }
        Ok(Output::Bytes(total))
    };
    Ok(Prepared { run: Box::new(run), info })
}

/// memcpy of `n` bytes between two preallocated, touched buffers.
pub fn memcpy(n: u64) -> Prepared {
    let n = n as usize;
    let src = vec![0x5au8; n];
    let mut dst = vec![0xa5u8; n];
    let info = json!({"what": "copy_from_slice of value_bytes bytes into a preallocated, touched buffer"});
    let run = move || -> Result<Output, String> {
        dst.copy_from_slice(std::hint::black_box(&src));
        std::hint::black_box(&mut dst);
        Ok(Output::Bytes(n as u64))
    };
    Prepared { run: Box::new(run), info }
}
