//! The allowed range of every numeric command-line flag, and the clap value parsers that hold
//! flags to them.
//!
//! A count that is too large does not fail cleanly further down: it allocates (`Vec` of
//! `--games` openings, `--bootstrap` resamples, perft's per-ply move lists) or converts
//! (`Duration::from_secs_f64` panics on `inf`, `NaN` and negative seconds) and aborts the process.
//! So every count flag is parsed with [`count`] and every duration with [`seconds`], and is
//! refused before any work with clap's usual `invalid value … for '--flag'` and exit status 2.
//!
//! Each flag's help text states its maximum as `at most N`; a unit test in `lib.rs` checks,
//! for every numeric flag of every subcommand, that the help says so and that the parser
//! accepts `N` and refuses `N + 1`.

use clap::builder::RangedU64ValueParser;
// The bounds that run files share (games, simulations, games in parallel, threads, plies,
// batch) are defined once, in the self-play crate.
pub use fairyzero_selfplay::limits::{
    MAX_BATCH, MAX_GAMES, MAX_PARALLEL, MAX_PLIES, MAX_SIMULATIONS, MAX_THREADS, MAX_WAIT_US,
};

/// `perft --depth`.
pub const MAX_DEPTH: u64 = 64;
/// Bootstrap resamples (`rank --bootstrap`, `piece-values --resamples`).
pub const MAX_RESAMPLES: u64 = 1_000_000;
/// Positions held in memory at once (`bench net --positions`, `piece-values --positions`):
/// 100,000 Scirocco positions with their move lists take 1.3 GB.
pub const MAX_POSITIONS: u64 = 100_000;
/// Rows of a listing (`analyse --top`).
pub const MAX_ROWS: u64 = 10_000;
/// Seconds of a time limit (`analyse --time`, `bench net --seconds`, `selfplay --bench-raw`):
/// about 11.6 days, far beyond any use, and far from where `Duration` overflows.
pub const MAX_SECONDS: f64 = 1_000_000.0;

/// A count in `min..=max`, as the integer type `T` of the field.
pub fn count<T>(min: u64, max: u64) -> RangedU64ValueParser<T>
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
    <T as TryFrom<u64>>::Error: std::error::Error + Send + Sync + 'static,
{
    RangedU64ValueParser::<T>::new().range(min..=max)
}

/// A duration in seconds: finite, more than 0 and at most [`MAX_SECONDS`].
pub fn seconds(text: &str) -> Result<f64, String> {
    let value: f64 = text.trim().parse().map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if value.is_finite() && value > 0.0 && value <= MAX_SECONDS {
        Ok(value)
    } else {
        Err(format!("{text} seconds is out of range: need a finite number more than 0 and at most {MAX_SECONDS}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_must_be_finite_positive_and_bounded() {
        assert_eq!(seconds("2.5"), Ok(2.5));
        assert_eq!(seconds("1000000"), Ok(MAX_SECONDS));
        for bad in ["inf", "-inf", "NaN", "nan", "-1", "0", "1e30", "1000000.5", "", "soon"] {
            assert!(seconds(bad).is_err(), "{bad:?} accepted");
        }
    }
}
