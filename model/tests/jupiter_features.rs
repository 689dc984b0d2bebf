//! Move features identify Jupiter moves (jupiter.md §5.3, §9.2): over the legal moves of random
//! Jupiter positions (the whole `configs/variants/jupiter.toml`, 161 types), reached by random
//! play from the canonical array, the setup phase and random `setup:<hex>` arrays, and random
//! sparse positions crowded with Doublers, relays, tanks, magnets and Tribbles, no two distinct
//! legal moves share all their features, doubled turns included; and the left-right mirror of an
//! encoded batch, which the trainer applies only where `Position::mirror_safe` allows it, agrees
//! with the encoding of the mirrored position.

mod common;

use std::{
    collections::{HashMap, HashSet},
    path::PathBuf,
    sync::Arc,
};

use fairyzero_model::{
    encoding::{Encoding, MoveFeatures, NO_SQUARE},
    mirror::mirror_left_right,
    StandardEncoding,
};
use fairyzero_rules::{Color, Move, MoveKind, MoveList, Piece, PieceType, Position, Square, Variant};
use rand::{rngs::StdRng, seq::SliceRandom, Rng, SeedableRng};

fn jupiter() -> Arc<Variant> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../configs/variants/jupiter.toml");
    let v = Variant::load(&path.display().to_string()).unwrap_or_else(|e| panic!("jupiter.toml does not load: {e}"));
    assert_eq!(v.piece_count(), 161);
    v
}

