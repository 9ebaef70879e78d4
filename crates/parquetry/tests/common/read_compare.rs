//! Helpers of the value tests: read a file with parquetry and with pyarrow (through
//! tests/support/pyarrow_to_ipc.py and Arrow IPC files), and compare the two column by column.
//!
//! Include with `#[path = "common/read_compare.rs"] mod read_compare;` beside `mod common;`.
#![allow(dead_code)]

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Write;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Once};

use arrow_array::cast::AsArray;
use arrow_array::{new_empty_array, Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Schema};
use parquetry::read::ChunkSource;
use parquetry::read::{ByteArrayType, ParquetFile, ReadOptions};

/// A table with each column concatenated into one array.
#[derive(Debug, Clone)]
pub struct Table {
    pub names: Vec<String>,
    pub columns: Vec<ArrayRef>,
}

impl Table {
    /// Concatenates `batches` (all of `schema`) column by column.
    pub fn from_batches(schema: &Schema, batches: &[RecordBatch]) -> Result<Table, String> {
        let names = schema.fields().iter().map(|f| f.name().clone()).collect();
        let mut columns = Vec::with_capacity(schema.fields().len());
        for (i, field) in schema.fields().iter().enumerate() {
            let parts: Vec<&dyn Array> = batches.iter().map(|b| b.column(i).as_ref()).collect();
            let column = match parts.len() {
                0 => new_empty_array(field.data_type()),
                1 => Arc::clone(batches[0].column(i)),
                _ => arrow_select::concat::concat(&parts)
                    .map_err(|e| format!("concatenating column '{}': {e}", field.name()))?,
            };
            columns.push(column);
        }
        Ok(Table { names, columns })
    }

    /// Number of rows (of the first column; 0 without columns).
    pub fn num_rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.len())
    }

    /// The column named `name`.
    pub fn column(&self, name: &str) -> &ArrayRef {
        let i = self.names.iter().position(|n| n == name).unwrap_or_else(|| panic!("no column {name}"));
        &self.columns[i]
    }

    /// These columns (by position), in this order.
    pub fn project(&self, indices: &[usize]) -> Table {
        Table {
            names: indices.iter().map(|&i| self.names[i].clone()).collect(),
            columns: indices.iter().map(|&i| Arc::clone(&self.columns[i])).collect(),
        }
    }

    /// Rows `offset..offset + len` of every column.
    pub fn slice(&self, offset: usize, len: usize) -> Table {
        Table { names: self.names.clone(), columns: self.columns.iter().map(|c| c.slice(offset, len)).collect() }
    }

    /// This table's rows followed by `other`'s (same columns).
    pub fn append(&self, other: &Table) -> Table {
        let columns = self
            .columns
            .iter()
            .zip(&other.columns)
            .map(|(a, b)| arrow_select::concat::concat(&[a.as_ref(), b.as_ref()]).unwrap())
            .collect();
        Table { names: self.names.clone(), columns }
    }
}

// ---------------------------------------------------------------------------------------------
// Panics as values.

thread_local! {
    static CAPTURING: RefCell<Option<String>> = const { RefCell::new(None) };
}
static HOOK: Once = Once::new();

/// Runs `f`; a panic inside becomes `Err("panicked at <location>: <message>")`.
///
/// While `f` runs, this thread's panics are not printed (the message is returned instead);
/// panics of other threads (other tests) still go through the default hook.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let captured = CAPTURING.with(|c| {
                let mut c = c.borrow_mut();
                match c.as_mut() {
                    Some(slot) => {
                        let location = info.location().map(|l| l.to_string()).unwrap_or_default();
                        *slot = format!("panicked at {location}: {}", payload(info.payload()));
                        true
                    }
                    None => false,
                }
            });
            if !captured {
                previous(info);
            }
        }));
    });
    CAPTURING.with(|c| *c.borrow_mut() = Some(String::new()));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    let message = CAPTURING.with(|c| c.borrow_mut().take()).unwrap_or_default();
    result.map_err(|p| if message.is_empty() { format!("panicked: {}", payload(&*p)) } else { message })
}

fn payload(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "<non-string panic payload>".to_owned()
    }
}

// ---------------------------------------------------------------------------------------------
// parquetry side.

