//! The `read` and `write` subcommands: every implementation × every file, one cell process
//! at a time (sequentially: the machine is shared), compared with the reference checksum
//! that bench/peers.py computed from pyarrow (for a write: of the input file, which the
//! written file must read back to); writes a JSON report shaped like peers.py's.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use crate::cells::{spawn_cell, CellArgs, Mode};
use crate::checksum::file_checksum;
use crate::limits;
use crate::read::{self, ARROW_RS_VERSION};

/// Options of `parquetry-bench read` and `parquetry-bench write`.
pub struct RunArgs {
    /// Read or write cells.
    pub mode: Mode,
    /// Parquet files.
    pub files: Vec<String>,
    /// Timed runs per cell.
    pub runs: usize,
    /// Untimed runs before them.
    pub warmup: usize,
    /// Implementations, in order.
    pub impls: Vec<String>,
    /// Where to write the JSON report.
    pub json: Option<String>,
    /// peers.py JSON with reference checksums.
    pub reference: String,
}

/// The reference of one file: checksum, value bytes and where they come from.
struct Reference {
    checksum: Value,
    value_bytes: u64,
    rows: u64,
    source: String,
}

fn canonical(p: &str) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| PathBuf::from(p))
}

/// Finds `file` in a peers.py report (keys are paths as given to peers.py).
fn reference_from_peers(peers: &Value, peers_path: &str, file: &str) -> Option<Reference> {
    let want = canonical(file);
    let (_, entry) = peers["files"].as_object()?.iter().find(|(k, _)| canonical(k) == want)?;
    Some(Reference {
        checksum: entry.get("checksum")?.clone(),
        value_bytes: entry.get("value_bytes")?.as_u64()?,
        rows: entry.get("rows")?.as_u64()?,
        source: format!("pyarrow pq.read_table, from {peers_path}"),
    })
}

/// No pyarrow reference: read the file with arrow-rs (untimed) and use its checksum.
fn reference_from_arrow_rs(file: &str) -> Result<Reference, String> {
    let batches = read::reference_read(file)?;
    let schema = batches.first().ok_or("the file has no batches")?.schema();
    let sum = file_checksum(&schema, &batches)?;
    Ok(Reference {
        checksum: sum.checksum,
        value_bytes: sum.value_bytes,
        rows: sum.rows,
        source: format!("arrow-rs {ARROW_RS_VERSION} (no pyarrow reference for this file)"),
    })
}

/// The current time, UTC, ISO 8601 (from `date`; seconds since the epoch if that fails).
pub fn now_utc() -> String {
    let out = std::process::Command::new("date").args(["-u", "+%Y-%m-%dT%H:%M:%SZ"]).output();
    match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_owned(),
        _ => format!(
            "unix {}",
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
        ),
    }
}

/// The CPU's model name from /proc/cpuinfo.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("model name"))?.split_once(':').map(|(_, m)| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// The checked-out commit, noting uncommitted changes to tracked files.
pub fn git_revision() -> String {
    let run = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    };
    match run(&["rev-parse", "--short", "HEAD"]) {
        Some(rev) => {
            let dirty = run(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{rev} + uncommitted changes")
            } else {
                rev
            }
        }
        None => "unknown".into(),
    }
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

fn cell_line(name: &str, imp: &str, cell: &Value) -> String {
    if let Some(e) = cell["error"].as_str() {
        let short: String = e.chars().take(110).collect();
        return format!("{name:36} {imp:20} ERROR {short}");
    }
    if let Some(s) = cell["skipped"].as_str() {
        return format!("{name:36} {imp:20} skipped: {s}");
    }
    let ok = match cell["checksum_ok"].as_bool() {
        Some(true) => "ok",
        Some(false) => "CHECKSUM MISMATCH",
        None => "",
    };
    let file = match cell["output_file_bytes"].as_f64() {
        Some(b) => format!(" file {:6.1} MB", b / 1e6),
        None => String::new(),
    };
    let mut encodings = match cell["encodings_ok"].as_bool() {
        Some(false) => " UNEXPECTED ENCODINGS",
        _ => "",
    }
    .to_owned();
    if cell["encoding_stats_match_pages"].as_bool() == Some(false) {
        encodings += " (encoding_stats differ from the page headers)";
    }
    format!(
        "{name:36} {imp:20} {:8.1} ms {:7.3} GB/s  peak +{:6.0} MiB{file} {ok}{encodings}",
        cell["median_s"].as_f64().unwrap_or(f64::NAN) * 1e3,
        cell["gb_per_s"].as_f64().unwrap_or(f64::NAN),
        cell["peak_rss_delta_bytes"].as_f64().unwrap_or(f64::NAN) / 1048576.0,
    )
}

