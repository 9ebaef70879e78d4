//! Bad nested input refused with an error naming the column, never a panic: nulls where the
//! schema has none (non-nullable list elements and struct children under valid parents, map
//! keys), list offsets past their values or going back, children shorter than their parents
//! (arrays built without Arrow's checks, as FFI and unchecked code can), and nested types
//! without a Parquet form.

mod common;
#[path = "common/nested_data.rs"]
mod nested_data;
#[path = "common/read_compare.rs"]
mod read_compare;
#[path = "common/write_data.rs"]
mod write_data;

use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, ListArray, MapArray, RecordBatch, StringArray, StructArray};
use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Fields, Schema};
use nested_data::map_type;
use parquetry::format::Encoding;
use parquetry::write::{ParquetWriter, WriteOptions};

fn list(t: DataType, nullable: bool) -> DataType {
    DataType::List(Arc::new(Field::new("item", t, nullable)))
}

fn field(name: &str, t: DataType, nullable: bool) -> Field {
    Field::new(name, t, nullable)
}

/// Writes one column; the error message, or a note that it was written.
fn write_error(column: ArrayRef, nullable: bool) -> String {
    let schema = Arc::new(Schema::new(vec![field("c", column.data_type().clone(), nullable)]));
    let batch = RecordBatch::try_new_with_options(
        schema.clone(),
        vec![column],
        &arrow_array::RecordBatchOptions::new().with_match_field_names(false),
    );
    let batch = match batch {
        Ok(b) => b,
        Err(e) => return format!("arrow refused the batch: {e}"),
    };
    let result = read_compare::catch(|| {
        let mut w = ParquetWriter::try_new(Vec::new(), schema, WriteOptions::default())?;
        w.write(&batch)?;
        w.close().map(|_| ())
    });
    match result {
        Ok(Ok(())) => "written".to_owned(),
        Ok(Err(e)) => e.to_string(),
        Err(panic) => format!("PANIC {panic}"),
    }
}

#[test]
fn nulls_where_the_schema_has_none_are_refused_naming_the_column() {
    // A non-nullable list element holding a null under a valid list (Arrow's checked
    // constructors refuse it; arrays from FFI or unchecked code may still carry it).
    let values = Arc::new(Int32Array::from(vec![Some(1), None, Some(3)]));
    let f = Arc::new(field("item", DataType::Int32, false));
    // SAFETY: the offsets are valid for the 3 values; only the nullability is violated,
    // which is what the writer must refuse.
    let l = unsafe { ListArray::new_unchecked(f, OffsetBuffer::new(ScalarBuffer::from(vec![0, 2, 3])), values, None) };
    let e = write_error(Arc::new(l), true);
    assert!(e.contains("c.list.element") && e.contains("not nullable"), "{e}");

    // The same null under a null list is fine: it is never written.
    let values = Arc::new(Int32Array::from(vec![Some(1), None, Some(3)]));
    let f = Arc::new(field("item", DataType::Int32, false));
    let nulls = Some(NullBuffer::from(vec![true, false]));
    // SAFETY: as above; the null element is under a null list.
    let l = unsafe { ListArray::new_unchecked(f, OffsetBuffer::new(ScalarBuffer::from(vec![0, 1, 3])), values, nulls) };
    let e = write_error(Arc::new(l.slice(0, 1)), true);
    assert_eq!(e, "written");

    // A struct's non-nullable child with a null under a valid struct row.
    let child: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None]));
    let fields = Fields::from(vec![field("x", DataType::Int32, false)]);
    // SAFETY: lengths agree; only the nullability is violated.
    let s = unsafe { StructArray::new_unchecked(fields, vec![child], None) };
    let e = write_error(Arc::new(s), true);
    assert!(e.contains("c.x") && e.contains("not nullable"), "{e}");
}

