//! One column's value encoder: the physical values of a data page go in, encoded bytes come
//! out when the page closes. Each encoding is a kernel of `encoding/`; this file only picks
//! the kernel for the column's physical type and keeps the dictionary across a chunk's pages.

use arrow_buffer::ToByteSlice;

use super::bloom::BloomFilterWriter;
use crate::encoding::byte_stream_split::ByteStreamSplitEncoder;
use crate::encoding::delta_binary_packed::DeltaBinaryPackedEncoder;
use crate::encoding::delta_byte_array::DeltaByteArrayEncoder;
use crate::encoding::delta_length_byte_array::DeltaLengthByteArrayEncoder;
pub(crate) use crate::encoding::dictionary::Dictionary;
use crate::encoding::dictionary::{ByteArrayDictionary, FixedDictionary};
use crate::encoding::plain::{encode_byte_array_offsets, BooleanEncoder};
use crate::encoding::rle::RleEncoder;
use crate::encoding::OffsetSize;
use crate::error::{Error, Result};
use crate::format::{Encoding, PhysicalType};

/// The encoder state of the page being built.
#[derive(Debug, Clone)]
enum Values {
    /// PLAIN bytes of any type but BOOLEAN.
    Plain(Vec<u8>),
    /// PLAIN booleans (bit-packed).
    PlainBool(BooleanEncoder),
    /// RLE booleans (v2 pages).
    RleBool(RleEncoder),
    /// Dictionary indexes of the page; the dictionary lives in [`ValueEncoder::dictionary`].
    Indexes(Vec<u32>),
    DeltaI32(DeltaBinaryPackedEncoder<i32>),
    DeltaI64(DeltaBinaryPackedEncoder<i64>),
    DeltaLength(DeltaLengthByteArrayEncoder),
    DeltaByteArray(DeltaByteArrayEncoder),
    Split(ByteStreamSplitEncoder),
}

/// A column chunk's value encoder: dictionary first when asked, then the fallback encoding.
#[derive(Debug)]
pub(crate) struct ValueEncoder {
    physical: PhysicalType,
    type_length: usize,
    values: Values,
    /// An empty state of the fallback encoding, never written to (see [`fresh_values`](Self::fresh_values)).
    fallback_values: Values,
    dictionary: Option<Dictionary>,
    use_dictionary: bool,
    /// The chunk's bloom filter: values are hashed here as they go into pages that are not
    /// dictionary-encoded, and from the dictionary once (see `write/bloom.rs`).
    bloom: Option<BloomFilterWriter>,
}

/// An empty encoder state of `encoding` for `physical` values (`type_length` bytes for
/// FIXED_LEN_BYTE_ARRAY), or `None` if the encoding cannot encode the type, per the spec, or
/// has no encoder here: the write side's one dispatch on an encoding.
fn fallback_values(encoding: Encoding, physical: PhysicalType, type_length: usize) -> Option<Values> {
    use PhysicalType as P;
    Some(match (encoding, physical) {
        (Encoding::PLAIN, P::BOOLEAN) => Values::PlainBool(BooleanEncoder::new()),
        (Encoding::PLAIN, _) => Values::Plain(Vec::new()),
        (Encoding::RLE, P::BOOLEAN) => Values::RleBool(RleEncoder::new(1)),
        (Encoding::DELTA_BINARY_PACKED, P::INT32) => Values::DeltaI32(DeltaBinaryPackedEncoder::new()),
        (Encoding::DELTA_BINARY_PACKED, P::INT64) => Values::DeltaI64(DeltaBinaryPackedEncoder::new()),
        (Encoding::DELTA_LENGTH_BYTE_ARRAY, P::BYTE_ARRAY) => Values::DeltaLength(DeltaLengthByteArrayEncoder::new()),
        (Encoding::DELTA_BYTE_ARRAY, P::BYTE_ARRAY | P::FIXED_LEN_BYTE_ARRAY) => {
            Values::DeltaByteArray(DeltaByteArrayEncoder::new())
        }
        (Encoding::BYTE_STREAM_SPLIT, p @ (P::FLOAT | P::DOUBLE | P::INT32 | P::INT64 | P::FIXED_LEN_BYTE_ARRAY)) => {
            Values::Split(ByteStreamSplitEncoder::new(p.fixed_width().unwrap_or(type_length)))
        }
        _ => return None,
    })
}

