//! `parquetry convert`: CSV, JSON lines, Arrow IPC or Parquet in; Parquet (or CSV, JSON lines,
//! Arrow IPC) out, with the writer's options on the command line.
//!
//! The input streams batch by batch into the output, so memory holds one batch and the open
//! row group. The output is written to a temporary file beside OUTPUT and renamed into place
//! only once complete: on any error OUTPUT is left as it was and the temporary file is gone.

mod input;
mod options;
mod output;

use std::io::IsTerminal;
use std::path::Path;
use std::time::Instant;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use indicatif::HumanBytes;
use parquetry::io::TempFile;

use input::InputFormat;
use options::Options;
use output::{OutputFormat, Progress, Sink};

const HELP: &str = "\
parquetry convert: convert between Parquet, CSV, JSON lines and Arrow IPC

USAGE:
    parquetry convert [OPTIONS] INPUT OUTPUT

The formats come from the file extensions:
    INPUT     .parquet; .arrow, .feather, .ipc (Arrow IPC file); .arrows (Arrow IPC stream);
              - (an Arrow IPC stream on stdin); .csv (with a header row); .jsonl, .ndjson
    OUTPUT    .parquet; .csv; .jsonl, .ndjson; .arrow, .feather, .ipc; .arrows
CSV and JSON column types are inferred from the first rows (--infer-rows). OUTPUT appears only
once complete (written beside it, then renamed); it must not be INPUT.

PARQUET OUTPUT OPTIONS:
    --compression CODEC[:LEVEL]    none (or uncompressed, the default), snappy, gzip, brotli,
                                   lz4, lz4_raw, zstd; a level for zstd (1..=22, negative for
                                   faster), gzip (0..=9), brotli (0..=11), e.g. zstd:3
    --no-dictionary                No dictionary encoding (on by default, PLAIN after fallback)
    --encoding [COLUMN=]ENCODING   The encoding of data pages (repeatable): PLAIN, RLE,
                                   DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
                                   DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT, RLE_DICTIONARY (any
                                   case). Without COLUMN= it goes to every column whose type can
                                   take it (the others keep the default); a column given an
                                   encoding other than RLE_DICTIONARY gets no dictionary
    --row-group-size ROWS          Most rows per row group (default 1048576)
    --page-size BYTES              Target data page size (default 1M; K, M, G suffixes)
    --data-page-version 1|2        Data page version (default 1)
    --no-statistics                No min/max/null-count statistics
    --no-page-index                No page index (column and offset indexes)
    --bloom-filter COL[:NDV[:FPP]] A bloom filter on column COL (dotted path; repeatable),
                                   sized for NDV distinct values per row group (default: the
                                   row group size) at false positive probability FPP (default
                                   0.05), then shrunk while it keeps FPP; e.g. id:100000:0.01

OTHER OPTIONS:
    --batch-size N                 Rows per batch read from INPUT (default 65536)
    --threads N                    Threads decoding a Parquet INPUT's columns and encoding
                                   and compressing the output's (default: every core; the
                                   output is the same for any number)
    --infer-rows N                 CSV and JSON rows read to infer column types (default 1000)
    -q, --quiet                    No summary line (and no progress bar) on stderr
    -h, --help                     Show this help

A progress bar shows on stderr when it is a terminal; a one-line summary (rows, row groups,
bytes in and out, seconds) follows unless --quiet.
";

/// Runs the command with the arguments after `convert`.
pub fn run(args: &[String]) -> Result<(), String> {
    let Some(mut opts) = options::parse(args, HELP)? else { return Ok(()) };
    let input = InputFormat::of(&opts.input)?;
    let output = OutputFormat::of(&opts.output)?;
    let staged_in = crate::remote::stage_input(&mut opts.input)?;
    let staged_out = crate::remote::stage_output(&mut opts.output)?;
    let names = (crate::remote::url_of(&staged_in, &opts.input), crate::remote::url_of(&staged_out, &opts.output));
    convert(&opts, input, output, &staged_out, &names)
        .map_err(|m| crate::remote::named(m, staged_in.iter().chain(&staged_out)))
}

