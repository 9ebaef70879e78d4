//! The edges of [`OffsetsSink::spare`] / [`OffsetsSink::commit`] (the `unsafe` the run loops
//! rely on) and of the safe methods that cut or join a sink's parts.

use super::*;

/// Writes `values` into the sink's spare room as a run loop does and commits them.
fn write_run(sink: &mut OffsetsSink<i32>, values: &[&[u8]]) {
    let spare = sink.spare(values.len());
    let (base, mut out, cap) = (spare.data, spare.len, spare.cap);
    for (slot, v) in spare.offsets.iter_mut().zip(values) {
        assert!(cap - out >= v.len(), "the test reserved too little");
        // SAFETY: `out + v.len() <= cap` (asserted): inside the data vector's spare room.
        unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), base.add(out), v.len()) };
        out += v.len();
        slot.write(out as i32);
    }
    // SAFETY: every slot and byte up to `out` was written just above, offsets rising to `out`.
    unsafe { sink.commit(values.len(), out) };
}

#[test]
fn commit_of_zero_values_changes_nothing() {
    let mut sink = OffsetsSink::<i32>::new();
    write_run(&mut sink, &[]);
    assert_eq!((sink.offsets(), sink.data()), (&[0][..], &[][..]));
    sink.push_owned(b"ab").unwrap();
    // Room asked for and not used.
    let _ = sink.spare(16);
    // SAFETY: nothing was written and nothing is counted.
    unsafe { sink.commit(0, 2) };
    assert_eq!((sink.offsets(), sink.data()), (&[0, 2][..], &b"ab"[..]));
}

#[test]
fn commit_fills_the_room_exactly() {
    let mut sink = OffsetsSink::<i32>::new();
    sink.reserve_data_exact(8);
    let cap = sink.data_capacity();
    let filler = vec![b'x'; cap - 8];
    write_run(&mut sink, &[b"", b"abc", b"defgh", b"", &filler]);
    assert_eq!(sink.data().len(), sink.data_capacity());
    assert_eq!(sink.value(1), Some(&b"abc"[..]));
    assert_eq!(sink.value(2), Some(&b"defgh"[..]));
    assert_eq!(sink.offsets()[..5], [0, 0, 3, 8, 8]);
    // The next run has no data room at all: only empty values fit.
    write_run(&mut sink, &[b"", b""]);
    assert_eq!(sink.len(), 7);
}

#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "commit past the data capacity")]
fn commit_past_the_capacity_panics() {
    let mut sink = OffsetsSink::<i32>::new();
    let cap = sink.data_capacity();
    let _ = sink.spare(0);
    // SAFETY: not upheld on purpose; the debug assert stops it before any length is set.
    unsafe { sink.commit(0, cap + 1) };
}

#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "commit past the spare offsets")]
fn commit_past_the_spare_offsets_panics() {
    let mut sink = OffsetsSink::<i32>::new();
    let room = sink.spare(4).offsets.len();
    let spare = sink.offsets.capacity() - sink.offsets.len();
    assert!(room <= spare);
    // SAFETY: not upheld on purpose; the debug assert stops it before any length is set.
    unsafe { sink.commit(spare + 1, 0) };
}

/// A run loop that writes decreasing offsets is caught in debug builds (every test run).
#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "run loop broke the OffsetsSink invariant")]
fn commit_checks_the_offsets_in_debug_builds() {
    let mut sink = OffsetsSink::<i32>::new();
    sink.push_owned(b"abcd").unwrap();
    let spare = sink.spare(1);
    // Before the last offset, 4.
    spare.offsets[0].write(2);
    // SAFETY: the slot was written; the broken order is what the debug check is for.
    unsafe { sink.commit(1, 4) };
}

#[test]
fn truncate_and_clear_keep_the_invariant() {
    let mut sink = OffsetsSink::<i64>::new();
    sink.truncate(0);
    for v in [&b"one"[..], b"", b"three"] {
        sink.push_owned(v).unwrap();
    }
    sink.truncate(3); // all of them: nothing to do
    assert_eq!(sink.len(), 3);
    sink.truncate(2);
    assert_eq!((sink.offsets(), sink.data()), (&[0, 3, 3][..], &b"one"[..]));
    sink.clear();
    assert_eq!((sink.offsets(), sink.data()), (&[0][..], &[][..]));
    let sink = OffsetsSink::<i64>::recycle(vec![5, 6, 7], 10);
    assert_eq!((sink.offsets(), sink.data_capacity() >= 10), (&[0][..], true));
}

#[test]
fn parts_from_outside_are_checked() {
    let mut sink = OffsetsSink::<i32>::new();
    sink.push_owned(b"ab").unwrap();
    // Nothing, one offset (no values), offsets not from 0, an empty value at the end.
    sink.extend_from_parts::<i32>(&[], b"").unwrap();
    sink.extend_from_parts(&[3i64], b"xyz").unwrap();
    sink.extend_from_parts(&[1i32, 3, 4, 4], b"xyzw").unwrap();
    assert_eq!(sink.offsets(), [0, 2, 4, 5, 5]);
    assert_eq!(sink.data(), b"abyzw");
    // Out of order, past the data: refused, the sink as it was.
    assert!(sink.extend_from_parts(&[0i32, 3, 2], b"xyz").is_err());
    assert!(sink.extend_from_parts(&[0i32, 4], b"xyz").is_err());
    assert!(sink.extend_from_parts(&[4i32, 5], b"xyz").is_err());
    assert_eq!(sink.len(), 4);
    // Handed over whole.
    let (offsets, data) = sink.into_parts();
    assert_eq!((offsets.len(), data.len()), (5, 5));
}