/// The types an encoding takes, as Arrow C++ says it (pyarrow users match on "BYTE_STREAM_SPLIT
/// only supports").
fn encoding_types(encoding: Encoding) -> String {
    let types = match encoding {
        Encoding::RLE => "BOOLEAN",
        Encoding::DELTA_BINARY_PACKED => return "DELTA_BINARY_PACKED encoder only supports INT32 and INT64".into(),
        Encoding::DELTA_LENGTH_BYTE_ARRAY => "BYTE_ARRAY",
        Encoding::DELTA_BYTE_ARRAY => "BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY",
        Encoding::BYTE_STREAM_SPLIT => "FLOAT, DOUBLE, INT32, INT64 and FIXED_LEN_BYTE_ARRAY",
        _ => return format!("encoding {encoding} cannot be written as data page values"),
    };
    format!("{encoding} only supports {types}")
}

impl ValueEncoder {
    /// An encoder for `physical` values: dictionary first if `dictionary`, else (and after
    /// fallback) `encoding`, which must fit the type (checked by [`fallback_values`]).
    pub fn new(physical: PhysicalType, type_length: usize, dictionary: bool, encoding: Encoding) -> Result<Self> {
        let Some(fallback_values) = fallback_values(encoding, physical, type_length) else {
            return Err(Error::invalid_argument(format!("{}, not {physical}", encoding_types(encoding))));
        };
        let dictionary = if dictionary { Dictionary::new(physical, type_length) } else { None };
        let mut e = ValueEncoder {
            physical,
            type_length,
            values: Values::Plain(Vec::new()),
            fallback_values,
            use_dictionary: dictionary.is_some(),
            dictionary,
            bloom: None,
        };
        e.values = e.fresh_values();
        Ok(e)
    }

    /// The state a page starts in: indexes while dictionary-encoding, else a copy of the
    /// fallback encoding's empty state.
    fn fresh_values(&self) -> Values {
        if self.use_dictionary {
            return Values::Indexes(Vec::new());
        }
        self.fallback_values.clone()
    }

    /// Builds a bloom filter of each chunk's values (none for BOOLEAN columns, whose two
    /// values a filter cannot rule out usefully; Arrow C++ refuses them).
    pub fn with_bloom_filter(mut self, bloom: Option<BloomFilterWriter>) -> Self {
        self.bloom = bloom.filter(|_| self.physical != PhysicalType::BOOLEAN);
        self
    }

    /// Ends the chunk's bloom filter (before [`reset_chunk`](Self::reset_chunk)).
    pub fn finish_bloom_filter(&mut self) -> Option<crate::format::SplitBlockBloomFilter> {
        let dictionary = self.dictionary.as_ref().filter(|_| self.use_dictionary);
        self.bloom.as_mut().map(|b| b.finish_chunk(dictionary))
    }

    /// Whether pages are dictionary indexes now.
    pub fn is_dictionary(&self) -> bool {
        self.use_dictionary
    }

    /// The chunk's dictionary while dictionary-encoding.
    pub fn dictionary(&self) -> Option<&Dictionary> {
        self.dictionary.as_ref().filter(|_| self.use_dictionary)
    }

    /// Bytes of the dictionary page so far (0 without a dictionary).
    pub fn dictionary_page_len(&self) -> usize {
        if !self.use_dictionary {
            return 0;
        }
        self.dictionary.as_ref().map_or(0, |d| d.page().len())
    }

    /// Switches the rest of the chunk to the fallback encoding; the caller has closed the
    /// page and written the dictionary page.
    pub fn fall_back(&mut self) {
        if let (Some(bloom), Some(d), true) = (self.bloom.as_mut(), self.dictionary.as_ref(), self.use_dictionary) {
            bloom.put_dictionary(d);
        }
        self.use_dictionary = false;
        self.values = self.fresh_values();
    }

