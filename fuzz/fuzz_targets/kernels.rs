//! The decoding kernels of `parquetry::encoding`, fed arbitrary pages.
//!
//! Input layout:
//!
//! | byte | meaning |
//! | --- | --- |
//! | 0 | kernel (see `KERNELS`) |
//! | 1 | parameter: bit width, value width or sink kind |
//! | 2..4 | the page's value count (u16 little endian) |
//! | 4 | number of step bytes `s` (low 4 bits) |
//! | 5..5+s | steps: bit 7 set skips, else decodes; bits 0..7 the size (bit 6 set: x64) |
//! | rest | the page |
//!
//! Each kernel decodes the page in one call (the reference), then again in the steps (cycled
//! until the values run out), with skips in between: a decoder must resume mid-page and give
//! the same values as the one-call decode at the same positions. Byte-array kernels decode
//! into every sink kind (i32 and i64 offsets, views), which must agree. Errors are fine;
//! panics, hangs and huge allocations are bugs.

#![no_main]

use std::fmt::Debug;

use libfuzzer_sys::fuzz_target;
use parquetry::encoding::{
    byte_stream_split, delta_binary_packed::DeltaBinaryPackedDecoder, delta_byte_array::DeltaByteArrayDecoder,
    delta_length_byte_array::DeltaLengthByteArrayDecoder, plain, rle, ByteArraySink, OffsetSize, OffsetsSink, ViewSink,
};

const KERNELS: u8 = 12;

struct Input<'a> {
    kernel: u8,
    param: u8,
    count: usize,
    steps: &'a [u8],
    page: &'a [u8],
}

fn parse(data: &[u8]) -> Option<Input<'_>> {
    let (head, rest) = data.split_first_chunk::<5>()?;
    let s = (head[4] & 15) as usize;
    let steps = rest.get(..s)?;
    Some(Input {
        kernel: head[0] % KERNELS,
        param: head[1],
        count: u16::from_le_bytes([head[2], head[3]]) as usize,
        steps,
        page: &rest[s..],
    })
}

#[derive(Clone, Copy, Debug)]
enum Step {
    Decode(usize),
    Skip(usize),
}

fn step(b: u8) -> Step {
    let size = if b & 0x40 != 0 { (b & 0x3f) as usize * 64 } else { (b & 0x3f) as usize };
    if b & 0x80 != 0 {
        Step::Skip(size)
    } else {
        Step::Decode(size)
    }
}

/// The steps, cycled, bounded so that a decoder that never runs out (bit width 0) stops.
fn steps(bytes: &[u8], count: usize) -> impl Iterator<Item = Step> + '_ {
    let bytes: &[u8] = if bytes.is_empty() { &[0x7f] } else { bytes };
    bytes.iter().cycle().map(|&b| step(b)).take(count + 2 * bytes.len() + 4)
}

