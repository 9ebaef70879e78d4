//! The outputs of `convert` (Parquet through parquetry's writer; CSV, JSON lines and Arrow
//! IPC through the arrow-rs writers) and the progress bar.

use std::fs::File;
use std::io;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};
use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressStyle};
use parquetry::format::Encoding;
use parquetry::io::FileSink;
use parquetry::write::{ParquetWriter, WriteOptions};

use super::input::extension;
use super::options::Options;

/// The formats `convert` writes, by extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OutputFormat {
    Parquet,
    Csv,
    Json,
    IpcFile,
    IpcStream,
}

const KNOWN: &str = ".parquet, .csv, .jsonl, .ndjson, .arrow, .feather, .ipc, .arrows";

impl OutputFormat {
    /// The format of the output at `path`.
    pub fn of(path: &str) -> Result<OutputFormat, String> {
        let ext = extension(path);
        Ok(match ext.as_str() {
            "parquet" => OutputFormat::Parquet,
            "csv" => OutputFormat::Csv,
            "jsonl" | "ndjson" => OutputFormat::Json,
            "arrow" | "feather" | "ipc" => OutputFormat::IpcFile,
            "arrows" => OutputFormat::IpcStream,
            _ => return Err(format!("{path}: unknown output format '.{ext}' (known: {KNOWN})")),
        })
    }

    /// The format's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            OutputFormat::Parquet => "Parquet",
            OutputFormat::Csv => "CSV",
            OutputFormat::Json => "JSON lines",
            OutputFormat::IpcFile => "an Arrow IPC file",
            OutputFormat::IpcStream => "an Arrow IPC stream",
        }
    }
}

/// The output file, written on a thread of its own with `--threads` above 1.
type Out = FileSink;

/// An open output writer.
// One Sink lives per process, so its size does not matter; boxing would only add a hop.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Sink {
    Parquet(ParquetWriter<Out>),
    Csv(arrow_csv::Writer<Out>),
    Json(arrow_json::LineDelimitedWriter<Out>),
    IpcFile(arrow_ipc::writer::FileWriter<Out>),
    IpcStream(arrow_ipc::writer::StreamWriter<Out>),
}

impl Sink {
    /// A writer of `format` for batches of `schema` into `file`.
    pub fn new(format: OutputFormat, file: File, schema: SchemaRef, opts: &Options) -> Result<Sink, String> {
        let out = FileSink::new(file, opts.threads).map_err(|e| format!("{}: {e}", opts.output))?;
        let at = |e: &dyn std::fmt::Display| format!("{}: {e}", opts.output);
        Ok(match format {
            OutputFormat::Parquet => {
                let write = write_options(&schema, opts)?;
                Sink::Parquet(ParquetWriter::try_new(out, schema, write).map_err(|e| at(&e))?)
            }
            OutputFormat::Csv => Sink::Csv(arrow_csv::WriterBuilder::new().with_header(true).build(out)),
            OutputFormat::Json => {
                // Every key on every line (null where null), as pyarrow and pandas write it.
                Sink::Json(arrow_json::WriterBuilder::new().with_explicit_nulls(true).build(out))
            }
            OutputFormat::IpcFile => {
                Sink::IpcFile(arrow_ipc::writer::FileWriter::try_new(out, &schema).map_err(|e| at(&e))?)
            }
            OutputFormat::IpcStream => {
                Sink::IpcStream(arrow_ipc::writer::StreamWriter::try_new(out, &schema).map_err(|e| at(&e))?)
            }
        })
    }

    /// Writes one batch.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), String> {
        let r = match self {
            Sink::Parquet(w) => return w.write(batch).map_err(|e| e.to_string()),
            Sink::Csv(w) => w.write(&nested_as_json_text(batch)?),
            Sink::Json(w) => w.write(batch),
            Sink::IpcFile(w) => w.write(batch),
            Sink::IpcStream(w) => w.write(batch),
        };
        r.map_err(|e| e.to_string())
    }

    /// Ends the output and flushes it to disk; the number of row groups for Parquet.
    pub fn finish(self) -> Result<Option<usize>, String> {
        let (out, row_groups) = match self {
            Sink::Parquet(w) => {
                let (out, meta) = w.into_inner().map_err(|e| e.to_string())?;
                (out, Some(meta.row_groups.len()))
            }
            Sink::Csv(w) => (w.into_inner(), None),
            Sink::Json(mut w) => {
                w.finish().map_err(|e| e.to_string())?;
                (w.into_inner(), None)
            }
            Sink::IpcFile(mut w) => {
                w.finish().map_err(|e| e.to_string())?;
                (w.into_inner().map_err(|e| e.to_string())?, None)
            }
            Sink::IpcStream(mut w) => {
                w.finish().map_err(|e| e.to_string())?;
                (w.into_inner().map_err(|e| e.to_string())?, None)
            }
        };
        let file = out.into_file().map_err(|e| format!("flushing the file: {e}"))?;
        file.sync_all().map_err(|e| format!("syncing the file: {e}"))?;
        Ok(row_groups)
    }
}

