//! Network sizes and the checkpoint header: plain data (serde), usable without libtorch.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::identity::PieceIdentity;

/// The network's architecture. Nothing here depends on the board size or the variant: the
/// piece-type count comes from the variant when the net is built.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetConfig {
    /// Residual blocks in the tower.
    pub blocks: usize,
    /// Channels of the tower.
    pub channels: usize,
    /// Every `n`-th block (the `n`-th, `2n`-th, …) is a KataGo-style global-pooling block;
    /// 0 for none.
    pub global_pool_every: usize,
    /// Width of the learned (type x colour) piece embedding.
    pub piece_embedding: usize,
    /// Channels of the per-square policy features.
    pub policy_channels: usize,
    /// Width of the from/to bilinear ("attention policy") and of the move-term vectors.
    pub policy_dim: usize,
    /// Channels of the value head's 1x1 convolution.
    pub value_channels: usize,
    /// Hidden units of the value head.
    pub value_hidden: usize,
}

impl NetConfig {
    /// The named presets: `tiny` (4x32, CPU tests), `small` (6x64), `base` (10x128).
    pub const PRESETS: [&'static str; 3] = ["tiny", "small", "base"];

    /// A tower of `blocks` x `channels` with heads sized from the channels.
    pub fn tower(blocks: usize, channels: usize) -> NetConfig {
        NetConfig {
            blocks,
            channels,
            global_pool_every: if blocks >= 6 { 3 } else { 2 },
            piece_embedding: channels.min(64),
            policy_channels: channels,
            policy_dim: channels.min(64),
            value_channels: (channels / 4).max(8),
            value_hidden: channels,
        }
    }

    pub fn tiny() -> NetConfig {
        NetConfig::tower(4, 32)
    }

    pub fn small() -> NetConfig {
        NetConfig::tower(6, 64)
    }

    pub fn base() -> NetConfig {
        NetConfig::tower(10, 128)
    }

    /// Parses a size: a preset name or `BLOCKSxCHANNELS` (e.g. `8x96`).
    pub fn parse(text: &str) -> Result<NetConfig, NetSizeError> {
        match text {
            "tiny" => return Ok(NetConfig::tiny()),
            "small" => return Ok(NetConfig::small()),
            "base" => return Ok(NetConfig::base()),
            _ => {}
        }
        let parsed = text.split_once('x').and_then(|(b, c)| Some((b.parse::<usize>().ok()?, c.parse::<usize>().ok()?)));
        match parsed {
            Some((b, c)) if b >= 1 && c >= 4 => Ok(NetConfig::tower(b, c)),
            _ => Err(NetSizeError { text: text.to_string() }),
        }
    }

    /// `4x32 (global pooling every 2, piece embedding 32, policy 32/32, value 8/32)`.
    pub fn describe(&self) -> String {
        format!(
            "{self} (global pooling every {}, piece embedding {}, policy {}/{}, value {}/{})",
            self.global_pool_every,
            self.piece_embedding,
            self.policy_channels,
            self.policy_dim,
            self.value_channels,
            self.value_hidden
        )
    }

    /// Whether block `i` (0-based) is a global-pooling block.
    pub fn is_global_pool_block(&self, i: usize) -> bool {
        self.global_pool_every > 0 && (i + 1).is_multiple_of(self.global_pool_every)
    }
}

/// A network size that is neither a preset nor `BLOCKSxCHANNELS` with at least one block and
/// four channels.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown network size {text:?}: use one of {} or BLOCKSxCHANNELS such as 8x96", NetConfig::PRESETS.join(", "))]
pub struct NetSizeError {
    /// The size as given.
    pub text: String,
}

impl fmt::Display for NetConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.blocks, self.channels)
    }
}

/// Bumped when the checkpoint layout changes.
pub const CHECKPOINT_FORMAT_VERSION: u32 = 1;

/// The variant a checkpoint was trained on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantRecord {
    pub name: String,
    /// `Variant::hash` as 16 hex digits (JSON numbers lose 64-bit precision in many readers).
    pub hash: String,
    pub width: u8,
    pub height: u8,
    /// Identity of every piece type, in piece-type order (the embedding rows follow it).
    pub pieces: Vec<PieceIdentity>,
}

/// The optimizer state stored beside the weights.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptimizerRecord {
    /// `adamw`.
    pub kind: String,
    /// Updates applied so far (Adam's bias correction depends on it).
    pub step: u64,
    pub learning_rate: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    pub weight_decay: f64,
    /// File (beside the header) with the first and second moments, `m.<var>` / `v.<var>`.
    pub file: String,
}

/// `header.json` of a checkpoint directory: what the weights are and what they were trained
/// on. A test pins its schema so that format changes are deliberate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointHeader {
    pub format_version: u32,
    /// [`crate::encoding::ENCODING_VERSION`] of the inputs the net was trained on.
    pub encoding_version: u32,
    pub variant: VariantRecord,
    pub architecture: NetConfig,
    /// Training steps (optimizer updates) the weights have seen.
    pub training_step: u64,
    /// The weights file beside the header (safetensors).
    pub weights: String,
    #[serde(default)]
    pub optimizer: Option<OptimizerRecord>,
    /// Free-form provenance, e.g. `fairyzero 0.1.0`.
    #[serde(default)]
    pub created_by: String,
}

