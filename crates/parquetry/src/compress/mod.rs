//! Page compression: one [`Codec`] enum, a [`Compression`] (codec and level), a reusable
//! [`Decompressor`] and [`Compressor`].
//!
//! Decompression appends exactly the page header's `uncompressed_page_size` bytes to a caller's
//! `Vec<u8>`: the vector is reserved once, codecs write into its spare capacity where their API
//! allows it (zstd, gzip), and any size other than the expected one is an error. The caller
//! bounds `expected_len` (from the file size); this module never allocates more output than that.
//!
//! Codec contexts (a zstd `DCtx`/`CCtx`, a zlib stream) live in the [`Decompressor`] and
//! [`Compressor`] and are reused from page to page.

mod lz4_hadoop;
mod snappy;
pub(crate) mod snappy_splice;
#[cfg(test)]
mod tests;

use crate::error::{Error, Result};

/// A Parquet compression codec (`CompressionCodec` in the Thrift definition).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Codec {
    /// No compression: the page bytes are the values (id 0).
    Uncompressed,
    /// Snappy raw format, without the framing format's stream header (id 1).
    Snappy,
    /// Gzip (RFC 1952); a page may hold several concatenated gzip members (id 2).
    Gzip,
    /// LZO (id 3). No writer in use produces it; reading it is unsupported.
    Lzo,
    /// Brotli (RFC 7932) (id 4).
    Brotli,
    /// Deprecated LZ4 (id 5): Hadoop's block framing around LZ4 blocks. Files from old
    /// parquet-cpp hold a raw block or an LZ4 frame instead, which the reader also accepts.
    Lz4,
    /// Zstandard frames (RFC 8878) (id 6).
    Zstd,
    /// A single raw LZ4 block with no framing (id 7); what to use instead of [`Codec::Lz4`].
    Lz4Raw,
}

impl Codec {
    /// The codec of a Thrift `CompressionCodec` id.
    pub fn from_thrift(id: i32) -> Result<Codec> {
        Ok(match id {
            0 => Codec::Uncompressed,
            1 => Codec::Snappy,
            2 => Codec::Gzip,
            3 => Codec::Lzo,
            4 => Codec::Brotli,
            5 => Codec::Lz4,
            6 => Codec::Zstd,
            7 => Codec::Lz4Raw,
            _ => return Err(Error::corrupt(format!("unknown compression codec id {id}"))),
        })
    }

    /// The Thrift `CompressionCodec` id of this codec.
    pub fn to_thrift(self) -> i32 {
        self as i32
    }

    /// The name the Parquet specification uses, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Codec::Uncompressed => "UNCOMPRESSED",
            Codec::Snappy => "SNAPPY",
            Codec::Gzip => "GZIP",
            Codec::Lzo => "LZO",
            Codec::Brotli => "BROTLI",
            Codec::Lz4 => "LZ4",
            Codec::Zstd => "ZSTD",
            Codec::Lz4Raw => "LZ4_RAW",
        }
    }
}

/// How to compress pages: a codec and, for the codecs that have levels, the level (`None`:
/// the codec's default, [`ZSTD_DEFAULT_LEVEL`], [`GZIP_DEFAULT_LEVEL`],
/// [`BROTLI_DEFAULT_LEVEL`]). One value carries both, so that the writer, merge and a
/// column's settings all take the same thing; a bare [`Codec`] converts into it.
///
/// The level is checked against the codec's range when the writer or merge starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Compression {
    codec: Codec,
    level: Option<i32>,
}

impl Compression {
    /// No compression.
    pub const UNCOMPRESSED: Compression = Compression { codec: Codec::Uncompressed, level: None };
    /// Snappy.
    pub const SNAPPY: Compression = Compression { codec: Codec::Snappy, level: None };
    /// LZ4_RAW (what to use rather than the deprecated LZ4).
    pub const LZ4_RAW: Compression = Compression { codec: Codec::Lz4Raw, level: None };

    /// `codec` at `level` (`None`: its default).
    pub fn new(codec: Codec, level: Option<i32>) -> Self {
        Compression { codec, level }
    }

