//! The left-right mirror of encoded positions: the data augmentation of training, applied to an
//! [`EncodedBatch`] before it becomes tensors, so that it needs no libtorch.
//!
//! The encoding is already relative to the side to move (the board is rotated by 180° for Tan,
//! see [`crate::encoding`]), so the colour symmetry is built in. What remains is the left-right
//! mirror, and it is only a symmetry of the game at a position when the rules commute with it
//! from there on: the rules crate decides that (`Variant::mirror_type`,
//! `Position::mirror_safe`), the trainer picks the positions, and [`mirror_left_right`] rewrites
//! them. Where two piece types are each other's mirror image (Chushin Shogi's Left and Right
//! Generals), the mirror also swaps them, in the piece ids and in the moves' mover and
//! promotion types, as the batch's [`crate::encoding::MirrorTypes`] say. Policy targets need no
//! change: the moves keep their order.

use fairyzero_rules::MoveKind;

use crate::encoding::{move_kind_id, EncodedBatch, MoveFeatures, ENCODING_VERSION, NO_SQUARE};

/// Maps a piece type as the features write it (`type + 1`, 0 for none) to its mirror image.
struct TypeImage<'a>(Option<&'a [u16]>);

impl TypeImage<'_> {
    #[inline]
    fn feature(&self, type_plus_one: u16) -> u16 {
        match self.0 {
            Some(image) if type_plus_one > 0 => image[type_plus_one as usize - 1] + 1,
            _ => type_plus_one,
        }
    }

    /// A board piece id `1 + 2 * type + side` (0 empty).
    #[inline]
    fn piece_id(&self, id: i64) -> i64 {
        match self.0 {
            Some(image) if id > 0 => 1 + 2 * i64::from(image[(id as usize - 1) / 2]) + (id - 1) % 2,
            _ => id,
        }
    }
}

// The layout the mirror relies on: relative squares numbered rank-major, planes and piece ids
// stored rank-major per position. A new encoding must be checked against this file.
const _: () = assert!(ENCODING_VERSION == 3, "mirror.rs was written for encoding version 3");

/// Mirrors left-right, in place, the positions `i` of `batch` with `mask[i]` set: piece ids,
/// spatial planes, and the from, to, aux and extra captured squares of their moves' actions (the
/// captured squares are sorted again, as the encoding keeps them), and the piece types of the
/// batch's mirror pairs (piece ids, movers, promotion types). Global features need no
/// change: castling rights are absent in mirrorable positions and nothing else there depends on
/// files (repetitions and the opponent's pass are properties of the whole position).
///
/// # Panics
/// If `mask` does not have one entry per position (a caller's bug, like a batch of the wrong
/// size).
pub fn mirror_left_right(batch: &mut EncodedBatch, mask: &[bool]) {
    assert_eq!(mask.len(), batch.len(), "one mirror flag per position");
    let (width, squares) = (batch.width(), batch.squares());
    let (pieces, planes, moves, offsets, mirror_types) = batch.storage_mut();
    let types = TypeImage(mirror_types.map(|m| &m[..]));
    let planes_per_position = planes.len() / mask.len().max(1);
    for (i, _) in mask.iter().enumerate().filter(|(_, &m)| m) {
        for rank in pieces[i * squares..(i + 1) * squares].chunks_exact_mut(width) {
            rank.reverse();
            for id in rank.iter_mut() {
                *id = types.piece_id(*id);
            }
        }
        let position_planes = &mut planes[i * planes_per_position..(i + 1) * planes_per_position];
        for rank in position_planes.chunks_exact_mut(width) {
            rank.reverse();
        }
        for features in &mut moves[offsets[i]..offsets[i + 1]] {
            mirror_move(features, width, squares, &types);
        }
    }
}

/// The mirror of a relative square: same rank, file `width - 1 - file`. "No square" stays.
fn mirror_square(square: u16, width: usize, squares: usize) -> u16 {
    let s = square as usize;
    if square == NO_SQUARE || s >= squares {
        return square;
    }
    let (rank, file) = (s / width, s % width);
    (rank * width + width - 1 - file) as u16
}

