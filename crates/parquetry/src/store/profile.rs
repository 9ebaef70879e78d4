//! AWS profiles (`~/.aws/credentials` and `~/.aws/config`, `AWS_PROFILE`), which
//! `object_store` does not read: the profile's keys, region and endpoint fill in what the
//! environment and the storage options leave unset, as the AWS CLI and boto3 would.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// `(object_store key, value)` pairs from the profile named by `AWS_PROFILE` (else
/// `default`): `aws_access_key_id`, `aws_secret_access_key`, `aws_session_token` from the
/// credentials file, `aws_region` and `aws_endpoint_url` from the config file.
pub(crate) fn profile_settings() -> Vec<(&'static str, String)> {
    let name = std::env::var("AWS_PROFILE").unwrap_or_else(|_| "default".to_owned());
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let file = |var: &str, default: &str| {
        std::env::var_os(var).map(PathBuf::from).or_else(|| home.as_ref().map(|h| h.join(default)))
    };
    let mut out = Vec::new();
    if let Some(text) =
        file("AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials").and_then(|p| std::fs::read_to_string(p).ok())
    {
        let section = sections(&text).remove(&name).unwrap_or_default();
        for key in ["aws_access_key_id", "aws_secret_access_key", "aws_session_token"] {
            if let Some(v) = section.get(key) {
                out.push((key, v.clone()));
            }
        }
    }
    if let Some(text) = file("AWS_CONFIG_FILE", ".aws/config").and_then(|p| std::fs::read_to_string(p).ok()) {
        let mut all = sections(&text);
        let section = all.remove(&format!("profile {name}")).or_else(|| all.remove(&name)).unwrap_or_default();
        if let Some(v) = section.get("region") {
            out.push(("aws_region", v.clone()));
        }
        if let Some(v) = section.get("endpoint_url") {
            out.push(("aws_endpoint_url", v.clone()));
        }
    }
    out
}

/// The `[section]`s of an INI file and their `key = value` lines (keys lower-case).
fn sections(text: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut current = None;
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = Some(name.trim().to_owned());
            continue;
        }
        if let (Some(section), Some((k, v))) = (&current, line.split_once('=')) {
            out.entry(section.clone()).or_default().insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::sections;

    #[test]
    fn ini_sections_and_keys() {
        let s =
            sections("# c\n[default]\naws_access_key_id = A\n\n[profile dev]\nregion=eu-west-1\nAWS_Secret = x = y\n");
        assert_eq!(s["default"]["aws_access_key_id"], "A");
        assert_eq!(s["profile dev"]["region"], "eu-west-1");
        assert_eq!(s["profile dev"]["aws_secret"], "x = y");
    }
}
