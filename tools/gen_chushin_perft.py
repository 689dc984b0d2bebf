#!/usr/bin/env python3
"""Regenerate rules/tests/data/chushin/middlegames.perft: Chushin perft from constructed middlegames.

    python3 tools/gen_chushin_perft.py              # compute with the reference, write the data file
    python3 tools/gen_chushin_perft.py --check      # recompute and compare with the committed file
    python3 tools/gen_chushin_perft.py --stats      # what the first move list of each position holds
    python3 tools/gen_chushin_perft.py --print-fens # the positions only
    python3 tools/gen_chushin_perft.py --random-games 200 [--seed 1] [--engine target/debug/fairyzero]
        # random games from the start; after each, `fairyzero perft --divide` (depth 2, the game
        # given as --moves so that a final pass and a finished game carry over) must print
        # exactly what the reference prints

The numbers come from tools/chushin_reference.py, a move generator written from the dossier's
prose (shared/rules/chushin-shogi.md §7), independently of the Rust one, whose selftest
reproduces the dossier's §11 move lists, §12.2 mobility table and §12.1 perft. Depth 3 of all
positions takes a few minutes of plain Python.

The positions are written square by square below so that a reader sees what is on the board:
every multi-capture piece (Lion family, Lion Dog, Furious Fiend, Fire Demon with burns, range-
capturing generals with pieces to jump, the Heavenly Tetrarch, the Horned Falcon and Soaring
Eagle lines, Free Eagle and Golden Bird) stands next to something it can capture, area movers
(Vice General, Shogun, Horse and Dragon Master) have paths, pieces stand in and next to both
promotion zones (igui in the zone, Drunk Elephant -> royal Crown Prince), and royals can be
taken within the horizon (a side left without a royal has no moves). Every position has pass-
capable pieces, so depth >= 2 exercises "no pass right after a pass". The last position is the
start position after a fixed sequence of moves: the whole army on a crowded board.
"""

import argparse
import os
import random
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chushin_reference as ref  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "rules", "tests", "data", "chushin", "middlegames.perft")
DEPTH = 3

# Upper-case tokens = Sente (moves up), lower-case = Gote; diagram IDs of the dossier §4/§5.
MIDDLEGAMES = {
    "lion family, lion dogs, furious fiends, eagles": (
        "w",
        {
            # Sente
            "i1": "K", "g9": "LN", "k9": "LD", "n10": "FF", "d8": "FE", "p7": "+FE", "f12": "LH",
            "c5": "+LH", "j6": "+KY", "b10": "+RD", "g8": "P", "k8": "P", "l9": "P", "h10": "S",
            "p11": "S", "h13": "P", "k12": "P", "c11": "P", "m14": "G",
            # Gote
            "j18": "k", "h14": "ln", "o12": "ld", "e13": "ff", "j13": "fe", "c12": "+fe", "m15": "lh",
            "q4": "+lh", "f10": "p", "g11": "bt", "h8": "p", "k10": "p", "k11": "g", "m9": "p",
            "o11": "p", "o9": "s", "c9": "p", "e7": "p", "p8": "g", "b11": "n", "c4": "p",
        },
    ),
    "fire demons and area movers (Gote to move)": (
        "b",
        {
            # Sente
            "h1": "K", "h7": "FD", "m12": "+WB", "e10": "VG", "k4": "+LT", "o8": "+VH", "c14": "+VD",
            "g6": "P", "h5": "P", "i9": "P", "j8": "P", "l11": "P", "n13": "P", "k12": "S",
            "h11": "G", "d11": "G", "b8": "R",
            # Gote
            "j17": "k", "j10": "fd", "d6": "+wb", "l14": "vg", "f15": "+rt", "q5": "+vh", "b9": "+vd",
            "g8": "p", "i6": "p", "f9": "g", "l13": "p", "n11": "s", "e11": "p", "c15": "g",
            "k3": "p", "p9": "b", "m6": "s",
        },
    ),
    "range generals, tetrarchs, falcons and eagles": (
        "w",
        {
            # Sente
            "r1": "K", "c3": "BG", "h2": "RG", "j5": "GG", "m3": "VH", "p6": "VD", "f9": "+CS",
            "i12": "+CS", "b8": "HF", "n9": "SE", "k14": "+DH", "e12": "+DK", "d10": "CS",
            "d4": "P", "h4": "P", "j7": "P", "l5": "S", "g10": "G", "m10": "P", "o4": "P",
            # Gote
            "a18": "k", "p16": "bg", "i17": "rg", "e15": "gg", "c12": "vh", "l15": "vd", "k10": "+cs",
            "g14": "hf", "o14": "se", "d5": "+dh", "q11": "+dk", "e5": "p", "f6": "g", "h7": "p",
            "h9": "r", "b9": "p", "n10": "p", "g9": "s", "j13": "p", "f13": "p", "m8": "p",
        },
    ),
    "promotion zones and royals": (
        "w",
        {
            # Sente: the King can be taken at ply 2 unless the Drunk Elephant became a Crown Prince
            "f11": "K", "e12": "DE", "b12": "HF", "g13": "SE", "c16": "LN", "o12": "P", "q10": "L",
            "m11": "N", "k14": "KY", "r13": "LD", "j10": "BG", "p15": "LH", "a13": "RV", "h12": "I",
            # Gote: a Crown Prince and no King, so taking it ends the game
            "j15": "+de", "b13": "p", "f14": "p", "d17": "g", "c17": "s", "b16": "p", "f3": "r",
            "d8": "de", "e6": "p", "h4": "ln", "g5": "hf", "j6": "ld", "k5": "se", "l3": "c",
            "n2": "fl", "m7": "p", "q14": "g", "i16": "p",
        },
    ),
    # Small enough for depth 3 in a debug build: lion moves next to the royals, igui and passes
    # on both sides; Sente's King can be taken at ply 2 but its Crown Prince keeps the game on,
    # Gote's King (its only royal) can be taken at ply 3, which ends the game.
    "lion duel next to the royals": (
        "w",
        {
            "e6": "K", "b3": "+DE", "f7": "LN", "h6": "LD", "g6": "P",
            "h10": "k", "g8": "ff", "j9": "+rt", "i8": "p", "e9": "g",
        },
    ),
}

