//! Shared by the `filter_parquetry` and `filter_arrow_rs` examples (driven by
//! `bench/filter_bench.py`): the query given as one JSON argument, the timing loop, the
//! bytes the process read, and the checksum of the result, which the Python driver
//! computes the same way for every other engine.

use std::time::Instant;

use arrow_array::cast::AsArray;
use arrow_array::types::{Date32Type, Decimal128Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use serde_json::{json, Value};

/// One query: the file, how many timed runs, the columns to return (None: all; empty: a
/// count), the condition as text (parquetry) and as a list of leaf tests ANDed (arrow-rs).
#[allow(dead_code)] // each example reads the fields it needs
pub struct Query {
    pub file: String,
    pub runs: usize,
    pub columns: Option<Vec<String>>,
    pub condition: String,
    pub leaves: Vec<Value>,
    /// Rows per batch (8,192 unless the query says).
    pub batch_size: usize,
}

/// The query from the first command-line argument (JSON).
pub fn query_from_args() -> Result<Query, Box<dyn std::error::Error>> {
    let arg = std::env::args().nth(1).ok_or("usage: EXAMPLE '{\"file\":..., \"runs\":..., ...}'")?;
    let v: Value = serde_json::from_str(&arg)?;
    let columns = match &v["columns"] {
        Value::Null => None,
        Value::Array(a) => Some(a.iter().map(|c| c.as_str().unwrap_or_default().to_string()).collect()),
        _ => return Err("columns must be a list or null".into()),
    };
    Ok(Query {
        file: v["file"].as_str().ok_or("file")?.to_string(),
        runs: v["runs"].as_u64().unwrap_or(3) as usize,
        columns,
        condition: v["where"].as_str().unwrap_or_default().to_string(),
        leaves: v["leaves"].as_array().cloned().unwrap_or_default(),
        batch_size: v["batch_size"].as_u64().unwrap_or(8192) as usize,
    })
}

/// Bytes this process has read through system calls so far (`rchar` of /proc/self/io):
/// the file's bytes a read asked the kernel for, cached or not.
pub fn bytes_read() -> u64 {
    std::fs::read_to_string("/proc/self/io")
        .ok()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("rchar: ").and_then(|n| n.trim().parse().ok())))
        .unwrap_or(0)
}

/// Runs `read` once untimed and `runs` times timed; prints the JSON the driver reads:
/// times, rows, checksum, bytes read by the last run, and `extra` of the last run.
pub fn run<F>(q: &Query, mut read: F) -> Result<(), Box<dyn std::error::Error>>
where
    F: FnMut() -> Result<(Vec<RecordBatch>, Value), Box<dyn std::error::Error>>,
{
    let mut times = Vec::new();
    let mut last = (Vec::new(), Value::Null);
    let mut bytes = 0;
    for i in 0..=q.runs {
        let before = bytes_read();
        let start = Instant::now();
        let out = read()?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        bytes = bytes_read() - before;
        if i > 0 {
            times.push(ms);
        }
        last = out;
    }
    let (batches, extra) = last;
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    println!(
        "{}",
        json!({"times_ms": times, "rows": rows, "checksum": checksum(&batches, rows), "bytes_read": bytes, "extra": extra})
    );
    Ok(())
}

/// The result's checksum, order-independent: per column its null count and, over the
/// non-null values, the wrapping sum of integers (dates as days, decimals as the low 64
/// bits of the unscaled value) or, for strings and binary, the total length and the
/// wrapping sum of their bytes.
pub fn checksum(batches: &[RecordBatch], rows: usize) -> String {
    let Some(first) = batches.first() else { return format!("rows={rows}") };
    let mut parts = vec![format!("rows={rows}")];
    for (i, field) in first.schema().fields().iter().enumerate() {
        let (mut nulls, mut a, mut b) = (0u64, 0u64, 0u64);
        for batch in batches {
            let col = batch.column(i);
            nulls += col.null_count() as u64;
            let (x, y) = sums(col.as_ref());
            a = a.wrapping_add(x);
            b = b.wrapping_add(y);
        }
        parts.push(format!("{}:{nulls}:{a}:{b}", field.name()));
    }
    parts[1..].sort(); // engines return columns in different orders
    parts.join("|")
}

fn sums(col: &dyn Array) -> (u64, u64) {
    fn ints<I: Iterator<Item = Option<u64>>>(it: I) -> (u64, u64) {
        (it.flatten().fold(0u64, |s, v| s.wrapping_add(v)), 0)
    }
    fn bytes<'a, I: Iterator<Item = Option<&'a [u8]>>>(it: I) -> (u64, u64) {
        it.flatten()
            .fold((0u64, 0u64), |(l, s), v| (l + v.len() as u64, v.iter().fold(s, |s, &b| s.wrapping_add(b as u64))))
    }
    match col.data_type() {
        DataType::Int8 => ints(col.as_primitive::<Int8Type>().iter().map(|v| v.map(|v| v as i64 as u64))),
        DataType::Int16 => ints(col.as_primitive::<Int16Type>().iter().map(|v| v.map(|v| v as i64 as u64))),
        DataType::Int32 => ints(col.as_primitive::<Int32Type>().iter().map(|v| v.map(|v| v as i64 as u64))),
        DataType::Int64 => ints(col.as_primitive::<Int64Type>().iter().map(|v| v.map(|v| v as u64))),
        DataType::Date32 => ints(col.as_primitive::<Date32Type>().iter().map(|v| v.map(|v| v as i64 as u64))),
        // Bit patterns: exact, and no query of the benchmark outputs a float (ad hoc reads do).
        DataType::Float64 => ints(col.as_primitive::<Float64Type>().iter().map(|v| v.map(f64::to_bits))),
        DataType::Decimal128(..) => ints(col.as_primitive::<Decimal128Type>().iter().map(|v| v.map(|v| v as u64))),
        DataType::Utf8 => bytes(col.as_string::<i32>().iter().map(|v| v.map(str::as_bytes))),
        DataType::LargeUtf8 => bytes(col.as_string::<i64>().iter().map(|v| v.map(str::as_bytes))),
        DataType::Utf8View => bytes(col.as_string_view().iter().map(|v| v.map(str::as_bytes))),
        DataType::Binary => bytes(col.as_binary::<i32>().iter()),
        DataType::BinaryView => bytes(col.as_binary_view().iter()),
        DataType::Dictionary(..) => {
            let d = col.as_any_dictionary();
            let values = arrow_select::take::take(d.values().as_ref(), d.keys(), None).expect("dictionary keys");
            sums(values.as_ref())
        }
        other => panic!("checksum: no rule for {other}"),
    }
}
