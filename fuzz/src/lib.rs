//! Helpers shared by the fuzz targets: variant choice from an input byte, and the invariants a
//! parsed position must keep.

use std::sync::{Arc, OnceLock};

use fairyzero_rules::{variant::builtin_names, MoveList, Position, Variant};

/// Every built-in variant, loaded once per process.
fn builtins() -> &'static [Arc<Variant>] {
    static VARIANTS: OnceLock<Vec<Arc<Variant>>> = OnceLock::new();
    VARIANTS.get_or_init(|| builtin_names().map(|n| Variant::load(n).expect("built-in variants load")).collect())
}

/// The built-in variant that `byte` picks (chess, capablanca, …, scirocco, typhoon: all of them).
pub fn variant(byte: u8) -> Arc<Variant> {
    let all = builtins();
    Arc::clone(&all[byte as usize % all.len()])
}

/// The built-in variant called `name`, if any.
pub fn builtin(name: &str) -> Option<Arc<Variant>> {
    builtins().iter().find(|v| v.name == name).cloned()
}

/// Moves checked per position: enough to reach every move kind, few enough to stay fast.
const MOVES_CHECKED: usize = 48;

/// What must hold for any position the parser accepted: its string reads back to the same
/// string, and every legal move prints to text that parses back to that move and makes and
/// unmakes without changing the position.
pub fn check_position(pos: &mut Position) {
    let fen = pos.to_fen();
    let again = Position::from_fen(Arc::clone(pos.variant()), &fen)
        .unwrap_or_else(|e| panic!("printed position {fen:?} does not parse back: {e}"));
    assert_eq!(again.to_fen(), fen, "position string does not round-trip");
    let hash = pos.hash();
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let _ = pos.outcome_with(&moves);
    for &m in moves.iter().take(MOVES_CHECKED) {
        let text = pos.move_to_string(&m);
        match pos.parse_move(&text) {
            Ok(parsed) => assert_eq!(parsed, m, "move {text:?} parses to another move in {fen}"),
            Err(e) => panic!("legal move {text:?} does not parse in {fen}: {e}"),
        }
        pos.make(m);
        let _ = pos.to_fen();
        pos.unmake();
        assert_eq!(pos.hash(), hash, "make/unmake of {text} changes the hash of {fen}");
        assert_eq!(pos.to_fen(), fen, "make/unmake of {text} changes {fen}");
    }
}