#[test]
fn null_map_keys_are_refused() {
    let keys: ArrayRef = Arc::new(StringArray::from(vec![Some("a"), None]));
    let values: ArrayRef = Arc::new(Int32Array::from(vec![1, 2]));
    let DataType::Map(entries_field, _) = map_type(DataType::Utf8, DataType::Int32, true) else { unreachable!() };
    let DataType::Struct(kv) = entries_field.data_type().clone() else { unreachable!() };
    // SAFETY: lengths agree; the null key violates the key field's nullability only.
    let entries = unsafe { StructArray::new_unchecked(kv, vec![keys, values], None) };
    // SAFETY: offsets 0..2 fit the 2 entries.
    let m = unsafe {
        MapArray::new_unchecked(entries_field, OffsetBuffer::new(ScalarBuffer::from(vec![0, 2])), entries, None, false)
    };
    let e = write_error(Arc::new(m), true);
    assert!(e.contains("c.key_value.key") && e.contains("not nullable"), "{e}");
}

#[test]
fn list_offsets_past_the_values_are_refused() {
    let values = Arc::new(Int32Array::from(vec![1, 2, 3]));
    let f = Arc::new(field("item", DataType::Int32, true));
    // SAFETY: deliberately invalid (offsets reach 10 over 3 values); the writer must check
    // offsets before it reads values through them, and refuse.
    let l = unsafe { ListArray::new_unchecked(f, OffsetBuffer::new(ScalarBuffer::from(vec![0, 2, 10])), values, None) };
    let e = write_error(Arc::new(l), true);
    assert!(e.contains("column 'c'") && e.contains("malformed") && e.contains("offset"), "{e}");

    // Offsets that go back in the middle (Arrow's structural check looks at the last only).
    let values = Arc::new(Int32Array::from(vec![1, 2, 3]));
    let f = Arc::new(field("item", DataType::Int32, true));
    // SAFETY: deliberately invalid (offsets 0, 3, 1, 3); the writer must refuse it without
    // reading values through the bad range.
    let l = unsafe {
        ListArray::new_unchecked(f, OffsetBuffer::new_unchecked(ScalarBuffer::from(vec![0, 3, 1, 3])), values, None)
    };
    let e = write_error(Arc::new(l), true);
    assert!(e.contains("c.list.element") && e.contains("decreasing"), "{e}");
}

#[test]
fn a_struct_child_shorter_than_the_struct_is_refused() {
    let child: ArrayRef = Arc::new(Int32Array::from(vec![1, 2]));
    let fields = Fields::from(vec![field("x", DataType::Int32, true)]);
    // SAFETY: deliberately invalid (3 rows over a child of 2); the writer must refuse it
    // before reading the child.
    let s = unsafe { StructArray::new_unchecked_with_length(fields, vec![child], None, 3) };
    let e = write_error(Arc::new(s), true);
    assert!(e.contains("column 'c'") && e.contains("malformed") && e.contains("smaller"), "{e}");
}

#[test]
fn unsupported_nested_types_are_refused_at_open() {
    let schema = |t: DataType| Arc::new(Schema::new(vec![field("c", t, true)]));
    let open = |t: DataType| {
        ParquetWriter::try_new(Vec::new(), schema(t), WriteOptions::default()).err().map(|e| e.to_string())
    };
    let e = open(DataType::Struct(Fields::empty())).unwrap();
    assert!(e.contains("'c'") && e.contains("struct"), "{e}");
    let e = open(DataType::ListView(Arc::new(field("item", DataType::Int32, true)))).unwrap();
    assert!(e.contains("'c'"), "{e}");
    let e = open(list(DataType::Struct(Fields::empty()), true)).unwrap();
    assert!(e.contains("'c.list.element'"), "{e}");
    // A nested column named in the options is found by its leaf path.
    let options = WriteOptions::default().with_column_encoding("c.list.element", Encoding::DELTA_BINARY_PACKED);
    assert!(ParquetWriter::try_new(Vec::new(), schema(list(DataType::Int32, true)), options).is_ok());
}

#[test]
fn nesting_deeper_than_the_bound_is_refused_at_open() {
    let mut t = DataType::Int32;
    for _ in 0..200 {
        t = list(t, true);
    }
    let schema = Arc::new(Schema::new(vec![field("deep", t, true)]));
    let e = ParquetWriter::try_new(Vec::new(), schema, WriteOptions::default()).err().map(|e| e.to_string()).unwrap();
    assert!(e.contains("'deep.list.element") && e.contains("nested more than"), "{e}");
}