# The start position after these moves (dossier §9.3 notation): both armies complete, the range
# captures of §12.1 available, Lions and Fire Demons out.
OPENING = "g5-o13 n14-o13 h5-h14 i14-h14 h2-f2 k17-m17 i6-i7 j13-j12 i3-h5 h15-l11"


def fen_of(side, pieces):
    board = [0] * ref.SQUARES
    for sq, token in pieces.items():
        colour = 1 if token.lstrip("+").isupper() else -1
        board[ref.parse_square(sq)] = colour * ref.NUMBER_OF_ID[token.upper()]
    return ref.Position(board, 1 if side == "w" else -1).fen()


def opening_position():
    pos = ref.Position.parse(ref.START)
    for text in OPENING.split():
        by_text = {ref.dossier_notation(m): m for m in pos.moves()}
        if text not in by_text:
            raise ValueError(f"OPENING: {text!r} is not a legal move in {pos.fen()}")
        pos.make(by_text[text])
    return pos.fen()


def positions():
    out = [(name, fen_of(side, pieces)) for name, (side, pieces) in MIDDLEGAMES.items()]
    out.append((f"start position after {OPENING}", opening_position()))
    return out


def stats(fen):
    """Counts of move kinds in the first move list (what the position exercises)."""
    pos = ref.Position.parse(fen)
    moves = pos.moves()
    kinds = {"moves": len(moves)}

    def bump(key):
        kinds[key] = kinds.get(key, 0) + 1

    for o, to, victims, promote in moves:
        if promote:
            bump("promotions")
        if o == to:
            bump("igui" if victims else "passes")
        elif len(victims) == 2:
            bump("two locust victims")
        elif victims:
            bump("one locust/burn victim")
    return kinds


