//! TensorBoard event files, written by hand: a TFRecord stream of `Event` protocol buffers with
//! scalar summaries. About a hundred lines instead of an unmaintained dependency tree.
//!
//! A TFRecord is `u64 length | u32 masked CRC-32C of the length | data | u32 masked CRC-32C of
//! the data` (little-endian). Each record holds an `Event` message (tensorflow
//! `core/util/event.proto`): `wall_time` (field 1, double), `step` (2, int64) and either
//! `file_version` (3, string; the first record, "brain.Event:2") or `summary` (5, message) with
//! repeated `Summary.Value` (1) of `tag` (1, string) and `simple_value` (2, float).

use std::{
    fs::File,
    io::{BufWriter, Write},
    path::{Path, PathBuf},
    time::{SystemTime, UNIX_EPOCH},
};

/// CRC-32C (Castagnoli), bitwise table-driven.
pub fn crc32c(data: &[u8]) -> u32 {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [0u32; 256];
        for (i, e) in t.iter_mut().enumerate() {
            let mut c = i as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 { 0x82F6_3B78 ^ (c >> 1) } else { c >> 1 };
            }
            *e = c;
        }
        t
    });
    let mut crc = !0u32;
    for &b in data {
        crc = table[((crc ^ b as u32) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
}

fn masked_crc(data: &[u8]) -> u32 {
    let crc = crc32c(data);
    (crc.rotate_right(15)).wrapping_add(0xa282_ead8)
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn key(out: &mut Vec<u8>, field: u32, wire: u8) {
    varint(out, ((field as u64) << 3) | wire as u64);
}

fn bytes_field(out: &mut Vec<u8>, field: u32, bytes: &[u8]) {
    key(out, field, 2);
    varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// An `Event` with the given wall time, step and payload (`file_version` or scalars).
pub fn encode_event(wall_time: f64, step: i64, file_version: Option<&str>, scalars: &[(&str, f32)]) -> Vec<u8> {
    let mut e = Vec::new();
    key(&mut e, 1, 1);
    e.extend_from_slice(&wall_time.to_le_bytes());
    key(&mut e, 2, 0);
    varint(&mut e, step as u64);
    if let Some(v) = file_version {
        bytes_field(&mut e, 3, v.as_bytes());
    }
    if !scalars.is_empty() {
        let mut summary = Vec::new();
        for (tag, value) in scalars {
            let mut v = Vec::new();
            bytes_field(&mut v, 1, tag.as_bytes());
            key(&mut v, 2, 5);
            v.extend_from_slice(&value.to_le_bytes());
            bytes_field(&mut summary, 1, &v);
        }
        bytes_field(&mut e, 5, &summary);
    }
    e
}

/// One TFRecord around `data`.
pub fn encode_record(data: &[u8]) -> Vec<u8> {
    let len = (data.len() as u64).to_le_bytes();
    let mut out = Vec::with_capacity(data.len() + 16);
    out.extend_from_slice(&len);
    out.extend_from_slice(&masked_crc(&len).to_le_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(&masked_crc(data).to_le_bytes());
    out
}

/// Appends scalar events to `events.out.tfevents.<secs>.<host>.<pid>` in a directory.
pub struct EventWriter {
    file: BufWriter<File>,
    path: PathBuf,
}

fn now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}

impl EventWriter {
    pub fn create(dir: &Path) -> std::io::Result<EventWriter> {
        std::fs::create_dir_all(dir)?;
        let host = std::fs::read_to_string("/etc/hostname")
            .map(|h| h.trim().to_string())
            .unwrap_or_else(|_| "localhost".into());
        let path = dir.join(format!("events.out.tfevents.{}.{host}.{}", now() as u64, std::process::id()));
        let mut w = EventWriter { file: BufWriter::new(File::create(&path)?), path };
        w.write_event(&encode_event(now(), 0, Some("brain.Event:2"), &[]))?;
        w.file.flush()?;
        Ok(w)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write_event(&mut self, event: &[u8]) -> std::io::Result<()> {
        self.file.write_all(&encode_record(event))
    }

    /// Writes scalars at `step` and flushes, so TensorBoard sees them at once.
    pub fn scalars(&mut self, step: u64, values: &[(&str, f32)]) -> std::io::Result<()> {
        let finite: Vec<(&str, f32)> = values.iter().copied().filter(|(_, v)| v.is_finite()).collect();
        if finite.is_empty() {
            return Ok(());
        }
        self.write_event(&encode_event(now(), step as i64, None, &finite))?;
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_check_value() {
        // The standard check value of CRC-32C.
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    }

    #[test]
    fn event_bytes_are_pinned() {
        let e = encode_event(1.5, 7, None, &[("loss", 0.25)]);
        // wall_time (1, fixed64) = 1.5, step (2, varint) = 7, summary (5) { value (1) { tag "loss", simple_value 0.25 } }
        let mut expected = vec![0x09];
        expected.extend_from_slice(&1.5f64.to_le_bytes());
        expected.extend_from_slice(&[0x10, 7, 0x2a, 13, 0x0a, 11, 0x0a, 4, b'l', b'o', b's', b's', 0x15]);
        expected.extend_from_slice(&0.25f32.to_le_bytes());
        assert_eq!(e, expected);
        let r = encode_record(&e);
        assert_eq!(r.len(), e.len() + 16);
        assert_eq!(&r[..8], &(e.len() as u64).to_le_bytes());
    }

    #[test]
    fn writes_a_readable_stream() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = EventWriter::create(dir.path()).unwrap();
        w.scalars(3, &[("a/b", 1.0), ("nan", f32::NAN)]).unwrap();
        let bytes = std::fs::read(w.path()).unwrap();
        // Two records; each length's CRC checks.
        let mut at = 0;
        let mut n = 0;
        while at < bytes.len() {
            let len = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
            let crc = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap());
            assert_eq!(crc, masked_crc(&bytes[at..at + 8]));
            let data = &bytes[at + 12..at + 12 + len];
            let dcrc = u32::from_le_bytes(bytes[at + 12 + len..at + 16 + len].try_into().unwrap());
            assert_eq!(dcrc, masked_crc(data));
            at += 16 + len;
            n += 1;
        }
        assert_eq!(n, 2);
    }
}
