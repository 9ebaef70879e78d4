//! PLAIN (= 0): values back to back. Fixed-width types are little endian (INT96 12 bytes,
//! FIXED_LEN_BYTE_ARRAY its declared width), BOOLEAN is bit-packed LSB first, BYTE_ARRAY is a
//! 4-byte little-endian length before each value.
//!
//! Fixed-width decoders check the whole batch against the input once, then convert in one
//! pass the compiler turns into a plain copy on little-endian targets. Each returns the bytes
//! it used, so a caller reading a page in batches advances by that much.
//!
//! The write side: [`encode_byte_array_offsets`] for Arrow offsets + data, and
//! [`BooleanEncoder`]. Fixed-width values need no encoder: their PLAIN form is their
//! little-endian bytes.

use super::offsets_plain::{put_value, VALUE_BLOCK};
use super::{ByteArraySink, OffsetSize};
use crate::error::{Error, Result};

/// The bytes `n` values of `size` bytes need, or an error if `data_len` is shorter.
#[inline]
fn fixed_bytes(what: &str, n: usize, size: usize, data_len: usize) -> Result<usize> {
    match n.checked_mul(size) {
        Some(b) if b <= data_len => Ok(b),
        _ => Err(Error::corrupt(format!(
            "PLAIN {what}: {n} values of {size} bytes need more than the {data_len} bytes left"
        ))),
    }
}

#[inline]
fn decode_fixed<const N: usize, T>(
    what: &str,
    data: &[u8],
    n: usize,
    dst: &mut Vec<T>,
    from: fn([u8; N]) -> T,
) -> Result<usize> {
    let bytes = fixed_bytes(what, n, N, data.len())?;
    let src = data.get(..bytes).unwrap_or_default();
    // chunks_exact(N) yields N-byte slices, so the conversion never takes the fallback; the
    // loop has an exact length and compiles to a vectorised copy.
    dst.extend(src.chunks_exact(N).map(|c| from(c.try_into().unwrap_or([0; N]))));
    Ok(bytes)
}

/// Appends `n` INT32 values; returns the bytes used (`4 * n`).
pub fn decode_i32(data: &[u8], n: usize, dst: &mut Vec<i32>) -> Result<usize> {
    decode_fixed("INT32", data, n, dst, i32::from_le_bytes)
}

/// Appends `n` INT64 values; returns the bytes used (`8 * n`).
pub fn decode_i64(data: &[u8], n: usize, dst: &mut Vec<i64>) -> Result<usize> {
    decode_fixed("INT64", data, n, dst, i64::from_le_bytes)
}

/// Appends `n` FLOAT values; returns the bytes used (`4 * n`).
pub fn decode_f32(data: &[u8], n: usize, dst: &mut Vec<f32>) -> Result<usize> {
    decode_fixed("FLOAT", data, n, dst, f32::from_le_bytes)
}

/// Appends `n` DOUBLE values; returns the bytes used (`8 * n`).
pub fn decode_f64(data: &[u8], n: usize, dst: &mut Vec<f64>) -> Result<usize> {
    decode_fixed("DOUBLE", data, n, dst, f64::from_le_bytes)
}

/// Appends `n` INT96 values as raw 12-byte chunks; returns the bytes used (`12 * n`).
pub fn decode_int96(data: &[u8], n: usize, dst: &mut Vec<[u8; 12]>) -> Result<usize> {
    decode_fixed("INT96", data, n, dst, |b| b)
}

/// Appends `n` FIXED_LEN_BYTE_ARRAY values of `width` bytes to `dst` in one copy (also right
/// for INT96 or any fixed-width type wanted as raw bytes); returns the bytes used.
pub fn decode_fixed_len(data: &[u8], width: usize, n: usize, dst: &mut Vec<u8>) -> Result<usize> {
    let bytes = fixed_bytes("FIXED_LEN_BYTE_ARRAY", n, width, data.len())?;
    dst.extend_from_slice(data.get(..bytes).unwrap_or_default());
    Ok(bytes)
}

/// Checks that `data` holds bits `bit_offset .. bit_offset + n`.
fn check_bits(data: &[u8], bit_offset: usize, n: usize) -> Result<()> {
    match bit_offset.checked_add(n) {
        Some(end) if end.div_ceil(8) <= data.len() => Ok(()),
        _ => Err(Error::corrupt(format!(
            "PLAIN BOOLEAN: {n} values at bit {bit_offset} need more than the {} bytes left",
            data.len()
        ))),
    }
}

