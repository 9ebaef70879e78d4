//! Statistics as arrow-rs reads them (its `StatisticsConverter` over the chunk `Statistics`
//! and the column index) against the values written: chunk min/max/null count equal to the
//! data's, each page's min/max bracketing the page's values (and equal to its extremes unless
//! truncated), page null counts and null pages, boundary order, unencoded byte sizes.

use std::cmp::Ordering;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    DurationMicrosecondType, DurationMillisecondType, DurationNanosecondType, DurationSecondType, Int32Type,
};
use arrow_array::{Array, ArrayRef, Date32Array, Date64Array, Int64Array};
use arrow_cmp::make_comparator;
use arrow_schema::{DataType, Field, SortOptions, TimeUnit};
use parquet::arrow::arrow_reader::statistics::StatisticsConverter;
use parquet::basic::BoundaryOrder;
use parquet::file::metadata::ParquetMetaData;

/// A value for a message: `null` or arrow's debug form on one line.
pub fn show(a: &dyn Array, i: usize) -> String {
    if a.is_null(i) {
        return "null".into();
    }
    let s = format!("{:?}", a.slice(i, 1));
    let inner = s.split_once('[').map(|(_, r)| r.trim_end().trim_end_matches(']')).unwrap_or(&s);
    let mut v = inner.split_whitespace().collect::<Vec<_>>().join(" ").trim_end_matches(',').to_string();
    if v.len() > 80 {
        let mut cut = 77;
        while !v.is_char_boundary(cut) {
            cut -= 1;
        }
        v.truncate(cut);
        v.push_str("...");
    }
    v
}

/// The column in the type its statistics are compared in: a dictionary as its values,
/// a duration as Int64 (arrow-rs extracts no duration statistics), Date64 as Date32 days.
fn normalize(a: &ArrayRef) -> ArrayRef {
    match a.data_type() {
        DataType::Dictionary(_, _) => {
            let d = a.as_dictionary::<Int32Type>();
            arrow_select::take::take(d.values().as_ref(), d.keys(), None).unwrap()
        }
        DataType::Duration(unit) => {
            let (values, nulls) = match unit {
                TimeUnit::Second => (a.as_primitive::<DurationSecondType>().values().clone(), a.nulls().cloned()),
                TimeUnit::Millisecond => {
                    (a.as_primitive::<DurationMillisecondType>().values().clone(), a.nulls().cloned())
                }
                TimeUnit::Microsecond => {
                    (a.as_primitive::<DurationMicrosecondType>().values().clone(), a.nulls().cloned())
                }
                TimeUnit::Nanosecond => {
                    (a.as_primitive::<DurationNanosecondType>().values().clone(), a.nulls().cloned())
                }
            };
            Arc::new(Int64Array::new(values, nulls))
        }
        DataType::Date64 => {
            let d = a.as_any().downcast_ref::<Date64Array>().unwrap();
            Arc::new(d.iter().map(|v| v.map(|ms| (ms / 86_400_000) as i32)).collect::<Date32Array>())
        }
        _ => a.clone(),
    }
}

fn is_nan(a: &dyn Array, i: usize) -> bool {
    match a.data_type() {
        DataType::Float16 => a.as_primitive::<arrow_array::types::Float16Type>().value(i).is_nan(),
        DataType::Float32 => a.as_primitive::<arrow_array::types::Float32Type>().value(i).is_nan(),
        DataType::Float64 => a.as_primitive::<arrow_array::types::Float64Type>().value(i).is_nan(),
        _ => false,
    }
}

fn as_f64(a: &dyn Array, i: usize) -> Option<f64> {
    match a.data_type() {
        DataType::Float16 => Some(a.as_primitive::<arrow_array::types::Float16Type>().value(i).to_f64()),
        DataType::Float32 => Some(a.as_primitive::<arrow_array::types::Float32Type>().value(i) as f64),
        DataType::Float64 => Some(a.as_primitive::<arrow_array::types::Float64Type>().value(i)),
        _ => None,
    }
}

/// Length in bytes of a variable-length value (`None` for other types).
fn byte_len(a: &dyn Array, i: usize) -> Option<usize> {
    Some(match a.data_type() {
        DataType::Utf8 => a.as_string::<i32>().value(i).len(),
        DataType::LargeUtf8 => a.as_string::<i64>().value(i).len(),
        DataType::Utf8View => a.as_string_view().value(i).len(),
        DataType::Binary => a.as_binary::<i32>().value(i).len(),
        DataType::LargeBinary => a.as_binary::<i64>().value(i).len(),
        DataType::BinaryView => a.as_binary_view().value(i).len(),
        _ => return None,
    })
}

/// Rows of `a` that take part in min/max: not null, not NaN.
fn ordered_rows(a: &dyn Array) -> Vec<usize> {
    (0..a.len()).filter(|&i| a.is_valid(i) && !is_nan(a, i)).collect()
}

