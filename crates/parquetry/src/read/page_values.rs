//! One data page's values section, read a batch at a time.
//!
//! A batch may end anywhere inside a page. [`PageValues`] keeps the page's place between
//! batches (the PLAIN offset, the RLE run and position, the DELTA block and miniblock,
//! DELTA_BYTE_ARRAY's previous value) so the next batch continues there: no page is rewritten
//! or re-encoded to end a batch, and reading a page in many small batches does the same work
//! as reading it in one. Every value decoder reads through it, whatever its Arrow output, so
//! each encoding has one decoding path: the read of each output layout (`reads.rs`:
//! fixed-width values, bits, byte arrays; dictionary keys by [`read_indexes`]) hands over the
//! next `n` values, [`skip`](PageValues::skip) passes over them.
//!
//! Which encodings a physical type can have is decided here, once, when the page is opened
//! (`open` picks a `State`); the reads match that `State`, never the encoding again, so no
//! value decoder names an encoding.
//!
//! [`read_indexes`]: PageValues::read_indexes
//! The kernel decoders borrow the page's bytes; between batches they are kept rebound to an
//! empty slice (`rebind(&[])`), which borrows nothing, and rebound to the page's bytes when
//! the next batch resumes them.

use arrow_buffer::Buffer;

use crate::encoding::delta_binary_packed::DeltaBinaryPackedDecoder;
use crate::encoding::delta_byte_array::{DeltaByteArrayBuffers, DeltaByteArrayDecoder};
use crate::encoding::delta_length_byte_array::DeltaLengthByteArrayDecoder;
use crate::encoding::plain::skip_byte_array;
use crate::encoding::rle::{split_length_prefixed, Piece, RleDecoder, Run};
use crate::error::{Error, Result};
use crate::format::{Encoding, PhysicalType};

/// The scratch vectors of DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY pages, handed from one
/// page to the next so that a column chunk allocates them once.
#[derive(Debug, Default)]
pub struct PageScratch {
    lengths: Vec<u32>,
    delta: DeltaByteArrayBuffers,
    split: Vec<u8>,
}

/// The values section of one page, and how far it has been read.
pub struct PageValues {
    /// The section's bytes: views may point into it.
    buffer: Buffer,
    encoding: Encoding,
    /// Values in the section (a data page's non-null rows), and how many were read or skipped.
    len: usize,
    done: usize,
    state: State,
}