def render(results):
    lines = [
        "# Chushin Shogi perft from constructed middlegames: produced by tools/gen_chushin_perft.py",
        "# with tools/chushin_reference.py, a move generator written from the dossier's prose",
        "# (shared/rules/chushin-shogi.md §7) independently of the Rust one. Re-run:",
        "#     python3 tools/gen_chushin_perft.py           (write)",
        "#     python3 tools/gen_chushin_perft.py --check   (compare)",
        "# Conventions (dossier §9.2, §14): one move per effect, promotion doubling, one pass per",
        "# pass-capable piece, passes allowed at the root but never right after a pass, a side",
        "# without a royal while the other has one means the game is over (no moves).",
        "# Read by rules/tests/chushin_middlegames.rs; a debug build checks the lines up to",
        "# 5,000,000 nodes, all of them: cargo test --release -p fairyzero-rules --test chushin_middlegames",
        "variant chushin",
    ]
    for name, fen, counts in results:
        lines.append(f"# {name}")
        lines.append(f"fen {fen}")
        for depth, nodes in enumerate(counts, start=1):
            lines.append(f"perft {depth} {nodes}")
    return "\n".join(lines) + "\n"


def compute(depth):
    results = []
    for name, fen in positions():
        counts = []
        for d in range(1, depth + 1):
            t = time.time()
            counts.append(ref.perft(ref.Position.parse(fen), d))
            print(f"{name}: perft {d} = {counts[-1]} ({time.time() - t:.1f} s)", file=sys.stderr)
        results.append((name, fen, counts))
    return results


def reference_divide(pos, depth):
    """The text `fairyzero perft --divide` prints: sorted `MOVE: N` rows, then `nodes N`."""
    rows = []
    for m in pos.moves():
        undo = pos.make(m)
        rows.append((ref.fairyzero_notation(m), ref.perft(pos, depth - 1)))
        pos.unmake(undo)
    return "".join(f"{text}: {n}\n" for text, n in sorted(rows)) + f"nodes {sum(n for _, n in rows)}\n"


def random_games(count, seed, engine):
    """Compare engine and reference divides after `count` random games; returns the mismatches."""
    rng = random.Random(seed)
    mismatches = ending_in_pass = finished = 0
    for _ in range(count):
        pos = ref.Position.parse(ref.START)
        played = []
        plies = rng.randint(20, 300)
        for ply in range(plies):
            moves = pos.moves()
            if not moves:
                break
            passes = [m for m in moves if m[0] == m[1] and not m[2]]
            captures = [m for m in moves if m[2] or (m[1] != m[0] and pos.board[m[1]] != 0)]
            if ply == plies - 1 and passes and rng.random() < 0.5:
                moves = passes  # end on a pass half of the time: the next side may not pass
            elif captures and rng.random() < 0.5:
                moves = captures  # thin the board out, reach the zones and the royals
            m = rng.choice(moves)
            played.append(ref.fairyzero_notation(m))
            pos.make(m)
        args = [engine, "perft", "--variant", "chushin", "--moves", ",".join(played), "--depth", "2", "--divide"]
        got = subprocess.run(args, capture_output=True, text=True, check=True).stdout
        ending_in_pass += pos.last_was_pass
        finished += pos.finished()
        if got != reference_divide(pos, 2):
            mismatches += 1
            print(f"MISMATCH after {' '.join(played)}\n  position {pos.fen()}", file=sys.stderr)
    print(f"{count} random games, {mismatches} mismatches ({ending_in_pass} ending in a pass, {finished} finished)")
    return mismatches


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the committed file, write nothing")
    parser.add_argument("--stats", action="store_true", help="the kinds of move at ply 1 of each position")
    parser.add_argument("--print-fens", action="store_true")
    parser.add_argument("--depth", type=int, default=DEPTH)
    parser.add_argument("--random-games", type=int, metavar="N", help="cross-check the engine on N random games")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine", default=os.path.join(ROOT, "target", "debug", "fairyzero"))
    args = parser.parse_args()

    if args.random_games:
        sys.exit(1 if random_games(args.random_games, args.seed, args.engine) else 0)

    if args.print_fens or args.stats:
        for name, fen in positions():
            print(f"# {name}\n{fen}")
            if args.stats:
                print("   ", stats(fen))
        return
    text = render(compute(args.depth))
    if args.check:
        with open(DATA) as fh:
            committed = fh.read()
        if committed != text:
            print(f"{DATA} differs from the reference's numbers", file=sys.stderr)
            sys.exit(1)
        print("the committed data matches the reference")
        return
    os.makedirs(os.path.dirname(DATA), exist_ok=True)
    with open(DATA, "w") as fh:
        fh.write(text)
    print(f"wrote {DATA}")


if __name__ == "__main__":
    main()
