//! The timed cells of the `sweep` subcommand (`sweep.rs`): what one run of each does.
//!
//! - Whole-file reads, one set per batch size (`IMPLS`): parquetry on 1 thread and on
//!   [`THREADS`], arrow-rs, streaming or collecting; plus arrow-rs at its default batch size.
//! - Row selection (batch key [`SELECT_KEY`]): the rows of [`select_ranges`], streamed in
//!   batches of [`SELECT_BATCH_SIZE`] rows by parquetry (`ReadOptions::with_row_selection`) and
//!   arrow-rs (`with_row_selection`), the latter without and with its page index.
//! - The limit (batch key [`LIMIT_KEY`]): three parts timed separately, whose medians the
//!   report adds up: reading the file's bytes (`limit_read`), decompressing its pages
//!   (`limit_decompress`, `limits::decompress`) and copying its value bytes (`limit_memcpy`,
//!   `limits::memcpy`). No reader can take less than their sum.

use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::FileExt;

use arrow_array::RecordBatch;
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowSelection, RowSelector};
use parquet::file::metadata::PageIndexPolicy;
use parquetry::read::{ParquetFile, ReadOptions};
use serde_json::{json, Value};

use crate::limits;
use crate::read::{NotRun, Output, Prepared, RunFn};

/// The timed implementations of one batch size, in report order.
pub const IMPLS: [&str; 5] =
    ["parquetry_stream", "parquetry_stream_t2", "parquetry_collect", "arrow_rs_stream", "arrow_rs_collect"];

/// The threads `parquetry_stream_t2` decodes with (`ReadOptions::with_threads`).
pub const THREADS: usize = 2;

/// The implementation timed once per file, at arrow-rs's default batch size.
pub const DEFAULT_IMPL: &str = "arrow_rs_default_stream";

/// The batch-size key under which [`DEFAULT_IMPL`] is recorded.
pub const DEFAULT_KEY: &str = "default";

/// The key under which the limit's parts are recorded.
pub const LIMIT_KEY: &str = "limit";

/// The limit's parts, in report order; their medians add up to the limit.
pub const LIMIT_IMPLS: [&str; 3] = ["limit_read", "limit_decompress", "limit_memcpy"];

/// The key under which the row-selection cells are recorded.
pub const SELECT_KEY: &str = "select";

/// The row-selection cells, in report order.
pub const SELECT_IMPLS: [&str; 3] = ["parquetry_select", "arrow_rs_select", "arrow_rs_select_page_index"];

/// The batch size of the row-selection cells; the report compares them with the full read at
/// this size.
pub const SELECT_BATCH_SIZE: usize = 8192;

/// The buffer `limit_read` reads into, reused for the whole file.
const READ_BUFFER: usize = 1 << 20;

/// What one run saw; `kept` holds the batches of a collecting run, dropped by the caller
/// after the clock stops.
pub struct Outcome {
    /// Rows over all batches (0 for a limit).
    pub rows: u64,
    /// Batches returned.
    pub batches: usize,
    /// The largest batch's rows.
    pub max_batch_rows: usize,
    /// The batches, when collecting.
    pub kept: Vec<RecordBatch>,
}

impl Outcome {
    fn new() -> Outcome {
        Outcome { rows: 0, batches: 0, max_batch_rows: 0, kept: Vec::new() }
    }

    /// Counts `batch` and keeps it (collecting) or drops it now (streaming).
    fn take(&mut self, batch: RecordBatch, collect: bool) {
        self.rows += batch.num_rows() as u64;
        self.batches += 1;
        self.max_batch_rows = self.max_batch_rows.max(batch.num_rows());
        if collect {
            self.kept.push(batch);
        } else {
            drop(std::hint::black_box(batch));
        }
    }
}

/// How arrow-rs is set up for a run.
#[derive(Clone)]
pub struct ArrowRsSpec {
    /// Rows per batch; `None`: its default.
    pub rows_per_batch: Option<usize>,
    /// The rows to read; `None`: all.
    pub selection: Option<RowSelection>,
    /// Load the page index (offset index), which lets a row selection skip whole pages.
    pub page_index: bool,
}

/// parquetry over the whole file with `options`.
pub fn run_parquetry(path: &str, options: &ReadOptions, collect: bool) -> Result<Outcome, String> {
    let file = ParquetFile::open(path).map_err(|e| e.to_string())?;
    let mut out = Outcome::new();
    // The iterator hands over one batch at a time, so a streaming run never holds two.
    let reader = parquetry::read::ParquetReaderBuilder::new(file).with_options(options.clone());
    for batch in reader.build().map_err(|e| e.to_string())? {
        out.take(batch.map_err(|e| e.to_string())?, collect);
    }
    Ok(out)
}