/// Runs every cell and writes the report.
pub fn run(args: &RunArgs) {
    let peers: Option<Value> =
        std::fs::read_to_string(&args.reference).ok().and_then(|t| serde_json::from_str(&t).ok());
    if peers.is_none() {
        eprintln!("note: no reference checksums in {} (run bench/peers.py first); using arrow-rs's", args.reference);
    }
    let mut report = json!({
        "meta": {
            "tool": format!("parquetry-bench {}", args.mode.name()),
            "started": now_utc(),
            "runs": args.runs, "warmup": args.warmup, "impls": args.impls,
            "file_order": args.files,
            "versions": {"arrow_rs_parquet": ARROW_RS_VERSION, "parquetry_git": git_revision()},
            "cpu": cpu_model(),
            "nproc": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            "reference": args.reference,
            "units": "seconds, bytes; gb_per_s = value_bytes / median_s / 1e9",
        },
        "files": {},
    });
    for file in &args.files {
        let name = Path::new(file).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or(file.clone());
        let reference = peers
            .as_ref()
            .and_then(|p| reference_from_peers(p, &args.reference, file))
            .map(Ok)
            .unwrap_or_else(|| reference_from_arrow_rs(file));
        let mut entry = json!({
            "name": name,
            "file_bytes": std::fs::metadata(file).map(|m| m.len()).unwrap_or(0),
            "results": {},
        });
        let reference = match reference {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{name}: no reference checksum: {e}");
                entry["error"] = json!(format!("no reference checksum: {e}"));
                report["files"][file.as_str()] = entry;
                write(args.json.as_deref(), &report);
                continue;
            }
        };
        entry["rows"] = json!(reference.rows);
        entry["value_bytes"] = json!(reference.value_bytes);
        entry["checksum"] = reference.checksum.clone();
        entry["reference_source"] = json!(reference.source);
        if args.mode == Mode::Read {
            match limits::largest_page(file) {
                Ok(n) => entry["largest_page_bytes"] = json!(n),
                Err(e) => entry["largest_page_error"] = json!(e),
            }
        }
        report["files"][file.as_str()] = entry;
        for imp in &args.impls {
            let mut cell = spawn_cell(&CellArgs {
                mode: args.mode,
                imp: imp.clone(),
                file: file.clone(),
                runs: args.runs,
                warmup: args.warmup,
                value_bytes: reference.value_bytes,
            });
            if let Some(obj) = cell.as_object_mut() {
                annotate(obj, &reference);
            }
            println!("{}", cell_line(&name, imp, &cell));
            report["files"][file.as_str()]["results"][imp.as_str()] = cell;
            write(args.json.as_deref(), &report);
        }
    }
    report["meta"]["finished"] = json!(now_utc());
    write(args.json.as_deref(), &report);
}

/// Adds GB/s and the checks against the reference to a finished cell.
fn annotate(cell: &mut Map<String, Value>, reference: &Reference) {
    if cell.contains_key("error") || cell.contains_key("skipped") {
        return;
    }
    if let Some(m) = cell.get("median_s").and_then(Value::as_f64) {
        cell.insert("gb_per_s".into(), json!(reference.value_bytes as f64 / m / 1e9));
    }
    if let Some(sum) = cell.get("checksum") {
        let ok = *sum == reference.checksum;
        cell.insert("checksum_ok".into(), json!(ok));
        cell.insert("rows_ok".into(), json!(cell.get("rows").and_then(Value::as_u64) == Some(reference.rows)));
    } else if let Some(e) = cell.get("checksum_error").cloned() {
        cell.insert("checksum_ok".into(), json!(false));
        cell.insert("checksum_note".into(), e);
    }
}
