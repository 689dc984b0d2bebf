//! Checkpoints: a directory holding
//!
//! - `header.json`: [`CheckpointHeader`] (format version, variant name, hash and piece
//!   identities, architecture, training step, optimizer record);
//! - `weights.safetensors`: every variable by name (readable from Python with `safetensors`);
//! - `optimizer.safetensors` (optional): AdamW moments, see [`crate::optim`].
//!
//! Loading refuses a checkpoint of another variant, rules revision, architecture or encoding
//! with a message saying what differs, unless `transfer` is asked for: then variables are
//! matched by name and shape and the piece-indexed embedding rows by piece identity
//! ([`fairyzero_model::identity`]), so that an edited variant, or Typhoon from Scirocco, warm-starts.
//!
//! A checkpoint published by the trainer also holds `manifest.json` (the size and SHA-256 of
//! every file). [`load`] checks it before reading anything else, so that no command (analyse,
//! selfplay, match, rank, the designer tools, train) can load a damaged checkpoint silently.

use std::{
    collections::HashMap,
    fs,
    path::{Path, PathBuf},
    sync::Arc,
};

use fairyzero_rules::Variant;
use tch::{Device, Tensor};

use fairyzero_model::{
    config::{CheckpointHeader, HeaderError, NetConfig, VariantRecord, CHECKPOINT_FORMAT_VERSION},
    encoding::ENCODING_VERSION,
    identity::{match_pieces, PieceIdentity, PieceMatch},
};

use crate::{
    net::{Net, PieceRows, PIECE_TABLES},
    optim::AdamW,
};

pub const HEADER_FILE: &str = "header.json";
pub const WEIGHTS_FILE: &str = "weights.safetensors";
pub const OPTIMIZER_FILE: &str = "optimizer.safetensors";
/// Written by the trainer beside the model's files (see trainer/src/artifacts.rs).
pub const MANIFEST_FILE: &str = "manifest.json";

#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("checkpoint {path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("checkpoint {path}: {message}")]
    Invalid { path: String, message: String },
    /// `header.json` is not a header this program reads: not damage, like `Invalid` (a newer
    /// program's header is sound, and moving it aside would lose it).
    #[error("checkpoint {path}: {error}")]
    Header { path: String, error: HeaderError },
    /// A file does not match the size or SHA-256 its manifest records.
    #[error("checkpoint {path}: checksum failed: {message}")]
    Checksum { path: String, message: String },
    /// A file that exists but cannot be read as what it should be (truncated, not JSON, not
    /// safetensors).
    #[error("checkpoint {path}: unreadable: {message}")]
    Unreadable { path: String, message: String },
    /// The checkpoint belongs to another variant or rules revision.
    #[error("checkpoint {path} was trained on {trained}, not on {wanted}; to warm-start a new run from it: fairyzero train --config RUN.toml -o run_dir=NEW_DIR --transfer {path}")]
    WrongVariant { path: String, trained: String, wanted: String },
    /// The checkpoint has another architecture than the one asked for.
    #[error("checkpoint {path} is a {found} net, not the {wanted} asked for; to warm-start a new run from it: fairyzero train --config RUN.toml -o run_dir=NEW_DIR --transfer {path}")]
    WrongArchitecture { path: String, found: String, wanted: String },
    #[error("checkpoint {path}: {error}")]
    Torch { path: String, error: tch::TchError },
}

impl CheckpointError {
    /// The files are damaged (unreadable, or not what the manifest recorded), as opposed to a
    /// sound checkpoint that does not fit the request (another variant, architecture, device).
    /// Only damage may be moved aside; anything else is the caller's error to report.
    pub fn is_damage(&self) -> bool {
        match self {
            CheckpointError::Io { .. } | CheckpointError::Checksum { .. } | CheckpointError::Unreadable { .. } => true,
            CheckpointError::Invalid { .. }
            | CheckpointError::Header { .. }
            | CheckpointError::WrongVariant { .. }
            | CheckpointError::WrongArchitecture { .. }
            | CheckpointError::Torch { .. } => false,
        }
    }
}

/// How a checkpoint's variables reached the net on a `--transfer` load.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TransferReport {
    /// Variables copied whole (same name and shape).
    pub copied: Vec<String>,
    /// For each piece type of the new variant: its name and the checkpoint piece it took its
    /// embeddings from, if any.
    pub pieces: Vec<(String, Option<(String, PieceMatch)>)>,
    /// Variables present in both with different shapes, left at their fresh initialisation.
    pub mismatched: Vec<String>,
    /// Variables of the net absent from the checkpoint (fresh).
    pub missing: Vec<String>,
    /// Checkpoint variables the net has no use for.
    pub unused: Vec<String>,
}

