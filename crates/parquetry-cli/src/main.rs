//! The `parquetry` command-line tool.

mod args;
mod cat;
mod compact;
mod convert;
mod display;
mod inspect;
mod inspect_dataset;
mod merge;
mod remote;
mod values;

use std::process::ExitCode;

/// mimalloc, as pyarrow and polars use: it keeps freed memory for reuse instead of returning
/// it to the kernel, which zeroes every page again on its next first touch; reading a large
/// file batch after batch then reuses the same pages.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const USAGE: &str = "\
parquetry: fast Apache Parquet tools

USAGE:
    parquetry inspect [--pages] [--json] FILE|FOLDER|GLOB
    parquetry cat [--columns A,B] [--where COND] [--json|--csv|--format arrow] FILE...|FOLDER|GLOB
    parquetry convert [--compression CODEC[:LEVEL]] [--encoding [COL=]ENC] ... INPUT OUTPUT
    parquetry merge [--row-group-rows N] [--compression CODEC[:LEVEL]] ... --output OUT INPUT...
    parquetry compact [--target-file-size SIZE] [--dry-run] ROOT

COMMANDS:
    inspect     Show a file's schema, file facts and every column chunk (or a dataset's files)
    cat         Print a file's or dataset's rows (table, JSON lines, CSV, or an Arrow IPC stream)
    convert     Convert between Parquet, CSV, JSON lines and Arrow IPC, choosing the codec,
                encodings, row groups and page version of Parquet output
    merge       Merge Parquet files (or directories of them) with one schema into one file,
                copying pages instead of decoding values
    compact     Merge each partition folder's small files into files of a target size

FILE, INPUT, OUTPUT and OUT may be URLs: s3://bucket/key, gs://, az://, http(s)://, file://,
with credentials and endpoint from the environment (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ALLOW_HTTP, ...).

Run `parquetry COMMAND --help` for the options of a command.
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("inspect") => inspect::run(&args[1..]),
        Some("cat") => cat::run(&args[1..]),
        Some("convert") => convert::run(&args[1..]),
        Some("merge") => merge::run(&args[1..]),
        Some("compact") => compact::run(&args[1..]),
        Some("-h" | "--help" | "help") | None => {
            print!("{USAGE}");
            Ok(())
        }
        Some("-V" | "--version") => {
            println!("parquetry {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        Some(other) => Err(format!("unknown command '{other}'\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
