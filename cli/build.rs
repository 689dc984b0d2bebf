//! Give the `fairyzero` binary a RUNPATH to libtorch and keep `libtorch_cuda.so` linked.
//! Same as torch/build.rs (which explains why); tch's own build.rs does the same.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" || os == "windows" {
        // Set by torch-sys; only visible because torch-sys is a direct dependency.
        if let Some(lib_dir) = std::env::var_os("DEP_TCH_LIBTORCH_LIB") {
            println!("cargo:rustc-link-arg=-Wl,-rpath={}", lib_dir.to_string_lossy());
        }
        println!("cargo:rustc-link-arg=-Wl,--no-as-needed");
        println!("cargo:rustc-link-arg=-ltorch");
    }
}
