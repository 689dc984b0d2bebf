//! Data augmentation by the one symmetry left: the left-right mirror, where it is exact.
//!
//! The encoding is already relative to the side to move (the board is rotated by 180° for Tan,
//! see `model/src/encoding.rs`), so the colour symmetry is built in. What remains is the
//! left-right mirror, and it is only a symmetry of the game at a position when the rules
//! commute with it from there on; the rules crate decides that from the piece definitions and
//! the rules state ([`fairyzero_rules::symmetry`], `Position::mirror_safe`).
//!
//! [`MirrorRules::position_ok`] decides per position; [`mirror_input`] mirrors chosen positions
//! of a [`NetInput`] in place (piece ids, planes and every square of every move); the policy
//! targets need no change because the moves keep their order.

use fairyzero_model::encoding::ENCODING_VERSION;
use fairyzero_rules::{Position, Variant};
use fairyzero_torch::NetInput;
use tch::{Kind, Tensor};

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

/// Mirrors left-right, in place, the positions `i` of `input` with `mask[i]` set: piece ids,
/// spatial planes, and the from, to, aux and extra captured squares of their moves. Global
/// features need no change: castling rights are absent in mirrorable positions and nothing else
/// there depends on files.
pub fn mirror_input(input: &mut NetInput, mask: &[bool]) {
    // The layout this relies on: relative squares numbered rank-major, flat `b * H * W + sq`.
    assert_eq!(
        ENCODING_VERSION, 1,
        "mirror_input was written for encoding version 1: check it against the new encoding"
    );
    assert_eq!(mask.len() as i64, input.batch, "one mask entry per position");
    if !mask.iter().any(|&m| m) {
        return;
    }
    let device = input.pieces.device();
    let (b, h, w) = (input.batch, input.height, input.width);
    let hw = h * w;
    let m = Tensor::from_slice(&mask.iter().map(|&x| u8::from(x)).collect::<Vec<u8>>())
        .to_kind(Kind::Bool)
        .to_device(device);

    input.pieces = input.pieces.flip([2]).where_self(&m.view([b, 1, 1]), &input.pieces);
    input.planes = input.planes.flip([3]).where_self(&m.view([b, 1, 1, 1]), &input.planes);

    // A flat square s of position p is p * HW + rank * W + file; its mirror is
    // s + (W - 1) - 2 * file. Only squares on the board are touched (a "no square" sentinel
    // would lie outside its position's range).
    let mirror_squares = |squares: &Tensor, owner: &Tensor| -> Tensor {
        if squares.numel() == 0 {
            return squares.shallow_clone();
        }
        let local = squares - owner * hw;
        let on_board = local.ge(0).logical_and(&local.lt(hw));
        let file = local.remainder(w);
        let mirrored = squares + (w - 1) - file * 2;
        let apply = m.index_select(0, owner).logical_and(&on_board);
        mirrored.where_self(&apply, squares)
    };
    input.move_from = mirror_squares(&input.move_from, &input.move_batch);
    input.move_to = mirror_squares(&input.move_to, &input.move_batch);
    if input.aux_move.numel() > 0 {
        let owner = input.move_batch.index_select(0, &input.aux_move);
        input.aux_square = mirror_squares(&input.aux_square, &owner);
    }
    if input.capture_move.numel() > 0 {
        let owner = input.move_batch.index_select(0, &input.capture_move);
        input.capture_square = mirror_squares(&input.capture_square, &owner);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use fairyzero_model::StandardEncoding;
    use fairyzero_rules::{MoveList, Square};
    use fairyzero_torch::Device;
    use rand::{seq::SliceRandom, SeedableRng};

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

    /// Per move: (from, to, kind, mover, piece, captures count, aux, sorted captures), squares
    /// local to the position; sorted.
    fn move_rows(input: &NetInput) -> Vec<Vec<i64>> {
        let hw = input.height * input.width;
        let v = |t: &Tensor| Vec::<i64>::try_from(t.to_device(Device::Cpu)).unwrap();
        let (from, to, kind, mover, piece, ncap, owner) = (
            v(&input.move_from),
            v(&input.move_to),
            v(&input.move_kind),
            v(&input.move_mover),
            v(&input.move_piece),
            v(&input.move_n_captures),
            v(&input.move_batch),
        );
        let (aux_m, aux_s, cap_m, cap_s) =
            (v(&input.aux_move), v(&input.aux_square), v(&input.capture_move), v(&input.capture_square));
        let mut rows: Vec<Vec<i64>> = (0..from.len())
            .map(|i| {
                let base = owner[i] * hw;
                let mut row = vec![owner[i], from[i] - base, to[i] - base, kind[i], mover[i], piece[i], ncap[i]];
                row.extend(aux_m.iter().zip(&aux_s).filter(|(m, _)| **m == i as i64).map(|(_, s)| s - base));
                let mut caps: Vec<i64> =
                    cap_m.iter().zip(&cap_s).filter(|(m, _)| **m == i as i64).map(|(_, s)| 1000 + s - base).collect();
                caps.sort();
                row.extend(caps);
                row
            })
            .collect();
        rows.sort();
        rows
    }

    /// Mirroring the encoded input equals encoding the mirrored position, on positions from
    /// random play (captures, promotions, en passant) of every mirror-symmetric variant tried.
    #[test]
    fn mirrored_input_equals_the_input_of_the_mirrored_position() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut checked = 0;
        for name in ["antilosalamos", "losalamos", "gardner", "chess"] {
            let v = Variant::load(name).unwrap();
            let rules = MirrorRules::new(&v);
            let enc = StandardEncoding::new(Arc::clone(&v));
            for _game in 0..6 {
                let mut pos = Position::start(Arc::clone(&v));
                let mut legal = MoveList::new();
                for _ply in 0..120 {
                    pos.legal_moves(&mut legal);
                    if legal.is_empty() || pos.outcome_with(&legal).is_some() {
                        break;
                    }
                    let mv = *legal.choose(&mut rng).unwrap();
                    pos.make(mv);
                    if pos.castling_rights() != 0 {
                        // Chess: drop the rights so that the position can be mirrored.
                        let fen = pos.to_fen();
                        let mut f: Vec<&str> = fen.split(' ').collect();
                        f[2] = "-";
                        pos = Position::from_fen(Arc::clone(&v), &f.join(" ")).unwrap();
                    }
                    if !rules.position_ok(&pos) {
                        continue;
                    }
                    // Both sides from position strings, so that they share (no) history.
                    let mut a = Position::from_fen(Arc::clone(&v), &pos.to_fen()).unwrap();
                    let mut b = a.mirrored().expect("mirror-safe").unwrap();
                    let (mut la, mut lb) = (MoveList::new(), MoveList::new());
                    a.legal_moves(&mut la);
                    b.legal_moves(&mut lb);
                    assert_eq!(la.len(), lb.len(), "{name}: {} vs {}", a.to_fen(), b.to_fen());
                    // A second, untouched position in the batch checks that the mask is honoured.
                    let batch = enc.encode_batch([(&a, la.as_slice()), (&a, la.as_slice())]);
                    let mut input = NetInput::new(&batch, Device::Cpu);
                    mirror_input(&mut input, &[true, false]);
                    let direct =
                        NetInput::new(&enc.encode_batch([(&b, lb.as_slice()), (&a, la.as_slice())]), Device::Cpu);
                    assert!(input.pieces.equal(&direct.pieces), "{name} pieces: {}", a.to_fen());
                    assert!(input.planes.equal(&direct.planes), "{name} planes: {}", a.to_fen());
                    assert!(input.global.equal(&direct.global), "{name} global: {}", a.to_fen());
                    assert_eq!(move_rows(&input), move_rows(&direct), "{name} moves: {}", a.to_fen());
                    checked += 1;
                    let _ = Square(0);
                }
            }
        }
        assert!(checked > 300, "only {checked} positions checked");
    }
}
