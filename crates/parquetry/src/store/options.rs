//! Where an object lives and how to reach it: URL parsing, and the store built from the
//! environment (the usual `AWS_*`, `GOOGLE_*`, `AZURE_*` variables) and a map of storage
//! options, named as polars and deltalake name them.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
use object_store::gcp::{GoogleCloudStorageBuilder, GoogleConfigKey};
use object_store::http::HttpBuilder;
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::{ClientConfigKey, ObjectStore, ObjectStoreScheme, RetryConfig};

use super::error::store_error;
use crate::error::{Error, Result};

/// Options for reaching an object store, as string pairs: the keys `object_store` takes for
/// the URL's store (`aws_endpoint` or `endpoint_url`, `aws_region` or `region`,
/// `aws_access_key_id`, `aws_secret_access_key`, `aws_session_token`, `allow_http`,
/// `google_service_account`, `azure_storage_account_name`, `timeout`, ...) and two of
/// parquetry's own: `max_retries` (how often a failed request is retried, 10 by default) and
/// `retry_timeout` (seconds after which no retry starts, 180 by default).
///
/// Options are applied over what the environment sets (`AWS_ENDPOINT_URL`,
/// `AWS_ACCESS_KEY_ID`, `AWS_ALLOW_HTTP`, ...), which is applied over the AWS profile
/// (`AWS_PROFILE`, else `default`, in `~/.aws/credentials` and `~/.aws/config`). An endpoint given as `http://...` allows
/// plain HTTP without `allow_http` (the endpoint says so already). A key the store does not
/// know is an error, not silently ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StorageOptions {
    entries: BTreeMap<String, String>,
}

impl StorageOptions {
    /// No options: the environment's settings only.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `key` (case-insensitive) to `value`.
    pub fn with(mut self, key: impl AsRef<str>, value: impl Into<String>) -> Self {
        self.insert(key, value);
        self
    }

    /// Sets `key` (case-insensitive) to `value`.
    pub fn insert(&mut self, key: impl AsRef<str>, value: impl Into<String>) {
        self.entries.insert(key.as_ref().to_ascii_lowercase(), value.into());
    }

    /// The value of `key`, if set.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries.get(&key.to_ascii_lowercase()).map(String::as_str)
    }

    /// The options, by key.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The retry policy: `object_store`'s, with `max_retries` and `retry_timeout` applied.
    fn retry(&self) -> Result<RetryConfig> {
        let mut retry = RetryConfig::default();
        if let Some(v) = self.get("max_retries") {
            retry.max_retries = v
                .parse()
                .map_err(|_| Error::invalid_argument(format!("storage option max_retries={v:?}: not a count")))?;
        }
        if let Some(v) = self.get("retry_timeout") {
            let secs: f64 = v.parse().map_err(|_| {
                Error::invalid_argument(format!("storage option retry_timeout={v:?}: not a number of seconds"))
            })?;
            retry.retry_timeout = Duration::try_from_secs_f64(secs).map_err(|_| {
                Error::invalid_argument(format!("storage option retry_timeout={v:?}: not a number of seconds"))
            })?;
        }
        Ok(retry)
    }

    /// The options other than parquetry's own.
    fn store_options(&self) -> impl Iterator<Item = (&str, &str)> {
        self.iter().filter(|(k, _)| !matches!(*k, "max_retries" | "retry_timeout"))
    }
}

impl<K: AsRef<str>, V: Into<String>> FromIterator<(K, V)> for StorageOptions {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut options = StorageOptions::new();
        for (k, v) in iter {
            options.insert(k, v);
        }
        options
    }
}

/// An object: its store, its path in the store, and its URL (for messages).
#[derive(Debug, Clone)]
pub(crate) struct Location {
    pub store: Arc<dyn ObjectStore>,
    pub path: Path,
    pub url: String,
}

/// Whether `s` is a URL that `locate` takes (rather than a local path).
pub fn is_url(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once("://") else { return false };
    !rest.is_empty()
        && matches!(
            scheme.to_ascii_lowercase().as_str(),
            "s3" | "s3a" | "gs" | "az" | "adl" | "azure" | "abfs" | "abfss" | "http" | "https" | "file"
        )
}

/// The stores built so far, each with what built it (see [`store_key`]), newest last: reads
/// of the same bucket with the same settings share one client and its pool of open
/// connections, as polars' and DataFusion's do, rather than opening new ones (a TCP and,
/// on a real store, a TLS handshake each) for every file read.
static STORES: Mutex<Vec<(String, Arc<dyn ObjectStore>)>> = Mutex::new(Vec::new());

/// How many stores [`STORES`] keeps (the least recently built go first).
const STORES_KEPT: usize = 16;

/// What a store is built from: the URL's part before the path (scheme and bucket or host),
/// the options, and the environment's variables a builder reads (a change of either builds
/// a new store), and for S3 the AWS profile's settings.
fn store_key(root: &str, scheme: &ObjectStoreScheme, options: &StorageOptions) -> String {
    let mut env: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| ["AWS_", "GOOGLE_", "AZURE_", "HOME"].iter().any(|p| k.starts_with(p)))
        .collect();
    env.sort();
    let profile = match scheme {
        ObjectStoreScheme::AmazonS3 => super::profile::profile_settings(),
        _ => Vec::new(),
    };
    format!("{root}\u{0}{options:?}\u{0}{env:?}\u{0}{profile:?}")
}

