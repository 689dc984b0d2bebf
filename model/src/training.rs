//! What one training step eats, as plain data: drawn and augmented by the trainer, turned into
//! tensors by the torch backend (`fairyzero_torch::training`).

use crate::encoding::EncodedBatch;

/// A drawn batch of training positions with their targets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrainBatch {
    /// The positions and their legal moves, already augmented (see `mirrored`).
    pub encoded: EncodedBatch,
    /// Per position, `(legal move index, weight)` pairs summing to 1; empty: no policy target
    /// (the position trains the value only).
    pub policy: Vec<Vec<(u32, f32)>>,
    /// Per position, the win/draw/loss target for the side to move.
    pub wdl: Vec<[f32; 3]>,
    /// Per position, whether `encoded` holds it mirrored left-right ([`crate::mirror`]); for
    /// the step's statistics, the targets need no change.
    pub mirrored: Vec<bool>,
}

impl TrainBatch {
    /// Positions in the batch.
    pub fn len(&self) -> usize {
        self.encoded.len()
    }

    pub fn is_empty(&self) -> bool {
        self.encoded.is_empty()
    }

    /// Positions with a policy target.
    pub fn with_policy_target(&self) -> usize {
        self.policy.iter().filter(|p| !p.is_empty()).count()
    }

    /// Positions held mirrored.
    pub fn mirrored_count(&self) -> usize {
        self.mirrored.iter().filter(|&&m| m).count()
    }
}
