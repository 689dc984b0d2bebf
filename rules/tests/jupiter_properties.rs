//! Property tests of the rules engine on random Jupiter positions (jupiter.md; the whole
//! `configs/variants/jupiter.toml`, all 161 types): make/unmake, incremental hashing against
//! re-parsed position strings, move text round trips (doubled turns included), the results of
//! §7, Tan as Blue turned by 180° (moves and perft), the setup masks, the mirror's refusal of
//! asymmetric armies, and an allocation-free Jupiter perft.
//!
//! Positions come from seeded random play (from the canonical array, from the setup phase and
//! from random `setup:<hex>` arrays) and from random sparse positions that put pieces of all 161
//! types on random squares, with the turn-procedure pieces (Doubler, Poisoner, Deadly
//! Nightshade, Kamikaze, tanks, Come Here, Go Away, Tribble, relays, Immobilizer, Fiery Dragon)
//! drawn more often. Every check names the source, the seed, the ply and the position string, so
//! a failure can be replayed. The tests count the moves of each Jupiter kind they exercised and
//! require each count to be positive, so they cannot pass on positions that miss the turn
//! procedure.

// Counting allocations needs a `GlobalAlloc`, whose trait is unsafe to implement; it only
// forwards to `System` (support/counting_alloc.rs, shared with rules/tests/allocations.rs).
#![allow(unsafe_code)]

use std::{
    collections::{BTreeSet, HashMap, HashSet},
    path::PathBuf,
    sync::{Arc, OnceLock},
};

use fairyzero_rules::{Color, Move, MoveKind, MoveList, Piece, PieceType, Position, Square, Variant};
use rand::{rngs::StdRng, seq::SliceRandom, Rng, SeedableRng};

// ---------------------------------------------------------------------------------------------
// The variant and its positions
// ---------------------------------------------------------------------------------------------

fn jupiter() -> Arc<Variant> {
    static JUPITER: OnceLock<Arc<Variant>> = OnceLock::new();
    let v = JUPITER.get_or_init(|| {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../configs/variants/jupiter.toml");
        Variant::load(&path.display().to_string()).unwrap_or_else(|e| panic!("jupiter.toml does not load: {e}"))
    });
    assert_eq!(v.piece_count(), 161, "Jupiter has 161 piece types (§3.1)");
    Arc::clone(v)
}

fn kind(v: &Variant, token: &str) -> PieceType {
    v.piece_by_token(token).unwrap_or_else(|| panic!("jupiter.toml has no piece {token}"))
}

/// The pieces of the turn procedure and of the other Jupiter-only actions, drawn half of the
/// time by the sparse generator: Doubler, Poisoner, Deadly Nightshade, Kamikaze, Ox and Dragon
/// Tanks, Come Here, Go Away, Tribble, the relays (Relay Wazir/Firzan, Zoom, Dervish, Harpy),
/// the Teleporter, Immobilizer, Fiery Dragon, Communist, Cuckoo.
const FEATURED: &[&str] = &[
    "DBL", "PSN", "DNI", "KAM", "OXT", "DRT", "CMH", "GOA", "TRB", "RLW", "RLF", "ZOO", "DER", "HA", "TLP", "IM",
    "FID", "CO", "COO",
];

/// The royal the sparse positions always hold, one per side.
const KING: &str = "K";

/// The Fiery Dragon: nothing may start next to a hostile one (it would have burned already).
const FIERY_DRAGON: &str = "FID";

/// A random sparse position: each side's King, and 1 to 13 (one time in four, 1 to 40) more
/// pieces per side of random types (any of the 161, half of the draws from [`FEATURED`]) on
/// random squares, none next to a hostile Fiery Dragon; either side to move. Returns the
/// position string.
fn sparse_fen(v: &Variant, rng: &mut StdRng) -> String {
    let d = v.dims;
    let fid = kind(v, FIERY_DRAGON);
    let featured: Vec<PieceType> = FEATURED.iter().map(|t| kind(v, t)).collect();
    let mut board: Vec<Option<Piece>> = vec![None; d.squares()];
    let next_to_hostile = |board: &[Option<Piece>], sq: Square, piece: Piece| {
        let (f, r) = (d.file(sq), d.rank(sq));
        (-1..=1).any(|df| {
            (-1..=1).any(|dr| {
                d.square(f + df, r + dr)
                    .and_then(|n| board[n.index()])
                    .is_some_and(|other| other.color() != piece.color() && (other.kind() == fid || piece.kind() == fid))
            })
        })
    };
    let place = |board: &mut Vec<Option<Piece>>, piece: Piece, rng: &mut StdRng| {
        for _ in 0..1000 {
            let sq = Square(rng.gen_range(0..d.squares()) as u16);
            if board[sq.index()].is_none() && !next_to_hostile(board, sq, piece) {
                board[sq.index()] = Some(piece);
                return;
            }
        }
        panic!("no free square for {piece:?}");
    };
    for color in Color::BOTH {
        place(&mut board, Piece::new(kind(v, KING), color), rng);
    }
    // One position in four is crowded, so that actions meet (burning and poison after pushes,
    // relays next to Doublers, tanks shoving lines).
    let most = if rng.gen_bool(0.25) { 40 } else { 13 };
    for color in Color::BOTH {
        for _ in 0..rng.gen_range(1..=most) {
            let t = if rng.gen_bool(0.5) {
                *featured.choose(rng).unwrap()
            } else {
                PieceType(rng.gen_range(0..v.piece_count()) as u8)
            };
            place(&mut board, Piece::new(t, color), rng);
        }
    }
    board_fen(v, &board, if rng.gen_bool(0.5) { Color::Blue } else { Color::Tan })
}

/// A position string from a board (rank 16 first).
fn board_fen(v: &Variant, board: &[Option<Piece>], side: Color) -> String {
    let d = v.dims;
    let mut s = String::new();
    for rank in (0..d.height as i32).rev() {
        let mut empty = 0;
        for file in 0..d.width as i32 {
            match board[d.square(file, rank).unwrap().index()] {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        s.push_str(&empty.to_string());
                        empty = 0;
                    }
                    s.push_str(&v.piece_token(p));
                }
            }
        }
        if empty > 0 {
            s.push_str(&empty.to_string());
        }
        if rank > 0 {
            s.push('/');
        }
    }
    s.push_str(if side == Color::Blue { " w" } else { " b" });
    s
}

/// The bits a `setup:<hex>` mask may set: one per setup ply, bit 7 (the fixed Regal pair, ruling
/// §2.3.4) skipped, so the 37 plies read bits 0-6 and 8-37.
const MASK_BITS: u64 = ((1 << 38) - 1) & !(1 << 7);

/// Where a visited position came from, for failure messages.
#[derive(Clone, Copy, Debug)]
enum Source {
    /// Random play from `Position::start` (the canonical array, setup mask 0).
    Start,
    /// Random play from the beginning of the setup phase.
    SetupPhase,
    /// Random play from the array of a random `setup:<hex>` mask.
    Mask(u64),
    /// Random play from a random sparse position.
    Sparse,
}

