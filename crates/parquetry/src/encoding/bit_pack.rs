//! Bit packing as the RLE/bit-packing hybrid and DELTA_BINARY_PACKED use it: values of a fixed
//! bit width packed back to back, least significant bit first.
//!
//! The unpackers and packers work 32 values at a time with code specialised per width (a
//! `match` on the width selects a function generic over the width as a constant, whose body
//! the compiler fully unrolls into shifts and masks). 32 values of width `w` are exactly
//! `4 * w` bytes.
//! Input shorter than that reads as zero bits, so callers can unpack the tail of a run without
//! a separate slow path.
//!
//! The ULEB128 varints that frame RLE runs and DELTA_BINARY_PACKED headers live here too.

use crate::error::{Error, Result};

/// Expands `$body` 32 times with the constant `$i` set to 0, 1, …, 31.
macro_rules! unroll32 {
    ($i:ident => $body:block) => {
        unroll32!(@ $i => $body; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
            16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31)
    };
    (@ $i:ident => $body:block; $($n:literal)*) => {
        $( { const $i: usize = $n; $body } )*
    };
}

/// Calls `$f::<W>($args)` for the runtime width `$w`, one arm per listed width.
macro_rules! dispatch {
    ($w:expr, $f:ident, $default:expr, ($a:expr, $b:expr); $($n:literal)*) => {
        match $w {
            $( $n => $f::<$n>($a, $b), )*
            _ => $default,
        }
    };
}

/// Little-endian `u32` word `k` of `input`. Callers pass `input` of exactly `4 * W` bytes and
/// constant `k < W`, so after unrolling the check folds away and this is one load.
#[inline(always)]
fn word(input: &[u8], k: usize) -> u32 {
    match input.get(4 * k..4 * k + 4) {
        Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        None => 0,
    }
}

#[inline(always)]
fn unpack32_w<const W: usize>(input: &[u8], out: &mut [u32; 32]) {
    let Some(input) = input.get(..4 * W) else { return };
    if W == 0 {
        *out = [0; 32];
        return;
    }
    let mask = u32::MAX >> (32 - W);
    unroll32!(I => {
        let bit = I * W;
        let (k, s) = (bit / 32, bit % 32);
        let mut v = word(input, k) >> s;
        if s + W > 32 {
            v |= word(input, k + 1) << (32 - s);
        }
        out[I] = v & mask;
    });
}

#[inline(always)]
fn unpack32_w64<const W: usize>(input: &[u8], out: &mut [u64; 32]) {
    let Some(input) = input.get(..4 * W) else { return };
    if W == 0 {
        *out = [0; 32];
        return;
    }
    let mask = u64::MAX >> (64 - W);
    unroll32!(I => {
        let bit = I * W;
        let (k, s) = (bit / 32, bit % 32);
        let mut v = u64::from(word(input, k) >> s);
        let have = 32 - s;
        if have < W {
            v |= u64::from(word(input, k + 1)) << have;
        }
        if have + 32 < W {
            v |= u64::from(word(input, k + 2)) << (have + 32);
        }
        out[I] = v & mask;
    });
}

