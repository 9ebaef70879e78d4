//! Bloom filters written by parquetry, checked by readers that share no code with it: duckdb's
//! `parquet_bloom_probe` must find every value a row group holds (per pyarrow) and rule out
//! most that it does not; pyarrow reads the file equal to the input and sees each filter's
//! offset and length; and parquetry's own pruning skips the row groups of values pyarrow
//! finds in none. Filters we corrupt are never used to prune.

mod common;
#[path = "common/write_helpers.rs"]
mod write_helpers;

use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, BooleanArray, DictionaryArray, FixedSizeBinaryArray, Float64Array, Int32Array, Int64Array, RecordBatch,
    StringArray,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquetry::filter::{col, lit, Predicate, ScanMetrics};
use parquetry::format::{read_metadata_from_bytes, ColumnChunk};
use parquetry::read::{ParquetFile, ReadOptions};
use parquetry::write::WriteOptions;
use serde_json::{json, Value};
use write_helpers::{run_python_json, write_ipc, write_parquet, TempDir};

const ROWS: usize = 20_000;
const GROUP: usize = 5_000;

/// Row `i`'s `id`: unique, so its chunks fall back from the dictionary part way.
fn id(i: usize) -> String {
    format!("id-{i:08}")
}

fn table() -> (SchemaRef, RecordBatch) {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("cat", DataType::Utf8, true),
        Field::new("n32", DataType::Int32, true),
        Field::new("n64", DataType::Int64, false),
        Field::new("fix", DataType::FixedSizeBinary(4), false),
        Field::new("dcat", DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)), false),
        Field::new("f", DataType::Float64, false),
        Field::new("flag", DataType::Boolean, false),
    ]));
    let ids: Vec<String> = (0..ROWS).map(id).collect();
    // Row group `g` holds the 40 categories `4k + g`: each group's filter its own, over
    // about the same min/max.
    let cat: Vec<Option<String>> =
        (0..ROWS).map(|i| (i % 11 != 0).then(|| format!("cat_{:03}", (i % 40) * 4 + i / GROUP))).collect();
    let n32: Vec<Option<i32>> = (0..ROWS).map(|i| (i % 7 != 0).then_some(i as i32 * 3)).collect();
    let n64: Vec<i64> = (0..ROWS).map(|i| (i as i64) * 1_000_003).collect();
    let fix: Vec<[u8; 4]> = (0..ROWS).map(|i| ((i * 2) as u32).to_be_bytes()).collect();
    let words: Vec<String> = (0..50).map(|k| format!("word{k}")).collect();
    let keys = Int32Array::from((0..ROWS).map(|i| ((i / GROUP) * 10 + i % 10) as i32).collect::<Vec<_>>());
    let dcat = DictionaryArray::<Int32Type>::try_new(keys, Arc::new(StringArray::from(words))).unwrap();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(ids)),
        Arc::new(StringArray::from(cat)),
        Arc::new(Int32Array::from(n32)),
        Arc::new(Int64Array::from(n64)),
        Arc::new(FixedSizeBinaryArray::try_from_iter(fix.into_iter()).unwrap()),
        Arc::new(dcat),
        Arc::new(Float64Array::from((0..ROWS).map(|i| i as f64 / 4.0).collect::<Vec<_>>())),
        Arc::new(BooleanArray::from((0..ROWS).map(|i| i % 2 == 0).collect::<Vec<_>>())),
    ];
    (schema.clone(), RecordBatch::try_new(schema, columns).unwrap())
}

fn options() -> WriteOptions {
    WriteOptions::new()
        .with_row_group_rows(GROUP)
        .with_dictionary_page_size_limit(16 << 10)
        .with_bloom_filter_enabled(true)
        .with_column_bloom_filter_fpp("id", 0.01)
        .with_column_dictionary("n64", false)
        .with_column_bloom_filter_ndv("n64", 5_000)
}

