//! The policy/value network: one definition for every board size and piece set.
//!
//! ```text
//! piece ids ─ embedding ─┐
//! spatial planes ────────┴─ 3x3 conv ─ + linear(global features) ─ residual tower ─┬─ policy head
//!                                         (blocks x channels, some with global pooling) └─ value head
//! ```
//!
//! - **Tower**: pre-activation residual blocks without normalisation; each block's residual
//!   branch is multiplied by a learned scalar that starts at 0 (SkipInit), so deep towers train
//!   from the identity and a batch of one gives exactly what it gives inside a batch of 256.
//!   Every `global_pool_every`-th block adds a KataGo-style global-pooling bias (mean,
//!   board-size-scaled mean and max over the board, through a linear layer, added per channel).
//!   Everything is convolutional or pooled, so the same weights run on 5x5 or 18x18 boards.
//! - **Policy**: one logit per legal move, never a dense action space. Per-square policy
//!   features (a 1x1 conv plus a global-pooled bias) are projected to "from" and "to" vectors;
//!   a move's logit is the from x to bilinear `q_from · k_to / sqrt(d)` (Leela Chess Zero's
//!   attention policy) plus `w · relu(z)`, where `z` sums learned terms for the from and to
//!   squares, the move kind, the mover type, the promotion/drop/placement type, the aux square
//!   and the extra captured squares (a sum over them, with their count). The second action of a
//!   doubled turn (Jupiter) adds the same terms for its squares, its kind (embedding rows of
//!   their own), promotion, aux and removed squares. Logits are gathered for the legal moves
//!   only; the softmax runs over each position's legal moves.
//! - **Value**: 1x1 conv, global pooling, two linear layers, win/draw/loss logits for the side
//!   to move.
//!
//! Variables are named by path (`trunk.block3.conv1.weight`, …) so that checkpoints can be
//! matched by name on `--transfer`; the three piece-indexed tables are listed in
//! [`PIECE_TABLES`].

use std::sync::Arc;

use fairyzero_rules::Variant;
use tch::{
    nn::{self, Module},
    Device, Kind, Tensor,
};

use fairyzero_model::{
    config::{NetConfig, Precision, PrecisionSetting},
    encoding::{
        board_vocab, global, global_len, plane_len, EncodedBatch, CAPTURE_COUNT_SLOTS, MOVE_KIND_SLOTS, NO_SQUARE,
        SECOND_ACTION_KIND_SLOT,
    },
    identity::{piece_identities, PieceIdentity},
};

/// The precision a `precision = "auto" | "fp32" | "bf16"` setting runs with on `device`:
/// `auto` is bf16 on CUDA, fp32 elsewhere.
pub fn resolve_precision(setting: PrecisionSetting, device: Device) -> Precision {
    setting.resolve(device.is_cuda())
}

/// How the rows of a piece-indexed embedding table relate to piece types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PieceRows {
    /// Row 0 is "empty", row `1 + 2 * type + side` is (type, ours/theirs).
    TypeAndSide,
    /// Row 0 is "none", row `1 + type` is the type.
    Type,
}

/// The variables whose rows are indexed by piece type, with their row layout.
pub const PIECE_TABLES: [(&str, PieceRows); 3] = [
    ("input.piece_embedding.weight", PieceRows::TypeAndSide),
    ("policy.mover_embedding.weight", PieceRows::Type),
    ("policy.piece_embedding.weight", PieceRows::Type),
];

/// A batch on the device, ready for [`Net::forward`].
///
/// Index columns are `Int` (i32): half the bytes of `Int64` to pack and copy (S8 of
/// docs/plans/batching.md), and every op that reads them (embeddings, `index_select`,
/// `index_add`) takes either width. `move_batch` is the one `Int64` column, converted on the
/// device, because `scatter_reduce` (the segment softmax) only takes `Int64` indices.
pub struct NetInput {
    /// Positions in the batch.
    pub batch: i64,
    pub height: i64,
    pub width: i64,
    /// `[B, H, W]` piece ids.
    pub pieces: Tensor,
    /// `[B, P, H, W]`: [`plane_len`] planes per position.
    pub planes: Tensor,
    /// `[B, global::COUNT]`.
    pub global: Tensor,
    /// Per move `[M]`: from and to as flat indices `b * H * W + square` into the batch's squares.
    pub move_from: Tensor,
    pub move_to: Tensor,
    pub move_kind: Tensor,
    pub move_mover: Tensor,
    pub move_piece: Tensor,
    pub move_n_captures: Tensor,
    /// The position each move belongs to (`Int64`).
    pub move_batch: Tensor,
    /// Aux squares as `(move, flat square)` pairs, `[A]` each.
    pub aux_move: Tensor,
    pub aux_square: Tensor,
    /// Extra captured squares as `(move, flat square)` pairs, `[C]` each (both actions of a
    /// doubled turn).
    pub capture_move: Tensor,
    pub capture_square: Tensor,
    /// Second actions of doubled turns `[S]`: the move, from and to as flat squares, the kind's
    /// embedding row (from `SECOND_ACTION_KIND_SLOT`) and the promotion type.
    pub second_move: Tensor,
    pub second_from: Tensor,
    pub second_to: Tensor,
    pub second_kind: Tensor,
    pub second_piece: Tensor,
    /// Move offsets per position (`B + 1`), as in [`EncodedBatch::offsets`].
    pub offsets: Vec<usize>,
}

