//! The implementations a cell times, each set up once and then run repeatedly: whole-file
//! reads into Arrow (parquetry, arrow-rs; Utf8 and Utf8View outputs) and the limits
//! (see `limits.rs`).

use std::fs::File;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use parquetry::read::{ByteArrayType, ParquetFile, ParquetReaderBuilder, ReadOptions};
use serde_json::{json, Value};

use crate::limits;

/// The version of the arrow-rs `parquet` crate this bench links (Cargo.toml).
pub const ARROW_RS_VERSION: &str = "60.1";

/// Every implementation, in report order.
pub const IMPLS: [&str; 10] = [
    "parquetry",
    "parquetry_view",
    "parquetry_mmap",
    "parquetry_mmap_view",
    "arrow_rs",
    "arrow_rs_view",
    "arrow_rs_mmap",
    "arrow_rs_mmap_view",
    "decompress",
    "memcpy",
];

/// Implementations run only when `--impls` names them: limits that explain a figure rather
/// than set one.
pub const EXTRA_IMPLS: [&str; 2] = ["decompress_fresh", "decompress_snap"];

/// What one run produced.
pub enum Output {
    /// A whole-file read: every batch of the file.
    Batches(Vec<RecordBatch>),
    /// A limit: how many bytes it moved (decompressed, compressed or copied).
    Bytes(u64),
    /// A write: the sink holding the file written (kept by the writer for its next run).
    File(crate::write::Sink),
}

/// One run of an implementation on its file.
pub type RunFn = Box<dyn FnMut() -> Result<Output, String>>;

/// Why a cell has no timings.
pub enum NotRun {
    /// The implementation does not apply to this file (e.g. decompress on uncompressed data).
    Skipped(String),
    /// Setup failed.
    Failed(String),
}

/// An implementation ready to run: the run function and what to record about it.
pub struct Prepared {
    /// Runs once (timed by the caller).
    pub run: RunFn,
    /// Versions and settings, recorded as `impl_info`.
    pub info: Value,
}

/// Sets up `name` on `path`. `value_bytes` sizes the memcpy limit.
pub fn prepare(name: &str, path: &str, value_bytes: u64) -> Result<Prepared, NotRun> {
    match name {
        "parquetry" => Ok(parquetry(path, None, false)),
        "parquetry_view" => Ok(parquetry(path, Some(ByteArrayType::View), false)),
        "parquetry_mmap" => Ok(parquetry(path, None, true)),
        "parquetry_mmap_view" => Ok(parquetry(path, Some(ByteArrayType::View), true)),
        "arrow_rs" => arrow_rs(path, false, false).map_err(NotRun::Failed),
        "arrow_rs_view" => arrow_rs(path, true, false).map_err(NotRun::Failed),
        "arrow_rs_mmap" => arrow_rs(path, false, true).map_err(NotRun::Failed),
        "arrow_rs_mmap_view" => arrow_rs(path, true, true).map_err(NotRun::Failed),
        "decompress" => limits::decompress(path),
        "decompress_fresh" => limits::decompress_fresh(path),
        "decompress_snap" => limits::decompress_snap(path),
        "memcpy" => Ok(limits::memcpy(value_bytes)),
        other => Err(NotRun::Failed(format!(
            "unknown implementation {other:?} (known: {})",
            [&IMPLS[..], &EXTRA_IMPLS[..]].concat().join(",")
        ))),
    }
}

/// parquetry: open by path (with `mmap`, as a memory map), read all row groups whole (batch
/// size unbounded).
fn parquetry(path: &str, byte_array_type: Option<ByteArrayType>, mmap: bool) -> Prepared {
    let path = path.to_owned();
    let mut options = ReadOptions::default().with_batch_size(usize::MAX);
    if let Some(t) = byte_array_type {
        options = options.with_byte_array_type(t);
    }
    let info = json!({
        "version": concat!("parquetry (workspace) via parquetry-bench ", env!("CARGO_PKG_VERSION")),
        "batch_size": "unbounded (whole row groups)",
        "byte_array_type": format!("{byte_array_type:?}"),
        "source": if mmap { "ParquetFile::open_mapped (memory map)" } else { "ParquetFile::open (read)" },
    });
    let run = move || -> Result<Output, String> {
        let batches = if mmap {
            // SAFETY: the bench's data files are not modified while it runs.
            let file = unsafe { ParquetFile::open_mapped(&path) }.map_err(|e| e.to_string())?;
            read_all(ParquetReaderBuilder::new(file), &options)
        } else {
            ParquetReaderBuilder::open(&path).and_then(|builder| read_all(builder, &options))
        };
        batches.map(Output::Batches).map_err(|e| e.to_string())
    };
    Prepared { run: Box::new(run), info }
}

