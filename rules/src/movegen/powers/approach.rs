//! `approach`: non-capturing moves to empty squares along the `dirs` geometry (each direction with
//! its own range); the enemy right beyond the landing square, straight on, is converted (`effect
//! = "convert"`: Missionary), captured (`"capture_one"`: Neartaker) or captured together with the
//! enemies in line behind it, up to the first square that holds no enemy (`"capture_line"`:
//! Sorcerer). The effect is automatic (Typhoon's pieces, the Neartaker) or, with `optional`,
//! a second move besides the plain one (Jupiter's 1999 Missionary and Sorcerer, §3.5).

use crate::{
    movegen::{
        powers::{empty_squares, offset},
        MoveSink,
    },
    moves::Move,
    position::Position,
    spec::power_spec::ApproachEffect,
    types::{Piece, Square},
    variant::powers::Dir,
};

pub(super) fn moves<S: MoveSink>(
    pos: &Position,
    from: Square,
    p: Piece,
    dirs: &[Dir],
    (effect, optional): (ApproachEffect, bool),
    out: &mut S,
) {
    let enemy_at = |sq: Square| pos.piece_at(sq).is_some_and(|q| q.color() != p.color());
    for d in dirs {
        let (dx, dy) = (d.dx as i32, d.dy as i32);
        for to in empty_squares(pos, from, d) {
            let plain = Move::normal(from, to);
            let mut m = plain;
            let mut next = offset(pos, to, dx, dy).filter(|&t| enemy_at(t));
            match effect {
                ApproachEffect::Convert => {
                    if let Some(t) = next {
                        m = m.with_aux(t);
                    }
                }
                ApproachEffect::CaptureOne => {
                    if let Some(t) = next {
                        m.add_capture(t);
                    }
                }
                ApproachEffect::CaptureLine => {
                    while let Some(t) = next {
                        m.add_capture(t);
                        next = offset(pos, t, dx, dy).filter(|&t| enemy_at(t));
                    }
                }
            }
            if optional && m != plain {
                pos.push_with_promotions(plain, p, out);
            }
            pos.push_with_promotions(m, p, out);
        }
    }
}
