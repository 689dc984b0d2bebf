//! Move features identify moves: over the legal moves of many random positions of every variant
//! (built-in and synthetic 16x16 / 18x18 boards with 100+ piece types), no two distinct moves
//! get identical features. This is what lets the policy give every legal move its own logit
//! without a per-variant move table.

mod common;

use std::{collections::HashMap, sync::Arc};

use fairyzero_model::{
    encoding::{Encoding, MoveFeatures, NO_SQUARE},
    StandardEncoding,
};
use fairyzero_rules::{variant::builtin_names, Move, MoveKind, PieceType, Position, Square, Variant};

fn check_positions(variant: &Arc<Variant>, positions: &[Position]) -> usize {
    let enc = StandardEncoding::new(Arc::clone(variant));
    let mut checked = 0;
    for pos in positions {
        let moves = common::legal(pos);
        let mut seen: HashMap<MoveFeatures, Move> = HashMap::with_capacity(moves.len());
        for m in &moves {
            let f = enc.encode_move(pos, m);
            let n = variant.dims.squares() as u16;
            assert!(f.from < n && f.to < n, "{}: squares out of range in {f:?}", variant.name);
            assert!(f.aux == NO_SQUARE || f.aux < n);
            if let Some(other) = seen.insert(f, *m) {
                assert_eq!(
                    other,
                    *m,
                    "{}: moves {} and {} share features {f:?} in {}",
                    variant.name,
                    pos.move_to_string(&other),
                    pos.move_to_string(m),
                    pos.to_fen()
                );
            }
        }
        checked += moves.len();
    }
    checked
}

#[test]
fn distinct_moves_get_distinct_features_in_every_builtin_variant() {
    let mut total = 0;
    for name in builtin_names() {
        let v = Variant::load(name).unwrap();
        let positions = common::random_positions(&v, 12, 120, 0xfea7 ^ v.hash);
        assert!(positions.len() > 100, "{name}: only {} positions", positions.len());
        let n = check_positions(&v, &positions);
        assert!(n > 1000, "{name}: only {n} moves checked");
        total += n;
    }
    println!("{total} moves checked");
}

#[test]
fn distinct_moves_get_distinct_features_on_large_synthetic_boards() {
    for (w, h, types) in [(12, 12, 75), (16, 16, 120), (18, 18, 200)] {
        let v = Variant::load(&format!("synthetic:{w}x{h}:{types}")).unwrap_or_else(|e| panic!("{e}"));
        let positions = common::random_positions(&v, 3, 60, 7);
        assert!(check_positions(&v, &positions) > 1000);
    }
}

/// Kinds the built-in variants do not produce yet (Typhoon and Jupiter will): moves that share
/// from and to but differ in kind, aux square, captures or piece still differ in features.
#[test]
fn every_move_field_reaches_the_features() {
    let v = Variant::load("scirocco").unwrap();
    let pos = Position::start(Arc::clone(&v));
    let enc = StandardEncoding::new(Arc::clone(&v));
    let (a, b, c, d) = (Square(11), Square(22), Square(33), Square(44));
    let base = Move::normal(a, a);
    let mut moves = vec![
        base,
        base.with_kind(MoveKind::Pass),
        base.with_kind(MoveKind::SelfCapture),
        base.with_kind(MoveKind::Stationary).with_capture(b),
        base.with_kind(MoveKind::Stationary).with_capture(c),
        base.with_kind(MoveKind::Stationary).with_capture(b).with_capture(c),
        base.with_kind(MoveKind::Convert).with_aux(b),
        base.with_kind(MoveKind::Push).with_aux(b),
        base.with_kind(MoveKind::Pull).with_aux(b),
        base.with_kind(MoveKind::Reproduce).with_aux(b),
        base.with_kind(MoveKind::Drop).with_piece(Some(PieceType(3))),
        base.with_kind(MoveKind::Drop).with_piece(Some(PieceType(4))),
        base.with_kind(MoveKind::Setup).with_piece(None),
        base.with_kind(MoveKind::Setup).with_piece(Some(PieceType(3))),
        Move::normal(a, d),
        Move::normal(a, d).with_piece(Some(PieceType(5))),
        Move::normal(a, d).with_capture(b),
        Move::normal(a, d).with_capture(b).with_capture(c),
        Move::normal(a, d).with_kind(MoveKind::Swap),
        Move::normal(a, d).with_kind(MoveKind::Castle).with_aux(c),
    ];
    for side_to_move in [false, true] {
        let pos = if side_to_move {
            let mut p = pos.clone();
            let m = common::legal(&p)[0];
            p.make(m);
            p
        } else {
            pos.clone()
        };
        let mut seen = HashMap::new();
        for m in &moves {
            let f = enc.encode_move(&pos, m);
            assert!(seen.insert(f, *m).is_none(), "{m:?} collides with {:?}", seen[&f]);
        }
    }
    // Captured squares are canonical: the order they were added in does not matter.
    moves.clear();
    let x = Move::normal(a, d).with_capture(c).with_capture(b);
    let y = Move::normal(a, d).with_capture(b).with_capture(c);
    assert_eq!(enc.encode_move(&pos, &x), enc.encode_move(&pos, &y));
}