impl NetInput {
    pub fn new(batch: &EncodedBatch, device: Device) -> NetInput {
        HostTensors::from_batches(&[batch]).to_device(device)
    }

    /// Number of moves in the batch.
    pub fn moves(&self) -> usize {
        *self.offsets.last().unwrap_or(&0)
    }
}

/// A batch packed on the host (the per-move re-pack of [`NetInput::new`]) into two
/// flat buffers, so that reaching the device is two copies: every index column as `i32`, every
/// float feature as `f32`. Reusable: [`HostTensors::pack`] keeps the allocations, so a warm
/// executor packs without allocating. `bench net --breakdown` times packing and copying apart.
#[derive(Default)]
pub struct HostTensors {
    batch: i64,
    height: i64,
    width: i64,
    /// `pieces [B*H*W] | moves [7, M] | aux [2, A] | captures [2, C] | second [5, S]`, each
    /// block row-major: the move columns are from, to, kind, mover, piece, capture count,
    /// position; the pairs are (move, flat square); the second actions are move, from, to,
    /// kind row, piece.
    ints: Vec<i32>,
    /// `planes [B, P, H, W] | global [B, G]`: `P` planes per position ([`EncodedBatch::plane_len`],
    /// 4 unless the variant adds some), `G` global features.
    floats: Vec<f32>,
    /// `P`, the spatial planes per position.
    planes: i64,
    moves: usize,
    aux: usize,
    captures: usize,
    seconds: usize,
    offsets: Vec<usize>,
    /// Scratch, kept between packs: the pairs and second actions in move order, before they
    /// are laid out column by column.
    aux_pairs: Vec<[i32; 2]>,
    capture_pairs: Vec<[i32; 2]>,
    second_rows: Vec<[i32; 5]>,
}

/// Columns of the `[7, M]` move block, in order.
const MOVE_COLUMNS: usize = 7;

impl HostTensors {
    /// Empty buffers; [`HostTensors::pack`] fills them.
    pub fn new() -> HostTensors {
        HostTensors::default()
    }

    /// Packs several encoded batches (same board size) on the host.
    pub fn from_batches(batches: &[&EncodedBatch]) -> HostTensors {
        let mut host = HostTensors::new();
        host.pack(batches);
        host
    }

