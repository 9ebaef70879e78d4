//! parquetry's benchmark instrument: times parquetry and the arrow-rs `parquet` crate in one
//! process on the same bytes. Not part of the default build (the `parquet` crate is a long
//! build); run it with `cargo run --release -p parquetry-bench -- CASE`.

mod footer;
mod timing;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runs = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|r| r.parse().ok())
        .unwrap_or(21);
    match args.first().map(String::as_str) {
        Some("footer") => footer::run(runs),
        _ => {
            eprintln!("usage: parquetry-bench footer [--runs N]");
            std::process::exit(2);
        }
    }
}
