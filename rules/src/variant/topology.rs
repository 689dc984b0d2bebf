//! Board topology (`topology = "cylinder"`: the first and last files are adjacent, Cylindrical
//! Chess, list #60) and the grid rule (`[grid]`: a move must end in another cell of a grid than
//! it started in, Grid Chess, list #61).
//!
//! Both act where the move tables (`tables::build_tables`) and the reverse attack tables
//! (`attack_tables`) are built, so the move generator and attack tests pay nothing at run time:
//!
//! - **Cylinder.** Every step goes through [`Geometry::offset`], which wraps files. A ride stops
//!   when it comes back to its start square, so a rook on an empty rank reaches the other seven
//!   squares both ways round (the move generator de-duplicates such pieces: `needs_dedup`). Pins
//!   and the reverse attack lines wrap the same way. Ranks never wrap.
//! - **Grid.** A leap into the piece's own cell is dropped from the tables. A ride's squares
//!   that lie in the piece's own cell are passed through but never landed on: on a flat board
//!   they are the first squares of the line ([`Ray::lead`](super::tables::Ray) counts them),
//!   on a cylinder the line may also come back into the cell at its end, and those last squares
//!   are cut (nothing beyond them is reachable). Attack tables drop the same leaps and let a
//!   piece in the target's cell block a line without attacking along it, so a king is never
//!   checked from inside its own cell, and castling may pass such a square.

use crate::{
    spec::{
        betza::{self, Atom},
        variant_spec::{GridSpec, Topology, VariantSpec},
    },
    types::{Color, Dims, Square},
    variant::{tables::MoveTables, PieceDef},
};

/// Resolves `topology` and `[grid]`, refusing what they do not reach: moves that do not come
/// from the move tables (powers, multi-leg components) and, on a cylinder, an en-passant piece
/// with a sideways initial step (the passed squares are found by a flat interpolation).
/// Problems name the field.
pub(crate) fn conclude(
    spec: &VariantSpec,
    atoms: &[Vec<Atom>],
    geometries: &[betza::Geometry],
    problems: &mut Vec<String>,
) -> (Geometry, Option<Cells>) {
    let dims = Dims { width: spec.width, height: spec.height };
    let geo = Geometry::new(dims, spec.topology);
    let outside_tables = |i: usize| !spec.pieces[i].powers.is_empty() || geometries[i].multi_leg().next().is_some();
    for (i, p) in spec.pieces.iter().enumerate() {
        if geo.wrap && outside_tables(i) {
            problems.push(format!(
                "piece {:?}: field `topology`: \"cylinder\" is not supported with powers or multi-leg Betza moves \
                 (their moves do not wrap round the board)",
                p.name
            ));
        }
        if geo.wrap && p.en_passant && atoms[i].iter().any(|a| a.initial_only && a.dx != 0) {
            problems.push(format!(
                "piece {:?}: field `topology`: \"cylinder\" is not supported with `en_passant` after a sideways \
                 initial step",
                p.name
            ));
        }
        if spec.grid.is_some() && outside_tables(i) {
            problems.push(format!(
                "piece {:?}: field `grid`: not supported with powers or multi-leg Betza moves (their moves are \
                 not filtered by the grid)",
                p.name
            ));
        }
    }
    let cells = spec.grid.as_ref().and_then(|g| match Cells::new(dims, g) {
        Ok(cells) => Some(cells),
        Err(e) => {
            problems.push(e);
            None
        }
    });
    if spec.grid.is_some() && spec.flying_general {
        problems.push("field `grid`: not supported with `flying_general` (its file attack ignores cells)".into());
    }
    (geo, cells)
}

