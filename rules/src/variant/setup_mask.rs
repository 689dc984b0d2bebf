//! The compact form of a whole setup phase: `setup:<hex>`, a mask with one bit per setup ply
//! that chooses the member placed on the ply's left square (jupiter.md §2.4).
//!
//! Bit set = the pair's *second* member stands on the left square. Plies read the bits in order,
//! skipping the bits the variant lists in `setup.mask_skip_bits` (Jupiter's Regal pair, bit 7,
//! is fixed and has no ply). Every bit no ply reads must be 0, so each array has one mask.

use thiserror::Error;

use crate::variant::setup::SetupPhase;

/// Bits in a mask.
const MASK_BITS: usize = u64::BITS as usize;

/// A `setup:<hex>` text or mask that names no array of the variant.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SetupMaskError {
    #[error("variant {variant} has no setup phase: setup:<hex> does not apply")]
    NoSetupPhase { variant: String },
    #[error("{text:?} is not a setup mask: expected setup:<hex> with 1 to 16 hexadecimal digits")]
    Syntax { text: String },
    #[error("setup:{mask:x}: bit {bit} must be 0 ({why})")]
    UnusedBit { mask: u64, bit: u8, why: String },
}

/// Reads `setup:<hex>` (digits in either case, at most 64 bits).
pub fn parse_setup_mask(text: &str) -> Result<u64, SetupMaskError> {
    let syntax = || SetupMaskError::Syntax { text: text.to_string() };
    let hex = text.strip_prefix("setup:").ok_or_else(syntax)?;
    if hex.is_empty() || hex.len() > 16 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(syntax());
    }
    u64::from_str_radix(hex, 16).map_err(|_| syntax())
}

/// The mask bit of each of `plies` setup plies, given the bits no ply reads; an error names
/// the problem with `skip` (for the variant loader).
pub(crate) fn ply_bits(plies: usize, skip: &[u8]) -> Result<Vec<u8>, String> {
    if let Some(&bit) = skip.iter().find(|&&b| b as usize >= MASK_BITS) {
        return Err(format!("bit {bit} is beyond the mask's {MASK_BITS} bits"));
    }
    let bits: Vec<u8> = (0..MASK_BITS as u8).filter(|b| !skip.contains(b)).take(plies).collect();
    if bits.len() < plies {
        return Err(format!("{plies} setup plies and {} skipped bits need more than {MASK_BITS} bits", skip.len()));
    }
    Ok(bits)
}

impl SetupPhase {
    /// The member (0 = first, 1 = second) that `mask` places on each ply's left square, in
    /// ply order; an error names the lowest set bit that no ply reads.
    pub(crate) fn mask_choices(&self, mask: u64) -> Result<impl Iterator<Item = usize> + '_, SetupMaskError> {
        let read = self.mask_bits.iter().fold(0u64, |m, &b| m | 1 << b);
        let unread = mask & !read;
        if unread != 0 {
            let bit = unread.trailing_zeros() as u8;
            let last = self.mask_bits.last().copied().unwrap_or(0);
            let why = if bit > last {
                format!("the {} setup plies read bits 0 to {last} only", self.plies.len())
            } else {
                "no setup ply reads it: its pair is fixed".to_string()
            };
            return Err(SetupMaskError::UnusedBit { mask, bit, why });
        }
        Ok(self.mask_bits.iter().map(move |&b| (mask >> b & 1) as usize))
    }
}
