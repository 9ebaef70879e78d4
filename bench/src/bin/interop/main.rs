//! Interoperability of parquetry's writer: writes one table under every encoding × codec ×
//! data page version (CRCs on in half the files) and reads each file back with arrow-rs,
//! checking values, the page index and statistics.
//!
//! ```text
//! cargo run --release -p parquetry-bench --bin interop -- OUT_DIR
//! ```
//!
//! Prints one line per file (`OK` or the differences found), writes `OUT_DIR/arrow-rs.tsv`
//! (file, status, detail) for `scripts/interop/run.sh`, and exits non-zero when any file
//! fails. The files stay in `OUT_DIR` for the other readers (parquet-go, pyarrow).

mod check;
#[path = "../common/columns.rs"]
mod columns;
mod data;
mod matrix;
mod stats;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use arrow_array::{ArrayRef, RecordBatch};

/// Rows of the table; with the matrix's row group and page limits this gives three row
/// groups of several pages per column.
const ROWS: usize = 6_000;
/// Input batches (the writer sees batch boundaries inside row groups and pages).
const BATCHES: usize = 3;
const SEED: u64 = 20_251;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(out_dir) = args.next().map(PathBuf::from) else {
        eprintln!("usage: interop OUT_DIR");
        return ExitCode::from(2);
    };
    if let Err(e) = std::fs::create_dir_all(&out_dir) {
        eprintln!("interop: cannot create {}: {e}", out_dir.display());
        return ExitCode::from(2);
    }
    let mut tsv = String::from("file\tstatus\tdetail\n");
    let mut failed = 0usize;
    let cases = matrix::cases();
    for case in &cases {
        let shape = case.shape();
        let (schema, batches) = data::all_types(SEED, ROWS, BATCHES, shape);
        let path = out_dir.join(case.file_name());
        let problems = match case.options(&schema) {
            Err(e) => vec![format!("writer options refused: {e}")],
            Ok(options) => match parquetry::write::write_table(&path, schema.clone(), &batches, options) {
                Err(e) => vec![format!("parquetry failed to write: {e}")],
                Ok(_) => {
                    let input = concat_columns(&batches);
                    let file = path.clone();
                    let truncate = case.truncate_length();
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
                        check::check_file(&file, &input, truncate)
                    }))
                    .unwrap_or_else(|p| vec![format!("arrow-rs panicked: {}", panic_text(&p))])
                }
            },
        };
        let name = case.file_name();
        if problems.is_empty() {
            println!("OK    {name}");
            tsv.push_str(&format!("{name}\tOK\t\n"));
        } else {
            failed += 1;
            println!("FAIL  {name}");
            for p in &problems {
                println!("        {p}");
            }
            let detail = problems.join(" | ").replace(['\t', '\n'], " ");
            tsv.push_str(&format!("{name}\tFAIL\t{detail}\n"));
        }
        let _ = std::io::stdout().flush();
    }
    if let Err(e) = std::fs::write(out_dir.join("arrow-rs.tsv"), tsv) {
        eprintln!("interop: cannot write arrow-rs.tsv: {e}");
        return ExitCode::from(2);
    }
    let orders: Vec<usize> =
        stats::BOUNDARY_ORDERS.iter().map(|c| c.load(std::sync::atomic::Ordering::Relaxed)).collect();
    println!("column indexes checked: {} ascending, {} descending, {} unordered", orders[0], orders[1], orders[2]);
    println!("{} files, {} OK, {} failed", cases.len(), cases.len() - failed, failed);
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Each column of `batches` as one array.
fn concat_columns(batches: &[RecordBatch]) -> Vec<ArrayRef> {
    let n = batches[0].num_columns();
    (0..n)
        .map(|c| {
            let parts: Vec<&dyn arrow_array::Array> = batches.iter().map(|b| b.column(c).as_ref()).collect();
            arrow_select::concat::concat(&parts).expect("input batches share a schema")
        })
        .collect()
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "(no message)".into())
}
