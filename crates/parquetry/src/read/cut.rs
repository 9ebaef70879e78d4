//! Cutting a page's values section between two values, so a batch can end inside a page.
//!
//! Value decoders take whole sections. When a batch needs only the first rows of a page, the
//! column reader hands the decoder the first part and keeps the rest for the next batch,
//! instead of decoding the whole page and copying the overshoot again when the next batch
//! is assembled. PLAIN sections are cut in place; dictionary indexes (bit-packed runs that
//! cannot be cut at any byte) have their rest re-encoded; other encodings are first rewritten
//! as PLAIN, which copies one page, not one batch.

use arrow_buffer::Buffer;

use crate::encoding::delta_binary_packed::DeltaBinaryPackedDecoder;
use crate::encoding::delta_byte_array::DeltaByteArrayDecoder;
use crate::encoding::delta_length_byte_array::DeltaLengthByteArrayDecoder;
use crate::encoding::rle::{encode_rle_hybrid, RleDecoder};
use crate::encoding::{byte_stream_split, plain, ByteArraySink};
use crate::error::{Error, Result};
use crate::format::{Encoding, PhysicalType};

/// A values section: the buffer that owns it, where it starts, and its encoding.
#[derive(Debug, Clone)]
pub struct Section {
    /// The owning buffer.
    pub buffer: Buffer,
    /// Where the section starts in `buffer`.
    pub offset: usize,
    /// Its length in bytes.
    pub len: usize,
    /// Its encoding.
    pub encoding: Encoding,
}

impl Section {
    /// The section's bytes.
    pub fn data(&self) -> &[u8] {
        &self.buffer.as_slice()[self.offset..self.offset + self.len]
    }
}

/// The physical type of the column, which decides how a section can be cut.
#[derive(Debug, Clone, Copy)]
pub struct Cutter {
    /// The physical type.
    pub physical_type: PhysicalType,
    /// FIXED_LEN_BYTE_ARRAY width.
    pub type_length: usize,
}

impl Cutter {
    /// Whether sections of this encoding can be cut (possibly after rewriting them as PLAIN).
    pub fn can_cut(&self, encoding: Encoding) -> bool {
        use PhysicalType as P;
        match (encoding, self.physical_type) {
            (_, P::BOOLEAN) => false,
            (Encoding::PLAIN | Encoding::RLE_DICTIONARY | Encoding::PLAIN_DICTIONARY, _) => true,
            (Encoding::DELTA_LENGTH_BYTE_ARRAY | Encoding::DELTA_BYTE_ARRAY, P::BYTE_ARRAY) => true,
            (Encoding::DELTA_BINARY_PACKED, P::INT32 | P::INT64) => true,
            (Encoding::BYTE_STREAM_SPLIT, P::INT32 | P::INT64 | P::FLOAT | P::DOUBLE) => true,
            (Encoding::BYTE_STREAM_SPLIT, P::FIXED_LEN_BYTE_ARRAY) => true,
            _ => false,
        }
    }

    /// Cuts `section`, holding `values` values, after the first `keep` (< `values`): returns
    /// the first part and the rest, each a section of its own.
    pub fn cut(&self, section: &Section, values: usize, keep: usize) -> Result<(Section, Section)> {
        let data = section.data();
        match section.encoding {
            Encoding::PLAIN => {
                let at = match self.physical_type {
                    PhysicalType::BYTE_ARRAY => plain::skip_byte_array(data, 0, keep)?,
                    PhysicalType::FIXED_LEN_BYTE_ARRAY => keep.saturating_mul(self.type_length),
                    t => keep.saturating_mul(t.fixed_width().unwrap_or(0)),
                };
                if at > data.len() {
                    return Err(Error::corrupt(format!(
                        "PLAIN page of {} bytes is too short for {keep} values",
                        data.len()
                    )));
                }
                let first = Section { len: at, ..section.clone() };
                let rest =
                    Section { offset: section.offset + at, len: data.len() - at, ..section.clone() };
                Ok((first, rest))
            }
            Encoding::RLE_DICTIONARY | Encoding::PLAIN_DICTIONARY => {
                let Some((&width, packed)) = data.split_first() else {
                    return Err(Error::corrupt("dictionary-encoded page without its bit width"));
                };
                let mut indexes: Vec<u32> = Vec::with_capacity(values.min(packed.len() * 8 + 8));
                let got = RleDecoder::new(packed, width)?.decode(values, &mut indexes)?;
                if got < values {
                    return Err(Error::corrupt(format!(
                        "dictionary indexes end after {got} of the page's {values} values"
                    )));
                }
                // The first part keeps the whole stream (decoders read only `keep` indexes).
                let mut rest = vec![width];
                encode_rle_hybrid(&indexes[keep..], width, &mut rest);
                let rest = Section { buffer: Buffer::from_vec(rest), offset: 0, len: 0, ..section.clone() };
                let rest = Section { len: rest.buffer.len(), ..rest };
                Ok((section.clone(), rest))
            }
            _ => {
                let plain = self.rewrite_as_plain(section, values)?;
                self.cut(&plain, values, keep)
            }
        }
    }