/// On a cylinder, two lines of one piece may reach the same square (a rook on an empty rank
/// both ways round, a bishop four files away both ways): such a piece's moves are
/// de-duplicated, as for overlapping atoms on a flat board.
pub(crate) fn mark_duplicates(geo: Geometry, tables: &MoveTables, pieces: &mut [PieceDef]) {
    if !geo.wrap {
        return;
    }
    let (nsq, ntypes) = (geo.dims.squares(), pieces.len());
    let mut seen = vec![false; nsq];
    for color in Color::BOTH {
        for (k, piece) in pieces.iter_mut().enumerate() {
            for s in 0..nsq {
                if piece.needs_dedup {
                    break;
                }
                // The table slot of (colour, type, square), as `Variant::table_slot` computes it.
                let slot = (color.index() * ntypes + k) * nsq + s;
                let (a, b) = tables.leap_index[slot];
                let leaps = tables.leaps[a as usize..b as usize].iter().map(|l| l.to);
                let (a, b) = tables.ray_index[slot];
                let rays = tables.rays[a as usize..b as usize]
                    .iter()
                    .flat_map(|r| &tables.ray_squares[r.start as usize..r.start as usize + r.len as usize])
                    .copied();
                seen.iter_mut().for_each(|x| *x = false);
                for to in leaps.chain(rays) {
                    if std::mem::replace(&mut seen[to.index()], true) {
                        piece.needs_dedup = true;
                        break;
                    }
                }
            }
        }
    }
}

/// The board's dimensions and how its files join.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Geometry {
    pub dims: Dims,
    /// The first and last files are adjacent.
    pub wrap: bool,
}

impl Geometry {
    pub(crate) fn new(dims: Dims, topology: Topology) -> Geometry {
        Geometry { dims, wrap: topology == Topology::Cylinder }
    }

    /// The square `(dx, dy)` away from `(file, rank)`, files wrapping on a cylinder; `None` off
    /// the board.
    #[inline]
    pub(crate) fn offset(self, file: i32, rank: i32, dx: i32, dy: i32) -> Option<Square> {
        let f = if self.wrap { (file + dx).rem_euclid(self.dims.width as i32) } else { file + dx };
        self.dims.square(f, rank + dy)
    }

    /// The squares of a line from `from` in steps of `(dx, dy)`, nearest first: at most `limit`,
    /// ending at the board's edge or, on a cylinder, before the line comes back to `from`.
    pub(crate) fn line(self, from: Square, dx: i32, dy: i32, limit: usize) -> impl Iterator<Item = Square> {
        let (f, r) = (self.dims.file(from), self.dims.rank(from));
        (1..=limit.min(u16::MAX as usize) as i32)
            .map(move |n| self.offset(f, r, dx * n, dy * n))
            .take_while(move |s| s.is_some_and(|s| s != from))
            .map(|s| s.expect("checked by take_while"))
    }
}

/// The grid's cells: the cell of every square.
#[derive(Clone, Debug)]
pub(crate) struct Cells {
    cell: Vec<u32>,
}

impl Cells {
    /// Resolves `[grid]`; problems name the field.
    pub(crate) fn new(dims: Dims, spec: &GridSpec) -> Result<Cells, String> {
        let [cw, ch] = spec.cell;
        let [ox, oy] = spec.offset;
        if cw == 0 || ch == 0 {
            return Err(format!("field `grid.cell` {:?}: a cell needs at least one file and one rank", spec.cell));
        }
        if cw == 1 && ch == 1 {
            return Err("field `grid.cell` [1, 1]: every move would cross a line, which is no rule at all".into());
        }
        if ox >= cw || oy >= ch {
            return Err(format!(
                "field `grid.offset` {:?}: each offset must be smaller than the cell's side {:?}",
                spec.offset, spec.cell
            ));
        }
        // Cells before the first full one (an offset) are numbered 0, the first full one 1.
        let index = |coord: i32, size: u8, offset: u8| ((coord + size as i32 - offset as i32) / size as i32) as u32;
        let columns = index(dims.width as i32 - 1, cw, ox) + 1;
        let cell = (0..dims.squares())
            .map(|i| {
                let sq = Square(i as u16);
                index(dims.rank(sq), ch, oy) * columns + index(dims.file(sq), cw, ox)
            })
            .collect();
        Ok(Cells { cell })
    }

    /// Whether two squares lie in one cell (a move between them crosses no line).
    #[inline]
    pub(crate) fn same(&self, a: Square, b: Square) -> bool {
        self.cell[a.index()] == self.cell[b.index()]
    }