#[inline]
fn bit(data: &[u8], i: usize) -> bool {
    data.get(i / 8).is_some_and(|b| (b >> (i % 8)) & 1 == 1)
}

/// Appends `n` BOOLEAN values starting at bit `bit_offset` of `data` to the Arrow-style
/// bitmap `dst` (LSB first) that currently holds `dst_bits` bits (`dst.len()` must be
/// `ceil(dst_bits / 8)`). Bits past the end in the last byte are left zero.
pub fn decode_bool_bits(data: &[u8], bit_offset: usize, n: usize, dst: &mut Vec<u8>, dst_bits: usize) -> Result<()> {
    check_bits(data, bit_offset, n)?;
    if dst.len() != dst_bits.div_ceil(8) {
        return Err(Error::invalid_argument(format!("bitmap of {} bytes does not hold {dst_bits} bits", dst.len())));
    }
    append_bits(data, bit_offset, n, dst, dst_bits);
    Ok(())
}

/// [`decode_bool_bits`] without its checks, which the caller has made: `data` holds bits
/// `bit_offset .. bit_offset + n`, and `dst` is `ceil(dst_bits / 8)` bytes.
fn append_bits(data: &[u8], bit_offset: usize, n: usize, dst: &mut Vec<u8>, dst_bits: usize) {
    // First fill the partial last byte of dst, bit by bit (at most 7 bits).
    let mut src = bit_offset;
    let mut left = n;
    let partial = dst_bits % 8;
    if partial != 0 {
        let k = (8 - partial).min(left);
        if let Some(last) = dst.last_mut() {
            *last &= (1u8 << partial) - 1;
            for j in 0..k {
                *last |= u8::from(bit(data, src + j)) << (partial + j);
            }
        }
        src += k;
        left -= k;
    }
    // dst is now byte aligned.
    let full = left / 8;
    let first = src / 8;
    let r = src % 8;
    dst.reserve(left.div_ceil(8));
    if r == 0 {
        dst.extend_from_slice(data.get(first..first + full).unwrap_or_default());
    } else {
        // Bits src..src+8*full end inside byte first+full, so `full` windows exist.
        let tail = data.get(first..).unwrap_or_default();
        dst.extend(tail.windows(2).take(full).map(|w| (w[0] >> r) | (w[1] << (8 - r))));
    }
    let rest = left % 8;
    if rest != 0 {
        let start = src + 8 * full;
        let mut b = 0u8;
        for j in 0..rest {
            b |= u8::from(bit(data, start + j)) << j;
        }
        dst.push(b);
    }
}

/// Appends `n` BOOLEAN values starting at bit `bit_offset` of `data` to `dst`.
pub fn decode_bools(data: &[u8], bit_offset: usize, n: usize, dst: &mut Vec<bool>) -> Result<()> {
    check_bits(data, bit_offset, n)?;
    dst.extend((bit_offset..bit_offset + n).map(|i| bit(data, i)));
    Ok(())
}

#[cold]
fn byte_array_error(i: usize, n: usize, need: &str, pos: usize, left: usize) -> Error {
    Error::corrupt(format!("PLAIN BYTE_ARRAY: value {i} of {n} needs {need} at byte {pos}, {left} bytes left"))
}

/// Reads one length-prefixed value at `p`: (value start, value).
#[inline]
fn next_value(page: &[u8], p: usize, i: usize, n: usize) -> Result<(usize, &[u8])> {
    let left = page.len().saturating_sub(p);
    let Some(len) = page.get(p..).and_then(|s| s.first_chunk::<4>()) else {
        return Err(byte_array_error(i, n, "a 4-byte length", p, left));
    };
    let len = u32::from_le_bytes(*len) as usize;
    let start = p + 4;
    match page.get(start..start.saturating_add(len)) {
        Some(v) => Ok((start, v)),
        None => Err(byte_array_error(i, n, &format!("{len} bytes"), start, left - 4)),
    }
}