/// Values to probe per column: every 97th row's value (present) and as many near misses.
fn probes() -> Value {
    let rows = (0..ROWS).step_by(97);
    let strings = |f: &dyn Fn(usize) -> String| -> Vec<Value> { rows.clone().map(|i| json!(f(i))).collect() };
    let id_probes: Vec<Value> = strings(&id).into_iter().chain(strings(&|i| format!("{}x", id(i)))).collect();
    let cat: Vec<Value> =
        (0..200).map(|k| json!(format!("cat_{k:03}"))).chain((0..40).map(|k| json!(format!("cat_{k:03}a")))).collect();
    let ints = |f: &dyn Fn(usize) -> i64| -> Vec<Value> { rows.clone().map(|i| json!(f(i))).collect() };
    let n32: Vec<Value> = ints(&|i| i as i64 * 3).into_iter().chain(ints(&|i| i as i64 * 3 + 1)).collect();
    let n64: Vec<Value> =
        ints(&|i| i as i64 * 1_000_003).into_iter().chain(ints(&|i| i as i64 * 1_000_003 + 5)).collect();
    let hex = |v: u32| json!({ "hex": format!("{:08x}", v) });
    let fix: Vec<Value> = rows.clone().flat_map(|i| [hex(i as u32 * 2), hex(i as u32 * 2 + 1)]).collect();
    let dcat: Vec<Value> = (0..50).map(|k| json!(format!("word{k}"))).collect();
    let f: Vec<Value> = rows.clone().flat_map(|i| [json!(i as f64 / 4.0), json!(i as f64 / 4.0 + 0.125)]).collect();
    json!({ "id": id_probes, "cat": cat, "n32": n32, "n64": n64, "fix": fix, "dcat": dcat, "f": f })
}

fn read(bytes: &[u8], predicate: Predicate) -> (usize, ScanMetrics) {
    let file = ParquetFile::from_bytes(bytes.to_vec()).unwrap();
    let mut iter = common::batches(&file, ReadOptions::default().with_filter(predicate)).unwrap();
    let rows = iter.by_ref().map(|b| b.unwrap().num_rows()).sum();
    (rows, iter.scan_metrics().cloned().unwrap_or_default())
}

#[test]
fn duckdb_and_pyarrow_read_the_bloom_filters_we_write_and_we_prune_by_them() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("bloom");
    let (schema, batch) = table();
    let (path, ipc) = (dir.join("bloom.parquet"), dir.join("bloom.arrow"));
    write_parquet(&path, &schema, std::slice::from_ref(&batch), options());
    write_ipc(&ipc, &schema, &[batch]);
    let request = json!({ "path": path, "ipc": ipc, "probes": probes() });
    let answer = run_python_json("bloom_check.py", &request);
    assert_eq!(answer["same"], json!(true), "pyarrow reads back something else");

    // pyarrow sees a filter on every chunk but the BOOLEAN one, where we put it.
    let bytes = std::fs::read(&path).unwrap();
    let meta = read_metadata_from_bytes(&bytes).unwrap();
    for (g, rg) in meta.row_groups.iter().enumerate() {
        for (c, chunk) in rg.columns.iter().enumerate() {
            let m = chunk.meta_data.as_ref().unwrap();
            let seen = &answer["chunks"][g][c];
            assert_eq!(
                (seen["offset"].as_i64(), seen["length"].as_i64()),
                (m.bloom_filter_offset, m.bloom_filter_length.map(i64::from))
            );
            assert_eq!(m.bloom_filter_offset.is_some(), c != 7, "row group {g}, column {c}");
        }
    }

    // duckdb finds every value present and rules out most absent ones.
    for (column, counts) in answer["probes"].as_object().unwrap() {
        let n = |k: &str| counts[k].as_u64().unwrap();
        assert!(n("present") > 0 && n("absent") > 0, "{column}: {counts}");
        assert_eq!(n("false_negatives"), 0, "{column}: duckdb rules out a value that is there: {counts}");
        // fpp 0.05 (0.01 for `id`): well over 80% of absent (value, row group) pairs go.
        // Not for `dcat`: an Arrow dictionary is written as the chunk's dictionary whole
        // (each value interned once), so every row group's filter holds all 50 words.
        if column == "dcat" {
            continue;
        }
        assert!(n("excluded") * 10 >= n("absent") * 8, "{column}: {counts}");
    }

    // Our pruning: values pyarrow finds in no row group are ruled out by bloom filters where
    // statistics cannot (the row group whose min/max holds the value).
    // `id` falls back from its dictionary part way through each chunk, `n64` has none. (Not
    // `cat` and `n32`: their chunks are dictionary-encoded throughout, and the dictionary
    // rules a value out before the bloom filter is asked.)
    for column in ["id", "n64"] {
        let absent = answer["probes"][column]["absent_everywhere"].as_array().unwrap();
        let (mut pruned, mut left) = (0, 0);
        for v in absent.iter().take(40) {
            let literal = match v {
                Value::String(s) => lit(s.as_str()),
                v => lit(v.as_i64().unwrap()),
            };
            let (rows, m) = read(&bytes, col(column).eq(literal));
            assert_eq!(rows, 0, "{column} = {v}");
            pruned += m.row_groups_pruned_by_bloom_filter;
            left += m.row_groups_total - m.row_groups_pruned - m.row_groups_pruned_by_dictionary;
        }
        // A bloom filter may say "maybe" (fpp), but seldom.
        assert!(
            pruned > 0 && pruned * 10 >= left * 8,
            "{column}: {pruned} of {left} row groups pruned by bloom filters"
        );
    }
}

