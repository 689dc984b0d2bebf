#!/usr/bin/env python3
"""Forward speed of two plain PyTorch trunks on the card, next to `fairyzero bench net`.

The issue's goal is "a fairyzero forward at >= 0.8x of a plain ResNet trunk of the same size on
the same card" (docs/plans/batching.md §3). This times, in one process, with the same PyTorch
as the fairyzero binary uses there:

- `plain`: the classic trunk of ../shared/notes/gpu.md: conv3x3 + BatchNorm + ReLU stem from 96
  input planes, BLOCKS residual blocks of (conv + BN + ReLU, conv + BN, add, ReLU), eval mode;
- `fairyzero`: fairyzero's own trunk shape (torch/src/net.rs `Net::trunk_with`): a 3x3 stem
  from 68 channels (64 embedding + 4 planes) plus a linear bias from 12 global features,
  pre-activation blocks without normalisation, each branch scaled by a SkipInit scalar (0.5
  here, so that it computes), and every 3rd block with a KataGo global-pooling bias (1x1 conv to
  C/4, mean / size-scaled mean / max, linear to C).

No heads, no embedding lookup, no host work: the ceiling the full forward is compared with.
Each configuration: fp32 (TF32 convolutions, PyTorch's default for cuDNN) and bf16 (the module
cast to bfloat16, the same as fairyzero's explicit casts), NCHW and channels-last,
`cudnn.benchmark` on, warm-up, then timed with CUDA events until --seconds have passed.

    python3 tools/gpu/trunk_reference.py --blocks 15 --channels 192 --batches 1024,4096

Prints one Markdown table (positions/s). Without a CUDA device it runs on the CPU with a
small default so that the script itself can be checked anywhere (`--device cpu`).
"""

import argparse
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class PlainTrunk(nn.Module):
    def __init__(self, blocks, channels, planes=96):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(planes, channels, 3, padding=1, bias=False), nn.BatchNorm2d(channels), nn.ReLU())
        self.blocks = nn.ModuleList(
            nn.ModuleDict(
                {
                    "c1": nn.Conv2d(channels, channels, 3, padding=1, bias=False),
                    "b1": nn.BatchNorm2d(channels),
                    "c2": nn.Conv2d(channels, channels, 3, padding=1, bias=False),
                    "b2": nn.BatchNorm2d(channels),
                }
            )
            for _ in range(blocks)
        )
        self.planes = planes

    def inputs(self, batch, h, w, device, dtype, memory_format):
        x = torch.randn(batch, self.planes, h, w, device=device, dtype=dtype)
        return (x.contiguous(memory_format=memory_format),)

    def forward(self, x):
        x = self.stem(x)
        for b in self.blocks:
            y = F.relu(b["b1"](b["c1"](x)))
            x = F.relu(x + b["b2"](b["c2"](y)))
        return x


def global_pool(x, size_scale):
    mean = x.mean(dim=(2, 3))
    return torch.cat([mean, mean * size_scale, x.amax(dim=(2, 3))], 1)


