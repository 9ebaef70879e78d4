//! Row selections read pyarrow's rows, and read little of the file: pages wholly outside the
//! selected rows are passed over from their headers (their bodies never read), or, where the
//! file has an OffsetIndex, not even their headers are read.
//!
//! pyarrow writes the files (several MB of strings in small pages, snappy; one with a page
//! index, one without) at test time; its own read of each file, sliced, is the reference. A
//! source that counts the bytes it hands out shows how much of the file a read touched.

mod common;
#[path = "common/read_compare.rs"]
mod read_compare;

use std::ops::Range;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use arrow_buffer::Buffer;
use parquetry::read::{BytesSource, ChunkSource};
use parquetry::read::{ParquetFile, ReadOptions};
use read_compare::{diff_tables, Table};

/// Memory holding the file, counting the bytes reads take from it.
struct Counting {
    inner: BytesSource,
    read: AtomicU64,
}

impl ChunkSource for Counting {
    fn len(&self) -> u64 {
        self.inner.len()
    }

    fn read_at_reusing(&self, offset: u64, len: usize, spare: Vec<u8>) -> parquetry::Result<Buffer> {
        self.read.fetch_add(len as u64, Ordering::Relaxed);
        self.inner.read_at_reusing(offset, len, spare)
    }
}

/// Reads `ranges` of the file through a counting source: the table and the bytes read.
fn read(bytes: &[u8], ranges: Option<Vec<Range<u64>>>, batch_size: usize) -> (Table, u64) {
    read_with(bytes, ranges, ReadOptions::default().with_batch_size(batch_size))
}

/// [`read`] with these options.
fn read_with(bytes: &[u8], ranges: Option<Vec<Range<u64>>>, options: ReadOptions) -> (Table, u64) {
    let metadata = parquetry::format::read_metadata_from_bytes(bytes).expect("footer");
    let source = Counting { inner: BytesSource::new(bytes.to_vec()), read: AtomicU64::new(0) };
    let file = ParquetFile::with_source(source, metadata).unwrap();
    let mut options = options;
    if let Some(r) = ranges {
        options = options.with_row_selection(r);
    }
    let iter = common::batches(&file, options).unwrap();
    let schema = iter.schema();
    let batches: Vec<_> = iter.collect::<Result<_, _>>().unwrap();
    let table = Table::from_batches(&schema, &batches).unwrap();
    (table, file_source_read(&file))
}

/// The rows of each batch read with `options` and `ranges`.
fn batch_rows(bytes: &[u8], ranges: Vec<Range<u64>>, options: ReadOptions) -> Vec<usize> {
    let file = ParquetFile::from_bytes(bytes.to_vec()).unwrap();
    let iter = common::batches(&file, options.with_row_selection(ranges)).unwrap();
    iter.map(|b| b.unwrap().num_rows()).collect()
}

/// The rows of each batch as the options promise them: `batch_size` rows at a time from each
/// row group's selected rows (given by `row_groups`, the row groups' lengths), the last batch
/// of a row group shorter.
fn promised_batch_rows(ranges: &[Range<u64>], row_groups: &[u64], batch_size: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut start = 0;
    for &len in row_groups {
        let end = start + len;
        let mut selected: usize =
            ranges.iter().map(|r| r.end.min(end).saturating_sub(r.start.max(start)) as usize).sum();
        while selected > 0 {
            out.push(selected.min(batch_size));
            selected -= selected.min(batch_size);
        }
        start = end;
    }
    out
}

fn file_source_read(file: &ParquetFile<Counting>) -> u64 {
    file.source().read.load(Ordering::Relaxed)
}