    /// Rewrites a section of `values` values as PLAIN.
    fn rewrite_as_plain(&self, section: &Section, values: usize) -> Result<Section> {
        let data = section.data();
        let mut out: Vec<u8> = Vec::new();
        match (section.encoding, self.physical_type) {
            (Encoding::DELTA_LENGTH_BYTE_ARRAY, _) => {
                let mut d = DeltaLengthByteArrayDecoder::new(data, 0, values)?;
                d.decode(values, &mut PlainSink::new(&mut out))?;
            }
            (Encoding::DELTA_BYTE_ARRAY, _) => {
                let mut d = DeltaByteArrayDecoder::new(data, 0, values)?;
                d.decode(values, &mut PlainSink::new(&mut out))?;
            }
            (Encoding::DELTA_BINARY_PACKED, PhysicalType::INT32) => {
                let mut v: Vec<i32> = Vec::new();
                DeltaBinaryPackedDecoder::<i32>::new(data)?.decode(values, &mut v)?;
                out.extend(v.iter().flat_map(|x| x.to_le_bytes()));
            }
            (Encoding::DELTA_BINARY_PACKED, _) => {
                let mut v: Vec<i64> = Vec::new();
                DeltaBinaryPackedDecoder::<i64>::new(data)?.decode(values, &mut v)?;
                out.extend(v.iter().flat_map(|x| x.to_le_bytes()));
            }
            (Encoding::BYTE_STREAM_SPLIT, t) => {
                let width = match t {
                    PhysicalType::FIXED_LEN_BYTE_ARRAY => self.type_length,
                    t => t.fixed_width().unwrap_or(0),
                };
                byte_stream_split::decode(data, width, 0, values, &mut out)?;
            }
            (e, t) => return Err(Error::unsupported(format!("cutting {e} pages of {t} values"))),
        }
        let len = out.len();
        Ok(Section { buffer: Buffer::from_vec(out), offset: 0, len, encoding: Encoding::PLAIN })
    }
}

/// Writes byte-array values as a PLAIN section (4-byte length, then the bytes).
struct PlainSink<'a> {
    out: &'a mut Vec<u8>,
    /// Where the last value's bytes are in `out`.
    last: (usize, usize),
}

impl<'a> PlainSink<'a> {
    fn new(out: &'a mut Vec<u8>) -> Self {
        PlainSink { out, last: (0, 0) }
    }
}