    /// Replaces the contents with `batches` (same board size), reusing the buffers.
    ///
    /// # Panics
    /// When `batches` is empty, the board sizes differ, or the batch has so many squares or
    /// moves that a flat index would not fit an `i32` (over 2^31: far beyond any batch a
    /// device holds).
    pub fn pack(&mut self, batches: &[&EncodedBatch]) {
        let first = batches.first().expect("at least one batch");
        let (h, w) = (first.height(), first.width());
        let n = h * w;
        let positions: usize = batches.iter().map(|b| b.len()).sum();
        let total_moves: usize = batches.iter().map(|b| b.moves().len()).sum();
        assert!(
            i32::try_from(positions * n).is_ok() && i32::try_from(total_moves).is_ok(),
            "HostTensors: {positions} positions of {n} squares and {total_moves} moves overflow i32 indices"
        );

        self.ints.clear();
        self.floats.clear();
        self.offsets.clear();
        self.aux_pairs.clear();
        self.capture_pairs.clear();
        self.second_rows.clear();
        self.ints.reserve(positions * n + MOVE_COLUMNS * total_moves);
        let planes = first.plane_len();
        self.floats.reserve(positions * (planes * n + global::COUNT));

        for batch in batches {
            assert_eq!((batch.height(), batch.width()), (h, w), "batches of different board sizes");
            assert!(batch.is_empty() || batch.plane_len() == planes, "batches with different plane counts");
            // Piece ids are rows of the piece embedding (a few hundred at most): `as` is exact.
            self.ints.extend(batch.raw().0.iter().map(|&p| p as i32));
        }
        let moves_at = self.ints.len();
        self.ints.resize(moves_at + MOVE_COLUMNS * total_moves, 0);
        let columns = &mut self.ints[moves_at..];
        self.offsets.push(0);
        let (mut b, mut m) = (0usize, 0usize);
        for batch in batches {
            self.floats.extend_from_slice(batch.raw().1);
            for i in 0..batch.len() {
                let base = (b * n) as i32;
                for f in batch.moves_of(i) {
                    let mi = m as i32;
                    columns[m] = base + f.from as i32;
                    columns[total_moves + m] = base + f.to as i32;
                    columns[2 * total_moves + m] = f.kind as i32;
                    columns[3 * total_moves + m] = f.mover as i32;
                    columns[4 * total_moves + m] = f.piece as i32;
                    columns[5 * total_moves + m] = (f.n_captures as usize).min(CAPTURE_COUNT_SLOTS - 1) as i32;
                    columns[6 * total_moves + m] = b as i32;
                    if f.aux != NO_SQUARE {
                        self.aux_pairs.push([mi, base + f.aux as i32]);
                    }
                    self.capture_pairs.extend(f.captures().iter().map(|&c| [mi, base + c as i32]));
                    if let Some(a) = &f.second {
                        let row = (SECOND_ACTION_KIND_SLOT + a.kind as usize) as i32;
                        self.second_rows.push([mi, base + a.from as i32, base + a.to as i32, row, a.piece as i32]);
                        if a.aux != NO_SQUARE {
                            self.aux_pairs.push([mi, base + a.aux as i32]);
                        }
                        self.capture_pairs.extend(a.captures().iter().map(|&c| [mi, base + c as i32]));
                    }
                    m += 1;
                }
                b += 1;
                self.offsets.push(m);
            }
        }
        for batch in batches {
            self.floats.extend_from_slice(batch.raw().2);
        }
        // The pairs and second actions column by column, as the move block.
        for column in 0..2 {
            self.ints.extend(self.aux_pairs.iter().map(|p| p[column]));
        }
        for column in 0..2 {
            self.ints.extend(self.capture_pairs.iter().map(|p| p[column]));
        }
        for column in 0..5 {
            self.ints.extend(self.second_rows.iter().map(|r| r[column]));
        }
        self.batch = positions as i64;
        self.planes = planes as i64;
        self.height = h as i64;
        self.width = w as i64;
        self.moves = total_moves;
        self.aux = self.aux_pairs.len();
        self.captures = self.capture_pairs.len();
        self.seconds = self.second_rows.len();
    }

    /// The batch on `device` through pageable memory: two blocking copies (none on the CPU,
    /// where the tensors are made from the buffers). The executor copies through page-locked
    /// memory instead (`executor::DeviceStaging`).
    pub fn to_device(&self, device: Device) -> NetInput {
        let ints = Tensor::from_slice(&self.ints).to_device(device);
        let floats = Tensor::from_slice(&self.floats).to_device(device);
        self.input_from(&ints, &floats)
    }

    /// The index buffer (see the field's layout), what is copied to the device.
    pub fn ints(&self) -> &[i32] {
        &self.ints
    }

    /// The float buffer: planes, then global features.
    pub fn floats(&self) -> &[f32] {
        &self.floats
    }

    /// Bytes copied to the device per batch.
    pub fn bytes(&self) -> usize {
        4 * (self.ints.len() + self.floats.len())
    }

