//! [`ViewSink`]: byte-array values as Arrow `ByteView`s (`Utf8View`/`BinaryView`).

use super::rle::Run;
use super::{check_lengths, no_previous, prefix_too_long, ByteArraySink, OffsetSize, SpreadRows};
use crate::error::{Error, Result};

/// A [`ByteArraySink`] building Arrow's `ByteView` layout (`Utf8View`/`BinaryView`).
///
/// Each view is a `u128` (little endian): bits 0..32 the length; for values of at most 12
/// bytes the value itself follows, zero padded; otherwise a 4-byte prefix, the buffer index
/// and the offset in that buffer. Values that lie in the page point at the buffer index set by
/// [`set_page_buffer`](Self::set_page_buffer) (the caller registers the page slice given to the
/// decoder as that buffer); values built by the decoder (DELTA_BYTE_ARRAY) are appended to
/// `owned`, which is buffer `owned_buffer_index`.
///
/// # Invariant
///
/// Every view was made by [`make_view`] or an equivalent 16-byte load from the bytes of its
/// value: a slice of the page (or `data`) that the call appending it was given, at the offset
/// it records, or of `owned`; or is zero (an empty value); or is a copy of such a view (from
/// this sink or a dictionary sink, with the buffer index rewritten to where that buffer
/// went). So a view is in bounds of, and has the prefix of, the buffer it names, provided the
/// caller keeps each page at the index it set for it: that half of the contract is the
/// decoder's, and debug builds check both halves when the array is built. The fields are
/// private, so no code outside this module can write a view.
#[derive(Debug, Clone, Default)]
pub struct ViewSink {
    /// The views, one per value.
    views: Vec<u128>,
    /// Bytes of values that are not in the page.
    owned: Vec<u8>,
    /// The buffer index that views into the current page get.
    page_buffer_index: u32,
    /// The buffer index of `owned`.
    owned_buffer_index: u32,
    /// The bitwise OR of the lengths of the PLAIN values pushed since it was last reset.
    ///
    /// Below 128 it proves every length prefix is ASCII, so a PLAIN page's values can be
    /// UTF-8 validated in one pass over the whole page (see the view reader).
    plain_length_bits: u32,
}

/// Builds an Arrow `ByteView` for a value stored at `offset` in buffer `buffer`.
#[inline]
pub fn make_view(bytes: &[u8], buffer: u32, offset: u32) -> u128 {
    let len = bytes.len() as u32;
    if let Some(prefix) = bytes.first_chunk::<4>().filter(|_| bytes.len() > 12) {
        return u128::from(len)
            | u128::from(u32::from_le_bytes(*prefix)) << 32
            | u128::from(buffer) << 64
            | u128::from(offset) << 96;
    }
    let mut v = [0u8; 16];
    v[..4].copy_from_slice(&len.to_le_bytes());
    if let Some(t) = v.get_mut(4..4 + bytes.len()) {
        t.copy_from_slice(bytes);
    }
    u128::from_le_bytes(v)
}

/// Appends the views of the values that `offsets` delimit in `data`, which will be buffer
/// `buffer`; returns whether any value is longer than 12 bytes (only then do the views need
/// `data` as a buffer). Each view comes from one 16-byte load at its value's start instead of
/// a variable-length copy (a third of the time of reading DELTA_BYTE_ARRAY pages as views).
fn extend_views_over_offsets<O: OffsetSize>(views: &mut Vec<u128>, data: &[u8], offsets: &[O], buffer: u32) -> bool {
    views.reserve(offsets.len().saturating_sub(1));
    let mut long = false;
    for w in offsets.windows(2) {
        let (start, end) = (w[0].as_usize(), w[1].as_usize());
        let block = data.get(start..).and_then(|d| d.first_chunk::<16>()).filter(|_| start <= end && end <= data.len());
        let view = match block {
            Some(block) => {
                let raw = u128::from_le_bytes(*block);
                let len = end - start;
                if len <= 12 {
                    // The value's bytes after its length, the bytes past it cleared.
                    ((raw << 32) & (u128::MAX >> (96 - 8 * len))) | len as u128
                } else {
                    long = true;
                    len as u128 | u128::from(raw as u32) << 32 | u128::from(buffer) << 64 | (start as u128) << 96
                }
            }
            None => {
                let v = data.get(start..end).unwrap_or_default();
                long |= v.len() > 12;
                make_view(v, buffer, start as u32)
            }
        };
        views.push(view);
    }
    long
}

