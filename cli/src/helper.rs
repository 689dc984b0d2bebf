//! The `fairyzero-torch` helper: where the lean `fairyzero` finds it, and how it hands a
//! command over.
//!
//! `exec` replaces this process's program and keeps everything else: the PID (a script that
//! signals `fairyzero` signals the helper), the open stdin/stdout/stderr, the environment, the
//! working directory, and so the exit status the caller sees. Nothing has run yet at that
//! point but the parsing of the command line and `SIGPIPE`'s default action, which the helper
//! sets again anyway. No `dlopen`, no unsafe code: the helper is a whole program.

use std::{
    os::unix::process::CommandExt,
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{anyhow, Context};

/// File name of the helper, in the directory of the `fairyzero` executable.
pub const HELPER: &str = "fairyzero-torch";

/// Where the helper should be: next to this executable (symbolic links resolved, as
/// `current_exe` reads `/proc/self/exe`).
pub fn path() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot find the path of this executable")?;
    let dir = exe.parent().ok_or_else(|| anyhow!("{} has no parent directory", exe.display()))?;
    Ok(dir.join(HELPER))
}

/// How to get the helper when it is missing.
pub fn missing(path: &Path) -> String {
    format!(
        "{} is missing: this command needs a network, which runs in the libtorch helper `{HELPER}` \
         next to `fairyzero`; build both with `make build` (release) or `cargo build --bins` (debug)",
        path.display()
    )
}

/// Runs the helper in this process's place with the same arguments (including `argv[0]`, so
/// that its messages name `fairyzero`). Returns only if that fails.
pub fn exec(path: anyhow::Result<PathBuf>) -> anyhow::Error {
    let path = match path {
        Ok(path) => path,
        Err(err) => return err.context("cannot start the libtorch helper"),
    };
    if !path.is_file() {
        return anyhow!(missing(&path));
    }
    let mut args = std::env::args_os();
    let arg0 = args.next().unwrap_or_else(|| "fairyzero".into());
    let err = Command::new(&path).arg0(arg0).args(args).exec();
    anyhow::Error::new(err).context(format!("cannot start the libtorch helper {}", path.display()))
}