    /// The [`NetInput`] made of views into `ints` and `floats`, this batch's buffers already
    /// on the device (same lengths and kinds as [`HostTensors::ints`] and
    /// [`HostTensors::floats`]).
    ///
    /// # Panics
    /// When the lengths differ from the packed buffers'.
    pub fn input_from(&self, ints: &Tensor, floats: &Tensor) -> NetInput {
        assert_eq!(ints.size(), [self.ints.len() as i64], "HostTensors::input_from: index buffer of another batch");
        assert_eq!(floats.size(), [self.floats.len() as i64], "HostTensors::input_from: float buffer of another batch");
        let (b, h, w) = (self.batch, self.height, self.width);
        let mut at = 0i64;
        let mut block = |rows: i64, len: usize| {
            let t = ints.narrow(0, at, rows * len as i64).view([rows, len as i64]);
            at += rows * len as i64;
            t
        };
        let pieces = block(1, (b * h * w) as usize).view([b, h, w]);
        let moves = block(MOVE_COLUMNS as i64, self.moves);
        let aux = block(2, self.aux);
        let captures = block(2, self.captures);
        let second = block(5, self.seconds);
        let plane_len = b * self.planes * h * w;
        // Global features per position: the fixed ones, plus the hands of a drop variant.
        let globals = (self.floats.len() as i64 - plane_len) / b.max(1);
        NetInput {
            batch: b,
            height: h,
            width: w,
            pieces,
            planes: floats.narrow(0, 0, plane_len).view([b, self.planes, h, w]),
            global: floats.narrow(0, plane_len, b * globals).view([b, globals]),
            move_from: moves.get(0),
            move_to: moves.get(1),
            move_kind: moves.get(2),
            move_mover: moves.get(3),
            move_piece: moves.get(4),
            move_n_captures: moves.get(5),
            move_batch: moves.get(6).to_kind(Kind::Int64),
            aux_move: aux.get(0),
            aux_square: aux.get(1),
            capture_move: captures.get(0),
            capture_square: captures.get(1),
            second_move: second.get(0),
            second_from: second.get(1),
            second_to: second.get(2),
            second_kind: second.get(3),
            second_piece: second.get(4),
            offsets: self.offsets.clone(),
        }
    }

    /// Positions in the batch.
    pub fn len(&self) -> usize {
        self.batch as usize
    }

    pub fn is_empty(&self) -> bool {
        self.batch == 0
    }
}

/// What the net says about a batch.
pub struct NetOutput {
    /// `[M]`: one logit per legal move, in the batch's move order.
    pub move_logits: Tensor,
    /// `[B, 3]`: win/draw/loss logits for the side to move.
    pub wdl_logits: Tensor,
}

/// Mean, board-size-scaled mean and max over the board: `[B, C, H, W]` to `[B, 3C]`.
fn global_pool(x: &Tensor, size_scale: f64) -> Tensor {
    let mean = x.mean_dim(&[2i64, 3][..], false, x.kind());
    let max = x.amax(&[2i64, 3][..], false);
    let scaled = &mean * size_scale;
    Tensor::cat(&[mean, scaled, max], 1)
}

/// KataGo's board-size term, centred on our typical boards: `(sqrt(squares) - 12) / 10`.
fn size_scale(height: i64, width: i64) -> f64 {
    (((height * width) as f64).sqrt() - 12.0) / 10.0
}

fn conv(vs: nn::Path<'_>, cin: usize, cout: usize, k: i64) -> nn::Conv2D {
    nn::conv2d(vs, cin as i64, cout as i64, k, nn::ConvConfig { padding: k / 2, ..Default::default() })
}

fn linear(vs: nn::Path<'_>, cin: usize, cout: usize) -> nn::Linear {
    nn::linear(vs, cin as i64, cout as i64, Default::default())
}

fn embedding(vs: nn::Path<'_>, rows: usize, dim: usize, stdev: f64) -> nn::Embedding {
    let config = nn::EmbeddingConfig { ws_init: nn::Init::Randn { mean: 0.0, stdev }, ..Default::default() };
    nn::embedding(vs, rows as i64, dim as i64, config)
}

/// How one forward pass computes: `None` runs the modules as they are (fp32, the exact ops of
/// [`Net::forward`]); `Some(kind)` casts each weight and the stem's inputs to `kind` inside the
/// pass. `to_kind` is differentiable, so fp32 master weights get fp32 gradients (explicit
/// autocast: `tch::autocast` is CUDA-only and fp16).
#[derive(Clone, Copy)]
struct Cast(Option<Kind>);

impl Cast {
    fn of(precision: Precision) -> Cast {
        match precision {
            Precision::Fp32 => Cast(None),
            Precision::Bf16 => Cast(Some(Kind::BFloat16)),
        }
    }

    fn tensor(self, t: &Tensor) -> Tensor {
        match self.0 {
            None => t.shallow_clone(),
            Some(kind) => t.to_kind(kind),
        }
    }

    /// Our convolutions: stride 1, "same" zero padding, no dilation or groups.
    fn conv(self, c: &nn::Conv2D, x: &Tensor) -> Tensor {
        match self.0 {
            None => c.forward(x),
            Some(kind) => {
                let k = c.ws.size()[2];
                let bias = c.bs.as_ref().map(|b| b.to_kind(kind));
                x.conv2d(&c.ws.to_kind(kind), bias.as_ref(), [1, 1], [k / 2, k / 2], [1, 1], 1)
            }
        }
    }

