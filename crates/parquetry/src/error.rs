//! The one error type of the library.
//!
//! Every failure, from a short read to a corrupt page, becomes an [`Error`] whose message names
//! the place (file offset, row group, column, page) and the cause, so that a user can tell what
//! is wrong with a file without a debugger. Lower layers create errors with the cause only;
//! each layer above prepends where it was with [`Error::context`].

use std::fmt;

/// What kind of failure an [`Error`] is, for callers that need to react differently.
/// More kinds may come: match with a wildcard arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading or writing the underlying file or stream failed.
    Io,
    /// The bytes are not valid Parquet: bad magic, bad Thrift, lengths past the end, and so on.
    Corrupt,
    /// Valid Parquet that this version does not handle yet (encrypted files, unknown codecs).
    Unsupported,
    /// The caller asked for something impossible: a column that does not exist, a bad option.
    InvalidArgument,
}

/// An error with a message that says where and why.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A malformed-input error: the file's bytes break the format.
    pub fn corrupt(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Corrupt, message)
    }

    /// A feature of the format that parquetry does not support yet.
    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unsupported, message)
    }

    /// A bad argument from the caller (not from the file).
    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidArgument, message)
    }

    /// An I/O failure while doing `what`.
    pub fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        let mut e = Self::new(ErrorKind::Io, format!("{}: {source}", what.into()));
        e.source = Some(Box::new(source));
        e
    }

    fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, message: message.into(), source: None }
    }

    /// Prepends where the error happened, e.g. `"row group 2, column 'name', page 5"`.
    ///
    /// Layers call this as the error travels up, so the final message reads from the
    /// outermost place to the innermost cause.
    pub fn context(mut self, place: impl fmt::Display) -> Self {
        self.message = format!("{place}: {}", self.message);
        self
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The full message, with places and cause.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// An I/O error from the caller's own file handling (`File::create(..)?` in code that returns
/// this crate's [`Result`]).
impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::io("I/O", e)
    }
}

/// Adds [`Error::context`] to results, so `?` chains can say where they were.
pub trait ResultExt<T> {
    /// Prepends `place` to the error, if any. The closure runs only on error.
    fn context<D: fmt::Display>(self, place: impl FnOnce() -> D) -> Result<T>;
}

impl<T> ResultExt<T> for Result<T> {
    fn context<D: fmt::Display>(self, place: impl FnOnce() -> D) -> Result<T> {
        self.map_err(|e| e.context(place()))
    }
}

/// Errors cross into the Arrow ecosystem (a [`RecordBatchReader`](arrow_array::RecordBatchReader)
/// yields `ArrowError`s) as external errors, so the original stays reachable by downcasting.
impl From<Error> for arrow_schema::ArrowError {
    fn from(e: Error) -> Self {
        arrow_schema::ArrowError::ExternalError(Box::new(e))
    }
}
