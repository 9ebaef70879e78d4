//! The CLI on s3:// URLs against moto's S3 server on loopback (started here; skipped like the
//! pyarrow tests when Python lacks moto): settings from the environment as a user sets them,
//! files put and checked with boto3 and pyarrow.

mod common;

use std::process::Command;

use common::moto::start_moto;

fn parquetry(env: &[(&'static str, String)], args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_parquetry"))
        .args(args)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .expect("run parquetry")
}

#[test]
fn cat_convert_and_merge_on_s3_urls() {
    if common::pyarrow_missing() {
        return;
    }
    let Some(moto) = start_moto() else { return };
    let file = common::corpus("data/alltypes_plain.parquet");
    moto.boto3(&format!(
        "s3.create_bucket(Bucket='cli')\ns3.upload_file({:?}, 'cli', 'in/a.parquet')",
        file.display().to_string()
    ));
    let env = moto.env();

    // cat reads the object; --stats counts its requests: a file smaller than the footer's
    // 512 KiB read comes whole with it, in one.
    let out = parquetry(&env, &["cat", "--csv", "--stats", "s3://cli/in/a.parquet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1 + 8);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let size = std::fs::metadata(&file).unwrap().len();
    assert!(stderr.contains(&format!("object store: 1 request, {size} bytes")), "{stderr}");

    // convert and merge write objects that pyarrow reads as the input's rows.
    let out =
        parquetry(&env, &["convert", "-q", "s3://cli/in/a.parquet", "s3://cli/out/c.parquet", "--compression", "zstd"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let local = file.display().to_string();
    let out = parquetry(&env, &["merge", "-q", "-o", "s3://cli/out/m.parquet", "s3://cli/in/a.parquet", &local]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let check = moto.boto3(&format!(
        "import io, pyarrow as pa, pyarrow.parquet as pq\n\
         want = pq.read_table({local:?})\n\
         get = lambda k: pq.read_table(io.BytesIO(s3.get_object(Bucket='cli', Key=k)['Body'].read()))\n\
         c, m = get('out/c.parquet'), get('out/m.parquet')\n\
         print(c.equals(want), m.equals(pa.concat_tables([want, want])), \
               pq.ParquetFile(io.BytesIO(s3.get_object(Bucket='cli', Key='out/c.parquet')['Body'].read())).metadata.row_group(0).column(0).compression)"
    ));
    assert_eq!(check.trim(), "True True ZSTD");

    // A missing key: an error naming the object and the cause, and nothing written.
    let out = parquetry(&env, &["convert", "-q", "s3://cli/in/missing.parquet", "s3://cli/out/x.parquet"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("s3://cli/in/missing.parquet") && stderr.contains("not found"), "{stderr}");
    let left = moto.boto3("print(s3.list_objects_v2(Bucket='cli', Prefix='out/x').get('KeyCount', 0))");
    assert_eq!(left.trim(), "0");
}

#[test]
fn compact_on_an_s3_url_merges_each_partitions_objects() {
    if common::pyarrow_missing() {
        return;
    }
    let Some(moto) = start_moto() else { return };
    // Three small files in each of two partitions, written by pyarrow and put with boto3.
    moto.boto3(
        "import io, pyarrow as pa, pyarrow.parquet as pq\n\
         s3.create_bucket(Bucket='cmp')\n\
         for k in range(2):\n\
         \x20   for j in range(3):\n\
         \x20       b = io.BytesIO(); pq.write_table(pa.table({'id': [k * 100 + j * 10 + i for i in range(10)]}), b)\n\
         \x20       s3.put_object(Bucket='cmp', Key=f'd/k={k}/p{j}.parquet', Body=b.getvalue())\n",
    );
    let env = moto.env();
    let out = parquetry(&env, &["compact", "--json", "s3://cmp/d/"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let done: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((done["files_before"].as_u64(), done["files_after"].as_u64()), (Some(6), Some(2)), "{done}");
    // One object per partition, holding the inputs' rows in their name order.
    let check = moto.boto3(
        "import io, pyarrow.parquet as pq\n\
         keys = sorted(o['Key'] for o in s3.list_objects_v2(Bucket='cmp')['Contents'])\n\
         print(len(keys), all(k.split('/')[2].startswith('compacted-') for k in keys))\n\
         for k in keys:\n\
         \x20   print(pq.read_table(io.BytesIO(s3.get_object(Bucket='cmp', Key=k)['Body'].read())).column('id').to_pylist())\n",
    );
    let want0: Vec<i64> = (0..30).collect();
    let want1: Vec<i64> = (100..130).collect();
    assert_eq!(check, format!("2 True\n{want0:?}\n{want1:?}\n"));

    // A missing bucket: an error naming the URL.
    let out = parquetry(&env, &["compact", "s3://no-such-bucket/d/"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("s3://no-such-bucket/d/") && stderr.contains("not found"), "{stderr}");
}
