//! Reading one file back with arrow-rs: values, page structure against the offset index,
//! statistics (in `stats`), and a row selection read through the page index.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Date32Array, Date64Array, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::{
    ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowSelection, RowSelectionPolicy, RowSelector,
};
use parquet::column::page::Page;
use parquet::file::metadata::{PageIndexPolicy, ParquetMetaData};
use parquet::file::reader::{FileReader, SerializedFileReader};

/// Everything wrong with the file at `path` (written from `input`, one array per column).
pub fn check_file(path: &Path, input: &[ArrayRef], truncate: Option<usize>) -> Vec<String> {
    let mut problems = Vec::new();
    let metadata = match read_all(path, None, &mut problems) {
        Some((metadata, columns)) => {
            compare_columns("full read", input, &columns, &mut problems);
            metadata
        }
        None => {
            // Find the page that fails.
            if let Some(metadata) = read_metadata(path) {
                check_pages(path, &metadata, &mut problems);
            }
            return problems;
        }
    };
    check_pages(path, &metadata, &mut problems);
    crate::stats::check(&metadata, input, truncate, &mut problems);
    check_selection(path, input, &mut problems);
    problems
}

fn read_metadata(path: &Path) -> Option<Arc<ParquetMetaData>> {
    let file = File::open(path).ok()?;
    let options = ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Required);
    Some(ParquetRecordBatchReaderBuilder::try_new_with_options(file, options).ok()?.metadata().clone())
}

/// Reads the whole file (or `selection` of it) with the page index, returning the metadata
/// and each column as one array.
fn read_all(
    path: &Path,
    selection: Option<RowSelection>,
    problems: &mut Vec<String>,
) -> Option<(Arc<ParquetMetaData>, Vec<ArrayRef>)> {
    let file = File::open(path).map_err(|e| problems.push(format!("open: {e}"))).ok()?;
    let options = ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Required);
    let builder = ParquetRecordBatchReaderBuilder::try_new_with_options(file, options)
        .map_err(|e| problems.push(format!("arrow-rs cannot open the file: {e}")))
        .ok()?;
    let metadata = builder.metadata().clone();
    if metadata.page_index().is_none() {
        problems.push("arrow-rs found no page index".into());
    }
    let schema = builder.schema().clone();
    let builder = match selection {
        // Selectors, not a bitmask: pages wholly inside a skipped range are skipped through
        // the offset index instead of being decoded.
        Some(s) => {
            builder.with_row_selection(s).with_row_selection_policy(RowSelectionPolicy::Selectors).with_batch_size(100)
        }
        None => builder.with_batch_size(1_000),
    };
    let reader = builder.build().map_err(|e| problems.push(format!("arrow-rs reader: {e}"))).ok()?;
    let batches: Vec<RecordBatch> =
        reader.collect::<Result<_, _>>().map_err(|e| problems.push(format!("arrow-rs read failed: {e}"))).ok()?;
    let columns = crate::columns::concat_columns(&schema, &batches);
    Some((metadata, columns))
}

/// `expected` as arrow-rs gives it back: a Date64 column read as Date32 is compared in days.
fn as_read(expected: &ArrayRef, got: &DataType) -> ArrayRef {
    match (expected.data_type(), got) {
        (DataType::Date64, DataType::Date32) => {
            let d = expected.as_any().downcast_ref::<Date64Array>().unwrap();
            Arc::new(d.iter().map(|v| v.map(|ms| (ms / 86_400_000) as i32)).collect::<Date32Array>())
        }
        _ => expected.clone(),
    }
}

/// Compares each read column with its input; reports the type or the first differing row.
fn compare_columns(what: &str, expected: &[ArrayRef], got: &[ArrayRef], problems: &mut Vec<String>) {
    if expected.len() != got.len() {
        problems.push(format!("{what}: {} columns read, {} written", got.len(), expected.len()));
        return;
    }
    for (c, (e, g)) in expected.iter().zip(got).enumerate() {
        let e = as_read(e, g.data_type());
        if e.data_type() != g.data_type() {
            problems.push(format!("{what}: column {c}: read as {}, written as {}", g.data_type(), e.data_type()));
            continue;
        }
        if e.len() != g.len() {
            problems.push(format!(
                "{what}: column {c} ({}): {} rows read, {} written",
                e.data_type(),
                g.len(),
                e.len()
            ));
            continue;
        }
        if e.as_ref() == g.as_ref() {
            continue;
        }
        let differing: Vec<usize> =
            (0..e.len()).filter(|&i| e.slice(i, 1).as_ref() != g.slice(i, 1).as_ref()).collect();
        match differing.first() {
            Some(&i) => problems.push(format!(
                "{what}: column {c} ({}): {} rows differ, first row {i}: wrote {}, read {}",
                e.data_type(),
                differing.len(),
                crate::stats::show(e.as_ref(), i),
                crate::stats::show(g.as_ref(), i)
            )),
            None => problems.push(format!("{what}: column {c}: arrays differ but no row does")),
        }
    }
}

