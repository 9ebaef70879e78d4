//! SNAPPY blocks made from other blocks' elements, without compressing anything again.
//!
//! A Snappy raw block is a length header followed by elements: literals (bytes as they are)
//! and copies (repeat `len` bytes from `offset` bytes back in the output). A copy's offset
//! counts back from its own position, and every copy of a block reaches only bytes the block
//! itself produced. So a block's elements still decompress to the same bytes behind other
//! bytes ([`block_elements`], [`push_head`]); and bytes can be inserted inside a block by
//! walking its elements once and fixing the offsets of the copies that reach across an
//! insertion ([`splice_inserts`]).
//!
//! The merge uses this to turn input dictionary pages into PLAIN data pages (levels, then the
//! values, with the few values a page repeats inserted where they occur) and into the unified
//! dictionary page (several input pages back to back): work proportional to the compressed
//! bytes, where gathering and compressing the values again took most of a merge's time.
//!
//! Format: <https://github.com/google/snappy/blob/main/format_description.txt>.

use super::snappy::read_header;
use crate::error::{Error, Result};

#[cfg(test)]
#[path = "snappy_splice_tests.rs"]
mod tests;

/// Where the elements of the Snappy raw block `block` start (after its length header), once
/// its header is checked to claim `block_len` bytes. A new length header ([`push_head`]),
/// then literals or other blocks' elements, then `block[start..]` make a block that
/// decompresses to all of it.
pub(crate) fn block_elements(block: &[u8], block_len: usize) -> Result<usize> {
    let (claimed, header_len) = read_header(block)?;
    if claimed != block_len as u64 {
        return Err(Error::corrupt(format!(
            "SNAPPY: compressed data claims {claimed} bytes but the page header says {block_len}"
        )));
    }
    Ok(header_len)
}

/// Writes to `head` the length header of a block of `total` bytes and, when `literal` is not
/// 0, the tag of a literal of `literal` bytes (the caller appends its bytes). Fails past the
/// format's 32-bit length.
pub(crate) fn push_head(total: usize, literal: usize, head: &mut Vec<u8>) -> Result<()> {
    let total = u32::try_from(total).map_err(|_| Error::invalid_argument("SNAPPY: a block over 4 GiB"))?;
    let mut v = total;
    while v >= 0x80 {
        head.push(v as u8 | 0x80);
        v >>= 7;
    }
    head.push(v as u8);
    if literal > 0 {
        push_literal_tag(literal, head);
    }
    Ok(())
}

fn push_literal_tag(len: usize, out: &mut Vec<u8>) {
    let n = (len - 1) as u32;
    if n < 60 {
        out.push((n << 2) as u8);
    } else {
        let bytes = 4 - n.leading_zeros() as usize / 8;
        out.push(((59 + bytes) << 2) as u8);
        out.extend_from_slice(&n.to_le_bytes()[..bytes]);
    }
}

/// `bytes` as one literal element (nothing for no bytes).
fn push_literal(bytes: &[u8], out: &mut Vec<u8>) {
    if !bytes.is_empty() {
        push_literal_tag(bytes.len(), out);
        out.extend_from_slice(bytes);
    }
}

/// A copy of `len` (1..=64) bytes from `offset` bytes back, in the shortest form.
fn push_copy(offset: usize, len: usize, out: &mut Vec<u8>) {
    debug_assert!((1..=64).contains(&len) && offset > 0);
    if (4..=11).contains(&len) && offset < 2048 {
        out.push(1 | (((len - 4) as u8) << 2) | (((offset >> 8) as u8) << 5));
        out.push(offset as u8);
    } else if offset < 65536 {
        out.push(2 | (((len - 1) as u8) << 2));
        out.extend_from_slice(&(offset as u16).to_le_bytes());
    } else {
        out.push(3 | (((len - 1) as u8) << 2));
        out.extend_from_slice(&(offset as u32).to_le_bytes());
    }
}

/// One element of a block.
enum Element<'a> {
    Literal(&'a [u8]),
    Copy { offset: usize, len: usize },
}

/// Reads the element at `body[*at..]`, moving `at` past it.
fn next_element<'a>(body: &'a [u8], at: &mut usize) -> Result<Element<'a>> {
    let bad = || Error::corrupt("SNAPPY: an element runs past the end of the block");
    let tag = *body.get(*at).ok_or_else(bad)?;
    let mut field = |n: usize| -> Result<usize> {
        let bytes = body.get(*at + 1..*at + 1 + n).ok_or_else(bad)?;
        *at += n;
        Ok(bytes.iter().rev().fold(0usize, |v, &b| v << 8 | b as usize))
    };
    let element = match tag & 3 {
        0 => {
            let n = (tag >> 2) as usize;
            let len = if n < 60 { n + 1 } else { field(n - 59)? + 1 };
            let bytes = body.get(*at + 1..(*at + 1).checked_add(len).ok_or_else(bad)?).ok_or_else(bad)?;
            *at += len;
            Element::Literal(bytes)
        }
        1 => {
            let low = field(1)?;
            Element::Copy { offset: ((tag as usize >> 5) << 8) | low, len: 4 + ((tag as usize >> 2) & 7) }
        }
        2 => Element::Copy { offset: field(2)?, len: (tag as usize >> 2) + 1 },
        _ => Element::Copy { offset: field(4)?, len: (tag as usize >> 2) + 1 },
    };
    *at += 1;
    Ok(element)
}