    fn linear(self, l: &nn::Linear, x: &Tensor) -> Tensor {
        match self.0 {
            None => l.forward(x),
            Some(kind) => x.linear(&l.ws.to_kind(kind), l.bs.as_ref().map(|b| b.to_kind(kind)).as_ref()),
        }
    }

    /// Our embeddings: no padding row, dense gradients.
    fn embedding(self, e: &nn::Embedding, ids: &Tensor) -> Tensor {
        match self.0 {
            None => e.forward(ids),
            Some(kind) => Tensor::embedding(&e.ws.to_kind(kind), ids, -1, false, false),
        }
    }
}

struct Block {
    conv1: nn::Conv2D,
    conv2: nn::Conv2D,
    /// Global pooling: a 1x1 conv to the pooled channels and a linear layer to per-channel biases.
    pool: Option<(nn::Conv2D, nn::Linear)>,
    /// SkipInit: the residual branch's scale, initially 0.
    scale: Tensor,
}

impl Block {
    fn new(vs: nn::Path<'_>, c: usize, global_pool: bool) -> Block {
        let pool = global_pool.then(|| {
            let g = (c / 4).max(4);
            (conv(&vs / "pool_conv", c, g, 1), linear(&vs / "pool_linear", 3 * g, c))
        });
        Block {
            conv1: conv(&vs / "conv1", c, c, 3),
            conv2: conv(&vs / "conv2", c, c, 3),
            pool,
            scale: vs.zeros("scale", &[1]),
        }
    }

    fn forward(&self, x: &Tensor, size_scale: f64, cast: Cast) -> Tensor {
        let h = x.relu();
        let mut a = cast.conv(&self.conv1, &h);
        if let Some((pconv, plin)) = &self.pool {
            let pooled = global_pool(&cast.conv(pconv, &h).relu(), size_scale);
            a += cast.linear(plin, &pooled).unsqueeze(-1).unsqueeze(-1);
        }
        x + cast.conv(&self.conv2, &a.relu()) * cast.tensor(&self.scale)
    }
}

/// The network with its variables. Build it with [`Net::new`] or load it with
/// [`crate::checkpoint::load`]; evaluate through [`crate::TorchBackend`] for search, or call
/// [`Net::forward`] directly for training.
pub struct Net {
    vs: nn::VarStore,
    config: NetConfig,
    variant: Arc<Variant>,
    identities: Vec<PieceIdentity>,
    piece_embedding: nn::Embedding,
    stem: nn::Conv2D,
    stem_global: nn::Linear,
    blocks: Vec<Block>,
    policy_conv: nn::Conv2D,
    policy_global: nn::Linear,
    /// Per square: `[q | z_from]`, `[k | z_to]`, `[z_aux | z_capture]`, each `2 * policy_dim`.
    policy_from: nn::Linear,
    policy_to: nn::Linear,
    policy_extra: nn::Linear,
    kind_embedding: nn::Embedding,
    mover_embedding: nn::Embedding,
    promo_embedding: nn::Embedding,
    captures_embedding: nn::Embedding,
    policy_out: nn::Linear,
    value_conv: nn::Conv2D,
    value_fc1: nn::Linear,
    value_fc2: nn::Linear,
    /// Conv weights and the stem's input laid out channels-last ([`Net::set_channels_last`]).
    channels_last: bool,
}

/// The same values with NHWC strides (PyTorch's `channels_last` memory format: tch has no
/// setter, and libtorch infers the format from the strides, so convolutions given such inputs
/// and weights pick NHWC kernels and keep the layout in their outputs).
fn to_channels_last(t: &Tensor) -> Tensor {
    t.permute([0, 2, 3, 1]).contiguous().permute([0, 3, 1, 2])
}

