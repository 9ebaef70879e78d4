//! [`StatBytes`]: the bytes of one statistics value, kept inline when short.

use std::fmt;
use std::ops::Deref;

const INLINE: usize = 22;

/// The PLAIN bytes of a min or max statistic.
///
/// Every fixed-width value and most string bounds fit in 22 bytes, so they are stored inline
/// and decoding a footer's statistics costs no allocation for them; longer values go to the
/// heap. Use it as a `&[u8]` (it derefs to one).
#[derive(Clone)]
pub struct StatBytes(Repr);

#[derive(Clone)]
enum Repr {
    Inline { len: u8, data: [u8; INLINE] },
    Heap(Box<[u8]>),
}

impl StatBytes {
    /// Copies `bytes`.
    pub fn new(bytes: &[u8]) -> Self {
        if bytes.len() <= INLINE {
            let mut data = [0u8; INLINE];
            data[..bytes.len()].copy_from_slice(bytes);
            StatBytes(Repr::Inline { len: bytes.len() as u8, data })
        } else {
            StatBytes(Repr::Heap(bytes.into()))
        }
    }
}

impl Deref for StatBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            // `len` is at most INLINE by construction.
            Repr::Inline { len, data } => &data[..usize::from(*len).min(INLINE)],
            Repr::Heap(b) => b,
        }
    }
}

impl AsRef<[u8]> for StatBytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl From<&[u8]> for StatBytes {
    fn from(b: &[u8]) -> Self {
        StatBytes::new(b)
    }
}

impl From<Vec<u8>> for StatBytes {
    fn from(v: Vec<u8>) -> Self {
        if v.len() <= INLINE {
            StatBytes::new(&v)
        } else {
            StatBytes(Repr::Heap(v.into_boxed_slice()))
        }
    }
}

impl PartialEq for StatBytes {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for StatBytes {}

impl fmt::Debug for StatBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::StatBytes;

    #[test]
    fn inline_and_heap_hold_the_same_bytes() {
        for len in [0, 1, 8, 21, 22, 23, 100] {
            let v: Vec<u8> = (0..len as u8).collect();
            assert_eq!(&*StatBytes::new(&v), &v[..]);
            assert_eq!(&*StatBytes::from(v.clone()), &v[..]);
            assert_eq!(StatBytes::new(&v), StatBytes::from(v));
        }
        assert_ne!(StatBytes::new(b"ab"), StatBytes::new(b"abc"));
    }
}
