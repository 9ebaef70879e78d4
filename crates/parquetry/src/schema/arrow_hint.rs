//! The `ARROW:schema` key/value entry: the Arrow schema a writer (pyarrow, arrow-rs) stored
//! beside the Parquet schema, base64 of an Arrow IPC schema message. It restores what Parquet
//! types cannot say: large or view strings, dictionary encoding, time zones, durations.

use arrow_schema::Schema;

use crate::error::{Error, Result};

/// The key under which Arrow writers store their schema.
pub const ARROW_SCHEMA_KEY: &str = "ARROW:schema";

/// Decodes the value of an `ARROW:schema` entry into an Arrow schema.
pub fn decode_arrow_schema(value: &str) -> Result<Schema> {
    let bytes =
        base64_decode(value.as_bytes()).ok_or_else(|| Error::corrupt("ARROW:schema metadata is not valid base64"))?;
    arrow_ipc::convert::try_schema_from_ipc_buffer(&bytes)
        .map_err(|e| Error::corrupt(format!("ARROW:schema metadata is not an Arrow schema: {e}")))
}

/// The value of an `ARROW:schema` entry for `schema`: an IPC schema message behind the
/// continuation marker and its length, in standard base64, as Arrow C++ and arrow-rs write it.
pub fn encode_arrow_schema(schema: &Schema) -> String {
    use arrow_ipc::writer::{DictionaryTracker, IpcDataGenerator, IpcWriteOptions};
    let mut tracker = DictionaryTracker::new(true);
    let message = IpcDataGenerator {}
        .schema_to_bytes_with_dictionary_tracker(schema, &mut tracker, &IpcWriteOptions::default())
        .ipc_message;
    let mut framed = Vec::with_capacity(message.len() + 8);
    framed.extend_from_slice(&[0xff; 4]);
    framed.extend_from_slice(&(message.len() as u32).to_le_bytes());
    framed.extend_from_slice(&message);
    base64_encode(&framed)
}

/// Standard base64 with padding.
fn base64_encode(input: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
    for chunk in input.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Standard base64 (with or without padding); `None` on any other byte.
fn base64_decode(input: &[u8]) -> Option<Vec<u8>> {
    fn sextet(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    }
    let trimmed: &[u8] = {
        let mut end = input.len();
        while end > 0 && (input[end - 1] == b'=' || input[end - 1].is_ascii_whitespace()) {
            end -= 1;
        }
        &input[..end]
    };
    let mut out = Vec::with_capacity(trimmed.len() / 4 * 3 + 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &c in trimmed {
        acc = (acc << 6) | sextet(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::{base64_decode, base64_encode};

    #[test]
    fn base64_known_vectors() {
        // RFC 4648 section 10 test vectors.
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64_decode(encoded.as_bytes()).unwrap(), plain.as_bytes());
            assert_eq!(base64_encode(plain.as_bytes()), encoded);
        }
        assert!(base64_decode(b"Zm9v!").is_none());
    }
}
