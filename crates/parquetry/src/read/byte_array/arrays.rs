//! The Arrow arrays the byte-array decoders hand over: the one place their unchecked
//! constructors are called.
//!
//! Release builds take the unchecked constructors, relying on the sinks' invariants (see
//! [`OffsetsSink`] and [`ViewSink`](crate::encoding::ViewSink)) and on a [`Utf8Checked`] proof for string arrays. Debug
//! builds, which every test runs, take the checked constructors instead and panic with the
//! broken invariant's name: a broken invariant is a bug in this crate, not bad input.

use std::sync::Arc;

use arrow_array::types::ArrowDictionaryKeyType;
use arrow_array::{
    ArrayRef, BinaryViewArray, DictionaryArray, GenericBinaryArray, GenericStringArray, OffsetSizeTrait,
    PrimitiveArray, StringViewArray,
};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};

use super::utf8::Utf8Checked;
use crate::encoding::{OffsetSize, OffsetsSink};
use crate::error::{Error, Result};

/// What an array's values are.
#[derive(Debug, Clone, Copy)]
pub(super) enum Kind {
    /// Bytes, with no invariant of their own.
    Binary,
    /// Strings, with the proof that the values were validated, if the decoder has it. Without
    /// one the array is built by the checked constructor, which validates (an all-null batch
    /// has nothing checked, and nothing to check).
    Utf8(Option<Utf8Checked>),
}

/// Panics for a broken invariant in a debug build.
#[cfg(debug_assertions)]
#[cold]
#[track_caller]
fn broken(what: &str, e: impl std::fmt::Display) -> ! {
    panic!("byte array decoder: {what} invariant broken, the checked constructor says: {e}")
}

/// The `Utf8`/`Binary` (or `Large`) array over what `sink` holds.
pub(super) fn offsets_array<O: OffsetSize + OffsetSizeTrait>(
    sink: OffsetsSink<O>,
    nulls: Option<NullBuffer>,
    kind: Kind,
) -> Result<ArrayRef> {
    let (offsets, data) = sink.into_parts();
    // SAFETY: an OffsetsSink's parts hold its invariant: offsets from 0, never decreasing,
    // the last `data.len()`, all within `O`.
    unsafe { byte_array(offsets, Buffer::from_vec(data), nulls, kind) }
}

/// The `Utf8`/`Binary` (or `Large`) array of `data` cut at `offsets`.
///
/// # Safety
///
/// `offsets` holds what an [`OffsetsSink`] holds: it is not empty, starts at 0, never
/// decreases, and ends at most at `data.len()`, every offset within `O`. Debug builds check it.
pub(super) unsafe fn byte_array<O: OffsetSize + OffsetSizeTrait>(
    offsets: Vec<O>,
    data: Buffer,
    nulls: Option<NullBuffer>,
    kind: Kind,
) -> Result<ArrayRef> {
    let offsets = ScalarBuffer::from(offsets);
    #[cfg(debug_assertions)]
    let offsets = {
        let ordered =
            offsets.first().is_some_and(|&o| OffsetSize::as_usize(o) == 0) && offsets.windows(2).all(|w| w[0] <= w[1]);
        if !ordered || offsets.last().is_some_and(|&o| OffsetSize::as_usize(o) > data.len()) {
            broken("offsets", "not ordered from 0 within the data");
        }
        OffsetBuffer::new(offsets)
    };
    // SAFETY: the caller's contract is OffsetBuffer's: non-empty, from 0 (so no negative
    // offset), never decreasing.
    #[cfg(not(debug_assertions))]
    let offsets = unsafe { OffsetBuffer::new_unchecked(offsets) };
    Ok(match kind {
        // The checked constructor costs O(1) for bytes (the offsets are already an
        // OffsetBuffer): it checks the last offset against the data and the nulls' length.
        Kind::Binary => Arc::new(
            GenericBinaryArray::<O>::try_new(offsets, data, nulls)
                .map_err(|e| Error::invalid_argument(e.to_string()))?,
        ),
        Kind::Utf8(Some(_proof)) => {
            #[cfg(debug_assertions)]
            let a = GenericStringArray::<O>::try_new(offsets, data, nulls)
                .unwrap_or_else(|e| broken("UTF-8 or offsets", e));
            // SAFETY: offsets as above, within the data (the caller's contract), and the
            // values were validated as UTF-8 (`_proof`; which values is argued where the
            // decoder took it).
            #[cfg(not(debug_assertions))]
            let a = unsafe { GenericStringArray::<O>::new_unchecked(offsets, data, nulls) };
            Arc::new(a)
        }
        Kind::Utf8(None) => {
            Arc::new(GenericStringArray::<O>::try_new(offsets, data, nulls).map_err(|e| Error::corrupt(e.to_string()))?)
        }
    })
}