    /// Whether the grid is its own left-right mirror image (training's mirror augmentation needs
    /// it): two squares share a cell exactly when their mirror images do.
    pub(crate) fn mirror_symmetric(&self, dims: Dims) -> bool {
        // Cells are rectangles, so comparing each square with its right-hand neighbour suffices.
        (0..dims.squares()).all(|i| {
            let a = Square(i as u16);
            dims.square(dims.file(a) + 1, dims.rank(a))
                .is_none_or(|b| self.same(a, b) == self.same(dims.mirror(a), dims.mirror(b)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(dims: Dims, s: &str) -> Square {
        dims.parse_square(s).unwrap()
    }

    #[test]
    fn cylinder_steps_wrap_files_and_lines_stop_before_their_start() {
        let dims = Dims { width: 8, height: 8 };
        let g = Geometry::new(dims, Topology::Cylinder);
        assert_eq!(g.offset(0, 0, -1, 1), Some(sq(dims, "h2")));
        assert_eq!(g.offset(7, 7, 2, -1), Some(sq(dims, "b7")));
        assert_eq!(g.offset(7, 7, 0, 1), None, "ranks do not wrap");
        let rank: Vec<Square> = g.line(sq(dims, "c3"), 1, 0, usize::MAX).collect();
        assert_eq!(rank.len(), 7);
        assert_eq!((rank[0], rank[6]), (sq(dims, "d3"), sq(dims, "b3")));
        // The Cylindrical Chess mate of the source: Qd1's diagonal reaches e8 round the edge.
        let diagonal: Vec<Square> = g.line(sq(dims, "d1"), -1, 1, usize::MAX).collect();
        assert_eq!(diagonal[3], sq(dims, "h5"));
        assert_eq!(diagonal.last(), Some(&sq(dims, "e8")));
        let flat = Geometry::new(dims, Topology::Flat);
        assert_eq!(flat.offset(0, 0, -1, 1), None);
        assert_eq!(flat.line(sq(dims, "d1"), -1, 1, usize::MAX).count(), 3);
    }

    #[test]
    fn grid_cells_follow_size_and_offset() {
        let dims = Dims { width: 8, height: 8 };
        let grid = Cells::new(dims, &GridSpec { cell: [2, 2], offset: [0, 0] }).unwrap();
        assert!(grid.same(sq(dims, "a1"), sq(dims, "b2")));
        assert!(!grid.same(sq(dims, "b1"), sq(dims, "c1")));
        assert!(!grid.same(sq(dims, "a2"), sq(dims, "a3")));
        assert!(grid.mirror_symmetric(dims));
        let displaced = Cells::new(dims, &GridSpec { cell: [2, 2], offset: [1, 1] }).unwrap();
        assert!(!displaced.same(sq(dims, "a1"), sq(dims, "b1")));
        assert!(!displaced.same(sq(dims, "a1"), sq(dims, "a2")));
        assert!(displaced.same(sq(dims, "b2"), sq(dims, "c3")));
        assert!(displaced.same(sq(dims, "h8"), sq(dims, "h8")));
        assert!(!displaced.same(sq(dims, "g7"), sq(dims, "h8")));
        assert!(displaced.mirror_symmetric(dims));
        let slipped = Cells::new(dims, &GridSpec { cell: [2, 2], offset: [1, 0] }).unwrap();
        assert!(slipped.same(sq(dims, "b1"), sq(dims, "c2")) && slipped.mirror_symmetric(dims));
        let odd = Cells::new(Dims { width: 7, height: 8 }, &GridSpec { cell: [2, 2], offset: [0, 0] }).unwrap();
        assert!(!odd.mirror_symmetric(Dims { width: 7, height: 8 }));
        for bad in [GridSpec { cell: [0, 2], offset: [0, 0] }, GridSpec { cell: [1, 1], offset: [0, 0] }] {
            assert!(Cells::new(dims, &bad).unwrap_err().contains("grid.cell"));
        }
        assert!(Cells::new(dims, &GridSpec { cell: [2, 2], offset: [2, 0] }).unwrap_err().contains("grid.offset"));
    }
}
