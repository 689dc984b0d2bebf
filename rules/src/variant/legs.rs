//! Multi-leg XBetza components (`a` legs, chushin-shogi.md §6, §7.2) compiled into one trie of
//! absolute steps per (colour, piece type), which `movegen::legs` walks depth first.
//!
//! Compilation resolves everything the text leaves relative: group repeats are already expanded
//! by the parser; a continuation leg's `f`/`b`/`v`/no direction becomes absolute against the
//! concrete direction of the leg before it (rotated 180° for Tan, like every geometry); `y`
//! toggles the range of the legs after it. Paths that share a prefix share trie nodes, so the
//! eight first steps of `aK` and `aaK` are walked once, and identical subtrees are stored once
//! (the "trie" is a DAG of sibling lists): the walk then enters one list from one square once
//! per move, and the Fire Demon's 10,728 tree nodes become a few hundred.
//!
//! A node is one leg with one concrete direction. Its `mode` says what its stop square may
//! hold: for a non-final leg, `moves` an empty square (the walk passes through), `captures` an
//! enemy (captured on the spot: a locust victim), `hops` any occupied square (left untouched);
//! for a final leg, `moves` an empty square and `captures` an enemy (captured by landing). The
//! moving piece's start square and the squares of earlier victims read as empty during the
//! move. A slider leg (`max_steps != 1`) stops on each empty square of its line (`moves`) and
//! on the line's first occupied square (`captures`, `hops`), never beyond it.
//!
//! Steps that cannot land on the board at all (a coordinate as long as the board) are left out
//! with everything after them. Compilation refuses what the walk cannot execute (a final leg
//! that hops, a leg that stops nowhere, `j` on a leaper) and pieces whose paths would exceed
//! [`MAX_TRIE_NODES`], naming the component.

use crate::{
    spec::betza::{Component, Geometry, LegDirs},
    types::{Color, Dims, PieceType},
};

/// What a leg's stop square may hold (see the module doc); the parser's type, so that a leg's
/// mode reaches the trie unchanged.
pub(crate) use crate::spec::betza::LegMode;

/// The most nodes one piece's trie may have, per colour: a bound on load time and memory far
/// above Chushin's largest (the Fire Demon, about 11,000).
pub(crate) const MAX_TRIE_NODES: usize = 1 << 16;

/// One leg of one path, with a concrete direction for one colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    pub(crate) fn compile(dims: Dims, geometries: &[Geometry]) -> Result<LegTries, Vec<(usize, String)>> {
        let n_types = geometries.len();
        let mut problems = Vec::new();
        let mut tries = vec![None; 2 * n_types];
        for (i, g) in geometries.iter().enumerate() {
            let components: Vec<&Component> = g.multi_leg().collect();
            let before = problems.len();
            let mut nodes = 0u64;
            for c in &components {
                match check(c) {
                    Ok(n) => nodes = nodes.saturating_add(n),
                    Err(e) => problems.push((i, format!("multi-leg component {:?}: {e}", component_text(c)))),
                }
            }
            if problems.len() == before && nodes > MAX_TRIE_NODES as u64 {
                problems.push((
                    i,
                    format!("multi-leg components expand to more than {MAX_TRIE_NODES} leg steps (about {nodes})"),
                ));
            }
            if problems.len() > before || components.is_empty() {
                continue;
            }
            for color in Color::BOTH {
                let trie = TrieBuilder::build(dims, color, &components);
                if !trie.nodes.is_empty() {
                    tries[color.index() * n_types + i] = Some(trie);
                }
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        if tries.iter().all(Option::is_none) {
            // No multi-leg piece: the driver tests `is_empty` once per generation.
            tries.clear();
        }
        Ok(LegTries { tries, n_types })
    }

    /// The trie of a piece, `None` if it has no multi-leg component.
    #[inline]
    pub(crate) fn trie(&self, color: Color, kind: PieceType) -> Option<&LegTrie> {
        self.tries.get(color.index() * self.n_types + kind.index()).and_then(Option::as_ref)
    }

    /// Whether any piece has multi-leg components.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.tries.is_empty()
    }
}

