#!/usr/bin/env python3
"""Regenerate rules/tests/data/jupiter.perft: regression perft for Jupiter.

    python3 tools/gen_jupiter_perft.py              # release binary, writes the data file
    python3 tools/gen_jupiter_perft.py --check      # compare with the committed file, write nothing
    python3 tools/gen_jupiter_perft.py --print-fens # the positions only

No engine but fairyzero implements Jupiter and the dossier (../shared/rules/jupiter.md) gives no
perft numbers, so these numbers are produced by fairyzero itself: they catch regressions only.
The ground truth for Jupiter is the hand-derived move lists (rules/tests/jupiter_*.rs) and the
dossier's worked examples (rules/tests/examples/jupiter.examples). Perft counts moves after the
dossier's §9.2 merging (routes, relayed copies and doubled turns with one combined effect are one
move), so a change in merging shows up here.

The middlegames are written square by square below so that a reader sees which powers are on
the board: every effect power of §3.4/§5 stands on at least one of them, most within reach of
something it can act on.
"""

import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "rules", "tests", "data", "jupiter.perft")
FILES = "abcdefghijklmnop"

CANONICAL = (
    "(gw)(haw)(pr)(go)(sa)(cro)(fl)(co)k(gg)(tou)(ci)(st)(ma)(hoo)(fh)/(cbo)(yew)1(tha)1(drd)(lfg)(sdm)(vtm)"
    "(rtg)(drp)1(thi)1(eye)(bln)/(whf)(rlf)(goa)(drt)(int)(vox)(phx)(dni)(kam)(kyl)(fld)(nrt)(oxt)(cmh)(rlw)"
    "(blg)/(hu)(frd)1(bd)1(lfn)dfwa(rtn)1c1(rrd)(cu)/(be)(wba)(un)(wa)(der)(tgo)(cg)(bt)(del)(sg)(twi)n(ch)"
    "(ov)(eba)(ot)/(fu)(ber)(ber)pp(gu)pppp(gu)pp(ber)(ber)(fu)/2(gal)2(ba)4(la)2(gbt)2/16/16/2(GBT)2(LA)4"
    "(BA)2(GAL)2/(FU)(BER)(BER)PP(GU)PPPP(GU)PP(BER)(BER)(FU)/(OT)(EBA)(OV)(CH)N(TWI)(SG)(DEL)(BT)(CG)(TGO)"
    "(DER)(WA)(UN)(WBA)(BE)/(CU)(RRD)1C1(RTN)AWFD(LFN)1(BD)1(FRD)(HU)/(BLG)(RLW)(CMH)(OXT)(NRT)(FLD)(KYL)"
    "(KAM)(DNI)(PHX)(VOX)(INT)(DRT)(GOA)(RLF)(WHF)/(BLN)(EYE)1(THI)1(DRP)(RTG)(VTM)(SDM)(LFG)(DRD)1(THA)1"
    "(YEW)(CBO)/(FH)(HOO)(MA)(ST)(CI)(TOU)(GG)K(CO)(FL)(CRO)(SA)(GO)(PR)(HAW)(GW) w"
)

