//! Parquet's Thrift enums: physical type, converted type, repetition, encoding, codec, page type,
//! boundary order, edge interpolation algorithm.
//!
//! Each is a newtype over the `i32` on the wire rather than a Rust `enum`, because files carry
//! values this version does not know (newer writers, corrupt files): a newtype keeps such a
//! value, round-trips it byte for byte, and prints it as `UNKNOWN(n)`, where a Rust enum would
//! have to fail the whole footer. Readers match on the associated constants.

use std::fmt;

macro_rules! thrift_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $value:expr,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        pub struct $name(pub i32);

        impl $name {
            $($(#[$vdoc])* pub const $variant: $name = $name($value);)*

            /// The name the Parquet specification gives this value, if it is a known one.
            pub fn name(self) -> Option<&'static str> {
                match self.0 {
                    $($value => Some(stringify!($variant)),)*
                    _ => None,
                }
            }

            /// The value the specification names `name` (case-insensitive), for options given
            /// by name on a command line or from Python.
            pub fn from_name(name: &str) -> Option<$name> {
                $(if name.eq_ignore_ascii_case(stringify!($variant)) {
                    return Some($name::$variant);
                })*
                None
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.name() {
                    Some(n) => f.write_str(n),
                    None => write!(f, "UNKNOWN({})", self.0),
                }
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(self, f)
            }
        }
    };
}

thrift_enum! {
    /// The physical (storage) type of a leaf column.
    PhysicalType {
        /// One bit per value.
        BOOLEAN = 0,
        /// 32-bit signed integer, little-endian.
        INT32 = 1,
        /// 64-bit signed integer, little-endian.
        INT64 = 2,
        /// 12-byte legacy timestamp (nanoseconds of day, then Julian day).
        INT96 = 3,
        /// IEEE 754 single precision.
        FLOAT = 4,
        /// IEEE 754 double precision.
        DOUBLE = 5,
        /// Variable-length bytes: strings, JSON, blobs.
        BYTE_ARRAY = 6,
        /// Bytes of a length fixed by the schema (`type_length`).
        FIXED_LEN_BYTE_ARRAY = 7,
    }
}

impl PhysicalType {
    /// The width of one PLAIN-encoded value in bytes, for the fixed-width types (booleans are
    /// bit-packed and byte arrays are variable, so both give `None`; FIXED_LEN_BYTE_ARRAY
    /// depends on the schema and gives `None` too).
    pub fn fixed_width(self) -> Option<usize> {
        match self {
            Self::INT32 | Self::FLOAT => Some(4),
            Self::INT64 | Self::DOUBLE => Some(8),
            Self::INT96 => Some(12),
            _ => None,
        }
    }
}

thrift_enum! {
    /// The deprecated logical annotation of a schema element, superseded by `LogicalType` but
    /// still the only annotation in many files.
    ConvertedType {
        /// UTF-8 string.
        UTF8 = 0,
        /// A map group.
        MAP = 1,
        /// The key/value group inside a map.
        MAP_KEY_VALUE = 2,
        /// A list group.
        LIST = 3,
        /// An enum stored as UTF-8 bytes.
        ENUM = 4,
        /// A decimal with the element's scale and precision.
        DECIMAL = 5,
        /// Days since the Unix epoch.
        DATE = 6,
        /// Milliseconds since midnight.
        TIME_MILLIS = 7,
        /// Microseconds since midnight.
        TIME_MICROS = 8,
        /// Milliseconds since the Unix epoch.
        TIMESTAMP_MILLIS = 9,
        /// Microseconds since the Unix epoch.
        TIMESTAMP_MICROS = 10,
        /// Unsigned 8-bit integer.
        UINT_8 = 11,
        /// Unsigned 16-bit integer.
        UINT_16 = 12,
        /// Unsigned 32-bit integer.
        UINT_32 = 13,
        /// Unsigned 64-bit integer.
        UINT_64 = 14,
        /// Signed 8-bit integer.
        INT_8 = 15,
        /// Signed 16-bit integer.
        INT_16 = 16,
        /// Signed 32-bit integer.
        INT_32 = 17,
        /// Signed 64-bit integer.
        INT_64 = 18,
        /// A JSON document.
        JSON = 19,
        /// A BSON document.
        BSON = 20,
        /// Months, days, milliseconds in a 12-byte fixed-length array.
        INTERVAL = 21,
    }
}

