//! The deprecated BIT_PACKED encoding of levels: values packed most significant bit first,
//! with no header and no runs (older writers' v1 pages).

use super::RleValue;
use crate::error::{Error, Result};

/// Decodes `n` values of the deprecated BIT_PACKED encoding (levels packed most significant
/// bit first, no header), appending to `dst`. Returns the bytes used, `ceil(n * bit_width / 8)`.
pub fn decode_bit_packed_msb<T: RleValue>(data: &[u8], bit_width: u8, n: usize, dst: &mut Vec<T>) -> Result<usize> {
    let w = bit_width as usize;
    if w > 32 {
        return Err(Error::corrupt(format!("BIT_PACKED: bit width {w} is over 32")));
    }
    let bytes = match n.checked_mul(w) {
        Some(bits) if bits.div_ceil(8) <= data.len() => bits.div_ceil(8),
        _ => {
            return Err(Error::corrupt(format!(
                "BIT_PACKED: {n} values of {w} bits need more than the {} bytes left",
                data.len()
            )))
        }
    };
    if w == 0 {
        dst.extend(std::iter::repeat_n(T::from_u32(0), n));
        return Ok(0);
    }
    dst.reserve(n);
    dst.extend((0..n).map(|i| {
        let bit = i * w;
        let byte = bit / 8;
        // A big-endian 64-bit window starting at `byte`, zero past the end.
        let window = match data.get(byte..byte + 8) {
            Some(b) => u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
            None => {
                let mut b = [0u8; 8];
                let tail = data.get(byte..).unwrap_or_default();
                b[..tail.len().min(8)].copy_from_slice(&tail[..tail.len().min(8)]);
                u64::from_be_bytes(b)
            }
        };
        T::from_u32(((window << (bit % 8)) >> (64 - w)) as u32)
    }));
    Ok(bytes)
}
