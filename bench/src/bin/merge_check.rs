//! Reads a merged file with arrow-rs and checks it against its inputs, read by arrow-rs too:
//! the same rows in the same order, the output's page index present and usable (a read that
//! skips pages through a row selection gives the same rows as slicing the full read).
//!
//! ```text
//! cargo run --release -p parquetry-bench --bin merge_check -- OUTPUT INPUT...
//! ```
//!
//! Prints `ok: N rows, G row groups` or the differences, and exits non-zero on any.

#[path = "common/columns.rs"]
mod columns;

use std::fs::File;
use std::process::ExitCode;

use arrow_array::{Array, ArrayRef, RecordBatch};
use parquet::arrow::arrow_reader::{
    ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowSelection, RowSelectionPolicy, RowSelector,
};
use parquet::file::metadata::PageIndexPolicy;

/// Every column of `path` as one array each (rows `selection` only, if given), and the row
/// group count.
fn read(path: &str, page_index: bool, selection: Option<RowSelection>) -> Result<(Vec<ArrayRef>, usize), String> {
    let file = File::open(path).map_err(|e| format!("{path}: {e}"))?;
    // Required: arrow-rs refuses a file without its page index.
    let policy = if page_index { PageIndexPolicy::Required } else { PageIndexPolicy::Skip };
    let options = ArrowReaderOptions::new().with_page_index_policy(policy);
    let builder = ParquetRecordBatchReaderBuilder::try_new_with_options(file, options)
        .map_err(|e| format!("{path}: arrow-rs cannot open it: {e}"))?;
    let groups = builder.metadata().num_row_groups();
    let schema = builder.schema().clone();
    let builder = match selection {
        Some(s) => builder.with_row_selection(s).with_row_selection_policy(RowSelectionPolicy::Selectors),
        None => builder,
    };
    let reader = builder.with_batch_size(8192).build().map_err(|e| format!("{path}: {e}"))?;
    let batches: Vec<RecordBatch> =
        reader.collect::<Result<_, _>>().map_err(|e| format!("{path}: arrow-rs read failed: {e}"))?;
    let columns = crate::columns::concat_columns(&schema, &batches);
    Ok((columns, groups))
}

/// The first difference between two tables' columns, if any.
fn differ(what: &str, want: &[ArrayRef], got: &[ArrayRef]) -> Option<String> {
    if want.len() != got.len() {
        return Some(format!("{what}: {} columns, expected {}", got.len(), want.len()));
    }
    for (c, (w, g)) in want.iter().zip(got).enumerate() {
        if w.len() != g.len() {
            return Some(format!("{what}: column {c}: {} rows, expected {}", g.len(), w.len()));
        }
        if w.to_data() != g.to_data() {
            let row = (0..w.len()).find(|&i| w.slice(i, 1).to_data() != g.slice(i, 1).to_data());
            return Some(format!("{what}: column {c} ({}) differs, first at row {row:?}", w.data_type()));
        }
    }
    None
}

fn check(output: &str, inputs: &[String]) -> Result<String, String> {
    let mut want: Vec<Vec<ArrayRef>> = Vec::new();
    for input in inputs {
        want.push(read(input, false, None)?.0);
    }
    let columns = want.first().map_or(0, Vec::len);
    let want: Vec<ArrayRef> = (0..columns)
        .map(|c| {
            let parts: Vec<&dyn Array> = want.iter().map(|t| t[c].as_ref()).collect();
            arrow_select::concat::concat(&parts).expect("inputs share a schema")
        })
        .collect();
    let (got, groups) = read(output, true, None)?;
    if let Some(d) = differ("full read", &want, &got) {
        return Err(d);
    }
    // Ten ranges of 100 rows spread over the file, pages between them skipped.
    let rows = got.first().map_or(0, |a| a.len());
    let (mut selectors, mut at, mut slices) = (Vec::new(), 0usize, Vec::new());
    for k in 0..10 {
        let start = (rows * k / 10 + 37).min(rows);
        let len = 100.min(rows - start);
        selectors.push(RowSelector::skip(start - at));
        selectors.push(RowSelector::select(len));
        slices.push((start, len));
        at = start + len;
    }
    let (picked, _) = read(output, true, Some(RowSelection::from(selectors)))?;
    let expected: Vec<ArrayRef> = got
        .iter()
        .map(|a| {
            let parts: Vec<ArrayRef> = slices.iter().map(|&(s, l)| a.slice(s, l)).collect();
            let refs: Vec<&dyn Array> = parts.iter().map(|p| p.as_ref()).collect();
            arrow_select::concat::concat(&refs).expect("one type")
        })
        .collect();
    if let Some(d) = differ("row selection through the page index", &expected, &picked) {
        return Err(d);
    }
    Ok(format!("ok: {rows} rows, {groups} row groups"))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: merge_check OUTPUT INPUT...");
        return ExitCode::from(2);
    }
    match check(&args[0], &args[1..]) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("{e}");
            ExitCode::FAILURE
        }
    }
}