fn mirror_move(features: &mut MoveFeatures, width: usize, squares: usize, types: &TypeImage<'_>) {
    if features.kind == move_kind_id(MoveKind::Pass) && features.mover == 0 {
        // The one pass of a position names no square (`encode_move`); a per-piece pass names
        // its piece and mirrors like any move.
        return;
    }
    features.from = mirror_square(features.from, width, squares);
    features.to = mirror_square(features.to, width, squares);
    features.aux = mirror_square(features.aux, width, squares);
    features.mover = types.feature(features.mover);
    features.piece = types.feature(features.piece);
    mirror_squares(&mut features.captures[..features.n_captures as usize], width, squares);
    if let Some(second) = &mut features.second {
        second.piece = types.feature(second.piece);
        second.from = mirror_square(second.from, width, squares);
        second.to = mirror_square(second.to, width, squares);
        second.aux = mirror_square(second.aux, width, squares);
        mirror_squares(&mut second.captures[..second.n_captures as usize], width, squares);
    }
}

/// Mirrors a sorted list of squares, keeping it sorted.
fn mirror_squares(list: &mut [u16], width: usize, squares: usize) {
    for square in list.iter_mut() {
        *square = mirror_square(*square, width, squares);
    }
    list.sort_unstable();
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use fairyzero_rules::{MoveList, Position, Variant};
    use rand::{seq::SliceRandom, SeedableRng};

    use super::*;
    use crate::StandardEncoding;

    /// Position `i`'s moves as a sorted list: the mirrored position generates the same moves in
    /// another order.
    fn sorted_moves(batch: &EncodedBatch, i: usize) -> Vec<MoveFeatures> {
        let mut moves = batch.moves_of(i).to_vec();
        moves.sort_unstable();
        moves
    }

    /// Mirroring the encoded batch equals encoding the mirrored position, on positions from
    /// random play (captures, promotions, en passant) of every mirror-symmetric variant tried.
    #[test]
    fn mirrored_batch_equals_the_encoding_of_the_mirrored_position() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut checked = 0;
        for name in ["antilosalamos", "losalamos", "gardner", "chess"] {
            let v = Variant::load(name).unwrap();
            assert!(v.mirror_safe.iter().all(|&b| b), "{name}: every piece is symmetric");
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
                    if !pos.mirror_safe() {
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
                    let mut batch = enc.encode_batch([(&a, la.as_slice()), (&a, la.as_slice())]);
                    mirror_left_right(&mut batch, &[true, false]);
                    let direct = enc.encode_batch([(&b, lb.as_slice()), (&a, la.as_slice())]);
                    assert_eq!(batch.pieces(), direct.pieces(), "{name} pieces: {}", a.to_fen());
                    assert_eq!(batch.planes(), direct.planes(), "{name} planes: {}", a.to_fen());
                    assert_eq!(batch.global(), direct.global(), "{name} global: {}", a.to_fen());
                    assert_eq!(batch.offsets(), direct.offsets(), "{name}: {}", a.to_fen());
                    for i in 0..2 {
                        assert_eq!(sorted_moves(&batch, i), sorted_moves(&direct, i), "{name} moves: {}", a.to_fen());
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 300, "only {checked} positions checked");
    }

    /// Twice the mirror is the identity, and an empty mask changes nothing.
    #[test]
    fn mirroring_twice_restores_the_batch() {
        let v = Variant::load("chess").unwrap();
        let enc = StandardEncoding::new(Arc::clone(&v));
        let pos = Position::from_fen(Arc::clone(&v), "4k3/1p6/8/2pP4/8/8/6P1/R3K2R w - c6 0 1").unwrap();
        let mut legal = MoveList::new();
        pos.clone().legal_moves(&mut legal);
        let original = enc.encode_batch([(&pos, legal.as_slice())]);
        let mut batch = original.clone();
        mirror_left_right(&mut batch, &[false]);
        assert_eq!(batch, original);
        mirror_left_right(&mut batch, &[true]);
        assert_ne!(batch, original);
        mirror_left_right(&mut batch, &[true]);
        assert_eq!(batch, original);
    }

    #[test]
    fn squares_mirror_within_their_rank() {
        // 6 files: a1 (0) <-> f1 (5), c2 (8) <-> d2 (9); "no square" stays.
        assert_eq!(mirror_square(0, 6, 36), 5);
        assert_eq!(mirror_square(8, 6, 36), 9);
        assert_eq!(mirror_square(35, 6, 36), 30);
        assert_eq!(mirror_square(NO_SQUARE, 6, 36), NO_SQUARE);
    }
}
