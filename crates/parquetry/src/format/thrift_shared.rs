//! Sharing repeated lists while decoding: a footer repeats each column's path in every row
//! group and the same encodings in most chunks; these readers hand out one `Arc<[T]>` for all
//! of them instead of allocating each again.

use std::any::{Any, TypeId};
use std::sync::Arc;

use super::{ttype, ThriftReader};
use crate::error::Result;

impl ThriftReader<'_> {
    /// Reads a list as a shared `Arc<[T]>`: when its wire bytes equal those of the previous
    /// list of the same element type, it shares that list instead of decoding it again.
    ///
    /// Consecutive column chunks almost always carry the same encodings and encoding stats;
    /// sharing them saves an allocation (and a free) per chunk of a wide footer.
    pub fn shared_list<T: 'static>(
        &mut self,
        ty: u8,
        elem_ty: u8,
        elem: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<Arc<[T]>> {
        self.check_type(ty, ttype::LIST)?;
        let start = self.pos;
        let id = TypeId::of::<T>();
        let slot = self.recent.iter().position(|(t, _, _)| *t == id);
        if let Some(i) = slot {
            // A list's encoding is self-delimiting: if the bytes here start with the previous
            // list's complete encoding, decoding would consume exactly those bytes and give
            // the same values.
            let (_, last_raw, last) = &self.recent[i];
            if self.data[start..].starts_with(last_raw) {
                if let Some(v) = last.downcast_ref::<Arc<[T]>>() {
                    let v = Arc::clone(v);
                    self.pos += last_raw.len();
                    return Ok(v);
                }
            }
        }
        let list: Arc<[T]> = self.list(ty, elem_ty, elem)?.into();
        let raw = &self.data[start..self.pos];
        let entry = (id, raw, Box::new(Arc::clone(&list)) as Box<dyn Any>);
        match slot {
            Some(i) => self.recent[i] = entry,
            None => self.recent.push(entry),
        }
        Ok(list)
    }

    /// Declares the string lists that [`expect_string_list`](Self::expect_string_list) will
    /// likely meet, e.g. the leaf paths of the schema before the row groups are decoded.
    pub fn set_expected_string_lists(&mut self, lists: Vec<Arc<[String]>>) {
        self.expected_lists = lists;
    }

    /// Selects which of the expected string lists comes next (e.g. the column index).
    pub fn set_expected_index(&mut self, index: usize) {
        self.expected_index = index;
    }

    /// Reads a `list<string>`; if it equals the expected list, shares it (comparing bytes,
    /// allocating nothing), else decodes it.
    ///
    /// Every column chunk repeats its column's path; comparing it with the schema's path is
    /// much cheaper than allocating it again.
    pub fn expect_string_list(&mut self, ty: u8) -> Result<Arc<[String]>> {
        self.check_type(ty, ttype::LIST)?;
        if let Some(want) = self.expected_lists.get(self.expected_index).cloned() {
            let start = self.pos;
            if self.list_equals(&want)? {
                return Ok(want);
            }
            self.pos = start;
        }
        Ok(self.string_list(ty)?.into())
    }

    fn list_equals(&mut self, want: &[String]) -> Result<bool> {
        let (elem_ty, len) = self.raw_list_header()?;
        if elem_ty != ttype::BINARY || len != want.len() {
            return Ok(false);
        }
        for w in want {
            if self.binary_value()? != w.as_bytes() {
                return Ok(false);
            }
        }
        Ok(true)
    }
}
