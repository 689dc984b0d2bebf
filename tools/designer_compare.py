#!/usr/bin/env python3
"""Puts the three piece-value methods side by side, in their raw units, with Spearman rank
correlations between them: `piece-values --method probe,fit` CSVs of a net and its self-play
games, and the material-imbalance matches' Elo from a Markdown table (docs/results.md's first
Scirocco table, column "matches").

    tools/designer_compare.py PROBE_FIT_DIR [MATCHES_TABLE.md]

Prints a Markdown table (bold where the 95% interval excludes zero) and the correlations.
"""
import csv
import re
import sys
from pathlib import Path


def read_csv(path):
    with open(path) as f:
        return {row["piece"]: row for row in csv.DictReader(f)}


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2
        i = j + 1
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra) ** 0.5
    vb = sum((y - mb) ** 2 for y in rb) ** 0.5
    return cov / (va * vb)


def cell(value, low, high, scale=1.0, digits=1):
    v, lo, hi = (float(x) * scale for x in (value, low, high))
    text = f"{v:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]"
    return f"**{text}**" if lo > 0 or hi < 0 else text


def main():
    d = Path(sys.argv[1])
    probe, fit = read_csv(d / "piece-values-probe.csv"), read_csv(d / "piece-values-fit.csv")
    matches = {}
    if len(sys.argv) > 2:
        # Rows like "| D (Dabbaba) | removed | -25 [-99, +49] | ..."
        for line in Path(sys.argv[2]).read_text().splitlines():
            m = re.match(r"\| (\w+) \([^)]*\) \| \w+ \| \**([+-]?\d+) \[([+-]?\d+), ([+-]?\d+)\]", line)
            if m and m.group(1) not in matches:
                matches[m.group(1)] = tuple(float(x) for x in m.group(2, 3, 4))
    pieces = sorted(probe, key=lambda p: float(fit[p]["raw"]) if p in fit else 0.0)
    head = "| piece | imbalance | fit: result per piece, x100 | probe: Elo of the net's value |"
    sep = "|---|---|---|---|"
    if matches:
        head = "| piece | imbalance | matches: Elo of one more | fit: result per piece, x100 | probe: Elo of the net's value |"
        sep = "|---|---|---|---|---|"
    print(head)
    print(sep)
    for p in pieces:
        pr, fi = probe[p], fit.get(p)
        fit_cell = cell(fi["raw"], fi["raw_low"], fi["raw_high"], 100.0) if fi else "-"
        probe_cell = cell(pr["raw"], pr["raw_low"], pr["raw_high"])
        row = [p, pr["imbalance"]]
        if matches:
            mv = matches.get(p)
            row.append(cell(*mv, digits=0) if mv else "-")
        row += [fit_cell, probe_cell]
        print("| " + " | ".join(row) + " |")
    common = [p for p in pieces if p in fit]
    print()
    print(f"Spearman, fit vs probe over {len(common)} types: "
          f"{spearman([float(fit[p]['raw']) for p in common], [float(probe[p]['raw']) for p in common]):+.2f}")
    if matches:
        both = [p for p in common if p in matches]
        print(f"Spearman, matches vs fit over {len(both)} types: "
              f"{spearman([matches[p][0] for p in both], [float(fit[p]['raw']) for p in both]):+.2f}")
        print(f"Spearman, matches vs probe over {len(both)} types: "
              f"{spearman([matches[p][0] for p in both], [float(probe[p]['raw']) for p in both]):+.2f}")
    sep_fit = sum(1 for p in common if float(fit[p]["raw_low"]) > 0 or float(fit[p]["raw_high"]) < 0)
    sep_probe = sum(1 for p in pieces if float(probe[p]["raw_low"]) > 0 or float(probe[p]["raw_high"]) < 0)
    print(f"separated from zero: fit {sep_fit} of {len(common)}, probe {sep_probe} of {len(pieces)}")


if __name__ == "__main__":
    main()