impl ViewSink {
    /// An empty sink whose owned values go to buffer `owned_buffer_index`.
    pub fn new(owned_buffer_index: u32) -> Self {
        Self { owned_buffer_index, ..Self::default() }
    }

    /// The views, one per value.
    pub fn views(&self) -> &[u128] {
        &self.views
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.views.len()
    }

    /// True if there are no values.
    pub fn is_empty(&self) -> bool {
        self.views.is_empty()
    }

    /// The bytes of values that are not in any page (DELTA_BYTE_ARRAY's), buffer
    /// `owned_buffer_index`.
    pub fn owned(&self) -> &[u8] {
        &self.owned
    }

    /// Views into the page get buffer index `index` from now on: where the caller will keep
    /// the page's buffer.
    pub fn set_page_buffer(&mut self, index: u32) {
        self.page_buffer_index = index;
    }

    /// The bitwise OR of the lengths of the PLAIN values pushed since the last
    /// [`reset_plain_length_bits`](Self::reset_plain_length_bits).
    pub fn plain_length_bits(&self) -> u32 {
        self.plain_length_bits
    }

    /// Starts [`plain_length_bits`](Self::plain_length_bits) again from 0.
    pub fn reset_plain_length_bits(&mut self) {
        self.plain_length_bits = 0;
    }

    /// Drops the values from value `values` on: a reader undoing a page that failed.
    pub fn truncate(&mut self, values: usize) {
        self.views.truncate(values);
    }

    /// Hands over the views, leaving the sink empty: each is in bounds of the buffer it names
    /// (see the type), which lets the reader build the array without checking them again.
    pub fn take_views(&mut self) -> Vec<u128> {
        std::mem::take(&mut self.views)
    }

    /// Appends the views of the values that `offsets` delimit in `data`, which the caller
    /// keeps as buffer `buffer`; returns whether any value is longer than 12 bytes (only then
    /// do the views need `data` as a buffer). Each view comes from one 16-byte load at its
    /// value's start instead of a variable-length copy (a third of the time of reading
    /// DELTA_BYTE_ARRAY pages as views).
    pub fn extend_over_offsets<O: OffsetSize>(&mut self, data: &[u8], offsets: &[O], buffer: u32) -> bool {
        extend_views_over_offsets(&mut self.views, data, offsets, buffer)
    }

    /// Appends the views of `dict` (a sink that read a dictionary page) that a run of
    /// dictionary indexes selects: a repeated run is one fill. Panics on an index past
    /// `dict`, which the caller has checked every index against.
    #[inline]
    pub fn gather(&mut self, dict: &ViewSink, run: Run<'_>) {
        let dv = &dict.views;
        match run {
            Run::Repeated { value, len } => self.views.extend(std::iter::repeat_n(dv[value as usize], len)),
            Run::Packed(ix) => self.views.extend(ix.iter().map(|&i| dv[i as usize])),
        }
    }

    /// Rewrites the buffer index of every view longer than 12 bytes to `index`: for a sink
    /// whose long views all point into one buffer (a dictionary page's), when that buffer
    /// goes to another place in a batch.
    pub fn move_buffer(&mut self, index: u32) {
        for v in self.views.iter_mut().filter(|v| (**v as u32) > 12) {
            *v = (*v & !(u128::from(u32::MAX) << 64)) | u128::from(index) << 64;
        }
    }

    /// Spreads the dense views from `base` on over `rows`' rows; null rows get the zero view
    /// (an empty value). [`SpreadRows::spread_values`] is generic, so it can only move, copy
    /// and zero views: every view stays one the invariant allows.
    pub fn spread_nulls(&mut self, base: usize, rows: &impl SpreadRows) -> Result<()> {
        rows.spread_values(&mut self.views, base)
    }

    #[inline]
    fn push_page_view(&mut self, page_pos: usize, bytes: &[u8]) -> Result<()> {
        if bytes.len() > u32::MAX as usize || page_pos > u32::MAX as usize {
            return Err(view_overflow(page_pos, bytes.len()));
        }
        self.views.push(make_view(bytes, self.page_buffer_index, page_pos as u32));
        Ok(())
    }
}