impl ByteArraySink for PlainSink<'_> {
    fn reserve(&mut self, values: usize, bytes: usize) {
        self.out.reserve(bytes.saturating_add(values.saturating_mul(4)));
    }

    fn push_slice_from_page(&mut self, _page_pos: usize, bytes: &[u8]) -> Result<()> {
        self.push_owned(bytes)
    }

    fn push_owned(&mut self, bytes: &[u8]) -> Result<()> {
        let len = u32::try_from(bytes.len())
            .map_err(|_| Error::corrupt(format!("a value of {} bytes", bytes.len())))?;
        self.out.extend_from_slice(&len.to_le_bytes());
        self.last = (self.out.len(), bytes.len());
        self.out.extend_from_slice(bytes);
        Ok(())
    }

    fn push_prefixed(&mut self, prefix_len: usize, suffix: &[u8]) -> Result<()> {
        let (start, len) = self.last;
        if prefix_len > len {
            return Err(Error::corrupt(format!(
                "DELTA_BYTE_ARRAY: prefix length {prefix_len} is longer than the previous value ({len} bytes)"
            )));
        }
        let total = u32::try_from(prefix_len + suffix.len())
            .map_err(|_| Error::corrupt("a value over 4 GiB"))?;
        self.out.extend_from_slice(&total.to_le_bytes());
        let new_start = self.out.len();
        self.out.extend_from_within(start..start + prefix_len);
        self.out.extend_from_slice(suffix);
        self.last = (new_start, total as usize);
        Ok(())
    }

    fn copy_last(&self, out: &mut Vec<u8>) -> bool {
        out.clear();
        let (start, len) = self.last;
        out.extend_from_slice(&self.out[start..start + len]);
        true
    }

    fn extend_from_lengths(&mut self, lengths: &[u32], data: &[u8], _data_pos: usize) -> Result<()> {
        let mut p = 0;
        for &l in lengths {
            let v = data.get(p..p + l as usize).ok_or_else(|| {
                Error::corrupt("DELTA_LENGTH_BYTE_ARRAY: lengths run past the values")
            })?;
            self.push_owned(v)?;
            p += l as usize;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::{delta_byte_array, delta_length_byte_array};

    fn section(bytes: Vec<u8>, encoding: Encoding) -> Section {
        let len = bytes.len();
        Section { buffer: Buffer::from_vec(bytes), offset: 0, len, encoding }
    }

    fn plain_values(s: &Section, n: usize) -> Vec<Vec<u8>> {
        let (mut p, data, mut out) = (0, s.data(), Vec::new());
        for _ in 0..n {
            let len = u32::from_le_bytes(data[p..p + 4].try_into().unwrap()) as usize;
            out.push(data[p + 4..p + 4 + len].to_vec());
            p += 4 + len;
        }
        assert_eq!(p, data.len());
        out
    }

    #[test]
    fn byte_array_sections_cut_into_the_same_values() {
        let values: [&[u8]; 5] = [b"apple", b"apricot", b"", b"banana", b"band"];
        let cutter = Cutter { physical_type: PhysicalType::BYTE_ARRAY, type_length: 0 };
        let mut plain = Vec::new();
        for v in values {
            plain.extend_from_slice(&(v.len() as u32).to_le_bytes());
            plain.extend_from_slice(v);
        }
        let mut dl = Vec::new();
        delta_length_byte_array::encode(&values, &mut dl);
        let mut db = Vec::new();
        delta_byte_array::encode(&values, &mut db);
        for (bytes, enc) in [
            (plain, Encoding::PLAIN),
            (dl, Encoding::DELTA_LENGTH_BYTE_ARRAY),
            (db, Encoding::DELTA_BYTE_ARRAY),
        ] {
            for keep in 0..values.len() {
                let (first, rest) = cutter.cut(&section(bytes.clone(), enc), 5, keep).unwrap();
                assert_eq!(first.encoding, Encoding::PLAIN, "{enc}");
                let mut got = plain_values(&first, keep);
                got.extend(plain_values(&rest, 5 - keep));
                assert_eq!(got, values.map(|v| v.to_vec()), "{enc} cut at {keep}");
            }
        }
    }

    #[test]
    fn dictionary_indexes_cut_and_reencode() {
        let indexes: Vec<u32> = (0..40).map(|i| (i * 7) % 5).collect();
        let mut page = vec![3u8];
        encode_rle_hybrid(&indexes, 3, &mut page);
        let cutter = Cutter { physical_type: PhysicalType::INT64, type_length: 0 };
        let (first, rest) = cutter.cut(&section(page, Encoding::RLE_DICTIONARY), 40, 13).unwrap();
        let mut got: Vec<u32> = Vec::new();
        RleDecoder::new(&first.data()[1..], 3).unwrap().decode(13, &mut got).unwrap();
        RleDecoder::new(&rest.data()[1..], rest.data()[0]).unwrap().decode(27, &mut got).unwrap();
        assert_eq!(got, indexes);
        // Fewer indexes than claimed is an error, not a panic.
        let short = section(vec![3, 0x02, 0x01], Encoding::RLE_DICTIONARY);
        assert!(cutter.cut(&short, 40, 13).is_err());
    }

    #[test]
    fn fixed_width_sections_cut_at_value_boundaries() {
        let cutter = Cutter { physical_type: PhysicalType::INT32, type_length: 0 };
        let bytes: Vec<u8> = (1..=4i32).flat_map(|v| v.to_le_bytes()).collect();
        let (first, rest) = cutter.cut(&section(bytes.clone(), Encoding::PLAIN), 4, 1).unwrap();
        assert_eq!(first.data(), &bytes[..4]);
        assert_eq!(rest.data(), &bytes[4..]);
        let mut split = Vec::new();
        byte_stream_split::encode(&bytes, 4, &mut split);
        let (first, rest) = cutter.cut(&section(split, Encoding::BYTE_STREAM_SPLIT), 4, 3).unwrap();
        assert_eq!(first.data(), &bytes[..12]);
        assert_eq!(rest.data(), &bytes[12..]);
        // A PLAIN page too short for the values it claims.
        assert!(cutter.cut(&section(bytes[..6].to_vec(), Encoding::PLAIN), 4, 3).is_err());
        assert!(!cutter.can_cut(Encoding::RLE) && !Cutter { physical_type: PhysicalType::BOOLEAN, type_length: 0 }.can_cut(Encoding::PLAIN));
    }
}
