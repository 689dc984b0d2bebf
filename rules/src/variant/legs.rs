//! Multi-leg XBetza components (`a` legs, chushin-shogi.md §6, §7.2) compiled into one trie of
//! absolute steps per (colour, piece type), which `movegen::legs` walks depth first.
//!
//! Compilation resolves everything the text leaves relative: group repeats are already expanded
//! by the parser; a continuation leg's `f`/`b`/`v`/no direction becomes absolute against the
//! concrete direction of the leg before it (rotated 180° for Tan, like every geometry); `y`
//! toggles the range of the legs after it. Paths that share a prefix share trie nodes, so the
//! eight first steps of `aK` and `aaK` are walked once.
//!
//! A node is one leg with one concrete direction. Its `mode` says what its stop square may
//! hold: for a non-final leg, `moves` an empty square (the walk passes through), `captures` an
//! enemy (captured on the spot: a locust victim), `hops` any occupied square (left untouched);
//! for a final leg, `moves` an empty square and `captures` an enemy (captured by landing). The
//! moving piece's start square and the squares of earlier victims read as empty during the
//! move. A slider leg (`max_steps != 1`) stops on each empty square of its line (`moves`) and
//! on the line's first occupied square (`captures`, `hops`), never beyond it.

use crate::{spec::betza::Geometry, types::Dims};

/// What a leg's stop square may hold (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub(crate) struct LegMode {
    pub moves: bool,
    pub captures: bool,
    pub hops: bool,
}

/// One leg of one path, with a concrete direction for one colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LegNode {
    /// The step, from the owner's colour already applied (absolute board direction).
    pub dx: i8,
    pub dy: i8,
    /// 1: one leap of `(dx, dy)`; `n > 1`: up to `n` steps along the line; 0: unlimited.
    pub max_steps: u8,
    /// XBetza `j`: the line's first square is skipped whatever it holds.
    pub skip_first: bool,
    pub mode: LegMode,
    /// A move may end with this leg. A node may also have children (a longer path that
    /// continues from the same stop with a non-final mode is a different node, since its mode
    /// differs; a node with `is_final` and children happens only when both modes agree).
    pub is_final: bool,
    /// The legs that may follow, `nodes[children.0..children.1]`.
    pub children: (u32, u32),
}

/// The legs of one (colour, piece type): `nodes[roots.0..roots.1]` are the first legs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct LegTrie {
    pub nodes: Vec<LegNode>,
    pub roots: (u32, u32),
}

impl LegTrie {
    #[inline]
    pub(crate) fn roots(&self) -> &[LegNode] {
        &self.nodes[self.roots.0 as usize..self.roots.1 as usize]
    }

    #[inline]
    pub(crate) fn children(&self, node: &LegNode) -> &[LegNode] {
        &self.nodes[node.children.0 as usize..node.children.1 as usize]
    }
}

/// Every piece type's trie, per colour; `None` for types without multi-leg components.
#[derive(Clone, Debug, Default)]
pub(crate) struct LegTries {
    /// Indexed by `color.index() * n_types + kind.index()`.
    tries: Vec<Option<LegTrie>>,
    n_types: usize,
}

impl LegTries {
    /// Compiles the multi-leg components of every piece type (`geometries[type]`). Returns the
    /// problems found, each naming the component, for the loader to prefix with the piece.
    pub(crate) fn compile(_dims: Dims, geometries: &[Geometry]) -> Result<LegTries, Vec<(usize, String)>> {
        let mut problems = Vec::new();
        for (i, g) in geometries.iter().enumerate() {
            if let Some(c) = g.multi_leg().next() {
                let text: Vec<&str> = c.legs.iter().map(|l| l.text.as_str()).collect();
                problems.push((
                    i,
                    format!("multi-leg component {:?} is not supported by the move generator yet", text.join("a")),
                ));
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(LegTries { tries: vec![None; 2 * geometries.len()], n_types: geometries.len() })
    }

    /// The trie of a piece, `None` if it has no multi-leg component.
    #[inline]
    pub(crate) fn trie(&self, color: crate::types::Color, kind: crate::types::PieceType) -> Option<&LegTrie> {
        self.tries.get(color.index() * self.n_types + kind.index()).and_then(Option::as_ref)
    }

    /// Whether any piece has multi-leg components.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.tries.iter().all(Option::is_none)
    }
}