/// The component's text, legs joined by `a` (group repeats expanded), for errors.
fn component_text(c: &Component) -> String {
    c.legs.iter().map(|l| l.text.as_str()).collect::<Vec<_>>().join("a")
}

/// Checks that the walk can execute every leg of `c`; returns an upper bound on its trie nodes
/// (every path prefix, before sharing), saturating.
fn check(c: &Component) -> Result<u64, String> {
    let mut prefixes = 1u64;
    let mut nodes = 0u64;
    for (k, leg) in c.legs.iter().enumerate() {
        let last = k + 1 == c.legs.len();
        let m = leg.mode;
        let leg_name = format!("leg {} ({:?})", k + 1, leg.text);
        if last && m.hops {
            return Err(format!("{leg_name} is final and hops, which ends no move"));
        }
        if !m.moves && !m.captures && !m.hops {
            return Err(format!("{leg_name} may stop on no square"));
        }
        if leg.skip_first && leg.max_steps == 1 {
            return Err(format!("{leg_name} skips its first square ('j') but is not a slide"));
        }
        if leg.atoms.iter().any(|a| a.dx == 0 && a.dy == 0) {
            return Err(format!("{leg_name} has the null step"));
        }
        let choices = match (k, leg.dirs) {
            (0, LegDirs::Absolute) => leg.atoms.len() as u64,
            (0, LegDirs::Relative { .. }) => {
                return Err(format!("{leg_name} is first, so its directions must be absolute"))
            }
            (_, LegDirs::Absolute) => return Err(format!("{leg_name} continues, so its directions must be relative")),
            (_, LegDirs::Relative { any: true, .. }) => leg.atoms.len() as u64,
            (_, LegDirs::Relative { straight, reverse, .. }) => u64::from(straight) + u64::from(reverse),
        };
        if choices == 0 {
            return Err(format!("{leg_name} has no direction"));
        }
        prefixes = prefixes.saturating_mul(choices);
        nodes = nodes.saturating_add(prefixes);
    }
    Ok(nodes)
}

/// A trie node under construction: its step and its children, by draft index.
struct Draft {
    node: LegNode,
    children: Vec<usize>,
}

/// Builds one (colour, piece type) trie: every path of every component, merged where a prefix
/// is shared, then laid out breadth first so that each node's children are contiguous.
struct TrieBuilder {
    dims: Dims,
    /// +1 for Blue, -1 for Tan: Tan's moves are Blue's rotated by 180°, as everywhere.
    sign: i8,
    drafts: Vec<Draft>,
    roots: Vec<usize>,
}

impl TrieBuilder {
    fn build(dims: Dims, color: Color, components: &[&Component]) -> LegTrie {
        let sign = match color {
            Color::Blue => 1,
            Color::Tan => -1,
        };
        let mut b = TrieBuilder { dims, sign, drafts: Vec::new(), roots: Vec::new() };
        for c in components {
            for a in &c.legs[0].atoms {
                b.add(c, 0, (sign * a.dx, sign * a.dy), None);
            }
        }
        b.flatten()
    }

    /// Adds every path of `c` whose leg `k` steps by `dir` (absolute) below `parent`.
    fn add(&mut self, c: &Component, k: usize, dir: (i8, i8), parent: Option<usize>) {
        // A step as long as the board never lands, nor does anything after it.
        if dir.0.unsigned_abs() >= self.dims.width || dir.1.unsigned_abs() >= self.dims.height {
            return;
        }
        let leg = &c.legs[k];
        let last = k + 1 == c.legs.len();
        let node = LegNode {
            dx: dir.0,
            dy: dir.1,
            max_steps: leg.max_steps,
            skip_first: leg.skip_first,
            mode: leg.mode,
            is_final: last,
            children: (0, 0),
        };
        let id = self.child(parent, node);
        if last {
            return;
        }
        let next = &c.legs[k + 1];
        match next.dirs {
            LegDirs::Relative { any: true, .. } => {
                for a in &next.atoms {
                    self.add(c, k + 1, (self.sign * a.dx, self.sign * a.dy), Some(id));
                }
            }
            LegDirs::Relative { straight, reverse, .. } => {
                if straight {
                    self.add(c, k + 1, dir, Some(id));
                }
                if reverse {
                    self.add(c, k + 1, (-dir.0, -dir.1), Some(id));
                }
            }
            LegDirs::Absolute => unreachable!("check() refuses an absolute continuation leg"),
        }
    }