/// Where a page's decoding stands, per encoding.
// The RLE decoder's unpacking buffer makes its variant large; it is moved a few times per
// read of a batch, which costs nothing next to the values read, and boxing it would cost an
// allocation per read instead.
#[allow(clippy::large_enum_variant)]
enum State {
    /// No values (every row null): nothing is decoded, whatever the encoding says.
    Empty,
    /// PLAIN values of a fixed width: the next value is value `done`.
    PlainFixed {
        width: usize,
    },
    /// PLAIN BYTE_ARRAY values: the next one's length prefix is at `pos`.
    PlainBytes {
        pos: usize,
    },
    /// PLAIN BOOLEAN bits: the next value is bit `done`.
    PlainBits,
    /// Dictionary indexes, RLE/bit-packed at `start..end` of the section (after the
    /// bit-width byte).
    Indexes {
        decoder: RleDecoder<'static>,
        start: usize,
        end: usize,
    },
    /// RLE booleans at `start..end` of the section (after the length prefix).
    RleBits {
        decoder: RleDecoder<'static>,
        start: usize,
        end: usize,
    },
    DeltaLength(DeltaLengthByteArrayDecoder<'static>),
    DeltaByteArray(DeltaByteArrayDecoder<'static>),
    DeltaInt32(DeltaBinaryPackedDecoder<'static, i32>),
    DeltaInt64(DeltaBinaryPackedDecoder<'static, i64>),
    /// BYTE_STREAM_SPLIT values of `width` bytes: the next value is value `done`. Values
    /// other than FIXED_LEN_BYTE_ARRAY are put back together in `scratch` first.
    Split {
        width: usize,
        scratch: Vec<u8>,
    },
}

/// The column's physical type, as far as decoding its values depends on it.
#[derive(Debug, Clone, Copy)]
pub struct ValueKind {
    /// The physical type.
    pub physical_type: PhysicalType,
    /// FIXED_LEN_BYTE_ARRAY's width (0 for other types).
    pub type_length: usize,
}

impl ValueKind {
    fn width(self) -> Option<usize> {
        match self.physical_type {
            PhysicalType::FIXED_LEN_BYTE_ARRAY => Some(self.type_length),
            t => t.fixed_width(),
        }
    }
}

impl PageValues {
    /// Opens the values section `buffer` of a data page holding `len` values in `encoding`,
    /// reading the encoding's header (and, for the DELTA byte-array encodings, every length,
    /// checked against the section). Vectors are taken from `scratch`; give them back with
    /// [`recycle`](Self::recycle).
    pub fn new(
        buffer: Buffer,
        encoding: Encoding,
        len: usize,
        kind: ValueKind,
        scratch: &mut PageScratch,
    ) -> Result<Self> {
        let state = if len == 0 { State::Empty } else { open(&buffer, encoding, len, kind, scratch)? };
        Ok(PageValues { buffer, encoding, len, done: 0, state })
    }

    /// A dictionary page: `len` PLAIN values, read by the value decoders from
    /// [`data`](Self::data) as a whole. Any encoding but PLAIN (which PLAIN_DICTIONARY means
    /// there, in old writers) is refused here, once for every output.
    pub fn dictionary(buffer: Buffer, encoding: Encoding, len: usize) -> Result<Self> {
        if encoding != Encoding::PLAIN && encoding != Encoding::PLAIN_DICTIONARY {
            return Err(Error::unsupported(format!(
                "dictionary page in encoding {encoding}: only PLAIN dictionary pages exist in the spec"
            )));
        }
        Ok(PageValues { buffer, encoding, len, done: 0, state: State::Empty })
    }

    /// Whether the page holds dictionary indexes (read by
    /// [`read_indexes`](Self::read_indexes)) rather than values.
    pub fn holds_indexes(&self) -> bool {
        matches!(self.state, State::Indexes { .. })
    }

    /// The bit width of the page's dictionary indexes (0 for a page of other values).
    pub fn index_bit_width(&self) -> usize {
        match &self.state {
            State::Indexes { decoder, .. } => usize::from(decoder.bit_width()),
            _ => 0,
        }
    }

    /// Whether byte-array values lie in the section as they are, so that an output may point
    /// into it (PLAIN, DELTA_LENGTH_BYTE_ARRAY), rather than being rebuilt (DELTA_BYTE_ARRAY).
    pub fn values_in_section(&self) -> bool {
        matches!(self.state, State::PlainBytes { .. } | State::DeltaLength(_))
    }

    /// Gives the page's scratch vectors back for the next page.
    pub fn recycle(self, scratch: &mut PageScratch) {
        match self.state {
            State::DeltaLength(d) => scratch.lengths = d.into_buffer(),
            State::DeltaByteArray(d) => scratch.delta = d.into_buffers(),
            State::Split { scratch: split, .. } => scratch.split = split,
            State::Empty
            | State::PlainFixed { .. }
            | State::PlainBytes { .. }
            | State::PlainBits
            | State::Indexes { .. }
            | State::RleBits { .. }
            | State::DeltaInt32(_)
            | State::DeltaInt64(_) => {}
        }
    }

    /// The encoding of the values.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The number of values the section holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the section holds no values.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Values not yet read or skipped.
    pub fn remaining(&self) -> usize {
        self.len - self.done
    }

    /// The section as a buffer: views of PLAIN and DELTA_LENGTH values point into it, at the
    /// positions handed to their sink.
    pub fn buffer(&self) -> &Buffer {
        &self.buffer
    }

    /// The section's bytes.
    pub fn data(&self) -> &[u8] {
        self.buffer.as_slice()
    }

    /// Counts `n` values as taken, failing if fewer are left.
    fn take(&mut self, n: usize) -> Result<()> {
        if n > self.remaining() {
            return Err(Error::corrupt(format!(
                "asked for {n} values of a page with {} of its {} left",
                self.remaining(),
                self.len
            )));
        }
        self.done += n;
        Ok(())
    }

    /// The error for reading values of another kind than the page holds.
    #[cold]
    fn wrong(&self, what: &str) -> Error {
        Error::unsupported(format!("{what} from a page of {} values", self.encoding))
    }

    /// The next `n` PLAIN values of a fixed width, as bytes.
    fn read_fixed(&mut self, n: usize) -> Result<&[u8]> {
        if n == 0 {
            return Ok(&[]);
        }
        let State::PlainFixed { width } = self.state else { return Err(self.wrong("fixed-width values")) };
        let start = self.done * width;
        self.take(n)?;
        let end = self.done * width;
        self.buffer.as_slice().get(start..end).ok_or_else(|| {
            Error::corrupt(format!(
                "PLAIN page of {} bytes is too short for {} values of {width} bytes",
                self.buffer.len(),
                self.len
            ))
        })
    }

    /// The bytes the next `n` byte-array values add to a destination: exact for the DELTA
    /// encodings, for PLAIN a bound from the bytes left in the section.
    pub fn next_value_bytes(&self, n: usize) -> u64 {
        let n = n.min(self.remaining());
        match &self.state {
            State::PlainBytes { pos } => {
                self.buffer.len().saturating_sub(*pos).saturating_sub(n.saturating_mul(4)) as u64
            }
            State::DeltaLength(d) => d.next_bytes(n),
            State::DeltaByteArray(d) => d.next_bytes(n),
            // Not byte arrays.
            State::Empty
            | State::PlainFixed { .. }
            | State::PlainBits
            | State::Indexes { .. }
            | State::RleBits { .. }
            | State::DeltaInt32(_)
            | State::DeltaInt64(_)
            | State::Split { .. } => 0,
        }
    }

    /// Hands the next `n` dictionary indexes to `f` run by run, each checked to be below
    /// `dict_len`: a [`Run::Repeated`] is one fill, a [`Run::Packed`] a gather.
    pub fn read_indexes(&mut self, n: usize, dict_len: usize, mut f: impl FnMut(Run<'_>)) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        if n > self.remaining() {
            return self.take(n);
        }
        let first = self.done;
        let Some(result) = self.with_indexes(|d| index_runs(d, n, dict_len, first, &mut f)) else {
            return Err(self.wrong("dictionary indexes"));
        };
        result?;
        self.done += n;
        Ok(())
    }

    /// Runs `f` on the page's dictionary index decoder, rebound to the page's bytes; `None`
    /// for a page of other values. Only the decoder moves out of the page's state and back,
    /// not the whole state (some of whose variants are half a kilobyte): a selective read
    /// does this at every skip and read.
    fn with_indexes<R>(&mut self, f: impl FnOnce(&mut RleDecoder<'_>) -> R) -> Option<R> {
        let State::Indexes { decoder, start, end } = &mut self.state else { return None };
        let data = self.buffer.as_slice().get(*start..*end).unwrap_or_default();
        let mut d = std::mem::replace(decoder, RleDecoder::idle()).rebind(data);
        let result = f(&mut d);
        *decoder = d.rebind(&[]);
        Some(result)
    }

    /// Hands the next `n` dictionary indexes to `f` piece by piece, whole bit-packed groups as
    /// their bytes (see [`Piece`]) and **not** checked against the dictionary: `f` must give
    /// an index past it a meaning of its own (an error, or a lookup that is false) and never
    /// index with it unchecked. For a consumer that reads indexes straight out of their bits
    /// (of a bit width up to `group_width`).
    pub fn read_index_pieces(&mut self, n: usize, group_width: usize, mut f: impl FnMut(Piece<'_>)) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        if n > self.remaining() {
            return self.take(n);
        }
        let State::Indexes { decoder, start, end } = std::mem::replace(&mut self.state, State::Empty) else {
            return Err(self.wrong("dictionary indexes"));
        };
        let mut d = decoder.rebind(&self.buffer.as_slice()[start..end]);
        let w = usize::from(d.bit_width()).max(1);
        let mut result = Ok(());
        let mut done = 0;
        while done < n {
            match d.next_piece(n - done, group_width) {
                Ok(Some(piece)) => {
                    done += match piece {
                        Piece::Repeated { len, .. } => len,
                        Piece::Unpacked(v) => v.len(),
                        Piece::Groups(bytes) => bytes.len() / w * 8,
                    };
                    f(piece);
                }
                Ok(None) => {
                    result = Err(Error::corrupt(format!("dictionary indexes end after {done} of the {n} values asked")));
                    break;
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.state = State::Indexes { decoder: d.rebind(&[]), start, end };
        result?;
        self.done += n;
        Ok(())
    }

    /// Appends the next `n` DELTA_BINARY_PACKED INT32 values to `dst`.
    fn read_delta_i32(&mut self, n: usize, dst: &mut Vec<i32>) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        let data = self.buffer.as_slice();
        let State::DeltaInt32(d) = std::mem::replace(&mut self.state, State::Empty) else {
            return Err(self.wrong("INT32 deltas"));
        };
        let mut r = d.rebind(data);
        let result = r.decode(n, dst);
        self.state = State::DeltaInt32(r.rebind(&[]));
        check_got(result?, n)?;
        self.take(n)
    }

    /// Appends the next `n` DELTA_BINARY_PACKED INT64 values to `dst`.
    fn read_delta_i64(&mut self, n: usize, dst: &mut Vec<i64>) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        let data = self.buffer.as_slice();
        let State::DeltaInt64(d) = std::mem::replace(&mut self.state, State::Empty) else {
            return Err(self.wrong("INT64 deltas"));
        };
        let mut r = d.rebind(data);
        let result = r.decode(n, dst);
        self.state = State::DeltaInt64(r.rebind(&[]));
        check_got(result?, n)?;
        self.take(n)
    }

    /// Passes over the next `n` values without producing them: PLAIN byte arrays walk their
    /// lengths, DELTA_LENGTH sums lengths, dictionary indexes skip whole runs, fixed widths
    /// move a position.
    pub fn skip(&mut self, n: usize) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        if n > self.remaining() {
            return self.take(n);
        }
        match self.state {
            State::Indexes { .. } => {
                let result = self.with_indexes(|d| d.skip(n)).unwrap_or(Ok(0));
                check_got(result?, n)?;
                self.done += n;
                return Ok(());
            }
            // The next value is value `done`, which moves: nothing else to pass over.
            State::Empty | State::PlainFixed { .. } | State::PlainBits | State::Split { .. } => return self.take(n),
            _ => {}
        }
        let data = self.buffer.as_slice();
        let (state, result) = match std::mem::replace(&mut self.state, State::Empty) {
            State::PlainBytes { pos } => match skip_byte_array(data, pos, n) {
                Ok(end) => (State::PlainBytes { pos: end }, Ok(n)),
                Err(e) => (State::PlainBytes { pos }, Err(e)),
            },
            State::Indexes { decoder, start, end } => {
                let mut d = decoder.rebind(&data[start..end]);
                let result = d.skip(n);
                (State::Indexes { decoder: d.rebind(&[]), start, end }, result)
            }
            State::RleBits { decoder, start, end } => {
                let mut d = decoder.rebind(&data[start..end]);
                let result = d.skip(n);
                (State::RleBits { decoder: d.rebind(&[]), start, end }, result)
            }
            State::DeltaLength(mut d) => {
                let got = d.skip(n);
                (State::DeltaLength(d), Ok(got))
            }
            State::DeltaByteArray(d) => {
                let mut r = d.rebind(data);
                let got = r.skip(n);
                (State::DeltaByteArray(r.rebind(&[])), Ok(got))
            }
            State::DeltaInt32(d) => {
                let mut r = d.rebind(data);
                let result = r.skip(n);
                (State::DeltaInt32(r.rebind(&[])), result)
            }
            State::DeltaInt64(d) => {
                let mut r = d.rebind(data);
                let result = r.skip(n);
                (State::DeltaInt64(r.rebind(&[])), result)
            }
            // Their next value is value `done`, which moves below; nothing else to pass over.
            s @ (State::Empty | State::PlainFixed { .. } | State::PlainBits | State::Split { .. }) => (s, Ok(n)),
        };
        self.state = state;
        check_got(result?, n)?;
        self.done += n;
        Ok(())
    }
}

/// Reads the encoding's header and chooses how the page is decoded.
fn open(buffer: &Buffer, encoding: Encoding, len: usize, kind: ValueKind, scratch: &mut PageScratch) -> Result<State> {
    use PhysicalType as P;
    let data = buffer.as_slice();
    let t = kind.physical_type;
    Ok(match (encoding, t) {
        (Encoding::PLAIN, P::BOOLEAN) => State::PlainBits,
        (Encoding::PLAIN, P::BYTE_ARRAY) => State::PlainBytes { pos: 0 },
        (Encoding::PLAIN, _) => {
            State::PlainFixed { width: kind.width().filter(|&w| w > 0).ok_or_else(|| unsupported(encoding, kind))? }
        }
        (Encoding::RLE_DICTIONARY | Encoding::PLAIN_DICTIONARY, _) => {
            let Some(&bit_width) = data.first() else {
                return Err(Error::corrupt(format!(
                    "dictionary-encoded page of {len} values has no data (not even the bit width)"
                )));
            };
            let decoder = RleDecoder::new(&[], bit_width)?;
            State::Indexes { decoder, start: 1, end: data.len() }
        }
        (Encoding::RLE, P::BOOLEAN) => {
            let (rle, _) = split_length_prefixed(data)?;
            State::RleBits { decoder: RleDecoder::new(&[], 1)?, start: 4, end: 4 + rle.len() }
        }
        (Encoding::DELTA_LENGTH_BYTE_ARRAY, P::BYTE_ARRAY) => {
            let lengths = std::mem::take(&mut scratch.lengths);
            let d = DeltaLengthByteArrayDecoder::with_buffer(data, 0, len, lengths)?;
            check_count("DELTA_LENGTH_BYTE_ARRAY", d.len(), len)?;
            State::DeltaLength(d.rebind(&[]))
        }
        (Encoding::DELTA_BYTE_ARRAY, P::BYTE_ARRAY | P::FIXED_LEN_BYTE_ARRAY) => {
            let buffers = std::mem::take(&mut scratch.delta);
            let d = DeltaByteArrayDecoder::with_buffers(data, 0, len, buffers)?;
            check_count("DELTA_BYTE_ARRAY", d.len(), len)?;
            State::DeltaByteArray(d.rebind(&[]))
        }
        (Encoding::DELTA_BINARY_PACKED, P::INT32) => {
            let d = DeltaBinaryPackedDecoder::<i32>::new(data)?;
            check_declared(d.len(), len)?;
            State::DeltaInt32(d.rebind(&[]))
        }
        (Encoding::DELTA_BINARY_PACKED, P::INT64) => {
            let d = DeltaBinaryPackedDecoder::<i64>::new(data)?;
            check_declared(d.len(), len)?;
            State::DeltaInt64(d.rebind(&[]))
        }
        (Encoding::BYTE_STREAM_SPLIT, P::INT32 | P::INT64 | P::FLOAT | P::DOUBLE | P::FIXED_LEN_BYTE_ARRAY) => {
            let width = kind.width().filter(|&w| w > 0).ok_or_else(|| unsupported(encoding, kind))?;
            if !data.len().is_multiple_of(width) || data.len() / width < len {
                return Err(Error::corrupt(format!(
                    "BYTE_STREAM_SPLIT: {} bytes do not hold {len} values of {width} bytes",
                    data.len()
                )));
            }
            State::Split { width, scratch: std::mem::take(&mut scratch.split) }
        }
        _ => return Err(unsupported(encoding, kind)),
    })
}

#[cold]
fn unsupported(encoding: Encoding, kind: ValueKind) -> Error {
    Error::unsupported(format!("encoding {encoding} is not supported for {} values", kind.physical_type))
}

fn check_count(what: &str, got: usize, want: usize) -> Result<()> {
    if got == want {
        return Ok(());
    }
    Err(Error::corrupt(format!("{what}: the data holds {got} values, the page header says {want}")))
}

/// DELTA_BINARY_PACKED may declare more values than the page's rows take (some writers pad),
/// never fewer.
fn check_declared(declared: usize, want: usize) -> Result<()> {
    if declared >= want {
        return Ok(());
    }
    Err(Error::corrupt(format!("DELTA_BINARY_PACKED: the page holds {declared} values, {want} expected")))
}

fn check_got(got: usize, want: usize) -> Result<()> {
    if got == want {
        return Ok(());
    }
    Err(Error::corrupt(format!("the page's values ended after {got} of {want}")))
}

/// Hands `n` indexes to `f` run by run, each checked against `dict_len`; the first is value
/// `first` of the page (for messages).
fn index_runs(
    d: &mut RleDecoder<'_>,
    n: usize,
    dict_len: usize,
    first: usize,
    f: &mut impl FnMut(Run<'_>),
) -> Result<()> {
    let mut done = 0;
    while done < n {
        let Some(run) = d.next_run(n - done)? else {
            return Err(Error::corrupt(format!("dictionary indexes end after {done} of the {n} values asked")));
        };
        // One vectorisable pass finds the largest index; only a bad page pays for a second
        // pass to name it.
        let max = match run {
            Run::Repeated { value, .. } => value,
            Run::Packed(v) => v.iter().copied().max().unwrap_or(0),
        };
        if max as usize >= dict_len {
            let at = match run {
                Run::Repeated { .. } => 0,
                Run::Packed(v) => v.iter().position(|&i| i == max).unwrap_or(0),
            };
            return Err(Error::corrupt(format!(
                "dictionary index {max} of value {} is past the end of the dictionary of {dict_len} values",
                first + done + at
            )));
        }
        done += run.len();
        f(run);
    }
    Ok(())
}

mod reads;
#[cfg(test)]
mod tests;

pub use reads::{FixedValues, ReadBytes};
pub(crate) use reads::no_dictionary;
