//! `parquetry-bench nested`: reading nested columns (lists, structs) at every batch size,
//! parquetry against arrow-rs in one process, streaming and collecting; and writing them
//! back from Arrow batches in memory (the file's whole row groups, read once by parquetry)
//! with the input's settings, set explicitly on both sides (`write_spec.rs`: codec and zstd
//! level, dictionary, 1 MiB / 20,000-row pages, row groups, page statistics and index, v1).
//!
//! Each round runs every (file, batch size, implementation) cell once, in order, so slow
//! drifts of the machine hit every cell alike; the report is the median of the timed rounds.
//! In each round, each file's cells follow one untimed read of that file.
//! A `struct_X` file read beside its `strings_X` file (the same columns, flat) also gets a
//! table of parquetry's struct time ÷ its flat time. Before
//! timing, both readers' collected tables are compared column by column (values, nulls and
//! list shapes, with field names set aside: arrow-rs names map entries after the Parquet
//! group, pyarrow and parquetry `entries`); a mismatch is printed and fails the cell.

use std::time::Instant;

use arrow_array::{Array, ArrayRef, RecordBatch};
use serde_json::{json, Value};

use crate::sweep_cells::{parquetry_options, run_arrow_rs, run_parquetry, ArrowRsSpec, Outcome};
use crate::write_spec::WriteSpec;

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
    /// Run parquetry alone, without the comparison (for profiling).
    pub parquetry_only: bool,
    /// With `parquetry_only`: only its writes, or only its reads.
    pub writes_only: bool,
    pub reads_only: bool,
    /// With `parquetry_only` reads: keep every batch, as the collect cells do.
    pub collect: bool,
    /// Only these batch sizes (0: whole row groups), for profiling one cell.
    pub batch_sizes: Option<Vec<usize>>,
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

/// The batches and settings a write cell writes.
struct WriteInput {
    batches: Vec<RecordBatch>,
    spec: WriteSpec,
}

fn write_input(path: &str) -> Result<WriteInput, String> {
    let file = parquetry::read::ParquetFile::open(path).map_err(|e| e.to_string())?;
    let spec = WriteSpec::from_footer(file.metadata())?;
    let options = parquetry::read::ReadOptions::default().with_batch_size(usize::MAX);
    let batches =
        crate::read::read_all(parquetry::read::ParquetReaderBuilder::new(file), &options).map_err(|e| e.to_string())?;
    Ok(WriteInput { batches, spec })
}

