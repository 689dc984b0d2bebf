//! Ranged hoppers: a cannon with a range (`pcR4`, Jupiter's Crossbow and Blunderbuss) lands at
//! most that far away, in its moves and in the attack test alike; an unlimited cannon does not.

use fairyzero_rules::{Color, MoveList, Position, Variant};

fn variant(cannon: &str) -> std::sync::Arc<Variant> {
    let text = format!(
        "name = \"hoppers\"\nwidth = 8\nheight = 8\nstart = \"7k/8/8/8/8/8/8/K7 w\"\n\
         [[piece]]\nname = \"King\"\ntoken = \"K\"\nbetza = \"K\"\nroyal = true\n\
         [[piece]]\nname = \"Cannon\"\ntoken = \"C\"\nbetza = \"{cannon}\"\n"
    );
    Variant::from_toml("hoppers.toml", &text, None).unwrap()
}

/// The squares the piece on `from` can capture on.
fn captures_from(pos: &Position, from: &str) -> Vec<String> {
    let d = pos.variant().dims;
    let from = d.parse_square(from).unwrap();
    let mut moves = MoveList::new();
    pos.clone().legal_moves(&mut moves);
    let mut out: Vec<String> =
        moves.iter().filter(|m| m.from == from && pos.piece_at(m.to).is_some()).map(|m| d.square_name(m.to)).collect();
    out.sort();
    out
}

#[test]
fn a_ranged_cannon_lands_within_its_range() {
    let ranged = variant("pcR4");
    let unlimited = variant("pcR");
    // Screen on d3; the target is 4 squares away (d5), then 5 (d6).
    let four = "7k/8/8/3c4/8/3c4/8/K2C4 w";
    let five = "7k/8/3c4/8/8/3c4/8/K2C4 w";
    assert_eq!(captures_from(&Position::from_fen(ranged.clone(), four).unwrap(), "d1"), ["d5"]);
    assert!(captures_from(&Position::from_fen(ranged.clone(), five).unwrap(), "d1").is_empty());
    assert_eq!(captures_from(&Position::from_fen(unlimited.clone(), five).unwrap(), "d1"), ["d6"]);
}

#[test]
fn a_ranged_cannon_attacks_within_its_range() {
    let ranged = variant("pcR4");
    let unlimited = variant("pcR");
    let four = "7k/8/8/3c4/8/3c4/8/3K4 w";
    let five = "7k/8/3c4/8/8/3c4/8/3K4 w";
    assert!(Position::from_fen(ranged.clone(), four).unwrap().in_check(Color::Blue));
    assert!(!Position::from_fen(ranged, five).unwrap().in_check(Color::Blue));
    assert!(Position::from_fen(unlimited, five).unwrap().in_check(Color::Blue));
}
