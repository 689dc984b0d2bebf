//! Jupiter's multi-part movers (jupiter.md §3.4): the `path`, `zigzag`, `capture_continue`,
//! `general_jump` and `hop_chain` powers, one move-list test per piece. The E-tests copy the
//! dossier's worked examples (§10.1) verbatim; the others were derived by hand from §3.4, the
//! derivation in the comment above each list.

mod support;

use fairyzero_rules::{MoveList, Position, Variant};
use support::jupiter::{dossier_position_string, jupiter_position};

/// A position from the dossier's piece lists (`"K p1, W c4, Hoo e4"`).
fn position(blue: &str, tan: &str, blue_to_move: bool) -> Position {
    jupiter_position(&dossier_position_string(blue, tan, blue_to_move))
}

fn moves_of(pos: Position, square: &str) -> Vec<String> {
    support::jupiter::moves_from(pos, square)
}

fn expected(lines: &str) -> Vec<String> {
    support::jupiter::dossier_list(lines)
}

/// `from` followed by each square of `squares` (space-separated), as plain displacements.
fn to_squares(from: &str, squares: &str) -> Vec<String> {
    let mut out: Vec<String> = squares.split_whitespace().map(|s| format!("{from}{s}")).collect();
    out.sort();
    out.dedup();
    out
}

// --- Hook pair ---------------------------------------------------------------------------------

#[test]
fn e1_hooklet() {
    let pos = position("K p1, W c4, Hoo e4, P e5", "P d2, W f3, N g4, K a16", true);
    let want = expected(
        "e4d2   ; captures d2
         e4e2
         e4f2
         e4g2
         e4c3
         e4d3
         e4e3
         e4f3   ; captures f3
         e4d4
         e4f4
         e4g4   ; captures g4
         e4d5
         e4f5
         e4d6
         e4f6",
    );
    assert_eq!(moves_of(pos, "e4"), want);
}

#[test]
fn e2_hawklet() {
    let pos = position("K p1, Haw b2, P c2, W a3, Gu c3", "P b3, K a16", true);
    let want = expected(
        "b2a1
         b2b1
         b2c1
         b2d1
         b2a2
         b2d2
         b2b3   ; captures b3",
    );
    assert_eq!(moves_of(pos, "b2"), want);
}

#[test]
fn tan_hooklet_in_its_zone_promotes_to_boyscout() {
    // Tan Hooklet b3 (Tan's zone: ranks 1-6, so every move may promote). South: the Blue W
    // on b2 is captured at once. North: b4, then a4 (west) and c4 d4 (east); the Blue P on b5
    // is captured at distance 2. West: a3, then a4 a5 (north) and a2 a1 (south). East: c3,
    // d3, each turning to two squares north and two south.
    let pos = position("K p1, W b2, P b5", "Hoo b3, N p9, K a16", false);
    let plain = "b2 b4 b5 a3 a4 a5 a2 a1 c3 d3 c4 c5 c2 c1 d4 d5 d2 d1";
    let mut want = to_squares("b3", plain);
    want.extend(to_squares("b3", plain).into_iter().map(|m| m + "+"));
    want.sort();
    assert_eq!(moves_of(pos, "b3"), want);
}

#[test]
fn boyscout_seed_lines_on_an_empty_board() {
    // Seed check, Boyscout on c4: b5 c6 b7 c8…; d5 c6 d7 c8…; d5 e4 f5 g4…; d3 e4 f3 g4…;
    // d3 c2 d1; b3 c2 b1; b3 a4; b5 a4 (the lines with … run on to the board edge).
    let pos = position("K p1, Boy c4", "P p10, K a16", true);
    let lines = "b5 c6 b7 c8 b9 c10 b11 c12 b13 c14 b15 c16
                 d5 c6 d7 c8 d9 c10 d11 c12 d13 c14 d15 c16
                 d5 e4 f5 g4 h5 i4 j5 k4 l5 m4 n5 o4 p5
                 d3 e4 f3 g4 h3 i4 j3 k4 l3 m4 n3 o4 p3
                 d3 c2 d1
                 b3 c2 b1
                 b3 a4
                 b5 a4";
    assert_eq!(moves_of(pos, "c4"), to_squares("c4", lines));
}

