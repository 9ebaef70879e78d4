//! Property tests of the writer without a property-testing crate: for each of 40 seeds (see
//! [`seeds`]), a
//! random table of every flat type (rows, batches, null share, distinct values, sometimes
//! binaries of 5–50 KB) written with random options (dictionary and its page limit small
//! enough to fall back mid-chunk, page size and row limit, row group rows and bytes, codec and
//! level, page version, encodings per type, statistics, page index, CRC, spilling to a scratch
//! file), then read back by parquetry and by pyarrow (all seeds in one Python process): both
//! must give exactly the input. A failure prints the seed, the shape and the options.

mod common;
#[path = "common/read_compare.rs"]
mod read_compare;
#[path = "common/write_data.rs"]
mod write_data;
#[path = "common/write_helpers.rs"]
mod write_helpers;

use parquetry::compress::{Codec, Compression};
use parquetry::format::Encoding;
use parquetry::read::ReadOptions;
use parquetry::write::{DataPageVersion, StatisticsLevel, WriteOptions};
use read_compare::{catch, diff_tables, pyarrow_tables, read_parquetry, Table};
use write_data::{all_types, log_uniform, pick, property_seeds as seeds, Rng, Shape};
use write_helpers::{per_type, try_write_parquet, TempDir};

/// The random input of one seed: (rows, batches, shape).
fn random_shape(rng: &mut Rng) -> (usize, usize, Shape) {
    let long = rng.chance(12);
    let rows = match rng.below(10) {
        0 => rng.below(3) as usize,
        // Binaries of up to 50 KB in 3 columns: few rows keep a debug build quick.
        _ if long => 20 + rng.below(130) as usize,
        1..=3 => rng.below(100) as usize,
        _ => rng.below(3001) as usize,
    };
    let batches = 1 + rng.below(5) as usize;
    let shape = Shape {
        null_percent: pick(rng, &[0, 15, 15, 100]),
        distinct: 1 + rng.below(500),
        max_binary: if long { 5_000 + rng.below(45_001) as usize } else { pick(rng, &[0, 8, 64, 300]) },
    };
    (rows, batches, shape)
}

/// Random options for a table of `rows` rows; the description is printed on failure.
fn random_options(rng: &mut Rng, schema: &arrow_schema::Schema, rows: usize) -> WriteOptions {
    let mut o = WriteOptions::default();
    o = o.with_dictionary(rng.chance(60));
    // Small limits make high-cardinality columns fall back to their encoding mid-chunk.
    o = o.with_dictionary_page_size_limit(pick(rng, &[64, 500, 4000, 1 << 20]));
    o = o.with_data_page_size(log_uniform(rng, 64, 1 << 20));
    // One-row pages only for small tables (a page per row of 36 columns is slow in debug).
    let min_page_rows = if rows > 300 { 16 } else { 1 };
    o = o.with_data_page_row_limit(log_uniform(rng, min_page_rows, 20_000));
    o = o.with_row_group_rows(log_uniform(rng, if rows > 300 { 64 } else { 1 }, 5000));
    if rng.chance(15) {
        o = o.with_row_group_bytes(log_uniform(rng, 1000, 1 << 20));
    }
    let codec = pick(
        rng,
        &[Codec::Uncompressed, Codec::Snappy, Codec::Gzip, Codec::Brotli, Codec::Lz4, Codec::Lz4Raw, Codec::Zstd],
    );
    o = match (codec, rng.chance(30)) {
        (Codec::Zstd, true) => o.with_compression(Compression::new(codec, Some(1 + rng.below(9) as i32))),
        (Codec::Gzip, true) => o.with_compression(Compression::new(codec, Some(rng.below(10) as i32))),
        (Codec::Brotli, true) => o.with_compression(Compression::new(codec, Some(rng.below(6) as i32))),
        _ => o.with_compression(codec),
    };
    o = o.with_data_page_version(if rng.chance(50) { DataPageVersion::V2 } else { DataPageVersion::V1 });
    if rng.chance(50) {
        use Encoding as E;
        let ints = pick(rng, &[E::PLAIN, E::DELTA_BINARY_PACKED, E::DELTA_BINARY_PACKED, E::BYTE_STREAM_SPLIT]);
        let bytes = pick(rng, &[E::PLAIN, E::DELTA_LENGTH_BYTE_ARRAY, E::DELTA_BYTE_ARRAY]);
        let floats = pick(rng, &[E::PLAIN, E::BYTE_STREAM_SPLIT]);
        let fixed = pick(rng, &[E::PLAIN, E::DELTA_BYTE_ARRAY, E::BYTE_STREAM_SPLIT]);
        o = per_type(o, schema, ints, bytes, floats, fixed);
        if rng.chance(30) {
            // Dictionary first, then these encodings after fallback.
            for f in schema.fields() {
                if rng.chance(50) {
                    o = o.with_column_dictionary(f.name(), true);
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
        o = o.with_statistics_truncate_length(pick(rng, &[None, Some(1), Some(16)]));
    }
    if rng.chance(20) {
        // Spill encoded pages to a scratch file past a small bound.
        o = o.with_max_buffered_bytes(log_uniform(rng, 1, 1 << 16));
    }
    if rng.chance(40) {
        // Columns encoded on threads, finished pages written by the caller in column order.
        o = o.with_threads(pick(rng, &[2usize, 3]));
    }
    o
}

struct Written {
    seed: u64,
    describe: String,
    path: std::path::PathBuf,
    want: Table,
}

#[test]
fn random_tables_and_options_read_back_exactly() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("write-properties");
    let mut written = Vec::new();
    let mut failures = Vec::new();
    for seed in seeds() {
        let mut rng = Rng::new(1000 + seed);
        let (rows, batches, shape) = random_shape(&mut rng);
        let (schema, input) = all_types(seed, rows, batches, shape);
        let options = random_options(&mut rng, &schema, rows);
        let describe = format!("seed {seed}: {rows} rows in {batches} batches, {shape:?}, {options:?}");
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
        let mut want = Table::from_batches(&schema, &input).unwrap();
        want.columns = write_data::as_read_back(&want.columns);
        match read_parquetry(&path, &ReadOptions::default()) {
            Ok(got) => {
                failures.extend(diff_tables(&want, &got).into_iter().map(|d| format!("{describe}\n  parquetry: {d}")))
            }
            Err(e) => failures.push(format!("{describe}\n  parquetry: {e}")),
        }
        written.push(Written { seed, describe, path, want });
    }
    let paths: Vec<_> = written.iter().map(|w| w.path.clone()).collect();
    let pyarrow = pyarrow_tables("write-properties", &paths);
    for w in &written {
        match &pyarrow[&w.path] {
            Ok(got) => failures
                .extend(diff_tables(&w.want, got).into_iter().map(|d| format!("{}\n  pyarrow: {d}", w.describe))),
            Err(e) => failures.push(format!("{}\n  pyarrow (seed {}): {e}", w.describe, w.seed)),
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
