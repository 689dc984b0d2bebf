//! What the tests that run the real `fairyzero` binary share. They run it as a user would:
//! without `LD_LIBRARY_PATH` (libtorch must be found through the binary's RUNPATH) and without
//! the variables that change its output (`RUST_LOG`, `NO_COLOR`).

// Each test binary uses a part of this module.
#![allow(dead_code)]

use std::process::{Command, Output};

/// `fairyzero ARGS`, run from the cli crate's folder (paths like `../configs/...`).
pub fn command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_fairyzero"));
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