#[derive(Clone, Copy)]
struct Ctx {
    source: Source,
    seed: u64,
    game: usize,
    ply: usize,
}

impl std::fmt::Display for Ctx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let source = match self.source {
            Source::Mask(mask) => format!("setup:{mask:x}"),
            other => format!("{other:?}"),
        };
        write!(f, "[jupiter {source} seed {:#x} game {} ply {}]", self.seed, self.game, self.ply)
    }
}

/// Picks a move: a Jupiter action kind if `rng` says so and there is one, a capture half of the
/// time, otherwise uniformly; so that games reach doubled turns, pushes and promotions.
fn pick(pos: &Position, legal: &[Move], rng: &mut StdRng) -> Move {
    if rng.gen_bool(0.3) {
        let special: Vec<Move> = legal.iter().copied().filter(|m| m.is_doubled() || jupiter_kind(m.kind)).collect();
        if let Some(m) = special.choose(rng) {
            return *m;
        }
    }
    if rng.gen_bool(0.5) {
        let captures: Vec<Move> = legal.iter().copied().filter(|m| pos.is_capture(m)).collect();
        if let Some(m) = captures.choose(rng) {
            return *m;
        }
    }
    *legal.choose(rng).expect("pick() needs a legal move")
}

fn jupiter_kind(kind: MoveKind) -> bool {
    matches!(kind, MoveKind::Push | MoveKind::Pull | MoveKind::Reproduce | MoveKind::Shove)
}

/// `JUPITER_PROPERTY_SCALE` times as many games (1 if unset): a longer hunt for bugs, by hand.
fn scale() -> usize {
    std::env::var("JUPITER_PROPERTY_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1)
}

/// The kinds of start a walk draws from.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Start {
    /// The canonical array, the setup phase and random `setup:<hex>` arrays, in turn.
    Arrays,
    /// Random sparse positions.
    Sparse,
}

/// Seeded random games: `games` games from `start`, each of at most `plies` plies, calling
/// `visit` on every position reached with its legal moves. `visit` must leave the position as it
/// found it; this is checked.
fn walk(start: Start, games: usize, plies: usize, seed: u64, mut visit: impl FnMut(&Ctx, &mut Position, &[Move])) {
    let v = jupiter();
    let games = games * scale();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut legal = MoveList::new();
    let mut sparse_refused = Vec::new();
    for game in 0..games {
        let (source, mut pos) = match (start, game % 3) {
            (Start::Arrays, 0) => (Source::Start, Position::start(Arc::clone(&v))),
            (Start::Arrays, 1) => {
                (Source::SetupPhase, Position::setup_start(Arc::clone(&v)).expect("Jupiter has a setup phase"))
            }
            (Start::Arrays, _) => {
                let mask = rng.gen::<u64>() & MASK_BITS;
                let text = format!("setup:{mask:x}");
                let pos = Position::from_setup_text(Arc::clone(&v), &text).unwrap_or_else(|e| panic!("{text}: {e}"));
                (Source::Mask(mask), pos)
            }
            (Start::Sparse, _) => {
                let fen = sparse_fen(&v, &mut rng);
                match Position::from_fen(Arc::clone(&v), &fen) {
                    Ok(pos) => (Source::Sparse, pos),
                    Err(e) => {
                        sparse_refused.push(format!("{fen}: {e}"));
                        continue;
                    }
                }
            }
        };
        for ply in 0..=plies {
            let ctx = Ctx { source, seed, game, ply };
            pos.legal_moves(&mut legal);
            let (hash, fen) = (pos.hash(), pos.to_fen());
            visit(&ctx, &mut pos, &legal);
            assert_eq!(pos.hash(), hash, "{ctx} the visitor changed the position {fen}");
            assert_eq!(pos.to_fen(), fen, "{ctx} the visitor changed the position");
            if legal.is_empty() || pos.outcome_with(&legal).is_some() || ply == plies {
                break;
            }
            let m = pick(&pos, &legal, &mut rng);
            pos.make(m);
        }
    }
    // A sparse position is refused only for a reason the generator should have avoided.
    assert!(sparse_refused.len() * 10 <= games, "sparse positions refused: {sparse_refused:#?}");
}

/// A move's text and fields, for failure messages.
fn describe(pos: &Position, m: &Move) -> String {
    format!("{} ({})", pos.move_to_string(m), fields(pos, m))
}

/// A move's fields in square names (the `Debug` form lists all 30 capture slots).
fn fields(pos: &Position, m: &Move) -> String {
    let d = pos.variant().dims;
    let name = |s: Square| if s.is_none() { "-".to_string() } else { d.square_name(s) };
    let action = |a: Move| {
        let captures: Vec<String> = a.captures().iter().map(|&s| name(s)).collect();
        format!(
            "{:?} {}-{} piece {:?} aux {} removes {captures:?}",
            a.kind,
            name(a.from),
            name(a.to),
            a.piece,
            name(a.aux)
        )
    };
    match m.second_action() {
        Some(second) => format!("{} then {}", action(m.first_action()), action(second)),
        None => action(*m),
    }
}

// ---------------------------------------------------------------------------------------------
// Coverage: what the checked moves exercised
// ---------------------------------------------------------------------------------------------

/// Moves of each Jupiter form among those checked (an action of a doubled turn counts for its
/// kind too), and turns in which the turn procedure removed a piece of the mover (poison,
/// burning, a Kamikaze's death).
#[derive(Default, Debug)]
struct Coverage {
    moves: u64,
    doubled: u64,
    pushes: u64,
    pulls: u64,
    reproductions: u64,
    shoves: u64,
    mover_lost_pieces: u64,
    /// Moves listed twice by `legal_moves` (a move is one entry: jupiter.md §9.2), with the
    /// first few positions where it happened.
    duplicates: u64,
    duplicate_examples: Vec<String>,
}

impl Coverage {
    /// Records the moves that `legal` lists more than once.
    fn note_duplicates(&mut self, ctx: &Ctx, pos: &Position, legal: &[Move]) {
        let mut seen = HashSet::with_capacity(legal.len());
        for m in legal {
            if !seen.insert(*m) {
                self.duplicates += 1;
                if self.duplicate_examples.len() < 4 {
                    self.duplicate_examples.push(format!(
                        "{ctx} {} listed twice in {}",
                        pos.move_to_string(m),
                        pos.to_fen()
                    ));
                }
            }
        }
    }

    fn count(&mut self, m: &Move) {
        self.moves += 1;
        self.doubled += m.is_doubled() as u64;
        for action in [Some(m.first_action()), m.second_action()].into_iter().flatten() {
            match action.kind {
                MoveKind::Push => self.pushes += 1,
                MoveKind::Pull => self.pulls += 1,
                MoveKind::Reproduce => self.reproductions += 1,
                MoveKind::Shove => self.shoves += 1,
                _ => {}
            }
        }
    }