impl CheckpointHeader {
    /// Reads `header.json` text: the schema, then a format version this program can read.
    /// The error says what is wrong, without the file name (the caller has it).
    pub fn parse(text: &str) -> Result<CheckpointHeader, HeaderError> {
        let header: CheckpointHeader = serde_json::from_str(text).map_err(HeaderError::Schema)?;
        if header.format_version > CHECKPOINT_FORMAT_VERSION {
            return Err(HeaderError::NewerFormat { found: header.format_version });
        }
        Ok(header)
    }
}

/// Why `header.json` text is not a header this program can read.
#[derive(Debug, thiserror::Error)]
pub enum HeaderError {
    /// Not JSON, or not the header's schema (a missing or unknown field, a wrong type).
    #[error("bad header: {0}")]
    Schema(#[source] serde_json::Error),
    /// Written by a newer program, in a layout this one does not know.
    #[error("format version {found} is newer than this program's {}", CHECKPOINT_FORMAT_VERSION)]
    NewerFormat { found: u32 },
}

/// The float format a forward pass computes in. Weights stay fp32 (checkpoints, optimizer
/// state); [`Precision::Bf16`] casts weights and activations to bfloat16 inside the forward
/// and returns fp32 logits, so losses and softmaxes stay fp32.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    #[default]
    Fp32,
    Bf16,
}

/// The configuration switch `precision = "auto" | "fp32" | "bf16"`: `auto` is bf16 on CUDA and
/// fp32 elsewhere (CPUs gain little from bf16 and lose accuracy).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PrecisionSetting {
    #[default]
    Auto,
    Fp32,
    Bf16,
}

impl PrecisionSetting {
    /// The precision to run with on a device that is (`cuda`) or is not a CUDA device.
    pub fn resolve(self, cuda: bool) -> Precision {
        match self {
            PrecisionSetting::Auto if cuda => Precision::Bf16,
            PrecisionSetting::Auto | PrecisionSetting::Fp32 => Precision::Fp32,
            PrecisionSetting::Bf16 => Precision::Bf16,
        }
    }
}

impl std::str::FromStr for PrecisionSetting {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(PrecisionSetting::Auto),
            "fp32" => Ok(PrecisionSetting::Fp32),
            "bf16" => Ok(PrecisionSetting::Bf16),
            _ => Err(format!("unknown precision {s:?} (expected auto, fp32 or bf16)")),
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Precision::Fp32 => "fp32",
            Precision::Bf16 => "bf16",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(NetConfig::parse("tiny").unwrap(), NetConfig::tower(4, 32));
        assert_eq!(NetConfig::parse("base").unwrap().to_string(), "10x128");
        assert_eq!(NetConfig::parse("8x96").unwrap(), NetConfig::tower(8, 96));
        let err = NetConfig::parse("huge").unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown network size \"huge\": use one of tiny, small, base or BLOCKSxCHANNELS such as 8x96"
        );
        assert_eq!(NetConfig::parse("0x32").unwrap_err(), NetSizeError { text: "0x32".to_string() });
    }

    #[test]
    fn header_errors_say_what_is_wrong() {
        let err = CheckpointHeader::parse("{").unwrap_err();
        assert!(matches!(err, HeaderError::Schema(_)), "{err:?}");
        assert!(err.to_string().starts_with("bad header: "), "{err}");

        let newer = serde_json::json!({
            "format_version": CHECKPOINT_FORMAT_VERSION + 1,
            "encoding_version": 1,
            "variant": { "name": "chess", "hash": "0000000000000000", "width": 8, "height": 8, "pieces": [] },
            "architecture": NetConfig::tiny(),
            "training_step": 0,
            "weights": "model.safetensors",
        });
        let err = CheckpointHeader::parse(&newer.to_string()).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "format version {} is newer than this program's {CHECKPOINT_FORMAT_VERSION}",
                CHECKPOINT_FORMAT_VERSION + 1
            )
        );
    }

    #[test]
    fn precision_setting_parses_and_resolves() {
        assert_eq!("auto".parse::<PrecisionSetting>().unwrap().resolve(false), Precision::Fp32);
        assert_eq!("auto".parse::<PrecisionSetting>().unwrap().resolve(true), Precision::Bf16);
        assert_eq!("fp32".parse::<PrecisionSetting>().unwrap().resolve(true), Precision::Fp32);
        assert_eq!("bf16".parse::<PrecisionSetting>().unwrap().resolve(false), Precision::Bf16);
        assert!("fp16".parse::<PrecisionSetting>().unwrap_err().contains("fp16"));
        #[derive(serde::Deserialize)]
        struct Run {
            precision: PrecisionSetting,
        }
        let run: Run = serde_json::from_str(r#"{"precision": "bf16"}"#).unwrap();
        assert_eq!(run.precision, PrecisionSetting::Bf16);
        assert_eq!(Precision::Bf16.to_string(), "bf16");
    }

    #[test]
    fn global_pool_blocks() {
        let c = NetConfig::base();
        let pools: Vec<usize> = (0..c.blocks).filter(|&i| c.is_global_pool_block(i)).collect();
        assert_eq!(pools, vec![2, 5, 8]);
    }
}