/// Converts `opts.input` (a local path, or a URL's scratch file) to `opts.output`, and
/// uploads the output when it stands for a URL; `names` are what the user called them.
fn convert(
    opts: &Options,
    input: InputFormat,
    output: OutputFormat,
    staged_out: &Option<crate::remote::Staged>,
    (input_name, output_name): &(String, String),
) -> Result<(), String> {
    if output != OutputFormat::Parquet {
        if let Some(option) = &opts.parquet_only {
            return Err(format!(
                "convert: {option} applies to Parquet output only, and {} is {}",
                opts.output,
                output.name()
            ));
        }
    }
    let input_bytes = check_paths(opts)?;
    let start = Instant::now();
    let out_path = Path::new(&opts.output);
    let temp = TempFile::beside(out_path).map_err(|e| format!("{}: {e}", opts.output))?;
    let file = temp.file().map_err(|e| format!("{}: {e}", opts.output))?;
    let show_progress = !opts.quiet && std::io::stderr().is_terminal();
    let mut converter = Converter {
        opts,
        format: output,
        file: Some(file),
        sink: None,
        rows: 0,
        progress: Progress::new(show_progress, input_bytes),
    };
    let read = input::read_all(&opts.input, input, opts, &mut converter);
    converter.progress.finish();
    read?;
    let Some(sink) = converter.sink.take() else {
        return Err(format!("{}: the input ended before its schema", opts.input));
    };
    let row_groups = sink.finish().map_err(|e| format!("{}: {e}", opts.output))?;
    let out_bytes = std::fs::metadata(temp.path()).map(|m| m.len()).unwrap_or(0);
    temp.persist(out_path).map_err(|e| format!("{}: {e}", opts.output))?;
    if let Some(staged) = staged_out {
        crate::remote::publish(staged)?;
    }
    if !opts.quiet {
        let in_bytes = input_bytes.unwrap_or_else(|| converter.progress.bytes_read());
        let groups = match row_groups {
            Some(1) => "1 row group, ".to_owned(),
            Some(n) => format!("{n} row groups, "),
            None => String::new(),
        };
        let input = if opts.input == "-" { "stdin" } else { input_name };
        eprintln!(
            "{input} → {output_name}: {} rows, {groups}{} → {} in {:.2} s",
            converter.rows,
            HumanBytes(in_bytes),
            HumanBytes(out_bytes),
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// Checks that INPUT can be read and that OUTPUT is not the same file; returns INPUT's size
/// (none for stdin).
fn check_paths(opts: &Options) -> Result<Option<u64>, String> {
    if opts.input == "-" {
        return Ok(None);
    }
    let meta = std::fs::metadata(&opts.input).map_err(|e| format!("{}: cannot read it: {e}", opts.input))?;
    if meta.is_dir() {
        return Err(format!("{}: is a directory, not a file", opts.input));
    }
    let input = std::fs::canonicalize(&opts.input).map_err(|e| format!("{}: {e}", opts.input))?;
    let out = Path::new(&opts.output);
    // OUTPUT may not exist yet: canonicalize its directory and add the name.
    let output = match std::fs::canonicalize(out) {
        Ok(p) => Some(p),
        Err(_) => {
            let dir = match out.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            };
            let dir = std::fs::canonicalize(dir)
                .map_err(|e| format!("{}: cannot write into {}: {e}", opts.output, dir.display()))?;
            out.file_name().map(|n| dir.join(n))
        }
    };
    if output.as_deref() == Some(input.as_path()) || same_inode(&opts.input, &opts.output) {
        return Err(format!(
            "{} is the input file: choose another OUTPUT (convert never overwrites its input)",
            opts.output
        ));
    }
    Ok(Some(meta.len()))
}

/// Whether two existing paths are one file (hard links).
#[cfg(unix)]
pub(crate) fn same_inode(a: impl AsRef<Path>, b: impl AsRef<Path>) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a.as_ref()), std::fs::metadata(b.as_ref())) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
pub(crate) fn same_inode(_: impl AsRef<Path>, _: impl AsRef<Path>) -> bool {
    false
}

/// Receives what an input yields: its schema once, then its batches.
pub(crate) trait BatchSink {
    /// The input's schema, before any batch.
    fn start(&mut self, schema: SchemaRef) -> Result<(), String>;
    /// One batch; `bytes_read` is how far into the input the reader is.
    fn batch(&mut self, batch: RecordBatch, bytes_read: u64) -> Result<(), String>;
}

/// Makes the output writer from the input's schema and feeds it the batches.
struct Converter<'a> {
    opts: &'a Options,
    format: OutputFormat,
    file: Option<std::fs::File>,
    sink: Option<Sink>,
    rows: u64,
    progress: Progress,
}

impl BatchSink for Converter<'_> {
    fn start(&mut self, schema: SchemaRef) -> Result<(), String> {
        if schema.fields().is_empty() {
            return Err(format!("{}: the input has no columns", self.opts.input));
        }
        let file = self.file.take().ok_or("convert: the input gave its schema twice")?;
        let sink = Sink::new(self.format, file, schema, self.opts)?;
        self.sink = Some(sink);
        Ok(())
    }

    fn batch(&mut self, batch: RecordBatch, bytes_read: u64) -> Result<(), String> {
        let sink = self.sink.as_mut().ok_or("convert: a batch came before the schema")?;
        sink.write(&batch).map_err(|e| format!("{}: {e}", self.opts.output))?;
        self.rows += batch.num_rows() as u64;
        self.progress.update(bytes_read, self.rows);
        Ok(())
    }
}
