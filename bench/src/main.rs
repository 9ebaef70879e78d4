//! parquetry's benchmark instrument: times parquetry and the arrow-rs `parquet` crate on the
//! same files, reading and writing, against the hardware limits (decompress-only or
//! compress-only, memcpy). Not part of the default build (the `parquet` crate is a long
//! build); `bench/run.sh` runs everything.
//!
//! ```text
//! parquetry-bench footer [--runs N]
//! parquetry-bench read --files F... [--runs N] [--warmup N] [--json OUT]
//!                      [--impls parquetry,parquetry_view,arrow_rs,arrow_rs_view,decompress,memcpy]
//!                      [--reference bench/data/peers.json]
//! parquetry-bench write --files F... [--runs N] [--warmup N] [--json OUT]
//!                      [--impls parquetry,parquetry_dict_input,arrow_rs,arrow_rs_dict_input,compress,memcpy]
//!                      [--reference bench/data/peers-write.json]
//! parquetry-bench sweep --files F... [--batch-sizes 1024,8192,65536,0] [--runs N] [--warmup N]
//!                      [--json OUT] [--peers SWEEP_PEERS_JSON]
//! ```
//!
//! `read --impls` also takes `decompress_fresh` (each page into a new buffer, as a view
//! reader must) and `decompress_snap` (the arrow-rs reader's SNAPPY decoder on the same
//! pages). `write` writes each input file's batches, held in memory, with the input's own
//! settings (`write_spec.rs`) into memory, and reads every output back to check it.
//! `sweep` times parquetry (1 and 2 threads) and arrow-rs at several batch sizes, streaming
//! and collecting, a 1% row selection and the limit (read + decompress + memcpy), in one
//! process (`sweep.rs`, `sweep_cells.rs`), and prints Markdown tables (`sweep_table.rs`).

/// The allocator pyarrow uses (mimalloc), for parquetry and arrow-rs alike: freed output
/// memory is kept for the next run instead of going back to the kernel, which would zero it
/// again on first touch (that zeroing otherwise dominates every read on this kind of machine).
/// Wrapped to count live heap bytes (`heap`), for the peak-memory figures.
#[global_allocator]
static GLOBAL: heap::Counting = heap::Counting(mimalloc::MiMalloc);

mod cells;
mod checksum;
mod driver;
mod footer;
mod heap;
mod limits;
mod memory;
mod nested;
mod read;
mod sweep;
mod sweep_cells;
mod sweep_table;
mod timing;
mod write;
mod write_spec;

use cells::Mode;

const USAGE: &str = "usage:
  parquetry-bench footer [--runs N]
  parquetry-bench read --files F... [--runs N] [--warmup N] [--json OUT]
                       [--impls parquetry,parquetry_view,arrow_rs,arrow_rs_view,decompress,memcpy]
                       [--reference PEERS_JSON (default bench/data/peers.json)]
  (--impls also takes decompress_fresh, decompress_snap)
  parquetry-bench write --files F... [--runs N] [--warmup N] [--json OUT]
                       [--impls parquetry,parquetry_dict_input,arrow_rs,arrow_rs_dict_input,compress,memcpy]
                       [--reference PEERS_JSON (default bench/data/peers-write.json)]
  parquetry-bench nested --files F... [--runs N] [--warmup N] [--json OUT]
                       [--parquetry-only 1|reads|collect|writes [--batch-sizes 1024,0]]
  parquetry-bench sweep --files F... [--batch-sizes 1024,8192,65536,0 (0 = whole row groups)]
                       [--runs N] [--warmup N] [--json OUT] [--peers SWEEP_PEERS_JSON]";

fn usage_error(msg: &str) -> ! {
    eprintln!("{msg}\n{USAGE}");
    std::process::exit(2);
}

/// `--flag value` options and the multi-valued `--files`.
struct Flags {
    pairs: Vec<(String, Vec<String>)>,
}

impl Flags {
    fn parse(args: &[String]) -> Flags {
        let mut pairs: Vec<(String, Vec<String>)> = Vec::new();
        for a in args {
            if let Some(name) = a.strip_prefix("--") {
                pairs.push((name.to_owned(), Vec::new()));
            } else if let Some((_, values)) = pairs.last_mut() {
                values.push(a.clone());
            } else {
                usage_error(&format!("unexpected argument {a:?}"));
            }
        }
        Flags { pairs }
    }

