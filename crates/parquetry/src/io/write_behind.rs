//! A sink that writes on a thread of its own: the file's `write` calls (the kernel copying
//! every byte into the page cache) run beside the encoding instead of after it.
//!
//! An uncompressed write has nothing to compress, so a writer with threads had one of them
//! idle while the other encoded and then waited in `write`: 200 MB into tmpfs is 70–80 ms of
//! kernel time here, as long as encoding the `strings` data itself. [`WriteBehind`] copies
//! what it is given into buffers of 1 MiB and hands each full one to its thread, which writes
//! it and gives it back; at most [`IN_FLIGHT`] buffers are out at once, so memory stays a few
//! MiB and a slow disk holds the writer back rather than filling memory.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

/// The size of a buffer handed to the thread.
const BUFFER: usize = 1 << 20;

/// The most buffers handed to the thread and not yet given back.
pub const IN_FLIGHT: usize = 4;

enum ToThread {
    Write(Vec<u8>),
    /// `len` bytes at `from` of a file, copied by the kernel where it can (`io::copy`).
    Copy(File, u64, u64),
    Flush,
}

enum FromThread {
    /// A buffer written (or not, with the write's error), for reuse.
    Written(Vec<u8>, Option<io::Error>),
    Copied(Option<io::Error>),
    Flushed(Option<io::Error>),
}

/// Copies `len` bytes at `from` of `file` to `out` with `io::copy`, which std turns into
/// `copy_file_range` between files on Linux (no pass through user space); a file shorter than
/// that is an `UnexpectedEof` error.
pub(crate) fn copy_file_bytes(file: &mut File, from: u64, len: u64, out: &mut impl Write) -> io::Result<()> {
    file.seek(SeekFrom::Start(from))?;
    let copied = io::copy(&mut file.take(len), out)?;
    if copied != len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("the file ended after {copied} of {len} bytes"),
        ));
    }
    Ok(())
}

/// A `Write` whose bytes are written to `W` by a thread of its own, in order.
///
/// Errors of the inner writer come back on a later `write` or on `flush`; after one, every
/// call fails. [`into_inner`](Self::into_inner) flushes and returns the inner writer.
pub struct WriteBehind<W: Write + Send + 'static> {
    buffer: Vec<u8>,
    spare: Vec<Vec<u8>>,
    in_flight: usize,
    to_thread: Option<SyncSender<ToThread>>,
    from_thread: Receiver<FromThread>,
    thread: Option<JoinHandle<W>>,
    /// The first error met; every later call returns one like it.
    failed: Option<(io::ErrorKind, String)>,
}