#[cold]
fn view_overflow(pos: usize, len: usize) -> Error {
    Error::corrupt(format!("byte array value of {len} bytes at offset {pos} does not fit a view (limit 4 GiB)"))
}

impl ByteArraySink for ViewSink {
    fn reserve(&mut self, values: usize, _bytes: usize) {
        self.views.reserve(values);
    }

    #[inline]
    fn push_slice_from_page(&mut self, page_pos: usize, bytes: &[u8]) -> Result<()> {
        self.push_page_view(page_pos, bytes)
    }

    #[inline]
    fn push_plain_value(&mut self, page: &[u8], len_pos: usize, len: usize) -> Result<()> {
        let start = len_pos + 4;
        // A PLAIN value is its little-endian u32 length followed by its bytes: exactly the
        // first bytes of its Arrow view. One 16-byte load gives an inline view (after clearing
        // the bytes past the value) or the length and 4-byte prefix of a long one.
        if let Some(block) = page.get(len_pos..).and_then(|p| p.first_chunk::<16>()) {
            let raw = u128::from_le_bytes(*block);
            self.plain_length_bits |= len as u32;
            let view = if len <= 12 {
                raw & (u128::MAX >> (96 - 8 * len))
            } else {
                if start > u32::MAX as usize {
                    return Err(view_overflow(start, len));
                }
                (raw & u128::from(u64::MAX)) | u128::from(self.page_buffer_index) << 64 | (start as u128) << 96
            };
            self.views.push(view);
            return Ok(());
        }
        match page.get(start..start + len) {
            Some(v) => self.push_page_view(start, v),
            None => Err(Error::corrupt(format!("PLAIN value of {len} bytes at {start} is past the page"))),
        }
    }

    /// One loop over the page: each value's view comes from one 16-byte load at its length
    /// prefix, as in [`push_plain_value`](Self::push_plain_value), with the page's positions
    /// checked against the view's 32-bit offset once for the page.
    fn extend_plain(&mut self, page: &[u8], pos: usize, n: usize) -> (usize, usize) {
        if page.len() > u32::MAX as usize {
            return (0, pos);
        }
        // Each value takes at least its 4-byte length.
        let values = n.min(page.len().saturating_sub(pos) / 4);
        self.views.reserve(values);
        let buffer = u128::from(self.page_buffer_index) << 64;
        let mut bits = 0u32;
        let mut p = pos;
        let mut done = 0usize;
        for slot in self.views.spare_capacity_mut().iter_mut().take(values) {
            // Values in the last 16 bytes of the page are left to `push_plain_value`.
            let Some(block) = page.get(p..).and_then(|s| s.first_chunk::<16>()) else { break };
            let raw = u128::from_le_bytes(*block);
            let len = raw as u32 as usize;
            let start = p + 4;
            // No overflow: `p` and `len` are both below 2^32.
            let end = start + len;
            if end > page.len() {
                break;
            }
            bits |= len as u32;
            slot.write(if len <= 12 {
                raw & (u128::MAX >> (96 - 8 * len))
            } else {
                (raw & u128::from(u64::MAX)) | buffer | (start as u128) << 96
            });
            p = end;
            done += 1;
        }
        // SAFETY: the first `done` spare slots were written just above.
        unsafe { self.views.set_len(self.views.len() + done) };
        self.plain_length_bits |= bits;
        (done, p)
    }

    #[inline]
    fn push_owned(&mut self, bytes: &[u8]) -> Result<()> {
        if bytes.len() <= 12 {
            self.views.push(make_view(bytes, 0, 0));
            return Ok(());
        }
        let pos = self.owned.len();
        if pos.saturating_add(bytes.len()) > u32::MAX as usize {
            return Err(view_overflow(pos, bytes.len()));
        }
        self.owned.extend_from_slice(bytes);
        self.views.push(make_view(bytes, self.owned_buffer_index, pos as u32));
        Ok(())
    }

