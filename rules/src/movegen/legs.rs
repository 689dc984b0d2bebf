//! The moves of multi-leg XBetza components: a depth-first walk of the piece's
//! [`LegTrie`](crate::variant::legs::LegTrie) from its square, one move per distinct effect
//! (chushin-shogi.md §9.2).
//!
//! The walk reads the board as the trie's module doc defines: the moving piece's start square
//! and the squares of the move's earlier victims read as empty, a non-final leg goes on from an
//! empty square (`m`), from an enemy that becomes a victim (`c`) or from any occupied square
//! that keeps its piece (`p`), and a final leg lands on an empty square or captures an enemy.
//!
//! It records *effects* `(to, V)`, not moves, because many paths have one effect (the Lion's
//! igui from `caK` and from `mcabK`, the hundreds of paths of an area move, a Fire Demon's
//! slide and area move to one square) and each effect is one move. The three kinds of effect
//! are kept so that de-duplication needs no search:
//!
//! * `V = ∅`, `to ≠ from` (steps, slides, jumps, area moves, range captures): a [`SquareSet`]
//!   of destinations, which also holds the destinations of the piece's single-leg table moves,
//!   generated before the walk;
//! * `V ≠ ∅` (locust captures, burns, igui): `(to, V)` packed into a `u64`, sorted and
//!   de-duplicated once the walk is over;
//! * `to = from`, `V = ∅`: a flag, the piece's pass.
//!
//! Many paths also reach one *state*: the same legs still to go from the same square, with no
//! victim yet (an area move's paths to one square, a Fire Demon's slide and area move to the
//! square it burns from). A trie that stores identical subtrees once lets the walk see that
//! (the same sibling list entered from the same square), and a visited set skips the repeats.
//!
//! Effects become moves afterwards, with promotions exactly as the piece's other moves get
//! them ([`Position::push_with_promotions`]): an igui is a `Stationary` move, and promotes when
//! the piece stands in the zone (§8.1); a pass never promotes and exists only under the
//! variant's per-piece pass rule, and not right after a pass (§8.5).

use std::cell::Cell;

use super::forward_sink_queries;
use crate::{
    movegen::MoveSink,
    moves::{Move, MoveKind, MAX_EXTRA_CAPTURES},
    position::{square_set::WORDS, Position, SquareSet},
    types::{Color, Piece, Square, MAX_BOARD_SIDE},
    variant::{
        legs::{LegNode, LegTrie},
        PassRule,
    },
};

/// Bits of one square in a packed effect: every square of the largest board fits, and the
/// all-ones value is left for "no square".
const SQUARE_BITS: u32 = 10;
const NO_SQUARE: u64 = (1 << SQUARE_BITS) - 1;
/// Victims a packed effect holds besides `to` (six squares in 60 bits). An effect with more
/// (no Chushin piece has more than two) goes to the overflow list.
const PACKED_VICTIMS: usize = 5;
const _: () = assert!((MAX_BOARD_SIDE as u64) * (MAX_BOARD_SIDE as u64) <= NO_SQUARE);

/// The effects with victims found by one walk, before sorting, and the walk's visited set.
#[derive(Default)]
struct EffectBuffers {
    /// `(to, V)` packed by [`pack`].
    packed: Vec<u64>,
    /// Effects with more than [`PACKED_VICTIMS`] victims, as moves without promotion.
    overflow: Vec<Move>,
    visited: Visited,
}

/// Slots of the visited set: a Fire Demon's area and burn legs from the ~50 squares it can
/// stop on fill a few hundred; a fuller table stops recording (the walk stays exact, only
/// slower).
const VISITED_SLOTS: usize = 2048;

/// The sibling lists a walk has entered from a square on a path without victims. What a list
/// yields from a square depends only on the list, the square and the victims (the squares
/// that read as empty), so a second entry adds nothing. Many paths reach one state where the
/// trie shares subtrees (the hundreds of paths of an area move end on a few dozen squares).
///
/// Open addressing with a generation per slot, so that a walk starts empty without clearing.
#[derive(Default)]
struct Visited {
    keys: Vec<u64>,
    generations: Vec<u32>,
    generation: u32,
    len: usize,
}

impl Visited {
    const fn new() -> Visited {
        Visited { keys: Vec::new(), generations: Vec::new(), generation: 0, len: 0 }
    }

    /// Empties the set for a new walk.
    fn start(&mut self) {
        if self.keys.is_empty() {
            self.keys = vec![0; VISITED_SLOTS];
            self.generations = vec![0; VISITED_SLOTS];
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.generations.fill(0);
            self.generation = 1;
        }
        self.len = 0;
    }

    /// Adds the list `children` entered from `sq`; `false` if it was there already.
    #[inline]
    fn insert(&mut self, children: (u32, u32), sq: Square) -> bool {
        let len = children.1 - children.0;
        if len > 0xFFFF || self.len >= VISITED_SLOTS / 2 {
            return true;
        }
        let key = (children.0 as u64) << 32 | (len as u64) << 16 | sq.0 as u64;
        let mut slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 53) as usize & (VISITED_SLOTS - 1);
        loop {
            if self.generations[slot] != self.generation {
                self.generations[slot] = self.generation;
                self.keys[slot] = key;
                self.len += 1;
                return true;
            }
            if self.keys[slot] == key {
                return false;
            }
            slot = (slot + 1) & (VISITED_SLOTS - 1);
        }
    }
}