    /// Every Jupiter form was exercised (the turn procedure has landed: doubled turns,
    /// push, pull, reproduction, tank shoves), and, where the test made the moves (`made`), the
    /// penalties of §5.4-§5.5 too.
    fn assert_complete(&self, what: &str, made: bool) {
        eprintln!("{what}: {self:?}");
        let counts = [
            ("doubled turns", self.doubled),
            ("pushes", self.pushes),
            ("pulls", self.pulls),
            ("reproductions", self.reproductions),
            ("shoves", self.shoves),
            ("turns where the mover lost a piece", if made { self.mover_lost_pieces } else { 1 }),
        ];
        for (name, n) in counts {
            assert!(n > 0, "{what}: no {name} were exercised: {self:?}");
        }
        self.assert_no_duplicates(what);
    }

    fn assert_no_duplicates(&self, what: &str) {
        assert_eq!(self.duplicates, 0, "{what}: legal moves listed twice: {:#?}", self.duplicate_examples);
    }
}

// ---------------------------------------------------------------------------------------------
// 1. make / unmake and hashing
// ---------------------------------------------------------------------------------------------

/// Every observable part of a position's state. Royal squares are not public: the squares
/// holding royal pieces (from the board) and the check status of both sides (which reads the
/// tracked royal squares) stand for them.
#[derive(PartialEq, Debug)]
struct Snapshot {
    fen: String,
    hash: u64,
    board: Vec<Option<Piece>>,
    counts: Vec<u16>,
    occupied: [Vec<Square>; 2],
    royal_squares: BTreeSet<Square>,
    in_check: [bool; 2],
    side: Color,
    ply: u32,
    halfmove: u32,
    repetitions: usize,
    played: usize,
    setup_ply: Option<usize>,
}

fn snapshot(pos: &Position) -> Snapshot {
    let v = pos.variant();
    Snapshot {
        fen: pos.to_fen(),
        hash: pos.hash(),
        board: pos.board().to_vec(),
        counts: pos.piece_counts().to_vec(),
        occupied: [pos.occupied(Color::Blue).iter().collect(), pos.occupied(Color::Tan).iter().collect()],
        royal_squares: (0..pos.board().len())
            .map(|i| Square(i as u16))
            .filter(|&s| pos.piece_at(s).is_some_and(|p| v.piece_def(p.kind()).royal))
            .collect(),
        in_check: [pos.in_check(Color::Blue), pos.in_check(Color::Tan)],
        side: pos.side_to_move(),
        ply: pos.ply(),
        halfmove: pos.halfmove_clock(),
        repetitions: pos.repetitions(),
        played: pos.moves_played().count(),
        setup_ply: pos.setup_ply_index(),
    }
}

/// Counts and occupancy agree with the board.
fn check_derived(ctx: &Ctx, pos: &Position, when: &str) {
    let v = pos.variant();
    let mut counts = vec![0u16; v.piece_count() * 2];
    let mut occupied: [Vec<Square>; 2] = [Vec::new(), Vec::new()];
    for (i, p) in pos.board().iter().enumerate() {
        if let Some(p) = p {
            counts[p.index()] += 1;
            occupied[p.color().index()].push(Square(i as u16));
        }
    }
    assert_eq!(pos.piece_counts(), &counts[..], "{ctx} {when}: piece counts disagree with the board {}", pos.to_fen());
    for c in Color::BOTH {
        let set: Vec<Square> = pos.occupied(c).iter().collect();
        assert_eq!(set, occupied[c.index()], "{ctx} {when}: {c:?} occupancy disagrees with {}", pos.to_fen());
    }
}

/// §7.2-§7.3 after a turn of `mover`: a side loses with no royal piece (L1) or one piece left
/// (L2); if the mover's opponent has lost, the mover wins, even if it has lost too.
fn check_result_after(ctx: &Ctx, pos: &Position, mover: Color, what: &dyn Fn() -> String) {
    if pos.in_setup() {
        return;
    }
    let v = pos.variant();
    let lost = |c: Color| {
        let pieces: Vec<Piece> = pos.occupied(c).iter().filter_map(|s| pos.piece_at(s)).collect();
        pieces.len() <= 1 || !pieces.iter().any(|p| v.piece_def(p.kind()).royal)
    };
    let expected = if lost(mover.other()) {
        Some(mover)
    } else if lost(mover) {
        Some(mover.other())
    } else {
        None
    };
    let got = pos.immediate_outcome();
    assert_eq!(
        got.map(|o| o.winner()),
        expected.map(Some),
        "{ctx} result after {} ({got:?}) in {}",
        what(),
        pos.to_fen()
    );
}

/// L3: the side to move without a legal move in an undecided position loses (stalemate, or
/// every move a third repetition); a decided position (L1, L2) has no legal move.
fn check_game_end(ctx: &Ctx, pos: &Position, legal: &[Move]) {
    if pos.in_setup() {
        return;
    }
    let fen = pos.to_fen();
    let outcome = pos.outcome_with(legal);
    if let Some(o) = pos.immediate_outcome() {
        assert!(legal.is_empty(), "{ctx} decided ({o:?}) but {} legal moves in {fen}", legal.len());
        assert_eq!(outcome, Some(o), "{ctx} {fen}");
    } else if legal.is_empty() {
        let loser = pos.side_to_move();
        assert!(
            outcome.is_some_and(|o| o.winner() == Some(loser.other())),
            "{ctx} no legal move for {loser:?} but {outcome:?} in {fen}"
        );
    } else {
        assert_eq!(outcome, None, "{ctx} legal moves but the game is over in {fen}");
    }
}

