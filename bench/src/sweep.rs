//! The `sweep` subcommand: how the batch size changes parquetry's and arrow-rs's read times.
//!
//! For each file, every (batch size × reader × mode) cell runs in this one process, in rounds:
//! round k runs every cell of the file once before round k + 1 runs any, so that a change in
//! the machine's load (it is shared) falls on all cells alike rather than on whichever cell
//! happened to run then. Each cell's figure is the median of its timed rounds.
//!
//! Readers: parquetry (`ParquetFile::batches` with `ReadOptions::with_batch_size`) and the
//! arrow-rs `parquet` crate (`ParquetRecordBatchReaderBuilder` over a `std::fs::File` with
//! `with_batch_size`), both opening the file inside the timed region (footer included, as the
//! `read` cells do), both with the files' own output types (Utf8/Binary; no view override).
//! Modes: `stream` drops each batch as soon as it arrives (what a consumer that processes
//! batch by batch pays), `collect` keeps them all in a `Vec`, dropped after the clock stops.
//! Batch size 0 means whole row groups: `usize::MAX` for parquetry (its batches never cross a
//! row group), the largest row group's row count for arrow-rs (whose batches may cross one
//! when row groups differ in size). `arrow_rs_default_stream` is arrow-rs without
//! `with_batch_size` (its default, 1,024 rows), once per file.
//!
//! Before timing, each batch size is checked once: parquetry's and arrow-rs's collected
//! batches must have the same row count and the same checksum (`checksum.rs`). Every timed run
//! must also see the file's row count. `--peers` takes bench/sweep_peers.py's JSON (pyarrow
//! `iter_batches`) so the table can show pyarrow beside parquetry.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Instant;

use arrow_array::RecordBatch;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReaderBuilder, DEFAULT_BATCH_SIZE};
use parquetry::read::{ParquetFile, ReadOptions};
use serde_json::{json, Map, Value};

use crate::checksum::file_checksum;
use crate::driver::{cpu_model, git_revision, now_utc};
use crate::memory;
use crate::read::ARROW_RS_VERSION;

/// The batch sizes swept when `--batch-sizes` is not given (0 = whole row groups).
pub const DEFAULT_BATCH_SIZES: [usize; 4] = [1024, 8192, 65536, 0];

/// The timed implementations of one batch size, in report order.
pub const IMPLS: [&str; 4] = ["parquetry_stream", "parquetry_collect", "arrow_rs_stream", "arrow_rs_collect"];

/// The implementation timed once per file, at arrow-rs's default batch size.
pub const DEFAULT_IMPL: &str = "arrow_rs_default_stream";

/// The batch-size key under which [`DEFAULT_IMPL`] is recorded.
pub const DEFAULT_KEY: &str = "default";

/// Options of `parquetry-bench sweep`.
pub struct SweepArgs {
    /// Parquet files.
    pub files: Vec<String>,
    /// Batch sizes in rows, 0 for whole row groups.
    pub batch_sizes: Vec<usize>,
    /// Timed rounds.
    pub runs: usize,
    /// Untimed rounds before them.
    pub warmup: usize,
    /// Where to write the JSON report.
    pub json: Option<String>,
    /// bench/sweep_peers.py's JSON (pyarrow), shown beside parquetry in the table.
    pub peers: Option<String>,
}

/// The JSON key of a batch size: its row count, or "row_group" for 0. bench/sweep_peers.py
/// uses the same keys.
pub fn batch_key(batch_size: usize) -> String {
    if batch_size == 0 {
        "row_group".to_owned()
    } else {
        batch_size.to_string()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Reader {
    Parquetry,
    ArrowRs,
}

/// One timed cell: a reader, a mode and the batch size it is given (`None`: arrow-rs's default).
struct Cell {
    name: &'static str,
    key: String,
    reader: Reader,
    collect: bool,
    rows_per_batch: Option<usize>,
    times: Vec<f64>,
    cpu: Vec<f64>,
    batches: usize,
    error: Option<String>,
}

/// What one run saw; `kept` holds the batches of a collecting run, dropped by the caller
/// after the clock stops.
struct Outcome {
    rows: u64,
    batches: usize,
    max_batch_rows: usize,
    kept: Vec<RecordBatch>,
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

/// parquetry over the whole file, `rows_per_batch` rows a batch.
fn run_parquetry(path: &str, rows_per_batch: usize, collect: bool) -> Result<Outcome, String> {
    let file = ParquetFile::open(path).map_err(|e| e.to_string())?;
    let options = ReadOptions::default().with_batch_size(rows_per_batch);
    let mut out = Outcome::new();
    // The iterator hands over one batch at a time, so a streaming run never holds two.
    for batch in file.batches(options).map_err(|e| e.to_string())? {
        out.take(batch.map_err(|e| e.to_string())?, collect);
    }
    Ok(out)
}

/// arrow-rs over a `std::fs::File`, `rows_per_batch` rows a batch (`None`: its default).
fn run_arrow_rs(path: &str, rows_per_batch: Option<usize>, collect: bool) -> Result<Outcome, String> {
    let file = File::open(path).map_err(|e| format!("opening {path}: {e}"))?;
    let mut builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| e.to_string())?;
    if let Some(n) = rows_per_batch {
        builder = builder.with_batch_size(n);
    }
    let mut out = Outcome::new();
    for batch in builder.build().map_err(|e| e.to_string())? {
        out.take(batch.map_err(|e| e.to_string())?, collect);
    }
    Ok(out)
}

impl Cell {
    fn run(&self, path: &str) -> Result<Outcome, String> {
        match self.reader {
            Reader::Parquetry => run_parquetry(path, self.rows_per_batch.unwrap_or(usize::MAX), self.collect),
            Reader::ArrowRs => run_arrow_rs(path, self.rows_per_batch, self.collect),
        }
    }
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s.get(s.len() / 2).copied().unwrap_or(f64::NAN)
}

fn canonical(p: &str) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| PathBuf::from(p))
}

