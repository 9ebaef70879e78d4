//! The write implementations a cell times: Arrow record batches held in memory written as a
//! whole Parquet file into memory, by parquetry and by the arrow-rs `parquet` crate, with
//! the settings of the input file (`write_spec.rs`), and the limits (compress-only, memcpy).
//!
//! Setup reads the input file once with parquetry (whole row groups: one batch per row
//! group) and keeps the batches; a run writes all of them to a [`Sink`], one `Vec<u8>`
//! reserved at setup and cleared before each run, the same for both writers. The
//! `*_dict_input` cells write the same values as `DictionaryArray<Int32, Utf8>` columns
//! (built once at setup, one dictionary per batch) with the dictionary on: where parquetry
//! keeps the Arrow dictionary instead of hashing every row again (GUIDE.md, lesson 5).
//!
//! After the timed runs the cell reads the last file back with parquetry and compares its
//! checksum with the input's ([`validate`]), and checks its data page encodings against the
//! settings, so a writer that drops or garbles values, or ignores a setting, cannot look fast.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use arrow_array::builder::StringDictionaryBuilder;
use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquetry::read::{ParquetFile, ParquetReaderBuilder, ReadOptions};
use parquetry::write::ParquetWriter;
use serde_json::{json, Map, Value};

use crate::checksum::file_checksum;
use crate::limits;
use crate::read::{NotRun, Output, Prepared, ARROW_RS_VERSION};
use crate::write_spec::{OutputShape, WriteSpec};

/// Every write implementation, in report order.
pub const IMPLS: [&str; 6] =
    ["parquetry", "parquetry_dict_input", "arrow_rs", "arrow_rs_dict_input", "compress", "memcpy"];

/// The in-memory file a writer writes into: reserved once, cleared before each run, and
/// shared with the cell, which reads the last file back after the timed runs.
pub type Sink = Rc<RefCell<Vec<u8>>>;

/// The input of a write: the file's batches, held in memory, and its settings.
struct Input {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
    spec: WriteSpec,
    file_bytes: usize,
}

/// Reads `path` with parquetry, whole row groups, and its settings from its footer.
fn load(path: &str) -> Result<Input, String> {
    let file = ParquetFile::open(path).map_err(|e| e.to_string())?;
    let spec = WriteSpec::from_footer(file.metadata())?;
    let batches =
        crate::read::read_all(ParquetReaderBuilder::new(file), &ReadOptions::default().with_batch_size(usize::MAX))
            .map_err(|e| e.to_string())?;
    let schema = batches.first().map(|b| b.schema()).ok_or("the input file has no rows")?;
    let file_bytes = std::fs::metadata(path).map(|m| m.len() as usize).unwrap_or(0);
    Ok(Input { schema, batches, spec, file_bytes })
}

/// The input with every Utf8 column as `DictionaryArray<Int32, Utf8>` (one dictionary per
/// batch, values in order of first appearance), written with the dictionary on. Only for
/// files whose columns are all dictionary-encoded (the `dict` layout).
fn dictionary_input(input: Input) -> Result<Input, NotRun> {
    if !input.spec.all_dictionary() {
        return Err(NotRun::Skipped("dictionary input: only for files written with dictionaries".into()));
    }
    let to_dict = |f: &Field| match f.data_type() {
        DataType::Utf8 => {
            f.clone().with_data_type(DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)))
        }
        _ => f.clone(),
    };
    let fields: Vec<Field> = input.schema.fields().iter().map(|f| to_dict(f)).collect();
    let schema = Arc::new(Schema::new_with_metadata(fields, input.schema.metadata().clone()));
    let mut batches = Vec::with_capacity(input.batches.len());
    for b in &input.batches {
        let columns: Vec<ArrayRef> = b
            .columns()
            .iter()
            .map(|c| match c.data_type() {
                DataType::Utf8 => {
                    let mut builder = StringDictionaryBuilder::<Int32Type>::new();
                    c.as_string::<i32>().iter().for_each(|v| builder.append_option(v));
                    Arc::new(builder.finish()) as ArrayRef
                }
                _ => c.clone(),
            })
            .collect();
        batches.push(RecordBatch::try_new(schema.clone(), columns).map_err(|e| NotRun::Failed(e.to_string()))?);
    }
    let spec = input.spec.with_dictionary_everywhere();
    Ok(Input { schema, batches, spec, file_bytes: input.file_bytes })
}

fn new_sink(input: &Input) -> Sink {
    // Twice the input file: room for every layout's output without growing during a run.
    Rc::new(RefCell::new(Vec::with_capacity(2 * input.file_bytes + (1 << 20))))
}

/// Sets up write implementation `name` on the file at `path`. `value_bytes` sizes memcpy.
pub fn prepare(name: &str, path: &str, value_bytes: u64) -> Result<Prepared, NotRun> {
    if name == "memcpy" {
        return Ok(limits::memcpy(value_bytes));
    }
    let input = load(path).map_err(NotRun::Failed)?;
    match name {
        "parquetry" => Ok(parquetry(input, "Utf8/Binary columns as read")),
        "parquetry_dict_input" => {
            Ok(parquetry(dictionary_input(input)?, "Utf8 columns as DictionaryArray<Int32, Utf8>"))
        }
        "arrow_rs" => arrow_rs(input, "Utf8/Binary columns as read").map_err(NotRun::Failed),
        "arrow_rs_dict_input" => {
            arrow_rs(dictionary_input(input)?, "Utf8 columns as DictionaryArray<Int32, Utf8>").map_err(NotRun::Failed)
        }
        "compress" => compress(input),
        other => Err(NotRun::Failed(format!("unknown write implementation {other:?} (known: {})", IMPLS.join(",")))),
    }
}