#[test]
fn boyscout_stops_at_friends_and_captures() {
    // Boyscout c4; Blue W d5 blocks both walks starting d5; Tan P b5 is captured (walks b5…
    // end there); Tan N e4 ends d3 e4…; the rest as on the empty board.
    let pos = position("K p1, Boy c4, W d5", "P b5, N e4, K a16", true);
    let lines = "b5
                 d3 e4
                 d3 c2 d1
                 b3 c2 b1
                 b3 a4";
    assert_eq!(moves_of(pos, "c4"), to_squares("c4", lines));
}

#[test]
fn girlscout_seed_lines_on_an_empty_board() {
    // Seed check, Girlscout on c4: c5 d5 d6 e6 e7…; c5 b5 b6 a6 a7; d4 d3 e3 e2 f2 f1 g1;
    // d4 d5 e5 e6 f6…; c3 b3 b2 a2 a1; c3 d3 d2 e2 e1 f1; b4 b5 a5 a6; b4 b3 a3 a2.
    let pos = position("K p1, Gir c4", "P p10, K a16", true);
    let lines = "c5 d5 d6 e6 e7 f7 f8 g8 g9 h9 h10 i10 i11 j11 j12 k12 k13 l13 l14 m14 m15 n15 n16 o16
                 c5 b5 b6 a6 a7
                 d4 d3 e3 e2 f2 f1 g1
                 d4 d5 e5 e6 f6 f7 g7 g8 h8 h9 i9 i10 j10 j11 k11 k12 l12 l13 m13 m14 n14 n15 o15 o16 p16
                 c3 b3 b2 a2 a1
                 c3 d3 d2 e2 e1 f1
                 b4 b5 a5 a6
                 b4 b3 a3 a2";
    assert_eq!(moves_of(pos, "c4"), to_squares("c4", lines));
}

#[test]
fn e24_girlscout() {
    let pos = position("K p1, Gir b2, P b3", "N a1, P c2, K a16", true);
    let want = expected(
        "b2a1   ; captures a1
         b2b1
         b2c1
         b2a2
         b2c2   ; captures c2
         b2a3",
    );
    assert_eq!(moves_of(pos, "b2"), want);
}

// --- Bent pair ---------------------------------------------------------------------------------

#[test]
fn e5_toucan() {
    let pos = position("K p1, P d3, Tou e4, W f4", "B d4, P e5, N f5, K a16", true);
    let want = expected(
        "e4e3
         e4f3
         e4d4      ; captures d4
         e4d5
         e4d5xd4   ; captures d4
         e4d5xe5   ; captures e5
         e4e5      ; captures e5
         e4f5      ; captures f5
         e4f5xe5   ; captures e5,f5",
    );
    assert_eq!(moves_of(pos, "e4"), want);
}

#[test]
fn a_toucan_bent_capture_in_the_zone_may_promote() {
    // Blue Toucan e11 (Blue's zone: ranks 11-16): every move has a promoting twin (Capricorn),
    // the bent captures of e12 (to d12, and to f12 taking the Tan N) included.
    let pos = position("K p1, Tou e11", "P e12, N f12, K a16", true);
    let plain = ["e11d10", "e11e10", "e11f10", "e11d11", "e11f11", "e11d12", "e11e12", "e11f12"];
    let bent = ["e11d12xe12", "e11f12xe12"];
    let mut want: Vec<String> = plain.iter().chain(&bent).flat_map(|m| [m.to_string(), format!("{m}+")]).collect();
    want.sort();
    assert_eq!(moves_of(pos, "e11"), want);
}

#[test]
fn e25_crow() {
    let pos = position("K p1, Cro e4, W d5", "N g4, P f5, R e6, K a16", true);
    let want = expected(
        "e4e2
         e4d3
         e4f3
         e4c4
         e4g4      ; captures g4
         e4g4xf5   ; captures g4,f5
         e4f5      ; captures f5
         e4e6      ; captures e6
         e4e6xf5   ; captures f5,e6",
    );
    assert_eq!(moves_of(pos, "e4"), want);
}