/// Decodes `n` BYTE_ARRAY values starting at byte `pos` of `page` into `sink`; returns the
/// position after the last one. Values are pushed with their position in `page`, so a view
/// sink copies nothing.
pub fn decode_byte_array<S: ByteArraySink>(page: &[u8], pos: usize, n: usize, sink: &mut S) -> Result<usize> {
    let (mut done, mut p) = sink.extend_plain(page, pos, n);
    if done < n {
        // The room the caller reserved ran out (or the sink copies value by value): walk the
        // rest's lengths for their exact size, so that a batch of a few values from a large
        // page does not reserve the page's rest.
        // A bad value fails the walk: the loop below then names it.
        let rest = n - done;
        if let Ok(end) = skip_byte_array(page, p, rest) {
            sink.reserve(rest, end - p - 4 * rest);
            let (more, q) = sink.extend_plain(page, p, rest);
            (done, p) = (done + more, q);
        }
    }
    for i in done..n {
        let Some(len) = page.get(p..).and_then(|s| s.first_chunk::<4>()) else {
            return Err(byte_array_error(i, n, "a 4-byte length", p, page.len().saturating_sub(p)));
        };
        let len = u32::from_le_bytes(*len) as usize;
        let end = (p + 4).saturating_add(len);
        if end > page.len() {
            return Err(byte_array_error(i, n, &format!("{len} bytes"), p + 4, page.len() - p - 4));
        }
        sink.push_plain_value(page, p, len)?;
        p = end;
    }
    Ok(p)
}

/// Skips `n` BYTE_ARRAY values starting at byte `pos` of `page`; returns the position after
/// them.
pub fn skip_byte_array(page: &[u8], pos: usize, n: usize) -> Result<usize> {
    let mut p = pos;
    for i in 0..n {
        let (start, v) = next_value(page, p, i, n)?;
        p = start + v.len();
    }
    Ok(p)
}

/// Appends the PLAIN BYTE_ARRAY form (a 4-byte little-endian length before each value) of the
/// `offsets.len() - 1` values `data[offsets[i]..offsets[i + 1]]` of an Arrow offsets + data
/// array, reserving `out` once for all of them.
///
/// Each value of up to 64 bytes is copied as one or two fixed-size blocks into the spare
/// capacity, not by a `memcpy` call per value: strings_plain_none (values of 12 to 60 bytes)
/// wrote in 103 ms against 111 ms. (Built for AVX2 as the read side's loop is, it gained
/// nothing.)
///
/// The offsets must be valid Arrow offsets (non-decreasing, within `data`); otherwise this
/// panics.
pub fn encode_byte_array_offsets<O: OffsetSize>(offsets: &[O], data: &[u8], out: &mut Vec<u8>) {
    let (Some(first), Some(last)) = (offsets.first(), offsets.last()) else { return };
    let n = offsets.len() - 1;
    // Room for the values and a block past them, so that the last values too are copied as
    // fixed-size blocks (`put_value`).
    out.reserve(4 * n + last.as_usize().saturating_sub(first.as_usize()) + 2 * VALUE_BLOCK);
    let cap = out.capacity();
    let base = out.as_mut_ptr();
    let mut at = out.len();
    for w in offsets.windows(2) {
        let (start, end) = (w[0].as_usize(), w[1].as_usize());
        let len = end.checked_sub(start).expect("Arrow offsets do not decrease");
        let prefix = u32::try_from(len).expect("a BYTE_ARRAY value longer than u32::MAX bytes").to_le_bytes();
        assert!(cap - at >= 4, "the offsets span more bytes than their first and last say");
        // SAFETY: `base + at .. base + at + 4` is in `out`'s spare capacity (just checked).
        unsafe { base.add(at).cast::<[u8; 4]>().write_unaligned(prefix) };
        at += 4;
        // SAFETY: `base + at .. base + cap` is `out`'s spare capacity, which `data` (borrowed
        // immutably while `out` is borrowed mutably) cannot overlap.
        let written = unsafe { put_value(data, start, len, base.add(at), cap - at) };
        assert!(written, "offsets past the data, or spanning more than their first and last say");
        at += len;
    }
    // SAFETY: every byte up to `at` (within the capacity) was written: a length prefix, then
    // the whole value, for each value in order.
    unsafe { out.set_len(at) };
}

/// An incremental PLAIN BOOLEAN encoder: one bit per value, LSB first, the last byte padded
/// with zeros.
#[derive(Debug, Clone, Default)]
pub struct BooleanEncoder {
    /// `ceil(len / 8)` bytes; the bits past `len` are zero.
    bytes: Vec<u8>,
    len: usize,
}