thread_local! {
    /// Buffers kept between walks, so that generation does not allocate once they have grown.
    /// A walk takes them out and puts them back (a walk started inside a walk would find
    /// them empty and only allocate).
    static BUFFERS: Cell<EffectBuffers> = const {
        Cell::new(EffectBuffers { packed: Vec::new(), overflow: Vec::new(), visited: Visited::new() })
    };
}

/// What a square holds for the walk.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Occupant {
    /// Empty, the moving piece's start square, or an earlier victim's square.
    Empty,
    Enemy,
    Friend,
}

/// One depth-first walk of a trie from one square.
struct Walk<'a> {
    pos: &'a Position,
    trie: &'a LegTrie,
    coords: &'a [(i16, i16)],
    width: i32,
    height: i32,
    from: Square,
    us: Color,
    /// The current path's locust victims, in path order.
    victims: [Square; MAX_EXTRA_CAPTURES],
    n_victims: usize,
    /// Destinations of effects without victims.
    plain: SquareSet,
    /// Some path returns to `from` without a victim: the piece may pass.
    passes: bool,
    buffers: EffectBuffers,
}

impl<'a> Walk<'a> {
    fn new(pos: &'a Position, trie: &'a LegTrie, from: Square, us: Color, mut buffers: EffectBuffers) -> Walk<'a> {
        buffers.packed.clear();
        buffers.overflow.clear();
        buffers.visited.start();
        let v = &*pos.variant;
        Walk {
            pos,
            trie,
            coords: &v.coords,
            width: v.dims.width as i32,
            height: v.dims.height as i32,
            from,
            us,
            victims: [Square::NONE; MAX_EXTRA_CAPTURES],
            n_victims: 0,
            plain: SquareSet::EMPTY,
            passes: false,
            buffers,
        }
    }

    #[inline]
    fn occupant(&self, sq: Square) -> Occupant {
        match self.pos.board[sq.index()] {
            None => Occupant::Empty,
            Some(_) if sq == self.from || self.victims[..self.n_victims].contains(&sq) => Occupant::Empty,
            Some(q) if q.color() == self.us => Occupant::Friend,
            Some(_) => Occupant::Enemy,
        }
    }

    /// Walks the legs `nodes`, each from `at`: a leap stops on its one square; a slider on
    /// every empty square of its line and on the first occupied one, where the line ends.
    fn visit(&mut self, nodes: &'a [LegNode], at: Square) {
        let (file, rank) = self.coords[at.index()];
        for node in nodes {
            debug_assert!(node.dx != 0 || node.dy != 0, "a leg moves");
            let (dx, dy) = (node.dx as i32, node.dy as i32);
            let (mut f, mut r) = (file as i32, rank as i32);
            let mut steps = 0u32;
            while node.max_steps == 0 || steps < node.max_steps as u32 {
                steps += 1;
                f += dx;
                r += dy;
                if f < 0 || r < 0 || f >= self.width || r >= self.height {
                    break;
                }
                let sq = Square((r * self.width + f) as u16);
                if steps == 1 && node.skip_first {
                    continue;
                }
                let occupant = self.occupant(sq);
                self.stop(node, sq, occupant);
                if occupant != Occupant::Empty {
                    break;
                }
            }
        }
    }

    /// The leg `node` stops on `sq`: the move may end there (a final leg) and go on with the
    /// legs after it.
    #[inline]
    fn stop(&mut self, node: &'a LegNode, sq: Square, occupant: Occupant) {
        let mode = node.mode;
        if node.is_final {
            let lands = match occupant {
                Occupant::Empty => mode.moves,
                Occupant::Enemy => mode.captures,
                Occupant::Friend => false,
            };
            if lands {
                self.effect(sq);
            }
        }
        if node.children.0 == node.children.1 {
            return;
        }
        match occupant {
            Occupant::Empty if mode.moves => self.go_on(node, sq),
            Occupant::Enemy => {
                if mode.captures {
                    assert!(
                        self.n_victims < MAX_EXTRA_CAPTURES,
                        "a move removes at most {MAX_EXTRA_CAPTURES} extra squares"
                    );
                    self.victims[self.n_victims] = sq;
                    self.n_victims += 1;
                    self.go_on(node, sq);
                    self.n_victims -= 1;
                }
                if mode.hops {
                    self.go_on(node, sq);
                }
            }
            Occupant::Friend if mode.hops => self.go_on(node, sq),
            _ => {}
        }
    }

    /// Walks the legs after `node` from `sq`, unless this path's state was walked already.
    #[inline]
    fn go_on(&mut self, node: &'a LegNode, sq: Square) {
        if self.n_victims == 0 && !self.buffers.visited.insert(node.children, sq) {
            return;
        }
        let trie: &'a LegTrie = self.trie;
        self.visit(trie.children(node), sq);
    }

    /// Records the effect of the current path ending on `to`. A victim's square landed on again
    /// is the capture on `to`, not a locust victim.
    fn effect(&mut self, to: Square) {
        let mut sorted = [Square::NONE; MAX_EXTRA_CAPTURES];
        let mut n = 0;
        for &v in &self.victims[..self.n_victims] {
            if v == to {
                continue;
            }
            let mut i = n;
            while i > 0 && sorted[i - 1] > v {
                sorted[i] = sorted[i - 1];
                i -= 1;
            }
            sorted[i] = v;
            n += 1;
        }
        let victims = &sorted[..n];
        if victims.is_empty() {
            if to == self.from {
                self.passes = true;
            } else {
                self.plain.insert(to);
            }
        } else if victims.len() <= PACKED_VICTIMS {
            self.buffers.packed.push(pack(to, victims));
        } else {
            let m = effect_move(self.from, to, victims);
            if !self.buffers.overflow.contains(&m) {
                self.buffers.overflow.push(m);
            }
        }
    }
}