    /// ZSTD at `level` (1..=22; negative levels are faster).
    pub fn zstd(level: i32) -> Self {
        Compression::new(Codec::Zstd, Some(level))
    }

    /// GZIP at `level` (0..=9).
    pub fn gzip(level: i32) -> Self {
        Compression::new(Codec::Gzip, Some(level))
    }

    /// BROTLI at `level` (0..=11).
    pub fn brotli(level: i32) -> Self {
        Compression::new(Codec::Brotli, Some(level))
    }

    /// The codec.
    pub fn codec(self) -> Codec {
        self.codec
    }

    /// The level, if one was given.
    pub fn level(self) -> Option<i32> {
        self.level
    }
}

impl From<Codec> for Compression {
    fn from(codec: Codec) -> Self {
        Compression::new(codec, None)
    }
}

fn lzo_unsupported() -> Error {
    Error::unsupported(
        "the LZO codec is not supported (no current Parquet writer produces it); \
         rewrite the file with another codec",
    )
}

/// Decompresses pages, reusing codec contexts from page to page.
#[derive(Default)]
pub struct Decompressor {
    zstd: Option<zstd_safe::DCtx<'static>>,
    gzip: Option<flate2::Decompress>,
}

impl Decompressor {
    /// A decompressor with no codec context yet; contexts are made on first use.
    pub fn new() -> Self {
        Self::default()
    }

    /// Decompresses `input` (a page's compressed bytes) and appends exactly `expected_len`
    /// bytes to `out`.
    ///
    /// `out` is reserved once for `expected_len` more bytes. If the data decompresses to any
    /// other size, or is malformed, this returns an error and leaves `out` as it was.
    pub fn decompress(&mut self, codec: Codec, input: &[u8], expected_len: usize, out: &mut Vec<u8>) -> Result<()> {
        if codec == Codec::Lzo {
            return Err(lzo_unsupported());
        }
        if input.is_empty() && expected_len == 0 {
            // An empty page (data page v2 with no values) may be stored with no codec bytes.
            return Ok(());
        }
        if out.capacity() == 0 && matches!(codec, Codec::Lz4Raw | Codec::Lz4) {
            if let Some(done) = lz4_into_fresh_vec(codec, input, expected_len, out) {
                return done;
            }
        }
        let start = out.len();
        out.try_reserve_exact(expected_len).map_err(|_| {
            Error::corrupt(format!("{}: cannot allocate {expected_len} bytes for a decompressed page", codec.name()))
        })?;
        let result = match codec {
            Codec::Uncompressed => {
                if input.len() != expected_len {
                    Err(size_mismatch(codec, input.len(), expected_len))
                } else {
                    out.extend_from_slice(input);
                    Ok(())
                }
            }
            Codec::Snappy => decompress_snappy(input, expected_len, out),
            Codec::Gzip => self.decompress_gzip(input, expected_len, out),
            Codec::Lzo => Err(lzo_unsupported()),
            Codec::Brotli => decompress_brotli(input, expected_len, out),
            Codec::Lz4 => lz4_hadoop::decompress(input, expected_len, out),
            Codec::Zstd => self.decompress_zstd(input, expected_len, out),
            Codec::Lz4Raw => lz4_raw_decompress(input, expected_len, out)
                .map_err(|e| e.context(format!("LZ4_RAW ({} compressed bytes)", input.len()))),
        };
        match result {
            Ok(()) => {
                debug_assert_eq!(out.len() - start, expected_len);
                Ok(())
            }
            Err(e) => {
                out.truncate(start);
                Err(e)
            }
        }
    }