/// Writes to `out` a Snappy raw block that decompresses to `prefix`, then what `block` (a
/// block of `block_len` bytes) decompresses to with each `(position, bytes)` of `inserts`
/// put in at that position of it (positions ascending, at most `block_len`; bytes inserted
/// at a position come before the byte that was there).
///
/// `block`'s literals are cut where an insertion falls inside them, its copies where an
/// insertion falls inside what they write or what they read, and each copy's offset is
/// recomputed from where its source and destination moved. Inserted bytes are literals:
/// meant for a few values, not for a block that is mostly insertions. `block` is checked as
/// it is walked (element bounds, offsets within what was produced, its total length).
pub(crate) fn splice_inserts(
    block: &[u8],
    block_len: usize,
    prefix: &[u8],
    inserts: &[(usize, &[u8])],
    out: &mut Vec<u8>,
) -> Result<()> {
    if inserts.windows(2).any(|w| w[0].0 > w[1].0) || inserts.last().is_some_and(|i| i.0 > block_len) {
        return Err(Error::invalid_argument("SNAPPY: insertions out of order or past the block"));
    }
    let body = &block[block_elements(block, block_len)?..];
    // ends[k]: bytes inserted at positions up to inserts[k].0, inclusive.
    let ends: Vec<usize> = inserts
        .iter()
        .scan(0, |sum, i| {
            *sum += i.1.len();
            Some(*sum)
        })
        .collect();
    let inserted = ends.last().copied().unwrap_or(0);
    push_head(prefix.len() + block_len + inserted, prefix.len(), out)?;
    out.extend_from_slice(prefix);
    // Where original byte `x` lies in the new output (after the prefix).
    let moved = |x: usize| {
        let k = inserts.partition_point(|i| i.0 <= x);
        x + if k == 0 { 0 } else { ends[k - 1] }
    };
    let mut next = 0; // the first insertion not yet written
    let (mut pos, mut at) = (0usize, 0usize);
    // Elements that no insertion touches are copied as they are, a run at a time: those that
    // write before the next insertion and, for copies, read after the last one.
    let mut verbatim = 0;
    let mut last: Option<usize> = None;
    let mut cuts: Vec<usize> = Vec::new();
    while at < body.len() {
        let element_start = at;
        let element = next_element(body, &mut at)?;
        let (len, offset) = match &element {
            Element::Literal(b) => (b.len(), None),
            Element::Copy { offset, len } => {
                if *offset == 0 || *offset > pos {
                    return Err(Error::corrupt(format!("SNAPPY: a copy from {offset} bytes back at byte {pos}")));
                }
                (*len, Some(*offset))
            }
        };
        let end = pos
            .checked_add(len)
            .filter(|&e| e <= block_len)
            .ok_or_else(|| Error::corrupt(format!("SNAPPY: the block decompresses past its {block_len} bytes")))?;
        let before_next = inserts.get(next).is_none_or(|i| i.0 >= end);
        let reads_after_last = match (offset, last) {
            (Some(o), Some(l)) => pos - o >= l,
            _ => true,
        };
        if before_next && reads_after_last {
            pos = end;
            continue;
        }
        out.extend_from_slice(&body[verbatim..element_start]);
        // Cut the element where an insertion falls strictly inside what it writes or reads.
        cuts.clear();
        let inside = |lo: usize, hi: usize| {
            let first = inserts.partition_point(|i| i.0 <= lo);
            inserts[first..].iter().map(|i| i.0).take_while(move |&p| p < hi)
        };
        cuts.extend(inside(pos, end));
        if let Some(o) = offset {
            cuts.extend(inside(pos - o, end - o).map(|p| p + o));
            cuts.sort_unstable();
            cuts.dedup();
        }
        cuts.push(end);
        let mut a = pos;
        for &b in &cuts {
            while next < inserts.len() && inserts[next].0 <= a {
                push_literal(inserts[next].1, out);
                next += 1;
            }
            match &element {
                Element::Literal(bytes) => push_literal(&bytes[a - pos..b - pos], out),
                Element::Copy { offset, .. } => push_copy(moved(a) - moved(a - offset), b - a, out),
            }
            a = b;
        }
        last = next.checked_sub(1).map(|k| inserts[k].0);
        verbatim = at;
        pos = end;
    }
    out.extend_from_slice(&body[verbatim..]);
    if pos != block_len {
        return Err(Error::corrupt(format!("SNAPPY: the block decompresses to {pos} bytes, not {block_len}")));
    }
    inserts[next..].iter().for_each(|(_, bytes)| push_literal(bytes, out));
    Ok(())
}
