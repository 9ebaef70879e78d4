//! Snappy raw-format decompression straight into a `Vec<u8>`'s spare capacity.
//!
//! `snap::raw::Decoder` writes into an initialised `&mut [u8]`, so using it meant zero-filling
//! every page just before overwriting it (1.5-4% of read time). This decoder writes into the
//! uninitialised capacity and sets the vector's length only after all `expected_len` bytes are
//! written. It never reserves more than `expected_len`.
//!
//! Speed comes from "wild" fixed-size copies: away from the ends of the input and the output,
//! literals and copies are done with 32-byte moves that may run past the element's end, into
//! bytes a later element overwrites. The fast loop treats a short literal as a copy from the
//! input and a copy as a copy from the output, chosen without a branch (literals and copies
//! mix unpredictably in text), with one rarely taken branch for what it leaves to the careful
//! path (long literals, 4-byte offsets, bad offsets) or does apart (copies that overlap their
//! own output), and checks its limits once per two elements. These ideas are from Google's
//! C++ decoder (`DecompressBranchless`). Near the ends a careful path decodes one element at a
//! time. Every length and offset is checked against the declared length, the input and the
//! bytes written so far before anything is written, so malformed input is an error, never an
//! out-of-bounds access. `bench/examples/snappy_pages.rs` measures it on real pages against
//! `snap` and Google's snappy.
//!
//! Format: <https://github.com/google/snappy/blob/main/format_description.txt>.

#[cfg(test)]
#[path = "snappy_tests.rs"]
pub(super) mod tests;

use crate::error::{Error, Result};
use std::hint::select_unpredictable;

/// Room a wild copy needs past the write position: a copy is at most 64 bytes, done with
/// stores of at most 16 bytes starting before its end, so it writes at most 63 + 16 bytes
/// (the fast loop's 32-byte moves, at most 64).
const WILD: usize = 80;

/// Input bytes the fast loop may read from a tag on: the tag, then up to 64 bytes of a literal
/// (at most 60 are its own).
const FAST_IN: usize = 65;

/// For a copy offset `p < 16`, the largest multiple of `p` that is at most 16: a 16-byte
/// pattern of period `p` stored at that stride stays in phase.
const STRIDE: [usize; 16] = [0, 16, 16, 15, 16, 15, 12, 14, 16, 9, 10, 11, 12, 13, 14, 15];

/// For a copy offset `p < 16`, the multiplier that repeats a `p`-byte value (in the low bytes of
/// a `u128`) across all 16 bytes: ones at bytes 0, p, 2p, ... Lanes are disjoint, so the
/// product has no carries, and the wrapping product drops what passes byte 16.
const REPEAT: [u128; 16] = {
    let mut table = [0u128; 16];
    let mut p = 1;
    while p < 16 {
        let mut k = 0;
        while k < 16 {
            table[p] |= 1 << (8 * k);
            k += p;
        }
        p += 1;
    }
    table
};

/// The fast loop's view of a tag byte, packed in a `u64` so that literals and copies take the
/// same path with no branch on the element's kind: bits 0..8 the output length, 8..32 the part
/// of the offset in the tag (copy-1's high bits), 32..64 the mask of the operand bytes after the
/// tag that hold the rest of the offset. A short literal gets the spurious offset
/// [`FAST_START`], which passes the fast loop's offset checks once that much is written; the
/// elements the fast loop leaves (long literals, copies with 4-byte offsets, which no encoder
/// of 64 KiB blocks makes) get length 1 and offset 0, which fails them.
const TAGS: [u64; 256] = {
    let mut table = [1u64; 256];
    let mut tag = 0;
    while tag < 256 {
        let high = tag as u64 >> 2;
        table[tag] = match tag & 3 {
            0 if high < 60 => (high + 1) | ((FAST_START as u64) << 8),
            1 => (4 + (high & 7)) | (((tag as u64 >> 5) << 8) << 8) | (0xff << 32),
            2 => (high + 1) | (0xffff << 32),
            _ => 1,
        };
        tag += 1;
    }
    table
};

/// Output the fast loop needs behind the write position: a short literal's spurious offset
/// (at least its length), and `repeat`'s 16 bytes.
const FAST_START: usize = 64;

/// Masks keeping the 1..=4 little-endian length bytes of a long literal, by count minus one.
const LITERAL_MASK: [u32; 4] = [0xff, 0xffff, 0xff_ffff, 0xffff_ffff];

