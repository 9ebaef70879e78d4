use super::*;
use crate::error::ErrorKind;

const CODECS: [Codec; 7] =
    [Codec::Uncompressed, Codec::Snappy, Codec::Gzip, Codec::Brotli, Codec::Lz4, Codec::Zstd, Codec::Lz4Raw];

/// Deterministic pseudo-random bytes (xorshift64*).
fn random_bytes(n: usize, mut seed: u64) -> Vec<u8> {
    let mut v = Vec::with_capacity(n);
    while v.len() < n {
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        v.extend_from_slice(&seed.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes());
    }
    v.truncate(n);
    v
}

/// Text like a string column: URLs with numbers, compressible but not trivially.
fn text_bytes(n: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(n + 64);
    let mut i = 0u64;
    while v.len() < n {
        let r = random_bytes(8, i + 1);
        let x = u64::from_le_bytes(r.try_into().unwrap());
        v.extend_from_slice(
            format!("https://www.example{}.com/path/to/resource/item/{}", x % 50, x % 10_000_000).as_bytes(),
        );
        i += 1;
    }
    v.truncate(n);
    v
}

fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("empty", vec![]),
        ("one byte", vec![b'x']),
        ("1 MB random", random_bytes(1 << 20, 7)),
        ("1 MB text", text_bytes(1 << 20)),
        ("1 MB zeros", vec![0; 1 << 20]),
    ]
}

fn compress(codec: Codec, input: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    Compressor::new().compress(codec, None, input, &mut out).unwrap();
    out
}

#[test]
fn thrift_ids() {
    for id in 0..8 {
        assert_eq!(Codec::from_thrift(id).unwrap().to_thrift(), id);
    }
    assert_eq!(Codec::from_thrift(5).unwrap(), Codec::Lz4);
    assert_eq!(Codec::from_thrift(7).unwrap(), Codec::Lz4Raw);
    assert_eq!(Codec::from_thrift(8).unwrap_err().kind(), ErrorKind::Corrupt);
    assert!(Codec::from_thrift(-1).is_err());
}

