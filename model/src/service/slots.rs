//! The slot table: batches being filled, queued, run and read out.
//!
//! A slot goes `Free → Filling → Queued → Running → Done | Failed → Free`. Submitters append
//! encoded positions to the one `Filling` slot and hold a [`Part`] (slot, range) per appended
//! chunk; the slot closes (`Queued`) when the next chunk would not fit in `max_batch`, or when
//! the service thread takes it after `max_wait`. A finished slot is freed, its buffers kept for
//! the next batch, when every part of it has been read out or released.
//!
//! Everything here runs under the service's one mutex; it only moves indices and copies memory.

use std::{collections::VecDeque, time::Instant};

use crate::{backend::EvalOutput, encoding::EncodedBatch};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SlotState {
    Free,
    Filling,
    Queued,
    Running,
    Done,
    Failed,
}

/// A slot's memory: the encoded inputs and the executor's answers (boxed: it moves to the
/// service thread and back for every forward).
pub(super) struct Buffers {
    pub batch: EncodedBatch,
    pub output: EvalOutput,
}

struct Slot {
    state: SlotState,
    /// Bumped each time the slot is opened, so that a part can be checked against the batch it
    /// was given for.
    generation: u64,
    /// `None` while the executor holds them (the lock is released during a forward).
    buffers: Option<Box<Buffers>>,
    /// Parts not yet read out or released.
    readers: usize,
    /// When the first positions arrived (the `max_wait` clock).
    first_submit: Option<Instant>,
}

/// One submitted chunk: `len` positions from `start` of a slot's batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Part {
    pub slot: usize,
    pub generation: u64,
    pub start: usize,
    pub len: usize,
}

/// What the service thread should do next.
pub(super) enum Next {
    /// Run this slot (it is now `Running`; its buffers come with it).
    Run(usize, Box<Buffers>),
    /// Nothing is due before this instant (the filling slot's `max_wait`).
    WaitUntil(Instant),
    /// Nothing is queued or filling.
    Idle,
}

/// Whether a part's slot has its answers.
pub(super) enum Readiness {
    Pending,
    Done,
    Failed,
}

pub(super) struct Slots {
    slots: Vec<Slot>,
    filling: Option<usize>,
    /// Closed slots, oldest first.
    queue: VecDeque<usize>,
    width: usize,
    height: usize,
    max_batch: usize,
    moves_per_position: usize,
}

impl Slots {
    /// `initial` slots with buffers for `max_batch` positions of `moves_per_position` moves.
    pub fn new(initial: usize, width: usize, height: usize, max_batch: usize, moves_per_position: usize) -> Slots {
        let mut slots = Slots {
            slots: Vec::new(),
            filling: None,
            queue: VecDeque::new(),
            width,
            height,
            max_batch,
            moves_per_position,
        };
        for _ in 0..initial {
            slots.add_slot();
        }
        slots
    }

    fn add_slot(&mut self) -> usize {
        let batch = EncodedBatch::with_capacity(self.width, self.height, self.max_batch, self.moves_per_position);
        self.slots.push(Slot {
            state: SlotState::Free,
            generation: 0,
            buffers: Some(Box::new(Buffers { batch, output: EvalOutput::new() })),
            readers: 0,
            first_submit: None,
        });
        self.slots.len() - 1
    }

    /// Number of slots, free or not (the table grows when every slot is busy).
    pub fn count(&self) -> usize {
        self.slots.len()
    }

    fn filling_len(&self) -> usize {
        self.filling.map_or(0, |i| self.slots[i].buffers.as_ref().expect("a filling slot has its buffers").batch.len())
    }

    /// Closes the filling slot, if any, queueing it for the executor. Returns whether one was
    /// closed.
    fn close_filling(&mut self) -> bool {
        match self.filling.take() {
            Some(i) => {
                self.slots[i].state = SlotState::Queued;
                self.queue.push_back(i);
                true
            }
            None => false,
        }
    }

