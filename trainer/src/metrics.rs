//! What a researcher reads while and after a run: `metrics.jsonl` (one JSON object per event)
//! and TensorBoard scalars (`tensorboard/`).
//!
//! Every line has `kind` (`start`, `train`, `iteration`, `eval`, `final`), `time` (Unix
//! seconds), `elapsed_secs` and `step`. Numeric fields of `train`, `iteration` and `eval` lines
//! also go to TensorBoard as `<kind>/<field>` (nested objects flatten to `<kind>/<a>/<b>`).
//! A restarted run appends to the same file (its `start` line says `resumed_from`); lines of
//! work lost to a kill are followed by a repeat of that work, with the same steps.

use std::{
    fs::{File, OpenOptions},
    io::Write,
    path::Path,
    time::{SystemTime, UNIX_EPOCH},
};

use serde_json::{Map, Value};

use crate::tfevents::EventWriter;

/// The highest `iteration` of the `iteration` lines in `<run_dir>/metrics.jsonl` (`None`: no
/// such line, or no file). Unreadable lines are skipped, as every reader does.
pub fn last_logged_iteration(run_dir: &Path) -> Option<u64> {
    let text = std::fs::read(run_dir.join("metrics.jsonl")).ok()?;
    String::from_utf8_lossy(&text)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|v| v["kind"] == "iteration")
        .filter_map(|v| v["iteration"].as_u64())
        .max()
}

pub struct Metrics {
    file: File,
    tensorboard: Option<EventWriter>,
}

impl Metrics {
    pub fn open(run_dir: &Path, tensorboard: bool) -> std::io::Result<Metrics> {
        std::fs::create_dir_all(run_dir)?;
        let path = run_dir.join("metrics.jsonl");
        let mut file = OpenOptions::new().create(true).append(true).open(&path)?;
        // A kill in the middle of a line leaves it unterminated: end it, so that the next line
        // starts on its own (readers skip the broken one).
        let len = file.metadata()?.len();
        if len > 0 {
            let bytes = std::fs::read(&path)?;
            if bytes.last() != Some(&b'\n') {
                file.write_all(b"\n")?;
            }
        }
        let tensorboard = if tensorboard { Some(EventWriter::create(&run_dir.join("tensorboard"))?) } else { None };
        Ok(Metrics { file, tensorboard })
    }

    /// Writes one event: `fields` plus `kind`, `time`, `elapsed_secs` and `step`.
    pub fn log(&mut self, kind: &str, step: u64, elapsed_secs: f64, fields: Value) {
        let mut obj = Map::new();
        obj.insert("kind".into(), Value::from(kind));
        let time = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0);
        obj.insert("time".into(), Value::from((time * 1000.0).round() / 1000.0));
        obj.insert("elapsed_secs".into(), Value::from((elapsed_secs * 10.0).round() / 10.0));
        obj.insert("step".into(), Value::from(step));
        if let Value::Object(extra) = fields {
            obj.extend(extra);
        }
        let line = Value::Object(obj);
        if let Err(e) = writeln!(self.file, "{line}").and_then(|_| self.file.flush()) {
            tracing::warn!("cannot write metrics.jsonl: {e}");
        }
        if let Some(tb) = self.tensorboard.as_mut() {
            if matches!(kind, "train" | "iteration" | "eval" | "final") {
                let mut scalars = Vec::new();
                flatten(kind, &line, &mut scalars);
                let skip = ["time", "step"];
                let named: Vec<(&str, f32)> = scalars
                    .iter()
                    .filter(|(k, _)| !skip.iter().any(|s| k.ends_with(&format!("/{s}"))))
                    .map(|(k, v)| (k.as_str(), *v))
                    .collect();
                if let Err(e) = tb.scalars(step, &named) {
                    tracing::warn!("cannot write TensorBoard events: {e}");
                }
            }
        }
    }
}

/// Numeric leaves of `value` as `(prefix/key/…, value)`.
pub fn flatten(prefix: &str, value: &Value, out: &mut Vec<(String, f32)>) {
    match value {
        Value::Number(n) => {
            if let Some(x) = n.as_f64() {
                out.push((prefix.to_string(), x as f32));
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                if k == "kind" {
                    continue;
                }
                flatten(&format!("{prefix}/{k}"), v, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_scalars() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = Metrics::open(dir.path(), true).unwrap();
        m.log("train", 10, 1.0, serde_json::json!({"loss": {"total": 2.5, "policy": 2.0}, "lr": 0.001, "note": "x"}));
        m.log("start", 0, 0.0, serde_json::json!({"resumed_from": null}));
        let text = std::fs::read_to_string(dir.path().join("metrics.jsonl")).unwrap();
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["kind"], "train");
        assert_eq!(lines[0]["loss"]["total"], 2.5);
        let tb: Vec<_> = std::fs::read_dir(dir.path().join("tensorboard")).unwrap().collect();
        assert_eq!(tb.len(), 1);
        let mut flat = Vec::new();
        flatten("train", &lines[0], &mut flat);
        assert!(flat.iter().any(|(k, v)| k == "train/loss/total" && *v == 2.5));
    }
}