/// Runs the steps against a decoder, checking every decoded value against `reference`, the
/// values of a one-call decode (which may be shorter than `count` if it failed or the data
/// ended: only positions it has are checked). `ended` is the reference's value count when it
/// returned fewer than asked without an error: a stepped read may not get past it.
///
/// `decode(k, out)` appends up to `k` values to `out` and returns how many; `skip(k)` skips up to
/// `k`. Both return `None` for an error, which ends the run.
fn run_steps<T: PartialEq + Debug>(
    input: &Input<'_>,
    reference: &[T],
    ended: Option<usize>,
    mut decode: impl FnMut(usize, &mut Vec<T>) -> Option<usize>,
    mut skip: impl FnMut(usize) -> Option<usize>,
) {
    let mut pos = 0usize;
    let mut out = Vec::new();
    for s in steps(input.steps, input.count) {
        if pos >= input.count {
            break;
        }
        let (k, got) = match s {
            Step::Decode(k) => {
                let k = k.min(input.count - pos);
                out.clear();
                let Some(got) = decode(k, &mut out) else { return };
                assert_eq!(out.len(), got, "decode({k}) reported {got} values but gave {}", out.len());
                for (i, v) in out.iter().enumerate() {
                    if let Some(r) = reference.get(pos + i) {
                        assert_eq!(v, r, "value {} differs between a one-call and a stepped decode", pos + i);
                    }
                }
                (k, got)
            }
            Step::Skip(k) => {
                let k = k.min(input.count - pos);
                let Some(got) = skip(k) else { return };
                (k, got)
            }
        };
        assert!(got <= k, "{s:?} gave {got} values");
        pos += got;
        if let Some(end) = ended {
            assert!(pos <= end, "a stepped read got to value {pos}, the one-call decode ended at {end}");
        }
        if got < k {
            break;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Byte-array sinks, read back as values.

trait Values: ByteArraySink {
    fn new_sink() -> Self;
    /// Values `from..` of the sink; `page` is the buffer its page views point into.
    fn values_from(&self, from: usize, page: &[u8]) -> Vec<Vec<u8>>;
    fn count(&self) -> usize;
}

impl<O: OffsetSize> Values for OffsetsSink<O> {
    fn new_sink() -> Self {
        OffsetsSink::new()
    }
    fn values_from(&self, from: usize, _page: &[u8]) -> Vec<Vec<u8>> {
        assert_eq!(self.offsets().first().map(|o| o.as_usize()), Some(0));
        assert_eq!(self.offsets().last().map(|o| o.as_usize()), Some(self.data().len()));
        (from..self.len()).map(|i| self.value(i).expect("offsets out of order or past the data").to_vec()).collect()
    }
    fn count(&self) -> usize {
        self.len()
    }
}

/// Resolves an Arrow byte view against the page (buffer 0) and the sink's own bytes (buffer 1).
fn view_value(v: u128, page: &[u8], owned: &[u8]) -> Vec<u8> {
    let b = v.to_le_bytes();
    let len = v as u32 as usize;
    if len <= 12 {
        assert!(b[4 + len..].iter().all(|&x| x == 0), "inline view {v:#x} is not zero padded");
        return b[4..4 + len].to_vec();
    }
    let buffer = (v >> 64) as u32;
    let offset = (v >> 96) as u32 as usize;
    let data = match buffer {
        0 => page,
        1 => owned,
        _ => panic!("view {v:#x} names buffer {buffer}"),
    };
    let value = data
        .get(offset..offset + len)
        .unwrap_or_else(|| panic!("view {v:#x} points past its buffer ({} bytes)", data.len()));
    assert_eq!(&b[4..8], &value[..4], "view {v:#x} has the wrong prefix");
    value.to_vec()
}

impl Values for ViewSink {
    fn new_sink() -> Self {
        let mut s = ViewSink::new(1);
        s.set_page_buffer(0);
        s
    }
    fn values_from(&self, from: usize, page: &[u8]) -> Vec<Vec<u8>> {
        self.views()[from..].iter().map(|&v| view_value(v, page, self.owned())).collect()
    }
    fn count(&self) -> usize {
        self.len()
    }
}

/// A byte-array decoder driven through one sink.
trait ByteDecoder<'a>: Sized {
    fn open(input: &Input<'a>) -> Option<Self>;
    fn decode<S: ByteArraySink>(&mut self, n: usize, sink: &mut S) -> Option<usize>;
    fn skip(&mut self, n: usize) -> Option<usize>;
}

/// PLAIN BYTE_ARRAY: a position in the page.
struct Plain<'a> {
    page: &'a [u8],
    pos: usize,
}

impl<'a> ByteDecoder<'a> for Plain<'a> {
    fn open(input: &Input<'a>) -> Option<Self> {
        Some(Plain { page: input.page, pos: 0 })
    }
    fn decode<S: ByteArraySink>(&mut self, n: usize, sink: &mut S) -> Option<usize> {
        let end = plain::decode_byte_array(self.page, self.pos, n, sink).ok()?;
        assert!(end >= self.pos && end <= self.page.len());
        self.pos = end;
        Some(n)
    }
    fn skip(&mut self, n: usize) -> Option<usize> {
        let end = plain::skip_byte_array(self.page, self.pos, n).ok()?;
        assert!(end >= self.pos && end <= self.page.len());
        self.pos = end;
        Some(n)
    }
}

impl<'a> ByteDecoder<'a> for DeltaLengthByteArrayDecoder<'a> {
    fn open(input: &Input<'a>) -> Option<Self> {
        let d = DeltaLengthByteArrayDecoder::new(input.page, 0, input.count).ok()?;
        assert!(d.len() <= input.count && d.end() <= input.page.len());
        Some(d)
    }
    fn decode<S: ByteArraySink>(&mut self, n: usize, sink: &mut S) -> Option<usize> {
        DeltaLengthByteArrayDecoder::decode(self, n, sink).ok()
    }
    fn skip(&mut self, n: usize) -> Option<usize> {
        Some(DeltaLengthByteArrayDecoder::skip(self, n))
    }
}

