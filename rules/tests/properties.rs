//! Property tests of the rules engine, run on every built-in variant over positions reached by
//! seeded random play: make/unmake, hashing, notation round trips, legality consistency,
//! board symmetries, perft and game-end consistency.
//!
//! Every check names the variant, the game seed, the ply and the position string, so a failure
//! can be replayed. Random play is biased toward captures half of the time so that games reach
//! promotions, bare kings and mates more often than uniform play would.

use std::{
    collections::{HashMap, HashSet},
    sync::Arc,
};

use fairyzero_rules::{
    geometry::{self, Atom},
    perft, perft_divide,
    powers::PowerSpec,
    spec::capture_spec::{EnemyRoyalBlast, OwnRoyalBlast},
    variant::{
        builtin_names, turns::TurnCheckRule, CheckingRule, NotationStyle, RepetitionRule, RoyalChoice, RoyalRule,
    },
    Color, EndReason, GameValue, Move, MoveKind, MoveList, Outcome, Piece, Position, Square, Variant,
};
use rand::{rngs::StdRng, seq::SliceRandom, Rng, SeedableRng};

// ---------------------------------------------------------------------------------------------
// Random play
// ---------------------------------------------------------------------------------------------

/// Extra start points (chess-family test positions). Each is used for a variant only if it
/// parses there, first as written and then with its castling field replaced by `-`.
const EXTRA_FENS: &[&str] = &[
    // Kiwipete: castling, pins, en passant after a double step, promotions nearby.
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    // Horizontal en-passant pin along the fifth rank.
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    // Promotions with capture, castling rights on one side only.
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    // A live en-passant right.
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    // Pawns about to promote on both sides, bare-ish kings.
    "8/P1k5/8/8/8/8/5Kp1/8 w - - 0 1",
];

fn all_variants() -> Vec<Arc<Variant>> {
    let vs: Vec<_> = builtin_names()
        .map(|name| Variant::load(name).unwrap_or_else(|e| panic!("built-in variant {name} does not load: {e}")))
        .collect();
    assert!(!vs.is_empty(), "no built-in variants");
    vs
}

fn start_points(v: &Arc<Variant>) -> Vec<Position> {
    let mut out = vec![Position::start(Arc::clone(v))];
    for fen in EXTRA_FENS {
        let mut fields: Vec<&str> = fen.split(' ').collect();
        let parsed = Position::from_fen(Arc::clone(v), fen).or_else(|_| {
            fields[2] = "-";
            Position::from_fen(Arc::clone(v), &fields.join(" "))
        });
        // A position whose side not to move is in check is no position of the variant (on a
        // cylinder, the rook on b4 of the horizontal en-passant pin checks h4 round the edge).
        let legal = |p: &Position| {
            v.rules.royal != RoyalRule::Checkmate
                || p.immediate_outcome().is_some()
                || !p.in_check(p.side_to_move().other())
        };
        if let Some(pos) = parsed.ok().filter(legal) {
            out.push(pos);
        }
    }
    out
}

/// A stable per-variant seed (FNV-1a of the name), so variants do not replay the same dice.
fn seed_for(name: &str, salt: u64) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ salt;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Where a visited position came from, for failure messages.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    variant: &'a str,
    seed: u64,
    game: usize,
    ply: usize,
}

impl std::fmt::Display for Ctx<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[variant {} seed {:#x} game {} ply {}]", self.variant, self.seed, self.game, self.ply)
    }
}

/// Picks a move: half of the time a capture if there is one, otherwise uniformly.
fn pick(pos: &Position, legal: &[Move], rng: &mut StdRng) -> Move {
    if rng.gen_bool(0.5) {
        let captures: Vec<Move> = legal.iter().copied().filter(|m| pos.is_capture(m)).collect();
        if let Some(m) = captures.choose(rng) {
            return *m;
        }
    }
    *legal.choose(rng).expect("pick() needs a legal move")
}

