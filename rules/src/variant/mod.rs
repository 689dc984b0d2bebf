//! Layer 2 of the rules crate: a [`VariantSpec`] validated and concluded into a [`Variant`], the
//! flat, immutable tables the position and the move generator read (shared as `Arc<Variant>`).
//!
//! Following Fairy-Stockfish's `Variant::conclude()`, everything the hot path needs is computed
//! once here: per (colour, piece type, square) leap and ray tables (`tables`), reverse attack
//! tables for the chess family (`attack_tables`), compiled powers (`powers`), promotion maps,
//! regions and Zobrist keys. The move generator never looks at a string. This layer reads only
//! the spec layer (`crate::spec`) and the shared value types.

pub(crate) mod attack_tables;
mod build;
pub mod capture_effects;
pub(crate) mod castling;
pub(crate) mod drops;
pub(crate) mod legs;
mod mirror;
mod must_mate;
pub mod neutral_token;
pub(crate) mod powers;
pub(crate) mod protean;
pub(crate) mod regions;
pub(crate) mod setup;
pub mod setup_mask;
mod start_generator;
pub mod synthetic;
pub(crate) mod tables;
pub(crate) mod text;
pub(crate) mod topology;
pub mod turns;
pub(crate) mod zobrist;

use std::fmt;

pub use crate::spec::{
    load::{builtin_names, read_parent_file, ParentReader, VariantError},
    variant_spec::*,
};
use crate::{
    types::{Color, Dims, Piece, PieceType, Square},
    variant::{
        attack_tables::AttackTables,
        legs::LegTries,
        powers::Power,
        setup::SetupPhase,
        tables::MoveTables,
        topology::{Cells, Geometry},
        zobrist::Zobrist,
    },
};
pub use build::BuildError;

/// A piece type after validation.
#[derive(Clone, Debug)]
pub struct PieceDef {
    pub name: String,
    /// Canonical (upper-case) token.
    pub token: String,
    pub betza: String,
    pub royal: bool,
    pub promotes_to: Vec<PieceType>,
    pub value: Option<f32>,
    pub en_passant: bool,
    /// The geometry contains a capturing atom (used to skip attack tests).
    pub(crate) captures: bool,
    /// Two of its atoms can reach the same square, so its moves are de-duplicated.
    pub(crate) needs_dedup: bool,
    /// `(present, becomes)`: see [`PieceSpec::promotion_upgrade`].
    pub promotion_upgrade: Option<(PieceType, PieceType)>,
}

/// What the turn procedure needs beyond the moves (jupiter.md §5.3-§5.6), per piece type.
/// Empty lists and `false` everywhere in variants without these pieces, whose turns then skip
/// the procedure entirely.
#[derive(Clone, Debug, Default)]
pub(crate) struct TurnRules {
    /// Types with the `double` power (Doubler).
    pub doublers: Vec<PieceType>,
    /// Types with the `poison_sight` power (Poisoner).
    pub poisoners: Vec<PieceType>,
    /// Types with the `reproduce` power (Tribble): captures are then not irreversible.
    pub reproducers: Vec<PieceType>,
    /// Per type: permanently poisonous (`poisonous = true`).
    pub poisonous: Vec<bool>,
    /// Per type: burns its enemy neighbours (`burns = true`).
    pub burns: Vec<bool>,
    /// Per type: removed when it captures (`dies_when_capturing = true`).
    pub dies_when_capturing: Vec<bool>,
    /// The types marked `burns`, listed: a short list for the per-turn check.
    pub burner_types: Vec<PieceType>,
    /// Some type burns.
    pub any_burner: bool,
    /// Some type is poisonous or poisons what it sees.
    pub any_poison: bool,
    /// Some type dies when it captures.
    pub any_kamikaze: bool,
}

impl TurnRules {
    /// Whether turns need the start-of-turn snapshot and the end-of-turn checks.
    #[inline]
    pub(crate) fn has_checks(&self) -> bool {
        self.any_burner || self.any_poison
    }
}

pub use castling::{CastleMove, Castling};

