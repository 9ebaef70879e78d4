//! The Thrift compact protocol, hand-written for Parquet's metadata.
//!
//! Parquet stores its footer and page headers as Thrift structs in the compact protocol. A
//! generated decoder would allocate per field and trust every length it reads; this one reads
//! straight from a byte slice, checks every length and list size against the bytes that are
//! left before allocating, bounds nesting depth, and skips fields it does not know, as the
//! protocol allows. [`ThriftReader`] decodes, [`ThriftWriter`] encodes, and [`ThriftStruct`]
//! ties a Rust struct to both.

use std::any::{Any, TypeId};
use std::sync::Arc;

use crate::error::{Error, Result};

pub use super::thrift_writer::ThriftWriter;

/// Compact-protocol type codes, as they appear in field headers and list headers.
pub mod ttype {
    /// A boolean field whose value is `true` (field headers only).
    pub const BOOL_TRUE: u8 = 1;
    /// A boolean field whose value is `false`; also the element type of `list<bool>`.
    pub const BOOL_FALSE: u8 = 2;
    /// A single byte (`i8`).
    pub const BYTE: u8 = 3;
    /// A zigzag varint `i16`.
    pub const I16: u8 = 4;
    /// A zigzag varint `i32`.
    pub const I32: u8 = 5;
    /// A zigzag varint `i64`.
    pub const I64: u8 = 6;
    /// An 8-byte little-endian IEEE double.
    pub const DOUBLE: u8 = 7;
    /// A varint length followed by that many bytes (Thrift `binary` and `string`).
    pub const BINARY: u8 = 8;
    /// A list header followed by its elements.
    pub const LIST: u8 = 9;
    /// A set: encoded exactly like a list.
    pub const SET: u8 = 10;
    /// A map: a varint size, then a key/value type byte, then the pairs.
    pub const MAP: u8 = 11;
    /// A nested struct, ended by a stop byte.
    pub const STRUCT: u8 = 12;

    /// The protocol's name of a type code, for error messages.
    pub fn name(ty: u8) -> &'static str {
        match ty {
            BOOL_TRUE | BOOL_FALSE => "bool",
            BYTE => "byte",
            I16 => "i16",
            I32 => "i32",
            I64 => "i64",
            DOUBLE => "double",
            BINARY => "binary",
            LIST => "list",
            SET => "set",
            MAP => "map",
            STRUCT => "struct",
            _ => "invalid type",
        }
    }
}

/// No real Parquet footer nests structs anywhere near this deep (the deepest legitimate path is
/// FileMetaData → RowGroup → ColumnChunk → ColumnMetaData → Statistics, plus unions); the bound
/// stops a hostile file from exhausting the stack through recursive skipping.
pub const MAX_DEPTH: u16 = 64;