/// arrow-rs over a `std::fs::File`, set up as `spec` says.
pub fn run_arrow_rs(path: &str, spec: &ArrowRsSpec, collect: bool) -> Result<Outcome, String> {
    let file = File::open(path).map_err(|e| format!("opening {path}: {e}"))?;
    let mut options = ArrowReaderOptions::new();
    if spec.page_index {
        options = options.with_page_index_policy(PageIndexPolicy::Optional);
    }
    let mut builder =
        ParquetRecordBatchReaderBuilder::try_new_with_options(file, options).map_err(|e| e.to_string())?;
    if let Some(n) = spec.rows_per_batch {
        builder = builder.with_batch_size(n);
    }
    if let Some(s) = &spec.selection {
        builder = builder.with_row_selection(s.clone());
    }
    let mut out = Outcome::new();
    for batch in builder.build().map_err(|e| e.to_string())? {
        out.take(batch.map_err(|e| e.to_string())?, collect);
    }
    Ok(out)
}

/// The parquetry options of a whole-file read at `rows_per_batch` on `threads`.
pub fn parquetry_options(rows_per_batch: usize, threads: usize) -> ReadOptions {
    ReadOptions::default().with_batch_size(rows_per_batch).with_threads(threads)
}

/// The rows the row-selection cells read: 1% of the file in 100 ranges of equal length,
/// evenly spaced. For 2,000,000 rows: 200 rows from k × 20,000 + 7,777, k in 0..100. The
/// offset (7,777 of each 20,000) keeps the ranges off round row numbers, where pages and
/// row groups tend to start, so that ranges begin and end inside pages. Clipped to the file;
/// ordered and disjoint, since offset + length < spacing.
pub fn select_ranges(rows: u64) -> Vec<Range<u64>> {
    let spacing = (rows / 100).max(1);
    let len = (spacing / 100).max(1);
    let offset = spacing * 7_777 / 20_000;
    (0..100u64).map(|k| k * spacing + offset).filter(|&s| s < rows).map(|s| s..(s + len).min(rows)).collect()
}

/// `ranges` as arrow-rs selectors: skip up to each range, select it, skip the rest of the file.
pub fn row_selection(ranges: &[Range<u64>], rows: u64) -> RowSelection {
    let mut selectors = Vec::with_capacity(2 * ranges.len() + 1);
    let mut at = 0u64;
    for r in ranges {
        if r.start > at {
            selectors.push(RowSelector::skip((r.start - at) as usize));
        }
        selectors.push(RowSelector::select((r.end - r.start) as usize));
        at = r.end;
    }
    if rows > at {
        selectors.push(RowSelector::skip((rows - at) as usize));
    }
    RowSelection::from(selectors)
}

/// The read part of the limit: the file's bytes from start to end with positional reads
/// into one reused 1 MiB buffer. The buffer is filled before timing so that no run pays for
/// first-touch page faults; the file is opened inside the timed run, as the readers open it.
pub fn limit_read(path: &str) -> Result<Prepared, NotRun> {
    let len = std::fs::metadata(path).map_err(|e| NotRun::Failed(format!("{path}: {e}")))?.len();
    let path = path.to_owned();
    let mut buf = vec![0x5au8; READ_BUFFER];
    let info = json!({"what": "File::open, then FileExt::read_at from offset 0 to the file's end into one reused, \
                               touched 1 MiB buffer", "file_bytes": len});
    let run = move || -> Result<Output, String> {
        let file = File::open(&path).map_err(|e| format!("opening {path}: {e}"))?;
        let mut at = 0u64;
        while at < len {
            let n = file.read_at(&mut buf, at).map_err(|e| format!("reading {path} at {at}: {e}"))?;
            if n == 0 {
                return Err(format!("{path}: end of file at {at} of {len} bytes"));
            }
            std::hint::black_box(&buf[..n]);
            at += n as u64;
        }
        Ok(Output::Bytes(at))
    };
    Ok(Prepared { run: Box::new(run), info })
}

/// What a cell runs.
pub enum Kind {
    /// parquetry with these options.
    Parquetry(ReadOptions),
    /// arrow-rs set up so.
    ArrowRs(ArrowRsSpec),
    /// A part of the limit.
    Limit(RunFn),
    /// Not run, and why (`limit_decompress` of a file with no compressed page).
    Skipped(String),
}

/// One timed cell: what it runs, under which key, and what its runs took.
pub struct Cell {
    /// The implementation's name in the report.
    pub name: &'static str,
    /// The batch-size key it is recorded under.
    pub key: String,
    /// What it runs.
    pub kind: Kind,
    /// Keep the batches (collect) or drop each at once (stream).
    pub collect: bool,
    /// The rows every run must see; `None` for the limit.
    pub expect_rows: Option<u64>,
    /// Settings recorded with the cell's figures.
    pub info: Value,
    /// Wall seconds of the timed runs.
    pub times: Vec<f64>,
    /// CPU seconds (all threads) of the timed runs.
    pub cpu: Vec<f64>,
    /// Batches of the last run.
    pub batches: usize,
    /// Why the cell stopped running.
    pub error: Option<String>,
}

impl Cell {
    /// A cell that has not run yet.
    pub fn new(
        name: &'static str,
        key: String,
        kind: Kind,
        collect: bool,
        expect_rows: Option<u64>,
        info: Value,
    ) -> Cell {
        Cell {
            name,
            key,
            kind,
            collect,
            expect_rows,
            info,
            times: Vec::new(),
            cpu: Vec::new(),
            batches: 0,
            error: None,
        }
    }

