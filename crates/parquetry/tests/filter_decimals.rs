//! Decimal columns stored as INT32/INT64 under wider Arrow decimals come out of a filtered
//! read with pyarrow's types and pyarrow's values, whichever way the filter reads them (a
//! filter reads output decimals at their stored width and widens the rows it keeps).

mod common;

use std::process::Command;

use arrow_array::cast::AsArray;
use arrow_array::types::{Decimal128Type, Decimal256Type, Int64Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use parquetry::filter::col;
use parquetry::read::{ParquetFile, ReadOptions};

/// Writes the file with pyarrow (decimals stored as integers where their precision allows)
/// and prints each decimal's unscaled value as text, row by row.
const SCRIPT: &str = r#"
import decimal, json, sys
import pyarrow as pa, pyarrow.parquet as pq
n = 20_000
def col(p, s, f):
    return pa.array([None if i % 17 == 0 else decimal.Decimal(f(i)).scaleb(-s) for i in range(n)], pa.decimal128(p, s))
t = pa.table({
    "id": pa.array(range(n), pa.int64()),
    "price": col(15, 2, lambda i: (i * 7919) % 10**13 - 5 * 10**12),
    "small": col(7, 1, lambda i: (i * 31) % 10**6 - 500_000),
    "wide": pa.array([decimal.Decimal(i * 1000003 - 10**9).scaleb(-3) for i in range(n)], pa.decimal256(18, 3)),
})
pq.write_table(t, sys.argv[1], store_decimal_as_integer=True, row_group_size=6_000, data_page_size=4096)
meta = pq.ParquetFile(sys.argv[1]).metadata
out = {"physical": [meta.schema.column(i).physical_type for i in range(4)]}
for name in ["price", "small", "wide"]:
    s = t.schema.field(name).type.scale
    out[name] = [None if v is None else str(int(v.scaleb(s))) for v in t[name].to_pylist()]
print(json.dumps(out))
"#;

fn unscaled(batches: &[RecordBatch], name: &str) -> Vec<Option<String>> {
    let mut out = Vec::new();
    for b in batches {
        let a = b.column_by_name(name).unwrap();
        for i in 0..a.len() {
            out.push(a.is_valid(i).then(|| match a.data_type() {
                DataType::Decimal128(..) => a.as_primitive::<Decimal128Type>().value(i).to_string(),
                DataType::Decimal256(..) => a.as_primitive::<Decimal256Type>().value(i).to_string(),
                other => panic!("{name} read as {other}"),
            }));
        }
    }
    out
}

#[test]
fn integer_decimals_keep_their_type_and_values_through_a_filter() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("parquetry-filter-decimals-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("decimals.parquet");
    let out = Command::new(common::python()).args(["-c", SCRIPT, path.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let want: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(want["physical"], serde_json::json!(["INT64", "INT64", "INT32", "INT64"]));
    let file = ParquetFile::open(&path).unwrap();
    // Two thirds of the rows spread over every page (decoded whole and filtered), and the
    // first two thirds (late materialization in the row group where the matches end).
    let spread = col("id").is_in((0..20_000i64).filter(|i| i % 3 != 0).collect::<Vec<_>>());
    for (predicate, threads) in [(spread.clone(), 1), (spread, 2), (col("id").lt(13_333i64), 1)] {
        let options = ReadOptions::default().with_batch_size(5_000).with_threads(threads).with_filter(predicate);
        let batches: Vec<RecordBatch> = common::read_all(&file, &options).unwrap();
        let types: Vec<String> = batches[0].schema().fields().iter().map(|f| f.data_type().to_string()).collect();
        assert_eq!(types, ["Int64", "Decimal128(15, 2)", "Decimal128(7, 1)", "Decimal256(18, 3)"]);
        let ids: Vec<i64> =
            batches.iter().flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec()).collect();
        assert_eq!(ids.len(), 13_333);
        for name in ["price", "small", "wide"] {
            let all: Vec<Option<String>> = serde_json::from_value(want[name].clone()).unwrap();
            let want: Vec<Option<String>> = ids.iter().map(|&i| all[i as usize].clone()).collect();
            assert_eq!(unscaled(&batches, name), want, "{name}, {threads} threads");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