    /// Starts a new chunk: dictionary encoding again (if configured), an empty dictionary.
    pub fn reset_chunk(&mut self, dictionary: bool) {
        if let Some(d) = self.dictionary.as_mut() {
            d.clear();
        }
        self.use_dictionary = dictionary && self.dictionary.is_some();
        self.values = self.fresh_values();
    }

    /// An upper estimate of the page's encoded value bytes so far.
    pub fn estimated_len(&self) -> usize {
        match &self.values {
            Values::Plain(v) => v.len(),
            Values::PlainBool(e) => e.len().div_ceil(8),
            Values::RleBool(e) => e.encoded_len_estimate(),
            Values::Indexes(v) => {
                let width = bit_width(self.dictionary.as_ref().map_or(0, Dictionary::len));
                1 + (v.len() * width as usize).div_ceil(8) + v.len() / 256 + 8
            }
            Values::DeltaI32(e) => e.encoded_len_estimate(),
            Values::DeltaI64(e) => e.encoded_len_estimate(),
            Values::DeltaLength(e) => e.encoded_len_estimate(),
            Values::DeltaByteArray(e) => e.encoded_len_estimate(),
            Values::Split(e) => e.encoded_len_estimate(),
        }
    }

    /// The dictionary indexes of the page so far (empty unless dictionary-encoding).
    pub fn page_indexes(&self) -> &[u32] {
        match &self.values {
            Values::Indexes(v) => v,
            _ => &[],
        }
    }

    /// Ends the page: appends its encoded values to `out` and says which encoding they are.
    pub fn finish_page(&mut self, out: &mut Vec<u8>) -> Encoding {
        match &mut self.values {
            Values::Plain(v) => {
                if out.is_empty() {
                    // Hand the page over instead of copying it; `v` takes `out`'s buffer.
                    std::mem::swap(v, out);
                } else {
                    out.extend_from_slice(v);
                }
                v.clear();
                Encoding::PLAIN
            }
            Values::PlainBool(e) => {
                e.finish_into(out);
                Encoding::PLAIN
            }
            Values::RleBool(e) => {
                let start = out.len();
                out.extend_from_slice(&[0; 4]);
                e.finish_into(out);
                let len = (out.len() - start - 4) as u32;
                out[start..start + 4].copy_from_slice(&len.to_le_bytes());
                Encoding::RLE
            }
            Values::Indexes(v) => {
                let width = bit_width(self.dictionary.as_ref().map_or(0, Dictionary::len));
                out.push(width);
                let mut rle = RleEncoder::new(width);
                rle.put_slice(v);
                rle.finish_into(out);
                v.clear();
                Encoding::RLE_DICTIONARY
            }
            Values::DeltaI32(e) => {
                e.finish_into(out);
                Encoding::DELTA_BINARY_PACKED
            }
            Values::DeltaI64(e) => {
                e.finish_into(out);
                Encoding::DELTA_BINARY_PACKED
            }
            Values::DeltaLength(e) => {
                e.finish_into(out);
                Encoding::DELTA_LENGTH_BYTE_ARRAY
            }
            Values::DeltaByteArray(e) => {
                e.finish_into(out);
                Encoding::DELTA_BYTE_ARRAY
            }
            Values::Split(e) => {
                e.finish_into(out);
                Encoding::BYTE_STREAM_SPLIT
            }
        }
    }

    fn dict_fixed(&mut self) -> Option<(&mut FixedDictionary, &mut Vec<u32>)> {
        match (&mut self.values, self.dictionary.as_mut()) {
            (Values::Indexes(v), Some(Dictionary::Fixed(d))) => Some((d, v)),
            _ => None,
        }
    }

    fn dict_bytes(&mut self) -> Option<(&mut ByteArrayDictionary, &mut Vec<u32>)> {
        match (&mut self.values, self.dictionary.as_mut()) {
            (Values::Indexes(v), Some(Dictionary::Bytes(d))) => Some((d, v)),
            _ => None,
        }
    }