/// Rules that are not piece geometry, concluded.
#[derive(Clone, Debug)]
pub struct Rules {
    pub promotion: PromotionSpec,
    pub castling: Option<Castling>,
    pub initial_move_ranks: Vec<u8>,
    pub en_passant: bool,
    pub royal: RoyalRule,
    pub stalemate: GameValue,
    /// Value of being checkmated for the mated side (`loss`; Reflex Chess: `win`).
    pub checkmate: GameValue,
    pub bare: BareRule,
    pub extinction: Option<Extinction>,
    pub repetition: RepetitionRule,
    pub forced_capture: bool,
    pub pass: PassRule,
    pub halfmove_draw: Option<u32>,
    pub move_cap: u32,
    /// Opposing royals on one open file attack each other (Xiangqi), for check only.
    pub flying_general: bool,
    /// Captures by displacement or by shooting (Rifle Chess).
    pub capture: CaptureRule,
    /// Whether a check must be mate (Checkless Chess).
    pub checking: CheckingRule,
    /// A side that can mate must (Reflex Chess, `movegen::must_mate`).
    pub must_mate: bool,
    /// Which royals count for check (ICS wild 9: the first by file).
    pub royal_choice: RoyalChoice,
    /// Back-rank swaps on a side's first turn (Transcendental Chess).
    pub first_turn_swap: FirstTurnSwap,
    /// Protean men and how they are chosen (Protean Chess, `position::protean`); `None`: none.
    pub protean: Option<crate::spec::protean_spec::ProteanChoice>,
    /// Blasts round captures (atomic chess, Explosion Chess).
    pub explosion: Option<capture_effects::Explosion>,
    /// Rebirth of captured men (Circe Chess).
    pub rebirth: Option<capture_effects::Rebirth>,
    /// Multi-move turns (`[turns]`, issue 21 rows #11-#16); `None`: one move per turn.
    pub turns: Option<turns::TurnSchedule>,
    /// The neutral token that copies every move (Shadow, Imitator, Salt Shaker Chess).
    pub neutral_token: Option<neutral_token::NeutralToken>,
}

/// Extinction, concluded: the counted types (`None` = all pieces together).
#[derive(Clone, Debug)]
pub struct Extinction {
    pub types: Option<Vec<PieceType>>,
    pub count: u16,
    pub opponent_count: u16,
    pub claim: bool,
    pub value: GameValue,
}

/// A validated variant with its precomputed tables. Shared as `Arc<Variant>`.
pub struct Variant {
    pub name: String,
    pub dims: Dims,
    pub pieces: Vec<PieceDef>,
    pub start: String,
    pub notation: NotationStyle,
    pub rules: Rules,
    /// The resolved specification (what a run directory records).
    pub spec: VariantSpec,
    /// A hash of the resolved specification, to tie records and checkpoints to rules.
    pub hash: u64,
    /// Start-position count of every `(type, colour)` (for promotion limits).
    pub(crate) start_counts: Vec<u16>,
    pub(crate) tables: MoveTables,
    pub(crate) zobrist: Zobrist,
    /// Concluded special powers, per piece type.
    pub(crate) powers: Vec<Vec<Power>>,
    /// Piece types with a relay power.
    pub(crate) relayers: Vec<PieceType>,
    /// Any piece has a power or a multi-leg move: attack tests then ask the move generator.
    pub(crate) has_powers: bool,
    /// Some piece's moves depend on its square (`confined_to`, `region_moves`): attack tests
    /// generate the attacker's moves instead of reading tables backwards.
    pub(crate) regional: bool,
    /// The board's dimensions and whether its files wrap (`topology = "cylinder"`).
    pub(crate) geometry: Geometry,
    /// The grid's cells (`[grid]`), applied in the tables (`topology`).
    pub(crate) cells: Option<Cells>,
    pub(crate) setup: Option<SetupPhase>,
    /// Pieces in hand and drops (`[drops]`, `drops`).
    pub(crate) drops: Option<drops::DropRules>,
    /// Piece types with an immobilizing power.
    pub(crate) immobilizers: Vec<PieceType>,
    /// Per piece type: it has the `pass` power.
    pub(crate) passers: Vec<bool>,
    /// Attacks come only from plain leapers and riders (no hoppers, lame leapers or powers),
    /// so a non-royal move can only expose a royal along `line_dirs` (`legal_moves` then skips
    /// the make/unmake test for moves that cannot).
    pub(crate) simple_attacks: bool,
    /// Reverse attack tables (chess family), see `attack_tables`.
    pub(crate) attack_tables: Option<AttackTables>,
    /// Reduced directions of every capturing rider of either colour, for pin detection.
    pub(crate) line_dirs: Vec<(i32, i32)>,
    /// Per piece type: it captures by riding (it can pin).
    pub(crate) rides_to_capture: Vec<bool>,
    /// Per piece type: royal (a flat copy of `pieces[t].royal` for the hot path).
    pub(crate) royal: Vec<bool>,
    /// Per piece type: some type promotes to it (its `promotes_to` or `promotion_upgrade`), so
    /// it is a promoted type (Jupiter's Communist captures these; jupiter.md §3.4).
    pub(crate) promoted: Vec<bool>,
    /// `(file, rank)` of every square, so hot paths avoid divisions.
    pub(crate) coords: Vec<(i16, i16)>,
    /// Jupiter's latent powers and penalties, read by the turn procedure (jupiter.md §5.6).
    pub(crate) turn: TurnRules,
    /// Per piece type: it, and every type it can become, moves left-right symmetrically (see
    /// [`crate::symmetry`]).
    pub mirror_safe: Vec<bool>,
    /// Per piece type: the type its pieces become in the left-right mirror image (itself, the
    /// type that moves as its mirror image, or `None`; see [`crate::symmetry`]).
    pub mirror_type: Vec<Option<PieceType>>,
    /// Multi-leg XBetza components, compiled per (colour, type) (chushin-shogi.md §6).
    pub(crate) legs: LegTries,
}

