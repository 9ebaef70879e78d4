//! Property tests of nested writing without a property-testing crate: for each of 40 seeds
//! (see [`seeds`]), a random schema of nested columns (lists of every kind, structs and maps
//! up to 4 deep over every leaf type, see `nested_data`), random arrays of it (nulls and empty
//! lists at every level, null lists spanning child values, slices) in random batches, written
//! with random options (dictionary and fallback, page size and row limit, row groups, codec,
//! page version, encodings per leaf type, statistics, page index, CRC, spilling); pyarrow and
//! parquetry (at small and whole-row-group batches) must read each file back to exactly the
//! input (list element names aside; compared as Arrow
//! arrays in Rust and as Python values in tests/support/nested_check.py), and every file's
//! pages must start at records and count them (nested_check.py too). A failure prints the
//! seed, the schema and the options.

mod common;
#[path = "common/nested_data.rs"]
mod nested_data;
#[path = "common/read_compare.rs"]
mod read_compare;
#[path = "common/write_data.rs"]
mod write_data;
#[path = "common/write_helpers.rs"]
mod write_helpers;

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{Field, Schema};
use nested_data::{
    diff_named_like, leaf_paths, leaf_types, per_leaf, random_array, random_nullable, random_type, NestedShape,
};
use parquetry::compress::Codec;
use parquetry::format::Encoding;
use parquetry::write::{DataPageVersion, StatisticsLevel, WriteOptions};
use read_compare::{catch, pyarrow_tables, Table};
use write_data::{log_uniform, pick, property_seeds as seeds, Rng};
use write_helpers::{run_python_json, try_write_parquet, write_ipc, TempDir};

/// A random input: schema, batches and a description.
fn random_input(rng: &mut Rng) -> (Arc<Schema>, Vec<RecordBatch>, String) {
    let leaves = leaf_types();
    let columns = 1 + rng.below(4) as usize;
    let fields: Vec<Field> = (0..columns)
        .map(|i| {
            let depth = 1 + rng.below(4) as usize;
            let t = random_type(rng, depth, &leaves);
            let nullable = random_nullable(rng, &t);
            Field::new(format!("c{i}"), t, nullable)
        })
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let shape = NestedShape {
        null_percent: pick(rng, &[0, 10, 30, 30, 90]),
        max_len: pick(rng, &[1, 3, 5, 12]),
        distinct: 1 + rng.below(200),
    };
    let rows = match rng.below(10) {
        0 => rng.below(3) as usize,
        1..=3 => rng.below(40) as usize,
        _ => rng.below(400) as usize,
    };
    let batches = 1 + rng.below(4) as usize;
    let input = (0..batches)
        .map(|_| {
            let n = rows / batches + rng.below(3) as usize;
            let columns =
                schema.fields().iter().map(|f| random_array(rng, f.data_type(), n, f.is_nullable(), &shape)).collect();
            RecordBatch::try_new(schema.clone(), columns).unwrap()
        })
        .collect();
    let describe = format!(
        "{shape:?}, schema {:?}",
        schema.fields().iter().map(|f| (f.name(), f.data_type().to_string())).collect::<Vec<_>>()
    );
    (schema, input, describe)
}