    fn decompress_zstd(&mut self, input: &[u8], expected_len: usize, out: &mut Vec<u8>) -> Result<()> {
        let dctx =
            match &mut self.zstd {
                Some(d) => d,
                None => self.zstd.insert(zstd_safe::DCtx::try_create().ok_or_else(|| {
                    Error::unsupported("ZSTD: cannot create a decompression context (out of memory)")
                })?),
            };
        let start = out.len();
        // The cursor makes zstd write at `out[start..]`, into the spare capacity (never zeroed),
        // and set `out`'s length to what it wrote. Its room is `capacity - start >= expected_len`;
        // a frame that would decode to more than that room fails with "destination too small".
        // One-shot decoding into the destination handles frames without a content size and
        // several concatenated frames.
        let mut cursor = std::io::Cursor::new(&mut *out);
        cursor.set_position(start as u64);
        let written = dctx.decompress(&mut cursor, input).map_err(|code| {
            Error::corrupt(format!(
                "ZSTD: cannot decompress {} bytes into {expected_len}: {}",
                input.len(),
                zstd_safe::get_error_name(code)
            ))
        })?;
        if written != expected_len {
            return Err(size_mismatch(Codec::Zstd, written, expected_len));
        }
        Ok(())
    }

    fn decompress_gzip(&mut self, input: &[u8], expected_len: usize, out: &mut Vec<u8>) -> Result<()> {
        use flate2::{FlushDecompress, Status};
        let inflate = self.gzip.get_or_insert_with(|| flate2::Decompress::new_gzip(15));
        let start = out.len();
        let too_long =
            || Error::corrupt(format!("GZIP: {} compressed bytes decompress to more than {expected_len}", input.len()));
        // `decompress_vec` writes into the spare capacity (never zeroed) and never grows `out`.
        // That room is `expected_len` unless the caller's vector had more; a stream longer than
        // the room stops making progress and is reported, a longer one that fits is caught by
        // the final length check.
        let mut rest = input;
        loop {
            // One gzip member per pass: some writers concatenate members in one page.
            inflate.reset(true);
            loop {
                let (in_before, len_before) = (inflate.total_in(), out.len());
                let status = inflate.decompress_vec(rest, out, FlushDecompress::Finish).map_err(|e| {
                    Error::corrupt(format!("GZIP: cannot decompress {} bytes into {expected_len}: {e}", input.len()))
                })?;
                rest = &rest[(inflate.total_in() - in_before) as usize..];
                if status == Status::StreamEnd {
                    break;
                }
                if inflate.total_in() == in_before && out.len() == len_before {
                    if out.len() == out.capacity() {
                        return Err(too_long());
                    }
                    return Err(Error::corrupt(format!(
                        "GZIP: {} compressed bytes end inside a gzip member after {} of \
                         {expected_len} decompressed bytes",
                        input.len(),
                        out.len() - start
                    )));
                }
            }
            if out.len() - start > expected_len {
                return Err(too_long());
            }
            if rest.is_empty() {
                break;
            }
        }
        let written = out.len() - start;
        if written != expected_len {
            return Err(size_mismatch(Codec::Gzip, written, expected_len));
        }
        Ok(())
    }
}

fn size_mismatch(codec: Codec, actual: usize, expected: usize) -> Error {
    Error::corrupt(format!("{}: page decompressed to {actual} bytes but its header says {expected}", codec.name()))
}

/// Appends `len` bytes to `out` written by `f`, which gets exactly `len` bytes of room and
/// returns how many it wrote; fewer than `len` is an error.
///
/// The room is zero-filled first: brotli-decompressor and lz4_flex's `decompress_into` take
/// `&mut [u8]`, which must be initialised, and handing them the spare capacity would need
/// `unsafe` over uninitialised memory. Measured on a 1 MiB page of strings (examples/bench.rs),
/// the memset is ~11 us, 4-8% of an LZ4 decode; LZ4 pages into a fresh vector avoid it (see
/// [`lz4_into_fresh_vec`]). SNAPPY avoids it with its own decoder ([`snappy`]).
fn fill_exact(out: &mut Vec<u8>, len: usize, codec: Codec, f: impl FnOnce(&mut [u8]) -> Result<usize>) -> Result<()> {
    let start = out.len();
    out.resize(start + len, 0);
    let written = f(&mut out[start..])?;
    if written != len {
        return Err(size_mismatch(codec, written, len));
    }
    Ok(())
}

/// SNAPPY pages go through our own decoder ([`snappy`]), which writes into the spare capacity
/// instead of a zero-filled buffer, checks the block's claimed length against `expected_len`
/// first, and is faster than `snap::raw::Decoder` on Parquet pages.
fn decompress_snappy(input: &[u8], expected_len: usize, out: &mut Vec<u8>) -> Result<()> {
    snappy::decompress_into(input, expected_len, out)
}

