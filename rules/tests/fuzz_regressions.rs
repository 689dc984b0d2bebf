//! Inputs found by the fuzz targets (`fuzz/`, `make fuzz`), each kept as a test once fixed.

use std::sync::Arc;

use fairyzero_rules::{MoveKind, MoveList, Position, Variant};

/// Every legal move prints to a string that parses back to that very move.
fn assert_moves_round_trip(pos: &mut Position) {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    for &m in moves.iter() {
        let text = pos.move_to_string(&m);
        assert_eq!(pos.parse_move(&text), Ok(m), "{text} in {}", pos.to_fen());
    }
}

/// fuzz target `position`: a king on b1 castling queenside lands on c1, where its plain step
/// also lands; both printed `b1c1`, so the castling could not be entered.
#[test]
fn castling_by_one_file_differs_from_the_king_step() {
    let chess = Variant::load("chess").unwrap();
    let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/RK3R2 w KQkq - 0 1";
    let mut pos = Position::from_fen(Arc::clone(&chess), fen).unwrap();
    assert_moves_round_trip(&mut pos);
    assert_eq!(pos.parse_move("b1a1").unwrap().kind, MoveKind::Castle);
    assert_eq!(pos.parse_move("b1c1").unwrap().kind, MoveKind::Normal);
}

/// fuzz target `position`: an empty-square count near `usize::MAX` overflowed the file counter.
#[test]
fn huge_empty_square_counts_are_refused() {
    let chess = Variant::load("chess").unwrap();
    for board in ["P18446744073709551615/8/8/8/8/8/8/8 w - - 0 1", "8/8/8/8/8/8/8/9 w - - 0 1"] {
        let e = Position::from_fen(Arc::clone(&chess), board).unwrap_err().to_string();
        assert!(e.contains("rank") && e.contains("more than 8 files"), "{e}");
    }
}

/// docs/notation.md requires the side to move; a board alone used to mean Blue to move.
#[test]
fn the_side_to_move_is_required() {
    let chess = Variant::load("chess").unwrap();
    let e = Position::from_fen(chess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR").unwrap_err().to_string();
    assert!(e.contains("side to move is missing") && e.contains("'w' or 'b'"), "{e}");
}

/// Multi-byte characters are named intact, at their character (not byte) offset.
#[test]
fn non_ascii_characters_are_named_intact() {
    let chess = Variant::load("chess").unwrap();
    let e = Position::from_fen(Arc::clone(&chess), "ééé/8/8/8/8/8/8/8 w").unwrap_err().to_string();
    assert!(e.contains("character 1") && e.contains("'é'"), "{e}");
    let e = Position::from_fen(Arc::clone(&chess), "8/7é/8/8/8/8/8/8 w").unwrap_err().to_string();
    assert!(e.contains("character 4") && e.contains("'é'"), "{e}");
    let e = Position::from_fen(Arc::clone(&chess), "8/8/8/8/8/8/8/8 é").unwrap_err().to_string();
    assert!(e.contains("character 17") && e.contains("\"é\""), "{e}");
    let mut pos = Position::start(chess);
    let e = pos.parse_move("e2é4").unwrap_err().to_string();
    assert!(e.contains("character 3 ('é')"), "{e}");
}

/// A promotion suffix starting with a multi-byte character was sliced inside it (a panic).
#[test]
fn multi_byte_promotion_suffix_is_an_error() {
    let mut pos = Position::start(Variant::load("scirocco").unwrap());
    let e = pos.parse_move("a2a3=é").unwrap_err().to_string();
    assert!(e.contains("'é'") && e.contains("unknown piece token"), "{e}");
    let e = pos.parse_move("a2a3xé").unwrap_err().to_string();
    assert!(e.contains("character 6 ('é')"), "{e}");
}
