//! The neutral token (`[neutral_token]`: Shadow, Imitator, Salt Shaker Chess) is seen in the
//! piece-id plane: its square has the id `1 + 2 * types`, the one extra row of the board
//! vocabulary that these variants have ([`board_vocab`]), rotated with the board for the second
//! player like every square. Positions that differ only in the token's square encode apart.

mod common;

use std::sync::Arc;

use fairyzero_model::{
    encoding::{board_vocab, piece_vocab},
    StandardEncoding,
};
use fairyzero_rules::{Position, Variant};

fn ids(pos: &Position) -> Vec<i64> {
    let enc = StandardEncoding::new(Arc::clone(pos.variant()));
    let moves = common::legal(pos);
    let batch = enc.encode_batch([(pos, moves.as_slice())]);
    batch.pieces().iter().copied().collect()
}

/// Row-major index (rank 1 first) of a square name on an 8x8 board.
fn index(square: &str) -> usize {
    let b = square.as_bytes();
    (b[1] - b'1') as usize * 8 + (b[0] - b'a') as usize
}

#[test]
fn the_token_has_an_id_of_its_own_on_its_square() {
    for name in ["shadow", "imitator", "saltshaker"] {
        let v = Variant::load(name).unwrap();
        let token_id = piece_vocab(v.piece_count()) as i64;
        assert_eq!(board_vocab(&v), piece_vocab(v.piece_count()) + 1, "{name}");
        let mut pos = Position::start(Arc::clone(&v));
        let start = ids(&pos);
        assert_eq!(start[index("d4")], token_id, "{name}");
        assert_eq!(start.iter().filter(|&&id| id == token_id).count(), 1);
        assert!(start.iter().all(|&id| (0..board_vocab(&v) as i64).contains(&id)));
        // e2-e4 moves it to d6; Black to move sees the board rotated: d6 is e3 from its side.
        let m = pos.parse_move("e2e4").unwrap();
        pos.make(m);
        assert_eq!(pos.neutral_token().map(|s| v.dims.square_name(s)), Some("d6".into()));
        let after = ids(&pos);
        assert_eq!(after[63 - index("d6")], token_id, "{name}");
        assert_eq!(after.iter().filter(|&&id| id == token_id).count(), 1);
    }
    // Variants without a token keep their vocabulary.
    let chess = Variant::load("chess").unwrap();
    assert_eq!(board_vocab(&chess), piece_vocab(chess.piece_count()));
}

#[test]
fn positions_that_differ_only_in_the_token_encode_apart() {
    let v = Variant::load("imitator").unwrap();
    let a = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/3*4/8/8/4K3 w - - 0 1").unwrap();
    let b = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/4*3/8/8/4K3 w - - 0 1").unwrap();
    assert_ne!(ids(&a), ids(&b));
}
