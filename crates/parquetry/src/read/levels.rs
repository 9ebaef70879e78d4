//! Definition and repetition levels of a data page: where they are in the page, and decoding
//! definition levels into an Arrow validity bitmap.
//!
//! Levels are kept apart from values so that nested columns (lists, maps, structs) can reuse
//! the same splitting and decoding: a flat optional column turns definition levels straight
//! into validity bits ([`append_validity`]); nested readers will decode the same
//! [`LevelData`] into level vectors and assemble list offsets and validity from those.

use arrow_buffer::BooleanBufferBuilder;

use crate::encoding::rle::{decode_bit_packed_msb, decode_bits_counted, RleDecoder, Run};
use crate::error::{Error, Result};
pub(crate) use crate::page::{level_bit_width, LevelData};

/// Appends one validity bit per level to `validity` (set where the level equals `max_def`,
/// i.e. the value is present) and returns the number of set bits.
///
/// Runs of equal levels become one `append_n`, so an all-valid or all-null page costs a few
/// operations, not one per row. Fails if fewer than `num_values` levels are present.
pub fn append_validity(
    levels: LevelData<'_>,
    max_def: i16,
    num_values: usize,
    validity: &mut BooleanBufferBuilder,
) -> Result<usize> {
    let width = level_bit_width(max_def);
    let max = max_def as u32;
    let mut valid = 0;
    match levels {
        LevelData::Rle(data) if max_def == 1 => {
            return append_validity_bits(data, num_values, validity);
        }
        LevelData::Rle(data) => {
            let mut decoder = RleDecoder::new(data, width)?;
            let mut left = num_values;
            while left > 0 {
                match decoder.next_run(left)? {
                    Some(Run::Repeated { value, len }) => {
                        let is_valid = value == max;
                        validity.append_n(len, is_valid);
                        valid += if is_valid { len } else { 0 };
                        left -= len;
                    }
                    Some(Run::Packed(values)) => {
                        // Pack the flags into bytes first and append them in one call: bit
                        // by bit appends cost more than the decoding (runs hold at most 256).
                        let mut bits = [0u8; 32];
                        for (i, &v) in values.iter().enumerate().take(256) {
                            bits[i / 8] |= u8::from(v == max) << (i % 8);
                        }
                        let n = values.len().min(256);
                        validity.append_packed_range(0..n, &bits);
                        valid += bits.iter().map(|b| b.count_ones() as usize).sum::<usize>();
                        left -= n;
                    }
                    None => {
                        return Err(Error::corrupt(format!(
                            "definition levels: the page has {num_values} values but only {} levels",
                            num_values - left
                        )))
                    }
                }
            }
        }
        LevelData::BitPacked(data) => {
            let mut levels: Vec<u16> = Vec::with_capacity(num_values.min(data.len() * 8 + 8));
            decode_bit_packed_msb(data, width, num_values, &mut levels)?;
            for &v in &levels {
                let is_valid = u32::from(v) == max;
                validity.append(is_valid);
                valid += usize::from(is_valid);
            }
        }
    }
    Ok(valid)
}

/// Appends `num_values` levels to `levels`, checking each against `max_level`: nested columns
/// need the levels themselves (where records start, which lists are empty or null), not only
/// the validity bits a flat column reads.
pub fn decode_levels(
    data: LevelData<'_>,
    max_level: i16,
    num_values: usize,
    levels: &mut Vec<i16>,
    what: &str,
) -> Result<()> {
    let start = levels.len();
    match data {
        LevelData::Rle(bytes) => {
            let mut decoder = RleDecoder::new(bytes, level_bit_width(max_level))?;
            decoder.decode_exact(num_values, levels).map_err(|e| e.context(format_args!("{what} levels")))?;
        }
        LevelData::BitPacked(bytes) => {
            decode_bit_packed_msb(bytes, level_bit_width(max_level), num_values, levels)
                .map_err(|e| e.context(format_args!("{what} levels")))?;
        }
    }
    // Levels are below 2^bit width (at most 256): never negative, but possibly above the
    // maximum. A maximum over the page vectorizes; a search for the first bad one would not.
    if let Some(bad) = levels[start..].iter().copied().max().filter(|&m| m > max_level) {
        levels.truncate(start);
        return Err(Error::corrupt(format!("{what} level {bad} is above the column's maximum {max_level}")));
    }
    Ok(())
}