    /// The child of `parent` (a root for `None`) that takes `node`'s step, added if missing. A
    /// path that ends where another goes on with the same step and mode shares its node, which
    /// then is final and has children.
    fn child(&mut self, parent: Option<usize>, node: LegNode) -> usize {
        let siblings = match parent {
            Some(p) => &self.drafts[p].children,
            None => &self.roots,
        };
        let same_step = |d: &Draft| {
            let n = &d.node;
            (n.dx, n.dy, n.max_steps, n.skip_first, n.mode)
                == (node.dx, node.dy, node.max_steps, node.skip_first, node.mode)
        };
        if let Some(&id) = siblings.iter().find(|&&id| same_step(&self.drafts[id])) {
            self.drafts[id].node.is_final |= node.is_final;
            return id;
        }
        let id = self.drafts.len();
        self.drafts.push(Draft { node, children: Vec::new() });
        match parent {
            Some(p) => self.drafts[p].children.push(id),
            None => self.roots.push(id),
        }
        id
    }

    /// Lays the trie out with identical subtrees stored once: every distinct sibling list is one
    /// contiguous range, the roots first, and every node whose legs after it are that list
    /// points to it. The walk then meets many paths' common state as one list entered from one
    /// square (its visited set skips the repeats): `(a)2mpacabK`'s 584 area paths and their
    /// burns share a handful of lists, where a tree has thousands of nodes.
    fn flatten(self) -> LegTrie {
        let mut interned = Interned::default();
        let roots = interned.list(&self.drafts, &self.roots);
        // The roots first, then the other lists in the order they were met.
        let order: Vec<usize> =
            std::iter::once(roots).chain((0..interned.lists.len()).filter(|&l| l != roots)).collect();
        let mut start = vec![0u32; interned.lists.len()];
        let mut next = 0u32;
        for &l in &order {
            start[l] = next;
            next += interned.lists[l].len() as u32;
        }
        let mut nodes = Vec::with_capacity(next as usize);
        for &l in &order {
            for &class in &interned.lists[l] {
                let (node, children) = interned.classes[class];
                let range = (start[children], start[children] + interned.lists[children].len() as u32);
                nodes.push(LegNode { children: range, ..node });
            }
        }
        LegTrie { nodes, roots: (0, interned.lists[roots].len() as u32) }
    }
}

/// Distinct subtrees of a draft trie: a class is a node's step and mode with the list of its
/// children's classes; a list is a sorted set of classes.
#[derive(Default)]
struct Interned {
    /// Per class: the node (its `children` unused) and its list of children.
    classes: Vec<(LegNode, usize)>,
    class_ids: std::collections::HashMap<(LegNode, usize), usize>,
    lists: Vec<Vec<usize>>,
    list_ids: std::collections::HashMap<Vec<usize>, usize>,
}

impl Interned {
    fn list(&mut self, drafts: &[Draft], members: &[usize]) -> usize {
        let mut classes: Vec<usize> = members.iter().map(|&d| self.class(drafts, d)).collect();
        classes.sort_unstable();
        if let Some(&id) = self.list_ids.get(&classes) {
            return id;
        }
        self.lists.push(classes.clone());
        self.list_ids.insert(classes, self.lists.len() - 1);
        self.lists.len() - 1
    }

