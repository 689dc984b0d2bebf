#!/usr/bin/env python3
"""Perft of Reflex Chess (list #3) for rules/tests/data/reflex.perft: python-chess legal moves
plus the must-mate rule, written independently of the engine from the row's text ("whenever a
player having the move can give mate, it must be given"):

- when any of the side to move's chess-legal moves checkmates, only the checkmating moves are
  legal;
- a checkmated or stalemated side has no moves (the reversed result, "the player who is mated
  wins", changes who wins, not which moves exist, so it does not show in perft).

Whether a move mates is python-chess's own `is_checkmate()` after it: the filter never empties
a non-empty list, so the mated side's having no move does not depend on the filter.
Usage: reflex_perft.py [FEN] [DEPTH]; prints perft 1..DEPTH."""
import sys

import chess


def legal(board):
    """The Reflex Chess legal moves of `board`."""
    moves = list(board.legal_moves)
    mates = []
    for mv in moves:
        board.push(mv)
        if board.is_checkmate():
            mates.append(mv)
        board.pop()
    return mates or moves


def perft(board, depth):
    moves = legal(board)
    if depth == 1:
        return len(moves)
    total = 0
    for mv in moves:
        board.push(mv)
        total += perft(board, depth - 1)
        board.pop()
    return total


if __name__ == "__main__":
    fen = sys.argv[1] if len(sys.argv) > 1 else chess.STARTING_FEN
    depth = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    b = chess.Board(fen)
    print(" ".join(str(perft(b, d)) for d in range(1, depth + 1)))
