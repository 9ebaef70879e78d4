//! The command line of `parquetry convert`: every value is checked here, before any file is
//! opened, and a bad one is an error naming the option and the values it accepts.

use parquetry::compress::{Codec, Compression};
use parquetry::format::Encoding;
use parquetry::write::{DataPageVersion, StatisticsLevel, WriteOptions};

/// What the command was asked to do.
pub(crate) struct Options {
    pub input: String,
    pub output: String,
    /// The writer's options that do not depend on the schema.
    pub write: WriteOptions,
    /// `--encoding` in order: a column (or every column that fits) and its encoding.
    pub encodings: Vec<(Option<String>, Encoding)>,
    /// The first option given that only Parquet output takes, to refuse it for other outputs.
    pub parquet_only: Option<String>,
    pub batch_size: usize,
    /// Threads decoding a Parquet input's columns (encoding threads are in `write`).
    pub threads: usize,
    pub infer_rows: usize,
    pub quiet: bool,
}

/// Parses the arguments after `convert`; `None` when help was shown.
pub(crate) fn parse(args: &[String], help: &str) -> Result<Option<Options>, String> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let mut opts = Options {
        input: String::new(),
        output: String::new(),
        write: WriteOptions::default().with_threads(cores),
        encodings: Vec::new(),
        parquet_only: None,
        batch_size: 65536,
        threads: cores,
        infer_rows: 1000,
        quiet: false,
    };
    let mut paths = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or_else(|| format!("convert: {name} needs a value"));
        if a.starts_with("--") && is_parquet_option(a) && opts.parquet_only.is_none() {
            opts.parquet_only = Some(a.clone());
        }
        let w = std::mem::take(&mut opts.write);
        opts.write = match a.as_str() {
            "-h" | "--help" => {
                print!("{help}");
                return Ok(None);
            }
            "-q" | "--quiet" => {
                opts.quiet = true;
                w
            }
            "--compression" => match codec(&value("--compression")?)? {
                (c, Some(level)) => w.with_compression(Compression::new(c, Some(level))),
                (c, None) => w.with_compression(c),
            },
            "--no-dictionary" => w.with_dictionary(false),
            "--encoding" => {
                opts.encodings.push(encoding_arg(&value("--encoding")?)?);
                w
            }
            "--row-group-size" => w.with_row_group_rows(count("--row-group-size", &value("--row-group-size")?)?),
            "--page-size" => w.with_data_page_size(bytes("--page-size", &value("--page-size")?)?),
            "--data-page-version" => w.with_data_page_version(match value("--data-page-version")?.as_str() {
                "1" => DataPageVersion::V1,
                "2" => DataPageVersion::V2,
                other => return Err(format!("convert: --data-page-version '{other}' is not 1 or 2")),
            }),
            "--no-statistics" => w.with_statistics(StatisticsLevel::None),
            "--no-page-index" => w.with_page_index(false),
            "--bloom-filter" => {
                let (column, ndv, fpp) = bloom_filter_arg(&value("--bloom-filter")?)?;
                let w = w.with_column_bloom_filter_enabled(&column, true);
                let w = match ndv {
                    Some(n) => w.with_column_bloom_filter_ndv(&column, n),
                    None => w,
                };
                match fpp {
                    Some(p) => w.with_column_bloom_filter_fpp(&column, p),
                    None => w,
                }
            }
            "--batch-size" => {
                opts.batch_size = count("--batch-size", &value("--batch-size")?)?;
                w
            }
            "--threads" => {
                opts.threads = count("--threads", &value("--threads")?)?;
                w.with_threads(opts.threads)
            }
            "--infer-rows" => {
                opts.infer_rows = count("--infer-rows", &value("--infer-rows")?)?;
                w
            }
            "-" => {
                paths.push(a.clone());
                w
            }
            s if s.starts_with('-') => return Err(format!("convert: unknown option '{s}'\n\n{help}")),
            s => {
                paths.push(s.to_owned());
                w
            }
        };
    }
    match <[String; 2]>::try_from(paths) {
        Ok([input, output]) => (opts.input, opts.output) = (input, output),
        Err(paths) if paths.len() < 2 => return Err(format!("convert: needs INPUT and OUTPUT\n\n{help}")),
        Err(paths) => {
            return Err(format!("convert: unexpected argument '{}' (one INPUT and one OUTPUT only)", paths[2]))
        }
    }
    Ok(Some(opts))
}

