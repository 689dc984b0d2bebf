//! Synthetic variants of any size and piece count, for tests and benchmarks of board sizes and
//! piece sets that no built-in variant has yet (16x16, 18x18, 100+ piece types).
//!
//! `synthetic:12x12:75` names a 12x12 board with 75 piece types: a royal King, a Pawn that
//! promotes, and generated pieces whose moves combine leaps and short rides (each type has a
//! distinct definition). Both sides fill their first two ranks. [`crate::Variant::load`] reads
//! such names, so every command that takes a variant takes them.

use std::sync::Arc;

use crate::{spec::load::VariantError, types::MAX_BOARD_SIDE, variant::Variant};

/// What a synthetic variant's name starts with.
pub(crate) const PREFIX: &str = "synthetic:";

/// Leaps and short rides the generated pieces combine (one distinct subset per piece type).
const ATOMS: [&str; 11] = ["W", "F", "D", "N", "A", "H", "C", "Z", "G", "R3", "B3"];

const MIN_WIDTH: u8 = 3;
const MIN_HEIGHT: u8 = 5;
const MIN_TYPES: usize = 3;
const MAX_TYPES: usize = 255;

/// Builds the variant that `name` (`synthetic:WIDTHxHEIGHT:PIECE_TYPES`) describes; an error
/// names the text and the accepted ranges.
pub(crate) fn load(name: &str) -> Result<Arc<Variant>, VariantError> {
    let parsed = name.strip_prefix(PREFIX).and_then(|rest| {
        let (dims, types) = rest.split_once(':')?;
        let (width, height) = dims.split_once('x')?;
        Some((width.parse::<u8>().ok()?, height.parse::<u8>().ok()?, types.parse::<usize>().ok()?))
    });
    match parsed {
        Some((width, height, types))
            if (MIN_WIDTH..=MAX_BOARD_SIDE).contains(&width)
                && (MIN_HEIGHT..=MAX_BOARD_SIDE).contains(&height)
                && (MIN_TYPES..=MAX_TYPES).contains(&types) =>
        {
            Variant::from_toml(name, &toml(width, height, types), None)
        }
        _ => Err(VariantError::Invalid {
            source_name: name.to_string(),
            message: format!(
                "expected synthetic:WIDTHxHEIGHT:PIECE_TYPES, e.g. synthetic:12x12:75 \
                 ({MIN_WIDTH}..={MAX_BOARD_SIDE} files, {MIN_HEIGHT}..={MAX_BOARD_SIDE} ranks, \
                 {MIN_TYPES}..={MAX_TYPES} types)"
            ),
        }),
    }
}

fn token(i: usize) -> String {
    let a = (b'A' + (i / 26) as u8) as char;
    let b = (b'A' + (i % 26) as u8) as char;
    format!("X{a}{b}")
}

/// The TOML text of a synthetic variant, for sizes [`load`] has checked.
fn toml(width: u8, height: u8, piece_types: usize) -> String {
    let generated = piece_types - 2;
    let mut pieces = String::new();
    pieces.push_str("[[piece]]\nname = \"King\"\ntoken = \"K\"\nbetza = \"K\"\nroyal = true\n\n");
    pieces.push_str(&format!(
        "[[piece]]\nname = \"Pawn\"\ntoken = \"P\"\nbetza = \"mfWcfF\"\npromotes_to = [\"{}\"]\n\n",
        token(0)
    ));
    for i in 0..generated {
        // Subset number i + 1 of the atoms: distinct and non-empty.
        let bits = i + 1;
        let betza: String = ATOMS.iter().enumerate().filter(|(k, _)| bits >> k & 1 == 1).map(|(_, a)| *a).collect();
        pieces.push_str(&format!("[[piece]]\nname = \"Piece{i}\"\ntoken = \"{}\"\nbetza = \"{betza}\"\n\n", token(i)));
    }
    // Back rank: generated types in turn with the King in the middle; pawns in front.
    let back: Vec<String> = (0..width as usize)
        .map(|f| if f == width as usize / 2 { "K".to_string() } else { format!("({})", token(f % generated)) })
        .collect();
    let blue_back = back.join("");
    let tan_back = blue_back.to_ascii_lowercase();
    let pawns = "P".repeat(width as usize);
    let mut ranks = vec![tan_back, pawns.to_ascii_lowercase()];
    for _ in 0..height - 4 {
        ranks.push(width.to_string());
    }
    ranks.push(pawns);
    ranks.push(blue_back);
    format!(
        "name = \"synthetic-{width}x{height}-{piece_types}\"\nwidth = {width}\nheight = {height}\n\
         start = \"{} w\"\nrepetition = \"third_illegal\"\n\n[promotion]\nzone_ranks = 2\nmandatory = \"never\"\n\n\
         [victory]\nroyal = \"capture\"\nstalemate = \"loss\"\n\n{pieces}",
        ranks.join("/")
    )
}

#[cfg(test)]
mod tests {
    use crate::{MoveList, Position, Variant, VariantError};

    #[test]
    fn synthetic_variants_build_and_move() {
        for (w, h, n) in [(8, 8, 3), (12, 12, 75), (16, 16, 120), (18, 18, 200), (26, 26, 255)] {
            let v = Variant::load(&format!("synthetic:{w}x{h}:{n}")).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!((v.dims.width, v.dims.height, v.piece_count()), (w, h, n));
            assert_eq!(v.name, format!("synthetic-{w}x{h}-{n}"));
            let mut pos = Position::start(v);
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            assert!(moves.len() >= w as usize, "{w}x{h}: {} moves", moves.len());
        }
    }

    #[test]
    fn malformed_or_out_of_range_names_are_errors_naming_the_text() {
        for name in [
            "synthetic:12x12",
            "synthetic:12x12:",
            "synthetic:12:75",
            "synthetic:12x12:2",
            "synthetic:12x12:256",
            "synthetic:2x12:75",
            "synthetic:12x4:75",
            "synthetic:27x12:75",
            "synthetic:12x12:75:1",
        ] {
            match Variant::load(name) {
                Err(e @ VariantError::Invalid { .. }) => {
                    let text = e.to_string();
                    assert!(text.contains(name) && text.contains("synthetic:WIDTHxHEIGHT:PIECE_TYPES"), "{text}");
                }
                other => panic!("{name}: {other:?}"),
            }
        }
    }
}
