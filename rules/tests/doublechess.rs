//! Double Chess (list #41, `configs/variants/doublechess.toml`): 16x12, two orthodox armies a
//! side with two royal kings, each king castling with either rook of its half (castling given
//! move by move, rights named by rook files), pawns stepping up to four squares with en passant
//! on every square passed. No reference engine reaches 16x12: these worked examples and the
//! hand-counted start perft (`tests/data/doublechess.perft`) are the references, with the
//! property tests of `tests/properties.rs`.

mod support;

use std::sync::Arc;

use fairyzero_rules::{Position, Variant};
use support::worked::legal_texts as legal;

fn variant() -> Arc<Variant> {
    Variant::load("doublechess").unwrap_or_else(|e| panic!("doublechess: {e}"))
}

fn position(fen: &str) -> Position {
    Position::from_fen(variant(), fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

const OPEN: &str = "r3k2rr3k2r/pppppppppppppppp/16/16/16/16/16/16/16/16/PPPPPPPPPPPPPPPP/R3K2RR3K2R w AHIPahip - 0 1";

#[test]
fn start_position_and_its_first_moves() {
    let pos = Position::start(variant());
    assert_eq!(
        pos.to_fen(),
        "rnbqkbnrrnbqkbnr/pppppppppppppppp/16/16/16/16/16/16/16/16/PPPPPPPPPPPPPPPP/RNBQKBNRRNBQKBNR w AHIPahip - 0 1"
    );
    // Sixteen pawns with one to four steps, four knights with two moves each.
    let moves = legal(&mut pos.clone());
    assert_eq!(moves.len(), 16 * 4 + 4 * 2, "{moves:?}");
    assert!(["a2a3", "a2a4", "a2a5", "a2a6"].iter().all(|m| moves.contains(*m)), "{moves:?}");
}

#[test]
fn each_king_castles_with_either_rook_of_its_half_only() {
    let mut pos = position(OPEN);
    let moves = legal(&mut pos);
    let castles: Vec<&String> = moves
        .iter()
        .filter(|m| m.starts_with("e1") || m.starts_with("m1"))
        .filter(|m| {
            m.len() == 4 && {
                let to = m.as_bytes()[2];
                let from = m.as_bytes()[0];
                to.abs_diff(from) == 2
            }
        })
        .collect();
    assert_eq!(castles, ["e1c1", "e1g1", "m1k1", "m1o1"], "{moves:?}");
    let mut after = pos.clone();
    after.play_moves("m1o1").unwrap();
    // The m-king has castled (both its rights gone); the e-king keeps its own, now alone on
    // each side, so they print as K and Q.
    assert_eq!(
        after.to_fen(),
        "r3k2rr3k2r/pppppppppppppppp/16/16/16/16/16/16/16/16/PPPPPPPPPPPPPPPP/R3K2RR4RK1 b KQahip - 1 1"
    );
    after.play_moves("e12c12").unwrap();
    assert_eq!(
        after.to_fen(),
        "2kr3rr3k2r/pppppppppppppppp/16/16/16/16/16/16/16/16/PPPPPPPPPPPPPPPP/R3K2RR4RK1 w KQkq - 2 2"
    );
    // Moving the h-rook loses the e-king's h-right only; the p-rook's right is then the only
    // one toward the higher files, so it prints as K (the file letter would read the same).
    let mut rook = pos.clone();
    rook.play_moves("h1g1").unwrap();
    assert!(rook.to_fen().contains(" b KAIahip "), "{}", rook.to_fen());
    let shredder = position(&rook.to_fen().replace(" KAIahip ", " AIPahip "));
    assert_eq!((shredder.to_fen(), shredder.hash()), (rook.to_fen(), rook.hash()));
    // Position strings read back, with the hash.
    for p in [&pos, &after, &rook] {
        let back = position(&p.to_fen());
        assert_eq!((back.to_fen(), back.hash()), (p.to_fen(), p.hash()));
    }
}

#[test]
fn pawns_step_up_to_four_and_are_taken_en_passant_on_every_square_passed() {
    // Black pawns on d4, f5 and d6 each watch one square of e2-e6 (e3, e4, e5).
    let mut pos = position("4k7k3/16/16/16/16/16/3p12/5p10/3p12/16/4P11/4K7K3 w - - 0 1");
    let moves = legal(&mut pos.clone());
    assert!(["e2e3", "e2e4", "e2e5", "e2e6"].iter().all(|m| moves.contains(*m)), "{moves:?}");
    pos.play_moves("e2e6").unwrap();
    assert_eq!(pos.to_fen(), "4k7k3/16/16/16/16/16/3pP11/5p10/3p12/16/16/4K7K3 b - e3e4e5 0 1");
    let moves = legal(&mut pos.clone());
    assert!(moves.contains("d4e3") && moves.contains("f5e4") && moves.contains("d6e5"), "{moves:?}");
    for (m, fen) in [
        ("d4e3", "4k7k3/16/16/16/16/16/3p12/5p10/16/4p11/16/4K7K3 w - - 0 2"),
        ("f5e4", "4k7k3/16/16/16/16/16/3p12/16/3pp11/16/16/4K7K3 w - - 0 2"),
        ("d6e5", "4k7k3/16/16/16/16/16/16/4pp10/3p12/16/16/4K7K3 w - - 0 2"),
    ] {
        let mut p = pos.clone();
        p.play_moves(m).unwrap();
        assert_eq!(p.to_fen(), fen, "{m}");
    }
    let back = position(&pos.to_fen());
    assert_eq!((back.to_fen(), back.hash()), (pos.to_fen(), pos.hash()));
}

#[test]
fn either_king_in_check_must_be_answered_and_castling_never_crosses_an_attack() {
    // The black rook on l3... on n12 attacks n1 (the m-king's castling path to o1): m1o1 is
    // refused, m1k1 is not; a check on the e-king stops every castling.
    let moves = legal(&mut position("4k7kr2/16/16/16/16/16/16/16/16/16/16/R3K2RR3K2R w AHIP - 0 1"));
    assert!(moves.contains("m1k1") && moves.contains("e1g1") && !moves.contains("m1o1"), "{moves:?}");
    let moves = legal(&mut position("4r7k3/16/16/16/16/16/16/16/16/16/16/R3K2RR3K2R w AHIP - 0 1"));
    assert!(!moves.iter().any(|m| ["e1c1", "e1g1", "m1k1", "m1o1"].contains(&m.as_str())), "{moves:?}");
}

/// Castling given move by move refuses what it cannot play, naming the field; so does a lame
/// step longer than the move tables keep.
#[test]
fn bad_castling_moves_and_long_lame_steps_are_refused_naming_the_field() {
    let err = |castling: &str| {
        let text =
            format!("name = \"bad\"\nextends = \"doublechess\"\n[castling]\nking = \"K\"\nrook = \"R\"\n{castling}");
        Variant::from_toml("bad", &text, None).map(|_| ()).expect_err(castling).to_string()
    };
    let e = err("moves = [{ king = \"e\", rook = \"a\", king_to = \"e\" }]\n");
    assert!(e.contains("castling.moves") && e.contains("does not move"), "{e}");
    let e = err("moves = [{ king = \"e\", rook = \"z\", king_to = \"c\" }]\n");
    assert!(e.contains("castling.moves.rook") && e.contains("'z'"), "{e}");
    let e = err(
        "moves = [{ king = \"e\", rook = \"a\", king_to = \"c\" }, { king = \"e\", rook = \"b\", king_to = \"d\" }]\n",
    );
    assert!(e.contains("toward the same side"), "{e}");
    let e = err(
        "moves = [{ king = \"a\", rook = \"h\", king_to = \"b\" }, { king = \"c\", rook = \"h\", king_to = \"d\" }, \
         { king = \"e\", rook = \"h\", king_to = \"f\" }]\n",
    );
    assert!(e.contains("at most two king files"), "{e}");
    let e = err("moves = [{ king = \"m\", rook = \"k\", king_to = \"l\" }]\n");
    assert!(e.contains("file k or q"), "{e}");
    let e = err(
        "kingside_file = \"g\"\nqueenside_file = \"c\"\nmoves = [{ king = \"e\", rook = \"a\", king_to = \"c\" }]\n",
    );
    assert!(e.contains("field `castling`") && e.contains("not both"), "{e}");
    let e = err("moves = [{ king = \"e\", rook = \"a\", to = \"c\" }]\n");
    assert!(e.contains("unknown field") && e.contains("to"), "{e}");
    let text = "name = \"bad\"\nextends = \"doublechess\"\n[[piece]]\ntoken = \"P\"\nbetza = \"fmWifmn(5,0)\"\n";
    let e = Variant::from_toml("bad", text, None).map(|_| ()).expect_err("long lame step").to_string();
    assert!(e.contains("field `betza`") && e.contains("at most three squares"), "{e}");
}