/// Appends the decompression of the Snappy raw block `input` to `out`; fails unless it is
/// exactly `expected_len` bytes.
///
/// The length in the block's header must equal `expected_len`. On error, `out`'s length is
/// unchanged (its spare capacity may have been written to).
pub(crate) fn decompress_into(input: &[u8], expected_len: usize, out: &mut Vec<u8>) -> Result<()> {
    let (claimed, header_len) = read_header(input)?;
    if claimed != expected_len as u64 {
        return Err(Error::corrupt(format!(
            "SNAPPY: compressed data claims {claimed} bytes but the page header says {expected_len}"
        )));
    }
    out.try_reserve_exact(expected_len)
        .map_err(|_| Error::corrupt(format!("SNAPPY: cannot allocate {expected_len} bytes for a page")))?;
    let start = out.len();
    let spare = out.spare_capacity_mut();
    // SAFETY: `spare` is `spare.len() >= expected_len` bytes of writable capacity that nothing
    // else references while `decode` runs, and nothing in it is initialised as far as `decode`
    // assumes (it reads only bytes it wrote).
    unsafe { decode(input, header_len, spare.as_mut_ptr().cast::<u8>(), expected_len, spare.len()) }?;
    // SAFETY: `decode` returned Ok, so it wrote all of `out[start..start + expected_len]`, which
    // is within the capacity reserved above.
    unsafe { out.set_len(start + expected_len) };
    Ok(())
}

/// Reads the block's header, a varint of at most 32 bits: the uncompressed length and the
/// header's size in bytes.
pub(super) fn read_header(input: &[u8]) -> Result<(u64, usize)> {
    let mut value = 0u64;
    for (i, &byte) in input.iter().take(5).enumerate() {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            if value > u64::from(u32::MAX) {
                break;
            }
            return Ok((value, i + 1));
        }
    }
    Err(Error::corrupt(format!("SNAPPY: bad header in {} compressed bytes: not a varint32 length", input.len())))
}

/// Decodes the elements of `input[ip..]` into `dst`, which must end up holding exactly `len`
/// bytes.
///
/// Most elements go through a fast loop: literals of up to 60 bytes and copies with 1- and
/// 2-byte offsets, once `FAST_START` bytes are written and while the input has `FAST_IN` and
/// the output `WILD` bytes left, so that these elements need no check but the offset's. Any
/// other element goes to [`element`], which checks everything.
///
/// # Safety
///
/// `dst` must be valid for writes of `cap >= len` bytes, with no other live reference to them.
/// On success `dst[..len]` is initialised; what lies in `dst[len..cap]` is unspecified.
unsafe fn decode(input: &[u8], mut ip: usize, dst: *mut u8, len: usize, cap: usize) -> Result<()> {
    let in_len = input.len();
    let inp = input.as_ptr();
    // Invariant: `op <= len <= cap`, and `dst[..op]` holds the output so far.
    let mut op = 0usize;
    // Below these, the fast loop may read FAST_IN input bytes and write WILD output bytes. The
    // output's limit is from `len`, not `cap`: then every element the fast loop takes (at most
    // 64 bytes) fits in the declared length, and its wild bytes are overwritten later.
    let ip_limit = in_len.saturating_sub(FAST_IN);
    let op_limit = len.saturating_sub(WILD);
    // The same with room for a second element, for a loop that checks once per pair: the fast
    // loop's first element moves `ip` by at most 61 and `op` by at most 64.
    let ip_limit2 = in_len.saturating_sub(FAST_IN + 61);
    let op_limit2 = len.saturating_sub(WILD + 64);
    loop {
        'fast: {
            if op < FAST_START {
                break 'fast;
            }
            // One element, while `ip < ip_limit` and `op < op_limit`. Literals and copies go
            // the same way, with no branch on which (they mix unpredictably): a copy of
            // `n` bytes from `from`, the literal's bytes or the output `offset` bytes back.
            macro_rules! fast_element {
                () => {{
                    // SAFETY: `ip + FAST_IN <= in_len`: the tag and four more bytes are in bounds.
                    let (tag, operand) =
                        unsafe { (*inp.add(ip), u32::from_le(inp.add(ip + 1).cast::<u32>().read_unaligned())) };
                    let tag = usize::from(tag);
                    let entry = TAGS[tag];
                    let n = (entry & 0xff) as usize;
                    let offset = ((u64::from(operand) & (entry >> 32)) + ((entry as u32 >> 8) as u64)) as usize;
                    if offset < n || offset > op {
                        // Offset 0 (the elements left to `element`, and bad copies), past the
                        // output's start, or a copy that overlaps its own output.
                        if offset == 0 || offset > op {
                            break 'fast;
                        }
                        // A copy-1 or copy-2 (literals have `offset >= n`): operand bytes 1, 2.
                        ip += 1 + (tag & 3);
                        // SAFETY: `1 <= offset < n <= 64`, `op >= 16`, and `op + WILD <= len`.
                        unsafe { copy_overlapping(dst.add(op), offset, n) };
                    } else {
                        let literal = tag & 3 == 0;
                        // SAFETY: `ip + 1 < in_len` and `op - offset <= op <= len <= cap`.
                        let from = unsafe {
                            select_unpredictable(literal, inp.add(ip + 1), dst.add(op - offset).cast_const())
                        };
                        // From the tag alone, not the table: the next tag's address waits on it.
                        ip = select_unpredictable(literal, ip + (tag >> 2) + 2, ip + (tag & 3) + 1);
                        // SAFETY: a literal's 64 bytes from its first are within `FAST_IN` of its
                        // tag; a copy's from `op - offset` end before `op + 64 <= len`, and the
                        // `n` it keeps are before `op` (`offset >= n`): written. Stores end at
                        // `op + 64 <= len`.
                        unsafe {
                            let to = dst.add(op);
                            move32(from, to);
                            if n > 32 {
                                move32(from.add(32), to.add(32));
                            }
                        }
                    }
                    op += n;
                }};
            }
            // Two elements per check of the limits: the checks are a good part of the work.
            while ip < ip_limit2 && op < op_limit2 {
                fast_element!();
                fast_element!();
            }
            while ip < ip_limit && op < op_limit {
                fast_element!();
            }
        }
        if ip >= in_len {
            break;
        }
        // SAFETY: the caller's contract on `dst` and `cap`; `op <= len` and `dst[..op]` is
        // initialised.
        (ip, op) = unsafe { element(input, ip, dst, op, len, cap) }?;
    }
    if op != len {
        return Err(Error::corrupt(format!(
            "SNAPPY: {in_len} compressed bytes decompress to {op} bytes, fewer than the declared \
             {len}"
        )));
    }
    Ok(())
}

