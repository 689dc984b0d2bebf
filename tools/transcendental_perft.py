#!/usr/bin/env python3
"""Perft of Transcendental Chess (list #6) for rules/tests/data/transcendental.perft: python-chess
legal moves plus, on a side's first turn (fullmove 1), the swaps of two of its first-rank men of
different types. No engine plays the swap; this is an independent count of the same reading."""
import itertools

import chess

import sys
FEN = sys.argv[1] if len(sys.argv) > 1 else "nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/BNRQKRNB w - - 0 1"
def swaps(b, color):
    rank = 0 if color == chess.WHITE else 7
    sq = [chess.square(f, rank) for f in range(8)]
    out = []
    for a, c in itertools.combinations(sq, 2):
        pa, pc = b.piece_at(a), b.piece_at(c)
        if pa and pc and pa.color == color and pc.color == color and pa.piece_type != pc.piece_type:
            out.append((a, c))
    return out
def apply_swap(b, s):
    b2 = b.copy(stack=False)
    a, c = s
    pa, pc = b2.piece_at(a), b2.piece_at(c)
    b2.set_piece_at(a, pc); b2.set_piece_at(c, pa)
    b2.turn = not b2.turn
    if b2.turn == chess.WHITE: b2.fullmove_number += 1
    b2.ep_square = None
    return b2
def actions(b):
    res = []
    for m in b.legal_moves:
        b2 = b.copy(stack=False); b2.push(m); res.append(b2)
    if b.fullmove_number == 1:
        for s in swaps(b, b.turn):
            res.append(apply_swap(b, s))
    return res
def perft(b, d):
    if d == 0: return 1
    acts = actions(b)
    if d == 1: return len(acts)
    return sum(perft(x, d - 1) for x in acts)
b = chess.Board(FEN)
print([perft(b, d) for d in (1, 2, 3)])