    fn all(&self, name: &str) -> Option<&[String]> {
        self.pairs.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.as_slice())
    }

    fn one(&self, name: &str) -> Option<&str> {
        match self.all(name) {
            None => None,
            Some([v]) => Some(v),
            Some(_) => usage_error(&format!("--{name} takes one value")),
        }
    }

    fn number<T: std::str::FromStr>(&self, name: &str, default: T) -> T {
        match self.one(name) {
            None => default,
            Some(v) => v.parse().unwrap_or_else(|_| usage_error(&format!("--{name}: not a number: {v:?}"))),
        }
    }

    fn check_known(&self, known: &[&str]) {
        for (n, _) in &self.pairs {
            if !known.contains(&n.as_str()) {
                usage_error(&format!("unknown option --{n}"));
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flags = Flags::parse(args.get(1..).unwrap_or_default());
    match args.first().map(String::as_str) {
        Some("footer") => {
            flags.check_known(&["runs"]);
            footer::run(flags.number("runs", 21));
        }
        Some(name @ ("read" | "write")) => {
            let mode = Mode::parse(name).expect("read or write");
            flags.check_known(&["files", "runs", "warmup", "json", "impls", "reference"]);
            let files =
                flags.all("files").filter(|f| !f.is_empty()).unwrap_or_else(|| usage_error("--files is required"));
            let (all, extra, reference): (&[&str], &[&str], &str) = match mode {
                Mode::Read => (&read::IMPLS, &read::EXTRA_IMPLS, "bench/data/peers.json"),
                Mode::Write => (&write::IMPLS, &[], "bench/data/peers-write.json"),
            };
            let impls: Vec<String> = match flags.one("impls") {
                None => all.iter().map(|s| s.to_string()).collect(),
                Some(list) => list.split(',').filter(|s| !s.is_empty()).map(str::to_owned).collect(),
            };
            if let Some(bad) = impls.iter().find(|i| !all.contains(&i.as_str()) && !extra.contains(&i.as_str())) {
                usage_error(&format!("unknown implementation {bad:?}"));
            }
            let runs = flags.number("runs", 5usize);
            if runs == 0 {
                usage_error("--runs must be at least 1");
            }
            driver::run(&driver::RunArgs {
                mode,
                files: files.to_vec(),
                runs,
                warmup: flags.number("warmup", 1),
                impls,
                json: flags.one("json").map(str::to_owned),
                reference: flags.one("reference").unwrap_or(reference).to_owned(),
            });
        }
        Some("sweep") => {
            flags.check_known(&["files", "batch-sizes", "runs", "warmup", "json", "peers"]);
            let files =
                flags.all("files").filter(|f| !f.is_empty()).unwrap_or_else(|| usage_error("--files is required"));
            let mut batch_sizes: Vec<usize> = match flags.one("batch-sizes") {
                None => sweep::DEFAULT_BATCH_SIZES.to_vec(),
                Some(list) => list
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(|s| s.parse().unwrap_or_else(|_| usage_error(&format!("--batch-sizes: not a number: {s:?}"))))
                    .collect(),
            };
            // A repeated size would only run the same cells twice under one key.
            let mut seen = std::collections::HashSet::new();
            batch_sizes.retain(|b| seen.insert(*b));
            if batch_sizes.is_empty() {
                usage_error("--batch-sizes is empty");
            }
            let runs = flags.number("runs", 5usize);
            if runs == 0 {
                usage_error("--runs must be at least 1");
            }
            sweep::run(&sweep::SweepArgs {
                files: files.to_vec(),
                batch_sizes,
                runs,
                warmup: flags.number("warmup", 1),
                json: flags.one("json").map(str::to_owned),
                peers: flags.one("peers").map(str::to_owned),
            });
        }
        Some("nested") => {
            flags.check_known(&["files", "runs", "warmup", "json", "parquetry-only", "batch-sizes"]);
            let files =
                flags.all("files").filter(|f| !f.is_empty()).unwrap_or_else(|| usage_error("--files is required"));
            nested::main(&nested::NestedArgs {
                files: files.to_vec(),
                runs: flags.number("runs", 5usize).max(1),
                warmup: flags.number("warmup", 1),
                json: flags.one("json").map(str::to_owned),
                parquetry_only: flags.one("parquetry-only").is_some(),
                writes_only: flags.one("parquetry-only") == Some("writes"),
                reads_only: matches!(flags.one("parquetry-only"), Some("reads" | "collect")),
                collect: flags.one("parquetry-only") == Some("collect"),
                batch_sizes: flags.one("batch-sizes").map(|list| {
                    list.split(',')
                        .filter(|s| !s.is_empty())
                        .map(|s| {
                            s.parse().unwrap_or_else(|_| usage_error(&format!("--batch-sizes: not a number: {s:?}")))
                        })
                        .collect()
                }),
            });
        }
        // Hidden: one implementation × one file, run by `read` in a child process.
        Some("cell") => {
            let need =
                |n: &str| flags.one(n).unwrap_or_else(|| usage_error(&format!("cell: --{n} is required"))).to_owned();
            let mode = flags.one("mode").unwrap_or("read");
            cells::cell_main(&cells::CellArgs {
                mode: Mode::parse(mode).unwrap_or_else(|| usage_error(&format!("cell: unknown --mode {mode:?}"))),
                imp: need("impl"),
                file: need("file"),
                runs: flags.number("runs", 5),
                warmup: flags.number("warmup", 1),
                value_bytes: flags.number("value-bytes", 0),
            });
        }
        _ => usage_error("no subcommand"),
    }
}