/// Checks that `mins[idx]`/`maxes[idx]` bracket every value of `data` and, where `tight`,
/// equal its extremes (a byte-array extreme longer than `truncate` is exempt: it is stored
/// truncated). Floats compare -0.0 and +0.0 as equal for the tightness check.
#[allow(clippy::too_many_arguments)]
fn check_bounds(
    at: &str,
    data: &dyn Array,
    mins: &dyn Array,
    maxes: &dyn Array,
    idx: usize,
    tight: (bool, bool),
    truncate: Option<usize>,
    problems: &mut Vec<String>,
) {
    let rows = ordered_rows(data);
    let (Some(&first), false) = (rows.first(), data.data_type() == &DataType::Null) else { return };
    let opts = SortOptions::default();
    let self_cmp = make_comparator(data, data, opts).unwrap();
    let (mut lo, mut hi) = (first, first);
    for &r in &rows {
        if self_cmp(r, lo) == Ordering::Less {
            lo = r;
        }
        if self_cmp(r, hi) == Ordering::Greater {
            hi = r;
        }
    }
    for (what, bounds, extreme, bad, tight) in
        [("min", mins, lo, Ordering::Greater, tight.0), ("max", maxes, hi, Ordering::Less, tight.1)]
    {
        if bounds.is_null(idx) {
            problems.push(format!("{at}: no {what} (actual {what} {})", show(data, extreme)));
            continue;
        }
        let cmp = match make_comparator(bounds, data, opts) {
            Ok(c) => c,
            Err(e) => {
                problems.push(format!("{at}: cannot compare {what} with the data: {e}"));
                continue;
            }
        };
        if let Some(&r) = rows.iter().find(|&&r| cmp(idx, r) == bad) {
            problems.push(format!("{at}: {what} {} does not bound row {r} = {}", show(bounds, idx), show(data, r)));
            continue;
        }
        let truncated = matches!((byte_len(data, extreme), truncate), (Some(n), Some(t)) if n > t);
        let equal = cmp(idx, extreme) == Ordering::Equal
            || matches!((as_f64(bounds, idx), as_f64(data, extreme)), (Some(a), Some(b)) if a == b);
        if tight && !truncated && !equal {
            problems.push(format!(
                "{at}: {what} {} but the actual {what} is {}",
                show(bounds, idx),
                show(data, extreme)
            ));
        }
    }
}

/// Checks the chunk statistics and the column index of every column chunk against `input`.
pub fn check(metadata: &ParquetMetaData, input: &[ArrayRef], truncate: Option<usize>, problems: &mut Vec<String>) {
    let schema = metadata.file_metadata().schema_descr();
    let Some(page_index) = metadata.page_index() else { return };
    for (col, column) in input.iter().enumerate() {
        let data = normalize(column);
        let name = schema.column(col).name().to_string();
        let field = Field::new(&name, data.data_type().clone(), true);
        let conv = match StatisticsConverter::from_column_index(col, &field, schema) {
            Ok(c) => c,
            Err(e) => {
                problems.push(format!("column {name}: arrow-rs statistics converter: {e}"));
                continue;
            }
        };
        let rgs = metadata.row_groups();
        let (Ok(mins), Ok(maxes), Ok(nulls), Ok(min_exact), Ok(max_exact)) = (
            conv.row_group_mins(rgs.iter()),
            conv.row_group_maxes(rgs.iter()),
            conv.row_group_null_counts(rgs.iter()),
            conv.row_group_is_min_value_exact(rgs.iter()),
            conv.row_group_is_max_value_exact(rgs.iter()),
        ) else {
            problems.push(format!("column {name}: arrow-rs cannot extract the chunk statistics"));
            continue;
        };
        let mut first_row = 0usize;
        for (rg, rg_meta) in rgs.iter().enumerate() {
            let rows = rg_meta.num_rows() as usize;
            let chunk_data = data.slice(first_row, rows);
            first_row += rows;
            let at = format!("row group {rg} column {name}");
            let chunk = rg_meta.column(col);
            match chunk.statistics().and_then(|s| s.null_count_opt()) {
                None => problems.push(format!("{at}: no chunk null count")),
                Some(n) if n as usize != chunk_data.logical_null_count() || nulls.value(rg) != n => {
                    problems.push(format!(
                        "{at}: chunk null count {n} (converter {}), actual {}",
                        nulls.value(rg),
                        chunk_data.logical_null_count()
                    ))
                }
                Some(_) => {}
            }
            let tight = (min_exact.value(rg), max_exact.value(rg));
            check_bounds(
                &format!("{at}: chunk"),
                chunk_data.as_ref(),
                mins.as_ref(),
                maxes.as_ref(),
                rg,
                tight,
                truncate,
                problems,
            );
            check_pages(&conv, page_index.as_ref(), metadata, rg, col, &at, chunk_data.as_ref(), truncate, problems);
        }
    }
}

