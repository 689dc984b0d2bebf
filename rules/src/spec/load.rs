//! Loading variant text: built-in names, TOML parsing, `extends` chains (merged key by key) and
//! lenient deserialisation that lists every schema problem at once.

use std::{
    path::{Path, PathBuf},
    sync::LazyLock,
};

use crate::spec::{registry, variant_spec::VariantSpec};

/// Names of the built-in variants, in listing order (canonical names, without aliases).
pub fn builtin_names() -> impl Iterator<Item = &'static str> {
    registry::entries().iter().filter(|e| e.is_implemented()).map(|e| e.name)
}

/// The embedded file of the built-in that `name` (a canonical name or an alias) names. Used for
/// `--variant` and for `extends`, so an alias works wherever a built-in name does.
pub(crate) fn builtin_text(name: &str) -> Option<&'static str> {
    registry::find(name).and_then(|e| e.text())
}

/// Errors from loading a variant. Each names the file (or built-in) and the field at fault.
#[derive(Debug, thiserror::Error)]
pub enum VariantError {
    #[error("variant {source_name}: {message}")]
    Invalid { source_name: String, message: String },
    #[error("cannot read variant file {path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error(
        "unknown variant {0:?} (not a built-in name or alias nor an existing .toml file; `fairyzero variants` lists \
         the built-ins, `fairyzero variants --all` the whole variant list)"
    )]
    Unknown(String),
    /// A registry entry that is not implemented; the message names its list row and the reason.
    #[error("{}", registry::unsupported_message(.name, .reason))]
    Unsupported { name: String, reason: &'static str },
}

/// Every name and alias of a registry entry that is not implemented (a list row not built yet
/// or out of scope, and the dossiers' refused rule sets), with the reason: loading one of them
/// is a [`VariantError::Unsupported`], not an unknown name.
pub(crate) static UNSUPPORTED: LazyLock<Vec<(&'static str, &'static str)>> = LazyLock::new(|| {
    registry::entries()
        .iter()
        .filter_map(|e| e.reason().map(|reason| (e, reason)))
        .flat_map(|(e, reason)| std::iter::once(e.name).chain(e.aliases.iter().copied()).map(move |n| (n, reason)))
        .collect()
});

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
