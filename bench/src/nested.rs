//! `parquetry-bench nested`: reading nested columns (lists, structs) at every batch size,
//! parquetry against arrow-rs in one process, streaming and collecting.
//!
//! Each round runs every (batch size, implementation) cell once, in order, so slow drifts of
//! the machine hit every cell alike; the report is the median of the timed rounds. Before
//! timing, both readers' collected tables are compared column by column (values, nulls and
//! list shapes, with field names set aside: arrow-rs names map entries after the Parquet
//! group, pyarrow and parquetry `entries`); a mismatch is printed and fails the cell.

use std::time::Instant;

use arrow_array::{Array, ArrayRef, RecordBatch};
use serde_json::{json, Value};

use crate::sweep_cells::{parquetry_options, run_arrow_rs, run_parquetry, ArrowRsSpec, Outcome};

/// The batch sizes, in rows (0: whole row groups).
pub const BATCH_SIZES: [usize; 4] = [1024, 8192, 65536, 0];

/// The cells of each batch size.
const IMPLS: [&str; 4] = ["parquetry_stream", "arrow_rs_stream", "parquetry_collect", "arrow_rs_collect"];

/// What `nested` runs.
pub struct NestedArgs {
    pub files: Vec<String>,
    pub runs: usize,
    pub warmup: usize,
    pub json: Option<String>,
    /// Time parquetry alone, without the comparison (for profiling).
    pub parquetry_only: bool,
}

fn row_group_rows(path: &str) -> usize {
    let file = parquetry::read::ParquetFile::open(path).expect("open");
    file.metadata().row_groups.iter().map(|rg| rg.num_rows.max(0) as usize).max().unwrap_or(1).max(1)
}

fn run(imp: &str, path: &str, batch: usize) -> Result<Outcome, String> {
    let collect = imp.ends_with("collect");
    if imp.starts_with("parquetry") {
        run_parquetry(path, &parquetry_options(batch, 1), collect)
    } else {
        let spec = ArrowRsSpec { rows_per_batch: Some(batch), selection: None, page_index: false };
        run_arrow_rs(path, &spec, collect)
    }
}

/// The first difference between two readers' batches, column by column, ignoring names.
fn compare(a: &[RecordBatch], b: &[RecordBatch]) -> Option<String> {
    let concat = |batches: &[RecordBatch], i: usize| -> ArrayRef {
        let parts: Vec<&dyn Array> = batches.iter().map(|b| b.column(i).as_ref()).collect();
        arrow_select::concat::concat(&parts).expect("concat")
    };
    let columns = a.first().map_or(0, |b| b.num_columns());
    for i in 0..columns {
        let (x, y) = (concat(a, i), concat(b, i));
        if x.len() != y.len() {
            return Some(format!("column {i}: {} vs {} rows", x.len(), y.len()));
        }
        let (sx, sy) = (unnamed(&x).join("\n"), unnamed(&y).join("\n"));
        if sx != sy {
            let at = sx.bytes().zip(sy.bytes()).position(|(p, q)| p != q).unwrap_or(0);
            let lo = at.saturating_sub(80);
            return Some(format!(
                "column {i} differs near …{}… vs …{}…",
                &sx[lo..(at + 80).min(sx.len())],
                &sy[lo..(at + 80).min(sy.len())]
            ));
        }
    }
    None
}

/// The array's values as text, one per row, without field names.
fn unnamed(array: &ArrayRef) -> Vec<String> {
    (0..array.len()).map(|i| value_text(array, i)).collect()
}

fn value_text(a: &ArrayRef, i: usize) -> String {
    use arrow_array::cast::AsArray;
    use arrow_schema::DataType as D;
    if a.is_null(i) {
        return "null".into();
    }
    match a.data_type() {
        D::List(_) => {
            let l = a.as_list::<i32>();
            let o = l.value_offsets();
            let items: Vec<String> = (o[i] as usize..o[i + 1] as usize).map(|j| value_text(l.values(), j)).collect();
            format!("[{}]", items.join(","))
        }
        D::Struct(_) => {
            let s = a.as_struct();
            let items: Vec<String> = s.columns().iter().map(|c| value_text(c, i)).collect();
            format!("{{{}}}", items.join(","))
        }
        D::Utf8 => a.as_string::<i32>().value(i).to_owned(),
        _ => format!("{:?}", a.slice(i, 1)),
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs the benchmark and prints a Markdown table (arrow-rs ms ÷ parquetry ms per cell).
pub fn main(args: &NestedArgs) {
    let mut report = serde_json::Map::new();
    println!("| file | mode | 1,024 | 8,192 | 65,536 | row group |");
    println!("|---|---|---:|---:|---:|---:|");
    for path in &args.files {
        let rg = row_group_rows(path);
        let sizes: Vec<usize> = BATCH_SIZES.iter().map(|&b| if b == 0 { rg } else { b }).collect();
        if args.parquetry_only {
            for _ in 0..args.warmup + args.runs {
                for &b in &sizes {
                    drop(run("parquetry_stream", path, b).expect("parquetry"));
                }
            }
            continue;
        }
        // Correctness first: both readers' whole tables must agree.
        let ours = run("parquetry_collect", path, 65536).map(|o| o.kept);
        let theirs = run("arrow_rs_collect", path, 65536).map(|o| o.kept);
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) => {
                if let Some(d) = compare(a, b) {
                    eprintln!("{path}: parquetry and arrow-rs differ: {d}");
                    std::process::exit(1);
                }
            }
            (a, b) => {
                eprintln!("{path}: a reader failed: {:?} / {:?}", a.as_ref().err(), b.as_ref().err());
                std::process::exit(1);
            }
        }
        drop((ours, theirs));
        let mut times: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); IMPLS.len()]; sizes.len()];
        for round in 0..args.warmup + args.runs {
            for (si, &b) in sizes.iter().enumerate() {
                for (ii, imp) in IMPLS.iter().enumerate() {
                    let t = Instant::now();
                    let out = run(imp, path, b).unwrap_or_else(|e| panic!("{imp} {path}: {e}"));
                    let ms = t.elapsed().as_secs_f64() * 1e3;
                    drop(out);
                    if round >= args.warmup {
                        times[si][ii].push(ms);
                    }
                }
            }
        }
        let mut file_json = serde_json::Map::new();
        for (mode, ours, theirs) in [("stream", 0, 1), ("collect", 2, 3)] {
            let mut cells = Vec::new();
            for (si, size) in BATCH_SIZES.iter().enumerate() {
                let p = median(&mut times[si][ours]);
                let a = median(&mut times[si][theirs]);
                cells.push(format!("{p:.1} / {a:.1} ({:.2}x)", a / p));
                let key = if *size == 0 { "row_group".to_owned() } else { size.to_string() };
                file_json.insert(format!("{mode}_{key}"), json!({"parquetry_ms": p, "arrow_rs_ms": a, "ratio": a / p}));
            }
            let name = std::path::Path::new(path).file_name().map_or(path.clone(), |n| n.to_string_lossy().into_owned());
            println!("| {name} | {mode} | {} |", cells.join(" | "));
        }
        report.insert(path.clone(), Value::Object(file_json));
    }
    if let Some(out) = &args.json {
        std::fs::write(out, serde_json::to_string_pretty(&Value::Object(report)).expect("json")).expect("write json");
    }
}
