//! The corpus's `*_expect.csv` files hold the values of their Parquet files: parquetry reads
//! the same.
//!
//! Conventions of those files (checked against pyarrow when this test was written): a header
//! line of column names, some with a stray space or the Parquet name's trailing ':' dropped;
//! strings are quoted; integers are plain decimal; a null is an empty unquoted field.

mod common;
#[path = "common/read_compare.rs"]
mod read_compare;

use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::Array;
use arrow_schema::DataType;
use parquetry::read::ReadOptions;

/// One CSV field: `None` for an empty unquoted field (a null).
type Field = Option<String>;

/// Parses simple RFC 4180 CSV: fields separated by ',', optionally quoted with '"', '""'
/// inside quotes is a quote. Records end at '\n' (or "\r\n") outside quotes.
fn parse_csv(text: &str) -> Vec<Vec<Field>> {
    let mut records = Vec::new();
    let mut record: Vec<Field> = Vec::new();
    let mut field = String::new();
    let mut quoted = false; // the current field was quoted
    let mut in_quotes = false;
    let mut chars = text.chars().peekable();
    let mut any = false; // the current record has content
    while let Some(c) = chars.next() {
        if in_quotes {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => in_quotes = false,
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' => {
                in_quotes = true;
                quoted = true;
                any = true;
            }
            ',' => {
                record.push(finish(&mut field, &mut quoted));
                any = true;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                if any || !field.is_empty() {
                    record.push(finish(&mut field, &mut quoted));
                    records.push(std::mem::take(&mut record));
                }
                any = false;
            }
            _ => {
                field.push(c);
                any = true;
            }
        }
    }
    if any || !field.is_empty() {
        record.push(finish(&mut field, &mut quoted));
        records.push(record);
    }
    records
}

fn finish(field: &mut String, quoted: &mut bool) -> Field {
    let f = std::mem::take(field);
    let was_quoted = std::mem::replace(quoted, false);
    if f.is_empty() && !was_quoted {
        None
    } else {
        Some(f)
    }
}

/// A column name as the CSV headers write it: no surrounding spaces, no trailing ':'.
fn normalize(name: &str) -> String {
    name.trim().trim_end_matches(':').to_owned()
}

/// The column's values as the CSV writes them, or why they cannot be.
fn column_strings(a: &dyn Array) -> Result<Vec<Field>, String> {
    let out = match a.data_type() {
        DataType::Int32 => a.as_primitive::<Int32Type>().iter().map(|v| v.map(|x| x.to_string())).collect(),
        DataType::Int64 => a.as_primitive::<Int64Type>().iter().map(|v| v.map(|x| x.to_string())).collect(),
        t if read_compare::is_utf8_type(t) => read_compare::byte_values(a)
            .unwrap()
            .into_iter()
            .map(|v| v.map(|b| String::from_utf8(b).unwrap_or_else(|e| format!("<invalid UTF-8 {e}>"))))
            .collect(),
        t => return Err(format!("type {t} is not in any _expect.csv file; add its formatting here")),
    };
    Ok(out)
}

fn expect_files() -> Vec<(PathBuf, PathBuf)> {
    let data = common::corpus_dir().join("data");
    let mut files: Vec<(PathBuf, PathBuf)> = std::fs::read_dir(&data)
        .expect("corpus data dir")
        .filter_map(|e| {
            let path = e.ok()?.path();
            let name = path.file_name()?.to_str()?.to_owned();
            let stem = name.strip_suffix("_expect.csv")?;
            Some((data.join(format!("{stem}.parquet")), path))
        })
        .collect();
    files.sort();
    files
}

fn check(parquet: &Path, csv: &Path, options: &ReadOptions) -> Vec<String> {
    let text = std::fs::read_to_string(csv).expect("read csv");
    let mut records = parse_csv(&text);
    if records.is_empty() {
        return vec!["empty CSV".into()];
    }
    let header: Vec<String> = records.remove(0).into_iter().map(|f| normalize(&f.unwrap_or_default())).collect();
    let table = match read_compare::read_parquetry(parquet, options) {
        Ok(t) => t,
        Err(e) => return vec![e],
    };
    let names: Vec<String> = table.names.iter().map(|n| normalize(n)).collect();
    if names != header {
        return vec![format!("column names: CSV {header:?}, parquetry {:?}", table.names)];
    }
    if table.num_rows() != records.len() {
        return vec![format!("rows: CSV {}, parquetry {}", records.len(), table.num_rows())];
    }
    let mut diffs = Vec::new();
    for (j, (name, column)) in table.names.iter().zip(&table.columns).enumerate() {
        let got = match column_strings(column.as_ref()) {
            Ok(v) => v,
            Err(e) => {
                diffs.push(format!("column '{name}': {e}"));
                continue;
            }
        };
        for (i, record) in records.iter().enumerate() {
            let want = record.get(j).cloned().flatten();
            if got[i] != want {
                diffs.push(format!("column '{name}' row {i}: CSV {want:?}, parquetry {:?}", got[i]));
                break;
            }
        }
    }
    diffs
}

#[test]
fn csv_parser_handles_the_corpus_conventions() {
    let r = parse_csv("\"a\",\"b\",c\n\"x,\"\"y\"\"\",,7\r\n\"\",\"z\",\n");
    assert_eq!(
        r,
        vec![
            vec![Some("a".into()), Some("b".into()), Some("c".into())],
            vec![Some("x,\"y\"".into()), None, Some("7".into())],
            vec![Some(String::new()), Some("z".into()), None],
        ]
    );
}

#[test]
fn expect_csv_files_match_parquetry() {
    let files = expect_files();
    assert_eq!(files.len(), 4, "the corpus has 4 *_expect.csv files: {files:?}");
    let mut failures = Vec::new();
    for (parquet, csv) in &files {
        for (what, options) in [
            ("default", ReadOptions::default()),
            (
                "View, batch size 33",
                ReadOptions::default().with_byte_array_type(parquetry::read::ByteArrayType::View).with_batch_size(33),
            ),
        ] {
            let diffs = check(parquet, csv, &options);
            if !diffs.is_empty() {
                failures.push(format!(
                    "{} ({what}):\n    {}",
                    parquet.file_name().unwrap().to_string_lossy(),
                    diffs.join("\n    ")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} reads differ from the _expect.csv files:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