/// Reads a file with parquetry: `Err` holds the error message, or the panic.
pub fn read_parquetry(path: &Path, options: &ReadOptions) -> Result<Table, String> {
    catch(|| {
        let file = ParquetFile::open(path).map_err(|e| format!("open: {e}"))?;
        read_table(&file, options)
    })
    .and_then(|r| r)
}

/// Like [`read_parquetry`], through a memory map (`ParquetFile::open_mapped`).
pub fn read_parquetry_mapped(path: &Path, options: &ReadOptions) -> Result<Table, String> {
    catch(|| {
        // SAFETY: the test corpus is not modified while the tests run.
        let file = unsafe { ParquetFile::open_mapped(path) }.map_err(|e| format!("open: {e}"))?;
        read_table(&file, options)
    })
    .and_then(|r| r)
}

fn read_table<S: ChunkSource>(file: &ParquetFile<S>, options: &ReadOptions) -> Result<Table, String> {
    let batches = crate::common::read_all(file, options).map_err(|e| format!("read_all: {e}"))?;
    let schema = match batches.first() {
        Some(b) => b.schema(),
        None => {
            // No batches: the schema comes from the iterator (it reflects projection and
            // byte-array type overrides).
            let iter = crate::common::batches(file, options.clone()).map_err(|e| format!("batches: {e}"))?;
            iter.schema()
        }
    };
    Table::from_batches(&schema, &batches)
}

/// Reads a file with parquetry and returns its batches (schema from the iterator).
pub fn read_parquetry_batches(path: &Path, options: &ReadOptions) -> Result<(Arc<Schema>, Vec<RecordBatch>), String> {
    catch(|| {
        let file = ParquetFile::open(path).map_err(|e| format!("open: {e}"))?;
        let iter = crate::common::batches(&file, options.clone()).map_err(|e| format!("batches: {e}"))?;
        let schema = iter.schema();
        let batches = iter.collect::<Result<Vec<_>, _>>().map_err(|e| format!("batch: {e}"))?;
        Ok((schema, batches))
    })
    .and_then(|r| r)
}

// ---------------------------------------------------------------------------------------------
// pyarrow side.

/// Reads every file of `paths` with `pyarrow.parquet.read_table` (one Python process) and
/// returns each as a table, or pyarrow's error. Panics if Python or pyarrow is missing.
pub fn pyarrow_tables(tag: &str, paths: &[PathBuf]) -> HashMap<PathBuf, Result<Table, String>> {
    // A folder of each call's own: tests of one process run at once, some with the same tag.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out_dir = std::env::temp_dir().join(format!("parquetry-ipc-{}-{tag}-{call}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out_dir);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/pyarrow_to_ipc.py");
    let mut child = Command::new(super::common::python())
        .arg(script)
        .arg(&out_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {} ({e}): python3 with pyarrow is required (./test.sh installs it)",
                super::common::python()
            )
        });
    {
        let mut stdin = child.stdin.take().unwrap();
        for p in paths {
            writeln!(stdin, "{}", p.display()).unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "pyarrow_to_ipc.py failed (is pyarrow installed? ./test.sh installs it):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let index: serde_json::Value = serde_json::from_slice(&out.stdout).expect("pyarrow index JSON");
    let mut tables = HashMap::new();
    for p in paths {
        let entry = index[p.display().to_string()].as_str().unwrap_or("error: missing from index");
        let table = if let Some(err) = entry.strip_prefix("error: ") {
            Err(format!("pyarrow: {err}"))
        } else {
            read_ipc(Path::new(entry))
        };
        tables.insert(p.clone(), table);
    }
    let _ = std::fs::remove_dir_all(&out_dir);
    tables
}

/// The schema of an Arrow IPC file.
pub fn ipc_schema(path: &Path) -> Result<arrow_schema::SchemaRef, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let reader = arrow_ipc::reader::FileReader::try_new_buffered(file, None)
        .map_err(|e| format!("IPC {}: {e}", path.display()))?;
    Ok(reader.schema())
}

/// Reads an Arrow IPC file into a table.
pub fn read_ipc(path: &Path) -> Result<Table, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let reader = arrow_ipc::reader::FileReader::try_new_buffered(file, None)
        .map_err(|e| format!("IPC {}: {e}", path.display()))?;
    let schema = reader.schema();
    let batches = reader.collect::<Result<Vec<_>, _>>().map_err(|e| format!("IPC {}: {e}", path.display()))?;
    Table::from_batches(&schema, &batches)
}