/// Parses `url` and finds the store that holds it: the one built before from the same
/// settings (see [`STORES`]), or a new one.
pub(crate) fn locate(url: &str, options: &StorageOptions) -> Result<Location> {
    let parsed = url::Url::parse(url).map_err(|e| Error::invalid_argument(format!("{url}: not a URL: {e}")))?;
    let (scheme, path) = ObjectStoreScheme::parse(&parsed)
        .map_err(|e| Error::invalid_argument(format!("{url}: not an object store URL: {e}")))?;
    let path = Path::parse(path).map_err(|e| Error::invalid_argument(format!("{url}: not an object path: {e}")))?;
    let key = store_key(&parsed[..url::Position::BeforePath], &scheme, options);
    let found = STORES.lock().unwrap_or_else(PoisonError::into_inner).iter().find(|(k, _)| *k == key).cloned();
    if let Some((_, store)) = found {
        return Ok(Location { store, path, url: url.to_owned() });
    }
    let store = build(url, &parsed, &scheme, options)?;
    let mut stores = STORES.lock().unwrap_or_else(PoisonError::into_inner);
    if stores.len() >= STORES_KEPT {
        stores.remove(0);
    }
    stores.push((key, Arc::clone(&store)));
    Ok(Location { store, path, url: url.to_owned() })
}

/// Builds the store that holds `url` (parsed: `parsed`, of kind `scheme`).
fn build(
    url: &str,
    parsed: &url::Url,
    scheme: &ObjectStoreScheme,
    options: &StorageOptions,
) -> Result<Arc<dyn ObjectStore>> {
    let retry = options.retry()?;
    // Builds the HTTP client, which needs the TLS provider that starting the runtime installs.
    super::runtime::runtime()?;
    let place = |e: object_store::Error| store_error(url, "configuring the store for", e);
    let unknown =
        |key: &str| Error::invalid_argument(format!("{url}: unknown storage option {key:?} for this kind of store"));
    let store: Arc<dyn ObjectStore> = match scheme {
        ObjectStoreScheme::AmazonS3 => {
            let mut b = AmazonS3Builder::from_env();
            // A profile's settings count for less than the environment's and the options';
            // its keys are taken together or not at all.
            let keyed = b.get_config_value(&AmazonS3ConfigKey::AccessKeyId).is_some()
                || options.get("aws_access_key_id").or(options.get("access_key_id")).is_some();
            for (k, v) in super::profile::profile_settings() {
                if keyed && !matches!(k, "aws_region" | "aws_endpoint_url") {
                    continue;
                }
                let key: AmazonS3ConfigKey = k.parse().map_err(|_| unknown(k))?;
                if b.get_config_value(&key).is_none() && options.get(k).is_none() {
                    b = b.with_config(key, v);
                }
            }
            let mut b = b.with_url(url).with_retry(retry);
            for (k, v) in options.store_options() {
                b = b.with_config(k.parse::<AmazonS3ConfigKey>().map_err(|_| unknown(k))?, v);
            }
            let allow = AmazonS3ConfigKey::Client(ClientConfigKey::AllowHttp);
            let plain = b.get_config_value(&AmazonS3ConfigKey::Endpoint).is_some_and(|e| e.starts_with("http://"));
            let said = options.get("allow_http").or(options.get("aws_allow_http")).map(str::to_owned);
            let said = said.or_else(|| std::env::var("AWS_ALLOW_HTTP").ok());
            if plain && said.is_none() {
                b = b.with_config(allow, "true");
            }
            Arc::new(b.build().map_err(place)?)
        }
        ObjectStoreScheme::GoogleCloudStorage => {
            let mut b = GoogleCloudStorageBuilder::from_env().with_url(url).with_retry(retry);
            for (k, v) in options.store_options() {
                b = b.with_config(k.parse::<GoogleConfigKey>().map_err(|_| unknown(k))?, v);
            }
            Arc::new(b.build().map_err(place)?)
        }
        ObjectStoreScheme::MicrosoftAzure => {
            let mut b = MicrosoftAzureBuilder::from_env().with_url(url).with_retry(retry);
            for (k, v) in options.store_options() {
                b = b.with_config(k.parse::<AzureConfigKey>().map_err(|_| unknown(k))?, v);
            }
            Arc::new(b.build().map_err(place)?)
        }
        ObjectStoreScheme::Http => {
            let base = &parsed[..url::Position::BeforePath];
            let mut b = HttpBuilder::new().with_url(base).with_retry(retry);
            for (k, v) in options.store_options() {
                b = b.with_config(k.parse::<ClientConfigKey>().map_err(|_| unknown(k))?, v);
            }
            if parsed.scheme() == "http" {
                b = b.with_config(ClientConfigKey::AllowHttp, "true");
            }
            Arc::new(b.build().map_err(place)?)
        }
        ObjectStoreScheme::Local => Arc::new(LocalFileSystem::new()),
        _ => return Err(Error::invalid_argument(format!("{url}: this kind of URL is not supported"))),
    };
    Ok(store)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_told_from_paths() {
        for url in [
            "s3://b/k.parquet",
            "gs://b/k",
            "az://c/k",
            "abfss://c@a.dfs.core.windows.net/k",
            "https://h/k",
            "file:///tmp/x",
        ] {
            assert!(is_url(url), "{url}");
        }
        for path in ["data.parquet", "/tmp/x.parquet", "C:\\x.parquet", "s3:/b/k", "s3://"] {
            assert!(!is_url(path), "{path}");
        }
    }

    #[test]
    fn unknown_options_and_bad_retries_are_errors() {
        let e = locate("s3://b/k", &StorageOptions::new().with("aws_endpointt", "x")).unwrap_err();
        assert!(e.message().contains("aws_endpointt"), "{e}");
        let e = locate("s3://b/k", &StorageOptions::new().with("max_retries", "many")).unwrap_err();
        assert!(e.message().contains("max_retries"), "{e}");
        let ok = locate("s3://b/dir/k.parquet", &StorageOptions::new().with("Region", "eu-west-1")).unwrap();
        assert_eq!(ok.path.as_ref(), "dir/k.parquet");
    }
}
