#!/usr/bin/env python3
"""Perft of the historical 13x13 zebra/camel game (list #56) for rules/tests/data/zebra13.perft:
a pure-Python move generator written independently of the engine from the rulings in
configs/variants/zebra13.toml (docs/reference-variants.md §3.26):

- zebra: one diagonal step to an empty square, then 3 or more squares orthogonally outward
  (the two orthogonal directions with a positive dot product with the step), every square
  before the last empty; it may end on an empty square or capture an enemy there;
- queen: one diagonal step (ferz); fers: the (2,2) leap (alfil); archbishop: bishop + knight;
  camel: the (3,1) leap; knight, rook, king as in chess;
- pawns: one step forward to an empty square, capture one step diagonally forward; reaching the
  last rank they promote to a queen only; no double step, no en passant, no castling;
- a move may not leave the mover's king attacked (checkmate / stalemate are perft's leaves).

Positions are fairyzero position strings (13 files a-m, ranks 1-13; castling and en-passant
fields '-'). Usage: zebra13_perft.py [FEN] [DEPTH] [--divide]; prints perft 1..DEPTH."""
import sys

N = 13
START = "rnfaczkqcafnr/13/13/ppppppppppppp/13/13/13/13/13/PPPPPPPPPPPPP/13/13/RNFACZKQCAFNR w - - 0 1"

ORTH = [(1, 0), (-1, 0), (0, 1), (0, -1)]
DIAG = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
KNIGHT = [(a * x, b * y) for (a, b) in [(1, 2), (2, 1)] for x in (1, -1) for y in (1, -1)]
CAMEL = [(a * x, b * y) for (a, b) in [(1, 3), (3, 1)] for x in (1, -1) for y in (1, -1)]
ALFIL = [(2 * x, 2 * y) for (x, y) in DIAG]
KING = ORTH + DIAG


def on(x, y):
    return 0 <= x < N and 0 <= y < N


def parse(fen):
    fields = fen.split()
    board = {}
    rows = fields[0].split("/")
    assert len(rows) == N, fen
    for i, row in enumerate(rows):
        y = N - 1 - i
        x = 0
        num = ""
        for ch in row + "/":
            if ch.isdigit():
                num += ch
                continue
            if num:
                x += int(num)
                num = ""
            if ch == "/":
                break
            board[(x, y)] = ch
            x += 1
        assert x == N, (fen, row)
    return board, fields[1] == "w"


def white(p):
    return p.isupper()


def name(sq):
    return "abcdefghijklm"[sq[0]] + str(sq[1] + 1)


def zebra_targets(board, x, y):
    """Squares a zebra on (x, y) reaches, by the ruling above (occupancy rules applied by caller:
    the last square may hold anything, the earlier ones are empty)."""
    out = []
    for dx, dy in DIAG:
        bx, by = x + dx, y + dy
        if not on(bx, by) or (bx, by) in board:
            continue
        for ex, ey in ((dx, 0), (0, dy)):
            n = 1
            while True:
                tx, ty = bx + n * ex, by + n * ey
                if not on(tx, ty):
                    break
                occupied = (tx, ty) in board
                if n >= 3:
                    out.append((tx, ty))
                if occupied:
                    break
                n += 1
    return out