/// The row counts of the file's row groups (from arrow-rs's footer decoding, untimed).
fn row_group_rows(path: &str) -> Result<Vec<usize>, String> {
    let file = File::open(path).map_err(|e| format!("opening {path}: {e}"))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| e.to_string())?;
    Ok(builder.metadata().row_groups().iter().map(|rg| usize::try_from(rg.num_rows()).unwrap_or(0)).collect())
}

/// The untimed check of one batch size: both readers collect the file; rows and checksums
/// must agree. Returns the check's JSON and, if it could read, parquetry's checksum figures.
fn check(path: &str, parquetry_rows: usize, arrow_rs_rows: usize) -> (Value, Option<crate::checksum::FileSum>) {
    type Checked = (crate::checksum::FileSum, usize, usize, Value);
    let sum = |out: Result<Outcome, String>| -> Result<Checked, String> {
        let out = out?;
        let schema = out.kept.first().ok_or("the read returned no batches")?.schema();
        // Recorded to show that both readers produced the files' own types (Utf8, not views).
        let types: Map<String, Value> =
            schema.fields().iter().map(|f| (f.name().clone(), json!(f.data_type().to_string()))).collect();
        Ok((file_checksum(&schema, &out.kept)?, out.batches, out.max_batch_rows, Value::Object(types)))
    };
    let ours = sum(run_parquetry(path, parquetry_rows, true));
    let theirs = sum(run_arrow_rs(path, Some(arrow_rs_rows), true));
    match (ours, theirs) {
        (Ok((p, pb, pmax, pt)), Ok((a, ab, amax, at))) => {
            let ok = p.rows == a.rows && p.checksum == a.checksum;
            let v = json!({
                "ok": ok, "rows": p.rows, "arrow_rs_rows": a.rows,
                "parquetry_output_types": pt, "arrow_rs_output_types": at,
                "parquetry_batches": pb, "parquetry_max_batch_rows": pmax,
                "arrow_rs_batches": ab, "arrow_rs_max_batch_rows": amax,
                "checksum": p.checksum,
                "arrow_rs_checksum": if p.checksum == a.checksum { Value::Null } else { a.checksum },
            });
            (v, Some(p))
        }
        (ours, theirs) => {
            let err = |r: &Result<_, String>| r.as_ref().err().cloned();
            (json!({"ok": false, "parquetry_error": err(&ours), "arrow_rs_error": err(&theirs)}), ours.ok().map(|o| o.0))
        }
    }
}

/// The cells of one file, batch size by batch size, then the arrow-rs default.
fn cells_for(batch_sizes: &[usize], largest_row_group: usize) -> Vec<Cell> {
    let cell = |name, key: String, reader, collect, rows_per_batch| Cell {
        name,
        key,
        reader,
        collect,
        rows_per_batch,
        times: Vec::new(),
        cpu: Vec::new(),
        batches: 0,
        error: None,
    };
    let mut cells = Vec::new();
    for &b in batch_sizes {
        // 0: parquetry's unbounded batch is cut at each row group; arrow-rs needs a number.
        let (ours, theirs) = if b == 0 { (usize::MAX, largest_row_group.max(1)) } else { (b, b) };
        for name in IMPLS {
            let reader = if name.starts_with("parquetry") { Reader::Parquetry } else { Reader::ArrowRs };
            let n = if reader == Reader::Parquetry { ours } else { theirs };
            cells.push(cell(name, batch_key(b), reader, name.ends_with("collect"), Some(n)));
        }
    }
    cells.push(cell(DEFAULT_IMPL, DEFAULT_KEY.to_owned(), Reader::ArrowRs, false, None));
    cells
}

