//! The network on CPU: shapes on every board size, batch independence, checkpoints (round
//! trip, refusals, transfer), the optimizer's saved state, the inference thread, a golden-output
//! canary, and a tiny net overfitting a fixed batch.

// Positions from seeded random play: the model crate's test helper, shared rather than copied.
#[path = "../../model/tests/common/mod.rs"]
mod common;
mod support;

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use fairyzero_model::{
    identity::PieceMatch, Backend, CachedBackend, EncodedBatch, EvalOutput, EvalRequest, Evaluation, NetConfig,
    StandardEncoding,
};
use fairyzero_rules::{MoveList, Position, Variant};
use fairyzero_torch::{
    checkpoint::{self, CheckpointError},
    net::{loss, probabilities, Targets},
    optim::{AdamW, AdamWConfig},
    ExecutorOptions, Net, NetInput,
};
use tch::{Device, Kind};

const CPU: Device = Device::Cpu;

/// One libtorch thread per test: the harness runs tests in parallel, and OpenMP's spinning
/// threads slow down by 10x or more on an oversubscribed machine.
fn one_thread() {
    fairyzero_torch::set_threads(1);
}

/// One batch through `backend`, as owned evaluations.
fn evaluate(backend: &dyn Backend, batch: &[EvalRequest<'_>]) -> Vec<Evaluation> {
    let mut out = EvalOutput::new();
    backend.evaluate(batch, &mut out);
    out.to_vec()
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fairyzero-torch-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn encode(variant: &Arc<Variant>, positions: &[Position]) -> (EncodedBatch, Vec<MoveList>) {
    let enc = StandardEncoding::new(Arc::clone(variant));
    let moves: Vec<MoveList> = positions.iter().map(common::legal).collect();
    let batch = enc.encode_batch(positions.iter().zip(&moves).map(|(p, m)| (p, m.as_slice())));
    (batch, moves)
}

fn forward(net: &Net, batch: &EncodedBatch) -> (Vec<Vec<f32>>, Vec<[f32; 3]>) {
    tch::no_grad(|| {
        let input = NetInput::new(batch, net.device());
        let out = net.forward(&input);
        probabilities(&out, &input.offsets)
    })
}

fn raw_logits(net: &Net, batch: &EncodedBatch) -> (Vec<f32>, Vec<f32>) {
    tch::no_grad(|| {
        let input = NetInput::new(batch, net.device());
        let out = net.forward(&input);
        (Vec::<f32>::try_from(&out.move_logits).unwrap(), Vec::<f32>::try_from(out.wdl_logits.reshape([-1])).unwrap())
    })
}

/// Residual scales start at 0 (SkipInit); give them a value so that tests exercise the tower.
fn wake_up(net: &Net) {
    tch::no_grad(|| {
        for (name, mut t) in net.var_store().variables() {
            if name.ends_with(".scale") {
                let _ = t.fill_(0.5);
            }
        }
    });
}

#[test]
fn shapes_on_every_board_size() {
    one_thread();
    tch::manual_seed(1);
    let mut variants: Vec<Arc<Variant>> =
        ["gardner", "chess", "capablanca", "grand", "scirocco"].iter().map(|n| Variant::load(n).unwrap()).collect();
    for synthetic in ["synthetic:12x12:75", "synthetic:16x16:120", "synthetic:18x18:200"] {
        variants.push(Variant::load(synthetic).unwrap_or_else(|e| panic!("{e}")));
    }
    let config = NetConfig::tiny();
    for v in &variants {
        let net = Net::new(&config, Arc::clone(v), CPU);
        wake_up(&net);
        let positions = common::random_positions(v, 2, 6, 3);
        let (batch, moves) = encode(v, &positions);
        let input = NetInput::new(&batch, CPU);
        let out = tch::no_grad(|| net.forward(&input));
        let total: usize = moves.iter().map(|m| m.len()).sum();
        assert_eq!(out.move_logits.size(), vec![total as i64], "{}", v.name);
        assert_eq!(out.wdl_logits.size(), vec![positions.len() as i64, 3], "{}", v.name);
        let (policies, wdl) = probabilities(&out, &input.offsets);
        for ((p, m), w) in policies.iter().zip(&moves).zip(&wdl) {
            assert_eq!(p.len(), m.len());
            assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-4, "{}: policy sums to {}", v.name, p.iter().sum::<f32>());
            assert!(p.iter().chain(w).all(|x| x.is_finite() && *x >= 0.0));
            assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        }
    }
}

#[test]
fn a_position_gets_the_same_output_alone_and_in_a_batch() {
    one_thread();
    tch::manual_seed(2);
    let v = Variant::load("scirocco").unwrap();
    let net = Net::new(&NetConfig::tiny(), Arc::clone(&v), CPU);
    wake_up(&net);
    let positions = common::random_positions(&v, 2, 10, 5);
    let (batch, _) = encode(&v, &positions);
    let (all_p, all_w) = forward(&net, &batch);
    for (i, pos) in positions.iter().enumerate().step_by(3) {
        let (single, _) = encode(&v, std::slice::from_ref(pos));
        let (p, w) = forward(&net, &single);
        // Float noise only: a batch may take other CPU kernels than a single position (a bound
        // of 1e-5 failed once in about 25 runs); a leak between positions would be far larger.
        for (a, b) in p[0].iter().zip(&all_p[i]) {
            assert!((a - b).abs() < 1e-4, "position {i}: policy {a} alone, {b} in the batch");
        }
        for (a, b) in w[0].iter().zip(&all_w[i]) {
            assert!((a - b).abs() < 1e-4, "position {i}: value {a} alone, {b} in the batch");
        }
    }
}

#[test]
fn save_load_gives_identical_outputs() {
    one_thread();
    tch::manual_seed(3);
    let v = Variant::load("scirocco").unwrap();
    let net = Net::new(&NetConfig::tiny(), Arc::clone(&v), CPU);
    wake_up(&net);
    let dir = scratch_dir("roundtrip");
    let header = checkpoint::save(&net, &dir, 1234, None).unwrap();
    assert_eq!(header.training_step, 1234);
    assert!(dir.join("weights.safetensors").exists() && dir.join("header.json").exists());

    let loaded = checkpoint::load(&dir, Arc::clone(&v), Some(&NetConfig::tiny()), CPU, false).unwrap();
    assert_eq!(loaded.header, header);
    assert!(loaded.transfer.is_none());
    let positions = common::random_positions(&v, 2, 8, 11);
    let (batch, _) = encode(&v, &positions);
    assert_eq!(raw_logits(&net, &batch), raw_logits(&loaded.net, &batch), "bit-identical after a round trip");
    // `None` takes the architecture from the header.
    assert!(checkpoint::load(&dir, Arc::clone(&v), None, CPU, false).is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn loading_into_the_wrong_variant_or_architecture_is_refused() {
    one_thread();
    let v = Variant::load("scirocco").unwrap();
    let net = Net::new(&NetConfig::tiny(), Arc::clone(&v), CPU);
    let dir = scratch_dir("refuse");
    checkpoint::save(&net, &dir, 0, None).unwrap();

    let chess = Variant::load("chess").unwrap();
    let err = checkpoint::load(&dir, chess, None, CPU, false).err().expect("another variant is refused");
    assert!(matches!(err, CheckpointError::WrongVariant { .. }));
    let text = err.to_string();
    assert!(text.contains("`scirocco`") && text.contains("`chess`") && text.contains("--transfer"), "{text}");

    // Same name, edited rules: refused too, saying that the rules changed.
    let edited = scirocco_with_longer_move_cap();
    let text = checkpoint::load(&dir, edited, None, CPU, false).err().unwrap().to_string();
    assert!(text.contains("rules changed") && text.contains("--transfer"), "{text}");

    let err = checkpoint::load(&dir, Arc::clone(&v), Some(&NetConfig::small()), CPU, false).err().unwrap();
    assert!(matches!(err, CheckpointError::WrongArchitecture { .. }));
    assert!(err.to_string().contains("is a 4x32 (") && err.to_string().contains("not the 6x64 ("), "{err}");

    // A missing checkpoint names the file.
    let err = checkpoint::load(&dir.join("nope"), v, None, CPU, false).err().unwrap();
    assert!(err.to_string().contains("header.json"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn scirocco_with_longer_move_cap() -> Arc<Variant> {
    Variant::from_toml("edited", "extends = \"scirocco\"\nname = \"scirocco\"\nmove_cap = 700\n", None).unwrap()
}

fn embedding_row(net: &Net, name: &str, row: i64) -> Vec<f32> {
    let t = net.var_store().variables()[name].get(row);
    Vec::<f32>::try_from(&t).unwrap()
}

#[test]
fn transfer_maps_weights_by_name_and_pieces_by_identity() {
    one_thread();
    tch::manual_seed(4);
    let chess = Variant::load("chess").unwrap();
    let net = Net::new(&NetConfig::tiny(), Arc::clone(&chess), CPU);
    let dir = scratch_dir("transfer");
    checkpoint::save(&net, &dir, 77, None).unwrap();

    // Capablanca adds the archbishop and chancellor; its other pieces are chess's.
    let capa = Variant::load("capablanca").unwrap();
    let loaded = checkpoint::load(&dir, Arc::clone(&capa), None, CPU, true).unwrap();
    let report = loaded.transfer.expect("a transfer report");
    assert!(report.missing.is_empty() && report.unused.is_empty(), "{report:?}");
    let matched: Vec<_> = report.pieces.iter().filter(|p| p.1.is_some()).collect();
    assert_eq!(matched.len(), 6, "{report}");
    for (name, m) in &report.pieces {
        if let Some((old, how)) = m {
            assert_eq!(name, old);
            assert_eq!(*how, PieceMatch::Exact);
        }
    }
    let knight = |v: &Variant| v.piece_by_token("N").unwrap().index() as i64;
    let table = "input.piece_embedding.weight";
    assert_eq!(
        embedding_row(&net, table, 1 + 2 * knight(&chess)),
        embedding_row(&loaded.net, table, 1 + 2 * knight(&capa))
    );
    assert_eq!(
        embedding_row(&net, table, 2 + 2 * knight(&chess)),
        embedding_row(&loaded.net, table, 2 + 2 * knight(&capa))
    );
    let movers = "policy.mover_embedding.weight";
    assert_eq!(embedding_row(&net, movers, 1 + knight(&chess)), embedding_row(&loaded.net, movers, 1 + knight(&capa)));
    // Tower weights are copied whole.
    let w = "trunk.block1.conv1.weight";
    assert!(net.var_store().variables()[w].equal(&loaded.net.var_store().variables()[w]));

    // Typhoon from Scirocco: the pieces they share keep their embeddings.
    let sci = Variant::load("scirocco").unwrap();
    let sci_dir = scratch_dir("transfer-scirocco");
    checkpoint::save(&Net::new(&NetConfig::tiny(), Arc::clone(&sci), CPU), &sci_dir, 1, None).unwrap();
    let typhoon = Variant::load("typhoon").unwrap();
    let err = checkpoint::load(&sci_dir, Arc::clone(&typhoon), None, CPU, false).err().unwrap();
    assert!(matches!(err, CheckpointError::WrongVariant { .. }));
    let warm = checkpoint::load(&sci_dir, Arc::clone(&typhoon), None, CPU, true).unwrap();
    let r = warm.transfer.unwrap();
    let shared = r.pieces.iter().filter(|p| p.1.is_some()).count();
    println!("typhoon from scirocco: {r}");
    for (name, m) in &r.pieces {
        println!("  {name}: {m:?}");
    }
    assert!(shared >= 10, "{r}");
    std::fs::remove_dir_all(&sci_dir).unwrap();

    // Another architecture: matching names with other shapes stay fresh.
    let wider = checkpoint::load(&dir, Arc::clone(&capa), Some(&NetConfig::tower(5, 48)), CPU, true).unwrap();
    let r = wider.transfer.unwrap();
    assert!(!r.mismatched.is_empty() && r.missing.iter().any(|n| n.starts_with("trunk.block4")), "{r:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn optimizer_state_round_trips_and_resumes_exactly() {
    one_thread();
    tch::manual_seed(5);
    let v = Variant::load("chess").unwrap();
    let positions = common::random_positions(&v, 2, 6, 13);
    let (batch, moves) = encode(&v, &positions);
    let policy: Vec<Vec<(u32, f32)>> = moves.iter().map(|m| vec![(0, 0.5), ((m.len() - 1) as u32, 0.5)]).collect();
    let wdl = vec![[0.2, 0.5, 0.3]; positions.len()];
    let train = |net: &Net, opt: &mut AdamW, steps: usize| {
        for _ in 0..steps {
            let input = NetInput::new(&batch, CPU);
            let targets = Targets::new(&batch, &policy, &wdl, CPU);
            let l = loss(&net.forward(&input), &input, &targets, 1.0);
            opt.zero_grad();
            l.total.backward();
            opt.clip_grad_norm(10.0);
            opt.step();
        }
    };
    let net = Net::new(&NetConfig::tiny(), Arc::clone(&v), CPU);
    let mut opt = AdamW::new(&net, AdamWConfig::default());
    train(&net, &mut opt, 3);
    let dir = scratch_dir("optim");
    let header = checkpoint::save(&net, &dir, opt.step_count(), Some(&opt)).unwrap();
    assert_eq!(header.optimizer.as_ref().unwrap().step, 3);
    train(&net, &mut opt, 2);

    let resumed = checkpoint::load(&dir, Arc::clone(&v), None, CPU, false).unwrap();
    let mut opt2 = AdamW::new(&resumed.net, AdamWConfig { learning_rate: 0.5, ..AdamWConfig::default() });
    let restored = opt2.load(&dir, resumed.header.optimizer.as_ref().unwrap()).unwrap();
    assert_eq!(restored.len(), resumed.net.var_store().trainable_variables().len());
    assert_eq!(opt2.step_count(), 3);
    assert_eq!(opt2.config, AdamWConfig::default());
    train(&resumed.net, &mut opt2, 2);
    let (a, b) = (raw_logits(&net, &batch), raw_logits(&resumed.net, &batch));
    for (x, y) in a.0.iter().zip(&b.0) {
        assert!((x - y).abs() < 1e-5, "resumed training diverged: {x} vs {y}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_tiny_net_overfits_a_fixed_batch() {
    one_thread();
    tch::manual_seed(6);
    let v = Variant::load("scirocco").unwrap();
    let positions = common::random_positions(&v, 4, 16, 17);
    let positions: Vec<Position> = positions.into_iter().take(32).collect();
    let (batch, moves) = encode(&v, &positions);
    // One-hot targets (reachable loss 0): a fixed move per position and a fixed result.
    let policy: Vec<Vec<(u32, f32)>> =
        moves.iter().enumerate().map(|(i, m)| vec![((i * 7 % m.len()) as u32, 1.0)]).collect();
    let wdl: Vec<[f32; 3]> =
        (0..positions.len()).map(|i| [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]][i % 3]).collect();
    let net = Net::new(&NetConfig::tiny(), Arc::clone(&v), CPU);
    let mut opt = AdamW::new(&net, AdamWConfig { learning_rate: 3e-3, weight_decay: 0.0, ..AdamWConfig::default() });
    let input = NetInput::new(&batch, CPU);
    let targets = Targets::new(&batch, &policy, &wdl, CPU);
    let mut first = None;
    let mut last = 0.0;
    for step in 0..300 {
        let l = loss(&net.forward(&input), &input, &targets, 1.0);
        last = f64::try_from(&l.total).unwrap();
        first.get_or_insert(last);
        if last < 0.05 * first.unwrap() {
            println!("converged after {step} steps");
            break;
        }
        opt.zero_grad();
        l.total.backward();
        opt.step();
    }
    let first = first.unwrap();
    println!("loss {first:.3} -> {last:.4}");
    assert!(last < 0.1 * first, "loss only went from {first} to {last}");
}

#[test]
fn the_inference_thread_serves_concurrent_searches() {
    one_thread();
    tch::manual_seed(7);
    let v = Variant::load("scirocco").unwrap();
    let net = Net::new(&NetConfig::tiny(), Arc::clone(&v), CPU);
    wake_up(&net);
    let positions = common::random_positions(&v, 2, 24, 19);
    let (batch, moves) = encode(&v, &positions);
    let (want_p, want_w) = forward(&net, &batch);

    let config = fairyzero_model::service::ServiceConfig {
        max_batch: 16,
        max_wait: std::time::Duration::from_millis(2),
        ..Default::default()
    };
    let eval = fairyzero_torch::serve(net, config, ExecutorOptions { threads: Some(1), ..ExecutorOptions::default() });
    assert_eq!(eval.info().preferred_batch, 16);
    let requests: Vec<EvalRequest<'_>> =
        positions.iter().zip(&moves).map(|(p, m)| EvalRequest { position: p, moves: m }).collect();
    std::thread::scope(|s| {
        for t in 0..4 {
            let (eval, requests, want_p, want_w) = (&eval, &requests, &want_p, &want_w);
            s.spawn(move || {
                for round in 0..5 {
                    // Each thread asks for a different slice, sometimes one position, sometimes many.
                    let start = (t * 7 + round * 3) % requests.len();
                    let len = 1 + (t + round) % 9;
                    let idx: Vec<usize> = (start..start + len).map(|i| i % requests.len()).collect();
                    let batch: Vec<EvalRequest<'_>> = idx.iter().map(|&i| requests[i]).collect();
                    let got = evaluate(eval, &batch);
                    assert_eq!(got.len(), batch.len());
                    for (e, &i) in got.iter().zip(&idx) {
                        for (a, b) in e.policy.iter().zip(&want_p[i]) {
                            assert!((a - b).abs() < 1e-5);
                        }
                        for (a, b) in e.wdl.iter().zip(&want_w[i]) {
                            assert!((a - b).abs() < 1e-5);
                        }
                    }
                }
            });
        }
    });
    // A big request is split into max_batch chunks.
    let all = evaluate(&eval, &requests);
    assert_eq!(all.len(), requests.len());
    let stats = eval.stats();
    assert!(stats.forwards >= requests.len().div_ceil(16) as u64 && stats.positions > 0, "{stats:?}");
    assert!(evaluate(&eval, &[]).is_empty());

    // The cache wrapper in front of it.
    let cached = CachedBackend::new(eval, 1000);
    let again = evaluate(&cached, &requests[..4]);
    let hit = evaluate(&cached, &requests[..4]);
    assert_eq!(again, hit);
    assert_eq!(cached.stats(), (4, 4));
}

#[test]
fn checkpoint_header_schema_is_pinned() {
    one_thread();
    let v = Variant::load("chess").unwrap();
    let net = Net::new(&NetConfig::tiny(), Arc::clone(&v), CPU);
    let dir = scratch_dir("schema");
    checkpoint::save(&net, &dir, 5, None).unwrap();
    let text = std::fs::read_to_string(dir.join("header.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let keys = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>().join(",");
    assert_eq!(
        keys(&json),
        "architecture,created_by,encoding_version,format_version,optimizer,training_step,variant,weights"
    );
    assert_eq!(keys(&json["variant"]), "hash,height,name,pieces,width");
    assert_eq!(
        keys(&json["architecture"]),
        "blocks,channels,global_pool_every,piece_embedding,policy_channels,policy_dim,value_channels,value_hidden"
    );
    assert_eq!(keys(&json["variant"]["pieces"][0]), "definition,name,token");
    assert_eq!(json["format_version"], 1);
    assert_eq!(json["encoding_version"], fairyzero_model::encoding::ENCODING_VERSION);
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------------------------
// Golden outputs: a canary for any change to the encoding or the forward pass.
// ---------------------------------------------------------------------------------------------

fn golden_lines() -> Vec<String> {
    let mut lines = Vec::new();
    for (name, plies) in [("chess", "e2e4 e7e5 g1f3"), ("scirocco", "a3a4 a8a7")] {
        let v = Variant::load(name).unwrap();
        let net = Net::new(&NetConfig::tiny(), Arc::clone(&v), CPU);
        support::deterministic_weights(&net);
        let mut pos = Position::start(Arc::clone(&v));
        let mut positions = vec![pos.clone()];
        for m in plies.split_whitespace() {
            pos.play_moves(m).unwrap();
            positions.push(pos.clone());
        }
        let (batch, moves) = encode(&v, &positions);
        let (policies, wdl) = forward(&net, &batch);
        for (i, p) in positions.iter().enumerate() {
            let top: Vec<String> = moves[i]
                .iter()
                .zip(&policies[i])
                .take(6)
                .map(|(m, x)| format!("{}={x:.5}", p.move_to_string(m)))
                .collect();
            lines.push(format!(
                "{name} ply {i}: wdl {:.5} {:.5} {:.5} | {}",
                wdl[i][0],
                wdl[i][1],
                wdl[i][2],
                top.join(" ")
            ));
        }
    }
    lines
}

#[test]
fn golden_outputs_of_a_deterministic_tiny_net() {
    one_thread();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden-tiny.txt");
    let got = golden_lines();
    if std::env::var_os("FAIRYZERO_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, got.join("\n") + "\n").unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).expect("tests/data/golden-tiny.txt (FAIRYZERO_BLESS=1 writes it)");
    let parse = |line: &str| -> Vec<f64> { line.split([' ', '=']).filter_map(|w| w.parse::<f64>().ok()).collect() };
    for (g, w) in got.iter().zip(want.lines()) {
        let (a, b) = (parse(g), parse(w));
        let close = a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 2e-4);
        assert!(
            close,
            "golden output changed (an encoding or network change must bump ENCODING_VERSION / the format and re-bless with FAIRYZERO_BLESS=1):\n got: {g}\nwant: {w}"
        );
    }
    assert_eq!(got.len(), want.lines().count());
}

#[test]
fn parameter_counts_by_size() {
    one_thread();
    let v = Variant::load("scirocco").unwrap();
    for (config, lo, hi) in [(NetConfig::tiny(), 40_000, 200_000), (NetConfig::base(), 2_500_000, 4_500_000)] {
        let n = Net::new(&config, Arc::clone(&v), CPU).parameter_count();
        assert!((lo..hi).contains(&n), "{config}: {n} parameters");
    }
    let _ = Kind::Float;
}
