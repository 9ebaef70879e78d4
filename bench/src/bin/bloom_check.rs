//! Checks a file's bloom filters with arrow-rs's own reader and filter (`Sbbf`): every value
//! of every flat INT32, INT64 and string/binary column chunk (read as such, not as a
//! dictionary) that has a filter must be found
//! in it, and values not in the chunk (each value with a byte appended, or plus one) mostly
//! not.
//!
//! ```text
//! cargo run -p parquetry-bench --bin bloom_check -- FILE
//! ```
//!
//! Prints per column the values checked, those missing (must be 0) and the absent values
//! found (false positives); exits non-zero on a missing value or no filter at all.

use std::collections::HashSet;
use std::fs::File;
use std::process::ExitCode;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ProjectionMask;
use parquet::bloom_filter::Sbbf;
use parquet::file::properties::ReaderProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::serialized_reader::ReadOptionsBuilder;

/// The PLAIN bytes of each non-null value of `array`, and of a value next to each.
fn values(array: &ArrayRef) -> Option<(Vec<Vec<u8>>, Vec<Vec<u8>>)> {
    let valid = |i: usize| array.is_valid(i);
    let (present, near): (Vec<Vec<u8>>, Vec<Vec<u8>>) = match array.data_type() {
        DataType::Int32 => {
            let a = array.as_primitive::<Int32Type>();
            (0..a.len())
                .filter(|&i| valid(i))
                .map(|i| (a.value(i), a.value(i).wrapping_add(1)))
                .map(|(v, w)| (v.to_le_bytes().to_vec(), w.to_le_bytes().to_vec()))
                .unzip()
        }
        DataType::Int64 => {
            let a = array.as_primitive::<Int64Type>();
            (0..a.len())
                .filter(|&i| valid(i))
                .map(|i| (a.value(i), a.value(i).wrapping_add(1)))
                .map(|(v, w)| (v.to_le_bytes().to_vec(), w.to_le_bytes().to_vec()))
                .unzip()
        }
        DataType::Utf8 => {
            let a = array.as_string::<i32>();
            (0..a.len())
                .filter(|&i| valid(i))
                .map(|i| {
                    let v = a.value(i).as_bytes().to_vec();
                    let mut w = v.clone();
                    w.push(1);
                    (v, w)
                })
                .unzip()
        }
        DataType::Binary => {
            let a = array.as_binary::<i32>();
            (0..a.len())
                .filter(|&i| valid(i))
                .map(|i| {
                    let v = a.value(i).to_vec();
                    let mut w = v.clone();
                    w.push(1);
                    (v, w)
                })
                .unzip()
        }
        _ => return None,
    };
    Some((present, near))
}

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: bloom_check FILE");
        return ExitCode::FAILURE;
    };
    match check(&path) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("{path}: {e}");
            ExitCode::FAILURE
        }
    }
}

fn check(path: &str) -> Result<bool, Box<dyn std::error::Error>> {
    let properties = ReaderProperties::builder().set_read_bloom_filter(true).build();
    let options = ReadOptionsBuilder::new().with_reader_properties(properties).build();
    let reader = SerializedFileReader::new_with_options(File::open(path)?, options)?;
    let (mut ok, mut filters) = (true, 0);
    for g in 0..reader.num_row_groups() {
        let row_group = reader.get_row_group(g)?;
        for c in 0..row_group.num_columns() {
            let Some(filter) = row_group.get_column_bloom_filter(c) else { continue };
            filters += 1;
            let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path)?)?;
            let mask = ProjectionMask::leaves(builder.parquet_schema(), [c]);
            let batches = builder.with_row_groups(vec![g]).with_projection(mask).build()?;
            let (mut present, mut near) = (Vec::new(), Vec::new());
            for batch in batches {
                let batch = batch?;
                let Some((p, n)) = values(batch.column(0)) else { continue };
                present.extend(p);
                near.extend(n);
            }
            let set: HashSet<&Vec<u8>> = present.iter().collect();
            let missing = present.iter().filter(|v| !check_bytes(filter, v)).count();
            let absent: Vec<&Vec<u8>> = near.iter().filter(|v| !set.contains(v)).collect();
            let found = absent.iter().filter(|v| check_bytes(filter, v)).count();
            let name = row_group.metadata().column(c).column_path().string();
            println!(
                "row group {g}, {name}: {} values, {missing} missing; {} absent, {found} found ({:.2}%)",
                present.len(),
                absent.len(),
                100.0 * found as f64 / absent.len().max(1) as f64
            );
            ok &= missing == 0;
        }
    }
    if filters == 0 {
        println!("no bloom filter");
    }
    Ok(ok && filters > 0)
}

fn check_bytes(filter: &Sbbf, value: &[u8]) -> bool {
    filter.check(value)
}
