#!/usr/bin/env python3
"""A second, independent reading of the rules: a small move generator for the pieces that the
move-list examples of scirocco.md §8.1 and typhoon.md §9.1 use, written from the dossiers' prose
(not from the engine), that checks every `example` block of scirocco.examples / typhoon.examples.
It was used to verify the transcribed data; it is not a rules implementation (only the examined
piece's moves are generated, King promotion type and game end are not modelled).

    python3 rules/tests/examples/reference_check.py [FILE.examples ...]
"""
import re
import sys

N = 12
FILES = "abcdefghijkl"
ZONE = {"B": range(8, 12), "T": range(0, 4)}
TYPHOON_UNPROMOTED = UNPROMOTED = {"FH", "GW", "MA", "PR", "ST", "GO", "CI", "SA", "GG", "FL", "K", "CO", "CU", "HU", "C", "BD", "A", "D",
              "W", "F", "OT", "BE", "OV", "UN", "CH", "WA", "N", "DER", "SG", "CG", "DEL", "BT", "FU", "P", "GU", "LA", "BA"}
ORTH = [(1, 0), (-1, 0), (0, 1), (0, -1)]
DIAG = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
QUEEN = ORTH + DIAG
KNIGHT = [(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)]


def name(sq):
    return f"{FILES[sq[0]]}{sq[1] + 1}"


def idx(sq):
    return sq[1] * N + sq[0]


def on(sq):
    return 0 <= sq[0] < N and 0 <= sq[1] < N


def add(a, b, k=1):
    return (a[0] + k * b[0], a[1] + k * b[1])


def parse_fen(fen):
    rows, side = fen.split()
    board = {}
    for i, row in enumerate(rows.split("/")):
        r = N - 1 - i
        f = 0
        for m in re.finditer(r"(\d+)|\((\w+)\)|(\w)", row):
            if m.group(1):
                f += int(m.group(1))
                continue
            tok = m.group(2) or m.group(3)
            board[(f, r)] = ("B" if tok.isupper() else "T", tok.upper())
            f += 1
    return board, "B" if side == "w" else "T"


class Pos:
    def __init__(self, board):
        self.b = board

    def col(self, sq):
        p = self.b.get(sq)
        return p[0] if p else None

    def empty(self, sq):
        return on(sq) and sq not in self.b

    def enemy(self, sq, c):
        return on(sq) and sq in self.b and self.b[sq][0] != c

    def friend(self, sq, c):
        return on(sq) and sq in self.b and self.b[sq][0] == c

    def immobilized(self, sq):
        c = self.col(sq)
        return any(self.b.get(add(sq, d)) == (other(c), "IM") for d in QUEEN)


def other(c):
    return "T" if c == "B" else "B"


def fw(c):
    return 1 if c == "B" else -1


