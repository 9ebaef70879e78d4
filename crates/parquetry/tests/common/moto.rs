//! moto's S3 server on a free loopback port, for the object store tests (shared with the
//! CLI's tests), and boto3 scripts against it.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// moto's server, killed when dropped.
pub struct Moto {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub endpoint: String,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

/// Starts moto, or `None` (with a note) when Python lacks moto or boto3; with
/// `PARQUETRY_REQUIRE_PYTHON` set (./test.sh), a missing moto is a failure instead.
pub fn start_moto() -> Option<Moto> {
    let python = python();
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

impl Moto {
    /// Runs a boto3 script with `s3` (a client of this server) defined; returns its stdout.
    pub fn boto3(&self, script: &str) -> String {
        let prelude = format!(
            "import boto3, sys\ns3 = boto3.client('s3', endpoint_url='{}', aws_access_key_id='test', \
             aws_secret_access_key='test', region_name='us-east-1')\n",
            self.endpoint
        );
        // Leave without the interpreter's teardown: with pyarrow and boto3 loaded together, it
        // aborted now and then ("terminate called without an active exception") after the
        // script had done its work. An exception in the script still exits with status 1.
        let epilogue = "\nsys.stdout.flush()\nimport os\nos._exit(0)\n";
        let out = Command::new(python()).args(["-c", &(prelude + script + epilogue)]).output().expect("run python");
        assert!(out.status.success(), "boto3 script failed: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    }

    /// The environment a process reaches this server with (as the CLI reads it).
    pub fn env(&self) -> [(&'static str, String); 4] {
        [
            ("AWS_ENDPOINT_URL", self.endpoint.clone()),
            ("AWS_ACCESS_KEY_ID", "test".to_owned()),
            ("AWS_SECRET_ACCESS_KEY", "test".to_owned()),
            ("AWS_REGION", "us-east-1".to_owned()),
        ]
    }
}
