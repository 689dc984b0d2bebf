//! Executors without a network: [`UniformExecutor`] answers like `MockBackend::uniform()`,
//! [`LatencyExecutor`] also takes as long as a device would, so that batching is testable on a
//! CPU without libtorch.

use std::time::Duration;

use super::Executor;
use crate::{backend::EvalOutput, encoding::EncodedBatch};

/// A uniform prior over each position's moves and the same win/draw/loss for every position
/// (a draw by default): the answers of `MockBackend::uniform()`, behind the service.
#[derive(Clone, Debug)]
pub struct UniformExecutor {
    pub wdl: [f32; 3],
    pub max_batch: usize,
}

impl UniformExecutor {
    /// Draws everywhere, batches up to `max_batch` positions.
    pub fn new(max_batch: usize) -> UniformExecutor {
        UniformExecutor { wdl: [0.0, 1.0, 0.0], max_batch }
    }
}

impl Executor for UniformExecutor {
    fn name(&self) -> String {
        format!("uniform({:?})", self.wdl)
    }

    fn max_batch(&self) -> usize {
        self.max_batch
    }

    fn run(&mut self, batch: &EncodedBatch, out: &mut EvalOutput) {
        out.clear();
        for i in 0..batch.len() {
            let moves = batch.moves_of(i).len();
            out.push_with(moves, self.wdl, |policy| policy.fill(1.0 / moves.max(1) as f32));
        }
    }
}

/// A device's cost model: each batch sleeps `per_batch + positions * per_position` (no CPU
/// used, so submitting threads keep the cores), then answers like [`UniformExecutor`].
#[derive(Clone, Debug)]
pub struct LatencyExecutor {
    pub per_batch: Duration,
    pub per_position: Duration,
    pub max_batch: usize,
}

impl LatencyExecutor {
    /// How long a batch of `positions` takes.
    pub fn latency(&self, positions: usize) -> Duration {
        self.per_batch + self.per_position * positions as u32
    }
}

impl Executor for LatencyExecutor {
    fn name(&self) -> String {
        format!("latency({:?}+{:?}/position)", self.per_batch, self.per_position)
    }

    fn max_batch(&self) -> usize {
        self.max_batch
    }

    fn run(&mut self, batch: &EncodedBatch, out: &mut EvalOutput) {
        std::thread::sleep(self.latency(batch.len()));
        UniformExecutor::new(self.max_batch).run(batch, out);
    }
}
