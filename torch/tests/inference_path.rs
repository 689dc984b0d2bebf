//! The executor's input path on CPU: `HostTensors` packs every column as the straightforward
//! `i64` re-pack does (checked field by field on variants with aux squares, extra captures and
//! doubled turns), the narrow `i32` index columns give the same logits and the same gradients
//! as `i64` ones, reused buffers forget the previous batch, and `DeviceStaging` on the CPU is
//! the packed batch itself. The CUDA checks (page-locked, non-blocking copies) are ignored
//! without a GPU: `cargo test -p fairyzero-torch --test inference_path -- --ignored` on one.

#[path = "../../model/tests/common/mod.rs"]
mod common;

use std::sync::Arc;

use fairyzero_model::{
    encoding::{CAPTURE_COUNT_SLOTS, NO_SQUARE, SECOND_ACTION_KIND_SLOT},
    EncodedBatch, NetConfig, Precision, StandardEncoding,
};
use fairyzero_rules::{MoveList, Position, Variant};
use fairyzero_torch::{
    executor::{device_probabilities, DeviceStaging},
    net::{loss, Targets},
    HostTensors, Net, NetInput,
};
use tch::{Device, Kind, Tensor};

const CPU: Device = Device::Cpu;

fn batch_of(variant: &Arc<Variant>, games: usize, plies: usize, seed: u64) -> EncodedBatch {
    let positions = common::random_positions(variant, games, plies, seed);
    let moves: Vec<MoveList> = positions.iter().map(common::legal).collect();
    StandardEncoding::new(Arc::clone(variant))
        .encode_batch(positions.iter().zip(&moves).map(|(p, m)| (p, m.as_slice())))
}

/// A net whose residual scales are woken, so that the tower matters.
fn net(variant: &Arc<Variant>) -> Net {
    let net = Net::seeded(&NetConfig::tiny(), Arc::clone(variant), CPU, 3);
    tch::no_grad(|| {
        for (name, mut t) in net.var_store().variables() {
            if name.ends_with(".scale") {
                let _ = t.fill_(0.5);
            }
        }
    });
    net
}

/// The columns as the pre-staging code built them: `i64`, one `Vec` per column, straight from
/// the move features.
fn reference_input(batch: &EncodedBatch) -> NetInput {
    let n = batch.squares() as i64;
    let (b, h, w) = (batch.len() as i64, batch.height() as i64, batch.width() as i64);
    let mut cols: [Vec<i64>; 7] = Default::default();
    let (mut aux, mut caps): ([Vec<i64>; 2], [Vec<i64>; 2]) = Default::default();
    let mut second: [Vec<i64>; 5] = Default::default();
    let mut m = 0i64;
    for i in 0..batch.len() {
        let base = i as i64 * n;
        for f in batch.moves_of(i) {
            let values = [
                base + f.from as i64,
                base + f.to as i64,
                f.kind as i64,
                f.mover as i64,
                f.piece as i64,
                (f.n_captures as i64).min(CAPTURE_COUNT_SLOTS as i64 - 1),
                i as i64,
            ];
            for (c, v) in cols.iter_mut().zip(values) {
                c.push(v);
            }
            let pair = |to: &mut [Vec<i64>; 2], sq: u16| {
                to[0].push(m);
                to[1].push(base + sq as i64);
            };
            if f.aux != NO_SQUARE {
                pair(&mut aux, f.aux);
            }
            for &c in f.captures() {
                pair(&mut caps, c);
            }
            if let Some(a) = &f.second {
                let row = (SECOND_ACTION_KIND_SLOT + a.kind as usize) as i64;
                for (c, v) in second.iter_mut().zip([m, base + a.from as i64, base + a.to as i64, row, a.piece as i64])
                {
                    c.push(v);
                }
                if a.aux != NO_SQUARE {
                    pair(&mut aux, a.aux);
                }
                for &c in a.captures() {
                    pair(&mut caps, c);
                }
            }
            m += 1;
        }
    }
    let (pieces, planes, global) = batch.raw();
    let t = |v: &[i64]| Tensor::from_slice(v);
    NetInput {
        batch: b,
        height: h,
        width: w,
        pieces: t(pieces).view([b, h, w]),
        planes: Tensor::from_slice(planes).view([b, -1, h, w]),
        global: Tensor::from_slice(global).view([b, -1]),
        move_from: t(&cols[0]),
        move_to: t(&cols[1]),
        move_kind: t(&cols[2]),
        move_mover: t(&cols[3]),
        move_piece: t(&cols[4]),
        move_n_captures: t(&cols[5]),
        move_batch: t(&cols[6]),
        aux_move: t(&aux[0]),
        aux_square: t(&aux[1]),
        capture_move: t(&caps[0]),
        capture_square: t(&caps[1]),
        second_move: t(&second[0]),
        second_from: t(&second[1]),
        second_to: t(&second[2]),
        second_kind: t(&second[3]),
        second_piece: t(&second[4]),
        offsets: batch.offsets().to_vec(),
    }
}