def pseudo(board, w):
    moves = []
    for (x, y), p in list(board.items()):
        if white(p) != w:
            continue
        k = p.upper()
        targets = []
        if k == "P":
            fy = 1 if w else -1
            last = N - 1 if w else 0
            t = (x, y + fy)
            if on(*t) and t not in board:
                moves.append(((x, y), t, "q" if t[1] == last else ""))
            for dx in (1, -1):
                t = (x + dx, y + fy)
                if on(*t) and t in board and white(board[t]) != w:
                    moves.append(((x, y), t, "q" if t[1] == last else ""))
            continue
        if k in "NA":
            targets += [(x + a, y + b) for a, b in KNIGHT]
        if k == "C":
            targets += [(x + a, y + b) for a, b in CAMEL]
        if k == "F":
            targets += [(x + a, y + b) for a, b in ALFIL]
        if k == "Q":
            targets += [(x + a, y + b) for a, b in DIAG]
        if k == "K":
            targets += [(x + a, y + b) for a, b in KING]
        for dirs in ([ORTH] if k == "R" else []) + ([DIAG] if k == "A" else []):
            for a, b in dirs:
                tx, ty = x + a, y + b
                while on(tx, ty):
                    targets.append((tx, ty))
                    if (tx, ty) in board:
                        break
                    tx, ty = tx + a, ty + b
        if k == "Z":
            targets += zebra_targets(board, x, y)
        for t in targets:
            if on(*t) and (t not in board or white(board[t]) != w):
                moves.append(((x, y), t, ""))
    return moves


def attacked(board, sq, by_white):
    """Whether a man of `by_white`'s colour could capture on `sq`."""
    x, y = sq

    def enemy(t, kinds):
        p = board.get(t)
        return p is not None and white(p) == by_white and p.upper() in kinds

    for a, b in KNIGHT:
        if enemy((x + a, y + b), "NA"):
            return True
    for a, b in CAMEL:
        if enemy((x + a, y + b), "C"):
            return True
    for a, b in ALFIL:
        if enemy((x + a, y + b), "F"):
            return True
    for a, b in DIAG:
        if enemy((x + a, y + b), "QK"):
            return True
    for a, b in ORTH:
        if enemy((x + a, y + b), "K"):
            return True
    # A pawn of `by_white` captures forward-diagonally onto sq: it stands one rank behind.
    py = y - 1 if by_white else y + 1
    for dx in (1, -1):
        t = (x + dx, py)
        if board.get(t) == ("P" if by_white else "p"):
            return True
    for dirs, kinds in ((ORTH, "R"), (DIAG, "A")):
        for a, b in dirs:
            tx, ty = x + a, y + b
            while on(tx, ty):
                if (tx, ty) in board:
                    if enemy((tx, ty), kinds):
                        return True
                    break
                tx, ty = tx + a, ty + b
    # Zebra, walked backwards: from sq along -e for n >= 3 squares (those between empty) to the
    # bend square (empty), then a diagonal step d with d.e > 0 back to the zebra.
    for ex, ey in ORTH:
        n = 1
        while True:
            bx, by = x - n * ex, y - n * ey
            if not on(bx, by) or (bx, by) in board:
                break
            if n >= 3:
                for dx, dy in DIAG:
                    if dx * ex + dy * ey > 0 and enemy((bx - dx, by - dy), "Z"):
                        return True
            n += 1
    return False


def king(board, w):
    for sq, p in board.items():
        if p == ("K" if w else "k"):
            return sq
    return None


def make(board, m, w):
    frm, to, promo = m
    b = dict(board)
    p = b.pop(frm)
    b[to] = (promo.upper() if w else promo) if promo else p
    return b


def legal(board, w):
    out = []
    for m in pseudo(board, w):
        b = make(board, m, w)
        k = king(b, w)
        if k is None or not attacked(b, k, not w):
            out.append((m, b))
    return out


def perft(board, w, depth):
    if depth == 0:
        return 1
    moves = legal(board, w)
    if depth == 1:
        return len(moves)
    return sum(perft(b, not w, depth - 1) for _, b in moves)


def main():
    args = [a for a in sys.argv[1:] if a != "--divide"]
    fen = args[0] if args else START
    depth = int(args[1]) if len(args) > 1 else 3
    board, w = parse(fen)
    if "--divide" in sys.argv:
        for m, b in sorted(legal(board, w), key=lambda mb: name(mb[0][0]) + name(mb[0][1])):
            print(name(m[0]) + name(m[1]) + m[2], perft(b, not w, depth - 1))
        return
    for d in range(1, depth + 1):
        print(f"perft {d} {perft(board, w, d)}", flush=True)


if __name__ == "__main__":
    main()
