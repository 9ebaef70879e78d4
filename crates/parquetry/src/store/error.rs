//! Object store failures as parquetry errors that name the object and the cause in words a
//! user acts on: not found, access denied, changed while read, or the client's own message
//! (connection refused, timed out, ...).

use std::io::ErrorKind as IoKind;

use crate::error::Error;

/// An error for `doing` (e.g. "reading bytes 0..100 of") the object at `url`.
pub(crate) fn store_error(url: &str, doing: &str, e: object_store::Error) -> Error {
    use object_store::Error as E;
    let (kind, cause) = match &e {
        E::NotFound { .. } => (IoKind::NotFound, "not found (no such bucket or key)".to_owned()),
        E::PermissionDenied { .. } => (IoKind::PermissionDenied, "access denied".to_owned()),
        E::Unauthenticated { .. } => {
            (IoKind::PermissionDenied, "access denied (the credentials were refused)".to_owned())
        }
        E::Precondition { .. } => (IoKind::Other, "the object changed while it was read (its ETag differs)".to_owned()),
        // A listing's failure comes as a generic error holding S3's answer: its code says why.
        _ if chain(&e).contains("<Code>NoSuchBucket</Code>") => {
            (IoKind::NotFound, "not found (no such bucket)".to_owned())
        }
        _ if chain(&e).contains("<Code>AccessDenied</Code>") => (IoKind::PermissionDenied, "access denied".to_owned()),
        _ => (IoKind::Other, String::new()),
    };
    let detail = chain(&e);
    let message = match cause.is_empty() {
        true => detail,
        false => format!("{cause}: {detail}"),
    };
    Error::io(format!("{doing} {url}"), std::io::Error::new(kind, message))
}

/// The error and its sources, joined: the client's top-level message alone often leaves out
/// the cause (the connection error under a retry error).
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut next = e.source();
    while let Some(s) = next {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        next = s.source();
    }
    out
}
