//! Cells: one implementation × one file, each in its own process (the bench binary re-run
//! with the hidden `cell` subcommand), so that peak memory belongs to that cell and a crash
//! or panic in one implementation is recorded and does not stop the run.
//!
//! A cell sets up, resets its peak RSS, does `warmup` untimed and `runs` timed runs (dropping
//! each output before the next run), records its peak RSS and each run's peak of live heap
//! bytes (`heap`), and then, outside the timed region, checksums the last output (for a
//! write, the file it wrote, read back with parquetry). It prints one JSON line on stdout.

use std::io::Read;
use std::process::{Child, Command, Output as ProcessOutput, Stdio};
use std::time::Duration;
use std::time::Instant;

use serde_json::{json, Map, Value};

use crate::checksum::file_checksum;
use crate::read::{self, NotRun, Output};
use crate::{heap, memory, write};

/// What the cells of a run measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Reading a Parquet file into Arrow (`read.rs`).
    Read,
    /// Writing Arrow batches held in memory as a Parquet file in memory (`write.rs`).
    Write,
}

impl Mode {
    /// The subcommand's name.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Read => "read",
            Mode::Write => "write",
        }
    }

    /// The mode named `name`.
    pub fn parse(name: &str) -> Option<Mode> {
        [Mode::Read, Mode::Write].into_iter().find(|m| m.name() == name)
    }
}

/// What a cell is asked to do.
pub struct CellArgs {
    /// Read or write.
    pub mode: Mode,
    /// Implementation name (`read::IMPLS` or `write::IMPLS`).
    pub imp: String,
    /// The Parquet file.
    pub file: String,
    /// Timed runs.
    pub runs: usize,
    /// Untimed runs before them.
    pub warmup: usize,
    /// The file's value bytes (sizes the memcpy limit).
    pub value_bytes: u64,
}

/// The `cell` subcommand: runs the cell in this process and prints its JSON line.
pub fn cell_main(args: &CellArgs) {
    let out = run_cell_here(args);
    println!("{}", serde_json::to_string(&out).expect("cell JSON serializes"));
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s.get(s.len() / 2).copied().unwrap_or(f64::NAN)
}

fn run_cell_here(args: &CellArgs) -> Value {
    let prepared = match args.mode {
        Mode::Read => read::prepare(&args.imp, &args.file, args.value_bytes),
        Mode::Write => write::prepare(&args.imp, &args.file, args.value_bytes),
    };
    let mut prepared = match prepared {
        Ok(p) => p,
        Err(NotRun::Skipped(why)) => return json!({"skipped": why}),
        Err(NotRun::Failed(e)) => return json!({"error": e}),
    };
    let rss_setup = memory::status_bytes("VmRSS");
    let hwm_setup = memory::status_bytes("VmHWM");
    let reset = memory::reset_peak_rss();
    let (mut times, mut cpu, mut faults) = (Vec::new(), Vec::new(), Vec::new());
    let mut peak_heap = 0usize;
    let load_before = memory::loadavg_1min();
    let mut last: Option<Output> = None;
    for k in 0..args.warmup + args.runs.max(1) {
        drop(last.take()); // drop the previous output before the next read, as peers.py does
        let c0 = memory::cpu_seconds();
        let f0 = memory::minor_faults();
        let heap0 = heap::live();
        heap::reset_peak();
        let t0 = Instant::now();
        let result = (prepared.run)();
        let wall = t0.elapsed().as_secs_f64();
        let c1 = memory::cpu_seconds();
        let f1 = memory::minor_faults();
        peak_heap = peak_heap.max(heap::peak().saturating_sub(heap0));
        match result {
            Ok(out) => last = Some(std::hint::black_box(out)),
            Err(e) => {
                let when = if k < args.warmup { "warm-up" } else { "timed" };
                return json!({"error": e, "failed_run": format!("{when} run {}", k + 1), "impl_info": prepared.info});
            }
        }
        if k >= args.warmup {
            times.push(wall);
            cpu.push(c1 - c0);
            faults.push(f1 - f0);
        }
    }
    let load_after = memory::loadavg_1min();
    let peak = memory::status_bytes("VmHWM");
    let mut cell = json!({
        "impl_info": prepared.info,
        "times_s": times,
        "median_s": median(&times),
        "cpu_times_s": cpu,
        "median_cpu_s": median(&cpu),
        "minor_faults": faults,
        "loadavg_1min_before_after": [load_before, load_after],
        "rss_after_setup_bytes": rss_setup,
        "peak_rss_bytes": peak.max(hwm_setup),
        "peak_rss_delta_bytes": peak.saturating_sub(rss_setup),
        "peak_rss_reset_after_setup": reset,
        "peak_heap_delta_bytes": peak_heap,
    });
    let obj = cell.as_object_mut().expect("cell is an object");
    match last {
        Some(Output::Batches(batches)) => {
            let schema = match batches.first() {
                Some(b) => b.schema(),
                None => return json!({"error": "the read returned no batches", "impl_info": obj["impl_info"]}),
            };
            let types: Map<String, Value> =
                schema.fields().iter().map(|f| (f.name().clone(), json!(f.data_type().to_string()))).collect();
            obj.insert("output_types".into(), Value::Object(types));
            obj.insert("batches".into(), json!(batches.len()));
            let output_bytes: usize = batches.iter().map(|b| b.get_array_memory_size()).sum();
            obj.insert("output_bytes".into(), json!(output_bytes));
            match file_checksum(&schema, &batches) {
                Ok(sum) => {
                    obj.insert("rows".into(), json!(sum.rows));
                    obj.insert("output_value_bytes".into(), json!(sum.value_bytes));
                    obj.insert("checksum".into(), sum.checksum);
                }
                Err(e) => {
                    obj.insert("checksum_error".into(), json!(e));
                }
            }
        }
        Some(Output::Bytes(n)) => {
            obj.insert("bytes_moved".into(), json!(n));
        }
        Some(Output::File(sink)) => {
            let checks = write::validate(&sink.borrow(), &obj["impl_info"]);
            obj.extend(checks);
        }
        None => unreachable!("at least one run"),
    }
    cell
}