impl std::fmt::Display for TransferReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let matched = self.pieces.iter().filter(|p| p.1.is_some()).count();
        write!(
            f,
            "{} variables copied, {}/{} piece types matched, {} fresh (shape changed), {} fresh (new), {} unused",
            self.copied.len(),
            matched,
            self.pieces.len(),
            self.mismatched.len(),
            self.missing.len(),
            self.unused.len()
        )
    }
}

/// A loaded checkpoint.
pub struct Loaded {
    pub net: Net,
    pub header: CheckpointHeader,
    /// Set on a `transfer` load.
    pub transfer: Option<TransferReport>,
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> CheckpointError + '_ {
    move |error| CheckpointError::Io { path: path.display().to_string(), error }
}

fn torch_err(path: &Path) -> impl Fn(tch::TchError) -> CheckpointError + '_ {
    move |error| CheckpointError::Torch { path: path.display().to_string(), error }
}

/// The record of `variant` a header stores.
pub fn variant_record(variant: &Variant, identities: &[PieceIdentity]) -> VariantRecord {
    VariantRecord {
        name: variant.name.clone(),
        hash: format!("{:016x}", variant.hash),
        width: variant.dims.width,
        height: variant.dims.height,
        pieces: identities.to_vec(),
    }
}

/// Writes `net` (and the optimizer state, if given) to the directory `dir`, creating it. The
/// header is written last, so an interrupted save leaves no header rather than a wrong one.
pub fn save(
    net: &Net,
    dir: &Path,
    training_step: u64,
    optimizer: Option<&AdamW>,
) -> Result<CheckpointHeader, CheckpointError> {
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    let header_path = dir.join(HEADER_FILE);
    // A stale header must not describe new weights if this save is interrupted.
    if header_path.exists() {
        fs::remove_file(&header_path).map_err(io_err(&header_path))?;
    }
    let weights = dir.join(WEIGHTS_FILE);
    let mut named: Vec<(String, Tensor)> = net
        .var_store()
        .variables()
        .into_iter()
        .map(|(name, t)| (name, t.detach().to_device(Device::Cpu).contiguous()))
        .collect();
    named.sort_by(|a, b| a.0.cmp(&b.0));
    write_safetensors(&named, &weights)?;
    let optimizer = match optimizer {
        Some(opt) => Some(opt.save(&dir.join(OPTIMIZER_FILE), OPTIMIZER_FILE)?),
        None => {
            let stale = dir.join(OPTIMIZER_FILE);
            if stale.exists() {
                fs::remove_file(&stale).map_err(io_err(&stale))?;
            }
            None
        }
    };
    let header = CheckpointHeader {
        format_version: CHECKPOINT_FORMAT_VERSION,
        encoding_version: ENCODING_VERSION,
        variant: variant_record(net.variant(), net.piece_identities()),
        architecture: net.config().clone(),
        training_step,
        weights: WEIGHTS_FILE.to_string(),
        optimizer,
        created_by: format!("fairyzero {}", env!("CARGO_PKG_VERSION")),
    };
    let text = serde_json::to_string_pretty(&header).expect("headers serialise");
    let tmp = dir.join(format!("{HEADER_FILE}.tmp"));
    fs::write(&tmp, text + "\n").map_err(io_err(&tmp))?;
    fs::rename(&tmp, &header_path).map_err(io_err(&header_path))?;
    Ok(header)
}

/// Writes named tensors to a safetensors file through a temporary name.
pub(crate) fn write_safetensors(named: &[(String, Tensor)], path: &Path) -> Result<(), CheckpointError> {
    let tmp = PathBuf::from(format!("{}.tmp", path.display()));
    Tensor::write_safetensors(named, &tmp).map_err(torch_err(path))?;
    fs::rename(&tmp, path).map_err(io_err(path))
}

pub(crate) fn read_safetensors(path: &Path) -> Result<HashMap<String, Tensor>, CheckpointError> {
    if !path.exists() {
        return Err(CheckpointError::Io {
            path: path.display().to_string(),
            error: std::io::Error::new(std::io::ErrorKind::NotFound, "file not found"),
        });
    }
    let tensors = Tensor::read_safetensors(path)
        .map_err(|e| CheckpointError::Unreadable { path: path.display().to_string(), message: e.to_string() })?;
    Ok(tensors.into_iter().collect())
}

/// One file as `manifest.json` lists it (the trainer's manifest has more fields, ignored here).
#[derive(serde::Deserialize)]
struct ManifestFile {
    name: String,
    bytes: u64,
    sha256: String,
}

#[derive(serde::Deserialize)]
struct ManifestFiles {
    files: Vec<ManifestFile>,
}

