//! Datasets read as duckdb reads them: folders with hive partitions (a null and a
//! percent-encoded value, `_SUCCESS` and hidden files that are not data), files whose
//! columns differ, globs; with projections and filters on file columns, partition columns and
//! both. pyarrow writes the files (`support/dataset_cases.py`); duckdb's rows are the
//! reference. Bad sources give errors that name the file or folder.

mod common;
#[path = "common/read_compare.rs"]
mod read_compare;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use parquetry::dataset::{Dataset, DatasetBuilder, Partitioning};
use parquetry::filter::parse;
use parquetry::read::ReadOptions;
use parquetry::write::{write_table, WriteOptions};
use read_compare::{diff_tables, read_ipc, Table};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/dataset_cases.py");

/// The datasets, written once per test process.
fn root() -> &'static PathBuf {
    static ROOT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ROOT.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("parquetry-dataset-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let out = Command::new(common::python()).args([SCRIPT, "write", dir.to_str().unwrap()]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        dir
    })
}

/// One read: our source and options, duckdb's source and query.
struct Case {
    name: &'static str,
    ours: Vec<String>,
    partitioning: Partitioning,
    columns: Option<Vec<&'static str>>,
    filter: &'static str,
    duckdb_source: String,
    hive: bool,
    select: &'static str,
    threads: usize,
}

fn cases() -> Vec<Case> {
    let r = root().display().to_string();
    let hive_dir = format!("{r}/hive");
    let hive_glob = format!("{r}/hive/k=*/*/*.parquet");
    let all = "id, x, y, CAST(k AS INTEGER) AS k, s";
    let hive = |name, columns: Option<Vec<&'static str>>, filter, select, threads| Case {
        name,
        ours: vec![hive_dir.clone()],
        partitioning: Partitioning::Hive,
        columns,
        filter,
        duckdb_source: hive_glob.clone(),
        hive: true,
        select,
        threads,
    };
    let evolve = |name, columns: Option<Vec<&'static str>>, filter, select| Case {
        name,
        ours: vec![format!("{r}/evolve")],
        partitioning: Partitioning::Hive,
        columns,
        filter,
        duckdb_source: format!("{r}/evolve/**/*.parquet"),
        hive: false,
        select,
        threads: 1,
    };
    vec![
        hive("hive everything", None, "", all, 1),
        hive("hive everything, 2 threads", None, "", all, 2),
        hive("partition equality", Some(vec!["s", "id"]), "k = 1", "s, id", 1),
        hive("null partition and a file column", None, "k IS NULL AND x < 100", all, 1),
        hive("partition or file column", None, "s = 'w w/x' OR x > 990", all, 1),
        hive("partition or file column, 2 threads", None, "s = 'w w/x' OR x > 990", all, 2),
        hive("prefix and partition list", Some(vec!["id", "y"]), "y LIKE 'y01%' AND k IN (0, 2)", "id, y", 1),
        hive("partition columns only", Some(vec!["k"]), "s != 'u'", "CAST(k AS INTEGER) AS k", 1),
        hive("not of a null partition", Some(vec!["id", "k"]), "NOT (k = 1)", "id, CAST(k AS INTEGER) AS k", 1),
        Case {
            name: "glob",
            ours: vec![format!("{r}/hive/k=*/s=u/*.parquet")],
            duckdb_source: format!("{r}/hive/k=*/s=u/*.parquet"),
            ..hive("", None, "x >= 500", all, 1)
        },
        Case {
            name: "a list of two folders",
            ours: vec![format!("{r}/hive/k=0"), format!("{r}/hive/k=2")],
            duckdb_source: "x".into(),
            ..hive("", Some(vec!["id", "s"]), "", "id, s", 1)
        },
        Case { partitioning: Partitioning::None, ..hive("no partitioning", None, "", "id, x, y", 1) },
        evolve("columns missing from some files", None, "", "id, x, y, z"),
        evolve("filter on a column some files lack", Some(vec!["id", "y"]), "z IS NULL", "id, y"),
        evolve("filter pushed to files that have it", Some(vec!["id", "z"]), "x > 10", "id, z"),
    ]
}

