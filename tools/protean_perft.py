#!/usr/bin/env python3
"""Perft of Protean Chess (list #59) for rules/tests/data/protean.perft: python-chess legal moves
plus the protean rule, written independently of the engine from the rulings in
rules/src/position/protean.rs:

- before play, while choices are left, the side to move's moves are the choices of one of its
  non-king men (the turn passes; nothing else changes);
- a protean man that captures without promoting becomes a man of the captured type (its colour,
  still protean); a capture that promotes keeps the promotion; the mark follows the man (and a
  castling rook); a captured protean man loses its mark for good.

Positions are given as fairyzero position strings (`^` after a protean man's token, a trailing
`choices:<n>` field). Usage: protean_perft.py [FEN] [DEPTH]; prints perft 1..DEPTH."""
import sys

import chess


def parse(fen):
    fields = fen.split()
    choices = 0
    if fields[-1].startswith("choices:"):
        choices = int(fields[-1][len("choices:"):])
        fields = fields[:-1]
    marks = [None, None]  # square of White's, Black's protean man
    board_text = fields[0]
    clean = []
    rank, file = 7, 0
    for ch in board_text:
        if ch == "/":
            rank, file = rank - 1, 0
        elif ch.isdigit():
            file += int(ch)
        elif ch == "^":
            colour = 0 if clean[-1].isupper() else 1
            marks[colour] = chess.square(file - 1, rank)
            continue
        else:
            file += 1
        clean.append(ch)
    fields[0] = "".join(clean)
    return chess.Board(" ".join(fields)), marks, choices


def children(board, marks, choices):
    """(board, marks, choices) after each legal action."""
    us = 0 if board.turn == chess.WHITE else 1
    if choices > 0:
        for sq in chess.SquareSet(board.occupied_co[board.turn]):
            if board.piece_type_at(sq) != chess.KING:
                b = board.copy(stack=False)
                b.turn = not b.turn
                m = list(marks)
                m[us] = sq
                yield b, m, choices - 1
        return
    for mv in board.legal_moves:
        m = list(marks)
        victim = None
        if board.is_en_passant(mv):
            victim = chess.PAWN
        elif board.piece_at(mv.to_square) is not None:
            victim = board.piece_type_at(mv.to_square)
        if m[1 - us] is not None and board.is_capture(mv):
            taken = mv.to_square
            if board.is_en_passant(mv):
                taken = chess.square(chess.square_file(mv.to_square), chess.square_rank(mv.from_square))
            if taken == m[1 - us]:
                m[1 - us] = None
        retype = None
        if board.is_castling(mv):
            rook_from = mv.to_square if board.chess960 else None
            # Standard castling: king e1g1 moves the rook h1f1, e1c1 the rook a1d1.
            rank = chess.square_rank(mv.from_square)
            kingside = chess.square_file(mv.to_square) > chess.square_file(mv.from_square)
            rook_from = chess.square(7 if kingside else 0, rank)
            rook_to = chess.square(5 if kingside else 3, rank)
            if m[us] == rook_from:
                m[us] = rook_to
        elif m[us] == mv.from_square:
            m[us] = mv.to_square
            if victim is not None and mv.promotion is None and victim != chess.KING:
                retype = victim
        b = board.copy(stack=False)
        b.push(mv)
        if retype is not None:
            b.set_piece_at(mv.to_square, chess.Piece(retype, board.turn))
        yield b, m, 0


def perft(board, marks, choices, depth):
    if depth == 0:
        return 1
    if depth == 1:
        return sum(1 for _ in children(board, marks, choices))
    return sum(perft(b, m, c, depth - 1) for b, m, c in children(board, marks, choices))


if __name__ == "__main__":
    fen = sys.argv[1] if len(sys.argv) > 1 else "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 choices:2"
    depth = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    b, marks, choices = parse(fen)
    print(" ".join(str(perft(b, marks, choices, d)) for d in range(1, depth + 1)))