/// Makes and unmakes every legal move: the hash after make is the hash of the position re-read
/// from its string (outside the setup phase, whose progress a position string cannot hold), and
/// unmake restores every part of the state.
fn check_make_unmake(ctx: &Ctx, pos: &mut Position, legal: &[Move], cov: &mut Coverage) {
    cov.note_duplicates(ctx, pos, legal);
    let v = Arc::clone(pos.variant());
    assert_eq!(pos.hash(), pos.compute_hash(), "{ctx} incremental hash is stale in {}", pos.to_fen());
    check_derived(ctx, pos, "before make");
    check_game_end(ctx, pos, legal);
    let before = snapshot(pos);
    let copy = pos.clone();
    // Next to Doublers a position has thousands of plain doubled steps: those are sampled (at
    // most about 300 per position), every other move is checked.
    let stride = (legal.len() / 300).max(1);
    let plain = |m: &Move| {
        [Some(m.first_action()), m.second_action()]
            .into_iter()
            .flatten()
            .all(|a| a.kind == MoveKind::Normal && a.captures().is_empty())
    };
    for m in legal.iter().enumerate().filter(|(i, m)| i % stride == 0 || !plain(m)).map(|(_, m)| m) {
        let mover = pos.side_to_move();
        let mover_pieces = pos.occupied(mover).len();
        pos.make(*m);
        cov.count(m);
        let after_fen = pos.to_fen();
        assert_eq!(
            pos.hash(),
            pos.compute_hash(),
            "{ctx} after make({}) from {}: incremental hash differs from compute_hash",
            describe(&copy, m),
            before.fen
        );
        if m.kind != MoveKind::Setup {
            assert_eq!(pos.side_to_move(), mover.other(), "{ctx} make({}) did not pass the turn", describe(&copy, m));
        }
        assert_eq!(pos.ply(), before.ply + 1, "{ctx} make() did not count the ply");
        assert_eq!(pos.moves_played().last(), Some(*m), "{ctx} make() did not record the move");
        check_derived(ctx, pos, "after make");
        if !pos.in_setup() {
            let reparsed = Position::from_fen(Arc::clone(&v), &after_fen).unwrap_or_else(|e| {
                panic!("{ctx} after make({}) from {}: {after_fen} does not parse: {e}", describe(&copy, m), before.fen)
            });
            assert_eq!(reparsed.to_fen(), after_fen, "{ctx} to_fen/from_fen/to_fen after {}", describe(&copy, m));
            assert_eq!(
                reparsed.hash(),
                pos.hash(),
                "{ctx} after make({}) from {}: the incremental hash differs from that of the re-read {after_fen}",
                describe(&copy, m),
                before.fen
            );
            assert_eq!(reparsed.board(), pos.board(), "{ctx} {after_fen}");
            assert_eq!(reparsed.piece_counts(), pos.piece_counts(), "{ctx} {after_fen}");
            let royals_made = snapshot(pos);
            let royals_read = snapshot(&reparsed);
            assert_eq!(
                (royals_made.royal_squares, royals_made.in_check),
                (royals_read.royal_squares, royals_read.in_check),
                "{ctx} royal squares or check status after make({}) vs re-read {after_fen}",
                describe(&copy, m)
            );
        }
        check_result_after(ctx, pos, mover, &|| describe(&copy, m));
        // The turn procedure's penalties: poison, burning, a Kamikaze's death (and not a
        // reproduction, which adds a piece; nor a self-capture, which is the move itself).
        let own_loss = pos.occupied(mover).len() < mover_pieces;
        if own_loss && m.kind != MoveKind::SelfCapture && !m.is_doubled() && m.kind != MoveKind::Shove {
            cov.mover_lost_pieces += 1;
        }
        pos.unmake();
        assert_eq!(
            pos.hash(),
            pos.compute_hash(),
            "{ctx} after make/unmake of {} in {}: incremental hash differs from compute_hash",
            describe(&copy, m),
            before.fen
        );
        let restored = snapshot(pos);
        assert_eq!(restored, before, "{ctx} make/unmake of {} did not restore", describe(&copy, m));
        assert!(*pos == copy, "{ctx} make/unmake of {} broke Position equality", describe(&copy, m));
    }
    // Several turns deep and back again.
    let mut scratch = MoveList::new();
    let mut made = 0;
    for i in 0..legal.len().min(3) {
        pos.legal_moves(&mut scratch);
        if scratch.is_empty() {
            break;
        }
        pos.make(scratch[(i * 7) % scratch.len()]);
        made += 1;
        assert_eq!(pos.hash(), pos.compute_hash(), "{ctx} hash stale at depth {made} from {}", before.fen);
    }
    for _ in 0..made {
        pos.unmake();
    }
    assert_eq!(snapshot(pos), before, "{ctx} multi-turn make/unmake did not restore");
}

#[test]
fn make_unmake_and_hash_on_random_play_from_the_arrays() {
    let mut cov = Coverage::default();
    walk(Start::Arrays, 6, 40, 0x1_0001, |ctx, pos, legal| {
        if ctx.ply % 4 == 0 {
            check_make_unmake(ctx, pos, legal, &mut cov)
        }
    });
    eprintln!("arrays: {cov:?}");
    cov.assert_no_duplicates("arrays make/unmake");
    assert!(cov.moves > 2_000, "only {} moves were checked", cov.moves);
}

#[test]
fn make_unmake_and_hash_on_random_sparse_positions() {
    let mut cov = Coverage::default();
    walk(Start::Sparse, 25, 10, 0x1_0002, |ctx, pos, legal| check_make_unmake(ctx, pos, legal, &mut cov));
    cov.assert_complete("sparse make/unmake", true);
}

// ---------------------------------------------------------------------------------------------
// 2. move text
// ---------------------------------------------------------------------------------------------

/// Every legal move prints to a text that reads back as the same move, and no two print alike;
/// a doubled turn prints as its two actions joined by `,` (jupiter.md §9.2).
///
/// `parse_move` generates the legal moves and prints each until one matches, so calling it for
/// every move costs the square of their number (thousands of doubled turns next to a Doubler).
/// Every text is instead read by `find_move` against its own move alone (it parses the text and
/// compares it with the move's printing) and, since no two legal moves print alike, that is what
/// `parse_move` answers; `parse_move` itself reads a sample of each position's moves, doubled
/// turns included.
fn check_move_text(ctx: &Ctx, pos: &mut Position, legal: &[Move], cov: &mut Coverage) {
    cov.note_duplicates(ctx, pos, legal);
    check_reread(ctx, pos, legal);
    let fen = pos.to_fen();
    let mut seen: HashMap<String, Move> = HashMap::with_capacity(legal.len());
    for m in legal {
        let text = pos.move_to_string(m);
        assert!(
            !text.is_empty() && !text.contains(' '),
            "{ctx} unusable move text {text:?} for {} in {fen}",
            fields(pos, m)
        );
        assert_eq!(
            text.contains(','),
            m.is_doubled(),
            "{ctx} {text:?} ({}): a doubled turn has a ',' in {fen}",
            fields(pos, m)
        );
        assert_eq!(
            pos.find_move(&text, std::slice::from_ref(m)),
            Ok(Some(*m)),
            "{ctx} {text:?} does not read back as {} in {fen}",
            fields(pos, m)
        );
        if let Some(other) = seen.insert(text.clone(), *m) {
            if other != *m {
                panic!(
                    "{ctx} legal moves {} and {} both print as {text:?} in {fen}",
                    fields(pos, m),
                    fields(pos, &other)
                );
            }
        }
        cov.count(m);
    }
    let singles = legal.iter().filter(|m| !m.is_doubled());
    let doubled = legal.iter().filter(|m| m.is_doubled());
    let step = |n: usize| (n / 3).max(1);
    let n_single = legal.len() - cov_doubled(legal);
    let sample: Vec<Move> = singles
        .step_by(step(n_single))
        .take(3)
        .chain(doubled.step_by(step(cov_doubled(legal))).take(3))
        .copied()
        .collect();
    for m in sample {
        let text = pos.move_to_string(&m);
        assert_eq!(pos.parse_move(&text), Ok(m), "{ctx} parse_move({text:?}) in {fen}");
    }
    assert!(pos.parse_move("").is_err(), "{ctx} the empty move was accepted");
}