/// Sweeps one file: checks, then the interleaved rounds. Returns the file's JSON entry.
fn sweep_file(args: &SweepArgs, path: &str, peers: Option<&Value>) -> Value {
    let name = Path::new(path).file_name().map_or(path.to_owned(), |n| n.to_string_lossy().into_owned());
    let mut entry = json!({"name": name, "file_bytes": std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)});
    let rg_rows = match row_group_rows(path) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{name}: {e}");
            entry["error"] = json!(e);
            return entry;
        }
    };
    let largest = rg_rows.iter().copied().max().unwrap_or(0);
    entry["row_group_rows"] = json!(rg_rows);
    let mut cells = cells_for(&args.batch_sizes, largest);

    let mut checks = Map::new();
    let (mut rows, mut value_bytes) = (None, None);
    for &b in &args.batch_sizes {
        let (ours, theirs) = if b == 0 { (usize::MAX, largest.max(1)) } else { (b, b) };
        let (v, sum) = check(path, ours, theirs);
        if let Some(s) = sum {
            rows.get_or_insert(s.rows);
            value_bytes.get_or_insert(s.value_bytes);
        }
        let ok = v["ok"].as_bool() == Some(true);
        eprintln!("{name:36} batch {:>9}  check {}", batch_key(b), if ok { "ok" } else { "MISMATCH" });
        checks.insert(batch_key(b), v);
    }
    entry["rows"] = json!(rows);
    entry["value_bytes"] = json!(value_bytes);
    entry["checks"] = Value::Object(checks);

    let load_before = memory::loadavg_1min();
    for k in 0..args.warmup + args.runs {
        for cell in cells.iter_mut().filter(|c| c.error.is_none()) {
            let (c0, t0) = (memory::cpu_seconds(), Instant::now());
            let result = cell.run(path);
            let (wall, cpu) = (t0.elapsed().as_secs_f64(), memory::cpu_seconds() - c0);
            // A collecting run's batches are freed here, after the clock stopped.
            match result {
                Ok(out) if rows.is_some_and(|r| r != out.rows) => {
                    cell.error = Some(format!("run {} read {} rows, the check {}", k + 1, out.rows, rows.unwrap_or(0)));
                }
                Ok(out) => {
                    cell.batches = out.batches;
                    if k >= args.warmup {
                        cell.times.push(wall);
                        cell.cpu.push(cpu);
                    }
                }
                Err(e) => cell.error = Some(format!("run {}: {e}", k + 1)),
            }
        }
    }
    entry["loadavg_1min_before_after"] = json!([load_before, memory::loadavg_1min()]);

    let peer = peers.and_then(|p| peer_entry(p, path));
    let mut results = Map::new();
    for cell in &cells {
        let v = if let Some(e) = &cell.error {
            json!({"error": e})
        } else {
            let m = median(&cell.times);
            json!({
                "median_s": m, "times_s": cell.times, "median_cpu_s": median(&cell.cpu),
                "batches": cell.batches,
                // usize::MAX would not survive a JSON reader that parses numbers as f64.
                "batch_size_rows": match cell.rows_per_batch {
                    Some(usize::MAX) => json!("unbounded (whole row groups)"),
                    n => json!(n.unwrap_or(DEFAULT_BATCH_SIZE)),
                },
                "gb_per_s": value_bytes.map(|b| b as f64 / m / 1e9),
                "rows_per_s": rows.map(|r| r as f64 / m),
            })
        };
        let line = match v["median_s"].as_f64() {
            Some(m) => format!("{:9.2} ms  {:7.3} GB/s", m * 1e3, v["gb_per_s"].as_f64().unwrap_or(f64::NAN)),
            None => format!("ERROR {}", v["error"].as_str().unwrap_or("")),
        };
        eprintln!("{name:36} batch {:>9}  {:24} {line}", cell.key, cell.name);
        let slot = results.entry(cell.key.clone()).or_insert_with(|| json!({}));
        slot[cell.name] = v;
    }
    if let Some(p) = peer {
        for (key, cell) in p["results"].as_object().into_iter().flatten() {
            let mut cell = cell.clone();
            if let (Some(r), Some(pr)) = (rows, cell["rows"].as_u64()) {
                cell["rows_ok"] = json!(r == pr);
            }
            // pyarrow's output against parquetry's, both checksummed at this batch size.
            let ours = &entry["checks"][key.as_str()]["checksum"];
            if !ours.is_null() && !cell["checksum"].is_null() {
                cell["checksum_ok"] = json!(*ours == cell["checksum"]);
            }
            if let (Some(b), Some(m)) = (value_bytes, cell["median_s"].as_f64()) {
                cell["gb_per_s"] = json!(b as f64 / m / 1e9);
            }
            results.entry(key.clone()).or_insert_with(|| json!({}))["pyarrow_stream"] = cell;
        }
    }
    add_ratios(&mut results);
    entry["results"] = Value::Object(results);
    entry
}