/// `JUPITER_PROPERTY_SCALE` times as many games (1 if unset): a longer hunt for bugs, by hand.
fn scale() -> usize {
    std::env::var("JUPITER_PROPERTY_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1)
}

fn kind(v: &Variant, token: &str) -> PieceType {
    v.piece_by_token(token).unwrap_or_else(|| panic!("jupiter.toml has no piece {token}"))
}

/// The pieces behind Jupiter's own move forms, drawn half of the time: Doubler, the relays, the
/// Teleporter, Ox and Dragon Tanks, Come Here, Go Away, Tribble, Poisoner, Deadly Nightshade,
/// Kamikaze, Immobilizer, Fiery Dragon, Cuckoo.
const FEATURED: &[&str] = &[
    "DBL", "DBL", "RLW", "RLF", "ZOO", "DER", "HA", "TLP", "OXT", "DRT", "CMH", "GOA", "TRB", "PSN", "DNI", "KAM",
    "IM", "FID", "COO",
];

fn featured(v: &Variant) -> Vec<PieceType> {
    FEATURED.iter().map(|t| kind(v, t)).collect()
}

/// A random sparse position: both Kings and 1 to 12 more pieces a side, of `types` (half of
/// the draws from `featured` if it is not empty), none next to a hostile Fiery Dragon.
fn sparse(v: &Arc<Variant>, rng: &mut StdRng, types: &[PieceType], featured: &[PieceType]) -> Position {
    let d = v.dims;
    let fid = kind(v, "FID");
    let mut board: Vec<Option<Piece>> = vec![None; d.squares()];
    let place = |board: &mut Vec<Option<Piece>>, piece: Piece, rng: &mut StdRng| {
        for _ in 0..1000 {
            let sq = Square(rng.gen_range(0..d.squares()) as u16);
            let (f, r) = (d.file(sq), d.rank(sq));
            let burning = (-1..=1).any(|df| {
                (-1..=1).any(|dr| {
                    d.square(f + df, r + dr)
                        .and_then(|n| board[n.index()])
                        .is_some_and(|o| o.color() != piece.color() && (o.kind() == fid || piece.kind() == fid))
                })
            });
            if board[sq.index()].is_none() && !burning {
                board[sq.index()] = Some(piece);
                return;
            }
        }
    };
    for color in Color::BOTH {
        place(&mut board, Piece::new(kind(v, "K"), color), rng);
    }
    for color in Color::BOTH {
        for _ in 0..rng.gen_range(1..=12) {
            let t = match featured.choose(rng) {
                Some(&t) if rng.gen_bool(0.5) => t,
                _ => *types.choose(rng).unwrap(),
            };
            place(&mut board, Piece::new(t, color), rng);
        }
    }
    let mut fen = String::new();
    for rank in (0..d.height as i32).rev() {
        let mut empty = 0;
        for file in 0..d.width as i32 {
            match board[d.square(file, rank).unwrap().index()] {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        fen.push_str(&empty.to_string());
                        empty = 0;
                    }
                    fen.push_str(&v.piece_token(p));
                }
            }
        }
        if empty > 0 {
            fen.push_str(&empty.to_string());
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    fen.push_str(if rng.gen_bool(0.5) { " w" } else { " b" });
    Position::from_fen(Arc::clone(v), &fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// Positions of random play from `start`, biased toward doubled turns and Jupiter's own
/// actions so that games keep their Doublers and Tribbles busy.
fn played_from(start: Position, plies: usize, rng: &mut StdRng, out: &mut Vec<Position>) {
    let mut pos = start;
    let mut moves = MoveList::new();
    for _ in 0..plies {
        pos.legal_moves(&mut moves);
        if moves.is_empty() || pos.outcome_with(&moves).is_some() {
            break;
        }
        out.push(pos.clone());
        let special: Vec<Move> = moves
            .iter()
            .copied()
            .filter(|m| m.is_doubled() || matches!(m.kind, MoveKind::Push | MoveKind::Pull | MoveKind::Reproduce))
            .collect();
        let m = match special.choose(rng) {
            Some(m) if rng.gen_bool(0.3) => *m,
            _ => *moves.choose(rng).unwrap(),
        };
        pos.make(m);
    }
}

/// Features per move kind seen, for the coverage report.
#[derive(Default, Debug)]
struct Seen {
    moves: usize,
    doubled: usize,
    pushes: usize,
    pulls: usize,
    reproductions: usize,
    shoves: usize,
}

/// Checks that distinct legal moves of every position get distinct features (a move that
/// `legal_moves` lists twice is one move: rules/tests/jupiter_properties.rs reports those).
fn check_positions(v: &Arc<Variant>, positions: &[Position], seen: &mut Seen) {
    let enc = StandardEncoding::new(Arc::clone(v));
    let n = v.dims.squares() as u16;
    for pos in positions {
        let moves = common::legal(pos);
        let mut by_features: HashMap<MoveFeatures, Move> = HashMap::with_capacity(moves.len());
        for m in &moves {
            let f = enc.encode_move(pos, m);
            assert!(f.from < n && f.to < n && (f.aux == NO_SQUARE || f.aux < n), "squares out of range in {f:?}");
            assert_eq!(f.second.is_some(), m.is_doubled(), "{} in {}", pos.move_to_string(m), pos.to_fen());
            if let Some(second) = &f.second {
                assert!(second.from < n && second.to < n, "second action out of range in {f:?}");
                assert!(second.aux == NO_SQUARE || second.aux < n);
            }
            if let Some(other) = by_features.insert(f, *m) {
                assert_eq!(
                    other,
                    *m,
                    "moves {} and {} share features {f:?} in {}",
                    pos.move_to_string(&other),
                    pos.move_to_string(m),
                    pos.to_fen()
                );
            }
            seen.moves += 1;
            seen.doubled += m.is_doubled() as usize;
            for action in [Some(m.first_action()), m.second_action()].into_iter().flatten() {
                match action.kind {
                    MoveKind::Push => seen.pushes += 1,
                    MoveKind::Pull => seen.pulls += 1,
                    MoveKind::Reproduce => seen.reproductions += 1,
                    MoveKind::Shove => seen.shoves += 1,
                    _ => {}
                }
            }
        }
    }
}

#[test]
fn distinct_jupiter_moves_get_distinct_features_from_the_arrays() {
    let v = jupiter();
    let mut rng = StdRng::seed_from_u64(0xfea7_0001);
    let mut positions = Vec::new();
    played_from(Position::start(Arc::clone(&v)), 40, &mut rng, &mut positions);
    played_from(Position::setup_start(Arc::clone(&v)).unwrap(), 60, &mut rng, &mut positions);
    for _ in 0..2 * scale() {
        // The setup plies read bits 0-6 and 8-37 (bit 7 is the fixed Regal pair).
        let mask = rng.gen::<u64>() & ((1 << 38) - 1) & !(1 << 7);
        let start = Position::from_setup_text(Arc::clone(&v), &format!("setup:{mask:x}")).unwrap();
        played_from(start, 40, &mut rng, &mut positions);
    }
    let mut seen = Seen::default();
    check_positions(&v, &positions, &mut seen);
    eprintln!("arrays: {} positions, {seen:?}", positions.len());
    assert!(seen.moves > 10_000, "{seen:?}");
}

#[test]
fn distinct_jupiter_moves_get_distinct_features_in_sparse_positions() {
    let v = jupiter();
    let all: Vec<PieceType> = (0..v.piece_count()).map(|i| PieceType(i as u8)).collect();
    let mut rng = StdRng::seed_from_u64(0xfea7_0002);
    let mut positions = Vec::new();
    for _ in 0..40 * scale() {
        let start = sparse(&v, &mut rng, &all, &featured(&v));
        played_from(start, 8, &mut rng, &mut positions);
    }
    let mut seen = Seen::default();
    check_positions(&v, &positions, &mut seen);
    eprintln!("sparse: {} positions, {seen:?}", positions.len());
    for (what, n) in [
        ("doubled turns", seen.doubled),
        ("pushes", seen.pushes),
        ("pulls", seen.pulls),
        ("reproductions", seen.reproductions),
        ("shoves", seen.shoves),
    ] {
        assert!(n > 0, "no {what} among the moves checked: {seen:?}");
    }
}

/// The trainer mirrors only positions that `Position::mirror_safe` allows: no Jupiter array (each
/// holds the asymmetric Right and Left Generals), no position with an asymmetric piece; and where
/// it does, the mirrored batch is the encoding of the mirrored position: the same pieces, planes
/// and globals, the same single-action moves, and as many doubled turns. Doubled turns are merged
/// by their combined effect with one route standing for all (jupiter.md §9.2), and the route kept
/// is the smallest in square order, which the mirror does not keep; the routes that differ are
/// counted, not compared. Likewise the position's one pass names a passer that the mirror may not
/// name: passes are compared by kind.
#[test]
fn mirrored_jupiter_batches_match_the_mirrored_positions() {
    let v = jupiter();
    let mut rng = StdRng::seed_from_u64(0xfea7_0003);
    assert!(!Position::start(Arc::clone(&v)).mirror_safe());
    for _ in 0..5 {
        let mask = rng.gen::<u64>() & ((1 << 38) - 1) & !(1 << 7);
        let pos = Position::from_setup_text(Arc::clone(&v), &format!("setup:{mask:x}")).unwrap();
        assert!(!pos.mirror_safe(), "setup:{mask:x} holds asymmetric pieces");
    }
    let enc = StandardEncoding::new(Arc::clone(&v));
    let symmetric: Vec<PieceType> =
        (0..v.piece_count()).map(|i| PieceType(i as u8)).filter(|t| v.mirror_safe[t.index()]).collect();
    let asymmetric: Vec<PieceType> =
        (0..v.piece_count()).map(|i| PieceType(i as u8)).filter(|t| !v.mirror_safe[t.index()]).collect();
    let symmetric_featured: Vec<PieceType> = featured(&v).into_iter().filter(|t| v.mirror_safe[t.index()]).collect();
    let (mut checked, mut doubled, mut other_route) = (0, 0, 0);
    for round in 0..80 * scale() {
        let (types, picks) =
            if round % 4 == 3 { (&asymmetric, &[][..]) } else { (&symmetric, &symmetric_featured[..]) };
        let a = sparse(&v, &mut rng, types, picks);
        let has_asymmetric = a.board().iter().flatten().any(|p| !v.mirror_safe[p.kind().index()]);
        // A Doubler on the board makes a position unfit for the mirror (doubled turns keep one
        // route chosen by square order): see `Position::mirror_safe`.
        let has_doubler = a.board().iter().flatten().any(|p| v.pieces[p.kind().index()].token == "DBL");
        assert_eq!(a.mirror_safe(), !has_asymmetric && !has_doubler, "{}", a.to_fen());
        let Some(b) = a.mirrored() else { continue };
        let b = b.unwrap();
        let (la, lb) = (common::legal(&a), common::legal(&b));
        let mut batch = enc.encode_batch([(&a, la.as_slice())]);
        mirror_left_right(&mut batch, &[true]);
        let direct = enc.encode_batch([(&b, lb.as_slice())]);
        assert_eq!(batch.pieces(), direct.pieces(), "pieces: {}", a.to_fen());
        assert_eq!(batch.planes(), direct.planes(), "planes: {}", a.to_fen());
        assert_eq!(batch.global(), direct.global(), "global: {}", a.to_fen());
        // The one pass of a position is encoded without its passer's square, so it maps too.
        let split = |features: &[MoveFeatures]| {
            let mut single: Vec<MoveFeatures> = features.iter().filter(|f| f.second.is_none()).copied().collect();
            single.sort_unstable();
            single.dedup();
            let doubled: HashSet<MoveFeatures> = features.iter().filter(|f| f.second.is_some()).copied().collect();
            (single, doubled)
        };
        let (mirrored_single, mirrored_doubled) = split(batch.moves_of(0));
        let (direct_single, direct_doubled) = split(direct.moves_of(0));
        let only = |x: &[MoveFeatures], y: &[MoveFeatures]| -> Vec<String> {
            x.iter()
                .filter(|f| !y.contains(f))
                .map(|f| format!("kind {} {}->{} mover {} aux {}", f.kind, f.from, f.to, f.mover, f.aux))
                .collect()
        };
        assert!(
            mirrored_single == direct_single,
            "single actions of {} mirrored: only in the mirrored batch {:?}, only in the direct encoding {:?}",
            a.to_fen(),
            only(&mirrored_single, &direct_single),
            only(&direct_single, &mirrored_single)
        );
        assert_eq!(mirrored_doubled.len(), direct_doubled.len(), "doubled turns of {} mirrored", a.to_fen());
        doubled += mirrored_doubled.len();
        other_route += mirrored_doubled.difference(&direct_doubled).count();
        checked += 1;
    }
    eprintln!("mirror: {checked} positions, {doubled} doubled turns, {other_route} with another route in the image");
    assert!(checked >= 20, "only {checked} mirror-safe positions");
    assert_eq!(other_route, 0, "mirror-safe positions have no Doubler, so every doubled turn maps");
}
