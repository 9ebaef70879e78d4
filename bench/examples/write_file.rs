//! `parquetry::write::write_table` into a file, as a user calls it: the input file's rows in
//! batches of a given size (smaller than a row group: the open row group's input is held or
//! encoded as it comes), one thread against several (the file written behind the encoding).
//!
//! `cargo run --release -p parquetry-bench --example write_file -- INPUT OUTPUT CODEC
//! [BATCH_ROWS (65536)] [THREADS (1,2)] [BLOOM_COLUMNS (none)] [plain|dict (plain)]`, CODEC
//! one of none, snappy, zstd (level 1). Settings: no dictionary (`dict`: dictionary encoding),
//! the writer's defaults otherwise. With BLOOM_COLUMNS (comma-separated, or `all`), every
//! thread count is also run with bloom filters (default ndv and fpp) on those columns, to
//! measure what they cost. Prints the median of 5 runs after 1 warm-up per setting, runs
//! alternating; run it with `MIMALLOC_PURGE_DELAY=-1`, as the benches.

use parquetry::compress::{Codec, Compression};
use parquetry::read::{ParquetReaderBuilder, ReadOptions};
use parquetry::write::{write_table, WriteOptions};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output, codec, ..] = args.as_slice() else {
        return Err("usage: write_file INPUT OUTPUT none|snappy|zstd [BATCH_ROWS] [THREADS,...]".into());
    };
    let batch_rows: usize = args.get(3).map_or(Ok(65_536), |a| a.parse())?;
    let threads: Vec<usize> = match args.get(4) {
        Some(a) => a.split(',').map(str::parse).collect::<Result<_, _>>()?,
        None => vec![1, 2],
    };
    let bloom: Vec<&str> = match args.get(5).map(String::as_str) {
        None | Some("none") => Vec::new(),
        Some(columns) => columns.split(',').collect(),
    };
    let dictionary = args.get(6).is_some_and(|a| a == "dict");
    let blooms: &[bool] = if bloom.is_empty() { &[false] } else { &[false, true] };
    let (codec, level) = match codec.as_str() {
        "none" => (Codec::Uncompressed, None),
        "snappy" => (Codec::Snappy, None),
        "zstd" => (Codec::Zstd, Some(1)),
        other => return Err(format!("unknown codec {other}").into()),
    };
    let options = ReadOptions::default().with_batch_size(batch_rows);
    let batches: Vec<_> =
        ParquetReaderBuilder::open(input)?.with_options(options).build()?.collect::<Result<_, _>>()?;
    let schema = batches.first().ok_or("the input has no rows")?.schema();
    let settings: Vec<(usize, bool)> = threads.iter().flat_map(|&n| blooms.iter().map(move |&b| (n, b))).collect();
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); settings.len()];
    let mut sizes = vec![0u64; settings.len()];
    for round in 0..6 {
        for (i, &(n, with_bloom)) in settings.iter().enumerate() {
            let mut options = WriteOptions::default().with_dictionary(dictionary).with_threads(n);
            options = match level {
                Some(l) => options.with_compression(Compression::new(codec, Some(l))),
                None => options.with_compression(codec),
            };
            if with_bloom {
                options = match bloom.as_slice() {
                    ["all"] => options.with_bloom_filter_enabled(true),
                    columns => columns.iter().fold(options, |o, c| o.with_column_bloom_filter_enabled(c, true)),
                };
            }
            let start = std::time::Instant::now();
            write_table(output, schema.clone(), &batches, options)?;
            if round > 0 {
                times[i].push(start.elapsed().as_secs_f64() * 1e3);
            }
            sizes[i] = std::fs::metadata(output)?.len();
        }
    }
    for ((n, with_bloom), (mut t, size)) in settings.into_iter().zip(times.into_iter().zip(sizes)) {
        t.sort_by(f64::total_cmp);
        let bloom = if with_bloom { format!(", bloom filters on {}", bloom.join(",")) } else { String::new() };
        let encoding = if dictionary { "dictionary" } else { "no dictionary" };
        println!(
            "{input}: {batch_rows}-row batches, {n} thread(s), {encoding}{bloom}: median {:.1} ms, {size} bytes",
            t[t.len() / 2]
        );
    }
    Ok(())
}
