//! `parquetry cat`: print a file's rows as a table, JSON lines, CSV, or an Arrow IPC stream.
//!
//! Reads batch by batch and writes each batch before reading the next, so piping a large file
//! into `head` or another program starts at once and holds one batch in memory.

use std::io::{self, BufWriter, Write};

use arrow_array::{ArrayRef, RecordBatch};
use parquetry::read::{ColumnSelector, ParquetFile, ParquetReaderBuilder, ReadOptions};

use crate::display;

const HELP: &str = "\
parquetry cat: print the rows of a Parquet file or dataset

USAGE:
    parquetry cat [OPTIONS] FILE...

A FILE that is a folder (read recursively; names starting with '_' or '.' skipped; for a
URL, one that ends with '/') or a glob pattern (quoted: 'data/*/*.parquet'), or several
FILEs, are read as one dataset: hive
folders (key=value) become columns, the files' schemas are unified (a column a file lacks
reads as nulls), and --where prunes whole files by their partition values.

OPTIONS:
    --columns A,B,...     Only these top-level columns (names, or 0-based positions)
    --row-groups 0,2,...  Only these row groups (0-based)
    --limit N             Stop after N rows
    --rows A..B,...       Only these rows (0-based, end excluded, in order; A.. runs to the
                          end, ..B starts at 0); pages outside them are not decompressed
    --json                One JSON object per row (JSON lines)
    --csv                 CSV with a header row
    --format FORMAT       table (default), json, csv, or arrow: an Arrow IPC stream on
                          stdout, for pyarrow (pa.ipc.open_stream) and other Arrow tools
    --where CONDITION     Only the rows where CONDITION holds, e.g. \"x > 5 and s = 'abc'\",
                          \"s LIKE 'ab%'\", \"k IN (1, 2)\", \"d >= DATE '2020-01-01'\", \"v IS NULL\";
                          row groups and pages it rules out are not read
    --stats               After the rows, print what --where pruned and read, and for a URL
                          the requests and bytes fetched (on stderr)
    --batch-size N        Rows per batch read from the file (default 65536)
    --threads N           Threads decoding columns at once (default: every core)
    -h, --help            Show this help
";

#[derive(PartialEq)]
enum Format {
    Table,
    Json,
    Csv,
    Arrow,
}

struct Options {
    path: String,
    /// Every FILE given (one: `path`).
    paths: Vec<String>,
    format: Format,
    limit: Option<usize>,
    read: ReadOptions,
    /// `--rows`, open ends still open (`None`) until the file's row count is known.
    rows: Option<Vec<(u64, Option<u64>)>>,
    /// `--stats`: print the scan metrics at the end.
    stats: bool,
}

/// Parses `A..B,C..,..D` into ranges whose open end is `None`.
fn parse_rows(value: &str) -> Result<Vec<(u64, Option<u64>)>, String> {
    list(value)
        .iter()
        .map(|r| {
            let bad = || format!("cat: --rows '{r}' is not a range like 10..20, 10.. or ..20");
            let (a, b) = r.split_once("..").ok_or_else(bad)?;
            let start = if a.is_empty() { 0 } else { a.parse().map_err(|_| bad())? };
            let end = if b.is_empty() { None } else { Some(b.parse().map_err(|_| bad())?) };
            Ok((start, end))
        })
        .collect()
}

fn list(value: &str) -> Vec<String> {
    value.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect()
}

fn parse(args: &[String]) -> Result<Option<Options>, String> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let read = ReadOptions::default().with_threads(cores);
    let mut opts = Options {
        path: String::new(),
        paths: Vec::new(),
        format: Format::Table,
        limit: None,
        read,
        rows: None,
        stats: false,
    };
    let mut paths = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or_else(|| format!("cat: {name} needs a value"));
        match a.as_str() {
            "-h" | "--help" => {
                print!("{HELP}");
                return Ok(None);
            }
            "--json" => opts.format = Format::Json,
            "--csv" => opts.format = Format::Csv,
            "--format" => {
                opts.format = match value("--format")?.as_str() {
                    "table" => Format::Table,
                    "json" => Format::Json,
                    "csv" => Format::Csv,
                    "arrow" => Format::Arrow,
                    other => return Err(format!("cat: unknown format '{other}' (table, json, csv, arrow)")),
                }
            }
            "--columns" => {
                let cols = list(&value("--columns")?)
                    .into_iter()
                    .map(|c| match c.parse::<usize>() {
                        Ok(i) => ColumnSelector::Index(i),
                        Err(_) => ColumnSelector::Name(c),
                    })
                    .collect::<Vec<_>>();
                opts.read = opts.read.clone().with_columns(cols);
            }
            "--row-groups" => {
                let groups = list(&value("--row-groups")?)
                    .iter()
                    .map(|g| g.parse::<usize>().map_err(|_| format!("cat: '{g}' is not a row group number")))
                    .collect::<Result<Vec<_>, _>>()?;
                opts.read = opts.read.clone().with_row_groups(groups);
            }
            "--limit" => {
                let v = value("--limit")?;
                opts.limit = Some(v.parse().map_err(|_| format!("cat: --limit '{v}' is not a number"))?);
            }
            "--rows" => opts.rows = Some(parse_rows(&value("--rows")?)?),
            "--where" => {
                let p = parquetry::filter::parse(&value("--where")?).map_err(|e| format!("cat: {e}"))?;
                opts.read = opts.read.clone().with_filter(p);
            }
            "--stats" => opts.stats = true,
            "--threads" => {
                let v = value("--threads")?;
                let n: usize = v
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| format!("cat: --threads '{v}' is not a positive number"))?;
                opts.read = opts.read.clone().with_threads(n);
            }
            "--batch-size" => {
                let v = value("--batch-size")?;
                let n: usize = v.parse().map_err(|_| format!("cat: --batch-size '{v}' is not a number"))?;
                opts.read = opts.read.clone().with_batch_size(n);
            }
            s if s.starts_with('-') => return Err(format!("cat: unknown option '{s}'\n\n{HELP}")),
            s => paths.push(s.to_owned()),
        }
    }
    opts.path = paths.join(" ");
    if paths.is_empty() {
        return Err(format!("cat: missing FILE\n\n{HELP}"));
    }
    opts.paths = paths;
    Ok(Some(opts))
}