/// Decodes the one element at `input[ip..]`, with every check, and returns the new `ip` and
/// `op`: for the elements the fast loop leaves (long literals, bad elements), and all of them
/// near the ends of the input or the output. Its copies may still be wild up to `cap`. Not
/// inlined: the fast loop keeps more in registers without it.
///
/// # Safety
///
/// `dst` must be valid for writes of `cap >= len` bytes, `op <= len` and `dst[..op]`
/// initialised.
#[inline(never)]
unsafe fn element(
    input: &[u8],
    mut ip: usize,
    dst: *mut u8,
    mut op: usize,
    len: usize,
    cap: usize,
) -> Result<(usize, usize)> {
    let in_len = input.len();
    let at = ip;
    let tag = usize::from(input[ip]);
    // The up-to-four bytes after the tag (offsets and long literal lengths), zero-padded
    // past the input's end; each use below checks that the bytes it needs exist.
    let avail = in_len - ip - 1;
    let next = if let Some(b) = input.get(ip + 1..ip + 5) {
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    } else {
        let mut bytes = [0u8; 4];
        bytes[..avail].copy_from_slice(&input[ip + 1..]);
        u32::from_le_bytes(bytes)
    };
    if tag & 3 == 0 {
        let mut n = (tag >> 2) + 1;
        ip += 1;
        if n > 60 {
            let extra = n - 60;
            if avail < extra {
                return Err(truncated(at, in_len));
            }
            // Saturating: on 32-bit targets a 4-byte length of u32::MAX must still fail.
            n = ((next & LITERAL_MASK[extra - 1]) as usize).saturating_add(1);
            ip += extra;
        }
        if n > in_len - ip {
            return Err(Error::corrupt(format!(
                "SNAPPY: literal of {n} bytes at compressed byte {at} runs past the end of \
                 the {in_len} compressed bytes"
            )));
        }
        if n > len - op {
            return Err(overrun("literal", at, n, op, len));
        }
        // SAFETY: `ip + n <= in_len` and `op + n <= len <= cap` were just checked.
        unsafe { std::ptr::copy_nonoverlapping(input.as_ptr().add(ip), dst.add(op), n) };
        ip += n;
        op += n;
    } else {
        let (n, offset, size) = match tag & 3 {
            1 => (4 + ((tag >> 2) & 7), ((tag >> 5) << 8) | (next & 0xff) as usize, 1),
            2 => ((tag >> 2) + 1, (next & 0xffff) as usize, 2),
            _ => ((tag >> 2) + 1, next as usize, 4),
        };
        if avail < size {
            return Err(truncated(at, in_len));
        }
        ip += 1 + size;
        // One comparison for both `offset == 0` (wraps to usize::MAX) and `offset > op`.
        if offset.wrapping_sub(1) >= op {
            return Err(bad_offset(at, offset, op));
        }
        if n > len - op {
            return Err(overrun("copy", at, n, op, len));
        }
        // SAFETY: `1 <= offset <= op`, `op + n <= len <= cap`, and `dst[..op]` is written.
        unsafe { copy_match(dst, op, offset, n, cap - op) };
        op += n;
    }
    Ok((ip, op))
}

