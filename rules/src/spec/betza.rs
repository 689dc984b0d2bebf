//! The Betza / XBetza geometry language: text → [`Geometry`].
//!
//! A geometry is what a piece can do *by itself*, written from the first player's (Blue's) point
//! of view: `+dy` is forward, `+dx` is toward higher files (Blue's right). The variant loader
//! rotates every vector by 180° for the second player, so `l`/`r` stay relative to the mover.
//!
//! Parsing produces a list of [`Atom`]s, each a single vector with its range, modality and
//! jumping kind. Multi-leg XBetza components (`a`) are parsed into [`Component::legs`] so that the
//! language stays open for Chushin Shogi's lion moves; the variant loader refuses them until the
//! move generator executes them.
//!
//! # Dialect
//!
//! References (read for their semantics; no code is taken from them):
//! * H. G. Muller, *Extended Betza notation quick reference guide*
//!   (<http://hgm.nubati.net/rules/Betza.html>), the XBetza definition, cited below as **QR**;
//! * XBoard's *Extended Betza notation* page
//!   (<https://www.gnu.org/software/xboard/whats_new/rules/Betza.html>), cited as **XB**;
//! * H. G. Muller's comment of 2013-10-08 on chessvariants.org about `fs`/`fr`/`rf` on oblique
//!   atoms, cited as **HGM-2013**;
//! * Fairy-Stockfish, `src/piece.cpp`, `from_betza`, cited as **FSF**.
//!
//! A string is a concatenation of *components*; each is `prefix* ATOM [range | doubled]`.
//!
//! **Atoms** (major, minor leap; QR, FSF): `W`(1,0) `F`(1,1) `D`(2,0) `N`(2,1) `A`(2,2)
//! `H`(3,0) `C`=`L`(3,1) `Z`=`J`(3,2) `G`(3,3); `(m,n)` for any other leap, in either order,
//! each coordinate 0..=99 (`(0,3)` = `H`, `(1,4)` = `(4,1)`; `(0,0)` is refused). Shortcuts:
//! `K` = `WF`, `R` = `W0`, `B` = `F0`, `Q` = `RB`. An atom stands for all its 8 (oblique) or 4
//! (orthogonal, diagonal) symmetric vectors.
//!
//! **Range**: a number after the atom limits a rider (`R4`, `W3`, `N2`, `Q3`; `R1` is a
//! one-step rider, i.e. leaper semantics, `max_steps` 1). A doubled letter (`WW`, `NN`, `DD`)
//! is an unlimited rider (`max_steps` 0), as are `R`, `B`, `Q` without a number. `0` also means
//! unlimited (`W0` = `R`, QR and FSF). Numbers above 99 are refused, as is a leading zero
//! (`W03`, QR's "exactly 3 steps"), which [`Atom`] cannot express.
//!
//! **Modality**: `m` move only, `c` capture only, both = default; several join (`mc` = both).
//! `e` (en-passant capture in FSF's pawn `fmWfceF`) is read as capture: [`Atom`] has no
//! en-passant flag, so the variant loader decides which pieces take en passant.
//!
//! **Jumping**: `n` lame ([`Jump::Lame`]), `p` cannon-style hopper ([`Jump::Hop`]), `g`
//! grasshopper ([`Jump::Grasshopper`]); two different ones on one leg are an error. `i`: the
//! move is initial-only.
//!
//! **Directions** (relative to the mover). Letters: `f b l r`, `v` = `fb`, `s` = `lr`, `h` =
//! half. Two adjacent letters form one symbol when they are equal or one is from `f b v` and the
//! other from `l r s` (`h` pairing as in FSF); otherwise each letter is a symbol on its own.
//! Several symbols join their move sets (QR: "fb = f or b"). Per atom shape:
//! * *orthogonal* (`W D H R (m,0)`): `f b l r` each select one move; a combined symbol joins its
//!   letters (QR: "on non-diagonal 4-movers … fl means f or l"; FSF splits `fs` the same way
//!   for the Xiangqi soldier `fsW`). `fh bh lh rh` are refused on these atoms (QR defines
//!   `h` as "four of 8 moves"; FSF silently drops it).
//! * *diagonal* (`F A G B (m,m)`): `f` = both forward diagonals, `b` both backward, `l` both
//!   left, `r` both right; `fl fr bl br` (and `lf rf lb rb`) one diagonal; `fs` = `f`,
//!   `lv` = `l`, `vs` = all.
//! * *oblique* (`N C Z (m,n)`, `m>n>0`), QR's diagram: a single letter selects the *pair* of
//!   moves furthest in that direction — `fN` = the two narrow forward moves (-1,2),(1,2)
//!   (Shogi knight; XB: `ff` is the "obsolete notation for forward-most two"), `lN` =
//!   (-2,1),(-2,-1). Two letters name one move, the first being the side and the second the
//!   finer choice: `fl` = (-2,1), `fr` = (2,1), `lf` = (-1,2), `rf` = (1,2), `bl` = (-2,-1),
//!   `br` = (2,-1), `lb` = (-1,-2), `rb` = (1,-2) (HGM-2013: "frN would mean the upper-most of
//!   the r-pair"). `v` and `s` distribute (HGM-2013): `fs` = `fl`+`fr` (wide forward pair),
//!   `bs`, `lv` = `lf`+`lb`, `rv`; likewise `sf` = `lf`+`rf`. `fh` = the four forward moves
//!   (QR/XB "forward-most four of 8"), `bh`, `lh`, `rh`. Doubled letters (`ff`, `ll`, `vv`,
//!   `ss`) equal the single letter. `vs`/`sv` are refused on oblique atoms (XB calls `vs`
//!   "all", but distributing gives only the four wide moves).
//! * `h` alone, `h` first (`hl`, `hr`: FSF's chiral sets) and `vh`/`sh` are refused.
//!
//! **Multi-leg** (XBetza `a`): `cafR` is one atom with two legs; the modifiers before the
//! `a` belong to the first leg, those after it to the second, and the atom and range are
//! shared, so the legs' atoms are those of `cR` and `fR`. [`Leg::text`] is the raw text split
//! at the `a`s (`c`, `fR`), so joining the legs' texts with `a` gives the component back. Each
//! leg is expanded like a single-leg component; directions of later legs are meant relative to
//! the previous leg, which this module does not interpret.
//!
//! Not supported (clear errors): whitespace, grouping parentheses, chaining operators of the
//! older XB page (`t - + ? ! x d y`), and modifiers `j o q z k u`.
//!
//! Vectors produced by one leg are de-duplicated (`vsW` = four moves); vectors repeated across
//! components are kept.

use std::fmt;

/// What a move may do on its target square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Modality {
    /// May end on an empty square.
    pub moves: bool,
    /// May end on an enemy piece, capturing it.
    pub captures: bool,
}

impl Modality {
    pub const BOTH: Modality = Modality { moves: true, captures: true };
    pub const MOVE_ONLY: Modality = Modality { moves: true, captures: false };
    pub const CAPTURE_ONLY: Modality = Modality { moves: false, captures: true };
}

/// How the squares between the origin and the target matter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Jump {
    /// Leaper (range 1) or rider (range > 1) that jumps over nothing: a leaper ignores the
    /// squares between, a rider needs every square before the target empty.
    Free,
    /// Lame leaper (`n`): the squares on its path must be empty (Xiangqi horse and elephant,
    /// the pawn's double step).
    Lame,
    /// Cannon-style hopper (`p`): exactly one occupied square (the screen) lies before the target
    /// along the ray; squares between the screen and the target are empty.
    Hop,
    /// Grasshopper-style hopper (`g`): lands on the square right behind the first occupied square.
    Grasshopper,
}

