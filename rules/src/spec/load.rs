//! Loading variant text: built-in names, TOML parsing, `extends` chains (merged key by key) and
//! lenient deserialisation that lists every schema problem at once.

use std::path::{Path, PathBuf};

use crate::spec::variant_spec::VariantSpec;

/// Built-in variants, embedded at compile time so that every command works without files.
const BUILTIN: &[(&str, &str)] = &[
    ("chess", include_str!("../../../configs/variants/chess.toml")),
    ("capablanca", include_str!("../../../configs/variants/capablanca.toml")),
    ("grand", include_str!("../../../configs/variants/grand.toml")),
    ("shatranj", include_str!("../../../configs/variants/shatranj.toml")),
    ("courier", include_str!("../../../configs/variants/courier.toml")),
    ("antichess", include_str!("../../../configs/variants/antichess.toml")),
    ("losalamos", include_str!("../../../configs/variants/losalamos.toml")),
    ("gardner", include_str!("../../../configs/variants/gardner.toml")),
    ("berolina", include_str!("../../../configs/variants/berolina.toml")),
    ("kinglet", include_str!("../../../configs/variants/kinglet.toml")),
    ("antilosalamos", include_str!("../../../configs/variants/antilosalamos.toml")),
    ("amazon", include_str!("../../../configs/variants/amazon.toml")),
    ("faerychess", include_str!("../../../configs/variants/faerychess.toml")),
    ("longleapers", include_str!("../../../configs/variants/longleapers.toml")),
    ("annihilation", include_str!("../../../configs/variants/annihilation.toml")),
    ("englishstalemate", include_str!("../../../configs/variants/englishstalemate.toml")),
    ("giveawayking", include_str!("../../../configs/variants/giveawayking.toml")),
    ("twinchess", include_str!("../../../configs/variants/twinchess.toml")),
    ("giraffe10", include_str!("../../../configs/variants/giraffe10.toml")),
    ("reverso", include_str!("../../../configs/variants/reverso.toml")),
    ("marchofthepawns", include_str!("../../../configs/variants/marchofthepawns.toml")),
    ("wild5", include_str!("../../../configs/variants/wild5.toml")),
    ("wild8", include_str!("../../../configs/variants/wild8.toml")),
    ("scirocco", include_str!("../../../configs/variants/scirocco.toml")),
    ("typhoon", include_str!("../../../configs/variants/typhoon.toml")),
    ("jupiter", include_str!("../../../configs/variants/jupiter.toml")),
    ("chushin", include_str!("../../../configs/variants/chushin.toml")),
];

/// Names of the built-in variants, in listing order.
pub fn builtin_names() -> impl Iterator<Item = &'static str> {
    BUILTIN.iter().map(|(name, _)| *name)
}

pub(crate) fn builtin_text(name: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
}

