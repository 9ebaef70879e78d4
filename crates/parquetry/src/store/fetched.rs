//! A range of an object fetched (or being fetched) ahead: its bytes kept as they arrive,
//! handed to readers as slices, each reader waiting for its own bytes only.

use std::ops::Range;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use arrow_buffer::Buffer;

use crate::error::{Error, Result};

/// The bytes of a range fetched (or being fetched) ahead, kept as they arrive: a read waits
/// only for the bytes it asks for, not for the whole range, so decoding follows the transfer.
#[derive(Debug)]
pub(super) struct Fetched {
    /// The object's bytes it holds, or will.
    pub(super) range: Range<u64>,
    arrived: Mutex<Arrived>,
    ready: Condvar,
}

/// The buffer a range's pieces are gathered into ([`Fetched::push_gathered`]), empty until
/// the first piece; at most one per [`Fetched`] gathers ([`Fetched::gatherer`]).
pub(super) struct Gathered {
    buffer: Option<bytes::BytesMut>,
    on: bool,
}

/// What of a [`Fetched`] range has arrived.
#[derive(Debug)]
struct Arrived {
    /// The pieces received so far, in order, each with the object offset it starts at.
    pieces: Vec<(u64, Buffer)>,
    /// Where the bytes received so far end in the object (the range's start before any).
    end: u64,
    /// Set when the request ended: `Ok`, or the error's kind and message.
    outcome: Option<std::result::Result<(), (std::io::ErrorKind, String)>>,
    /// Where the bytes a reader waits for end (0: none waits): a piece wakes it only once
    /// they are all here, not at each of the many small pieces a response comes in.
    awaited: u64,
    /// Whether the pieces are consecutive parts of one buffer ([`Fetched::push_gathered`]), so
    /// that a read across them can be one slice.
    one_buffer: bool,
    /// Whether a [`Gathered`] buffer was handed out for this range.
    gathering: bool,
}

impl Fetched {
    pub(super) fn new(range: Range<u64>) -> Arc<Self> {
        let arrived = Arrived {
            pieces: Vec::new(),
            end: range.start,
            outcome: None,
            awaited: 0,
            one_buffer: false,
            gathering: false,
        };
        Arc::new(Fetched { range, arrived: Mutex::new(arrived), ready: Condvar::new() })
    }