/// How many of a page's `num_values` levels equal `level` (with `max_level` its column's
/// maximum): the values present (`level == max_def`) or the records started (repetition
/// level 0), for writers that copy a page without reading its values. `scratch` is reused.
pub fn count_levels(
    data: LevelData<'_>,
    max_level: i16,
    num_values: usize,
    level: i16,
    scratch: &mut Vec<i16>,
    what: &str,
) -> Result<usize> {
    scratch.clear();
    decode_levels(data, max_level, num_values, scratch, what)?;
    Ok(scratch.iter().filter(|&&l| l == level).count())
}

/// [`append_validity`] for the common `max_def == 1` (a flat optional column): levels are one
/// bit wide, so they are the validity bits themselves ([`decode_bits_counted`]).
fn append_validity_bits(data: &[u8], num_values: usize, validity: &mut BooleanBufferBuilder) -> Result<usize> {
    let start = validity.len();
    let (got, valid) = decode_bits_counted(data, num_values, validity).map_err(|e| e.context("definition levels"))?;
    if got < num_values {
        validity.truncate(start);
        return Err(Error::corrupt(format!(
            "definition levels: the page has {num_values} values but only {got} levels"
        )));
    }
    Ok(valid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_widths() {
        assert_eq!(level_bit_width(0), 0);
        assert_eq!(level_bit_width(1), 1);
        assert_eq!(level_bit_width(2), 2);
        assert_eq!(level_bit_width(3), 2);
        assert_eq!(level_bit_width(4), 3);
    }

    #[test]
    fn validity_from_rle_levels() {
        // Hand-encoded hybrid, bit width 1: an RLE run of 5 ones (header 5<<1 = 0x0a, value
        // 0x01), then one bit-packed group of 8 (header (1<<1)|1 = 0x03) holding
        // 0,1,0,1,1,0,0,1 LSB first = 0b1001_1010.
        let data = [0x0a, 0x01, 0x03, 0b1001_1010];
        let mut v = BooleanBufferBuilder::new(16);
        let valid = append_validity(LevelData::Rle(&data), 1, 13, &mut v).unwrap();
        assert_eq!(valid, 9);
        let bits: Vec<bool> = (0..13).map(|i| v.get_bit(i)).collect();
        let want = [1, 1, 1, 1, 1, 0, 1, 0, 1, 1, 0, 0, 1].map(|b| b == 1);
        assert_eq!(bits, want);

        // Asking for more levels than the data holds is an error, not a hang or panic.
        let mut v = BooleanBufferBuilder::new(16);
        assert!(append_validity(LevelData::Rle(&data[..2]), 1, 13, &mut v).is_err());
    }

    #[test]
    fn one_bit_levels_match_the_generic_decoder() {
        use crate::encoding::rle::encode_rle_hybrid;
        // Runs and scattered nulls, lengths that end mid-group; compared with decoding each
        // level through RleDecoder (the generic path for wider levels).
        let mut seed = 0x1234_5678u64;
        for n in [1usize, 7, 8, 9, 100, 1000, 4099] {
            let levels: Vec<u32> = (0..n)
                .map(|i| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                    if (i / 50) % 3 == 0 {
                        1
                    } else {
                        !(seed >> 33).is_multiple_of(4) as u32
                    }
                })
                .collect();
            let mut data = Vec::new();
            encode_rle_hybrid(&levels, 1, &mut data);
            let mut fast = BooleanBufferBuilder::new(n);
            let valid = append_validity_bits(&data, n, &mut fast).unwrap();
            let mut want: Vec<u32> = Vec::new();
            RleDecoder::new(&data, 1).unwrap().decode(n, &mut want).unwrap();
            assert_eq!(valid, want.iter().filter(|&&l| l == 1).count(), "n = {n}");
            let got: Vec<u32> = (0..n).map(|i| u32::from(fast.get_bit(i))).collect();
            assert_eq!(got, want, "n = {n}");
            // Truncated data is an error, never a panic.
            for cut in 0..data.len() {
                let mut b = BooleanBufferBuilder::new(n);
                let _ = append_validity_bits(&data[..cut], n, &mut b);
            }
        }
    }
}
