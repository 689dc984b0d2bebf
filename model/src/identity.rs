//! Piece identity: a stable key for a piece type that survives renumbering, so that a net
//! trained on one variant can warm-start another (`--transfer`): a designer's edited variant,
//! or Typhoon from Scirocco, whose shared pieces keep what they learned.
//!
//! The key is a hash of the piece's *definition*: its geometry (the Betza text parsed into
//! atoms, sorted, so that `K` and `WF` agree), its special powers, and its royal and en-passant
//! flags. Names and tokens are kept beside it to break ties and as a fallback when a designer
//! edits a piece's moves.

use fairyzero_rules::{geometry, PieceType, Variant};
use serde::{Deserialize, Serialize};

/// What a checkpoint records about each piece type of its variant, in piece-type order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PieceIdentity {
    pub name: String,
    pub token: String,
    /// 16 hex digits: FNV-1a of [`canonical_definition`].
    pub definition: String,
}

/// How a piece of the new variant was matched to one of the checkpoint's variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PieceMatch {
    /// Same definition and same name.
    Exact,
    /// Same definition under another name.
    Definition,
    /// Same name (case-insensitive), different definition: an edited piece.
    Name,
    /// Same token only.
    Token,
}

/// The definition text a piece's identity hashes.
pub fn canonical_definition(variant: &Variant, t: PieceType) -> String {
    let def = variant.piece_def(t);
    let spec = &variant.spec.pieces[t.index()];
    let geometry = match geometry::parse(&def.betza) {
        Ok(g) => {
            let atom = |a: &geometry::Atom| {
                format!(
                    "{},{},{},{}{},{:?},{}",
                    a.dx,
                    a.dy,
                    a.max_steps,
                    if a.modality.moves { "m" } else { "" },
                    if a.modality.captures { "c" } else { "" },
                    a.jump,
                    if a.initial_only { "i" } else { "" }
                )
            };
            let mut atoms: Vec<String> = g.atoms().map(atom).collect();
            atoms.sort();
            atoms.dedup();
            let mut legs: Vec<String> = g
                .multi_leg()
                .map(|c| {
                    c.legs
                        .iter()
                        .map(|l| {
                            // A continuation leg lists every vector of its atom; what it takes
                            // of them is in `dirs` (`caK` and `cafK` differ only there).
                            let atoms = l.atoms.iter().map(atom).collect::<Vec<_>>().join(" ");
                            format!(
                                "{atoms} {:?} {:?} range={} y={} j={}",
                                l.mode, l.dirs, l.max_steps, l.range_toggle, l.skip_first
                            )
                        })
                        .collect::<Vec<_>>()
                        .join(" a ")
                })
                .collect();
            legs.sort();
            format!("atoms[{}] legs[{}]", atoms.join(";"), legs.join(";"))
        }
        // Validated variants always parse; keep the text rather than fail.
        Err(_) => format!("betza[{}]", def.betza),
    };
    let powers = serde_json::to_string(&spec.powers).unwrap_or_default();
    format!("{geometry} royal={} en_passant={} powers={powers}", def.royal, def.en_passant)
}

/// The identities of every piece type of `variant`, in piece-type order.
pub fn piece_identities(variant: &Variant) -> Vec<PieceIdentity> {
    (0..variant.piece_count())
        .map(|i| {
            let t = PieceType(i as u8);
            let def = variant.piece_def(t);
            PieceIdentity {
                name: def.name.clone(),
                token: def.token.clone(),
                definition: format!("{:016x}", fnv1a(canonical_definition(variant, t).as_bytes())),
            }
        })
        .collect()
}