    /// A range whose bytes are all here.
    pub(super) fn filled(range: Range<u64>, bytes: Buffer) -> Arc<Self> {
        let f = Fetched::new(range);
        f.push(bytes);
        f.finish(Ok(()));
        f
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Arrived> {
        self.arrived.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The one [`Gathered`] buffer this range's pieces may be gathered into; a second call
    /// gives one that gathers nothing (its pieces are pushed as they come).
    pub(super) fn gatherer(&self) -> Gathered {
        let mut arrived = self.lock();
        let on = !arrived.gathering;
        arrived.gathering = true;
        Gathered { buffer: None, on }
    }

    /// Appends a response's next piece, gathered into `gathered`'s buffer of the range's
    /// length (the first piece allocates it): each piece is then a frozen part of that
    /// buffer, end to end with the one before, so a read across pieces is a slice
    /// ([`Fetched::wait_slice`]) and the HTTP client's own buffer is free again. A piece that
    /// does not fit (past the range, which [`Fetched::push`] refuses) is pushed as it is.
    /// `false` as `push` says.
    pub(super) fn push_gathered(&self, piece: bytes::Bytes, gathered: &mut Gathered) -> bool {
        if !gathered.on {
            return self.push(Buffer::from(piece));
        }
        let buffer = gathered.buffer.get_or_insert_with(|| {
            // At most the source's `max_ahead` bytes (`prefetch` names no range past it), all
            // of which would be held once arrived anyway.
            bytes::BytesMut::with_capacity(usize::try_from(self.range.end - self.range.start).unwrap_or(0))
        });
        if piece.len() > buffer.capacity() - buffer.len() {
            return self.push(Buffer::from(piece));
        }
        // Within the capacity: no reallocation, so the part lies right after the last one.
        buffer.extend_from_slice(&piece);
        self.push_piece(Buffer::from(buffer.split().freeze()), true)
    }

    /// Adds the next piece of the response; false (nothing added) when it runs past the
    /// range: the server sent more than was asked, and the response is read no further
    /// (`finish` then fails it if the range is not complete).
    pub(super) fn push(&self, piece: Buffer) -> bool {
        self.push_piece(piece, false)
    }

    /// [`Fetched::push`], `gathered` saying whether `piece` is the next part of the buffer
    /// [`Fetched::push_gathered`] fills.
    fn push_piece(&self, piece: Buffer, gathered: bool) -> bool {
        let mut arrived = self.lock();
        // Parts of one buffer while every piece is a part of the one `Gathered` buffer.
        arrived.one_buffer = gathered && (arrived.pieces.is_empty() || arrived.one_buffer);
        let end = arrived.end + piece.len() as u64;
        if end > self.range.end {
            return false;
        }
        if !piece.is_empty() {
            let at = arrived.end;
            arrived.pieces.push((at, piece));
            arrived.end = end;
        }
        let wake = arrived.awaited != 0 && arrived.awaited <= end;
        if wake {
            // Every waiter wakes; those still short of their bytes say again what they await.
            arrived.awaited = 0;
        }
        drop(arrived);
        if wake {
            self.ready.notify_all();
        }
        true
    }

    /// Ends the request: `Ok` only when every byte of the range arrived.
    pub(super) fn finish(&self, result: Result<()>) {
        let mut arrived = self.lock();
        let result = result.and_then(|()| match arrived.end == self.range.end {
            true => Ok(()),
            false => Err(Error::io(
                "prefetching",
                std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    format!(
                        "bytes {}..{}: the response ended after {} bytes",
                        self.range.start,
                        self.range.end,
                        arrived.end - self.range.start
                    ),
                ),
            )),
        });
        arrived.outcome = Some(result.map_err(|e| {
            let kind = std::error::Error::source(&e)
                .and_then(|s| s.downcast_ref::<std::io::Error>())
                .map_or(std::io::ErrorKind::Other, std::io::Error::kind);
            (kind, e.message().to_owned())
        }));
        drop(arrived);
        self.ready.notify_all();
    }

    /// Where the bytes received so far end in the object.
    pub(super) fn received_to(&self) -> u64 {
        self.lock().end
    }

    pub(super) fn is_done(&self) -> bool {
        self.lock().outcome.is_some()
    }

    /// Waits for `len` bytes at `offset` (inside the range) to arrive; a slice of the piece
    /// holding them, or a copy when they span pieces.
    pub(super) fn wait_slice(&self, offset: u64, len: usize) -> Result<Buffer> {
        let end = offset + len as u64;
        let mut arrived = self.lock();
        loop {
            if arrived.end >= end {
                break;
            }
            match &arrived.outcome {
                Some(Err((kind, message))) => {
                    return Err(Error::io("prefetching", std::io::Error::new(*kind, message.clone())))
                }
                // Ended without the bytes (`finish` made that an error): not reached.
                Some(Ok(())) => return Err(Error::corrupt("prefetching: the response ended early")),
                None => {
                    // Several readers (clones of the source) may wait: the nearest end wakes.
                    arrived.awaited = match arrived.awaited {
                        0 => end,
                        other => other.min(end),
                    };
                    arrived = self.ready.wait(arrived).unwrap_or_else(PoisonError::into_inner);
                }
            }
        }
        let pieces = &arrived.pieces;
        let first = pieces.partition_point(|(at, _)| *at <= offset).saturating_sub(1);
        let (at, piece) = &pieces[first];
        if end <= at + piece.len() as u64 {
            return Ok(piece.slice_with_length((offset - at) as usize, len));
        }
        let last = pieces.partition_point(|(at, _)| *at < end);
        let parts = &pieces[first..last];
        if arrived.one_buffer && contiguous(parts) {
            let from = (offset - at) as usize;
            let start = piece.as_ptr().wrapping_add(from);
            let owner: Arc<dyn arrow_buffer::alloc::Allocation> =
                Arc::new(parts.iter().map(|(_, p)| p.clone()).collect::<Vec<Buffer>>());
            if let Some(start) = std::ptr::NonNull::new(start.cast_mut()) {
                // SAFETY: `parts` are consecutive parts of one buffer (`one_buffer`: every
                // piece was frozen by `push_gathered`, one after another, from the one
                // `Gathered` buffer of this range, a `BytesMut` that never reallocated, since
                // no piece past its capacity goes in), end to end as
                // `contiguous` checked, and they hold the `len` bytes from `offset`:
                // [start, start + len) lies inside that one allocation, written and frozen.
                // `owner` keeps every part, and so the allocation, alive as long as the buffer.
                return Ok(unsafe { Buffer::from_custom_allocation(start, len, owner) });
            }
        }
        let mut out = Vec::with_capacity(len);
        for (at, piece) in &pieces[first..] {
            let from = offset.saturating_sub(*at) as usize;
            let to = ((end - at) as usize).min(piece.len());
            out.extend_from_slice(&piece.as_slice()[from..to]);
            if out.len() == len {
                break;
            }
        }
        Ok(Buffer::from_vec(out))
    }
}

/// Whether each of `parts` begins in memory where the one before it ends: parts of one
/// response's buffer ([`Fetched::push_gathered`]), which a read across them can take as one
/// slice.
fn contiguous(parts: &[(u64, Buffer)]) -> bool {
    parts.len() > 1
        && parts.windows(2).all(|w| {
            let (a, b) = (&w[0].1, &w[1].1);
            w[0].0 + a.len() as u64 == w[1].0 && a.as_ptr().wrapping_add(a.len()) == b.as_ptr()
        })
}
