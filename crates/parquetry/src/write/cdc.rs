//! Content-defined chunking: a column's data pages end where its values say, not at a byte
//! count, so that rows inserted or deleted change only the pages around them and a
//! deduplicating store (content-addressed storage) keeps the other pages as they were.
//!
//! The method is Arrow C++'s (pyarrow's `use_content_defined_chunking`): a gear hash rolled
//! over each row's definition level and value bytes; once a chunk holds `min_chunk_size`
//! bytes, a cut comes when the hash's top bits have been all zero in 8 runs in a row (each
//! run with its own table, which makes chunk sizes near-normal around the middle of the
//! range), and at `max_chunk_size` at the latest. The tables are parquetry's own, so the cuts
//! are not byte for byte pyarrow's. Row groups are not changed by it.

use arrow_array::cast::AsArray;
use arrow_array::Array;
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;

use crate::error::{Error, Result};

/// The sizes that bound a content-defined chunk (pyarrow's `use_content_defined_chunking`
/// dict); `Default` is pyarrow's: 256 KiB to 1 MiB, norm level 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContentDefinedChunking {
    /// No cut before a chunk holds this many bytes of levels and values.
    pub min_chunk_size: usize,
    /// A cut at this many bytes at the latest.
    pub max_chunk_size: usize,
    /// Bits taken off (positive) or added to (negative) the hash mask: higher levels give
    /// chunks closer to the middle of the range.
    pub norm_level: i32,
}

impl Default for ContentDefinedChunking {
    fn default() -> Self {
        ContentDefinedChunking { min_chunk_size: 256 * 1024, max_chunk_size: 1024 * 1024, norm_level: 0 }
    }
}

impl ContentDefinedChunking {
    /// Refuses sizes that bound no chunk.
    pub(crate) fn validate(&self) -> Result<()> {
        if self.min_chunk_size == 0 || self.max_chunk_size <= self.min_chunk_size {
            return Err(Error::invalid_argument(format!(
                "content-defined chunking: max_chunk_size must be greater than min_chunk_size, and \
                 min_chunk_size at least 1 (given {} and {})",
                self.min_chunk_size, self.max_chunk_size
            )));
        }
        Ok(())
    }
}

/// Runs in a row that a cut needs.
const RUNS: usize = 8;

/// One table of 256 pseudo-random words per run (splitmix64 from fixed seeds).
const GEAR: [[u64; 256]; RUNS] = gear_tables();

const fn gear_tables() -> [[u64; 256]; RUNS] {
    let mut tables = [[0u64; 256]; RUNS];
    let mut state: u64 = 0x7061_7271_7565_7472; // "parquetr"
    let mut t = 0;
    while t < RUNS {
        let mut i = 0;
        while i < 256 {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            tables[t][i] = z ^ (z >> 31);
            i += 1;
        }
        t += 1;
    }
    tables
}

/// The rolling state of one column chunk.
#[derive(Debug, Clone)]
pub(crate) struct Chunker {
    mask: u64,
    min: usize,
    max: usize,
    hash: u64,
    size: usize,
    run: usize,
    matched: bool,
}

impl Chunker {
    /// A chunker for `o` (validated).
    pub fn new(o: &ContentDefinedChunking) -> Chunker {
        // Cuts are looked for past `min`: a mask of log2(average - min) bits would cut there
        // on average after one run; 8 runs take 3 bits off, and the norm level more or less.
        let target = ((o.min_chunk_size + o.max_chunk_size) / 2 - o.min_chunk_size).max(1);
        let bits = (usize::BITS - 1 - target.leading_zeros()) as i32 - 3 - o.norm_level;
        let bits = bits.clamp(1, 63) as u32;
        Chunker {
            mask: u64::MAX << (64 - bits),
            min: o.min_chunk_size,
            max: o.max_chunk_size,
            hash: 0,
            size: 0,
            run: 0,
            matched: false,
        }
    }

    /// Starts the next column chunk.
    pub fn reset(&mut self) {
        (self.hash, self.size, self.run, self.matched) = (0, 0, 0, false);
    }

    fn roll(&mut self, bytes: &[u8]) {
        self.size += bytes.len();
        if self.size < self.min {
            return;
        }
        let table = &GEAR[self.run];
        for &b in bytes {
            self.hash = (self.hash << 1).wrapping_add(table[b as usize]);
            self.matched |= self.hash & self.mask == 0;
        }
    }