impl<'a> ByteDecoder<'a> for DeltaByteArrayDecoder<'a> {
    fn open(input: &Input<'a>) -> Option<Self> {
        let d = DeltaByteArrayDecoder::new(input.page, 0, input.count).ok()?;
        assert!(d.len() <= input.count && d.end() <= input.page.len());
        Some(d)
    }
    fn decode<S: ByteArraySink>(&mut self, n: usize, sink: &mut S) -> Option<usize> {
        DeltaByteArrayDecoder::decode(self, n, sink).ok()
    }
    fn skip(&mut self, n: usize) -> Option<usize> {
        Some(DeltaByteArrayDecoder::skip(self, n))
    }
}

/// One-call decode of `count` values into sink `S`: the values, and whether it succeeded.
fn one_call<'a, D: ByteDecoder<'a>, S: Values>(input: &Input<'a>) -> Option<(Vec<Vec<u8>>, bool)> {
    let mut d = D::open(input)?;
    let mut sink = S::new_sink();
    let ok = d.decode(input.count, &mut sink).is_some();
    Some((sink.values_from(0, input.page), ok))
}

fn stepped<'a, D: ByteDecoder<'a>, S: Values>(input: &Input<'a>, reference: &[Vec<u8>], ended: Option<usize>) {
    let Some(mut d) = D::open(input) else { return };
    let d = std::cell::RefCell::new(&mut d);
    // One sink for the whole page, as a batch reader keeps; each step reads back its values.
    let mut sink = S::new_sink();
    run_steps(
        input,
        reference,
        ended,
        |k, out| {
            let before = sink.count();
            let got = d.borrow_mut().decode(k, &mut sink)?;
            assert_eq!(sink.count() - before, got);
            out.extend(sink.values_from(before, input.page));
            Some(got)
        },
        |k| d.borrow_mut().skip(k),
    );
}

fn byte_arrays<'a, D: ByteDecoder<'a>>(input: &Input<'a>) {
    let Some((r32, ok32)) = one_call::<D, OffsetsSink<i32>>(input) else { return };
    let (r64, ok64) = one_call::<D, OffsetsSink<i64>>(input).expect("opened once, not twice");
    let (rv, okv) = one_call::<D, ViewSink>(input).expect("opened once, not twice");
    assert_eq!(ok32, ok64);
    assert_eq!(ok32, okv);
    if ok32 {
        assert_eq!(r32, r64, "i32 and i64 offsets differ");
        assert_eq!(r32, rv, "offsets and views differ");
    }
    let reference = if ok32 { &r32[..] } else { &[] };
    // Decoders return fewer values than asked only at the page end.
    let ended = (ok32 && r32.len() < input.count).then_some(r32.len());
    match input.param % 3 {
        0 => stepped::<D, OffsetsSink<i32>>(input, reference, ended),
        1 => stepped::<D, OffsetsSink<i64>>(input, reference, ended),
        _ => stepped::<D, ViewSink>(input, reference, ended),
    }
}

// ---------------------------------------------------------------------------------------------
// Numeric kernels.