/// The column index and offset index of one column chunk against the chunk's values.
#[allow(clippy::too_many_arguments)]
fn check_pages(
    conv: &StatisticsConverter,
    page_index: &dyn parquet::file::metadata::page_index::PageIndexProvider,
    metadata: &ParquetMetaData,
    rg: usize,
    col: usize,
    at: &str,
    data: &dyn Array,
    truncate: Option<usize>,
    problems: &mut Vec<String>,
) {
    let (Some(ci), Some(oi)) = (page_index.column_index(rg, col), page_index.offset_index(rg, col)) else {
        return; // reported by the page walk
    };
    let locations = oi.page_locations();
    let (Ok(mins), Ok(maxes), Ok(nulls)) = (
        conv.data_page_mins(page_index, [rg].iter()),
        conv.data_page_maxes(page_index, [rg].iter()),
        conv.data_page_null_counts(page_index, [rg].iter()),
    ) else {
        return problems.push(format!("{at}: arrow-rs cannot extract the page statistics"));
    };
    if mins.len() != locations.len() || nulls.len() != locations.len() {
        return problems.push(format!("{at}: {} page statistics for {} pages", mins.len(), locations.len()));
    }
    let chunk_nulls = metadata.row_group(rg).column(col).statistics().and_then(|s| s.null_count_opt());
    let mut null_sum = 0u64;
    let mut unencoded_sum = 0i64;
    for (k, loc) in locations.iter().enumerate() {
        let start = loc.first_row_index as usize;
        let end = locations.get(k + 1).map_or(data.len(), |l| l.first_row_index as usize);
        if start > end || end > data.len() {
            return problems.push(format!("{at}: page {k} rows {start}..{end} out of the chunk's {}", data.len()));
        }
        let page = data.slice(start, end - start);
        let at = format!("{at} page {k} (rows {start}..{end})");
        if nulls.is_null(k) {
            problems.push(format!("{at}: no null count"));
        } else if nulls.value(k) as usize != page.logical_null_count() {
            problems.push(format!("{at}: null count {}, actual {}", nulls.value(k), page.logical_null_count()));
        }
        null_sum += nulls.value(k);
        let all_null = page.logical_null_count() == page.len();
        if ci.is_null_page(k) != all_null {
            problems.push(format!(
                "{at}: null_pages says {}, the page is {}all null",
                ci.is_null_page(k),
                if all_null { "" } else { "not " }
            ));
        }
        if !all_null {
            check_bounds(&at, page.as_ref(), mins.as_ref(), maxes.as_ref(), k, (true, true), truncate, problems);
        }
        if let Some(sizes) = oi.unencoded_byte_array_data_bytes() {
            let actual: usize =
                (0..page.len()).filter(|&i| page.is_valid(i)).filter_map(|i| byte_len(page.as_ref(), i)).sum();
            if byte_len_type(page.data_type()) && sizes.get(k) != Some(&(actual as i64)) {
                problems.push(format!("{at}: unencoded_byte_array_data_bytes {:?}, actual {actual}", sizes.get(k)));
            }
            unencoded_sum += sizes.get(k).copied().unwrap_or(0);
        }
    }
    if chunk_nulls.is_some_and(|n| n != null_sum) {
        problems.push(format!("{at}: page null counts sum to {null_sum}, the chunk says {chunk_nulls:?}"));
    }
    if oi.unencoded_byte_array_data_bytes().is_some() {
        let chunk = metadata.row_group(rg).column(col).unencoded_byte_array_data_bytes();
        if chunk != Some(unencoded_sum) {
            problems.push(format!("{at}: page unencoded byte sizes sum to {unencoded_sum}, the chunk says {chunk:?}"));
        }
    }
    check_boundary_order(at, ci.get_boundary_order(), mins.as_ref(), maxes.as_ref(), problems);
}

fn byte_len_type(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
    )
}

/// Column chunks whose column index declares ASCENDING, DESCENDING, UNORDERED.
pub static BOUNDARY_ORDERS: [AtomicUsize; 3] = [AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0)];

/// A declared ASCENDING (DESCENDING) order must hold between the non-null pages' mins and
/// maxes.
fn check_boundary_order(
    at: &str,
    order: Option<BoundaryOrder>,
    mins: &dyn Array,
    maxes: &dyn Array,
    problems: &mut Vec<String>,
) {
    let counter = match order {
        Some(BoundaryOrder::ASCENDING) => &BOUNDARY_ORDERS[0],
        Some(BoundaryOrder::DESCENDING) => &BOUNDARY_ORDERS[1],
        _ => &BOUNDARY_ORDERS[2],
    };
    counter.fetch_add(1, AtomicOrdering::Relaxed);
    let bad = match order {
        Some(BoundaryOrder::ASCENDING) => Ordering::Greater,
        Some(BoundaryOrder::DESCENDING) => Ordering::Less,
        _ => return,
    };
    for (what, bounds) in [("min", mins), ("max", maxes)] {
        let Ok(cmp) = make_comparator(bounds, bounds, SortOptions::default()) else { return };
        let pages: Vec<usize> = (0..bounds.len()).filter(|&k| bounds.is_valid(k)).collect();
        if let Some(w) = pages.windows(2).find(|w| cmp(w[0], w[1]) == bad) {
            problems.push(format!(
                "{at}: boundary order {order:?} but page {} {what} {} then page {} {what} {}",
                w[0],
                show(bounds, w[0]),
                w[1],
                show(bounds, w[1])
            ));
        }
    }
}