/// The position re-read from its string is the same position: board, side, hash, and moves.
/// Its legal moves include those of the played position: a move that would repeat a position a
/// third time (§8) is illegal only with the history, which a position string does not hold.
fn check_reread(ctx: &Ctx, pos: &mut Position, legal: &[Move]) {
    if pos.in_setup() {
        return; // a position string cannot hold the setup phase's progress
    }
    let fen = pos.to_fen();
    let mut q = Position::from_fen(Arc::clone(pos.variant()), &fen)
        .unwrap_or_else(|e| panic!("{ctx} to_fen() output {fen} does not parse back: {e}"));
    assert_eq!(q.to_fen(), fen, "{ctx} to_fen/from_fen/to_fen changed the string");
    assert_eq!(q.hash(), pos.hash(), "{ctx} the re-read {fen} has another hash");
    assert_eq!(q.board(), pos.board(), "{ctx} {fen}");
    assert_eq!(q.side_to_move(), pos.side_to_move(), "{ctx} {fen}");
    let pseudo = |p: &Position| {
        let mut l = MoveList::new();
        p.pseudo_legal_moves(&mut l);
        l.into_iter().collect::<HashSet<Move>>()
    };
    assert!(pseudo(pos) == pseudo(&q), "{ctx} pseudo-legal moves differ after re-reading {fen}");
    let mut reread = MoveList::new();
    q.legal_moves(&mut reread);
    let reread: HashSet<Move> = reread.into_iter().collect();
    if let Some(m) = legal.iter().find(|m| !reread.contains(m)) {
        panic!("{ctx} {} is legal in the game but not in the re-read {fen}", describe(pos, m));
    }
    if pos.repetitions() == 0 && pos.moves_played().count() == 0 {
        assert_eq!(reread.len(), legal.iter().collect::<HashSet<_>>().len(), "{ctx} {fen}");
    }
}

fn cov_doubled(legal: &[Move]) -> usize {
    legal.iter().filter(|m| m.is_doubled()).count()
}

#[test]
fn move_text_round_trips_on_random_play_from_the_arrays() {
    let mut cov = Coverage::default();
    walk(Start::Arrays, 6, 40, 0x2_0001, |ctx, pos, legal| check_move_text(ctx, pos, legal, &mut cov));
    eprintln!("arrays: {cov:?}");
    cov.assert_no_duplicates("arrays move text");
    assert!(cov.moves > 10_000, "only {} move texts were checked", cov.moves);
}

#[test]
fn move_text_round_trips_on_random_sparse_positions() {
    let mut cov = Coverage::default();
    walk(Start::Sparse, 60, 10, 0x2_0002, |ctx, pos, legal| check_move_text(ctx, pos, legal, &mut cov));
    cov.assert_complete("sparse move text", false);
}

// ---------------------------------------------------------------------------------------------
// 2b. rotation with colour swap
// ---------------------------------------------------------------------------------------------

/// An action with every square mapped by `f`.
fn map_action(a: Move, f: impl Fn(Square) -> Square) -> Move {
    let g = |s: Square| if s.is_none() { s } else { f(s) };
    let mut out = Move::normal(g(a.from), g(a.to)).with_kind(a.kind).with_piece(a.piece).with_aux(g(a.aux));
    for &c in a.captures() {
        out.add_capture(g(c));
    }
    out
}

/// The board after each doubled turn of `list`, mapped square by square by `f` (colours swapped
/// if `swap`), as a position string, with the turn's text: doubled turns compared by their
/// combined effect.
fn doubled_effects(
    pos: &mut Position,
    list: &[Move],
    f: impl Fn(Square) -> Square,
    swap: bool,
) -> Vec<(String, String)> {
    let v = Arc::clone(pos.variant());
    let unique: HashSet<Move> = list.iter().filter(|m| m.is_doubled()).copied().collect();
    let mut effects: Vec<(String, String)> = unique
        .iter()
        .map(|m| {
            let text = pos.move_to_string(m);
            pos.make(*m);
            let board: Vec<Option<Piece>> = (0..v.dims.squares())
                .map(|i| {
                    let p = pos.piece_at(f(Square(i as u16)));
                    if swap {
                        p.map(|p| Piece::new(p.kind(), p.color().other()))
                    } else {
                        p
                    }
                })
                .collect();
            pos.unmake();
            (board_fen(&v, &board, Color::Blue), text)
        })
        .collect();
    effects.sort();
    effects
}

/// The doubled turns of `pos` and of its image under `f` (colours swapped if `swap`) have the
/// same effects, one move per effect.
#[allow(clippy::too_many_arguments)]
fn assert_same_doubled_effects(
    what: &str,
    pos: &mut Position,
    legal: &[Move],
    f: impl Fn(Square) -> Square,
    swap: bool,
    image: &mut Position,
    theirs: &[Move],
) {
    let ours = doubled_effects(pos, legal, f, swap);
    let image_effects = doubled_effects(image, theirs, |s| s, false);
    let count = |list: &[(String, String)]| {
        let mut n: HashMap<String, Vec<String>> = HashMap::new();
        for (effect, text) in list {
            n.entry(effect.clone()).or_default().push(text.clone());
        }
        n
    };
    let (a, b) = (count(&ours), count(&image_effects));
    let mut differ: Vec<String> = Vec::new();
    for (effect, texts) in &a {
        let other = b.get(effect).cloned().unwrap_or_default();
        if other.len() != texts.len() {
            differ.push(format!("{texts:?} in {} vs {other:?} in {} (effect {effect})", pos.to_fen(), image.to_fen()));
        }
    }
    for (effect, texts) in &b {
        if !a.contains_key(effect) {
            differ.push(format!("[] in {} vs {texts:?} in {} (effect {effect})", pos.to_fen(), image.to_fen()));
        }
    }
    differ.sort();
    differ.truncate(6);
    assert!(differ.is_empty(), "{what}: doubled turns with other effects:\n{}", differ.join("\n"));
}