/// A Rust struct that has a Thrift compact-protocol form.
pub trait ThriftStruct: Sized {
    /// Decodes one struct (up to and including its stop byte).
    fn read(r: &mut ThriftReader<'_>) -> Result<Self>;
    /// Decodes one struct into `slot`. The large structs of the footer override this to decode
    /// in place: moving a several-hundred-byte struct through each `Result` and `Option` on the
    /// way into its `Vec` was the largest cost of decoding a wide footer.
    fn read_into(slot: &mut Self, r: &mut ThriftReader<'_>) -> Result<()> {
        *slot = Self::read(r)?;
        Ok(())
    }
    /// Encodes the struct, including its stop byte.
    fn write(&self, w: &mut ThriftWriter);
}

/// Decodes a whole buffer as one `T`, returning it and the number of bytes it took.
pub fn decode<T: ThriftStruct>(data: &[u8]) -> Result<(T, usize)> {
    let mut r = ThriftReader::new(data);
    let value = T::read(&mut r)?;
    Ok((value, r.position()))
}

/// Encodes `value` and appends its bytes to `out`.
pub fn encode<T: ThriftStruct>(value: &T, out: &mut Vec<u8>) {
    let mut w = ThriftWriter::new(std::mem::take(out));
    value.write(&mut w);
    *out = w.into_inner();
}

/// Checks that every field of `required` (pairs of field id and name) was seen, where bit `id`
/// of `seen` is set for each field decoded; used by structs decoded in place.
pub fn check_required(seen: u32, required: &[(i16, &'static str)], name: &str) -> Result<()> {
    for &(id, field) in required {
        if seen & (1 << id) == 0 {
            return Err(Error::corrupt(format!("required field {name}.{field} is missing")));
        }
    }
    Ok(())
}

/// Returns the value of a required field, or an error naming it.
pub fn required<T>(value: Option<T>, name: &'static str) -> Result<T> {
    value.ok_or_else(|| Error::corrupt(format!("required field {name} is missing")))
}

/// A compact-protocol decoder over a byte slice.
///
/// Every read is bounds-checked; errors say at which byte of the slice the problem is.
pub struct ThriftReader<'a> {
    data: &'a [u8],
    pos: usize,
    depth: u16,
    /// Set when a field's wire type differs from the declared one; [`read_struct`] then skips
    /// the field as Thrift's own generated code does (old writers reused field ids).
    ///
    /// [`read_struct`]: ThriftReader::read_struct
    type_mismatch: bool,
    /// The last list of each element type decoded by [`shared_list`], with its wire bytes.
    ///
    /// [`shared_list`]: ThriftReader::shared_list
    recent: Vec<(TypeId, &'a [u8], Box<dyn Any>)>,
    /// String lists the caller expects, and which one is expected next; see
    /// [`expect_string_list`](ThriftReader::expect_string_list).
    expected_lists: Vec<Arc<[String]>>,
    expected_index: usize,
}

impl<'a> ThriftReader<'a> {
    /// A reader positioned at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        ThriftReader {
            data,
            pos: 0,
            depth: 0,
            type_mismatch: false,
            recent: Vec::new(),
            expected_lists: Vec::new(),
            expected_index: 0,
        }
    }

    /// How many bytes have been consumed.
    pub fn position(&self) -> usize {
        self.pos
    }

    fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    fn error(&self, message: impl std::fmt::Display) -> Error {
        Error::corrupt(format!("thrift at byte {}: {message}", self.pos))
    }

    fn eof(&self, what: &str) -> Error {
        self.error(format!("unexpected end of data reading {what}"))
    }

    #[inline]
    fn byte(&mut self) -> Result<u8> {
        match self.data.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.eof("a byte")),
        }
    }

    /// Reads an unsigned LEB128 varint of at most 10 bytes.
    #[inline]
    pub fn varint(&mut self) -> Result<u64> {
        // Most varints in a footer (field values, lengths, counts) fit one byte.
        if let Some(&b) = self.data.get(self.pos) {
            if b < 0x80 {
                self.pos += 1;
                return Ok(u64::from(b));
            }
        }
        let mut result = 0u64;
        let mut shift = 0u32;
        loop {
            let b = match self.data.get(self.pos) {
                Some(&b) => b,
                None => return Err(self.eof("a varint")),
            };
            self.pos += 1;
            result |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(result);
            }
            shift += 7;
            if shift > 63 {
                return Err(self.error("varint longer than 10 bytes"));
            }
        }
    }

    #[inline(always)]
    fn zigzag(&mut self) -> Result<i64> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    #[inline(always)]
    fn check_type(&mut self, ty: u8, want: u8) -> Result<()> {
        if ty == want {
            return Ok(());
        }
        self.check_other_type(ty, want)
    }

    #[cold]
    fn check_other_type(&mut self, ty: u8, want: u8) -> Result<()> {
        // Sets share the list encoding, and i16/i32/i64 share the zigzag varint encoding;
        // some writers (and fuzzed files that other readers accept) mix them up, and the value
        // is still well defined, so accept them (range checks still apply).
        let is_int = |t: u8| matches!(t, ttype::I16 | ttype::I32 | ttype::I64);
        if ty == want || (want == ttype::LIST && ty == ttype::SET) || (is_int(want) && is_int(ty)) {
            Ok(())
        } else {
            self.type_mismatch = true;
            Err(self.error(format!("expected {}, found {}", ttype::name(want), ttype::name(ty))))
        }
    }

    /// Reads an `i8` field value of type `ty`.
    pub fn i8(&mut self, ty: u8) -> Result<i8> {
        self.check_type(ty, ttype::BYTE)?;
        Ok(self.byte()? as i8)
    }

    /// Reads an `i16` field value of type `ty`.
    pub fn i16(&mut self, ty: u8) -> Result<i16> {
        self.check_type(ty, ttype::I16)?;
        let v = self.zigzag()?;
        i16::try_from(v).map_err(|_| self.error(format!("i16 value {v} out of range")))
    }

    /// Reads an `i32` field value of type `ty`.
    #[inline]
    pub fn i32(&mut self, ty: u8) -> Result<i32> {
        self.check_type(ty, ttype::I32)?;
        let v = self.zigzag()?;
        i32::try_from(v).map_err(|_| self.error(format!("i32 value {v} out of range")))
    }

    /// Reads an `i64` field value of type `ty`.
    #[inline]
    pub fn i64(&mut self, ty: u8) -> Result<i64> {
        self.check_type(ty, ttype::I64)?;
        self.zigzag()
    }

    /// Reads a `double` field value of type `ty`.
    pub fn double(&mut self, ty: u8) -> Result<f64> {
        self.check_type(ty, ttype::DOUBLE)?;
        let bytes = self.take(8, "a double")?;
        let mut b = [0u8; 8];
        b.copy_from_slice(bytes);
        Ok(f64::from_le_bytes(b))
    }

    /// Reads a `bool` field value: in field headers the value is the type code itself.
    pub fn bool(&mut self, ty: u8) -> Result<bool> {
        match ty {
            ttype::BOOL_TRUE => Ok(true),
            ttype::BOOL_FALSE => Ok(false),
            _ => {
                self.type_mismatch = true;
                Err(self.error(format!("expected bool, found {}", ttype::name(ty))))
            }
        }
    }

    #[inline]
    fn take(&mut self, len: usize, what: &str) -> Result<&'a [u8]> {
        if len > self.remaining() {
            return Err(
                self.error(format!("{what} of {len} bytes runs past the end ({} bytes left)", self.remaining()))
            );
        }
        let s = &self.data[self.pos..self.pos + len];
        self.pos += len;
        Ok(s)
    }

    /// Reads a `binary` field value, borrowed from the input.
    #[inline]
    pub fn binary(&mut self, ty: u8) -> Result<&'a [u8]> {
        self.check_type(ty, ttype::BINARY)?;
        self.binary_value()
    }

    #[inline]
    fn binary_value(&mut self) -> Result<&'a [u8]> {
        let len = self.varint()?;
        let len = usize::try_from(len).unwrap_or(usize::MAX);
        self.take(len, "binary")
    }

    /// Reads a `binary` field value as an owned byte vector.
    pub fn bytes(&mut self, ty: u8) -> Result<Vec<u8>> {
        Ok(self.binary(ty)?.to_vec())
    }

    /// Reads a `string` field value; it must be valid UTF-8.
    pub fn string(&mut self, ty: u8) -> Result<String> {
        let at = self.pos;
        let bytes = self.binary(ty)?;
        match std::str::from_utf8(bytes) {
            Ok(s) => Ok(s.to_owned()),
            Err(e) => Err(Error::corrupt(format!("thrift at byte {at}: string is not UTF-8: {e}"))),
        }
    }

    /// Checks that a field value is a struct, before decoding it in place.
    pub fn expect_struct(&mut self, ty: u8) -> Result<()> {
        self.check_type(ty, ttype::STRUCT)
    }

    /// Reads a struct field value: `T::read` after checking the type code.
    pub fn read_struct_field<T: ThriftStruct>(&mut self, ty: u8) -> Result<T> {
        self.check_type(ty, ttype::STRUCT)?;
        T::read(self)
    }

    /// Decodes the fields of one struct, calling `field(reader, id, type)` for each until the
    /// stop byte. `field` must consume the value (or call [`skip`](Self::skip)).
    ///
    /// Errors from inside are prefixed with `name.id` so the message shows the path through
    /// the metadata to the bad byte.
    #[inline]
    pub fn read_struct(
        &mut self,
        name: &'static str,
        mut field: impl FnMut(&mut Self, i16, u8) -> Result<()>,
    ) -> Result<()> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(format!("structs nested deeper than {MAX_DEPTH}")));
        }
        self.depth += 1;
        let mut last_id: i16 = 0;
        loop {
            let header = self.byte().map_err(|e| e.context(name))?;
            if header == 0 {
                break;
            }
            let ty = header & 0x0f;
            let delta = header >> 4;
            let id = if delta != 0 {
                last_id.wrapping_add(i16::from(delta))
            } else {
                let v = self.zigzag().map_err(|e| e.context(name))?;
                i16::try_from(v).map_err(|_| self.error(format!("{name}: field id {v} out of range")))?
            };
            if ty == 0 || ty > ttype::STRUCT {
                return Err(self.error(format!("{name} field {id}: invalid type code {ty}")));
            }
            last_id = id;
            let (start, depth) = (self.pos, self.depth);
            if let Err(e) = field(self, id, ty) {
                if !self.type_mismatch {
                    return Err(e.context(format_args!("{name}.{id}")));
                }
                // A known field id with another wire type: skip it, as Thrift does.
                self.type_mismatch = false;
                self.pos = start;
                self.depth = depth;
                self.skip(ty).map_err(|e| e.context(format_args!("{name}.{id}")))?;
            }
        }
        self.depth -= 1;
        Ok(())
    }

    /// Reads a list header of a field of type `ty` whose elements must have type `elem`;
    /// returns the element count, already checked against the bytes left (every element
    /// takes at least one byte), so callers may reserve that many.
    pub fn list_header(&mut self, ty: u8, elem: u8) -> Result<usize> {
        self.check_type(ty, ttype::LIST)?;
        let (elem_ty, len) = self.raw_list_header()?;
        let is_int = |t: u8| matches!(t, ttype::I16 | ttype::I32 | ttype::I64);
        let same = elem_ty == elem
            || (elem == ttype::BOOL_FALSE && elem_ty == ttype::BOOL_TRUE)
            || (is_int(elem) && is_int(elem_ty));
        if !same && len > 0 {
            self.type_mismatch = true;
            return Err(self.error(format!(
                "expected list<{}>, found list<{}>",
                ttype::name(elem),
                ttype::name(elem_ty)
            )));
        }
        Ok(len)
    }

    fn raw_list_header(&mut self) -> Result<(u8, usize)> {
        let header = self.byte()?;
        let elem_ty = header & 0x0f;
        let short = usize::from(header >> 4);
        let len = if short == 15 { usize::try_from(self.varint()?).unwrap_or(usize::MAX) } else { short };
        let min_bytes = if elem_ty == ttype::DOUBLE { 8 } else { 1 };
        if len > self.remaining() / min_bytes {
            return Err(self.error(format!("list of {len} elements cannot fit in the {} bytes left", self.remaining())));
        }
        Ok((elem_ty, len))
    }

    /// Reads a whole list whose elements are decoded by `elem`.
    pub fn list<T>(&mut self, ty: u8, elem_ty: u8, mut elem: impl FnMut(&mut Self) -> Result<T>) -> Result<Vec<T>> {
        let len = self.list_header(ty, elem_ty)?;
        let mut out = Vec::with_capacity(len);
        for i in 0..len {
            out.push(elem(self).map_err(|e| e.context(format_args!("element {i}")))?);
        }
        Ok(out)
    }

    /// Reads a `list<struct>`.
    pub fn struct_list<T: ThriftStruct>(&mut self, ty: u8) -> Result<Vec<T>> {
        self.list(ty, ttype::STRUCT, T::read)
    }

    /// Reads a `list<struct>` into `out`, decoding each element in place.
    pub fn struct_list_into<T: ThriftStruct + Default>(&mut self, ty: u8, out: &mut Vec<T>) -> Result<()> {
        let len = self.list_header(ty, ttype::STRUCT)?;
        out.clear();
        out.resize_with(len, T::default);
        for (i, slot) in out.iter_mut().enumerate() {
            T::read_into(slot, self).map_err(|e| e.context(format_args!("element {i}")))?;
        }
        Ok(())
    }

    /// Reads a struct field into `slot`, decoding in place.
    pub fn struct_field_into<T: ThriftStruct + Default>(&mut self, ty: u8, slot: &mut Option<T>) -> Result<()> {
        self.check_type(ty, ttype::STRUCT)?;
        T::read_into(slot.insert(T::default()), self)
    }

    /// Reads a `list<i32>`.
    pub fn i32_list(&mut self, ty: u8) -> Result<Vec<i32>> {
        self.list(ty, ttype::I32, |r| r.i32(ttype::I32))
    }

    /// Reads a `list<i64>`.
    pub fn i64_list(&mut self, ty: u8) -> Result<Vec<i64>> {
        self.list(ty, ttype::I64, |r| r.i64(ttype::I64))
    }

    /// Reads a `list<binary>`.
    pub fn binary_list(&mut self, ty: u8) -> Result<Vec<Vec<u8>>> {
        self.list(ty, ttype::BINARY, |r| r.bytes(ttype::BINARY))
    }

    /// Reads a `list<string>`.
    pub fn string_list(&mut self, ty: u8) -> Result<Vec<String>> {
        self.list(ty, ttype::BINARY, |r| r.string(ttype::BINARY))
    }

    /// Reads a `list<bool>`: in lists, each bool is one byte (1 is true).
    pub fn bool_list(&mut self, ty: u8) -> Result<Vec<bool>> {
        self.list(ty, ttype::BOOL_FALSE, |r| Ok(r.byte()? == ttype::BOOL_TRUE))
    }

    /// Skips a value of type `ty`, including nested structs, lists and maps.
    pub fn skip(&mut self, ty: u8) -> Result<()> {
        match ty {
            ttype::BOOL_TRUE | ttype::BOOL_FALSE => Ok(()),
            ttype::BYTE => self.byte().map(drop),
            ttype::I16 | ttype::I32 | ttype::I64 => self.varint().map(drop),
            ttype::DOUBLE => self.take(8, "a double").map(drop),
            ttype::BINARY => self.binary_value().map(drop),
            ttype::LIST | ttype::SET => {
                let (elem_ty, len) = self.raw_list_header()?;
                self.skip_elements(elem_ty, len)
            }
            ttype::MAP => {
                let len = usize::try_from(self.varint()?).unwrap_or(usize::MAX);
                if len == 0 {
                    return Ok(());
                }
                if len > self.remaining() {
                    return Err(self.error(format!("map of {len} entries cannot fit")));
                }
                let kv = self.byte()?;
                let (kt, vt) = (kv >> 4, kv & 0x0f);
                for _ in 0..len {
                    self.skip_elements(kt, 1)?;
                    self.skip_elements(vt, 1)?;
                }
                Ok(())
            }
            ttype::STRUCT => self.read_struct("skipped struct", |r, _, ty| r.skip(ty)),
            _ => Err(self.error(format!("cannot skip invalid type code {ty}"))),
        }
    }

    fn skip_elements(&mut self, elem_ty: u8, len: usize) -> Result<()> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(format!("containers nested deeper than {MAX_DEPTH}")));
        }
        self.depth += 1;
        for _ in 0..len {
            match elem_ty {
                // Inside containers a bool is a full byte.
                ttype::BOOL_TRUE | ttype::BOOL_FALSE => {
                    self.byte()?;
                }
                _ => self.skip(elem_ty)?,
            }
        }
        self.depth -= 1;
        Ok(())
    }
}

#[path = "thrift_shared.rs"]
mod shared;

#[cfg(test)]
#[path = "thrift_tests.rs"]
mod tests;