/// duckdb's rows for every case, by name.
fn duckdb_tables(cases: &[Case]) -> Vec<Table> {
    let out_dir = root().join("duckdb");
    std::fs::create_dir_all(&out_dir).unwrap();
    let mut child = Command::new(common::python())
        .args([SCRIPT, "query"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut outs = Vec::new();
    {
        let mut stdin = child.stdin.take().unwrap();
        for (i, c) in cases.iter().enumerate() {
            let out = out_dir.join(format!("{i}.arrow"));
            // A list of folders is a list of globs to duckdb.
            let source = match c.name {
                "a list of two folders" => serde_json::json!([
                    format!("{}/hive/k=0/*/*.parquet", root().display()),
                    format!("{}/hive/k=2/*/*.parquet", root().display())
                ]),
                _ => serde_json::json!(c.duckdb_source),
            };
            let line = serde_json::json!({"source": source, "hive": c.hive, "select": c.select, "where": c.filter, "out": out});
            writeln!(stdin, "{line}").unwrap();
            outs.push(out);
        }
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "duckdb: {}", String::from_utf8_lossy(&out.stderr));
    outs.iter().map(|p| read_ipc(p).unwrap()).collect()
}

fn read(c: &Case) -> parquetry::Result<Table> {
    let dataset =
        DatasetBuilder::new(c.ours.clone()).with_partitioning(c.partitioning.clone()).with_threads(2).build()?;
    let mut options = ReadOptions::default().with_batch_size(700).with_threads(c.threads);
    if let Some(columns) = &c.columns {
        options = options.with_columns(columns.iter().copied());
    }
    if !c.filter.is_empty() {
        options = options.with_filter(parse(c.filter)?);
    }
    let (schema, batches) = match c.threads {
        1 => {
            let mut reader = dataset.reader(options)?;
            let schema = arrow_array::RecordBatchReader::schema(&reader);
            let mut batches = Vec::new();
            while let Some(b) = reader.next_batch() {
                batches.push(b?);
            }
            (schema, batches)
        }
        _ => {
            let schema = dataset.reader(options.clone())?;
            (arrow_array::RecordBatchReader::schema(&schema), dataset.read_all(options)?)
        }
    };
    Ok(Table::from_batches(&schema, &batches).unwrap())
}

#[test]
fn datasets_read_as_duckdb_reads_them() {
    if common::pyarrow_missing() {
        return;
    }
    let cases = cases();
    let want = duckdb_tables(&cases);
    let mut failures = Vec::new();
    for (c, want) in cases.iter().zip(&want) {
        match read(c) {
            Ok(got) => {
                let diffs = diff_tables(want, &got);
                if !diffs.is_empty() {
                    failures.push(format!("{}: {}", c.name, diffs.join("; ")));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", c.name)),
        }
    }
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[test]
fn partition_filters_prune_files_unopened() {
    if common::pyarrow_missing() {
        return;
    }
    let dataset = Dataset::open([root().join("hive").display().to_string()]).unwrap();
    assert_eq!(dataset.files().len(), 24, "12 partitions of 2 files; _SUCCESS and .hidden skipped");
    let kept = dataset.prune(&parse("k = 1 AND x > 5").unwrap()).unwrap();
    let paths: Vec<String> = kept.iter().map(|&i| dataset.files()[i].path().display().to_string()).collect();
    assert_eq!(paths.len(), 6, "{paths:?}");
    assert!(paths.iter().all(|p| p.contains("/k=1/")), "{paths:?}");
    let schema = dataset.schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, ["id", "x", "y", "k", "s"]);
    assert_eq!(dataset.schema().field(3).data_type(), &DataType::Int32, "pyarrow infers int32 for integer keys");
    assert_eq!(dataset.num_rows(), 6000);
}

// ---------------------------------------------------------------------------------------------
// Bad sources (files written by parquetry itself: only the errors are checked here).

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("parquetry-dataset-bad-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write_one(path: &Path, name: &str, column: ArrayRef) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let schema = Arc::new(Schema::new(vec![Field::new(name, column.data_type().clone(), true)]));
    let batch = RecordBatch::try_new(schema.clone(), vec![column]).unwrap();
    write_table(path, schema, [&batch], WriteOptions::default()).unwrap();
}

fn open_err(sources: &[String]) -> String {
    match Dataset::open(sources.to_vec()) {
        Ok(_) => panic!("{sources:?} opened"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_sources_name_the_file_or_folder() {
    let dir = scratch("sources");
    let empty = dir.join("empty");
    std::fs::create_dir_all(empty.join("_temporary")).unwrap();
    let e = open_err(&[empty.display().to_string()]);
    assert!(e.contains("empty") && e.contains("no Parquet files"), "{e}");
    let e = open_err(&[dir.join("missing").display().to_string()]);
    assert!(e.contains("missing"), "{e}");
    let e = open_err(&[dir.join("*.nothing").display().to_string()]);
    assert!(e.contains("*.nothing"), "{e}");

    // One column with two types: the first file's type, as pyarrow takes it; reading the
    // other file's column is the error, naming both files; pruning that file avoids it.
    let clash = dir.join("clash");
    write_one(&clash.join("k=0/a.parquet"), "x", Arc::new(Int64Array::from(vec![1])));
    write_one(&clash.join("k=1/b.parquet"), "x", Arc::new(StringArray::from(vec!["1"])));
    let clashing = Dataset::open([clash.display().to_string()]).unwrap();
    assert_eq!(clashing.schema().field(0).data_type(), &DataType::Int64);
    let e = clashing.read_all(ReadOptions::default()).expect_err("a string read as int").to_string();
    assert!(e.contains("a.parquet") && e.contains("b.parquet") && e.contains("'x'"), "{e}");
    let pruned = clashing.read_all(ReadOptions::default().with_filter(parse("k = 0").unwrap())).unwrap();
    assert_eq!(pruned.iter().map(|b| b.num_rows()).sum::<usize>(), 1);
    let keys_only = clashing.read_all(ReadOptions::default().with_columns(["k"])).unwrap();
    assert_eq!(keys_only.iter().map(|b| b.num_rows()).sum::<usize>(), 2);

    let junk = dir.join("junk");
    write_one(&junk.join("a.parquet"), "x", Arc::new(Int64Array::from(vec![1])));
    std::fs::write(junk.join("notes.txt"), b"not parquet at all").unwrap();
    let e = open_err(&[junk.display().to_string()]);
    assert!(e.contains("notes.txt"), "{e}");

    let typed = dir.join("typed");
    write_one(&typed.join("k=one/a.parquet"), "x", Arc::new(Int64Array::from(vec![1])));
    let r = DatasetBuilder::new([typed.display().to_string()])
        .with_partition_fields([Arc::new(Field::new("k", DataType::Int32, true))])
        .build();
    let e = r.expect_err("k=one as Int32").to_string();
    assert!(e.contains("k=one") || e.contains("\"one\""), "{e}");
    assert!(e.contains("Int32"), "{e}");

    let both = dir.join("both");
    write_one(&both.join("x=1/a.parquet"), "x", Arc::new(Int64Array::from(vec![1])));
    let e = open_err(&[both.display().to_string()]);
    assert!(e.contains("'x'") && e.contains("partition key"), "{e}");

    let ok = Dataset::open([typed.display().to_string()]).unwrap();
    let e = ok.reader(ReadOptions::default().with_columns(["nope"])).err().expect("unknown column").to_string();
    assert!(e.contains("nope"), "{e}");
    let e = ok.reader(ReadOptions::default().with_filter(parse("nope = 1").unwrap())).err().unwrap().to_string();
    assert!(e.contains("nope"), "{e}");
    let e = ok.reader(ReadOptions::default().with_row_groups([0])).err().unwrap().to_string();
    assert!(e.contains("row groups"), "{e}");
}

#[test]
fn directory_partitioning_and_other_ignore_prefixes() {
    let dir = scratch("directory");
    write_one(&dir.join("2024/eu/a.parquet"), "x", Arc::new(Int64Array::from(vec![1, 2])));
    write_one(&dir.join("2025/b.parquet"), "x", Arc::new(Int64Array::from(vec![3])));
    write_one(&dir.join("2026/_c.parquet"), "x", Arc::new(Int64Array::from(vec![4])));
    write_one(&dir.join("tmp_skip/d.parquet"), "x", Arc::new(Int64Array::from(vec![5])));
    let dataset = DatasetBuilder::new([dir.display().to_string()])
        .with_partitioning(Partitioning::Directory(vec!["year".into(), "region".into()]))
        .with_ignore_prefixes(["tmp_"])
        .build()
        .unwrap();
    let files: Vec<String> = dataset.files().iter().map(|f| f.path().display().to_string()).collect();
    assert_eq!(files.len(), 3, "tmp_skip left out, _c kept: {files:?}");
    let schema = dataset.schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, ["x", "year", "region"]);
    let batches = dataset.read_all(ReadOptions::default().with_filter(parse("year = 2024").unwrap())).unwrap();
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 2);
    let region = batches[0].column(2).as_any().downcast_ref::<StringArray>().unwrap();
    assert_eq!(region.value(0), "eu");
}

#[test]
fn a_file_that_changes_size_after_opening_is_refused() {
    let dir = scratch("changed");
    write_one(&dir.join("a.parquet"), "x", Arc::new(Int64Array::from(vec![1, 2, 3])));
    let dataset = Dataset::open([dir.display().to_string()]).unwrap();
    write_one(&dir.join("a.parquet"), "x", Arc::new(Int64Array::from((0..1000).collect::<Vec<i64>>())));
    let e = dataset.read_all(ReadOptions::default()).expect_err("changed file").to_string();
    assert!(e.contains("a.parquet") && e.contains("changed size"), "{e}");
}

#[test]
fn a_given_schema_naming_a_partition_key_first_keeps_partition_columns_last() {
    if common::pyarrow_missing() {
        return;
    }
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int64, true),
        Field::new("id", DataType::Int64, true),
        Field::new("s", DataType::Utf8, true),
    ]));
    let dataset = DatasetBuilder::new([root().join("hive").display().to_string()]).with_schema(schema).build().unwrap();
    let names: Vec<String> = dataset.schema().fields().iter().map(|f| f.name().clone()).collect();
    assert_eq!(names, ["id", "k", "s"]);
    assert_eq!(dataset.schema().field(1).data_type(), &DataType::Int64, "the given type of a partition key");
    let options = ReadOptions::default().with_filter(parse("k = 1 AND id < 100").unwrap());
    let batches = dataset.read_all(options).unwrap();
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    // pyarrow wrote k = i % 3 (null every 7th) for ids 0..6000: ids below 100 with k = 1.
    let want = (0..100).filter(|i| i % 7 != 0 && i % 3 == 1).count();
    assert_eq!(rows, want);
}
