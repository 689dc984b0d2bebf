//! Cylindrical Chess (list #60): the a- and h-files are adjacent (`topology = "cylinder"`).
//! The start perft is Jocly's `cylinder-chess` (the dossier's numbers, `tests/data/cylinder.perft`
//! checked by `tests/perft.rs`); these tests pin the wrap itself: the source's mate, wrapped
//! leaps, rides that stop at their own square, pins and checks round the edge, castling and
//! en passant, and the attack tests that must agree with the moves.

use std::collections::BTreeSet;

use fairyzero_rules::{perft, Color, MoveList, Position, Variant};

mod support;

use support::worked::set;

fn position(fen: &str) -> Position {
    support::worked::position("cylinder", fen)
}

fn legal(fen: &str) -> BTreeSet<String> {
    support::worked::legal("cylinder", fen)
}

/// The legal moves from one square, as destination squares.
fn from(fen: &str, square: &str) -> BTreeSet<String> {
    support::worked::destinations("cylinder", fen, square)
}

#[test]
fn the_sources_mate_is_a_check_round_the_edge_with_one_reply() {
    // The source: "1. e4 f6 2. Nf3 g5 3. c3 is mate": the queen on d1 sees e8 through c2, b3,
    // a4, h5, g6 and f7. It is check, but not mate: the h-pawn's double step interposes on h5,
    // Black's only legal move (the source overlooks it).
    let v = Variant::load("cylindrical").expect("the alias loads");
    assert_eq!(v.name, "cylinder");
    assert!(v.wraps_files() && !v.has_grid());
    let mut pos = Position::start(v);
    for m in ["e2e4", "f7f6", "g1f3", "g7g5", "c2c3"] {
        let mv = pos.parse_move(m).unwrap_or_else(|e| panic!("{m}: {e}"));
        pos.make(mv);
    }
    assert!(pos.in_check(Color::Tan));
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let texts: Vec<String> = moves.iter().map(|m| pos.move_to_string(m)).collect();
    assert_eq!(texts, ["h7h5"]);
    // On a flat board the same moves leave Black with the ordinary replies.
    let mut flat = Position::start(Variant::load("chess").unwrap());
    for m in ["e2e4", "f7f6", "g1f3", "g7g5", "c2c3"] {
        let mv = flat.parse_move(m).unwrap();
        flat.make(mv);
    }
    assert!(!flat.in_check(Color::Tan));
}

#[test]
fn the_first_move_pins_a_pawn_round_the_edge() {
    // The dossier's 392 at depth 2 (400 on a flat board): after 1. c3 (or c4) the queen pins
    // f7 through a4 and h5; after 1. g3 (or g4) the bishop on f1 pins d7 through h3 and a4.
    for (first, pinned) in [("c2c3", "f7"), ("c2c4", "f7"), ("g2g3", "d7"), ("g2g4", "d7")] {
        let mut pos = Position::start(Variant::load("cylinder").unwrap());
        let mv = pos.parse_move(first).unwrap();
        pos.make(mv);
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        assert_eq!(moves.len(), 18, "after {first}");
        assert!(moves.iter().all(|m| pos.move_to_string(m)[..2] != *pinned), "after {first}, {pinned} moved");
    }
}

#[test]
fn leaps_and_pawn_captures_wrap() {
    // A knight on a1 leaps to b3, c2 and, round the edge, to h3 and g2.
    assert_eq!(from("4k3/8/8/8/8/8/8/N3K3 w - - 0 1", "a1"), set(&["b3", "c2", "g2", "h3"]));
    // A king on h4 steps to a3, a4 and a5.
    assert_eq!(from("4k3/8/8/8/7K/8/8/8 w - - 0 1", "h4"), set(&["a3", "a4", "a5", "g3", "g4", "g5", "h3", "h5"]));
    // The h2 pawn takes on a3 (and g3), the a7 pawn on h6.
    assert_eq!(from("4k3/p7/7n/8/8/n5n1/7P/4K3 w - - 0 1", "h2"), set(&["a3", "g3", "h3", "h4"]));
    assert_eq!(from("4k3/p7/7N/8/8/8/8/4K3 b - - 0 1", "a7"), set(&["a5", "a6", "h6"]));
}

#[test]
fn a_rook_rides_round_the_rank_and_stops_at_its_own_square() {
    // On an empty rank the rook reaches the other seven squares (each once) and its file.
    let rook = from("4k3/8/8/8/8/2R5/8/4K3 w - - 0 1", "c3");
    let rank: BTreeSet<String> = ["a3", "b3", "d3", "e3", "f3", "g3", "h3"].iter().map(|s| s.to_string()).collect();
    assert!(rank.is_subset(&rook), "{rook:?}");
    assert_eq!(rook.len(), 7 + 7);
    // A blocker on f3 is reached both ways round: d3, e3 one way; b3, a3, h3, g3 the other.
    let blocked = from("4k3/8/8/8/8/2R2b2/8/4K3 w - - 0 1", "c3");
    let rank: BTreeSet<String> = blocked.iter().filter(|s| s.ends_with('3')).cloned().collect();
    assert_eq!(rank, set(&["a3", "b3", "d3", "e3", "f3", "g3", "h3"]));
    // A bishop four files away both ways round reaches e5 once.
    let bishop = from("k7/8/8/8/8/8/8/B3K3 w - - 0 1", "a1");
    assert!(bishop.contains("e5") && bishop.contains("h2") && bishop.contains("b2"));
}

