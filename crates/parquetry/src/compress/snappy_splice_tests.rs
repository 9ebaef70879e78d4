//! Tests of splicing SNAPPY blocks: every block made is decompressed by `snap` (an
//! independent decoder) and by ours, and must give the bytes it was built to give.

use super::{block_elements, push_head, splice_inserts};
use crate::compress::snappy::decompress_into;
use crate::compress::snappy::tests::{random_bytes, text_bytes};
use crate::error::ErrorKind;

/// `prefix` then `block`'s content as one block, made from `block`'s elements.
fn prepend_literal(prefix: &[u8], block: &[u8], block_len: usize, out: &mut Vec<u8>) -> crate::error::Result<()> {
    let skip = block_elements(block, block_len)?;
    push_head(prefix.len() + block_len, prefix.len(), out)?;
    out.extend_from_slice(prefix);
    out.extend_from_slice(&block[skip..]);
    Ok(())
}

/// Decompresses `block` with both decoders, which must agree.
fn both_decode(block: &[u8], len: usize) -> Vec<u8> {
    let theirs = snap::raw::Decoder::new().decompress_vec(block).unwrap();
    let mut ours = Vec::new();
    decompress_into(block, len, &mut ours).unwrap();
    assert_eq!(ours, theirs);
    ours
}

/// What splicing must give: `prefix`, then `content` with `inserts` put in.
fn expected(prefix: &[u8], content: &[u8], inserts: &[(usize, &[u8])]) -> Vec<u8> {
    let mut want = prefix.to_vec();
    let mut at = 0;
    for &(p, bytes) in inserts {
        want.extend_from_slice(&content[at..p]);
        want.extend_from_slice(bytes);
        at = p;
    }
    want.extend_from_slice(&content[at..]);
    want
}

/// Contents with long matches, short overlapping runs (offsets below the copy length) and
/// far matches (offsets past 65,535, the 4-byte copy form when shifted).
fn contents() -> Vec<Vec<u8>> {
    let text = text_bytes(200_000, 3);
    let mut runs = Vec::new();
    for k in 0..3000u32 {
        runs.extend(std::iter::repeat_n((k % 7) as u8, (k % 90) as usize));
        runs.extend_from_slice(&k.to_le_bytes());
    }
    let mut far = random_bytes(70_000, 9);
    far.extend_from_within(..70_000);
    vec![text, runs, far, b"a".to_vec(), random_bytes(5000, 4)]
}

#[test]
fn inserted_bytes_land_where_they_were_put() {
    let mut seed = 1u64;
    for content in contents() {
        let block = snap::raw::Encoder::new().compress_vec(&content).unwrap();
        for count in [0usize, 1, 2, 5, 40] {
            for round in 0..6 {
                seed += 1;
                let r = random_bytes(count * 16 + 16, seed);
                let mut positions: Vec<usize> = r
                    .chunks_exact(8)
                    .take(count)
                    .map(|c| (u64::from_le_bytes(c.try_into().unwrap()) % (content.len() as u64 + 1)) as usize)
                    .collect();
                // The ends, and two insertions at one position.
                if round == 1 {
                    positions.extend([0, content.len()]);
                }
                if round == 2 && count > 0 {
                    positions.push(positions[0]);
                }
                positions.sort_unstable();
                let payloads: Vec<Vec<u8>> = positions
                    .iter()
                    .enumerate()
                    .map(|(k, _)| random_bytes(k % 70 + (round % 2), seed + k as u64))
                    .collect();
                let inserts: Vec<(usize, &[u8])> =
                    positions.iter().zip(&payloads).map(|(&p, b)| (p, b.as_slice())).collect();
                let prefix = random_bytes(round * 13, seed);
                let mut out = Vec::new();
                splice_inserts(&block, content.len(), &prefix, &inserts, &mut out).unwrap();
                let want = expected(&prefix, &content, &inserts);
                assert_eq!(both_decode(&out, want.len()), want, "{count} insertions, round {round}");
            }
        }
    }
}

#[test]
fn splicing_a_bad_block_is_an_error_never_a_panic() {
    let content = text_bytes(3000, 5);
    let block = snap::raw::Encoder::new().compress_vec(&content).unwrap();
    let insert: [(usize, &[u8]); 1] = [(1500, b"xyz")];
    // Another claimed length, insertions past the end or out of order.
    let e = splice_inserts(&block, 2999, &[], &insert, &mut Vec::new()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Corrupt, "{e}");
    assert!(splice_inserts(&block, 3000, &[], &[(3001, b"x")], &mut Vec::new()).is_err());
    assert!(splice_inserts(&block, 3000, &[], &[(5, b"x"), (4, b"y")], &mut Vec::new()).is_err());
    // Every byte flipped, every cut: an error or a block; never a panic.
    for i in 0..block.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut bad = block.clone();
            bad[i] ^= flip;
            let _ = splice_inserts(&bad, 3000, b"p", &insert, &mut Vec::new());
        }
        let _ = splice_inserts(&block[..i], 3000, b"p", &insert, &mut Vec::new());
    }
}

#[test]
fn prepended_literal_decompresses_to_prefix_then_block() {
    let text = text_bytes(300_000, 7);
    for (len, seed) in [(0usize, 1u64), (1, 2), (100, 3), (5000, 4), (300_000, 5)] {
        let content = &text[..len];
        let block = snap::raw::Encoder::new().compress_vec(content).unwrap();
        // Prefix lengths at each literal length form's edges (1..=60 in the tag, then 1-4
        // extra bytes).
        for plen in [0usize, 1, 59, 60, 61, 255, 256, 257, 65_536, 65_537, 70_000] {
            let prefix = random_bytes(plen, seed + plen as u64);
            let mut out = Vec::new();
            prepend_literal(&prefix, &block, len, &mut out).unwrap();
            let want: Vec<u8> = prefix.iter().chain(content).copied().collect();
            // Read by `snap` (an independent decoder) and by ours.
            assert_eq!(snap::raw::Decoder::new().decompress_vec(&out).unwrap(), want, "len {len} prefix {plen}");
            let mut ours = Vec::new();
            decompress_into(&out, want.len(), &mut ours).unwrap();
            assert_eq!(ours, want);
        }
    }
}

#[test]
fn prepend_refuses_a_block_of_another_length() {
    let block = snap::raw::Encoder::new().compress_vec(b"hello hello hello").unwrap();
    let err = prepend_literal(b"ab", &block, 16, &mut Vec::new()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Corrupt, "{err}");
    assert!(prepend_literal(b"ab", &[0xff, 0xff], 16, &mut Vec::new()).is_err());
}

#[test]
fn blocks_spliced_back_to_back_decompress_to_their_contents_in_order() {
    let text = text_bytes(200_000, 11);
    let parts: Vec<&[u8]> = vec![&text[..70_000], &text[70_000..70_001], &text[70_001..150_000], &text[150_000..]];
    let blocks: Vec<Vec<u8>> = parts.iter().map(|p| snap::raw::Encoder::new().compress_vec(p).unwrap()).collect();
    let mut out = Vec::new();
    push_head(text.len(), 0, &mut out).unwrap();
    for (block, part) in blocks.iter().zip(&parts) {
        let skip = block_elements(block, part.len()).unwrap();
        out.extend_from_slice(&block[skip..]);
    }
    assert_eq!(snap::raw::Decoder::new().decompress_vec(&out).unwrap(), text);
    let mut ours = Vec::new();
    decompress_into(&out, text.len(), &mut ours).unwrap();
    assert_eq!(ours, text);
}