#[test]
fn capricorn_bends_once_at_right_angles() {
    // Capricorn b2. Leg 1: c3 (d4 own), a3 captured, c1, a1. Leg 2 at 90°: from c3 d2 and
    // e1 (captured), b4 a5; from c1 d2 (again: one move) e3 (f4 own); from a1 nothing.
    let pos = position("K p1, Cap b2, W d4, W f4", "N a3, P e1, K a16", true);
    assert_eq!(moves_of(pos, "b2"), to_squares("b2", "a1 c1 d2 e1 a3 c3 e3 b4 a5"));
}

#[test]
fn great_hook_bends_once_with_at_most_three_squares() {
    // Great Hook b2. Leg 1: b3 b4 (b5 own), b1, c2 d2 e2 (captured), a2 (captured). Leg 2,
    // at most 3 at 90°: from b3 c3 d3 e3 and a3; from b4 c4 d4 e4 and a4; from b1 c1 d1 e1
    // and a1; from c2 c3 c4 c5 and c1; from d2 d3 d4 d5 (captured) and d1.
    let pos = position("K p1, GrH b2, P b5", "N e2, R a2, P d5, K a16", true);
    let squares = "b3 b4 b1 c2 d2 e2 a2 c3 d3 e3 a3 c4 d4 e4 a4 c1 d1 e1 a1 c5 d5";
    assert_eq!(moves_of(pos, "b2"), to_squares("b2", squares));
}

// --- Letter pair -------------------------------------------------------------------------------

#[test]
fn e3_eye() {
    let pos = position("K p1, Eye h8, N i10", "N g6, P h6, K a16", true);
    let want = expected(
        "h8h6    ; captures h6
         h8h7
         h8h9
         h8g10
         h8h10",
    );
    assert_eq!(moves_of(pos, "h8"), want);
}

#[test]
fn e4_tan_yew() {
    let pos = position("K p1, P g5, N i7", "P i6, Yew h8, K a16", false);
    let want = expected(
        "h8g5   ; captures g5
         h8g5+  ; captures g5; promotes to Tal
         h8g6
         h8g6+  ; promotes to Tal
         h8g7
         h8i7   ; captures i7
         h8g8
         h8i8",
    );
    assert_eq!(moves_of(pos, "h8"), want);
}

#[test]
fn blue_yew_goes_up_at_most_three() {
    // Blue Yew b2: a2 then a3 (a4 own); c2 then c3 c4 c5 (c6, four squares up, out of reach).
    let pos = position("K p1, Yew b2, P a4", "P c6, N p9, K a16", true);
    assert_eq!(moves_of(pos, "b2"), to_squares("b2", "a2 a3 c2 c3 c4 c5"));
}

#[test]
fn far_queen_starts_at_distance_three() {
    // Far Queen d4. North: d5 d6 empty, then d7 d8 d9 (captured). South: d1 captured at
    // distance 3. East: e4 own at distance 1. West: b4 enemy at distance 2 blocks. Diagonals:
    // g7 captured, a7, g1, a1.
    let pos = position("K p1, FaQ d4, W e4", "R d1, N g7, P d9, P b4, K a16", true);
    assert_eq!(moves_of(pos, "d4"), to_squares("d4", "d7 d8 d9 d1 g7 a7 g1 a1"));
}

#[test]
fn talia_starts_at_distance_two() {
    // Talia d4. NE: e5 empty, f6 g7 (h8 own). NW: c5 enemy at distance 1, untouchable. SE:
    // f2 g1. SW: b2 captured.
    let pos = position("K p1, Tal d4, W h8", "N c5, P b2, K a16", true);
    assert_eq!(moves_of(pos, "d4"), to_squares("d4", "f6 g7 f2 g1 b2"));
}

// --- Mover, Tank, Odder and Chu pairs ---------------------------------------------------------

#[test]
fn e18_tiger_horse() {
    let pos = position("TiH a1, K p1, P c3", "N c2, P b3, R a4, W b4, K a16", true);
    let want = expected(
        "a1c1
         a1c1xc2   ; captures c2
         a1b2
         a1b2xb3   ; captures b3
         a1b2xc2   ; captures c2
         a1c2      ; captures c2
         a1d2
         a1d2xc2   ; captures c2
         a1a3
         a1a3xb3   ; captures b3
         a1b3      ; captures b3
         a1b4      ; captures b4
         a1b4xb3   ; captures b3,b4",
    );
    assert_eq!(moves_of(pos, "a1"), want);
}

