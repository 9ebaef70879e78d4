//! [`Dict`]: a column chunk's dictionary page as offsets + one data buffer, shared by the
//! offsets, dictionary and decimal outputs.

use arrow_array::{ArrayRef, OffsetSizeTrait};
use arrow_buffer::{Buffer, NullBuffer};

use super::arrays::{byte_array, Kind};
use super::utf8::{check_utf8_offsets, Utf8Checked};
use crate::encoding::plain::decode_byte_array;
use crate::encoding::{OffsetSize, OffsetsSink};
use crate::error::Result;
use crate::read::values::PageValues;

/// A dictionary page's values, decoded once.
///
/// Holds an [`OffsetsSink`]'s invariant (offsets from 0, never decreasing, the last at
/// `data.len()`): its fields are private and [`Dict::read`], which takes them from a sink, is
/// its only constructor. The arrays built over it rely on that.
#[derive(Debug, Clone)]
pub(super) struct Dict {
    /// `offsets[i]..offsets[i + 1]` is value `i` in `data`; starts at 0.
    offsets: Vec<i32>,
    /// All values back to back, frozen so a `Dictionary` output shares it without a copy.
    data: Buffer,
    /// The proof that the values are UTF-8, if they were checked (read as strings).
    utf8: Option<Utf8Checked>,
}

impl Dict {
    /// Decodes a dictionary page (one copy of its values), validating UTF-8 once over all of
    /// them if `utf8`.
    pub(super) fn read(page: &PageValues, utf8: bool) -> Result<Self> {
        let (n, data) = (page.len(), page.data());
        let mut sink =
            OffsetsSink::<i32>::with_capacity(n.min(data.len() / 4), data.len().saturating_sub(n.saturating_mul(4)));
        decode_byte_array(data, 0, n, &mut sink)?;
        let utf8 = match utf8 {
            true => Some(check_utf8_offsets(sink.data(), sink.offsets()).map_err(|e| e.context("dictionary page"))?),
            false => None,
        };
        let (offsets, data) = sink.into_parts();
        Ok(Dict { offsets, data: Buffer::from_vec(data), utf8 })
    }

    /// The number of values.
    pub(super) fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The offsets: `len() + 1` of them, from 0 to `data().len()`, never decreasing.
    pub(super) fn offsets(&self) -> &[i32] {
        &self.offsets
    }

    /// All values back to back.
    pub(super) fn data(&self) -> &[u8] {
        self.data.as_slice()
    }

    /// The proof that the values were validated as UTF-8, if they were.
    pub(super) fn utf8(&self) -> Option<Utf8Checked> {
        self.utf8
    }

    /// The values as a `Utf8`/`Binary` array with `O` offsets (`utf8`: strings), sharing the
    /// data buffer.
    pub(super) fn values_array<O: OffsetSize + OffsetSizeTrait>(&self, utf8: bool) -> Result<ArrayRef> {
        let offsets = self.offsets.iter().map(|&o| <O as OffsetSize>::from_usize(o as usize)).collect();
        let kind = if utf8 { Kind::Utf8(self.utf8) } else { Kind::Binary };
        // SAFETY: the offsets hold the sink invariant (see the type); widening or keeping
        // them as `O` keeps their order and values, since they fit `i32`.
        unsafe { byte_array::<O>(offsets, self.data.clone(), None::<NullBuffer>, kind) }
    }
}