#[test]
fn checks_and_pins_round_the_edge_restrict_the_moves() {
    // The rook on b1 checks the king on g1 round the edge (through a1 and h1) and along c1-f1:
    // the king must leave the first rank.
    let fen = "4k3/8/8/8/8/8/8/1r4K1 w - - 0 1";
    assert!(position(fen).in_check(Color::Blue));
    assert_eq!(legal(fen), set(&["g1f2", "g1g2", "g1h2"]));
    // With the knight on h1 and the bishop on d1 shielding both ways, neither may move: the
    // knight is pinned round the edge (g1, h1, a1, b1), the bishop the short way.
    let fen = "4k3/8/8/8/8/8/8/1r1B2KN w - - 0 1";
    assert!(!position(fen).in_check(Color::Blue));
    assert_eq!(legal(fen), set(&["g1f1", "g1f2", "g1g2", "g1h2"]));
    // The attack tests agree: e1 is covered by neither side of the rook's rank.
    assert!(!position(fen).is_attacked(sq("e1"), Color::Tan));
    assert!(position("4k3/8/8/8/8/8/8/1r4K1 w - - 0 1").is_attacked(sq("h1"), Color::Tan));
}

#[test]
fn castling_and_en_passant_are_chess_rules_with_wrapped_attacks() {
    // Castling is chess's; only the attacks on the king's path wrap. A knight on h3 attacks g1
    // (and, round the edge, a1 and b2): short castling is out, long castling over d1 and c1 is
    // fine.
    let fen = "4k3/8/8/8/8/7n/PPPPPPPP/R3K2R w KQ - 0 1";
    let king = from(fen, "e1");
    assert!(king.contains("c1") && !king.contains("g1"), "{king:?}");
    // A knight on b3 attacks c1 (and, round the edge, h2 and h4): long castling is out.
    let fen = "4k3/8/8/8/8/1n6/P1PPPPP1/R3K2R w KQ - 0 1";
    let king = from(fen, "e1");
    assert!(!king.contains("c1") && king.contains("g1"), "{king:?}");
    // En passant round the edge: after h7-h5 the a5 pawn takes on h6.
    let mut pos = position("4k3/7p/8/P7/8/8/8/4K3 b - - 0 1");
    let mv = pos.parse_move("h7h5").unwrap();
    pos.make(mv);
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let texts: BTreeSet<String> = moves.iter().map(|m| pos.move_to_string(m)).collect();
    assert!(texts.contains("a5h6"), "{texts:?}");
    let ep = moves.iter().find(|m| pos.move_to_string(m) == "a5h6").copied().unwrap();
    pos.make(ep);
    assert!(pos.piece_at(sq("h5")).is_none(), "the h5 pawn is taken en passant");
}

#[test]
fn perft_at_the_start_matches_jocly() {
    let mut pos = Position::start(Variant::load("cylinder").unwrap());
    assert_eq!([1, 2, 3].map(|d| perft(&mut pos, d)), [20, 392, 9162]);
}

fn sq(name: &str) -> fairyzero_rules::Square {
    Variant::load("cylinder").unwrap().dims.parse_square(name).unwrap()
}

#[test]
fn what_the_wrap_does_not_reach_is_refused_naming_the_field() {
    let load = |text: &str| Variant::from_toml("c.toml", text, None).map(|_| ()).unwrap_err().to_string();
    // Berolina pawns step diagonally two squares, whose passed square a flat interpolation finds.
    let e = load("name = \"c\"\nextends = \"berolina\"\ntopology = \"cylinder\"\n");
    assert!(e.contains("topology") && e.contains("en_passant"), "{e}");
    // Powers and multi-leg moves do not come from the wrapped tables.
    let e = load("name = \"c\"\nextends = \"scirocco\"\ntopology = \"cylinder\"\n");
    assert!(e.contains("topology") && e.contains("powers"), "{e}");
    // A cylindrical Xiangqi is data only: its regions and lame leapers wrap with the tables.
    let v = Variant::from_toml("c.toml", "name = \"c\"\nextends = \"xiangqi\"\ntopology = \"cylinder\"\n", None)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut pos = Position::start(v);
    // The cannons slide round the edge: b3 to a3 and i3, h3 to i3 and a3.
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let texts: BTreeSet<String> = moves.iter().map(|m| pos.move_to_string(m)).collect();
    assert!(["b3i3", "h3a3"].iter().all(|m| texts.contains(*m)), "{texts:?}");
}