/// Writes the input into `buf` with parquetry or arrow-rs.
fn write(imp: &str, input: &WriteInput, buf: &mut Vec<u8>) -> Result<(), String> {
    buf.clear();
    let schema = input.batches.first().ok_or("no rows")?.schema();
    if imp == "parquetry_write" {
        let mut w = parquetry::write::ParquetWriter::try_new(&mut *buf, schema, input.spec.parquetry())
            .map_err(|e| e.to_string())?;
        for b in &input.batches {
            w.write(b).map_err(|e| e.to_string())?;
        }
        w.close().map_err(|e| e.to_string())?;
    } else {
        let props = input.spec.arrow_rs()?;
        let mut w = parquet::arrow::ArrowWriter::try_new(&mut *buf, schema, Some(props)).map_err(|e| e.to_string())?;
        for b in &input.batches {
            w.write(b).map_err(|e| e.to_string())?;
        }
        w.close().map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Times the two writers on `path`; a written file must read back (parquetry) to the input.
fn time_writes(path: &str, args: &NestedArgs) -> Result<(f64, f64, usize, usize), String> {
    let input = write_input(path)?;
    let mut bufs = [Vec::new(), Vec::new()];
    for (imp, buf) in ["parquetry_write", "arrow_rs_write"].iter().zip(bufs.iter_mut()) {
        write(imp, &input, buf)?;
        let back = parquetry::read::ParquetFile::from_bytes(arrow_buffer::Buffer::from(buf.as_slice()))
            .and_then(|f| {
                let reader = parquetry::read::ParquetReaderBuilder::new(f);
                crate::read::read_all(reader, &parquetry::read::ReadOptions::default())
            })
            .map_err(|e| format!("{imp}: reading the written file back: {e}"))?;
        if let Some(d) = compare(&back, &input.batches) {
            return Err(format!("{imp}: the written file reads back different: {d}"));
        }
    }
    let mut times = [Vec::new(), Vec::new()];
    for round in 0..args.warmup + args.runs {
        for (i, imp) in ["parquetry_write", "arrow_rs_write"].iter().enumerate() {
            let t = Instant::now();
            write(imp, &input, &mut bufs[i])?;
            if round >= args.warmup {
                times[i].push(t.elapsed().as_secs_f64() * 1e3);
            }
        }
    }
    let [p, a] = &mut times;
    Ok((median(p), median(a), bufs[0].len(), bufs[1].len()))
}

/// For each `struct_X` file read beside `strings_X`: parquetry's median time on the struct
/// ÷ on the flat columns, per mode and batch size (≤ 1: the struct is no slower).
fn struct_vs_flat(compared: &[(String, Vec<usize>)], times: &[Vec<Vec<Vec<f64>>>]) {
    let name = |p: &str| std::path::Path::new(p).file_name().map_or(p.to_owned(), |n| n.to_string_lossy().into_owned());
    let mut lines = Vec::new();
    for (si, (path, _)) in compared.iter().enumerate() {
        let Some(rest) = name(path).strip_prefix("struct_").map(str::to_owned) else {
            continue;
        };
        let Some(fi) = compared.iter().position(|(p, _)| name(p) == format!("strings_{rest}")) else {
            continue;
        };
        for (mode, imp) in [("stream", 0), ("collect", 2)] {
            let cells: Vec<String> = (0..BATCH_SIZES.len())
                .map(|b| {
                    let (mut s, mut f) = (times[si][b][imp].clone(), times[fi][b][imp].clone());
                    format!("{:.2}", median(&mut s) / median(&mut f))
                })
                .collect();
            lines.push(format!("| struct_{rest} ÷ strings_{rest} | {mode} | {} |", cells.join(" | ")));
        }
    }
    if !lines.is_empty() {
        println!("\nparquetry on a struct of the strings columns ÷ on the same columns flat:\n");
        println!("| files | mode | 1,024 | 8,192 | 65,536 | row group |");
        println!("|---|---|---:|---:|---:|---:|");
        for line in lines {
            println!("{line}");
        }
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs the benchmark and prints a Markdown table (arrow-rs ms ÷ parquetry ms per cell).
pub fn main(args: &NestedArgs) {
    let mut report = serde_json::Map::new();
    let mut writes = Vec::new();
    println!("Reading: median ms parquetry / arrow-rs (arrow-rs ÷ parquetry)\n");
    println!("| file | mode | 1,024 | 8,192 | 65,536 | row group |");
    println!("|---|---|---:|---:|---:|---:|");
    let mut compared: Vec<(String, Vec<usize>)> = Vec::new();
    for path in &args.files {
        let rg = row_group_rows(path);
        let sizes: Vec<usize> = BATCH_SIZES.iter().map(|&b| if b == 0 { rg } else { b }).collect();
        if args.parquetry_only {
            let imp = if args.collect { "parquetry_collect" } else { "parquetry_stream" };
            let only: Vec<usize> = match &args.batch_sizes {
                Some(list) => list.iter().map(|&b| if b == 0 { rg } else { b }).collect(),
                None => sizes.clone(),
            };
            let input = (!args.reads_only).then(|| write_input(path).expect("input"));
            let mut buf = Vec::new();
            let mut read_ms = vec![Vec::new(); only.len()];
            let mut write_ms = Vec::new();
            for round in 0..args.warmup + args.runs {
                if !args.writes_only {
                    for (i, &b) in only.iter().enumerate() {
                        let t = Instant::now();
                        drop(run(imp, path, b).expect("parquetry"));
                        if round >= args.warmup {
                            read_ms[i].push(t.elapsed().as_secs_f64() * 1e3);
                        }
                    }
                }
                if let Some(input) = &input {
                    let t = Instant::now();
                    write("parquetry_write", input, &mut buf).expect("parquetry write");
                    if round >= args.warmup {
                        write_ms.push(t.elapsed().as_secs_f64() * 1e3);
                    }
                }
            }
            // Medians, to see a change's effect while profiling (no comparison here).
            for (b, ms) in only.iter().zip(&mut read_ms).filter(|(_, ms)| !ms.is_empty()) {
                eprintln!("{path}: {imp} batch {b}: {:.1} ms", median(ms));
            }
            if !write_ms.is_empty() {
                eprintln!("{path}: parquetry_write: {:.1} ms", median(&mut write_ms));
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
        compared.push((path.clone(), sizes));
    }
    // Every file's cells in each round, so that a drift of the machine hits every file alike
    // (a struct of the strings columns is compared with the flat strings file this way).
    let mut times: Vec<Vec<Vec<Vec<f64>>>> =
        compared.iter().map(|(_, sizes)| vec![vec![Vec::new(); IMPLS.len()]; sizes.len()]).collect();
    for round in 0..args.warmup + args.runs {
        for ((path, sizes), file_times) in compared.iter().zip(times.iter_mut()) {
            // One untimed read first: the first timed cell after another file's whole-table
            // collect paid for that memory's return (1,024-row reads 64 → 90 ms).
            drop(run("parquetry_stream", path, 65536));
            for (si, &b) in sizes.iter().enumerate() {
                for (ii, imp) in IMPLS.iter().enumerate() {
                    let t = Instant::now();
                    let out = run(imp, path, b).unwrap_or_else(|e| panic!("{imp} {path}: {e}"));
                    let ms = t.elapsed().as_secs_f64() * 1e3;
                    drop(out);
                    if round >= args.warmup {
                        file_times[si][ii].push(ms);
                    }
                }
            }
        }
    }
    for ((path, _), file_times) in compared.iter().zip(times.iter_mut()) {
        let name = std::path::Path::new(path).file_name().map_or(path.clone(), |n| n.to_string_lossy().into_owned());
        let mut file_json = serde_json::Map::new();
        for (mode, ours, theirs) in [("stream", 0, 1), ("collect", 2, 3)] {
            let mut cells = Vec::new();
            for (si, size) in BATCH_SIZES.iter().enumerate() {
                let p = median(&mut file_times[si][ours]);
                let a = median(&mut file_times[si][theirs]);
                cells.push(format!("{p:.1} / {a:.1} ({:.2}x)", a / p));
                let key = if *size == 0 { "row_group".to_owned() } else { size.to_string() };
                file_json.insert(format!("{mode}_{key}"), json!({"parquetry_ms": p, "arrow_rs_ms": a, "ratio": a / p}));
            }
            println!("| {name} | {mode} | {} |", cells.join(" | "));
        }
        match time_writes(path, args) {
            Ok((p, a, p_size, a_size)) => {
                file_json.insert(
                    "write".into(),
                    json!({"parquetry_ms": p, "arrow_rs_ms": a, "ratio": a / p,
                    "parquetry_bytes": p_size, "arrow_rs_bytes": a_size}),
                );
                writes.push(format!(
                    "| {name} | {p:.1} | {a:.1} | {:.2}x | {:.3} |",
                    a / p,
                    p_size as f64 / a_size as f64
                ));
            }
            Err(e) => {
                eprintln!("{path}: writes: {e}");
                file_json.insert("write".into(), json!({"error": e}));
            }
        }
        report.insert(path.clone(), Value::Object(file_json));
    }
    struct_vs_flat(&compared, &times);
    println!("\nWriting the file's rows from Arrow (whole row groups), its settings on both sides:\n");
    println!("| file | parquetry ms | arrow-rs ms | arrow-rs ÷ parquetry | size ÷ arrow-rs's |");
    println!("|---|---:|---:|---:|---:|");
    for line in &writes {
        println!("{line}");
    }
    if let Some(out) = &args.json {
        std::fs::write(out, serde_json::to_string_pretty(&Value::Object(report)).expect("json")).expect("write json");
    }
}
