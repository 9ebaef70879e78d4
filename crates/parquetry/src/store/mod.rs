//! Object storage: reading Parquet from and writing it to `s3://`, `gs://`, `az://`
//! (`abfs[s]://`), `http(s)://` and `file://` URLs through the `object_store` crate (feature
//! `object-store`).
//!
//! ```no_run
//! use parquetry::read::ParquetReaderBuilder;
//! use parquetry::store::{open_url, StorageOptions};
//! let options = StorageOptions::new()
//!     .with("aws_endpoint", "http://127.0.0.1:9000")
//!     .with("aws_access_key_id", "minio")
//!     .with("aws_secret_access_key", "minio123");
//! let file = open_url("s3://bucket/data.parquet", &options)?;
//! let stats = file.source().stats();
//! let batches: Vec<_> = ParquetReaderBuilder::new(file).build()?.collect::<Result<_, _>>()?;
//! println!("{} batches, {} requests", batches.len(), stats.requests());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Credentials come the usual way: the environment (`AWS_ACCESS_KEY_ID`,
//! `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`, `AWS_ENDPOINT_URL`,
//! `AWS_ALLOW_HTTP`, web identity and instance metadata, and the AWS profile's keys, region
//! and endpoint; `GOOGLE_SERVICE_ACCOUNT`;
//! `AZURE_STORAGE_ACCOUNT_NAME`, ...) as `object_store`'s builders read it, then the
//! [`StorageOptions`] over it. The reader is synchronous: a small runtime of its own drives
//! the requests (see `runtime.rs`).

mod error;
mod fetch;
mod fetched;
mod options;
mod profile;
mod ranges;
mod runtime;
mod source;
mod writer;

use std::io::Write;

use futures_util::TryStreamExt;

pub use fetch::{FetchOptions, RequestStats};
pub use options::{is_url, StorageOptions};
pub use ranges::{coalesce, coalesce_growing};
pub use source::ObjectSource;
pub use writer::ObjectWriter;

use crate::error::{Error, Result};
use crate::format::footer::{decode_file_metadata, footer_length};
use crate::read::ParquetFile;

/// How many bytes of an object's end the first request takes: the footer, and in the same
/// request what writers put just before it, the page index (and bloom filters), which a
/// filter reads next. A request costs tens of milliseconds on a real store, 512 KiB about
/// five at 100 MB/s. Measured on the benchmark's TPC-H files: footer and page index together
/// are 51 KiB (`orders`), 285 KiB (`lineitem`, a 106 KiB footer) and 354 KiB (`lineitem`
/// sorted, 46 row groups); with a 64 KiB tail, the `lineitem` files took three requests (the
/// footer's front, then the page index). DataFusion reads 512 KiB, polars 256 KiB. An object smaller than this comes whole in the one request.
pub const TAIL_READ: u64 = 512 << 10;

/// Opens the Parquet file at `url`: one request for the last [`TAIL_READ`] bytes (the
/// footer, usually the page index, and the object's size), a second only when the footer is
/// longer.
pub fn open_url(url: &str, options: &StorageOptions) -> Result<ParquetFile<ObjectSource>> {
    open_url_with(url, options, FetchOptions::default())
}

/// Like [`open_url`], with how the source fetches ahead.
pub fn open_url_with(url: &str, options: &StorageOptions, fetch: FetchOptions) -> Result<ParquetFile<ObjectSource>> {
    let location = options::locate(url, options)?;
    let (source, tail) = ObjectSource::open(location, TAIL_READ, fetch)?;
    with_tail(url, source, tail)
}

/// How many objects' footers [`open_urls`] asks for at once: as DataFusion's
/// `meta_fetch_concurrency` (32). Each is one request of at most [`TAIL_READ`] bytes.
pub const FOOTERS_AT_ONCE: usize = 32;

