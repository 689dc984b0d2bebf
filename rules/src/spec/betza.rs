//! The Betza / XBetza geometry language: text → [`Geometry`].
//!
//! A geometry is what a piece can do *by itself*, written from the first player's (Blue's) point
//! of view: `+dy` is forward, `+dx` is toward higher files (Blue's right). The variant loader
//! rotates every vector by 180° for the second player, so `l`/`r` stay relative to the mover.
//!
//! Parsing produces a list of components, each one or more [`Leg`]s; a leg lists its [`Atom`]s,
//! each a single vector with its range, modality and jumping kind. Single-leg components are the
//! classic Betza moves ([`Geometry::atoms`]); multi-leg XBetza components (`a`) and `j` slides
//! ([`Geometry::multi_leg`]) are compiled by the variant layer into leg tries
//! (`variant::legs`), for Chushin Shogi's lion, hook and area moves.
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
//! **Multi-leg** (XBetza `a`, QR; chushin-shogi.md §6): `cafR` is one component with two legs;
//! the modifiers before the `a` belong to the first leg, those after it to the second, and the
//! atom and range are shared. [`Leg::text`] is the text split at the `a`s (`c`, `fR`), so
//! joining the legs' texts with `a` gives the component back (group repeats expanded).
//! * *Modes* ([`LegMode`]): a non-final leg may be `m` (stop on an empty square and go on; the
//!   default), `c` (capture an enemy on the spot, a locust capture), `p` (stop on an occupied
//!   square of either colour, left alone), or several (`mp`, `mc`). The final leg is a normal
//!   move: move-or-capture by default, `m` or `c` restrict; `p` on it is refused.
//! * *Directions*: the first leg's are absolute, as in a single-leg component. A continuation
//!   leg's are relative to the direction the leg before it took ([`LegDirs::Relative`]): `f`
//!   straight on, `b` back the way it came, `v` either, no letter every direction of the atom.
//!   Other letters and pairs (`s`, `l`, `fr`, `fh`, the 45°/90° turns of QR) are refused.
//! * `y` on a non-final leg toggles the range of every later leg: a slider becomes a single
//!   step, a leaper an unlimited slider; a second `y` toggles back. On the final leg, or in a
//!   single-leg component, it is refused.
//! * `j` on a slider (any leg, or a single-leg component such as `jQ`) skips the line's first
//!   square whatever it holds; on a leaper it is refused. A `j` component walks legs
//!   ([`Component::walks_legs`]), since the single-leg tables cannot skip.
//! * `g`, `n`, `i` and `e` are refused in a multi-leg component.
//!
//! **Groups**: `(legs)n`, `n` one digit 1..=9, stands for the group's text repeated 0..=n times,
//! each count a separate component (QR): `(paf)2cB` = `cB` + `pafcB` + `pafpafcB`, `(a)2K` =
//! `K` + `aK` + `aaK`. A group holds modifiers and at least one `a`; it is followed by the rest of
//! its component, atom included. `(` and a digit is a `(m,n)` leaper. Nested groups, groups
//! without a count, and groups that expand one component into more than 100 are refused. Error
//! positions point into the original text.
//!
//! Not supported (clear errors): whitespace, chaining operators of the older XB page
//! (`t - + ? ! x d`), and modifiers `o q z k u`.
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

/// What the stop square of one leg of a multi-leg component may hold (QR: `m`, `c`, `p` on a
/// leg). A non-final leg: `moves` an empty square (the walk passes through it), `captures` an
/// enemy (captured on the spot, a locust victim), `hops` any occupied square (left untouched);
/// with no letter it `moves`. The final leg: `moves` an empty square, `captures` an enemy by
/// landing on it; with no letter both, and never `hops`. A single-leg component's mode mirrors
/// its modality (the move generator reads it only for `j` riders, which the leg walk executes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct LegMode {
    pub moves: bool,
    pub captures: bool,
    pub hops: bool,
}

/// How a leg picks its directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LegDirs {
    /// The first (or only) leg: [`Leg::atoms`] holds the selected vectors, in Blue's frame.
    Absolute,
    /// A continuation leg, relative to the concrete direction the leg before it took:
    /// `straight` the same vector (`f`), `reverse` its negation (`b`; `v` sets both), `any`
    /// every vector of the atom (no letter), which [`Leg::atoms`] lists.
    Relative { straight: bool, reverse: bool, any: bool },
}

