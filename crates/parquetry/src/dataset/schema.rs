//! A dataset's schema from its files': footers read (several at once), their Arrow schemas
//! unified into one, or checked against the schema given.

use std::sync::Arc;

use arrow_schema::{Field, FieldRef, Schema};

use super::listing::Listed;
use super::remote::{Footer, Storage};
use crate::error::{Error, Result};
use crate::read::ParquetFile;

/// Each file's footer and Arrow schema (and, for an object, its source), in the files'
/// order: the local files' reading `threads` at once, the objects' all requested at once
/// (a request waits for the store, not for a thread; see `Storage::footers`).
pub(crate) fn read_footers(files: &[Listed], threads: usize, storage: &Storage) -> Result<Vec<Footer>> {
    let (objects, local): (Vec<&Listed>, Vec<&Listed>) =
        files.iter().partition(|f| storage.is_url(&f.path.display().to_string()));
    let mut objects = match objects.is_empty() {
        true => Vec::new(),
        false => storage.footers(&objects)?,
    }
    .into_iter();
    let one = |f: &&Listed| -> Result<Footer> {
        let file = ParquetFile::open(&f.path).map_err(|e| e.context(format_args!("{}", f.path.display())))?;
        Ok((file.metadata().clone(), file.arrow_schema(), None))
    };
    let mut local = match threads <= 1 || local.len() < 2 {
        true => local.iter().map(one).collect::<Result<Vec<_>>>()?,
        false => crate::threads::pool(threads)?.install(|| {
            use rayon::prelude::*;
            local.par_iter().map(one).collect::<Result<Vec<_>>>()
        })?,
    }
    .into_iter();
    // Back in the files' order.
    let mut next = |f: &Listed| match storage.is_url(&f.path.display().to_string()) {
        true => objects.next(),
        false => local.next(),
    };
    files.iter().map(|f| next(f).ok_or_else(|| Error::corrupt("dataset: a footer is missing"))).collect()
}

/// A file's columns whose type differs from the dataset's, each with the error reading it
/// gives, one list per file.
pub(crate) type Conflicts = Vec<Vec<(String, String)>>;

/// The columns the files give the dataset: with `given`, its fields that are not partition
/// keys (whatever files hold them); otherwise every file column in the order first seen,
/// with the type of the first file that has it, nullable where a file lacks it. A file
/// holding a column with another type gets a conflict naming both files (an error only
/// when that column of that file is read). A file column named like a partition key is an
/// error naming it.
pub(crate) fn file_fields(
    files: &[Listed],
    footers: &[Footer],
    keys: &[String],
    given: Option<&Schema>,
) -> Result<(Vec<FieldRef>, Conflicts)> {
    let mut conflicts: Conflicts = vec![Vec::new(); footers.len()];
    if let Some(given) = given {
        let fields = given.fields().iter().filter(|f| !keys.contains(f.name())).cloned().collect();
        return Ok((fields, conflicts));
    }
    // (field, index of the first file that has it, in how many files)
    let mut fields: Vec<(FieldRef, usize, usize)> = Vec::new();
    for (i, (_, schema, _)) in footers.iter().enumerate() {
        for field in schema.fields() {
            match fields.iter_mut().find(|(f, _, _)| f.name() == field.name()) {
                Some((f, first, seen)) => {
                    if f.data_type() != field.data_type() {
                        conflicts[i].push((
                            field.name().clone(),
                            format!(
                                "column '{}' is {} in {} but {} in {}: give a schema to read both as one type",
                                field.name(),
                                f.data_type(),
                                files[*first].path.display(),
                                field.data_type(),
                                files[i].path.display()
                            ),
                        ));
                    }
                    if field.is_nullable() && !f.is_nullable() {
                        *f = Arc::new(f.as_ref().clone().with_nullable(true));
                    }
                    *seen += 1;
                }
                None => fields.push((Arc::clone(field), i, 1)),
            }
        }
    }
    let out: Vec<FieldRef> = fields
        .into_iter()
        .map(|(f, _, seen)| match seen < footers.len() && !f.is_nullable() {
            true => Arc::new(Field::clone(&f).with_nullable(true)),
            false => f,
        })
        .collect();
    if let Some(f) = out.iter().find(|f| keys.contains(f.name())) {
        return Err(Error::invalid_argument(format!(
            "column '{}' is both a partition key (a folder name) and a column in the files",
            f.name()
        )));
    }
    Ok((out, conflicts))
}