fn decompress_brotli(input: &[u8], expected_len: usize, out: &mut Vec<u8>) -> Result<()> {
    use brotli_decompressor::BrotliResult;
    fill_exact(out, expected_len, Codec::Brotli, |buf| {
        let info = brotli_decompressor::brotli_decode(input, buf);
        match info.result {
            BrotliResult::ResultSuccess => Ok(info.decoded_size),
            BrotliResult::NeedsMoreOutput => Err(Error::corrupt(format!(
                "BROTLI: {} compressed bytes decompress to more than {expected_len}",
                input.len()
            ))),
            BrotliResult::NeedsMoreInput => Err(Error::corrupt(format!(
                "BROTLI: {} compressed bytes end after {} of {expected_len} decompressed bytes",
                input.len(),
                info.decoded_size
            ))),
            BrotliResult::ResultFailure => Err(Error::corrupt(format!(
                "BROTLI: cannot decompress {} bytes into {expected_len}: error {:?}",
                input.len(),
                info.error_code
            ))),
        }
    })
}

/// LZ4 fast path for an output vector with no allocation yet (how a reader asks for a new page
/// buffer): lz4_flex's `block::decompress` writes into a fresh `Vec::with_capacity(expected_len)`
/// without zeroing it, which `decompress_into(&mut [u8])` cannot. Applies to LZ4_RAW and to LZ4
/// pages that are one Hadoop block of one chunk (what Arrow C++ writes). Returns `None` to send
/// the page down the general path (Hadoop multi-block and fallbacks), which reports errors.
fn lz4_into_fresh_vec(codec: Codec, input: &[u8], expected_len: usize, out: &mut Vec<u8>) -> Option<Result<()>> {
    // An LZ4 sequence expands at most ~255x; a page claiming more is corrupt, and is left to the
    // general path's error rather than allocated here.
    if expected_len > input.len().saturating_mul(255).saturating_add(64) {
        return None;
    }
    let block = match codec {
        Codec::Lz4Raw => input,
        _ => {
            let (header, block) = input.split_first_chunk::<8>()?;
            let [r0, r1, r2, r3, b0, b1, b2, b3] = *header;
            let raw_len = u32::from_be_bytes([r0, r1, r2, r3]) as usize;
            let block_len = u32::from_be_bytes([b0, b1, b2, b3]) as usize;
            if raw_len != expected_len || block_len != block.len() {
                return None;
            }
            block
        }
    };
    match lz4_flex::block::decompress(block, expected_len) {
        Ok(v) if v.len() == expected_len => {
            *out = v;
            Some(Ok(()))
        }
        _ if codec == Codec::Lz4 => None,
        Ok(v) => Some(Err(size_mismatch(codec, v.len(), expected_len))),
        Err(e) => Some(Err(Error::corrupt(format!(
            "LZ4_RAW: cannot decompress {} bytes into {expected_len}: {e}",
            input.len()
        )))),
    }
}

/// Decompresses one raw LZ4 block of exactly `expected_len` bytes (LZ4_RAW, and the last
/// fallback of LZ4).
pub(crate) fn lz4_raw_decompress(input: &[u8], expected_len: usize, out: &mut Vec<u8>) -> Result<()> {
    fill_exact(out, expected_len, Codec::Lz4Raw, |buf| {
        lz4_flex::block::decompress_into(input, buf)
            .map_err(|e| Error::corrupt(format!("raw LZ4 block into {expected_len} bytes: {e}")))
    })
}

/// Refuses a page whose claimed uncompressed size no data could reach from its compressed
/// size with this codec, before allocating it. Snappy, LZ4 and deflate have hard limits on
/// their expansion; zstd and brotli do not, so they get a generous bound.
pub fn check_expansion(codec: Codec, compressed: usize, expected: usize) -> Result<()> {
    let ratio = match codec {
        Codec::Snappy => 64,
        Codec::Lz4 | Codec::Lz4Raw => 256,
        Codec::Gzip => 1100,
        _ => 1 << 16,
    };
    if expected > compressed.saturating_mul(ratio).saturating_add(1 << 16) {
        return Err(Error::corrupt(format!(
            "a {}-byte {} page cannot decompress to the {expected} bytes its header claims",
            compressed,
            codec.name()
        )));
    }
    Ok(())
}