/// One direction of one move component, from Blue's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Atom {
    pub dx: i8,
    pub dy: i8,
    /// 1 for a leaper; `n > 1` for a rider limited to `n` steps; 0 for an unlimited rider.
    pub max_steps: u8,
    pub modality: Modality,
    pub jump: Jump,
    /// `i`: only available as the piece's initial move (from the variant's initial region).
    pub initial_only: bool,
}

/// One leg of a (possibly multi-leg) XBetza component, before direction expansion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leg {
    /// The raw text of the leg, kept for error messages.
    pub text: String,
    pub atoms: Vec<Atom>,
}

/// A component is a sequence of legs joined by `a`; ordinary Betza components have one leg.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Component {
    pub legs: Vec<Leg>,
}

/// A parsed geometry: the union of its components.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Geometry {
    pub components: Vec<Component>,
}

impl Geometry {
    /// Every single-leg atom, in parse order. Multi-leg components are not included; callers
    /// that cannot execute them must check [`Geometry::multi_leg`] and refuse.
    pub fn atoms(&self) -> impl Iterator<Item = &Atom> {
        self.components.iter().filter(|c| c.legs.len() == 1).flat_map(|c| c.legs[0].atoms.iter())
    }

    /// Multi-leg components (`a`), which the move generator does not execute yet.
    pub fn multi_leg(&self) -> impl Iterator<Item = &Component> {
        self.components.iter().filter(|c| c.legs.len() > 1)
    }
}

/// A parse error naming the offending character (0-based byte offset into the text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BetzaError {
    pub text: String,
    pub position: usize,
    pub message: String,
}

impl fmt::Display for BetzaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ch = self.text[self.position.min(self.text.len())..].chars().next();
        match ch {
            Some(c) => write!(
                f,
                "in Betza string {:?}, character {:?} at position {}: {}",
                self.text,
                c,
                // `position` is a byte offset; people count characters.
                self.text[..self.position.min(self.text.len())].chars().count() + 1,
                self.message
            ),
            None => write!(f, "in Betza string {:?}, at its end: {}", self.text, self.message),
        }
    }
}

impl std::error::Error for BetzaError {}

// ---------------------------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------------------------

/// Parses a Betza / XBetza string into a [`Geometry`].
///
/// The accepted dialect is described in the module documentation. An empty string is a valid
/// geometry with no components (a piece that cannot move). Every error names the byte offset of
/// the offending character, or `text.len()` when the text ends too early inside a `(m,n)` leaper.
/// For example `fmWfcF` (the chess pawn without its double step) gives two components: a
/// move-only forward W step and the two capture-only forward F steps.
pub fn parse(text: &str) -> Result<Geometry, BetzaError> {
    Parser { text, chars: text.char_indices().collect(), i: 0 }.run()
}

/// A directional letter: `f b l r v s h`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dir {
    F,
    B,
    L,
    R,
    V,
    S,
    H,
}

impl Dir {
    fn from_char(c: char) -> Option<Dir> {
        Some(match c {
            'f' => Dir::F,
            'b' => Dir::B,
            'l' => Dir::L,
            'r' => Dir::R,
            'v' => Dir::V,
            's' => Dir::S,
            'h' => Dir::H,
            _ => return None,
        })
    }

    fn as_char(self) -> char {
        match self {
            Dir::F => 'f',
            Dir::B => 'b',
            Dir::L => 'l',
            Dir::R => 'r',
            Dir::V => 'v',
            Dir::S => 's',
            Dir::H => 'h',
        }
    }

    /// `f b v` (and `h`, which pairs with either class, as in Fairy-Stockfish).
    fn is_vertical(self) -> bool {
        matches!(self, Dir::F | Dir::B | Dir::V | Dir::H)
    }

    /// `l r s` (and `h`).
    fn is_horizontal(self) -> bool {
        matches!(self, Dir::L | Dir::R | Dir::S | Dir::H)
    }

    /// `v` = `f`+`b`, `s` = `l`+`r`; the four basic letters stand for themselves.
    fn basic(self) -> &'static [Dir] {
        match self {
            Dir::F => &[Dir::F],
            Dir::B => &[Dir::B],
            Dir::L => &[Dir::L],
            Dir::R => &[Dir::R],
            Dir::V => &[Dir::F, Dir::B],
            Dir::S => &[Dir::L, Dir::R],
            Dir::H => &[],
        }
    }
}

/// One directional token: a single letter, or two adjacent letters read as one symbol.
#[derive(Clone, Copy, Debug)]
struct DirToken {
    first: Dir,
    second: Option<Dir>,
    pos: usize,
}

impl DirToken {
    fn text(&self) -> String {
        let mut s = String::new();
        s.push(self.first.as_char());
        if let Some(d) = self.second {
            s.push(d.as_char());
        }
        s
    }
}

// The eight symmetric moves of an atom with major component `m` and minor component `n`
// (`m >= n >= 0`), numbered clockwise starting just right of straight ahead, and named as in
// H. G. Muller's quick-reference diagram (first letter = the coarse side, second = the finer
// choice within it):
//
//   slot 0 `rf` (+n,+m)   slot 1 `fr` (+m,+n)   slot 2 `br` (+m,-n)   slot 3 `rb` (+n,-m)
//   slot 4 `lb` (-n,-m)   slot 5 `bl` (-m,-n)   slot 6 `fl` (-m,+n)   slot 7 `lf` (-n,+m)
//
// Vectors are (dx, dy), +dy forward, +dx right. For orthogonal and diagonal atoms several slots
// coincide; the expansion de-duplicates.
const SLOT_COUNT: usize = 8;

fn slot_vector(slot: usize, m: i8, n: i8) -> (i8, i8) {
    match slot {
        0 => (n, m),
        1 => (m, n),
        2 => (m, -n),
        3 => (n, -m),
        4 => (-n, -m),
        5 => (-m, -n),
        6 => (-m, n),
        7 => (-n, m),
        _ => unreachable!("slot out of range"),
    }
}

const fn bit(slot: usize) -> u8 {
    1 << slot
}

const ALL_SLOTS: u8 = 0xFF;

/// The pair of moves a single basic letter selects (`f` = `lf`+`rf`, `l` = `fl`+`bl`, ...).
fn letter_mask(d: Dir) -> u8 {
    match d {
        Dir::F => bit(7) | bit(0),
        Dir::B => bit(3) | bit(4),
        Dir::L => bit(5) | bit(6),
        Dir::R => bit(1) | bit(2),
        Dir::V => letter_mask(Dir::F) | letter_mask(Dir::B),
        Dir::S => letter_mask(Dir::L) | letter_mask(Dir::R),
        Dir::H => 0,
    }
}

/// The single move named by two basic letters of different classes (`fl`, `lf`, ...).
fn single_move_mask(a: Dir, b: Dir) -> u8 {
    match (a, b) {
        (Dir::R, Dir::F) => bit(0),
        (Dir::F, Dir::R) => bit(1),
        (Dir::B, Dir::R) => bit(2),
        (Dir::R, Dir::B) => bit(3),
        (Dir::L, Dir::B) => bit(4),
        (Dir::B, Dir::L) => bit(5),
        (Dir::F, Dir::L) => bit(6),
        (Dir::L, Dir::F) => bit(7),
        _ => 0,
    }
}

