//! The files the filter tests read (written by pyarrow through `support/filter_cases.py`,
//! once per test process) and a filtered read of them that counts the bytes it takes.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use parquetry::filter::ScanMetrics;
use parquetry::read::{BytesSource, ChunkSource};
use parquetry::read::{ParquetFile, ReadOptions};

/// The script that writes the files and answers conditions with duckdb or pyarrow.
pub const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/filter_cases.py");

/// Memory holding the file, counting the bytes reads take from it.
pub struct Counting {
    pub inner: BytesSource,
    pub read: AtomicU64,
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

/// The files, written once per test process.
pub fn files() -> &'static (PathBuf, PathBuf) {
    static FILES: std::sync::OnceLock<(PathBuf, PathBuf)> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("parquetry-filter-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = Command::new(crate::common::python())
            .args([SCRIPT, "write", dir.to_str().unwrap()])
            .output()
            .expect("python3");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        (dir.join("indexed.parquet"), dir.join("plain.parquet"))
    })
}

/// A filtered read of `bytes`: its batches, the metrics, and the bytes read.
pub fn read(bytes: &[u8], options: ReadOptions) -> parquetry::Result<(Vec<RecordBatch>, ScanMetrics, u64)> {
    let metadata = parquetry::format::read_metadata_from_bytes(bytes)?;
    let source = Counting { inner: BytesSource::new(bytes.to_vec()), read: AtomicU64::new(0) };
    let file = ParquetFile::with_source(source, metadata)?;
    let mut iter = crate::common::batches(&file, options)?;
    let mut batches = Vec::new();
    for b in iter.by_ref() {
        batches.push(b?);
    }
    let metrics = iter.scan_metrics().cloned().unwrap_or_default();
    drop(iter);
    Ok((batches, metrics, file.source().read.load(Ordering::Relaxed)))
}

pub fn ids(batches: &[RecordBatch]) -> Vec<i64> {
    let column =
        |b: &RecordBatch| b.column_by_name("id").expect("id column").as_primitive::<Int64Type>().values().to_vec();
    batches.iter().flat_map(column).collect()
}

/// `bytes` with its footer rewritten by `edit`, which may append structures (at the offset it
/// is given) before the new footer.
pub fn rewrite(bytes: &[u8], edit: impl FnOnce(&mut parquetry::format::FileMetaData, &mut Vec<u8>, u64)) -> Vec<u8> {
    let n = bytes.len();
    let len = u32::from_le_bytes(bytes[n - 8..n - 4].try_into().unwrap()) as usize;
    let mut meta = parquetry::format::read_metadata_from_bytes(bytes).unwrap();
    let mut out = bytes[..n - 8 - len].to_vec();
    let mut extra = Vec::new();
    edit(&mut meta, &mut extra, out.len() as u64);
    out.extend_from_slice(&extra);
    out.extend_from_slice(&parquetry::format::encode_footer(&meta));
    out
}
