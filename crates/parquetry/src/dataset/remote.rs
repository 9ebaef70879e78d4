//! A dataset's object storage (feature `object-store`): listing a URL folder or glob, and
//! reading the footers of its objects. Without the feature, URLs are refused by name.

#[cfg(feature = "object-store")]
use std::path::PathBuf;

use arrow_schema::SchemaRef;

use super::listing::Listed;
#[cfg(feature = "object-store")]
use super::listing::{is_glob, is_hidden};
use crate::error::{Error, Result};
use crate::format::FileMetaData;

/// The settings of a dataset's object store (none without the feature).
#[derive(Debug, Clone, Default)]
pub struct Storage {
    #[cfg(feature = "object-store")]
    pub(crate) options: crate::store::StorageOptions,
    #[cfg(feature = "object-store")]
    pub(crate) stats: std::sync::Arc<crate::store::RequestStats>,
}

/// A file's opened footer: its metadata, schema and (for an object) a source to read it by.
pub(crate) type Footer = (FileMetaData, SchemaRef, Option<Remote>);

#[cfg(feature = "object-store")]
pub(crate) type Remote = crate::store::ObjectSource;
#[cfg(not(feature = "object-store"))]
pub(crate) type Remote = std::convert::Infallible;

impl Storage {
    /// Whether `source` is an object store URL.
    pub(crate) fn is_url(&self, source: &str) -> bool {
        source.split_once("://").is_some_and(|(scheme, _)| scheme != "file")
    }

    /// Appends the objects `source` (a URL: one object, a folder, or a glob) stands for,
    /// skipping names below its folder that start with one of `ignore`.
    #[cfg(feature = "object-store")]
    pub(crate) fn list(&self, source: &str, out: &mut Vec<Listed>, ignore: &[String]) -> Result<()> {
        let glob = is_glob(source);
        let base = match glob {
            // The text before the folder holding the first wildcard (a Path would fold `//`).
            true => {
                let first = source.find(['*', '?', '[']).unwrap_or(source.len());
                source[..source[..first].rfind('/').unwrap_or(0)].to_owned()
            }
            false => source.trim_end_matches('/').to_owned(),
        };
        let prefix = format!("{}/", base.trim_end_matches('/'));
        let listed = crate::store::list(&prefix, &self.options)?;
        if !glob && !source.ends_with('/') {
            // One object, when the URL names one exactly.
            if let Some((url, size)) = crate::store::list(source, &self.options)?.into_iter().find(|(u, _)| u == source)
            {
                out.push(Listed { path: PathBuf::from(url), base: None, size });
                return Ok(());
            }
        }
        let pattern = match glob {
            true => Some(
                glob::Pattern::new(source)
                    .map_err(|e| Error::invalid_argument(format!("glob pattern {source:?}: {e}")))?,
            ),
            false => None,
        };
        let options = glob::MatchOptions { require_literal_separator: true, ..Default::default() };
        let mut found: Vec<Listed> = Vec::new();
        for (url, size) in listed {
            let below = url.strip_prefix(&prefix).unwrap_or(&url);
            if below.split('/').any(|c| is_hidden(c, ignore)) {
                continue;
            }
            if let Some(p) = &pattern {
                // A match, or an object inside a matched folder.
                let matched = p.matches_with(&url, options)
                    || url.match_indices('/').any(|(i, _)| i > prefix.len() && p.matches_with(&url[..i], options));
                if !matched {
                    continue;
                }
            }
            found.push(Listed { path: PathBuf::from(url), base: Some(PathBuf::from(&base)), size });
        }
        found.sort_by(|a, b| a.path.as_os_str().cmp(b.path.as_os_str()));
        out.extend(found);
        Ok(())
    }

    #[cfg(not(feature = "object-store"))]
    pub(crate) fn list(&self, source: &str, _out: &mut Vec<Listed>, _ignore: &[String]) -> Result<()> {
        Err(Error::unsupported(format!("{source}: object storage needs parquetry's `object-store` feature")))
    }

    /// Reads the footers of `files` (objects: one request each for its tail, up to
    /// `store::FOOTERS_AT_ONCE` in flight), in order.
    #[cfg(feature = "object-store")]
    pub(crate) fn footers(&self, files: &[&Listed]) -> Result<Vec<Footer>> {
        let urls: Vec<String> = files.iter().map(|f| f.path.display().to_string()).collect();
        crate::store::open_urls(&urls, &self.options).into_iter().map(|opened| self.kept(opened?)).collect()
    }

    /// What a dataset keeps of an opened object: its footer, and a source over the same
    /// version holding the page indexes and bloom filters when the tail request brought them.
    #[cfg(feature = "object-store")]
    fn kept(&self, opened: crate::read::ParquetFile<Remote>) -> Result<Footer> {
        // Where the page indexes and bloom filters start: kept with the source if short.
        let chunks = opened.metadata().row_groups.iter().flat_map(|rg| &rg.columns);
        let structures = chunks.flat_map(|c| {
            let bloom = c.meta_data.as_ref().and_then(|m| m.bloom_filter_offset);
            [c.column_index_offset, c.offset_index_offset, bloom]
        });
        let from = structures.flatten().filter_map(|o| u64::try_from(o).ok()).min();
        let stats = std::sync::Arc::clone(&self.stats);
        let source = match from {
            Some(from) => opened.source().detached_keeping(stats, from),
            None => opened.source().detached(stats),
        };
        self.stats.add_from(&opened.source().stats());
        Ok((opened.metadata().clone(), opened.arrow_schema(), Some(source)))
    }

    #[cfg(not(feature = "object-store"))]
    pub(crate) fn footers(&self, files: &[&Listed]) -> Result<Vec<Footer>> {
        let first = files.first().map(|f| f.path.display().to_string()).unwrap_or_default();
        Err(Error::unsupported(format!("{first}: object storage needs parquetry's `object-store` feature")))
    }
}