/// The writer options with `--encoding` resolved against the input's columns.
fn write_options(schema: &Schema, opts: &Options) -> Result<WriteOptions, String> {
    let mut write = opts.write.clone();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    for (column, encoding) in &opts.encodings {
        let encoding = *encoding;
        match column {
            Some(name) => {
                if !names.contains(&name.as_str()) {
                    return Err(format!(
                        "convert: --encoding {name}={encoding}: the input has no column '{name}' (columns: {})",
                        names.join(", ")
                    ));
                }
                fits(schema, name, encoding).map_err(|why| format!("convert: --encoding {name}={encoding}: {why}"))?;
                write = write.with_column_encoding(name, encoding);
            }
            None if encoding == Encoding::RLE_DICTIONARY => write = write.with_dictionary(true),
            None => {
                let (fit, misfit): (Vec<&str>, Vec<&str>) =
                    names.iter().partition(|name| fits(schema, name, encoding).is_ok());
                if fit.is_empty() {
                    return Err(format!(
                        "convert: --encoding {encoding}: no column of the input can take it ({})",
                        describe(schema, &misfit)
                    ));
                }
                if !misfit.is_empty() && !opts.quiet {
                    eprintln!(
                        "note: --encoding {encoding} does not fit {}; they keep the default encoding",
                        describe(schema, &misfit)
                    );
                }
                for name in fit {
                    write = write.with_column_encoding(name, encoding);
                }
            }
        }
    }
    Ok(write)
}

/// Whether the writer takes `encoding` for column `name`: asks the writer itself, on that
/// column alone, so the CLI never disagrees with the library about which types fit.
fn fits(schema: &Schema, name: &str, encoding: Encoding) -> Result<(), String> {
    let field = schema.field_with_name(name).map_err(|e| e.to_string())?;
    let one = Arc::new(Schema::new(vec![field.clone()]));
    let options = WriteOptions::default().with_column_encoding(name, encoding);
    ParquetWriter::try_new(io::sink(), one, options).map(drop).map_err(|e| e.to_string())
}

fn describe(schema: &Schema, names: &[&str]) -> String {
    let parts: Vec<String> = names
        .iter()
        .map(|n| match schema.field_with_name(n) {
            Ok(f) => format!("{n} ({})", f.data_type()),
            Err(_) => (*n).to_owned(),
        })
        .collect();
    parts.join(", ")
}

/// The progress bar on stderr (when it is a terminal): bytes of the input read, rows written.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    total: Option<u64>,
    bytes_read: u64,
}

impl Progress {
    /// A bar if `show`; with a length when the input's size is known, a spinner otherwise.
    pub fn new(show: bool, total: Option<u64>) -> Progress {
        let bar = show.then(|| {
            let (bar, template) = match total {
                Some(n) => (
                    ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr()),
                    "{spinner} {elapsed} [{wide_bar}] {bytes}/{total_bytes} read, {msg}",
                ),
                None => (
                    ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
                    "{spinner} {elapsed} {bytes} read, {msg}",
                ),
            };
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_message("0 rows written");
            bar
        });
        Progress { bar, total, bytes_read: 0 }
    }

    /// After each batch.
    pub fn update(&mut self, bytes_read: u64, rows: u64) {
        // Readers that seek (the IPC file reader reads its footer first) may read a few bytes
        // twice: never show more than the whole input.
        self.bytes_read = self.total.map_or(bytes_read, |t| bytes_read.min(t));
        if let Some(bar) = &self.bar {
            bar.set_position(self.bytes_read);
            bar.set_message(format!("{} rows written", HumanCount(rows)));
        }
    }

    /// Bytes of the input read so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// Clears the bar (the summary line takes its place).
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// The batch with each list, map and struct column turned into compact JSON text (as `cat
/// --csv` prints them), since CSV cells hold no nested values.
fn nested_as_json_text(batch: &RecordBatch) -> Result<RecordBatch, String> {
    if !batch.schema().fields().iter().any(|f| f.data_type().is_nested()) {
        return Ok(batch.clone());
    }
    let mut fields = Vec::with_capacity(batch.num_columns());
    let mut columns = Vec::with_capacity(batch.num_columns());
    for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
        if field.data_type().is_nested() {
            let text: arrow_array::StringArray =
                (0..column.len()).map(|row| crate::display::text(column, row)).collect();
            fields.push(arrow_schema::Field::new(field.name(), arrow_schema::DataType::Utf8, true));
            columns.push(std::sync::Arc::new(text) as arrow_array::ArrayRef);
        } else {
            fields.push(field.as_ref().clone());
            columns.push(column.clone());
        }
    }
    RecordBatch::try_new(std::sync::Arc::new(arrow_schema::Schema::new(fields)), columns).map_err(|e| e.to_string())
}
