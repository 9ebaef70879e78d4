//! The inputs of `convert`: each format is opened, its schema given to the sink, then its
//! batches one at a time. Every reader reads through [`Counting`], so the progress bar knows
//! how far into the input it is.

use std::cell::Cell;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

use arrow_array::RecordBatchReader;
use arrow_schema::ArrowError;
use parquetry::read::{ParquetFile, ParquetReaderBuilder, ReadOptions};

use super::options::Options;
use super::BatchSink;

/// The formats `convert` reads, by extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InputFormat {
    Parquet,
    IpcFile,
    IpcStream,
    Csv,
    Json,
}

const KNOWN: &str =
    ".parquet, .arrow, .feather, .ipc, .arrows, .csv, .jsonl, .ndjson, or - for an Arrow IPC stream on stdin";

impl InputFormat {
    /// The format of the input at `path` (`-` is an IPC stream on stdin).
    pub fn of(path: &str) -> Result<InputFormat, String> {
        if path == "-" {
            return Ok(InputFormat::IpcStream);
        }
        let ext = extension(path);
        Ok(match ext.as_str() {
            "parquet" => InputFormat::Parquet,
            "arrow" | "feather" | "ipc" => InputFormat::IpcFile,
            "arrows" => InputFormat::IpcStream,
            "csv" => InputFormat::Csv,
            "jsonl" | "ndjson" => InputFormat::Json,
            _ => return Err(format!("{path}: unknown input format '.{ext}' (known: {KNOWN})")),
        })
    }
}

/// A file's extension, lowercased ("" if none).
pub(crate) fn extension(path: &str) -> String {
    Path::new(path).extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default()
}

/// A reader that counts the bytes read through it.
struct Counting<R> {
    inner: R,
    count: Rc<Cell<u64>>,
}

impl<R> Counting<R> {
    fn new(inner: R) -> (Self, Rc<Cell<u64>>) {
        let count = Rc::new(Cell::new(0));
        (Counting { inner, count: Rc::clone(&count) }, count)
    }
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.set(self.count.get() + n as u64);
        Ok(n)
    }
}

impl<R: Seek> Seek for Counting<R> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

fn open(path: &str) -> Result<File, String> {
    File::open(path).map_err(|e| format!("{path}: cannot open it: {e}"))
}

/// Reads the whole input at `path` into `sink`: its schema, then every batch.
pub(crate) fn read_all(
    path: &str,
    format: InputFormat,
    opts: &Options,
    sink: &mut dyn BatchSink,
) -> Result<(), String> {
    let at = |e: &dyn std::fmt::Display| format!("{path}: {e}");
    match format {
        InputFormat::Parquet => {
            let file = open(path)?;
            let size = file.metadata().map(|m| m.len()).unwrap_or(0);
            let file = ParquetFile::from_reader(file).map_err(|e| at(&e))?;
            // The reader reads page headers ahead and seeks back, so the bytes it reads add up
            // to more than the file: progress is the file's size times the share of rows read.
            let total_rows = file.metadata().num_rows.max(1) as u128;
            let read = ReadOptions::default().with_batch_size(opts.batch_size).with_threads(opts.threads);
            let batches = ParquetReaderBuilder::new(file).with_options(read).build().map_err(|e| at(&e))?;
            sink.start(arrow_array::RecordBatchReader::schema(&batches))?;
            let mut rows = 0u128;
            for batch in batches {
                let batch = batch.map_err(|e| at(&e))?;
                rows += batch.num_rows() as u128;
                sink.batch(batch, (size as u128 * rows / total_rows) as u64)?;
            }
        }
        InputFormat::IpcFile => {
            let (reader, count) = Counting::new(open(path)?);
            let reader = arrow_ipc::reader::FileReader::try_new(BufReader::new(reader), None)
                .map_err(|e| at(&format!("not a readable Arrow IPC file: {e}")))?;
            sink.start(reader.schema())?;
            for batch in reader {
                sink.batch(batch.map_err(|e| at(&e))?, count.get())?;
            }
        }
        InputFormat::IpcStream => {
            let source: Box<dyn Read> = if path == "-" { Box::new(io::stdin().lock()) } else { Box::new(open(path)?) };
            let (reader, count) = Counting::new(source);
            let what = if path == "-" { "stdin" } else { path };
            let reader = arrow_ipc::reader::StreamReader::try_new(BufReader::with_capacity(1 << 16, reader), None)
                .map_err(|e| format!("{what}: not a readable Arrow IPC stream: {e}"))?;
            sink.start(reader.schema())?;
            for batch in reader {
                sink.batch(batch.map_err(|e| format!("{what}: {e}"))?, count.get())?;
            }
        }
        InputFormat::Csv => {
            let format = arrow_csv::reader::Format::default().with_header(true);
            let (schema, _) =
                format.infer_schema(BufReader::new(open(path)?), Some(opts.infer_rows)).map_err(|e| at(&e))?;
            let (reader, count) = Counting::new(open(path)?);
            let reader = arrow_csv::ReaderBuilder::new(Arc::new(schema))
                .with_format(format)
                .with_batch_size(opts.batch_size)
                .build(reader)
                .map_err(|e| at(&e))?;
            sink.start(reader.schema())?;
            for batch in reader {
                sink.batch(batch.map_err(|e| at(&inferred(csv_line(e), opts)))?, count.get())?;
            }
        }
        InputFormat::Json => {
            let (schema, _) = arrow_json::reader::infer_json_schema(BufReader::new(open(path)?), Some(opts.infer_rows))
                .map_err(|e| at(&e))?;
            let (reader, count) = Counting::new(open(path)?);
            let reader = arrow_json::ReaderBuilder::new(Arc::new(schema))
                .with_batch_size(opts.batch_size)
                // A key the first rows did not have is an error, not a column silently dropped.
                .with_strict_mode(true)
                .build(BufReader::with_capacity(1 << 16, reader))
                .map_err(|e| at(&e))?;
            sink.start(reader.schema())?;
            for batch in reader {
                sink.batch(batch.map_err(|e| at(&inferred(e, opts)))?, count.get())?;
            }
        }
    }
    Ok(())
}

/// arrow-csv numbers a value it cannot parse by its data row (the header is line 0), but a
/// row with the wrong number of fields by its line in the file (the header is line 1): this
/// makes the first agree with the second, so every error names the line an editor shows.
fn csv_line(e: ArrowError) -> ArrowError {
    let ArrowError::ParseError(message) = e else { return e };
    let fixed = message.find(" at line ").and_then(|at| {
        let start = at + " at line ".len();
        let len = message[start..].bytes().take_while(u8::is_ascii_digit).count();
        let line: usize = message[start..start + len].parse().ok()?;
        Some(format!("{}{}{}", &message[..start], line + 1, &message[start + len..]))
    });
    ArrowError::ParseError(fixed.unwrap_or(message))
}

/// A CSV or JSON reading error, with a hint when it may come from a type inferred too early.
fn inferred(e: ArrowError, opts: &Options) -> String {
    match e {
        ArrowError::ParseError(_) | ArrowError::JsonError(_) | ArrowError::SchemaError(_) => format!(
            "{e} (column types are inferred from the first {} rows: raise --infer-rows if a later \
             row has another type or a new column)",
            opts.infer_rows
        ),
        e => e.to_string(),
    }
}