/// `(to, V)` as one integer: `to` in the top bits, then the victims in ascending order, then
/// [`NO_SQUARE`]s, so that equal effects are equal integers.
#[inline]
fn pack(to: Square, victims: &[Square]) -> u64 {
    let mut key = to.0 as u64;
    for i in 0..PACKED_VICTIMS {
        key = key << SQUARE_BITS | victims.get(i).map_or(NO_SQUARE, |s| s.0 as u64);
    }
    key
}

/// The move (without promotion) of a packed effect of the piece on `from`.
#[inline]
fn unpack(key: u64, from: Square) -> Move {
    let to = Square((key >> (SQUARE_BITS * PACKED_VICTIMS as u32)) as u16);
    let mut victims = [Square::NONE; PACKED_VICTIMS];
    let mut n = 0;
    for i in (0..PACKED_VICTIMS).rev() {
        let sq = (key >> (SQUARE_BITS * i as u32)) & NO_SQUARE;
        if sq == NO_SQUARE {
            break;
        }
        victims[n] = Square(sq as u16);
        n += 1;
    }
    effect_move(from, to, &victims[..n])
}

/// The move of the effect `(to, V)`, `V` not empty: a capture without moving if `to == from`
/// (igui), else a displacement with locust victims.
fn effect_move(from: Square, to: Square, victims: &[Square]) -> Move {
    let kind = if to == from { MoveKind::Stationary } else { MoveKind::Normal };
    let mut m = Move::normal(from, to).with_kind(kind);
    for &v in victims {
        m.add_capture(v);
    }
    m
}

/// Forwards the table moves of a piece with legs once per destination (atoms that overlap,
/// like `B` and `A`, reach a square twice) and records the destinations, so that the legs'
/// moves with the same effect are left out.
struct TableDestinations<'a, S: MoveSink> {
    inner: &'a mut S,
    destinations: SquareSet,
}

impl<S: MoveSink> MoveSink for TableDestinations<'_, S> {
    #[inline]
    fn push(&mut self, m: Move) {
        self.inner.push(m);
    }

    #[inline]
    fn claim_displacement(&mut self, to: Square) -> bool {
        if self.destinations.contains(to) {
            return false;
        }
        self.destinations.insert(to);
        true
    }

    forward_sink_queries!();
}

impl Position {
    /// Pushes the moves of `p` on `from` whose multi-leg components compiled to `trie`: its
    /// single-leg (table) moves, then one move per effect of the legs that the table moves do
    /// not have.
    pub(crate) fn moves_with_legs<S: MoveSink>(&self, from: Square, p: Piece, trie: &LegTrie, out: &mut S) {
        let mut table = TableDestinations { inner: out, destinations: SquareSet::EMPTY };
        self.piece_moves(from, p, &mut table);
        let known = table.destinations;
        self.push_leg_moves(from, p, trie, &known, out);
    }

    /// Pushes one move per effect of the legs of `trie` from `from`, except displacements
    /// without victims to the squares of `known`.
    fn push_leg_moves<S: MoveSink>(&self, from: Square, p: Piece, trie: &LegTrie, known: &SquareSet, out: &mut S) {
        let mut walk = Walk::new(self, trie, from, p.color(), BUFFERS.with(Cell::take));
        walk.visit(trie.roots(), from);
        let Walk { plain, passes, buffers: mut effects, .. } = walk;
        for w in 0..WORDS {
            let mut bits = plain.0[w] & !known.0[w];
            while bits != 0 {
                let to = Square((w * 64 + bits.trailing_zeros() as usize) as u16);
                bits &= bits - 1;
                self.push_displacement(from, to, p, out);
            }
        }
        effects.packed.sort_unstable();
        effects.packed.dedup();
        for &key in &effects.packed {
            self.push_with_promotions(unpack(key, from), p, out);
        }
        for &m in &effects.overflow {
            self.push_with_promotions(m, p, out);
        }
        BUFFERS.with(|b| b.set(effects));
        if passes && self.variant.rules.pass == PassRule::PerPieceNoDoublePass && !self.last_move_was_pass {
            out.push(Move::pass(from));
        }
    }
}

#[cfg(test)]
mod tests {
    //! Hand-built tries for Chushin's multi-leg pieces, on pieces whose TOML geometry holds
    //! their single-leg components (the tries are passed to the generator directly).

    use std::collections::BTreeSet;

    use super::*;
    use crate::{moves::MoveList, variant::legs::LegMode, variant::Variant};

