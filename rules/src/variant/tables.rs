//! Move tables: every Betza atom of every piece type expanded, per colour and square, into the
//! leaps and rays the move generator walks (Fairy-Stockfish's `Variant::conclude()`).

use crate::{
    spec::betza::{Atom, Jump},
    types::{Color, Square},
    variant::{
        regions::{self, PieceRegions},
        topology::{Cells, Geometry},
    },
};

/// Leap and ray flags: the atom moves to an empty square, captures, or is initial-only.
pub(crate) const F_MOVE: u8 = 1;
pub(crate) const F_CAPTURE: u8 = 2;
pub(crate) const F_INITIAL: u8 = 4;

/// A precomputed leap from one square.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Leap {
    pub to: Square,
    /// Squares that must be empty (lame leapers); `Square::NONE` when unused.
    pub via: [Square; 3],
    pub flags: u8,
}

/// A precomputed ray from one square: `squares[start..start + len]`, nearest first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ray {
    pub start: u32,
    pub len: u16,
    /// The first `lead` squares lie in the piece's own grid cell (`[grid]`): passed through,
    /// never landed on. 0 without a grid.
    pub lead: u16,
    pub flags: u8,
    pub jump: Jump,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct MoveTables {
    /// Per `(colour, type, square)`: range into `leaps`.
    pub leap_index: Vec<(u32, u32)>,
    pub leaps: Vec<Leap>,
    pub ray_index: Vec<(u32, u32)>,
    pub rays: Vec<Ray>,
    pub ray_squares: Vec<Square>,
}

/// Expands every atom of every piece into per-square leap and ray entries, for both colours.
/// The second player's vectors are the first player's rotated by 180°.
///
/// `regions` (one entry per piece type, or empty for none) adds the moves a piece has only on
/// some squares and confines pieces to a region: a leap must land inside it, a ride stops at
/// its edge (`crate::variant::regions`). `geo` wraps the files of a cylinder and `cells` applies
/// the grid rule (`crate::variant::topology`).
pub(crate) fn build_tables(
    geo: Geometry,
    cells: Option<&Cells>,
    geometries: &[Vec<Atom>],
    regions: &[PieceRegions],
) -> MoveTables {
    let dims = geo.dims;
    let nsq = dims.squares();
    let same_cell = |a: Square, b: Square| cells.is_some_and(|c| c.same(a, b));
    let mut t = MoveTables::default();
    let none = PieceRegions::default();
    for color in Color::BOTH {
        for (k, base) in geometries.iter().enumerate() {
            let reg = regions.get(k).unwrap_or(&none);
            let inside = |s: Square| reg.confine.as_ref().is_none_or(|m| regions::contains(m, color, s));
            for s in 0..nsq {
                let sq = Square(s as u16);
                let (f, r) = (dims.file(sq), dims.rank(sq));
                let leap_start = t.leaps.len() as u32;
                let ray_start = t.rays.len() as u32;
                let extra = reg.extra.iter().filter(|(m, _)| regions::contains(m, color, sq)).flat_map(|(_, a)| a);
                for a in base.iter().chain(extra) {
                    let (dx, dy) = match color {
                        Color::Blue => (a.dx as i32, a.dy as i32),
                        Color::Tan => (-(a.dx as i32), -(a.dy as i32)),
                    };
                    let mut flags = 0;
                    if a.modality.moves {
                        flags |= F_MOVE;
                    }
                    if a.modality.captures {
                        flags |= F_CAPTURE;
                    }
                    if a.initial_only {
                        flags |= F_INITIAL;
                    }
                    let is_leap = a.max_steps == 1 && matches!(a.jump, Jump::Free | Jump::Lame);
                    if is_leap {
                        // A leap round a cylinder back to its own square, or within a grid cell, is
                        // no move.
                        let Some(to) = geo.offset(f, r, dx, dy).filter(|&to| inside(to) && to != sq) else {
                            continue;
                        };
                        if same_cell(sq, to) {
                            continue;
                        }
                        let mut via = [Square::NONE; 3];
                        if a.jump == Jump::Lame {
                            for (i, (vx, vy)) in lame_path(dx, dy).into_iter().enumerate().take(3) {
                                via[i] = geo.offset(f, r, vx, vy).expect("the path lies between two board squares");
                            }
                        }
                        t.leaps.push(Leap { to, via, flags });
                    } else {
                        let limit = if a.max_steps == 0 { usize::MAX } else { a.max_steps as usize };
                        let start = t.ray_squares.len() as u32;
                        // A range bounds the destination's distance. A cannon's screen lies before
                        // its landing square, so its line is cut at the range like a rider's; a
                        // grasshopper lands right behind its screen wherever that is, so it keeps
                        // the whole line (the loader refuses a grasshopper with a range).
                        let limit = if matches!(a.jump, Jump::Grasshopper) { usize::MAX } else { limit };
                        t.ray_squares.extend(geo.line(sq, dx, dy, limit).take_while(|&s2| inside(s2)));
                        // Grid: the squares of the piece's own cell, first (passed, not landed on)
                        // and, round a cylinder, last (cut: nothing lies beyond them).
                        let line = &t.ray_squares[start as usize..];
                        let lead = line.iter().take_while(|&&s2| same_cell(sq, s2)).count();
                        let tail = line[lead..].iter().rev().take_while(|&&s2| same_cell(sq, s2)).count();
                        let len = line.len() - tail;
                        t.ray_squares.truncate(start as usize + len);
                        if len > lead {
                            t.rays.push(Ray { start, len: len as u16, lead: lead as u16, flags, jump: a.jump });
                        } else {
                            t.ray_squares.truncate(start as usize);
                        }
                    }
                }
                t.leap_index.push((leap_start, t.leaps.len() as u32));
                t.ray_index.push((ray_start, t.rays.len() as u32));
            }
        }
    }
    t
}

/// The intermediate squares a lame leaper needs empty, relative to its origin. Orthogonal and
/// diagonal leaps pass through their intermediate points; an oblique leap goes first one
/// orthogonal step along its longer axis (the Xiangqi horse), then diagonally.
fn lame_path(dx: i32, dy: i32) -> Vec<(i32, i32)> {
    let n = dx.abs().max(dy.abs());
    if dx == 0 || dy == 0 || dx.abs() == dy.abs() {
        (1..n).map(|i| (dx / n * i, dy / n * i)).collect()
    } else if dx.abs() > dy.abs() {
        vec![(dx.signum(), 0)]
    } else {
        vec![(0, dy.signum())]
    }
}
