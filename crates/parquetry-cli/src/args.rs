//! Option values shared by the commands (`--compression`, counts, byte sizes): each parser
//! checks one value and, on a bad one, returns a message naming the option and what it
//! accepts, without the command's name (the caller prefixes it).

use parquetry::compress::Codec;

const CODECS: &str = "none, uncompressed, snappy, gzip, brotli, lz4, lz4_raw, zstd";

/// `CODEC[:LEVEL]` of `--compression`, with the level checked against the codec's range.
pub(crate) fn codec(value: &str) -> Result<(Codec, Option<i32>), String> {
    let (name, level) = match value.split_once(':') {
        Some((n, l)) => (n, Some(l)),
        None => (value, None),
    };
    let codec = match name.to_ascii_lowercase().as_str() {
        "none" | "uncompressed" => Codec::Uncompressed,
        "snappy" => Codec::Snappy,
        "gzip" => Codec::Gzip,
        "brotli" => Codec::Brotli,
        "lz4" => Codec::Lz4,
        "lz4_raw" | "lz4raw" => Codec::Lz4Raw,
        "zstd" => Codec::Zstd,
        _ => return Err(format!("--compression: unknown codec '{name}' (codecs: {CODECS})")),
    };
    let Some(level) = level else { return Ok((codec, None)) };
    let (range, what) = match codec {
        Codec::Zstd => (-131072..=22, "1..=22, or negative for faster"),
        Codec::Gzip => (0..=9, "0..=9"),
        Codec::Brotli => (0..=11, "0..=11"),
        _ => return Err(format!("--compression: {name} takes no level (only zstd, gzip and brotli do)")),
    };
    match level.parse::<i32>() {
        Ok(l) if range.contains(&l) => Ok((codec, Some(l))),
        _ => Err(format!("--compression: '{level}' is not a {name} level ({what})")),
    }
}

/// A count of at least 1 (`_` separators allowed).
pub(crate) fn count(option: &str, value: &str) -> Result<usize, String> {
    match value.replace('_', "").parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("{option} '{value}' is not a whole number of at least 1")),
    }
}

/// A byte size of at least 1, with an optional K, M or G suffix (powers of 1024).
pub(crate) fn bytes(option: &str, value: &str) -> Result<usize, String> {
    let upper = value.to_ascii_uppercase();
    let digits = upper.trim_end_matches(['B', 'I']);
    let (digits, scale) = match digits.as_bytes().last() {
        Some(b'K') => (&digits[..digits.len() - 1], 1 << 10),
        Some(b'M') => (&digits[..digits.len() - 1], 1 << 20),
        Some(b'G') => (&digits[..digits.len() - 1], 1 << 30),
        _ => (digits, 1),
    };
    match digits.parse::<usize>().ok().and_then(|n| n.checked_mul(scale)) {
        Some(n) if n > 0 => Ok(n),
        _ => Err(format!("{option} '{value}' is not a size of at least 1 byte (a number, optionally with K, M or G)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codecs_and_levels() {
        assert_eq!(codec("ZSTD:3").unwrap(), (Codec::Zstd, Some(3)));
        assert_eq!(codec("none").unwrap(), (Codec::Uncompressed, None));
        assert_eq!(codec("lz4_raw").unwrap(), (Codec::Lz4Raw, None));
        assert!(codec("zstd:23").unwrap_err().contains("1..=22"));
        assert!(codec("gzip:x").unwrap_err().contains("0..=9"));
        assert!(codec("snappy:1").unwrap_err().contains("takes no level"));
        assert!(codec("lzo").unwrap_err().contains("unknown codec 'lzo'"));
    }

    #[test]
    fn sizes_and_counts() {
        assert_eq!(bytes("--page-size", "64K").unwrap(), 65536);
        assert_eq!(bytes("--page-size", "1MiB").unwrap(), 1 << 20);
        assert_eq!(bytes("--page-size", "100").unwrap(), 100);
        assert_eq!(bytes("--row-group-bytes", "2g").unwrap(), 2 << 30);
        assert!(bytes("--page-size", "0").is_err());
        assert!(bytes("--page-size", "k").is_err());
        assert_eq!(count("--row-group-size", "1_000").unwrap(), 1000);
        assert!(count("--row-group-size", "-1").is_err());
        assert!(count("--row-group-size", "0").unwrap_err().starts_with("--row-group-size '0' is not"));
    }
}
