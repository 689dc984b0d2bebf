//! The value-net probe on a net whose opinion is a planted material sum: it must give back the
//! planted values, for the types it removes and for the promoted type it adds.

use std::{collections::BTreeMap, time::Instant};

use fairyzero_designer::{
    load_games, probe_values, write_comparison, write_method_files, Error, Imbalance, MaterialOptions, MethodReport,
};
use fairyzero_model::backend::{Backend, BackendInfo, EvalOutput, EvalRequest};

mod common;

use common::{amazon_variant, mock_selfplay, Budget};

/// Elo per unit of planted value: small enough that no material balance of the test reaches
/// the probe's clamp of the expected score (about ±1200 Elo).
const ELO_PER_UNIT: f64 = 20.0;

/// A net whose value is exactly `ELO_PER_UNIT` times the side to move's material lead by the
/// planted values, in the probe's Elo scale: the probe's mean change per piece is then the
/// planted value itself, whichever position it comes from, and any error of sign or of side
/// shows in the result.
struct PlantedValues {
    values: BTreeMap<String, f64>,
}

impl Backend for PlantedValues {
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut EvalOutput) {
        out.clear();
        for r in batch {
            let pos = r.position;
            let v = pos.variant();
            let us = pos.side_to_move();
            let lead: f64 = pos
                .board()
                .iter()
                .flatten()
                .map(|p| {
                    let worth = self.values.get(&v.piece_def(p.kind()).token).copied().unwrap_or(0.0);
                    if p.color() == us {
                        worth
                    } else {
                        -worth
                    }
                })
                .sum();
            let score = 1.0 / (1.0 + 10f64.powf(-lead * ELO_PER_UNIT / 400.0));
            let n = r.moves.len();
            out.push_with(n, [score as f32, 0.0, (1.0 - score) as f32], |policy| policy.fill(1.0 / n.max(1) as f32));
        }
    }

    fn info(&self) -> BackendInfo {
        BackendInfo { name: "planted".into(), preferred_batch: 64 }
    }
}

#[test]
fn the_probe_recovers_planted_values_of_removed_and_added_types() {
    let t = Instant::now();
    let v = amazon_variant();
    let dir = tempfile::tempdir().unwrap();
    let games_dir = mock_selfplay(&v, dir.path(), Budget { games: 32, seed: 11, simulations: 4, move_cap: 40 });
    let games = load_games(&v, &games_dir).unwrap();

    let planted: BTreeMap<String, f64> =
        [("P", 1.0), ("N", 3.0), ("R", 5.0), ("Q", 9.0), ("A", 12.0)].map(|(p, x)| (p.to_string(), x)).into();
    let net = PlantedValues { values: planted.clone() };
    let options = MaterialOptions { positions: 300, resamples: 200, seed: 2, batch: 64, ..MaterialOptions::default() };
    let report = probe_values(&v, &net, &games, None, "P", &options).unwrap();
    eprintln!("probe {:?}\nskipped {:?}", report.rows, report.skipped);
    assert!(report.skipped.iter().all(|(p, _)| p == "K"), "{:?}", report.skipped);
    let row = |p: &str| report.rows.iter().find(|r| r.piece == p).unwrap_or_else(|| panic!("{p}: {:?}", report.rows));
    for (piece, &value) in &planted {
        let r = row(piece);
        let expected = if piece == "A" { Imbalance::Added } else { Imbalance::Removed };
        assert_eq!(r.imbalance, Some(expected), "{r:?}");
        assert!(r.samples >= 20, "{r:?}");
        assert!((r.value - value).abs() < 1e-3 * value, "{piece}: {} for {value}", r.value);
        assert!((r.raw - value * ELO_PER_UNIT).abs() < 0.05 * ELO_PER_UNIT, "{r:?}");
        assert!(r.value_ci.0 <= r.value + 1e-9 && r.value <= r.value_ci.1 + 1e-9, "{r:?}");
    }

    write_method_files(&report, dir.path()).unwrap();
    let md = std::fs::read_to_string(dir.path().join("piece-values-probe.md")).unwrap();
    assert!(md.contains("| A | one added |"), "{md}");
    assert!(md.contains("| N | one removed |"), "{md}");
    let csv = std::fs::read_to_string(dir.path().join("piece-values-probe.csv")).unwrap();
    assert!(csv.starts_with("piece,imbalance,samples,"), "{csv}");
    assert!(csv.lines().any(|l| l.starts_with("A,added,")), "{csv}");
    assert!(csv.lines().any(|l| l.starts_with("R,removed,")), "{csv}");
    write_comparison(None, &[report], dir.path()).unwrap();
    let compare = std::fs::read_to_string(dir.path().join("piece-values-compare.md")).unwrap();
    assert!(compare.contains("| A | one added | 12.00"), "{compare}");
    eprintln!("planted-values probe test: {:?}", t.elapsed());
}

/// A reference the start position lacks would have to be added, unlike the matches' reference:
/// refused with the matches' error.
#[test]
fn the_probe_refuses_a_reference_the_start_lacks() {
    let v = amazon_variant();
    let net = PlantedValues { values: BTreeMap::new() };
    let result = probe_values(&v, &net, &[], None, "A", &MaterialOptions::default());
    assert!(matches!(&result, Err(Error::ReferenceNotInStart { token }) if token == "A"), "{result:?}");
}

/// The fit makes no imbalance: its CSV column is empty and its Markdown table has none.
#[test]
fn the_fit_tables_have_no_imbalance() {
    let row = |piece: &str, value: f64| fairyzero_designer::MethodRow {
        piece: piece.into(),
        imbalance: None,
        samples: 10,
        raw: value / 10.0,
        raw_ci: (0.0, value / 5.0),
        value,
        value_ci: (value / 2.0, value * 2.0),
    };
    let report = MethodReport {
        method: "fit",
        variant: "losalamos".into(),
        source: "10 self-play games".into(),
        reference: "P".into(),
        raw_unit: "game result (+1/0/-1) per extra piece",
        rows: vec![row("P", 1.0), row("Q", 8.0)],
        skipped: vec![],
    };
    let dir = tempfile::tempdir().unwrap();
    write_method_files(&report, dir.path()).unwrap();
    let md = std::fs::read_to_string(dir.path().join("piece-values-fit.md")).unwrap();
    assert!(!md.contains("imbalance") && md.contains("| Q | 10 |"), "{md}");
    let csv = std::fs::read_to_string(dir.path().join("piece-values-fit.csv")).unwrap();
    assert!(csv.lines().any(|l| l.starts_with("Q,,10,")), "{csv}");
}