impl BooleanEncoder {
    /// An empty encoder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends one value.
    #[inline]
    pub fn put(&mut self, v: bool) {
        let bit = self.len % 8;
        if bit == 0 {
            self.bytes.push(u8::from(v));
        } else if let Some(last) = self.bytes.last_mut() {
            *last |= u8::from(v) << bit;
        }
        self.len += 1;
    }

    /// Appends `len` values from the LSB-first `bitmap` (an Arrow boolean array's values),
    /// starting at bit `offset`: whole bytes are copied, shifted when the bits are not
    /// aligned the same way in both.
    ///
    /// # Panics
    ///
    /// If `bitmap` is shorter than `offset + len` bits.
    pub fn put_bits(&mut self, bitmap: &[u8], offset: usize, len: usize) {
        if check_bits(bitmap, offset, len).is_err() {
            panic!("bits {offset}..+{len} are past a bitmap of {} bytes", bitmap.len());
        }
        append_bits(bitmap, offset, len, &mut self.bytes, self.len);
        self.len += len;
    }

    /// Appends `values`, 8 to a byte.
    pub fn put_slice(&mut self, values: &[bool]) {
        let head = ((8 - self.len % 8) % 8).min(values.len());
        let (head, rest) = values.split_at(head);
        head.iter().for_each(|&v| self.put(v));
        let (bytes, tail) = rest.as_chunks::<8>();
        self.bytes
            .extend(bytes.iter().map(|b| b.iter().enumerate().fold(0u8, |acc, (i, &v)| acc | (u8::from(v) << i))));
        self.len += 8 * bytes.len();
        tail.iter().for_each(|&v| self.put(v));
    }

    /// The number of values put since the last finish.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if no value was put since the last finish.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes [`finish_into`](Self::finish_into) would append now (exact).
    pub fn encoded_len_estimate(&self) -> usize {
        self.bytes.len()
    }

    /// Appends the packed values to `out`, and resets the encoder for the next page, keeping
    /// its buffer.
    pub fn finish_into(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.bytes);
        self.bytes.clear();
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::{OffsetsSink, TestRng, ViewSink};

    #[test]
    fn fixed_width_little_endian() {
        let data = [1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0x80, 0x3f, 7];
        let mut v = vec![42];
        assert_eq!(decode_i32(&data, 3, &mut v).unwrap(), 12);
        assert_eq!(v, [42, 1, -1, 0x3f80_0000]);
        let mut f = Vec::new();
        decode_f32(&data[8..], 1, &mut f).unwrap();
        assert_eq!(f, [1.0f32]);
        let mut l = Vec::new();
        decode_i64(&data, 1, &mut l).unwrap();
        assert_eq!(l, [-4294967295i64]);
        let mut d = Vec::new();
        decode_f64(&(-2.5f64).to_le_bytes(), 1, &mut d).unwrap();
        assert_eq!(d, [-2.5]);
        let mut i96 = Vec::new();
        assert_eq!(decode_int96(&data, 1, &mut i96).unwrap(), 12);
        assert_eq!(i96[0], data[..12]);
        let mut fl = vec![9];
        assert_eq!(decode_fixed_len(&data, 3, 4, &mut fl).unwrap(), 12);
        assert_eq!(fl[1..], data[..12]);
        assert!(decode_i32(&data, 4, &mut v).is_err());
        assert!(decode_i64(&data, usize::MAX / 4, &mut l).is_err());
        assert!(decode_fixed_len(&data, usize::MAX, 2, &mut fl).is_err());
        assert_eq!(decode_fixed_len(&data, 0, 1000, &mut fl).unwrap(), 0);
    }

