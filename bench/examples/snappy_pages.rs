//! SNAPPY decompression alone, on the compressed pages of real columns: parquetry's decoder,
//! the `snap` crate and (optionally) Google's C++ snappy, on exactly the same pages.
//!
//! ```text
//! cargo run --release -p parquetry-bench --example snappy_pages -- \
//!     [--data bench/data/filter] [--runs 9] [--columns id,url] [--dump DIR] [--cxx BIN]
//! ```
//!
//! Each column's pages (dictionary and data pages, located with parquetry's page layer) are
//! copied out of the file before timing. A run decompresses every page of a column, one after
//! the other, into one reused output buffer that was written once before timing (so no page
//! fault or zero-fill is timed), and the figure is GB/s of output, from the sum over pages of
//! each page's fastest time in `runs` runs (robust to a machine shared with other work: a
//! page of about 1 MB takes under a millisecond, so most runs of it are not interrupted); the
//! decoders take turns within each run. Before timing, every decoder's output of
//! every page is checked equal to `snap`'s.
//!
//! `--dump DIR` writes each column's pages to `DIR/<column>.pages` (per page: the compressed
//! length and the decompressed length as little-endian u32, then the compressed bytes);
//! `--cxx BIN` then runs `BIN DIR/<column>.pages RUNS` for each column, a driver that times
//! `snappy::RawUncompress` the same way (bench/snappy_cxx/driver.cc) and prints its GB/s.

use parquetry::compress::{Codec, Decompressor};
use parquetry::format;
use parquetry::page::{has_parquet_816_bug, BytesSource, PageStream};
use std::time::Instant;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The columns measured: (file under the data folder, column, what its pages are like).
const COLUMNS: [(&str, &str, &str); 7] = [
    ("strings_nulls.parquet", "id", "random hex strings: literal-heavy"),
    ("strings_nulls.parquet", "url", "URLs: copy-heavy"),
    ("strings_nulls.parquet", "category", "dictionary indexes"),
    ("tpch/lineitem.parquet", "l_comment", "TPC-H text"),
    ("tpch/lineitem.parquet", "l_partkey", "dictionary indexes"),
    ("tpch/lineitem.parquet", "l_extendedprice", "dictionary indexes"),
    ("tpch/lineitem.parquet", "l_shipmode", "dictionary indexes, tiny"),
];

/// One compressed page, copied out of its file.
struct Page {
    compressed: Vec<u8>,
    len: usize,
}

/// The SNAPPY pages of `column` in the file at `path`, in file order.
fn column_pages(path: &str, column: &str) -> Result<Vec<Page>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("reading {path}: {e}"))?;
    let meta = format::read_metadata_from_bytes(&bytes).map_err(|e| e.to_string())?;
    let file_len = bytes.len() as u64;
    let padding = has_parquet_816_bug(meta.created_by.as_deref());
    let mut source = BytesSource::new(bytes);
    let mut pages = Vec::new();
    for rg in &meta.row_groups {
        for chunk in &rg.columns {
            let cm = chunk.meta_data.as_ref().ok_or("no column metadata")?;
            if cm.path_in_schema.join(".") != column {
                continue;
            }
            if Codec::from_thrift(cm.codec.0).map_err(|e| e.to_string())? != Codec::Snappy {
                return Err(format!("{path}: {column} is not SNAPPY"));
            }
            let mut stream = PageStream::new(cm, file_len, padding).map_err(|e| e.to_string())?;
            while let Some(page) = stream.next_page(&mut source).map_err(|e| e.to_string())? {
                let h = &page.header;
                // v2 pages keep their levels uncompressed before the values.
                let skip = match &h.data_page_header_v2 {
                    Some(v2) if v2.is_compressed == Some(false) => continue,
                    Some(v2) => (v2.definition_levels_byte_length + v2.repetition_levels_byte_length) as usize,
                    None if h.data_page_header.is_some() || h.dictionary_page_header.is_some() => 0,
                    None => continue,
                };
                let len = h.uncompressed_page_size as usize - skip;
                pages.push(Page { compressed: page.body[skip..].to_vec(), len });
            }
        }
    }
    if pages.is_empty() {
        return Err(format!("{path}: no pages of column {column}"));
    }
    Ok(pages)
}

/// Writes the pages in the C++ driver's format.
fn dump(pages: &[Page], path: &std::path::Path) -> std::io::Result<()> {
    let mut out = Vec::new();
    for p in pages {
        out.extend_from_slice(&(p.compressed.len() as u32).to_le_bytes());
        out.extend_from_slice(&(p.len as u32).to_le_bytes());
        out.extend_from_slice(&p.compressed);
    }
    std::fs::write(path, out)
}

