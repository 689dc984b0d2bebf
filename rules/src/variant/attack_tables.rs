//! Reverse attack tables for variants whose captures are plain leaps and rides (the chess
//! family): "is this square attacked by that side?" walks each line from the square once and
//! checks every leap source once, whatever the number of piece types, instead of asking every
//! piece type in turn.

use crate::{
    spec::betza::{Atom, Jump},
    types::{Color, Piece, Square},
    variant::topology::{Cells, Geometry},
};

/// Piece types as bits; the fast tables are built only for variants with at most 64 types.
type TypeMask = u64;

/// A line from the target square: its step vector and, per step, the square and its attackers.
type LineSteps = (i32, i32, Vec<(Square, TypeMask)>);

#[derive(Clone, Debug)]
struct AttackRay {
    start: u32,
    len: u16,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct AttackTables {
    /// Per `(attacker colour, target square)`: range into `leaps`.
    leap_index: Vec<(u32, u32)>,
    leaps: Vec<(Square, TypeMask)>,
    ray_index: Vec<(u32, u32)>,
    rays: Vec<AttackRay>,
    /// Per ray step: the square and the types that capture from it along the ray.
    steps: Vec<(Square, TypeMask)>,
    nsq: usize,
}

impl AttackTables {
    /// `None` when the variant needs the generic path (hoppers, lame or initial captures, more
    /// than 64 types). `geo` wraps a cylinder's files; with a grid (`cells`), a piece in the
    /// target's cell attacks nothing there but still blocks a line (`crate::variant::topology`).
    pub(crate) fn build(geo: Geometry, cells: Option<&Cells>, geometries: &[Vec<Atom>]) -> Option<AttackTables> {
        let dims = geo.dims;
        let same_cell = |a: Square, b: Square| cells.is_some_and(|c| c.same(a, b));
        if geometries.len() > 64 {
            return None;
        }
        let captures = |a: &&Atom| a.modality.captures;
        if geometries.iter().flatten().filter(captures).any(|a| a.jump != Jump::Free || a.initial_only) {
            return None;
        }
        let nsq = dims.squares();
        let mut t = AttackTables { nsq, ..Default::default() };
        for color in Color::BOTH {
            for s in 0..nsq {
                let target = Square(s as u16);
                let (f, r) = (dims.file(target), dims.rank(target));
                let leap_start = t.leaps.len() as u32;
                let ray_start = t.rays.len() as u32;
                // Rays keyed by their step vector, so atoms along one line share one walk.
                let mut ray_keys: Vec<LineSteps> = Vec::new();
                for (ty, atoms) in geometries.iter().enumerate() {
                    let bit = 1u64 << ty;
                    for a in atoms.iter().filter(captures) {
                        let (dx, dy) = match color {
                            Color::Blue => (a.dx as i32, a.dy as i32),
                            Color::Tan => (-(a.dx as i32), -(a.dy as i32)),
                        };
                        // The attacker stands at target - k * (dx, dy).
                        if a.max_steps == 1 {
                            let from = geo.offset(f, r, -dx, -dy).filter(|&from| from != target);
                            if let Some(from) = from.filter(|&from| !same_cell(from, target)) {
                                let range = leap_start as usize..t.leaps.len();
                                match t.leaps[range].iter_mut().find(|(sq, _)| *sq == from) {
                                    Some(entry) => entry.1 |= bit,
                                    None => t.leaps.push((from, bit)),
                                }
                            }
                            continue;
                        }
                        let limit = if a.max_steps == 0 { usize::MAX } else { a.max_steps as usize };
                        let idx = match ray_keys.iter().position(|(x, y, _)| (*x, *y) == (-dx, -dy)) {
                            Some(i) => i,
                            None => {
                                let squares = geo.line(target, -dx, -dy, usize::MAX).map(|sq| (sq, 0)).collect();
                                ray_keys.push((-dx, -dy, squares));
                                ray_keys.len() - 1
                            }
                        };
                        for (k, step) in ray_keys[idx].2.iter_mut().enumerate() {
                            // A piece in the target's cell blocks the line but attacks nothing.
                            if k < limit && !same_cell(step.0, target) {
                                step.1 |= bit;
                            }
                        }
                    }
                }
                for (_, _, squares) in ray_keys {
                    // Trailing steps no type reaches are dropped.
                    let used = squares.iter().rposition(|s| s.1 != 0).map_or(0, |i| i + 1);
                    if used == 0 {
                        continue;
                    }
                    let start = t.steps.len() as u32;
                    t.steps.extend_from_slice(&squares[..used]);
                    t.rays.push(AttackRay { start, len: used as u16 });
                }
                t.leap_index.push((leap_start, t.leaps.len() as u32));
                t.ray_index.push((ray_start, t.rays.len() as u32));
            }
        }
        Some(t)
    }

    /// Whether a piece of colour `by` could capture on `sq`.
    #[inline]
    pub(crate) fn is_attacked(&self, board: &[Option<Piece>], sq: Square, by: Color) -> bool {
        let slot = by.index() * self.nsq + sq.index();
        let attacker = |p: Piece, mask: TypeMask| p.color() == by && mask >> p.kind().index() & 1 != 0;
        let (a, b) = self.leap_index[slot];
        for &(from, mask) in &self.leaps[a as usize..b as usize] {
            if board[from.index()].is_some_and(|p| attacker(p, mask)) {
                return true;
            }
        }
        let (a, b) = self.ray_index[slot];
        for ray in &self.rays[a as usize..b as usize] {
            for &(step, mask) in &self.steps[ray.start as usize..ray.start as usize + ray.len as usize] {
                if let Some(p) = board[step.index()] {
                    if attacker(p, mask) {
                        return true;
                    }
                    break;
                }
            }
        }
        false
    }
}
