//! Circe Chess (list #29, `configs/variants/circe.toml`, the `[rebirth]` hook): the dossier's
//! rules as worked examples, hand-checked perft counts and the refusals of the variant format.
//! No engine plays Circe; `tests/perft.rs` checks `tests/data/circe.perft`, made by
//! tools/gen_perft.py's independent rule overlay on python-chess, and these examples pin the
//! reading itself: rebirth squares by type and square colour, a taken home square, promoted
//! men, en passant, castling rights, and a capture made illegal by the check its rebirth gives.

use fairyzero_rules::{perft, Variant};

mod support;

use support::worked::{legal, legal_texts, position};

/// Plays `moves` (legal each) in `fen` and returns the position string after them.
fn after(fen: &str, moves: &[&str]) -> String {
    let mut pos = position("circe", fen);
    for text in moves {
        assert!(legal_texts(&mut pos).contains(*text), "{text} is not legal in {}", pos.to_fen());
        let m = pos.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        pos.make(m);
    }
    pos.to_fen()
}

#[test]
fn rook_bishop_and_knight_go_home_to_the_square_of_the_capture_squares_colour() {
    // d4 is dark: the white rook goes to a1; d5 is light: to h1.
    assert_eq!(after("3rk3/8/8/8/3R4/8/8/4K3 b - - 0 1", &["d8d4"]), "4k3/8/8/8/3r4/8/8/R3K3 w - - 0 2");
    assert_eq!(after("3rk3/8/8/3R4/8/8/8/4K3 b - - 0 1", &["d8d5"]), "4k3/8/8/3r4/8/8/8/4K2R w - - 0 2");
    // e5 is dark: a black knight goes to b8 (dark), not g8.
    assert_eq!(after("4k3/8/8/4n3/8/8/8/4RK2 w - - 0 1", &["e1e5"]), "1n2k3/8/8/4R3/8/8/8/5K2 b - - 0 1");
    // A bishop taken on c4 (light) goes to f1 (light).
    assert_eq!(after("2r1k3/8/8/8/2B5/8/8/K7 b - - 0 1", &["c8c4"]), "4k3/8/8/8/2r5/8/8/K4B2 w - - 0 2");
}

#[test]
fn pawns_go_to_their_second_rank_on_the_capture_file_and_the_queen_to_d1_or_d8() {
    assert_eq!(after("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", &["e4d5"]), "4k3/3p4/8/3P4/8/8/8/4K3 b - - 0 1");
    assert_eq!(after("4k3/8/8/3p4/4P3/8/8/4K3 b - - 0 1", &["d5e4"]), "4k3/8/8/8/4p3/8/4P3/4K3 w - - 0 2");
    // The queen goes to d8 whatever the colour of the capture square (c3 dark, c4 light).
    assert_eq!(after("4k3/8/8/8/8/2q5/8/2R1K3 w - - 0 1", &["c1c3"]), "3qk3/8/8/8/8/2R5/8/4K3 b - - 0 1");
    assert_eq!(after("4k3/8/8/8/2q5/8/8/2R1K3 w - - 0 1", &["c1c4"]), "3qk3/8/8/8/2R5/8/8/4K3 b - - 0 1");
}

#[test]
fn a_man_whose_home_square_is_taken_is_lost() {
    // a1 holds a white knight: the rook taken on d4 is lost.
    assert_eq!(after("3rk3/8/8/8/3R4/8/8/N3K3 b - - 0 1", &["d8d4"]), "4k3/8/8/8/3r4/8/8/N3K3 w - - 0 2");
    // Taken on its own home square: the capturer stands there, so the rook is lost.
    assert_eq!(after("r3k3/8/8/8/8/8/8/R3K3 b - - 0 1", &["a8a1"]), "4k3/8/8/8/8/8/8/r3K3 w - - 0 2");
    // Taken on e4 while e2 holds a white king: the pawn is lost.
    assert_eq!(after("4k3/8/8/3p4/4P3/8/4K3/8 b - - 0 1", &["d5e4"]), "4k3/8/8/8/4p3/8/4K3/8 w - - 0 2");
}

#[test]
fn a_promoted_man_is_reborn_as_what_it_is_now() {
    // b8=Q, then Rxb8: the new queen goes to d1 as a queen (not to a pawn's b2).
    assert_eq!(after("2r1k3/1P6/8/8/8/8/8/4K3 w - - 0 1", &["b7b8q", "c8b8"]), "1r2k3/8/8/8/8/8/8/3QK3 w - - 0 2");
}

#[test]
fn en_passant_sends_the_passed_pawn_home() {
    // exd6 e.p. takes the pawn on d5; it goes back to d7, behind the white pawn.
    assert_eq!(after("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1", &["d7d5", "e5d6"]), "4k3/3p4/3P4/8/8/8/8/4K3 b - - 0 2");
}

