//! What the tests that run the real `fairyzero` binary share. They run it as a user would:
//! without `LD_LIBRARY_PATH` (the helper must find libtorch through its RUNPATH) and without
//! the variables that change its output (`RUST_LOG`, `NO_COLOR`).

// Each test binary uses a part of this module.
#![allow(dead_code)]

use std::{
    path::PathBuf,
    process::{Command, Output},
};

/// The lean `fairyzero` binary under test.
pub const FAIRYZERO: &str = env!("CARGO_BIN_EXE_fairyzero");

/// `fairyzero-torch`, which `fairyzero` runs for the commands that need a network: next to it.
/// Another package builds it (torch-cli), so cargo does not build it for these tests: stop with
/// a clear message rather than with "needs libtorch" errors in every network test.
pub fn helper() -> PathBuf {
    let path = PathBuf::from(FAIRYZERO).with_file_name("fairyzero-torch");
    assert!(
        path.is_file(),
        "{} is missing: the cli tests run it through `fairyzero` for every command that needs a network; \
         build it first with `cargo build --bins` (`make test` does)",
        path.display()
    );
    path
}

/// `fairyzero ARGS`, run from the cli crate's folder (paths like `../configs/...`).
pub fn command(args: &[&str]) -> Command {
    helper();
    let mut command = Command::new(FAIRYZERO);
    command
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("RUST_LOG")
        .env_remove("NO_COLOR");
    command
}

/// Runs `fairyzero ARGS` to the end.
pub fn fairyzero(args: &[&str]) -> Output {
    command(args).output().expect("cannot run the fairyzero binary")
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}
