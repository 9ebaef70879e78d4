//! The deprecated LZ4 codec (id 5): Hadoop block framing, with fallbacks for old writers.
//!
//! parquet-mr writes pages through Hadoop's `BlockCompressorStream`: each block is a 4-byte
//! big-endian uncompressed length followed by one or more chunks of [4-byte big-endian compressed
//! length][raw LZ4 block]. Old parquet-cpp wrote the same codec id as a bare LZ4 block, and
//! some writers as an LZ4 frame. Like Arrow C++ and arrow-rs, the reader tries Hadoop framing
//! first, accepts it only if every length checks out and the output is exactly the expected
//! size, then falls back to the LZ4 frame format (only when the frame magic is there) and
//! finally to a raw block.

use std::io::Read;

use super::{lz4_raw_compress, lz4_raw_decompress, Codec};
use crate::error::{Error, Result};

/// Uncompressed bytes per Hadoop block written: the whole page, as Arrow C++ writes it. Hadoop's
/// own stream cuts blocks at its 256 KiB buffer, but arrow-rs 60 (which moves to the next block
/// only while the input is longer than the block before it) and polars fail on pages of several
/// blocks, and Arrow C++'s single-block pages are what every reader has been made to read.
const HADOOP_BLOCK_SIZE: usize = u32::MAX as usize;

/// The LZ4 frame magic number, little-endian.
const FRAME_MAGIC: [u8; 4] = [0x04, 0x22, 0x4D, 0x18];

/// Appends exactly `expected_len` decompressed bytes to `out`, trying Hadoop framing, an LZ4
/// frame and a raw block in turn. On error `out` may hold partial output; the caller truncates.
pub(super) fn decompress(input: &[u8], expected_len: usize, out: &mut Vec<u8>) -> Result<()> {
    let start = out.len();
    let hadoop_err = match decompress_hadoop(input, expected_len, out) {
        Ok(()) => return Ok(()),
        Err(e) => e,
    };
    out.truncate(start);
    let frame_err = if input.starts_with(&FRAME_MAGIC) {
        match decompress_frame(input, expected_len, out) {
            Ok(()) => return Ok(()),
            Err(e) => {
                out.truncate(start);
                format!("; as an LZ4 frame: {}", e.message())
            }
        }
    } else {
        String::new()
    };
    lz4_raw_decompress(input, expected_len, out).map_err(|raw_err| {
        Error::corrupt(format!(
            "LZ4: {} compressed bytes do not decompress to {expected_len}: as Hadoop blocks: {}{}; \
             as a raw block: {}",
            input.len(),
            hadoop_err.message(),
            frame_err,
            raw_err.message()
        ))
    })
}

fn read_be32(rest: &mut &[u8], what: &str) -> Result<usize> {
    let Some((head, tail)) = rest.split_first_chunk::<4>() else {
        return Err(Error::corrupt(format!("{} bytes left where a {what} was expected", rest.len())));
    };
    *rest = tail;
    Ok(u32::from_be_bytes(*head) as usize)
}

/// Decodes Hadoop blocks; fails unless every length is consistent and the total is exact.
fn decompress_hadoop(input: &[u8], expected_len: usize, out: &mut Vec<u8>) -> Result<()> {
    let start = out.len();
    let mut rest = input;
    if rest.is_empty() {
        return Err(Error::corrupt("no block header"));
    }
    while !rest.is_empty() {
        let block_len = read_be32(&mut rest, "block length")?;
        let done = out.len() - start;
        if block_len > expected_len - done {
            return Err(Error::corrupt(format!(
                "block of {block_len} bytes after {done} would pass the expected {expected_len}"
            )));
        }
        let block_end = out.len() + block_len;
        loop {
            let chunk_len = read_be32(&mut rest, "chunk length")?;
            if chunk_len > rest.len() {
                return Err(Error::corrupt(format!("chunk of {chunk_len} bytes but only {} left", rest.len())));
            }
            let (chunk, tail) = rest.split_at(chunk_len);
            rest = tail;
            let room = block_end - out.len();
            let before = out.len();
            out.resize(block_end, 0);
            let n = lz4_flex::block::decompress_into(chunk, &mut out[before..])
                .map_err(|e| Error::corrupt(format!("chunk of {chunk_len} bytes: {e}")))?;
            out.truncate(before + n);
            if n == room {
                break;
            }
            if n == 0 {
                return Err(Error::corrupt(format!("empty chunk with {room} block bytes left")));
            }
        }
    }
    let done = out.len() - start;
    if done != expected_len {
        return Err(Error::corrupt(format!("blocks hold {done} bytes, not {expected_len}")));
    }
    Ok(())
}

/// Decodes an LZ4 frame (the format of the `lz4` command-line tool).
fn decompress_frame(input: &[u8], expected_len: usize, out: &mut Vec<u8>) -> Result<()> {
    let start = out.len();
    out.resize(start + expected_len, 0);
    let mut decoder = lz4_flex::frame::FrameDecoder::new(input);
    let mut filled = 0;
    while filled < expected_len {
        let n = decoder
            .read(&mut out[start + filled..])
            .map_err(|e| Error::corrupt(format!("after {filled} bytes: {e}")))?;
        if n == 0 {
            return Err(Error::corrupt(format!("frame ends after {filled} of {expected_len} bytes")));
        }
        filled += n;
    }
    let mut extra = [0u8; 1];
    match decoder.read(&mut extra) {
        Ok(0) => Ok(()),
        Ok(_) => Err(Error::corrupt(format!("frame holds more than {expected_len} bytes"))),
        Err(e) => Err(Error::corrupt(format!("after {expected_len} bytes: {e}"))),
    }
}

/// Appends `input` as Hadoop-framed LZ4: blocks of [BE u32 length][BE u32 compressed
/// length][raw LZ4 block], each holding at most [`HADOOP_BLOCK_SIZE`] bytes.
pub(super) fn compress(input: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let blocks = input.len().div_ceil(HADOOP_BLOCK_SIZE).max(1);
    let bound = lz4_flex::block::get_maximum_output_size(HADOOP_BLOCK_SIZE.min(input.len()));
    out.reserve_exact(blocks * (8 + bound));
    let mut chunks = input.chunks(HADOOP_BLOCK_SIZE);
    let empty: &[u8] = &[];
    for chunk in (&mut chunks).chain(if input.is_empty() { Some(empty) } else { None }) {
        let header = out.len();
        out.extend_from_slice(&(chunk.len() as u32).to_be_bytes());
        out.extend_from_slice(&[0; 4]);
        lz4_raw_compress(chunk, out);
        let clen = out.len() - header - 8;
        let clen = u32::try_from(clen)
            .map_err(|_| Error::invalid_argument(format!("{}: block too large", Codec::Lz4.name())))?;
        out[header + 4..header + 8].copy_from_slice(&clen.to_be_bytes());
    }
    Ok(())
}