    #[test]
    fn booleans_at_every_offset() {
        let mut rng = TestRng::new(7);
        let data = rng.bytes(40);
        let bits: Vec<bool> = (0..320).map(|i| (data[i / 8] >> (i % 8)) & 1 == 1).collect();
        for src_off in 0..17 {
            for dst_bits in 0..17usize {
                for n in [0usize, 1, 5, 7, 8, 9, 63, 64, 65, 200] {
                    let mut dst: Vec<u8> = vec![0xff; dst_bits.div_ceil(8)];
                    if let Some(l) = dst.last_mut() {
                        if dst_bits % 8 != 0 {
                            *l &= (1 << (dst_bits % 8)) - 1;
                        }
                    }
                    decode_bool_bits(&data, src_off, n, &mut dst, dst_bits).unwrap();
                    assert_eq!(dst.len(), (dst_bits + n).div_ceil(8));
                    for i in 0..dst_bits + n {
                        let got = (dst[i / 8] >> (i % 8)) & 1 == 1;
                        let want = if i < dst_bits { true } else { bits[src_off + i - dst_bits] };
                        assert_eq!(got, want, "src {src_off} dst {dst_bits} n {n} bit {i}");
                    }
                    let end = dst_bits + n;
                    if end % 8 != 0 {
                        assert_eq!(dst[end / 8] >> (end % 8), 0, "padding bits are zero");
                    }
                    let mut b = vec![];
                    decode_bools(&data, src_off, n, &mut b).unwrap();
                    assert_eq!(b, bits[src_off..src_off + n]);
                }
            }
        }
        let mut dst = vec![];
        assert!(decode_bool_bits(&data, 1, 320, &mut dst, 0).is_err());
        assert!(decode_bool_bits(&data, 0, 8, &mut dst, 3).is_err());
        assert!(decode_bools(&data, usize::MAX, 2, &mut vec![]).is_err());
    }

    fn plain_page(values: &[&[u8]]) -> Vec<u8> {
        let mut page = Vec::new();
        for v in values {
            page.extend_from_slice(&(v.len() as u32).to_le_bytes());
            page.extend_from_slice(v);
        }
        page
    }

    #[test]
    fn byte_array_into_offsets_and_views() {
        let values: [&[u8]; 4] = [b"Hello", b"", b"a string longer than 12", b"World"];
        let mut page = vec![0xEE; 3]; // values start at byte 3 of the buffer
        page.extend(plain_page(&values));
        let mut s = OffsetsSink::<i64>::new();
        let end = decode_byte_array(&page, 3, 4, &mut s).unwrap();
        assert_eq!(end, page.len());
        assert_eq!(s.offsets(), [0, 5, 5, 28, 33]);
        assert_eq!(s.data(), b"Helloa string longer than 12World");
        let mut v = ViewSink::new(0);
        v.set_page_buffer(4);
        decode_byte_array(&page, 3, 4, &mut v).unwrap();
        assert_eq!(v.views()[0], crate::encoding::make_view(b"Hello", 0, 0));
        // The long value lies at page offset 3 + 4 + 5 + 4 + 4 = 20.
        assert_eq!(v.views()[2], crate::encoding::make_view(values[2], 4, 20));
        assert!(v.owned().is_empty());
        assert_eq!(skip_byte_array(&page, 3, 2).unwrap(), 20 - 4);
        assert!(decode_byte_array(&page, 3, 5, &mut s).is_err());
        assert!(skip_byte_array(&page, 3, 5).is_err());
        let msg = decode_byte_array(&[9, 0, 0, 0, 1], 0, 1, &mut s).unwrap_err().to_string();
        assert!(msg.contains("needs 9 bytes"), "{msg}");
    }

    #[test]
    fn byte_array_offsets_encode_as_plain() {
        let values: [&[u8]; 5] = [b"Hello", b"", b"a string longer than 12", b"World", b""];
        let mut data = b"skip".to_vec();
        let mut offsets = vec![4i64];
        for v in values {
            data.extend_from_slice(v);
            offsets.push(data.len() as i64);
        }
        data.extend_from_slice(b"after");
        let mut out = vec![7];
        encode_byte_array_offsets(&offsets, &data, &mut out);
        assert_eq!(out[1..], plain_page(&values));
        let offsets32: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
        let mut out32 = vec![7];
        encode_byte_array_offsets(&offsets32[..3], &data, &mut out32);
        encode_byte_array_offsets(&offsets32[2..], &data, &mut out32);
        assert_eq!(out32, out);
        let mut s = OffsetsSink::<i32>::new();
        assert_eq!(decode_byte_array(&out, 1, 5, &mut s).unwrap(), out.len());
        assert_eq!(s.data(), &data[4..data.len() - 5]);
        // No values: nothing appended.
        encode_byte_array_offsets::<i32>(&[], &data, &mut out);
        encode_byte_array_offsets(&[3i32], &data, &mut out);
        assert_eq!(out32, out);
    }

