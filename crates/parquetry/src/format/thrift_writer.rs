//! The compact-protocol encoder: the write side of [`super::thrift`].

use super::thrift::{ttype, ThriftStruct};

/// A compact-protocol encoder appending to a byte vector.
///
/// Field ids are written as deltas from the previous field of the same struct, so fields must
/// be written in increasing id order, as every `write` here does.
pub struct ThriftWriter {
    out: Vec<u8>,
    last_field: i16,
    stack: Vec<i16>,
}

impl ThriftWriter {
    /// An encoder appending to `out`.
    pub fn new(out: Vec<u8>) -> Self {
        ThriftWriter { out, last_field: 0, stack: Vec::new() }
    }

    /// The bytes written, after whatever `out` held.
    pub fn into_inner(self) -> Vec<u8> {
        self.out
    }

    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.out.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.out.push(v as u8);
    }

    fn zigzag(&mut self, v: i64) {
        self.varint(((v << 1) ^ (v >> 63)) as u64);
    }

    fn field_header(&mut self, id: i16, ty: u8) {
        let delta = id.wrapping_sub(self.last_field);
        if id > self.last_field && delta <= 15 {
            self.out.push(((delta as u8) << 4) | ty);
        } else {
            self.out.push(ty);
            self.zigzag(i64::from(id));
        }
        self.last_field = id;
    }

    fn list_header(&mut self, elem_ty: u8, len: usize) {
        if len < 15 {
            self.out.push(((len as u8) << 4) | elem_ty);
        } else {
            self.out.push(0xf0 | elem_ty);
            self.varint(len as u64);
        }
    }

    /// Starts a struct value (the field header, if any, is already written).
    pub fn struct_begin(&mut self) {
        self.stack.push(self.last_field);
        self.last_field = 0;
    }

    /// Ends a struct value with its stop byte.
    pub fn struct_end(&mut self) {
        self.out.push(0);
        self.last_field = self.stack.pop().unwrap_or(0);
    }

    /// Writes an `i8` field.
    pub fn i8(&mut self, id: i16, v: i8) {
        self.field_header(id, ttype::BYTE);
        self.out.push(v as u8);
    }

    /// Writes an `i16` field.
    pub fn i16(&mut self, id: i16, v: i16) {
        self.field_header(id, ttype::I16);
        self.zigzag(i64::from(v));
    }

    /// Writes an `i32` field.
    pub fn i32(&mut self, id: i16, v: i32) {
        self.field_header(id, ttype::I32);
        self.zigzag(i64::from(v));
    }

    /// Writes an `i64` field.
    pub fn i64(&mut self, id: i16, v: i64) {
        self.field_header(id, ttype::I64);
        self.zigzag(v);
    }

    /// Writes a `double` field.
    pub fn double(&mut self, id: i16, v: f64) {
        self.field_header(id, ttype::DOUBLE);
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    /// Writes a `bool` field (the value lives in the field header).
    pub fn bool(&mut self, id: i16, v: bool) {
        self.field_header(id, if v { ttype::BOOL_TRUE } else { ttype::BOOL_FALSE });
    }

    /// Writes a `binary` (or `string`) field.
    pub fn binary(&mut self, id: i16, v: &[u8]) {
        self.field_header(id, ttype::BINARY);
        self.varint(v.len() as u64);
        self.out.extend_from_slice(v);
    }

    /// Writes a struct field.
    pub fn struct_field<T: ThriftStruct>(&mut self, id: i16, v: &T) {
        self.field_header(id, ttype::STRUCT);
        v.write(self);
    }

    /// Starts a struct field written in place (end it with [`struct_end`](Self::struct_end)).
    pub fn struct_begin_field(&mut self, id: i16) {
        self.field_header(id, ttype::STRUCT);
        self.struct_begin();
    }

    /// Writes an `i32` field if the value is present.
    pub fn opt_i32(&mut self, id: i16, v: Option<i32>) {
        if let Some(v) = v {
            self.i32(id, v);
        }
    }

    /// Writes an `i64` field if the value is present.
    pub fn opt_i64(&mut self, id: i16, v: Option<i64>) {
        if let Some(v) = v {
            self.i64(id, v);
        }
    }

    /// Writes a `bool` field if the value is present.
    pub fn opt_bool(&mut self, id: i16, v: Option<bool>) {
        if let Some(v) = v {
            self.bool(id, v);
        }
    }

    /// Writes a `binary` field if the value is present.
    pub fn opt_binary(&mut self, id: i16, v: Option<&[u8]>) {
        if let Some(v) = v {
            self.binary(id, v);
        }
    }

    /// Writes an empty struct field: the form of most union members and marker structs.
    pub fn empty_struct(&mut self, id: i16) {
        self.struct_begin_field(id);
        self.struct_end();
    }

    /// Writes a `list<struct>` field.
    pub fn struct_list<T: ThriftStruct>(&mut self, id: i16, v: &[T]) {
        self.field_header(id, ttype::LIST);
        self.list_header(ttype::STRUCT, v.len());
        for item in v {
            item.write(self);
        }
    }

    /// Writes a `list<i32>` field.
    pub fn i32_list(&mut self, id: i16, v: &[i32]) {
        self.field_header(id, ttype::LIST);
        self.list_header(ttype::I32, v.len());
        for &x in v {
            self.zigzag(i64::from(x));
        }
    }

    /// Writes a `list<i64>` field.
    pub fn i64_list(&mut self, id: i16, v: &[i64]) {
        self.field_header(id, ttype::LIST);
        self.list_header(ttype::I64, v.len());
        for &x in v {
            self.zigzag(x);
        }
    }

    /// Writes a `list<binary>` (or `list<string>`) field.
    pub fn binary_list<B: AsRef<[u8]>>(&mut self, id: i16, v: &[B]) {
        self.field_header(id, ttype::LIST);
        self.list_header(ttype::BINARY, v.len());
        for x in v {
            let x = x.as_ref();
            self.varint(x.len() as u64);
            self.out.extend_from_slice(x);
        }
    }

    /// Writes a `list<bool>` field (one byte per element).
    pub fn bool_list(&mut self, id: i16, v: &[bool]) {
        self.field_header(id, ttype::LIST);
        self.list_header(ttype::BOOL_TRUE, v.len());
        for &x in v {
            self.out.push(if x { ttype::BOOL_TRUE } else { ttype::BOOL_FALSE });
        }
    }
}