/// Copies `N` (8 or 16) bytes with one unaligned load and store, whatever the element's length.
///
/// # Safety
///
/// `src` must be valid for `N` bytes of reads and `dst` for `N` bytes of writes, not
/// overlapping.
#[inline(always)]
unsafe fn copy<const N: usize>(src: *const u8, dst: *mut u8) {
    // SAFETY: the caller's contract.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, N) }
}

/// Moves 32 bytes from `src` to `dst` as `memmove` does: the result is that of reading all 32
/// before writing any, even when the two overlap (a copy of at most `offset` bytes from
/// `offset < 32` back), so no load waits on this move's own stores. Compiled inline to two
/// 16-byte loads then two stores; the bytes may be uninitialised (a wild copy reads past what
/// is written), which `copy` allows.
///
/// # Safety
///
/// `src` must be valid for 32 bytes of reads and `dst` for 32 bytes of writes.
#[inline(always)]
unsafe fn move32(src: *const u8, dst: *mut u8) {
    // SAFETY: the caller's contract.
    unsafe { std::ptr::copy(src, dst, 32) }
}

/// Writes the `n`-byte copy from `offset < n` bytes back at `to`, which repeats the last
/// `offset` bytes, and up to 15 bytes of garbage after it.
///
/// # Safety
///
/// `to - max(16, offset) .. to` must be initialised, `1 <= offset < n <= 64`, and
/// `to .. to + n + 15` writable.
#[inline(always)]
unsafe fn copy_overlapping(to: *mut u8, offset: usize, n: usize) {
    if offset < 16 {
        // SAFETY: the caller's contract.
        return unsafe { repeat(to, offset, 0, n) };
    }
    let mut i = 0;
    while i < n {
        // SAFETY: the 16 bytes read end at `to + i - offset + 16 <= to + i`: before the copy
        // or written by an earlier turn; the store ends before `to + n + 15`.
        unsafe { move16(to.add(i).sub(offset), to.add(i)) };
        i += 16;
    }
}

/// Moves 16 bytes, possibly uninitialised, from `src` to `dst`, as `memmove` does.
///
/// # Safety
///
/// `src` must be valid for 16 bytes of reads and `dst` for 16 bytes of writes.
#[inline(always)]
unsafe fn move16(src: *const u8, dst: *mut u8) {
    // SAFETY: the caller's contract.
    unsafe { std::ptr::copy(src, dst, 16) }
}

/// Writes the `n`-byte copy from `offset` bytes back at `dst[op..]`; an overlapping copy
/// (`offset < n`) repeats the last `offset` bytes.
///
/// # Safety
///
/// `dst` must be valid for writes of `op + room` bytes with `dst[..op]` initialised,
/// `1 <= offset <= op`, `n <= 64` and `n <= room`.
#[inline(always)]
unsafe fn copy_match(dst: *mut u8, op: usize, offset: usize, n: usize, room: usize) {
    debug_assert!((1..=op).contains(&offset) && n <= 64 && n <= room);
    // SAFETY: `op` and `op - offset` are within the allocation.
    let (to, from) = unsafe { (dst.add(op), dst.add(op - offset)) };
    if room >= WILD && op >= 16 {
        // SAFETY: as `copy_wild` needs, with `room >= WILD`.
        unsafe { copy_wild(to, offset, n) };
    } else {
        // SAFETY: `from + offset == to` with `dst[..op]` initialised, and `n <= room`.
        unsafe { copy_exact(from, to, n) };
    }
}

