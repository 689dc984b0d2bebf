//! The search tree: a flat arena of nodes plus struct-of-arrays edges.
//!
//! A node is created when a search first walks into it; its edges (one per legal move, with
//! the move, the prior and the child index) are allocated together when it is expanded, so a
//! node's moves form one contiguous slice that can be handed to the evaluator as is. The four
//! vectors are the only storage: a search keeps two trees and re-roots from one into the other
//! ([`Tree::extract_into`], [`Tree::reset`]), so that once they have grown no move of a game
//! allocates.
//!
//! Values are stored from Blue's point of view. Players do not strictly alternate (setup
//! phases let one player choose several plies in a row), so a node records who is to move and
//! every reader converts to the perspective it needs.

use fairyzero_rules::{Color, EndReason, Move};

/// "No node".
pub const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeState {
    /// Reached but not yet looked at.
    Unexpanded,
    /// Legal moves generated, waiting for the evaluator.
    Pending,
    /// Priors and network value known.
    Expanded,
    /// The game is over here; `value`/`draw` are exact.
    Terminal,
}

#[derive(Clone, Debug)]
pub struct Node {
    /// Completed visits (evaluations and terminal hits backed up through this node).
    pub n: u32,
    /// Visits in flight (virtual loss).
    pub vl: u32,
    /// Sum of backed-up values, Blue's perspective.
    pub w: f64,
    /// Sum of backed-up draw probabilities.
    pub d: f64,
    pub to_move: Color,
    pub state: NodeState,
    pub first_edge: u32,
    pub n_edges: u32,
    /// The network's value (Blue's perspective) and draw probability, or the exact result of a
    /// terminal node.
    pub value: f32,
    pub draw: f32,
    /// Why the game ended, for terminal nodes; `None` on a terminal node that is a proven win
    /// (the game goes on there, but the side to move wins by its next move: `immediate_wins`).
    pub reason: Option<EndReason>,
}

impl Node {
    fn new(to_move: Color) -> Node {
        Node {
            n: 0,
            vl: 0,
            w: 0.0,
            d: 0.0,
            to_move,
            state: NodeState::Unexpanded,
            first_edge: 0,
            n_edges: 0,
            value: 0.0,
            draw: 0.0,
            reason: None,
        }
    }

    /// Mean value for `color`, if visited.
    pub fn q(&self, color: Color) -> Option<f64> {
        (self.n > 0).then(|| sign(color) * self.w / self.n as f64)
    }

    /// Mean draw probability, if visited.
    pub fn draw_rate(&self) -> Option<f64> {
        (self.n > 0).then(|| self.d / self.n as f64)
    }
}

/// +1 for Blue, -1 for Tan: converts Blue-perspective values.
#[inline]
pub fn sign(color: Color) -> f64 {
    match color {
        Color::Blue => 1.0,
        Color::Tan => -1.0,
    }
}

#[derive(Clone, Debug, Default)]
pub struct Tree {
    pub nodes: Vec<Node>,
    pub moves: Vec<Move>,
    pub priors: Vec<f32>,
    pub children: Vec<u32>,
}

impl Tree {
    /// A tree holding only an unexpanded root (index 0).
    pub fn new(to_move: Color) -> Tree {
        Tree { nodes: vec![Node::new(to_move)], ..Tree::default() }
    }

    /// Makes this tree a lone unexpanded root, keeping its memory.
    pub fn reset(&mut self, to_move: Color) {
        self.clear();
        self.nodes.push(Node::new(to_move));
    }

    fn clear(&mut self) {
        self.nodes.clear();
        self.moves.clear();
        self.priors.clear();
        self.children.clear();
    }

    pub const ROOT: u32 = 0;

    #[inline]
    pub fn node(&self, id: u32) -> &Node {
        &self.nodes[id as usize]
    }

    #[inline]
    pub fn node_mut(&mut self, id: u32) -> &mut Node {
        &mut self.nodes[id as usize]
    }

    pub fn root(&self) -> &Node {
        &self.nodes[0]
    }

    /// The edge index range of a node.
    #[inline]
    pub fn edges(&self, id: u32) -> std::ops::Range<usize> {
        let n = &self.nodes[id as usize];
        n.first_edge as usize..(n.first_edge + n.n_edges) as usize
    }

    pub fn edge_moves(&self, id: u32) -> &[Move] {
        &self.moves[self.edges(id)]
    }

