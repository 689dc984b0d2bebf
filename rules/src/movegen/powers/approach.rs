//! `approach`: non-capturing slides of up to `range` squares; the enemy right beyond the landing
//! square is converted (`effect = "convert"`, Missionary) or captured together with the enemies
//! in line behind it (`effect = "capture_line"`, Sorcerer).

use crate::{
    movegen::{powers::offset, MoveSink},
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
    range: u8,
    effect: ApproachEffect,
    out: &mut S,
) {
    let enemy_at = |sq: Square| pos.piece_at(sq).is_some_and(|q| q.color() != p.color());
    for d in dirs {
        let (dx, dy) = (d.dx as i32, d.dy as i32);
        for k in 1..=range as i32 {
            let Some(sq) = offset(pos, from, dx * k, dy * k) else { break };
            if pos.piece_at(sq).is_some() {
                break;
            }
            let mut m = Move::normal(from, sq);
            let mut next = offset(pos, sq, dx, dy);
            match effect {
                ApproachEffect::Convert => {
                    if let Some(t) = next.filter(|&t| enemy_at(t)) {
                        m = m.with_aux(t);
                    }
                }
                ApproachEffect::CaptureLine => {
                    while let Some(t) = next.filter(|&t| enemy_at(t)) {
                        m.add_capture(t);
                        next = offset(pos, t, dx, dy);
                    }
                }
            }
            pos.push_with_promotions(m, p, out);
        }
    }
}