class FairyzeroTrunk(nn.Module):
    """torch/src/net.rs: stem + pre-activation SkipInit blocks, global pooling every 3rd."""

    def __init__(self, blocks, channels, embedding=None, planes=4, global_features=12, pool_every=None):
        super().__init__()
        embedding = embedding or min(channels, 64)
        pool_every = pool_every or (3 if blocks >= 6 else 2)
        self.cin = embedding + planes
        self.global_features = global_features
        self.stem = nn.Conv2d(self.cin, channels, 3, padding=1)
        self.stem_global = nn.Linear(global_features, channels)
        g = max(channels // 4, 4)
        self.blocks = nn.ModuleList()
        for i in range(blocks):
            block = nn.ModuleDict({"conv1": nn.Conv2d(channels, channels, 3, padding=1), "conv2": nn.Conv2d(channels, channels, 3, padding=1)})
            if (i + 1) % pool_every == 0:
                block["pool_conv"] = nn.Conv2d(channels, g, 1)
                block["pool_linear"] = nn.Linear(3 * g, channels)
            self.blocks.append(block)
        self.scales = nn.Parameter(torch.full((blocks,), 0.5))

    def inputs(self, batch, h, w, device, dtype, memory_format):
        x = torch.randn(batch, self.cin, h, w, device=device, dtype=dtype).contiguous(memory_format=memory_format)
        return (x, torch.randn(batch, self.global_features, device=device, dtype=dtype))

    def forward(self, x, glob):
        size_scale = ((x.shape[2] * x.shape[3]) ** 0.5 - 12.0) / 10.0
        x = self.stem(x) + self.stem_global(glob)[:, :, None, None]
        for i, b in enumerate(self.blocks):
            h = F.relu(x)
            a = b["conv1"](h)
            if "pool_conv" in b:
                a = a + b["pool_linear"](global_pool(F.relu(b["pool_conv"](h)), size_scale))[:, :, None, None]
            x = x + b["conv2"](F.relu(a)) * self.scales[i]
        return F.relu(x)


def time_forward(model, inputs, seconds, device):
    with torch.inference_mode():
        for _ in range(3):  # cuDNN autotuning, allocator
            model(*inputs)
        if device.type == "cuda":
            torch.cuda.synchronize()
        runs, elapsed = 0, 0.0
        while runs < 3 or elapsed < seconds:
            if device.type == "cuda":
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                model(*inputs)
                end.record()
                end.synchronize()
                elapsed += start.elapsed_time(end) / 1e3
            else:
                t0 = time.perf_counter()
                model(*inputs)
                elapsed += time.perf_counter() - t0
            runs += 1
    return runs / elapsed


def main():
    cuda = torch.cuda.is_available()
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--blocks", type=int, default=15 if cuda else 2)
    p.add_argument("--channels", type=int, default=192 if cuda else 32)
    p.add_argument("--board", default="12x12", help="WxH (Typhoon: 12x12)")
    p.add_argument("--batches", default="1024,4096" if cuda else "16")
    p.add_argument("--seconds", type=float, default=2.0 if cuda else 0.2)
    p.add_argument("--device", default="cuda" if cuda else "cpu")
    p.add_argument("--trunks", default="plain,fairyzero")
    a = p.parse_args()
    device = torch.device(a.device)
    w, h = (int(v) for v in a.board.lower().split("x"))
    batches = [int(b) for b in a.batches.split(",")]
    torch.backends.cudnn.benchmark = True
    torch.manual_seed(0)
    gpu = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
    print(f"# trunk reference: {a.blocks}x{a.channels} on {w}x{h}, {gpu}, torch {torch.__version__}, "
          f"cudnn.benchmark on, TF32 for cuDNN convolutions: {torch.backends.cudnn.allow_tf32}")
    print()
    print("| trunk | precision | layout | " + " | ".join(f"batch {b}" for b in batches) + " |")
    print("|---|---|---|" + "---:|" * len(batches))
    for name in a.trunks.split(","):
        cls = {"plain": PlainTrunk, "fairyzero": FairyzeroTrunk}[name]
        for precision, dtype in [("fp32", torch.float32), ("bf16", torch.bfloat16)]:
            for layout, fmt in [("NCHW", torch.contiguous_format), ("channels-last", torch.channels_last)]:
                model = cls(a.blocks, a.channels).to(device=device, dtype=dtype, memory_format=fmt).eval()
                cells = []
                for b in batches:
                    try:
                        rate = b * time_forward(model, model.inputs(b, h, w, device, dtype, fmt), a.seconds, device)
                        cells.append(f"{rate:,.0f}")
                    except RuntimeError as e:  # out of memory, a dtype the CPU lacks
                        cells.append("error: " + str(e).splitlines()[0][:60])
                print(f"| {name} | {precision} | {layout} | " + " | ".join(cells) + " |", flush=True)
                del model
                if device.type == "cuda":
                    torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
