//! The floor of a whole-file read over S3 (`bench/s3_floor.py`): the same requests as
//! parquetry's read, through parquetry's own object store path (`store::open_url` and
//! `ObjectSource::prefetch`), with nothing decoded; and, to compare in the same process, the
//! whole read decoded from the URL and from the local file.
//!
//! `s3_fetch JSON` with `{"url", "endpoint", "ranges": [[offset, len], ...], "runs", "mode",
//! "file", "condition", "columns", "gap"}`; `mode` is `fetch` (open the object, name `ranges`
//! to the source as the reader names a read's row groups, then wait for every byte of them),
//! `read` (the read from the URL, one decoding thread: `columns` (all when absent) where
//! `condition` (a filter's text, none when empty), ranges closer than `gap` bytes fetched as
//! one, 1 MiB when absent) or `local` (the same read from `file`). Prints a JSON line: each
//! run's milliseconds and CPU milliseconds of the process (all its threads), the bytes and
//! requests of the last run, and the rows it gave.

use std::time::Instant;

use parquetry::page::ChunkSource;
use parquetry::read::{ParquetReaderBuilder, ReadOptions};
use parquetry::store::{open_url, open_url_with, FetchOptions, StorageOptions};
use serde_json::{json, Value};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// CPU time of the whole process so far (user + system, every thread), in milliseconds.
fn cpu_ms() -> f64 {
    // SAFETY: getrusage writes into the zeroed struct it is given and reads nothing else.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    ms(usage.ru_utime) + ms(usage.ru_stime)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let arg: Value = serde_json::from_str(&std::env::args().nth(1).ok_or("usage: s3_fetch JSON")?)?;
    let text = |k: &str| arg[k].as_str().unwrap_or_default().to_owned();
    let (url, mode, file) = (text("url"), text("mode"), text("file"));
    let runs = arg["runs"].as_u64().unwrap_or(5) as usize;
    let ranges: Vec<(u64, u64)> = arg["ranges"]
        .as_array()
        .map(|a| a.iter().map(|r| (r[0].as_u64().unwrap_or(0), r[1].as_u64().unwrap_or(0))).collect())
        .unwrap_or_default();
    let options = options_for(&arg);
    let (mut times, mut cpus) = (Vec::new(), Vec::new());
    let (mut requests, mut bytes, mut rows) = (0, 0, 0);
    // One warm-up run (the runtime started, connections made), then the timed ones.
    for run in 0..=runs {
        let (start, cpu) = (Instant::now(), cpu_ms());
        match mode.as_str() {
            "fetch" => {
                let file = open_url(&url, &options)?;
                let source = file.source();
                source.prefetch(&ranges);
                for &(offset, len) in &ranges {
                    let got = source.read_at(offset, len as usize)?;
                    assert_eq!(got.len() as u64, len);
                }
                (requests, bytes) = (source.stats().requests(), source.stats().bytes());
            }
            "read" | "local" => {
                let mut read = ReadOptions::default().with_threads(1);
                let condition = text("condition");
                if !condition.is_empty() {
                    read = read.with_filter(parquetry::filter::parse(&condition)?);
                }
                if let Some(columns) = arg["columns"].as_array() {
                    read = read.with_columns(columns.iter().filter_map(Value::as_str));
                }
                let mut fetch = FetchOptions::default();
                if let Some(gap) = arg["gap"].as_u64() {
                    fetch.coalesce_gap = gap;
                }
                let reader = match mode.as_str() {
                    "read" => {
                        let file = open_url_with(&url, &options, fetch)?;
                        let stats = file.source().stats();
                        let reader = ParquetReaderBuilder::new(file).with_options(read).build()?;
                        rows = reader.map(|b| b.map(|b| b.num_rows())).sum::<Result<usize, _>>()?;
                        (requests, bytes) = (stats.requests(), stats.bytes());
                        None
                    }
                    _ => Some(ParquetReaderBuilder::open(&file)?.with_options(read).build()?),
                };
                if let Some(reader) = reader {
                    rows = reader.map(|b| b.map(|b| b.num_rows())).sum::<Result<usize, _>>()?;
                }
            }
            other => return Err(format!("unknown mode {other}").into()),
        }
        if run > 0 {
            times.push(start.elapsed().as_secs_f64() * 1e3);
            cpus.push(cpu_ms() - cpu);
        }
    }
    println!("{}", json!({"times_ms": times, "cpu_ms": cpus, "requests": requests, "bytes": bytes, "rows": rows}));
    Ok(())
}

/// The storage options of the benchmark's store (the proxy or moto at `endpoint`).
fn options_for(arg: &Value) -> StorageOptions {
    StorageOptions::new()
        .with("aws_endpoint_url", arg["endpoint"].as_str().unwrap_or_default())
        .with("aws_access_key_id", "test")
        .with("aws_secret_access_key", "test")
        .with("aws_region", "us-east-1")
        .with("allow_http", "true")
}