/// SHA-256 of `bytes`, lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Checks every file `dir/manifest.json` lists against its size and SHA-256. Returns whether
/// there was a manifest (a checkpoint written by [`save`] alone has none).
pub fn verify_manifest(dir: &Path) -> Result<bool, CheckpointError> {
    let path = dir.join(MANIFEST_FILE);
    let text = match fs::read(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(error) => return Err(CheckpointError::Io { path: path.display().to_string(), error }),
    };
    let manifest: ManifestFiles = serde_json::from_slice(&text)
        .map_err(|e| CheckpointError::Unreadable { path: path.display().to_string(), message: e.to_string() })?;
    for f in &manifest.files {
        let file = dir.join(&f.name);
        let bytes = fs::read(&file).map_err(io_err(&file))?;
        let checksum = |message: String| CheckpointError::Checksum { path: file.display().to_string(), message };
        if bytes.len() as u64 != f.bytes {
            return Err(checksum(format!(
                "{} bytes, the manifest records {} ({})",
                bytes.len(),
                f.bytes,
                path.display()
            )));
        }
        let sha = sha256_hex(&bytes);
        if sha != f.sha256 {
            return Err(checksum(format!("SHA-256 {sha}, the manifest records {} ({})", f.sha256, path.display())));
        }
    }
    Ok(true)
}

/// Reads and checks a checkpoint's header.
pub fn read_header(dir: &Path) -> Result<CheckpointHeader, CheckpointError> {
    let path = dir.join(HEADER_FILE);
    let text = fs::read_to_string(&path).map_err(io_err(&path))?;
    let header = CheckpointHeader::parse(&text)
        .map_err(|error| CheckpointError::Header { path: path.display().to_string(), error })?;
    Ok(header)
}

/// Loads a checkpoint for `variant` on `device`, after checking its files against
/// `manifest.json` when it has one ([`verify_manifest`]).
///
/// - `architecture`: the architecture the caller wants, or `None` for whatever the checkpoint
///   has.
/// - `transfer`: accept another variant, rules revision, architecture or encoding, matching
///   variables by name and piece embeddings by piece identity; everything unmatched keeps its
///   fresh initialisation. The report says what was matched.
pub fn load(
    dir: &Path,
    variant: Arc<Variant>,
    architecture: Option<&NetConfig>,
    device: Device,
    transfer: bool,
) -> Result<Loaded, CheckpointError> {
    verify_manifest(dir)?;
    let header = read_header(dir)?;
    let shown = dir.display().to_string();
    let wanted_arch = architecture.cloned().unwrap_or_else(|| header.architecture.clone());
    if !transfer {
        let hash = format!("{:016x}", variant.hash);
        if header.variant.name != variant.name || header.variant.hash != hash {
            let same_name = header.variant.name == variant.name;
            let describe = |name: &str, hash: &str| {
                if same_name {
                    format!("variant `{name}` with rules hash {hash}")
                } else {
                    format!("variant `{name}`")
                }
            };
            return Err(CheckpointError::WrongVariant {
                path: shown,
                trained: describe(&header.variant.name, &header.variant.hash),
                wanted: describe(&variant.name, &hash) + if same_name { " (the rules changed)" } else { "" },
            });
        }
        if wanted_arch != header.architecture {
            return Err(CheckpointError::WrongArchitecture {
                path: shown,
                found: header.architecture.describe(),
                wanted: wanted_arch.describe(),
            });
        }
        if header.encoding_version != ENCODING_VERSION {
            return Err(CheckpointError::Invalid {
                path: shown,
                message: format!(
                    "trained on input encoding version {}, this program encodes version {ENCODING_VERSION}; pass --transfer to warm-start from it",
                    header.encoding_version
                ),
            });
        }
    }
    let mut net = Net::new(&wanted_arch, variant, device);
    let weights_path = dir.join(&header.weights);
    let stored = read_safetensors(&weights_path)?;
    let report = if transfer {
        Some(transfer_weights(&mut net, &stored, &header)?)
    } else {
        copy_exact(&net, &stored, &weights_path)?;
        None
    };
    Ok(Loaded { net, header, transfer: report })
}

/// Copies every variable; the sets of names and shapes must agree exactly.
fn copy_exact(net: &Net, stored: &HashMap<String, Tensor>, path: &Path) -> Result<(), CheckpointError> {
    let vars = net.var_store().variables();
    let mut problems = Vec::new();
    for (name, var) in &vars {
        match stored.get(name) {
            None => problems.push(format!("variable `{name}` is missing")),
            Some(src) if src.size() != var.size() => {
                problems.push(format!("variable `{name}` has shape {:?}, the net needs {:?}", src.size(), var.size()))
            }
            Some(_) => {}
        }
    }
    for name in stored.keys() {
        if !vars.contains_key(name) {
            problems.push(format!("unknown variable `{name}`"));
        }
    }
    if !problems.is_empty() {
        problems.sort();
        return Err(CheckpointError::Invalid { path: path.display().to_string(), message: problems.join("; ") });
    }
    tch::no_grad(|| {
        for (name, var) in &vars {
            let mut var = var.shallow_clone();
            var.f_copy_(&stored[name]).map_err(torch_err(path))?;
        }
        Ok(())
    })
}