/// Decompresses every page once with parquetry's decoder into `out`, keeping each page's
/// fastest time in `best`.
fn time_ours(pages: &[Page], decompressor: &mut Decompressor, out: &mut Vec<u8>, best: &mut [f64]) {
    for (p, best) in pages.iter().zip(best) {
        let start = Instant::now();
        out.clear();
        decompressor.decompress(Codec::Snappy, &p.compressed, p.len, out).expect("ours failed");
        std::hint::black_box(&out);
        *best = best.min(start.elapsed().as_secs_f64());
    }
}

/// Decompresses every page once with `snap` into `out`, keeping each page's fastest time in
/// `best`.
fn time_snap(pages: &[Page], decoder: &mut snap::raw::Decoder, out: &mut [u8], best: &mut [f64]) {
    for (p, best) in pages.iter().zip(best) {
        let start = Instant::now();
        let n = decoder.decompress(&p.compressed, &mut out[..p.len]).expect("snap failed");
        std::hint::black_box(&out[..n]);
        *best = best.min(start.elapsed().as_secs_f64());
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let data = flag("--data").unwrap_or_else(|| "bench/data/filter".into());
    let runs: usize = flag("--runs").map_or(Ok(9), |r| r.parse())?;
    let cxx = flag("--cxx");
    let only = flag("--columns");
    let dump_dir = flag("--dump").or_else(|| cxx.as_ref().map(|_| "/tmp/snappy-pages".into()));
    if let Some(d) = &dump_dir {
        std::fs::create_dir_all(d)?;
    }
    println!(
        "| column | pages | compressed MB | output MB | ours GB/s | snap GB/s |{}",
        if cxx.is_some() { " google C++ GB/s | ours / google |" } else { "" }
    );
    println!("|---|---:|---:|---:|---:|---:|{}", if cxx.is_some() { "---:|---:|" } else { "" });
    for (file, column, _) in COLUMNS {
        if only.as_ref().is_some_and(|o| !o.split(',').any(|c| c == column)) {
            continue;
        }
        let pages = column_pages(&format!("{data}/{file}"), column)?;
        let largest = pages.iter().map(|p| p.len).max().unwrap_or(0);
        let total: usize = pages.iter().map(|p| p.len).sum();
        let compressed: usize = pages.iter().map(|p| p.compressed.len()).sum();
        // Both buffers written once, so that timing sees no page faults.
        let mut ours_out: Vec<u8> = vec![0; largest];
        let mut snap_out = vec![0u8; largest];
        let mut decompressor = Decompressor::new();
        let mut decoder = snap::raw::Decoder::new();
        for p in &pages {
            ours_out.clear();
            decompressor.decompress(Codec::Snappy, &p.compressed, p.len, &mut ours_out)?;
            let n = decoder.decompress(&p.compressed, &mut snap_out)?;
            if ours_out[..] != snap_out[..n] {
                return Err(format!("{column}: ours and snap differ on a page").into());
            }
        }
        let (mut ours, mut snap) = (vec![f64::MAX; pages.len()], vec![f64::MAX; pages.len()]);
        for _ in 0..runs {
            time_ours(&pages, &mut decompressor, &mut ours_out, &mut ours);
            time_snap(&pages, &mut decoder, &mut snap_out, &mut snap);
        }
        let (ours, snap): (f64, f64) = (ours.iter().sum(), snap.iter().sum());
        let gbs = |secs: f64| total as f64 / secs / 1e9;
        let mut line = format!(
            "| {column} | {} | {:.1} | {:.1} | {:.2} | {:.2} |",
            pages.len(),
            compressed as f64 / 1e6,
            total as f64 / 1e6,
            gbs(ours),
            gbs(snap)
        );
        if let Some(d) = &dump_dir {
            let path = std::path::Path::new(d).join(format!("{column}.pages"));
            dump(&pages, &path)?;
            if let Some(bin) = &cxx {
                let out = std::process::Command::new(bin).arg(&path).arg(runs.to_string()).output()?;
                if !out.status.success() {
                    return Err(format!("{bin}: {}", String::from_utf8_lossy(&out.stderr)).into());
                }
                let google: f64 = String::from_utf8(out.stdout)?.trim().parse()?;
                line += &format!(" {google:.2} | {:.2} |", gbs(ours) / google);
            }
        }
        println!("{line}");
    }
    Ok(())
}