/// For each piece of `new`, the piece of `old` it inherits from and how, trying in order: same
/// definition and name, same definition, same name, same token. Each old piece is used at most
/// once per stage, so two new pieces with one old definition take distinct old pieces while
/// there are enough.
pub fn match_pieces(old: &[PieceIdentity], new: &[PieceIdentity]) -> Vec<Option<(usize, PieceMatch)>> {
    let mut result = vec![None; new.len()];
    let mut used = vec![false; old.len()];
    type Same = fn(&PieceIdentity, &PieceIdentity) -> bool;
    let stages: [(PieceMatch, Same); 4] = [
        (PieceMatch::Exact, |a, b| a.definition == b.definition && a.name.eq_ignore_ascii_case(&b.name)),
        (PieceMatch::Definition, |a, b| a.definition == b.definition),
        (PieceMatch::Name, |a, b| a.name.eq_ignore_ascii_case(&b.name)),
        (PieceMatch::Token, |a, b| a.token.eq_ignore_ascii_case(&b.token)),
    ];
    for (kind, same) in stages {
        for (i, n) in new.iter().enumerate() {
            if result[i].is_some() {
                continue;
            }
            // Prefer an unused old piece; fall back to a used one (sharing an embedding).
            let found = (0..old.len())
                .find(|&j| !used[j] && same(&old[j], n))
                .or_else(|| (0..old.len()).find(|&j| same(&old[j], n)));
            if let Some(j) = found {
                used[j] = true;
                result[i] = Some((j, kind));
            }
        }
    }
    result
}

pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_are_stable_across_variants_and_spellings() {
        let chess = Variant::load("chess").unwrap();
        let capa = Variant::load("capablanca").unwrap();
        let (a, b) = (piece_identities(&chess), piece_identities(&capa));
        let knight = a.iter().find(|p| p.token == "N").unwrap();
        assert!(b.iter().any(|p| p.definition == knight.definition), "capablanca's knight is chess's knight");
        // Distinct pieces of one variant have distinct definitions (chess has no duplicates).
        let mut defs: Vec<_> = a.iter().map(|p| &p.definition).collect();
        defs.sort();
        defs.dedup();
        assert_eq!(defs.len(), a.len());
        // King (royal K) and a non-royal K-mover differ.
        let sci = Variant::load("scirocco").unwrap();
        let s = piece_identities(&sci);
        let king = s.iter().find(|p| p.name == "King").unwrap();
        let commoner = s.iter().find(|p| p.name == "Commoner").unwrap();
        assert_ne!(king.definition, commoner.definition);
    }

    #[test]
    fn multi_leg_pieces_differ_by_their_continuation_directions() {
        // `caK` (any second step) and `cafK` (straight on) list the same atoms per leg; only
        // the legs' relative directions tell them apart.
        let text = r#"
            name = "legs"
            width = 5
            height = 5
            start = "5/5/1L1D1/5/2K2 w"
            [[piece]]
            name = "Lion-ish"
            token = "L"
            betza = "caK"
            [[piece]]
            name = "Dog-ish"
            token = "D"
            betza = "cafK"
            [[piece]]
            name = "King"
            token = "K"
            betza = "K"
            royal = true
        "#;
        let v = Variant::from_toml("legs.toml", text, None).unwrap();
        let ids = piece_identities(&v);
        assert_ne!(ids[0].definition, ids[1].definition);
    }

    #[test]
    fn matching_prefers_definition_then_name() {
        let id = |name: &str, token: &str, def: &str| PieceIdentity {
            name: name.into(),
            token: token.into(),
            definition: def.into(),
        };
        let old = vec![id("Knight", "N", "d1"), id("Rook", "R", "d2"), id("Wazir", "W", "d3")];
        let new = vec![
            id("Rook", "R", "d2"),   // exact
            id("Horse", "H", "d1"),  // same definition, renamed
            id("Wazir", "W", "d9"),  // edited moves, same name
            id("Dragon", "D", "d7"), // new piece
        ];
        let m = match_pieces(&old, &new);
        assert_eq!(
            m,
            vec![Some((1, PieceMatch::Exact)), Some((0, PieceMatch::Definition)), Some((2, PieceMatch::Name)), None]
        );
    }
}