/// Opens the Parquet files at `urls` as [`open_url`] does, with up to [`FOOTERS_AT_ONCE`] of
/// their footer requests in flight: a dataset of many objects is opened in about one round
/// trip, not one per object. One result per URL, in order.
pub fn open_urls(urls: &[String], options: &StorageOptions) -> Vec<Result<ParquetFile<ObjectSource>>> {
    let located: Vec<Result<options::Location>> = urls.iter().map(|u| options::locate(u, options)).collect();
    let ok: Vec<options::Location> = located.iter().filter_map(|l| l.as_ref().ok().cloned()).collect();
    let mut opened = match ObjectSource::open_many(ok, TAIL_READ, FetchOptions::default(), FOOTERS_AT_ONCE) {
        Ok(opened) => opened.into_iter(),
        Err(e) => {
            return urls
                .iter()
                .map(|u| Err(Error::io(format!("opening {u}"), std::io::Error::other(e.to_string()))))
                .collect()
        }
    };
    urls.iter()
        .zip(located)
        .map(|(url, l)| {
            l?;
            let (source, tail) = opened.next().ok_or_else(|| Error::corrupt(format!("opening {url}: no answer")))??;
            with_tail(url, source, tail)
        })
        .collect()
}

/// The file at `url` opened on `source`, whose last bytes `tail` are: its footer decoded
/// from them, or (longer than them) with one more request for its front.
fn with_tail(url: &str, source: ObjectSource, tail: arrow_buffer::Buffer) -> Result<ParquetFile<ObjectSource>> {
    let at = |e: Error| e.context(url);
    let len = crate::page::ChunkSource::len(&source);
    if len < 12 {
        return Err(
            Error::corrupt(format!("not a Parquet file: {len} bytes is too short (the smallest has 12)")).context(url)
        );
    }
    let tail = tail.as_slice();
    let last8: &[u8; 8] = tail[tail.len() - 8..].try_into().map_err(|_| Error::corrupt("tail"))?;
    let footer_len = footer_length(last8, len).map_err(at)?;
    let metadata = if footer_len + 8 <= tail.len() {
        let end = tail.len() - 8;
        decode_file_metadata(&tail[end - footer_len..end]).map_err(at)?
    } else {
        // A footer longer than the tail: one more request for exactly the missing front.
        let missing = footer_len + 8 - tail.len();
        let front = crate::page::ChunkSource::read_at(&source, len - (footer_len + 8) as u64, missing)?;
        let mut footer = front.as_slice().to_vec();
        footer.extend_from_slice(&tail[..tail.len() - 8]);
        decode_file_metadata(&footer).map_err(at)?
    };
    ParquetFile::with_source(source, metadata).map_err(at)
}

/// A writer that uploads to `url` (see [`ObjectWriter`]): nothing exists under `url` until
/// [`ObjectWriter::finish`].
pub fn create_url(url: &str, options: &StorageOptions) -> Result<ObjectWriter> {
    Ok(ObjectWriter::new(options::locate(url, options)?))
}

/// Writes `bytes` to `url` as one object (one request).
pub fn put_url(url: &str, bytes: &[u8], options: &StorageOptions) -> Result<()> {
    let mut writer = create_url(url, options)?;
    writer.write_all(bytes).map_err(|e| Error::io(format!("writing {url}"), e))?;
    writer.finish()
}

/// Copies the local file at `path` to `url` by multipart upload: the object exists only once
/// the whole file is there. Returns the bytes sent.
pub fn upload_file(path: &std::path::Path, url: &str, options: &StorageOptions) -> Result<u64> {
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
    let mut writer = create_url(url, options)?;
    let sent = std::io::copy(&mut file, &mut writer)
        .map_err(|e| Error::io(format!("copying {} to {url}", path.display()), e))?;
    writer.finish()?;
    Ok(sent)
}

/// Copies the object at `url` into `out`, a ranged request per 16 MiB. Returns its size.
pub fn download(url: &str, options: &StorageOptions, out: &mut dyn Write) -> Result<u64> {
    const PIECE: u64 = 16 << 20;
    let location = options::locate(url, options)?;
    let (source, tail) = ObjectSource::open(location, PIECE, FetchOptions::default())?;
    let len = crate::page::ChunkSource::len(&source);
    let mut at = 0;
    while at < len - tail.len() as u64 {
        let n = PIECE.min(len - tail.len() as u64 - at);
        let piece = crate::page::ChunkSource::read_at(&source, at, n as usize)?;
        out.write_all(piece.as_slice()).map_err(|e| Error::io(format!("writing {url}'s bytes"), e))?;
        at += n;
    }
    out.write_all(tail.as_slice()).map_err(|e| Error::io(format!("writing {url}'s bytes"), e))?;
    Ok(len)
}