fn rle_hybrid(input: &Input<'_>, data: &[u8]) {
    let width = input.param % 34; // 33: an error
    let Ok(mut d) = rle::RleDecoder::new(data, width) else { return };
    let mut reference = Vec::<u32>::new();
    let Ok(got) = d.clone().decode(input.count, &mut reference) else { return };
    assert_eq!(got, reference.len());
    // The same values run by run.
    let mut runs = Vec::new();
    while runs.len() < input.count {
        match d.next_run(input.count - runs.len()) {
            Ok(Some(rle::Run::Repeated { value, len })) => {
                assert!(len > 0);
                runs.extend(std::iter::repeat_n(value, len));
            }
            Ok(Some(rle::Run::Packed(v))) => {
                assert!(!v.is_empty());
                // (A repeated run's value takes whole bytes and may be wider: callers check.)
                if width < 32 {
                    assert!(v.iter().all(|&v| v >> width == 0), "packed value wider than {width} bits");
                }
                runs.extend_from_slice(v);
            }
            Ok(None) | Err(_) => break,
        }
    }
    assert_eq!(runs, reference, "next_run and decode differ");
    let ended = (got < input.count).then_some(got);
    let Ok(d) = rle::RleDecoder::new(data, width) else { return };
    let d = std::cell::RefCell::new(d);
    run_steps(input, &reference, ended, |k, out| d.borrow_mut().decode(k, out).ok(), |k| d.borrow_mut().skip(k).ok());
}