/// Compresses pages, reusing codec contexts from page to page.
#[derive(Default)]
pub struct Compressor {
    zstd: Option<(zstd_safe::CCtx<'static>, i32)>,
    /// `snap` writes only into initialised memory: one scratch buffer, zeroed once at its
    /// largest size, instead of zero-filling the worst-case bound of every page.
    snappy: Vec<u8>,
    snappy_encoder: Option<Box<snap::raw::Encoder>>,
    /// A deflate state and its level, reset from page to page: a fresh one per page was most
    /// of the time of writing small gzip pages (its tables and window are made anew).
    gzip: Option<(flate2::Compress, i32)>,
}

/// Default zstd level: 1, as Arrow C++ and arrow-rs use. On a 1 MiB page of strings, level 1
/// compresses 1.6x faster than zstd's own default (3) and, on that page, even smaller; its pages
/// also decompress faster (2.8 vs 2.2 GB/s).
pub const ZSTD_DEFAULT_LEVEL: i32 = 1;
/// Default gzip level: 6, zlib's default and what parquet-mr, Arrow C++ and arrow-rs use.
pub const GZIP_DEFAULT_LEVEL: i32 = 6;
/// Default brotli quality: 2. On a 1 MiB page of strings, quality 2 compresses about as fast as
/// quality 1 (arrow-rs's default), 17% smaller, and its pages decompress 2.5x faster (0.73 vs
/// 0.29 GB/s); Arrow C++'s default 8 is 9x slower to write for 5% smaller pages.
pub const BROTLI_DEFAULT_LEVEL: i32 = 2;

impl Compressor {
    /// A compressor with no codec context yet; contexts are made on first use.
    pub fn new() -> Self {
        Self::default()
    }

    /// Compresses `input` with `codec` and appends the result to `out`.
    ///
    /// `level` applies to ZSTD (1..=22, negative for faster), GZIP (0..=9) and BROTLI (0..=11);
    /// `None` picks the defaults above. Other codecs ignore it. LZ4 (id 5) writes Hadoop framing
    /// so that every reader, including parquet-mr, can read it.
    pub fn compress(&mut self, codec: Codec, level: Option<i32>, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        match codec {
            Codec::Uncompressed => {
                out.extend_from_slice(input);
                Ok(())
            }
            Codec::Snappy => {
                let bound = snap::raw::max_compress_len(input.len());
                if bound == 0 && !input.is_empty() {
                    return Err(Error::invalid_argument(format!(
                        "SNAPPY: cannot compress {} bytes (too large for snappy)",
                        input.len()
                    )));
                }
                if self.snappy.len() < bound {
                    self.snappy.resize(bound, 0);
                }
                let encoder = self.snappy_encoder.get_or_insert_with(|| Box::new(snap::raw::Encoder::new()));
                let n = encoder
                    .compress(input, &mut self.snappy[..bound])
                    .map_err(|e| Error::invalid_argument(format!("SNAPPY: cannot compress: {e}")))?;
                out.extend_from_slice(&self.snappy[..n]);
                Ok(())
            }
            Codec::Gzip => self.compress_gzip(level.unwrap_or(GZIP_DEFAULT_LEVEL), input, out),
            Codec::Lzo => Err(lzo_unsupported()),
            Codec::Brotli => compress_brotli(level.unwrap_or(BROTLI_DEFAULT_LEVEL), input, out),
            Codec::Lz4 => lz4_hadoop::compress(input, out),
            Codec::Zstd => self.compress_zstd(level.unwrap_or(ZSTD_DEFAULT_LEVEL), input, out),
            Codec::Lz4Raw => {
                lz4_raw_compress(input, out);
                Ok(())
            }
        }
    }

