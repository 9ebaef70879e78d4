//! One filtered query through arrow-rs's `parquet` crate, as `bench/filter_bench.py` runs
//! it, with what the crate offers a caller who does not use DataFusion:
//!
//! 1. the footer and the page index read (`ArrowReaderOptions::with_page_index_policy(Optional)`);
//! 2. row groups pruned here by the footer's column-chunk min/max for each leaf test that
//!    has bounds (`=`, `<`, `<=`, `>`, `>=`, `IN`, prefix; integers and dates by value,
//!    strings as unsigned bytes) — arrow-rs itself does not prune;
//! 3. a `RowSelection` built here from the ColumnIndex/OffsetIndex of those leaves (pages
//!    whose min/max rule the test out are skipped; leaves ANDed, so ranges intersect);
//! 4. a `RowFilter` with one `ArrowPredicateFn` per leaf test, in the query's order, each
//!    projecting only its column (late materialization: the output columns are decoded at
//!    the rows the predicates keep). The tests are plain loops over the arrays (`memchr`'s
//!    memmem for substrings, as arrow-string's `contains`).
//!
//! One thread (the synchronous reader), 8,192-row batches, the file opened in the timed region.
//! Leaves: `{"col": name, "op": "eq|ne|lt|le|gt|ge|in|prefix|contains|is_null", "value": ..}`
//! (dates as days since the epoch).

mod filter_common;

use std::fs::File;
use std::ops::Range;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Date32Type, Int32Type, Int64Type};
use arrow_array::{Array, BooleanArray, RecordBatch};
use arrow_buffer::BooleanBuffer;
use arrow_schema::{ArrowError, DataType};
use parquet::arrow::arrow_reader::{
    ArrowPredicate, ArrowPredicateFn, ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowFilter, RowSelection,
};
use parquet::arrow::ProjectionMask;
use parquet::basic::Type as PhysicalType;
use parquet::file::metadata::{PageIndexPolicy, ParquetMetaData};
use parquet::file::page_index::column_index::ColumnIndexMetaData;
use serde_json::{json, Value};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A literal: integers (and dates as days) or bytes.
#[derive(Clone, Debug, PartialEq, PartialOrd)]
enum Lit {
    I(i64),
    S(Vec<u8>),
}

#[derive(Clone, Debug)]
struct Leaf {
    col: String,
    op: String,
    values: Vec<Lit>,
}

fn lit(v: &Value) -> Lit {
    match v {
        Value::String(s) => Lit::S(s.as_bytes().to_vec()),
        other => Lit::I(other.as_i64().expect("leaf value: a string or an integer")),
    }
}

fn leaf(v: &Value) -> Leaf {
    let values = match &v["value"] {
        Value::Array(a) => a.iter().map(lit).collect(),
        Value::Null => vec![],
        other => vec![lit(other)],
    };
    Leaf { col: v["col"].as_str().expect("col").to_string(), op: v["op"].as_str().expect("op").to_string(), values }
}

/// Whether a value in `[min, max]` may pass the leaf (`None`: the leaf has no bounds test).
fn may_match(l: &Leaf, min: &Lit, max: &Lit) -> Option<bool> {
    let v = l.values.first()?;
    Some(match l.op.as_str() {
        "eq" => min <= v && v <= max,
        "in" => l.values.iter().any(|v| min <= v && v <= max),
        "lt" => min < v,
        "le" => min <= v,
        "gt" => max > v,
        "ge" => max >= v,
        "prefix" => match (v, min, max) {
            (Lit::S(p), Lit::S(lo), Lit::S(hi)) => {
                let n = p.len();
                &lo[..n.min(lo.len())] <= &p[..] && &p[..] <= &hi[..n.min(hi.len())]
            }
            _ => true,
        },
        _ => return None,
    })
}

fn decode(physical: PhysicalType, bytes: &[u8]) -> Option<Lit> {
    match physical {
        PhysicalType::INT32 => Some(Lit::I(i32::from_le_bytes(bytes.try_into().ok()?) as i64)),
        PhysicalType::INT64 => Some(Lit::I(i64::from_le_bytes(bytes.try_into().ok()?))),
        PhysicalType::BYTE_ARRAY => Some(Lit::S(bytes.to_vec())),
        _ => None,
    }
}

