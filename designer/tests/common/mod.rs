//! What the designer's integration tests share: the Amazon test variant and self-play records
//! of the material-valuing mock net.

use std::{
    path::{Path, PathBuf},
    sync::{atomic::AtomicBool, Arc},
};

use fairyzero_model::MockBackend;
use fairyzero_rules::Variant;
use fairyzero_selfplay::{run_selfplay, RunOptions, SelfPlayConfig};

/// Los Alamos (6x6, no bishops) whose pawns may also promote to an Amazon (QN), a type the
/// start position lacks.
pub const AMAZON_TOML: &str = r#"
name = "losalamos-amazon"
extends = "losalamos"
[[piece]]
token = "P"
promotes_to = ["Q", "R", "N", "A"]
[[piece]]
name = "amazon"
token = "A"
betza = "QN"
"#;

/// [`AMAZON_TOML`], loaded.
pub fn amazon_variant() -> Arc<Variant> {
    Variant::from_toml("losalamos-amazon.toml", AMAZON_TOML, None).unwrap()
}

/// The budget of [`mock_selfplay`]: small enough for a test, seeded.
pub struct Budget {
    pub games: u64,
    pub seed: u64,
    pub simulations: u32,
    pub move_cap: u32,
}

/// Plays `budget.games` self-play games of `MockBackend::material()` (16 at a time, from the
/// default setup) and writes their records under `dir/games`, which it returns.
pub fn mock_selfplay(v: &Arc<Variant>, dir: &Path, budget: Budget) -> PathBuf {
    let games_dir = dir.join("games");
    let config = SelfPlayConfig {
        simulations: budget.simulations,
        games_in_parallel: 16,
        move_cap: Some(budget.move_cap),
        setup: "default".to_string().into(),
        ..SelfPlayConfig::default()
    };
    let run = RunOptions {
        games: budget.games,
        seed: budget.seed,
        net: "mock".into(),
        out_dir: Some(games_dir.clone()),
        progress: false,
    };
    run_selfplay(v, &config, &MockBackend::material(), &run, &AtomicBool::new(false), |_| {}).unwrap();
    games_dir
}