/// Reads every column chunk's pages in order (without the page index) and checks the offset
/// index against them: one location per data page, contiguous, `first_row_index` the running
/// row count, the dictionary page before the first location.
fn check_pages(path: &Path, metadata: &ParquetMetaData, problems: &mut Vec<String>) {
    let reader = match File::open(path)
        .map_err(|e| e.to_string())
        .and_then(|f| SerializedFileReader::new(f).map_err(|e| e.to_string()))
    {
        Ok(r) => r,
        Err(e) => return problems.push(format!("page walk: cannot open: {e}")),
    };
    let Some(page_index) = metadata.page_index() else { return };
    for rg in 0..metadata.num_row_groups() {
        let rg_meta = metadata.row_group(rg);
        let rg_reader = match reader.get_row_group(rg) {
            Ok(r) => r,
            Err(e) => return problems.push(format!("page walk: row group {rg}: {e}")),
        };
        for col in 0..rg_meta.num_columns() {
            let chunk = rg_meta.column(col);
            let name = chunk.column_path().string();
            let at = format!("row group {rg} column {name}");
            let mut data_pages: Vec<u64> = Vec::new(); // rows of each data page
            let mut dictionary_pages = 0;
            let mut values = 0u64;
            let pages = match rg_reader.get_column_page_reader(col) {
                Ok(p) => p,
                Err(e) => {
                    problems.push(format!("{at}: page reader: {e}"));
                    continue;
                }
            };
            for page in pages {
                match page {
                    Ok(Page::DataPage { num_values, .. }) => {
                        data_pages.push(num_values as u64);
                        values += num_values as u64;
                    }
                    Ok(Page::DataPageV2 { num_rows, num_values, .. }) => {
                        data_pages.push(num_rows as u64);
                        values += num_values as u64;
                    }
                    Ok(Page::DictionaryPage { .. }) => dictionary_pages += 1,
                    Err(e) => {
                        problems.push(format!("{at}: page {}: {e}", data_pages.len()));
                        break;
                    }
                }
            }
            if values != chunk.num_values() as u64 {
                problems.push(format!("{at}: pages hold {values} values, the chunk says {}", chunk.num_values()));
            }
            if data_pages.iter().sum::<u64>() != rg_meta.num_rows() as u64 {
                problems.push(format!(
                    "{at}: pages hold {} rows, the row group {}",
                    data_pages.iter().sum::<u64>(),
                    rg_meta.num_rows()
                ));
            }
            let has_dictionary = chunk.dictionary_page_offset().is_some();
            if dictionary_pages > 1 || has_dictionary != (dictionary_pages == 1) {
                problems.push(format!(
                    "{at}: {dictionary_pages} dictionary pages, dictionary_page_offset {:?}",
                    chunk.dictionary_page_offset()
                ));
            }
            let Some(offsets) = page_index.offset_index(rg, col) else {
                problems.push(format!("{at}: no offset index"));
                continue;
            };
            let locations = offsets.page_locations();
            match page_index.column_index(rg, col) {
                None => problems.push(format!("{at}: no column index")),
                Some(ci) if ci.num_pages() as usize != locations.len() => problems.push(format!(
                    "{at}: column index has {} pages, offset index {}",
                    ci.num_pages(),
                    locations.len()
                )),
                Some(_) => {}
            }
            if locations.len() != data_pages.len() {
                problems.push(format!(
                    "{at}: offset index has {} pages, the chunk {} data pages",
                    locations.len(),
                    data_pages.len()
                ));
                continue;
            }
            let mut row = 0i64;
            for (k, (loc, rows)) in locations.iter().zip(&data_pages).enumerate() {
                if loc.first_row_index != row {
                    problems.push(format!("{at}: page {k}: first_row_index {}, expected {row}", loc.first_row_index));
                }
                row += *rows as i64;
                if let Some(next) = locations.get(k + 1) {
                    if next.offset != loc.offset + loc.compressed_page_size as i64 {
                        problems.push(format!(
                            "{at}: page {k} ends at {}, page {} starts at {}",
                            loc.offset + loc.compressed_page_size as i64,
                            k + 1,
                            next.offset
                        ));
                    }
                }
            }
            let (start, len) = chunk.byte_range();
            if let (Some(first), Some(last)) = (locations.first(), locations.last()) {
                if first.offset != chunk.data_page_offset() {
                    problems.push(format!(
                        "{at}: first page location {} but data_page_offset {}",
                        first.offset,
                        chunk.data_page_offset()
                    ));
                }
                if has_dictionary && first.offset as u64 <= start {
                    problems.push(format!("{at}: no room for the dictionary page before the first location"));
                }
                let end = (last.offset + last.compressed_page_size as i64) as u64;
                if end != start + len {
                    problems.push(format!("{at}: last page ends at {end}, the chunk at {}", start + len));
                }
            }
        }
    }
}

/// Reads a selection crossing row groups and pages (skipped through the offset index) and
/// compares the rows with the input.
fn check_selection(path: &Path, input: &[ArrayRef], problems: &mut Vec<String>) {
    let total = input[0].len();
    let ranges = [(37usize, 150usize), (2_000, 2_001), (2_999, 4_200), (5_990, total)];
    let mut selectors = Vec::new();
    let mut at = 0;
    for &(s, e) in &ranges {
        let (s, e) = (s.min(total), e.min(total));
        if s > at {
            selectors.push(RowSelector::skip(s - at));
        }
        if e > s {
            selectors.push(RowSelector::select(e - s));
        }
        at = e.max(at);
    }
    if total > at {
        selectors.push(RowSelector::skip(total - at));
    }
    let expected: Vec<ArrayRef> = input
        .iter()
        .map(|c| {
            let parts: Vec<ArrayRef> =
                ranges.iter().map(|&(s, e)| c.slice(s.min(total), e.min(total) - s.min(total))).collect();
            let refs: Vec<&dyn Array> = parts.iter().map(|p| p.as_ref()).collect();
            arrow_select::concat::concat(&refs).unwrap()
        })
        .collect();
    let mut p = Vec::new();
    if let Some((_, got)) = read_all(path, Some(RowSelection::from(selectors)), &mut p) {
        compare_columns("row selection", &expected, &got, &mut p);
    }
    problems.extend(p.into_iter().map(
        |s| {
            if s.starts_with("row selection") {
                s
            } else {
                format!("row selection: {s}")
            }
        },
    ));
}