/// Whether each chunk has a bloom filter (row groups, then columns), per pyarrow.
fn filter_places(answer: &Value) -> Vec<Vec<bool>> {
    let groups = answer["chunks"].as_array().unwrap();
    groups.iter().map(|g| g.as_array().unwrap().iter().map(|c| !c["offset"].is_null()).collect()).collect()
}

#[test]
fn merge_keeps_copied_filters_and_rebuilds_or_unions_coalesced_ones() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("bloom-merge");
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("n64", DataType::Int64, false),
        Field::new("only_a", DataType::Int64, false),
    ]));
    let part = |from: usize| {
        let rows = from..from + 2000;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(StringArray::from(rows.clone().map(id).collect::<Vec<_>>())),
            Arc::new(Int64Array::from(rows.clone().map(|i| i as i64 * 7).collect::<Vec<_>>())),
            Arc::new(Int64Array::from(rows.map(|i| i as i64).collect::<Vec<_>>())),
        ];
        RecordBatch::try_new(schema.clone(), columns).unwrap()
    };
    // `id` dictionary-encoded throughout, `n64` without a dictionary (tight filters, so that
    // two OR-ed still rule out most values), `only_a` with a filter in the first file only.
    let base = WriteOptions::new()
        .with_column_bloom_filter_enabled("id", true)
        .with_column_dictionary("n64", false)
        .with_column_bloom_filter_fpp("n64", 0.001);
    let (a, b) = (dir.join("a.parquet"), dir.join("b.parquet"));
    write_parquet(&a, &schema, &[part(0)], base.clone().with_column_bloom_filter_enabled("only_a", true));
    write_parquet(&b, &schema, &[part(2000)], base);
    let probes = || {
        let ids = (0..4000).step_by(37).flat_map(|i| [json!(id(i)), json!(format!("{}x", id(i)))]);
        let n64 = (0..4000).step_by(37).flat_map(|i| [json!(i as i64 * 7), json!(i as i64 * 7 + 3)]);
        json!({ "id": ids.collect::<Vec<_>>(), "n64": n64.collect::<Vec<_>>() })
    };
    for (what, rows, want) in [
        // Row groups at the target are copied whole, each with its filters.
        ("copied", 2000, vec![vec![true, true, true], vec![true, true, false]]),
        // One row group of both: `id` rebuilt from the unified dictionary, `n64` the union,
        // `only_a` none (the second input has no filter there).
        ("coalesced", 10_000, vec![vec![true, true, false]]),
    ] {
        let out = dir.join(&format!("{what}.parquet"));
        let options = parquetry::merge::MergeOptions::default().with_row_group_rows(rows);
        parquetry::merge::merge_files(&[a.clone(), b.clone()], &out, &options).unwrap();
        let answer = run_python_json("bloom_check.py", &json!({ "path": out, "probes": probes() }));
        assert_eq!(filter_places(&answer), want, "{what}");
        for (column, counts) in answer["probes"].as_object().unwrap() {
            let n = |k: &str| counts[k].as_u64().unwrap();
            assert_eq!(n("false_negatives"), 0, "{what}, {column}: {counts}");
            assert!(n("excluded") * 10 >= n("absent") * 8, "{what}, {column}: {counts}");
        }
        if what == "copied" {
            // Byte for byte the inputs' filters.
            let (input, output) = (std::fs::read(&a).unwrap(), std::fs::read(&out).unwrap());
            let (mi, mo) = (read_metadata_from_bytes(&input).unwrap(), read_metadata_from_bytes(&output).unwrap());
            for c in 0..3 {
                let place = |m: &parquetry::format::FileMetaData| {
                    let cm = m.row_groups[0].columns[c].meta_data.clone().unwrap();
                    (cm.bloom_filter_offset.unwrap() as usize, cm.bloom_filter_length.unwrap() as usize)
                };
                let ((oi, li), (oo, lo)) = (place(&mi), place(&mo));
                assert_eq!(input[oi..oi + li], output[oo..oo + lo], "column {c}");
            }
        }
    }
}