// ---------------------------------------------------------------------------------------------
// Comparison.

/// Debug of `a[row..row + 3]`, shortened to a few hundred characters.
pub fn show(a: &dyn Array, row: usize) -> String {
    let len = a.len().saturating_sub(row).min(3);
    let s = format!("{:?}", a.slice(row.min(a.len()), len));
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.len() > 400 {
        let mut end = 400;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &s[..end])
    } else {
        s
    }
}

/// The first row where two arrays of the same type and length differ (prefix equality is
/// monotone, so a binary search finds it).
pub fn first_difference(a: &dyn Array, b: &dyn Array) -> usize {
    let n = a.len().min(b.len());
    let (mut lo, mut hi) = (0, n); // prefix of length lo is equal; of length hi+1 may not be
    if a.slice(0, n) == b.slice(0, n) {
        return n;
    }
    // Invariant: a[..lo] == b[..lo] and a[..hi] != b[..hi] (hi >= 1).
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if a.slice(0, mid) == b.slice(0, mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Every difference between `want` (the reference) and `got`, one line per column.
pub fn diff_tables(want: &Table, got: &Table) -> Vec<String> {
    if want.names != got.names {
        return vec![format!("column names: want {:?}, got {:?}", want.names, got.names)];
    }
    let mut diffs = Vec::new();
    for ((name, w), g) in want.names.iter().zip(&want.columns).zip(&got.columns) {
        if let Some(d) = diff_arrays(w.as_ref(), g.as_ref()) {
            diffs.push(format!("column '{name}': {d}"));
        }
    }
    diffs
}

/// `t` without the metadata of any field inside it (extension markers such as `arrow.uuid`,
/// which the reference's IPC files strip to the storage type).
pub fn without_field_metadata(t: &DataType) -> DataType {
    use arrow_schema::Field;
    let strip = |f: &Field| Arc::new(Field::new(f.name(), without_field_metadata(f.data_type()), f.is_nullable()));
    match t {
        DataType::List(f) => DataType::List(strip(f)),
        DataType::LargeList(f) => DataType::LargeList(strip(f)),
        DataType::FixedSizeList(f, n) => DataType::FixedSizeList(strip(f), *n),
        DataType::Map(f, sorted) => DataType::Map(strip(f), *sorted),
        DataType::Struct(fs) => DataType::Struct(fs.iter().map(|f| strip(f)).collect()),
        other => other.clone(),
    }
}

/// `a` with the field metadata inside its type removed (see [`without_field_metadata`]).
pub fn strip_field_metadata(a: &ArrayRef) -> ArrayRef {
    fn strip(data: arrow_data::ArrayData) -> arrow_data::ArrayData {
        let t = without_field_metadata(data.data_type());
        let children: Vec<_> = data.child_data().iter().cloned().map(strip).collect();
        data.into_builder().data_type(t).child_data(children).build().expect("same layout")
    }
    arrow_array::make_array(strip(a.to_data()))
}

/// How `got` differs from `want` (type, length or the first differing row), if it does.
pub fn diff_arrays(want: &dyn Array, got: &dyn Array) -> Option<String> {
    if want.data_type() != got.data_type()
        && without_field_metadata(want.data_type()) == without_field_metadata(got.data_type())
    {
        let (want, got) = (arrow_array::make_array(want.to_data()), arrow_array::make_array(got.to_data()));
        return diff_arrays(strip_field_metadata(&want).as_ref(), strip_field_metadata(&got).as_ref());
    }
    if want.data_type() != got.data_type() {
        return Some(format!("type: want {}, got {}", want.data_type(), got.data_type()));
    }
    if want.len() != got.len() {
        return Some(format!("length: want {}, got {}", want.len(), got.len()));
    }
    if want == got {
        return None;
    }
    let row = first_difference(want, got);
    Some(format!("row {row} differs: want {} got {}", show(want, row), show(got, row)))
}

/// Whether `t` is a string or binary type with variable-length values (any offset width,
/// views, or a dictionary of those).
pub fn is_byte_array_type(t: &DataType) -> bool {
    use DataType as D;
    match t {
        D::Utf8 | D::LargeUtf8 | D::Utf8View | D::Binary | D::LargeBinary | D::BinaryView => true,
        D::Dictionary(_, v) => is_byte_array_type(v),
        _ => false,
    }
}

/// Whether `t` holds UTF-8 text (a string type, or a dictionary of one).
pub fn is_utf8_type(t: &DataType) -> bool {
    use DataType as D;
    match t {
        D::Utf8 | D::LargeUtf8 | D::Utf8View => true,
        D::Dictionary(_, v) => is_utf8_type(v),
        _ => false,
    }
}

/// The values of any string/binary-like array as bytes (`None` for a null), whatever its
/// physical form; `None` for other types.
pub fn byte_values(a: &dyn Array) -> Option<Vec<Option<Vec<u8>>>> {
    use DataType as D;
    let out: Vec<Option<Vec<u8>>> = match a.data_type() {
        D::Utf8 => a.as_string::<i32>().iter().map(|v| v.map(|s| s.as_bytes().to_vec())).collect(),
        D::LargeUtf8 => a.as_string::<i64>().iter().map(|v| v.map(|s| s.as_bytes().to_vec())).collect(),
        D::Utf8View => a.as_string_view().iter().map(|v| v.map(|s| s.as_bytes().to_vec())).collect(),
        D::Binary => a.as_binary::<i32>().iter().map(|v| v.map(<[u8]>::to_vec)).collect(),
        D::LargeBinary => a.as_binary::<i64>().iter().map(|v| v.map(<[u8]>::to_vec)).collect(),
        D::BinaryView => a.as_binary_view().iter().map(|v| v.map(<[u8]>::to_vec)).collect(),
        D::Dictionary(_, _) => {
            let dict = a.as_any_dictionary();
            let values = byte_values(dict.values().as_ref())?;
            dictionary_keys(dict.keys())
                .into_iter()
                .map(|k| {
                    let k = k?;
                    match usize::try_from(k).ok().and_then(|k| values.get(k)) {
                        Some(v) => v.clone(),
                        // An invalid key must not compare equal to anything pyarrow reads.
                        None => Some(format!("<dictionary key {k} out of range>").into_bytes()),
                    }
                })
                .collect()
        }
        _ => return None,
    };
    Some(out)
}

/// The keys of a dictionary array as `i64` (`None` for a null key), whatever their type.
/// (`AnyDictionaryArray::normalized_keys` would clamp bad keys and panics on empty values.)
pub fn dictionary_keys(keys: &dyn Array) -> Vec<Option<i64>> {
    use arrow_array::types::*;
    use DataType as D;
    fn conv<T: arrow_array::ArrowPrimitiveType>(a: &dyn Array) -> Vec<Option<i64>>
    where
        T::Native: TryInto<i64>,
    {
        a.as_primitive::<T>().iter().map(|k| k.map(|k| k.try_into().unwrap_or(i64::MAX))).collect()
    }
    match keys.data_type() {
        D::Int8 => conv::<Int8Type>(keys),
        D::Int16 => conv::<Int16Type>(keys),
        D::Int32 => conv::<Int32Type>(keys),
        D::Int64 => conv::<Int64Type>(keys),
        D::UInt8 => conv::<UInt8Type>(keys),
        D::UInt16 => conv::<UInt16Type>(keys),
        D::UInt32 => conv::<UInt32Type>(keys),
        D::UInt64 => conv::<UInt64Type>(keys),
        t => panic!("dictionary key type {t}"),
    }
}

/// Compares two byte-value vectors; describes the first difference.
pub fn diff_byte_values(want: &[Option<Vec<u8>>], got: &[Option<Vec<u8>>]) -> Option<String> {
    if want.len() != got.len() {
        return Some(format!("length: want {}, got {}", want.len(), got.len()));
    }
    let row = want.iter().zip(got).position(|(w, g)| w != g)?;
    let short = |v: &Option<Vec<u8>>| match v {
        None => "null".to_owned(),
        Some(b) if b.len() > 60 => format!("{:?}… ({} bytes)", String::from_utf8_lossy(&b[..60]), b.len()),
        Some(b) => format!("{:?}", String::from_utf8_lossy(b)),
    };
    Some(format!("row {row} differs: want {} got {}", short(&want[row]), short(&got[row])))
}

/// Whether parquetry's type is the one `choice` asks for, keeping text as text and bytes as
/// bytes.
pub fn byte_array_type_ok(got: &DataType, choice: ByteArrayType, utf8: bool) -> bool {
    use DataType as D;
    match (choice, got) {
        (ByteArrayType::View, D::Utf8View) | (ByteArrayType::Large, D::LargeUtf8) => utf8,
        (ByteArrayType::View, D::BinaryView) | (ByteArrayType::Large, D::LargeBinary) => !utf8,
        (ByteArrayType::Regular, D::Utf8) => utf8,
        (ByteArrayType::Regular, D::Binary) => !utf8,
        (ByteArrayType::Dictionary, D::Dictionary(_, v)) => match v.as_ref() {
            D::Utf8 => utf8,
            D::Binary => !utf8,
            _ => false,
        },
        _ => false,
    }
}

/// Compares a read made with `choice` for BYTE_ARRAY columns with the reference: string and
/// binary columns by their bytes (and their type must be the chosen kind), others exactly.
pub fn diff_with_byte_array_type(want: &Table, got: &Table, choice: ByteArrayType) -> Vec<String> {
    if got.names != want.names {
        return vec![format!("column names: want {:?}, got {:?}", want.names, got.names)];
    }
    let mut diffs = Vec::new();
    for ((name, w), g) in want.names.iter().zip(&want.columns).zip(&got.columns) {
        if w.data_type().is_nested() {
            // Byte-array leaves inside lists, maps and structs: checked for the chosen kind and
            // turned into pyarrow's type, then the whole column compared.
            match with_byte_leaves_as(g, w.data_type(), choice) {
                Ok(g) => {
                    if let Some(d) = diff_arrays(w.as_ref(), g.as_ref()) {
                        diffs.push(format!("column '{name}': {d}"));
                    }
                }
                Err(e) => diffs.push(format!("column '{name}': {e}")),
            }
            continue;
        }
        if !is_byte_array_type(w.data_type()) {
            if let Some(d) = diff_arrays(w.as_ref(), g.as_ref()) {
                diffs.push(format!("column '{name}': {d}"));
            }
            continue;
        }
        if !byte_array_type_ok(g.data_type(), choice, is_utf8_type(w.data_type())) {
            diffs.push(format!(
                "column '{name}': type {} for {choice:?} (pyarrow reads {})",
                g.data_type(),
                w.data_type()
            ));
            continue;
        }
        let (wv, gv) = (byte_values(w.as_ref()).unwrap(), byte_values(g.as_ref()).unwrap());
        if let Some(d) = diff_byte_values(&wv, &gv) {
            diffs.push(format!("column '{name}': {d}"));
        }
    }
    diffs
}

/// A dictionary array of `values` with keys of type `key`, of strings (`utf8`) or binaries;
/// `None` for a key type that is not an integer.
fn dictionary_of(key: &DataType, values: &[Option<Vec<u8>>], utf8: bool) -> Option<ArrayRef> {
    use arrow_array::builder::GenericByteDictionaryBuilder;
    use arrow_array::types::*;
    fn build<K: ArrowDictionaryKeyType>(values: &[Option<Vec<u8>>], utf8: bool) -> ArrayRef {
        if utf8 {
            let mut b = GenericByteDictionaryBuilder::<K, Utf8Type>::new();
            values.iter().for_each(|v| b.append_option(v.as_deref().map(|b| String::from_utf8_lossy(b).into_owned())));
            Arc::new(b.finish())
        } else {
            let mut b = GenericByteDictionaryBuilder::<K, BinaryType>::new();
            values.iter().for_each(|v| b.append_option(v.as_deref()));
            Arc::new(b.finish())
        }
    }
    Some(match key {
        DataType::Int8 => build::<Int8Type>(values, utf8),
        DataType::Int16 => build::<Int16Type>(values, utf8),
        DataType::Int32 => build::<Int32Type>(values, utf8),
        DataType::Int64 => build::<Int64Type>(values, utf8),
        DataType::UInt8 => build::<UInt8Type>(values, utf8),
        DataType::UInt16 => build::<UInt16Type>(values, utf8),
        DataType::UInt32 => build::<UInt32Type>(values, utf8),
        DataType::UInt64 => build::<UInt64Type>(values, utf8),
        _ => return None,
    })
}

/// `got` (a nested array read with `choice`) with every string/binary leaf turned into the
/// type it has in `want` (pyarrow's reading); fails on a leaf of the wrong kind.
pub fn with_byte_leaves_as(got: &ArrayRef, want: &DataType, choice: ByteArrayType) -> Result<ArrayRef, String> {
    use arrow_array::{
        BinaryArray, BinaryViewArray, FixedSizeListArray, LargeBinaryArray, LargeListArray, LargeStringArray,
        ListArray, MapArray, StringArray, StringViewArray, StructArray,
    };
    use DataType as D;
    let array: ArrayRef = match (got.data_type(), want) {
        (D::Struct(_), D::Struct(fields)) => {
            let s = got.as_struct();
            let children = s
                .columns()
                .iter()
                .zip(fields.iter())
                .map(|(c, f)| with_byte_leaves_as(c, f.data_type(), choice))
                .collect::<Result<Vec<_>, _>>()?;
            Arc::new(StructArray::try_new(fields.clone(), children, s.nulls().cloned()).map_err(|e| e.to_string())?)
        }
        (D::List(_), D::List(f)) => {
            let l = got.as_list::<i32>();
            let child = with_byte_leaves_as(l.values(), f.data_type(), choice)?;
            Arc::new(
                ListArray::try_new(f.clone(), l.offsets().clone(), child, l.nulls().cloned())
                    .map_err(|e| e.to_string())?,
            )
        }
        (D::LargeList(_), D::LargeList(f)) => {
            let l = got.as_list::<i64>();
            let child = with_byte_leaves_as(l.values(), f.data_type(), choice)?;
            Arc::new(
                LargeListArray::try_new(f.clone(), l.offsets().clone(), child, l.nulls().cloned())
                    .map_err(|e| e.to_string())?,
            )
        }
        (D::FixedSizeList(..), D::FixedSizeList(f, n)) => {
            let l = got.as_fixed_size_list();
            let child = with_byte_leaves_as(l.values(), f.data_type(), choice)?;
            Arc::new(FixedSizeListArray::try_new(f.clone(), *n, child, l.nulls().cloned()).map_err(|e| e.to_string())?)
        }
        (D::Map(..), D::Map(f, sorted)) => {
            let m = got.as_map();
            let entries: ArrayRef = Arc::new(m.entries().clone());
            let entries = with_byte_leaves_as(&entries, f.data_type(), choice)?;
            Arc::new(
                MapArray::try_new(
                    f.clone(),
                    m.offsets().clone(),
                    entries.as_struct().clone(),
                    m.nulls().cloned(),
                    *sorted,
                )
                .map_err(|e| e.to_string())?,
            )
        }
        (g, w) if is_byte_array_type(w) => {
            if !byte_array_type_ok(g, choice, is_utf8_type(w)) {
                return Err(format!("leaf type {g} for {choice:?} (pyarrow reads {w})"));
            }
            let values = byte_values(got.as_ref()).ok_or("not a byte array")?;
            let text = |v: &Option<Vec<u8>>| v.as_ref().map(|b| String::from_utf8_lossy(b).into_owned());
            match w {
                D::Utf8 => Arc::new(values.iter().map(text).collect::<StringArray>()),
                D::LargeUtf8 => Arc::new(values.iter().map(text).collect::<LargeStringArray>()),
                D::Utf8View => Arc::new(values.iter().map(text).collect::<StringViewArray>()),
                D::Binary => Arc::new(values.iter().map(|v| v.as_deref()).collect::<BinaryArray>()),
                D::LargeBinary => Arc::new(values.iter().map(|v| v.as_deref()).collect::<LargeBinaryArray>()),
                D::BinaryView => Arc::new(values.iter().map(|v| v.as_deref()).collect::<BinaryViewArray>()),
                // A dictionary leaf (pyarrow keeps the `ARROW:schema` dictionary type of a list
                // element): rebuilt with a dictionary of its own; equality compares values.
                D::Dictionary(k, v) if matches!(**v, D::Utf8 | D::Binary) => {
                    dictionary_of(k, &values, **v == D::Utf8).ok_or_else(|| format!("dictionary keys {k}"))?
                }
                other => return Err(format!("no conversion to {other} in the test helper")),
            }
        }
        _ => Arc::clone(got),
    };
    Ok(array)
}
