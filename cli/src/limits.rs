//! The allowed range of every numeric command-line flag, and the clap value parsers that hold
//! flags to them.
//!
//! A count that is too large does not fail cleanly further down: it allocates (`Vec` of
//! `--games` openings, `--bootstrap` resamples, perft's per-ply move lists) or converts
//! (`Duration::from_secs_f64` panics on `inf`, `NaN` and negative seconds) and aborts the process.
//! So every count flag is parsed with [`count`] and every duration with [`seconds`], and is
//! refused before any work with clap's usual `invalid value … for '--flag'` and exit status 2.
//!
//! Each flag's help text states its maximum as `at most N`; a unit test in `main.rs` checks,
//! for every numeric flag of every subcommand, that the help says so and that the parser
//! accepts `N` and refuses `N + 1`.

use clap::builder::RangedU64ValueParser;

/// Games of `match`, `balance`, `piece-values` and `selfplay`.
pub const MAX_GAMES: u64 = 10_000_000;
/// `perft --depth`.
pub const MAX_DEPTH: u64 = 64;
/// Bootstrap resamples (`rank --bootstrap`, `piece-values --resamples`).
pub const MAX_RESAMPLES: u64 = 1_000_000;
/// A batch of network evaluations (`analyse --batch`, `bench net --batches`): a batch of 65,536
/// took 2.5 GB on Gardner 5x5 with the tiny net, and a Typhoon position is several times larger.
pub const MAX_BATCH: u64 = 16_384;
/// Positions held in memory at once (`bench net --positions`, `piece-values --positions`):
/// 100,000 Scirocco positions with their move lists take 1.3 GB.
pub const MAX_POSITIONS: u64 = 100_000;
/// Simulations of one search (`selfplay --simulations`, `analyse --nodes`); the search tree
/// lives in memory.
pub const MAX_SIMULATIONS: u64 = 10_000_000;
/// Games in parallel (`selfplay --parallel`).
pub const MAX_PARALLEL: u64 = 65_536;
/// Threads: search threads, match threads, libtorch intra-op threads.
pub const MAX_THREADS: u64 = 1024;
/// Plies: random opening plies, move caps, plies left out of `fit`.
pub const MAX_PLIES: u64 = 100_000;
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