fn unpack32_dispatch(input: &[u8], width: usize, out: &mut [u32; 32]) {
    dispatch!(width, unpack32_w, *out = [0; 32], (input, out);
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
}

fn unpack32_dispatch64(input: &[u8], width: usize, out: &mut [u64; 32]) {
    dispatch!(width, unpack32_w64, *out = [0; 32], (input, out);
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
        33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62
        63 64)
}

/// Unpacks 32 values of `width` bits (0..=32) from the first `4 * width` bytes of `input`.
///
/// Missing input bytes read as zero. Callers validate `width` when they read it from the page;
/// a width over 32 is a caller bug and yields zeros.
#[inline]
pub fn unpack32(input: &[u8], width: usize, out: &mut [u32; 32]) {
    debug_assert!(width <= 32, "bit width {width} is over 32");
    if input.len() >= 4 * width {
        unpack32_dispatch(input, width, out);
    } else {
        let mut padded = [0u8; 4 * 32];
        if let Some(p) = padded.get_mut(..input.len()) {
            p.copy_from_slice(input);
        }
        unpack32_dispatch(&padded, width, out);
    }
}

/// Unpacks 32 values of `width` bits (0..=64) from the first `4 * width` bytes of `input`.
///
/// Missing input bytes read as zero; a width over 64 is a caller bug and yields zeros.
#[inline]
pub fn unpack32_u64(input: &[u8], width: usize, out: &mut [u64; 32]) {
    debug_assert!(width <= 64, "bit width {width} is over 64");
    if input.len() >= 4 * width {
        unpack32_dispatch64(input, width, out);
    } else {
        let mut padded = [0u8; 4 * 64];
        if let Some(p) = padded.get_mut(..input.len()) {
            p.copy_from_slice(input);
        }
        unpack32_dispatch64(&padded, width, out);
    }
}

/// Unpacks `out.len()` values of `width` bits (0..=32) from `input`; returns the bytes they
/// span (`ceil(out.len() * width / 8)`, which may exceed `input.len()`: missing bits are zero).
pub fn unpack_u32(input: &[u8], width: usize, out: &mut [u32]) -> usize {
    let mut pos = 0;
    let mut chunks = out.chunks_exact_mut(32);
    for chunk in &mut chunks {
        if let Ok(c) = <&mut [u32; 32]>::try_from(chunk) {
            unpack32(input.get(pos..).unwrap_or_default(), width, c);
        }
        pos += 4 * width;
    }
    let rest = chunks.into_remainder();
    if !rest.is_empty() {
        let mut tmp = [0u32; 32];
        unpack32(input.get(pos..).unwrap_or_default(), width, &mut tmp);
        rest.copy_from_slice(&tmp[..rest.len()]);
    }
    (out.len() * width).div_ceil(8)
}

/// Unpacks `out.len()` values of `width` bits (0..=64) from `input`; returns the bytes they
/// span. Missing bits read as zero.
pub fn unpack_u64(input: &[u8], width: usize, out: &mut [u64]) -> usize {
    let mut pos = 0;
    let mut chunks = out.chunks_exact_mut(32);
    for chunk in &mut chunks {
        if let Ok(c) = <&mut [u64; 32]>::try_from(chunk) {
            unpack32_u64(input.get(pos..).unwrap_or_default(), width, c);
        }
        pos += 4 * width;
    }
    let rest = chunks.into_remainder();
    if !rest.is_empty() {
        let mut tmp = [0u64; 32];
        unpack32_u64(input.get(pos..).unwrap_or_default(), width, &mut tmp);
        rest.copy_from_slice(&tmp[..rest.len()]);
    }
    (out.len() * width).div_ceil(8)
}

#[inline(always)]
fn pack32_w<const W: usize>(values: &[u32; 32], out: &mut Vec<u8>) {
    if W == 0 {
        return;
    }
    let mask = u32::MAX >> (32 - W);
    // The packed words are built on the stack (OR-ing needs them zeroed) and appended with
    // one copy; with `W` constant every index and shift below is a constant.
    let mut words = [0u32; W];
    unroll32!(I => {
        let bit = I * W;
        let (k, s) = (bit / 32, bit % 32);
        let v = values[I] & mask;
        words[k] |= v << s;
        if s + W > 32 {
            words[k + 1] |= v >> (32 - s);
        }
    });
    out.extend_from_slice(words.map(u32::to_le_bytes).as_flattened());
}

#[inline(always)]
fn pack32_w64<const W: usize>(values: &[u64; 32], out: &mut Vec<u8>) {
    if W == 0 {
        return;
    }
    let mask = u64::MAX >> (64 - W);
    let mut words = [0u32; W];
    unroll32!(I => {
        let bit = I * W;
        let (k, s) = (bit / 32, bit % 32);
        let v = values[I] & mask;
        words[k] |= (v << s) as u32;
        if s + W > 32 {
            words[k + 1] |= (v >> (32 - s)) as u32;
        }
        if s + W > 64 {
            words[k + 2] |= (v >> (64 - s)) as u32;
        }
    });
    out.extend_from_slice(words.map(u32::to_le_bytes).as_flattened());
}

#[inline(always)]
fn pack8_w<const W: usize>(values: &[u32; 8], out: &mut Vec<u8>) {
    if W == 0 {
        return;
    }
    let mask = u64::from(u32::MAX >> (32 - W));
    // 8 values of at most 32 bits fit in 4 words; the first W bytes hold them.
    let mut words = [0u64; 4];
    unroll32!(@ I => {
        let bit = I * W;
        let (k, s) = (bit / 64, bit % 64);
        let v = u64::from(values[I]) & mask;
        words[k] |= v << s;
        if s + W > 64 {
            words[k + 1] |= v >> (64 - s);
        }
    }; 0 1 2 3 4 5 6 7);
    out.extend_from_slice(&words.map(u64::to_le_bytes).as_flattened()[..W]);
}

/// Packs 8 values of `width` bits (0..=32, LSB first), appending exactly `width` bytes to
/// `out`: one group of the RLE/bit-packing hybrid, for encoders that get values one at a time.
/// Bits above `width` are dropped.
///
/// A width over 32 is a caller bug (debug builds panic); release builds pack at 32.
#[inline]
pub fn pack8(values: &[u32; 8], width: usize, out: &mut Vec<u8>) {
    debug_assert!(width <= 32, "bit width {width} is over 32");
    dispatch!(width, pack8_w, pack8_w::<32>(values, out), (values, out);
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
}

/// Packs 32 values of `width` bits (0..=32, LSB first), appending exactly `4 * width` bytes to
/// `out`: the mirror of [`unpack32`], used by the RLE/bit-packing hybrid encoder. Bits above
/// `width` are dropped.
///
/// A width over 32 is a caller bug (debug builds panic); release builds pack at 32.
#[inline]
pub fn pack32(values: &[u32; 32], width: usize, out: &mut Vec<u8>) {
    debug_assert!(width <= 32, "bit width {width} is over 32");
    dispatch!(width, pack32_w, pack32_w::<32>(values, out), (values, out);
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
}

/// Packs 32 values of `width` bits (0..=64, LSB first), appending exactly `4 * width` bytes to
/// `out`: the mirror of [`unpack32_u64`], used by the DELTA_BINARY_PACKED encoder for INT64.
/// Bits above `width` are dropped.
///
/// A width over 64 is a caller bug (debug builds panic); release builds pack at 64.
#[inline]
pub fn pack32_u64(values: &[u64; 32], width: usize, out: &mut Vec<u8>) {
    debug_assert!(width <= 64, "bit width {width} is over 64");
    dispatch!(width, pack32_w64, pack32_w64::<64>(values, out), (values, out);
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
        33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62
        63 64)
}

/// Packs any number of `values` with `width` bits each (0..=64, LSB first), appending
/// `ceil(count * width / 8)` bytes to `out`. Bits above `width` are dropped.
///
/// A convenience over [`pack32_u64`] for callers whose values are not in groups of 32 (the
/// last group is packed zero-padded and the padding's bytes cut off).
pub fn pack(values: impl IntoIterator<Item = u64>, width: usize, out: &mut Vec<u8>) {
    let width = width.min(64);
    let mut group = [0u64; 32];
    let mut n = 0;
    for v in values {
        group[n] = v;
        n += 1;
        if n == 32 {
            pack32_u64(&group, width, out);
            n = 0;
        }
    }
    if n > 0 {
        group[n..].fill(0);
        let end = out.len() + (n * width).div_ceil(8);
        pack32_u64(&group, width, out);
        out.truncate(end);
    }
}

/// Reads a ULEB128 varint of at most 64 bits at `*pos`, advancing `pos`.
pub(crate) fn read_uleb128(data: &[u8], pos: &mut usize, what: &str) -> Result<u64> {
    let mut v = 0u64;
    for i in 0..10 {
        let Some(&b) = data.get(*pos) else {
            return Err(Error::corrupt(format!("{what}: varint ends at the end of the data")));
        };
        *pos += 1;
        if i == 9 && b > 1 {
            break;
        }
        v |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(Error::corrupt(format!("{what}: varint is longer than 64 bits")))
}

/// Writes `v` as ULEB128.
pub(crate) fn write_uleb128(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::TestRng;

    /// The obvious reference: value `i` is bits `i*w .. (i+1)*w` of the input, LSB first.
    fn reference(input: &[u8], width: usize, count: usize) -> Vec<u64> {
        (0..count)
            .map(|i| {
                let mut v = 0u64;
                for b in 0..width {
                    let bit = i * width + b;
                    let byte = input.get(bit / 8).copied().unwrap_or(0);
                    v |= (((byte >> (bit % 8)) & 1) as u64) << b;
                }
                v
            })
            .collect()
    }

    #[test]
    fn spec_example_width_3() {
        // Encodings.md, RLE section: 0..=7 with bit width 3 is 10001000 11000110 11111010.
        let input = [0b1000_1000, 0b1100_0110, 0b1111_1010];
        let mut out = [0u32; 8];
        assert_eq!(unpack_u32(&input, 3, &mut out), 3);
        assert_eq!(out, [0, 1, 2, 3, 4, 5, 6, 7]);
        let mut packed = Vec::new();
        pack((0..8).map(|v| v as u64), 3, &mut packed);
        assert_eq!(packed, input);
    }

    #[test]
    fn every_width_matches_reference() {
        let mut rng = TestRng::new(1);
        for width in 0..=64usize {
            for count in [0usize, 1, 7, 8, 31, 32, 33, 64, 100, 256] {
                let input = rng.bytes((count * width).div_ceil(8));
                let want = reference(&input, width, count);
                let mut got64 = vec![0u64; count];
                assert_eq!(unpack_u64(&input, width, &mut got64), input.len());
                assert_eq!(got64, want, "u64 width {width} count {count}");
                if width <= 32 {
                    let mut got = vec![0u32; count];
                    assert_eq!(unpack_u32(&input, width, &mut got), input.len());
                    let got: Vec<u64> = got.into_iter().map(u64::from).collect();
                    assert_eq!(got, want, "u32 width {width} count {count}");
                }
                let mut repacked = Vec::new();
                pack(want.iter().copied(), width, &mut repacked);
                if width * count % 8 == 0 {
                    assert_eq!(repacked, input, "pack width {width} count {count}");
                }
            }
        }
    }

    #[test]
    fn short_input_reads_as_zero() {
        // Hits the padded-copy branch for every width and every short length.
        let mut rng = TestRng::new(2);
        for width in 0..=64usize {
            let full = rng.bytes(4 * width);
            for len in 0..4 * width {
                let want = reference(&full[..len], width, 32);
                let mut out = [0u64; 32];
                unpack32_u64(&full[..len], width, &mut out);
                assert_eq!(out.to_vec(), want);
                if width <= 32 {
                    let mut out = [0u32; 32];
                    unpack32(&full[..len], width, &mut out);
                    assert_eq!(out.iter().map(|&v| v as u64).collect::<Vec<_>>(), want);
                }
            }
        }
    }

    #[test]
    fn uleb128() {
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            let mut out = Vec::new();
            write_uleb128(v, &mut out);
            let mut pos = 0;
            assert_eq!(read_uleb128(&out, &mut pos, "t").unwrap(), v);
            assert_eq!(pos, out.len());
        }
        let mut pos = 0;
        assert_eq!(read_uleb128(&[0xAC, 0x02], &mut pos, "t").unwrap(), 300);
        assert!(read_uleb128(&[0x80], &mut 0, "t").is_err());
        let mut too_big = vec![0xff; 9];
        too_big.push(0x02);
        assert!(read_uleb128(&too_big, &mut 0, "t").is_err());
    }

    #[test]
    fn pack32_matches_reference_and_drops_high_bits() {
        let mut rng = TestRng::new(3);
        for width in 0..=64usize {
            for _ in 0..20 {
                let raw: [u64; 32] = std::array::from_fn(|_| rng.next_u64());
                let mask = if width == 0 { 0 } else { u64::MAX >> (64 - width) };
                let want: Vec<u64> = raw.iter().map(|&v| v & mask).collect();
                let mut out = vec![0xEE]; // appends after what is there
                pack32_u64(&raw, width, &mut out);
                assert_eq!(out.len(), 1 + 4 * width, "u64 width {width}");
                assert_eq!(reference(&out[1..], width, 32), want, "u64 width {width}");
                if width <= 32 {
                    let raw32: [u32; 32] = raw.map(|v| v as u32);
                    let mut out32 = vec![0xEE];
                    pack32(&raw32, width, &mut out32);
                    assert_eq!(out32, out, "u32 width {width}");
                    // Four groups of 8 packed one at a time are the same bytes.
                    let mut out8 = vec![0xEE];
                    for group in raw32.as_chunks::<8>().0 {
                        pack8(group, width, &mut out8);
                    }
                    assert_eq!(out8, out, "pack8 width {width}");
                    let mut back = [0u32; 32];
                    unpack32(&out32[1..], width, &mut back);
                    assert_eq!(back.map(u64::from).to_vec(), want);
                }
            }
        }
    }

    #[test]
    fn max_values_round_trip() {
        for width in 1..=64usize {
            let max = u64::MAX >> (64 - width);
            let values: Vec<u64> = (0..32).map(|i| if i % 3 == 0 { max } else { i % 2 }).collect();
            let mut bytes = Vec::new();
            pack(values.iter().copied(), width, &mut bytes);
            let mut out = [0u64; 32];
            unpack32_u64(&bytes, width, &mut out);
            assert_eq!(out.to_vec(), values, "width {width}");
        }
    }
}