    fn compress_zstd(&mut self, level: i32, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        use zstd_safe::CParameter;
        let err = |what: &str, code| {
            Error::invalid_argument(format!(
                "ZSTD: {what} (level {level}, {} input bytes): {}",
                input.len(),
                zstd_safe::get_error_name(code)
            ))
        };
        let (cctx, current) = match &mut self.zstd {
            Some(z) => z,
            slot => {
                let cctx = zstd_safe::CCtx::try_create()
                    .ok_or_else(|| Error::unsupported("ZSTD: cannot create a compression context"))?;
                slot.insert((cctx, i32::MIN))
            }
        };
        if *current != level {
            cctx.set_parameter(CParameter::CompressionLevel(level)).map_err(|c| err("bad level", c))?;
            *current = level;
        }
        let start = out.len();
        out.reserve_exact(zstd_safe::compress_bound(input.len()));
        let mut cursor = std::io::Cursor::new(&mut *out);
        cursor.set_position(start as u64);
        // compress2 uses the context's parameters and writes the content size in the frame
        // header, so readers can check it. The bound reserved above always suffices.
        cctx.compress2(&mut cursor, input).map_err(|c| err("cannot compress", c))?;
        Ok(())
    }
}

/// Appends one raw LZ4 block of `input` to `out`.
pub(crate) fn lz4_raw_compress(input: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    let bound = lz4_flex::block::get_maximum_output_size(input.len());
    out.reserve_exact(bound);
    out.resize(start + bound, 0);
    let n = lz4_flex::block::compress_into(input, &mut out[start..])
        .expect("lz4_flex: output sized by get_maximum_output_size");
    out.truncate(start + n);
}

impl Compressor {
    fn compress_gzip(&mut self, level: i32, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        use flate2::Compression;
        if !(0..=9).contains(&level) {
            return Err(Error::invalid_argument(format!("GZIP: level {level} is not in 0..=9")));
        }
        let deflate = match &mut self.gzip {
            Some((deflate, l)) if *l == level => {
                deflate.reset();
                deflate
            }
            slot => &mut slot.insert((flate2::Compress::new_gzip(Compression::new(level as u32), 15), level)).0,
        };
        deflate_all(deflate, input, out)
    }
}

/// Compresses `input` to one gzip member with `deflate` (fresh or reset), appended to `out`.
fn deflate_all(deflate: &mut flate2::Compress, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
    use flate2::{FlushCompress, Status};
    // zlib's compressBound plus the gzip header and trailer (18 bytes instead of zlib's 6).
    let n = input.len();
    out.reserve_exact(n + (n >> 12) + (n >> 14) + (n >> 25) + 13 + 12);
    let mut rest = input;
    loop {
        let before = deflate.total_in();
        let status = deflate
            .compress_vec(rest, out, FlushCompress::Finish)
            .map_err(|e| Error::invalid_argument(format!("GZIP: cannot compress {n} bytes: {e}")))?;
        rest = &rest[(deflate.total_in() - before) as usize..];
        if status == Status::StreamEnd {
            return Ok(());
        }
        // The bound should make this unreachable; grow rather than fail if it is not.
        out.reserve(64 + rest.len());
    }
}

#[cfg(not(feature = "brotli-compress"))]
fn compress_brotli(_level: i32, input: &[u8], _out: &mut Vec<u8>) -> Result<()> {
    Err(Error::unsupported(format!(
        "BROTLI: cannot compress {} bytes: built without the `brotli-compress` feature",
        input.len()
    )))
}

#[cfg(feature = "brotli-compress")]
fn compress_brotli(level: i32, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
    if !(0..=11).contains(&level) {
        return Err(Error::invalid_argument(format!("BROTLI: quality {level} is not in 0..=11")));
    }
    let params =
        brotli::enc::BrotliEncoderParams { quality: level, lgwin: 22, size_hint: input.len(), ..Default::default() };
    out.reserve_exact(brotli::enc::BrotliEncoderMaxCompressedSize(input.len()));
    let mut reader = input;
    brotli::BrotliCompress(&mut reader, out, &params)
        .map_err(|e| Error::invalid_argument(format!("BROTLI: cannot compress {} bytes: {e}", input.len())))?;
    Ok(())
}
