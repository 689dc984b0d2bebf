//! The neutral token (`[neutral_token]`, `rules/src/movegen/neutral_token.rs`): Shadow (list
//! #43), Imitator (#44) and Salt Shaker Chess (#45). No engine plays these games, so the counts
//! below are derived by hand (the comments) and agree with an independent count of the same
//! rulings on python-chess (`tools/neutral_token_perft.py`); the shared properties harness
//! (`tests/properties.rs`) walks the three variants like every built-in.

mod support;

use fairyzero_rules::{perft, Color, EndReason, MoveList, Outcome, Position, Variant};
use support::worked::{legal, position, set};

const START: &str = "rnbqkbnr/pppppppp/8/8/3*4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn count(variant: &str, fen: &str, depth: u32) -> u64 {
    perft(&mut position(variant, fen), depth)
}

fn token(pos: &Position) -> String {
    let sq = pos.neutral_token().expect("the variant has a token");
    pos.variant().dims.square_name(sq)
}

#[test]
fn the_start_positions_carry_the_token_on_d4() {
    for name in ["shadow", "imitator", "saltshaker"] {
        let v = Variant::load(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        let pos = Position::start(v);
        assert_eq!(pos.to_fen(), START, "{name}");
        assert_eq!(token(&pos), "d4");
    }
}

#[test]
fn start_perft_by_hand() {
    // Depth 1, every game: chess's 20 moves but d2-d4, which would land on the token: the
    // single steps move it to d5, the double steps to d6 (over d5), the knights to c6/e6.
    for name in ["shadow", "imitator", "saltshaker"] {
        assert_eq!(count(name, START, 1), 19, "{name}");
    }
    // Depth 2, Shadow and Imitator (the same rules): Black's moves by the token's square.
    // - d5 (after White's 8 single steps): 8 single steps (to d4), 7 double steps (d7-d5 lands
    //   on it) over d4 to d3, 4 knight moves to c3/e3 (two each). After c3 or e3 two knight
    //   moves are blocked (17); after d3 every double step (12): 5 x 19 + 2 x 17 + 12 = 141.
    // - d6 (after a4, b4, c4, e4, f4, g4, h4): d7-d6 lands on it and d7-d5 passes it, so 7 + 7
    //   steps to d5/d4, and 4 knight moves to c4/e4, two blocked after c4 or e4:
    //   5 x 18 + 2 x 16 = 122.
    // - c6 (after Na3, Nf3): c7-c6, c7-c5 and Nb8-c6 meet it: 7 + 7 + 3 = 17, twice: 34.
    // - e6 (after Nc3, Nh3): e7-e6 and e7-e5 meet it: 7 + 7 + 4 = 18, twice: 36.
    // 141 + 122 + 34 + 36 = 333.
    assert_eq!(count("imitator", START, 2), 333);
    assert_eq!(count("shadow", START, 2), 333);
    // Salt Shaker: the shaker jumps and captures, so only the moves that land on or pass it are
    // lost: 8 x 19 (d7-d5) + 7 x 18 (d7-d6, d7-d5) + 2 x 17 (c7-c6, c7-c5, Nb8-c6) + 2 x 18
    // (e7-e6, e7-e5) = 348. None leaves Black's king where White could land the shaker on it:
    // the king-to-shaker vectors after Black's moves ((1,4), (1,5), (2,5), (0,5), (1,3), (2,4),
    // (0,4), (3,4), (-1,4)) are no move of White's.
    assert_eq!(count("saltshaker", START, 2), 348);
}

#[test]
fn a_token_near_the_edge_forbids_the_moves_it_cannot_copy() {
    // Token on h5. King e1: d1, d2, e2 copy to g5, g6, h6; f1 and f2 would push it off the
    // board. O-O-O copies the king's (-2, 0): over g5 to f5. Rook a1: up one to three squares
    // (to h6-h8); further up, or along the first rank, the copy leaves the board. 3 + 1 + 3 = 7.
    let fen = "4k3/8/8/7*/8/8/8/R3K3 w Q - 0 1";
    assert_eq!(legal("imitator", fen), set(&["e1d1", "e1d2", "e1e2", "e1c1", "a1a2", "a1a3", "a1a4"]));
    for name in ["imitator", "saltshaker"] {
        assert_eq!(count(name, fen, 2), 27, "{name}");
        assert_eq!(count(name, fen, 3), 250, "{name}");
    }
}

#[test]
fn a_blocked_path_and_an_occupied_landing_square() {
    // Token a3, black pawn b4, bishop c1. Imitator: Bd2 would land the token on the pawn, Be3
    // and beyond pass it through b4, Bb2 pushes it off the board, Ba3 lands on it; the king's
    // d1/d2 push it off, f2 lands it on b4: Ke2, Kf1 only.
    let fen = "4k3/8/8/8/1p6/*7/8/2B1K3 w - - 0 1";
    assert_eq!(legal("imitator", fen), set(&["e1e2", "e1f1"]));
    assert_eq!(legal("shadow", fen), set(&["e1e2", "e1f1"]));
    assert_eq!(count("imitator", fen, 3), 65);
    // Salt Shaker: the shaker jumps the pawn or takes it (Bd2, Kf2): Bd2-Bh6 and Ke2, Kf1, Kf2.
    assert_eq!(legal("saltshaker", fen), set(&["c1d2", "c1e3", "c1f4", "c1g5", "c1h6", "e1e2", "e1f1", "e1f2"]));
    let mut pos = position("saltshaker", fen);
    pos.play_moves("c1d2").unwrap();
    // Taking a man resets the halfmove clock, as any capture.
    assert_eq!(pos.to_fen(), "4k3/8/8/8/1*6/8/3B4/4K3 b - - 0 1");
    assert_eq!(count("saltshaker", fen, 3), 336);
}

#[test]
fn castling_moves_the_token_by_the_kings_displacement() {
    // Token d1: between the king and the a1 rook, so O-O-O is blocked; O-O copies (2, 0) to f1,
    // where the rook lands: illegal for the Imitator, the Salt Shaker takes its own rook.
    let fen = "7k/8/8/8/8/8/8/R2*K2R w KQ - 0 1";
    let imitator = legal("imitator", fen);
    assert!(!imitator.contains("e1g1") && !imitator.contains("e1c1"), "{imitator:?}");
    let salt = legal("saltshaker", fen);
    assert!(salt.contains("e1g1") && !salt.contains("e1c1"), "{salt:?}");
    let mut pos = position("saltshaker", fen);
    pos.play_moves("e1g1").unwrap();
    assert_eq!(pos.to_fen(), "7k/8/8/8/8/8/8/R4*K1 b - - 0 1");
    assert_eq!(count("imitator", fen, 3), 779);
    assert_eq!(count("saltshaker", fen, 3), 766);
    // With Black's rooks on a8 and h8 the shaker on f1 would be one file from the castled king,
    // and Black's Ra8-b8 would land it on g1: O-O is then illegal (check) for the Salt Shaker.
    let fen = "r3k2r/8/8/8/8/8/8/R2*K2R w KQkq - 0 1";
    assert!(!legal("saltshaker", fen).contains("e1g1"));
    assert_eq!(count("imitator", fen, 3), 4783);
    assert_eq!(count("saltshaker", fen, 3), 2116);
    // A shaker that takes a rook on its castling square takes its right too: Ra1-a7 moves it
    // (0, 6) from h2 onto h8.
    let mut pos = position("saltshaker", "r3k2r/8/8/8/8/8/7*/R3K3 w kq - 0 1");
    pos.play_moves("a1a7").unwrap();
    assert_eq!(pos.to_fen(), "r3k2*/R7/8/8/8/8/8/4K3 b q - 0 1");
    assert_eq!(count("saltshaker", "r3k2r/8/8/8/8/8/7*/R3K3 w kq - 0 1", 3), 825);
    // Token d4 with pawns: both castlings copy along the fourth rank (to f4 over e4, to b4 over
    // c4). 15 pawn moves (d2-d4 would land on the token), Ra1-b1/c1/d1, Rh1-g1/f1, Kd1, Kf1 and
    // the two castlings: 24.
    let fen = "r3k2r/pppppppp/8/8/3*4/8/PPPPPPPP/R3K2R w KQkq - 0 1";
    let moves = legal("imitator", fen);
    assert!(moves.contains("e1g1") && moves.contains("e1c1"), "{moves:?}");
    assert_eq!(moves.len(), 24);
    assert_eq!(count("imitator", fen, 3), 9115);
    assert_eq!(count("saltshaker", fen, 3), 12125);
}

#[test]
fn en_passant_is_copied() {
    // exd6 e.p. is (-1, +1): the token goes g1-f2, where White's pawn stands: illegal for the
    // Imitator; the Salt Shaker takes the pawn (Black's king on a8 has no (-1, -1) step that
    // would then land it on e1).
    let fen = "k7/8/8/3pP3/8/8/5P2/4K1*1 w - d6 0 1";
    assert_eq!(legal("imitator", fen), set(&["e1d1", "e1e2", "e1f1", "e5e6", "f2f3", "f2f4"]));
    assert!(legal("saltshaker", fen).contains("e5d6"));
    let mut pos = position("saltshaker", fen);
    pos.play_moves("e5d6").unwrap();
    assert_eq!(pos.to_fen(), "k7/8/3P4/8/8/8/5*2/4K3 b - - 0 1");
    // Without the f2 pawn the Imitator copies it too.
    let mut pos = position("imitator", "k7/8/8/3pP3/8/8/8/4K1*1 w - d6 0 1");
    pos.play_moves("e5d6").unwrap();
    assert_eq!(pos.to_fen(), "k7/8/3P4/8/8/8/5*2/4K3 b - - 0 1");
    assert_eq!(count("imitator", fen, 3), 104);
    assert_eq!(count("saltshaker", fen, 3), 151);
}

#[test]
fn promotion_is_copied() {
    // e7-e8 is (0, +1): with the token on a1 all four promotions copy it to a2; on a8 none can.
    let promotions = |fen: &str| legal("imitator", fen).into_iter().filter(|m| m.starts_with("e7e8")).count();
    assert_eq!(promotions("7k/4P3/8/8/8/8/8/*3K3 w - - 0 1"), 4);
    assert_eq!(promotions("*6k/4P3/8/8/8/8/8/4K3 w - - 0 1"), 0);
}

#[test]
fn a_check_counts_only_if_the_token_could_copy_the_capture() {
    // Ra8 attacks e8 along the rank, but the capture's copy (4, 0) would push the token from g1
    // off the board: no check, and the king may step along the rank (each step moves the token
    // one file, and Ra8xd8 or Ra8xf8 could not be copied either); a step down would push the
    // token off the first rank.
    let fen = "R3k3/8/8/8/8/8/8/4K1*1 b - - 0 1";
    let pos = position("imitator", fen);
    assert!(!pos.in_check(Color::Tan));
    assert_eq!(legal("imitator", fen), set(&["e8d8", "e8f8"]));
    // With the token on b2 the copy lands on f2: a check, and d8/f8 stay attacked.
    let fen = "R3k3/8/8/8/8/8/1*6/4K3 b - - 0 1";
    assert!(position("imitator", fen).in_check(Color::Tan));
    assert_eq!(legal("imitator", fen), set(&["e8d7", "e8e7", "e8f7"]));
}

#[test]
fn a_salt_shaker_that_could_land_on_the_king_gives_check() {
    // Nb1-c3 is (1, 2): it would move the shaker from d6 onto e8. Every king move shifts king and
    // shaker alike, so the threat stays: checkmate.
    let fen = "4k3/8/3*4/8/8/8/8/1N2K3 b - - 0 1";
    let mut pos = position("saltshaker", fen);
    assert!(pos.in_check(Color::Tan));
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    assert!(moves.is_empty());
    assert_eq!(pos.outcome(), Some(Outcome::Decisive { winner: Color::Blue, reason: EndReason::Checkmate }));
    // The Imitator does not capture: no check there, five king moves.
    assert!(!position("imitator", fen).in_check(Color::Tan));
    assert_eq!(count("imitator", fen, 1), 5);
    // With White to move (a constructed position), Nc3 lands the shaker on the king and wins.
    let mut pos = position("saltshaker", "4k3/8/3*4/8/8/8/8/1N2K3 w - - 0 1");
    pos.play_moves("b1c3").unwrap();
    assert_eq!(pos.to_fen(), "4*3/8/8/8/8/2N5/8/4K3 b - - 0 1");
    assert_eq!(pos.outcome(), Some(Outcome::Decisive { winner: Color::Blue, reason: EndReason::RoyalCaptured }));
}

#[test]
fn a_move_that_lands_the_shaker_on_the_own_king_is_illegal() {
    // Token f3, White king e1, knight c3. Nc3-b1 is (-1, -2): the shaker would land on e1.
    // Nc3-a2 is (-2, -1): the shaker goes to d2, from where Black's Ke8-f7 (1, -1) would land it
    // on e1, so that leaves White's king in check. The other four knight moves and the five king
    // moves are legal.
    let fen = "4k3/8/8/8/8/2N2*2/8/4K3 w - - 0 1";
    let moves = legal("saltshaker", fen);
    assert_eq!(moves, set(&["c3a4", "c3b5", "c3d1", "c3d5", "c3e2", "c3e4", "e1d1", "e1d2", "e1e2", "e1f1", "e1f2"]));
}

#[test]
fn position_strings_round_trip_and_refuse_a_missing_or_second_token() {
    let v = Variant::load("imitator").unwrap();
    for fen in [START, "4k3/8/3P4/8/8/8/5*2/4K3 b - - 0 1", "*6k/4P3/8/8/8/8/8/4K3 w - - 0 1"] {
        assert_eq!(Position::from_fen(v.clone(), fen).unwrap().to_fen(), fen);
    }
    let err = |fen: &str| Position::from_fen(v.clone(), fen).unwrap_err().to_string();
    assert!(err("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").contains("no neutral token"));
    assert!(err("rnbqkbnr/pppppppp/8/8/3**3/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").contains("second neutral token"));
    assert!(err("rnbqkbnr/pppppppp/8/8/3*5/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").contains("rank 4"));
    let chess = Variant::load("chess").unwrap();
    let e = Position::from_fen(chess, START).unwrap_err().to_string();
    assert!(e.contains("neutral token") && e.contains("chess"), "{e}");
}

#[test]
fn make_unmake_restores_the_token_and_the_hash_keys_it() {
    let mut pos = position("saltshaker", "4k3/8/8/8/1p6/*7/8/2B1K3 w - - 0 1");
    let (fen, hash) = (pos.to_fen(), pos.hash());
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    for &m in moves.iter() {
        pos.make(m);
        assert_eq!(pos.hash(), pos.compute_hash(), "{}", pos.to_fen());
        let reparsed = position("saltshaker", &pos.to_fen());
        assert_eq!(reparsed.hash(), pos.hash());
        pos.unmake();
        assert_eq!((pos.to_fen(), pos.hash()), (fen.clone(), hash));
    }
    // The same men with the token elsewhere are another position.
    let moved = position("saltshaker", "4k3/8/8/8/1p6/8/*7/2B1K3 w - - 0 1");
    assert_ne!(moved.hash(), hash);
    assert_ne!(moved, pos);
}

#[test]
fn unsupported_combinations_are_refused_naming_the_field() {
    let build = |extra: &str| {
        let text = format!("name = \"t\"\nextends = \"chess\"\n{extra}");
        Variant::from_toml("test.toml", &text, None).map(|_| ()).map_err(|e| e.to_string())
    };
    assert!(build("[neutral_token]\nstart = \"d4\"\n").is_ok());
    let e = build("capture = \"rifle\"\n[neutral_token]\nstart = \"d4\"\n").unwrap_err();
    assert!(e.contains("neutral_token") && e.contains("rifle"), "{e}");
    let e = build("checking = \"mate_only\"\n[neutral_token]\nstart = \"d4\"\n").unwrap_err();
    assert!(e.contains("neutral_token") && e.contains("mate_only"), "{e}");
    let e = build("[neutral_token]\nstart = \"e2\"\n").unwrap_err();
    assert!(e.contains("neutral_token.start") && e.contains("e2"), "{e}");
    let e = build("[neutral_token]\nstart = \"z9\"\n").unwrap_err();
    assert!(e.contains("neutral_token.start"), "{e}");
    let e = build("[neutral_token]\nstart = \"d4\"\npath = \"wobbly\"\n").unwrap_err();
    assert!(e.contains("path") || e.contains("wobbly"), "{e}");
    let e = build("[neutral_token]\nstart = \"d4\"\ncolour = \"none\"\n").unwrap_err();
    assert!(e.contains("colour"), "{e}");
    let e = build("[neutral_token]\nstart = \"d4\"\n[victory]\nroyal = \"capture\"\n").unwrap_err();
    assert!(e.contains("neutral_token") && e.contains("victory.royal"), "{e}");
}