/// Whether an error is the reader of our output going away (`parquetry cat f | head`), which
/// ends the command quietly, as other command-line tools do.
fn is_broken_pipe(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if err.downcast_ref::<io::Error>().is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe) {
            return true;
        }
        if let Some(arrow_schema::ArrowError::IoError(_, io)) = err.downcast_ref() {
            return io.kind() == io::ErrorKind::BrokenPipe;
        }
        cur = err.source();
    }
    false
}

/// Runs the command with the arguments after `cat`.
pub fn run(args: &[String]) -> Result<(), String> {
    let Some(opts) = parse(args)? else { return Ok(()) };
    let fail = |e: &(dyn std::error::Error + 'static)| {
        if is_broken_pipe(e) {
            Ok(())
        } else {
            Err(format!("{}: {e}", opts.path))
        }
    };
    let url_dataset =
        parquetry::store::is_url(&opts.path) && (opts.path.ends_with('/') || opts.path.contains(['*', '?', '[']));
    if parquetry::store::is_url(&opts.path) && !url_dataset && opts.paths.len() == 1 {
        let options = parquetry::store::StorageOptions::new();
        let file = parquetry::store::open_url(&opts.path, &options).map_err(|e| format!("{}: {e}", opts.path))?;
        let stats = file.source().stats();
        cat_file(&file, &opts, fail)?;
        if opts.stats {
            let plural = if stats.requests() == 1 { "" } else { "s" };
            eprintln!("object store: {} request{plural}, {} bytes", stats.requests(), stats.bytes());
        }
        return Ok(());
    }
    if url_dataset || opts.paths.len() > 1 || parquetry::dataset::is_dataset_source(&opts.path) {
        return run_dataset(&opts).or_else(|e| fail(e.as_ref()));
    }
    let file = ParquetFile::open(&opts.path).map_err(|e| format!("{}: {e}", opts.path))?;
    cat_file(&file, &opts, fail)
}

