//! One filtered query through parquetry's Rust reader, as `bench/filter_bench.py` runs it:
//! `ParquetReaderBuilder::open(file)` inside the timed region, `with_filter(parse(where))`,
//! the query's columns, 8,192-row batches (`"batch_size"` to change), one thread. Prints times, rows, checksum, bytes
//! read and the last run's `ScanMetrics` as JSON.
//!
//! `cargo run --release -p parquetry-bench --example filter_parquetry -- '{"file": "f.parquet",
//! "runs": 5, "columns": ["a"], "where": "a > 5"}'` (`"columns": []` counts rows).

mod filter_common;

use parquetry::read::{ParquetReaderBuilder, ReadOptions};
use serde_json::json;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let q = filter_common::query_from_args()?;
    // An empty condition: the same read without a filter (the baseline).
    let predicate = if q.condition.is_empty() { None } else { Some(parquetry::filter::parse(&q.condition)?) };
    filter_common::run(&q, || {
        let mut options = ReadOptions::default().with_batch_size(q.batch_size).with_threads(1);
        if let Some(p) = &predicate {
            options = options.with_filter(p.clone());
        }
        if let Some(columns) = &q.columns {
            options = options.with_columns(columns.iter().map(String::as_str));
        }
        let mut reader = ParquetReaderBuilder::open(&q.file)?.with_options(options).build()?;
        let mut batches = Vec::new();
        while let Some(batch) = reader.next_batch() {
            batches.push(batch?);
        }
        let m = reader.scan_metrics().cloned().unwrap_or_default();
        let extra = json!({
            "row_groups_total": m.row_groups_total,
            "row_groups_pruned": m.row_groups_pruned + m.row_groups_pruned_by_dictionary + m.row_groups_pruned_by_bloom_filter,
            "pages_total": m.pages_total,
            "pages_pruned": m.pages_pruned,
            "rows_decoded": m.rows_decoded,
            "late_row_groups": m.late_row_groups,
        });
        Ok((batches, extra))
    })
}