    /// Appends INT32 values.
    pub fn put_i32(&mut self, values: &[i32]) {
        if let Some((d, out)) = self.dict_fixed() {
            out.extend(values.iter().map(|&v| d.intern(v as u32 as u64)));
            return;
        }
        if let Some(b) = self.bloom.as_mut() {
            b.put_i32(values);
        }
        match &mut self.values {
            Values::DeltaI32(e) => e.put(values),
            Values::Split(e) => e.put(values.to_byte_slice()),
            Values::Plain(v) => v.extend_from_slice(values.to_byte_slice()),
            // Never an INT32 page's state (`fallback_values`; dictionary pages return above).
            Values::PlainBool(_)
            | Values::RleBool(_)
            | Values::Indexes(_)
            | Values::DeltaI64(_)
            | Values::DeltaLength(_)
            | Values::DeltaByteArray(_) => {}
        }
    }

    /// Appends INT64 values.
    pub fn put_i64(&mut self, values: &[i64]) {
        if let Some((d, out)) = self.dict_fixed() {
            out.extend(values.iter().map(|&v| d.intern(v as u64)));
            return;
        }
        if let Some(b) = self.bloom.as_mut() {
            b.put_i64(values);
        }
        match &mut self.values {
            Values::DeltaI64(e) => e.put(values),
            Values::Split(e) => e.put(values.to_byte_slice()),
            Values::Plain(v) => v.extend_from_slice(values.to_byte_slice()),
            // Never an INT64 page's state (`fallback_values`; dictionary pages return above).
            Values::PlainBool(_)
            | Values::RleBool(_)
            | Values::Indexes(_)
            | Values::DeltaI32(_)
            | Values::DeltaLength(_)
            | Values::DeltaByteArray(_) => {}
        }
    }

    /// Appends FLOAT or DOUBLE values given as their little-endian bytes (4 or 8 each).
    pub fn put_float_bytes(&mut self, bytes: &[u8]) {
        let w = if self.physical == PhysicalType::FLOAT { 4 } else { 8 };
        if let Some((d, out)) = self.dict_fixed() {
            out.extend(bytes.chunks_exact(w).map(|c| {
                let mut b = [0u8; 8];
                b[..w].copy_from_slice(c);
                d.intern(u64::from_le_bytes(b))
            }));
            return;
        }
        if let Some(b) = self.bloom.as_mut() {
            b.put_fixed(bytes, w);
        }
        match &mut self.values {
            Values::Split(e) => e.put(bytes),
            Values::Plain(v) => v.extend_from_slice(bytes),
            // Never a FLOAT or DOUBLE page's state (`fallback_values`; dictionary pages
            // return above).
            Values::PlainBool(_)
            | Values::RleBool(_)
            | Values::Indexes(_)
            | Values::DeltaI32(_)
            | Values::DeltaI64(_)
            | Values::DeltaLength(_)
            | Values::DeltaByteArray(_) => {}
        }
    }

    /// Appends FIXED_LEN_BYTE_ARRAY values (`type_length` bytes each, back to back), or INT96
    /// ones (12 bytes each).
    pub fn put_fixed(&mut self, bytes: &[u8]) {
        let w = self.type_length.max(1);
        if let Some((d, out)) = self.dict_bytes() {
            out.extend(bytes.chunks_exact(w).map(|v| d.intern(v)));
            return;
        }
        if let Some(b) = self.bloom.as_mut() {
            b.put_fixed(bytes, w);
        }
        match &mut self.values {
            Values::DeltaByteArray(e) => bytes.chunks_exact(w).for_each(|v| e.put(v)),
            Values::Split(e) => e.put(bytes),
            Values::Plain(v) => v.extend_from_slice(bytes),
            // Never a FIXED_LEN_BYTE_ARRAY or INT96 page's state (`fallback_values`;
            // dictionary pages return above).
            Values::PlainBool(_)
            | Values::RleBool(_)
            | Values::Indexes(_)
            | Values::DeltaI32(_)
            | Values::DeltaI64(_)
            | Values::DeltaLength(_) => {}
        }
    }