impl Net {
    /// A freshly initialised net for `variant` on `device`.
    pub fn new(config: &NetConfig, variant: Arc<Variant>, device: Device) -> Net {
        let vs = nn::VarStore::new(device);
        let root = vs.root();
        let c = config.channels;
        let e = config.piece_embedding;
        let (pc, d) = (config.policy_channels, config.policy_dim);
        let types = variant.piece_count();

        let input = &root / "input";
        let piece_embedding = embedding(&input / "piece_embedding", board_vocab(&variant), e, 1.0);
        let stem = conv(&input / "stem", e + plane_len(&variant), c, 3);
        let stem_global = linear(&input / "global", global_len(&variant), c);

        let trunk = &root / "trunk";
        let blocks = (0..config.blocks)
            .map(|i| Block::new(&trunk / format!("block{i}"), c, config.is_global_pool_block(i)))
            .collect();

        let policy = &root / "policy";
        let small = 1.0 / (d as f64).sqrt();
        Net {
            piece_embedding,
            stem,
            stem_global,
            blocks,
            policy_conv: conv(&policy / "conv", c, pc, 1),
            policy_global: linear(&policy / "global", 3 * c, pc),
            policy_from: linear(&policy / "from", pc, 2 * d),
            policy_to: linear(&policy / "to", pc, 2 * d),
            policy_extra: linear(&policy / "extra", pc, 2 * d),
            kind_embedding: embedding(&policy / "kind_embedding", MOVE_KIND_SLOTS, d, small),
            mover_embedding: embedding(&policy / "mover_embedding", types + 1, d, small),
            promo_embedding: embedding(&policy / "piece_embedding", types + 1, d, small),
            captures_embedding: embedding(&policy / "captures_embedding", CAPTURE_COUNT_SLOTS, d, small),
            policy_out: linear(&policy / "out", d, 1),
            value_conv: conv(&root / "value" / "conv", c, config.value_channels, 1),
            value_fc1: linear(&root / "value" / "fc1", 3 * config.value_channels, config.value_hidden),
            value_fc2: linear(&root / "value" / "fc2", config.value_hidden, 3),
            channels_last: false,
            identities: piece_identities(&variant),
            config: config.clone(),
            variant,
            vs,
        }
    }

    /// A fresh net whose initial weights depend on `seed` alone, so that an untrained net
    /// (`--net random:SIZE`) plays the same games every time with the same seed. libtorch's
    /// generator is global: no other thread may draw from it meanwhile (call it at start-up).
    pub fn seeded(config: &NetConfig, variant: Arc<Variant>, device: Device, seed: u64) -> Net {
        tch::manual_seed(seed as i64);
        Net::new(config, variant, device)
    }

    pub fn config(&self) -> &NetConfig {
        &self.config
    }

    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    pub fn piece_identities(&self) -> &[PieceIdentity] {
        &self.identities
    }

    pub fn device(&self) -> Device {
        self.vs.device()
    }

    pub fn var_store(&self) -> &nn::VarStore {
        &self.vs
    }

    pub fn var_store_mut(&mut self) -> &mut nn::VarStore {
        &mut self.vs
    }

    /// Lays out every convolution weight channels-last (same values, NHWC strides) and makes
    /// the forward pass give the stem a channels-last input, so that the tower runs NHWC
    /// kernels (on CUDA, what tensor cores want in bf16). Outputs equal the default layout's
    /// up to float rounding; checkpoints save the same (contiguous) weights.
    pub fn set_channels_last(&mut self) {
        tch::no_grad(|| {
            for (_, mut t) in self.vs.variables() {
                if t.dim() == 4 {
                    let laid_out = to_channels_last(&t);
                    t.set_data(&laid_out);
                }
            }
        });
        self.channels_last = true;
    }

    /// Undoes [`Net::set_channels_last`]: every convolution weight contiguous (NCHW) again and
    /// the stem's input as the embedding gives it.
    pub fn set_nchw(&mut self) {
        tch::no_grad(|| {
            for (_, mut t) in self.vs.variables() {
                if t.dim() == 4 {
                    let laid_out = t.contiguous();
                    t.set_data(&laid_out);
                }
            }
        });
        self.channels_last = false;
    }

    /// Whether the net is laid out channels-last ([`Net::set_channels_last`]).
    pub fn is_channels_last(&self) -> bool {
        self.channels_last
    }

    /// Number of scalar parameters.
    pub fn parameter_count(&self) -> i64 {
        self.vs.trainable_variables().iter().map(|t| t.numel() as i64).sum()
    }

    /// Runs the net without recording gradients (inference).
    pub fn forward_inference(&self, input: &NetInput) -> NetOutput {
        tch::no_grad(|| self.forward(input))
    }

    /// Runs the net in fp32. Gradients are recorded unless the caller is inside `tch::no_grad`.
    pub fn forward(&self, input: &NetInput) -> NetOutput {
        self.forward_with(input, Precision::Fp32)
    }

