//! Ctrl-C (and SIGTERM) for long jobs: the first one asks the job to stop at its next safe
//! point (self-play finishes the games in progress and writes them, training stops after the
//! iteration, the designer tools after the batch of games, each then printing what it has);
//! a second one quits at once. Everything already written stays valid either way: files are
//! published atomically.

use std::sync::{
    atomic::{AtomicBool, Ordering},
    Arc, OnceLock,
};

/// The process-wide stop flag; the first call installs the signal handler.
pub fn stop_flag() -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    Arc::clone(FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let handler_flag = Arc::clone(&flag);
        let installed = ctrlc::set_handler(move || {
            if handler_flag.swap(true, Ordering::SeqCst) {
                eprintln!("\ninterrupted again: quitting now (files already written are complete)");
                std::process::exit(130);
            }
            eprintln!("\ninterrupt: stopping at the next safe point (Ctrl-C again to quit now)");
        });
        if let Err(e) = installed {
            tracing::warn!("no Ctrl-C handler ({e}): an interrupt will stop the job at once");
        }
        flag
    }))
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
