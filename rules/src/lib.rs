//! fairyzero's rules engine: data-driven fairy-chess variants.
//!
//! A variant is TOML data (see `configs/variants/` and `docs/variants.md`): board size, piece
//! types described in Betza notation plus named special powers, setup, promotion, victory and
//! repetition rules. [`Variant::load`] validates it and precomputes the move tables;
//! [`Position`] plays it.
//!
//! ```
//! use fairyzero_rules::{perft, Position, Variant};
//! let chess = Variant::load("chess").unwrap();
//! let mut pos = Position::start(chess);
//! assert_eq!(perft(&mut pos, 3), 8902);
//! ```

mod attacks;
pub mod geometry;
pub mod moves;
pub mod notation;
pub mod position;
pub mod powers;
pub mod setup;
pub mod symmetry;
pub mod types;
pub mod variant;

pub use moves::{Move, MoveKind, MoveList};
pub use notation::{MoveError, PositionError};
pub use position::{perft, perft_divide, EndReason, Outcome, Position};
pub use types::{Color, Dims, Piece, PieceType, Square};
pub use variant::{GameValue, Variant, VariantError, VariantSpec};