/// `bytes` with every bloom filter's footer entry changed by `edit`.
fn with_blooms(bytes: &[u8], edit: impl Fn(&mut ColumnChunk, usize)) -> Vec<u8> {
    let mut meta = read_metadata_from_bytes(bytes).unwrap();
    let len = bytes.len();
    for rg in &mut meta.row_groups {
        for c in &mut rg.columns {
            edit(c, len);
        }
    }
    let footer_len = u32::from_le_bytes(bytes[len - 8..len - 4].try_into().unwrap()) as usize;
    let mut out = bytes[..len - 8 - footer_len].to_vec();
    out.extend_from_slice(&parquetry::format::encode_footer(&meta));
    out
}

#[test]
fn bloom_filters_that_do_not_check_out_are_never_used() {
    let (schema, batch) = table();
    let mut bytes = Vec::new();
    let mut w = parquetry::write::ParquetWriter::try_new(&mut bytes, schema, options()).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    // Inside the statistics of one row group but not in it: only its bloom filter rules it out.
    let probe = || col("id").eq(format!("{}x", id(7)));
    let (rows, m) = read(&bytes, probe());
    assert_eq!((rows, m.row_groups_pruned_by_bloom_filter), (0, 1), "{m}");

    let offset = |c: &ColumnChunk| c.meta_data.as_ref().unwrap().bloom_filter_offset;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "offset past the file",
            with_blooms(&bytes, |c, len| {
                if let Some(m) = c.meta_data.as_mut().filter(|m| m.bloom_filter_offset.is_some()) {
                    m.bloom_filter_offset = Some(len as i64 + 10);
                }
            }),
        ),
        (
            "negative offset",
            with_blooms(&bytes, |c, _| {
                if offset(c).is_some() {
                    c.meta_data.as_mut().unwrap().bloom_filter_offset = Some(-5);
                }
            }),
        ),
        (
            "length shorter than the bitset",
            with_blooms(&bytes, |c, _| {
                if let Some(m) = c.meta_data.as_mut().filter(|m| m.bloom_filter_length.is_some()) {
                    m.bloom_filter_length = m.bloom_filter_length.map(|l| l - 1);
                }
            }),
        ),
        (
            "offset into the middle of the bitset",
            with_blooms(&bytes, |c, _| {
                if let Some(m) = c.meta_data.as_mut().filter(|m| m.bloom_filter_offset.is_some()) {
                    m.bloom_filter_offset = m.bloom_filter_offset.map(|o| o + 40);
                }
            }),
        ),
        (
            "absurd length",
            with_blooms(&bytes, |c, _| {
                if let Some(m) = c.meta_data.as_mut().filter(|m| m.bloom_filter_length.is_some()) {
                    m.bloom_filter_length = Some(i32::MAX);
                }
            }),
        ),
    ];
    for (what, broken) in cases {
        let (rows, m) = read(&broken, probe());
        assert_eq!((rows, m.row_groups_pruned_by_bloom_filter), (0, 0), "{what}: {m}");
    }
    // Filters of our making put in place of every chunk's: absurd, not whole blocks, past
    // the file, truncated, of another algorithm.
    let header = |num_bytes: i32, algorithm: i16| {
        let mut out = Vec::new();
        let h = parquetry::format::BloomFilterHeader { num_bytes, algorithm, hash: 1, compression: 1 };
        parquetry::format::thrift::encode(&h, &mut out);
        out
    };
    let full = |n: i32, algorithm: i16| [header(n, algorithm), vec![0xff; n.max(0) as usize]].concat();
    let cases: Vec<(&str, Vec<u8>, bool)> = vec![
        ("2 GiB bitset", [header(i32::MAX, 1), vec![0; 64]].concat(), true),
        ("256 MiB bitset", [header(1 << 28, 1), vec![0; 64]].concat(), false),
        ("33-byte bitset", [header(33, 1), vec![0; 64]].concat(), true),
        ("empty bitset", header(0, 1), true),
        ("negative size", [header(-32, 1), vec![0; 64]].concat(), true),
        ("bitset past the file", [header(1 << 20, 1), vec![0; 64]].concat(), false),
        ("truncated bitset", full(1024, 1)[..600].to_vec(), true),
        ("other algorithm", full(32, 2), true),
        ("not thrift", vec![0xff; 40], true),
    ];
    for (what, raw, with_length) in cases {
        let broken = with_blooms_at_end(&bytes, &raw, with_length);
        let (rows, m) = read(&broken, probe());
        assert_eq!((rows, m.row_groups_pruned_by_bloom_filter), (0, 0), "{what}: {m}");
    }
    // The same with a filter that does check out (all bits set: "maybe" to every value) is
    // read, and prunes nothing either; one with no bit set prunes the row group.
    let (_, m) = read(&with_blooms_at_end(&bytes, &full(32, 1), true), probe());
    assert_eq!(m.row_groups_pruned_by_bloom_filter, 0, "{m}");
    assert!(m.bloom_filter_bytes_read > 0, "{m}");
    let empty = [header(32, 1), vec![0; 32]].concat();
    let (_, m) = read(&with_blooms_at_end(&bytes, &empty, true), probe());
    assert_eq!(m.row_groups_pruned_by_bloom_filter, 1, "{m}");
}

/// `bytes` with `raw` put after the last row group's data (before the footer) and every
/// filter's footer entry pointed at it (with its length or none).
fn with_blooms_at_end(bytes: &[u8], raw: &[u8], with_length: bool) -> Vec<u8> {
    let mut meta = read_metadata_from_bytes(bytes).unwrap();
    let len = bytes.len();
    let footer_len = u32::from_le_bytes(bytes[len - 8..len - 4].try_into().unwrap()) as usize;
    let mut out = bytes[..len - 8 - footer_len].to_vec();
    let at = out.len() as i64;
    out.extend_from_slice(raw);
    for rg in &mut meta.row_groups {
        for c in &mut rg.columns {
            let m = c.meta_data.as_mut().unwrap();
            if m.bloom_filter_offset.is_some() {
                m.bloom_filter_offset = Some(at);
                m.bloom_filter_length = with_length.then_some(raw.len() as i32);
            }
        }
    }
    out.extend_from_slice(&parquetry::format::encode_footer(&meta));
    out
}
