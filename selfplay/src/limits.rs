//! Upper bounds of the counts a user may ask for, in a run file (`[selfplay]`, and the trainer's
//! sections) or on the command line (`cli/src/limits.rs` uses the same constants).
//!
//! A count that is too large does not fail cleanly further down: it sizes an allocation (games
//! in parallel, a training batch, the openings of a match) or spawns threads, and the process
//! aborts on a failed allocation instead of printing an error. The bounds are far beyond any
//! sensible use and far below what breaks.

/// Games of a match, a designer experiment or a self-play command.
pub const MAX_GAMES: u64 = 10_000_000;
/// Simulations of one search; the tree lives in memory.
pub const MAX_SIMULATIONS: u64 = 10_000_000;
/// Games played at once: each holds a position, a search tree and its record.
pub const MAX_PARALLEL: u64 = 65_536;
/// Threads of any kind: search workers, match threads, libtorch intra-op threads.
pub const MAX_THREADS: u64 = 1024;
/// Plies: move caps, random opening plies.
pub const MAX_PLIES: u64 = 100_000;
/// Positions in one network batch (inference or training): 65,536 took 2.5 GB on Gardner 5x5
/// with the tiny net, and a Typhoon position is several times larger.
pub const MAX_BATCH: u64 = 16_384;
/// Batches an inference service keeps in flight; each holds up to `MAX_BATCH` positions.
pub const MAX_IN_FLIGHT: u64 = 64;
/// How long a batch may wait for more positions, in microseconds (10 s).
pub const MAX_WAIT_US: u64 = 10_000_000;

/// `Err("KEY must be at most MAX (it is VALUE)")` when `value` exceeds `max`.
pub fn check_at_most(key: &str, value: u64, max: u64) -> Result<(), String> {
    if value <= max {
        Ok(())
    } else {
        Err(format!("{key} must be at most {max} (it is {value})"))
    }
}
