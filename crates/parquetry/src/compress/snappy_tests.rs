//! Tests of the Snappy decoder against the `snap` crate (an independent implementation) and
//! against hand-built streams whose output is known by construction.

use super::{decompress_into, FAST_IN, FAST_START, WILD};
use crate::error::ErrorKind;

/// Deterministic pseudo-random bytes (xorshift64*).
pub(in crate::compress) fn random_bytes(n: usize, mut seed: u64) -> Vec<u8> {
    let mut v = Vec::with_capacity(n + 8);
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
pub(in crate::compress) fn text_bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut v = Vec::with_capacity(n + 80);
    let r = random_bytes(8 * (n / 20 + 1), seed);
    for x in r.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())) {
        if v.len() >= n {
            break;
        }
        let line = format!("https://www.example{}.com/item/{}?q={};", x % 50, x % 100_000, x % 7);
        v.extend_from_slice(line.as_bytes());
    }
    v.truncate(n);
    v
}

/// Column-like numbers: little-endian i64s that mostly increase by small steps, with runs.
fn numeric_bytes(n: usize) -> Vec<u8> {
    let steps = random_bytes(n / 8 + 1, 99);
    let mut v = Vec::with_capacity(n + 8);
    let mut x = 1_000_000i64;
    for s in steps {
        x += i64::from(s % 4);
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.truncate(n);
    v
}

fn snap_compress(input: &[u8]) -> Vec<u8> {
    snap::raw::Encoder::new().compress_vec(input).unwrap()
}

/// What `snap` makes of `stream` when `expected_len` bytes are expected, as `Some` if it
/// decodes to exactly that many bytes.
fn snap_decode(stream: &[u8], expected_len: usize) -> Option<Vec<u8>> {
    snap::raw::Decoder::new().decompress_vec(stream).ok().filter(|v| v.len() == expected_len)
}

/// Runs our decoder twice, into a fresh vector (no spare room past the page: exact tail paths)
/// and after a prefix in a vector with extra, stale capacity (wild paths up to the end), and
/// checks that both agree, that the capacity never grows past the page and that errors leave
/// the vector's length alone.
fn decode(stream: &[u8], expected_len: usize) -> Result<Vec<u8>, String> {
    let mut fresh = Vec::new();
    let a = decompress_into(stream, expected_len, &mut fresh);
    // An over-long claim fails before allocating; anything else gets exactly the page.
    assert!(fresh.capacity() <= expected_len, "capacity {} > {expected_len}", fresh.capacity());
    // Spare capacity full of stale bytes: reading a byte before writing it would show.
    let mut roomy = vec![0xa5; expected_len.min(1 << 24) + 3 + 2 * WILD];
    roomy.truncate(0);
    roomy.extend_from_slice(b"pre");
    let b = decompress_into(stream, expected_len, &mut roomy);
    assert_eq!(&roomy[..3], b"pre");
    match (a, b) {
        (Ok(()), Ok(())) => {
            assert!(roomy[3..] == fresh[..], "fresh and roomy outputs differ");
            assert_eq!(fresh.len(), expected_len);
            Ok(fresh)
        }
        (Err(a), Err(b)) => {
            assert_eq!(a.message(), b.message());
            assert_eq!(a.kind(), ErrorKind::Corrupt);
            assert!(a.message().starts_with("SNAPPY: "), "{}", a.message());
            assert!(fresh.is_empty() && roomy.len() == 3, "length changed on error");
            Err(a.message().to_string())
        }
        (a, b) => panic!("fresh {a:?} but roomy {b:?}"),
    }
}

/// Checks that our decoder and `snap` agree on `stream`: both fail, or both give equal output.
fn agrees_with_snap(stream: &[u8], expected_len: usize) -> bool {
    let ours = decode(stream, expected_len).ok();
    let theirs = snap_decode(stream, expected_len);
    assert!(ours == theirs, "ours ok={} snap ok={}", ours.is_some(), theirs.is_some());
    ours.is_some()
}

/// Builds a raw Snappy stream element by element, and the output it decodes to.
#[derive(Default, Clone)]
struct Builder {
    body: Vec<u8>,
    out: Vec<u8>,
}

impl Builder {
    /// A literal of `data`; `extra` 0 is the short form (at most 60 bytes), 1..=4 the form
    /// with that many length bytes after the tag (tag values 60..=63).
    fn literal(&mut self, data: &[u8], extra: usize) -> &mut Self {
        let n = data.len() - 1;
        if extra == 0 {
            assert!(n < 60);
            self.body.push((n as u8) << 2);
        } else {
            self.body.push(((59 + extra) as u8) << 2);
            self.body.extend_from_slice(&(n as u32).to_le_bytes()[..extra]);
        }
        self.body.extend_from_slice(data);
        self.out.extend_from_slice(data);
        self
    }

    /// A copy with a 1-, 2- or 4-byte offset (`size`); the output is made byte by byte.
    fn copy(&mut self, size: usize, offset: usize, len: usize) -> &mut Self {
        match size {
            1 => {
                assert!((4..=11).contains(&len) && offset < 2048);
                self.body.push(1 | ((len - 4) << 2) as u8 | ((offset >> 8) << 5) as u8);
                self.body.push(offset as u8);
            }
            2 => {
                self.body.push(2 | ((len - 1) << 2) as u8);
                self.body.extend_from_slice(&(offset as u16).to_le_bytes());
            }
            _ => {
                self.body.push(3 | ((len - 1) << 2) as u8);
                self.body.extend_from_slice(&(offset as u32).to_le_bytes());
            }
        }
        for _ in 0..len {
            let b = self.out.get(self.out.len().wrapping_sub(offset)).copied().unwrap_or(0);
            self.out.push(b);
        }
        self
    }

    /// The stream with a header claiming `claimed` bytes.
    fn stream_claiming(&self, claimed: u64) -> Vec<u8> {
        let mut s = Vec::new();
        let mut v = claimed;
        while v >= 0x80 {
            s.push(v as u8 | 0x80);
            v >>= 7;
        }
        s.push(v as u8);
        s.extend_from_slice(&self.body);
        s
    }

    /// The stream with a header claiming its true length.
    fn stream(&self) -> Vec<u8> {
        self.stream_claiming(self.out.len() as u64)
    }

    /// Checks that the stream decodes to the tracked output, with us and with `snap`.
    fn check(&self) {
        let s = self.stream();
        let ours = decode(&s, self.out.len()).unwrap_or_else(|e| {
            let snap = snap_decode(&s, self.out.len()).map(|v| v == self.out);
            panic!("{e} (snap: {snap:?}; stream {:?})", &s[..s.len().min(400)])
        });
        assert!(ours == self.out, "wrong output");
        assert!(snap_decode(&s, self.out.len()).as_deref() == Some(&self.out[..]), "snap differs");
    }
}

#[test]
fn round_trips_snap_encoded_inputs() {
    let mut inputs: Vec<(String, Vec<u8>)> = vec![
        ("empty".into(), vec![]),
        ("one byte".into(), vec![7]),
        ("zeros".into(), vec![0; 3 << 20]),
        ("abc repeated".into(), b"abc".repeat(100_000)),
        ("random".into(), random_bytes(1 << 20, 1)),
        ("text".into(), text_bytes(1 << 20, 2)),
        ("numeric".into(), numeric_bytes(1 << 20)),
        ("multi-MB text".into(), text_bytes(5 << 20, 3)),
    ];
    for n in [1, 2, 15, 16, 17, 63, 64, 65, 79, 80, 81, 1000] {
        inputs.push((format!("text {n}"), text_bytes(n, n as u64)));
        inputs.push((format!("random {n}"), random_bytes(n, n as u64)));
    }
    // Around snap's 64 KiB blocks, where the encoder restarts its matches.
    for n in [65_535, 65_536, 65_537, 131_071, 131_072, 131_073] {
        inputs.push((format!("text {n}"), text_bytes(n, 5)));
        inputs.push((format!("random {n}"), random_bytes(n, 6)));
        let mut mixed = text_bytes(n / 2, 7);
        mixed.extend_from_slice(&random_bytes(n - n / 2, 8));
        inputs.push((format!("text+random {n}"), mixed));
    }
    for (name, input) in inputs {
        let z = snap_compress(&input);
        let ours = decode(&z, input.len()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(ours == input, "{name}: wrong output");
    }
}

#[test]
fn every_tag_kind_and_literal_form() {
    let data = random_bytes(70_000, 4);
    let mut b = Builder::default();
    b.literal(&data[..1], 0).literal(&data[1..61], 0);
    for extra in 1..=4 {
        b.literal(&data[..61], extra).literal(&data[..1], extra);
    }
    b.literal(&data[..256], 1).literal(&data[..257], 2).literal(&data[..65_537], 3);
    for len in 4..=11 {
        b.copy(1, 1, len).copy(1, 2047, len).copy(1, 300, len);
    }
    for len in 1..=64 {
        b.copy(2, len, len).copy(2, 65_535, len).copy(4, 65_536, len).copy(4, 66_000, len);
    }
    b.check();
}

#[test]
fn overlapping_copies_at_both_ends_of_the_output() {
    let data = random_bytes(200, 9);
    for prefix in 1..=40 {
        for offset in 1..=prefix {
            for len in 1..=64 {
                for tail in [0, 1, 16, WILD - 1, WILD, WILD + 1] {
                    let mut b = Builder::default();
                    b.literal(&data[..prefix], 0).copy(2, offset, len);
                    if tail > 0 {
                        b.literal(&data[100..100 + tail], 1);
                    }
                    b.check();
                }
            }
        }
    }
    // A copy in the middle of a long output, from every short offset, then more copies.
    for offset in 1..=70 {
        for len in [1, 4, 11, 15, 16, 17, 31, 32, 33, 48, 63, 64] {
            let mut b = Builder::default();
            b.literal(&data[..100], 1).copy(2, offset, len).copy(1, offset.min(2047), 5);
            b.literal(&data[..3], 0).copy(4, offset, len).literal(&data[..WILD + 5], 1);
            b.check();
        }
    }
}

/// Every element kind the fast loop takes or hands on, at each boundary of it: literal lengths
/// around its 32-byte moves and the 60-byte short form, copy offsets around the overlapping
/// path (offset vs length) and the 16- and 32-byte moves, offsets reaching exactly to the
/// output's start and one past, at the first output position the loop runs from
/// (`FAST_START`), as the first or the second element of an unrolled pair, and with the
/// input and output left after it around each of the loop's limits.
#[test]
fn fast_loop_boundaries() {
    let data = random_bytes(70_000, 31);
    // What follows the element: output (in copies of 64 from far back, 3 input bytes each, so
    // the output limit is met first) or input (a literal of that many bytes).
    let tails: Vec<(bool, usize)> = [0, 1, 2, 60, 61, 62, 63, 64, 65]
        .iter()
        .flat_map(|&d| [(true, WILD + d), (true, WILD + 64 + d), (false, FAST_IN + d), (false, FAST_IN + 61 + d)])
        .chain([(true, 0), (false, 1), (true, 1000)])
        .collect();
    let with = |prefix: usize, pair: bool, tail: (bool, usize), element: &dyn Fn(&mut Builder)| {
        let mut b = Builder::default();
        b.literal(&data[..prefix.min(60)], 0);
        if prefix > 60 {
            b.literal(&data[60..prefix], 2);
        }
        if pair {
            b.copy(2, prefix.min(65_535), 1);
        }
        element(&mut b);
        match tail {
            (_, 0) => {}
            (true, n) => {
                for k in 0..n / 64 {
                    let far = b.out.len().min(64 + k);
                    b.copy(2, far, 64);
                }
                if n % 64 > 0 {
                    let far = b.out.len().min(80);
                    b.copy(2, far, n % 64);
                }
            }
            (false, n) => {
                b.literal(&data[1000..1000 + n], 2);
            }
        }
        b
    };
    for &tail in &tails {
        for pair in [false, true] {
            for len in (1..=60).chain([61, 64, 100]) {
                let extra = if len > 60 { 1 } else { 0 };
                with(FAST_START + 36, pair, tail, &|b: &mut Builder| {
                    b.literal(&data[500..500 + len], extra);
                })
                .check();
            }
            for prefix in [FAST_START - 1, FAST_START, FAST_START + 1, 500] {
                let op = prefix + usize::from(pair);
                let offsets = (1..=17).chain([31, 32, 33, 63, 64, 65, op - 1, op]).filter(|&o| o <= op);
                for offset in offsets {
                    for len in [1, 2, 4, 8, 15, 16, 17, 31, 32, 33, 48, 63, 64] {
                        for n in [len, offset.saturating_sub(1).max(1), offset, offset + 1] {
                            if n <= 64 {
                                with(prefix, pair, tail, &|b: &mut Builder| {
                                    b.copy(2, offset, n);
                                })
                                .check();
                            }
                        }
                    }
                    with(prefix, pair, tail, &|b: &mut Builder| {
                        b.copy(1, offset.min(2047), 4 + offset % 8).copy(4, offset, 20);
                    })
                    .check();
                }
            }
        }
    }
    // Offsets past the output's start and offset 0, in each copy form, anywhere in the loop.
    for &tail in tails.iter().step_by(3) {
        for pair in [false, true] {
            for prefix in [FAST_START - 1, FAST_START, FAST_START + 1, 500] {
                let op = prefix + usize::from(pair);
                for (size, offset) in [(1, 0), (2, 0), (4, 0), (1, op + 1), (2, op + 1), (4, op + 1), (2, 65_535)] {
                    let b = with(prefix, pair, tail, &|b: &mut Builder| {
                        b.copy(size, offset, if size == 1 { 4 } else { 7 });
                    });
                    let e = decode(&b.stream(), b.out.len()).unwrap_err();
                    assert!(e.contains("offset"), "{e}");
                    assert!(snap_decode(&b.stream(), b.out.len()).is_none());
                }
            }
        }
    }
}

#[test]
fn random_valid_streams_match_the_model_and_snap() {
    let data = random_bytes(400, 21);
    let mut seed = 17u64;
    let mut below = move |n: usize| {
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        (seed.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    };
    // Short streams, so that elements land on every position relative to both ends, where
    // the fast loop hands over to the careful path; offsets are often under 16.
    for _ in 0..4000 {
        let mut b = Builder::default();
        b.literal(&data[..1 + below(20)], 0);
        for _ in 0..below(40) {
            let op = b.out.len();
            let offset = if below(2) == 0 { 1 + below(op.min(20)) } else { 1 + below(op) };
            match below(6) {
                0 => b.literal(&data[..1 + below(60)], 0),
                1 => b.literal(&data[..1 + below(256)], 1 + below(4)),
                2 => b.copy(1, offset.min(2047), 4 + below(8)),
                3 | 4 => b.copy(2, offset.min(65_535), 1 + below(64)),
                _ => b.copy(4, offset, 1 + below(64)),
            };
        }
        b.check();
    }
}

#[test]
fn elements_ending_exactly_at_the_declared_length_and_one_past() {
    let data = random_bytes(300, 10);
    let mut cases: Vec<Builder> = Vec::new();
    for n in [1, 15, 16, 17, 60, 61, 79, 80, 81, 200] {
        for extra in [0, 1, 2, 3, 4] {
            if extra > 0 || n <= 60 {
                let mut b = Builder::default();
                b.literal(&data[..n], extra);
                cases.push(b.clone());
                b.copy(2, 1, 1);
                cases.push(b);
            }
        }
    }
    for len in [1, 4, 11, 16, 17, 64] {
        let mut b = Builder::default();
        b.literal(&data[..20], 0).copy(2, 3, len);
        cases.push(b.clone());
        b.copy(2, 20, len);
        cases.push(b);
    }
    for b in cases {
        b.check();
        let len = b.out.len();
        let short = b.stream_claiming(len as u64 - 1);
        let e = decode(&short, len - 1).unwrap_err();
        assert!(e.contains("runs past the declared length"), "{e}");
        assert!(snap_decode(&short, len - 1).is_none());
        let long = b.stream_claiming(len as u64 + 1);
        let e = decode(&long, len + 1).unwrap_err();
        assert!(e.contains("fewer than the declared"), "{e}");
        assert!(snap_decode(&long, len + 1).is_none());
        // The caller's length must match the header's.
        assert!(decode(&b.stream(), len + 1).unwrap_err().contains("claims"));
    }
}

#[test]
fn bad_headers_offsets_and_lengths_are_errors() {
    let e = |stream: &[u8], len: usize| decode(stream, len).unwrap_err();
    assert!(e(&[], 0).contains("header"));
    assert!(e(&[0x80], 0).contains("header"));
    assert!(e(&[0xff, 0xff, 0xff, 0xff, 0x0f], 0).contains("claims 4294967295"));
    assert!(e(&[0xff, 0xff, 0xff, 0xff, 0x1f], 0).contains("header"));
    assert!(e(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x00], 0).contains("header"));
    assert!(decode(&[0], 0).unwrap().is_empty());
    // Offset 0, and one past the output so far, at the start and later on.
    for (offset, len) in [(0, 1), (1, 1), (0, 4), (5, 4), (6, 4), (1, 4)] {
        for size in [1, 2, 4] {
            let mut b = Builder::default();
            if len == 4 {
                b.literal(b"abcde", 0);
            }
            let ok = offset != 0 && offset <= b.out.len();
            if size == 1 {
                b.copy(1, offset, 4);
            } else {
                b.copy(size, offset, len);
            }
            let r = decode(&b.stream(), b.out.len());
            assert!(snap_decode(&b.stream(), b.out.len()).is_some() == ok);
            match r {
                Ok(v) => assert!(ok && v == b.out),
                Err(e) => {
                    assert!(!ok && e.contains("offset") && e.contains("compressed byte"), "{e}")
                }
            }
        }
    }
    // A literal longer than the input, in every length form, and truncated operands.
    for extra in 0..=4 {
        let mut s = Builder::default().literal(b"0123456789", extra).stream();
        s.pop();
        assert!(decode(&s, 10).unwrap_err().contains("past the end"));
    }
    let mut s = Builder::default().literal(&[1; 100], 4).stream();
    s.truncate(4);
    assert!(decode(&s, 100).unwrap_err().contains("ends inside"));
    // Four-byte lengths and offsets up to u32::MAX.
    assert!(decode(&[2, 0xfc, 0xff, 0xff, 0xff, 0xff, 0], 2).is_err());
    assert!(decode(&[2, 0, b'a', 0x0f, 0xff, 0xff, 0xff, 0xff], 2).unwrap_err().contains("offset"));
}

#[test]
fn truncation_at_every_byte_is_an_error() {
    let mut b = Builder::default();
    b.literal(b"x", 0).copy(2, 1, 64).literal(&random_bytes(300, 1), 2).copy(1, 100, 9);
    b.copy(4, 301, 30).literal(b"end", 3);
    // A long one whose elements go through the fast loop, of every kind and length.
    let data = random_bytes(2_000, 32);
    let mut long = Builder::default();
    long.literal(&data[..200], 1);
    for k in 1..=64usize {
        long.literal(&data[k..k + k.min(60)], 0).copy(2, 150 + k, k).copy(1, 100 + k, 4 + k % 8);
        let far = long.out.len();
        long.copy(2, k, 64).literal(&data[k..k + 61 + k], 1).copy(4, far, k);
    }
    let streams = [
        b.stream(),
        long.stream(),
        snap_compress(&text_bytes(20_000, 11)),
        snap_compress(&numeric_bytes(3_000)),
        snap_compress(&random_bytes(500, 12)),
    ];
    for s in streams {
        let len = snap::raw::decompress_len(&s).unwrap();
        assert!(agrees_with_snap(&s, len));
        for cut in 0..s.len() {
            assert!(decode(&s[..cut], len).is_err(), "cut at {cut} of {}", s.len());
            assert!(!agrees_with_snap(&s[..cut], len));
        }
    }
}

#[test]
fn random_byte_flips_agree_with_snap() {
    let streams = [
        snap_compress(&text_bytes(3_000, 13)),
        snap_compress(&numeric_bytes(2_000)),
        snap_compress(&b"abcabcabd".repeat(200)),
        snap_compress(&random_bytes(300, 14)),
    ];
    let mut seed = 15u64;
    let mut next = || {
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        (seed.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as usize
    };
    let (mut failed, mut total) = (0, 0);
    for s in &streams {
        let len = snap::raw::decompress_len(s).unwrap();
        for i in 0..6000 {
            let mut bad = s.clone();
            // Up to three flips, early on in the stream as often as anywhere else.
            for _ in 0..1 + i % 3 {
                let at = if i % 2 == 0 { next() % bad.len().min(64) } else { next() % bad.len() };
                bad[at] ^= 1 << (next() % 8);
            }
            total += 1;
            failed += usize::from(!agrees_with_snap(&bad, len));
        }
    }
    // Most flips hit tags or offsets; make sure the errors were actually exercised.
    assert!(failed > total / 4, "only {failed} of {total} flipped streams failed");
}

#[test]
fn random_garbage_agrees_with_snap() {
    // Not empty: snap reads an empty input as an empty block, we (and Snappy's C++ reference)
    // as a missing header; the Decompressor accepts an empty page before calling us.
    for seed in 1..3000u64 {
        let junk = random_bytes((seed % 300) as usize + 1, seed);
        for expected in [0, 1, 17, 100, 1000] {
            // Also with a header claiming the expected length, so that the body is decoded.
            let mut with_header = Builder::default().stream_claiming(expected as u64);
            with_header.extend_from_slice(&junk);
            agrees_with_snap(&with_header, expected);
            agrees_with_snap(&junk, expected);
        }
    }
}
