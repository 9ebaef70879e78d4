//! Malformed input gives a clean `Err`, never a panic: the corpus's bad files, pages with a
//! wrong CRC, encrypted files, and thousands of byte-flipped and truncated variants of small
//! valid files. Every read runs in this process under `catch_unwind`; a panic fails the test
//! (an abort, e.g. from an absurd allocation, fails it too, loudly).

mod common;
#[path = "common/read_compare.rs"]
mod read_compare;

use std::path::{Path, PathBuf};

use parquetry::read::{ByteArrayType, ParquetFile, ReadOptions};
use read_compare::{catch, diff_tables, read_parquetry};

/// Reads `bytes` with `options`: `Ok(Ok(rows))`, `Ok(Err(message))`, or `Err(panic)`.
fn read_bytes(bytes: Vec<u8>, options: &ReadOptions) -> Result<Result<usize, String>, String> {
    catch(|| {
        let file = ParquetFile::from_bytes(bytes).map_err(|e| e.to_string())?;
        let batches = common::read_all(&file, options).map_err(|e| e.to_string())?;
        Ok(batches.iter().map(|b| b.num_rows()).sum())
    })
}

/// Reads a path with `options` (open + read_all): `Ok(Ok(rows))`, `Ok(Err(message))`, or
/// `Err(panic)`.
fn read_path(path: &Path, options: &ReadOptions) -> Result<Result<usize, String>, String> {
    catch(|| {
        let file = ParquetFile::open(path).map_err(|e| e.to_string())?;
        let batches = common::read_all(&file, options).map_err(|e| e.to_string())?;
        Ok(batches.iter().map(|b| b.num_rows()).sum())
    })
}

fn corpus(rel: &str) -> PathBuf {
    common::corpus_dir().join(rel)
}

