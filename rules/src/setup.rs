//! Setup phases as moves: the players choose the initial array ply by ply, so that self-play
//! can learn the choice (Scirocco §2.5, Typhoon §2.5, Jupiter §2.4).
//!
//! Each setup ply places one exchangeable pair on its two squares in either order. Plies that
//! `copy` also place the opponent's pair by the board symmetry, which is fixed by the royal
//! pieces placed earlier: royals on the same file give mirror symmetry (reflection across the
//! middle rank line), royals on different files give 180° rotation.

use serde::{Deserialize, Serialize};

use crate::{
    moves::{Move, MoveKind, MoveList},
    position::Position,
    types::{Color, Dims, Piece, PieceType, Square},
};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Blue,
    Tan,
}

impl From<Side> for Color {
    fn from(s: Side) -> Color {
        match s {
            Side::Blue => Color::Blue,
            Side::Tan => Color::Tan,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupPlySpec {
    /// Who chooses.
    pub actor: Side,
    /// Whose pieces are placed.
    pub owner: Side,
    /// The pair's left and right squares.
    pub squares: [String; 2],
    /// The two members (tokens; `-` for an empty square). A setup move names the one placed on
    /// the left square.
    pub pieces: [String; 2],
    /// Also place the opponent's copy of the pair by the symmetry fixed so far.
    #[serde(default)]
    pub copy: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupSpec {
    /// The board before the first setup ply: the fixed part of the array.
    pub fixed: String,
    /// The royal type whose files decide the symmetry of copied plies.
    pub symmetry_royal: String,
    #[serde(rename = "ply")]
    pub plies: Vec<SetupPlySpec>,
}

#[derive(Clone, Debug)]
pub(crate) struct SetupPly {
    pub actor: Color,
    pub owner: Color,
    pub squares: [Square; 2],
    pub pieces: [Option<PieceType>; 2],
    pub copy: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct SetupPhase {
    pub fixed: String,
    pub symmetry_royal: PieceType,
    pub plies: Vec<SetupPly>,
}

impl SetupSpec {
    pub(crate) fn conclude(
        &self,
        dims: Dims,
        lookup: impl Fn(&str) -> Option<PieceType>,
    ) -> Result<SetupPhase, Vec<String>> {
        let mut problems = Vec::new();
        let symmetry_royal = lookup(&self.symmetry_royal);
        if symmetry_royal.is_none() {
            problems.push(format!("field `setup.symmetry_royal`: unknown token {:?}", self.symmetry_royal));
        }
        let mut plies = Vec::new();
        for (i, p) in self.plies.iter().enumerate() {
            let sq = |s: &String| {
                dims.parse_square(s).ok_or_else(|| format!("field `setup.ply[{i}].squares`: {s:?} is not a square"))
            };
            let piece = |t: &String| {
                if t == "-" {
                    Ok(None)
                } else {
                    lookup(t).map(Some).ok_or_else(|| format!("field `setup.ply[{i}].pieces`: unknown token {t:?}"))
                }
            };
            match (sq(&p.squares[0]), sq(&p.squares[1]), piece(&p.pieces[0]), piece(&p.pieces[1])) {
                (Ok(a), Ok(b), Ok(x), Ok(y)) => {
                    if x == y {
                        problems.push(format!("field `setup.ply[{i}].pieces`: the two members must differ"));
                    }
                    plies.push(SetupPly {
                        actor: p.actor.into(),
                        owner: p.owner.into(),
                        squares: [a, b],
                        pieces: [x, y],
                        copy: p.copy,
                    })
                }
                (a, b, x, y) => problems.extend([a.err(), b.err(), x.err(), y.err()].into_iter().flatten()),
            }
        }
        if plies.is_empty() {
            problems.push("field `setup.ply`: a setup phase needs at least one ply".into());
        }
        if problems.is_empty() {
            Ok(SetupPhase { fixed: self.fixed.clone(), symmetry_royal: symmetry_royal.unwrap(), plies })
        } else {
            Err(problems)
        }
    }
}

impl Position {
    /// The variant's setup phase start (fixed part only, first chooser to act), if it has one.
    pub fn setup_start(variant: std::sync::Arc<crate::Variant>) -> Option<Position> {
        let phase = variant.setup.as_ref()?;
        let fixed = phase.fixed.clone();
        let actor = phase.plies[0].actor;
        let mut pos = Position::from_fen(variant, &fixed).expect("the fixed part was validated with the variant");
        pos.begin_setup(actor);
        Some(pos)
    }

    /// The two setup moves of the current setup ply.
    pub(crate) fn setup_moves(&self, out: &mut MoveList) {
        let Some(ply) = self.current_setup_ply() else { return };
        for choice in ply.pieces {
            out.push(Move::normal(ply.squares[0], ply.squares[0]).with_kind(MoveKind::Setup).with_piece(choice));
        }
    }

    pub(crate) fn current_setup_ply(&self) -> Option<&SetupPly> {
        let phase = self.variant().setup.as_ref()?;
        phase.plies.get(self.setup_ply_index()?)
    }

    /// The squares and pieces a setup move places (up to four).
    pub(crate) fn setup_placements(&self, m: &Move) -> Vec<(Square, Piece)> {
        let v = self.variant();
        let phase = v.setup.as_ref().expect("setup moves exist only in a setup phase");
        let ply = self.current_setup_ply().expect("a setup move is made during the setup phase");
        let left = m.piece;
        let right = if ply.pieces[0] == left { ply.pieces[1] } else { ply.pieces[0] };
        let mut placed = Vec::with_capacity(4);
        for (sq, t) in [(ply.squares[0], left), (ply.squares[1], right)] {
            if let Some(t) = t {
                placed.push((sq, Piece::new(t, ply.owner)));
            }
        }
        if ply.copy {
            let dims = v.dims;
            let royal = |c: Color| {
                self.occupied(c).iter().find(|&s| self.piece_at(s) == Some(Piece::new(phase.symmetry_royal, c)))
            };
            let mirror = match (royal(Color::Blue), royal(Color::Tan)) {
                (Some(a), Some(b)) => dims.file(a) == dims.file(b),
                _ => true,
            };
            let image = |sq: Square| {
                let reflected = Square((dims.squares() - 1 - sq.index()) as u16);
                if mirror {
                    dims.mirror(reflected)
                } else {
                    reflected
                }
            };
            let copies: Vec<(Square, Piece)> =
                placed.iter().map(|&(sq, p)| (image(sq), Piece::new(p.kind(), p.color().other()))).collect();
            placed.extend(copies);
        }
        placed
    }
}
