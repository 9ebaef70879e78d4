//! The object store through moto's S3 server, started here on a free loopback port (skipped,
//! like the pyarrow tests, when Python with moto and boto3 is missing). boto3 puts the
//! reference files and looks at what parquetry left; parquetry lists, reads and uploads.
//! (Values against pyarrow, errors and HTTP ranges: crates/parquetry-python/tests/test_object_store.py.)
#![cfg(feature = "object-store")]

mod common;

use std::io::Write;
use std::process::Command;

use common::moto::{start_moto, Moto};
use parquetry::read::ReadOptions;
use parquetry::store::{create_url, delete_prefix, list, open_url, StorageOptions};

fn options(moto: &Moto) -> StorageOptions {
    StorageOptions::new()
        .with("aws_endpoint_url", &moto.endpoint)
        .with("aws_access_key_id", "test")
        .with("aws_secret_access_key", "test")
        .with("aws_region", "us-east-1")
}

#[test]
fn list_read_and_an_aborted_upload() {
    if common::pyarrow_missing() {
        return;
    }
    let Some(moto) = start_moto() else { return };
    let dir = common::corpus_dir().join("data");
    let names = ["alltypes_plain.parquet", "nested_lists.snappy.parquet", "datapage_v2.snappy.parquet"];
    let mut script = "BUCKET = 'rust'\ns3.create_bucket(Bucket=BUCKET)\n".to_owned();
    for name in names {
        script += &format!("s3.upload_file({:?}, BUCKET, 'dir/{name}')\n", dir.join(name).display().to_string());
    }
    script += "s3.put_object(Bucket=BUCKET, Key='other/x', Body=b'x')\n";
    moto.boto3(&script);
    let options = options(&moto);

    // Listing: every object under the prefix (not `other/`), as URLs with their sizes.
    let mut want: Vec<(String, u64)> =
        names.iter().map(|n| (format!("s3://rust/dir/{n}"), std::fs::metadata(dir.join(n)).unwrap().len())).collect();
    want.sort();
    assert_eq!(list("s3://rust/dir/", &options).unwrap(), want);
    assert_eq!(list("s3://rust/dir", &options).unwrap(), want);
    assert!(list("s3://rust/nothing/", &options).unwrap().is_empty());

    // Opening costs one request of the whole (small) file; reading all of it costs no more
    // than one request per row group, and the rows are the manifest's.
    let manifest = common::manifest();
    for name in names {
        let file = open_url(&format!("s3://rust/dir/{name}"), &options).unwrap();
        let stats = file.source().stats();
        let size = std::fs::metadata(dir.join(name)).unwrap().len();
        assert_eq!((stats.requests(), stats.bytes()), (1, size.min(parquetry::store::TAIL_READ)), "{name}");
        let rows: usize = common::read_all(&file, &ReadOptions::default()).unwrap().iter().map(|b| b.num_rows()).sum();
        let row = manifest.iter().find(|r| r.path == format!("data/{name}")).unwrap();
        assert_eq!(Some(rows as i64), row.num_rows, "{name}");
        assert!(stats.requests() <= 1 + file.num_row_groups() as u64, "{name}: {} requests", stats.requests());
    }

    // An upload dropped before `finish` (as on an error) is aborted: no object, no upload left.
    let mut writer = create_url("s3://rust/out/dropped.parquet", &options).unwrap();
    writer.write_all(&vec![7u8; 20 << 20]).unwrap(); // two parts sent
    drop(writer);
    let left = moto.boto3(
        "BUCKET = 'rust'; print(s3.list_objects_v2(Bucket=BUCKET, Prefix='out/').get('KeyCount', 0), \
         len(s3.list_multipart_uploads(Bucket=BUCKET).get('Uploads', [])))",
    );
    assert_eq!(left.trim(), "0 0");

    // A finished one is there, byte for byte.
    let mut writer = create_url("s3://rust/out/done.bin", &options).unwrap();
    let bytes: Vec<u8> = (0..(17u32 << 20)).map(|i| (i % 251) as u8).collect();
    writer.write_all(&bytes).unwrap();
    writer.finish().unwrap();
    let got = moto.boto3(
        "import hashlib; BUCKET = 'rust'; b = s3.get_object(Bucket=BUCKET, Key='out/done.bin')['Body'].read(); \
         print(len(b), hashlib.sha256(b).hexdigest())",
    );
    let want = Command::new(common::python())
        .args([
            "-c",
            "import hashlib; b = bytes(i % 251 for i in range(17 << 20)); print(len(b), hashlib.sha256(b).hexdigest())",
        ])
        .output()
        .unwrap();
    assert_eq!(got, String::from_utf8(want.stdout).unwrap());
}

#[test]
fn delete_prefix_deletes_whole_segments_only() {
    if common::pyarrow_missing() {
        return;
    }
    let Some(moto) = start_moto() else { return };
    let keys = ["d/k=1/a.parquet", "d/k=1/sub/b.parquet", "d/k=10/c.parquet", "d/k=1.parquet", "d/_SUCCESS"];
    let mut script = "s3.create_bucket(Bucket='del')\n".to_owned();
    for key in keys {
        script += &format!("s3.put_object(Bucket='del', Key={key:?}, Body=b'x')\n");
    }
    moto.boto3(&script);
    let options = options(&moto);

    // `k=1/` reaches `k=1/` and what is below it, not `k=10/` nor the object `k=1.parquet`.
    let deleted = delete_prefix("s3://del/d/k=1/", &options).unwrap();
    assert_eq!(deleted, ["s3://del/d/k=1/a.parquet", "s3://del/d/k=1/sub/b.parquet"]);
    let left = moto.boto3("print(sorted(o['Key'] for o in s3.list_objects_v2(Bucket='del')['Contents']))");
    assert_eq!(left.trim(), "['d/_SUCCESS', 'd/k=1.parquet', 'd/k=10/c.parquet']");
    // Nothing left under it: nothing to do, no error.
    assert!(delete_prefix("s3://del/d/k=1", &options).unwrap().is_empty());

    // A missing bucket is an error naming the URL.
    let e = delete_prefix("s3://no-such-bucket/d/", &options).unwrap_err();
    assert!(e.to_string().contains("s3://no-such-bucket/d/"), "{e}");
    assert!(e.to_string().contains("not found"), "{e}");
}