    fn push_prefixed(&mut self, prefix_len: usize, suffix: &[u8]) -> Result<()> {
        if prefix_len == 0 {
            // Nothing from the previous value, which need not exist (a page's first value).
            return self.push_owned(suffix);
        }
        let Some(&last) = self.views.last() else { return Err(no_previous(prefix_len)) };
        let raw = last.to_le_bytes();
        let prev_len = (last as u32) as usize;
        if prefix_len > prev_len {
            return Err(prefix_too_long(prefix_len, prev_len));
        }
        // Where the previous value's bytes are: inline in its view, or in `owned`.
        let owned_start = if prev_len <= 12 {
            None
        } else {
            let buffer = u32::from_le_bytes([raw[8], raw[9], raw[10], raw[11]]);
            let start = u32::from_le_bytes([raw[12], raw[13], raw[14], raw[15]]) as usize;
            if buffer != self.owned_buffer_index || start + prefix_len > self.owned.len() {
                return Err(Error::corrupt("DELTA_BYTE_ARRAY: previous value is not in the view sink's own buffer"));
            }
            Some(start)
        };
        let len = prefix_len + suffix.len();
        if len <= 12 {
            // The new value is inline: build it on the stack.
            let mut buf = [0u8; 12];
            let prefix = match owned_start {
                None => &raw[4..4 + prefix_len],
                Some(start) => self.owned.get(start..start + prefix_len).unwrap_or_default(),
            };
            buf[..prefix_len].copy_from_slice(prefix);
            buf[prefix_len..len].copy_from_slice(suffix);
            self.views.push(make_view(&buf[..len], 0, 0));
            return Ok(());
        }
        let pos = self.owned.len();
        if pos.saturating_add(len) > u32::MAX as usize {
            return Err(view_overflow(pos, len));
        }
        match owned_start {
            None => self.owned.extend_from_slice(&raw[4..4 + prefix_len]),
            Some(start) => self.owned.extend_from_within(start..start + prefix_len),
        }
        self.owned.extend_from_slice(suffix);
        let value = self.owned.get(pos..).unwrap_or_default();
        let view = make_view(value, self.owned_buffer_index, pos as u32);
        self.views.push(view);
        Ok(())
    }

    fn copy_last(&self, out: &mut Vec<u8>) -> bool {
        out.clear();
        let Some(&last) = self.views.last() else { return false };
        let raw = last.to_le_bytes();
        let len = (last as u32) as usize;
        if len <= 12 {
            out.extend_from_slice(&raw[4..4 + len]);
            return true;
        }
        let buffer = u32::from_le_bytes([raw[8], raw[9], raw[10], raw[11]]);
        let start = u32::from_le_bytes([raw[12], raw[13], raw[14], raw[15]]) as usize;
        match self.owned.get(start..start.saturating_add(len)) {
            Some(v) if buffer == self.owned_buffer_index => {
                out.extend_from_slice(v);
                true
            }
            _ => false,
        }
    }