fn is_parquet_option(a: &str) -> bool {
    matches!(
        a,
        "--compression"
            | "--no-dictionary"
            | "--encoding"
            | "--row-group-size"
            | "--page-size"
            | "--data-page-version"
            | "--no-statistics"
            | "--no-page-index"
            | "--bloom-filter"
    )
}

/// `--compression CODEC[:LEVEL]` (crate::args::codec), its message prefixed with the command.
fn codec(value: &str) -> Result<(Codec, Option<i32>), String> {
    crate::args::codec(value).map_err(|e| format!("convert: {e}"))
}

/// `[COLUMN=]ENCODING`; the column name may itself hold '=' (encodings never do).
fn encoding_arg(value: &str) -> Result<(Option<String>, Encoding), String> {
    let (column, name) = match value.rsplit_once('=') {
        Some(("", _)) => return Err(format!("convert: --encoding '{value}' names no column")),
        Some((c, e)) => (Some(c.to_owned()), e),
        None => (None, value),
    };
    let encoding = parquetry::write::writable_encoding(name).map_err(|e| format!("convert: --encoding: {e}"))?;
    Ok((column, encoding))
}

/// `COLUMN[:NDV[:FPP]]` (NDV may be empty: `COLUMN::FPP`); the column name may itself hold
/// ':' when the parts after it are not numbers.
fn bloom_filter_arg(value: &str) -> Result<(String, Option<u64>, Option<f64>), String> {
    let bad = |why: &str| Err(format!("convert: --bloom-filter '{value}': {why} (COLUMN[:NDV[:FPP]])"));
    let parts: Vec<&str> = value.rsplitn(3, ':').collect();
    let ndv = |s: &str| if s.is_empty() { Some(None) } else { s.parse::<u64>().ok().map(Some) };
    let (column, ndv, fpp) = match parts.as_slice() {
        [fpp, n, column] if ndv(n).is_some() && fpp.parse::<f64>().is_ok() => {
            (column.to_string(), ndv(n).flatten(), fpp.parse::<f64>().ok())
        }
        [n, _, ..] if ndv(n).is_some() => (value[..value.len() - n.len() - 1].to_owned(), ndv(n).flatten(), None),
        _ => (value.to_owned(), None, None),
    };
    if column.is_empty() {
        return bad("names no column");
    }
    if let Some(p) = fpp.filter(|p| !(*p > 0.0 && *p < 1.0)) {
        return bad(&format!("the false positive probability {p} is not in (0, 1)"));
    }
    Ok((column, ndv, fpp))
}

/// A count of at least 1 (crate::args::count).
fn count(option: &str, value: &str) -> Result<usize, String> {
    crate::args::count(option, value).map_err(|e| format!("convert: {e}"))
}

/// A byte size with an optional K, M or G suffix (crate::args::bytes).
fn bytes(option: &str, value: &str) -> Result<usize, String> {
    crate::args::bytes(option, value).map_err(|e| format!("convert: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_with_and_without_columns() {
        assert_eq!(encoding_arg("plain").unwrap(), (None, Encoding::PLAIN));
        assert_eq!(encoding_arg("a=b=Delta_Byte_Array").unwrap(), (Some("a=b".into()), Encoding::DELTA_BYTE_ARRAY));
        assert!(encoding_arg("=PLAIN").is_err());
        assert!(encoding_arg("x=BIT_PACKED").unwrap_err().contains("unknown encoding 'BIT_PACKED'"));
    }

    #[test]
    fn bloom_filters_with_and_without_sizes() {
        assert_eq!(bloom_filter_arg("id").unwrap(), ("id".into(), None, None));
        assert_eq!(bloom_filter_arg("id:1000").unwrap(), ("id".into(), Some(1000), None));
        assert_eq!(bloom_filter_arg("id:1000:0.01").unwrap(), ("id".into(), Some(1000), Some(0.01)));
        assert_eq!(bloom_filter_arg("id::0.01").unwrap(), ("id".into(), None, Some(0.01)));
        assert_eq!(bloom_filter_arg("a:b").unwrap(), ("a:b".into(), None, None));
        assert_eq!(bloom_filter_arg("a:b:7").unwrap(), ("a:b".into(), Some(7), None));
        assert!(bloom_filter_arg("id:10:1.5").unwrap_err().contains("not in (0, 1)"));
        assert!(bloom_filter_arg(":10").unwrap_err().contains("names no column"));
    }
}