    #[test]
    fn byte_array_offsets_at_every_block_edge() {
        // Lengths around the one- and two-block copies (31-33, 63-65) and past them, values
        // that end the data (no whole block to read past them), appended after earlier bytes.
        let mut rng = crate::encoding::TestRng::new(9);
        for tail in [0usize, 1, 40, 100] {
            let lens: Vec<usize> =
                (0..300).map(|i| [0, 1, 7, 31, 32, 33, 63, 64, 65, 200][(i + rng.below(10) as usize) % 10]).collect();
            let values: Vec<Vec<u8>> = lens.iter().map(|&n| rng.bytes(n)).collect();
            let mut data = Vec::new();
            let mut offsets = vec![0i32];
            for v in &values {
                data.extend_from_slice(v);
                offsets.push(data.len() as i32);
            }
            data.extend(std::iter::repeat_n(0xAB, tail));
            for split in [1usize, 150, 299] {
                let mut out = vec![1, 2, 3];
                encode_byte_array_offsets(&offsets[..=split], &data, &mut out);
                encode_byte_array_offsets(&offsets[split..], &data, &mut out);
                let refs: Vec<&[u8]> = values.iter().map(|v| &v[..]).collect();
                assert_eq!(out[..3], [1, 2, 3]);
                assert_eq!(out[3..], plain_page(&refs), "tail {tail}, split {split}");
            }
        }
    }

    #[test]
    fn boolean_encoder_put_bits_put_and_slices_agree() {
        // Spec: PLAIN booleans are bit packed LSB first: 1 0 1 1 0 0 0 0, 1 is 0b1101, 0b1.
        let mut e = BooleanEncoder::new();
        e.put_slice(&[true, false, true, true, false, false, false, false, true]);
        let mut out = vec![];
        e.finish_into(&mut out);
        assert_eq!(out, [0b0000_1101, 0b1]);
        let mut rng = TestRng::new(9);
        let bitmap = rng.bytes(80);
        let bit = |i: usize| (bitmap[i / 8] >> (i % 8)) & 1 == 1;
        for _ in 0..300 {
            let mut by_bits = BooleanEncoder::new();
            let mut by_put = BooleanEncoder::new();
            let mut by_slice = BooleanEncoder::new();
            let mut want = Vec::new();
            for _ in 0..1 + rng.below(5) {
                let offset = rng.below(100) as usize;
                let len = rng.below(200) as usize;
                by_bits.put_bits(&bitmap, offset, len);
                let vals: Vec<bool> = (offset..offset + len).map(bit).collect();
                vals.iter().for_each(|&v| by_put.put(v));
                by_slice.put_slice(&vals);
                want.extend(vals);
            }
            assert_eq!(by_bits.len(), want.len());
            assert_eq!(by_bits.encoded_len_estimate(), want.len().div_ceil(8));
            let (mut a, mut b, mut c) = (vec![], vec![], vec![]);
            by_bits.finish_into(&mut a);
            by_put.finish_into(&mut b);
            by_slice.finish_into(&mut c);
            assert_eq!(a, b);
            assert_eq!(a, c);
            let mut got = vec![];
            decode_bools(&a, 0, want.len(), &mut got).unwrap();
            assert_eq!(got, want);
            if want.len() % 8 != 0 {
                assert_eq!(a[a.len() - 1] >> (want.len() % 8), 0, "padding bits are zero");
            }
            assert!(by_bits.is_empty());
        }
    }

    #[test]
    #[should_panic(expected = "past a bitmap")]
    fn boolean_put_bits_past_the_bitmap_panics() {
        BooleanEncoder::new().put_bits(&[0xFF], 1, 8);
    }

    #[test]
    fn fuzz_never_panics() {
        let mut rng = TestRng::new(8);
        for _ in 0..3000 {
            let len = rng.below(40) as usize;
            let mut data = rng.bytes(len);
            if rng.below(2) == 0 {
                // Plausible small lengths so some values decode.
                for b in data.iter_mut().skip(1).step_by(4) {
                    *b = 0;
                }
            }
            let n = rng.below(20) as usize;
            let pos = rng.below(45) as usize;
            let _ = decode_byte_array(&data, pos, n, &mut OffsetsSink::<i32>::new());
            let _ = decode_byte_array(&data, pos, n, &mut ViewSink::new(1));
            let _ = skip_byte_array(&data, pos, n);
            let _ = decode_i64(&data, n, &mut vec![]);
            let _ = decode_fixed_len(&data, rng.below(10) as usize, n, &mut vec![]);
            let _ = decode_bool_bits(&data, pos, n * 10, &mut vec![], 0);
        }
    }
}