#[test]
fn e15_king_lion() {
    let pos = position("KLi a1, K p1, W c3", "N a2, P b2, R b3, K a16", true);
    let want = expected(
        "a1a1xa2   ; igui, captures a2
         a1a1xb2   ; igui, captures b2
         a1b1
         a1b1xa2   ; captures a2
         a1b1xb2   ; captures b2
         a1c1
         a1c1xb2   ; captures b2
         a1a2      ; captures a2
         a1a2xb2   ; captures a2,b2
         a1b2      ; captures b2
         a1b2xa2   ; captures a2,b2
         a1c2
         a1c2xb2   ; captures b2
         a1a3
         a1a3xa2   ; captures a2
         a1a3xb2   ; captures b2
         a1b3      ; captures b3
         a1b3xa2   ; captures a2,b3
         a1b3xb2   ; captures b2,b3
         pass",
    );
    // The pass is made by the King Lion (`Move::pass(a1)`), so it is among its moves.
    assert_eq!(moves_of(pos, "a1"), want);
}

#[test]
fn e14_bishop_general() {
    let pos = position("BGn c1, K p1, N e3", "P d2, B a3, R f4, K g5, Q h6", true);
    let want = expected(
        "c1b2
         c1d2   ; captures d2
         c1a3   ; captures a3
         c1f4   ; captures f4; jumps d2 and e3",
    );
    assert_eq!(moves_of(pos, "c1"), want);
}

#[test]
fn rook_general_jumps_until_a_general_or_a_royal() {
    // Rook General a1. North: a2 captured plainly, a3 own jumped, a5 jump-captured, the Tan
    // Bishop General a6 ends the line (a8 out of reach). East: b1 c1, d1 captured plainly, f1
    // own jumped, h1 jump-captured, the Blue King p1 ends the line (nothing beyond anyway).
    let pos = position("K p1, RGn a1, N a3, W f1", "P a2, R a5, BGn a6, P a8, N d1, P h1, K a16", true);
    assert_eq!(moves_of(pos, "a1"), to_squares("a1", "a2 a5 b1 c1 d1 h1"));
}

#[test]
fn e13_halmopper() {
    let pos = position("K p1, P a2, Hlm b2, N c3, W b6", "F c2, P b3, W d4, R e5, N b7, K a16", true);
    let want = expected(
        "b2a1   ; also by hop chain
         b2b1   ; also by hop chain
         b2c1
         b2c2   ; captures c2
         b2d2   ; hop over c2
         b2a3
         b2b3   ; captures b3
         b2d3   ; d2, d5, then over d4
         b2b4   ; hop over b3
         b2c4   ; b4, e4, then over d4
         b2d4   ; captures d4; hop over c3
         b2e4   ; b4, then over d4
         b2d5   ; d2, then over d4
         b2f5   ; d2, d5, then over e5
         b2a6   ; ... e6, then over b6
         b2c6   ; ... a8, then over b7
         b2e6   ; b4, e4, then over e5
         b2b7   ; captures b7; b4, then over b6
         b2a8   ; b4, e4, then over b7
         b2c8   ; ... a6, then over b7",
    );
    assert_eq!(moves_of(pos, "b2"), want);
}

// --- Parameters refused at load ----------------------------------------------------------------