/// Row groups kept by the chunk statistics, and within them the candidate row ranges
/// (row-group relative) from the page index.
fn prune(meta: &ParquetMetaData, leaves: &[(usize, Leaf)]) -> (Vec<usize>, Vec<Vec<Range<usize>>>) {
    let schema = meta.file_metadata().schema_descr();
    let mut kept = Vec::new();
    let mut ranges = Vec::new();
    for (rg, g) in meta.row_groups().iter().enumerate() {
        let rows = g.num_rows() as usize;
        let mut keep = true;
        let mut cand = vec![0..rows];
        for (c, l) in leaves {
            let physical = schema.column(*c).physical_type();
            if let Some(s) = g.column(*c).statistics() {
                let bounds = s
                    .min_bytes_opt()
                    .and_then(|b| decode(physical, b))
                    .zip(s.max_bytes_opt().and_then(|b| decode(physical, b)));
                if let Some((lo, hi)) = bounds {
                    if may_match(l, &lo, &hi) == Some(false) {
                        keep = false;
                    }
                }
            }
            let pi = meta.page_index_for_row_group(rg);
            let (Some(ci), Some(oi)) = (pi.column_index(*c), pi.offset_index(*c)) else { continue };
            let locs = oi.page_locations();
            let mut pages: Vec<Range<usize>> = Vec::new();
            for (p, loc) in locs.iter().enumerate() {
                let start = loc.first_row_index as usize;
                let end = locs.get(p + 1).map_or(rows, |n| n.first_row_index as usize);
                let bounds = match ci {
                    ColumnIndexMetaData::INT32(x) => {
                        x.min_value(p).map(|v| Lit::I(*v as i64)).zip(x.max_value(p).map(|v| Lit::I(*v as i64)))
                    }
                    ColumnIndexMetaData::INT64(x) => {
                        x.min_value(p).map(|v| Lit::I(*v)).zip(x.max_value(p).map(|v| Lit::I(*v)))
                    }
                    ColumnIndexMetaData::BYTE_ARRAY(x) => {
                        x.min_value(p).map(|v| Lit::S(v.to_vec())).zip(x.max_value(p).map(|v| Lit::S(v.to_vec())))
                    }
                    _ => None,
                };
                let ok = match &bounds {
                    Some((lo, hi)) => may_match(l, lo, hi) != Some(false),
                    None => true, // a null page or no bounds: kept
                };
                if ok {
                    match pages.last_mut() {
                        Some(r) if r.end == start => r.end = end,
                        _ => pages.push(start..end),
                    }
                }
            }
            cand = intersect(&cand, &pages);
        }
        if keep && !cand.is_empty() {
            kept.push(rg);
            ranges.push(cand);
        }
    }
    (kept, ranges)
}

fn intersect(a: &[Range<usize>], b: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (s, e) = (a[i].start.max(b[j].start), a[i].end.min(b[j].end));
        if s < e {
            out.push(s..e);
        }
        if a[i].end < b[j].end {
            i += 1
        } else {
            j += 1
        }
    }
    out
}

fn test_ints(op: &str, vs: &[i64], n: usize, get: impl Fn(usize) -> i64) -> BooleanBuffer {
    let v = vs.first().copied().unwrap_or_default();
    match op {
        "eq" => BooleanBuffer::collect_bool(n, |i| get(i) == v),
        "ne" => BooleanBuffer::collect_bool(n, |i| get(i) != v),
        "lt" => BooleanBuffer::collect_bool(n, |i| get(i) < v),
        "le" => BooleanBuffer::collect_bool(n, |i| get(i) <= v),
        "gt" => BooleanBuffer::collect_bool(n, |i| get(i) > v),
        "ge" => BooleanBuffer::collect_bool(n, |i| get(i) >= v),
        "in" => BooleanBuffer::collect_bool(n, |i| vs.contains(&get(i))),
        op => panic!("op {op} on integers"),
    }
}

fn test_strs<'a>(op: &str, vs: &[&[u8]], n: usize, get: impl Fn(usize) -> &'a [u8]) -> BooleanBuffer {
    let v = vs.first().copied().unwrap_or_default();
    match op {
        "eq" => BooleanBuffer::collect_bool(n, |i| get(i) == v),
        "ne" => BooleanBuffer::collect_bool(n, |i| get(i) != v),
        "lt" => BooleanBuffer::collect_bool(n, |i| get(i) < v),
        "le" => BooleanBuffer::collect_bool(n, |i| get(i) <= v),
        "gt" => BooleanBuffer::collect_bool(n, |i| get(i) > v),
        "ge" => BooleanBuffer::collect_bool(n, |i| get(i) >= v),
        "in" => BooleanBuffer::collect_bool(n, |i| vs.contains(&get(i))),
        "prefix" => BooleanBuffer::collect_bool(n, |i| get(i).starts_with(v)),
        "contains" => {
            let finder = memchr::memmem::Finder::new(v);
            BooleanBuffer::collect_bool(n, |i| finder.find(get(i)).is_some())
        }
        op => panic!("op {op} on strings"),
    }
}