# Upper-case tokens = Blue, lower-case = Tan (the position string's convention).
MIDDLEGAMES = {
    "doubler and relays": (
        "w",
        {
            "p1": "K", "h4": "DBL", "g5": "RLW", "g6": "W", "c3": "ZOO", "c6": "N", "e2": "TLP",
            "f8": "HA", "j5": "DER", "d4": "RLF", "e9": "NRT", "h8": "R",
            "a16": "k", "h13": "dbl", "h10": "gu", "l12": "psn", "l9": "r", "b15": "co", "e12": "p",
            "j7": "n", "c9": "b",
        },
    ),
    "poison, fire and Kamikaze": (
        "w",
        {
            "p1": "K", "d4": "FID", "f6": "DNI", "b8": "PSN", "b12": "KAM", "g3": "HU", "h7": "Q",
            "m5": "R", "k9": "N",
            "a16": "k", "j11": "fid", "d12": "dni", "n8": "psn", "m12": "kam", "b14": "b", "e13": "p",
            "h12": "gu", "n3": "n",
        },
    ),
    "tanks, magnets and Tribbles": (
        "b",
        {
            "p1": "K", "d3": "OXT", "d4": "P", "d5": "GU", "j3": "DRT", "k4": "N", "f8": "CMH",
            "l9": "GOA", "c10": "TRB", "h6": "HLM", "h7": "P", "i8": "W", "a2": "B",
            "a16": "k", "m14": "oxt", "m13": "gu", "m12": "p", "e13": "drt", "d12": "r", "j10": "cmh",
            "d9": "goa", "n7": "trb", "g11": "hlm", "f11": "p", "p16": "co",
        },
    ),
    "automatic capturers": (
        "w",
        {
            "p1": "K", "o2": "EM", "e5": "INT", "h6": "COO", "k4": "NRT", "c9": "WDR", "m8": "CST",
            "f10": "ROY", "j7": "SO", "n3": "MI", "b3": "LO", "g12": "TY", "a7": "IM", "h2": "Q",
            "a16": "k", "e7": "p", "e8": "n", "h9": "b", "l5": "gu", "d10": "wi", "g9": "li",
            "k8": "r", "n5": "p", "b8": "im", "c14": "em", "j10": "fl",
        },
    ),
    "bent and multi-part movers": (
        "b",
        {
            "p1": "K", "b2": "HOO", "o2": "HAW", "c4": "BOY", "n4": "GIR", "f3": "TOU", "k3": "CRO",
            "d6": "CAP", "m6": "GRH", "b7": "EYE", "o7": "YEW", "e8": "FAQ", "l8": "TAL", "g5": "TIH",
            "j5": "KLI", "a10": "BGN", "p10": "RGN", "h3": "QCN", "i2": "BLN", "g2": "CBO",
            "a16": "k", "c12": "kli", "g12": "tih", "k12": "tou", "n12": "cro", "f10": "p", "h9": "p",
            "j11": "gu", "e14": "bgn", "l14": "rgn", "h14": "qcn", "o15": "hoo", "b13": "hlm",
        },
    ),
    "immobilized doublers and relays": (
        "w",
        {
            "p1": "K", "b2": "IM", "e4": "DBL", "e6": "RLW", "d7": "CH", "g4": "FID", "j9": "TLP",
            "k9": "N", "m2": "SUL", "c12": "P",
            "a16": "k", "b3": "dbl", "c3": "r", "f7": "im", "k14": "dbl", "k11": "ha", "m10": "der",
            "n12": "w", "d14": "aem", "h12": "fid",
        },
    ),
}

# Deepest depth per position; a level is skipped when its estimated node count (the last
# level times the last branching factor) exceeds NODE_CAP, so the script runs in minutes. The
# test runs each line within its own node budget (FZ_PERFT_MAX_NODES in rules/tests/perft.rs).
CASES = [("canonical array", CANONICAL, 4)] + [(name, None, 3) for name in MIDDLEGAMES]
NODE_CAP = 120_000_000


def fen_of(side, squares):
    board = [[None] * 16 for _ in range(16)]
    for sq, token in squares.items():
        f, r = FILES.index(sq[0]), int(sq[1:]) - 1
        assert board[r][f] is None, sq
        board[r][f] = token
    ranks = []
    for r in range(15, -1, -1):
        out, empty = "", 0
        for token in board[r]:
            if token is None:
                empty += 1
                continue
            if empty:
                out += str(empty)
                empty = 0
            out += token if len(token) == 1 else f"({token})"
        if empty:
            out += str(empty)
        ranks.append(out)
    return "/".join(ranks) + " " + side


def positions():
    for name, fen, depth in CASES:
        if fen is None:
            side, squares = MIDDLEGAMES[name]
            fen = fen_of(side, squares)
        yield name, fen, depth


def perft(binary, fen, depth):
    out = subprocess.run(
        [binary, "-q", "perft", "--variant", "jupiter", "--fen", fen, "--depth", str(depth)],
        check=True, capture_output=True, text=True,
    ).stdout
    return int(out.strip().splitlines()[-1].split()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "fairyzero"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--print-fens", action="store_true")
    args = ap.parse_args()
    if args.print_fens:
        for name, fen, _ in positions():
            print(f"{name}: {fen}")
        return
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    lines = [
        "# Jupiter regression perft: produced by fairyzero itself (tools/gen_jupiter_perft.py, at",
        f"# commit {commit}). The dossier gives no Jupiter perft and no other engine plays Jupiter: these",
        "# numbers catch regressions only; the hand-derived move lists are the ground truth.",
        "variant jupiter",
    ]
    for name, fen, depth in positions():
        lines += [f"# {name}", f"fen {fen}"]
        counts = []
        for d in range(1, depth + 1):
            if len(counts) >= 2 and counts[-1] * counts[-1] / counts[-2] > NODE_CAP:
                break
            n = perft(args.binary, fen, d)
            counts.append(n)
            print(f"{name} depth {d}: {n}", file=sys.stderr)
            lines.append(f"perft {d} {n}")
    text = "\n".join(lines) + "\n"
    if args.check:
        old = open(DATA).read()
        strip = lambda t: [l for l in t.splitlines() if not l.startswith("#")]
        if strip(old) != strip(text):
            sys.exit("jupiter.perft differs from what the binary computes now")
        print("jupiter.perft matches", file=sys.stderr)
        return
    tmp = DATA + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, DATA)


if __name__ == "__main__":
    main()