    /// Runs the net in `precision`; the logits are fp32 either way. [`Precision::Fp32`] is
    /// exactly [`Net::forward`]; [`Precision::Bf16`] casts weights and activations to bfloat16
    /// inside the pass (the variables stay fp32, and get fp32 gradients when training).
    pub fn forward_with(&self, input: &NetInput, precision: Precision) -> NetOutput {
        let trunk = self.trunk_with(input, precision);
        self.heads_with(&trunk, input, precision)
    }

    /// The stem and the residual tower: `[B, C, H, W]` after the final ReLU, in the precision's
    /// float kind (what the heads read; timed apart by `bench net --breakdown`).
    pub fn trunk_with(&self, input: &NetInput, precision: Precision) -> Tensor {
        let cast = Cast::of(precision);
        let scale = size_scale(input.height, input.width);
        // Stem: piece embeddings and planes through a 3x3 conv, global features as a bias.
        let emb = cast.embedding(&self.piece_embedding, &input.pieces).permute([0, 3, 1, 2]);
        let x = Tensor::cat(&[emb, cast.tensor(&input.planes)], 1);
        let x = if self.channels_last { to_channels_last(&x) } else { x };
        let mut x = cast.conv(&self.stem, &x)
            + cast.linear(&self.stem_global, &cast.tensor(&input.global)).unsqueeze(-1).unsqueeze(-1);
        for block in &self.blocks {
            x = block.forward(&x, scale, cast);
        }
        x.relu()
    }

    /// The value and policy heads on the trunk's output ([`Net::trunk_with`]).
    pub fn heads_with(&self, x: &Tensor, input: &NetInput, precision: Precision) -> NetOutput {
        let cast = Cast::of(precision);
        let (b, h, w) = (input.batch, input.height, input.width);
        let scale = size_scale(h, w);
        let d = self.config.policy_dim as i64;
        let pooled = global_pool(x, scale);

        // Value head.
        let v = cast.conv(&self.value_conv, x).relu();
        let wdl_logits = cast.linear(&self.value_fc2, &cast.linear(&self.value_fc1, &global_pool(&v, scale)).relu());

        // Policy head: per-square features, gathered per move.
        let p = (cast.conv(&self.policy_conv, x)
            + cast.linear(&self.policy_global, &pooled).unsqueeze(-1).unsqueeze(-1))
        .relu();
        let pf = p.permute([0, 2, 3, 1]).reshape([b * h * w, self.config.policy_channels as i64]);
        let from_all = cast.linear(&self.policy_from, &pf);
        let to_all = cast.linear(&self.policy_to, &pf);
        let from = from_all.index_select(0, &input.move_from);
        let to = to_all.index_select(0, &input.move_to);
        let attention =
            (from.narrow(1, 0, d) * to.narrow(1, 0, d)).sum_dim_intlist(-1, false, from.kind()) / (d as f64).sqrt();
        let mut z = from.narrow(1, d, d)
            + to.narrow(1, d, d)
            + cast.embedding(&self.kind_embedding, &input.move_kind)
            + cast.embedding(&self.mover_embedding, &input.move_mover)
            + cast.embedding(&self.promo_embedding, &input.move_piece)
            + cast.embedding(&self.captures_embedding, &input.move_n_captures);
        if input.second_move.size()[0] > 0 {
            let second = from_all.narrow(1, d, d).index_select(0, &input.second_from)
                + to_all.narrow(1, d, d).index_select(0, &input.second_to)
                + cast.embedding(&self.kind_embedding, &input.second_kind)
                + cast.embedding(&self.promo_embedding, &input.second_piece);
            z = z.index_add(0, &input.second_move, &second);
        }
        let extra_moves = input.aux_move.size()[0] + input.capture_move.size()[0];
        if extra_moves > 0 {
            let extra = cast.linear(&self.policy_extra, &pf);
            if input.aux_move.size()[0] > 0 {
                let aux = extra.narrow(1, 0, d).index_select(0, &input.aux_square);
                z = z.index_add(0, &input.aux_move, &aux);
            }
            if input.capture_move.size()[0] > 0 {
                let caps = extra.narrow(1, d, d).index_select(0, &input.capture_square);
                z = z.index_add(0, &input.capture_move, &caps);
            }
        }
        let move_logits = attention + cast.linear(&self.policy_out, &z.relu()).squeeze_dim(-1);
        match cast.0 {
            None => NetOutput { move_logits, wdl_logits },
            Some(_) => {
                NetOutput { move_logits: move_logits.to_kind(Kind::Float), wdl_logits: wdl_logits.to_kind(Kind::Float) }
            }
        }
    }
}