/// Writes the `n`-byte copy from `offset` bytes back at `to`, and up to `WILD - n` bytes of
/// garbage after it, for a later element to overwrite.
///
/// # Safety
///
/// `to - max(16, offset) .. to` must be initialised, `offset >= 1`, `n <= 64`, and
/// `to .. to + WILD` writable.
#[inline(always)]
unsafe fn copy_wild(to: *mut u8, offset: usize, n: usize) {
    if offset < 8 {
        // SAFETY: the caller's contract.
        return unsafe { repeat(to, offset, 0, n) };
    }
    // SAFETY: the 8-byte chunk at `i` is read from `to + i - offset`, which ends at or before
    // `to + i` as `offset >= 8`: output written before this copy or by its earlier chunks.
    // Stores end before `to + 64`; `repeat`'s before `to + n + 15 < to + WILD`.
    unsafe {
        let from = to.sub(offset);
        copy::<8>(from, to);
        copy::<8>(from.add(8), to.add(8));
        if n > 16 {
            // 8-byte chunks less than 16 bytes apart would each wait for the store of the one
            // before (3x slower on a page of 12-byte repeats).
            if offset < 16 {
                repeat(to, offset, STRIDE[offset], n);
            } else {
                let mut i = 16;
                while i < n {
                    copy::<8>(from.add(i), to.add(i));
                    copy::<8>(from.add(i + 8), to.add(i + 8));
                    i += 16;
                }
            }
        }
    }
}

/// Writes the copy that repeats the last `offset < 16` bytes before `to`, from its byte
/// `start` (a multiple of `STRIDE[offset]`) to at least byte `n`.
///
/// It builds 16 bytes of the pattern in a register and stores them at a stride that is a
/// multiple of `offset`, so that no load waits on a store of this copy.
///
/// # Safety
///
/// `to - 16 .. to` must be initialised, `1 <= offset < 16`, `n <= 64`, and `to .. to + n + 15`
/// writable.
#[inline(always)]
unsafe fn repeat(to: *mut u8, offset: usize, start: usize, n: usize) {
    // SAFETY: the caller's contract.
    let last = u128::from_le_bytes(unsafe { to.sub(16).cast::<[u8; 16]>().read_unaligned() });
    let pattern = (last >> (8 * (16 - offset))).wrapping_mul(REPEAT[offset]).to_le_bytes();
    let stride = STRIDE[offset];
    let mut i = start;
    while i < n {
        // SAFETY: `i < n`, so the store ends before `to + n + 15`.
        unsafe { to.add(i).cast::<[u8; 16]>().write_unaligned(pattern) };
        i += stride;
    }
}

/// Byte-by-byte copy for the first 16 bytes of the output (too few for `repeat` to look back
/// on) and its last [`WILD`] bytes of capacity, where no store may run past `n`. Going byte by
/// byte makes an overlapping copy repeat its pattern.
///
/// # Safety
///
/// `from < to`, `from..from + n` readable with `from..to` initialised, `to..to + n` writable.
#[cold]
#[inline(never)]
unsafe fn copy_exact(from: *const u8, to: *mut u8, n: usize) {
    for i in 0..n {
        // SAFETY: byte `from + i` is before `to + i`: initialised before the copy or written by
        // an earlier iteration; `to + i < to + n` is writable.
        unsafe { to.add(i).write(from.add(i).read()) };
    }
}

/// The error for a literal or copy that would write past the declared length.
#[cold]
fn overrun(what: &str, at: usize, n: usize, op: usize, len: usize) -> Error {
    Error::corrupt(format!(
        "SNAPPY: {what} of {n} bytes at compressed byte {at} runs past the declared length \
         {len} (it starts at output byte {op})"
    ))
}

/// The error for a copy whose offset is zero or reaches before the start of the output.
#[cold]
fn bad_offset(at: usize, offset: usize, op: usize) -> Error {
    let why = if offset == 0 { "is 0" } else { "reaches before the start of the output" };
    Error::corrupt(format!(
        "SNAPPY: copy at compressed byte {at} has offset {offset}, which {why} \
         ({op} bytes are decompressed before it)"
    ))
}

/// The error for an element whose tag is the last byte(s) of the input without its operands.
#[cold]
fn truncated(at: usize, in_len: usize) -> Error {
    Error::corrupt(format!("SNAPPY: compressed data ends inside the element at byte {at} of {in_len}"))
}
