//! A throwaway S3 server for tests: `moto_server` (PyPI `moto[server]`) on a free port of
//! 127.0.0.1 with one bucket, `fairyzero`, killed when dropped. Self-contained (std only), so
//! that other crates' tests can include it with `#[path = ".../support/moto.rs"] mod moto;`.
//!
//! Without `moto_server` on the PATH a test skips (with a notice), except under `CI=true`,
//! where the missing server is an error: CI must run these tests.

#![allow(dead_code)]

use std::{
    io::{Read, Write},
    net::{TcpListener, TcpStream},
    path::PathBuf,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

pub const BUCKET: &str = "fairyzero";

pub struct MotoServer {
    child: Child,
    pub port: u16,
}

impl MotoServer {
    /// Starts a server and creates the bucket; `None` (the test skips) when `moto_server` is
    /// not installed and this is not CI.
    pub fn start() -> Option<MotoServer> {
        let Some(program) = find_on_path("moto_server") else {
            let hint = "moto_server is not installed: pip install 'moto[server]'";
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("{hint} (CI must run the S3 tests)");
            }
            eprintln!("skipping an S3 test: {hint}");
            return None;
        };
        // A free port: the kernel's choice, released for the server (a race with another
        // process taking it meanwhile shows as a server that never answers, below).
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(program)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("cannot start moto_server");
        let server = MotoServer { child, port };
        let start = Instant::now();
        loop {
            match server.request("GET", "/") {
                Ok(_) => break,
                Err(e) if start.elapsed() > Duration::from_secs(30) => {
                    panic!("moto_server on port {port} does not answer: {e}")
                }
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
        let created = server.request("PUT", &format!("/{BUCKET}")).unwrap();
        assert!(created.starts_with("HTTP/1.1 200"), "creating the bucket: {created}");
        Some(server)
    }

    /// `s3://fairyzero/<prefix>`.
    pub fn url(&self, prefix: &str) -> String {
        format!("s3://{BUCKET}/{prefix}")
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The `AWS_*` settings that reach this server, for `ObjectStoreBackend::open_with` or a
    /// child process's environment (never the test process's own: tests run on threads).
    pub fn env(&self) -> Vec<(String, String)> {
        [
            ("AWS_ENDPOINT_URL", self.endpoint()),
            ("AWS_ALLOW_HTTP", "true".to_string()),
            ("AWS_ACCESS_KEY_ID", "fairyzero-test".to_string()),
            ("AWS_SECRET_ACCESS_KEY", "fairyzero-test".to_string()),
            ("AWS_REGION", "us-east-1".to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    /// One unsigned HTTP/1.1 request (moto does not check signatures); the whole response.
    fn request(&self, method: &str, path: &str) -> std::io::Result<String> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port))?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            self.port
        )?;
        let mut response = String::new();
        stream.read_to_string(&mut response)?;
        Ok(response)
    }
}

impl Drop for MotoServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(program)).find(|p| p.is_file())
}