fn delta_binary_packed<T>(input: &Input<'_>)
where
    T: parquetry::encoding::delta_binary_packed::DeltaValue + PartialEq + Debug,
{
    let Ok(d) = DeltaBinaryPackedDecoder::<T>::new(input.page) else { return };
    let mut reference = Vec::new();
    let mut one = d.clone();
    let ok = one.decode(input.count, &mut reference).is_ok();
    if ok {
        assert_eq!(reference.len(), input.count.min(d.len()));
        assert!(one.bytes_read() <= input.page.len());
    }
    let reference = if ok { &reference[..] } else { &[] };
    let ended = ok.then_some(d.len()).filter(|&n| n < input.count);
    let d = std::cell::RefCell::new(d);
    run_steps(input, reference, ended, |k, out| d.borrow_mut().decode(k, out).ok(), |k| d.borrow_mut().skip(k).ok());
    assert!(d.borrow().bytes_read() <= input.page.len());
}

fn byte_stream_split(input: &Input<'_>) {
    let width = (input.param % 20) as usize; // 0: an error
    let count = if width == 0 { 0 } else { input.page.len() / width };
    let mut reference = Vec::new();
    let ok = byte_stream_split::decode(input.page, width, 0, count, &mut reference).is_ok();
    if !ok {
        return;
    }
    assert_eq!(reference.len(), count * width);
    let values: Vec<&[u8]> = reference.chunks(width).collect();
    let pos = std::cell::Cell::new(0usize);
    let page = input.page;
    run_steps(
        &Input { count, ..*input },
        &values,
        Some(count),
        |k, out| {
            let mut bytes = Vec::new();
            byte_stream_split::decode(page, width, pos.get(), k, &mut bytes).ok()?;
            assert_eq!(bytes.len(), k * width);
            for (i, v) in bytes.chunks(width).enumerate() {
                assert_eq!(v, values[pos.get() + i], "BYTE_STREAM_SPLIT value {} differs", pos.get() + i);
            }
            out.extend(values[pos.get()..pos.get() + k].iter().copied());
            pos.set(pos.get() + k);
            Some(k)
        },
        |k| {
            pos.set(pos.get() + k);
            Some(k)
        },
    );
}

fn plain_fixed(input: &Input<'_>) {
    let (page, n) = (input.page, input.count);
    let mut i32s = Vec::new();
    if let Ok(used) = plain::decode_i32(page, n, &mut i32s) {
        assert!(used == 4 * n && i32s.len() == n);
    }
    let mut i64s = Vec::new();
    if let Ok(used) = plain::decode_i64(page, n, &mut i64s) {
        assert!(used == 8 * n && i64s.len() == n);
    }
    let mut f32s = Vec::new();
    let _ = plain::decode_f32(page, n, &mut f32s);
    let mut f64s = Vec::new();
    let _ = plain::decode_f64(page, n, &mut f64s);
    let mut int96 = Vec::new();
    if let Ok(used) = plain::decode_int96(page, n, &mut int96) {
        assert!(used == 12 * n && int96.len() == n);
    }
    let width = input.param as usize;
    let mut fixed = Vec::new();
    if let Ok(used) = plain::decode_fixed_len(page, width, n, &mut fixed) {
        assert!(used == width * n && fixed.len() == used && used <= page.len());
        assert_eq!(&fixed[..], &page[..used]);
    }
    // Booleans: bitmap and bools, at a bit offset, appended to a partial bitmap.
    let offset = (input.param % 64) as usize;
    let mut bools = Vec::new();
    let ok = plain::decode_bools(page, offset, n, &mut bools).is_ok();
    let dst_bits = input.steps.first().map_or(0, |&b| (b % 16) as usize);
    let mut bitmap = vec![0xffu8; dst_bits.div_ceil(8)];
    let ok2 = plain::decode_bool_bits(page, offset, n, &mut bitmap, dst_bits).is_ok();
    assert_eq!(ok, ok2);
    if ok {
        assert_eq!(bitmap.len(), (dst_bits + n).div_ceil(8));
        for (i, &b) in bools.iter().enumerate() {
            let j = dst_bits + i;
            assert_eq!((bitmap[j / 8] >> (j % 8)) & 1 == 1, b, "bit {i} differs");
        }
        // Bits past the end of the last byte are zero.
        let end = dst_bits + n;
        if end % 8 != 0 {
            assert_eq!(bitmap[end / 8] >> (end % 8), 0, "bits past the end are set");
        }
    }
}

fn bit_packed_msb(input: &Input<'_>) {
    let width = input.param % 34;
    let mut out = Vec::<u32>::new();
    if let Ok(used) = rle::decode_bit_packed_msb(input.page, width, input.count, &mut out) {
        assert_eq!(out.len(), input.count);
        assert!(used <= input.page.len());
        if width < 32 {
            assert!(out.iter().all(|&v| v >> width == 0));
        }
    }
}

/// PLAIN dictionary gathering: `starts` from the first part of the page (u32s), indexes after.
fn gather(input: &Input<'_>) {
    let split = (input.param as usize * 4).min(input.page.len());
    let (starts, rest) = input.page.split_at(split);
    let starts: Vec<u32> = starts.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    let (indexes, page) = rest.split_at((input.count * 4).min(rest.len()));
    let indexes: Vec<u32> = indexes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap()) % 64).collect();
    let mut sink = OffsetsSink::<i32>::new();
    let room = input.steps.first().map_or(page.len(), |&b| b as usize);
    sink.reserve(indexes.len(), room);
    sink.push_owned(b"x").unwrap();
    let done = sink.extend_gathered(page, &starts, &indexes);
    assert!(done <= indexes.len());
    assert_eq!(sink.len(), 1 + done);
    assert_eq!(sink.offsets().last().map(|o| o.as_usize()), Some(sink.data().len()));
    for (k, &i) in indexes[..done].iter().enumerate() {
        let i = i as usize;
        let (start, end) = (starts[i] as usize + 4, starts[i + 1] as usize);
        assert_eq!(sink.value(1 + k), page.get(start..end), "gathered value {k} differs");
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(input) = parse(data) else { return };
    match input.kernel {
        0 => rle_hybrid(&input, input.page),
        1 => {
            if let Ok((levels, _)) = rle::split_length_prefixed(input.page) {
                rle_hybrid(&input, levels);
            }
        }
        2 => bit_packed_msb(&input),
        3 => byte_arrays::<Plain<'_>>(&input),
        4 => plain_fixed(&input),
        5 => delta_binary_packed::<i32>(&input),
        6 => delta_binary_packed::<i64>(&input),
        7 => delta_binary_packed::<u32>(&input),
        8 => byte_arrays::<DeltaLengthByteArrayDecoder<'_>>(&input),
        9 => byte_arrays::<DeltaByteArrayDecoder<'_>>(&input),
        10 => byte_stream_split(&input),
        _ => gather(&input),
    }
});
