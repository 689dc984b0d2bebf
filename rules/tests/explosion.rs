//! The explosion hook (`[explosion]`): Explosion Chess (list #17, `configs/variants/explosion.toml`)
//! as worked examples and hand-checked perft counts, modern atomic chess
//! (`configs/variants/atomic.toml`) at the points where its rules differ, and the refusals of
//! the variant format. Atomic's totals are checked against Fairy-Stockfish and python-chess by
//! `tests/perft.rs` (`tests/data/atomic.perft`); no engine plays Explosion Chess, so these
//! examples and counts are its reference.

use fairyzero_rules::{perft, Color, EndReason, Outcome, Position, Variant};

mod support;

use support::worked::{legal_texts, position, set};

fn play(pos: &mut Position, text: &str) {
    let m = pos.parse_move(text).unwrap_or_else(|e| panic!("{text} in {}: {e}", pos.to_fen()));
    pos.make(m);
}

/// Plays `text` in `fen` and returns the position string after it.
fn after(variant: &str, fen: &str, text: &str) -> String {
    let mut pos = position(variant, fen);
    assert!(legal_texts(&mut pos).contains(text), "{text} is not legal in {fen}");
    play(&mut pos, text);
    pos.to_fen()
}

#[test]
fn a_capture_removes_the_victims_own_men_around_it_and_the_capturer_survives() {
    // Rxd5: the black knight c6, pawn d6 and bishop e6 stand next to the captured rook and go;
    // the white knight on e4, also next to d5, is the capturer's own and stays, as does the
    // capturer itself.
    assert_eq!(
        after("explosion", "4k3/8/2npb3/3r4/4N3/8/3R4/4K3 w - - 0 1", "d2d5"),
        "4k3/8/8/3R4/4N3/8/8/4K3 b - - 0 1"
    );
    // Atomic blasts both sides and the capturer, sparing pawns: only the pawn d6 is left.
    assert_eq!(after("atomic", "4k3/8/2npb3/3r4/4N3/8/3R4/4K3 w - - 0 1", "d2d5"), "4k3/8/3p4/8/8/8/8/4K3 b - - 0 1");
}

#[test]
fn the_blasted_men_set_off_no_blast_of_their_own() {
    // Rxd5 removes the knight c6; the black pawn b7 stands next to c6 but not next to d5, and
    // stays: there is no chain reaction.
    assert_eq!(
        after("explosion", "4k3/1p6/2n5/3r4/8/8/3R4/4K3 w - - 0 1", "d2d5"),
        "4k3/1p6/8/3R4/8/8/8/4K3 b - - 0 1"
    );
}

#[test]
fn en_passant_blasts_round_the_passed_pawn_in_explosion_chess_and_round_the_arrival_square_in_atomic() {
    // After d7d5, exd6 e.p. captures the pawn on d5. Explosion Chess blasts round d5: the
    // knight c4 goes, the knight c7 (next to d6, not to d5) stays.
    let fen = "4k3/2np4/8/4P3/2n5/8/8/4K3 b - - 0 1";
    let mut pos = position("explosion", fen);
    play(&mut pos, "d7d5");
    play(&mut pos, "e5d6");
    assert_eq!(pos.to_fen(), "4k3/2n5/3P4/8/8/8/8/4K3 b - - 0 2");
    // Atomic blasts round d6, where the pawn lands: c7 goes, c4 stays, the capturer dies.
    let mut pos = position("atomic", fen);
    play(&mut pos, "d7d5");
    play(&mut pos, "e5d6");
    assert_eq!(pos.to_fen(), "4k3/8/8/8/2n5/8/8/4K3 b - - 0 2");
}

#[test]
fn blowing_up_the_enemy_king_wins_even_out_of_check() {
    // The rook h1 checks e1. Qxd7 leaves it so, but the blast round d7 takes the king e8 (and
    // the rook d8): the move is legal and wins at once.
    let fen = "3rk3/3n4/8/8/8/8/8/3QK2r w - - 0 1";
    let mut pos = position("explosion", fen);
    let moves = legal_texts(&mut pos);
    assert!(moves.contains("d1d7"), "{moves:?}");
    // Other queen moves that do not meet the check stay illegal.
    assert!(!moves.contains("d1d5"), "{moves:?}");
    play(&mut pos, "d1d7");
    assert_eq!(pos.to_fen(), "8/3Q4/8/8/8/8/8/4K2r b - - 0 1");
    assert_eq!(
        pos.immediate_outcome(),
        Some(Outcome::Decisive { winner: Color::Blue, reason: EndReason::RoyalCaptured })
    );
    assert!(legal_texts(&mut pos).is_empty());
    // The same in atomic (the queen dies with the knight; the rook h1 still checks nothing that
    // matters: the game is over).
    let mut pos = position("atomic", fen);
    assert!(legal_texts(&mut pos).contains("d1d7"));
    play(&mut pos, "d1d7");
    assert_eq!(
        pos.immediate_outcome(),
        Some(Outcome::Decisive { winner: Color::Blue, reason: EndReason::RoyalCaptured })
    );
}

