//! Filters never drop a row on real files: for every flat column of every corpus file pyarrow
//! reads, conditions on its median value (`=`, `!=`, `<`, `>=`, `IS NULL`) match as many rows
//! as pyarrow.compute counts. The corpus comes from many writers and vintages (legacy signed
//! min/max, unsigned columns, truncated bounds, page indexes), so this checks that pruning
//! only ever skips rows that cannot match.

mod common;

use std::process::Command;

use arrow_schema::TimeUnit;
use parquetry::filter::{col, Literal, Predicate};
use parquetry::read::{ParquetFile, ReadOptions};

fn literal(entry: &serde_json::Value) -> Option<Literal> {
    let v = &entry["value"];
    Some(match entry["kind"].as_str()? {
        "int" => match v.as_str()?.parse::<i64>() {
            Ok(i) => Literal::Int(i),
            Err(_) => Literal::UInt(v.as_str()?.parse().ok()?),
        },
        "float" => Literal::Float(v.as_f64()?),
        "str" => Literal::Str(v.as_str()?.to_owned()),
        "bool" => Literal::Bool(v.as_bool()?),
        "date" => Literal::Date(v.as_i64()? as i32),
        "decimal" => Literal::Decimal { unscaled: v.as_str()?.parse().ok()?, scale: entry["scale"].as_u64()? as u8 },
        "timestamp" => Literal::Timestamp {
            value: v.as_str()?.parse().ok()?,
            unit: match entry["unit"].as_str()? {
                "s" => TimeUnit::Second,
                "ms" => TimeUnit::Millisecond,
                "us" => TimeUnit::Microsecond,
                _ => TimeUnit::Nanosecond,
            },
        },
        _ => return None,
    })
}

fn count(path: &str, column: &str, p: Predicate) -> parquetry::Result<u64> {
    let file = ParquetFile::open(path)?;
    let mut rows = 0;
    for b in common::batches(&file, ReadOptions::default().with_columns([column]).with_filter(p))? {
        rows += b?.num_rows() as u64;
    }
    Ok(rows)
}

#[test]
fn filters_on_the_corpus_count_pyarrows_rows() {
    if common::pyarrow_missing() {
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/filter_corpus.py");
    let out = Command::new(common::python()).arg(script).arg(common::corpus_dir()).output().expect("python3");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let entries: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let (mut checked, mut failures, mut skipped) = (0, Vec::new(), Vec::new());
    for e in &entries {
        let (path, column) = (e["file"].as_str().unwrap(), e["column"].as_str().unwrap());
        let Some(v) = literal(e) else { continue };
        // Files or columns parquetry cannot read at all are the read tests' business.
        if ParquetFile::open(path)
            .and_then(|f| common::read_all(&f, &ReadOptions::default().with_columns([column])))
            .is_err()
        {
            skipped.push(format!("{path} {column}: not readable"));
            continue;
        }
        let c = col(column);
        let cases = [
            ("eq", c.eq(v.clone())),
            ("ne", c.ne(v.clone())),
            ("lt", c.lt(v.clone())),
            ("ge", c.ge(v.clone())),
            ("null", c.is_null()),
        ];
        for (name, p) in cases {
            let want = e["counts"][name].as_u64().unwrap();
            match count(path, column, p.clone()) {
                Ok(n) if n == want => checked += 1,
                Ok(n) => failures.push(format!("{path}: {p}: {n} rows, pyarrow {want}")),
                Err(err) => failures.push(format!("{path}: {p}: {err}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} conditions differ:\n{}",
        failures.len(),
        checked + failures.len(),
        failures.join("\n")
    );
    assert!(checked > 500, "only {checked} conditions checked; skipped: {skipped:?}");
}
