//! Each byte of a column chunk is read once: the reader's first read of a chunk (a window of
//! 64 KiB for the first page's header) is not read again when the page is longer. Checked
//! over the parquet-testing files pyarrow reads, with a reader that counts what it is asked
//! for, against the chunk sizes the files' footers give.

mod common;

use std::io::{Cursor, Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parquetry::page::{chunk_byte_range, has_parquet_816_bug};
use parquetry::read::{ParquetFile, ReadOptions};

/// A `Read + Seek` over bytes that counts the bytes read.
struct Counting {
    inner: Cursor<Vec<u8>>,
    read: Arc<AtomicU64>,
}

impl Read for Counting {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl Seek for Counting {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(pos)
    }
}

#[test]
fn whole_reads_read_each_chunk_byte_once() {
    let dir = common::corpus_dir();
    let mut checked = 0;
    let mut with_long_pages = 0;
    for row in common::manifest().into_iter().filter(|r| r.readable_by_pyarrow == "yes") {
        let bytes = std::fs::read(dir.join(&row.path)).unwrap();
        let read = Arc::new(AtomicU64::new(0));
        let counting = Counting { inner: Cursor::new(bytes.clone()), read: Arc::clone(&read) };
        let Ok(file) = ParquetFile::from_reader(counting) else { continue };
        let meta = file.metadata().clone();
        let padding = has_parquet_816_bug(meta.created_by.as_deref());
        let mut chunks = 0u64;
        for rg in &meta.row_groups {
            for c in &rg.columns {
                let m = c.meta_data.as_ref().unwrap();
                chunks += chunk_byte_range(m, bytes.len() as u64, padding).unwrap().1;
            }
        }
        read.store(0, Ordering::Relaxed);
        let options = ReadOptions::default().with_threads(1);
        if common::read_all(&file, &options).is_err() {
            continue; // files the reader refuses are other tests' business
        }
        let got = read.load(Ordering::Relaxed);
        assert!(got <= chunks, "{}: read {got} bytes of column chunks holding {chunks}", row.path);
        checked += 1;
        if chunks > 64 * 1024 * meta.row_groups.len().max(1) as u64 {
            with_long_pages += 1;
        }
    }
    assert!(checked > 50, "only {checked} files checked");
    assert!(with_long_pages > 0, "no file with chunks past the first read's window");
}
