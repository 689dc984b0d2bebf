//! ICS wild 1 (list #63, `configs/variants/wild1.toml`): random asymmetric first ranks with
//! the king on d or e, the rooks in the corners and the bishops on opposite colours, castling
//! kept, from a d-file king as the mirror image of chess's (o-o toward the a-file). Perft of the
//! arrays of seeds 0-2 is checked against Fairy-Stockfish and python-chess (`chess` by FEN,
//! without the rights of a d-file king, which they would castle differently) by
//! `tests/perft.rs` with `tests/data/wild1.perft`; these tests pin the generator and the
//! castling from d1 and d8.

mod support;

use std::{collections::HashSet, sync::Arc};

use fairyzero_rules::{Position, Variant};
use support::worked::legal_texts as legal;

fn variant() -> Arc<Variant> {
    Variant::load("wild1").unwrap_or_else(|e| panic!("wild1: {e}"))
}

fn position(fen: &str) -> Position {
    Position::from_fen(variant(), fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn first_rank(fen: &str, rank_from_top: usize) -> Vec<char> {
    let board = fen.split_whitespace().next().unwrap();
    let row = board.split('/').nth(rank_from_top).unwrap();
    row.chars()
        .flat_map(|c| match c.to_digit(10) {
            Some(n) => vec!['.'; n as usize],
            None => vec![c],
        })
        .collect()
}

#[test]
fn arrays_put_the_king_on_d_or_e_rooks_in_the_corners_bishops_on_opposite_colours() {
    let v = variant();
    let (mut distinct, mut kings, mut unmirrored) = (HashSet::new(), HashSet::new(), 0);
    for seed in 0..500u64 {
        let fen = v.generated_start(seed).unwrap();
        assert_eq!(v.generated_start(seed).unwrap(), fen, "seed {seed} repeats its array");
        assert!(fen.ends_with(" w KQkq - 0 1"), "{fen}: castling kept");
        let pos = Position::start_with_seed(Arc::clone(&v), seed);
        assert_eq!(pos.to_fen(), fen);
        let (white, black) = (first_rank(&fen, 7), first_rank(&fen, 0));
        for (rank, light_parity, upper) in [(&white, 1, true), (&black, 0, false)] {
            let t = |c: char| if upper { c } else { c.to_ascii_lowercase() };
            let mut sorted = rank.clone();
            sorted.sort();
            let mut expected: Vec<char> = "RNBQKBNR".chars().map(t).collect();
            expected.sort();
            assert_eq!(sorted, expected, "{fen}");
            assert!(rank[0] == t('R') && rank[7] == t('R'), "{fen}: rooks in the corners");
            let king = rank.iter().position(|&c| c == t('K')).unwrap();
            assert!(king == 3 || king == 4, "{fen}: the king on d or e");
            let light: usize = (0..8).filter(|&f| rank[f] == t('B') && f % 2 == light_parity).count();
            assert_eq!(light, 1, "{fen}: bishops on opposite colours");
        }
        kings.insert((white.iter().position(|&c| c == 'K'), black.iter().position(|&c| c == 'k')));
        unmirrored += usize::from(black.iter().map(|c| c.to_ascii_uppercase()).collect::<Vec<_>>() != white);
        distinct.insert(fen);
    }
    // About 36 arrays a side (king 2 files, bishops on opposite colours among five squares,
    // queen and knights on the rest), 1,296 pairs: 500 draws give about 415 distinct ones.
    assert!(distinct.len() > 350, "{}", distinct.len());
    assert_eq!(kings.len(), 4, "each king on d or on e, independently: {kings:?}");
    assert!(unmirrored > 400, "asymmetric: {unmirrored} of 500 not mirrored");
}

#[test]
fn a_d_file_king_castles_short_toward_a_and_long_toward_h() {
    let mut pos = position("r2k3r/pppppppp/8/8/8/8/PPPPPPPP/R2K3R w KQkq - 0 1");
    let moves = legal(&mut pos);
    assert!(moves.contains("d1b1") && moves.contains("d1f1"), "{moves:?}");
    let mut short = pos.clone();
    short.play_moves("d1b1").unwrap();
    assert_eq!(short.to_fen(), "r2k3r/pppppppp/8/8/8/8/PPPPPPPP/1KR4R b kq - 1 1");
    short.play_moves("d8f8").unwrap();
    assert_eq!(short.to_fen(), "r3rk2/pppppppp/8/8/8/8/PPPPPPPP/1KR4R w - - 2 2");
    // The long castling needs e1, f1 and g1 empty (the king crosses e1 to f1, the rook g1 to e1).
    let blocked = legal(&mut position("r2k3r/pppppppp/8/8/8/8/PPPPPPPP/R2K2NR w KQkq - 0 1"));
    assert!(blocked.contains("d1b1") && !blocked.contains("d1f1"), "{blocked:?}");
}

#[test]
fn an_e_file_king_castles_as_in_chess_and_rights_follow_their_rooks() {
    let mut pos = position("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1");
    let moves = legal(&mut pos);
    assert!(moves.contains("e1g1") && moves.contains("e1c1"), "{moves:?}");
    let mut kingside = pos.clone();
    kingside.play_moves("e1g1").unwrap();
    assert_eq!(kingside.to_fen(), "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b kq - 1 1");
    // Moving the a-rook loses only the Q right.
    let mut rook = pos.clone();
    rook.play_moves("a1b1").unwrap();
    assert!(rook.to_fen().contains(" b Kkq "), "{}", rook.to_fen());
}

#[test]
fn castling_from_d1_is_refused_through_check() {
    // A black bishop on e2's diagonal... a black rook on c8 with the c-file open hits c1,
    // which the d-king crosses to b1: only the long castling remains.
    let moves = legal(&mut position("2rk3r/pp1ppppp/8/8/8/8/PP1PPPPP/R2K3R w KQk - 0 1"));
    assert!(!moves.contains("d1b1") && moves.contains("d1f1"), "{moves:?}");
}

#[test]
fn position_strings_round_trip_with_rights_of_either_king_file() {
    for fen in [
        "r2k3r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
        "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R2K3R b Kq - 3 7",
        "r2k3r/pppppppp/8/8/8/8/PPPPPPPP/R2K3R w Q - 0 1",
    ] {
        let pos = position(fen);
        assert_eq!(pos.to_fen(), fen);
        assert_eq!(position(&pos.to_fen()).hash(), pos.hash(), "{fen}");
    }
    // A right whose king or rook is not on its first-rank square is refused, naming it.
    let v = variant();
    let e = Position::from_fen(Arc::clone(&v), "r2k3r/pppppppp/8/8/8/8/PPPPPPPP/R1K4R w K - 0 1").err().unwrap();
    assert!(e.to_string().contains("castling right 'K'"), "{e}");
}

#[test]
fn perft_reference_holds_the_arrays_of_seeds_0_to_2() {
    let v = variant();
    let path = format!("{}/tests/data/wild1.perft", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let boards: Vec<&str> =
        text.lines().filter_map(|l| l.strip_prefix("fen ")).map(|f| f.split(' ').next().unwrap()).take(3).collect();
    let expected: Vec<String> =
        (0..3).map(|s| v.generated_start(s).unwrap().split(' ').next().unwrap().to_string()).collect();
    assert_eq!(boards, expected, "{path}: regenerate it with the arrays of seeds 0-2 (tools/gen_perft.py)");
}

/// The generator's `fixed` and `files` keys name themselves on bad input.
#[test]
fn bad_fixed_and_files_keys_name_the_field() {
    let err = |body: &str| {
        let text = format!("name = \"bad\"\nextends = \"wild1\"\n[start_generator]\nblack = \"independent\"\n{body}");
        Variant::from_toml("bad", &text, None).map(|_| ()).expect_err(body).to_string()
    };
    let e = err("material = \"shuffle\"\nfixed = [\"X\"]\n");
    assert!(e.contains("start_generator.fixed") && e.contains("\"X\""), "{e}");
    let e = err("material = \"shuffle\"\nfiles = { K = \"dz\" }\n");
    assert!(e.contains("start_generator.files") && e.contains("\"dz\""), "{e}");
    let e = err("material = \"draw\"\ndraw = [\"Q\"]\nfixed = [\"R\"]\n");
    assert!(e.contains("start_generator.fixed") && e.contains("shuffle"), "{e}");
    // By destination files (chess's castling), a template with rights is still refused.
    let text = "name = \"bad\"\nextends = \"chess\"\n[start_generator]\nmaterial = \"shuffle\"\nblack = \"mirror\"\n";
    let e = Variant::from_toml("bad", text, None).map(|_| ()).expect_err("castling").to_string();
    assert!(e.contains("no castling rights"), "{e}");
}
