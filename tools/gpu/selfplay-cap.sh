#!/bin/bash
# Usage on the card: bash tools/gpu/selfplay-cap.sh BINARY (docs/performance.md, "GPU figures").
# Self-play throughput on the card: Scirocco's shipped tiny net at the old default max_batch (64),
# at the per-device default (max_batch = 0: 256 for 512 games on 14 threads, the fix of
# 2026-11-28, not yet run on a card) and at 1,024, and the issue-18 row (Typhoon, untrained 15x192, bf16, 2,048 games, raw executor).
LD_LIBRARY_PATH=$(python3 -c 'import torch,os;print(os.path.dirname(torch.__file__)+"/lib")')
export LD_LIBRARY_PATH
B=${1:-gpubin/fz-gpu}; chmod +x "$B"
S=(bench selfplay --variant scirocco --net models/scirocco --precision fp32 --threads 14 --warmup 5 --seconds 15)
timeout -s KILL 35 "$B" "${S[@]}" --parallel 512 --max-batch 64 > "$OUT"/sci-512-mb64.txt 2>&1
# selfplay-bench.toml (bench's default config) sets max_batch = 64; scirocco.toml leaves it at 0.
timeout -s KILL 35 "$B" "${S[@]}" --config configs/runs/scirocco.toml --parallel 512 > "$OUT"/sci-512-auto.txt 2>&1
timeout -s KILL 35 "$B" "${S[@]}" --parallel 1024 --max-batch 1024 > "$OUT"/sci-1024-mb1024.txt 2>&1
timeout -s KILL 75 "$B" bench selfplay --variant typhoon --net random:15x192 --precision bf16 --parallel 2048 \
  --threads 14 --max-batch 1024 --warmup 10 --seconds 20 --raw > "$OUT"/ty-15x192-bf16.txt 2>&1
nvidia-smi --query-gpu=name --format=csv > "$OUT"/gpu.txt