class Gen:
    """Collects moves of one piece: list of dicts(to, caps, conv, swap, kind, own)."""

    def __init__(self, pos, sq):
        self.p, self.sq = pos, sq
        self.c, self.t = pos.b[sq]
        self.moves = []

    def mv(self, to, caps=(), kind="step", conv=None, own=True):
        self.moves.append(dict(to=to, caps=set(caps), kind=kind, conv=conv, own=own))

    def leap(self, vecs, mode="mc"):
        for v in vecs:
            t = add(self.sq, v)
            if not on(t):
                continue
            if self.p.empty(t) and "m" in mode:
                self.mv(t)
            elif self.p.enemy(t, self.c) and "c" in mode:
                self.mv(t, [t])

    def slide(self, dirs, maxn=N, mode="mc"):
        for d in dirs:
            for k in range(1, maxn + 1):
                t = add(self.sq, d, k)
                if not on(t):
                    break
                if self.p.empty(t):
                    if "m" in mode:
                        self.mv(t)
                    continue
                if self.p.enemy(t, self.c) and "c" in mode:
                    self.mv(t, [t])
                break

    def rel(self, vecs):
        f = fw(self.c)
        return [(x, y * f) for x, y in vecs]

    def own(self):
        t, c, sq, p = self.t, self.c, self.sq, self.p
        F = fw(c)
        fwd, back = (0, F), (0, -F)
        side = [(1, 0), (-1, 0)]
        if t in ("K", "CO"):
            self.leap(QUEEN)
        elif t == "P":
            self.leap([fwd], "m")
            self.leap([(1, F), (-1, F)], "c")
        elif t == "GU":
            self.leap(ORTH, "m")
            self.leap(DIAG, "c")
        elif t == "Q":
            self.slide(QUEEN)
        elif t == "R":
            self.slide(ORTH)
        elif t == "B":
            self.slide(DIAG)
        elif t == "N":
            self.leap(KNIGHT)
        elif t == "SG":
            self.leap(DIAG + [fwd])
        elif t == "DEL":
            self.leap(DIAG + [fwd] + side)
        elif t == "BT":
            self.leap(DIAG + side + [back])
        elif t == "DER":
            self.leap([(2 * x, 2 * y) for x, y in QUEEN])
        elif t == "HA":
            self.slide(QUEEN, 3, "m")
        elif t == "IM":
            self.slide(QUEEN, N, "m")
        elif t == "EM" and VARIANT == "scirocco":
            self.leap(ORTH + [(2 * x, 2 * y) for x, y in QUEEN])
        elif t == "EM":
            self.leap(KNIGHT)
            self.slide(QUEEN, 2)
        elif t == "GO":
            self.leap([(2 * x, 2 * y) for x, y in ORTH])
            self.leap(DIAG, "m")
        elif t == "W":
            self.leap(ORTH)
        elif t == "F":
            self.leap(DIAG)
        elif t == "GE":
            self.slide(QUEEN, 3)
            for d in QUEEN:
                if p.enemy(add(sq, d), c):
                    self.mv(sq, [add(sq, d)], kind="igui")
        elif t in ("ZI", "ZA"):
            step, hop = (ORTH, DIAG) if t == "ZI" else (DIAG, ORTH)
            self.leap(step + [(2 * x, 2 * y) for x, y in step])
            for d in hop:
                if p.enemy(add(sq, d), c) and p.empty(add(sq, d, 2)):
                    self.mv(add(sq, d, 2), [add(sq, d)])
        elif t in ("OC", "SP"):
            first = DIAG if t == "OC" else ORTH
            for d in first:
                x = add(sq, d)
                if not p.empty(x):
                    continue
                self.mv(x)
                if t == "OC":
                    outs = [(d[0], 0), (0, d[1])]
                else:
                    outs = [(1, d[1]), (-1, d[1])] if d[0] == 0 else [(d[0], 1), (d[0], -1)]
                for e in outs:
                    for k in range(1, N):
                        s = add(x, e, k)
                        if not on(s):
                            break
                        if p.empty(s):
                            self.mv(s)
                            continue
                        if p.enemy(s, c):
                            self.mv(s, [s])
                        break
        elif t == "WA":
            for d in ORTH:
                if not p.empty(add(sq, d)):
                    continue
                for k in range(2, N):
                    s = add(sq, d, k)
                    if not on(s):
                        break
                    if p.empty(s):
                        self.mv(s)
                        continue
                    if p.enemy(s, c):
                        self.mv(s, [s])
                    break
        elif t == "VU":
            self.leap(QUEEN)
            self.slide(DIAG, N, "m")
            self.slide(ORTH, N, "c")
        elif t == "TA":
            self.leap(DIAG + [(3 * x, 3 * y) for x, y in ORTH])
            self.leap(ORTH, "c")
        elif t == "ST":
            self.leap([(2 * x, 2 * y) for x, y in DIAG])
            self.leap(ORTH, "c")
        elif t == "AB":
            self.leap(KNIGHT)
            self.slide(DIAG, 4)
        elif t == "EE":
            for x in range(-3, 4):
                for y in range(-3, 4):
                    if (x, y) != (0, 0):
                        self.leap([(x, y)], "m")
            for d in QUEEN:
                for k in range(1, N):
                    s = add(sq, d, k)
                    if not on(s):
                        break
                    if s in p.b:
                        if p.enemy(s, c):
                            self.mv(sq, [s], kind="igui")
                        break
        elif t == "CI":
            self.leap(QUEEN, "m")
            for d in QUEEN:
                for k in (2, 3):
                    s = add(sq, d, k)
                    if not on(s):
                        continue
                    if any(add(sq, d, j) in p.b for j in range(1, k)) and (p.empty(s) or p.enemy(s, c)):
                        self.mv(s, [s] if p.enemy(s, c) else [])
        elif t == "TY":
            for d in QUEEN:
                caps = []
                for k in (1, 2, 3):
                    s = add(sq, d, k)
                    if not on(s) or p.friend(s, c):
                        break
                    if p.enemy(s, c):
                        caps.append(s)
                    self.mv(s, list(caps))
        elif t == "SA":
            self.leap(QUEEN)
            for d in QUEEN:
                for k in range(1, 5):
                    s = add(sq, d, k)
                    if not p.empty(s):
                        break
                    if k >= 2 and any(p.friend(add(s, e), c) and add(s, e) != sq for e in QUEEN):
                        self.mv(s)
        elif t == "LO":
            self.slide(QUEEN, N, "m")
            for d in QUEEN:
                caps, k = [], 1
                while True:
                    s = add(sq, d, k)
                    if not on(s):
                        break
                    if p.empty(s):
                        if caps:
                            self.mv(s, list(caps))
                        k += 1
                        continue
                    if p.enemy(s, c) and p.empty(add(s, d)):
                        caps.append(s)
                        k += 1
                        continue
                    break
        elif t in ("CU", "HU"):
            self.leap(side + [back, (0, 2 * F)])
            if t == "CU":
                for s in (add(sq, fwd), add(sq, (1, 0)), add(sq, (-1, 0)), add(sq, back, 2)):
                    if p.enemy(s, c):
                        self.mv(sq, kind="convert", conv=s)
            else:
                for s in [add(sq, d) for d in ORTH] + [add(sq, fwd, 2), add(sq, back, 2)]:
                    if on(s) and s in p.b:
                        self.mv(s, kind="swap")
        elif t in ("MI", "SO"):
            for d in QUEEN:
                for k in (1, 2):
                    s = add(sq, d, k)
                    if not p.empty(s):
                        break
                    n1 = add(s, d)
                    if t == "MI":
                        self.mv(s, conv=n1 if p.enemy(n1, c) else None)
                    else:
                        caps, j = [], 1
                        while p.enemy(add(s, d, j), c):
                            caps.append(add(s, d, j))
                            j += 1
                        self.mv(s, caps)
        elif t in ("PA", "RA", "HO", "DO"):
            if t == "PA":
                power = ORTH
            elif t == "RA":
                power = DIAG
            elif t == "HO":
                power = [fwd]
                self.slide(DIAG, 4)
                self.leap([(2, 0), (-2, 0), (0, -2 * F)])
            else:
                power = [(1, F), (-1, F)]
                self.slide(ORTH, 4)
                self.leap([(2, -2 * F), (-2, -2 * F)])
            for d in power:
                x1, x2 = add(sq, d), add(sq, d, 2)
                self.leap([d, (2 * d[0], 2 * d[1])])
                if p.enemy(x1, c):
                    self.mv(sq, [x1], kind="igui")
                    if p.empty(x2):
                        self.mv(x2, [x1])
                    elif p.enemy(x2, c):
                        self.mv(x2, [x1, x2])
            self.mv(None, kind="pass")
        elif t == "OV":
            self.leap(QUEEN, "m")
            for d in QUEEN:
                if p.enemy(add(sq, d), c) and p.empty(add(sq, d, 2)):
                    self.mv(add(sq, d, 2), [add(sq, d)])
        elif t == "UN":
            for d in QUEEN:
                s = add(sq, d)
                if p.empty(s):
                    w = add(sq, d, -1)
                    self.mv(s, [w] if p.enemy(w, c) else [])
        elif t == "EP":
            self.leap(QUEEN, "m")
            self.leap(KNIGHT + [(2 * x, 2 * y) for x, y in DIAG], "c")
        elif t == "TP":
            self.leap(QUEEN, "m")
            self.leap(KNIGHT + [(2 * x, 2 * y) for x, y in ORTH], "c")
        elif t == "FH":
            self.slide([fwd])
            self.leap([v for v in KNIGHT if v[1] * F < 0])
        elif t == "GW":
            self.slide([fwd])
            self.leap([(1, -F), (-1, -F)])
        elif t in ("DA", "NR"):
            if t == "DA":
                self.leap(QUEEN, "m")
                vecs = [(2 * x, 2 * y) for x, y in QUEEN]
            else:
                vecs = KNIGHT
            for v in vecs:
                k = 1
                while True:
                    s = add(sq, v, k)
                    if not on(s):
                        break
                    if p.empty(s):
                        self.mv(s)
                        k += 1
                        continue
                    if p.enemy(s, c):
                        self.mv(s, [s])
                    break
        elif t == "OT":
            self.leap(DIAG + [fwd])
            self.slide(side, 4)
        elif t == "BE":
            self.leap([(1, F), (-1, F), fwd])
            self.slide(side, 4)
            self.slide([back])
        elif t == "IB":
            self.leap(QUEEN)
            self.slide(ORTH, N, "m")
            self.slide(DIAG, N, "c")
        else:
            raise NotImplementedError(t)

    def relayed(self):
        p, sq, c = self.p, self.sq, self.c
        out = []
        for d in QUEEN:
            v = add(sq, d)
            if not on(v):
                continue
            if p.b.get(v) == (c, "DER") and not p.immobilized(v):
                u = (-d[0], -d[1])  # piece = V + u
                if u in ORTH:
                    out.append(add(v, u, -1))
                    w = [(1, 0), (-1, 0)] if u[0] == 0 else [(0, 1), (0, -1)]
                    out += [add(v, x) for x in w]
                else:
                    out.append(add(v, u, -1))
        for d in QUEEN:
            for k in (1, 2, 3):
                h = add(sq, d, k)
                if not on(h):
                    break
                if h in p.b:
                    if p.b[h] == (c, "HA") and not p.immobilized(h):
                        out += [add(sq, n) for n in KNIGHT]
                    break
        return [t for t in out if on(t) and not p.friend(t, c)]

    def all_moves(self):
        imm = self.p.immobilized(self.sq)
        if not imm:
            self.own()
        own_dests = {m["to"] for m in self.moves if m["kind"] == "step"}
        for t in sorted(set(self.relayed())):
            if t in own_dests:
                continue
            self.mv(t, [t] if self.p.enemy(t, self.c) else [], own=False)
        if imm:
            self.mv(self.sq, kind="self")
        out = []
        for m in self.moves:
            out += self.render(m)
        return out

    def render(self, m):
        sq, to = self.sq, m["to"]
        if m["kind"] == "pass":
            return ["pass"]
        if m["kind"] == "self":
            return [f"{name(sq)}{name(sq)}*"]
        if m["kind"] == "convert":
            return [f"{name(sq)}{name(sq)}~{name(m['conv'])}"]
        s = name(sq) + name(to)
        for cap in sorted((x for x in m["caps"] if x != to), key=idx):
            s += "x" + name(cap)
        if m["conv"]:
            s += "~" + name(m["conv"])
        if m["kind"] == "swap":
            s += "^"
        out = [s]
        zone = ZONE[self.c]
        if (m["own"] and m["kind"] in ("step", "swap") and self.t in UNPROMOTED
                and (sq[1] in zone or to[1] in zone)):
            out.append(s + "+")
        return out