fn info(input: &Input, version: String, arrow_input: &str) -> Value {
    json!({
        "version": version,
        "input": arrow_input,
        "batches": input.batches.len(),
        "settings": input.spec.describe(),
        "expected_encodings": input.spec.expected_encodings(),
        "sink": "Vec<u8> reserved at setup (2 × input file), cleared before each run",
    })
}

/// parquetry's `ParquetWriter`.
fn parquetry(input: Input, arrow_input: &str) -> Prepared {
    let info = info(
        &input,
        concat!("parquetry (workspace) via parquetry-bench ", env!("CARGO_PKG_VERSION")).into(),
        arrow_input,
    );
    let options = input.spec.parquetry();
    let sink = new_sink(&input);
    let Input { schema, batches, .. } = input;
    let run = move || -> Result<Output, String> {
        let mut buf = sink.borrow_mut();
        buf.clear();
        let mut writer =
            ParquetWriter::try_new(&mut *buf, schema.clone(), options.clone()).map_err(|e| e.to_string())?;
        for b in &batches {
            writer.write(b).map_err(|e| e.to_string())?;
        }
        writer.close().map_err(|e| e.to_string())?;
        drop(buf);
        Ok(Output::File(sink.clone()))
    };
    Prepared { run: Box::new(run), info }
}

/// arrow-rs's `ArrowWriter` with explicit `WriterProperties`.
fn arrow_rs(input: Input, arrow_input: &str) -> Result<Prepared, String> {
    let info = info(&input, format!("parquet (arrow-rs) {ARROW_RS_VERSION}"), arrow_input);
    let props = input.spec.arrow_rs()?;
    let sink = new_sink(&input);
    let Input { schema, batches, .. } = input;
    let run = move || -> Result<Output, String> {
        let mut buf = sink.borrow_mut();
        buf.clear();
        let mut writer =
            ArrowWriter::try_new(&mut *buf, schema.clone(), Some(props.clone())).map_err(|e| e.to_string())?;
        for b in &batches {
            writer.write(b).map_err(|e| e.to_string())?;
        }
        writer.close().map_err(|e| e.to_string())?;
        drop(buf);
        Ok(Output::File(sink.clone()))
    };
    Ok(Prepared { run: Box::new(run), info })
}

/// The compress-only limit: parquetry writes the file once (untimed), its pages are
/// decompressed once, and a run compresses them again with the same codec and level.
fn compress(input: Input) -> Result<Prepared, NotRun> {
    if input.spec.columns.iter().all(|c| c.codec == parquetry::compress::Codec::Uncompressed) {
        return Err(NotRun::Skipped("no compression: the limit is memcpy".into()));
    }
    let mut prepared = parquetry(input, "Utf8/Binary columns as read");
    let Output::File(sink) = (prepared.run)().map_err(NotRun::Failed)? else {
        unreachable!("a writer returns its file")
    };
    let file = std::mem::take(&mut *sink.borrow_mut());
    limits::compress(file)
}

/// Reads a written file back with parquetry: its size and footer shape, and the checksum
/// of its values (compared with the input's by the driver), as fields of the cell's JSON.
pub fn validate(file: &[u8], info: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("output_file_bytes".into(), json!(file.len()));
    let reader = match ParquetFile::from_bytes(file.to_vec()) {
        Ok(r) => r,
        Err(e) => {
            out.insert("checksum_error".into(), json!(format!("parquetry cannot open the written file: {e}")));
            return out;
        }
    };
    match OutputShape::read(file, reader.metadata()) {
        Ok(shape) => {
            out.insert("row_groups".into(), json!(shape.row_groups));
            out.insert("data_pages".into(), json!(shape.data_pages));
            out.insert("page_index".into(), json!(shape.page_index));
            out.insert("chunk_statistics".into(), json!(shape.statistics));
            out.insert("data_page_encodings".into(), json!(shape.encodings));
            out.insert("encoding_stats_match_pages".into(), json!(shape.encoding_stats_match));
            if let Ok(expected) = serde_json::from_value(info["expected_encodings"].clone()) {
                out.insert("encodings_ok".into(), json!(shape.matches(&expected)));
            }
        }
        Err(e) => {
            out.insert("shape_error".into(), json!(e));
        }
    }
    let options = ReadOptions::default().with_batch_size(usize::MAX);
    let batches = match crate::read::read_all(ParquetReaderBuilder::new(reader), &options) {
        Ok(b) => b,
        Err(e) => {
            out.insert("checksum_error".into(), json!(format!("parquetry cannot read the written file back: {e}")));
            return out;
        }
    };
    match batches.first().map(|b| b.schema()) {
        None => {
            out.insert("checksum_error".into(), json!("the written file reads back with no batches"));
        }
        Some(schema) => match file_checksum(&schema, &batches) {
            Ok(sum) => {
                out.insert("rows".into(), json!(sum.rows));
                out.insert("output_value_bytes".into(), json!(sum.value_bytes));
                out.insert("checksum".into(), sum.checksum);
            }
            Err(e) => {
                out.insert("checksum_error".into(), json!(e));
            }
        },
    }
    out
}
