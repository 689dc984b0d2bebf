//! fairyzero-designer: measurements for people who design variants.

pub mod designer;
pub mod material;
