//! Reads a whole Parquet file into Arrow and prints how long it took.
//!
//! `cargo run --release -p parquetry --example read_file -- FILE [view|large|dict] [runs]`

use std::time::Instant;

use parquetry::read::{ByteArrayType, ParquetFile, ReadOptions};

fn main() -> Result<(), parquetry::Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: read_file FILE [view|large|dict] [runs]");
        std::process::exit(2);
    };
    let mut options = ReadOptions::default().with_batch_size(usize::MAX);
    match args.get(1).map(String::as_str) {
        Some("view") => options = options.with_byte_array_type(ByteArrayType::View),
        Some("large") => options = options.with_byte_array_type(ByteArrayType::Large),
        Some("dict") => options = options.with_byte_array_type(ByteArrayType::Dictionary),
        _ => {}
    }
    let runs: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(5);
    let mut times = Vec::new();
    let mut rows = 0;
    for _ in 0..runs {
        let start = Instant::now();
        let mut file = ParquetFile::open(path)?;
        let batches = file.read_all(&options)?;
        times.push(start.elapsed());
        rows = batches.iter().map(|b| b.num_rows()).sum::<usize>();
    }
    times.sort();
    println!("{path}: {rows} rows, median {:?} of {runs} runs", times[times.len() / 2]);
    Ok(())
}
