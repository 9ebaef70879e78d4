//! SNAPPY decompression, against the `snap` crate (an independent decoder).
//!
//! Input layout: byte 0 picks the mode, the rest is the body.
//! - even: the body is a raw Snappy stream, decompressed with the length its header claims
//!   (at most 1 MiB) and, when byte 0 & 2, that length plus or minus one. Our decoder and
//!   `snap` must both fail or give the same bytes.
//! - odd: the body is plain data, compressed with `snap` and decompressed by ours, which must
//!   give it back; then the compressed stream with one byte changed (at a place and to a
//!   value taken from the body) must be decoded as `snap` decodes it.
//!
//! Each stream is decompressed into a fresh vector (exactly the page's capacity: a write past
//! it is an out-of-bounds write the sanitizer sees) and after a prefix in a vector with spare
//! room (the fast paths up to the end), and both results must agree.

#![no_main]

use libfuzzer_sys::fuzz_target;
use parquetry::compress::{Codec, Decompressor};

/// Our decoder into a fresh vector and into a roomy one after a prefix: the two must agree.
fn ours(stream: &[u8], len: usize) -> Option<Vec<u8>> {
    let mut d = Decompressor::new();
    let mut fresh = Vec::new();
    let a = d.decompress(Codec::Snappy, stream, len, &mut fresh);
    let mut roomy = Vec::with_capacity(len + 200);
    roomy.extend_from_slice(b"pre");
    let b = d.decompress(Codec::Snappy, stream, len, &mut roomy);
    match (a, b) {
        (Ok(()), Ok(())) => {
            assert_eq!(fresh.len(), len);
            assert!(roomy[3..] == fresh[..], "fresh and roomy outputs differ");
            Some(fresh)
        }
        (Err(_), Err(_)) => {
            assert!(fresh.is_empty() && roomy.len() == 3, "output changed on error");
            None
        }
        (a, b) => panic!("fresh {a:?} but roomy {b:?}"),
    }
}

/// `snap`'s result for `stream`, as `Some` only if it is exactly `len` bytes.
fn theirs(stream: &[u8], len: usize) -> Option<Vec<u8>> {
    snap::raw::Decoder::new().decompress_vec(stream).ok().filter(|v| v.len() == len)
}

fn agree(stream: &[u8], len: usize) {
    // snap reads an empty input as an empty block; we (and the C++ reference) as no header,
    // and the Decompressor takes an empty page before the decoder sees it.
    if stream.is_empty() {
        return;
    }
    let (a, b) = (ours(stream, len), theirs(stream, len));
    assert!(a == b, "ours ok={} snap ok={}", a.is_some(), b.is_some());
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, body)) = data.split_first() else { return };
    if mode & 1 == 0 {
        let Ok(len) = snap::raw::decompress_len(body) else {
            agree(body, body.len());
            return;
        };
        if len > 1 << 20 {
            return;
        }
        agree(body, len);
        if mode & 2 != 0 {
            agree(body, len + 1);
            agree(body, len.saturating_sub(1));
        }
    } else {
        let stream = snap::raw::Encoder::new().compress_vec(body).expect("snap compresses");
        assert!(ours(&stream, body.len()).as_deref() == Some(body), "round trip differs");
        if let [a, b, c, ..] = *body {
            let mut bad = stream.clone();
            let at = usize::from(u16::from_le_bytes([a, b])) % bad.len();
            bad[at] ^= c.max(1);
            agree(&bad, body.len());
        }
    }
});
