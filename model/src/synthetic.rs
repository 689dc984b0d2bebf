//! Synthetic variants of any size and piece count, for tests and benchmarks of board sizes and
//! piece sets that no built-in variant has yet (16x16, 18x18, 100+ piece types).
//!
//! `synthetic:12x12:75` names a 12x12 board with 75 piece types: a royal King, a Pawn that
//! promotes, and generated pieces whose moves combine leaps and short rides (each type has a
//! distinct definition). Both sides fill their first two ranks.

use std::sync::Arc;

use fairyzero_rules::{Variant, VariantError};

/// Leaps and short rides the generated pieces combine (one distinct subset per piece type).
const ATOMS: [&str; 11] = ["W", "F", "D", "N", "A", "H", "C", "Z", "G", "R3", "B3"];

fn token(i: usize) -> String {
    let a = (b'A' + (i / 26) as u8) as char;
    let b = (b'A' + (i % 26) as u8) as char;
    format!("X{a}{b}")
}

/// The TOML text of a synthetic variant; `piece_types` is at least 3 and at most 255.
pub fn synthetic_variant_toml(width: u8, height: u8, piece_types: usize) -> String {
    assert!((3..=255).contains(&piece_types), "a synthetic variant has 3 to 255 piece types");
    assert!(width >= 3 && height >= 5, "a synthetic board is at least 3x5");
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
        .map(|f| if f == width as usize / 2 { "K".to_string() } else { format!("({})", token(f % generated.max(1))) })
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

/// A synthetic variant (see the module documentation).
pub fn synthetic_variant(width: u8, height: u8, piece_types: usize) -> Arc<Variant> {
    let text = synthetic_variant_toml(width, height, piece_types);
    Variant::from_toml("synthetic", &text, None).unwrap_or_else(|e| panic!("synthetic variant does not build: {e}"))
}

/// Loads a variant by name or path, or builds a synthetic one from `synthetic:WxH:N`.
pub fn load_variant(spec: &str) -> Result<Arc<Variant>, VariantError> {
    if let Some(rest) = spec.strip_prefix("synthetic:") {
        let parsed = rest.split_once(':').and_then(|(dims, n)| {
            let (w, h) = dims.split_once('x')?;
            Some((w.parse::<u8>().ok()?, h.parse::<u8>().ok()?, n.parse::<usize>().ok()?))
        });
        return match parsed {
            Some((w, h, n)) if (3..=255).contains(&n) && w >= 3 && h >= 5 && w <= 26 && h <= 26 => {
                Variant::from_toml(spec, &synthetic_variant_toml(w, h, n), None)
            }
            _ => Err(VariantError::Invalid {
                source_name: spec.to_string(),
                message: "expected synthetic:WIDTHxHEIGHT:PIECE_TYPES, e.g. synthetic:12x12:75 (3..=26 files, 5..=26 ranks, 3..=255 types)".into(),
            }),
        };
    }
    Variant::load(spec)
}

#[cfg(test)]
mod tests {
    use fairyzero_rules::{MoveList, Position};

    use super::*;

    #[test]
    fn synthetic_variants_build_and_move() {
        for (w, h, n) in [(8, 8, 3), (12, 12, 75), (16, 16, 120), (18, 18, 200)] {
            let v = synthetic_variant(w, h, n);
            assert_eq!((v.dims.width, v.dims.height, v.piece_count()), (w, h, n));
            let mut pos = Position::start(Arc::clone(&v));
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            assert!(moves.len() >= w as usize, "{w}x{h}: {} moves", moves.len());
        }
        assert!(load_variant("synthetic:12x12:75").is_ok());
        assert!(load_variant("synthetic:12x12").is_err());
        assert!(load_variant("chess").is_ok());
    }
}