/// A cell that runs longer than this is killed and recorded as an error (a reader that
/// loops forever must not stop the whole benchmark).
const CELL_TIMEOUT_S: u64 = 1800;

/// Waits for `child`, reading its output on threads; `None` if it was killed for taking
/// longer than [`CELL_TIMEOUT_S`].
fn wait_with_timeout(mut child: Child) -> Option<ProcessOutput> {
    fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            buf
        })
    }
    let (out, err) = (drain(child.stdout.take()), drain(child.stderr.take()));
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() < Duration::from_secs(CELL_TIMEOUT_S) => {
                std::thread::sleep(Duration::from_millis(20))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let (stdout, stderr) = (out.join().unwrap_or_default(), err.join().unwrap_or_default());
    status.map(|status| ProcessOutput { status, stdout, stderr })
}

/// Runs one cell in a child process and returns its JSON (or `{"error": ..}`).
pub fn spawn_cell(args: &CellArgs) -> Value {
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => return json!({"error": format!("cannot find the bench binary: {e}")}),
    };
    let child = Command::new(exe)
        .args(["cell", "--mode", args.mode.name(), "--impl", &args.imp, "--file", &args.file])
        .args(["--runs", &args.runs.to_string(), "--warmup", &args.warmup.to_string()])
        .args(["--value-bytes", &args.value_bytes.to_string()])
        .env("RUST_BACKTRACE", "0")
        // mimalloc returns freed pages to the kernel 10 ms after a free by default; whether an
        // implementation's output of the previous run was already returned (and must be
        // zeroed again) then depends on timing, not on the reader. Keeping freed memory, as
        // pyarrow's pool does, makes every run measure the reader alone.
        .env("MIMALLOC_PURGE_DELAY", std::env::var("MIMALLOC_PURGE_DELAY").unwrap_or_else(|_| "-1".into()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let output = match child.map(wait_with_timeout) {
        Ok(Some(o)) => o,
        Ok(None) => return json!({"error": format!("timed out after {CELL_TIMEOUT_S} s (killed)")}),
        Err(e) => return json!({"error": format!("cannot start the cell process: {e}")}),
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        // A panic: keep its message (the lines after "panicked at"), not the backtrace note.
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.starts_with("note:")).collect();
        let msg = lines.iter().rev().take(2).rev().cloned().collect::<Vec<_>>().join(" ");
        let msg = if msg.is_empty() { format!("exit status {}", output.status) } else { msg };
        let tail: String = stderr.chars().rev().take(4000).collect::<Vec<_>>().into_iter().rev().collect();
        return json!({"error": format!("crashed ({}): {msg}", output.status), "stderr": tail});
    }
    match stdout.lines().last().map(serde_json::from_str::<Value>) {
        Some(Ok(v)) => v,
        _ => {
            json!({"error": "unreadable cell output", "stdout": stdout.chars().take(2000).collect::<String>()})
        }
    }
}