#[test]
fn a_capture_whose_rebirth_checks_the_capturer_is_illegal() {
    // Rxc4 would put the bishop back on f1, checking g2: illegal. Perft 1 = 17, by hand: the
    // king's g1 h1 f2 h2 f3 g3 h3 (7; f1 is the bishop's); the rook's c7 c6 c5 (3) and a8 b8
    // d8 e8 f8 g8 h8 (7). Chess adds Rxc4: 18.
    let fen = "2r5/8/8/7K/2B5/8/6k1/8 b - - 0 1";
    assert!(!legal("circe", fen).contains("c8c4"));
    assert_eq!(perft(&mut position("circe", fen), 1), 17);
    assert_eq!(perft(&mut position("chess", fen), 1), 18);
    // With f1 taken the bishop is lost instead, and the capture is legal.
    let fen = "2r5/8/8/7K/2B5/8/6k1/5N2 b - - 0 1";
    assert_eq!(after(fen, &["c8c4"]), "8/8/8/7K/2r5/8/6k1/5N2 w - - 0 2");
    // A king may not take a man that would check it from its home square: Kxb1 sends the rook
    // (b1 is light) to h1, on the king's rank.
    let fen = "7K/8/8/8/8/8/1k6/1R6 b - - 0 1";
    assert!(!legal("circe", fen).contains("b2b1"));
    assert!(legal("chess", fen).contains("b2b1"));
}

#[test]
fn a_reborn_rook_gets_no_castling_right_back() {
    // The rook taken on d5 (light) goes to h1, beside a king on e1 with no rights: White may
    // not castle with it.
    let fen = after("3rk3/8/8/3R4/8/8/8/4K3 b - - 0 1", &["d8d5"]);
    assert_eq!(fen, "4k3/8/8/3r4/8/8/8/4K2R w - - 0 2");
    assert!(!legal("circe", &fen).contains("e1g1"));
}

#[test]
fn small_perft_counts_checked_by_hand() {
    // White: Ka1, pawn e4. Black: Kh8, pawn d5. White to move.
    // Perft 1 = 5: Ka2 Kb1 Kb2, e5, exd5.
    // Perft 2: after each king move Black has Kg8 Kg7 Kh7, d4 and dxe4 (5; the white pawn goes
    //   back to e2, which checks nothing): 15. After e5: the king's 3 and d4: 4. After exd5
    //   the black pawn is reborn on d7: the king's 3 and d7-d6 (d5 is taken, so no double
    //   step): 4. Total 23; chess has 22 (no d7 pawn after exd5).
    let fen = "7k/8/8/3p4/4P3/8/8/K7 w - - 0 1";
    let mut pos = position("circe", fen);
    assert_eq!(perft(&mut pos, 1), 5);
    assert_eq!(perft(&mut pos, 2), 23);
    assert_eq!(perft(&mut position("chess", fen), 2), 22);
}

fn refusal(rebirth: &str) -> String {
    let text = format!("name = \"x\"\nextends = \"chess\"\n[rebirth.pieces]\n{rebirth}");
    Variant::from_toml("x.toml", &text, None).map(|_| ()).unwrap_err().to_string()
}

#[test]
fn bad_rebirth_tables_are_refused_naming_the_field() {
    let e = refusal("Z = { rank = 2 }\n");
    assert!(e.contains("rebirth.pieces.Z") && e.contains("unknown token"), "{e}");
    let e = refusal("K = { squares = [\"e1\"] }\n");
    assert!(e.contains("rebirth.pieces.K") && e.contains("royal"), "{e}");
    let e = refusal("P = { rank = 2, squares = [\"a2\"] }\n");
    assert!(e.contains("rebirth.pieces.P") && e.contains("either"), "{e}");
    let e = refusal("P = {}\n");
    assert!(e.contains("rebirth.pieces.P") && e.contains("either"), "{e}");
    let e = refusal("R = { squares = [\"a1\", \"c1\"] }\n");
    assert!(e.contains("rebirth.pieces.R") && e.contains("one colour"), "{e}");
    let e = refusal("R = { squares = [\"z9\"] }\n");
    assert!(e.contains("rebirth.pieces.R") && e.contains("\"z9\""), "{e}");
    let e = refusal("P = { rank = 9 }\n");
    assert!(e.contains("rebirth.pieces.P") && e.contains("outside"), "{e}");
    let e = refusal("P = { rank = 2, file = 3 }\n");
    assert!(e.contains("file"), "{e}");
}

#[test]
fn circe_is_not_mirror_safe() {
    // The queen's d1 is not its own left-right image: positions are never mirrored.
    let v = Variant::load("circe").expect("circe is a built-in");
    assert!(v.mirror_safe.iter().all(|s| !s));
}
