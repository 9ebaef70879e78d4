//! DELTA_BINARY_PACKED (= 5) for INT32 and INT64, and for the lengths inside
//! DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY.
//!
//! Header: ULEB128 block size (a multiple of 128), ULEB128 miniblocks per block (values per
//! miniblock a multiple of 32), ULEB128 total value count, zigzag first value. Each block: zigzag
//! min delta, one bit-width byte per miniblock, then the miniblocks, bit packed. Values are
//! rebuilt by a wrapping prefix sum of `min delta + packed delta`.
//!
//! The decoder unpacks 32 deltas at a time (miniblocks are multiples of 32) with
//! [`bit_pack`](super::bit_pack) and prefix-sums them straight into the destination. It reads
//! blocks only when values are needed, so once all values are read
//! [`bytes_read`](DeltaBinaryPackedDecoder::bytes_read) is the end of the encoded data, which
//! the byte-array encodings need to find what follows.
//!
//! The encoder ([`DeltaBinaryPackedEncoder`]) writes blocks of 128 values in 4 miniblocks of
//! 32, as arrow-rs and Arrow C++ do, encoding each block as soon as it is full.

mod decoder;
mod encoder;

pub use decoder::{DeltaBinaryPackedDecoder, DeltaValue};
pub use encoder::{DeltaBinaryPackedEncoder, DeltaEncodeValue};

/// Decodes a zigzag-encoded value (the header's first value, a block's min delta).
fn zigzag(v: u64) -> u64 {
    (v >> 1) ^ (v & 1).wrapping_neg()
}
