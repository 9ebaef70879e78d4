//! URLs (`s3://`, `gs://`, `az://`, `http(s)://`, `file://`) as inputs and outputs of
//! `convert` and `merge`: an input is fetched into a scratch file first, an output is written
//! to a scratch file and then uploaded by multipart upload, so that the object appears only
//! once complete. Stores are reached with the environment's settings (`AWS_ENDPOINT_URL`,
//! `AWS_ACCESS_KEY_ID`, `AWS_ALLOW_HTTP`, ...), as `object_store` reads them. (`cat` and
//! `inspect` read URLs directly, fetching only the bytes they need.)

use std::path::Path;

use parquetry::io::TempFile;
use parquetry::store::{self, StorageOptions};

/// A local stand-in for a URL argument, removed when dropped.
pub(crate) struct Staged {
    url: String,
    temp: TempFile,
}

impl Staged {
    /// The local file.
    pub fn path(&self) -> &Path {
        self.temp.path()
    }
}

/// If `arg` is a URL, fetches the object into a scratch file and points `arg` at it.
pub(crate) fn stage_input(arg: &mut String) -> Result<Option<Staged>, String> {
    if !store::is_url(arg) {
        return Ok(None);
    }
    let temp = TempFile::scratch().map_err(|e| format!("{arg}: {e}"))?;
    let mut file = temp.file().map_err(|e| format!("{arg}: {e}"))?;
    store::download(arg, &StorageOptions::new(), &mut file).map_err(|e| e.to_string())?;
    let url = std::mem::replace(arg, temp.path().to_string_lossy().into_owned());
    Ok(Some(Staged { url, temp }))
}

/// If `arg` is a URL, points `arg` at a scratch file to write instead; [`publish`] uploads it.
pub(crate) fn stage_output(arg: &mut String) -> Result<Option<Staged>, String> {
    if !store::is_url(arg) {
        return Ok(None);
    }
    let temp = TempFile::scratch().map_err(|e| format!("{arg}: {e}"))?;
    let url = std::mem::replace(arg, temp.path().to_string_lossy().into_owned());
    Ok(Some(Staged { url, temp }))
}

/// Uploads a staged output to its URL.
pub(crate) fn publish(staged: &Staged) -> Result<(), String> {
    store::upload_file(staged.path(), &staged.url, &StorageOptions::new()).map(|_| ()).map_err(|e| e.to_string())
}

/// The URL a staged argument stands for.
pub(crate) fn url_of(staged: &Option<Staged>, arg: &str) -> String {
    staged.as_ref().map_or_else(|| arg.to_owned(), |s| s.url.clone())
}

/// Local inputs for `merge`: URLs fetched into scratch files (kept alive by the second list).
pub(crate) fn stage_inputs(inputs: &[String]) -> Result<(Vec<String>, Vec<Staged>), String> {
    let mut paths = Vec::with_capacity(inputs.len());
    let mut staged = Vec::new();
    for input in inputs {
        let mut arg = input.clone();
        if let Some(s) = stage_input(&mut arg)? {
            staged.push(s);
        }
        paths.push(arg);
    }
    Ok((paths, staged))
}

/// `message` with the scratch files of `staged` called by their URLs.
pub(crate) fn named<'a>(message: String, staged: impl IntoIterator<Item = &'a Staged>) -> String {
    staged.into_iter().fold(message, |m, s| m.replace(&*s.path().to_string_lossy(), &s.url))
}
