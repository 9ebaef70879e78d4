//! `Dictionary(K, Utf8 | Binary | LargeUtf8 | LargeBinary)`: keys per page, the column
//! chunk's dictionary kept as it is.
//!
//! The dictionary page is decoded (and UTF-8 validated) once per column chunk, and its values
//! array is built once and shared, as an `Arc`, by every batch of the chunk. A data page in
//! dictionary encoding costs only its keys.
//!
//! Writers fall back from dictionary to PLAIN (or another) encoding mid-chunk when the
//! dictionary grows too large. Values of such pages are appended after the dictionary's, in
//! `extra`, and their keys point at them; a batch with such values gets its own values array
//! (dictionary + its extra values), and the extra values are dropped after the batch, since
//! later batches never refer to them.

use std::marker::PhantomData;
use std::sync::Arc;

use arrow_array::types::{
    ArrowDictionaryKeyType, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{ArrayRef, OffsetSizeTrait, PrimitiveArray};
use arrow_buffer::{ArrowNativeType, NullBuffer, ScalarBuffer};
use arrow_schema::DataType;

use super::arrays::{dictionary_array, offsets_array, Kind};
use super::dict::Dict;
use super::utf8::{check_utf8_offsets, Utf8Checked};
use super::{check_null_rows, check_room, no_dictionary, page_rows};
use crate::encoding::rle::Run;
use crate::encoding::{OffsetSize, OffsetsSink};
use crate::error::{Error, Result};
use crate::read::values::{spread_nulls, PageValues, Validity, ValueDecoder};

/// The decoder for `Dictionary(key, value)`, or `None` if the combination is not supported.
pub(super) fn new_decoder(key: &DataType, value: &DataType) -> Option<Box<dyn ValueDecoder>> {
    let (utf8, large) = match value {
        DataType::Utf8 => (true, false),
        DataType::Binary => (false, false),
        DataType::LargeUtf8 => (true, true),
        DataType::LargeBinary => (false, true),
        _ => return None,
    };
    /// The decoder for key type `K`, choosing the offsets from `large`.
    fn with_key<K: ArrowDictionaryKeyType>(utf8: bool, large: bool) -> Box<dyn ValueDecoder> {
        if large {
            Box::new(DictionaryDecoder::<K, i64>::new(utf8))
        } else {
            Box::new(DictionaryDecoder::<K, i32>::new(utf8))
        }
    }
    Some(match key {
        DataType::Int8 => with_key::<Int8Type>(utf8, large),
        DataType::Int16 => with_key::<Int16Type>(utf8, large),
        DataType::Int32 => with_key::<Int32Type>(utf8, large),
        DataType::Int64 => with_key::<Int64Type>(utf8, large),
        DataType::UInt8 => with_key::<UInt8Type>(utf8, large),
        DataType::UInt16 => with_key::<UInt16Type>(utf8, large),
        DataType::UInt32 => with_key::<UInt32Type>(utf8, large),
        DataType::UInt64 => with_key::<UInt64Type>(utf8, large),
        _ => return None,
    })
}

/// Decodes BYTE_ARRAY pages into dictionary keys `K` over values with `O` offsets.
#[derive(Debug)]
struct DictionaryDecoder<K: ArrowDictionaryKeyType, O: OffsetSize> {
    utf8: bool,
    /// The dictionary of the batch's first column chunk (keys below its length point in it).
    base: Option<Dict>,
    /// `base` as an Arrow array, built at the first batch that needs it and then shared.
    base_values: Option<ArrayRef>,
    /// Values after the base ones for this batch only: fallback pages, and a later chunk's
    /// dictionary if one arrived while rows were pending.
    extra: OffsetsSink<O>,
    /// The proof that `extra`'s values were validated as UTF-8 (of strings), once one was.
    extra_proof: Option<Utf8Checked>,
    /// A later chunk's dictionary that becomes `base` after this batch.
    next_base: Option<Dict>,
    /// What a dictionary index of the current chunk adds up to as a key: 0, or where
    /// `next_base`'s values start.
    key_offset: usize,
    /// One key per row of the batch.
    keys: Vec<K::Native>,
    _offsets: PhantomData<O>,
}

/// Checks that key `max_key` is representable as a `K`.
fn check_key<K: ArrowDictionaryKeyType>(max_key: usize) -> Result<()> {
    if K::Native::from_usize(max_key).is_some() {
        return Ok(());
    }
    Err(Error::invalid_argument(format!(
        "a dictionary of {} values does not fit {} keys; read with Int32 keys",
        max_key as u128 + 1,
        K::DATA_TYPE
    )))
}

impl<K: ArrowDictionaryKeyType, O: OffsetSize + OffsetSizeTrait> DictionaryDecoder<K, O> {
    /// A decoder for string (`utf8`) or binary values.
    fn new(utf8: bool) -> Self {
        Self {
            utf8,
            base: None,
            base_values: None,
            extra: OffsetsSink::new(),
            extra_proof: None,
            next_base: None,
            key_offset: 0,
            keys: Vec::new(),
            _offsets: PhantomData,
        }
    }

    /// The number of values in the base dictionary.
    fn base_len(&self) -> usize {
        self.base.as_ref().map_or(0, Dict::len)
    }

    /// The bytes of the base dictionary's values.
    fn base_bytes(&self) -> usize {
        self.base.as_ref().map_or(0, |d| d.data().len())
    }

    /// Appends the keys of the page's next `n` values densely (no null slots yet).
    fn append_keys(&mut self, page: &mut PageValues, n: usize) -> Result<()> {
        if page.holds_indexes() {
            let dict = self.next_base.as_ref().or(self.base.as_ref()).ok_or_else(no_dictionary)?;
            let (len, off) = (dict.len(), self.key_offset);
            if len > 0 {
                check_key::<K>(off + len - 1)?;
            }
            let keys = &mut self.keys;
            let key = |i: u32| K::Native::usize_as(off + i as usize);
            return page.read_indexes(n, len, |run| match run {
                Run::Repeated { value, len } => keys.extend(std::iter::repeat_n(key(value), len)),
                Run::Packed(ix) => keys.extend(ix.iter().map(|&i| key(i))),
            });
        }
        // A fallback page: its values go after the dictionary's and its keys point at them.
        let first = self.extra.len();
        let start = self.extra.len();
        let have = self.base_bytes() + self.extra.data().len();
        page.read_byte_arrays(n, &mut self.extra, |add| check_room::<O>(have, add))?;
        if self.utf8 {
            let proof = check_utf8_offsets(self.extra.data(), &self.extra.offsets()[start..])?;
            self.extra_proof = Some(proof);
        }
        let (from, to) = (self.base_len() + first, self.base_len() + self.extra.len());
        if to > from {
            check_key::<K>(to - 1)?;
        }
        self.keys.extend((from..to).map(K::Native::usize_as));
        Ok(())
    }

    /// The values array of this batch: the shared dictionary array, or, with extra values,
    /// the dictionary and them in a new array.
    fn values(&mut self) -> Result<ArrayRef> {
        if self.extra.is_empty() {
            if let Some(v) = &self.base_values {
                return Ok(Arc::clone(v));
            }
            let v = match &self.base {
                Some(d) => d.values_array::<O>(self.utf8)?,
                None => offsets_array(OffsetsSink::<O>::new(), None, self.kind(None))?,
            };
            self.base_values = Some(Arc::clone(&v));
            return Ok(v);
        }
        let proof = self.extra_proof.take();
        let Some(base) = &self.base else {
            // No dictionary: the extra values are the whole array, moved without a copy.
            return offsets_array(std::mem::take(&mut self.extra), None, self.kind(proof));
        };
        check_room::<O>(base.data().len(), self.extra.data().len() as u64)?;
        // Both parts were checked, if strings: the proof needs both.
        let proof = proof.and(base.utf8());
        let mut all =
            OffsetsSink::<O>::with_capacity(base.len() + self.extra.len(), base.data().len() + self.extra.data().len());
        all.extend_from_parts(base.offsets(), base.data())?;
        all.extend_from_parts(self.extra.offsets(), self.extra.data())?;
        offsets_array(all, None, self.kind(proof))
    }

    /// The kind of the values array, with `proof` for strings.
    fn kind(&self, proof: Option<Utf8Checked>) -> Kind {
        if self.utf8 {
            Kind::Utf8(proof)
        } else {
            Kind::Binary
        }
    }
}

impl<K: ArrowDictionaryKeyType, O: OffsetSize + OffsetSizeTrait> ValueDecoder for DictionaryDecoder<K, O>
where
    O: Send,
{
    fn reserve(&mut self, rows: usize, _value_bytes: usize) {
        // Values stay in the dictionary: only the keys need room.
        self.keys.reserve(rows);
    }

    fn set_dictionary(&mut self, page: &PageValues) -> Result<()> {
        let dict = Dict::read(page, self.utf8)?;
        if self.keys.is_empty() {
            self.base = Some(dict);
            self.base_values = None;
            self.next_base = None;
            self.key_offset = 0;
            self.extra = OffsetsSink::new();
            self.extra_proof = None;
            return Ok(());
        }
        // Rows of an earlier chunk are pending and their keys point into base + extra: this
        // dictionary joins the extra values for this batch and becomes the base after it.
        let have = self.base_bytes() + self.extra.data().len();
        check_room::<O>(have, dict.data().len() as u64)?;
        self.key_offset = self.base_len() + self.extra.len();
        self.extra.extend_from_parts(dict.offsets(), dict.data())?;
        if self.extra.len() == dict.len() {
            // The dictionary is all of `extra`: its proof covers it.
            self.extra_proof = dict.utf8();
        }
        self.next_base = Some(dict);
        Ok(())
    }

    fn read(&mut self, page: &mut PageValues, values: usize, validity: Option<&Validity<'_>>) -> Result<()> {
        page_rows(values, validity)?;
        let base = self.keys.len();
        let extra_values = self.extra.len();
        if let Err(e) = self.append_keys(page, values) {
            // Leave the batch as it was before the page, so the decoder stays consistent.
            self.keys.truncate(base);
            self.extra.truncate(extra_values);
            return Err(e);
        }
        if let Some(v) = validity {
            // Null rows get key 0, which try_new would not check either (they are null).
            spread_nulls(&mut self.keys, base, v)?;
        }
        Ok(())
    }

    fn len(&self) -> usize {
        self.keys.len()
    }

    fn finish(&mut self, nulls: Option<NullBuffer>) -> Result<ArrayRef> {
        let len = self.keys.len();
        check_null_rows(nulls.as_ref(), len)?;
        let values = self.values()?;
        self.extra.clear();
        self.extra_proof = None;
        if let Some(next) = self.next_base.take() {
            self.base = Some(next);
            self.base_values = None;
            self.key_offset = 0;
        }
        let keys = ScalarBuffer::from(std::mem::take(&mut self.keys));
        let keys = PrimitiveArray::<K>::new(keys, nulls);
        // SAFETY: every key of a non-null row is below values.len(): dictionary indexes were
        // checked against the dictionary's length by read_indexes (and shifted by
        // key_offset to where that dictionary sits in `values`), fallback keys number the
        // extra values appended after the base; check_key made each fit `K`.
        Ok(unsafe { dictionary_array(keys, values) })
    }
}