/// The leaf's test over one column (a null is not a match).
fn evaluate(l: &Leaf, col: &dyn Array) -> Result<BooleanArray, ArrowError> {
    let n = col.len();
    if l.op == "is_null" {
        return Ok(BooleanArray::new(BooleanBuffer::collect_bool(n, |i| col.is_null(i)), None));
    }
    let ints: Vec<i64> = l.values.iter().map(|v| if let Lit::I(x) = v { *x } else { i64::MIN }).collect();
    let strs: Vec<&[u8]> = l.values.iter().map(|v| if let Lit::S(x) = v { &x[..] } else { &b""[..] }).collect();
    let op = l.op.as_str();
    let values = match col.data_type() {
        DataType::Int32 => {
            let a = col.as_primitive::<Int32Type>();
            test_ints(op, &ints, n, |i| a.value(i) as i64)
        }
        DataType::Int64 => {
            let a = col.as_primitive::<Int64Type>();
            test_ints(op, &ints, n, |i| a.value(i))
        }
        DataType::Date32 => {
            let a = col.as_primitive::<Date32Type>();
            test_ints(op, &ints, n, |i| a.value(i) as i64)
        }
        DataType::Utf8 => {
            let a = col.as_string::<i32>();
            test_strs(op, &strs, n, |i| a.value(i).as_bytes())
        }
        DataType::LargeUtf8 => {
            let a = col.as_string::<i64>();
            test_strs(op, &strs, n, |i| a.value(i).as_bytes())
        }
        DataType::Utf8View => {
            let a = col.as_string_view();
            test_strs(op, &strs, n, |i| a.value(i).as_bytes())
        }
        other => return Err(ArrowError::NotYetImplemented(format!("filter on {other}"))),
    };
    Ok(BooleanArray::new(values, col.logical_nulls()))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let q = filter_common::query_from_args()?;
    let leaves: Vec<Leaf> = q.leaves.iter().map(leaf).collect();
    filter_common::run(&q, || {
        let options = ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Optional);
        let builder = ParquetRecordBatchReaderBuilder::try_new_with_options(File::open(&q.file)?, options)?;
        let meta = Arc::clone(builder.metadata());
        let schema = meta.file_metadata().schema_descr_ptr();
        let index = |name: &str| -> Result<usize, String> {
            (0..schema.num_columns()).find(|&i| schema.column(i).name() == name).ok_or(format!("no column {name}"))
        };
        let located: Vec<(usize, Leaf)> =
            leaves.iter().map(|l| Ok((index(&l.col)?, l.clone()))).collect::<Result<_, String>>()?;
        let (row_groups, ranges) = prune(&meta, &located);
        let mut offset = 0;
        let mut global = Vec::new();
        for (rg, r) in row_groups.iter().zip(&ranges) {
            global.extend(r.iter().map(|x| x.start + offset..x.end + offset));
            offset += meta.row_group(*rg).num_rows() as usize;
        }
        let selected_rows: usize = global.iter().map(|r| r.len()).sum();
        let selection = RowSelection::from_consecutive_ranges(global.into_iter(), offset);
        let predicates: Vec<Box<dyn ArrowPredicate>> = located
            .iter()
            .map(|(c, l)| {
                let l = l.clone();
                Box::new(ArrowPredicateFn::new(ProjectionMask::leaves(&schema, [*c]), move |b: RecordBatch| {
                    evaluate(&l, b.column(0).as_ref())
                })) as Box<dyn ArrowPredicate>
            })
            .collect();
        let projection = match &q.columns {
            None => ProjectionMask::all(),
            Some(cols) => {
                ProjectionMask::leaves(&schema, cols.iter().map(|c| index(c)).collect::<Result<Vec<_>, _>>()?)
            }
        };
        let reader = builder
            .with_batch_size(q.batch_size)
            .with_row_groups(row_groups.clone())
            .with_row_selection(selection)
            .with_row_filter(RowFilter::new(predicates))
            .with_projection(projection)
            .build()?;
        let batches = reader.collect::<Result<Vec<_>, _>>()?;
        let extra = json!({"row_groups_total": meta.num_row_groups(), "row_groups_kept": row_groups.len(), "rows_selected_by_page_index": selected_rows});
        Ok((batches, extra))
    })
}