    fn class(&mut self, drafts: &[Draft], d: usize) -> usize {
        let children = self.list(drafts, &drafts[d].children);
        let key = (LegNode { children: (0, 0), ..drafts[d].node }, children);
        if let Some(&id) = self.class_ids.get(&key) {
            return id;
        }
        self.classes.push(key);
        self.class_ids.insert(key, self.classes.len() - 1);
        self.classes.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::betza;

    const BOARD: Dims = Dims { width: 18, height: 18 };

    fn compile(text: &str) -> LegTries {
        let g = betza::parse(text).unwrap_or_else(|e| panic!("{e}"));
        LegTries::compile(BOARD, &[g]).unwrap_or_else(|e| panic!("{text}: {e:?}"))
    }

    fn trie(text: &str, color: Color) -> LegTrie {
        compile(text).trie(color, PieceType(0)).unwrap_or_else(|| panic!("{text}: no trie")).clone()
    }

    fn mode(letters: &str) -> LegMode {
        LegMode { moves: letters.contains('m'), captures: letters.contains('c'), hops: letters.contains('p') }
    }

    /// Every root-to-final path as its steps `(dx, dy, max_steps, mode letters)`.
    fn paths(t: &LegTrie) -> Vec<Vec<(i8, i8)>> {
        fn walk(t: &LegTrie, nodes: &[LegNode], prefix: &mut Vec<(i8, i8)>, out: &mut Vec<Vec<(i8, i8)>>) {
            for n in nodes {
                prefix.push((n.dx, n.dy));
                if n.is_final {
                    out.push(prefix.clone());
                }
                walk(t, t.children(n), prefix, out);
                prefix.pop();
            }
        }
        let mut out = Vec::new();
        walk(t, t.roots(), &mut Vec::new(), &mut out);
        out
    }

    /// Every sibling list is a range inside the node array, no node is a non-final leaf (a
    /// dead end), and no path comes back to a list it went through (identical subtrees are
    /// stored once, so lists are shared, but the layout must stay acyclic).
    fn assert_well_formed(t: &LegTrie) {
        fn no_cycle(t: &LegTrie, list: (u32, u32), on_path: &mut Vec<(u32, u32)>) {
            assert!(!on_path.contains(&list), "the list {list:?} is its own descendant");
            on_path.push(list);
            for n in &t.nodes[list.0 as usize..list.1 as usize] {
                if n.children.0 < n.children.1 {
                    no_cycle(t, n.children, on_path);
                }
            }
            on_path.pop();
        }
        for (i, n) in t.nodes.iter().enumerate() {
            assert!(n.children.0 <= n.children.1 && n.children.1 as usize <= t.nodes.len());
            if n.children.0 == n.children.1 {
                assert!(n.is_final, "node {i} is a dead end: {n:?}");
            }
        }
        no_cycle(t, t.roots, &mut Vec::new());
    }

    const K8: [(i8, i8); 8] = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)];

    #[test]
    fn area_move_shares_its_first_steps() {
        // (a)2K = K + aK + aaK. K is a table move; aK and aaK share their 8 passing first
        // steps, under each 8 final and 8 passing steps, and 8 final steps under each of those:
        // 584 paths, stored as three lists (roots, the 16 second legs, the 8 final thirds).
        let t = trie("(a)2K", Color::Blue);
        assert_well_formed(&t);
        assert_eq!(t.roots().len(), 8);
        assert_eq!(t.nodes.len(), 8 + 16 + 8);
        assert_eq!(t.nodes.iter().filter(|n| n.is_final).count(), 8 + 8);
        assert_eq!(paths(&t).len(), 64 + 512);
        let passing: Vec<&LegNode> = t.roots().iter().filter(|n| !n.is_final).collect();
        assert_eq!(passing.len(), 8);
        for n in passing {
            assert_eq!(n.mode, mode("m"));
            assert_eq!(t.children(n).len(), 16);
        }
        assert!(t.nodes.iter().all(|n| n.max_steps == 1 && !n.skip_first));
    }

    #[test]
    fn lion_igui_and_double_capture() {
        // KNADcaKmcabK: caK (8 captures, 8 continuations each) and mcabK (8 steps, one way back).
        let t = trie("KNADcaKmcabK", Color::Blue);
        assert_well_formed(&t);
        assert_eq!(t.roots().len(), 16);
        // The 8 captures share one list of 8 continuations; each step has its own way back.
        assert_eq!(t.nodes.len(), 8 + 8 + 8 + 8);
        assert_eq!(paths(&t).len(), 64 + 8);
        for root in t.roots() {
            let children = t.children(root);
            assert!(children.iter().all(|c| c.is_final && c.mode == mode("mc")));
            if root.mode == mode("c") {
                let mut dirs: Vec<(i8, i8)> = children.iter().map(|c| (c.dx, c.dy)).collect();
                dirs.sort_unstable();
                let mut k8 = K8.to_vec();
                k8.sort_unstable();
                assert_eq!(dirs, k8);
            } else {
                assert_eq!(root.mode, mode("mc"));
                assert_eq!(children.len(), 1);
                assert_eq!((children[0].dx, children[0].dy), (-root.dx, -root.dy), "b reverses");
            }
        }
    }

    #[test]
    fn tan_is_rotated() {
        // fcavW: capture straight ahead, then on (f) or back (b).
        for (color, ahead) in [(Color::Blue, (0, 1)), (Color::Tan, (0, -1))] {
            let t = trie("fcavW", color);
            let mut p = paths(&t);
            p.sort_unstable();
            let mut expect = vec![vec![ahead, ahead], vec![ahead, (-ahead.0, -ahead.1)]];
            expect.sort_unstable();
            assert_eq!(p, expect, "{color:?}");
            assert_eq!(t.roots()[0].mode, mode("c"));
            assert!(!t.roots()[0].is_final);
        }
    }

    #[test]
    fn range_toggle() {
        // QympacabQ: Q (a table move), and a queen slide stopping on an empty or occupied
        // square, then one King step capturing, then one step back.
        let t = trie("QympacabQ", Color::Blue);
        assert_well_formed(&t);
        // The 8 slides share one list of 8 burns, each with its own step back.
        assert_eq!(t.nodes.len(), 8 + 8 + 8);
        assert_eq!(paths(&t).len(), 64);
        assert_eq!(t.roots().len(), 8);
        for s in t.roots() {
            assert_eq!((s.max_steps, s.mode), (0, mode("mp")));
            assert_eq!(t.children(s).len(), 8);
            for burn in t.children(s) {
                assert_eq!((burn.max_steps, burn.mode, burn.is_final), (1, mode("c"), false));
                let back = t.children(burn);
                assert_eq!(back.len(), 1);
                assert_eq!((back[0].dx, back[0].dy, back[0].max_steps), (-burn.dx, -burn.dy, 1));
                assert!(back[0].is_final);
            }
        }
    }

    #[test]
    fn skip_first() {
        let t = trie("jQcabK", Color::Blue);
        assert_well_formed(&t);
        assert_eq!(t.nodes.len(), 8 + 8 + 8);
        let skips: Vec<&LegNode> = t.roots().iter().filter(|n| n.skip_first).collect();
        assert_eq!(skips.len(), 8);
        assert!(skips.iter().all(|n| n.max_steps == 0 && n.is_final && n.mode == mode("mc")));
        let igui: Vec<&LegNode> = t.roots().iter().filter(|n| !n.skip_first).collect();
        assert!(igui.iter().all(|n| n.mode == mode("c") && n.max_steps == 1 && t.children(n).len() == 1));
    }

    #[test]
    fn range_capture_shares_the_hop() {
        // (paf)2cB = cB (a table move) + pafcB + pafpafcB: per diagonal, one hop node with a
        // final capture and a second hop, which has a final capture.
        let t = trie("(paf)2cB", Color::Blue);
        assert_well_formed(&t);
        assert_eq!(t.nodes.len(), 4 * 4);
        assert_eq!(t.roots().len(), 4);
        for hop in t.roots() {
            assert_eq!((hop.mode, hop.max_steps), (mode("p"), 0));
            assert!(!hop.is_final);
            let children = t.children(hop);
            assert_eq!(children.len(), 2);
            assert!(children.iter().all(|c| (c.dx, c.dy) == (hop.dx, hop.dy) && c.max_steps == 0));
            let second = children.iter().find(|c| c.mode == mode("p")).unwrap();
            assert_eq!(t.children(second).len(), 1);
            assert_eq!(t.children(second)[0].mode, mode("c"));
        }
        assert_eq!(paths(&t).len(), 8);
    }

    #[test]
    fn same_step_and_mode_share_a_node() {
        // amK ends where aaK's second (passing) leg stops: one node, final and with children.
        let t = trie("amKaaK", Color::Blue);
        assert_well_formed(&t);
        assert_eq!(t.roots().len(), 8);
        assert_eq!(t.nodes.len(), 8 + 8 + 8);
        for root in t.roots() {
            assert!(!root.is_final);
            assert!(t.children(root).iter().all(|n| n.is_final && n.mode == mode("m") && t.children(n).len() == 8));
        }
        assert_eq!(paths(&t).len(), 64 + 512);
    }

    #[test]
    fn pieces_without_legs_have_no_trie() {
        let tries = LegTries::compile(BOARD, &[betza::parse("KNAD").unwrap(), betza::parse("caK").unwrap()]).unwrap();
        assert!(tries.trie(Color::Blue, PieceType(0)).is_none());
        assert!(tries.trie(Color::Tan, PieceType(1)).is_some());
        assert!(!tries.is_empty());
        assert!(LegTries::compile(BOARD, &[betza::parse("Q").unwrap()]).unwrap().is_empty());
    }

    #[test]
    fn steps_longer_than_the_board_are_left_out() {
        let small = Dims { width: 4, height: 4 };
        let tries =
            LegTries::compile(small, &[betza::parse("ca(4,1)").unwrap(), betza::parse("caH").unwrap()]).unwrap();
        assert!(tries.trie(Color::Blue, PieceType(0)).is_none());
        let t = tries.trie(Color::Blue, PieceType(1)).unwrap();
        assert_eq!(t.nodes.len(), 4 + 4);
        assert_eq!(paths(t).len(), 16);
    }

    #[test]
    fn what_the_walk_cannot_execute_is_refused() {
        let mut g = betza::parse("cafK").unwrap();
        g.components[0].legs[1].mode = LegMode { moves: false, captures: false, hops: true };
        let e = LegTries::compile(BOARD, &[g]).unwrap_err();
        assert_eq!(e.len(), 1);
        assert!(e[0].1.contains("\"cafK\"") && e[0].1.contains("final and hops"), "{e:?}");

        let mut g = betza::parse("cafK").unwrap();
        g.components[0].legs[0].mode = LegMode::default();
        assert!(LegTries::compile(BOARD, &[g]).unwrap_err()[0].1.contains("may stop on no square"));

        let mut g = betza::parse("cafR").unwrap();
        g.components[0].legs[1].max_steps = 1;
        g.components[0].legs[1].skip_first = true;
        assert!(LegTries::compile(BOARD, &[g]).unwrap_err()[0].1.contains("not a slide"));

        // Nine passing King steps: 8^10 paths.
        let g = betza::parse("(a)9K").unwrap();
        let e = LegTries::compile(BOARD, &[betza::parse("K").unwrap(), g]).unwrap_err();
        assert_eq!(e[0].0, 1);
        assert!(e[0].1.contains("more than 65536"), "{e:?}");
    }

    #[test]
    fn chushin_sizes_stay_small() {
        let fire_demon = trie("QympacabQ(a)2KmcabK(a)2mpacabK", Color::Blue);
        assert_well_formed(&fire_demon);
        // 10,728 nodes as a tree; shared subtrees make it a few hundred.
        assert!(fire_demon.nodes.len() < 400, "{}", fire_demon.nodes.len());
        let lion_dog = trie("KADGHcafKmcabKcafmpafKmpafcavKcafcafK", Color::Tan);
        assert_well_formed(&lion_dog);
        // Per direction: c (cafK, cafmpafK, cafcafK) with f children m/c/mp..., and so on.
        assert!(lion_dog.nodes.len() <= 8 * 12, "{}", lion_dog.nodes.len());
    }
}