/// Errors from loading a variant. Each names the file (or built-in) and the field at fault.
#[derive(Debug, thiserror::Error)]
pub enum VariantError {
    #[error("variant {source_name}: {message}")]
    Invalid { source_name: String, message: String },
    #[error("cannot read variant file {path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("unknown variant {0:?} (not a built-in name nor an existing .toml file; `fairyzero variants` lists the built-ins)")]
    Unknown(String),
    #[error("variant {name:?} is not supported: {reason}")]
    Unsupported { name: String, reason: &'static str },
}

/// Variants a dossier names but the project deliberately does not implement, with the reason.
pub(crate) const UNSUPPORTED: &[(&str, &str)] = &[(
    "jupiter-2009-partial",
    "jupiter.md Appendix A's partial 2009 rule set is out of scope (issue #16): it leaves most of the \
     2009 piece changes unknown; play `jupiter`, the complete 1999 rules",
)];

/// `{ remove = true }`: in a child file, deletes the parent's key (or `[[piece]]` entry).
fn is_remove_marker(value: &toml::Value) -> bool {
    value.as_table().is_some_and(|t| t.len() == 1 && t.get("remove").and_then(|r| r.as_bool()) == Some(true))
}

/// Merges `child` over `parent`: tables merge key by key, `[[piece]]` arrays merge by token
/// (a child piece with a parent's token is merged into it; `remove = true` deletes it), a key
/// set to `{ remove = true }` is deleted, other values are replaced.
fn merge(parent: &mut toml::Table, child: toml::Table) {
    for (key, value) in child {
        if key != "piece" && is_remove_marker(&value) {
            parent.remove(&key);
            continue;
        }
        match (parent.get_mut(&key), value) {
            (Some(toml::Value::Table(p)), toml::Value::Table(c)) => merge(p, c),
            (Some(toml::Value::Array(p)), toml::Value::Array(c)) if key == "piece" => {
                for child_piece in c {
                    let token = child_piece.get("token").and_then(|t| t.as_str()).map(str::to_ascii_uppercase);
                    let existing = p
                        .iter()
                        .position(|pp| pp.get("token").and_then(|t| t.as_str()).map(str::to_ascii_uppercase) == token);
                    let remove = child_piece.get("remove").and_then(|r| r.as_bool()) == Some(true);
                    match (existing, remove) {
                        (Some(i), true) => {
                            p.remove(i);
                        }
                        (None, true) => {}
                        (Some(i), false) => {
                            if let (toml::Value::Table(pt), toml::Value::Table(ct)) = (&mut p[i], child_piece) {
                                merge(pt, ct);
                            }
                        }
                        (None, false) => p.push(child_piece),
                    }
                }
            }
            (_, value) => {
                parent.insert(key, value);
            }
        }
    }
}

fn parse_table(source_name: &str, text: &str) -> Result<toml::Table, VariantError> {
    text.parse::<toml::Table>().map_err(|e| VariantError::Invalid {
        source_name: source_name.to_string(),
        message: e.to_string().trim().replace('\n', " "),
    })
}

/// Reads the parent of an `extends` that is not a built-in name: given the name as written and
/// the directory of the file that names it, returns the parent's source name (for errors), its
/// text and its own directory (for the next `extends` in the chain).
pub type ParentReader<'a> = dyn Fn(&str, Option<&Path>) -> Result<(String, String, Option<PathBuf>), VariantError> + 'a;

/// The file-system [`ParentReader`]: paths relative to the child file's directory.
pub fn read_parent_file(
    parent: &str,
    base_dir: Option<&Path>,
) -> Result<(String, String, Option<PathBuf>), VariantError> {
    let path = base_dir.map(|d| d.join(parent)).unwrap_or_else(|| Path::new(parent).to_path_buf());
    let text =
        std::fs::read_to_string(&path).map_err(|error| VariantError::Io { path: path.display().to_string(), error })?;
    Ok((path.display().to_string(), text, path.parent().map(Path::to_path_buf)))
}

/// Resolves `extends` chains (built-in names, or whatever `read_parent` finds).
fn resolve(
    source_name: &str,
    text: &str,
    base_dir: Option<&Path>,
    read_parent: &ParentReader<'_>,
    depth: usize,
) -> Result<toml::Table, VariantError> {
    if depth > 16 {
        return Err(VariantError::Invalid {
            source_name: source_name.to_string(),
            message: "`extends` chain is longer than 16 (a cycle?)".into(),
        });
    }
    let mut table = parse_table(source_name, text)?;
    let Some(parent) = table.get("extends").cloned() else {
        return Ok(table);
    };
    let parent = parent.as_str().ok_or_else(|| VariantError::Invalid {
        source_name: source_name.to_string(),
        message: "field `extends` must be a string".into(),
    })?;
    let mut base = if let Some(text) = builtin_text(parent) {
        resolve(parent, text, None, read_parent, depth + 1)?
    } else {
        let (parent_name, text, parent_dir) = read_parent(parent, base_dir)?;
        resolve(&parent_name, &text, parent_dir.as_deref(), read_parent, depth + 1)?
    };
    table.remove("extends");
    // `remove` markers only make sense while merging.
    merge(&mut base, table);
    base.insert("extends".into(), toml::Value::String(parent.to_string()));
    if let Some(toml::Value::Array(pieces)) = base.get_mut("piece") {
        for p in pieces.iter_mut() {
            if let toml::Value::Table(t) = p {
                t.remove("remove");
            }
        }
    }
    Ok(base)
}

/// Resolves `extends` and deserialises the result: the spec, if it is complete, and every
/// schema problem found (the variant layer adds the problems of the values and reports all of
/// them together with [`invalid`]).
pub(crate) fn read_spec(
    source_name: &str,
    text: &str,
    base_dir: Option<&Path>,
    read_parent: &ParentReader<'_>,
) -> Result<(Option<VariantSpec>, Vec<String>), VariantError> {
    let table = resolve(source_name, text, base_dir, read_parent, 0)?;
    let mut problems = Vec::new();
    let spec = lenient_spec(table, &mut problems);
    Ok((spec, problems))
}

/// The error for a variant with `problems`.
pub(crate) fn invalid(source_name: &str, problems: &[String]) -> VariantError {
    VariantError::Invalid { source_name: source_name.to_string(), message: list(source_name, problems) }
}

/// One problem as it is, several one per line, each naming the file again (they can be many).
fn list(source_name: &str, problems: &[String]) -> String {
    match problems {
        [one] => one.clone(),
        _ => {
            let lines: Vec<String> = problems.iter().map(|p| format!("\n  {source_name}: {p}")).collect();
            format!("{} problems:{}", problems.len(), lines.concat())
        }
    }
}

/// Deserialises the resolved table into a [`VariantSpec`], listing every schema problem (an
/// unknown key, a wrong type, a missing field) instead of the first only: serde stops at the
/// first, so each one is recorded with its field path, the key at fault is taken out, and
/// deserialisation runs again. Returns the spec that remains, if it is complete, so that
/// [`crate::Variant::build`] can still report the problems of the values (Betza strings, tokens,
/// squares) in the same error.
fn lenient_spec(mut table: toml::Table, problems: &mut Vec<String>) -> Option<VariantSpec> {
    // Each round removes a key or an entry, so the rounds end.
    loop {
        let error = match serde_path_to_error::deserialize::<_, VariantSpec>(toml::Value::Table(table.clone())) {
            Ok(spec) => return Some(spec),
            Err(e) => e,
        };
        let mut segments: Vec<&serde_path_to_error::Segment> = error.path().iter().collect();
        let mut message = error.inner().to_string().trim().replace('\n', " ");
        // toml appends the key path, which the field name already gives.
        if let Some(cut) = message.rfind(" in `").filter(|_| message.ends_with('`')) {
            message.truncate(cut);
        }
        // An unknown tag (`kind` of a power) condemns its whole table, not only the tag.
        let at_tag = matches!(segments.last(), Some(serde_path_to_error::Segment::Map { key }) if key == "kind");
        if message.starts_with("unknown variant") && at_tag && segments.len() > 1 {
            segments.pop();
        }
        problems.push(format!("{}: {message}", field_name(&table, &segments)));
        if !remove_at(&mut table, &segments) {
            return None;
        }
    }
}

/// `field `promotion.zone_ranks``, or `piece "Queen": field `betza`` for a piece's key (the
/// form [`crate::Variant::build`] uses), from a serde path.
fn field_name(table: &toml::Table, segments: &[&serde_path_to_error::Segment]) -> String {
    use serde_path_to_error::Segment;
    let dotted = |segments: &[&Segment]| {
        let mut s = String::new();
        for seg in segments {
            match seg {
                Segment::Seq { index } => s.push_str(&format!("[{index}]")),
                Segment::Map { key } | Segment::Enum { variant: key } => {
                    if !s.is_empty() {
                        s.push('.');
                    }
                    s.push_str(key);
                }
                Segment::Unknown => s.push_str(".?"),
            }
        }
        s
    };
    match segments {
        [Segment::Map { key }, Segment::Seq { index }, rest @ ..] if key == "piece" => {
            let piece = table.get("piece").and_then(|p| p.as_array()).and_then(|p| p.get(*index));
            let label = |k: &str| piece.and_then(|p| p.get(k)).and_then(|v| v.as_str()).map(str::to_string);
            let who = label("name").or_else(|| label("token")).unwrap_or_else(|| format!("number {}", index + 1));
            if rest.is_empty() {
                format!("piece {who:?}")
            } else {
                format!("piece {who:?}: field `{}`", dotted(rest))
            }
        }
        [] => "variant".to_string(),
        _ => format!("field `{}`", dotted(segments)),
    }
}

/// Takes the value at `segments` out of `table`; false if there is none (the problem is the
/// table itself, such as a missing required field, and nothing can be taken out).
fn remove_at(table: &mut toml::Table, segments: &[&serde_path_to_error::Segment]) -> bool {
    use serde_path_to_error::Segment;
    let Some((last, parents)) = segments.split_last() else { return false };
    let mut current = match parents.first() {
        None => None,
        Some(Segment::Map { key }) => table.get_mut(key.as_str()),
        Some(_) => return false,
    };
    for seg in parents.iter().skip(1) {
        current = match (current, seg) {
            (Some(toml::Value::Table(t)), Segment::Map { key }) => t.get_mut(key.as_str()),
            (Some(toml::Value::Array(a)), Segment::Seq { index }) => a.get_mut(*index),
            _ => return false,
        };
    }
    match (parents.is_empty(), current, last) {
        (true, _, Segment::Map { key }) => table.remove(key.as_str()).is_some(),
        (false, Some(toml::Value::Table(t)), Segment::Map { key }) => t.remove(key.as_str()).is_some(),
        (false, Some(toml::Value::Array(a)), Segment::Seq { index }) if *index < a.len() => {
            a.remove(*index);
            true
        }
        _ => false,
    }
}