/// One leg of a (possibly multi-leg) XBetza component.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leg {
    /// The text of the leg (group repeats expanded), kept for error messages.
    pub text: String,
    /// A first leg: its vectors, filtered by its direction letters. A continuation leg: every
    /// vector of the atom, the candidates its [`LegDirs::Relative`] choice resolves against.
    /// Each carries the leg's range, and in a multi-leg component its mode as modality
    /// (`moves`, `captures`) and jump ([`Jump::Hop`] for `p`).
    pub atoms: Vec<Atom>,
    pub mode: LegMode,
    pub dirs: LegDirs,
    /// The leg's range, after the `y` toggles of earlier legs: 1 one leap or step, `n > 1` up
    /// to `n` steps, 0 unlimited.
    pub max_steps: u8,
    /// `y`: the legs after this one switch between one step and an unlimited slide (QR).
    pub range_toggle: bool,
    /// `j` on a slider: the line's first square is skipped whatever it holds.
    pub skip_first: bool,
}

/// A component is a sequence of legs joined by `a`; ordinary Betza components have one leg.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Component {
    pub legs: Vec<Leg>,
}

impl Component {
    /// Whether the move generator walks this component leg by leg (`variant::legs`) rather than
    /// through the single-leg move tables: it has several legs, or a `j` slide, which the
    /// tables cannot express.
    pub fn walks_legs(&self) -> bool {
        self.legs.len() > 1 || self.legs.iter().any(|l| l.skip_first)
    }
}

/// A parsed geometry: the union of its components.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Geometry {
    pub components: Vec<Component>,
}

impl Geometry {
    /// Every atom of the components the single-leg move tables execute, in parse order.
    /// Components that [walk legs](Component::walks_legs) are not included; callers that cannot
    /// execute them must check [`Geometry::multi_leg`] and refuse.
    pub fn atoms(&self) -> impl Iterator<Item = &Atom> {
        self.components.iter().filter(|c| !c.walks_legs()).flat_map(|c| c.legs[0].atoms.iter())
    }