    /// Opens a free slot for filling, adding one when every slot is busy: a submitter must
    /// never wait for a slot, since it may hold the unread parts that would free one.
    fn open(&mut self) -> usize {
        let i = match self.slots.iter().position(|s| s.state == SlotState::Free) {
            Some(i) => i,
            None => self.add_slot(),
        };
        let slot = &mut self.slots[i];
        slot.state = SlotState::Filling;
        slot.generation += 1;
        slot.first_submit = None;
        self.filling = Some(i);
        i
    }

    /// Appends an encoded chunk of at most `max_batch` positions to the filling slot (closing
    /// it first when the chunk would not fit). Returns the chunk's part and whether the service
    /// thread has something new to look at (a closed slot or a first submission).
    pub fn append(&mut self, chunk: &EncodedBatch, now: Instant) -> (Part, bool) {
        assert!(chunk.len() <= self.max_batch, "a chunk of {} positions, batches hold {}", chunk.len(), self.max_batch);
        let mut wake = false;
        if self.filling.is_some() && self.filling_len() + chunk.len() > self.max_batch {
            wake |= self.close_filling();
        }
        let i = match self.filling {
            Some(i) => i,
            None => self.open(),
        };
        let slot = &mut self.slots[i];
        let batch = &mut slot.buffers.as_mut().expect("a filling slot has its buffers").batch;
        let start = batch.len();
        batch.append(chunk);
        let full = batch.len() == self.max_batch;
        slot.readers += 1;
        if slot.first_submit.is_none() {
            slot.first_submit = Some(now);
            wake = true;
        }
        let part = Part { slot: i, generation: slot.generation, start, len: chunk.len() };
        if full {
            wake |= self.close_filling();
        }
        (part, wake)
    }

    /// The next slot to run: the oldest queued one; else the filling one once `max_wait` has
    /// passed since its first submission (at once when `flush`, at shutdown).
    pub fn next(&mut self, max_wait: std::time::Duration, flush: bool, now: Instant) -> Next {
        if self.queue.is_empty() {
            let Some(i) = self.filling else { return Next::Idle };
            let first = self.slots[i].first_submit.expect("a filling slot holds positions");
            let due = first + max_wait;
            if !flush && now < due {
                return Next::WaitUntil(due);
            }
            self.close_filling();
        }
        let i = self.queue.pop_front().expect("a queued slot");
        let slot = &mut self.slots[i];
        slot.state = SlotState::Running;
        Next::Run(i, slot.buffers.take().expect("a queued slot has its buffers"))
    }

    /// Gives a run slot its buffers back, with answers (`ok`) or after a failure.
    pub fn finish(&mut self, i: usize, buffers: Box<Buffers>, ok: bool) {
        let slot = &mut self.slots[i];
        debug_assert_eq!(slot.state, SlotState::Running);
        slot.buffers = Some(buffers);
        slot.state = if ok { SlotState::Done } else { SlotState::Failed };
        if slot.readers == 0 {
            self.free(i);
        }
    }

    pub fn readiness(&self, part: &Part) -> Readiness {
        let slot = &self.slots[part.slot];
        debug_assert_eq!(slot.generation, part.generation, "a part outlived its batch");
        match slot.state {
            SlotState::Done => Readiness::Done,
            SlotState::Failed => Readiness::Failed,
            _ => Readiness::Pending,
        }
    }

    /// Appends a done part's answers to `out`, then releases it.
    pub fn read(&mut self, part: Part, out: &mut EvalOutput) {
        let answers = &self.slots[part.slot].buffers.as_ref().expect("a done slot has its buffers").output;
        for i in part.start..part.start + part.len {
            let view = answers.get(i);
            out.push(view.policy, view.wdl);
        }
        self.release(part);
    }

    /// Forgets a part (read, or its ticket dropped); frees the slot after its last part once it
    /// has run. A released part of a slot not yet run is still evaluated: the batch is shared.
    pub fn release(&mut self, part: Part) {
        let slot = &mut self.slots[part.slot];
        debug_assert_eq!(slot.generation, part.generation, "a part outlived its batch");
        slot.readers -= 1;
        if slot.readers == 0 && matches!(slot.state, SlotState::Done | SlotState::Failed) {
            self.free(part.slot);
        }
    }

