//! The halfmove clock of the move-count rule (FIDE 9.3): only a capture or a pawn move resets
//! it, as python-chess and Fairy-Stockfish count.

use fairyzero_rules::{Position, Variant};

fn after(variant: &str, fen: &str, moves: &[&str]) -> String {
    let mut pos = Position::from_fen(Variant::load(variant).unwrap(), fen).unwrap();
    for text in moves {
        let m = pos.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        pos.make(m);
    }
    pos.to_fen()
}

#[test]
fn castling_does_not_reset_the_halfmove_clock() {
    let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 7 20";
    assert!(after("chess", fen, &["e1g1"]).ends_with(" b kq - 8 20"), "{}", after("chess", fen, &["e1g1"]));
    assert!(after("chess", fen, &["e1g1", "e8c8"]).ends_with(" w - - 9 21"));
    // Capablanca castles on 10 files under the same rule.
    let capa = "r4k3r/pppppppppp/10/10/10/10/PPPPPPPPPP/R4K3R w KQkq - 3 9";
    assert!(after("capablanca", capa, &["f1i1"]).ends_with(" 4 9"), "{}", after("capablanca", capa, &["f1i1"]));
}

#[test]
fn captures_and_pawn_moves_reset_it_and_other_moves_count() {
    let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 7 20";
    assert!(after("chess", fen, &["a1b1"]).ends_with(" 8 20"));
    assert!(after("chess", fen, &["e2e4"]).ends_with(" 0 20"));
    let capture = "4k3/8/8/3p4/4N3/8/8/4K3 w - - 12 40";
    assert!(after("chess", capture, &["e4d6"]).ends_with(" 13 40"));
    assert!(after("chess", "4k3/8/8/3n4/8/4N3/8/4K3 w - - 12 40", &["e3d5"]).ends_with(" 0 40"));
}