/// Every tensor of an input, named, in a fixed order.
fn fields(input: &NetInput) -> Vec<(&'static str, &Tensor)> {
    vec![
        ("pieces", &input.pieces),
        ("planes", &input.planes),
        ("global", &input.global),
        ("move_from", &input.move_from),
        ("move_to", &input.move_to),
        ("move_kind", &input.move_kind),
        ("move_mover", &input.move_mover),
        ("move_piece", &input.move_piece),
        ("move_n_captures", &input.move_n_captures),
        ("move_batch", &input.move_batch),
        ("aux_move", &input.aux_move),
        ("aux_square", &input.aux_square),
        ("capture_move", &input.capture_move),
        ("capture_square", &input.capture_square),
        ("second_move", &input.second_move),
        ("second_from", &input.second_from),
        ("second_to", &input.second_to),
        ("second_kind", &input.second_kind),
        ("second_piece", &input.second_piece),
    ]
}

fn assert_same_input(got: &NetInput, want: &NetInput, what: &str) {
    assert_eq!((got.batch, got.height, got.width), (want.batch, want.height, want.width), "{what}");
    assert_eq!(got.offsets, want.offsets, "{what}: offsets");
    for ((name, g), (_, w)) in fields(got).into_iter().zip(fields(want)) {
        assert_eq!(g.size(), w.size(), "{what}: {name} shape");
        let g = g.to_device(CPU);
        // Values, not kinds: the narrow columns are i32.
        let same = if w.kind() == Kind::Float { g.equal(w) } else { g.to_kind(Kind::Int64).equal(w) };
        assert!(same, "{what}: {name} differs");
    }
}

fn logits(net: &Net, input: &NetInput, precision: Precision) -> Vec<f32> {
    tch::no_grad(|| {
        let out = net.forward_with(input, precision);
        let mut v = Vec::<f32>::try_from(&out.move_logits).unwrap();
        v.extend(Vec::<f32>::try_from(out.wdl_logits.reshape([-1])).unwrap());
        v
    })
}

/// Jupiter positions with doubled turns (second actions): E26 of docs/variants/jupiter.md (a
/// Doubler next to Blue's Wazir; rules/tests/jupiter_notation.rs) and the positions after each
/// of its first `keep - 1` moves.
fn doubled_turns(variant: &Arc<Variant>, keep: usize) -> EncodedBatch {
    const E26: &str = "k15/16/16/16/16/16/16/7p8/6PW8/16/16/16/16/1K14/16/7(DBL)8 w";
    let start = Position::from_fen(Arc::clone(variant), E26).unwrap_or_else(|e| panic!("E26: {e}"));
    let first = common::legal(&start);
    let mut positions = vec![start.clone()];
    for m in first.iter().rev().take(keep - 1) {
        let mut next = start.clone();
        next.make(*m);
        if !common::legal(&next).is_empty() {
            positions.push(next);
        }
    }
    let legal: Vec<MoveList> = positions.iter().map(common::legal).collect();
    StandardEncoding::new(Arc::clone(variant))
        .encode_batch(positions.iter().zip(&legal).map(|(p, m)| (p, m.as_slice())))
}