    fn extend_from_lengths(&mut self, lengths: &[u32], data: &[u8], data_pos: usize) -> Result<()> {
        check_lengths(lengths, data)?;
        if data_pos.saturating_add(data.len()) > u32::MAX as usize {
            return Err(view_overflow(data_pos, data.len()));
        }
        let index = self.page_buffer_index;
        let buffer = u128::from(index) << 64;
        let mut off = 0usize;
        // A mapped slice iterator, so the views are written with no capacity check per value;
        // each from one 16-byte load at its value's start, as in extend_views_over_offsets.
        self.views.extend(lengths.iter().map(|&l| {
            let len = l as usize;
            let view = match data.get(off..).and_then(|d| d.first_chunk::<16>()) {
                Some(block) => {
                    let raw = u128::from_le_bytes(*block);
                    if len <= 12 {
                        ((raw << 32) & (u128::MAX >> (96 - 8 * len))) | u128::from(l)
                    } else {
                        u128::from(l) | u128::from(raw as u32) << 32 | buffer | ((data_pos + off) as u128) << 96
                    }
                }
                // The lengths sum to data.len() (checked above), so every value is in `data`.
                None => make_view(data.get(off..off + len).unwrap_or_default(), index, (data_pos + off) as u32),
            };
            off += len;
            view
        }));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::TestRows;

    #[test]
    fn views_over_offsets_match_make_view() {
        // Values of 0..=20 bytes, the last ones within 16 bytes of the end of `data`.
        let mut data = Vec::new();
        let mut offsets = vec![0i32];
        for len in (0..=20).chain((0..=20).rev()) {
            data.extend((0..len).map(|i| (len * 7 + i) as u8));
            offsets.push(data.len() as i32);
        }
        let mut views = vec![7u128];
        let long = extend_views_over_offsets(&mut views, &data, &offsets, 3);
        assert!(long);
        assert_eq!(views.len(), offsets.len());
        for (i, w) in offsets.windows(2).enumerate() {
            let (s, e) = (w[0] as usize, w[1] as usize);
            assert_eq!(views[i + 1], make_view(&data[s..e], 3, s as u32), "value {i}");
        }
        let mut short = Vec::new();
        assert!(!extend_views_over_offsets(&mut short, b"abcdefghijkl", &[0, 12], 0));
        assert_eq!(short, [make_view(b"abcdefghijkl", 0, 0)]);
    }

    /// A PLAIN run into views: lengths 0..=20 (inline and not, around 12), values in the last
    /// 16 bytes of the page (left to one-by-one pushes), a stop before a value past the page.
    #[test]
    fn plain_runs_match_make_view() {
        let mut page = vec![0xAA; 5];
        let mut want = Vec::new();
        for len in (0..=20).chain((0..=20).rev()) {
            let v: Vec<u8> = (0..len).map(|i| (len * 3 + i) as u8).collect();
            page.extend_from_slice(&(len as u32).to_le_bytes());
            want.push(make_view(&v, 2, page.len() as u32));
            page.extend_from_slice(&v);
        }
        let n = want.len();
        let mut sink = ViewSink::new(9);
        sink.set_page_buffer(2);
        let (done, mut p) = sink.extend_plain(&page, 5, n);
        assert!(done < n && done + 4 >= n, "{done} of {n}: only the last values are left");
        for _ in done..n {
            let len = u32::from_le_bytes(page[p..p + 4].try_into().unwrap()) as usize;
            sink.push_plain_value(&page, p, len).unwrap();
            p += 4 + len;
        }
        assert_eq!(p, page.len());
        assert_eq!(sink.views, want);
        assert_eq!(sink.plain_length_bits, 31);
        // A length running past the page stops the run before it.
        // The lead, the empty value, the 1-byte value, then a 200-byte length with 20 bytes.
        let mut bad = page[..5 + 4 + 4 + 1].to_vec();
        bad.extend_from_slice(&[200, 0, 0, 0]);
        bad.extend_from_slice(&[0; 20]);
        let mut sink = ViewSink::new(0);
        assert_eq!(sink.extend_plain(&bad, 5, 3), (2, 5 + 4 + 4 + 1));
    }

    /// The safe ways views move between sinks: a gather of repeated and packed runs (none,
    /// one, the last index), the dictionary's buffer moved (long views only), nulls spread
    /// (none, all, zero rows), a truncation and the hand-over.
    #[test]
    fn gathered_moved_and_spread_views_stay_views_of_their_values() {
        let mut dict = ViewSink::new(u32::MAX);
        let page = b"\x03\0\0\0abc\x0e\0\0\0a long value!!";
        dict.set_page_buffer(4);
        dict.push_plain_value(page, 0, 3).unwrap();
        dict.push_plain_value(page, 7, 14).unwrap();
        let (short, long) = (make_view(b"abc", 0, 0), make_view(b"a long value!!", 4, 11));
        assert_eq!(dict.views(), [short, long]);
        dict.move_buffer(9);
        let long = make_view(b"a long value!!", 9, 11);
        assert_eq!(dict.views(), [short, long]);
        let mut sink = ViewSink::new(u32::MAX);
        sink.gather(&dict, Run::Repeated { value: 1, len: 0 });
        sink.gather(&dict, Run::Packed(&[]));
        sink.gather(&dict, Run::Repeated { value: 1, len: 2 });
        sink.gather(&dict, Run::Packed(&[0, 1, 0]));
        assert_eq!(sink.views(), [long, long, short, long, short]);
        // Rows: null, valid, null, valid: the last two dense views spread over them.
        sink.truncate(3);
        sink.spread_nulls(1, &TestRows::new(&[false, true, false, true])).unwrap();
        assert_eq!(sink.views(), [long, 0, long, 0, short]);
        sink.spread_nulls(5, &TestRows::new(&[])).unwrap();
        sink.spread_nulls(5, &TestRows::new(&[false, false])).unwrap();
        // More valid rows than views: an error.
        assert!(sink.clone().spread_nulls(6, &TestRows::new(&[true, true])).is_err());
        assert_eq!(sink.len(), 7);
        assert_eq!(sink.take_views(), [long, 0, long, 0, short, 0, 0]);
        assert!(sink.is_empty());
    }
}