impl<W: Write + Send + 'static> WriteBehind<W> {
    /// Starts the thread that writes into `inner`.
    pub fn new(inner: W) -> io::Result<Self> {
        let (to_thread, inbox) = sync_channel::<ToThread>(IN_FLIGHT + 1);
        let (outbox, from_thread) = sync_channel::<FromThread>(IN_FLIGHT + 1);
        let thread = std::thread::Builder::new().name("parquetry-write".into()).spawn(move || {
            let mut inner = inner;
            let mut failed = false;
            for message in inbox {
                let reply = match message {
                    ToThread::Write(buffer) => {
                        // After a failure nothing more is written: the file is being abandoned.
                        let error = if failed { None } else { inner.write_all(&buffer).err() };
                        failed |= error.is_some();
                        FromThread::Written(buffer, error)
                    }
                    ToThread::Copy(mut file, from, len) => {
                        let error = if failed { None } else { copy_file_bytes(&mut file, from, len, &mut inner).err() };
                        failed |= error.is_some();
                        FromThread::Copied(error)
                    }
                    ToThread::Flush => FromThread::Flushed(inner.flush().err()),
                };
                if outbox.send(reply).is_err() {
                    break;
                }
            }
            inner
        })?;
        Ok(WriteBehind {
            buffer: Vec::with_capacity(BUFFER),
            spare: Vec::new(),
            in_flight: 0,
            to_thread: Some(to_thread),
            from_thread,
            thread: Some(thread),
            failed: None,
        })
    }

    /// Flushes, stops the thread and returns the inner writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.flush()?;
        self.to_thread = None;
        let thread = self.thread.take().ok_or_else(|| io::Error::other("the writing thread is gone"))?;
        thread.join().map_err(|_| io::Error::other("the writing thread panicked"))
    }

    fn check(&self) -> io::Result<()> {
        match &self.failed {
            Some((kind, message)) => Err(io::Error::new(*kind, message.clone())),
            None => Ok(()),
        }
    }

    fn note(&mut self, error: Option<io::Error>) {
        if let (Some(e), None) = (error, &self.failed) {
            self.failed = Some((e.kind(), e.to_string()));
        }
    }

    /// Waits for the thread's next reply.
    fn receive(&mut self) -> io::Result<FromThread> {
        self.from_thread.recv().map_err(|_| io::Error::other("the writing thread stopped"))
    }

    fn returned(&mut self, buffer: Vec<u8>, error: Option<io::Error>) {
        self.in_flight -= 1;
        self.note(error);
        self.spare.push(buffer);
    }

    /// Takes in a reply of the thread.
    fn take_reply(&mut self, reply: FromThread) {
        match reply {
            FromThread::Written(b, e) => self.returned(b, e),
            FromThread::Copied(e) => {
                self.in_flight -= 1;
                self.note(e);
            }
            FromThread::Flushed(e) => self.note(e),
        }
    }

    /// Copies `len` bytes at `from` of `file` after the bytes given so far, on the thread
    /// (where a file copies into a file in the kernel); an error comes back later, as a
    /// write's does.
    pub fn copy_range(&mut self, file: File, from: u64, len: u64) -> io::Result<()> {
        self.check()?;
        if !self.buffer.is_empty() {
            self.hand_over()?;
        }
        while self.in_flight >= IN_FLIGHT {
            let reply = self.receive()?;
            self.take_reply(reply);
        }
        let sender = self.to_thread.as_ref().ok_or_else(|| io::Error::other("the writer is closed"))?;
        sender.send(ToThread::Copy(file, from, len)).map_err(|_| io::Error::other("the writing thread stopped"))?;
        self.in_flight += 1;
        Ok(())
    }

    /// Hands the current buffer to the thread and takes an empty one, waiting for one to
    /// come back if [`IN_FLIGHT`] are out.
    fn hand_over(&mut self) -> io::Result<()> {
        let next = loop {
            while let Ok(reply) = self.from_thread.try_recv() {
                self.take_reply(reply);
            }
            if let Some(mut b) = self.spare.pop() {
                b.clear();
                break b;
            }
            if self.in_flight < IN_FLIGHT {
                break Vec::with_capacity(BUFFER);
            }
            let reply = self.receive()?;
            self.take_reply(reply);
        };
        self.check()?;
        let full = std::mem::replace(&mut self.buffer, next);
        let sender = self.to_thread.as_ref().ok_or_else(|| io::Error::other("the writer is closed"))?;
        sender.send(ToThread::Write(full)).map_err(|_| io::Error::other("the writing thread stopped"))?;
        self.in_flight += 1;
        Ok(())
    }
}

impl<W: Write + Send + 'static> Write for WriteBehind<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.check()?;
        let mut rest = bytes;
        while !rest.is_empty() {
            if self.buffer.len() == BUFFER {
                self.hand_over()?;
            }
            let n = (BUFFER - self.buffer.len()).min(rest.len());
            self.buffer.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
        }
        Ok(bytes.len())
    }

    /// Waits until every byte given so far is written, then flushes the inner writer.
    fn flush(&mut self) -> io::Result<()> {
        self.check()?;
        if !self.buffer.is_empty() {
            self.hand_over()?;
        }
        let sender = self.to_thread.as_ref().ok_or_else(|| io::Error::other("the writer is closed"))?;
        sender.send(ToThread::Flush).map_err(|_| io::Error::other("the writing thread stopped"))?;
        loop {
            match self.receive()? {
                FromThread::Flushed(e) => {
                    self.note(e);
                    break;
                }
                reply => self.take_reply(reply),
            }
        }
        self.check()
    }
}

