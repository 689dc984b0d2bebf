//! `relay`: friendly pieces that a relayer reaches gain the granted leaps for this move (Dervish:
//! the eight neighbours; Harpy: the first piece on each queen line within `range`). `landing`
//! restricts the granted moves to those that land across or around the relayer (Scirocco ruling
//! R-S3), next to it, or anywhere.
//!
//! A relayed move that the recipient can also make by itself (same origin and destination) is
//! that own move, generated already with its promotions and automatic effects; the others are
//! plain displacements that never promote (Scirocco §3.6, Typhoon §3.8). Immobilized relayers
//! give nothing; immobilized recipients have no own moves, so all their relayed moves are plain.

use crate::{
    movegen::{
        powers::{offset, KING_DIRS},
        MoveSink,
    },
    moves::Move,
    position::{Position, SquareSet},
    spec::power_spec::{RelayLanding, RelayReach},
    types::{Color, Piece},
    variant::powers::Power,
};

/// Appends the moves that the relayers of `us` (not in `frozen`) give to their recipients;
/// `out` already holds the own moves of `us`, so that a relayed duplicate is left out.
pub(crate) fn moves<S: MoveSink>(pos: &Position, us: Color, frozen: &SquareSet, out: &mut S) {
    let variant = pos.variant();
    let dims = variant.dims;
    let c = us.index();
    for &relayer_type in &variant.relayers {
        let relayer = Piece::new(relayer_type, us);
        if pos.piece_counts()[relayer.index()] == 0 {
            continue;
        }
        for v in pos.occupied(us).iter().filter(|&s| pos.piece_at(s) == Some(relayer) && !frozen.contains(s)) {
            for power in &variant.powers[relayer_type.index()] {
                let Power::Relay { reach, range, grants, landing } = power else { continue };
                for (ux, uy) in KING_DIRS {
                    // The recipient: the neighbour, or the first piece on the open line.
                    let mut recipient = None;
                    let steps = if *reach == RelayReach::Adjacent { 1 } else { *range as i32 };
                    for n in 1..=steps {
                        let Some(sq) = offset(pos, v, ux * n, uy * n) else { break };
                        if let Some(q) = pos.piece_at(sq) {
                            if q.color() == us {
                                recipient = Some(sq);
                            }
                            break;
                        }
                    }
                    let Some(p_sq) = recipient else { continue };
                    let (px, py) = (dims.file(p_sq) - dims.file(v), dims.rank(p_sq) - dims.rank(v));
                    for g in &grants[c] {
                        let (tx, ty) = (px + g.dx as i32, py + g.dy as i32);
                        let allowed = match landing {
                            RelayLanding::Any => true,
                            RelayLanding::AcrossOrAround => {
                                (tx == -px && ty == -py) || (px * py == 0 && tx * ty == 0 && tx.abs() + ty.abs() == 1)
                            }
                            RelayLanding::NextToRelayer => tx.abs().max(ty.abs()) == 1,
                        };
                        if !allowed {
                            continue;
                        }
                        let Some(to) = offset(pos, v, tx, ty) else { continue };
                        if pos.piece_at(to).is_some_and(|q| q.color() == us) {
                            continue;
                        }
                        if out.has_displacement(p_sq, to) {
                            continue;
                        }
                        out.push(Move::normal(p_sq, to));
                    }
                }
            }
        }
    }
}
