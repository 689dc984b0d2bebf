//! Layer 1 of the rules crate: variant files as written, before anything is checked against
//! anything else.
//!
//! TOML text becomes a [`variant_spec::VariantSpec`] (serde, unknown keys refused, `extends`
//! chains resolved by `load`); the built-ins and the rows of the seed's variant list, with their
//! names, aliases and status, are [`registry`]; Betza strings become [`betza::Geometry`] values;
//! powers and setup phases are [`power_spec::PowerSpec`] and [`setup_spec::SetupSpec`]. Nothing
//! here knows about boards of squares, tables or positions: the variant layer (`crate::variant`)
//! validates a spec and concludes it into the tables that the position and move generator read.

pub mod betza;
pub mod capture_spec;
pub mod drops_spec;
pub(crate) mod load;
pub mod mirror;
pub mod neutral_token_spec;
pub mod power_spec;
pub mod protean_spec;
pub mod registry;
pub mod setup_spec;
pub mod turns_spec;
pub mod variant_spec;