/// The arrow-rs `parquet` crate: `ParquetRecordBatchReaderBuilder` over a `File` (with
/// `mmap`, over `Bytes` of a memory map, populated up front since the whole file is read),
/// batches as large as the largest row group; with `view`, the Arrow schema is overridden so
/// that Utf8/Binary columns read as Utf8View/BinaryView (the same output types as parquetry's).
fn arrow_rs(path: &str, view: bool, mmap: bool) -> Result<Prepared, String> {
    let open = || File::open(path).map_err(|e| format!("opening {path}: {e}"));
    let builder = ParquetRecordBatchReaderBuilder::try_new(open()?).map_err(|e| e.to_string())?;
    let max_rows = builder.metadata().row_groups().iter().map(|rg| rg.num_rows()).max().unwrap_or(1);
    let batch_size = usize::try_from(max_rows).unwrap_or(1 << 20).max(1);
    let mut options = ArrowReaderOptions::new();
    if view {
        options = options.with_schema(view_schema(builder.schema()));
    }
    drop(builder);
    let info = json!({
        "version": format!("parquet (arrow-rs) {ARROW_RS_VERSION}"),
        "batch_size": batch_size,
        "schema_override": if view { "Utf8/Binary → Utf8View/BinaryView" } else { "none" },
        "source": if mmap { "bytes::Bytes over a populated memory map" } else { "std::fs::File" },
    });
    let path = path.to_owned();
    let run = move || -> Result<Output, String> {
        let file = File::open(&path).map_err(|e| format!("opening {path}: {e}"))?;
        let batches = if mmap {
            // SAFETY: the bench's data files are not modified while it runs.
            let map = unsafe { memmap2::MmapOptions::new().populate().map(&file) }
                .map_err(|e| format!("mapping {path}: {e}"))?;
            collect(
                ParquetRecordBatchReaderBuilder::try_new_with_options(bytes::Bytes::from_owner(map), options.clone()),
                batch_size,
            )
        } else {
            collect(ParquetRecordBatchReaderBuilder::try_new_with_options(file, options.clone()), batch_size)
        };
        batches.map(Output::Batches)
    };
    Ok(Prepared { run: Box::new(run), info })
}

/// Builds the arrow-rs reader and reads every batch.
fn collect<T: parquet::file::reader::ChunkReader + 'static>(
    builder: parquet::errors::Result<ParquetRecordBatchReaderBuilder<T>>,
    batch_size: usize,
) -> Result<Vec<RecordBatch>, String> {
    let reader = builder.map_err(|e| e.to_string())?.with_batch_size(batch_size).build().map_err(|e| e.to_string())?;
    reader.collect::<Result<Vec<_>, _>>().map_err(|e| e.to_string())
}

/// `schema` with every top-level string/binary field as its view type.
fn view_schema(schema: &SchemaRef) -> SchemaRef {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| {
            let t = match f.data_type() {
                DataType::Utf8 | DataType::LargeUtf8 => DataType::Utf8View,
                DataType::Binary | DataType::LargeBinary => DataType::BinaryView,
                other => other.clone(),
            };
            f.as_ref().clone().with_data_type(t)
        })
        .collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// The reference read: arrow-rs, Utf8 output, untimed. Used when no pyarrow reference
/// checksum is available for a file.
pub fn reference_read(path: &str) -> Result<Vec<RecordBatch>, String> {
    let mut prepared = arrow_rs(path, false, false)?;
    match (prepared.run)()? {
        Output::Batches(b) => Ok(b),
        Output::Bytes(_) | Output::File(_) => unreachable!("arrow_rs returns batches"),
    }
}

/// Every batch `options` selects, through the builder, with parquetry's own errors.
pub(crate) fn read_all<S: parquetry::read::ChunkSource>(
    builder: ParquetReaderBuilder<S>,
    options: &ReadOptions,
) -> parquetry::Result<Vec<arrow_array::RecordBatch>> {
    let mut reader = builder.with_options(options.clone()).build()?;
    std::iter::from_fn(|| reader.next_batch()).collect()
}