/// Doubled turns (jupiter.md §5.3, §9.2): a doubled turn differs from its first action alone,
/// and doubled turns that differ only in the second action's kind, squares, promotion, aux
/// square or removed squares, or only in which action removes a square, get distinct features,
/// for either side to move; the left-right mirror maps the second action too. Hand-made moves on
/// a 16x16 board (no built-in variant generates doubled turns yet).
#[test]
fn doubled_turns_get_distinct_features() {
    let v = Variant::load("synthetic:16x16:120").unwrap();
    let enc = StandardEncoding::new(Arc::clone(&v));
    let (a, b, c, d, e) = (Square(40), Square(41), Square(57), Square(73), Square(42));
    let first = Move::normal(a, b);
    let at = |sq: Square, kind: MoveKind| Move::normal(sq, sq).with_kind(kind);
    let moves = vec![
        first,
        first.with_kind(MoveKind::Shove),
        Move::doubled(first, Move::normal(b, c)),
        Move::doubled(first, Move::normal(b, d)),
        Move::doubled(first, Move::normal(b, c).with_kind(MoveKind::Shove)),
        Move::doubled(first, Move::normal(b, c).with_piece(Some(PieceType(3)))),
        Move::doubled(first, Move::normal(b, c).with_piece(Some(PieceType(4)))),
        Move::doubled(first.with_piece(Some(PieceType(3))), Move::normal(b, c)),
        Move::doubled(first, Move::normal(b, c).with_capture(e)),
        Move::doubled(first.with_capture(e), Move::normal(b, c)),
        Move::doubled(first.with_capture(e), Move::normal(b, c).with_capture(d)),
        Move::doubled(first.with_capture(d), Move::normal(b, c).with_capture(e)),
        Move::doubled(first, at(b, MoveKind::Stationary).with_capture(e)),
        Move::doubled(first, at(b, MoveKind::Push).with_aux(c)),
        Move::doubled(first, at(b, MoveKind::Pull).with_aux(c)),
        Move::doubled(first, at(b, MoveKind::Reproduce).with_aux(c)),
        Move::doubled(first, at(b, MoveKind::Convert).with_aux(c)),
        Move::doubled(first, Move::normal(b, c).with_kind(MoveKind::Swap)),
        Move::doubled(at(a, MoveKind::Stationary).with_capture(b), Move::normal(a, c)),
        Move::doubled(Move::normal(a, c), Move::normal(c, a)),
        Move::doubled(Move::normal(c, a), Move::normal(a, c)),
        // Relayed actions: the second action need not start where the first ended.
        Move::doubled(Move::normal(a, c), Move::normal(d, e)),
        Move::doubled(Move::normal(d, e), Move::normal(a, c)),
    ];
    let mut pos = Position::start(Arc::clone(&v));
    for _ in 0..2 {
        let mut seen = HashMap::new();
        for m in &moves {
            let f = enc.encode_move(&pos, m);
            assert_eq!(f.second.is_some(), m.is_doubled());
            assert!(seen.insert(f, *m).is_none(), "{m:?} collides with {:?}", seen[&f]);
        }
        // The mirror moves the second action's squares and undoes itself.
        let original = enc.encode_batch([(&pos, moves.as_slice())]);
        let mut batch = original.clone();
        fairyzero_model::mirror::mirror_left_right(&mut batch, &[true]);
        let (f, g) = (&original.moves()[8], &batch.moves()[8]);
        let (fs, gs) = (f.second.unwrap(), g.second.unwrap());
        assert_eq!((gs.from % 16, gs.to % 16), (15 - fs.from % 16, 15 - fs.to % 16));
        assert_eq!(gs.captures()[0] % 16, 15 - fs.captures()[0] % 16);
        fairyzero_model::mirror::mirror_left_right(&mut batch, &[true]);
        assert_eq!(batch, original);
        let m = common::legal(&pos)[0];
        pos.make(m);
    }
}

/// Jupiter's E26 (a doubled Wazir, jupiter.md §10.1): the generated doubled turns and single
/// steps of the Wazir all get distinct features.
#[test]
fn jupiter_e26_doubled_turns_get_distinct_features() {
    let v = Variant::load(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/variants/jupiter.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    let pos = Position::from_fen(Arc::clone(&v), "k15/16/16/16/16/16/16/7p8/6PW8/16/16/16/16/1K14/16/7(DBL)8 w")
        .unwrap_or_else(|e| panic!("{e}"));
    let moves = common::legal(&pos);
    assert!(moves.iter().filter(|m| m.is_doubled()).count() >= 8, "E26 has 8 doubled turns of the Wazir");
    assert_eq!(check_positions(&v, &[pos]), moves.len());
}