/// The four moves of a half (`fh`, `bh`, `lh`, `rh`).
fn half_mask(d: Dir) -> u8 {
    match d {
        Dir::F => bit(7) | bit(0) | bit(6) | bit(1),
        Dir::B => bit(3) | bit(4) | bit(5) | bit(2),
        Dir::L => bit(7) | bit(6) | bit(5) | bit(4),
        Dir::R => bit(0) | bit(1) | bit(2) | bit(3),
        _ => 0,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// `(m, 0)`: four moves.
    Orthogonal,
    /// `(m, m)`: four moves.
    Diagonal,
    /// `(m, n)`, `m > n > 0`: eight moves.
    Oblique,
}

fn shape_of(m: i8, n: i8) -> Shape {
    if n == 0 {
        Shape::Orthogonal
    } else if m == n {
        Shape::Diagonal
    } else {
        Shape::Oblique
    }
}

/// The slots one directional token selects on an atom of the given shape, or a message.
fn token_mask(tok: &DirToken, shape: Shape) -> Result<u8, String> {
    let a = tok.first;
    let Some(b) = tok.second else {
        return Ok(letter_mask(a));
    };
    if a == b {
        // Doubled letter (`ff`, `ss`, ...): Muller's obsolete spelling of the single letter.
        return Ok(letter_mask(a));
    }
    if b == Dir::H {
        // Only `fh bh lh rh` reach this point (the tokenizer rejects `vh`, `sh`, `hX`).
        return match shape {
            Shape::Orthogonal => {
                Err(format!("direction '{}' (half) is only defined for diagonal and oblique atoms", tok.text()))
            }
            _ => Ok(half_mask(a)),
        };
    }
    match shape {
        // On orthogonal 4-movers every letter already names a single move, so combined
        // letters join their sets: fsW = fW + sW (the Xiangqi soldier), flW = fW + lW.
        Shape::Orthogonal => Ok(letter_mask(a) | letter_mask(b)),
        Shape::Oblique if matches!((a, b), (Dir::V, Dir::S) | (Dir::S, Dir::V)) => Err(format!(
            "direction '{}' is ambiguous on oblique atoms; spell the moves out (e.g. fhbh, ffbbllrr)",
            tok.text()
        )),
        // Diagonal and oblique: the pair names single moves and distributes over v and s:
        // fs = fl + fr, rv = rf + rb, sf = lf + rf.
        _ => {
            let mut mask = 0;
            for &x in a.basic() {
                for &y in b.basic() {
                    mask |= single_move_mask(x, y);
                }
            }
            Ok(mask)
        }
    }
}

/// The modifiers of one leg, collected before its atom.
#[derive(Clone, Debug, Default)]
struct Prefix {
    /// Byte range of the leg's raw text, for [`Leg::text`]: from its first character (or the
    /// atom, for a leg without modifiers) to the `a` that ends it (or the end of the atom and
    /// range, for the last leg).
    start: Option<usize>,
    end: Option<usize>,
    moves: bool,
    captures: bool,
    jump: Option<(Jump, char)>,
    initial: bool,
    dirs: Vec<DirToken>,
}

impl Prefix {
    fn modality(&self) -> Modality {
        if !self.moves && !self.captures {
            Modality::BOTH
        } else {
            Modality { moves: self.moves, captures: self.captures }
        }
    }
}

/// Letters of the XBetza references that this parser recognises but does not implement.
const UNSUPPORTED_MODIFIERS: &str = "djkoqtuxyz";

/// The largest range (`R99`) and leaper coordinate (`(99,1)`) accepted.
const MAX_NUMBER: u32 = 99;

struct Parser<'a> {
    text: &'a str,
    chars: Vec<(usize, char)>,
    i: usize,
}