    pub fn add_node(&mut self, to_move: Color) -> u32 {
        self.nodes.push(Node::new(to_move));
        (self.nodes.len() - 1) as u32
    }

    /// Allocates a node's edges, with zero priors and no children.
    pub fn set_edges(&mut self, id: u32, moves: &[Move]) {
        let first = self.moves.len() as u32;
        self.moves.extend_from_slice(moves);
        self.priors.resize(self.moves.len(), 0.0);
        self.children.resize(self.moves.len(), NONE);
        let node = &mut self.nodes[id as usize];
        node.first_edge = first;
        node.n_edges = moves.len() as u32;
    }

    /// The child behind edge `e`, creating it (to move: `to_move`) if needed.
    pub fn child_or_create(&mut self, e: usize, to_move: impl FnOnce() -> Color) -> u32 {
        if self.children[e] == NONE {
            let id = self.add_node(to_move());
            self.children[e] = id;
        }
        self.children[e]
    }

    /// Visits of the child behind edge `e` (0 when it does not exist).
    #[inline]
    pub fn child_visits(&self, e: usize) -> u32 {
        match self.children[e] {
            NONE => 0,
            c => self.nodes[c as usize].n,
        }
    }

    /// The edge of a node's most visited child (ties: the higher prior, then the first).
    pub fn best_edge(&self, id: u32) -> Option<usize> {
        let mut best: Option<(usize, u32, f32)> = None;
        for e in self.edges(id) {
            let key = (self.child_visits(e), self.priors[e]);
            if best.is_none_or(|(_, n, p)| key.0 > n || (key.0 == n && key.1 > p)) {
                best = Some((e, key.0, key.1));
            }
        }
        best.map(|(e, _, _)| e)
    }

    /// Makes `out` (its memory reused) a tree holding only the subtree under `new_root`, which
    /// must be a node of this tree. Nothing may be in flight. `stack` is scratch space.
    pub fn extract_into(&self, new_root: u32, out: &mut Tree, stack: &mut Vec<(u32, u32, usize)>) {
        out.clear();
        stack.clear();
        // (old id, new parent, edge index in the new tree's parent range)
        stack.push((new_root, NONE, 0usize));
        while let Some((old, parent_new, edge_new)) = stack.pop() {
            let node = self.nodes[old as usize].clone();
            debug_assert_eq!(node.vl, 0, "no visit in flight while re-rooting");
            let new_id = out.nodes.len() as u32;
            out.nodes.push(node);
            if parent_new != NONE {
                out.children[edge_new] = new_id;
            }
            let range = self.edges(old);
            let first = out.moves.len();
            out.moves.extend_from_slice(&self.moves[range.clone()]);
            out.priors.extend_from_slice(&self.priors[range.clone()]);
            out.children.resize(out.moves.len(), NONE);
            let n = &mut out.nodes[new_id as usize];
            n.first_edge = first as u32;
            for (k, e) in range.enumerate() {
                let c = self.children[e];
                if c != NONE {
                    stack.push((c, new_id, first + k));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use fairyzero_rules::Square;

    use super::*;

    #[test]
    fn extract_keeps_the_subtree_only() {
        let mut t = Tree::new(Color::Blue);
        let m = |i: u16| Move::normal(Square(i), Square(i + 1));
        t.set_edges(0, &[m(0), m(1)]);
        let a = t.child_or_create(0, || Color::Tan);
        let b = t.child_or_create(1, || Color::Tan);
        t.set_edges(a, &[m(5), m(6), m(7)]);
        t.set_edges(b, &[m(9)]);
        let aa = t.child_or_create(t.edges(a).start + 2, || Color::Blue);
        t.node_mut(aa).n = 7;
        t.node_mut(a).n = 8;
        // Into a tree that held more: nothing of it survives.
        let mut sub = t.clone();
        t.extract_into(a, &mut sub, &mut Vec::new());
        assert_eq!(sub.nodes.len(), 2);
        assert_eq!((sub.moves.len(), sub.priors.len(), sub.children.len()), (3, 3, 3));
        assert_eq!(sub.root().n, 8);
        assert_eq!(sub.edge_moves(0), &[m(5), m(6), m(7)]);
        assert_eq!(sub.child_visits(2), 7);
        assert_eq!(sub.children[0], NONE);
        sub.reset(Color::Tan);
        assert_eq!((sub.nodes.len(), sub.moves.len(), sub.root().to_move), (1, 0, Color::Tan));
    }
}