/// The `Utf8View`/`BinaryView` array of `views` (from a [`ViewSink`](crate::encoding::ViewSink)) over `buffers`.
///
/// # Safety
///
/// Every view came from a [`ViewSink`](crate::encoding::ViewSink) (see its invariant), and `buffers[i]` is the buffer
/// that the sink was told is index `i` whenever a view names `i`. Debug builds check it.
pub(super) unsafe fn view_array(
    views: Vec<u128>,
    buffers: Arc<[Buffer]>,
    nulls: Option<NullBuffer>,
    kind: Kind,
) -> Result<ArrayRef> {
    let views = ScalarBuffer::from(views);
    Ok(match kind {
        Kind::Utf8(None) => {
            Arc::new(StringViewArray::try_new(views, buffers, nulls).map_err(|e| Error::corrupt(e.to_string()))?)
        }
        #[cfg(debug_assertions)]
        Kind::Utf8(Some(_)) => {
            Arc::new(StringViewArray::try_new(views, buffers, nulls).unwrap_or_else(|e| broken("view", e)))
        }
        #[cfg(debug_assertions)]
        Kind::Binary => Arc::new(BinaryViewArray::try_new(views, buffers, nulls).unwrap_or_else(|e| broken("view", e))),
        // SAFETY: every view is in bounds of the buffer it names with that buffer's bytes as
        // its prefix (the caller's contract), and the values were validated as UTF-8 (`_proof`).
        #[cfg(not(debug_assertions))]
        Kind::Utf8(Some(_proof)) => Arc::new(unsafe { StringViewArray::new_unchecked(views, buffers, nulls) }),
        // SAFETY: as above; bytes need nothing more.
        #[cfg(not(debug_assertions))]
        Kind::Binary => Arc::new(unsafe { BinaryViewArray::new_unchecked(views, buffers, nulls) }),
    })
}

/// The `Dictionary(K, _)` array of `keys` over `values`.
///
/// # Safety
///
/// Every key of a non-null row is below `values.len()`. Debug builds check it.
pub(super) unsafe fn dictionary_array<K: ArrowDictionaryKeyType>(
    keys: PrimitiveArray<K>,
    values: ArrayRef,
) -> ArrayRef {
    #[cfg(debug_assertions)]
    let a = DictionaryArray::<K>::try_new(keys, values).unwrap_or_else(|e| broken("dictionary key", e));
    // SAFETY: the caller's contract is new_unchecked's.
    #[cfg(not(debug_assertions))]
    let a = unsafe { DictionaryArray::<K>::new_unchecked(keys, values) };
    Arc::new(a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::byte_array::utf8::check_utf8_offsets;

    #[test]
    fn arrays_from_sinks_and_proofs() {
        let mut sink = OffsetsSink::<i32>::new();
        crate::encoding::ByteArraySink::push_owned(&mut sink, "héllo".as_bytes()).unwrap();
        let proof = check_utf8_offsets(sink.data(), sink.offsets()).unwrap();
        let a = offsets_array(sink.clone(), None, Kind::Utf8(Some(proof))).unwrap();
        assert_eq!(a.as_any().downcast_ref::<GenericStringArray<i32>>().unwrap().value(0), "héllo");
        // No proof: the checked constructor, which refuses bad UTF-8 with an error.
        let (offsets, _) = sink.into_parts();
        let bad = Buffer::from_vec(vec![b'h', 0xC3, 0x28, b'l', b'l', b'o']);
        // SAFETY: the offsets [0, 6] are in order within the 6 bytes.
        assert!(unsafe { byte_array(offsets, bad, None, Kind::Utf8(None)) }.is_err());
        // No rows at all.
        let empty = offsets_array(OffsetsSink::<i64>::new(), None, Kind::Utf8(None)).unwrap();
        assert_eq!(empty.len(), 0);
    }

    /// A proof with bytes it does not cover: debug builds (every test run) catch it.
    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "UTF-8 or offsets invariant broken")]
    fn a_proof_for_other_bytes_is_caught_in_debug_builds() {
        let proof = check_utf8_offsets(b"ok", &[0i32, 2]).unwrap();
        let bad = Buffer::from_vec(vec![0xFFu8, 0xFE]);
        // SAFETY: the offsets [0, 2] are in order within the 2 bytes.
        let _ = unsafe { byte_array(vec![0i32, 2], bad, None, Kind::Utf8(Some(proof))) };
    }

    /// Offsets past the data: debug builds catch it before any constructor.
    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "offsets invariant broken")]
    fn offsets_past_the_data_are_caught_in_debug_builds() {
        // SAFETY: not upheld on purpose; the debug check panics first.
        let _ = unsafe { byte_array(vec![0i32, 3], Buffer::from_vec(vec![0u8; 2]), None, Kind::Binary) };
    }

    /// A view past its buffer: debug builds catch it.
    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "view invariant broken")]
    fn views_past_their_buffer_are_caught_in_debug_builds() {
        let view = crate::encoding::make_view(b"thirteen byte", 0, 5);
        let buffers: Arc<[Buffer]> = vec![Buffer::from_vec(b"thirteen byte".to_vec())].into();
        // SAFETY: not upheld on purpose; the checked constructor panics first.
        let _ = unsafe { view_array(vec![view], buffers, None, Kind::Binary) };
    }
}