    /// The components that [walk legs](Component::walks_legs): multi-leg (`a`) ones and `j`
    /// slides.
    pub fn multi_leg(&self) -> impl Iterator<Item = &Component> {
        self.components.iter().filter(|c| c.walks_legs())
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

/// The modifiers of one leg, collected before its atom. `start`/`end` index the component's
/// head (its characters before the atom, group repeats expanded); the other positions are byte
/// offsets into the original text, for errors.
#[derive(Clone, Debug, Default)]
struct Prefix {
    /// The leg's first head index.
    start: usize,
    /// The head index of the `a` that ends the leg; `None` for the last leg, whose text runs on
    /// into the atom and range.
    end: Option<usize>,
    moves: bool,
    captures: bool,
    /// Where an `e` is, which a multi-leg component refuses.
    en_passant: Option<usize>,
    jump: Option<(Jump, char, usize)>,
    initial: Option<usize>,
    /// Where a `y` is.
    toggle: Option<usize>,
    /// Where a `j` is.
    skip: Option<usize>,
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

/// An atom with its range, as read from the text.
struct ParsedAtom {
    /// `(major, minor)` of each leap the letter stands for (`K`: W and F).
    vectors: Vec<(i8, i8)>,
    /// 1 for a leaper, `n` for a rider of range `n`, 0 for an unlimited rider.
    max_steps: u8,
    /// Byte range of the atom and its range in the text.
    start: usize,
    end: usize,
}

/// Letters of the XBetza references that this parser recognises but does not implement.
const UNSUPPORTED_MODIFIERS: &str = "dkoqtuxz";

/// The modifier letters this parser implements, besides the directions `f b l r v s h`.
const MODIFIERS: &str = "mcepgniayj";

/// The largest range (`R99`) and leaper coordinate (`(99,1)`) accepted.
const MAX_NUMBER: u32 = 99;

/// The largest repeat count of a group (`(a)9`): one digit, as in QR's `(paf)2`.
const MAX_GROUP_COUNT: u32 = 9;

/// The most components the groups of one component may expand to (`(a)9(a)9K` is 100).
const MAX_GROUP_ALTERNATIVES: usize = 100;

/// One character of a component's head: its byte offset in the text, and the character.
type HeadChar = (usize, char);

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
        while self.i < self.chars.len() {
            let components = self.component()?;
            geometry.components.extend(components);
        }
        Ok(geometry)
    }

    /// Parses the component at the current index: its head (modifiers, `a`s and groups), then
    /// the atom and range every leg shares. A head with groups stands for several heads, one
    /// per combination of repeat counts (QR: `(paf)2cB` = `cB` + `pafcB` + `pafpafcB`); each
    /// gives one component.
    fn component(&mut self) -> Result<Vec<Component>, BetzaError> {
        let comp_start = self.pos(self.i);
        let mut heads: Vec<Vec<HeadChar>> = vec![Vec::new()];
        let mut first_group: Option<usize> = None;
        loop {
            let Some((pos, c)) = self.chars.get(self.i).copied() else {
                // The text ended before an atom. Mistakes among the modifiers come first.
                for head in &heads {
                    self.prefixes(head)?;
                }
                return Err(match first_group {
                    Some(open) => self
                        .err(open, "a group must be followed by the rest of its component, atom included, as in (a)2K"),
                    None => self.err(comp_start, "modifier without an atom"),
                });
            };
            if c.is_whitespace() {
                return Err(self.unexpected(pos, c, ""));
            }
            if c.is_ascii_uppercase() {
                break;
            }
            if c == '(' {
                // `(` and a digit is a `(m,n)` leaper; `(` and a letter (or a second `(`, to
                // name the nesting) opens a group.
                if !self.peek(self.i + 1).is_some_and(|n| n.is_ascii_lowercase() || n == '(') {
                    break;
                }
                let (content, count) = self.group()?;
                first_group.get_or_insert(pos);
                let mut expanded = Vec::with_capacity(heads.len() * (count + 1));
                for head in &heads {
                    for repeats in 0..=count {
                        let mut h = head.clone();
                        for _ in 0..repeats {
                            h.extend_from_slice(&content);
                        }
                        expanded.push(h);
                    }
                }
                if expanded.len() > MAX_GROUP_ALTERNATIVES {
                    return Err(self.err(
                        pos,
                        format!("the groups of this component expand to more than {MAX_GROUP_ALTERNATIVES} components"),
                    ));
                }
                heads = expanded;
                continue;
            }
            if c.is_ascii_digit() {
                return Err(self.err(pos, "number without an atom"));
            }
            self.check_modifier(pos, c)?;
            for head in &mut heads {
                head.push((pos, c));
            }
            self.i += 1;
        }
        let prefixes = heads.iter().map(|h| self.prefixes(h)).collect::<Result<Vec<_>, _>>()?;
        let atom = self.atom()?;
        heads.iter().zip(prefixes).map(|(head, legs)| self.build(head, legs, &atom)).collect()
    }

    /// Accepts a modifier letter of a head, or names why not.
    fn check_modifier(&self, pos: usize, c: char) -> Result<(), BetzaError> {
        if MODIFIERS.contains(c) || Dir::from_char(c).is_some() {
            Ok(())
        } else if UNSUPPORTED_MODIFIERS.contains(c) {
            Err(self.err(pos, format!("unsupported XBetza modifier '{c}'")))
        } else {
            Err(self.unexpected(pos, c, "unknown atom or modifier"))
        }
    }

    /// Reads `(…)n` at the current index; returns the group's characters and its count.
    fn group(&mut self) -> Result<(Vec<HeadChar>, usize), BetzaError> {
        let open = self.pos(self.i);
        self.i += 1;
        let mut content = Vec::new();
        loop {
            let Some((pos, c)) = self.chars.get(self.i).copied() else {
                return Err(self.err(open, "group '(' without a closing ')'"));
            };
            self.i += 1;
            match c {
                ')' => break,
                '(' => return Err(self.err(pos, "'(' inside a group: groups do not nest")),
                _ if c.is_whitespace() => return Err(self.unexpected(pos, c, "")),
                _ if c.is_ascii_uppercase() || c.is_ascii_digit() => {
                    return Err(self.err(
                        pos,
                        format!("a group holds only modifiers and 'a', not '{c}'; the atom follows it, as in (paf)2cB"),
                    ))
                }
                _ => {
                    self.check_modifier(pos, c)?;
                    content.push((pos, c));
                }
            }
        }
        let group_text = &self.text[open..self.pos(self.i)];
        if !content.iter().any(|&(_, c)| c == 'a') {
            return Err(self.err(open, format!("group {group_text:?} holds no 'a', so it repeats no leg")));
        }
        let count_pos = self.pos(self.i);
        match self.number() {
            Some((n, _, 1)) if (1..=MAX_GROUP_COUNT).contains(&n) => Ok((content, n as usize)),
            Some((_, p, _)) => {
                Err(self.err(p, format!("group {group_text:?}: the repeat count must be 1..={MAX_GROUP_COUNT}")))
            }
            None => Err(match self.peek(self.i) {
                Some(c) if c.is_whitespace() => self.unexpected(count_pos, c, ""),
                _ => self.err(
                    count_pos,
                    format!(
                        "group {group_text:?} needs a repeat count 1..={MAX_GROUP_COUNT} after ')', as in (paf)2cB"
                    ),
                ),
            }),
        }
    }

    /// Splits a head at its `a`s into leg prefixes, reading each leg's modifiers.
    fn prefixes(&self, head: &[HeadChar]) -> Result<Vec<Prefix>, BetzaError> {
        let mut legs = Vec::new();
        let mut cur = Prefix::default();
        let mut k = 0;
        while k < head.len() {
            let (pos, c) = head[k];
            match c {
                'm' => cur.moves = true,
                'c' => cur.captures = true,
                // `e`: en-passant capture (Fairy-Stockfish's pawn is fmWfceF). Atom has no
                // en-passant flag, so this records only that the move captures.
                'e' => {
                    cur.captures = true;
                    cur.en_passant.get_or_insert(pos);
                }
                'p' | 'g' | 'n' => {
                    let jump = match c {
                        'p' => Jump::Hop,
                        'g' => Jump::Grasshopper,
                        _ => Jump::Lame,
                    };
                    if let Some((_, other, _)) = cur.jump {
                        if other != c {
                            return Err(self.err(pos, format!("conflicting jump modifiers '{other}' and '{c}'")));
                        }
                    }
                    cur.jump = Some((jump, c, pos));
                }
                'i' => {
                    cur.initial.get_or_insert(pos);
                }
                'y' => {
                    cur.toggle.get_or_insert(pos);
                }
                'j' => {
                    cur.skip.get_or_insert(pos);
                }
                'a' => {
                    cur.end = Some(k);
                    legs.push(std::mem::take(&mut cur));
                    cur.start = k + 1;
                }
                _ => {
                    let first = Dir::from_char(c).expect("heads hold only letters check_modifier accepts");
                    let (tok, used) = self.direction(head, k, first)?;
                    cur.dirs.push(tok);
                    k += used;
                    continue;
                }
            }
            k += 1;
        }
        legs.push(cur);
        Ok(legs)
    }

    /// Reads a directional token at `head[k]` (letter `first`), pairing it with the next letter
    /// as Fairy-Stockfish does: same letter, or one of `f b v` next to one of `l r s` (`h` counts
    /// as both). Returns the token and how many letters it used.
    fn direction(&self, head: &[HeadChar], k: usize, first: Dir) -> Result<(DirToken, usize), BetzaError> {
        let pos = head[k].0;
        let next = head.get(k + 1).and_then(|&(_, c)| Dir::from_char(c));
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
        Ok((tok, if second.is_some() { 2 } else { 1 }))
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

    fn leaper_error(&self, expected: &str) -> BetzaError {
        let p = self.pos(self.i);
        match self.peek(self.i) {
            Some(c) if c.is_whitespace() => self.unexpected(p, c, ""),
            Some(c) => self.err(p, format!("malformed leaper: expected {expected} in '(m,n)', found '{c}'")),
            None => self.err(p, format!("malformed leaper: expected {expected} in '(m,n)'")),
        }
    }

    /// Parses the atom at the current index (a capital letter or `(m,n)`) and its doubling or
    /// range.
    fn atom(&mut self) -> Result<ParsedAtom, BetzaError> {
        let start = self.pos(self.i);
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
                _ => return Err(self.unexpected(start, c, "unknown atom or modifier")),
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
        Ok(ParsedAtom { vectors, max_steps, start, end: self.pos(self.i) })
    }

    /// Builds one component from one head's leg prefixes and the shared atom.
    fn build(&self, head: &[HeadChar], prefixes: Vec<Prefix>, atom: &ParsedAtom) -> Result<Component, BetzaError> {
        let count = prefixes.len();
        let atom_text = &self.text[atom.start..atom.end];
        let mut toggled = false;
        let mut legs = Vec::with_capacity(count);
        for (k, prefix) in prefixes.iter().enumerate() {
            // `y` switches the later legs between one step and an unlimited slide (QR: "a
            // slider becomes a leaper and vice versa").
            let max_steps = match (toggled, atom.max_steps) {
                (false, steps) => steps,
                (true, 1) => 0,
                (true, _) => 1,
            };
            let mut leg = if count == 1 {
                self.single_leg(prefix, atom, max_steps)?
            } else {
                self.multi_leg_leg(k, count, prefix, atom, max_steps)?
            };
            toggled ^= leg.range_toggle;
            let end = prefix.end.unwrap_or(head.len());
            leg.text = head[prefix.start..end].iter().map(|&(_, c)| c).collect();
            if prefix.end.is_none() {
                leg.text.push_str(atom_text);
            }
            legs.push(leg);
        }
        Ok(Component { legs })
    }

    /// The only leg of an ordinary component, expanded as Betza always was; `j` makes it a
    /// slide that skips its first square.
    fn single_leg(&self, prefix: &Prefix, atom: &ParsedAtom, max_steps: u8) -> Result<Leg, BetzaError> {
        if let Some(p) = prefix.toggle {
            return Err(self.err(p, "'y' toggles the range of the legs after it, and this component has one leg"));
        }
        if let Some(p) = prefix.skip {
            self.check_skip(p, atom, max_steps)?;
            if let Some((_, c, _)) = prefix.jump {
                return Err(self.err(p, format!("'j' cannot be combined with '{c}'")));
            }
            if prefix.initial.is_some() {
                return Err(self.err(p, "'j' cannot be combined with 'i'"));
            }
        }
        let modality = prefix.modality();
        let template = Atom {
            dx: 0,
            dy: 0,
            max_steps,
            modality,
            jump: prefix.jump.map_or(Jump::Free, |(j, _, _)| j),
            initial_only: prefix.initial.is_some(),
        };
        Ok(Leg {
            text: String::new(),
            atoms: expand(&prefix.dirs, &atom.vectors, template).map_err(|(p, m)| self.err(p, m))?,
            mode: LegMode { moves: modality.moves, captures: modality.captures, hops: false },
            dirs: LegDirs::Absolute,
            max_steps,
            range_toggle: false,
            skip_first: prefix.skip.is_some(),
        })
    }

    /// Leg `k` of a component of `count >= 2` legs.
    fn multi_leg_leg(
        &self,
        k: usize,
        count: usize,
        prefix: &Prefix,
        atom: &ParsedAtom,
        max_steps: u8,
    ) -> Result<Leg, BetzaError> {
        let last = k + 1 == count;
        let unsupported = |p: usize, c: char| self.err(p, format!("'{c}' is not supported in a multi-leg component"));
        if let Some(p) = prefix.initial {
            return Err(unsupported(p, 'i'));
        }
        if let Some(p) = prefix.en_passant {
            return Err(unsupported(p, 'e'));
        }
        let hops = match prefix.jump {
            None => false,
            Some((Jump::Hop, _, p)) if last => return Err(self.err(
                p,
                "'p' on the final leg of a multi-leg component is not supported: a leg that hops needs a leg after it",
            )),
            Some((Jump::Hop, _, _)) => true,
            Some((_, c, p)) => return Err(unsupported(p, c)),
        };
        if let (true, Some(p)) = (last, prefix.toggle) {
            return Err(self.err(p, "'y' toggles the range of the legs after it, and the final leg has none"));
        }
        if let Some(p) = prefix.skip {
            self.check_skip(p, atom, max_steps)?;
        }
        let mode = if last {
            let m = prefix.modality();
            LegMode { moves: m.moves, captures: m.captures, hops: false }
        } else if !prefix.moves && !prefix.captures && !hops {
            // A non-final leg without a mode passes through an empty square (QR).
            LegMode { moves: true, captures: false, hops: false }
        } else {
            LegMode { moves: prefix.moves, captures: prefix.captures, hops }
        };
        let template = Atom {
            dx: 0,
            dy: 0,
            max_steps,
            modality: Modality { moves: mode.moves, captures: mode.captures },
            jump: if hops { Jump::Hop } else { Jump::Free },
            initial_only: false,
        };
        let dirs = if k == 0 {
            LegDirs::Absolute
        } else {
            let (mut straight, mut reverse) = (false, false);
            for tok in &prefix.dirs {
                match (tok.first, tok.second) {
                    (Dir::F, None | Some(Dir::F)) => straight = true,
                    (Dir::B, None | Some(Dir::B)) => reverse = true,
                    (Dir::V, None | Some(Dir::V)) => (straight, reverse) = (true, true),
                    _ => {
                        return Err(self.err(
                            tok.pos,
                            format!(
                                "direction '{}' on a continuation leg: only f (straight on), b (back), v (either) \
                                 or no letter (any direction) are supported",
                                tok.text()
                            ),
                        ))
                    }
                }
            }
            LegDirs::Relative { straight, reverse, any: prefix.dirs.is_empty() }
        };
        // A continuation leg lists every vector of the atom: its letters choose among them
        // relative to the leg before, which only the variant layer knows.
        let letters: &[DirToken] = if k == 0 { &prefix.dirs } else { &[] };
        Ok(Leg {
            text: String::new(),
            atoms: expand(letters, &atom.vectors, template).map_err(|(p, m)| self.err(p, m))?,
            mode,
            dirs,
            max_steps,
            range_toggle: prefix.toggle.is_some(),
            skip_first: prefix.skip.is_some(),
        })
    }

    /// `j` at `pos` needs a leg that slides.
    fn check_skip(&self, pos: usize, atom: &ParsedAtom, max_steps: u8) -> Result<(), BetzaError> {
        if max_steps == 1 {
            let atom_text = &self.text[atom.start..atom.end];
            return Err(
                self.err(pos, format!("'j' skips the first square of a slide, and this leg of {atom_text:?} leaps"))
            );
        }
        Ok(())
    }
}

/// Expands one leg: every symmetric vector of every `(major, minor)` pair, filtered by the
/// directional tokens (union; none = all), de-duplicated in order. `template` gives every field
/// but the vector.
fn expand(dirs: &[DirToken], vectors: &[(i8, i8)], template: Atom) -> Result<Vec<Atom>, (usize, String)> {
    let mut atoms: Vec<Atom> = Vec::new();
    for &(m, n) in vectors {
        let shape = shape_of(m, n);
        let mask = if dirs.is_empty() {
            ALL_SLOTS
        } else {
            let mut mask = 0;
            for tok in dirs {
                mask |= token_mask(tok, shape).map_err(|msg| (tok.pos, msg))?;
            }
            mask
        };
        for slot in (0..SLOT_COUNT).filter(|&s| mask & bit(s) != 0) {
            let (dx, dy) = slot_vector(slot, m, n);
            let atom = Atom { dx, dy, ..template };
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
        assert_eq!(legs[0].mode, LegMode { moves: false, captures: true, hops: false });
        assert_eq!(legs[0].dirs, LegDirs::Absolute);
        assert_eq!(legs[1].text, "fR");
        assert_eq!(legs[1].dirs, LegDirs::Relative { straight: true, reverse: false, any: false });
        // A continuation leg lists every vector of the atom; `dirs` chooses among them.
        assert_eq!(legs[1].atoms.len(), 4);
        assert_eq!(legs[1].mode, LegMode { moves: true, captures: true, hops: false });
        assert!(legs.iter().all(|l| l.max_steps == 0));
        assert_eq!(g.atoms().count(), 0);
        assert_eq!(g.multi_leg().count(), 1);

        // Lion-style: K N A D and two multi-leg K components.
        let g = parse("KNADcaKmcabK").unwrap();
        assert_eq!(g.components.len(), 6);
        assert_eq!(g.multi_leg().count(), 2);
        assert_eq!(g.atoms().count(), 8 + 8 + 4 + 4);
        let legs = &g.components[5].legs;
        assert_eq!(legs[0].text, "mc");
        assert_eq!(legs[0].mode, LegMode { moves: true, captures: true, hops: false });
        assert_eq!(legs[1].text, "bK");
        assert_eq!(legs[1].dirs, LegDirs::Relative { straight: false, reverse: true, any: false });
        assert_eq!(legs[1].atoms.len(), 8);
        let legs = &g.components[4].legs;
        assert_eq!(legs[1].dirs, LegDirs::Relative { straight: false, reverse: false, any: true });

        // Joining the legs' texts with `a` gives the component back.
        for (text, component) in [("cafR", 0), ("KNADcaKmcabK", 4), ("KNADcaKmcabK", 5)] {
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
        assert!(g.components[0].legs.iter().all(|l| l.max_steps == 3 && l.atoms.iter().all(|a| a.max_steps == 3)));
    }

    #[test]
    fn leg_modes() {
        let modes = |text: &str| -> Vec<LegMode> {
            let g = parse(text).unwrap_or_else(|e| panic!("{e}"));
            g.components[0].legs.iter().map(|l| l.mode).collect()
        };
        let m = LegMode { moves: true, captures: false, hops: false };
        let c = LegMode { moves: false, captures: true, hops: false };
        let p = LegMode { moves: false, captures: false, hops: true };
        let mc = LegMode { moves: true, captures: true, hops: false };
        let mp = LegMode { moves: true, captures: false, hops: true };
        // Non-final legs default to `m`, the final leg to move-or-capture.
        assert_eq!(modes("aK"), [m, mc]);
        assert_eq!(modes("aaK"), [m, m, mc]);
        assert_eq!(modes("cafcafK"), [c, c, mc]);
        assert_eq!(modes("mpafcavK"), [mp, c, mc]);
        assert_eq!(modes("pafcR"), [p, c]);
        assert_eq!(modes("mcabK"), [mc, mc]);
        assert_eq!(modes("amK"), [m, m]);
        assert_eq!(modes("acK"), [m, c]);
        // `p` in a multi-leg component is a mode, shown on the leg's atoms as a hop.
        let g = parse("pafcR").unwrap();
        assert!(g.components[0].legs[0].atoms.iter().all(|a| a.jump == Jump::Hop));
        assert!(g.components[0].legs[1].atoms.iter().all(|a| a.jump == Jump::Free));
    }

    #[test]
    fn continuation_directions() {
        let dirs = |text: &str| parse(text).unwrap_or_else(|e| panic!("{e}")).components[0].legs[1].dirs;
        let rel = |straight, reverse, any| LegDirs::Relative { straight, reverse, any };
        assert_eq!(dirs("cafK"), rel(true, false, false));
        assert_eq!(dirs("cabK"), rel(false, true, false));
        assert_eq!(dirs("cavK"), rel(true, true, false));
        assert_eq!(dirs("cafbK"), rel(true, true, false));
        assert_eq!(dirs("caffK"), rel(true, false, false));
        assert_eq!(dirs("caK"), rel(false, false, true));
        // The first leg keeps absolute directions.
        let g = parse("fcavW").unwrap();
        assert_eq!(g.components[0].legs[0].atoms.iter().map(|a| (a.dx, a.dy)).collect::<Vec<_>>(), [(0, 1)]);
        let g = parse("fsafW").unwrap();
        assert_eq!(g.components[0].legs[0].atoms.len(), 3);
        assert_eq!(g.components[0].legs[1].dirs, rel(true, false, false));
    }

    #[test]
    fn range_toggle_and_skip() {
        let g = parse("QympacabQ").unwrap();
        assert_eq!(g.components.len(), 2);
        let legs = &g.components[1].legs;
        assert_eq!(legs.iter().map(|l| l.max_steps).collect::<Vec<_>>(), [0, 1, 1]);
        assert!(legs[0].range_toggle && !legs[1].range_toggle);
        assert!(legs[1].atoms.iter().all(|a| a.max_steps == 1));
        // A leaper toggles into an unlimited slider; a second `y` toggles back.
        let steps = |text: &str| -> Vec<u8> {
            parse(text).unwrap_or_else(|e| panic!("{e}")).components[0].legs.iter().map(|l| l.max_steps).collect()
        };
        assert_eq!(steps("yaK"), [1, 0]);
        assert_eq!(steps("yayaK"), [1, 0, 1]);
        assert_eq!(steps("yaaR4"), [4, 1, 1]);
        assert_eq!(steps("yayaR4"), [4, 1, 4]);

        // `j` makes a single-leg slide walk legs; `atoms()` leaves it out.
        let g = parse("jQcabK").unwrap();
        assert_eq!(g.components.len(), 2);
        assert!(g.components[0].walks_legs());
        assert!(g.components[0].legs[0].skip_first);
        assert_eq!(g.components[0].legs[0].atoms.len(), 8);
        assert_eq!(g.components[0].legs[0].mode, LegMode { moves: true, captures: true, hops: false });
        assert_eq!(g.atoms().count(), 0);
        assert_eq!(g.multi_leg().count(), 2);
        let g = parse("jmR4").unwrap();
        assert_eq!(g.components[0].legs[0].max_steps, 4);
        assert_eq!(g.components[0].legs[0].mode, LegMode { moves: true, captures: false, hops: false });
    }

    #[test]
    fn groups_expand_into_components() {
        let texts = |text: &str| -> Vec<String> {
            let g = parse(text).unwrap_or_else(|e| panic!("{e}"));
            g.components.iter().map(|c| c.legs.iter().map(|l| l.text.as_str()).collect::<Vec<_>>().join("a")).collect()
        };
        assert_eq!(texts("(paf)2cB"), ["cB", "pafcB", "pafpafcB"]);
        assert_eq!(texts("(a)2K"), ["K", "aK", "aaK"]);
        assert_eq!(texts("(a)2mpacabK"), ["mpacabK", "ampacabK", "aampacabK"]);
        assert_eq!(texts("(paf)2cBmcB(a)2KmabK"), ["cB", "pafcB", "pafpafcB", "mcB", "K", "aK", "aaK", "mabK"]);
        assert_eq!(texts("R3(paf)2cBmcB")[..2], ["R3", "cB"]);
        assert_eq!(texts("m(a)1K"), ["mK", "maK"]);
        assert_eq!(texts("(a)1(ca)1K"), ["K", "caK", "aK", "acaK"]);
        // `(` and a digit is still a leaper.
        assert_eq!(texts("(a)1(2,1)"), ["(2,1)", "a(2,1)"]);
        // The expanded components equal the spelt-out ones.
        let g = parse("(paf)2cB").unwrap();
        let h = parse("cBpafcBpafpafcB").unwrap();
        assert_eq!(g, h);
        assert_eq!(g.atoms().count(), 4);
        assert_eq!(g.multi_leg().count(), 2);
    }

    #[test]
    fn leg_and_group_errors() {
        // Groups.
        assert_err("(paf)cB", 5, "needs a repeat count 1..=9");
        assert_err("(a)0K", 3, "repeat count must be 1..=9");
        assert_err("(a)12K", 3, "repeat count must be 1..=9");
        assert_err("((a)2)2K", 1, "groups do not nest");
        assert_err("(a(2,1))2K", 2, "groups do not nest");
        assert_err("(aK)2K", 2, "group holds only modifiers and 'a', not 'K'");
        assert_err("(f)2K", 0, "holds no 'a'");
        assert_err("(a)2", 0, "a group must be followed by the rest of its component");
        assert_err("K(a)2", 1, "a group must be followed");
        assert_err("(a", 0, "without a closing ')'");
        assert_err("(a)2 K", 4, "whitespace");
        assert_err("(az)2K", 2, "unsupported XBetza modifier 'z'");
        assert_err("(a)9(a)9(a)1K", 8, "more than 100 components");
        // Continuation directions.
        assert_err("mafsW", 2, "direction 'fs' on a continuation leg");
        assert_err("casK", 2, "direction 's' on a continuation leg");
        assert_err("calK", 2, "direction 'l' on a continuation leg");
        assert_err("cafrK", 2, "direction 'fr' on a continuation leg");
        assert_err("cafhN", 2, "direction 'fh' on a continuation leg");
        // Modifiers a leg does not take.
        assert_err("gafK", 0, "'g' is not supported in a multi-leg component");
        assert_err("nafK", 0, "'n' is not supported in a multi-leg component");
        assert_err("iafK", 0, "'i' is not supported in a multi-leg component");
        assert_err("eafK", 0, "'e' is not supported in a multi-leg component");
        assert_err("cagK", 2, "'g' is not supported");
        assert_err("capR", 2, "'p' on the final leg");
        assert_err("mayR", 2, "the final leg has none");
        assert_err("yR", 0, "this component has one leg");
        assert_err("jK", 0, "'j' skips the first square of a slide");
        assert_err("jaK", 0, "'j' skips the first square of a slide");
        assert_err("yajR", 2, "'j' skips the first square of a slide");
        assert_err("jpR", 0, "'j' cannot be combined with 'p'");
        assert_err("ijR", 1, "'j' cannot be combined with 'i'");
        // Positions point into the original text, past an expanded group.
        assert_err("(paf)2gafK", 6, "'g' is not supported");
        assert_err("(cag)1cB", 3, "'g' is not supported");
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
        assert_err("oR", 0, "unsupported XBetza modifier 'o'");
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
        assert_err("K(fW)", 3, "group holds only modifiers");
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
        let alphabet: Vec<char> = "WNKRQfblrvshmceapgniyj()0,3a X-é".chars().collect();
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
