//! Dictionary values of at most 16 bytes, gathered from a table of fixed-size slots.
//!
//! Tags, codes and categories are short and repeat from a small dictionary. Gathered from
//! the dictionary page itself, each value costs two loads of where it starts and ends, a
//! 32-byte load that often crosses a cache line, and the checks that it lies in the page.
//! From a table of 8- or 16-byte slots it costs one aligned load of its slot and of its length,
//! and one store: `lists_none` (5,000 tags of 8 bytes) gathered at a third of the time.

use super::{OffsetSize, OffsetsSink};

/// A dictionary's values, each zero-padded into a slot of 8 or 16 bytes.
#[derive(Debug)]
pub struct ShortValues {
    slots: Slots,
}

#[derive(Debug)]
enum Slots {
    Eight(Table<8>),
    Sixteen(Table<16>),
}

/// The values and their lengths; every length is at most `N` (the invariant the gather's
/// fixed-size stores rely on, held by [`Table::build`], the only constructor).
#[derive(Debug)]
struct Table<const N: usize> {
    words: Vec<[u8; N]>,
    lens: Vec<u8>,
}

impl ShortValues {
    /// The table of a PLAIN page's values, where value `i` has its 4-byte length at
    /// `ends[i]` and ends at `ends[i + 1]`. `None` if a value is longer than 16 bytes or does
    /// not lie in `page`.
    pub fn build(page: &[u8], ends: &[u32]) -> Option<Self> {
        let longest =
            ends.windows(2).map(|w| w[1].checked_sub(w[0])?.checked_sub(4)).try_fold(0u32, |m, l| Some(m.max(l?)))?;
        let slots = match longest {
            0..=8 => Slots::Eight(Table::build(page, ends)?),
            9..=16 => Slots::Sixteen(Table::build(page, ends)?),
            _ => return None,
        };
        Some(ShortValues { slots })
    }

    /// Appends the values at `indexes` to `sink`, while there is room for a whole slot past
    /// the data; returns how many it appended (fewer when an index is past the table, or the
    /// reserved room or the offset type runs out: the caller appends the rest its own way).
    pub fn gather<O: OffsetSize>(&self, sink: &mut OffsetsSink<O>, indexes: &[u32]) -> usize {
        match &self.slots {
            Slots::Eight(t) => t.gather(sink, indexes),
            Slots::Sixteen(t) => t.gather(sink, indexes),
        }
    }
}

impl<const N: usize> Table<N> {
    fn build(page: &[u8], ends: &[u32]) -> Option<Self> {
        let n = ends.len().saturating_sub(1);
        let mut words = Vec::with_capacity(n);
        let mut lens = Vec::with_capacity(n);
        for w in ends.windows(2) {
            let value = page.get(w[0] as usize + 4..w[1] as usize)?;
            if value.len() > N {
                return None;
            }
            let mut word = [0u8; N];
            word[..value.len()].copy_from_slice(value);
            words.push(word);
            lens.push(value.len() as u8);
        }
        Some(Table { words, lens })
    }

    fn gather<O: OffsetSize>(&self, sink: &mut OffsetsSink<O>, indexes: &[u32]) -> usize {
        // Every value goes inside the capacity, so offsets up to the capacity are all that
        // need to fit the offset type: one check for the run.
        if sink.check_len(sink.data_capacity() - sink.data().len()).is_err() {
            return 0;
        }
        let spare = sink.spare(indexes.len());
        let (cap, base, mut out) = (spare.cap, spare.data, spare.len);
        let mut done = 0usize;
        for (offset, &i) in spare.offsets.iter_mut().zip(indexes) {
            let (Some(word), Some(&len)) = (self.words.get(i as usize), self.lens.get(i as usize)) else {
                break;
            };
            if cap - out < N {
                break;
            }
            // SAFETY: `base + out .. base + out + N` lies in the data vector's spare capacity
            // (checked just above), which `self` cannot overlap; the bytes past the value
            // are overwritten by the next value or lie past the vector's final length.
            unsafe { base.add(out).cast::<[u8; N]>().write_unaligned(*word) };
            // `len <= N` (the table's invariant), so `out` stays within the capacity, whose
            // offsets fit the offset type (checked above).
            out += usize::from(len);
            offset.write(O::from_usize(out));
            done += 1;
        }
        // SAFETY: the first `done` values were written whole into the spare room: their
        // bytes up to `out` (within the capacity, checked per value) and their ends, each
        // `out` after its value, so rising from `spare.len` and at most the capacity (checked
        // to fit `O`).
        unsafe { sink.commit(done, out) };
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PLAIN page of `values` and where each value's length prefix starts (plus the end).
    fn page_of(values: &[&[u8]]) -> (Vec<u8>, Vec<u32>) {
        let (mut page, mut ends) = (Vec::new(), vec![0u32]);
        for v in values {
            page.extend_from_slice(&(v.len() as u32).to_le_bytes());
            page.extend_from_slice(v);
            ends.push(page.len() as u32);
        }
        (page, ends)
    }

    #[test]
    fn gathers_the_values_at_the_indexes() {
        for values in
            [vec![&b"a"[..], b"", b"tag_0001", b"xy"], vec![&b"category_001"[..], b"", b"sixteen_bytes_ok", b"q"]]
        {
            let (page, ends) = page_of(&values);
            let table = ShortValues::build(&page, &ends).expect("short values");
            let indexes: Vec<u32> = (0..200u32).map(|k| k * 7 % values.len() as u32).collect();
            let mut sink = OffsetsSink::<i32>::new();
            sink.reserve_data_exact(200 * 16 + 16);
            assert_eq!(table.gather(&mut sink, &indexes), indexes.len());
            let want: Vec<u8> = indexes.iter().flat_map(|&i| values[i as usize].iter().copied()).collect();
            assert_eq!(sink.data(), want);
            let mut end = 0;
            for (k, &i) in indexes.iter().enumerate() {
                end += values[i as usize].len() as i32;
                assert_eq!(sink.offsets()[k + 1], end);
            }
        }
    }

    #[test]
    fn stops_at_a_bad_index_or_without_room_for_a_slot() {
        let (page, ends) = page_of(&[b"abc", b"defgh"]);
        let table = ShortValues::build(&page, &ends).expect("short values");
        let mut sink = OffsetsSink::<i64>::new();
        sink.reserve_data_exact(8);
        assert_eq!(table.gather(&mut sink, &[0, 2, 1]), 1, "index 2 is past the table");
        // 3 bytes used, fewer than 8 left past them: no room for a slot.
        assert_eq!(table.gather(&mut sink, &[1]), 0);
        assert_eq!(sink.data(), b"abc");
    }

    #[test]
    fn long_or_misplaced_values_give_no_table() {
        let (page, ends) = page_of(&[b"short", b"seventeen bytes!!"]);
        assert!(ShortValues::build(&page, &ends).is_none());
        let (page, mut ends) = page_of(&[b"abc"]);
        ends[1] += 1;
        assert!(ShortValues::build(&page, &ends).is_none());
    }
}