/// `peer time / parquetry time` for the same batch size and mode (> 1: parquetry is faster).
fn add_ratios(results: &mut Map<String, Value>) {
    const PAIRS: [(&str, &str, &str); 3] = [
        ("arrow_rs_stream", "parquetry_stream", "arrow_rs_over_parquetry_stream"),
        ("arrow_rs_collect", "parquetry_collect", "arrow_rs_over_parquetry_collect"),
        ("pyarrow_stream", "parquetry_stream", "pyarrow_over_parquetry_stream"),
    ];
    // Only a cell that ran without error and whose output was right has a time worth comparing.
    let good = |c: &Value| {
        c["error"].is_null() && c["rows_ok"].as_bool() != Some(false) && c["checksum_ok"].as_bool() != Some(false)
    };
    for slot in results.values_mut() {
        let mut ratios = Map::new();
        for (peer, ours, name) in PAIRS {
            let (p, o) = (&slot[peer], &slot[ours]);
            if let (true, Some(p), Some(o)) = (good(p) && good(o), p["median_s"].as_f64(), o["median_s"].as_f64()) {
                ratios.insert(name.into(), json!(p / o));
            }
        }
        if !ratios.is_empty() {
            slot["ratios"] = Value::Object(ratios);
        }
    }
}

/// The entry for `path` in sweep_peers.py's JSON (keys are paths as given to it).
fn peer_entry<'a>(peers: &'a Value, path: &str) -> Option<&'a Value> {
    let want = canonical(path);
    peers["files"].as_object()?.iter().find(|(k, _)| canonical(k) == want).map(|(_, v)| v)
}

fn write(path: Option<&str>, report: &Value) {
    if let Some(p) = path {
        let text = serde_json::to_string_pretty(report).expect("report JSON serializes");
        if let Err(e) = std::fs::write(p, text) {
            eprintln!("cannot write {p}: {e}");
            std::process::exit(1);
        }
    }
}

/// mimalloc reads its options once, when the process starts: without
/// `MIMALLOC_PURGE_DELAY=-1` it returns freed pages to the kernel after 10 ms, and whether a
/// run finds the previous run's output memory still mapped (or must have it zeroed again)
/// would depend on timing, not on the reader (see `cells::spawn_cell`). So the sweep re-runs
/// itself with the setting when the caller did not choose one.
fn reexec_with_purge_delay() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    let exe = std::env::current_exe().unwrap_or_else(|e| {
        eprintln!("cannot find the bench binary: {e}");
        std::process::exit(1);
    });
    let status = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env("MIMALLOC_PURGE_DELAY", "-1")
        .status()
        .unwrap_or_else(|e| {
            eprintln!("cannot re-run the bench binary: {e}");
            std::process::exit(1);
        });
    std::process::exit(status.code().unwrap_or(1));
}

/// Runs the sweep: progress on stderr, JSON to `--json`, the Markdown tables on stdout.
pub fn run(args: &SweepArgs) {
    reexec_with_purge_delay();
    let peers: Option<Value> = args.peers.as_ref().and_then(|p| {
        let v = std::fs::read_to_string(p).ok().and_then(|t| serde_json::from_str(&t).ok());
        if v.is_none() {
            eprintln!("note: cannot read pyarrow sweep results from {p}; the table will have no pyarrow");
        }
        v
    });
    let mut report = json!({
        "meta": {
            "tool": "parquetry-bench sweep",
            "started": now_utc(),
            "runs": args.runs, "warmup": args.warmup,
            "batch_sizes": args.batch_sizes.iter().map(|&b| batch_key(b)).collect::<Vec<_>>(),
            "impls": IMPLS, "default_impl": DEFAULT_IMPL,
            "arrow_rs_default_batch_size": DEFAULT_BATCH_SIZE,
            "file_order": args.files,
            "versions": {"arrow_rs_parquet": ARROW_RS_VERSION, "parquetry_git": git_revision()},
            "cpu": cpu_model(),
            "nproc": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            "peers": args.peers, "peers_meta": peers.as_ref().map(|p| p["meta"].clone()),
            "units": "seconds, bytes; gb_per_s = value_bytes / median_s / 1e9; \
                      ratios = peer median_s / parquetry median_s",
        },
        "files": {},
    });
    for path in &args.files {
        report["files"][path.as_str()] = sweep_file(args, path, peers.as_ref());
        write(args.json.as_deref(), &report);
    }
    report["meta"]["finished"] = json!(now_utc());
    write(args.json.as_deref(), &report);
    print!("{}", crate::sweep_table::markdown(&report));
}
