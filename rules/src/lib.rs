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
//!
//! # Layers
//!
//! Each layer `use`s only the layers above it in this list (and the shared value types
//! [`types`] and [`moves`]):
//!
//! 1. [`spec`]: variant files as written: TOML and `extends` ([`VariantSpec`]), Betza text
//!    ([`spec::betza`]), powers ([`spec::power_spec`]) and setup phases as specified.
//! 2. [`variant`]: a spec validated and concluded into a [`Variant`]: move and attack tables,
//!    compiled powers, Zobrist keys, position strings read into raw fields.
//! 3. [`position`]: the state of a game, make/unmake, hashing, repetition, results decided by
//!    material.
//! 4. [`movegen`]: move generation (`impl Position`): Betza moves, then one module per power
//!    kind ([`movegen::powers`], which holds the table of every kind), legality, attack tests,
//!    checkmate and stalemate, perft.
//! 5. [`notation`] (position strings and move text) and [`symmetry`] (the left-right mirror),
//!    which need the move generator.
//!
//! `geometry`, `powers` and `setup` are the former names of [`spec::betza`],
//! [`spec::power_spec`] and [`spec::setup_spec`], kept for the crates that use them.

pub mod movegen;
pub mod moves;
pub mod notation;
pub mod position;
pub mod spec;
pub mod symmetry;
pub mod types;
pub mod variant;

pub use movegen::{perft, perft_divide};
pub use moves::{Move, MoveKind, MoveList};
pub use notation::{MoveError, PositionError, SetupMaskError};
pub use position::{EndReason, Outcome, Position};
pub use spec::{betza as geometry, power_spec as powers, registry, setup_spec as setup};
pub use types::{Color, Dims, Piece, PieceType, Square};
pub use variant::{BuildError, GameValue, Variant, VariantError, VariantSpec};
