//! What the service did: forwards, positions, executor busy time and a batch-size histogram.

use std::time::Duration;

/// Number of power-of-two batch-size buckets in [`ServiceStats::batch_histogram`].
pub const HISTOGRAM_BUCKETS: usize = 16;

/// Cumulative counters of one [`InferenceService`](super::InferenceService) since its start.
/// Take two snapshots and [`ServiceStats::since`] to measure an interval (a warm-up excluded).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServiceStats {
    /// Executor runs (one per batch).
    pub forwards: u64,
    /// Positions evaluated.
    pub positions: u64,
    /// Legal moves of those positions (the policy entries computed).
    pub moves: u64,
    /// Time the executor spent running batches.
    pub busy: Duration,
    /// Time since the service started.
    pub elapsed: Duration,
    /// Forwards by batch size: bucket `i` counts batches of `2^i ..= 2^(i+1) - 1` positions,
    /// the last bucket every larger batch too.
    pub batch_histogram: [u64; HISTOGRAM_BUCKETS],
}

impl ServiceStats {
    /// The bucket of [`ServiceStats::batch_histogram`] that a batch of `positions` (>= 1) counts in.
    pub fn bucket(positions: usize) -> usize {
        (positions.max(1).ilog2() as usize).min(HISTOGRAM_BUCKETS - 1)
    }

    /// Counts one forward of `positions` positions with `moves` moves that ran for `busy`.
    pub(crate) fn record(&mut self, positions: usize, moves: usize, busy: Duration) {
        self.forwards += 1;
        self.positions += positions as u64;
        self.moves += moves as u64;
        self.busy += busy;
        self.batch_histogram[Self::bucket(positions)] += 1;
    }

    /// What happened between `earlier` (a snapshot of the same service) and `self`.
    pub fn since(&self, earlier: &ServiceStats) -> ServiceStats {
        let mut batch_histogram = [0; HISTOGRAM_BUCKETS];
        for (i, count) in batch_histogram.iter_mut().enumerate() {
            *count = self.batch_histogram[i].saturating_sub(earlier.batch_histogram[i]);
        }
        ServiceStats {
            forwards: self.forwards.saturating_sub(earlier.forwards),
            positions: self.positions.saturating_sub(earlier.positions),
            moves: self.moves.saturating_sub(earlier.moves),
            busy: self.busy.saturating_sub(earlier.busy),
            elapsed: self.elapsed.saturating_sub(earlier.elapsed),
            batch_histogram,
        }
    }

    /// Positions per forward (0 without forwards).
    pub fn mean_batch(&self) -> f64 {
        if self.forwards == 0 {
            0.0
        } else {
            self.positions as f64 / self.forwards as f64
        }
    }

    /// Share of the elapsed time the executor was running, in [0, 1] (0 before any time passed).
    pub fn busy_share(&self) -> f64 {
        if self.elapsed.is_zero() {
            0.0
        } else {
            (self.busy.as_secs_f64() / self.elapsed.as_secs_f64()).min(1.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_powers_of_two_and_intervals_subtract() {
        assert_eq!(
            [1, 2, 3, 4, 255, 256, 1024, 1 << 20].map(ServiceStats::bucket),
            [0, 1, 1, 2, 7, 8, 10, HISTOGRAM_BUCKETS - 1]
        );
        let mut earlier = ServiceStats::default();
        earlier.record(64, 640, Duration::from_millis(5));
        let mut later = earlier;
        later.record(512, 100, Duration::from_millis(20));
        later.record(512, 100, Duration::from_millis(20));
        later.elapsed = Duration::from_millis(50);
        let interval = later.since(&earlier);
        assert_eq!((interval.forwards, interval.positions, interval.moves), (2, 1024, 200));
        assert_eq!(interval.mean_batch(), 512.0);
        assert_eq!(interval.batch_histogram[9], 2);
        assert_eq!(interval.batch_histogram[6], 0);
        assert!((interval.busy_share() - 0.8).abs() < 1e-9);
    }
}
