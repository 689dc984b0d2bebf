//! `configs/variants/jupiter.toml` as data, checked against the dossier
//! (`../shared/rules/jupiter.md`, § below): the 68 pieces shared with Typhoon, the 161-type
//! inventory and its promotions (§3.2), the royal types (§7.1), and the start array against the
//! setup phase (§2.2, §2.4, §2.5).

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use fairyzero_rules::{Position, Variant};
use support::jupiter::{jupiter_position, jupiter_with, try_jupiter_with};

fn variants_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("configs").join("variants")
}

fn jupiter_path() -> String {
    variants_dir().join("jupiter.toml").display().to_string()
}

fn read_table(file: &str) -> toml::Table {
    let path = variants_dir().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.parse().unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `[[piece]]` tables of a file by upper-case token, in file order.
fn pieces_of(table: &toml::Table) -> Vec<(String, toml::Table)> {
    let pieces = table.get("piece").and_then(toml::Value::as_array).expect("a `piece` array");
    pieces
        .iter()
        .map(|p| {
            let p = p.as_table().expect("a piece table").clone();
            let token = p.get("token").and_then(toml::Value::as_str).expect("a token").to_ascii_uppercase();
            (token, p)
        })
        .collect()
}

fn strings(value: Option<&toml::Value>) -> Vec<String> {
    value
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(toml::Value::as_str)
        .map(String::from)
        .collect()
}

/// The seven shared types whose 1999 definitions differ from Typhoon's 2009 ones (§3.5).
const JUPITER_1999: [&str; 7] = ["CI", "SA", "TY", "MI", "SO", "DER", "HA"];

/// §3.2: every unpromoted type with its promotions (the King's two: Emperor, or Emperor of
/// Emperors while an Emperor stands, §6.5). Tokens are the abbreviations in upper case, with
/// `DEL` (Drunk Elephant) and `DER` (Dervish).
const PROMOTIONS: [(&str, &[&str]); 80] = [
    ("FH", &["FO"]),
    ("GW", &["FB"]),
    ("HOO", &["BOY"]),
    ("HAW", &["GIR"]),
    ("MA", &["AB"]),
    ("PR", &["DU"]),
    ("ST", &["Q"]),
    ("GO", &["LI"]),
    ("CI", &["TY"]),
    ("SA", &["GE"]),
    ("TOU", &["CAP"]),
    ("CRO", &["GRH"]),
    ("GG", &["HO"]),
    ("FL", &["DO"]),
    ("K", &["EM", "EE"]),
    ("CO", &["WI"]),
    ("BLN", &["CAR"]),
    ("CBO", &["MAR"]),
    ("EYE", &["FAQ"]),
    ("YEW", &["TAL"]),
    ("THI", &["WWI"]),
    ("THA", &["EWI"]),
    ("DRP", &["WDR"]),
    ("DRD", &["COO"]),
    ("RTG", &["WHL"]),
    ("LFG", &["WHH"]),
    ("VTM", &["TIH"]),
    ("SDM", &["ZOO"]),
    ("BLG", &["BOX"]),
    ("WHF", &["FSQ"]),
    ("RLW", &["SEG"]),
    ("RLF", &["HFL"]),
    ("CMH", &["HGR"]),
    ("GOA", &["WWF"]),
    ("OXT", &["BGN"]),
    ("DRT", &["RGN"]),
    ("NRT", &["TLP"]),
    ("INT", &["HLM"]),
    ("FLD", &["DBL"]),
    ("VOX", &["PSN"]),
    ("KYL", &["KLI"]),
    ("PHX", &["QCN"]),
    ("KAM", &["AEM"]),
    ("DNI", &["FRG"]),
    ("CU", &["LO"]),
    ("HU", &["IM"]),
    ("RRD", &["FID"]),
    ("FRD", &["WBF"]),
    ("C", &["SQ"]),
    ("BD", &["CE"]),
    ("RTN", &["GBD"]),
    ("LFN", &["GDR"]),
    ("A", &["SC"]),
    ("D", &["DK"]),
    ("W", &["ZA"]),
    ("F", &["ZI"]),
    ("OT", &["MI"]),
    ("BE", &["SO"]),
    ("EBA", &["CST"]),
    ("WBA", &["ROY"]),
    ("OV", &["NR"]),
    ("UN", &["DA"]),
    ("CH", &["OC"]),
    ("WA", &["SP"]),
    ("N", &["R"]),
    ("DER", &["HA"]),
    ("TWI", &["MDH"]),
    ("TGO", &["MRH"]),
    ("SG", &["VU"]),
    ("CG", &["IB"]),
    ("DEL", &["EP"]),
    ("BT", &["TP"]),
    ("FU", &["Z"]),
    ("BER", &["MKT"]),
    ("P", &["TA"]),
    ("GU", &["B"]),
    ("GBT", &["TRB"]),
    ("GAL", &["SUL"]),
    ("LA", &["PA"]),
    ("BA", &["RA"]),
];

/// §7.1: the seven royal types.
const ROYALS: [&str; 7] = ["K", "EM", "EE", "EP", "TP", "AEM", "SUL"];

/// §2.2: the 38 pairs in bit order: first member, second member, Blue's left and right squares.
/// Bit 7 (the Regal pair) is fixed in the default rules (§2.3 item 4).
const PAIRS: [(&str, &str, &str, &str); 38] = [
    ("FH", "GW", "a1", "p1"),
    ("HOO", "HAW", "b1", "o1"),
    ("MA", "PR", "c1", "n1"),
    ("ST", "GO", "d1", "m1"),
    ("CI", "SA", "e1", "l1"),
    ("TOU", "CRO", "f1", "k1"),
    ("GG", "FL", "g1", "j1"),
    ("K", "CO", "h1", "i1"),
    ("BLN", "CBO", "a2", "p2"),
    ("EYE", "YEW", "b2", "o2"),
    ("THI", "THA", "d2", "m2"),
    ("DRP", "DRD", "f2", "k2"),
    ("RTG", "LFG", "g2", "j2"),
    ("VTM", "SDM", "h2", "i2"),
    ("BLG", "WHF", "a3", "p3"),
    ("RLW", "RLF", "b3", "o3"),
    ("CMH", "GOA", "c3", "n3"),
    ("OXT", "DRT", "d3", "m3"),
    ("NRT", "INT", "e3", "l3"),
    ("FLD", "VOX", "f3", "k3"),
    ("KYL", "PHX", "g3", "j3"),
    ("KAM", "DNI", "h3", "i3"),
    ("CU", "HU", "a4", "p4"),
    ("RRD", "FRD", "b4", "o4"),
    ("C", "BD", "d4", "m4"),
    ("RTN", "LFN", "f4", "k4"),
    ("A", "D", "g4", "j4"),
    ("W", "F", "h4", "i4"),
    ("OT", "BE", "a5", "p5"),
    ("EBA", "WBA", "b5", "o5"),
    ("OV", "UN", "c5", "n5"),
    ("CH", "WA", "d5", "m5"),
    ("N", "DER", "e5", "l5"),
    ("TWI", "TGO", "f5", "k5"),
    ("SG", "CG", "g5", "j5"),
    ("DEL", "BT", "h5", "i5"),
    ("GBT", "GAL", "c7", "n7"),
    ("LA", "BA", "f7", "k7"),
];
const REGAL_BIT: usize = 7;

/// (a) The 68 shared types are Typhoon's entries, field by field; the seven of §3.5 differ.
#[test]
fn shared_pieces_are_typhoons_except_the_1999_seven() {
    let typhoon: BTreeMap<String, toml::Table> = pieces_of(&read_table("typhoon.toml")).into_iter().collect();
    let jupiter: BTreeMap<String, toml::Table> = pieces_of(&read_table("jupiter.toml")).into_iter().collect();
    let mut problems = Vec::new();
    let mut same = 0;
    for (token, ty) in &typhoon {
        let Some(ju) = jupiter.get(token) else {
            problems.push(format!("{token}: Typhoon's piece is missing from jupiter.toml"));
            continue;
        };
        let differs = JUPITER_1999.contains(&token.as_str());
        if differs && ju == ty {
            problems.push(format!("{token}: must be the 1999 version (§3.5), but equals Typhoon's 2009 entry"));
        }
        if !differs {
            same += 1;
            for key in ty.keys().chain(ju.keys()).collect::<BTreeSet<_>>() {
                if ty.get(key) != ju.get(key) {
                    problems.push(format!(
                        "{token}: field `{key}` {:?} differs from Typhoon's {:?}",
                        ju.get(key),
                        ty.get(key)
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(same, 68, "§3.1: 68 types are shared with identical definitions");
}

/// (b) 161 types, 80 unpromoted, unique tokens, promotions and royals as §3.2 and §7.1 say.
#[test]
fn inventory_promotions_and_royals_follow_the_master_table() {
    let pieces = pieces_of(&read_table("jupiter.toml"));
    assert_eq!(pieces.len(), 161, "§3.1: 161 piece types");
    let tokens: BTreeSet<&str> = pieces.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(tokens.len(), 161, "tokens must be unique ignoring case");

    let mut problems = Vec::new();
    let mut promoted_by_table = BTreeSet::new();
    let table: BTreeMap<&str, &[&str]> = PROMOTIONS.iter().copied().collect();
    for (token, piece) in &pieces {
        let written = piece.get("token").and_then(toml::Value::as_str).unwrap_or_default();
        if written != token {
            problems.push(format!("{written}: tokens are written in upper case"));
        }
        let mut targets: BTreeSet<String> = strings(piece.get("promotes_to")).into_iter().collect();
        if let Some(upgrade) = piece.get("promotion_upgrade").and_then(toml::Value::as_table) {
            targets.extend(upgrade.get("becomes").and_then(toml::Value::as_str).map(String::from));
        }
        let want: BTreeSet<String> =
            table.get(token.as_str()).into_iter().flat_map(|t| t.iter()).map(|t| t.to_string()).collect();
        promoted_by_table.extend(want.iter().cloned());
        if targets != want {
            problems.push(format!("{token}: promotes to {targets:?}, §3.2 says {want:?}"));
        }
        for target in &targets {
            if !tokens.contains(target.as_str()) {
                problems.push(format!("{token}: promotion target {target} is not defined"));
            }
        }
        let royal = piece.get("royal").and_then(toml::Value::as_bool).unwrap_or(false);
        if royal != ROYALS.contains(&token.as_str()) {
            problems.push(format!("{token}: royal = {royal}, §7.1 says {}", !royal));
        }
    }
    let unpromoted = pieces.iter().filter(|(t, _)| table.contains_key(t.as_str())).count();
    if unpromoted != 80 {
        problems.push(format!("{unpromoted} of the 80 unpromoted types of §3.2 are defined"));
    }
    let promoted: BTreeSet<&str> = tokens.iter().copied().filter(|t| !table.contains_key(t)).collect();
    let named: BTreeSet<&str> = promoted_by_table.iter().map(String::as_str).collect();
    if promoted != named {
        problems.push(format!("the promoted types {promoted:?} are not exactly the §3.2 targets {named:?}"));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The board field of a position string as (file, rank) -> token (case = colour).
fn board_of(fen: &str) -> BTreeMap<(usize, usize), String> {
    let field = fen.split_whitespace().next().unwrap_or_default();
    let ranks: Vec<&str> = field.split('/').collect();
    assert_eq!(ranks.len(), 16, "{fen}: 16 ranks");
    let mut board = BTreeMap::new();
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = 15 - i;
        let (mut file, mut run) = (0, 0);
        let mut chars = rank_text.chars();
        while let Some(c) = chars.next() {
            if let Some(d) = c.to_digit(10) {
                run = run * 10 + d as usize;
                continue;
            }
            file += run;
            run = 0;
            let token = if c == '(' { chars.by_ref().take_while(|&d| d != ')').collect() } else { c.to_string() };
            board.insert((file, rank), token);
            file += 1;
        }
        assert_eq!(file + run, 16, "{fen}: rank {} has 16 squares", rank + 1);
    }
    board
}

fn square(name: &str) -> (usize, usize) {
    let file = (name.as_bytes()[0] - b'a') as usize;
    let rank: usize = name[1..].parse().expect("a rank number");
    (file, rank - 1)
}

/// (c, static) `start` is `[setup] fixed` with the first member of every pair on Blue's left
/// square and Tan's army rotated (§2.5), and the setup plies are the 37 pairs of §2.2 in bit
/// order, Regal pair skipped (§2.4): checked on the file alone, before every piece loads.
#[test]
fn start_is_the_fixed_part_plus_every_first_member() {
    let table = read_table("jupiter.toml");
    let setup = table.get("setup").and_then(toml::Value::as_table).expect("a [setup] table");
    assert_eq!(setup.get("symmetry_royal").and_then(toml::Value::as_str), Some("K"));
    let plies = setup.get("ply").and_then(toml::Value::as_array).expect("setup plies");
    let expected: Vec<_> = PAIRS.iter().enumerate().filter(|(bit, _)| *bit != REGAL_BIT).map(|(_, p)| p).collect();
    assert_eq!(plies.len(), 37, "§2.4: 37 setup plies");
    for (ply, (first, second, left, right)) in plies.iter().zip(&expected) {
        let field = |key: &str| ply.get(key).and_then(toml::Value::as_str).map(String::from);
        assert_eq!(field("actor").as_deref(), Some("tan"), "{ply}: Tan chooses (§2.3)");
        assert_eq!(field("owner").as_deref(), Some("blue"), "{ply}");
        assert_eq!(ply.get("copy").and_then(toml::Value::as_bool), Some(true), "{ply}");
        assert_eq!(strings(ply.get("squares")), [left.to_string(), right.to_string()], "{ply}");
        assert_eq!(strings(ply.get("pieces")), [first.to_string(), second.to_string()], "{ply}");
    }

    let fixed = setup.get("fixed").and_then(toml::Value::as_str).expect("setup.fixed");
    let mut board = board_of(fixed);
    for (first, second, left, right) in expected {
        for (token, sq) in [(first, left), (second, right)] {
            let (f, r) = square(sq);
            assert!(board.insert((f, r), token.to_string()).is_none(), "{sq} is already occupied");
            assert!(board.insert((15 - f, 15 - r), token.to_ascii_lowercase()).is_none(), "rotated {sq} is occupied");
        }
    }
    let start = table.get("start").and_then(toml::Value::as_str).expect("start");
    assert!(start.ends_with(" w"), "§2.4: Blue moves first");
    assert_eq!(board_of(start), board, "start differs from fixed + the first members");
    let blue = board.values().filter(|t| t.chars().all(|c| c.is_ascii_uppercase())).count();
    assert_eq!((blue, board.len()), (92, 184), "§2.1: 92 pieces a side");
}

/// (c) The same through the engine: the 37 setup plies that place every first member on Blue's
/// left lead from the setup phase to the `start` array. Needs the whole file to load (every
/// power kind implemented).
#[test]
fn setup_plies_of_the_first_members_give_the_start_array() {
    let variant = Variant::load(&jupiter_path()).unwrap_or_else(|e| panic!("{e}"));
    let mut pos = Position::setup_start(Arc::clone(&variant)).expect("jupiter has a setup phase");
    for (bit, (first, _, left, _)) in PAIRS.iter().enumerate() {
        if bit == REGAL_BIT {
            continue;
        }
        let text = format!("set:{left}={first}");
        let mv = pos.parse_move(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        pos.make(mv);
    }
    let board_and_side = |fen: &str| fen.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
    assert_eq!(board_and_side(&pos.to_fen()), board_and_side(&Position::start(variant).to_fen()));
}

/// Each piece loads in a subset of its own (with its promotions): lists every piece whose power
/// kind or piece key is not implemented yet.
#[test]
fn every_piece_loads() {
    let pieces = pieces_of(&read_table("jupiter.toml"));
    let failures: Vec<String> = pieces
        .iter()
        .filter_map(|(token, _)| try_jupiter_with(&[token]).err().map(|e| format!("{token}: {e}")))
        .collect();
    assert!(failures.is_empty(), "{} of 161 pieces do not load:\n{}", failures.len(), failures.join("\n"));
}

/// The test support loader builds a subset of the file from a position's tokens.
#[test]
fn subset_loader_keeps_named_pieces_and_their_promotions() {
    let v = jupiter_with(&["n"]);
    let tokens: Vec<&str> = v.pieces.iter().map(|p| p.token.as_str()).collect();
    for t in ["N", "R", "K", "CO", "WI", "EM", "EE"] {
        assert!(tokens.iter().any(|k| k.eq_ignore_ascii_case(t)), "{t} missing from {tokens:?}");
    }
    assert_eq!(tokens.len(), 7, "{tokens:?}");
    let pos = jupiter_position("16/16/16/16/16/16/16/16/16/16/16/16/16/16/16/(DEL)6k8 w");
    assert!(pos.variant().pieces.iter().any(|p| p.token.eq_ignore_ascii_case("EP")));
}
