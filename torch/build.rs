//! Link libtorch so that this crate's tests run without `LD_LIBRARY_PATH`, and record which
//! libtorch the crate was built against.
//!
//! The one build script of every package whose binaries or tests link libtorch: the trainer and
//! the torch CLI name it with `build = "../torch/build.rs"` (see docs/setup.md). The link part is
//! what tch's own build.rs does:
//! - `-Wl,-rpath=<libtorch lib dir>` gives the binary a RUNPATH;
//! - `-Wl,--no-as-needed -ltorch` keeps `libtorch.so`, and through it `libtorch_cuda.so`,
//!   which the linker would otherwise drop because no Rust symbol refers to them directly.
//!
//! `DEP_TCH_LIBTORCH_LIB` is set by torch-sys (`links = "tch"`) and is only visible to crates
//! that depend on torch-sys directly, hence the direct dependency in Cargo.toml.

use std::{env, fs, path::Path};

fn main() {
    // Relative to the package being built: the same file from torch/ and from its siblings.
    println!("cargo:rerun-if-changed=../torch/build.rs");
    let lib_dir = env::var("DEP_TCH_LIBTORCH_LIB").ok();

    let os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" || os == "windows" {
        if let Some(lib_dir) = &lib_dir {
            println!("cargo:rustc-link-arg=-Wl,-rpath={lib_dir}");
        }
        println!("cargo:rustc-link-arg=-Wl,--no-as-needed");
        println!("cargo:rustc-link-arg=-ltorch");
    }

    // The C API has no call that returns the PyTorch version, so read it from the install:
    // a Python wheel has `torch/version.py` next to `torch/lib`, a libtorch zip has
    // `libtorch/build-version`.
    let (version, cuda) =
        lib_dir.as_deref().map(Path::new).and_then(|lib| lib.parent()).map(torch_version).unwrap_or_default();
    println!("cargo:rustc-env=FAIRYZERO_TORCH_VERSION={}", version.unwrap_or_else(|| "unknown".into()));
    println!("cargo:rustc-env=FAIRYZERO_TORCH_CUDA={}", cuda.unwrap_or_default());
    println!("cargo:rustc-env=FAIRYZERO_TORCH_LIB={}", lib_dir.unwrap_or_default());
}

/// Returns `(torch version, CUDA version it was built for)` read from a libtorch install root.
fn torch_version(root: &Path) -> (Option<String>, Option<String>) {
    let version_py = root.join("version.py");
    let build_version = root.join("build-version");
    if let Ok(text) = fs::read_to_string(&version_py) {
        println!("cargo:rerun-if-changed={}", version_py.display());
        let value = |key: &str| {
            text.lines().find_map(|line| {
                let (lhs, rhs) = line.split_once('=')?;
                let name = lhs.split(':').next()?.trim();
                (name == key).then(|| rhs.trim().trim_matches(|c| c == '\'' || c == '"').to_owned())
            })
        };
        let cuda = value("cuda").filter(|v| v != "None");
        (value("__version__"), cuda)
    } else if let Ok(text) = fs::read_to_string(&build_version) {
        println!("cargo:rerun-if-changed={}", build_version.display());
        (Some(text.trim().to_owned()), None)
    } else {
        (None, None)
    }
}