/// Log-softmax of each position's move logits over its own legal moves (a segment softmax:
/// `move_batch` says which position each move belongs to).
pub fn move_log_softmax(move_logits: &Tensor, move_batch: &Tensor, positions: i64) -> Tensor {
    let device = move_logits.device();
    // `scatter_reduce` (tch's `internal_` name for `scatter_reduce.two`), not `index_reduce`,
    // which computes the same but prints libtorch's "index_reduce() is in beta" warning over
    // the progress line at the first forward pass of every run.
    let max = Tensor::full([positions], f64::NEG_INFINITY, (Kind::Float, device)).internal_scatter_reduce(
        0,
        move_batch,
        &move_logits.detach(),
        "amax",
        true,
    );
    let shifted = move_logits - max.index_select(0, move_batch);
    let sum = Tensor::zeros([positions], (Kind::Float, device)).index_add(0, move_batch, &shifted.exp());
    &shifted - sum.clamp_min(1e-30).log().index_select(0, move_batch)
}

/// Training targets for a batch: per-move policy weights (sparse: only legal moves exist) and
/// win/draw/loss distributions.
pub struct Targets {
    /// `[M]`, aligned with the batch's moves; each position's weights sum to 1 (or are all 0 to
    /// skip its policy).
    pub policy: Tensor,
    /// `[B, 3]`.
    pub wdl: Tensor,
}

impl Targets {
    /// `policy[i]` lists `(legal move index, weight)` pairs of position `i` (e.g. visit
    /// fractions); `wdl[i]` is its win/draw/loss target.
    pub fn new(batch: &EncodedBatch, policy: &[Vec<(u32, f32)>], wdl: &[[f32; 3]], device: Device) -> Targets {
        assert_eq!(policy.len(), batch.len(), "one policy target per position");
        assert_eq!(wdl.len(), batch.len(), "one WDL target per position");
        let offsets = batch.offsets();
        let mut dense = vec![0f32; batch.moves().len()];
        for (i, pairs) in policy.iter().enumerate() {
            let n = offsets[i + 1] - offsets[i];
            for &(m, weight) in pairs {
                assert!((m as usize) < n, "policy target names move {m} of position {i}, which has {n} moves");
                dense[offsets[i] + m as usize] += weight;
            }
        }
        let flat: Vec<f32> = wdl.iter().flatten().copied().collect();
        Targets {
            policy: Tensor::from_slice(&dense).to_device(device),
            wdl: Tensor::from_slice(&flat).view([wdl.len() as i64, 3]).to_device(device),
        }
    }
}

/// The training loss, as scalar tensors.
pub struct Losses {
    /// `policy + value_weight * value`.
    pub total: Tensor,
    /// Cross-entropy of the policy targets against the softmax over legal moves, per position.
    pub policy: Tensor,
    /// Cross-entropy of the WDL targets, per position.
    pub value: Tensor,
}

/// Cross-entropy losses of `output` against `targets`, averaged over positions.
pub fn loss(output: &NetOutput, input: &NetInput, targets: &Targets, value_weight: f64) -> Losses {
    let b = input.batch;
    let logp = move_log_softmax(&output.move_logits, &input.move_batch, b);
    let policy = -(&targets.policy * logp).sum(Kind::Float) / b as f64;
    let value = -(&targets.wdl * output.wdl_logits.log_softmax(-1, Kind::Float)).sum(Kind::Float) / b as f64;
    let total = &policy + &value * value_weight;
    Losses { total, policy, value }
}

/// Per-position probabilities from an output: the softmax over each position's legal moves and
/// the WDL softmax, copied to the host.
pub fn probabilities(output: &NetOutput, offsets: &[usize]) -> (Vec<Vec<f32>>, Vec<[f32; 3]>) {
    let logits: Vec<f32> = Vec::<f32>::try_from(output.move_logits.to_device(Device::Cpu).to_kind(Kind::Float))
        .expect("move logits are a float vector");
    let wdl: Vec<f32> =
        Vec::<f32>::try_from(output.wdl_logits.softmax(-1, Kind::Float).to_device(Device::Cpu).reshape([-1]))
            .expect("WDL is a float matrix");
    let policies = offsets
        .windows(2)
        .map(|w| {
            let l = &logits[w[0]..w[1]];
            let max = l.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let exp: Vec<f32> = l.iter().map(|&x| (x - max).exp()).collect();
            let sum: f32 = exp.iter().sum();
            exp.into_iter().map(|e| e / sum).collect()
        })
        .collect();
    let wdl = wdl.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
    (policies, wdl)
}
