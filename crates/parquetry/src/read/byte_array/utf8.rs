//! UTF-8 validation of string values, and [`Utf8Checked`], the proof that it ran.
//!
//! The unchecked constructors of `Utf8`/`LargeUtf8`/`Utf8View` arrays rely on every value
//! having been validated where its bytes were appended. [`Utf8Checked`] can only be made here,
//! by a check that passed, and the builders in `arrays.rs` take one for a string array: a
//! string array cannot be built unchecked by a path that never validated.

use super::OffsetSize;
use crate::error::{Error, Result};

/// Proof that a UTF-8 check passed: zero-sized, made only by the checks in this module (its
/// field is private to it), and required by the unchecked string array builders. What it
/// cannot say is which bytes were checked: each decoder holds one only from the checks of the
/// values of the batch it builds, and debug builds check every string array in full.
#[derive(Debug, Clone, Copy)]
#[must_use = "a UTF-8 check's proof is what lets a string array be built unchecked"]
pub(super) struct Utf8Checked(());

/// Whether `b` continues a UTF-8 sequence (0b10xxxxxx), i.e. is not the start of a char.
#[inline]
fn is_continuation(b: u8) -> bool {
    (b as i8) < -0x40
}

/// The position of the first bad byte of `bytes` if it is not UTF-8. The fast check runs
/// first; the slower one that finds the position only on failure.
#[inline]
fn utf8_error_at(bytes: &[u8]) -> Option<usize> {
    if simdutf8::basic::from_utf8(bytes).is_ok() {
        return None;
    }
    Some(simdutf8::compat::from_utf8(bytes).err().map_or(0, |e| e.valid_up_to()))
}

/// The error for invalid UTF-8 in value `value` (0-based, among the page's values).
#[cold]
fn invalid_utf8(value: usize) -> Error {
    Error::corrupt(format!("value {value} of the page is not valid UTF-8; read the column as Binary to get its bytes"))
}

/// Checks that the values `offsets` delimit in `data` (`offsets[0]` need not be 0) are all
/// UTF-8 with one validation of the whole run of bytes, plus a pass over the offsets: a
/// concatenation can be valid while a value ends in the middle of a char that the next value
/// completes, so every interior offset must also fall on a char boundary. Errors name the
/// value's index in `offsets`.
pub(super) fn check_utf8_offsets<O: OffsetSize>(data: &[u8], offsets: &[O]) -> Result<Utf8Checked> {
    let (Some(first), Some(last)) = (offsets.first(), offsets.last()) else { return Ok(Utf8Checked(())) };
    let (base, end) = (first.as_usize(), last.as_usize());
    let region = data.get(base..end).unwrap_or_default();
    if region.is_ascii() {
        // Every byte starts a char, so the offsets need no pass. The check costs what the
        // validator's own ASCII path costs, so nothing is lost when the region is not ASCII.
        return Ok(Utf8Checked(()));
    }
    if let Some(p) = utf8_error_at(region) {
        let i = offsets.partition_point(|o| o.as_usize() <= base + p);
        return Err(invalid_utf8(i.saturating_sub(1)));
    }
    for (i, o) in offsets.iter().enumerate().skip(1) {
        let o = o.as_usize();
        if o < end && data.get(o).is_some_and(|&b| is_continuation(b)) {
            return Err(invalid_utf8(i - 1));
        }
    }
    Ok(Utf8Checked(()))
}

/// [`check_utf8_offsets`] for values given by their `lengths`, back to back in `region`.
pub(super) fn check_utf8_lengths(region: &[u8], lengths: &[u32]) -> Result<Utf8Checked> {
    if region.is_ascii() {
        return Ok(Utf8Checked(()));
    }
    if let Some(p) = utf8_error_at(region) {
        let mut end = 0usize;
        let i = lengths.iter().position(|&l| {
            end += l as usize;
            end > p
        });
        return Err(invalid_utf8(i.unwrap_or(0)));
    }
    let mut pos = 0usize;
    for (i, &l) in lengths.iter().enumerate() {
        pos += l as usize;
        if region.get(pos).is_some_and(|&b| is_continuation(b)) {
            return Err(invalid_utf8(i));
        }
    }
    Ok(Utf8Checked(()))
}

