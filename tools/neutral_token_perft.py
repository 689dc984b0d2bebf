#!/usr/bin/env python3
"""Perft of the neutral-token games (list #43 Shadow, #44 Imitator, #45 Salt Shaker) for
rules/tests/data/{shadow,imitator,saltshaker}.perft: an independent count of the rulings of
rules/src/movegen/neutral_token.rs on top of python-chess's pseudo-legal chess moves. No engine
plays these games.

The token is a square `token` outside python-chess's board. A move is kept when its man does not
land on or pass the token, and the token can copy its displacement (the king's when castling) on
the board after the move: on the board; with `clear` paths, the squares it passes empty (a
knight's leap has none, a pawn's double step one); without `captures`, its landing square empty.
A capturing token removes the man it lands on. Check: the opponent has a pseudo-legal move kept
by the same test that takes the king, with a man or by landing a capturing token on it.
Castling is generated here (python-chess's own castling judges check without the token).

usage: neutral_token_perft.py VARIANT FEN-WITH-* DEPTH...
"""
import sys

import chess

RULES = {"shadow": (False, True), "imitator": (False, True), "saltshaker": (True, False)}


def split_fen(fen):
    """python-chess FEN and the token square of a fairyzero FEN (the token written '*')."""
    board, rest = fen.split(" ", 1)
    ranks = board.split("/")
    token = None
    out = []
    for i, r in enumerate(ranks):
        rank = 7 - i
        f = 0
        s = ""
        empty = 0
        for c in r:
            if c.isdigit():
                empty += int(c)
                f += int(c)
            elif c == "*":
                token = chess.square(f, rank)
                empty += 1
                f += 1
            else:
                if empty:
                    s += str(empty)
                    empty = 0
                s += c
                f += 1
        if empty:
            s += str(empty)
        out.append(s)
    return "/".join(out) + " " + rest, token


def line(a, b):
    """Squares strictly between a and b on a rank, file or diagonal (empty otherwise)."""
    fa, ra, fb, rb = chess.square_file(a), chess.square_rank(a), chess.square_file(b), chess.square_rank(b)
    dx, dy = fb - fa, rb - ra
    if not (dx == 0 or dy == 0 or abs(dx) == abs(dy)):
        return []
    n = max(abs(dx), abs(dy))
    sx, sy = (dx > 0) - (dx < 0), (dy > 0) - (dy < 0)
    return [chess.square(fa + k * sx, ra + k * sy) for k in range(1, n)]


def shift(sq, dx, dy):
    f, r = chess.square_file(sq) + dx, chess.square_rank(sq) + dy
    return chess.square(f, r) if 0 <= f < 8 and 0 <= r < 8 else None


class Game:
    def __init__(self, variant):
        self.captures, self.clear = RULES[variant]

    def castles(self, b, token):
        """Castling moves of the side to move (king e-file, rooks a/h), token-aware."""
        out = []
        us = b.turn
        rank = 0 if us == chess.WHITE else 7
        king = chess.square(4, rank)
        if b.piece_at(king) != chess.Piece(chess.KING, us):
            return out
        for rook_file, king_to_file, rook_to_file, has in (
            (7, 6, 5, b.has_kingside_castling_rights(us)),
            (0, 2, 3, b.has_queenside_castling_rights(us)),
        ):
            if not has:
                continue
            rook = chess.square(rook_file, rank)
            lo, hi = min(4, rook_file, king_to_file, rook_to_file), max(4, rook_file, king_to_file, rook_to_file)
            span = [chess.square(f, rank) for f in range(lo, hi + 1)]
            if any(s not in (king, rook) and b.piece_at(s) is not None for s in span):
                continue
            if token in span:
                continue
            kspan = [chess.square(f, rank) for f in range(min(4, king_to_file), max(4, king_to_file) + 1)]
            if any(self.attacked(b, token, s, not us) for s in kspan):
                continue
            out.append(chess.Move(king, chess.square(king_to_file, rank)))
        return out

    def pseudo(self, b, token):
        """(move, board after with the token moved, new token) for every move the token allows."""
        out = []
        moves = [m for m in b.generate_pseudo_legal_moves() if not b.is_castling(m)] + self.castles(b, token)
        for m in moves:
            r = self.apply(b, token, m)
            if r is not None:
                out.append((m, r[0], r[1]))
        return out

    def apply(self, b, token, m):
        castle = b.is_castling(m)
        piece = b.piece_at(m.from_square)
        path = line(m.from_square, m.to_square) if piece.piece_type != chess.KNIGHT else []
        if m.to_square == token or token in path:
            return None
        dx = chess.square_file(m.to_square) - chess.square_file(m.from_square)
        dy = chess.square_rank(m.to_square) - chess.square_rank(m.from_square)
        after = b.copy(stack=False)
        after.push(m)
        dest = shift(token, dx, dy)
        if dest is None:
            return None
        if self.clear and piece.piece_type != chess.KNIGHT:
            n = max(abs(dx), abs(dy))
            sx, sy = (dx > 0) - (dx < 0), (dy > 0) - (dy < 0)
            for k in range(1, n):
                s = shift(token, k * sx, k * sy)
                if after.piece_at(s) is not None:
                    return None
        if after.piece_at(dest) is not None:
            if not self.captures:
                return None
            after.remove_piece_at(dest)
            # python-chess keeps castling rights in a bitmask: a rook taken off its square loses
            # its right (clean_castling_rights reads the board).
            after.castling_rights = after.clean_castling_rights()
        return after, dest

    def capture_on(self, b, token, sq, by):
        """Whether `by` (to move or not) has a kept move that captures on sq."""
        b2 = b.copy(stack=False)
        b2.turn = by
        b2.ep_square = b.ep_square if b.turn == by else None
        for m in [m for m in b2.generate_pseudo_legal_moves() if not b2.is_castling(m)] + (
            self.castles(b2, token) if b.turn == by else []
        ):
            r = self.apply(b2, token, m)
            if r is None:
                continue
            if m.to_square == sq and b2.piece_at(sq) is not None and b2.piece_at(sq).color != by:
                return True
            if self.captures and r[1] == sq and b2.piece_at(sq) is not None:
                return True
        return False

    def attacked(self, b, token, sq, by):
        if sq == token:
            return False
        p = b.piece_at(sq)
        if p is not None and p.color != by:
            return self.capture_on(b, token, sq, by)
        b2 = b.copy(stack=False)
        # A man of the other side stands there for the test (its type does not matter).
        b2.set_piece_at(sq, chess.Piece(chess.KNIGHT, not by))
        return self.capture_on(b2, token, sq, by)

    def legal(self, b, token):
        us = b.turn
        out = []
        for m, after, t in self.pseudo(b, token):
            king = after.king(us)
            if king is None:
                continue
            if self.capture_on(after, t, king, not us):
                continue
            out.append((m, after, t))
        return out

    def perft(self, b, token, d):
        ms = self.legal(b, token)
        if d == 1:
            return len(ms)
        return sum(self.perft(a, t, d - 1) for _, a, t in ms)


if __name__ == "__main__":
    variant, fen = sys.argv[1], sys.argv[2]
    board_fen, token = split_fen(fen)
    g = Game(variant)
    b = chess.Board(board_fen)
    print(" ".join(str(g.perft(b, token, int(d))) for d in sys.argv[3:]))