    /// Appends BYTE_ARRAY values given as Arrow offsets into `data`.
    pub fn put_offsets<O: OffsetSize>(&mut self, offsets: &[O], data: &[u8]) {
        if let Some((d, out)) = self.dict_bytes() {
            d.intern_offsets(offsets, data, out);
            return;
        }
        if let Some(b) = self.bloom.as_mut() {
            b.put_offsets(offsets, data);
        }
        match &mut self.values {
            Values::DeltaLength(e) => e.put_offsets(offsets, data),
            Values::DeltaByteArray(e) => e.put_offsets(offsets, data),
            Values::Plain(v) => encode_byte_array_offsets(offsets, data, v),
            // Never a BYTE_ARRAY page's state (`fallback_values`; dictionary pages return
            // above).
            Values::PlainBool(_)
            | Values::RleBool(_)
            | Values::Indexes(_)
            | Values::DeltaI32(_)
            | Values::DeltaI64(_)
            | Values::Split(_) => {}
        }
    }

    /// Appends BYTE_ARRAY values one at a time (views, gathered dictionary values).
    pub fn put_byte_values<'v>(&mut self, values: impl Iterator<Item = &'v [u8]>) {
        if let Some((d, out)) = self.dict_bytes() {
            out.extend(values.map(|v| d.intern(v)));
            return;
        }
        match self.bloom.as_mut() {
            Some(b) => put_byte_values_into(&mut self.values, values.inspect(|v| b.put_value(v))),
            None => put_byte_values_into(&mut self.values, values),
        }
    }

    /// Appends dictionary indexes already mapped into this chunk's dictionary (a
    /// `DictionaryArray` whose dictionary was interned once).
    pub fn put_indexes(&mut self, indexes: impl Iterator<Item = u32>) {
        if let Values::Indexes(v) = &mut self.values {
            v.extend(indexes);
        }
    }

    /// Interns the values of an input dictionary into the chunk's dictionary, returning the
    /// index of each (`None` when not dictionary-encoding BYTE_ARRAY values).
    pub fn intern_all(&mut self, values: &[&[u8]]) -> Option<Vec<u32>> {
        match (self.use_dictionary, self.dictionary.as_mut()) {
            (true, Some(Dictionary::Bytes(d))) => {
                if d.is_empty() {
                    // The chunk's first input dictionary (often its only one: a reader's
                    // per row group) sizes the table and page once, instead of by doubling.
                    // A later one may repeat values already in, so it is not counted ahead.
                    let bytes = values.iter().map(|v| v.len()).sum::<usize>();
                    d.reserve(values.len(), bytes + 4 * values.len());
                }
                Some(values.iter().map(|v| d.intern(v)).collect())
            }
            _ => None,
        }
    }

    /// Appends booleans from an LSB-first bitmap.
    pub fn put_bools(&mut self, bitmap: &[u8], offset: usize, len: usize) {
        match &mut self.values {
            Values::PlainBool(e) => e.put_bits(bitmap, offset, len),
            Values::RleBool(e) => e.put_bits(bitmap, offset, len),
            // Booleans are never dictionary-encoded here, nor in another encoding
            // (`fallback_values`).
            Values::Plain(_)
            | Values::Indexes(_)
            | Values::DeltaI32(_)
            | Values::DeltaI64(_)
            | Values::DeltaLength(_)
            | Values::DeltaByteArray(_)
            | Values::Split(_) => {}
        }
    }
}

/// Appends BYTE_ARRAY values to a page that is not dictionary-encoded.
fn put_byte_values_into<'v>(page: &mut Values, values: impl Iterator<Item = &'v [u8]>) {
    match page {
        Values::DeltaLength(e) => values.for_each(|v| e.put(v)),
        Values::DeltaByteArray(e) => values.for_each(|v| e.put(v)),
        Values::Plain(out) => values.for_each(|v| {
            out.extend_from_slice(&(v.len() as u32).to_le_bytes());
            out.extend_from_slice(v);
        }),
        // Never a BYTE_ARRAY page's state (`fallback_values`; dictionary pages are handled by
        // the caller).
        Values::PlainBool(_)
        | Values::RleBool(_)
        | Values::Indexes(_)
        | Values::DeltaI32(_)
        | Values::DeltaI64(_)
        | Values::Split(_) => {}
    }
}

/// Bits for the indexes of a dictionary of `len` values: at least 1, since some readers
/// mishandle width 0 (a one-value dictionary costs a bit per value, packed in runs anyway).
fn bit_width(len: usize) -> u8 {
    match len {
        0..=2 => 1,
        n => (usize::BITS - (n - 1).leading_zeros()) as u8,
    }
}
