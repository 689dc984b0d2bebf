//! Jupiter's capturing and displacing powers (jupiter.md §3.4, §3.5): `custodian`,
//! `coordinate`, `purge_promoted`, `royal_leap`, `tank_push`, `pull`, `push_away`, `reproduce`,
//! and the 1999 forms of `approach` and `withdraw`. The E/X/R tests copy the dossier's worked
//! examples (§10) verbatim; the others were derived by hand from §3.4, the derivation in the
//! comment above each list. Every new kind of action is also made and unmade: board, counts and
//! hash come back, and the incremental hash agrees with a recomputation.

mod support;

use fairyzero_rules::{Move, MoveList, Position};
use support::jupiter::{dossier_position_string, jupiter_position, jupiter_with};

/// A position string from the dossier's piece lists (`"K p1, W c4, OxT e3"`).
fn fen(blue: &str, tan: &str, blue_to_move: bool) -> String {
    dossier_position_string(blue, tan, blue_to_move)
}

fn position(blue: &str, tan: &str, blue_to_move: bool) -> Position {
    jupiter_position(&fen(blue, tan, blue_to_move))
}

/// A position on the subset of its own pieces plus `also` (the unpromoted forms of promoted
/// pieces on the board: a type is promoted because another one promotes to it).
fn position_with(blue: &str, tan: &str, also: &[&str]) -> Position {
    let text = fen(blue, tan, true);
    let mut tokens = support::jupiter::tokens_of_position(&text);
    tokens.extend(also.iter().map(|t| t.to_string()));
    let tokens: Vec<&str> = tokens.iter().map(String::as_str).collect();
    Position::from_fen(jupiter_with(&tokens), &text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn legal(pos: &mut Position) -> MoveList {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    list
}

fn moves_of(pos: Position, square: &str) -> Vec<String> {
    support::jupiter::moves_from(pos, square)
}

fn expected(lines: &str) -> Vec<String> {
    support::jupiter::dossier_list(lines)
}

/// The legal move printed as `text`.
fn find(pos: &mut Position, text: &str) -> Move {
    let list = legal(pos);
    let found = list.iter().find(|m| pos.move_to_string(m) == text).copied();
    found.unwrap_or_else(|| panic!("{text} is not a legal move in {}", pos.to_fen()))
}

/// The occupant of `square` as its token (Tan lower case), or "." if empty.
fn at(pos: &Position, square: &str) -> String {
    let v = pos.variant();
    let sq = v.dims.parse_square(square).unwrap();
    pos.piece_at(sq).map_or(".".to_string(), |p| v.piece_token(p).trim_matches(['(', ')']).to_string())
}

#[derive(Debug, PartialEq)]
struct Snapshot {
    fen: String,
    hash: u64,
    board: Vec<Option<fairyzero_rules::Piece>>,
    counts: Vec<u16>,
}

fn snapshot(pos: &Position) -> Snapshot {
    Snapshot { fen: pos.to_fen(), hash: pos.hash(), board: pos.board().to_vec(), counts: pos.piece_counts().to_vec() }
}

/// Makes the move printed as `text`, checks the squares of `after` (`("e4", "OXT")`, "." for
/// empty), the hash against a recomputation and the piece counts against the board; unmakes it
/// and checks that everything came back.
fn make_and_unmake(mut pos: Position, text: &str, after: &[(&str, &str)]) {
    let before = snapshot(&pos);
    let m = find(&mut pos, text);
    pos.make(m);
    for (square, token) in after {
        assert_eq!(at(&pos, square), *token, "after {text}: {square}");
    }
    assert_eq!(pos.hash(), pos.compute_hash(), "after {text}: incremental hash differs from compute_hash");
    let mut counts = vec![0u16; pos.piece_counts().len()];
    for p in pos.board().iter().flatten() {
        counts[p.index()] += 1;
    }
    assert_eq!(pos.piece_counts(), &counts[..], "after {text}: piece counts disagree with the board");
    pos.unmake();
    assert_eq!(snapshot(&pos), before, "make/unmake of {text}");
    assert_eq!(pos.hash(), pos.compute_hash());
}

/// Every legal move of the position: made, hash recomputed, unmade, restored.
fn every_move_round_trips(mut pos: Position) {
    let before = snapshot(&pos);
    for m in legal(&mut pos) {
        let text = pos.move_to_string(&m);
        pos.make(m);
        assert_eq!(pos.hash(), pos.compute_hash(), "after {text}: incremental hash differs from compute_hash");
        pos.unmake();
        assert_eq!(snapshot(&pos), before, "make/unmake of {text}");
    }
}

// ---------------------------------------------------------------------------------------------
// §10.1 worked examples
// ---------------------------------------------------------------------------------------------

fn e6_position() -> Position {
    position("W e1, K p1, B e2, Gu b3, N c3, W d3, OxT e3, P f3, P e4, N e5", "R e6, K a16", true)
}

#[test]
fn e6_ox_tank() {
    let want = expected(
        "e3e2xe1   ; own piece on e1 pushed off the board; Be2 to e1
         e3f3      ; Pf3 to g3
         e3e4xe6   ; captures e6; Pe4 to e5, Ne5 to e6",
    );
    assert_eq!(moves_of(e6_position(), "e3"), want);
}

fn e6b_position() -> Position {
    position("W a1, K p1, DrT b2, F a3, P c3, Gu b4", "P c1, N d4, K a16", true)
}

#[test]
fn e6b_dragon_tank() {
    let want = expected(
        "b2a1      ; own piece on a1 pushed off the board
         b2c1      ; captures c1
         b2a3      ; own piece on a3 pushed off the board
         b2c3xd4   ; captures d4; Pc3 to d4",
    );
    assert_eq!(moves_of(e6b_position(), "b2"), want);
}

fn e7_position() -> Position {
    position("K p1, Gu e3, CmH d4, P c5", "F b2, W d2, R h4, Q a7, P d7, N g7, B h8, K a16", true)
}

#[test]
fn e7_come_here() {
    let want = expected(
        "d4d4<b2   ; b2 moves to c3
         d4d4<d2   ; d2 moves to d3
         d4c3
         d4d3
         d4c4
         d4e4
         d4d4<h4   ; h4 moves to g4
         d4d5
         d4e5
         d4d4<d7   ; d7 moves to d6
         d4d4<g7   ; g7 moves to f6",
    );
    assert_eq!(moves_of(e7_position(), "d4"), want);
}

fn e8_position() -> Position {
    position("K p1, Gu d4, W c5, GoA e5, P d6", "F b2, W e2, B a5, R h5, P e6, N f6, P g7, K a16", true)
}

#[test]
fn e8_go_away() {
    let want = expected(
        "e5e5>e2   ; e2 moves to e1
         e5e4
         e5f4
         e5d5
         e5f5
         e5e5>h5   ; h5 moves to i5
         e5e5>e6   ; e6 moves to e7",
    );
    assert_eq!(moves_of(e8_position(), "e5"), want);
}

#[test]
fn e9_coordinator() {
    let pos = position("K h1, P o15, P o16, Coo p16", "R p1, P h3, N h10, K a16", true);
    let want = expected(
        "p16p2xp1        ; captures p1
         p16p3xp1xh3     ; captures p1,h3
         p16p4xp1        ; captures p1
         p16p5xp1        ; captures p1
         p16p6xp1        ; captures p1
         p16p7xp1        ; captures p1
         p16p8xp1        ; captures p1
         p16p9xp1        ; captures p1
         p16p10xp1xh10   ; captures p1,h10
         p16p11xp1       ; captures p1
         p16p12xp1       ; captures p1
         p16p13xp1       ; captures p1
         p16p14xp1       ; captures p1
         p16p15xp1       ; captures p1",
    );
    assert_eq!(moves_of(pos, "p16"), want);
}

#[test]
fn e10_withdrawer() {
    let pos = position("K d1, P c4, Wdr d4, P e4, W c5", "P d5, N e5, K a16", true);
    let want = expected(
        "d4a1xe5   ; captures e5
         d4g1
         d4b2xe5   ; captures e5
         d4d2xd5   ; captures d5
         d4f2
         d4c3xe5   ; captures e5
         d4d3xd5   ; captures d5
         d4e3",
    );
    assert_eq!(moves_of(pos, "d4"), want);
}

fn e11_position() -> Position {
    position("K p1, N f2, P d3, Int e4, Gu d5, W f7, F h7", "W e3, B e5, P g5, P h5, P f6, N g6, K a16", true)
}

#[test]
fn e11_intertaker() {
    let want = expected(
        "e4f3xe3         ; captures e3
         e4d4xe3         ; captures e3
         e4f4
         e4f5xe5xf6xg6   ; captures e5,f6,g6",
    );
    assert_eq!(moves_of(e11_position(), "e4"), want);
}

#[test]
fn e12_neartaker() {
    let pos = position("K p1, P d3, Nrt e4, Gu f4", "B f2, W c4, P e6, N g6, K a16", true);
    let want = expected(
        "e4e3
         e4f3
         e4d4xc4   ; captures c4
         e4d5
         e4e5xe6   ; captures e6
         e4f5xg6   ; captures g6",
    );
    assert_eq!(moves_of(pos, "e4"), want);
}

fn e19_position() -> Position {
    position("Co d1, K e1, W d2, EP e2, P p15, N n16, Roy p16", "N f1, P o15, K a16", true)
}

#[test]
fn e19_royalist() {
    let want = expected(
        "p16d1    ; removes own piece on d1
         p16f1    ; captures f1
         p16d2    ; removes own piece on d2
         p16f2
         p16d3
         p16e3
         p16f3
         p16o15   ; captures o15
         p16o16",
    );
    assert_eq!(moves_of(e19_position(), "p16"), want);
}

fn e23_position() -> Position {
    position("K p1, Trb e4, P g4, W e5", "P e6, K a16", true)
}

#[test]
fn e23_tribble() {
    let want = expected(
        "e4e2
         e4e4&e2   ; new Tribble on e2
         e4c4
         e4e4&c4   ; new Tribble on c4
         e4e6      ; captures e6",
    );
    assert_eq!(moves_of(e23_position(), "e4"), want);
}

// ---------------------------------------------------------------------------------------------
// §10.2 Jupiter (1999) versions of shared pieces
// ---------------------------------------------------------------------------------------------

#[test]
fn x2_sorcerer() {
    let pos = position("K p1, So a3", "P c3, C d3, N f3, K a16", true);
    let want = expected(
        "a3c1
         a3a2
         a3b2
         a3b3
         a3b3xc3xd3   ; captures c3,d3
         a3a4
         a3b4
         a3c5",
    );
    assert_eq!(moves_of(pos, "a3"), want);
}

fn x3_position() -> Position {
    position("K p1, Mi a3", "P d6, K a16", true)
}

#[test]
fn x3_missionary() {
    let want = expected(
        "a3c1
         a3a2
         a3b2
         a3b3
         a3a4
         a3b4
         a3c5
         a3c5~d6   ; converts d6",
    );
    assert_eq!(moves_of(x3_position(), "a3"), want);
}

// ---------------------------------------------------------------------------------------------
// §10.3 scenario
// ---------------------------------------------------------------------------------------------

/// R3: `c3e5` takes the Goat and, with it, every promoted piece next to e5 — Blue's Queen and
/// Emperor, Tan's Lioness; Tan's Pawn stays. The Queen is promoted from the Stork, which the
/// subset must name for the Queen to count as promoted.
#[test]
fn r3_communist() {
    let mut pos = position_with("Cst c3, Q d6, Em f4, K p1", "Go e5, Li e6, P f5, K a16", &["ST"]);
    let m = find(&mut pos, "c3e5xf4xd6xe6");
    pos.make(m);
    for (square, token) in [("c3", "."), ("e5", "CST"), ("d6", "."), ("e6", "."), ("f4", "."), ("f5", "p"), ("p1", "K")]
    {
        assert_eq!(at(&pos, square), token, "{square}");
    }
    assert_eq!(pos.hash(), pos.compute_hash());
    assert!(pos.immediate_outcome().is_none(), "Blue keeps its King: the game goes on");
}

// ---------------------------------------------------------------------------------------------
// Hand-derived move lists
// ---------------------------------------------------------------------------------------------

/// Communist on h8 (W + B2, move or capture): Tan Lioness g10 (promoted, from the Goat), Tan
/// Pawn f10 (unpromoted), Blue Tribble j9 (promoted, from the Go-Between).
/// Destinations and the promoted pieces around them (h8 itself is vacated):
/// h9: g10 · h7, g8, g7, f6, i7, j6: none · i8: j9 · g9: g10 (f10 is a Pawn) ·
/// f10 (takes the Pawn): g10 · i9: j9 · j10: j9.
#[test]
fn communist_purges_promoted_neighbours_of_both_sides() {
    let pos = position_with("Cst h8, K p1, Trb j9", "Li g10, P f10, K a16", &["GO", "GBT"]);
    let want = expected(
        "h8f6
         h8g7
         h8h7
         h8i7
         h8j6
         h8g8
         h8i8xj9
         h8g9xg10
         h8h9xg10
         h8i9xj9
         h8f10xg10
         h8j10xj9",
    );
    assert_eq!(moves_of(pos, "h8"), want);
}

/// Tan's Ox Tank on h10 (owner-relative directions; W is symmetric, so the same four lines):
/// north h11 holds Tan Pawn, h12 a Tan Pawn, h13 a Blue Knight: pushing two, the Knight is
/// captured (h10h11xh13). South h9 holds a Tan Pawn and h8 Tan Pawn, h7 Tan Wazir: three in a
/// row, impossible. West g10 holds a Blue Bishop: an ordinary capture. East i10 is empty: a step.
/// Tan's zone is ranks 1-6, so no promotion.
#[test]
fn tan_ox_tank_pushes_two_and_never_three() {
    let tan = "OxT h10, P h11, P h12, P h9, P h8, W h7, K a16";
    let pos = jupiter_position(&fen("K p1, N h13, B g10", tan, false));
    let want = expected(
        "h10h11xh13
         h10g10
         h10i10",
    );
    assert_eq!(moves_of(pos, "h10"), want);
}

/// A tank that steps into its promotion zone by a push may promote: Blue Ox Tank h10, Blue Pawn
/// h11 (rank 11 is in Blue's zone), h12 empty.
#[test]
fn a_tank_may_promote_after_a_push() {
    let pos = position("OxT h10, P h11, K p1", "K a16, P a15", true);
    let want = expected(
        "h10h11
         h10h11+
         h10g10
         h10i10
         h10h9",
    );
    assert_eq!(moves_of(pos.clone(), "h10"), want);
    make_and_unmake(pos, "h10h11+", &[("h10", "."), ("h11", "BGN"), ("h12", "P")]);
}

// ---------------------------------------------------------------------------------------------
// Make and unmake of every new kind of action
// ---------------------------------------------------------------------------------------------

#[test]
fn pull_make_unmake() {
    make_and_unmake(e7_position(), "d4d4<d7", &[("d4", "CMH"), ("d7", "."), ("d6", "p")]);
    make_and_unmake(e7_position(), "d4d4<b2", &[("b2", "."), ("c3", "f")]);
    every_move_round_trips(e7_position());
}

#[test]
fn push_make_unmake() {
    make_and_unmake(e8_position(), "e5e5>e6", &[("e5", "GOA"), ("e6", "."), ("e7", "p")]);
    make_and_unmake(e8_position(), "e5e5>h5", &[("h5", "."), ("i5", "r")]);
    every_move_round_trips(e8_position());
}

#[test]
fn reproduce_make_unmake() {
    make_and_unmake(e23_position(), "e4e4&c4", &[("e4", "TRB"), ("c4", "TRB")]);
    every_move_round_trips(e23_position());
}

#[test]
fn shove_make_unmake() {
    make_and_unmake(e6_position(), "e3e4xe6", &[("e3", "."), ("e4", "OXT"), ("e5", "P"), ("e6", "N")]);
    make_and_unmake(e6_position(), "e3e2xe1", &[("e3", "."), ("e2", "OXT"), ("e1", "B")]);
    make_and_unmake(e6_position(), "e3f3", &[("e3", "."), ("f3", "OXT"), ("g3", "P")]);
    make_and_unmake(e6b_position(), "b2a1", &[("b2", "."), ("a1", "DRT")]);
    make_and_unmake(e6b_position(), "b2c3xd4", &[("b2", "."), ("c3", "DRT"), ("d4", "P")]);
    every_move_round_trips(e6_position());
    every_move_round_trips(e6b_position());
}

#[test]
fn royal_leap_and_automatic_captures_make_unmake() {
    make_and_unmake(e19_position(), "p16d1", &[("p16", "."), ("d1", "ROY")]);
    every_move_round_trips(e19_position());
    make_and_unmake(
        e11_position(),
        "e4f5xe5xf6xg6",
        &[("e4", "."), ("f5", "INT"), ("e5", "."), ("f6", "."), ("g6", ".")],
    );
    every_move_round_trips(e11_position());
    make_and_unmake(x3_position(), "a3c5~d6", &[("c5", "MI"), ("d6", "P")]);
}

/// Random games from a crowded middlegame with every effect piece of both sides, on the full
/// 161-type game: at every node every legal move is made and unmade, with the hash, the counts
/// and the board checked each time (pushes, pulls, shoves, royal leaps, reproduction and the
/// automatic captures meeting each other, with doubled turns and burning around).
#[test]
fn random_games_with_every_effect_piece_make_and_unmake() {
    use rand::{rngs::StdRng, Rng, SeedableRng};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/variants/jupiter.toml");
    let variant = fairyzero_rules::Variant::load(path.to_str().unwrap()).unwrap_or_else(|e| panic!("{e}"));
    let blue = "K h1, Em i1, OxT e3, P e4, P e5, DrT f3, P g4, CmH d4, GoA l4, Nrt g5, Int j5, Coo c2, Wdr n2, \
                Cst h6, Roy k3, Trb e7, Mi b5, So o5, Q i4, Gu m3, W d3, FiD a2, Dbl p3, RlW f5";
    let tan = "K i16, Sul h16, OxT l14, P l13, DrT k14, CmH m13, GoA e13, Nrt j12, Int g12, Coo n15, Wdr c15, \
               Cst i11, Roy f14, Trb l10, Mi o12, So b12, Li h12, Gu d14, W m12, P k12, N j9, B e9";
    let start = Position::from_fen(variant, &fen(blue, tan, true)).unwrap_or_else(|e| panic!("{e}"));
    let mut rng = StdRng::seed_from_u64(16);
    for game in 0..8 {
        let mut pos = start.clone();
        for ply in 0..20 {
            let moves = legal(&mut pos);
            if moves.is_empty() {
                break;
            }
            let before = snapshot(&pos);
            for m in &moves {
                let text = pos.move_to_string(m);
                pos.make(*m);
                assert_eq!(pos.hash(), pos.compute_hash(), "game {game} ply {ply}: after {text} in {}", before.fen);
                let mut counts = vec![0u16; pos.piece_counts().len()];
                for p in pos.board().iter().flatten() {
                    counts[p.index()] += 1;
                }
                assert_eq!(pos.piece_counts(), &counts[..], "game {game} ply {ply}: counts after {text}");
                pos.unmake();
                assert_eq!(snapshot(&pos), before, "game {game} ply {ply}: make/unmake of {text}");
            }
            pos.make(moves[rng.gen_range(0..moves.len())]);
        }
    }
}

/// Royalist f2 next to its King e1 (Blue; Tan K a16, P a15). Royal leaps: the squares around
/// e1 but f2 itself — d1, f1, d2, e2. Its own FR2: F to g1, e3, g3 (e1 is its King); R2 to f1,
/// f3, f4, e2, d2, g2, h2. f1, e2 and d2 are reached both ways: one move each.
#[test]
fn royalist_leap_and_own_move_to_one_square_are_one_move() {
    let pos = position("K e1, Roy f2", "K a16, P a15", true);
    let want = expected(
        "f2d1
         f2f1
         f2d2
         f2e2
         f2g1
         f2e3
         f2g3
         f2f3
         f2f4
         f2g2
         f2h2",
    );
    assert_eq!(moves_of(pos, "f2"), want);
}

/// Parameters that make no sense are refused when the variant loads, naming the field.
#[test]
fn bad_effect_parameters_are_refused() {
    let cases = [
        (r#"{ kind = "pull", reach = "Q", min = 1, max = 4 }"#, "min"),
        (r#"{ kind = "push_away", reach = "Q", max = 0 }"#, "max"),
        (r#"{ kind = "tank_push", dirs = "W", max_pushed = 0 }"#, "max_pushed"),
        (r#"{ kind = "tank_push", dirs = "R", max_pushed = 2 }"#, "dirs"),
        (r#"{ kind = "approach", dirs = "K", range = 0, effect = "convert" }"#, "range"),
        (r#"{ kind = "withdraw", dirs = "N" }"#, "dirs"),
        (r#"{ kind = "custodian", dirs = "WR" }"#, "dirs"),
        (r#"{ kind = "coordinate", dirs = "D" }"#, "dirs"),
    ];
    for (power, field) in cases {
        let text = format!(
            "name = \"bad\"\nwidth = 8\nheight = 8\nstart = \"7k/8/8/8/8/8/8/K6X w\"\n\
             [[piece]]\nname = \"King\"\ntoken = \"K\"\nbetza = \"K\"\nroyal = true\n\
             [[piece]]\nname = \"Effect\"\ntoken = \"X\"\nbetza = \"\"\npowers = [{power}]\n"
        );
        let error = fairyzero_rules::Variant::from_toml("bad.toml", &text, None).expect_err(power).to_string();
        assert!(error.contains(&format!("`{field}`")), "{power}: {error}");
    }
}