thrift_enum! {
    /// Whether a schema field is required, optional or repeated.
    Repetition {
        /// Exactly one value per parent.
        REQUIRED = 0,
        /// Zero or one value per parent.
        OPTIONAL = 1,
        /// Zero or more values per parent.
        REPEATED = 2,
        /// A fixed-size vector group.
        VECTOR = 3,
    }
}

thrift_enum! {
    /// How the values (or levels) of a page are encoded.
    Encoding {
        /// Values one after another in their natural form.
        PLAIN = 0,
        /// Deprecated name for dictionary encoding (PLAIN dictionary page + RLE indexes).
        PLAIN_DICTIONARY = 2,
        /// The RLE / bit-packing hybrid.
        RLE = 3,
        /// Deprecated MSB-first bit packing, for levels only.
        BIT_PACKED = 4,
        /// Delta encoding for integers.
        DELTA_BINARY_PACKED = 5,
        /// Byte arrays as delta-encoded lengths followed by all the bytes.
        DELTA_LENGTH_BYTE_ARRAY = 6,
        /// Byte arrays as shared-prefix lengths plus delta-length suffixes.
        DELTA_BYTE_ARRAY = 7,
        /// Dictionary indexes in the RLE / bit-packing hybrid.
        RLE_DICTIONARY = 8,
        /// The bytes of fixed-width values split into one stream per byte position.
        BYTE_STREAM_SPLIT = 9,
    }
}

thrift_enum! {
    /// The compression codec of a column chunk.
    CompressionCodec {
        /// No compression.
        UNCOMPRESSED = 0,
        /// Snappy raw format.
        SNAPPY = 1,
        /// Gzip (deflate with a gzip header).
        GZIP = 2,
        /// LZO (not supported by parquetry, nor by most readers).
        LZO = 3,
        /// Brotli.
        BROTLI = 4,
        /// Deprecated LZ4 with Hadoop framing.
        LZ4 = 5,
        /// Zstandard.
        ZSTD = 6,
        /// LZ4 raw block format.
        LZ4_RAW = 7,
    }
}

thrift_enum! {
    /// The kind of a page in a column chunk.
    PageType {
        /// A version 1 data page.
        DATA_PAGE = 0,
        /// An index page (never written by known writers).
        INDEX_PAGE = 1,
        /// The dictionary page at the start of a chunk.
        DICTIONARY_PAGE = 2,
        /// A version 2 data page (levels stored uncompressed before the values).
        DATA_PAGE_V2 = 3,
    }
}

thrift_enum! {
    /// Whether the min/max lists of a column index are sorted.
    BoundaryOrder {
        /// No order.
        UNORDERED = 0,
        /// Ascending.
        ASCENDING = 1,
        /// Descending.
        DESCENDING = 2,
    }
}

thrift_enum! {
    /// How edges between points are interpolated in a GEOGRAPHY column.
    EdgeInterpolationAlgorithm {
        /// Great circle on a sphere (the default).
        SPHERICAL = 0,
        /// Vincenty's formulae.
        VINCENTY = 1,
        /// Thomas' formulae.
        THOMAS = 2,
        /// Andoyer-Lambert.
        ANDOYER = 3,
        /// Karney's geodesics.
        KARNEY = 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_case_insensitively() {
        assert_eq!(Encoding::from_name("delta_byte_array"), Some(Encoding::DELTA_BYTE_ARRAY));
        assert_eq!(Encoding::from_name("RLE_DICTIONARY"), Some(Encoding::RLE_DICTIONARY));
        assert_eq!(PhysicalType::from_name("Int96"), Some(PhysicalType::INT96));
        assert_eq!(Encoding::from_name("SUPERFAST"), None);
    }
}
