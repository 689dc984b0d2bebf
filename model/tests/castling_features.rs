//! The castling features see the rights of either castling king (castling given move by move,
//! `fairyzero_rules::variant::castling`): in Double King Chess the g-file king castles toward
//! the higher files and the d-file king toward a, each with its own right (bits 4-7 hold the
//! second king file's), and in ICS wild 1 a d-file king's rights read as chess's.

mod common;

use std::sync::Arc;

use fairyzero_model::{encoding::global, StandardEncoding};
use fairyzero_rules::{Position, Variant};

fn globals(pos: &Position) -> Vec<f32> {
    let enc = StandardEncoding::new(Arc::clone(pos.variant()));
    let moves = common::legal(pos);
    let batch = enc.encode_batch([(pos, moves.as_slice())]);
    batch.global().row(0).to_vec()
}

/// (ours toward h, ours toward a, theirs toward h, theirs toward a).
fn rights(pos: &Position) -> [f32; 4] {
    let g = globals(pos);
    [g[global::CASTLE_OURS_H], g[global::CASTLE_OURS_A], g[global::CASTLE_THEIRS_H], g[global::CASTLE_THEIRS_A]]
}

#[test]
fn each_king_of_double_king_chess_has_its_own_feature() {
    let v = Variant::load("doubleking").unwrap();
    let mut pos =
        Position::from_fen(Arc::clone(&v), "r2kqqk2r/pppppppppp/10/10/10/10/10/10/PPPPPPPPPP/R2KQQK2R w KQkq - 0 1")
            .unwrap();
    assert_eq!(rights(&pos), [1.0; 4]);
    // The g-king steps: White's right toward the higher files (its only one) is gone, the d-king's
    // toward a stays; seen from Black, to move now.
    let m = pos.parse_move("g1h1").unwrap();
    pos.make(m);
    assert_eq!(rights(&pos), [1.0, 1.0, 0.0, 1.0]);
    let m = pos.parse_move("d10b10").unwrap();
    pos.make(m);
    assert_eq!(rights(&pos), [0.0, 1.0, 1.0, 0.0]);
}

#[test]
fn a_d_file_kings_rights_read_as_chess_rights() {
    let v = Variant::load("wild1").unwrap();
    let pos = Position::from_fen(v, "r2k3r/pppppppp/8/8/8/8/PPPPPPPP/R2K3R w Kq - 0 1").unwrap();
    assert_eq!(rights(&pos), [1.0, 0.0, 0.0, 1.0]);
}
