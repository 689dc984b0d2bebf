//! `fairyzero-torch`: the `fairyzero` command line with libtorch linked in. The lean
//! `fairyzero` runs it, in its own process (`exec`), for every command that needs a network;
//! run directly, it behaves exactly like `fairyzero`.

use std::process::ExitCode;

use fairyzero_torch_cli::TorchRuntime;

fn main() -> ExitCode {
    keep_freed_memory();
    fairyzero_cli::main(fairyzero_cli::Program::WithLibtorch(&TorchRuntime))
}

/// Keeps memory that libtorch frees for its next forward instead of handing it back to the
/// kernel.
///
/// libtorch's CPU allocator frees every activation of a forward and allocates it again in the
/// next one. glibc gives freed memory at the top of a heap back to the kernel once 128 KiB are
/// free (`M_TRIM_THRESHOLD`) and serves large blocks with `mmap`, so each forward page-faulted
/// its working set in again: 1.7 M minor faults in an 18 s `selfplay-bench` run (~280 per
/// forward, 10% of the time in the kernel). With up to 1 GiB kept and blocks under 32 MiB from
/// the heap: 64 K faults, and self-play evaluated ~8% more positions per second
/// (docs/performance.md, "Self-play through the inference service"). The environment's
/// `MALLOC_TRIM_THRESHOLD_` / `MALLOC_MMAP_THRESHOLD_` still win when set.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn keep_freed_memory() {
    const KEEP_FREED: libc::c_int = 1 << 30;
    // The largest value glibc accepts (half its 64 MiB heap size).
    const HEAP_BLOCKS_UP_TO: libc::c_int = 32 << 20;
    if std::env::var_os("MALLOC_TRIM_THRESHOLD_").is_some() || std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_some() {
        return;
    }
    // SAFETY: `mallopt` only sets allocator parameters; it is called before any other thread
    // exists, and a refused value (return 0) leaves glibc's default in place.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, KEEP_FREED);
        libc::mallopt(libc::M_MMAP_THRESHOLD, HEAP_BLOCKS_UP_TO);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn keep_freed_memory() {}
