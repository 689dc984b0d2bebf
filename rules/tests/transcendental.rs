//! Transcendental Chess (list #6, `configs/variants/transcendental.toml`): each side's first rank
//! shuffled independently (bishops on opposite colours, no castling), and on its first turn a
//! side may, instead of moving, exchange two of its own first-rank men of different types
//! (`first_turn_swap = "back_rank"`, `rules/src/movegen/first_turn_swap.rs`), written in chess's
//! UCI notation from one man onto the other (`a1e1`). No engine knows the
//! swap ("No reference for the swap move", list §2), so the counts are derived by hand below;
//! the shared properties harness (`tests/properties.rs`) walks the variant like every built-in.

mod support;

use std::{collections::BTreeSet, sync::Arc};

use fairyzero_rules::{perft, Position, Variant};
use support::worked::legal_texts as legal;

fn variant() -> Arc<Variant> {
    Variant::load("transcendental").unwrap_or_else(|e| panic!("transcendental: {e}"))
}

fn position(fen: &str) -> Position {
    Position::from_fen(variant(), fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The legal swaps, as text: chess's UCI notation writes a swap from-to (`a1e1`), onto one's
/// own man, which no other move does.
fn swaps(pos: &mut Position) -> BTreeSet<String> {
    let side = pos.side_to_move();
    let texts = legal(pos);
    let own = |sq: &str| {
        let sq = pos.variant().dims.parse_square(sq).unwrap();
        pos.piece_at(sq).is_some_and(|p| p.color() == side)
    };
    texts.into_iter().filter(|m| m.len() == 4 && own(&m[2..4])).collect()
}

/// The men of one rank of a position string, `.` for an empty square.
fn rank(fen: &str, rank_from_top: usize) -> Vec<char> {
    let row = fen.split_whitespace().next().unwrap().split('/').nth(rank_from_top).unwrap();
    row.chars()
        .flat_map(|c| match c.to_digit(10) {
            Some(n) => vec!['.'; n as usize],
            None => vec![c],
        })
        .collect()
}

/// The swap of the men on squares `a` and `b` as written (from the man of the type listed first).
fn swap_of(pos: &mut Position, a: &str, b: &str) -> Option<String> {
    swaps(pos).into_iter().find(|m| *m == format!("{a}{b}") || *m == format!("{b}{a}"))
}

/// Pairs of men of different types on one rank.
fn distinct_pairs(men: &[char]) -> usize {
    let men: Vec<char> = men.iter().copied().filter(|&c| c != '.').collect();
    (0..men.len()).map(|i| men[i + 1..].iter().filter(|&&o| o != men[i]).count()).sum()
}

/// White: B N R Q K R N B (a1 dark, h1 light); Black: n r b k q b r n (c8 light, f8 dark).
const FIXED: &str = "nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/BNRQKRNB w - - 0 1";

#[test]
fn arrays_are_independent_with_bishops_on_opposite_colours() {
    let v = variant();
    let mut unmirrored = 0;
    for seed in 0..200u64 {
        let fen = v.generated_start(seed).unwrap();
        assert!(fen.ends_with(" w - - 0 1"), "{fen}: no castling");
        let (white, black) = (rank(&fen, 7), rank(&fen, 0));
        for (men, light_parity, upper) in [(&white, 1, true), (&black, 0, false)] {
            let t = |c: char| if upper { c } else { c.to_ascii_lowercase() };
            let mut sorted = men.clone();
            sorted.sort();
            let mut expected: Vec<char> = "RNBQKBNR".chars().map(t).collect();
            expected.sort();
            assert_eq!(sorted, expected, "{fen}");
            let light = (0..8).filter(|&f| men[f] == t('B') && f % 2 == light_parity).count();
            assert_eq!(light, 1, "{fen}: bishops on opposite colours");
        }
        unmirrored += usize::from(black.iter().map(|c| c.to_ascii_uppercase()).collect::<Vec<_>>() != white);
    }
    assert!(unmirrored > 150, "Black's array is drawn apart from White's ({unmirrored}/200 differ)");
}

#[test]
fn swap_count_at_the_start_is_the_number_of_distinct_type_pairs() {
    let v = variant();
    for seed in 0..20u64 {
        let mut pos = Position::start_with_seed(Arc::clone(&v), seed);
        let fen = pos.to_fen();
        // The orthodox set has 2 rooks, 2 knights, 2 bishops: 28 pairs less 3 alike.
        assert_eq!(distinct_pairs(&rank(&fen, 7)), 25, "{fen}");
        assert_eq!(swaps(&mut pos).len(), 25, "{fen}");
    }
    // A rank with more alike men has fewer swaps: K Q and six knights give 1 + 2 * 6 = 13.
    let mut pos = position("k7/8/8/8/8/8/8/KQNNNNNN w - - 0 1");
    assert_eq!(swaps(&mut pos).len(), 13);
}

#[test]
fn no_swap_of_two_alike_men_and_the_swap_exchanges_the_two() {
    let mut pos = position(FIXED);
    let all = swaps(&mut pos);
    // b1 and g1 hold knights, c1 and f1 rooks, a1 and h1 bishops: never exchanged.
    for (a, b) in [("b1", "g1"), ("c1", "f1"), ("a1", "h1")] {
        assert_eq!(swap_of(&mut pos, a, b), None, "{a}-{b} swaps two alike men: {all:?}");
    }
    assert!(swap_of(&mut pos, "d1", "e1").is_some(), "{all:?}");
    let text = swap_of(&mut pos, "a1", "e1").expect("the bishop and the king swap");
    pos.play_moves(&text).unwrap();
    // Neither a capture nor a pawn move: the halfmove clock runs on.
    assert_eq!(pos.to_fen(), "nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/KNRQBRNB b - - 1 1");
    // The hash is the board's: the same as the position string's read afresh.
    assert_eq!(pos.hash(), position(&pos.to_fen()).hash());
}

#[test]
fn each_side_swaps_on_its_first_turn_only() {
    let mut pos = position(FIXED);
    assert_eq!(swaps(&mut pos).len(), 25);
    pos.play_moves("e2e4").unwrap();
    // Black's first turn (fullmove 1): its own rank 8, never White's men.
    let black = swaps(&mut pos);
    assert_eq!(black.len(), 25);
    assert!(
        black.iter().all(|m| m.starts_with(|c: char| c.is_ascii_lowercase()) && m.as_bytes()[1] == b'8'),
        "{black:?}"
    );
    let text = swap_of(&mut pos, "a8", "d8").expect("Black's knight and king swap");
    pos.play_moves(&text).unwrap();
    assert_eq!(pos.fullmove_number(), 2);
    assert!(swaps(&mut pos).is_empty(), "White's second turn has no swap");
    pos.play_moves("g1f3").unwrap();
    assert!(swaps(&mut pos).is_empty(), "Black's second turn has no swap");
    // The start array set up at fullmove 2 (as after 1. Nf3 Nf6 2. Ng1 Ng8): no swap.
    let mut later = position("nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/BNRQKRNB w - - 0 2");
    assert_eq!(legal(&mut later).len(), 20);
}

#[test]
fn perft_of_a_fixed_array() {
    // Depth 1: White's 16 pawn moves, Nb1-a3/c3 and Ng1-f3/h3 (20), and 25 swaps: 45.
    let mut pos = position(FIXED);
    assert_eq!(perft(&mut pos, 1), 45);
    // Depth 2: after any of White's 45 moves (none reaches or attacks Black's men), Black has
    // 16 pawn moves, Na8-b6, Nh8-g6 and its own 25 swaps: 43 each, 45 * 43 = 1935.
    assert_eq!(perft(&mut pos, 2), 1935);
}

#[test]
fn an_unknown_first_turn_swap_is_refused_naming_the_field() {
    let text = "name = \"t\"\nextends = \"chess\"\nfirst_turn_swap = \"anywhere\"\n";
    let Err(err) = Variant::from_toml("test.toml", text, None) else { panic!("refused") };
    let err = err.to_string();
    assert!(err.contains("first_turn_swap"), "{err}");
    // With castling kept, a K-R swap would read like king-takes-rook castling.
    let text = "name = \"t\"\nextends = \"chess\"\nfirst_turn_swap = \"back_rank\"\n";
    let Err(err) = Variant::from_toml("test.toml", text, None) else { panic!("refused") };
    let err = err.to_string();
    assert!(err.contains("first_turn_swap") && err.contains("castling"), "{err}");
}
