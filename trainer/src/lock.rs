//! One `train` process per run directory: an exclusive OS lock on `<run_dir>/lock`, which the
//! kernel releases when the process ends in any way (kill -9 included), so a stale lock file
//! never blocks a resume. The file holds the PID of the holder, for the refusal message.

use std::{
    fs::{File, OpenOptions, TryLockError},
    io::{Read, Seek, SeekFrom, Write},
    path::{Path, PathBuf},
};

use anyhow::{bail, Context};

pub const LOCK_FILE: &str = "lock";

/// Held for as long as the run lives; dropping it (or the process ending) releases the lock.
#[derive(Debug)]
pub struct RunLock {
    _file: File,
    pub path: PathBuf,
}

impl RunLock {
    /// Takes the lock of `run_dir` (which must exist), or says which process holds it.
    pub fn acquire(run_dir: &Path) -> anyhow::Result<RunLock> {
        let path = run_dir.join(LOCK_FILE);
        // Not truncated on open: the holder's PID must stay readable for a refused process.
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .with_context(|| format!("opening the run lock {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                let who = if holder.is_empty() { "another process".to_string() } else { format!("process {holder}") };
                bail!(
                    "the run directory {} is in use by {who} (it holds the lock {}); \
                     wait for it to end, or stop it, before starting another `train` on this run",
                    run_dir.display(),
                    path.display()
                );
            }
            Err(TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("locking the run directory ({})", path.display()));
            }
        }
        let write_pid = |file: &mut File| -> std::io::Result<()> {
            file.set_len(0)?;
            file.seek(SeekFrom::Start(0))?;
            writeln!(file, "{}", std::process::id())?;
            file.flush()
        };
        write_pid(&mut file).with_context(|| format!("writing the PID into {}", path.display()))?;
        Ok(RunLock { _file: file, path })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_with_the_holders_pid_and_released_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let first = RunLock::acquire(dir.path()).unwrap();
        let err = RunLock::acquire(dir.path()).unwrap_err().to_string();
        assert!(err.contains(&format!("process {}", std::process::id())), "{err}");
        drop(first);
        RunLock::acquire(dir.path()).unwrap();
    }
}
