//! Whole files: the input is a Parquet file, read to the end through `ParquetFile::from_bytes` and
//! the reader builder.
//!
//! The read options (batch size, row groups, columns, row selection, byte-array type, CRC
//! checks) are chosen by a hash of the input, so that every mutation of a file is also read
//! a different way, and the seeds stay plain Parquet files. Every batch's arrays are validated
//! in full (offsets, views, UTF-8, dictionary keys): an invalid array is a bug, as are
//! panics, hangs and huge allocations. Errors are fine.

#![no_main]

use std::ops::Range;

use arrow_array::Array;
use libfuzzer_sys::fuzz_target;
use parquetry::read::{ByteArrayType, ParquetFile, ParquetReaderBuilder, ReadOptions};

#[path = "rng.rs"]
mod rng;
use rng::Rng;

fn options(rng: &mut Rng, file: &ParquetFile<parquetry::page::BytesSource>) -> (ReadOptions, Option<u64>) {
    let meta = file.metadata();
    let groups = meta.row_groups.len();
    let rows: Vec<u64> = meta.row_groups.iter().map(|rg| rg.num_rows.max(0) as u64).collect();
    let total = rows.iter().fold(0u64, |a, &r| a.saturating_add(r));

    // Small batches, but not so small that a large file takes thousands of batches.
    let small = [1, 2, 3, 7, 8, 31, 64, 100, 1000, 4096][rng.below(10) as usize];
    let batch = small.max((total.min(1 << 20) / 2000) as usize);
    let mut o = ReadOptions::default().with_batch_size(batch);

    o = match rng.below(6) {
        0 => o.with_byte_array_type(ByteArrayType::Regular),
        1 => o.with_byte_array_type(ByteArrayType::Large),
        2 | 3 => o.with_byte_array_type(ByteArrayType::View),
        4 => o.with_byte_array_type(ByteArrayType::Dictionary),
        _ => o,
    };
    o = o.with_verify_crc(rng.chance(50));
    let mut row_groups = None;
    if groups > 0 && rng.chance(20) {
        let n = 1 + rng.below(groups as u64 + 1);
        let chosen: Vec<usize> = (0..n).map(|_| rng.below(groups as u64) as usize).collect();
        o = o.with_row_groups(chosen.iter().copied());
        row_groups = Some(chosen);
    }
    let fields = file.arrow_schema().fields().len();
    if fields > 0 && rng.chance(20) {
        let n = 1 + rng.below(fields as u64);
        o = o.with_columns((0..n).map(|_| rng.below(fields as u64) as usize));
    }
    // The rows the read must produce when it succeeds, if they can be told in advance.
    let mut expect = match &row_groups {
        Some(rg) => rg.iter().map(|&i| rows[i]).try_fold(0u64, |a, r| a.checked_add(r)),
        None => Some(total),
    };
    if rng.chance(40) {
        // Ordered, non-overlapping ranges within the file (and rarely not).
        let mut ranges: Vec<Range<u64>> = Vec::new();
        let mut at = 0u64;
        for _ in 0..1 + rng.below(6) {
            let gap = rng.below(total.saturating_sub(at) / 4 + 2);
            let len = rng.below(total.saturating_sub(at) / 3 + 2);
            let start = at.saturating_add(gap).min(total);
            let end = start.saturating_add(len).min(total);
            if start < end {
                ranges.push(start..end);
                at = end;
            }
        }
        if rng.chance(5) {
            ranges.push(total..total + 1 + rng.below(3));
        }
        // A selection counts rows of the file, so the rows it gives depend on the row
        // groups read only when all of them are, in order.
        expect = row_groups.is_none().then(|| ranges.iter().map(|r| r.end - r.start).sum());
        o = o.with_row_selection(ranges);
    }
    // Threads: columns, row groups and lanes of rows decoded at once (drawn last, so the
    // options drawn before keep their values for the corpus found without it).
    if rng.chance(25) {
        o = o.with_threads(2);
    }
    (o, expect)
}

fuzz_target!(|data: &[u8]| {
    let Ok(file) = ParquetFile::from_bytes(data.to_vec()) else { return };
    let mut rng = Rng::new(data);
    let (options, expect) = options(&mut rng, &file);
    let batch_size = options.batch_size();
    let Ok(batches) = ParquetReaderBuilder::new(file).with_options(options).build() else { return };
    let schema = arrow_array::RecordBatchReader::schema(&batches);
    let mut rows = 0u64;
    for batch in batches {
        let Ok(batch) = batch else { return };
        assert!(batch.num_rows() <= batch_size, "batch of {} rows, asked for {batch_size}", batch.num_rows());
        assert_eq!(batch.schema(), schema, "batch schema differs from the iterator's");
        for (i, column) in batch.columns().iter().enumerate() {
            assert_eq!(column.len(), batch.num_rows());
            if let Err(e) = column.to_data().validate_full() {
                panic!("column {i} ({}) is not a valid array: {e}", schema.field(i).name());
            }
        }
        rows += batch.num_rows() as u64;
    }
    if let Some(expect) = expect {
        assert_eq!(rows, expect, "a read that succeeded gave the wrong number of rows");
    }
});