/// Batches that exercise every column: castling (aux), Typhoon and Chushin captures, Jupiter's
/// doubled turns (second actions with their own aux and captures).
fn variety() -> Vec<(Arc<Variant>, EncodedBatch)> {
    let mut out: Vec<(Arc<Variant>, EncodedBatch)> = ["chess", "typhoon", "chushin"]
        .into_iter()
        .map(|name| {
            let variant = Variant::load(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            let batch = batch_of(&variant, 3, 30, 5);
            (variant, batch)
        })
        .collect();
    let jupiter = Variant::load("jupiter").unwrap();
    let batch = doubled_turns(&jupiter, 12);
    out.push((jupiter, batch));
    out
}

#[test]
fn packed_columns_equal_the_i64_repack_and_give_the_same_logits() {
    fairyzero_torch::set_threads(1);
    let (mut aux, mut captures, mut seconds) = (0, 0, 0);
    for (variant, batch) in variety() {
        let name = &variant.name;
        let want = reference_input(&batch);
        let got = NetInput::new(&batch, CPU);
        assert_same_input(&got, &want, name);
        assert_eq!(got.move_from.kind(), Kind::Int, "{name}: index columns are i32");
        assert_eq!(got.move_batch.kind(), Kind::Int64, "{name}: scatter_reduce needs i64");
        aux += want.aux_move.size()[0];
        captures += want.capture_move.size()[0];
        seconds += want.second_move.size()[0];

        let net = net(&variant);
        for precision in [Precision::Fp32, Precision::Bf16] {
            let (a, b) = (logits(&net, &got, precision), logits(&net, &want, precision));
            // Same ops on the same values: only the index width differs.
            assert_eq!(a, b, "{name} {precision:?}: i32 columns change the logits");
        }
    }
    assert!(
        aux > 0 && captures > 0 && seconds > 0,
        "uncovered columns: aux {aux}, captures {captures}, second {seconds}"
    );
}

/// Training reads the same columns: the loss and every gradient agree with `i64` columns.
#[test]
fn narrow_columns_give_the_same_gradients() {
    fairyzero_torch::set_threads(1);
    let variant = Variant::load("jupiter").unwrap();
    let batch = doubled_turns(&variant, 8);
    assert!(batch.moves().iter().any(|f| f.second.is_some()), "no doubled turn in the batch");
    let net = net(&variant);
    let policy: Vec<Vec<(u32, f32)>> =
        batch.offsets().windows(2).map(|w| vec![(0, 0.25), ((w[1] - w[0] - 1) as u32, 0.75)]).collect();
    let wdl = vec![[0.5, 0.25, 0.25]; batch.len()];
    let targets = Targets::new(&batch, &policy, &wdl, CPU);
    let grads = |input: &NetInput| {
        let mut vars: Vec<(String, Tensor)> = net.var_store().variables().into_iter().collect();
        vars.sort_by(|a, b| a.0.cmp(&b.0));
        for (_, t) in &vars {
            let mut g = t.grad();
            if g.defined() {
                let _ = g.zero_();
            }
        }
        let losses = loss(&net.forward(input), input, &targets, 1.0);
        losses.total.backward();
        let total = f32::try_from(&losses.total).unwrap();
        (
            total,
            vars.into_iter()
                .map(|(name, t)| (name, Some(t.grad()).filter(Tensor::defined).map(|g| g.copy())))
                .collect::<Vec<_>>(),
        )
    };
    let (loss_narrow, narrow) = grads(&NetInput::new(&batch, CPU));
    let (loss_wide, wide) = grads(&reference_input(&batch));
    assert_eq!(loss_narrow, loss_wide);
    let reached = narrow.iter().filter(|(_, g)| g.is_some()).count();
    assert!(reached * 10 >= narrow.len() * 9, "only {reached} of {} variables got a gradient", narrow.len());
    for ((name, a), (_, b)) in narrow.iter().zip(&wide) {
        let (Some(a), Some(b)) = (a, b) else {
            assert_eq!(a.is_some(), b.is_some(), "{name}: a gradient with one index width only");
            continue;
        };
        let diff = f64::try_from((a - b).abs().max()).unwrap();
        assert!(diff <= 1e-6, "{name}: gradients differ by {diff}");
    }
}

#[test]
fn reused_buffers_forget_the_previous_batch() {
    let chess = Variant::load("chess").unwrap();
    let jupiter = Variant::load("jupiter").unwrap();
    let big = batch_of(&jupiter, 3, 30, 1);
    let small = batch_of(&chess, 1, 3, 2);
    let mut host = HostTensors::new();
    host.pack(&[&big]);
    host.pack(&[&small]);
    let fresh = HostTensors::from_batches(&[&small]);
    assert_eq!((host.ints(), host.floats()), (fresh.ints(), fresh.floats()));
    assert_eq!(host.len(), small.len());
    assert_same_input(&host.to_device(CPU), &reference_input(&small), "reused");
    // Two batches packed as one: the second's squares and moves are offset.
    let mut joined = small.clone();
    joined.append(&small);
    host.pack(&[&small, &small]);
    assert_same_input(&host.to_device(CPU), &reference_input(&joined), "two batches");
    // i32 instead of i64 halves the index bytes.
    let indices = host.ints().len();
    assert_eq!(host.bytes(), 4 * (indices + host.floats().len()));
}

#[test]
fn cpu_staging_is_the_packed_batch() {
    fairyzero_torch::set_threads(1);
    let variant = Variant::load("typhoon").unwrap();
    let batch = batch_of(&variant, 2, 10, 4);
    let host = HostTensors::from_batches(&[&batch]);
    let mut staging = DeviceStaging::new(CPU);
    let input = staging.upload(&host);
    assert!(!staging.is_pinned());
    assert_same_input(&input, &reference_input(&batch), "staged");
    let net = net(&variant);
    let probabilities = tch::no_grad(|| device_probabilities(&net.forward(&input), &input));
    let mut out = vec![7.0; 3];
    staging.download(&probabilities, &mut out);
    assert_eq!(out, Vec::<f32>::try_from(&probabilities).unwrap());
    assert_eq!(out.len(), batch.moves().len() + 3 * batch.len());
    staging.download(&Tensor::zeros([0], (Kind::Float, CPU)), &mut out);
    assert!(out.is_empty());
}

/// On a GPU: the page-locked, non-blocking path gives the pageable path's tensors, also when
/// two uploads follow each other without a download between them (the staging synchronises).
#[test]
#[ignore = "needs CUDA"]
fn pinned_uploads_equal_pageable_ones_on_cuda() {
    let cuda = Device::Cuda(0);
    fairyzero_torch::require_device(cuda).expect("a CUDA device");
    let mut staging = DeviceStaging::new(cuda);
    let batches: Vec<EncodedBatch> = variety().into_iter().map(|(_, b)| b).collect();
    for round in 0..2 {
        for (k, batch) in batches.iter().enumerate() {
            let host = HostTensors::from_batches(&[batch]);
            let input = staging.upload(&host);
            assert!(staging.is_pinned(), "libtorch did not pin the staging buffers");
            assert_eq!(input.pieces.device(), cuda);
            assert_same_input(&input, &reference_input(batch), &format!("round {round}, batch {k}"));
        }
    }
    let host = HostTensors::from_batches(&[&batches[0]]);
    let values = Tensor::arange(1000, (Kind::Float, cuda));
    let _ = staging.upload(&host);
    let mut out = Vec::new();
    staging.download(&values, &mut out);
    assert_eq!(out, (0..1000).map(|i| i as f32).collect::<Vec<_>>());
}