/// Checks that the dictionary values `from.0..to.0`, at bytes `from.1..to.1` of `data` with
/// their length prefixes, are UTF-8. With every length below 128 the length prefixes are
/// ASCII bytes, which no multi-byte character can span: the stretch is then UTF-8 exactly
/// when every value is, and one check over it saves a walk over the values. Otherwise (or to
/// name the bad value) the check goes value run by value run.
pub(super) fn check_dict_utf8(
    data: &[u8],
    from: (usize, usize),
    to: (usize, usize),
    lengths_or: u32,
) -> Result<Utf8Checked> {
    let stretch = &data[from.1..to.1];
    if lengths_or < 128 && (stretch.is_ascii() || utf8_error_at(stretch).is_none()) {
        return Ok(Utf8Checked(()));
    }
    if check_utf8_plain(stretch, to.0 - from.0).is_err() {
        // Again from the start of the page, so that the error names the value's index in it.
        return check_utf8_plain(&data[..to.1], to.0).map_err(|e| e.context("dictionary page"));
    }
    Ok(Utf8Checked(()))
}

/// Checks that the `n` values of a PLAIN page (already decoded, so in bounds) are UTF-8
/// without copying them out. A length below 128 is the bytes `[len, 0, 0, 0]`: ASCII, which
/// is valid UTF-8 and cannot join the chars around it, so runs of values with such lengths
/// are validated as one slice together with their lengths, and a run is only cut at a
/// longer value's length.
pub(super) fn check_utf8_plain(data: &[u8], n: usize) -> Result<Utf8Checked> {
    if data.is_ascii() {
        // The values are parts of `data`, so they are ASCII too: no walk over the lengths.
        return Ok(Utf8Checked(()));
    }
    let mut begin = 0;
    let mut p = 0;
    for _ in 0..n {
        let Some(len) = data.get(p..).and_then(|s| s.first_chunk::<4>()) else { break };
        let len = u32::from_le_bytes(*len) as usize;
        if len >= 128 {
            if utf8_error_at(data.get(begin..p).unwrap_or_default()).is_some() {
                return Err(plain_utf8_culprit(data, n));
            }
            begin = p + 4;
        }
        p += 4 + len;
    }
    if utf8_error_at(data.get(begin..p.min(data.len())).unwrap_or_default()).is_some() {
        return Err(plain_utf8_culprit(data, n));
    }
    Ok(Utf8Checked(()))
}

/// Checks the `n` values of a run of a PLAIN page, `read` (length prefixes included), whose
/// lengths OR to `lengths_or`. With every length below 128 each 4-byte prefix is ASCII
/// (`[len, 0, 0, 0]`): no UTF-8 sequence can run across it, so one pass over the run validates
/// each value. Otherwise, or to name the bad value, [`check_utf8_plain`].
pub(super) fn check_plain_run(read: &[u8], n: usize, lengths_or: u32) -> Result<Utf8Checked> {
    if lengths_or < 128 && utf8_error_at(read).is_none() {
        return Ok(Utf8Checked(()));
    }
    check_utf8_plain(read, n)
}

/// Finds which value of a PLAIN page is not UTF-8 (the slow path, value by value).
#[cold]
fn plain_utf8_culprit(data: &[u8], n: usize) -> Error {
    let mut p = 0;
    for i in 0..n {
        let Some(len) = data.get(p..).and_then(|s| s.first_chunk::<4>()) else { break };
        let len = u32::from_le_bytes(*len) as usize;
        let value = data.get(p + 4..p + 4 + len).unwrap_or_default();
        if std::str::from_utf8(value).is_err() {
            return invalid_utf8(i);
        }
        p += 4 + len;
    }
    invalid_utf8(0)
}