    /// Whether a chunk ends after the row just rolled.
    fn cut(&mut self) -> bool {
        if self.matched {
            self.matched = false;
            self.run += 1;
            if self.run == RUNS {
                (self.run, self.size) = (0, 0);
                return true;
            }
        }
        if self.size >= self.max {
            self.size = 0;
            return true;
        }
        false
    }

    /// The rows of a flat column's `array` (validity `nulls`; `nullable` when the column has
    /// definition levels) before which a page must end, ascending, each in `1..array.len()`
    /// or `array.len()` itself (the state carries over to the next array).
    pub fn cuts(&mut self, array: &dyn Array, nulls: Option<&NullBuffer>, nullable: bool) -> Result<Vec<usize>> {
        let mut cuts = Vec::new();
        let mut bytes = Vec::new();
        for i in 0..array.len() {
            let valid = nulls.is_none_or(|n| n.is_valid(i));
            if nullable {
                self.roll(&i16::from(valid).to_le_bytes());
            }
            if valid {
                bytes.clear();
                value_bytes(array, i, &mut bytes)?;
                self.roll(&bytes);
            }
            if self.cut() {
                cuts.push(i + 1);
            }
        }
        Ok(cuts)
    }
}

/// Appends the bytes of value `i` of `array` (valid) to `out`: as stored in Arrow, for a
/// dictionary the value its key names.
fn value_bytes(array: &dyn Array, i: usize, out: &mut Vec<u8>) -> Result<()> {
    use DataType as D;
    match array.data_type() {
        D::Boolean => out.push(u8::from(array.as_boolean().value(i))),
        D::Utf8 => out.extend_from_slice(array.as_string::<i32>().value(i).as_bytes()),
        D::LargeUtf8 => out.extend_from_slice(array.as_string::<i64>().value(i).as_bytes()),
        D::Utf8View => out.extend_from_slice(array.as_string_view().value(i).as_bytes()),
        D::Binary => out.extend_from_slice(array.as_binary::<i32>().value(i)),
        D::LargeBinary => out.extend_from_slice(array.as_binary::<i64>().value(i)),
        D::BinaryView => out.extend_from_slice(array.as_binary_view().value(i)),
        D::FixedSizeBinary(_) => out.extend_from_slice(array.as_fixed_size_binary().value(i)),
        D::Dictionary(..) => {
            let d = array.as_any_dictionary();
            let key = d.normalized_keys()[i];
            value_bytes(d.values().as_ref(), key, out)?;
        }
        D::Null => {}
        t => {
            let Some(width) = t.primitive_width() else {
                return Err(Error::unsupported(format!("content-defined chunking of Arrow {t} values")));
            };
            let data = array.to_data();
            let at = (data.offset() + i) * width;
            out.extend_from_slice(&data.buffers()[0].as_slice()[at..at + width]);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Int64Array;

    fn cuts(values: &[i64], o: &ContentDefinedChunking) -> Vec<usize> {
        Chunker::new(o).cuts(&Int64Array::from(values.to_vec()), None, false).unwrap()
    }

    #[test]
    fn cuts_fall_between_the_sizes_and_follow_the_content() {
        let o = ContentDefinedChunking { min_chunk_size: 4096, max_chunk_size: 16384, norm_level: 0 };
        let values: Vec<i64> = (0..100_000).map(|i| (i * 2_654_435_761i64) % 1_000_003).collect();
        let at = cuts(&values, &o);
        assert!(at.len() > 20, "{} cuts", at.len());
        let mut last = 0;
        for &c in &at {
            let bytes = (c - last) * 8;
            assert!((4096..=16384).contains(&bytes), "a chunk of {bytes} bytes");
            last = c;
        }
        // 1,000 rows inserted near the start: the cuts well after them are the same ones,
        // moved by 1,000 rows.
        let mut edited = values[..5_000].to_vec();
        edited.extend((0..1_000).map(|i| -i));
        edited.extend_from_slice(&values[5_000..]);
        let moved: Vec<usize> = cuts(&edited, &o).into_iter().filter(|&c| c > 20_000).map(|c| c - 1_000).collect();
        let kept: Vec<usize> = at.iter().copied().filter(|&c| c > 19_000).collect();
        assert_eq!(moved[moved.len() - 10..], kept[kept.len() - 10..]);
    }

    #[test]
    fn sizes_that_bound_nothing_are_refused() {
        let o = ContentDefinedChunking { min_chunk_size: 65_536, max_chunk_size: 32_768, norm_level: 0 };
        assert!(o.validate().unwrap_err().to_string().contains("max_chunk_size must be greater than min_chunk_size"));
    }
}