    /// Whether the rounds should run it.
    pub fn runnable(&self) -> bool {
        self.error.is_none() && !matches!(self.kind, Kind::Skipped(_))
    }

    /// One run.
    pub fn run(&mut self, path: &str) -> Result<Outcome, String> {
        match &mut self.kind {
            Kind::Parquetry(options) => run_parquetry(path, options, self.collect),
            Kind::ArrowRs(spec) => run_arrow_rs(path, spec, self.collect),
            Kind::Limit(run) => run().map(|_| Outcome::new()),
            Kind::Skipped(why) => Err(format!("skipped: {why}")),
        }
    }
}

/// The whole-file cells, batch size by batch size, then the arrow-rs default. `rows`: the
/// file's; `largest_row_group`: its largest row group's rows.
pub fn read_cells(batch_sizes: &[usize], rows: u64, largest_row_group: usize) -> Vec<Cell> {
    let mut cells = Vec::new();
    for &b in batch_sizes {
        // 0: parquetry's unbounded batch is cut at each row group; arrow-rs needs a number.
        let (ours, theirs) = if b == 0 { (usize::MAX, largest_row_group.max(1)) } else { (b, b) };
        for name in IMPLS {
            let (kind, n) = if name.starts_with("parquetry") {
                let threads = if name.ends_with("_t2") { THREADS } else { 1 };
                (Kind::Parquetry(parquetry_options(ours, threads)), ours)
            } else {
                (
                    Kind::ArrowRs(ArrowRsSpec { rows_per_batch: Some(theirs), selection: None, page_index: false }),
                    theirs,
                )
            };
            // usize::MAX would not survive a JSON reader that parses numbers as f64.
            let size = if n == usize::MAX { json!("unbounded (whole row groups)") } else { json!(n) };
            let info = json!({"batch_size_rows": size, "threads": if name.ends_with("_t2") { THREADS } else { 1 }});
            cells.push(Cell::new(name, crate::sweep::batch_key(b), kind, name.ends_with("collect"), Some(rows), info));
        }
    }
    let kind = Kind::ArrowRs(ArrowRsSpec { rows_per_batch: None, selection: None, page_index: false });
    let info = json!({"batch_size_rows": parquet::arrow::arrow_reader::DEFAULT_BATCH_SIZE});
    cells.push(Cell::new(DEFAULT_IMPL, DEFAULT_KEY.to_owned(), kind, false, Some(rows), info));
    cells
}

/// The row-selection cells reading `ranges` of a file of `rows` rows.
pub fn select_cells(ranges: &[Range<u64>], rows: u64) -> Vec<Cell> {
    let selected: u64 = ranges.iter().map(|r| r.end - r.start).sum();
    let info = json!({"batch_size_rows": SELECT_BATCH_SIZE, "ranges": ranges.len(),
                      "range_rows": ranges.first().map(|r| r.end - r.start), "selected_rows": selected});
    let options = ReadOptions::default().with_row_selection(ranges.iter().cloned()).with_batch_size(SELECT_BATCH_SIZE);
    let arrow = |page_index| {
        let spec = ArrowRsSpec {
            rows_per_batch: Some(SELECT_BATCH_SIZE),
            selection: Some(row_selection(ranges, rows)),
            page_index,
        };
        Cell::new(
            if page_index { SELECT_IMPLS[2] } else { SELECT_IMPLS[1] },
            SELECT_KEY.to_owned(),
            Kind::ArrowRs(spec),
            false,
            Some(selected),
            json!({"page_index": page_index, "selection": info.clone()}),
        )
    };
    vec![
        Cell::new(
            SELECT_IMPLS[0],
            SELECT_KEY.to_owned(),
            Kind::Parquetry(options),
            false,
            Some(selected),
            info.clone(),
        ),
        arrow(false),
        arrow(true),
    ]
}

/// The limit's cells of the file at `path`, whose values take `value_bytes` bytes in Arrow.
/// Each is set up here, untimed (the decompress part reads the file into memory and locates
/// its pages).
pub fn limit_cells(path: &str, value_bytes: u64) -> Vec<Cell> {
    let cell = |name, prepared: Result<Prepared, NotRun>| {
        let (kind, info, error) = match prepared {
            Ok(p) => (Kind::Limit(p.run), p.info, None),
            Err(NotRun::Skipped(why)) => (Kind::Skipped(why), Value::Null, None),
            Err(NotRun::Failed(e)) => (Kind::Skipped(String::new()), Value::Null, Some(format!("setup: {e}"))),
        };
        let mut c = Cell::new(name, LIMIT_KEY.to_owned(), kind, false, None, info);
        c.error = error;
        c
    };
    vec![
        cell(LIMIT_IMPLS[0], limit_read(path)),
        cell(LIMIT_IMPLS[1], limits::decompress(path)),
        cell(LIMIT_IMPLS[2], Ok(limits::memcpy(value_bytes))),
    ]
}
