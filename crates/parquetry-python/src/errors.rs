//! parquetry's [`Error`] as Python exceptions.
//!
//! The exception classes live in Python (`parquetry/_errors.py`) because each one has two
//! bases (`ParquetError` and the builtin a caller would catch, e.g. `ValueError`), which is
//! plain in Python and awkward through pyo3's `create_exception!`. Errors are rare, so looking
//! the class up at raise time costs nothing that matters.

use parquetry::{Error, ErrorKind};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// The `parquetry._errors` class for an error kind.
fn class_name(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Io => "ParquetIOError",
        ErrorKind::Corrupt => "CorruptFileError",
        ErrorKind::Unsupported => "UnsupportedError",
        ErrorKind::InvalidArgument => "InvalidArgumentError",
        // The kind is non-exhaustive: a new kind is still a ParquetError.
        _ => "ParquetError",
    }
}

/// Builds the Python exception of `kind` with `message`.
pub fn exception(kind: ErrorKind, message: &str) -> PyErr {
    Python::attach(|py| {
        let class = py.import("parquetry._errors").and_then(|m| m.getattr(class_name(kind)));
        match class {
            Ok(class) => PyErr::from_type(class.cast_into().expect("an exception class"), message.to_owned()),
            // Only if the package's Python half is missing; still say what went wrong.
            Err(_) => PyRuntimeError::new_err(message.to_owned()),
        }
    })
}

/// Converts a library error: a missing file or object is a `FileNotFoundError`
/// (`MissingFileError`), as pyarrow raises.
pub fn to_py(e: Error) -> PyErr {
    let io_kind = std::error::Error::source(&e).and_then(|s| s.downcast_ref::<std::io::Error>()).map(|s| s.kind());
    if e.kind() == ErrorKind::Io && io_kind == Some(std::io::ErrorKind::NotFound) {
        let missing = Python::attach(|py| {
            py.import("parquetry._errors").and_then(|m| m.getattr("MissingFileError")).map(|c| c.unbind())
        });
        if let Ok(class) = missing {
            return Python::attach(|py| {
                PyErr::from_type(
                    class.bind(py).clone().cast_into().expect("an exception class"),
                    e.message().to_owned(),
                )
            });
        }
    }
    exception(e.kind(), e.message())
}

/// A bad argument from the caller, raised as `parquetry.InvalidArgumentError` (a `ValueError`).
pub fn invalid(message: impl Into<String>) -> PyErr {
    exception(ErrorKind::InvalidArgument, &message.into())
}

/// An error from the Arrow side (an imported stream's producer, a failed C-interface import),
/// which may carry a parquetry [`Error`] inside (the reader wraps its errors that way).
pub fn from_arrow(e: arrow_schema::ArrowError) -> PyErr {
    match e {
        arrow_schema::ArrowError::ExternalError(inner) => match inner.downcast::<Error>() {
            Ok(e) => to_py(*e),
            Err(other) => exception(ErrorKind::InvalidArgument, &other.to_string()),
        },
        other => exception(ErrorKind::InvalidArgument, &format!("Arrow data: {other}")),
    }
}

/// An argument of the wrong type, raised as `parquetry.ArgumentTypeError` (a `TypeError`).
pub fn type_error(message: impl Into<String>) -> PyErr {
    Python::attach(|py| match py.import("parquetry._errors").and_then(|m| m.getattr("ArgumentTypeError")) {
        Ok(class) => PyErr::from_type(class.cast_into().expect("an exception class"), message.into()),
        Err(_) => pyo3::exceptions::PyTypeError::new_err(message.into()),
    })
}

/// Extension for `Result<T, parquetry::Error>`.
pub trait IntoPy<T> {
    /// The result with a Python exception.
    fn py_err(self) -> PyResult<T>;
}

impl<T> IntoPy<T> for Result<T, Error> {
    fn py_err(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}
