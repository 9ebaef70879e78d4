//! Streams a file through `ParquetReaderBuilder` as a user does (each batch dropped before
//! the next, the file opened inside the timed region), at a batch size, on one thread against
//! several: a quick look at one cell of the sweep's thread table.
//!
//! `cargo run --release -p parquetry-bench --example read_stream -- FILE [BATCH_ROWS (65536;
//! 0 = whole row groups)] [THREADS (1,2)]`. Prints the median of 7 runs after 1 warm-up per
//! thread count, runs alternating; run it with `MIMALLOC_PURGE_DELAY=-1`, as the benches.

use parquetry::read::{ParquetReaderBuilder, ReadOptions};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        return Err("usage: read_stream FILE [BATCH_ROWS] [THREADS,...]".into());
    };
    let batch_rows = match args.get(1).map_or(Ok(65_536), |a| a.parse::<usize>())? {
        0 => usize::MAX,
        n => n,
    };
    let threads: Vec<usize> = match args.get(2) {
        Some(a) => a.split(',').map(str::parse).collect::<Result<_, _>>()?,
        None => vec![1, 2],
    };
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); threads.len()];
    let mut rows = 0;
    for round in 0..8 {
        for (i, &n) in threads.iter().enumerate() {
            let start = std::time::Instant::now();
            let options = ReadOptions::default().with_batch_size(batch_rows).with_threads(n);
            rows = 0;
            for batch in ParquetReaderBuilder::open(path)?.with_options(options).build()? {
                rows += batch?.num_rows();
            }
            if round > 0 {
                times[i].push(start.elapsed().as_secs_f64() * 1e3);
            }
        }
    }
    for (n, mut t) in threads.into_iter().zip(times) {
        t.sort_by(f64::total_cmp);
        println!("{path}: {rows} rows, {batch_rows}-row batches, {n} thread(s): median {:.1} ms", t[t.len() / 2]);
    }
    Ok(())
}