impl Parser<'_> {
    fn err(&self, position: usize, message: impl Into<String>) -> BetzaError {
        BetzaError { text: self.text.to_string(), position, message: message.into() }
    }

    /// Byte offset of the character at index `i`, or the end of the text.
    fn pos(&self, i: usize) -> usize {
        self.chars.get(i).map_or(self.text.len(), |&(p, _)| p)
    }

    fn peek(&self, i: usize) -> Option<char> {
        self.chars.get(i).map(|&(_, c)| c)
    }

    fn unexpected(&self, position: usize, c: char, what: &str) -> BetzaError {
        if c.is_whitespace() {
            self.err(position, format!("whitespace ({c:?}) is not allowed in a Betza string"))
        } else {
            self.err(position, format!("{what} '{c}'"))
        }
    }

    fn run(mut self) -> Result<Geometry, BetzaError> {
        let mut geometry = Geometry::default();
        // Leg prefixes of the component under construction that were closed by `a`.
        let mut closed: Vec<Prefix> = Vec::new();
        let mut cur = Prefix::default();
        // Byte offset of the first modifier of the component under construction.
        let mut comp_start: Option<usize> = None;

        while self.i < self.chars.len() {
            let (pos, c) = self.chars[self.i];
            if c.is_whitespace() {
                return Err(self.unexpected(pos, c, ""));
            }
            if c.is_ascii_uppercase() || c == '(' {
                let component = self.atom(std::mem::take(&mut closed), std::mem::take(&mut cur))?;
                geometry.components.push(component);
                comp_start = None;
                continue;
            }
            if c.is_ascii_digit() {
                return Err(self.err(pos, "number without an atom"));
            }
            comp_start.get_or_insert(pos);
            cur.start.get_or_insert(pos);
            match c {
                'm' => cur.moves = true,
                // `e`: en-passant capture (Fairy-Stockfish's pawn is fmWfceF). Atom has no
                // en-passant flag, so this records only that the move captures.
                'c' | 'e' => cur.captures = true,
                'p' | 'g' | 'n' => {
                    let jump = match c {
                        'p' => Jump::Hop,
                        'g' => Jump::Grasshopper,
                        _ => Jump::Lame,
                    };
                    if let Some((_, other)) = cur.jump {
                        if other != c {
                            return Err(self.err(pos, format!("conflicting jump modifiers '{other}' and '{c}'")));
                        }
                    }
                    cur.jump = Some((jump, c));
                }
                'i' => cur.initial = true,
                'a' => {
                    cur.end = Some(pos);
                    closed.push(std::mem::take(&mut cur));
                    cur.start = Some(pos + 1);
                }
                _ => {
                    if let Some(first) = Dir::from_char(c) {
                        let tok = self.direction(first, pos)?;
                        cur.dirs.push(tok);
                        continue;
                    }
                    if UNSUPPORTED_MODIFIERS.contains(c) {
                        return Err(self.err(pos, format!("unsupported XBetza modifier '{c}'")));
                    }
                    return Err(self.unexpected(pos, c, "unknown atom or modifier"));
                }
            }
            self.i += 1;
        }
        if let Some(start) = comp_start {
            return Err(self.err(start, "modifier without an atom"));
        }
        Ok(geometry)
    }

    /// Reads a directional token starting at the current index (letter `first` at `pos`),
    /// pairing it with the next letter as Fairy-Stockfish does: same letter, or one of `f b v`
    /// next to one of `l r s` (`h` counts as both).
    fn direction(&mut self, first: Dir, pos: usize) -> Result<DirToken, BetzaError> {
        let next = self.peek(self.i + 1).and_then(Dir::from_char);
        let second = next.filter(|&d| {
            d == first || (first.is_vertical() && d.is_horizontal()) || (first.is_horizontal() && d.is_vertical())
        });
        let tok = DirToken { first, second, pos };
        if first == Dir::H {
            return Err(self.err(pos, "'h' (half) must follow f, b, l or r, as in fhN"));
        }
        if second == Some(Dir::H) && matches!(first, Dir::V | Dir::S) {
            return Err(self.err(pos, format!("unsupported direction '{}'", tok.text())));
        }
        self.i += if second.is_some() { 2 } else { 1 };
        Ok(tok)
    }

    /// Reads a run of ASCII digits at the current index. Returns `(value, start offset, digit
    /// count)`; the value saturates, so callers check against [`MAX_NUMBER`].
    fn number(&mut self) -> Option<(u32, usize, usize)> {
        let start = self.i;
        let mut value: u32 = 0;
        while let Some(d) = self.peek(self.i).and_then(|c| c.to_digit(10)) {
            value = value.saturating_mul(10).saturating_add(d);
            self.i += 1;
        }
        (self.i > start).then(|| (value, self.pos(start), self.i - start))
    }

    /// Parses `(m,n)` at the current index; returns the normalised `(major, minor)`.
    fn leaper(&mut self) -> Result<(i8, i8), BetzaError> {
        let open = self.pos(self.i);
        self.i += 1; // '('
        let mut coords = [0u32; 2];
        for (k, coord) in coords.iter_mut().enumerate() {
            match self.number() {
                Some((v, p, _)) if v > MAX_NUMBER => {
                    return Err(self.err(p, format!("malformed leaper: coordinate {v} is larger than {MAX_NUMBER}")))
                }
                Some((v, _, _)) => *coord = v,
                None => return Err(self.leaper_error("a digit")),
            }
            let want = if k == 0 { ',' } else { ')' };
            if self.peek(self.i) != Some(want) {
                return Err(self.leaper_error(&format!("'{want}'")));
            }
            self.i += 1;
        }
        let (m, n) = (coords[0].max(coords[1]), coords[0].min(coords[1]));
        if m == 0 {
            return Err(self.err(open, "the null move (0,0) is not supported"));
        }
        Ok((m as i8, n as i8))
    }

    /// The raw text of a leg; see [`Prefix::start`].
    fn leg_text(&self, prefix: &Prefix, atom_start: usize, atom_end: usize) -> String {
        let start = prefix.start.unwrap_or(atom_start);
        self.text[start..prefix.end.unwrap_or(atom_end)].to_string()
    }

    fn leaper_error(&self, expected: &str) -> BetzaError {
        let p = self.pos(self.i);
        match self.peek(self.i) {
            Some(c) if c.is_whitespace() => self.unexpected(p, c, ""),
            Some(c) => self.err(p, format!("malformed leaper: expected {expected} in '(m,n)', found '{c}'")),
            None => self.err(p, format!("malformed leaper: expected {expected} in '(m,n)'")),
        }
    }

    /// Parses the atom at the current index (a capital letter or `(m,n)`), its doubling or
    /// range, and builds the component from the leg prefixes collected before it.
    fn atom(&mut self, mut legs: Vec<Prefix>, last: Prefix) -> Result<Component, BetzaError> {
        legs.push(last);
        let atom_start = self.pos(self.i);
        let c = self.chars[self.i].1;
        // (major, minor) vectors and whether the letter is a rider by itself.
        let (vectors, mut rider): (Vec<(i8, i8)>, bool) = if c == '(' {
            (vec![self.leaper()?], false)
        } else {
            let atom = match c {
                'W' => (vec![(1, 0)], false),
                'F' => (vec![(1, 1)], false),
                'D' => (vec![(2, 0)], false),
                'N' => (vec![(2, 1)], false),
                'A' => (vec![(2, 2)], false),
                'H' => (vec![(3, 0)], false),
                'C' | 'L' => (vec![(3, 1)], false),
                'Z' | 'J' => (vec![(3, 2)], false),
                'G' => (vec![(3, 3)], false),
                'K' => (vec![(1, 0), (1, 1)], false),
                'R' => (vec![(1, 0)], true),
                'B' => (vec![(1, 1)], true),
                'Q' => (vec![(1, 0), (1, 1)], true),
                _ => return Err(self.unexpected(atom_start, c, "unknown atom or modifier")),
            };
            self.i += 1;
            atom
        };

        let mut range: Option<u32> = None;
        if c != '(' && self.peek(self.i) == Some(c) {
            // Doubled letter: unlimited rider (WW = R, NN = nightrider).
            self.i += 1;
            rider = true;
            if let Some(d) = self.peek(self.i).filter(char::is_ascii_digit) {
                return Err(self.err(
                    self.pos(self.i),
                    format!("a doubled atom is already an unlimited rider; range '{d}' not allowed"),
                ));
            }
        } else if let Some((value, p, digits)) = self.number() {
            if digits > 1 && self.text.as_bytes()[p] == b'0' {
                return Err(
                    self.err(p, "ranges with a leading zero (XBetza's exact-range form, e.g. W03) are not supported")
                );
            }
            if value > MAX_NUMBER {
                return Err(self.err(p, format!("range {value} is larger than {MAX_NUMBER}")));
            }
            rider = true;
            range = Some(value);
        }
        let max_steps = if rider { range.unwrap_or(0) as u8 } else { 1 };
        let atom_end = self.pos(self.i);

        let legs = legs
            .into_iter()
            .map(|prefix| {
                expand(&prefix, &vectors, max_steps)
                    .map(|atoms| Leg { text: self.leg_text(&prefix, atom_start, atom_end), atoms })
            })
            .collect::<Result<Vec<_>, (usize, String)>>()
            .map_err(|(p, message)| self.err(p, message))?;
        Ok(Component { legs })
    }
}

/// Expands one leg: every symmetric vector of every `(major, minor)` pair, filtered by the
/// directional tokens (union; none = all), de-duplicated in order.
fn expand(prefix: &Prefix, vectors: &[(i8, i8)], max_steps: u8) -> Result<Vec<Atom>, (usize, String)> {
    let modality = prefix.modality();
    let jump = prefix.jump.map_or(Jump::Free, |(j, _)| j);
    let mut atoms: Vec<Atom> = Vec::new();
    for &(m, n) in vectors {
        let shape = shape_of(m, n);
        let mask = if prefix.dirs.is_empty() {
            ALL_SLOTS
        } else {
            let mut mask = 0;
            for tok in &prefix.dirs {
                mask |= token_mask(tok, shape).map_err(|msg| (tok.pos, msg))?;
            }
            mask
        };
        for slot in (0..SLOT_COUNT).filter(|&s| mask & bit(s) != 0) {
            let (dx, dy) = slot_vector(slot, m, n);
            let atom = Atom { dx, dy, max_steps, modality, jump, initial_only: prefix.initial };
            if !atoms.contains(&atom) {
                atoms.push(atom);
            }
        }
    }
    Ok(atoms)
}

#[cfg(test)]
mod tests {
    use super::*;

    type V = (i8, i8);

    fn sorted(mut v: Vec<V>) -> Vec<V> {
        v.sort_unstable();
        v
    }

    /// The atoms of a single-component, single-leg geometry.
    fn single(text: &str) -> Vec<Atom> {
        let g = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(g.components.len(), 1, "{text}: component count");
        assert_eq!(g.components[0].legs.len(), 1, "{text}: leg count");
        g.components[0].legs[0].atoms.clone()
    }