#[test]
fn selections_read_pyarrows_rows_and_skip_the_pages_outside_them() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("parquetry-selection-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (with, without) = (dir.join("with-index.parquet"), dir.join("without-index.parquet"));
    let script = r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
n = 200_000
ids = pa.array([f"{i * 2654435761 % 2**32:08x}-{i:06d}" for i in range(n)])
urls = pa.array([None if i % 17 == 0 else f"https://www.example{i % 50}.com/item/{i * 7 % 10_000_000}" for i in range(n)])
cats = pa.array([f"category_{i % 100:03d}" for i in range(n)])
# Distinct values: its dictionary outgrows the limit and the writer falls back to PLAIN pages
# early in each row group, so selections meet both kinds of page (a PLAIN page needs no
# dictionary, and the reader decodes it only for a dictionary-encoded one).
tags = pa.array([f"tag-{i * 7919 % n:07d}" for i in range(n)])
t = pa.table({"id": ids, "url": urls, "category": cats, "tag": tags})
for path, index in ((sys.argv[1], True), (sys.argv[2], False)):
    pq.write_table(t, path, row_group_size=120_000, data_page_size=16 * 1024, compression="snappy",
                   use_dictionary=["category", "tag"], dictionary_pagesize_limit=32 * 1024,
                   write_page_index=index)
"#;
    let out = Command::new(common::python())
        .args(["-c", script, with.to_str().unwrap(), without.to_str().unwrap()])
        .output()
        .expect("python3 with pyarrow");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let tables = read_compare::pyarrow_tables("selection", &[with.clone(), without.clone()]);
    // With an index, a few rows take a few pages per column; without one, the skipped pages'
    // headers are still read (a small read each), but not their bodies.
    for (path, at_most) in [(&with, 10), (&without, 2)] {
        let bytes = std::fs::read(path).unwrap();
        let want = tables[path].as_ref().expect("pyarrow reads the file");
        check_selections(&bytes, want, at_most, &path.display().to_string());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Reads selections of the file `bytes` and compares them with pyarrow's `want`; a
/// selection of a few rows must read less than 1/`at_most` of what a whole read does.
fn check_selections(bytes: &[u8], want: &Table, at_most: u64, name: &str) {
    let (all, all_bytes) = read(bytes, None, 8192);
    assert!(diff_tables(want, &all).is_empty());
    // Batches large enough for the columns to be decoded on two threads at once.
    let options = ReadOptions::default().with_batch_size(50_000).with_threads(2);
    let (threaded, _) = read_with(bytes, Some(vec![3..150_000, 150_001..200_000]), options);
    let mut selected = want.slice(3, 149_997);
    selected = selected.append(&want.slice(150_001, 49_999));
    assert!(diff_tables(&selected, &threaded).is_empty(), "{name}: two threads");
    // Small batches on two threads are decoded many at once and handed out one by one: the
    // same rows, and batches of the size asked for, ending where each row group ends.
    let scattered: Vec<Range<u64>> = (0..100).map(|k| k * 2000 + 777..k * 2000 + 1_797).collect();
    let mut selected = want.slice(0, 0);
    for r in &scattered {
        selected = selected.append(&want.slice(r.start as usize, (r.end - r.start) as usize));
    }
    for batch_size in [1000, 777] {
        let options = ReadOptions::default().with_batch_size(batch_size).with_threads(2);
        let (threaded, _) = read_with(bytes, Some(scattered.clone()), options.clone());
        let diffs = diff_tables(&selected, &threaded);
        assert!(diffs.is_empty(), "{name}: two threads, batch {batch_size}: {diffs:?}");
        let promised = promised_batch_rows(&scattered, &[120_000, 80_000], batch_size);
        assert_eq!(batch_rows(bytes, scattered.clone(), options), promised, "{name}: batch {batch_size}");
    }
    // Batches of a row group shared out as runs of rows, one run per thread ("lanes"): `url`
    // holds most of the bytes; `category` has a dictionary and one lane reads all of it.
    #[allow(clippy::single_range_in_vec_init)] // a one-range selection is a selection
    let everything = [0..200_000];
    for batch_size in [40_000, 33_333] {
        let options = ReadOptions::default().with_batch_size(batch_size).with_threads(2);
        let (laned, _) = read_with(bytes, None, options.clone());
        let diffs = diff_tables(want, &laned);
        assert!(diffs.is_empty(), "{name}: lanes, batch {batch_size}: {diffs:?}");
        let promised = promised_batch_rows(&everything, &[120_000, 80_000], batch_size);
        assert_eq!(batch_rows(bytes, everything.to_vec(), options), promised, "{name}: lanes, batch {batch_size}");
    }
    let cases: Vec<Vec<Range<u64>>> = vec![
        vec![199_990..200_000],                                     // the last rows only
        vec![5..6, 119_999..120_001],                               // across the row groups
        (0..100).map(|k| k * 2000 + 777..k * 2000 + 797).collect(), // 1% in 100 ranges
    ];
    for ranges in cases {
        let mut selected = want.slice(0, 0);
        for r in &ranges {
            selected = selected.append(&want.slice(r.start as usize, (r.end - r.start) as usize));
        }
        for batch_size in [8192, 3] {
            let (got, read_bytes) = read(bytes, Some(ranges.clone()), batch_size);
            let diffs = diff_tables(&selected, &got);
            assert!(
                diffs.is_empty(),
                "{name}: {} ranges from {:?}, batch {batch_size}: {diffs:?}",
                ranges.len(),
                ranges[0]
            );
            if ranges.len() < 100 {
                assert!(
                    read_bytes * at_most < all_bytes,
                    "{name} {ranges:?}: read {read_bytes} of the {all_bytes} bytes a whole read takes"
                );
            }
        }
    }
}

#[test]
fn selections_of_nested_columns_jump_through_the_page_index() {
    if common::pyarrow_missing() {
        return;
    }
    // A list<string> and a struct column in small pages, with a page index (its pages start
    // at records): a selection of a few records reads pyarrow's rows and little of the file.
    let dir = std::env::temp_dir().join(format!("parquetry-selection-nested-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("nested-with-index.parquet");
    let script = r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
n = 200_000
tags = pa.array([None if i % 13 == 0 else [f"tag_{(i * j) % 977:04d}-{i}" for j in range(i % 6)] for i in range(n)])
rec = pa.array([None if i % 11 == 0 else {"a": i, "b": f"b{i * 7 % 1000:05d}"} for i in range(n)])
t = pa.table({"tags": tags, "rec": rec})
pq.write_table(t, sys.argv[1], row_group_size=120_000, data_page_size=16 * 1024, compression="snappy",
               use_dictionary=False, write_page_index=True)
"#;
    let out = Command::new(common::python()).args(["-c", script, path.to_str().unwrap()]).output().expect("python3");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let tables = read_compare::pyarrow_tables("selection-nested", std::slice::from_ref(&path));
    let bytes = std::fs::read(&path).unwrap();
    // 1/9, not 1/10: a whole read now reads each chunk byte once (4,009,385 bytes of this
    // file where it read 4,230,360), and two rows across the row groups take the same
    // 409,234 bytes as before, 1/9.8 of it.
    check_selections(&bytes, tables[&path].as_ref().expect("pyarrow reads the file"), 9, "nested with index");
    let _ = std::fs::remove_dir_all(&dir);
}