#[test]
fn a_blast_threat_is_not_check() {
    // Rxd8 would blow up the king e8 next to the knight d8, but Black is not in check and may
    // ignore the threat.
    let mut pos = position("explosion", "3nk3/7p/8/8/8/8/8/3RK3 b - - 0 1");
    assert!(!pos.in_check(Color::Tan));
    assert!(legal_texts(&mut pos).contains("h7h6"));
}

#[test]
fn a_king_may_take_a_man_whose_protector_the_blast_removes() {
    // The pawn d3 protects e2: in chess Kxe2 is illegal. Here the blast round e2 removes d3,
    // so the king ends unattacked.
    // Perft 1 = 5, by hand: the king's d1, d2, f1, f2 (the knight e2 attacks c1 c3 d4 f4 g1 g3,
    // the pawn d3 attacks c2 e2: none of these) and Kxe2. Chess has 4 (no Kxe2).
    let fen = "4k3/8/8/8/8/3p4/4n3/4K3 w - - 0 1";
    let mut pos = position("explosion", fen);
    assert_eq!(legal_texts(&mut pos), set(&["e1d1", "e1d2", "e1e2", "e1f1", "e1f2"]));
    assert_eq!(perft(&mut pos, 1), 5);
    assert_eq!(perft(&mut position("chess", fen), 1), 4);
    play(&mut pos, "e1e2");
    assert_eq!(pos.to_fen(), "4k3/8/8/8/8/8/4K3/8 b - - 0 1");
}

#[test]
fn a_blasted_rook_or_king_takes_its_castling_rights_with_it() {
    // Bxg2: the blast round g2 removes the rook h1 (White's own man next to its captured
    // knight): White keeps only the queenside right.
    assert_eq!(after("explosion", "b3k3/8/8/8/8/8/6N1/R3K2R b KQ - 0 1", "a8g2"), "4k3/8/8/8/8/8/6b1/R3K3 w Q - 0 2");
    // A blast that takes the king takes both rights (and ends the game).
    assert_eq!(after("explosion", "4k3/8/1b6/8/8/8/5N2/R3K2R b KQ - 0 1", "b6f2"), "4k3/8/8/8/8/8/5b2/R6R w - - 0 2");
}

#[test]
fn small_perft_counts_checked_by_hand() {
    // White: Ke1. Black: Ke8, pawn d3, knight e2. Perft 1 = 5 (see the test above: Kd1, Kd2,
    // Kxe2, Kf1, Kf2). Perft 2, Black's replies to each:
    //   Kxe2 (the blast removes d3): only the king e8 is left, d8 d7 e7 f7 f8 = 5;
    //   Kd1: king 5, pawn d3-d2 1, knight e2 to c1 c3 d4 f4 g1 g3 6 = 12;
    //   Kd2: king 5, the pawn is blocked 0, knight 6 = 11;
    //   Kf1, Kf2: 12 each (as after Kd1).
    // 5 + 12 + 11 + 12 + 12 = 52; chess has no Kxe2: 47.
    let fen = "4k3/8/8/8/8/3p4/4n3/4K3 w - - 0 1";
    assert_eq!(perft(&mut position("explosion", fen), 2), 52);
    assert_eq!(perft(&mut position("chess", fen), 2), 47);

    // White: Ke1, Rd1. Black: Ke8, Nd8, pawn h7. Perft 1 = 14: the rook's d2-d7 (6), Rxd8 (1),
    // c1 b1 a1 (3); the king's d2 e2 f1 f2 (4). Rxd8 blasts round d8 and takes the king e8:
    // the game is over, 0 replies. Black's moves otherwise: knight d8 to b7 c6 e6 f7 (4), pawn
    // h6 h5 (2), king d7 e7 f7 f8 (4), 10 in all, less those the rook forbids:
    //   Rd2-Rd6 (5 moves): d7 is attacked, 9 each = 45;
    //   Rd7: the rook takes e7 and f7 from the king, which may take it (Kxd7: the blast round
    //        d7 finds no White man) or go to f8: king 2, knight 4, pawn 2 = 8;
    //   Rc1, Rb1, Ra1: 10 each = 30;
    //   Kd2 blocks the d-file: 10; Ke2, Kf1, Kf2: d7 attacked, 9 each = 27.
    // 45 + 8 + 30 + 10 + 27 = 120.
    let fen = "3nk3/7p/8/8/8/8/8/3RK3 w - - 0 1";
    let mut pos = position("explosion", fen);
    assert_eq!(
        legal_texts(&mut pos),
        set(&[
            "d1a1", "d1b1", "d1c1", "d1d2", "d1d3", "d1d4", "d1d5", "d1d6", "d1d7", "d1d8", "e1d2", "e1e2", "e1f1",
            "e1f2"
        ])
    );
    assert_eq!(perft(&mut pos, 2), 120);
}