    const K8: [(i8, i8); 8] = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)];
    const DIAG: [(i8, i8); 4] = [(1, 1), (-1, 1), (-1, -1), (1, -1)];

    /// An 18x18 variant with Chushin's zone rules and pass rule. `LN`, `LD`, `FD`, `BG`, `HT`,
    /// `SH` carry the single-leg part of the Lion, Lion Dog, Fire Demon, Bishop General,
    /// Heavenly Tetrarch and Shogun; `X` has none and promotes to `G`.
    fn variant(pass: &str) -> std::sync::Arc<Variant> {
        let mut text = format!(
            "name = \"legs\"\nwidth = 18\nheight = 18\nstart = \"k17/18/18/18/18/18/18/18/18/18/18/18/18/18/18/18/18/17K w\"\n\
             pass = \"{pass}\"\n\
             [victory]\nroyal = \"capture\"\n\
             [promotion]\nzone_ranks = 6\ntrigger = \"starts_or_ends_in_zone\"\nmandatory = \"never\"\n",
        );
        for (name, token, betza, promotes) in [
            ("King", "K", "K", ""),
            ("Pawn", "P", "fW", ""),
            ("Gold", "G", "WfF", ""),
            ("Lion", "LN", "KNAD", ""),
            ("Lion Hawk", "LH", "BWNAD", "G"),
            ("Lion Dog", "LD", "KADGH", ""),
            ("Fire Demon", "FD", "Q", ""),
            ("Bishop General", "BG", "B", ""),
            ("Heavenly Tetrarch", "HT", "", ""),
            ("Shogun", "SH", "K", ""),
            ("Promoter", "X", "", "G"),
            ("Compiled Lion", "CL", "KNADcaKmcabK", ""),
        ] {
            text.push_str(&format!("[[piece]]\nname = \"{name}\"\ntoken = \"{token}\"\nbetza = \"{betza}\"\n"));
            if token == "K" {
                text.push_str("royal = true\n");
            }
            if !promotes.is_empty() {
                text.push_str(&format!("promotes_to = [\"{promotes}\"]\n"));
            }
        }
        Variant::from_toml("legs.toml", &text, None).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A position from `(token, square)` pairs (upper case: Blue, the side to move).
    fn position(pieces: &[(&str, &str)]) -> Position {
        position_in(variant("per_piece_no_double_pass"), pieces)
    }

    fn position_in(v: std::sync::Arc<Variant>, pieces: &[(&str, &str)]) -> Position {
        let d = v.dims;
        let mut board = vec![None; d.squares()];
        for &(token, square) in pieces {
            let kind = v.piece_by_token(token).unwrap_or_else(|| panic!("token {token}"));
            let color = if token.chars().any(|c| c.is_ascii_uppercase()) { Color::Blue } else { Color::Tan };
            board[d.parse_square(square).unwrap_or_else(|| panic!("square {square}")).index()] =
                Some(Piece::new(kind, color));
        }
        let fen = format!("{} w", v.board_field(|sq| board[sq.index()]));
        Position::from_fen(v, &fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    fn mode(text: &str) -> LegMode {
        LegMode { moves: text.contains('m'), captures: text.contains('c'), hops: text.contains('p') }
    }

    /// A one-step (or leap) leg.
    fn step((dx, dy): (i8, i8), modes: &str) -> LegNode {
        LegNode { dx, dy, max_steps: 1, skip_first: false, mode: mode(modes), is_final: false, children: (0, 0) }
    }

    /// An unlimited slider leg.
    fn slide((dx, dy): (i8, i8), modes: &str) -> LegNode {
        LegNode { max_steps: 0, ..step((dx, dy), modes) }
    }

    /// A trie of `paths`, one chain of nodes each (no shared prefixes: the generator must not
    /// depend on them); the last leg of each path is final.
    fn trie(paths: &[Vec<LegNode>]) -> LegTrie {
        let mut nodes: Vec<LegNode> = paths.iter().map(|p| p[0]).collect();
        let roots = (0, nodes.len() as u32);
        for (i, path) in paths.iter().enumerate() {
            let mut parent = i;
            for leg in &path[1..] {
                let at = nodes.len() as u32;
                nodes[parent].children = (at, at + 1);
                nodes.push(*leg);
                parent = at as usize;
            }
            nodes[parent].is_final = true;
        }
        LegTrie { nodes, roots }
    }

    /// `t` with shared prefixes and identical subtrees merged: each distinct sibling list is
    /// laid out once and every node whose legs after it are that list points to it, so that
    /// the walk's visited set sees the states many paths share.
    fn shared(t: &LegTrie) -> LegTrie {
        use std::collections::HashMap;
        type Step = (i8, i8, u8, bool, LegMode, bool);
        #[derive(Default)]
        struct Interner {
            classes: HashMap<(Step, usize), usize>,
            nodes: Vec<(Step, usize)>,
            lists: HashMap<Vec<usize>, usize>,
            list_members: Vec<Vec<usize>>,
        }
        impl Interner {
            /// The list of `nodes`, siblings with one step merged (their legs after joined).
            fn list(&mut self, t: &LegTrie, nodes: &[&LegNode]) -> usize {
                let mut by_step: HashMap<Step, Vec<&LegNode>> = HashMap::new();
                for n in nodes {
                    let step = (n.dx, n.dy, n.max_steps, n.skip_first, n.mode, n.is_final);
                    by_step.entry(step).or_default().extend(t.children(n));
                }
                let mut members: Vec<usize> = Vec::new();
                for (step, children) in by_step {
                    let list = self.list(t, &children);
                    let next = self.nodes.len();
                    let class = *self.classes.entry((step, list)).or_insert(next);
                    if class == next {
                        self.nodes.push((step, list));
                    }
                    members.push(class);
                }
                members.sort_unstable();
                let next = self.list_members.len();
                let id = *self.lists.entry(members.clone()).or_insert(next);
                if id == next {
                    self.list_members.push(members);
                }
                id
            }
        }
        let mut i = Interner::default();
        let roots: Vec<&LegNode> = t.roots().iter().collect();
        let roots = i.list(t, &roots);
        // Every list laid out once, the roots first.
        let mut order: Vec<usize> = vec![roots];
        order.extend((0..i.list_members.len()).filter(|&l| l != roots));
        let mut start = vec![0u32; i.list_members.len()];
        let mut at = 0u32;
        for &l in &order {
            start[l] = at;
            at += i.list_members[l].len() as u32;
        }
        let mut nodes = Vec::new();
        for &l in &order {
            for &c in &i.list_members[l] {
                let ((dx, dy, max_steps, skip_first, mode, is_final), children) = i.nodes[c];
                let range = (start[children], start[children] + i.list_members[children].len() as u32);
                nodes.push(LegNode { dx, dy, max_steps, skip_first, mode, is_final, children: range });
            }
        }
        LegTrie { nodes, roots: (0, i.list_members[roots].len() as u32) }
    }

    /// `caK` and `mcabK` (the Lion's multi-leg part).
    fn lion_trie() -> LegTrie {
        let mut paths = Vec::new();
        for d in K8 {
            for e in K8 {
                paths.push(vec![step(d, "c"), step(e, "mc")]);
            }
            paths.push(vec![step(d, "mc"), step((-d.0, -d.1), "mc")]);
        }
        trie(&paths)
    }

    /// `(a)2K` (without the plain `K`, a table move) and `mabK`: Area(3) and the pass.
    fn area_paths(steps: usize) -> Vec<Vec<LegNode>> {
        let mut paths: Vec<Vec<LegNode>> = Vec::new();
        let mut prefixes: Vec<Vec<LegNode>> = K8.iter().map(|&d| vec![step(d, "m")]).collect();
        for _ in 1..steps {
            let mut longer = Vec::new();
            for prefix in &prefixes {
                for e in K8 {
                    let mut path = prefix.clone();
                    path.push(step(e, "mc"));
                    paths.push(path.clone());
                    let last = path.len() - 1;
                    path[last].mode = mode("m");
                    longer.push(path);
                }
            }
            prefixes = longer;
        }
        for d in K8 {
            paths.push(vec![step(d, "m"), step((-d.0, -d.1), "mc")]);
        }
        paths
    }

    /// The moves of the piece on `square` as the dossier writes them (§9.3), sorted.
    fn moves_of(pos: &Position, square: &str, trie: &LegTrie) -> Vec<String> {
        let d = pos.variant().dims;
        let from = d.parse_square(square).expect("square");
        let p = pos.piece_at(from).expect("a piece on the square");
        let mut out = MoveList::new();
        pos.moves_with_legs(from, p, trie, &mut out);
        let texts: Vec<String> = out.iter().map(|m| dossier_text(pos, m)).collect();
        let unique: BTreeSet<&String> = texts.iter().collect();
        assert_eq!(unique.len(), texts.len(), "one move per effect: {texts:?}");
        let mut texts = texts;
        texts.sort();
        texts
    }

    fn dossier_text(pos: &Position, m: &Move) -> String {
        let d = pos.variant().dims;
        let mut s = d.square_name(m.from);
        for &v in m.captures() {
            s.push('x');
            s.push_str(&d.square_name(v));
        }
        s.push('-');
        s.push_str(&d.square_name(m.to));
        if m.piece.is_some() {
            s.push('+');
        }
        let expected_kind = match (m.to == m.from, m.captures().is_empty()) {
            (true, true) => MoveKind::Pass,
            (true, false) => MoveKind::Stationary,
            (false, _) => MoveKind::Normal,
        };
        assert_eq!(m.kind, expected_kind, "{s}");
        s
    }

    fn sorted(list: &str) -> Vec<String> {
        let mut v: Vec<String> = list.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
        v.sort();
        v
    }

    #[test]
    fn lion_worked_example_11_1() {
        let pos = position(&[("LN", "h9"), ("G", "g8"), ("p", "h10"), ("p", "i11"), ("K", "a1"), ("k", "r18")]);
        let expected = sorted(
            "h9-f7, h9-g7, h9-h7, h9-i7, h9-j7, h9-f8, h9-h8, h9-i8, h9-j8, h9-f9, h9-g9, h9xh10-g9, h9-h9,
             h9xh10-h9, h9-i9, h9xh10-i9, h9-j9, h9-f10, h9-g10, h9xh10-g10, h9-h10, h9-i10, h9xh10-i10,
             h9-j10, h9-f11, h9-g11, h9xh10-g11, h9-h11, h9xh10-h11, h9-i11, h9xh10-i11, h9-j11",
        );
        assert_eq!(expected.len(), 32);
        assert_eq!(moves_of(&pos, "h9", &lion_trie()), expected);
    }

    #[test]
    fn the_driver_generates_a_compiled_lion_once_per_effect() {
        // KNADcaKmcabK through the loader's leg compiler and the move generator's driver.
        let mut pos = position(&[("CL", "h9"), ("G", "g8"), ("p", "h10"), ("p", "i11"), ("K", "a1"), ("k", "r18")]);
        let from = pos.variant().dims.parse_square("h9").unwrap();
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        moves.retain(|m| m.from == from);
        let mut texts: Vec<String> = moves.iter().map(|m| dossier_text(&pos, m)).collect();
        texts.sort();
        let mut expected = moves_of(&pos, "h9", &lion_trie());
        expected.sort();
        assert_eq!(texts, expected);
        assert_eq!(texts.len(), 32);
        // After a pass, the same list without the pass.
        pos.last_move_was_pass = true;
        pos.legal_moves(&mut moves);
        assert_eq!(moves.iter().filter(|m| m.from == from).count(), 31);
        assert!(!moves.iter().any(|m| m.kind == MoveKind::Pass));
    }

    #[test]
    fn lion_hawk_in_the_zone_worked_example_11_14() {
        // B and A reach the same squares: the table moves are de-duplicated with the legs'.
        let pos = position(&[
            ("LH", "b14"),
            ("p", "b15"),
            ("G", "c15"),
            ("G", "a15"),
            ("G", "a13"),
            ("G", "c13"),
            ("G", "d16"),
            ("G", "c16"),
            ("G", "d12"),
            ("K", "r1"),
            ("k", "r18"),
        ]);
        let expected = sorted(
            "b14-a12, b14-a12+, b14-b12, b14-b12+, b14-c12, b14-c12+, b14-b13, b14-b13+, b14-d13, b14-d13+,
             b14-a14, b14-a14+, b14xb15-a14, b14xb15-a14+, b14-b14, b14xb15-b14, b14xb15-b14+, b14-c14,
             b14-c14+, b14xb15-c14, b14xb15-c14+, b14-d14, b14-d14+, b14-b15, b14-b15+, b14-d15, b14-d15+,
             b14-a16, b14-a16+, b14xb15-a16, b14xb15-a16+, b14-b16, b14-b16+, b14xb15-b16, b14xb15-b16+",
        );
        assert_eq!(expected.len(), 35);
        assert_eq!(moves_of(&pos, "b14", &lion_trie()), expected);
        // On an open board too, one move per destination: the A jump to j7 over the enemy on
        // i6, which ends the bishop's line there; the other diagonals' slides include their A
        // squares.
        let pos = position(&[("LH", "h5"), ("p", "i6"), ("K", "r1"), ("k", "r18")]);
        let moves = moves_of(&pos, "h5", &lion_trie());
        assert!(moves.contains(&"h5-j7".to_string()) && !moves.contains(&"h5-k8".to_string()), "{moves:?}");
        assert!(moves.contains(&"h5-f7".to_string()) && moves.contains(&"h5-a12".to_string()), "{moves:?}");
        assert_eq!(moves.len(), 42, "{moves:?}");
    }

    #[test]
    fn a_pass_needs_an_empty_neighbour_the_pass_rule_and_no_pass_just_before() {
        let lion = lion_trie();
        let mut pos = position(&[("LN", "h9"), ("p", "h10"), ("K", "a1"), ("k", "r18")]);
        assert!(moves_of(&pos, "h9", &lion).contains(&"h9-h9".to_string()));
        pos.last_move_was_pass = true;
        let after_pass = moves_of(&pos, "h9", &lion);
        assert!(!after_pass.contains(&"h9-h9".to_string()));
        assert!(after_pass.contains(&"h9xh10-h9".to_string()), "igui is no pass");
        // Walled in by friends and one enemy: igui, no pass.
        let mut pieces = vec![("LN", "h9"), ("p", "h10"), ("K", "a1"), ("k", "r18")];
        for sq in ["g8", "h8", "i8", "g9", "i9", "g10", "i10"] {
            pieces.push(("G", sq));
        }
        let walled = position(&pieces);
        let moves = moves_of(&walled, "h9", &lion);
        assert!(moves.contains(&"h9xh10-h9".to_string()) && !moves.contains(&"h9-h9".to_string()), "{moves:?}");
        // A variant without the per-piece pass rule has no pass from the same path.
        let pos = position_in(variant("none"), &[("LN", "h9"), ("K", "a1"), ("k", "r18")]);
        assert!(!moves_of(&pos, "h9", &lion).contains(&"h9-h9".to_string()));
    }

    #[test]
    fn area_moves_reach_each_square_once_as_a_breadth_first_search_does() {
        let mut paths = area_paths(3);
        paths.retain(|p| p.len() > 1); // the one-step K is the table's
        let area = trie(&paths);
        let pieces = [
            ("SH", "h9"),
            ("G", "h10"),
            ("G", "g9"),
            ("G", "i8"),
            ("p", "j9"),
            ("p", "g11"),
            ("G", "f8"),
            ("p", "e9"),
            ("G", "k11"),
            ("K", "a1"),
            ("k", "r18"),
        ];
        let pos = position(&pieces);
        let d = pos.variant().dims;
        let from = d.parse_square("h9").unwrap();
        // Area(3) of §7.2 by breadth-first search: expand through empty squares (the start
        // square counts as empty) three layers deep; landable squares reached are destinations.
        let mut expected: BTreeSet<String> = BTreeSet::new();
        let mut frontier = vec![from];
        let mut seen = BTreeSet::from([from]);
        for _ in 0..3 {
            let mut next = Vec::new();
            for sq in frontier {
                let (f, r) = (d.file(sq), d.rank(sq));
                for (dx, dy) in K8 {
                    let Some(t) = d.square(f + dx as i32, r + dy as i32) else { continue };
                    match pos.piece_at(t) {
                        Some(q) if t != from && q.color() == Color::Blue => {}
                        occupant => {
                            if t != from {
                                expected.insert(format!("h9-{}", d.square_name(t)));
                            }
                            if (occupant.is_none() || t == from) && seen.insert(t) {
                                next.push(t);
                            }
                        }
                    }
                }
            }
            frontier = next;
        }
        expected.insert("h9-h9".into());
        let got: BTreeSet<String> = moves_of(&pos, "h9", &area).into_iter().collect();
        assert_eq!(got, expected);
        // More than the table's steps: g11 is reached through h9-g10.
        assert!(got.contains("h9-g11") && got.contains("h9-e9") && !got.contains("h9-k11"));
    }

    #[test]
    fn shared_subtrees_give_the_same_moves() {
        let demon = fire_demon_trie();
        let merged = shared(&demon);
        assert!(merged.nodes.len() * 20 < demon.nodes.len(), "{} of {}", merged.nodes.len(), demon.nodes.len());
        let mut area = area_paths(3);
        area.retain(|p| p.len() > 1);
        let positions = [
            vec![("FD", "h9"), ("p", "h10"), ("p", "h13"), ("G", "j9"), ("p", "j10"), ("p", "k11"), ("K", "a1")],
            vec![("FD", "b2"), ("p", "c3"), ("G", "a1"), ("p", "d2"), ("p", "b5"), ("G", "c4"), ("K", "r1")],
            vec![("FD", "h9"), ("G", "g8"), ("G", "h8"), ("G", "i8"), ("p", "g10"), ("p", "i10"), ("K", "a1")],
        ];
        for pieces in &positions {
            let pos = position(pieces);
            let from = pieces[0].1;
            assert_eq!(moves_of(&pos, from, &merged), moves_of(&pos, from, &demon), "{pieces:?}");
            assert_eq!(moves_of(&pos, from, &shared(&trie(&area))), moves_of(&pos, from, &trie(&area)), "{pieces:?}");
        }
    }

    #[test]
    fn range_capture_hops_the_first_occupied_squares_and_takes_only_an_enemy() {
        // (paf)2cB with the table's B (= mcB): on the forward-right diagonal from h9, i10 is
        // empty, j11 a friend (T1), l13 an enemy (T2), m14 a friend (T3), n15 an enemy (T4).
        let mut paths = Vec::new();
        for d in DIAG {
            paths.push(vec![slide(d, "p"), slide(d, "c")]);
            paths.push(vec![slide(d, "p"), slide(d, "p"), slide(d, "c")]);
        }
        let general = trie(&paths);
        let pos = position(&[
            ("BG", "h9"),
            ("G", "j11"),
            ("p", "l13"),
            ("G", "m14"),
            ("p", "n15"),
            ("G", "g10"),
            ("G", "i8"),
            ("G", "g8"),
            ("K", "a1"),
            ("k", "r18"),
        ]);
        assert_eq!(moves_of(&pos, "h9", &general), sorted("h9-i10, h9-l13"));
        // T2 a friend, T3 an enemy: the jump goes over two pieces.
        let pos = position(&[
            ("BG", "h9"),
            ("p", "j11"),
            ("G", "l13"),
            ("p", "m14"),
            ("p", "n15"),
            ("G", "g10"),
            ("G", "i8"),
            ("G", "g8"),
            ("K", "a1"),
            ("k", "r18"),
        ]);
        assert_eq!(moves_of(&pos, "h9", &general), sorted("h9-i10, h9-j11, h9-m14"));
    }

    #[test]
    fn skip_first_ignores_the_adjacent_square_whatever_it_holds() {
        // jQ on the Heavenly Tetrarch, forward and forward-right only.
        let tetrarch = trie(&[
            vec![LegNode { skip_first: true, ..slide((0, 1), "mc") }],
            vec![LegNode { skip_first: true, ..slide((1, 1), "mc") }],
        ]);
        let pos = position(&[("HT", "h9"), ("G", "h10"), ("p", "h12"), ("p", "i10"), ("G", "l13"), ("K", "a1")]);
        assert_eq!(moves_of(&pos, "h9", &tetrarch), sorted("h9-h11, h9-h12, h9-j11, h9-k12"));
    }

    #[test]
    fn a_hop_keeps_the_piece_and_a_two_victim_line_lists_both() {
        // Lion Dog's mpafcavK, cafcafK, cafmpafK and cafK upward from h9.
        let up = (0, 1);
        let lion_dog = trie(&[
            vec![step(up, "mp"), step(up, "c"), step(up, "mc")],
            vec![step(up, "mp"), step(up, "c"), step((0, -1), "mc")],
            vec![step(up, "c"), step(up, "c"), step(up, "mc")],
            vec![step(up, "c"), step(up, "mp"), step(up, "mc")],
            vec![step(up, "c"), step(up, "mc")],
        ]);
        // s1 a friend (hopped, never landed on), s2 an enemy, s3 empty.
        let pos = position(&[("LD", "h9"), ("G", "h10"), ("p", "h11"), ("K", "a1"), ("k", "r18")]);
        let line: Vec<String> =
            moves_of(&pos, "h9", &lion_dog).into_iter().filter(|m| m.ends_with("h11") || m.ends_with("h12")).collect();
        assert_eq!(line, sorted("h9-h11, h9-h12, h9xh11-h12"));
        // s1 and s2 enemies: two out one in, both locust victims, each effect once.
        let pos = position(&[("LD", "h9"), ("p", "h10"), ("p", "h11"), ("K", "a1"), ("k", "r18")]);
        let line: Vec<String> = moves_of(&pos, "h9", &lion_dog).into_iter().filter(|m| m.contains("h1")).collect();
        assert_eq!(
            line,
            sorted("h9-h10, h9-h11, h9-h12, h9xh11-h10, h9xh10-h11, h9xh10xh11-h12, h9xh11-h12, h9xh10-h12")
        );
    }

    #[test]
    fn a_victim_landed_on_again_is_the_capture_on_to_and_two_victims_can_return_home() {
        // caf then back (b) onto the victim: the effect of a plain capture, which the table's
        // K step already has; capturing two and stepping back to the start is one igui of both.
        let paths = vec![
            vec![step((0, 1), "c"), step((0, 1), "m"), step((0, -1), "mc")],
            vec![step((0, 1), "c"), step((1, 0), "c"), step((-1, -1), "mc")],
        ];
        let pos = position(&[("SH", "h9"), ("p", "h10"), ("p", "i10"), ("K", "a1"), ("k", "r18")]);
        let moves = moves_of(&pos, "h9", &trie(&paths));
        assert_eq!(moves.iter().filter(|m| m.ends_with("-h10")).count(), 1, "{moves:?}");
        assert!(moves.contains(&"h9xh10xi10-h9".to_string()), "{moves:?}");
    }

    /// The Fire Demon's multi-leg part: `ympacabQ` and `(a)2mpacabK` (`(a)2K` and `mcabK`
    /// are covered by the area and Lion tests).
    fn fire_demon_trie() -> LegTrie {
        let mut paths = Vec::new();
        for d in K8 {
            for e in K8 {
                paths.push(vec![slide(d, "mp"), step(e, "c"), step((-e.0, -e.1), "mc")]);
            }
        }
        let mut prefixes: Vec<Vec<LegNode>> = vec![vec![]];
        for _ in 0..3 {
            let mut longer = Vec::new();
            for prefix in &prefixes {
                for d in K8 {
                    let mut path = prefix.clone();
                    path.push(step(d, "mp"));
                    for e in K8 {
                        let mut burn = path.clone();
                        burn.push(step(e, "c"));
                        burn.push(step((-e.0, -e.1), "mc"));
                        paths.push(burn);
                    }
                    let last = path.len() - 1;
                    path[last].mode = mode("m");
                    longer.push(path);
                }
            }
            prefixes = longer;
        }
        trie(&paths)
    }

    #[test]
    fn fire_demon_burns_once_next_to_its_stop_and_igui_is_one_move() {
        let pos = position(&[
            ("FD", "h9"),
            ("p", "h10"),
            ("p", "h13"),
            ("G", "j9"),
            ("p", "j10"),
            ("p", "k11"),
            ("K", "a1"),
            ("k", "r18"),
        ]);
        let moves = moves_of(&pos, "h9", &fire_demon_trie());
        // Burn next to an empty stop, next to a captured enemy stop (j10, reached by an area
        // move), and from the start square (an area move out and back, then a burn: the igui).
        for m in ["h9xh13-h12", "h9xh10-h11", "h9xj10-i11", "h9xk11-j10", "h9xh10-h9"] {
            assert!(moves.contains(&m.to_string()), "{m} in {moves:?}");
        }
        // Never two burns, never onto the friend on j9 (hopped and then burn-and-return).
        assert!(moves.iter().all(|m| m.matches('x').count() <= 1), "{moves:?}");
        assert!(!moves.iter().any(|m| m.ends_with("-j9")), "{moves:?}");
        // Each (to, V) once: checked by moves_of.
    }

    #[test]
    fn igui_promotes_in_the_zone_and_locust_victims_there_do_not_qualify() {
        let lion = lion_trie();
        // Standing in the zone (rank 13 and up for Blue): igui may promote, a pass never.
        let pos = position(&[("X", "h13"), ("p", "h14"), ("K", "a1"), ("k", "r18")]);
        let moves = moves_of(&pos, "h13", &lion);
        for m in ["h13xh14-h13", "h13xh14-h13+", "h13-h13", "h13xh14-g15+"] {
            assert!(moves.contains(&m.to_string()), "{m} in {moves:?}");
        }
        assert!(!moves.contains(&"h13-h13+".to_string()));
        // Below the zone: capturing on rank 13 and returning or stepping back does not qualify;
        // ending on rank 13 does.
        let pos = position(&[("X", "h12"), ("p", "h13"), ("K", "a1"), ("k", "r18")]);
        let moves = moves_of(&pos, "h12", &lion);
        for m in ["h12xh13-h12", "h12xh13-g12", "h12xh13-g13+", "h12xh13-g14+"] {
            assert!(moves.contains(&m.to_string()), "{m} in {moves:?}");
        }
        for m in ["h12xh13-h12+", "h12xh13-g12+"] {
            assert!(!moves.contains(&m.to_string()), "{m} in {moves:?}");
        }
    }

    #[test]
    fn tan_pieces_walk_their_trie_against_blue_enemies() {
        let pos = position(&[("ln", "h9"), ("g", "g8"), ("P", "h10"), ("P", "i11"), ("K", "a1"), ("k", "r18")]);
        let moves = moves_of(&pos, "h9", &lion_trie());
        assert_eq!(moves.len(), 32, "{moves:?}");
        assert!(moves.contains(&"h9xh10-i11".to_string()) && moves.contains(&"h9xh10-h9".to_string()));
    }
}
