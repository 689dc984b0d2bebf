//! Data augmentation by the one symmetry left: the left-right mirror, where it is exact.
//!
//! The encoding is already relative to the side to move (the board is rotated by 180° for Tan,
//! see `model/src/encoding.rs`), so the colour symmetry is built in. What remains is the
//! left-right mirror, and it is only a symmetry of the game at a position when the rules
//! commute with it from there on; the rules crate decides that from the piece definitions and
//! the rules state ([`fairyzero_rules::symmetry`], `Position::mirror_safe`).
//!
//! [`MirrorRules::position_ok`] decides per position; the sampler (`replay.rs`) mirrors the
//! chosen positions of the encoded batch with [`fairyzero_model::mirror::mirror_left_right`]
//! (piece ids, planes and every square of every move) before it becomes tensors; the policy
//! targets need no change because the moves keep their order.

use fairyzero_rules::{Position, Variant};

/// Whether the mirror augmentation applies to a variant, and where.
#[derive(Clone, Debug)]
pub struct MirrorRules {
    any: bool,
}

impl MirrorRules {
    pub fn new(variant: &Variant) -> MirrorRules {
        MirrorRules { any: variant.mirror_safe.iter().any(|&b| b) }
    }

    /// Whether any position of the variant can be mirrored.
    pub fn any(&self) -> bool {
        self.any
    }

    /// Whether the left-right mirror of `pos` is a position of the same game with the mirrored
    /// moves and the same value.
    pub fn position_ok(&self, pos: &Position) -> bool {
        self.any && pos.mirror_safe()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn piece_symmetry_from_definitions() {
        use fairyzero_rules::symmetry::betza_symmetric;
        assert!(betza_symmetric("K") && betza_symmetric("fmWfcF") && betza_symmetric("N"));
        assert!(!betza_symmetric("lW") && !betza_symmetric("frF"));
        for name in ["chess", "losalamos", "antilosalamos", "gardner", "shatranj"] {
            let v = Variant::load(name).unwrap();
            let r = MirrorRules::new(&v);
            assert!(v.mirror_safe.iter().all(|&b| b), "{name}: every piece is symmetric");
            // The start position of chess keeps castling rights: not mirrorable.
            let start = Position::start(Arc::clone(&v));
            assert_eq!(r.position_ok(&start), start.castling_rights() == 0, "{name}");
        }
    }

    #[test]
    fn promotion_to_an_asymmetric_piece_blocks_the_mirror() {
        let text = r#"
name = "lopsided"
width = 5
height = 5
start = "k4/p4/5/P4/K4 w"
[promotion]
zone_ranks = 1
[victory]
royal = "capture"
[[piece]]
name = "King"
token = "K"
betza = "K"
royal = true
[[piece]]
name = "Pawn"
token = "P"
betza = "fmWfcF"
promotes_to = ["L"]
[[piece]]
name = "Lefty"
token = "L"
betza = "lW"
"#;
        let v = Variant::from_toml("lopsided", text, None).unwrap();
        let r = MirrorRules::new(&v);
        assert_eq!(v.mirror_safe, vec![true, false, false]);
        let pos = Position::start(Arc::clone(&v));
        assert!(!r.position_ok(&pos), "its pawns may become Leftys");
        let kings = Position::from_fen(Arc::clone(&v), "k4/5/5/5/K4 w - - 0 1").unwrap();
        assert!(r.position_ok(&kings));
    }
}