/// Random options for a table of about `rows` rows.
fn random_options(rng: &mut Rng, schema: &Schema, rows: usize) -> WriteOptions {
    let mut o = WriteOptions::default();
    o = o.with_dictionary(rng.chance(60));
    o = o.with_dictionary_page_size_limit(pick(rng, &[64, 500, 4000, 1 << 20]));
    o = o.with_data_page_size(log_uniform(rng, 32, 1 << 20));
    o = o.with_data_page_row_limit(log_uniform(rng, 1, 20_000));
    o = o.with_row_group_rows(log_uniform(rng, if rows > 300 { 16 } else { 1 }, 5000));
    if rng.chance(15) {
        o = o.with_row_group_bytes(log_uniform(rng, 1000, 1 << 20));
    }
    let codec = pick(rng, &[Codec::Uncompressed, Codec::Snappy, Codec::Gzip, Codec::Lz4Raw, Codec::Zstd]);
    o = o.with_compression(codec);
    o = o.with_data_page_version(if rng.chance(50) { DataPageVersion::V2 } else { DataPageVersion::V1 });
    if rng.chance(50) {
        use Encoding as E;
        let ints = pick(rng, &[E::PLAIN, E::DELTA_BINARY_PACKED, E::DELTA_BINARY_PACKED, E::BYTE_STREAM_SPLIT]);
        let bytes = pick(rng, &[E::PLAIN, E::DELTA_LENGTH_BYTE_ARRAY, E::DELTA_BYTE_ARRAY]);
        let floats = pick(rng, &[E::PLAIN, E::BYTE_STREAM_SPLIT]);
        let fixed = pick(rng, &[E::PLAIN, E::DELTA_BYTE_ARRAY, E::BYTE_STREAM_SPLIT]);
        o = per_leaf(o, schema, ints, bytes, floats, fixed);
        if rng.chance(30) {
            // Dictionary first, then these encodings after fallback.
            for (path, _) in leaf_paths(schema) {
                if rng.chance(50) {
                    o = o.with_column_dictionary(&path, true);
                }
            }
        }
    }
    o = o.with_statistics(pick(
        rng,
        &[StatisticsLevel::None, StatisticsLevel::Chunk, StatisticsLevel::Page, StatisticsLevel::Page],
    ));
    o = o.with_page_index(rng.chance(70));
    o = o.with_page_header_statistics(rng.chance(30));
    o = o.with_size_statistics(rng.chance(70));
    o = o.with_crc(rng.chance(40));
    if rng.chance(20) {
        o = o.with_max_buffered_bytes(log_uniform(rng, 1, 1 << 16));
    }
    if rng.chance(40) {
        // Columns encoded on threads, finished pages written by the caller in column order.
        o = o.with_threads(pick(rng, &[2usize, 3]));
    }
    o
}

#[test]
fn random_nested_tables_and_options_read_back_exactly() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("nested-properties");
    let (mut written, mut cases, mut failures) = (Vec::new(), Vec::new(), Vec::new());
    for seed in seeds() {
        let mut rng = Rng::new(5000 + seed);
        let (schema, input, shape) = random_input(&mut rng);
        let rows: usize = input.iter().map(RecordBatch::num_rows).sum();
        let options = random_options(&mut rng, &schema, rows);
        let describe = format!("seed {seed}: {rows} rows in {} batches, {shape}, {options:?}", input.len());
        let path = dir.join(&format!("seed-{seed}.parquet"));
        let result = catch(|| try_write_parquet(&path, &schema, &input, options));
        match result {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                failures.push(format!("{describe}\n  write: {e}"));
                continue;
            }
            Err(panic) => {
                failures.push(format!("{describe}\n  write {panic}"));
                continue;
            }
        }
        let ipc = dir.join(&format!("seed-{seed}.arrow"));
        write_ipc(&ipc, &schema, &input);
        cases.push(serde_json::json!({
            "name": format!("seed {seed}"), "parquet": path.display().to_string(),
            "ipc": ipc.display().to_string(), "row_group_rows": 0, "stats": false, "readers": ["pyarrow"],
        }));
        written.push((describe, path.clone(), Table::from_batches(&schema, &input).unwrap()));
    }
    let paths: Vec<_> = written.iter().map(|w| w.1.clone()).collect();
    let pyarrow = pyarrow_tables("nested-properties", &paths);
    for (describe, path, want) in &written {
        match &pyarrow[path] {
            Ok(got) => {
                failures.extend(diff_named_like(want, got).into_iter().map(|d| format!("{describe}\n  pyarrow: {d}")))
            }
            // pyarrow may give a required struct under a null grandparent nulls its parent
            // lacks, which arrow-rs's IPC reader refuses; its values are compared in Python
            // then (the "pyarrow" reader of nested_check.py).
            Err(e) if e.contains("Found unmasked nulls") => {}
            Err(e) => failures.push(format!("{describe}\n  pyarrow: {e}")),
        }
    }
    // parquetry's own reader too, at a batch size that cuts pages and records apart and at
    // whole row groups.
    for (i, (describe, path, want)) in written.iter().enumerate() {
        for batch_size in [[1, 3, 7, 64][i % 4], usize::MAX] {
            let options = parquetry::read::ReadOptions::default().with_batch_size(batch_size);
            match read_compare::read_parquetry(path, &options) {
                Ok(got) => failures.extend(
                    diff_named_like(want, &got)
                        .into_iter()
                        .map(|d| format!("{describe}\n  parquetry (batch {batch_size}): {d}")),
                ),
                Err(e) => failures.push(format!("{describe}\n  parquetry (batch {batch_size}): {e}")),
            }
        }
    }
    let answer = run_python_json("nested_check.py", &serde_json::json!({ "cases": cases }));
    for m in answer["mismatches"].as_array().unwrap() {
        failures.push(m.as_str().unwrap().to_owned());
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