/// Every file of bad_data/, and every corpus file pyarrow refuses that is not encrypted.
fn bad_files() -> Vec<PathBuf> {
    let dir = common::corpus_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("bad_data"))
        .expect("bad_data dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    for r in common::manifest() {
        if r.readable_by_pyarrow.starts_with("no:") && !r.path.ends_with(".encrypted") {
            let p = dir.join(&r.path);
            if !files.contains(&p) {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn bad_files_never_panic() {
    let files = bad_files();
    assert!(files.len() >= 10, "expected the bad_data files and pyarrow's refusals: {files:?}");
    let mut panics = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        for (what, options) in [
            ("default", ReadOptions::default()),
            ("View + CRC", ReadOptions::default().with_byte_array_type(ByteArrayType::View).with_verify_crc(true)),
            ("batch size 3", ReadOptions::default().with_batch_size(3)),
        ] {
            if let Err(p) = read_path(path, &options) {
                panics.push(format!("{} ({what}, open): {p}", path.display()));
            }
            if let Err(p) = read_bytes(bytes.clone(), &options) {
                panics.push(format!("{} ({what}, from_bytes): {p}", path.display()));
            }
        }
    }
    assert!(panics.is_empty(), "{} reads panicked:\n{}", panics.len(), panics.join("\n"));
}

#[test]
fn corrupt_checksums_fail_with_verify_crc() {
    let mut failures = Vec::new();
    for rel in ["data/datapage_v1-corrupt-checksum.parquet", "data/rle-dict-uncompressed-corrupt-checksum.parquet"] {
        match read_path(&corpus(rel), &ReadOptions::default().with_verify_crc(true)) {
            Err(p) => failures.push(format!("{rel}: {p}")),
            Ok(Ok(rows)) => failures.push(format!("{rel}: read {rows} rows despite a bad page CRC")),
            Ok(Err(e)) => {
                let lower = e.to_lowercase();
                if !lower.contains("crc") && !lower.contains("checksum") {
                    failures.push(format!("{rel}: the error does not mention the CRC: {e}"));
                }
            }
        }
    }
    // Column "b" of datapage_v1-corrupt-checksum has its bad CRC on page 1, not page 0.
    let rel = "data/datapage_v1-corrupt-checksum.parquet";
    match read_path(&corpus(rel), &ReadOptions::default().with_verify_crc(true).with_columns(["b"])) {
        Ok(Err(e)) if e.to_lowercase().contains("crc") || e.to_lowercase().contains("checksum") => {}
        other => failures.push(format!("{rel} column b only: want a CRC error, got {other:?}")),
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn valid_checksums_verify_and_match_pyarrow() {
    if common::pyarrow_missing() {
        return;
    }
    let rels = [
        "data/datapage_v1-uncompressed-checksum.parquet",
        "data/datapage_v1-snappy-compressed-checksum.parquet",
        "data/plain-dict-uncompressed-checksum.parquet",
        "data/rle-dict-snappy-checksum.parquet",
    ];
    let paths: Vec<PathBuf> = rels.iter().map(|r| corpus(r)).collect();
    let expected = read_compare::pyarrow_tables("checksum", &paths);
    let mut failures = Vec::new();
    for path in &paths {
        let want = expected[path].as_ref().expect("pyarrow reads the checksum files");
        match read_parquetry(path, &ReadOptions::default().with_verify_crc(true)) {
            Err(e) => failures.push(format!("{}: {e}", path.display())),
            Ok(got) => {
                for d in diff_tables(want, &got) {
                    failures.push(format!("{}: {d}", path.display()));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn encrypted_files_are_refused() {
    let dir = common::corpus_dir();
    let files: Vec<String> =
        common::manifest().into_iter().map(|r| r.path).filter(|p| p.ends_with(".encrypted")).collect();
    assert!(files.len() >= 10, "expected the corpus's encrypted files: {files:?}");
    let mut failures = Vec::new();
    for rel in &files {
        match read_path(&dir.join(rel), &ReadOptions::default()) {
            Err(p) => failures.push(format!("{rel}: {p}")),
            Ok(Ok(rows)) => failures.push(format!("{rel}: read {rows} rows of an encrypted file")),
            Ok(Err(e)) if !e.to_lowercase().contains("encrypted") => {
                failures.push(format!("{rel}: the error does not say the file is encrypted: {e}"))
            }
            Ok(Err(_)) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Byte ranges of every column chunk (dictionary page or first data page, to the chunk's end).
fn chunk_ranges(bytes: &[u8]) -> Vec<(usize, usize)> {
    let meta = parquetry::format::read_metadata_from_bytes(bytes).expect("valid footer");
    let mut ranges = Vec::new();
    for rg in &meta.row_groups {
        for c in &rg.columns {
            let m = c.meta_data.as_ref().expect("column metadata");
            let start = match m.dictionary_page_offset {
                Some(d) if d > 0 && d < m.data_page_offset => d,
                _ => m.data_page_offset,
            } as usize;
            let end = (start + m.total_compressed_size as usize).min(bytes.len());
            ranges.push((start, end));
        }
    }
    ranges
}

/// Where the footer starts (the Thrift metadata, before its length and the magic).
fn footer_start(bytes: &[u8]) -> usize {
    let n = bytes.len();
    let len = u32::from_le_bytes(bytes[n - 8..n - 4].try_into().unwrap()) as usize;
    n - 8 - len
}

/// Small valid files of different encodings, codecs and page versions.
const VICTIMS: &[&str] = &[
    "data/alltypes_plain.parquet",                         // PLAIN/dictionary, v1, uncompressed
    "data/rle-dict-snappy-checksum.parquet",               // RLE_DICTIONARY, v2, snappy
    "data/delta_length_byte_array.parquet",                // DELTA_LENGTH_BYTE_ARRAY, v2, zstd
    "data/delta_encoding_optional_column.parquet",         // DELTA_BINARY_PACKED + DELTA_BYTE_ARRAY, v2
    "data/datapage_v1-snappy-compressed-checksum.parquet", // v1, snappy, CRCs
];

#[test]
fn flipped_bytes_in_column_chunks_never_panic() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut panics = Vec::new();
    let mut reads = 0;
    for rel in VICTIMS {
        let original = std::fs::read(corpus(rel)).unwrap();
        let ranges = chunk_ranges(&original);
        let positions: Vec<usize> = ranges.iter().flat_map(|&(s, e)| s..e).collect();
        assert!(!positions.is_empty(), "{rel}: no column chunk bytes");
        for variant in 0..800 {
            let mut bytes = original.clone();
            let flips = 1 + rng.below(4);
            for _ in 0..flips {
                let at = positions[rng.below(positions.len())];
                bytes[at] ^= 1 + rng.below(255) as u8;
            }
            let options = match variant % 4 {
                0 => ReadOptions::default(),
                1 => ReadOptions::default().with_byte_array_type(ByteArrayType::View),
                2 => ReadOptions::default().with_byte_array_type(ByteArrayType::Dictionary).with_batch_size(5),
                _ => ReadOptions::default().with_verify_crc(true),
            };
            reads += 1;
            if let Err(p) = read_bytes(bytes, &options) {
                if panics.len() < 30 {
                    panics.push(format!("{rel} variant {variant}: {p}"));
                } else {
                    panics.push(String::new());
                }
            }
        }
    }
    let shown: Vec<&String> = panics.iter().filter(|p| !p.is_empty()).collect();
    assert!(
        panics.is_empty(),
        "{} of {reads} corrupted reads panicked (first {}):\n{}",
        panics.len(),
        shown.len(),
        shown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn truncated_column_chunks_never_panic() {
    // The data region cut at offset k, followed by the original footer: the footer's page
    // offsets and sizes then point past the data that is there.
    let mut panics = Vec::new();
    let mut reads = 0;
    for rel in VICTIMS {
        let original = std::fs::read(corpus(rel)).unwrap();
        let footer = footer_start(&original);
        let tail = &original[footer..];
        let data_len = footer - 4;
        let step = (data_len / 600).max(1);
        let mut cuts: Vec<usize> = (4..footer).step_by(step).collect();
        for (s, e) in chunk_ranges(&original) {
            // Around chunk starts and ends: page headers and the last page's end.
            cuts.extend((s.saturating_sub(3)..(s + 40).min(footer)).chain(e.saturating_sub(20)..e.min(footer)));
        }
        cuts.sort_unstable();
        cuts.dedup();
        for k in cuts {
            let mut bytes = original[..k].to_vec();
            bytes.extend_from_slice(tail);
            reads += 1;
            if let Err(p) = read_bytes(bytes, &ReadOptions::default()) {
                panics.push(format!("{rel} cut at {k} + footer: {p}"));
            }
            // Plain truncation too (the footer is lost: an error at open).
            if k % 7 == 0 {
                reads += 1;
                if let Err(p) = read_bytes(original[..k].to_vec(), &ReadOptions::default()) {
                    panics.push(format!("{rel} truncated at {k}: {p}"));
                }
            }
        }
    }
    panics.truncate(30);
    assert!(panics.is_empty(), "of {reads} truncated reads, these panicked:\n{}", panics.join("\n"));
}