/// Tan's pieces are Blue's turned by 180° (jupiter.md §3.1: directions are owner-relative), so
/// the rotated position with colours swapped has the rotated moves: every single action maps to
/// one, and the doubled turns have the rotated effects (their routes are merged, and the route
/// kept may differ). This checks Tan's side of every asymmetric piece and power.
fn check_rotation(ctx: &Ctx, pos: &mut Position, legal: &[Move], cov: &mut Coverage) {
    if pos.in_setup() {
        return;
    }
    let v = Arc::clone(pos.variant());
    let d = v.dims;
    let rotated: Vec<Option<Piece>> = (0..d.squares())
        .map(|i| pos.piece_at(d.rotate(Square(i as u16))).map(|p| Piece::new(p.kind(), p.color().other())))
        .collect();
    let fen = pos.to_fen();
    let image_fen = board_fen(&v, &rotated, pos.side_to_move().other());
    let mut image = Position::from_fen(Arc::clone(&v), &image_fen).unwrap_or_else(|e| panic!("{ctx} {image_fen}: {e}"));
    let mut theirs = MoveList::new();
    image.legal_moves(&mut theirs);
    let rotate = |s: Square| d.rotate(s);
    // The one pass of a position (§9.2) names whichever passer the generator met first.
    let one_pass = |m: Move| if m.kind == MoveKind::Pass { Move::pass(Square::NONE) } else { m };
    let expected: HashSet<Move> =
        legal.iter().filter(|m| !m.is_doubled()).map(|m| one_pass(map_action(*m, rotate))).collect();
    let got: HashSet<Move> = theirs.iter().filter(|m| !m.is_doubled()).map(|m| one_pass(*m)).collect();
    if expected != got {
        // Only history makes moves illegal (a third repetition), and the image has none.
        let missing: Vec<String> = expected.difference(&got).map(|m| describe(&image, m)).collect();
        let extra: Vec<String> = got.difference(&expected).map(|m| describe(&image, m)).collect();
        if !missing.is_empty() || pos.repetitions() == 0 {
            panic!("{ctx} the rotated {image_fen} of {fen} has other moves:\nmissing {missing:#?}\nextra {extra:#?}");
        }
    }
    if pos.repetitions() == 0 {
        assert_same_doubled_effects(&format!("{ctx} rotation"), pos, legal, rotate, true, &mut image, &theirs);
    }
    assert_eq!(
        pos.immediate_outcome().map(|o| o.winner().map(|c| c.other())),
        image.immediate_outcome().map(|o| o.winner()),
        "{ctx} {fen} vs its rotation {image_fen}"
    );
    for m in legal {
        cov.count(m);
    }
}

#[test]
fn rotation_with_colour_swap_maps_the_moves_of_sparse_positions() {
    let mut cov = Coverage::default();
    walk(Start::Sparse, 40, 6, 0x2_1001, |ctx, pos, legal| check_rotation(ctx, pos, legal, &mut cov));
    cov.assert_complete("sparse rotation", false);
}

#[test]
fn rotation_with_colour_swap_maps_the_moves_of_played_arrays() {
    let mut cov = Coverage::default();
    walk(Start::Arrays, 6, 40, 0x2_1002, |ctx, pos, legal| check_rotation(ctx, pos, legal, &mut cov));
    eprintln!("rotation: {cov:?}");
    assert!(cov.moves > 10_000, "only {} moves were checked", cov.moves);
}

/// The middlegames of `tools/gen_jupiter_perft.py --print-fens` (every effect power, the
/// turn procedure's pieces, relays, multi-part movers).
const MIDDLEGAMES: [(&str, &str); 6] = [
    (
        "doubler and relays",
        "k15/1(co)14/16/7(dbl)8/4p6(psn)4/16/7(gu)8/2b1(NRT)6r4/5(HA)1R8/9n6/2N3W9/6(RLW)2(DER)6/3(RLF)3(DBL)8/2(ZOO)13/4(TLP)11/15K w",
    ),
    (
        "poison, fire and Kamikaze",
        "k15/16/1b14/4p11/1(KAM)1(dni)3(gu)4(kam)3/9(fid)6/16/10N5/1(PSN)11(psn)2/7Q8/5(DNI)10/12R3/3(FID)12/6(HU)6n2/16/15K w",
    ),
    (
        "tanks, magnets and Tribbles",
        "k14(co)/16/12(oxt)3/4(drt)7(gu)3/3r8p3/5p(hlm)9/2(TRB)6(cmh)6/3(goa)7(GOA)4/5(CMH)2W7/7P5(trb)2/7(HLM)8/3(GU)12/3P6N5/3(OXT)5(DRT)6/B15/15K b",
    ),
    (
        "automatic capturers",
        "k15/16/2(em)13/16/6(TY)9/16/3(wi)1(ROY)3(fl)6/2(WDR)3(li)b8/1(im)2n5r1(CST)3/(IM)3p4(SO)6/7(COO)8/4(INT)6(gu)1p2/10(NRT)5/1(LO)11(MI)2/7Q6(EM)1/15K w",
    ),
    (
        "bent and multi-part movers",
        "k15/14(hoo)1/4(bgn)2(qcn)3(rgn)4/1(hlm)14/2(kli)3(tih)3(tou)2(cro)2/9(gu)6/(BGN)4p9(RGN)/7p8/4(FAQ)6(TAL)4/1(EYE)12(YEW)1/3(CAP)8(GRH)3/6(TIH)2(KLI)6/2(BOY)10(GIR)2/5(TOU)1(QCN)2(CRO)5/1(HOO)4(CBO)1(BLN)5(HAW)1/15K b",
    ),
    (
        "immobilized doublers and relays",
        "k15/16/3(aem)6(dbl)5/16/2P4(fid)5w2/10(ha)5/12(der)3/9(TLP)N5/16/3(CH)1(im)10/4(RLW)11/16/4(DBL)1(FID)9/1(dbl)r13/1(IM)10(SUL)3/15K w",
    ),
];

/// Perft(2) of each middlegame equals that of its rotation with colours swapped: the whole
/// tree of two turns (doubled turns, relays, pushes, burning and poison after the first turn)
/// treats Tan as Blue turned by 180°.
#[test]
fn perft_of_the_middlegames_is_invariant_under_rotation_with_colour_swap() {
    let v = jupiter();
    let d = v.dims;
    for (name, fen) in MIDDLEGAMES {
        let mut pos = Position::from_fen(Arc::clone(&v), fen).unwrap_or_else(|e| panic!("{name}: {e}"));
        let rotated: Vec<Option<Piece>> = (0..d.squares())
            .map(|i| pos.piece_at(d.rotate(Square(i as u16))).map(|p| Piece::new(p.kind(), p.color().other())))
            .collect();
        let image_fen = board_fen(&v, &rotated, pos.side_to_move().other());
        let mut image = Position::from_fen(Arc::clone(&v), &image_fen).unwrap();
        let (a, b) = (fairyzero_rules::perft(&mut pos, 2), fairyzero_rules::perft(&mut image, 2));
        assert_eq!(a, b, "{name}: perft(2) of {fen} is {a}, of its rotation {image_fen} {b}");
    }
}

// ---------------------------------------------------------------------------------------------
// 3. setup masks
// ---------------------------------------------------------------------------------------------