#[test]
fn bad_geometry_parameters_are_refused_by_name() {
    let refusal = |powers: &str| {
        let text = format!(
            "name = \"t\"\nwidth = 5\nheight = 5\nstart = \"4k/5/5/5/K3X w\"\n\
             [[piece]]\nname = \"king\"\ntoken = \"K\"\nbetza = \"K\"\nroyal = true\n\
             [[piece]]\nname = \"x\"\ntoken = \"X\"\nbetza = \"\"\npowers = [{powers}]\n"
        );
        match fairyzero_rules::Variant::from_toml("t.toml", &text, None) {
            Ok(_) => panic!("{powers} must be refused"),
            Err(e) => e.to_string(),
        }
    };
    let e = refusal(r#"{ kind = "path", legs = [{ dirs = "W" }, { dirs = "W", turn = "sideways" }] }"#);
    assert!(e.contains("legs[1].turn") && e.contains("sideways"), "{e}");
    let e = refusal(r#"{ kind = "path", legs = [{ dirs = "W", turn = "s" }] }"#);
    assert!(e.contains("legs[0].turn"), "{e}");
    let e = refusal(r#"{ kind = "path", legs = [{ dirs = "R", next_from_end = true }, { dirs = "W", turn = "s" }] }"#);
    assert!(e.contains("legs[0].next_from_end"), "{e}");
    let e = refusal(r#"{ kind = "path", legs = [{ dirs = "N" }] }"#);
    assert!(e.contains("legs[0].dirs"), "{e}");
    let e = refusal(r#"{ kind = "capture_continue", first = "R", then = "W" }"#);
    assert!(e.contains("first"), "{e}");
    let e = refusal(r#"{ kind = "zigzag", dirs = "B" }"#);
    assert!(e.contains("dirs"), "{e}");
}

// --- Random games ------------------------------------------------------------------------------

/// Random games with every geometry piece of both sides (and the unpromoted ones promoting):
/// at every node the moves are distinct, print and parse back to themselves, and make/unmake
/// restores the position and its hash.
#[test]
fn random_games_with_every_geometry_piece() {
    use rand::{rngs::StdRng, Rng, SeedableRng};
    let blue = "K h1, Hoo b3, Haw c3, Boy d3, Gir e3, Tou f3, Cro g3, Cap i3, GrH j3, Eye k3, Yew l3, \
                FaQ m3, Tal n3, TiH o3, KLi e5, BGn f5, RGn g5, Hlm h5, P c6, P j6, N k5";
    let tan = "K i16, Hoo o14, Haw n14, Boy m14, Gir l14, Tou k14, Cro j14, Cap h14, GrH g14, Eye f14, \
               Yew e14, FaQ d14, Tal c14, TiH b14, KLi l12, BGn k12, RGn j12, Hlm i12, P n11, P g11, N f12";
    let start = position(blue, tan, true);
    let mut rng = StdRng::seed_from_u64(16);
    for game in 0..3 {
        let mut pos = start.clone();
        for ply in 0..20 {
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            if list.is_empty() {
                break;
            }
            let fen = pos.to_fen();
            let hash = pos.hash();
            let mut texts: Vec<String> = list.iter().map(|m| pos.move_to_string(m)).collect();
            for (m, text) in list.iter().zip(&texts) {
                assert_eq!(pos.parse_move(text), Ok(*m), "game {game} ply {ply}: {text} in {fen}");
                pos.make(*m);
                assert_eq!(pos.hash(), pos.compute_hash(), "game {game} ply {ply}: after {text} in {fen}");
                pos.unmake();
                assert_eq!((pos.to_fen(), pos.hash()), (fen.clone(), hash), "game {game} ply {ply}: {text}");
            }
            let count = texts.len();
            texts.sort();
            texts.dedup();
            assert_eq!(texts.len(), count, "game {game} ply {ply}: a move printed twice in {fen}");
            pos.make(list[rng.gen_range(0..list.len())]);
        }
    }
}

/// A misspelt stopper token would let the Generals jump that piece: the loader refuses it.
#[test]
fn an_unknown_general_stopper_token_is_a_load_error() {
    let text = "name = \"t\"\nwidth = 8\nheight = 8\nstart = \"k7/8/8/8/8/8/8/6GK w\"\n\
        [[piece]]\nname = \"King\"\ntoken = \"K\"\nbetza = \"K\"\nroyal = true\n\
        [[piece]]\nname = \"General\"\ntoken = \"G\"\nbetza = \"R\"\n\
        powers = [{ kind = \"general_jump\", dirs = \"R\", stoppers = [\"royal\", \"GX\"] }]\n";
    let e = Variant::from_toml("t.toml", text, None).map(|_| ()).expect_err("GX names no piece").to_string();
    assert!(e.contains("t.toml") && e.contains("unknown stopper token \"GX\""), "{e}");
    let fixed = text.replace("\"GX\"", "\"g\"");
    assert!(Variant::from_toml("t.toml", &fixed, None).is_ok(), "a real token (any case) loads");
}
