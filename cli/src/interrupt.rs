//! Ctrl-C (SIGINT) and SIGTERM for long jobs. The first one asks the job to stop within
//! seconds (self-play writes the games already finished and drops the ones in progress,
//! training stops at the next optimizer step or game and keeps its last checkpoint, the
//! designer tools stop after the batch of games), each then printing what it has; `main` then
//! exits with 128 + the signal's number (130 for SIGINT, 143 for SIGTERM), as a shell does.
//! A second one quits at once, with 128 + its number.
//!
//! Quitting at once is `_exit`, from the signal handler itself: `exit` would run libtorch's
//! static destructors while the inference and training threads still call into it, which
//! crashed one try in two ("corrupted double-linked list", segfaults, "Invalid (backend, op)
//! pair"). `_exit` runs nothing, and loses nothing either: every file is published by writing
//! a temporary name and renaming it, so a reader sees a whole file or none, and the
//! temporaries an abrupt exit leaves are removed by the next run.

use std::sync::{
    atomic::{AtomicBool, AtomicI32, Ordering},
    Arc, OnceLock,
};

use signal_hook::consts::{SIGINT, SIGTERM};

/// The first stop signal received (0: none yet); it decides the exit status.
static FIRST_SIGNAL: AtomicI32 = AtomicI32::new(0);

/// The process-wide stop flag; the first call installs the SIGINT and SIGTERM handlers.
pub fn stop_flag() -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    Arc::clone(FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        for signal in [SIGINT, SIGTERM] {
            if let Err(e) = install(signal, Arc::clone(&flag)) {
                tracing::warn!("no handler for signal {signal} ({e}): it will stop the job at once");
            }
        }
        flag
    }))
}

/// The exit status that reports the stop signal received, if any: 128 + its number.
pub fn exit_status() -> Option<u8> {
    match FIRST_SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        signal => u8::try_from(128 + signal).ok(),
    }
}

#[allow(unsafe_code)]
fn install(signal: i32, flag: Arc<AtomicBool>) -> std::io::Result<()> {
    let action = move || {
        if flag.swap(true, Ordering::SeqCst) {
            write_stderr(b"\ninterrupted again: quitting now (files already written are complete)\n");
            signal_hook::low_level::exit(128 + signal);
        }
        FIRST_SIGNAL.store(signal, Ordering::SeqCst);
        write_stderr(if signal == SIGTERM {
            b"\nterminated: stopping within seconds (send it again to quit now)\n"
        } else {
            b"\ninterrupted: stopping within seconds (Ctrl-C again to quit now)\n"
        });
    };
    // SAFETY: the action only touches atomics and calls write(2) and _exit(2), all
    // async-signal-safe; it allocates nothing and takes no lock.
    unsafe { signal_hook::low_level::register(signal, action) }.map(|_| ())
}

/// `eprintln!` takes a lock and may allocate, neither allowed in a signal handler.
#[allow(unsafe_code)]
fn write_stderr(message: &[u8]) {
    // SAFETY: write(2) on a valid buffer of the given length; a failed write is harmless.
    unsafe {
        libc::write(libc::STDERR_FILENO, message.as_ptr().cast(), message.len());
    }
}

/// Restores the default action of SIGPIPE, so that `fairyzero moves ... | head` ends quietly
/// when `head` has read enough, as Unix tools do, instead of panicking on a closed pipe.
#[allow(unsafe_code)]
pub fn default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called once at start-up, before any thread exists; SIG_DFL is a valid action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