/// Prints the rows `opts` selects of an open file.
fn cat_file<S: parquetry::page::ChunkSource>(
    file: &ParquetFile<S>,
    opts: &Options,
    fail: impl Fn(&(dyn std::error::Error + 'static)) -> Result<(), String>,
) -> Result<(), String> {
    let mut read = opts.read.clone();
    if let Some(rows) = &opts.rows {
        let total = file.metadata().row_groups.iter().map(|rg| rg.num_rows.max(0) as u64).sum::<u64>();
        read = read.with_row_selection(rows.iter().map(|&(a, b)| a..b.unwrap_or(total)));
    }
    if let Some(limit) = opts.limit {
        // Batches no larger than the limit, so a small limit reads little.
        read = read.clone().with_batch_size(read.batch_size().min(limit.max(1)));
    }
    let metrics = (|| -> Result<_, Box<dyn std::error::Error>> {
        let mut reader = ParquetReaderBuilder::new(file.clone()).with_options(read).build()?;
        let schema = arrow_array::RecordBatchReader::schema(&reader);
        print_batches(&schema, &mut || reader.next_batch(), opts)?;
        Ok(reader.scan_metrics().cloned())
    })()
    .or_else(|e| fail(e.as_ref()).map(|()| None))?;
    if let (true, Some(m)) = (opts.stats, metrics) {
        eprintln!("{m}");
    }
    Ok(())
}

/// `cat` of a dataset: several FILEs, a folder or a glob.
fn run_dataset(opts: &Options) -> Result<(), Box<dyn std::error::Error>> {
    if opts.rows.is_some() || opts.read.row_groups().is_some() {
        return Err("--rows and --row-groups select parts of one file, not of a dataset".into());
    }
    let threads = opts.read.threads();
    let dataset = parquetry::dataset::DatasetBuilder::new(opts.paths.clone()).with_threads(threads).build()?;
    let mut read = opts.read.clone();
    if let Some(limit) = opts.limit {
        read = read.clone().with_batch_size(read.batch_size().min(limit.max(1)));
    }
    let mut reader = dataset.reader(read)?;
    let schema = arrow_array::RecordBatchReader::schema(&reader);
    print_batches(&schema, &mut || reader.next_batch(), opts)?;
    if opts.stats {
        eprintln!(
            "{} files, {} rows in all (per-file pruning counts are not gathered for datasets yet)",
            dataset.files().len(),
            dataset.num_rows()
        );
    }
    Ok(())
}

/// Prints the batches `batches` gives (all of `schema`), up to `opts.limit` rows.
fn print_batches(
    schema: &arrow_schema::SchemaRef,
    batches: &mut dyn FnMut() -> Option<parquetry::Result<RecordBatch>>,
    opts: &Options,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut left = opts.limit.unwrap_or(usize::MAX);
    let mut next = || -> Option<parquetry::Result<RecordBatch>> {
        if left == 0 {
            return None;
        }
        let batch = match batches()? {
            Ok(b) => b,
            Err(e) => return Some(Err(e)),
        };
        let batch = if batch.num_rows() > left { batch.slice(0, left) } else { batch };
        left -= batch.num_rows();
        Some(Ok(batch))
    };
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    match opts.format {
        Format::Arrow => {
            let mut w = arrow_ipc::writer::StreamWriter::try_new(&mut out, schema)?;
            // Finish the stream even after an error, so readers see a well-formed prefix.
            let mut result = Ok(());
            while let Some(batch) = next() {
                match batch {
                    Ok(b) => w.write(&b)?,
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            }
            w.finish()?;
            result?;
        }
        Format::Csv => {
            let header: Vec<String> = names.iter().map(|n| csv_field(n)).collect();
            writeln!(out, "{}", header.join(","))?;
            while let Some(batch) = next() {
                write_csv(&mut out, &batch?)?;
            }
        }
        Format::Json => {
            while let Some(batch) = next() {
                write_json(&mut out, &batch?, &names)?;
            }
        }
        Format::Table => {
            let mut widths = None;
            while let Some(batch) = next() {
                write_table(&mut out, &batch?, &names, &mut widths)?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

fn columns(batch: &RecordBatch) -> Vec<ArrayRef> {
    batch.columns().to_vec()
}

fn write_json<W: Write>(out: &mut W, batch: &RecordBatch, names: &[String]) -> io::Result<()> {
    let cols = columns(batch);
    for row in 0..batch.num_rows() {
        let mut obj = serde_json::Map::with_capacity(cols.len());
        for (name, col) in names.iter().zip(&cols) {
            obj.insert(name.clone(), display::json(col, row));
        }
        writeln!(out, "{}", serde_json::Value::Object(obj))?;
    }
    Ok(())
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

fn write_csv<W: Write>(out: &mut W, batch: &RecordBatch) -> io::Result<()> {
    let cols = columns(batch);
    let mut line = String::new();
    for row in 0..batch.num_rows() {
        line.clear();
        for (i, col) in cols.iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            if let Some(v) = display::text(col, row) {
                line.push_str(&csv_field(&v));
            }
        }
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// Longest cell shown in the table before it is cut with an ellipsis.
const MAX_CELL: usize = 60;

fn cell(v: Option<String>) -> String {
    let v = v.unwrap_or_else(|| "null".to_owned());
    if v.chars().count() > MAX_CELL {
        let mut s: String = v.chars().take(MAX_CELL - 1).collect();
        s.push('…');
        s
    } else {
        v.replace(['\n', '\t'], " ")
    }
}

fn write_table<W: Write>(
    out: &mut W,
    batch: &RecordBatch,
    names: &[String],
    widths: &mut Option<Vec<usize>>,
) -> io::Result<()> {
    let cols = columns(batch);
    let rows: Vec<Vec<String>> =
        (0..batch.num_rows()).map(|r| cols.iter().map(|c| cell(display::text(c, r))).collect()).collect();
    // Column widths come from the first batch (and the header), so a stream of batches
    // stays aligned without holding the whole file.
    let first = widths.is_none();
    let w = widths.get_or_insert_with(|| {
        names
            .iter()
            .enumerate()
            .map(|(i, n)| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0).max(n.chars().count()))
            .collect()
    });
    let line = |cells: &[String]| -> String {
        let parts: Vec<String> = cells.iter().enumerate().map(|(i, c)| format!("{c:<width$}", width = w[i])).collect();
        parts.join("  ").trim_end().to_owned()
    };
    if first {
        writeln!(out, "{}", line(names))?;
    }
    for r in &rows {
        writeln!(out, "{}", line(r))?;
    }
    Ok(())
}