impl<W: Write + Send + 'static> Drop for WriteBehind<W> {
    fn drop(&mut self) {
        // Closing the channel ends the thread's loop; what it has not written is dropped
        // with the writer, as a `BufWriter` that is not flushed would.
        self.to_thread = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The sink of a Parquet file being written: buffered, and with `threads` > 1 written behind
/// the encoder on a thread of its own ([`WriteBehind`]).
pub enum FileSink {
    /// One thread: a `BufWriter` of 1 MiB.
    Buffered(io::BufWriter<std::fs::File>),
    /// Written on a thread of its own.
    Behind(WriteBehind<std::fs::File>),
}

impl FileSink {
    /// A sink into `file`, written behind when `threads` > 1 (and the thread starts).
    pub fn new(file: std::fs::File, threads: usize) -> io::Result<FileSink> {
        if threads > 1 {
            // A thread that cannot start leaves the file to this one.
            let file_again = file.try_clone()?;
            if let Ok(behind) = WriteBehind::new(file) {
                return Ok(FileSink::Behind(behind));
            }
            return Ok(FileSink::Buffered(io::BufWriter::with_capacity(BUFFER, file_again)));
        }
        Ok(FileSink::Buffered(io::BufWriter::with_capacity(BUFFER, file)))
    }

    /// Copies `len` bytes at `from` of `file` to the sink, after the bytes given so far; the
    /// kernel copies them where it can (`copy_file_range`). With a thread of its own, an error
    /// comes back on a later call.
    pub fn copy_range(&mut self, mut file: File, from: u64, len: u64) -> io::Result<()> {
        match self {
            FileSink::Buffered(w) => copy_file_bytes(&mut file, from, len, w),
            FileSink::Behind(w) => w.copy_range(file, from, len),
        }
    }

    /// Writes out what is buffered and returns the file.
    pub fn into_file(self) -> io::Result<std::fs::File> {
        match self {
            FileSink::Buffered(w) => w.into_inner().map_err(io::IntoInnerError::into_error),
            FileSink::Behind(w) => w.into_inner(),
        }
    }
}

impl Write for FileSink {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match self {
            FileSink::Buffered(w) => w.write(bytes),
            FileSink::Behind(w) => w.write(bytes),
        }
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            FileSink::Buffered(w) => w.write_all(bytes),
            FileSink::Behind(w) => w.write_all(bytes),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            FileSink::Buffered(w) => w.flush(),
            FileSink::Behind(w) => w.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A sink into shared memory that fails once it holds `fail_after` bytes.
    #[derive(Clone)]
    struct Shared {
        bytes: Arc<Mutex<Vec<u8>>>,
        fail_after: usize,
    }

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            let mut bytes = self.bytes.lock().unwrap();
            if bytes.len() + b.len() > self.fail_after {
                return Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"));
            }
            bytes.extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn bytes_arrive_in_order_whatever_the_sizes_of_the_writes() {
        let sink = Shared { bytes: Arc::default(), fail_after: usize::MAX };
        let mut w = WriteBehind::new(sink.clone()).unwrap();
        let mut want = Vec::new();
        for i in 0..300usize {
            // From a byte to several buffers' worth in one call.
            let len = (i * i * 7919) % (3 * BUFFER + 17);
            let chunk: Vec<u8> = (0..len).map(|j| (i * 31 + j) as u8).collect();
            w.write_all(&chunk).unwrap();
            want.extend_from_slice(&chunk);
            if i % 50 == 0 {
                w.flush().unwrap();
                assert_eq!(sink.bytes.lock().unwrap().len(), want.len(), "flushed after {i}");
            }
        }
        w.into_inner().unwrap();
        assert!(*sink.bytes.lock().unwrap() == want);
    }

    #[test]
    fn an_error_of_the_inner_writer_comes_back_and_stays() {
        let sink = Shared { bytes: Arc::default(), fail_after: 5 * BUFFER / 2 };
        let mut w = WriteBehind::new(sink).unwrap();
        let chunk = vec![7u8; BUFFER / 3];
        let mut failed = None;
        for _ in 0..100 {
            if let Err(e) = w.write_all(&chunk) {
                failed = Some(e);
                break;
            }
        }
        let e = failed.or_else(|| w.flush().err()).expect("the failure comes back");
        assert_eq!(e.kind(), io::ErrorKind::StorageFull);
        assert!(w.write_all(b"more").is_err() && w.flush().is_err(), "later calls fail too");
        assert!(w.into_inner().is_err());
    }

    #[test]
    fn dropping_without_flushing_stops_the_thread() {
        let sink = Shared { bytes: Arc::default(), fail_after: usize::MAX };
        let mut w = WriteBehind::new(sink).unwrap();
        w.write_all(&vec![1u8; 3 * BUFFER]).unwrap();
        drop(w);
    }
}