#[test]
fn lzo_is_unsupported() {
    let e = Decompressor::new().decompress(Codec::Lzo, b"abc", 3, &mut Vec::new()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert!(e.message().contains("LZO"), "{e}");
    let e = Compressor::new().compress(Codec::Lzo, None, b"abc", &mut Vec::new()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
}

#[test]
fn round_trip_every_codec() {
    let mut d = Decompressor::new();
    let mut c = Compressor::new();
    for codec in CODECS {
        for (name, input) in inputs() {
            let mut compressed = b"prefix".to_vec();
            c.compress(codec, None, &input, &mut compressed).unwrap();
            assert_eq!(&compressed[..6], b"prefix");
            let compressed = &compressed[6..];
            // Append after existing bytes, with a reused context.
            let mut out = b"head".to_vec();
            d.decompress(codec, compressed, input.len(), &mut out).unwrap_or_else(|e| panic!("{codec:?} {name}: {e}"));
            assert_eq!(&out[..4], b"head");
            assert!(out[4..] == input[..], "{codec:?} {name}: wrong bytes");
            // Into a fresh vector: capacity is exactly the page.
            let mut out = Vec::new();
            d.decompress(codec, compressed, input.len(), &mut out).unwrap();
            assert_eq!(out.capacity(), input.len(), "{codec:?} {name}");
        }
    }
}

#[test]
fn levels() {
    let input = text_bytes(100_000);
    let mut c = Compressor::new();
    let mut d = Decompressor::new();
    for (codec, levels) in
        [(Codec::Zstd, vec![-5, 1, 3, 19]), (Codec::Gzip, vec![0, 1, 6, 9]), (Codec::Brotli, vec![0, 1, 8, 11])]
    {
        for level in levels {
            let mut z = Vec::new();
            c.compress(codec, Some(level), &input, &mut z).unwrap();
            let mut out = Vec::new();
            d.decompress(codec, &z, input.len(), &mut out).unwrap();
            assert!(out == input, "{codec:?} level {level}");
        }
    }
    assert!(c.compress(Codec::Gzip, Some(10), b"a", &mut Vec::new()).is_err());
    assert!(c.compress(Codec::Brotli, Some(12), b"a", &mut Vec::new()).is_err());
    assert!(c.compress(Codec::Zstd, Some(1000), b"a", &mut Vec::new()).is_ok());
    // zstd clamps
}

#[test]
fn wrong_expected_len_is_an_error_both_ways() {
    let mut d = Decompressor::new();
    for codec in CODECS {
        for (name, input) in inputs() {
            let z = compress(codec, &input);
            for expected in [input.len() + 1, input.len().wrapping_sub(1)] {
                if expected == usize::MAX {
                    continue;
                }
                let mut out = b"keep".to_vec();
                let r = d.decompress(codec, &z, expected, &mut out);
                assert!(r.is_err(), "{codec:?} {name}: expected {expected} accepted");
                assert_eq!(out, b"keep", "{codec:?} {name}: output not restored");
                // A vector with much more room than the page must not hide a too-long stream.
                let mut big = Vec::with_capacity(expected + 4096);
                assert!(d.decompress(codec, &z, expected, &mut big).is_err(), "{codec:?} {name}");
                assert!(big.is_empty());
            }
            // The decompressor is still usable after an error.
            let mut out = Vec::new();
            d.decompress(codec, &z, input.len(), &mut out).unwrap();
            assert!(out == input);
        }
    }
}

#[test]
fn empty_input_with_zero_length_is_an_empty_page() {
    for codec in CODECS {
        let mut out = Vec::new();
        Decompressor::new().decompress(codec, &[], 0, &mut out).unwrap();
        assert!(out.is_empty());
        assert!(Decompressor::new().decompress(codec, &[], 1, &mut out).is_err(), "{codec:?}");
    }
}

/// Decompresses corrupt data and checks: no panic, an error or an output of exactly
/// `expected` bytes, no allocation past `expected`, and `out` untouched on error.
fn check_corrupt(d: &mut Decompressor, codec: Codec, data: &[u8], expected: usize) -> bool {
    let mut out = Vec::new();
    let ok = d.decompress(codec, data, expected, &mut out).is_ok();
    assert!(out.capacity() <= expected, "{codec:?}: allocated {} > {expected}", out.capacity());
    assert_eq!(out.len(), if ok { expected } else { 0 });
    ok
}

#[test]
fn truncated_input_is_an_error() {
    let mut d = Decompressor::new();
    let input = text_bytes(200_000);
    for codec in CODECS {
        let z = compress(codec, &input);
        for cut in [0, 1, 4, 7, 8, 9, z.len() / 3, z.len() / 2, z.len() - 9, z.len() - 1] {
            assert!(!check_corrupt(&mut d, codec, &z[..cut], input.len()), "{codec:?} cut {cut}");
        }
    }
}

#[test]
fn bit_flips_never_panic() {
    let mut d = Decompressor::new();
    for input in [text_bytes(20_000), random_bytes(5_000, 3)] {
        for codec in CODECS {
            let z = compress(codec, &input);
            let mut rng = random_bytes(4 * 300, 11).into_iter();
            for i in 0..300 {
                let mut bad = z.clone();
                let pos = if i < 64 {
                    i % bad.len() // every header byte
                } else {
                    let r = u32::from_le_bytes([0; 4].map(|_| rng.next().unwrap()));
                    r as usize % bad.len()
                };
                bad[pos] ^= 1 << (i % 8);
                check_corrupt(&mut d, codec, &bad, input.len());
            }
        }
    }
}

#[test]
fn garbage_never_panics() {
    let mut d = Decompressor::new();
    for seed in 1..200u64 {
        let junk = random_bytes((seed * 37 % 600) as usize, seed);
        for codec in CODECS {
            for expected in [0, 1, 100, 1 << 16] {
                check_corrupt(&mut d, codec, &junk, expected);
            }
        }
    }
}

#[test]
fn gzip_concatenated_members() {
    let a = text_bytes(70_000);
    let b = random_bytes(3_000, 5);
    let mut z = compress(Codec::Gzip, &a);
    z.extend_from_slice(&compress(Codec::Gzip, &b));
    z.extend_from_slice(&compress(Codec::Gzip, &[]));
    let mut out = Vec::new();
    Decompressor::new().decompress(Codec::Gzip, &z, a.len() + b.len(), &mut out).unwrap();
    assert!(out[..a.len()] == a[..] && out[a.len()..] == b[..]);
    // Trailing garbage after a member is an error, not silently ignored.
    z.extend_from_slice(b"junk");
    assert!(Decompressor::new().decompress(Codec::Gzip, &z, a.len() + b.len(), &mut out).is_err());
}

#[test]
fn zstd_frames_without_content_size_and_concatenated() {
    use zstd_safe::CParameter;
    let a = text_bytes(300_000);
    let mut cctx = zstd_safe::CCtx::create();
    cctx.set_parameter(CParameter::ContentSizeFlag(false)).unwrap();
    let mut z = Vec::with_capacity(zstd_safe::compress_bound(a.len()));
    cctx.compress2(&mut z, &a).unwrap();
    assert!(matches!(zstd_safe::get_frame_content_size(&z), Ok(None)));
    let mut out = Vec::new();
    let mut d = Decompressor::new();
    d.decompress(Codec::Zstd, &z, a.len(), &mut out).unwrap();
    assert!(out == a);
    assert!(d.decompress(Codec::Zstd, &z, a.len() - 1, &mut Vec::new()).is_err());
    assert!(d.decompress(Codec::Zstd, &z, a.len() + 1, &mut Vec::new()).is_err());
    let mut two = z.clone();
    two.extend_from_slice(&compress(Codec::Zstd, b"tail"));
    out.clear();
    d.decompress(Codec::Zstd, &two, a.len() + 4, &mut out).unwrap();
    assert!(out[..a.len()] == a[..] && &out[a.len()..] == b"tail");
}

#[test]
fn snappy_claimed_length_is_checked_first() {
    let z = compress(Codec::Snappy, b"hello hello hello");
    let e = Decompressor::new().decompress(Codec::Snappy, &z, 16, &mut Vec::new()).unwrap_err();
    assert!(e.message().contains("claims 17"), "{e}");
}

#[test]
fn lz4_reads_hadoop_frame_and_raw_block() {
    let input = text_bytes(400_000);
    let mut d = Decompressor::new();
    let check = |d: &mut Decompressor, z: &[u8], what: &str| {
        let mut out = Vec::new();
        d.decompress(Codec::Lz4, z, input.len(), &mut out).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(out == input, "{what}");
    };
    // What we write: the page as one Hadoop block of one chunk, as Arrow C++ writes it.
    let ours = compress(Codec::Lz4, &input);
    assert_eq!(u32::from_be_bytes(ours[..4].try_into().unwrap()) as usize, input.len());
    check(&mut d, &ours, "one hadoop block");
    // One Hadoop block made of two chunks (Hadoop's BlockCompressorStream can do this).
    let (p, q) = input.split_at(150_000);
    let mut multi = (input.len() as u32).to_be_bytes().to_vec();
    for part in [p, q] {
        let c = lz4_flex::block::compress(part);
        multi.extend_from_slice(&(c.len() as u32).to_be_bytes());
        multi.extend_from_slice(&c);
    }
    check(&mut d, &multi, "one block, two chunks");
    // Arrow C++: the whole page as one block of one chunk (the no-zero-fill fast path).
    let c = lz4_flex::block::compress(&input);
    let mut single = (input.len() as u32).to_be_bytes().to_vec();
    single.extend_from_slice(&(c.len() as u32).to_be_bytes());
    single.extend_from_slice(&c);
    check(&mut d, &single, "one block, one chunk");
    let mut prefixed = b"x".to_vec();
    d.decompress(Codec::Lz4, &single, input.len(), &mut prefixed).unwrap();
    assert!(prefixed[1..] == input[..]);
    let e = d.decompress(Codec::Lz4, &single, input.len() + 1, &mut Vec::new()).unwrap_err();
    assert!(e.message().contains("Hadoop"), "{e}");
    // Old parquet-cpp: a bare block.
    check(&mut d, &lz4_flex::block::compress(&input), "raw block");
    // An LZ4 frame.
    let mut enc = lz4_flex::frame::FrameEncoder::new(Vec::new());
    std::io::Write::write_all(&mut enc, &input).unwrap();
    check(&mut d, &enc.finish().unwrap(), "frame");
    // LZ4_RAW does not take the fallbacks.
    assert!(d.decompress(Codec::Lz4Raw, &ours, input.len(), &mut Vec::new()).is_err());
}
