//! Rifle capture (`capture = "rifle"`, Rifle Chess, issue 21 row #32): every capture is a shot.
//! The pieces' own move generation runs unchanged; [`RifleSink`] rewrites each capturing
//! displacement it receives into a stationary capture of the same victims before it reaches
//! the real sink. Attacks are therefore exactly the displacing game's (a piece attacks the
//! squares it could shoot), and a king that shoots stays where it stands, so the usual
//! make-and-test legality filter judges its safety on its own square.
//!
//! A shot never promotes (the shooter does not reach the zone by capturing): the promotion
//! choices of one capture collapse into one move, as in cutechess's `rifle`. En passant is a
//! shot at the passed pawn.

use super::forward_sink_queries;
use crate::{
    movegen::MoveSink,
    moves::{Move, MoveKind},
    position::Position,
    types::Square,
};

/// Wraps a sink: captures by displacement become stationary captures.
pub(super) struct RifleSink<'a, S: MoveSink> {
    pos: &'a Position,
    inner: &'a mut S,
    /// The last shot pushed: the promotion choices of one capture arrive one after another.
    last_shot: Option<Move>,
}

impl<'a, S: MoveSink> RifleSink<'a, S> {
    pub(super) fn new(pos: &'a Position, inner: &'a mut S) -> RifleSink<'a, S> {
        RifleSink { pos, inner, last_shot: None }
    }

    /// The shot a displacement `m` stands for, if it captures.
    fn shot(&self, m: &Move) -> Option<Move> {
        if m.kind != MoveKind::Normal {
            return None;
        }
        let mover = self.pos.piece_at(m.from)?;
        let takes_on_to = m.to != m.from && self.pos.piece_at(m.to).is_some_and(|p| p.color() != mover.color());
        if !takes_on_to && m.captures().is_empty() {
            return None;
        }
        let mut shot = Move::normal(m.from, m.from).with_kind(MoveKind::Stationary);
        for &c in m.captures() {
            shot.add_capture(c);
        }
        if takes_on_to {
            shot.add_capture(m.to);
        }
        Some(shot)
    }
}

impl<S: MoveSink> MoveSink for RifleSink<'_, S> {
    fn push(&mut self, m: Move) {
        match self.shot(&m) {
            Some(shot) => {
                if self.last_shot != Some(shot) {
                    self.last_shot = Some(shot);
                    self.inner.push(shot);
                }
            }
            None => self.inner.push(m),
        }
    }

    forward_sink_queries!();

    fn claim_displacement(&mut self, to: Square) -> bool {
        self.inner.claim_displacement(to)
    }
}