VARIANT = "typhoon"


def main(path):
    global N, ZONE, VARIANT, UNPROMOTED
    if "scirocco" in path:
        VARIANT, N = "scirocco", 10
        ZONE = {"B": range(7, 10), "T": range(0, 3)}
        UNPROMOTED = {"P", "GU", "PR", "SC", "K", "W", "F", "CO", "MA", "CH", "A", "ST", "N", "C", "DER", "GO",
                      "D", "WA"}
    else:
        VARIANT, N = "typhoon", 12
        ZONE = {"B": range(8, 12), "T": range(0, 4)}
        UNPROMOTED = TYPHOON_UNPROMOTED
    text = open(path).read()
    bad = 0
    n = 0
    for block in re.split(r"\n(?=example )", text)[1:]:
        ex_id = re.search(r"example (\S+)", block).group(1)
        fen = re.search(r"position (.*)", block).group(1)
        sq = re.search(r"piece (\S+)", block).group(1)
        want = set(re.search(r"moves (.*)", block).group(1).split())
        board, side = parse_fen(fen)
        s = (FILES.index(sq[0]), int(sq[1:]) - 1)
        got = set(Gen(Pos(board), s).all_moves())
        n += 1
        if got != want:
            bad += 1
            print(f"{ex_id}: missing {sorted(want - got)} extra {sorted(got - want)}")
    print(f"{path}: {n} move-list examples, {bad} differ")
    return bad


if __name__ == "__main__":
    here = __import__("pathlib").Path(__file__).resolve().parent
    paths = sys.argv[1:] or [str(here / "scirocco.examples"), str(here / "typhoon.examples")]
    sys.exit(1 if sum(main(p) for p in paths) else 0)
