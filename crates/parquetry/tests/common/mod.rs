//! Helpers shared by the whole-file tests: where the parquet-testing corpus is, and its manifest.
#![allow(dead_code)]

use std::path::PathBuf;

/// The `parquet-testing` corpus: `$PARQUET_TESTING_DIR`, else `../shared/parquet-testing`
/// beside the repository.
pub fn corpus_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("PARQUET_TESTING_DIR") {
        return PathBuf::from(dir);
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/parquet-testing");
    assert!(
        dir.join("MANIFEST.tsv").exists(),
        "parquet-testing corpus not found at {}; set PARQUET_TESTING_DIR",
        dir.display()
    );
    dir
}

/// One row of `MANIFEST.tsv`.
#[derive(Debug, Clone)]
pub struct ManifestRow {
    pub path: String,
    pub bytes: u64,
    pub readable_by_pyarrow: String,
    pub num_rows: Option<i64>,
    pub num_row_groups: Option<usize>,
    pub physical_types: Vec<String>,
    pub encodings: Vec<String>,
    pub codecs: Vec<String>,
    pub nested: String,
    pub data_page_version: String,
    pub created_by: String,
}

fn list(field: &str) -> Vec<String> {
    if field.is_empty() || field == "-" {
        return Vec::new();
    }
    let mut v: Vec<String> = field.split(',').map(str::to_owned).collect();
    v.sort();
    v
}

/// Every row of the manifest.
pub fn manifest() -> Vec<ManifestRow> {
    let text = std::fs::read_to_string(corpus_dir().join("MANIFEST.tsv")).expect("read manifest");
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            let get = |i: usize| f.get(i).copied().unwrap_or("").to_owned();
            ManifestRow {
                path: get(0),
                bytes: get(1).parse().unwrap_or(0),
                readable_by_pyarrow: get(2),
                num_rows: get(3).parse().ok(),
                num_row_groups: get(4).parse().ok(),
                physical_types: list(&get(5)),
                encodings: list(&get(6)),
                codecs: list(&get(7)),
                nested: get(8),
                data_page_version: get(9),
                created_by: get(10),
            }
        })
        .collect()
}

/// The Python interpreter for interop tests: `$PYTHON`, else `python3`.
pub fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

pub mod moto;
mod pyarrow_check;
#[allow(unused_imports)] // Not every test file compares with pyarrow.
pub use pyarrow_check::pyarrow_missing;

/// Record batches of a file read through the builder (the one way to read), with
/// parquetry's own errors, so that tests can check error kinds and messages as the library
/// gives them (the `Iterator` of the reader wraps them in `ArrowError`s).
pub struct Batches<S: parquetry::read::ChunkSource>(pub parquetry::read::ParquetRecordBatchReader<S>);

impl<S: parquetry::read::ChunkSource> Batches<S> {
    /// The schema of the batches.
    pub fn schema(&self) -> arrow_schema::SchemaRef {
        arrow_array::RecordBatchReader::schema(&self.0)
    }

    /// What a filtered read pruned and read so far.
    pub fn scan_metrics(&self) -> Option<&parquetry::filter::ScanMetrics> {
        self.0.scan_metrics()
    }
}

impl<S: parquetry::read::ChunkSource> Iterator for Batches<S> {
    type Item = parquetry::Result<arrow_array::RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next_batch()
    }
}

/// The batches `options` selects of `file` (a clone of the handle: the caller keeps it).
pub fn batches<S: parquetry::read::ChunkSource>(
    file: &parquetry::read::ParquetFile<S>,
    options: parquetry::read::ReadOptions,
) -> parquetry::Result<Batches<S>> {
    let reader = parquetry::read::ParquetReaderBuilder::new(file.clone()).with_options(options).build()?;
    Ok(Batches(reader))
}

/// Every batch `options` selects of `file`.
pub fn read_all<S: parquetry::read::ChunkSource>(
    file: &parquetry::read::ParquetFile<S>,
    options: &parquetry::read::ReadOptions,
) -> parquetry::Result<Vec<arrow_array::RecordBatch>> {
    batches(file, options.clone())?.collect()
}
