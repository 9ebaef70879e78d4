//! The object store through moto's S3 server, started here on a free loopback port (skipped,
//! like the pyarrow tests, when Python with moto and boto3 is missing). boto3 puts the
//! reference files and looks at what parquetry left; parquetry lists, reads and uploads.
//! (Values against pyarrow, errors and HTTP ranges: crates/parquetry-python/tests/test_object_store.py.)
#![cfg(feature = "object-store")]

mod common;

use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use parquetry::read::ReadOptions;
use parquetry::store::{create_url, list, open_url, StorageOptions};

/// moto's server, killed when dropped.
struct Moto {
    child: Child,
    endpoint: String,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_moto() -> Option<Moto> {
    let python = common::python();
    let has =
        Command::new(&python).args(["-c", "import moto.server, boto3"]).output().is_ok_and(|o| o.status.success());
    if !has {
        assert!(
            std::env::var_os("PARQUETRY_REQUIRE_PYTHON").is_none(),
            "moto and boto3 are required (PARQUETRY_REQUIRE_PYTHON is set): pip install -r requirements-test.txt"
        );
        eprintln!("note: {python} with moto and boto3 is missing: the object store tests are skipped");
        return None;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let child = Command::new(&python)
        .args(["-m", "moto.server", "-H", "127.0.0.1", "-p", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start moto");
    let moto = Moto { child, endpoint: format!("http://127.0.0.1:{port}") };
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "moto did not start listening on port {port}");
        std::thread::sleep(Duration::from_millis(100));
    }
    Some(moto)
}

/// Runs a boto3 script with `s3` (a client of the server) and `BUCKET` defined; returns stdout.
fn boto3(moto: &Moto, script: &str) -> String {
    let prelude = format!(
        "import boto3, sys\ns3 = boto3.client('s3', endpoint_url='{}', aws_access_key_id='test', \
         aws_secret_access_key='test', region_name='us-east-1')\nBUCKET = 'rust'\n",
        moto.endpoint
    );
    let out = Command::new(common::python()).args(["-c", &(prelude + script)]).output().expect("run python");
    assert!(out.status.success(), "boto3 script failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

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
    let mut script = "s3.create_bucket(Bucket=BUCKET)\n".to_owned();
    for name in names {
        script += &format!("s3.upload_file({:?}, BUCKET, 'dir/{name}')\n", dir.join(name).display().to_string());
    }
    script += "s3.put_object(Bucket=BUCKET, Key='other/x', Body=b'x')\n";
    boto3(&moto, &script);
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
        let mut file = open_url(&format!("s3://rust/dir/{name}"), &options).unwrap();
        let stats = file.source().stats();
        let size = std::fs::metadata(dir.join(name)).unwrap().len();
        assert_eq!((stats.requests(), stats.bytes()), (1, size.min(64 * 1024)), "{name}");
        let rows: usize = file.read_all(&ReadOptions::default()).unwrap().iter().map(|b| b.num_rows()).sum();
        let row = manifest.iter().find(|r| r.path == format!("data/{name}")).unwrap();
        assert_eq!(Some(rows as i64), row.num_rows, "{name}");
        assert!(stats.requests() <= 1 + file.num_row_groups() as u64, "{name}: {} requests", stats.requests());
    }

    // An upload dropped before `finish` (as on an error) is aborted: no object, no upload left.
    let mut writer = create_url("s3://rust/out/dropped.parquet", &options).unwrap();
    writer.write_all(&vec![7u8; 20 << 20]).unwrap(); // two parts sent
    drop(writer);
    let left = boto3(
        &moto,
        "print(s3.list_objects_v2(Bucket=BUCKET, Prefix='out/').get('KeyCount', 0), \
         len(s3.list_multipart_uploads(Bucket=BUCKET).get('Uploads', [])))",
    );
    assert_eq!(left.trim(), "0 0");

    // A finished one is there, byte for byte.
    let mut writer = create_url("s3://rust/out/done.bin", &options).unwrap();
    let bytes: Vec<u8> = (0..(17u32 << 20)).map(|i| (i % 251) as u8).collect();
    writer.write_all(&bytes).unwrap();
    writer.finish().unwrap();
    let got = boto3(
        &moto,
        "import hashlib; b = s3.get_object(Bucket=BUCKET, Key='out/done.bin')['Body'].read(); \
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