impl fmt::Debug for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Variant({} {}x{})", self.name, self.dims.width, self.dims.height)
    }
}

impl Variant {
    #[inline]
    pub fn piece_count(&self) -> usize {
        self.pieces.len()
    }

    pub fn piece_def(&self, t: PieceType) -> &PieceDef {
        &self.pieces[t.index()]
    }

    /// Finds a piece type by token, ignoring case.
    pub fn piece_by_token(&self, token: &str) -> Option<PieceType> {
        self.pieces.iter().position(|p| p.token.eq_ignore_ascii_case(token)).map(|i| PieceType(i as u8))
    }

    /// The token of a piece as written in position strings: case gives the colour, multi-letter
    /// tokens are parenthesised.
    pub fn piece_token(&self, piece: Piece) -> String {
        let t = &self.pieces[piece.kind().index()].token;
        let t = if piece.color() == Color::Blue { t.clone() } else { t.to_ascii_lowercase() };
        if t.len() == 1 {
            t
        } else {
            format!("({t})")
        }
    }

    #[inline]
    pub(crate) fn table_slot(&self, color: Color, kind: PieceType, sq: Square) -> usize {
        (color.index() * self.pieces.len() + kind.index()) * self.dims.squares() + sq.index()
    }

    /// Whether the variant has a setup phase ([`crate::Position::setup_start`]).
    pub fn has_setup_phase(&self) -> bool {
        self.setup.is_some()
    }

    /// Whether some piece's moves depend on the square it stands on (`confined_to` or
    /// `region_moves`: Xiangqi's palace and river), which plain piece geometry cannot describe.
    pub fn has_regional_moves(&self) -> bool {
        self.regional
    }

    /// Whether the first and last files are adjacent (`topology = "cylinder"`), which a plain
    /// rectangular board cannot show.
    pub fn wraps_files(&self) -> bool {
        self.geometry.wrap
    }

    /// Whether some piece has a named power beyond its Betza geometry (relays, igui, the Emperor
    /// King's roam, ...), which a geometry-only description of the pieces would lose.
    pub fn has_piece_powers(&self) -> bool {
        self.has_powers
    }

    /// Whether moves must cross a line of a grid (`[grid]`, Grid Chess).
    pub fn has_grid(&self) -> bool {
        self.cells.is_some()
    }

    /// Whether `sq` is in `color`'s promotion zone.
    #[inline]
    pub fn in_promotion_zone(&self, sq: Square, color: Color) -> bool {
        self.relative_rank(sq, color) >= self.dims.height as i32 - self.rules.promotion.zone_ranks as i32
    }

    /// Rank counted from `color`'s side (0-based), without a division.
    #[inline]
    pub fn relative_rank(&self, sq: Square, color: Color) -> i32 {
        let rank = self.coords[sq.index()].1 as i32;
        match color {
            Color::Blue => rank,
            Color::Tan => self.dims.height as i32 - 1 - rank,
        }
    }
}