/// The objects under `url_prefix` (a "folder": `s3://bucket/dir/`), recursively, as full
/// URLs with their sizes, sorted by URL. For datasets: what a folder of files holds.
pub fn list(url_prefix: &str, options: &StorageOptions) -> Result<Vec<(String, u64)>> {
    let location = options::locate(url_prefix, options)?;
    let root = url_root(url_prefix, &location);
    let mut out: Vec<(String, u64)> = list_located(url_prefix, &location)?
        .into_iter()
        .map(|m| (format!("{root}/{}", m.location.as_ref()), m.size))
        .collect();
    out.sort();
    Ok(out)
}

/// Deletes every object under `url_prefix` (a "folder", recursively), and returns their
/// URLs, sorted. Prefixes count by whole path segments, as `object_store` lists them:
/// `s3://bucket/year=1/` does not reach `s3://bucket/year=10/`. For a partitioned write that
/// replaces what a partition held (`existing_data_behavior="delete_matching"`). An object
/// gone before its delete (another writer's) is not an error; the store deletes in batches
/// where it can (S3's DeleteObjects), and a prefix that holds nothing costs one listing.
pub fn delete_prefix(url_prefix: &str, options: &StorageOptions) -> Result<Vec<String>> {
    let location = options::locate(url_prefix, options)?;
    let root = url_root(url_prefix, &location);
    let listed = list_located(url_prefix, &location)?;
    if listed.is_empty() {
        return Ok(Vec::new());
    }
    let mut urls: Vec<String> = listed.iter().map(|m| format!("{root}/{}", m.location.as_ref())).collect();
    urls.sort();
    let store = std::sync::Arc::clone(&location.store);
    let paths = futures_util::stream::iter(listed.into_iter().map(|m| Ok(m.location)));
    let results = runtime::block_on(async move {
        use futures_util::StreamExt;
        store.delete_stream(paths.boxed()).collect::<Vec<_>>().await
    })?;
    for result in results {
        match result {
            Ok(_) | Err(object_store::Error::NotFound { .. }) => {}
            Err(e) => return Err(error::store_error(url_prefix, "deleting the objects under", e)),
        }
    }
    Ok(urls)
}

/// Deletes the objects at `urls` (one request each); an object already gone is not an
/// error, so a rerun after a failure deletes what is left.
pub fn delete_urls(urls: &[String], options: &StorageOptions) -> Result<()> {
    for url in urls {
        let location = options::locate(url, options)?;
        let (store, path) = (std::sync::Arc::clone(&location.store), location.path.clone());
        let done = runtime::block_on(async move { object_store::ObjectStoreExt::delete(&store, &path).await })?;
        match done {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
            Err(e) => return Err(error::store_error(url, "deleting", e)),
        }
    }
    Ok(())
}

/// The URL's part before the object path: `s3://bucket`, `https://host`, ...
fn url_root(url_prefix: &str, location: &options::Location) -> String {
    let base = url_prefix.trim_end_matches('/');
    match location.path.as_ref().is_empty() {
        true => base.to_owned(),
        false => base.strip_suffix(location.path.as_ref()).unwrap_or(base).trim_end_matches('/').to_owned(),
    }
}

/// The objects under `location`'s path (everything in the store when it is empty).
fn list_located(url_prefix: &str, location: &options::Location) -> Result<Vec<object_store::ObjectMeta>> {
    let (store, path) = (std::sync::Arc::clone(&location.store), location.path.clone());
    let prefix = (!path.as_ref().is_empty()).then_some(path);
    runtime::block_on(async move { store.list(prefix.as_ref()).try_collect::<Vec<_>>().await })?
        .map_err(|e| error::store_error(url_prefix, "listing", e))
}
