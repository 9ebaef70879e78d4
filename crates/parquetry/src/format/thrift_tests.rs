//! Tests of the compact protocol against hand-encoded bytes.
use super::*;

/// `struct { 1: i32 a; 2: binary b; 20: bool c; 21: list<i64> d }`, enough to check the
/// wire form against the compact protocol specification by hand.
#[derive(Debug, PartialEq)]
struct Sample {
    a: i32,
    b: Vec<u8>,
    c: bool,
    d: Vec<i64>,
}

impl ThriftStruct for Sample {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let mut s = Sample { a: 0, b: vec![], c: false, d: vec![] };
        r.read_struct("Sample", |r, id, ty| {
            match id {
                1 => s.a = r.i32(ty)?,
                2 => s.b = r.bytes(ty)?,
                20 => s.c = r.bool(ty)?,
                21 => s.d = r.i64_list(ty)?,
                _ => r.skip(ty)?,
            }
            Ok(())
        })?;
        Ok(s)
    }
    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        w.i32(1, self.a);
        w.binary(2, &self.b);
        w.bool(20, self.c);
        w.i64_list(21, &self.d);
        w.struct_end();
    }
}

// Hand-encoded per the compact protocol spec:
// 0x15 = delta 1, i32; 150 zigzags to 300 = varint ac 02.
// 0x18 = delta 1, binary; length 3, "abc".
// 0x01 = long form (delta 0), bool true; id 20 zigzags to 40 = 0x28.
// 0x19 = delta 1, list; 0x26 = 2 elements of i64; -1 → 01, 64 → 80 01.
const WIRE: &[u8] = &[0x15, 0xac, 0x02, 0x18, 0x03, b'a', b'b', b'c', 0x01, 0x28, 0x19, 0x26, 0x01, 0x80, 0x01, 0x00];

#[test]
fn decodes_the_specification_form() {
    let (s, used) = decode::<Sample>(WIRE).unwrap();
    assert_eq!(s, Sample { a: 150, b: b"abc".to_vec(), c: true, d: vec![-1, 64] });
    assert_eq!(used, WIRE.len());
}

#[test]
fn encodes_the_specification_form() {
    let mut out = Vec::new();
    encode(&Sample { a: 150, b: b"abc".to_vec(), c: true, d: vec![-1, 64] }, &mut out);
    assert_eq!(out, WIRE);
}

#[test]
fn skips_unknown_fields_of_every_type() {
    // Unknown field 5 (double), 6 (struct with a map), 7 (set of bools), then a = 1.
    let mut wire = vec![0x57];
    wire.extend_from_slice(&1.5f64.to_le_bytes());
    wire.extend_from_slice(&[0x1c, 0x1b, 0x01, 0x55, 0x02, 0x04, 0x00]); // map<i32,i32>{1:2}
    wire.extend_from_slice(&[0x1a, 0x11, 0x01]); // set<bool> [true]
    wire.extend_from_slice(&[0x05, 0x02, 0x02, 0x00]); // field 1 (long form), i32 1
    let (s, _) = decode::<Sample>(&wire).unwrap();
    assert_eq!(s.a, 1);
}

#[test]
fn mismatched_wire_type_is_skipped_like_thrift() {
    // Field 1 declared i32 but sent as binary: skipped, value stays default.
    let wire = [0x18, 0x01, b'x', 0x00];
    let (s, _) = decode::<Sample>(&wire).unwrap();
    assert_eq!(s.a, 0);
}