/// Plays `games` seeded random games of at most `max_plies` plies in every variant and calls
/// `visit` on every position reached (including the final one) with its legal moves. Games stop
/// when the game is over (`outcome_with`) or at the cap. `visit` must leave the position as it
/// found it; this is checked.
fn walk(games: usize, max_plies: usize, salt: u64, mut visit: impl FnMut(&Ctx, &mut Position, &[Move], &mut StdRng)) {
    for v in all_variants() {
        let seed = seed_for(&v.name, salt);
        let mut rng = StdRng::seed_from_u64(seed);
        let starts = start_points(&v);
        let mut legal = MoveList::new();
        for game in 0..games {
            // Mostly from the start position; every fourth game from an extra position, and
            // for variants with a setup phase, every fourth game from its beginning.
            let mut pos = match (game % 4, Position::setup_start(Arc::clone(&v))) {
                (3, _) if starts.len() > 1 => starts[1 + (game / 4) % (starts.len() - 1)].clone(),
                (1, Some(setup)) => setup,
                _ => starts[0].clone(),
            };
            for ply in 0..=max_plies {
                let ctx = Ctx { variant: &v.name, seed, game, ply };
                pos.legal_moves(&mut legal);
                let (hash, fen) = (pos.hash(), pos.to_fen());
                visit(&ctx, &mut pos, &legal, &mut rng);
                assert_eq!(pos.hash(), hash, "{ctx} the visitor changed the position {fen}");
                assert_eq!(pos.to_fen(), fen, "{ctx} the visitor changed the position");
                if legal.is_empty() || pos.outcome_with(&legal).is_some() || ply == max_plies {
                    break;
                }
                let m = pick(&pos, &legal, &mut rng);
                pos.make(m);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn legal_of(pos: &mut Position) -> MoveList {
    let mut l = MoveList::new();
    pos.legal_moves(&mut l);
    l
}

fn pseudo_of(pos: &Position) -> MoveList {
    let mut l = MoveList::new();
    pos.pseudo_legal_moves(&mut l);
    l
}

fn describe(pos: &Position, m: &Move) -> String {
    format!("{} {:?}", pos.move_to_string(m), m)
}

/// Applies a square map to every square of a move.
fn map_move(m: &Move, f: impl Fn(Square) -> Square) -> Move {
    let aux = if m.aux.is_none() { Square::NONE } else { f(m.aux) };
    let mut out = Move::normal(f(m.from), f(m.to)).with_kind(m.kind).with_piece(m.piece).with_aux(aux);
    for &c in m.captures() {
        out.add_capture(f(c));
    }
    out
}

/// Whether a Betza string is closed under the left-right mirror (dx -> -dx).
fn betza_symmetric(text: &str) -> bool {
    let Ok(g) = geometry::parse(text) else { return false };
    let atoms: Vec<Atom> = g.atoms().copied().collect();
    g.multi_leg().next().is_none() && atoms.iter().all(|a| atoms.contains(&Atom { dx: -a.dx, ..*a }))
}

/// Whether every piece (its geometry and the geometry parameters of its powers) is left-right
/// symmetric. Powers of a kind this test does not know count as asymmetric.
#[allow(unreachable_patterns)]
fn left_right_symmetric(v: &Variant) -> bool {
    // Royalty by file order (ICS wild 9) is not its own mirror image, nor are Circe's rebirth
    // squares (the queen's d1).
    v.rules.royal_choice == RoyalChoice::All
        && v.rules.rebirth.is_none()
        && v.spec.pieces.iter().all(|p| {
            betza_symmetric(&p.betza)
                && p.powers.iter().all(|power| match power {
                    PowerSpec::Relay { grants, .. } => betza_symmetric(grants),
                    PowerSpec::Igui { targets, .. } => betza_symmetric(targets),
                    PowerSpec::HopCapture { over, .. } => betza_symmetric(over),
                    PowerSpec::BentRider { first, then, .. } => betza_symmetric(first) && betza_symmetric(then),
                    _ => false,
                })
        })
}

fn fen_field(fen: &str, i: usize) -> Option<&str> {
    fen.split(' ').nth(i)
}

/// The position string of `base` transformed by the involution `map` on squares, with colours
/// (and the side to move, and the case of castling letters) swapped if `swap`. Castling rights
/// are only kept when `keep_castling` (the caller knows the map preserves them).
fn transformed_fen(base: &Position, map: &dyn Fn(Square) -> Square, swap: bool, keep_castling: bool) -> String {
    let v = base.variant();
    let d = v.dims;
    let mut s = String::new();
    for rank in (0..d.height as i32).rev() {
        let mut empty = 0;
        for file in 0..d.width as i32 {
            let target = d.square(file, rank).unwrap();
            match base.piece_at(map(target)) {
                // The neutral token (`[neutral_token]`) moves with the squares.
                None if base.neutral_token() == Some(map(target)) => {
                    if empty > 0 {
                        s.push_str(&empty.to_string());
                        empty = 0;
                    }
                    s.push('*');
                }
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        s.push_str(&empty.to_string());
                        empty = 0;
                    }
                    let p = if swap { Piece::new(p.kind(), p.color().other()) } else { p };
                    s.push_str(&v.piece_token(p));
                    // A protean man (`[protean]`) keeps its mark.
                    if base.is_protean(map(target)) {
                        s.push('^');
                    }
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
    // Pieces in hand (`[drops]`): the pocket, its colours swapped with the board's.
    if v.has_drops() {
        s.push('[');
        // Blue's, then Tan's, each from the last type to the first, as the engine prints them.
        for color in [Color::Blue, Color::Tan] {
            for t in (0..v.piece_count()).rev() {
                let kind = fairyzero_rules::PieceType(t as u8);
                let held = base.in_hand(Piece::new(kind, if swap { color.other() } else { color }));
                s.push_str(&v.piece_token(Piece::new(kind, color)).repeat(held as usize));
            }
        }
        s.push(']');
    }
    let side = if swap { base.side_to_move().other() } else { base.side_to_move() };
    s.push_str(if side == Color::Blue { " w " } else { " b " });
    let fen = base.to_fen();
    let castling = fen_field(&fen, 2).unwrap_or("-");
    if castling == "-" {
        s.push('-');
    } else {
        assert!(keep_castling, "transformed_fen called on a position with castling rights: {fen}");
        let swapped: String = castling
            .chars()
            .map(|c| {
                if !swap {
                    c
                } else if c.is_ascii_uppercase() {
                    c.to_ascii_lowercase()
                } else {
                    c.to_ascii_uppercase()
                }
            })
            .collect();
        s.push_str(&swapped);
    }
    s.push(' ');
    match base.en_passant() {
        Some(ep) => {
            // As Fairy-Stockfish writes them: every passed square of a straight step (`e3e4`
            // after a triple step), else the passed square and the landing square (Berolina's
            // diagonal double step).
            let passed: Vec<Square> = ep.squares.iter().filter(|s| !s.is_none()).map(|&sq| map(sq)).collect();
            let victim = map(ep.victim);
            if passed.iter().all(|&sq| d.file(sq) == d.file(victim)) {
                passed.iter().for_each(|&sq| s.push_str(&d.square_name(sq)));
            } else {
                s.push_str(&d.square_name(passed[0]));
                s.push_str(&d.square_name(victim));
            }
        }
        None => s.push('-'),
    }
    s.push_str(&format!(" {} {}", base.halfmove_clock(), base.fullmove_number()));
    // Multi-move turns: the turn field (moves left / turn length) is kept as it is.
    if let Some(turn) = fen_field(&fen, 6) {
        s.push(' ');
        s.push_str(turn);
    }
    s
}

/// Reverses every rank of a position string's board field textually (digits, letters and
/// parenthesised tokens), as an independent way to mirror a position left-right.
fn mirror_board_text(board: &str) -> String {
    // A pocket (`[Nn]`) is not on the board: it stays as it is.
    let (board, pocket) = board.split_at(board.find('[').unwrap_or(board.len()));
    let mirrored = board
        .split('/')
        .map(|rank| {
            let bytes = rank.as_bytes();
            let mut tokens = Vec::new();
            let mut i = 0;
            while i < bytes.len() {
                let j = if bytes[i].is_ascii_digit() {
                    let mut j = i;
                    while j < bytes.len() && bytes[j].is_ascii_digit() {
                        j += 1;
                    }
                    j
                } else if bytes[i] == b'(' {
                    i + rank[i..].find(')').expect("balanced parentheses") + 1
                } else {
                    i + 1
                };
                // A protean man's mark (`^`) stays after its token.
                let j = if bytes.get(j) == Some(&b'^') { j + 1 } else { j };
                tokens.push(&rank[i..j]);
                i = j;
            }
            tokens.reverse();
            tokens.concat()
        })
        .collect::<Vec<_>>()
        .join("/");
    mirrored + pocket
}

fn swap_outcome(o: Option<Outcome>, swap: bool) -> Option<Outcome> {
    match o {
        Some(Outcome::Decisive { winner, reason }) if swap => {
            Some(Outcome::Decisive { winner: winner.other(), reason })
        }
        other => other,
    }
}

/// Checks that `t` (parsed from a transform of `base` by `map`) has exactly the mapped legal
/// moves of `base`, the mapped check status, en-passant state and material result; with
/// `deep`, also equal perft(2).
#[allow(clippy::too_many_arguments)]
fn check_transform(
    ctx: &Ctx,
    what: &str,
    base: &mut Position,
    map: &dyn Fn(Square) -> Square,
    swap: bool,
    keep_castling: bool,
    deep: bool,
) {
    let v = Arc::clone(base.variant());
    let tfen = transformed_fen(base, map, swap, keep_castling);
    let mut t = Position::from_fen(Arc::clone(&v), &tfen)
        .unwrap_or_else(|e| panic!("{ctx} {what} of {} gives an unreadable position: {e}", base.to_fen()));
    // The transform is an involution: transforming back gives the original position string.
    let back = transformed_fen(&t, map, swap, keep_castling);
    let back_pos = Position::from_fen(Arc::clone(&v), &back).expect("the inverse transform parses");
    assert_eq!(back_pos.to_fen(), base.to_fen(), "{ctx} {what} is not an involution (via {tfen})");

    let mapped_ep = base.en_passant().map(|ep| (map(ep.squares[0]), map(ep.victim)));
    let t_ep = t.en_passant().map(|ep| (ep.squares[0], ep.victim));
    assert_eq!(t_ep, mapped_ep, "{ctx} {what}: en-passant state of {tfen} vs {}", base.to_fen());

    let (us, tus) = (base.side_to_move(), t.side_to_move());
    assert_eq!(
        base.in_check(us),
        t.in_check(tus),
        "{ctx} {what}: check status differs between {} and {tfen}",
        base.to_fen()
    );
    assert_eq!(base.in_check(us.other()), t.in_check(tus.other()), "{ctx} {what}: {} vs {tfen}", base.to_fen());
    assert_eq!(
        swap_outcome(base.immediate_outcome(), swap),
        t.immediate_outcome(),
        "{ctx} {what}: material result differs between {} and {tfen}",
        base.to_fen()
    );

    let base_legal = legal_of(base);
    let t_legal = legal_of(&mut t);
    let expected: HashSet<Move> = base_legal.iter().map(|m| map_move(m, map)).collect();
    let got: HashSet<Move> = t_legal.iter().copied().collect();
    if expected != got || base_legal.len() != t_legal.len() {
        let missing: Vec<String> = expected.difference(&got).map(|m| describe(&t, m)).collect();
        let extra: Vec<String> = got.difference(&expected).map(|m| describe(&t, m)).collect();
        panic!(
            "{ctx} {what}: legal moves of {} ({}) and of its image {tfen} ({}) do not correspond.\n\
             expected in the image but missing: {missing:?}\nin the image but not expected: {extra:?}",
            base.to_fen(),
            base_legal.len(),
            t_legal.len()
        );
    }
    if deep {
        let (a, b) = (perft(base, 2), perft(&mut t, 2));
        assert_eq!(a, b, "{ctx} {what}: perft(2) {} = {a} but {tfen} = {b}", base.to_fen());
    }
}

// ---------------------------------------------------------------------------------------------
// 1. make / unmake
// ---------------------------------------------------------------------------------------------

/// A snapshot of every observable part of a position's state.
#[derive(PartialEq, Debug)]
struct Snapshot {
    fen: String,
    hash: u64,
    board: Vec<Option<Piece>>,
    counts: Vec<u16>,
    occupied: [Vec<Square>; 2],
    ep: Option<fairyzero_rules::position::EnPassant>,
    castling: u8,
    ply: u32,
    repetitions: usize,
    played: usize,
    setup_ply: Option<usize>,
}

fn snapshot(pos: &Position) -> Snapshot {
    Snapshot {
        fen: pos.to_fen(),
        hash: pos.hash(),
        board: pos.board().to_vec(),
        counts: pos.piece_counts().to_vec(),
        occupied: [pos.occupied(Color::Blue).iter().collect(), pos.occupied(Color::Tan).iter().collect()],
        ep: pos.en_passant(),
        castling: pos.castling_rights(),
        ply: pos.ply(),
        repetitions: pos.repetitions(),
        played: pos.moves_played().count(),
        setup_ply: pos.setup_ply_index(),
    }
}

/// The derived board data (counts, occupancy) agrees with the board itself.
fn check_derived(ctx: &Ctx, pos: &Position, when: &str) {
    let v = pos.variant();
    let mut counts = vec![0u16; v.piece_count() * 2];
    let mut occ: [Vec<Square>; 2] = [Vec::new(), Vec::new()];
    for (i, p) in pos.board().iter().enumerate() {
        if let Some(p) = p {
            counts[p.index()] += 1;
            occ[p.color().index()].push(Square(i as u16));
        }
    }
    assert_eq!(pos.piece_counts(), &counts[..], "{ctx} {when}: piece counts disagree with the board {}", pos.to_fen());
    for c in Color::BOTH {
        let set: Vec<Square> = pos.occupied(c).iter().collect();
        assert_eq!(set, occ[c.index()], "{ctx} {when}: {c:?} occupancy disagrees with the board {}", pos.to_fen());
        assert_eq!(pos.occupied(c).len(), occ[c.index()].len(), "{ctx} {when}: SquareSet::len");
    }
}

#[test]
fn make_unmake_restores_position_and_hash() {
    let mut moves_checked = 0u64;
    walk(30, 150, 1, |ctx, pos, legal, _| {
        assert_eq!(pos.hash(), pos.compute_hash(), "{ctx} incremental hash is stale in {}", pos.to_fen());
        check_derived(ctx, pos, "before make");
        let before = snapshot(pos);
        let copy = pos.clone();
        for m in legal {
            let mover = pos.side_to_move();
            pos.make(*m);
            moves_checked += 1;
            assert_eq!(
                pos.hash(),
                pos.compute_hash(),
                "{ctx} after make({}) from {}: incremental hash differs from compute_hash",
                describe(&copy, m),
                before.fen
            );
            if m.kind != MoveKind::Setup {
                // With multi-move turns the same side moves again while its turn has moves left.
                let again = pos.side_to_move() == mover && pos.moves_left_in_turn() + 1 == copy.moves_left_in_turn();
                assert!(again || pos.side_to_move() == mover.other(), "{ctx} make() did not pass the turn");
            }
            assert_eq!(pos.ply(), before.ply + 1, "{ctx} make() did not count the ply");
            assert_eq!(pos.moves_played().last(), Some(*m), "{ctx} make() did not record the move");
            assert_ne!(pos.hash(), before.hash, "{ctx} make({}) left the hash unchanged", describe(&copy, m));
            check_derived(ctx, pos, "after make");
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
        // Several moves deep and back again.
        let depth = legal.len().min(3);
        let mut made = 0;
        let mut scratch = MoveList::new();
        for i in 0..depth {
            pos.legal_moves(&mut scratch);
            if scratch.is_empty() {
                break;
            }
            let m = scratch[i % scratch.len()];
            pos.make(m);
            made += 1;
            assert_eq!(pos.hash(), pos.compute_hash(), "{ctx} hash stale at depth {made}");
        }
        for _ in 0..made {
            pos.unmake();
        }
        assert_eq!(snapshot(pos), before, "{ctx} multi-ply make/unmake did not restore");
    });
    assert!(moves_checked > 100_000, "only {moves_checked} moves were checked");
}

// ---------------------------------------------------------------------------------------------
// 2. notation
// ---------------------------------------------------------------------------------------------

#[test]
fn position_strings_round_trip() {
    walk(30, 150, 2, |ctx, pos, legal, _| {
        if pos.in_setup() {
            // Position strings cannot express a setup phase in progress (the next setup ply is
            // not written), so those positions do not round-trip; see the report in the
            // test-suite notes. Everything else must.
            return;
        }
        let v = Arc::clone(pos.variant());
        let fen = pos.to_fen();
        let q = Position::from_fen(Arc::clone(&v), &fen)
            .unwrap_or_else(|e| panic!("{ctx} to_fen() output does not parse back: {e}"));
        assert_eq!(q.to_fen(), fen, "{ctx} to_fen/from_fen/to_fen changed the string");
        assert_eq!(q.hash(), pos.hash(), "{ctx} the reparsed position {fen} has another hash");
        assert_eq!(q.hash(), q.compute_hash(), "{ctx} from_fen hash is stale for {fen}");
        assert_eq!(q.board(), pos.board(), "{ctx} board differs after reparsing {fen}");
        assert_eq!(q.side_to_move(), pos.side_to_move(), "{ctx} {fen}");
        assert_eq!(q.castling_rights(), pos.castling_rights(), "{ctx} castling rights of {fen}");
        // An en-passant right recorded by make() is always usable (make records only usable
        // ones), so from_fen must keep it, with the same victim.
        assert_eq!(q.en_passant(), pos.en_passant(), "{ctx} en-passant state after reparsing {fen}");
        assert_eq!(q.piece_counts(), pos.piece_counts(), "{ctx} {fen}");
        // The move counters are written in the extended form; a variant with a move-count
        // rule needs its clock written whatever the form.
        let extended = v.extended_position_strings();
        if extended || v.rules.halfmove_draw.is_some() {
            assert_eq!(q.halfmove_clock(), pos.halfmove_clock(), "{ctx} halfmove clock lost by {fen}");
        }
        if extended {
            assert_eq!(q.fullmove_number(), pos.fullmove_number(), "{ctx} {fen}");
        }
        assert_eq!(q.immediate_outcome(), pos.immediate_outcome(), "{ctx} material result after reparsing {fen}");
        // The same moves are available: pseudo-legal always, legal unless history matters.
        // A string does not say that the last move was a pass (chushin-shogi.md §14), so after
        // a per-piece pass the reparsed position also has the passes the original forbids.
        let after_pass = pos.last_move_was_pass();
        assert!(!q.last_move_was_pass(), "{ctx} a position string sets the pass flag: {fen}");
        let kept = |m: &Move| !(after_pass && m.kind == MoveKind::Pass);
        let pa: HashSet<Move> = pseudo_of(pos).into_iter().collect();
        let pb: HashSet<Move> = pseudo_of(&q).into_iter().filter(kept).collect();
        assert_eq!(pa, pb, "{ctx} pseudo-legal moves differ after reparsing {fen}");
        if v.rules.repetition != RepetitionRule::ThirdIllegal {
            let mut q = q;
            let la: HashSet<Move> = legal.iter().copied().collect();
            let lb_list = legal_of(&mut q);
            let lb: HashSet<Move> = lb_list.iter().copied().filter(kept).collect();
            assert_eq!(la, lb, "{ctx} legal moves differ after reparsing {fen}");
            if pos.repetitions() == 0 && !after_pass {
                assert_eq!(q.outcome_with(&lb_list), pos.outcome_with(legal), "{ctx} result after reparsing {fen}");
            }
        }
        // Start positions of the same variant print the variant's start string.
        if pos.ply() == 0 && fen_field(&v.start, 0) == fen_field(&fen, 0) {
            assert_eq!(
                Position::start(Arc::clone(&v)).to_fen(),
                Position::from_fen(Arc::clone(&v), &v.start).unwrap().to_fen()
            );
        }
    });
}

/// `Position::edited`: no edit reproduces the position; emptying a square and putting the
/// piece back reproduces its board; a removed castling rook takes its right with it.
#[test]
fn edited_positions_are_consistent() {
    walk(10, 80, 11, |ctx, pos, _, rng| {
        if pos.in_setup() {
            return;
        }
        let fen = pos.to_fen();
        let same = pos.edited(&[]).unwrap_or_else(|e| panic!("{ctx} no-op edit of {fen}: {e}"));
        assert_eq!(same.to_fen(), fen, "{ctx} a no-op edit changed the position");
        let occupied: Vec<Square> =
            (0..pos.board().len()).map(|i| Square(i as u16)).filter(|&s| pos.piece_at(s).is_some()).collect();
        let sq = occupied[rng.gen_range(0..occupied.len())];
        let piece = pos.piece_at(sq);
        if let Ok(without) = pos.edited(&[(sq, None)]) {
            assert_eq!(without.piece_at(sq), None, "{ctx} {fen}");
            assert_eq!(without.hash(), without.compute_hash(), "{ctx} {fen}");
            let back = without.edited(&[(sq, piece)]).unwrap_or_else(|e| panic!("{ctx} putting back {sq:?}: {e}"));
            assert_eq!(back.board(), pos.board(), "{ctx} {fen}");
            assert_eq!(back.castling_rights() & !pos.castling_rights(), 0, "{ctx} an edit added castling rights");
        }
    });
    let v = Variant::load("chess").unwrap();
    let start = Position::start(Arc::clone(&v));
    let a1 = v.dims.parse_square("a1").unwrap();
    let without_rook = start.edited(&[(a1, None)]).unwrap();
    assert!(
        without_rook.to_fen().starts_with("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NBQKBNR w Kkq "),
        "{}",
        without_rook.to_fen()
    );
}

/// `Position::mirrored`: where the mirror is safe, mirroring twice gives the board back, and the
/// mirror image has as many legal moves, each the mirror of one of the original's.
#[test]
fn mirrored_positions_mirror_the_moves() {
    let mut mirrored_some = 0;
    walk(10, 80, 12, |ctx, pos, legal, _| {
        let Some(m) = pos.mirrored() else { return };
        let mut m = m.unwrap_or_else(|e| panic!("{ctx} mirror of {}: {e}", pos.to_fen()));
        mirrored_some += 1;
        let back = m.mirrored().expect("the mirror of a safe position is safe").unwrap();
        assert_eq!(back.board(), pos.board(), "{ctx}");
        if pos.repetitions() == 0 {
            let d = pos.variant().dims;
            // Mirror-image types swap (Chushin's Left and Right Generals), promotions included.
            let image = &pos.variant().mirror_type;
            let ours: HashSet<Move> = legal
                .iter()
                .map(|mv| {
                    let piece = mv.piece.map(|t| image[t.index()].unwrap_or(t));
                    map_move(mv, |s| d.mirror(s)).with_piece(piece)
                })
                .collect();
            let theirs: HashSet<Move> = legal_of(&mut m).into_iter().collect();
            assert_eq!(ours, theirs, "{ctx} mirrored moves of {}", pos.to_fen());
        }
    });
    assert!(mirrored_some > 100, "only {mirrored_some} positions were mirror-safe");
}

#[test]
fn move_strings_round_trip() {
    let mut parsed = 0u64;
    walk(12, 150, 3, |ctx, pos, legal, _| {
        let fen = pos.to_fen();
        let v = Arc::clone(pos.variant());
        let strings: Vec<String> = legal.iter().map(|m| pos.move_to_string(m)).collect();
        let mut seen: HashMap<&str, &Move> = HashMap::new();
        for (s, m) in strings.iter().zip(legal) {
            if let Some(other) = seen.insert(s.as_str(), m) {
                panic!("{ctx} legal moves {m:?} and {other:?} both print as {s:?} in {fen}");
            }
        }
        for (s, m) in strings.iter().zip(legal) {
            assert!(!s.is_empty() && !s.contains(' ') && !s.contains(','), "{ctx} unusable move text {s:?}");
            let back = pos.parse_move(s);
            assert_eq!(back, Ok(*m), "{ctx} parse_move({s:?}) in {fen}");
            parsed += 1;
            // UCI promotion letters are accepted in either case.
            if v.notation == NotationStyle::Uci && m.piece.is_some() {
                let upper = format!("{}{}", &s[..s.len() - 1], s[s.len() - 1..].to_ascii_uppercase());
                assert_eq!(pos.parse_move(&upper), Ok(*m), "{ctx} parse_move({upper:?}) in {fen}");
            }
        }
        // Pseudo-legal moves that are not legal are refused (unless they print like a legal one).
        let legal_set: HashSet<&Move> = legal.iter().collect();
        for m in pseudo_of(pos).iter().filter(|m| !legal_set.contains(m)) {
            let s = pos.move_to_string(m);
            if !seen.contains_key(s.as_str()) {
                assert!(pos.parse_move(&s).is_err(), "{ctx} illegal move {s:?} ({m:?}) was accepted in {fen}");
            }
        }
        assert!(pos.parse_move("").is_err(), "{ctx} the empty move was accepted");
        assert!(pos.parse_move("zz99zz98").is_err(), "{ctx} garbage was accepted");
    });
    assert!(parsed > 20_000, "only {parsed} move strings were parsed");
}

// ---------------------------------------------------------------------------------------------
// 3. legality consistency
// ---------------------------------------------------------------------------------------------

#[test]
fn legal_moves_are_distinct_pseudo_legal_moves() {
    walk(30, 150, 4, |ctx, pos, legal, _| {
        let fen = pos.to_fen();
        let v = Arc::clone(pos.variant());
        let pseudo = pseudo_of(pos);
        let pseudo_set: HashSet<Move> = pseudo.iter().copied().collect();
        assert_eq!(pseudo_set.len(), pseudo.len(), "{ctx} pseudo-legal moves contain duplicates in {fen}");
        let legal_set: HashSet<Move> = legal.iter().copied().collect();
        assert_eq!(legal_set.len(), legal.len(), "{ctx} legal moves contain duplicates in {fen}: {legal:?}");
        for m in legal {
            assert!(pseudo_set.contains(m), "{ctx} legal move {} is not pseudo-legal in {fen}", describe(pos, m));
            // Moves are well formed.
            let from_board = !matches!(m.kind, MoveKind::Setup | MoveKind::Drop);
            if from_board && pos.piece_at(m.from).is_none_or(|p| p.color() != pos.side_to_move()) {
                panic!("{ctx} move {} does not start on a piece of the side to move in {fen}", describe(pos, m));
            }
            if m.kind == MoveKind::Normal {
                assert_ne!(m.from, m.to, "{ctx} null displacement {m:?}");
                if let Some(p) = pos.piece_at(m.to) {
                    assert_ne!(p.color(), pos.side_to_move(), "{ctx} {} captures its own piece", describe(pos, m));
                }
                for &c in m.captures() {
                    assert!(
                        pos.piece_at(c).is_some_and(|p| p.color() != pos.side_to_move()),
                        "{ctx} {} removes a square without an enemy piece in {fen}",
                        describe(pos, m)
                    );
                }
            }
        }
        // Royal safety: the side that just moved is never left in check, and with the
        // checkmate rule, pseudo-legal moves are legal exactly when they leave no royal
        // attacked (for variants without history or capture filters).
        let us = pos.side_to_move();
        let royal_checkmate = v.rules.royal == RoyalRule::Checkmate;
        // Multi-move turns where a royal need only be safe at its turn's end, or may be taken
        // within the opponent's turn, have legality of their own (tests/multimove.rs): there a
        // check before a turn's last move (from an extra start position) leaves the royal
        // attacked while its side is not to move.
        let turn_rules_simple =
            v.rules.turns.is_none_or(|t| t.check != TurnCheckRule::Any && t.safe_at_end == [false, false]);
        if royal_checkmate && turn_rules_simple && pos.immediate_outcome().is_none() {
            assert!(!pos.in_check(us.other()), "{ctx} the side not to move is in check in {fen}");
        }
        let simple = royal_checkmate
            && turn_rules_simple
            && !pos.in_setup()
            && !v.rules.forced_capture
            && v.rules.repetition != RepetitionRule::ThirdIllegal
            && !(v.must_drop() && pos.has_pieces_in_hand(us))
            && pos.immediate_outcome().is_none();
        if simple {
            // Checkless chess: a check must also mate.
            let mate_only = v.rules.checking == CheckingRule::MateOnly;
            let mut replies = MoveList::new();
            // Explosions (movegen/explosion.rs): a move may not blow up a royal of the mover's
            // (`own_royal_blast = "illegal"`), and one that blows up the opponent's last royal
            // is legal whatever it leaves (`enemy_royal_blast = "wins"`).
            let royals = |pos: &Position, c: Color| {
                pos.occupied(c)
                    .iter()
                    .filter(|&s| pos.piece_at(s).is_some_and(|p| v.pieces[p.kind().index()].royal))
                    .count()
            };
            let before = [royals(pos, us), royals(pos, us.other())];
            // Reflex Chess: when a move legal under the rest mates, only mating moves are legal;
            // so the verdicts are gathered first, then compared.
            let mut verdicts = Vec::with_capacity(pseudo.len());
            for m in &pseudo {
                pos.make(*m);
                let safe = match &v.rules.explosion {
                    None => !pos.in_check(us),
                    Some(ex) => {
                        let (mine, theirs) = (royals(pos, us), royals(pos, us.other()));
                        if mine < before[0] && ex.own_royal_blast == OwnRoyalBlast::Illegal {
                            false
                        } else {
                            (theirs == 0 && before[1] > 0 && ex.enemy_royal_blast == EnemyRoyalBlast::Wins)
                                || !pos.in_check(us)
                        }
                    }
                };
                let checks_without_mate = mate_only && pos.in_check(us.other()) && {
                    pos.legal_moves(&mut replies);
                    !replies.is_empty()
                };
                // Marseillaise: a check before the turn's last move.
                let early_check = v.rules.turns.is_some_and(|t| t.check == TurnCheckRule::LastMoveOnly)
                    && pos.side_to_move() == us
                    && pos.in_check(us.other());
                let mates = v.rules.must_mate && pos.in_check(us.other()) && {
                    pos.legal_moves(&mut replies);
                    replies.is_empty()
                };
                pos.unmake();
                verdicts.push((safe, checks_without_mate, early_check, mates));
            }
            let must_mate =
                verdicts.iter().any(|&(safe, no_mate_check, early, mates)| safe && !no_mate_check && !early && mates);
            for (m, &(safe, checks_without_mate, early_check, mates)) in pseudo.iter().zip(&verdicts) {
                assert_eq!(
                    safe && !checks_without_mate && !early_check && (mates || !must_mate),
                    legal_set.contains(m),
                    "{ctx} pseudo-legal {} (leaves royal safe: {safe}, checks without mate: {checks_without_mate}, \
                     early check: {early_check}, mates where a mate is due: {mates}/{must_mate}) vs legal list in {fen}",
                    describe(pos, m)
                );
            }
        }
        // Attack detection agrees with the move generator: an enemy piece is attacked exactly
        // when some pseudo-legal move captures it (en-passant captures may count or not; a
        // neutral token's captures count).
        if !pos.in_setup() {
            let ep_victim = pos.en_passant().map(|ep| ep.victim);
            // A rifle's en-passant shot is a stationary capture of the same victim.
            let is_ep = |m: &Move| {
                matches!(m.kind, MoveKind::Normal | MoveKind::Stationary)
                    && ep_victim.is_some_and(|e| m.captures().contains(&e))
            };
            for e in pos.occupied(us.other()).iter() {
                // A capturing neutral token (Salt Shaker) takes what it lands on.
                let takes = |m: &Move| {
                    (m.kind == MoveKind::Normal && m.to == e)
                        || m.captures().contains(&e)
                        || pos.neutral_token_capture(m) == Some(e)
                };
                let direct = pseudo.iter().any(|m| takes(m) && !is_ep(m));
                let by_ep = pseudo.iter().any(|m| takes(m) && is_ep(m));
                let attacked = pos.is_attacked(e, us);
                assert!(
                    attacked == direct || (attacked && by_ep),
                    "{ctx} is_attacked({}, {us:?}) = {attacked} but a pseudo-legal capture exists: {direct} in {fen}",
                    v.dims.square_name(e)
                );
            }
        }
        if v.rules.forced_capture && legal.iter().any(|m| pos.is_capture(m)) {
            assert!(
                legal.iter().all(|m| pos.is_capture(m)),
                "{ctx} a non-capture is legal despite forced capture in {fen}"
            );
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 4. left-right mirror
// ---------------------------------------------------------------------------------------------

#[test]
fn left_right_mirror_symmetry() {
    let mut checked: HashMap<String, usize> = HashMap::new();
    walk(30, 150, 5, |ctx, pos, _, _| {
        let v = Arc::clone(pos.variant());
        if !left_right_symmetric(&v) || pos.castling_rights() != 0 || pos.in_setup() {
            return;
        }
        let d = v.dims;
        let mut base = Position::from_fen(Arc::clone(&v), &pos.to_fen()).expect("round trip is tested elsewhere");
        // The square-map transform and the textual rank reversal agree.
        let mirror = |s: Square| d.mirror(s);
        let tfen = transformed_fen(&base, &mirror, false, false);
        let base_fen = base.to_fen();
        assert_eq!(
            fen_field(&tfen, 0).unwrap(),
            mirror_board_text(fen_field(&base_fen, 0).unwrap()),
            "{ctx} mirrored board text"
        );
        let deep = ctx.ply % 16 == 5;
        check_transform(ctx, "left-right mirror", &mut base, &mirror, false, false, deep);
        *checked.entry(v.name.clone()).or_default() += 1;
    });
    assert!(checked.get("chess").is_some_and(|&n| n > 1000), "mirror checks per variant: {checked:?}");
}

// ---------------------------------------------------------------------------------------------
// 5. colour symmetry
// ---------------------------------------------------------------------------------------------

/// 180° rotation with colours swapped is how the engine builds the second player's moves, so
/// it is an exact symmetry of every variant (castling aside: its king files do not rotate).
#[test]
fn rotation_with_colour_swap_symmetry() {
    let mut checked = 0usize;
    walk(30, 150, 6, |ctx, pos, _, _| {
        // Royalty by file order (ICS wild 9) is the same order for both colours: not rotated.
        if pos.castling_rights() != 0 || pos.in_setup() || pos.variant().rules.royal_choice != RoyalChoice::All {
            return;
        }
        // Circe's queens are reborn on d1 and d8, which a rotation does not swap (d1 becomes e8).
        if pos.variant().rules.rebirth.is_some() {
            return;
        }
        // A turn schedule that differs between the colours (Monster, progressive) is no
        // colour symmetry.
        if pos.variant().rules.turns.is_some_and(|t| !t.colour_symmetric()) {
            return;
        }
        let v = Arc::clone(pos.variant());
        let d = v.dims;
        let mut base = Position::from_fen(Arc::clone(&v), &pos.to_fen()).expect("round trip is tested elsewhere");
        let rotate = |s: Square| d.rotate(s);
        check_transform(ctx, "rotation + colour swap", &mut base, &rotate, true, false, ctx.ply % 16 == 7);
        checked += 1;
    });
    assert!(checked > 10_000, "only {checked} rotations checked");
}

/// Flipping the ranks with colours swapped is a symmetry of left-right symmetric variants,
/// castling rights included (the king and rook files do not change).
#[test]
fn rank_flip_with_colour_swap_symmetry() {
    let mut with_castling = 0usize;
    walk(30, 150, 7, |ctx, pos, _, _| {
        let v = Arc::clone(pos.variant());
        if !left_right_symmetric(&v) || pos.in_setup() || v.rules.turns.is_some_and(|t| !t.colour_symmetric()) {
            return;
        }
        let d = v.dims;
        let mut base = Position::from_fen(Arc::clone(&v), &pos.to_fen()).expect("round trip is tested elsewhere");
        let flip = |s: Square| d.square(d.file(s), d.height as i32 - 1 - d.rank(s)).unwrap();
        check_transform(ctx, "rank flip + colour swap", &mut base, &flip, true, true, ctx.ply % 16 == 9);
        if base.castling_rights() != 0 {
            with_castling += 1;
        }
    });
    assert!(with_castling > 100, "only {with_castling} flipped positions had castling rights");
}

// ---------------------------------------------------------------------------------------------
// 6. perft
// ---------------------------------------------------------------------------------------------

#[test]
fn perft_matches_manual_counting() {
    walk(30, 150, 8, |ctx, pos, legal, _| {
        if ctx.ply % 5 != 0 {
            return;
        }
        let fen = pos.to_fen();
        assert_eq!(perft(pos, 0), 1, "{ctx}");
        assert_eq!(perft(pos, 1), legal.len() as u64, "{ctx} perft(1) in {fen}");
        let mut replies = MoveList::new();
        let mut manual = 0u64;
        for m in legal {
            pos.make(*m);
            pos.legal_moves(&mut replies);
            manual += replies.len() as u64;
            pos.unmake();
        }
        let p2 = perft(pos, 2);
        assert_eq!(p2, manual, "{ctx} perft(2) in {fen}");
        if ctx.ply % 10 == 0 {
            let divide = perft_divide(pos, 2);
            assert_eq!(divide.iter().map(|(_, n)| n).sum::<u64>(), p2, "{ctx} perft_divide(2) in {fen}");
            assert_eq!(
                divide.iter().map(|(m, _)| *m).collect::<Vec<_>>(),
                legal.to_vec(),
                "{ctx} perft_divide root moves in {fen}"
            );
        }
        if (ctx.ply == 25 || ctx.ply == 75) && ctx.game % 5 == 0 {
            let mut manual3 = 0;
            for m in legal {
                pos.make(*m);
                manual3 += perft(pos, 2);
                pos.unmake();
            }
            assert_eq!(perft(pos, 3), manual3, "{ctx} perft(3) in {fen}");
        }
        assert_eq!(pos.to_fen(), fen, "{ctx} perft changed the position");
    });
}

// ---------------------------------------------------------------------------------------------
// 7. game end
// ---------------------------------------------------------------------------------------------

#[test]
fn terminal_positions_are_consistent() {
    walk(30, 150, 9, |ctx, pos, legal, _| {
        let fen = pos.to_fen();
        let v = Arc::clone(pos.variant());
        let outcome = pos.outcome();
        assert_eq!(outcome, pos.outcome_with(legal), "{ctx} outcome() vs outcome_with(legal) in {fen}");
        if legal.is_empty() {
            assert!(outcome.is_some(), "{ctx} no legal move but no outcome in {fen}");
        }
        if let Some(o) = pos.immediate_outcome() {
            assert!(legal.is_empty(), "{ctx} material result {o:?} but {} legal moves in {fen}", legal.len());
            assert_eq!(outcome, Some(o), "{ctx} outcome() does not report the material result in {fen}");
        }
        let us = pos.side_to_move();
        match outcome {
            Some(Outcome::Decisive { winner, reason: EndReason::Checkmate }) => {
                // In check, or (multi-move turns) within reach of the opponent's whole next turn.
                let checked = pos.checked_for_result(us);
                // The mated side loses, or wins where being mated wins (Reflex Chess).
                let mated_wins = v.rules.checkmate == GameValue::Win;
                let expected = if mated_wins { us } else { us.other() };
                assert!(legal.is_empty() && checked && winner == expected, "{ctx} bad checkmate in {fen}");
            }
            Some(Outcome::Draw { reason: EndReason::Stalemate })
            | Some(Outcome::Decisive { reason: EndReason::Stalemate, .. }) => {
                assert!(legal.is_empty(), "{ctx} stalemate with legal moves in {fen}");
                if v.rules.royal == RoyalRule::Checkmate {
                    assert!(!pos.checked_for_result(us), "{ctx} stalemate while in check in {fen}");
                }
            }
            Some(Outcome::Draw { reason: EndReason::HalfmoveRule }) => {
                let limit = v.rules.halfmove_draw.expect("a move-count rule exists");
                assert!(pos.halfmove_clock() >= limit, "{ctx} move-count draw too early in {fen}");
            }
            Some(Outcome::Draw { reason: EndReason::Repetition }) => {
                assert!(pos.repetitions() >= 2, "{ctx} repetition draw without repetition in {fen}");
            }
            _ => {}
        }
        // A position with legal moves and no rule-based result is not over.
        if !legal.is_empty() && pos.repetitions() == 0 && v.rules.halfmove_draw.is_none_or(|l| pos.halfmove_clock() < l)
        {
            assert_eq!(outcome, None, "{ctx} game over with legal moves in {fen}");
        }
    });
}

// ---------------------------------------------------------------------------------------------
// Random play stress
// ---------------------------------------------------------------------------------------------

#[derive(Default, Debug)]
struct Coverage {
    games: usize,
    capped: usize,
    outcomes: HashMap<String, usize>,
    castles: usize,
    en_passant: usize,
    promotions: usize,
}

#[test]
fn random_play_never_panics_and_terminates() {
    const GAMES: usize = 200;
    const CAP: usize = 300;
    let mut report: Vec<(String, Coverage)> = Vec::new();
    for v in all_variants() {
        let seed = seed_for(&v.name, 10);
        let mut rng = StdRng::seed_from_u64(seed);
        let mut cov = Coverage::default();
        let mut legal = MoveList::new();
        for game in 0..GAMES {
            let mut pos = Position::start(Arc::clone(&v));
            let mut ended = None;
            for ply in 0..CAP {
                pos.legal_moves(&mut legal);
                if let Some(o) = pos.outcome_with(&legal) {
                    ended = Some(o);
                    break;
                }
                assert!(
                    !legal.is_empty(),
                    "[{} game {game} ply {ply}] no legal move and no outcome in {}",
                    v.name,
                    pos.to_fen()
                );
                let m = pick(&pos, &legal, &mut rng);
                match m.kind {
                    MoveKind::Castle => cov.castles += 1,
                    MoveKind::Normal if m.piece.is_some() => cov.promotions += 1,
                    _ => {}
                }
                if m.kind == MoveKind::Normal && pos.en_passant().is_some_and(|ep| m.captures().contains(&ep.victim)) {
                    cov.en_passant += 1;
                }
                let text = pos.move_to_string(&m);
                assert!(!text.is_empty());
                pos.make(m);
            }
            cov.games += 1;
            match ended.or_else(|| pos.outcome()) {
                Some(o) => *cov.outcomes.entry(format!("{:?}", o.reason())).or_default() += 1,
                None => cov.capped += 1,
            }
            assert_eq!(pos.hash(), pos.compute_hash(), "[{} game {game}] hash at the end", v.name);
            assert!(pos.ply() as usize <= CAP, "[{} game {game}] game ran past the cap", v.name);
            // Unwinding the whole game restores the start position.
            while pos.ply() > 0 {
                pos.unmake();
            }
            assert_eq!(pos.to_fen(), Position::start(Arc::clone(&v)).to_fen(), "[{} game {game}] full unwind", v.name);
        }
        report.push((v.name.clone(), cov));
    }
    for (name, cov) in &report {
        eprintln!("{name}: {cov:?}");
        assert_eq!(cov.games, GAMES);
    }
    // Chess is fully configured: random play must have exercised its special moves and ends.
    let (_, chess) = report.iter().find(|(n, _)| n == "chess").expect("chess is built in");
    assert!(chess.castles > 0 && chess.en_passant > 0 && chess.promotions > 0, "chess coverage: {chess:?}");
    assert!(chess.outcomes.get("Checkmate").is_some_and(|&n| n > 0), "chess coverage: {chess:?}");
}