/// `setup:<hex>` names the array of playing each setup ply with the member its bit chooses: mask
/// 0 is the canonical start, every array is the 180° rotation of itself with colours swapped
/// (§2.4: Tan's army is Blue's rotated), the setup plies stay in the history, and the bits no
/// ply reads (7, the fixed Regal pair; 38 and up) are refused.
#[test]
fn setup_masks_name_rotation_symmetric_arrays() {
    let v = jupiter();
    let d = v.dims;
    let start = Position::start(Arc::clone(&v));
    let zero = Position::from_setup_text(Arc::clone(&v), "setup:0").unwrap();
    assert_eq!(zero.board(), start.board(), "setup:0 is the canonical array");
    assert!(Position::from_setup_text(Arc::clone(&v), "setup:80").is_err(), "bit 7 is the fixed Regal pair");
    assert!(Position::from_setup_text(Arc::clone(&v), &format!("setup:{:x}", 1u64 << 38)).is_err(), "bit 38");
    assert!(Position::from_setup_text(Arc::clone(&v), "setup:").is_err());
    let mut rng = StdRng::seed_from_u64(0x3_0001);
    let mut arrays = BTreeSet::new();
    for _ in 0..40 {
        let mask = rng.gen::<u64>() & MASK_BITS;
        let text = format!("setup:{mask:X}");
        let pos = Position::from_setup_text(Arc::clone(&v), &text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!(!pos.in_setup(), "{text}: the setup phase is over");
        assert_eq!(pos.moves_played().count(), 37, "{text}: the 37 setup plies are in the history");
        assert!(pos.moves_played().all(|m| m.kind == MoveKind::Setup), "{text}");
        for i in 0..d.squares() {
            let sq = Square(i as u16);
            let rotated = pos.piece_at(d.rotate(sq)).map(|p| Piece::new(p.kind(), p.color().other()));
            assert_eq!(
                pos.piece_at(sq),
                rotated,
                "{text}: the array is not rotation symmetric at {}",
                d.square_name(sq)
            );
        }
        // Each mask bit changes the array: a bit read twice or not at all would show here.
        for bit in (0..38).filter(|b| MASK_BITS >> b & 1 == 1).step_by(5) {
            let other = Position::from_setup_mask(Arc::clone(&v), mask ^ (1 << bit)).unwrap();
            assert_ne!(other.board(), pos.board(), "{text}: bit {bit} changes nothing");
        }
        arrays.insert(pos.to_fen());
        // The array reparses as itself.
        let reparsed = Position::from_fen(Arc::clone(&v), &pos.to_fen()).unwrap();
        assert_eq!(reparsed.hash(), pos.hash(), "{text}: hash of the re-read array");
    }
    assert_eq!(arrays.len(), 40, "distinct masks give distinct arrays");
}

// ---------------------------------------------------------------------------------------------
// 4. mirror
// ---------------------------------------------------------------------------------------------

/// Jupiter's asymmetric pieces (the Right and Left Generals, §3.4, among others) make a position
/// unfit for the mirror augmentation; a position of left-right symmetric pieces only is fit, and
/// its mirror image has the mirrored moves.
#[test]
fn asymmetric_jupiter_positions_are_not_mirrored() {
    let v = jupiter();
    let d = v.dims;
    for token in ["RTG", "LFG"] {
        assert!(!v.mirror_safe[kind(&v, token).index()], "{token} moves asymmetrically");
    }
    assert!(v.mirror_safe[kind(&v, "Q").index()], "the Queen is symmetric");
    let mut rng = StdRng::seed_from_u64(0x4_0001);
    // Every array holds both Generals: none may be mirrored, nor any position of the setup phase.
    assert!(Position::start(Arc::clone(&v)).mirrored().is_none(), "the canonical array");
    assert!(!Position::setup_start(Arc::clone(&v)).unwrap().mirror_safe(), "the setup phase");
    for _ in 0..10 {
        let mask = rng.gen::<u64>() & MASK_BITS;
        let pos = Position::from_setup_mask(Arc::clone(&v), mask).unwrap();
        assert!(!pos.mirror_safe() && pos.mirrored().is_none(), "setup:{mask:x} must not be mirrored");
    }
    // Sparse positions: fit exactly when every piece is of a mirror-safe type.
    let safe: Vec<PieceType> =
        (0..v.piece_count()).map(|i| PieceType(i as u8)).filter(|t| v.mirror_safe[t.index()]).collect();
    let unsafe_types: Vec<PieceType> =
        (0..v.piece_count()).map(|i| PieceType(i as u8)).filter(|t| !v.mirror_safe[t.index()]).collect();
    eprintln!("{} of 161 Jupiter types are mirror-safe", safe.len());
    assert!(safe.contains(&kind(&v, KING)), "the King (and its promotions) are symmetric");
    let fid = kind(&v, FIERY_DRAGON);
    let (mut fit, mut unfit) = (0, 0);
    let (mut doubled, mut other_route) = (0, 0);
    for round in 0..60 {
        let with_asymmetric = round % 2 == 1;
        let mut board: Vec<Option<Piece>> = vec![None; d.squares()];
        let mut free: Vec<Square> = (0..d.squares()).map(|i| Square(i as u16)).collect();
        free.shuffle(&mut rng);
        board[free.pop().unwrap().index()] = Some(Piece::new(kind(&v, KING), Color::Blue));
        board[free.pop().unwrap().index()] = Some(Piece::new(kind(&v, KING), Color::Tan));
        for i in 0..rng.gen_range(2..10) {
            let types = if with_asymmetric && i == 0 { &unsafe_types } else { &safe };
            let t = *types.choose(&mut rng).unwrap();
            if t == fid {
                continue; // keeps clear of the burning invariant
            }
            let color = if i % 2 == 0 { Color::Blue } else { Color::Tan };
            board[free.pop().unwrap().index()] = Some(Piece::new(t, color));
        }
        let fen = board_fen(&v, &board, Color::Blue);
        let mut pos = Position::from_fen(Arc::clone(&v), &fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let has_asymmetric = board.iter().flatten().any(|p| !v.mirror_safe[p.kind().index()]);
        // Doubled turns that share an effect keep one route chosen by square order, which the
        // mirror does not keep: a position with a Doubler is never mirrored.
        let has_doubler = board.iter().flatten().any(|p| v.pieces[p.kind().index()].token == "DBL");
        assert_eq!(pos.mirror_safe(), !has_asymmetric && !has_doubler, "mirror_safe of {fen}");
        let Some(image) = pos.mirrored() else {
            unfit += 1;
            continue;
        };
        fit += 1;
        let mut image = image.unwrap_or_else(|e| panic!("mirror of {fen}: {e}"));
        let mut ours = MoveList::new();
        let mut theirs = MoveList::new();
        pos.legal_moves(&mut ours);
        image.legal_moves(&mut theirs);
        let mirror = |s: Square| d.mirror(s);
        let flip_action = |a: Move| map_action(a, mirror);
        // Single actions map one to one (the one pass of a position names whichever passer the
        // generator met first).
        let one_pass = |m: Move| if m.kind == MoveKind::Pass { Move::pass(Square::NONE) } else { m };
        let expected: HashSet<Move> =
            ours.iter().filter(|m| !m.is_doubled()).map(|m| one_pass(flip_action(*m))).collect();
        let got: HashSet<Move> = theirs.iter().filter(|m| !m.is_doubled()).map(|m| one_pass(*m)).collect();
        let missing: Vec<String> = expected.difference(&got).map(|m| image.move_to_string(m)).collect();
        let extra: Vec<String> = got.difference(&expected).map(|m| image.move_to_string(m)).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "the mirror image {} of {fen} has other moves: missing {missing:?}, extra {extra:?}",
            image.to_fen()
        );
        // Doubled turns are merged by their combined effect, one route standing for all
        // (jupiter.md §9.2), and which route is kept depends on the generation order, which the
        // mirror does not keep: the image has the mirrored effects, not always the mirrored
        // routes. Compared by effect; the routes that differ are counted.
        assert_same_doubled_effects("mirror", &mut pos, &ours, mirror, false, &mut image, &theirs);
        let theirs_set: HashSet<Move> = theirs.iter().copied().collect();
        for m in ours.iter().filter(|m| m.is_doubled()) {
            doubled += 1;
            let mirrored = Move::doubled(flip_action(m.first_action()), flip_action(m.second_action().unwrap()));
            if !theirs_set.contains(&mirrored) {
                other_route += 1;
                if other_route == 1 {
                    eprintln!(
                        "{} in {fen} has its effect in the mirror image {} under another route, not as {}",
                        pos.move_to_string(m),
                        image.to_fen(),
                        image.move_to_string(&mirrored)
                    );
                }
            }
        }
    }
    eprintln!(
        "mirror: {doubled} doubled turns in fit positions, {other_route} of them kept another route in the image"
    );
    assert!(fit >= 20 && unfit >= 20, "fit {fit}, unfit {unfit}");
    assert_eq!(other_route, 0, "mirror-safe positions have no Doubler, so every doubled turn maps");
}

// ---------------------------------------------------------------------------------------------
// 5. allocation-free perft
// ---------------------------------------------------------------------------------------------

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocations_of;

/// Perft with one reused move list per depth, as search keeps them.
fn perft_reusing(pos: &mut Position, depth: usize, lists: &mut [MoveList]) -> u64 {
    let (list, rest) = lists.split_first_mut().expect("one list per depth");
    pos.legal_moves(list);
    if depth == 1 {
        return list.len() as u64;
    }
    let mut nodes = 0;
    for i in 0..list.len() {
        pos.make(list[i]);
        nodes += perft_reusing(pos, depth - 1, rest);
        pos.unmake();
    }
    nodes
}

#[test]
fn the_counter_sees_allocations() {
    let n = allocations_of(|| drop(std::hint::black_box(vec![1u8; 10])));
    assert_eq!(n, 1);
}

/// Jupiter's perft allocates nothing per node once its buffers have grown, on every middlegame
/// of `tools/gen_jupiter_perft.py` (doubled turns, relayed moves, the turn procedure's snapshot
/// and checks, pushes, pulls, Tribbles, automatic capturers). `perft` itself allocates its
/// per-depth lists once per call.
#[test]
fn jupiter_perft_allocates_nothing_per_node() {
    let v = jupiter();
    for (_, fen) in MIDDLEGAMES {
        let mut pos = Position::from_fen(Arc::clone(&v), fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let mut lists: Vec<MoveList> = vec![MoveList::new(), MoveList::new()];
        let warm = perft_reusing(&mut pos, 2, &mut lists);
        let mut nodes = 0;
        let allocations = allocations_of(|| nodes = perft_reusing(&mut pos, 2, &mut lists));
        assert_eq!(nodes, warm, "{fen}: perft(2) is deterministic");
        assert_eq!(nodes, fairyzero_rules::perft(&mut pos, 2), "{fen}: against the library perft");
        assert!(nodes > 1_000, "{fen}: perft(2) = {nodes} exercises too little");
        assert_eq!(allocations, 0, "{fen}: {allocations} allocations in perft(2) = {nodes} nodes at steady state");
        // The library perft: a fixed number of allocations (its lists), none per node.
        let mut library = 0;
        let per_call = allocations_of(|| library = fairyzero_rules::perft(&mut pos, 2));
        assert!(per_call <= 16, "{fen}: perft(2) = {library} nodes made {per_call} allocations");
    }
}

// ---------------------------------------------------------------------------------------------
// Counterexamples found by the random tests, minimized (each piece is needed)
// ---------------------------------------------------------------------------------------------

/// The legal moves of `fen` (whole jupiter.toml).
fn legal_in(fen: &str) -> (Position, MoveList) {
    let mut pos = Position::from_fen(jupiter(), fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    let mut legal = MoveList::new();
    pos.legal_moves(&mut legal);
    (pos, legal)
}

/// Tan Doublers on b2 and i5 double the Relay Firzan on l2 (seen along rank 2) and the Relay
/// Wazir on k3 (seen along the diagonal): `l2k2,k3l4` is attributable to both (the Firzan's own
/// step, then the Wazir's step by the Firzan's relay; or the Wazir's relay, then its own step).
/// It is one move, and `legal_moves` must list it once.
#[test]
fn a_doubled_turn_attributable_to_two_doubled_pieces_is_listed_once() {
    let (pos, legal) = legal_in("16/16/16/16/16/4K11/16/16/16/12k3/16/8(dbl)7/16/10(RLW)5/1(dbl)9(RLF)4/16 w");
    let mut seen = HashSet::new();
    let twice: Vec<String> = legal.iter().filter(|m| !seen.insert(**m)).map(|m| pos.move_to_string(m)).collect();
    assert!(twice.is_empty(), "listed twice: {twice:?}");
}

/// The Doubler on n8 doubles the Zoom on p8 and the Relay Firzan on o7. The Tanbara's step p6o5
/// followed by the Firzan's Zoom-relayed move (o7m5, say) is the Zoom's doubled turn (it relays
/// twice, in either order) and the Firzan's (it lends the step, then moves). Merged per doubled
/// piece, both give `p6o5,o7m5` here, while in the rotated position with colours swapped their
/// smallest encodings differ (`b10d12,a11b12` for the Zoom, `a11b12,b10d12` for the Firzan): one
/// move against two, and perft not invariant under the rotation. Turns with one combined effect
/// are one move whatever piece they are attributed to.
#[test]
fn doubled_turns_of_a_relay_pair_do_not_depend_on_the_orientation() {
    let fen = "9(rgn)6/16/16/6k9/16/1(SUL)14/16/16/13(DBL)1(ZOO)/14(RLF)1/15(THA)/16/16/16/16/16 w";
    let (mut pos, legal) = legal_in(fen);
    let d = pos.variant().dims;
    let rotated: Vec<Option<Piece>> = (0..d.squares())
        .map(|i| pos.piece_at(d.rotate(Square(i as u16))).map(|p| Piece::new(p.kind(), p.color().other())))
        .collect();
    let (mut image, theirs) = legal_in(&board_fen(pos.variant(), &rotated, Color::Tan));
    let unique = |l: &MoveList| l.iter().collect::<HashSet<_>>().len();
    assert_eq!(unique(&legal), unique(&theirs), "moves of {fen} and of its rotation {}", image.to_fen());
    assert_same_doubled_effects("relay pair", &mut pos, &legal, |s| d.rotate(s), true, &mut image, &theirs);
}