    /// Sorted vector set of a single-component geometry; also checks there are no duplicates.
    fn vecs(text: &str) -> Vec<V> {
        let atoms = single(text);
        let v = sorted(atoms.iter().map(|a| (a.dx, a.dy)).collect());
        let mut d = v.clone();
        d.dedup();
        assert_eq!(d, v, "{text}: duplicate vectors");
        v
    }

    /// All 8 (or 4) symmetric images of (m, n).
    fn sym(m: i8, n: i8) -> Vec<V> {
        let mut v = Vec::new();
        for (a, b) in [(m, n), (n, m)] {
            for (sa, sb) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                let p = (a * sa, b * sb);
                if !v.contains(&p) {
                    v.push(p);
                }
            }
        }
        sorted(v)
    }

    fn set(v: &[V]) -> Vec<V> {
        sorted(v.to_vec())
    }

    fn err(text: &str) -> BetzaError {
        match parse(text) {
            Ok(g) => panic!("{text}: expected an error, got {g:?}"),
            Err(e) => e,
        }
    }

    /// Asserts an error at `position` whose message contains `needle`.
    fn assert_err(text: &str, position: usize, needle: &str) {
        let e = err(text);
        assert_eq!(e.position, position, "{text}: {e}");
        assert!(e.message.contains(needle), "{text}: message {:?} lacks {needle:?}", e.message);
        assert_eq!(e.text, text);
        // Display must not panic, whatever the position.
        let _ = e.to_string();
    }

    // ---- atoms ----------------------------------------------------------------------------

    #[test]
    fn basic_leapers_exact_sets() {
        let cases: [(&str, i8, i8, usize); 9] = [
            ("W", 1, 0, 4),
            ("F", 1, 1, 4),
            ("D", 2, 0, 4),
            ("N", 2, 1, 8),
            ("A", 2, 2, 4),
            ("H", 3, 0, 4),
            ("C", 3, 1, 8),
            ("Z", 3, 2, 8),
            ("G", 3, 3, 4),
        ];
        for (text, m, n, count) in cases {
            let v = vecs(text);
            assert_eq!(v.len(), count, "{text}");
            assert_eq!(v, sym(m, n), "{text}");
            for a in single(text) {
                assert_eq!(a.max_steps, 1, "{text}");
                assert_eq!(a.modality, Modality::BOTH, "{text}");
                assert_eq!(a.jump, Jump::Free, "{text}");
                assert!(!a.initial_only, "{text}");
            }
        }
    }

    #[test]
    fn explicit_vectors() {
        assert_eq!(vecs("W"), set(&[(0, 1), (1, 0), (0, -1), (-1, 0)]));
        assert_eq!(vecs("F"), set(&[(1, 1), (1, -1), (-1, 1), (-1, -1)]));
        assert_eq!(vecs("N"), set(&[(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]));
    }

    #[test]
    fn aliases() {
        assert_eq!(vecs("L"), vecs("C"));
        assert_eq!(vecs("J"), vecs("Z"));
    }

    #[test]
    fn king_and_riders() {
        let k = single("K");
        assert_eq!(k.len(), 8);
        assert!(k.iter().all(|a| a.max_steps == 1));
        assert_eq!(vecs("K"), sorted([sym(1, 0), sym(1, 1)].concat()));

        for (text, expect) in [("R", sym(1, 0)), ("B", sym(1, 1)), ("Q", sorted([sym(1, 0), sym(1, 1)].concat()))] {
            assert_eq!(vecs(text), expect, "{text}");
            assert!(single(text).iter().all(|a| a.max_steps == 0 && a.jump == Jump::Free), "{text}");
        }
        assert_eq!(single("Q").len(), 8);
        assert_eq!(single("R").len(), 4);
        assert_eq!(single("B").len(), 4);
    }

    #[test]
    fn parenthesised_leapers() {
        assert_eq!(vecs("(4,1)").len(), 8);
        assert_eq!(vecs("(4,1)"), sym(4, 1));
        assert_eq!(vecs("(1,4)"), sym(4, 1));
        assert_eq!(vecs("(0,3)"), vecs("H"));
        assert_eq!(vecs("(3,0)"), vecs("H"));
        assert_eq!(vecs("(2,2)"), vecs("A"));
        assert_eq!(vecs("(2,1)"), vecs("N"));
        assert_eq!(vecs("(10,7)"), sym(10, 7));
        assert!(single("(4,1)").iter().all(|a| a.max_steps == 1));
        assert!(single("(4,1)3").iter().all(|a| a.max_steps == 3));
        assert_eq!(vecs("f(4,1)"), set(&[(-1, 4), (1, 4)]));
        let g = parse("(4,1)(4,1)").unwrap();
        assert_eq!(g.components.len(), 2, "parenthesised atoms never double");
    }

    // ---- ranges ---------------------------------------------------------------------------

    fn steps(text: &str) -> Vec<u8> {
        let mut s: Vec<u8> = single(text).iter().map(|a| a.max_steps).collect();
        s.dedup();
        s
    }

    #[test]
    fn ranges_and_doubling() {
        assert_eq!(steps("R4"), [4]);
        assert_eq!(vecs("R4"), sym(1, 0));
        assert_eq!(steps("Q3"), [3]);
        assert_eq!(single("Q3").len(), 8);
        assert_eq!(steps("NN"), [0]);
        assert_eq!(vecs("NN"), sym(2, 1));
        assert_eq!(steps("N2"), [2]);
        assert_eq!(steps("W3"), [3]);
        assert_eq!(steps("B2"), [2]);
        assert_eq!(steps("F2"), [2]);
        assert_eq!(steps("K2"), [2]);
        assert_eq!(steps("R1"), [1]);
        assert_eq!(steps("W1"), [1]);
        assert_eq!(steps("WW"), [0]);
        assert_eq!(vecs("WW"), vecs("R"));
        assert_eq!(steps("FF"), [0]);
        assert_eq!(vecs("FF"), vecs("B"));
        assert_eq!(steps("DD"), [0]);
        assert_eq!(steps("R99"), [99]);
        assert_eq!(steps("R12"), [12]);
        // XBetza: 0 = any number of steps.
        assert_eq!(steps("W0"), [0]);
        assert_eq!(steps("R0"), [0]);
        assert_eq!(single("R4"), single("W4"));
    }

    // ---- directions -----------------------------------------------------------------------

    #[test]
    fn orthogonal_directions() {
        assert_eq!(vecs("fW"), set(&[(0, 1)]));
        assert_eq!(vecs("bW"), set(&[(0, -1)]));
        assert_eq!(vecs("lW"), set(&[(-1, 0)]));
        assert_eq!(vecs("rW"), set(&[(1, 0)]));
        assert_eq!(vecs("sW"), set(&[(-1, 0), (1, 0)]));
        assert_eq!(vecs("vW"), set(&[(0, 1), (0, -1)]));
        assert_eq!(vecs("rlD"), set(&[(-2, 0), (2, 0)]));
        // Combined letters join on 4-movers.
        assert_eq!(vecs("fsW"), set(&[(0, 1), (-1, 0), (1, 0)]));
        assert_eq!(vecs("flW"), set(&[(0, 1), (-1, 0)]));
        assert_eq!(vecs("lvW"), set(&[(-1, 0), (0, 1), (0, -1)]));
        assert_eq!(vecs("bsW"), set(&[(0, -1), (-1, 0), (1, 0)]));
        assert_eq!(vecs("ffW"), vecs("fW"));
        // Duplicates within a component are removed.
        assert_eq!(vecs("vsW"), sym(1, 0));
        assert_eq!(vecs("fbrlW"), sym(1, 0));
        assert_eq!(vecs("fR"), set(&[(0, 1)]));
        assert_eq!(steps("fR"), [0]);
    }

    #[test]
    fn diagonal_directions() {
        assert_eq!(vecs("fF"), set(&[(-1, 1), (1, 1)]));
        assert_eq!(vecs("bF"), set(&[(-1, -1), (1, -1)]));
        assert_eq!(vecs("lF"), set(&[(-1, 1), (-1, -1)]));
        assert_eq!(vecs("rF"), set(&[(1, 1), (1, -1)]));
        assert_eq!(vecs("flF"), set(&[(-1, 1)]));
        assert_eq!(vecs("lfF"), set(&[(-1, 1)]));
        assert_eq!(vecs("frF"), set(&[(1, 1)]));
        assert_eq!(vecs("blF"), set(&[(-1, -1)]));
        assert_eq!(vecs("brF"), set(&[(1, -1)]));
        assert_eq!(vecs("fsF"), vecs("fF"));
        assert_eq!(vecs("lvF"), vecs("lF"));
        assert_eq!(vecs("fhF"), vecs("fF"));
        assert_eq!(vecs("vsF"), sym(1, 1));
        assert_eq!(vecs("vF"), sym(1, 1));
        assert_eq!(vecs("fA"), set(&[(-2, 2), (2, 2)]));
        assert_eq!(vecs("fB"), set(&[(-1, 1), (1, 1)]));
        assert_eq!(vecs("flfrB"), set(&[(-1, 1), (1, 1)]));
    }

    #[test]
    fn oblique_directions() {
        // Single letter: the pair of moves furthest that way.
        assert_eq!(vecs("fN"), set(&[(-1, 2), (1, 2)]));
        assert_eq!(vecs("ffN"), set(&[(-1, 2), (1, 2)]));
        assert_eq!(vecs("bN"), set(&[(-1, -2), (1, -2)]));
        assert_eq!(vecs("lN"), set(&[(-2, 1), (-2, -1)]));
        assert_eq!(vecs("rN"), set(&[(2, 1), (2, -1)]));
        assert_eq!(vecs("llN"), vecs("lN"));
        assert_eq!(vecs("vN"), set(&[(-1, 2), (1, 2), (-1, -2), (1, -2)]));
        assert_eq!(vecs("sN"), set(&[(-2, 1), (-2, -1), (2, 1), (2, -1)]));
        // Pairs of letters: single moves.
        assert_eq!(vecs("flN"), set(&[(-2, 1)]));
        assert_eq!(vecs("frN"), set(&[(2, 1)]));
        assert_eq!(vecs("lfN"), set(&[(-1, 2)]));
        assert_eq!(vecs("rfN"), set(&[(1, 2)]));
        assert_eq!(vecs("blN"), set(&[(-2, -1)]));
        assert_eq!(vecs("brN"), set(&[(2, -1)]));
        assert_eq!(vecs("lbN"), set(&[(-1, -2)]));
        assert_eq!(vecs("rbN"), set(&[(1, -2)]));
        // v and s distribute.
        assert_eq!(vecs("fsN"), set(&[(-2, 1), (2, 1)]));
        assert_eq!(vecs("bsN"), set(&[(-2, -1), (2, -1)]));
        assert_eq!(vecs("lvN"), set(&[(-1, 2), (-1, -2)]));
        assert_eq!(vecs("rvN"), set(&[(1, 2), (1, -2)]));
        assert_eq!(vecs("sfN"), vecs("fN"));
        // Halves.
        assert_eq!(vecs("fhN"), set(&[(-1, 2), (1, 2), (-2, 1), (2, 1)]));
        assert_eq!(vecs("bhN"), set(&[(-1, -2), (1, -2), (-2, -1), (2, -1)]));
        assert_eq!(vecs("lhN"), set(&[(-1, 2), (-2, 1), (-2, -1), (-1, -2)]));
        assert_eq!(vecs("rhN"), set(&[(1, 2), (2, 1), (2, -1), (1, -2)]));
        // Unions of symbols.
        assert_eq!(vecs("fbN"), vecs("vN"));
        assert_eq!(vecs("ffrrN"), set(&[(-1, 2), (1, 2), (2, 1), (2, -1)]));
        assert_eq!(vecs("fsbsN"), vecs("sN"));
        assert_eq!(vecs("fC"), set(&[(-1, 3), (1, 3)]));
        assert_eq!(vecs("fsZ"), set(&[(-3, 2), (3, 2)]));
        assert_eq!(vecs("fNN"), set(&[(-1, 2), (1, 2)]));
        assert_eq!(steps("fNN"), [0]);
    }

    #[test]
    fn compound_atoms_take_directions_per_atom() {
        // fK: forward W plus both forward F.
        assert_eq!(vecs("fK"), set(&[(0, 1), (-1, 1), (1, 1)]));
        assert_eq!(vecs("fQ"), set(&[(0, 1), (-1, 1), (1, 1)]));
        assert_eq!(vecs("bQ"), set(&[(0, -1), (-1, -1), (1, -1)]));
        assert_eq!(vecs("sK"), set(&[(-1, 0), (1, 0), (-1, 1), (-1, -1), (1, 1), (1, -1)]));
    }

    // ---- modality, jumping, initial -------------------------------------------------------

    #[test]
    fn pawn_modalities() {
        let g = parse("mfWcfF").unwrap();
        assert_eq!(g.components.len(), 2);
        let a0 = &g.components[0].legs[0].atoms;
        assert_eq!(a0.len(), 1);
        assert_eq!((a0[0].dx, a0[0].dy), (0, 1));
        assert_eq!(a0[0].modality, Modality::MOVE_ONLY);
        let a1 = &g.components[1].legs[0].atoms;
        assert_eq!(sorted(a1.iter().map(|a| (a.dx, a.dy)).collect()), set(&[(-1, 1), (1, 1)]));
        assert!(a1.iter().all(|a| a.modality == Modality::CAPTURE_ONLY));
        assert_eq!(g.components[0].legs[0].text, "mfW");
        assert_eq!(g.components[1].legs[0].text, "cfF");
    }

    #[test]
    fn modality_prefixes() {
        assert!(single("W").iter().all(|a| a.modality == Modality::BOTH));
        assert!(single("mW").iter().all(|a| a.modality == Modality::MOVE_ONLY));
        assert!(single("cW").iter().all(|a| a.modality == Modality::CAPTURE_ONLY));
        assert!(single("mcW").iter().all(|a| a.modality == Modality::BOTH));
        assert!(single("cmW").iter().all(|a| a.modality == Modality::BOTH));
        assert!(single("eF").iter().all(|a| a.modality == Modality::CAPTURE_ONLY));
        assert!(single("ceF").iter().all(|a| a.modality == Modality::CAPTURE_ONLY));
        assert!(single("meF").iter().all(|a| a.modality == Modality::BOTH));
        // Fairy-Stockfish's pawn spelling, in either modifier order.
        for text in ["fmWfceF", "mfWcefF"] {
            let g = parse(text).unwrap();
            assert_eq!(g.components.len(), 2);
            assert_eq!(g.components[0].legs[0].atoms[0].modality, Modality::MOVE_ONLY);
            assert_eq!(g.components[1].legs[0].atoms.len(), 2);
            assert!(g.components[1].legs[0].atoms.iter().all(|a| a.modality == Modality::CAPTURE_ONLY));
        }
    }

    #[test]
    fn initial_lame_double_step() {
        let atoms = single("ifmnD");
        assert_eq!(
            atoms,
            vec![Atom {
                dx: 0,
                dy: 2,
                max_steps: 1,
                modality: Modality::MOVE_ONLY,
                jump: Jump::Lame,
                initial_only: true
            }]
        );
        // Any modifier order.
        assert_eq!(single("nmfiD"), atoms);
    }

    #[test]
    fn chess_and_berolina_pawns() {
        let g = parse("fmWfcFifmnD").unwrap();
        assert_eq!(g.components.len(), 3);
        assert_eq!(g.atoms().count(), 4);
        assert!(g.components[2].legs[0].atoms[0].initial_only);
        assert!(!g.components[0].legs[0].atoms[0].initial_only);

        let g = parse("mfFcfWifmnA").unwrap();
        assert_eq!(g.components.len(), 3);
        let c0 = &g.components[0].legs[0].atoms;
        assert_eq!(sorted(c0.iter().map(|a| (a.dx, a.dy)).collect()), set(&[(-1, 1), (1, 1)]));
        assert!(c0.iter().all(|a| a.modality == Modality::MOVE_ONLY));
        let c1 = &g.components[1].legs[0].atoms;
        assert_eq!(c1.len(), 1);
        assert_eq!(c1[0].modality, Modality::CAPTURE_ONLY);
        let c2 = &g.components[2].legs[0].atoms;
        assert_eq!(sorted(c2.iter().map(|a| (a.dx, a.dy)).collect()), set(&[(-2, 2), (2, 2)]));
        assert!(c2.iter().all(|a| a.jump == Jump::Lame && a.initial_only));
    }

    #[test]
    fn cannon() {
        let g = parse("mRcpR").unwrap();
        assert_eq!(g.components.len(), 2);
        let m = &g.components[0].legs[0].atoms;
        assert_eq!(m.len(), 4);
        assert!(m.iter().all(|a| a.modality == Modality::MOVE_ONLY && a.jump == Jump::Free && a.max_steps == 0));
        let c = &g.components[1].legs[0].atoms;
        assert_eq!(c.len(), 4);
        assert!(c.iter().all(|a| a.modality == Modality::CAPTURE_ONLY && a.jump == Jump::Hop && a.max_steps == 0));
        assert!(single("pcR").iter().all(|a| a.jump == Jump::Hop));
    }

    #[test]
    fn grasshopper_and_lame_leapers() {
        let g = single("gQ");
        assert_eq!(g.len(), 8);
        assert!(g.iter().all(|a| a.jump == Jump::Grasshopper && a.max_steps == 0 && a.modality == Modality::BOTH));
        let h = single("nN");
        assert_eq!(h.len(), 8);
        assert!(h.iter().all(|a| a.jump == Jump::Lame && a.max_steps == 1));
        let e = single("nA");
        assert_eq!(e.len(), 4);
        assert!(e.iter().all(|a| a.jump == Jump::Lame));
        // Repeating the same jump modifier is harmless.
        assert!(single("ppR").iter().all(|a| a.jump == Jump::Hop));
    }

    // ---- multi-leg -----------------------------------------------------------------------

    #[test]
    fn multi_leg_components() {
        let g = parse("cafR").unwrap();
        assert_eq!(g.components.len(), 1);
        let legs = &g.components[0].legs;
        assert_eq!(legs.len(), 2);
        assert_eq!(legs[0].text, "c");
        assert_eq!(legs[0].atoms.len(), 4);
        assert!(legs[0].atoms.iter().all(|a| a.modality == Modality::CAPTURE_ONLY && a.max_steps == 0));
        assert_eq!(legs[1].text, "fR");
        assert_eq!(legs[1].atoms.len(), 1);
        assert_eq!((legs[1].atoms[0].dx, legs[1].atoms[0].dy), (0, 1));
        assert_eq!(legs[1].atoms[0].modality, Modality::BOTH);
        assert_eq!(g.atoms().count(), 0);
        assert_eq!(g.multi_leg().count(), 1);

        let g = parse("mafsW").unwrap();
        let legs = &g.components[0].legs;
        assert_eq!(legs.len(), 2);
        assert_eq!(legs[0].text, "m");
        assert_eq!(legs[0].atoms.len(), 4);
        assert_eq!(legs[1].text, "fsW");
        assert_eq!(legs[1].atoms.len(), 3);

        // Lion-style: K N A D and two multi-leg K components.
        let g = parse("KNADcaKmcabK").unwrap();
        assert_eq!(g.components.len(), 6);
        assert_eq!(g.multi_leg().count(), 2);
        assert_eq!(g.atoms().count(), 8 + 8 + 4 + 4);
        let legs = &g.components[5].legs;
        assert_eq!(legs[0].text, "mc");
        assert_eq!(legs[1].text, "bK");
        assert_eq!(legs[1].atoms.len(), 3);

        // Joining the legs' texts with `a` gives the component back.
        for (text, component) in [("cafR", 0), ("mafsW", 0), ("KNADcaKmcabK", 4), ("KNADcaKmcabK", 5)] {
            let g = parse(text).unwrap();
            let legs: Vec<&str> = g.components[component].legs.iter().map(|l| l.text.as_str()).collect();
            let joined = legs.join("a");
            assert!(text.contains(&joined), "{text}: {joined}");
        }
        let g = parse("KNADcaKmcabK").unwrap();
        assert_eq!(g.components[4].legs.iter().map(|l| l.text.as_str()).collect::<Vec<_>>(), ["c", "K"]);
        let g = parse("aWcaa(4,1)2").unwrap();
        let texts: Vec<&str> = g.components[0].legs.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["", "W"]);
        let texts: Vec<&str> = g.components[1].legs.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["c", "", "(4,1)2"]);
        assert_eq!(g.components[1].legs[1].atoms.len(), 8);

        // Three legs, range shared.
        let g = parse("mamaR3").unwrap();
        assert_eq!(g.components[0].legs.len(), 3);
        assert!(g.components[0].legs.iter().all(|l| l.atoms.iter().all(|a| a.max_steps == 3)));
    }

    // ---- compounds ------------------------------------------------------------------------

    #[test]
    fn compound_examples() {
        let cases: &[(&str, usize, usize)] = &[
            ("KmBcR", 3, 16),
            ("FHcW", 3, 12),
            ("mfWcfF", 2, 3),
            ("NR4", 2, 12),
            ("WDA", 3, 12),
            ("DmF", 2, 8),
            ("AcW", 2, 8),
            ("KDNA", 4, 24),
            ("mQ3", 1, 8),
            ("fmWfcFifmnD", 3, 4),
            ("mfFcfWifmnA", 3, 5),
            ("mRcpR", 2, 8),
            ("gQ", 1, 8),
            ("nN", 1, 8),
            ("nA", 1, 4),
            ("NN", 1, 8),
            ("QN", 2, 16),
            ("RN", 2, 12),
            ("BN", 2, 12),
            ("fsW", 1, 3),
            ("WfF", 2, 6),
            ("FfW", 2, 5),
            ("B2ND", 3, 16),
            ("RcpRnN", 3, 16),
        ];
        for &(text, comps, atoms) in cases {
            let g = parse(text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(g.components.len(), comps, "{text}: components");
            assert_eq!(g.atoms().count(), atoms, "{text}: atoms");
            assert_eq!(g.multi_leg().count(), 0, "{text}");
        }
        // KmBcR: K both, B move-only rider, R capture-only rider.
        let g = parse("KmBcR").unwrap();
        let [k, b, r] = &g.components[..] else { unreachable!() };
        assert!(k.legs[0].atoms.iter().all(|a| a.modality == Modality::BOTH && a.max_steps == 1));
        assert!(b.legs[0].atoms.iter().all(|a| a.modality == Modality::MOVE_ONLY && a.max_steps == 0));
        assert!(r.legs[0].atoms.iter().all(|a| a.modality == Modality::CAPTURE_ONLY && a.max_steps == 0));
        assert_eq!(k.legs[0].text, "K");
        assert_eq!(b.legs[0].text, "mB");
        assert_eq!(r.legs[0].text, "cR");
        // NR4: the range binds to R only.
        let g = parse("NR4").unwrap();
        assert!(g.components[0].legs[0].atoms.iter().all(|a| a.max_steps == 1));
        assert!(g.components[1].legs[0].atoms.iter().all(|a| a.max_steps == 4));
        assert_eq!(g.components[1].legs[0].text, "R4");
    }

    #[test]
    fn duplicates_across_components_are_kept() {
        let g = parse("WfW").unwrap();
        assert_eq!(g.atoms().count(), 5);
        let g = parse("KW").unwrap();
        assert_eq!(g.atoms().count(), 12);
    }

    #[test]
    fn empty_is_a_piece_that_cannot_move() {
        assert_eq!(parse("").unwrap(), Geometry::default());
    }

    // ---- errors ---------------------------------------------------------------------------

    #[test]
    fn unknown_letters() {
        assert_err("X", 0, "unknown atom or modifier 'X'");
        assert_err("KX", 1, "unknown atom or modifier 'X'");
        assert_err("KmBcX", 4, "unknown atom or modifier 'X'");
        assert_err("fX", 1, "unknown atom or modifier 'X'");
        assert_err("O", 0, "unknown atom or modifier 'O'");
        assert_err("K-W", 1, "unknown atom or modifier '-'");
        assert_err("jR", 0, "unsupported XBetza modifier 'j'");
        assert_err("Nz", 1, "unsupported XBetza modifier 'z'");
        // Non-ASCII: the position is a byte offset on a char boundary.
        assert_err("é", 0, "unknown atom or modifier 'é'");
        assert_err("Kë", 1, "unknown atom or modifier 'ë'");
        assert_err("éK€", 0, "unknown");
    }

    #[test]
    fn modifier_without_atom() {
        assert_err("Kf", 1, "modifier without an atom");
        assert_err("mfWcf", 3, "modifier without an atom");
        assert_err("m", 0, "modifier without an atom");
        assert_err("ca", 0, "modifier without an atom");
        assert_err("Ka", 1, "modifier without an atom");
        assert_err("Wcafs", 1, "modifier without an atom");
    }

    #[test]
    fn number_without_atom() {
        assert_err("3W", 0, "number without an atom");
        assert_err("fm3W", 2, "number without an atom");
        assert_err("W a3", 1, "whitespace");
        assert_err("ca2R", 2, "number without an atom");
    }

    #[test]
    fn malformed_leapers() {
        assert_err("(3,", 3, "malformed leaper");
        assert_err("(3", 2, "malformed leaper");
        assert_err("(", 1, "malformed leaper");
        assert_err("(3,x)", 3, "malformed leaper");
        assert_err("(,1)", 1, "malformed leaper");
        assert_err("(4,1", 4, "malformed leaper");
        assert_err("(4;1)", 2, "malformed leaper");
        assert_err("(-4,1)", 1, "malformed leaper");
        assert_err("K(fW)", 2, "malformed leaper");
        assert_err("(100,1)", 1, "larger than 99");
        assert_err("(0,0)", 0, "null move");
        assert_err("N(4,1", 5, "malformed leaper");
    }

    #[test]
    fn bad_ranges() {
        assert_err("R100", 1, "range 100 is larger than 99");
        assert_err("N999999999999999", 1, "larger than 99");
        assert_err("W03", 1, "leading zero");
        assert_err("R00", 1, "leading zero");
        assert_err("NN2", 2, "doubled atom");
        assert_err("KWW3", 3, "doubled atom");
        assert_err("(4,1)100", 5, "larger than 99");
    }

    #[test]
    fn whitespace_is_refused() {
        assert_err("K W", 1, "whitespace");
        assert_err(" K", 0, "whitespace");
        assert_err("\tK", 0, "whitespace");
        assert_err("K\n", 1, "whitespace");
        assert_err("(4, 1)", 3, "whitespace");
        assert_err("f W", 1, "whitespace");
    }

    #[test]
    fn bad_directions() {
        assert_err("hW", 0, "'h' (half)");
        assert_err("hlN", 0, "'h' (half)");
        assert_err("fhhN", 2, "'h' (half)");
        assert_err("vhN", 0, "unsupported direction 'vh'");
        assert_err("shN", 0, "unsupported direction 'sh'");
        assert_err("KfhW", 1, "only defined for diagonal and oblique");
        assert_err("fhK", 0, "only defined for diagonal and oblique");
        assert_err("WvsN", 1, "ambiguous on oblique");
        assert_err("svN", 0, "ambiguous on oblique");
    }

    #[test]
    fn conflicting_jumps() {
        assert_err("pgR", 1, "conflicting jump modifiers 'p' and 'g'");
        assert_err("nmpN", 2, "conflicting jump modifiers 'n' and 'p'");
    }

    #[test]
    fn error_display() {
        let e = err("KX");
        assert_eq!(e.to_string(), "in Betza string \"KX\", character 'X' at position 2: unknown atom or modifier 'X'");
        let e = err("(3,");
        assert!(e.to_string().contains("at its end"), "{e}");
    }

    // ---- robustness -----------------------------------------------------------------------

    #[test]
    fn never_panics_on_short_strings() {
        // Every string of up to three characters over an alphabet that exercises every branch.
        let alphabet: Vec<char> = "WNKRQfblrvshmceapgni()0,3a X-é".chars().collect();
        let mut count = 0;
        let mut buf = String::new();
        for &a in &alphabet {
            for &b in &alphabet {
                for &c in &alphabet {
                    for len in 1..=3 {
                        buf.clear();
                        buf.extend([a, b, c].iter().take(len));
                        match parse(&buf) {
                            Ok(g) => {
                                for comp in &g.components {
                                    let texts: Vec<&str> = comp.legs.iter().map(|l| l.text.as_str()).collect();
                                    assert!(buf.contains(&texts.join("a")), "{buf:?}");
                                    assert!(!comp.legs.last().unwrap().text.is_empty());
                                }
                            }
                            Err(e) => {
                                assert!(e.position <= buf.len(), "{buf:?}: {e:?}");
                                assert!(buf.is_char_boundary(e.position), "{buf:?}: {e:?}");
                                let _ = e.to_string();
                            }
                        }
                        count += 1;
                    }
                }
            }
        }
        assert!(count > 0);
    }
}