    fn free(&mut self, i: usize) {
        let slot = &mut self.slots[i];
        let buffers = slot.buffers.as_mut().expect("a finished slot has its buffers");
        buffers.batch.clear();
        buffers.output.clear();
        slot.state = SlotState::Free;
        slot.first_submit = None;
    }
}

#[cfg(test)]
mod tests {
    use std::{sync::Arc, time::Duration};

    use fairyzero_rules::{MoveList, Position, Variant};

    use super::*;
    use crate::encoding::StandardEncoding;

    /// A chunk of `n` copies of Gardner's start position.
    fn chunk(n: usize) -> EncodedBatch {
        let v = Variant::load("gardner").unwrap();
        let mut pos = Position::start(Arc::clone(&v));
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        StandardEncoding::new(v).encode_batch((0..n).map(|_| (&pos, moves.as_slice())))
    }

    /// Runs the next due slot with uniform answers; returns its index.
    fn run_next(slots: &mut Slots, max_wait: Duration, now: Instant) -> usize {
        let Next::Run(i, mut buffers) = slots.next(max_wait, false, now) else { panic!("no slot is due") };
        for p in 0..buffers.batch.len() {
            let moves = buffers.batch.moves_of(p).len();
            buffers.output.push_with(moves, [0.0, 1.0, 0.0], |policy| policy.fill(1.0 / moves as f32));
        }
        slots.finish(i, buffers, true);
        i
    }

    #[test]
    fn slots_close_when_full_roll_over_and_free_after_their_last_reader() {
        let (now, wait) = (Instant::now(), Duration::from_secs(1));
        let mut slots = Slots::new(1, 5, 5, 4, 8);
        let (a, wake) = slots.append(&chunk(3), now);
        assert!(wake, "a first submission starts the max_wait clock");
        let (b, wake) = slots.append(&chunk(2), now);
        assert!(wake, "a chunk that does not fit closes the slot");
        assert_eq!((a.slot, a.start, a.len, b.slot, b.start), (0, 0, 3, 1, 0));
        assert_eq!(slots.count(), 2, "every slot was busy: one was added");
        let (c, _) = slots.append(&chunk(2), now);
        assert_eq!((c.slot, c.start), (1, 2));
        assert!(matches!(slots.readiness(&a), Readiness::Pending));
        assert_eq!(run_next(&mut slots, wait, now), 0, "the oldest closed slot first");
        assert_eq!(run_next(&mut slots, wait, now), 1, "a full slot runs without max_wait");
        assert!(matches!(slots.next(wait, false, now), Next::Idle));
        assert!(matches!(slots.readiness(&a), Readiness::Done));

        let mut out = EvalOutput::new();
        slots.read(a, &mut out);
        assert_eq!(out.len(), 3);
        let (d, _) = slots.append(&chunk(1), now);
        assert_eq!((d.slot, d.generation), (0, a.generation + 1), "slot 0 was freed by its only reader");
        slots.release(b);
        let (e, _) = slots.append(&chunk(4), now);
        assert_eq!(e.slot, 2, "slot 1 still has an unread part");
        slots.read(c, &mut out);
        let (f, _) = slots.append(&chunk(1), now);
        assert_eq!(f.slot, 1, "slot 1 is free after its last reader");
    }

    #[test]
    fn a_partial_slot_waits_for_max_wait_unless_flushed() {
        let now = Instant::now();
        let max_wait = Duration::from_millis(10);
        let mut slots = Slots::new(2, 5, 5, 64, 8);
        let (part, _) = slots.append(&chunk(1), now);
        assert!(matches!(slots.next(max_wait, false, now), Next::WaitUntil(due) if due == now + max_wait));
        assert_eq!(run_next(&mut slots, max_wait, now + max_wait), 0);
        slots.release(part);
        slots.append(&chunk(1), now);
        assert!(matches!(slots.next(max_wait, true, now), Next::Run(0, _)), "shutdown flushes at once");
    }
}