fn transfer_weights(
    net: &mut Net,
    stored: &HashMap<String, Tensor>,
    header: &CheckpointHeader,
) -> Result<TransferReport, CheckpointError> {
    let mapping = match_pieces(&header.variant.pieces, net.piece_identities());
    let mut report = TransferReport {
        pieces: net
            .piece_identities()
            .iter()
            .zip(&mapping)
            .map(|(p, m)| (p.name.clone(), m.map(|(j, how)| (header.variant.pieces[j].name.clone(), how))))
            .collect(),
        ..TransferReport::default()
    };
    let vars = net.var_store().variables();
    let mut names: Vec<&String> = vars.keys().collect();
    names.sort();
    let path = Path::new("(transfer)");
    tch::no_grad(|| -> Result<(), CheckpointError> {
        for name in names {
            let mut var = vars[name].shallow_clone();
            let Some(src) = stored.get(name) else {
                report.missing.push(name.clone());
                continue;
            };
            if let Some((_, rows)) = PIECE_TABLES.iter().find(|(n, _)| n == name) {
                // Rows follow piece types: copy row by row where the widths agree.
                if src.size().len() != 2 || src.size()[1] != var.size()[1] {
                    report.mismatched.push(name.clone());
                    continue;
                }
                let old_rows = src.size()[0];
                let copy_row = |new_row: usize, old_row: usize| -> Result<(), CheckpointError> {
                    if (old_row as i64) < old_rows {
                        var.get(new_row as i64).f_copy_(&src.get(old_row as i64)).map_err(torch_err(path))?;
                    }
                    Ok(())
                };
                copy_row(0, 0)?; // empty square / no piece
                for (t, m) in mapping.iter().enumerate() {
                    let Some((old, _)) = m else { continue };
                    match rows {
                        PieceRows::TypeAndSide => {
                            copy_row(1 + 2 * t, 1 + 2 * old)?;
                            copy_row(2 + 2 * t, 2 + 2 * old)?;
                        }
                        PieceRows::Type => copy_row(1 + t, 1 + old)?,
                    }
                }
                report.copied.push(name.clone());
            } else if src.size() == var.size() {
                var.f_copy_(src).map_err(torch_err(path))?;
                report.copied.push(name.clone());
            } else {
                report.mismatched.push(name.clone());
            }
        }
        Ok(())
    })?;
    let mut unused: Vec<String> = stored.keys().filter(|k| !vars.contains_key(*k)).cloned().collect();
    unused.sort();
    report.unused = unused;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The trainer writes manifests with this function and every load checks them with it.
    #[test]
    fn sha256_is_standard() {
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn a_file_that_does_not_match_the_manifest_fails_every_load_as_damage() {
        let v = Variant::load("gardner").unwrap();
        let net = Net::new(&NetConfig::tower(1, 8), Arc::clone(&v), Device::Cpu);
        let dir = std::env::temp_dir().join(format!("fairyzero-manifest-test-{}", std::process::id()));
        save(&net, &dir, 0, None).unwrap();
        let weights = fs::read(dir.join(WEIGHTS_FILE)).unwrap();
        let manifest = serde_json::json!({ "files": [
            { "name": WEIGHTS_FILE, "bytes": weights.len(), "sha256": sha256_hex(&weights) }
        ] });
        fs::write(dir.join(MANIFEST_FILE), manifest.to_string()).unwrap();
        assert!(load(&dir, Arc::clone(&v), None, Device::Cpu, false).is_ok());
        // A sound checkpoint that does not fit is not damage.
        let other = load(&dir, Variant::load("losalamos").unwrap(), None, Device::Cpu, false).err().unwrap();
        assert!(!other.is_damage(), "{other}");

        let mut flipped = weights.clone();
        flipped[weights.len() / 2] ^= 1;
        fs::write(dir.join(WEIGHTS_FILE), &flipped).unwrap();
        for transfer in [false, true] {
            let err = load(&dir, Arc::clone(&v), None, Device::Cpu, transfer).err().unwrap();
            assert!(err.is_damage(), "{err}");
            let text = err.to_string();
            assert!(text.contains(WEIGHTS_FILE) && text.contains("checksum failed"), "{text}");
        }
        let _ = fs::remove_dir_all(&dir);
    }
}