#[test]
fn atomic_kings_may_stand_together_and_cannot_capture() {
    // Kings side by side: the rook h2 does not check d2 (taking the king would blow up Black's
    // own), and the white king cannot take the knight c3 (it would blow up itself). Legal, as
    // python-chess's AtomicBoard lists them: c2 and e2 stay next to the black king, so the
    // rook's rank and the knight's e2 do not count there; e3 is next to it too; c1 and e1 are
    // not attacked; d1 is attacked by the knight.
    let mut pos = position("atomic", "8/8/8/8/8/2nk4/3K3r/8 w - - 0 1");
    assert!(!pos.in_check(Color::Blue));
    assert_eq!(legal_texts(&mut pos), set(&["d2c1", "d2c2", "d2e1", "d2e2", "d2e3"]));
}

#[test]
fn atomic_forbids_blowing_up_ones_own_king() {
    // The queen e2 checks e1. Qxe2 would take it, but the blast round e2 would take the white
    // king too: illegal, and so is Kxe2 (a king that captures explodes). No other move meets
    // the check: mate (python-chess agrees).
    let mut pos = position("atomic", "4k3/8/8/8/8/8/4q3/3QK3 w - - 0 1");
    assert!(pos.in_check(Color::Blue));
    assert!(legal_texts(&mut pos).is_empty());
}

/// `base` with its `[explosion]` table given one more key.
fn with_key(base: &str, key: &str) -> std::sync::Arc<Variant> {
    let text = format!("name = \"x\"\nextends = \"{base}\"\n[explosion]\n{key}\n");
    Variant::from_toml("x.toml", &text, None).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_royal_blast_keys_change_legality_as_documented() {
    // enemy_royal_blast = "checked": blowing up the king no longer excuses leaving one's own
    // in check, so Qxd7 (the rook h1 still checks e1) is illegal.
    let v = with_key("explosion", "enemy_royal_blast = \"checked\"");
    let mut pos = Position::from_fen(v, "3rk3/3n4/8/8/8/8/8/3QK2r w - - 0 1").expect("parses");
    assert!(!legal_texts(&mut pos).contains("d1d7"));
    // own_royal_blast = "allowed": Qxe2 blows up both queens and White's own king; it is legal,
    // and White has lost.
    let v = with_key("atomic", "own_royal_blast = \"allowed\"");
    let mut pos = Position::from_fen(v, "4k3/8/8/8/8/8/4q3/3QK3 w - - 0 1").expect("parses");
    assert!(legal_texts(&mut pos).contains("d1e2"));
    play(&mut pos, "d1e2");
    assert_eq!(pos.to_fen(), "4k3/8/8/8/8/8/8/8 b - - 0 1");
    assert_eq!(
        pos.immediate_outcome(),
        Some(Outcome::Decisive { winner: Color::Tan, reason: EndReason::RoyalCaptured })
    );
}

fn refusal(extra: &str) -> String {
    let text = format!("name = \"x\"\nextends = \"chess\"\n{extra}");
    Variant::from_toml("x.toml", &text, None).map(|_| ()).unwrap_err().to_string()
}

#[test]
fn bad_explosions_are_refused_naming_the_field() {
    let base = "[explosion]\nblast = \"both\"\ncentre = \"landing\"\n";
    let e = refusal(&format!("{base}immune = [\"Z\"]\n"));
    assert!(e.contains("explosion.immune") && e.contains("\"Z\""), "{e}");
    let e = refusal(&format!("{base}chain = true\n"));
    assert!(e.contains("chain"), "{e}");
    let e = refusal("[explosion]\nblast = \"attacker\"\ncentre = \"landing\"\n");
    assert!(e.contains("attacker"), "{e}");
    let e = refusal(&format!("{base}own_royal_blast = \"loses\"\n"));
    assert!(e.contains("loses"), "{e}");
    let e = refusal(&format!("[victory]\nroyal = \"capture\"\n{base}"));
    assert!(e.contains("field `explosion`") && e.contains("checkmate"), "{e}");
    let e = refusal(&format!("{base}[rebirth.pieces]\nQ = {{ squares = [\"d1\"] }}\n"));
    assert!(e.contains("`explosion` and `rebirth`"), "{e}");
}
