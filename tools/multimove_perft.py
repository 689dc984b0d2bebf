#!/usr/bin/env python3
"""Reference perft for the multi-move turn variants (issue 21 rows #11-#16), derived from
python-chess: no engine plays these games, so each rule is written here on top of python-chess's
orthodox move generation, independently of fairyzero's code, and the counts go into
rules/tests/data/<variant>.perft and rules/tests/multimove.rs (the test suite never runs this
script).

A move of a turn is one ply. After a move that leaves the turn going on, a null move hands the
move back to the same side (python-chess's null move also drops the en-passant right, which is
the fairyzero rule: a right lasts one move). Monster Chess's (#15) capture-only pawns are Black's
python-chess pawns with their pushes and en-passant captures taken out (Black has no other pawn).

    python3 tools/multimove_perft.py twomove 4                  # start position, d1-d4
    python3 tools/multimove_perft.py twomove 3 "<FEN>" LEFT TURN  # any position
    python3 tools/multimove_perft.py --write                    # rules/tests/data/<variant>.perft
"""

import os
import sys

import chess

MODE = {
    # name: (moves per turn [white, black], first turn of white, check rule, safe at end [w, b], king capture)
    "twomove": ((2, 2), 2, "ends_turn", (False, False), False),
    "marseillais": ((2, 2), 2, "last_move_only", (False, False), False),
    "doublemove": ((2, 2), 1, "any", (False, False), True),
    "progressive": (None, 1, "ends_turn", (False, False), False),
    "twoforone": ((2, 1), 2, "any", (True, False), False),
    "monster": ((1, 2), 1, "any", (False, True), False),
}

STARTS = {
    "twoforone": "rnbqkbnr/pppppppp/8/8/8/2PPPP2/4K3/8 w kq - 0 1",
    "monster": "8/4k3/2pppp2/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1",
}


class Game:
    def __init__(self, name, fen=None, left=None, turn=None):
        self.moves, self.first, self.check, self.safe, self.capture = MODE[name]
        self.monster = name == "monster"
        self.board = chess.Board(fen or STARTS.get(name, chess.STARTING_FEN))
        self.turn = turn or 1  # the game's turn index (progressive lengths)
        self.left = left or self.quota(chess.WHITE, self.turn)

    def quota(self, color, turn):
        if self.moves is None:
            return turn
        if color == chess.WHITE and turn == 1:
            return self.first
        return self.moves[0 if color == chess.WHITE else 1]

    def king_gone(self):
        return self.board.king(chess.WHITE) is None or self.board.king(chess.BLACK) is None

    def attacked(self, color):
        k = self.board.king(color)
        return k is not None and self.board.is_attacked_by(not color, k)

    def push(self, m):
        """Plays m; returns the undo record."""
        us = self.board.turn
        saved = (self.left, self.turn)
        self.board.push(m)
        goes_on = self.left > 1 and not (self.check == "ends_turn" and self.attacked(not us))
        nulls = 0
        if goes_on and not self.king_gone():
            self.board.push(chess.Move.null())
            nulls = 1
            self.left -= 1
        else:
            self.turn += 1
            self.left = self.quota(not us, self.turn)
        return saved, nulls

    def pop(self, undo):
        saved, nulls = undo
        for _ in range(nulls + 1):
            self.board.pop()
        self.left, self.turn = saved

    def capturable(self, us, horizon):
        """The side to move (not us) can take us's king within horizon moves."""
        if self.attacked(us):
            return True
        if horizon <= 1:
            return False
        them = self.board.turn
        for m in self.generate(pseudo=True):
            u = self.push(m)
            hit = (self.board.turn == them and (self.safe[0 if them == chess.WHITE else 1] or not self.attacked(them))
                   and self.capturable(us, horizon - 1))
            self.pop(u)
            if hit:
                return True
        return False

    def legal(self):
        if self.king_gone():
            return []
        us = self.board.turn
        safe_at_end = self.safe[0 if us == chess.WHITE else 1]
        cands = self.generate(pseudo=self.capture or safe_at_end)
        if self.capture:
            # No check: castling is not restricted by attacked squares either (python-chess's
            # pseudo-legal castling is, so those moves are made here).
            return [m for m in cands if not self.board.is_castling(m)] + list(self.free_castles())
        return self.filtered(cands, us, safe_at_end)

    def generate(self, pseudo):
        """python-chess's moves of the side to move; in Monster Chess, Black's pawns only capture
        (no push, no en passant)."""
        moves = list(self.board.pseudo_legal_moves if pseudo else self.board.legal_moves)
        if self.monster and self.board.turn == chess.BLACK:
            b = self.board
            moves = [m for m in moves if b.piece_type_at(m.from_square) != chess.PAWN
                     or (b.piece_at(m.to_square) is not None and not b.is_en_passant(m))]
        return moves

    def free_castles(self):
        b = self.board
        backrank = chess.BB_RANK_1 if b.turn == chess.WHITE else chess.BB_RANK_8
        king = b.king(b.turn)
        if king is None or not chess.BB_SQUARES[king] & backrank:
            return
        for rook in chess.scan_reversed(b.clean_castling_rights() & backrank):
            a_side = rook < king
            king_to = chess.square(2 if a_side else 6, chess.square_rank(king))
            rook_to = chess.square(3 if a_side else 5, chess.square_rank(king))
            path = (chess.between(king, king_to) | chess.between(rook, rook_to)
                    | chess.BB_SQUARES[king_to] | chess.BB_SQUARES[rook_to])
            if not (b.occupied ^ chess.BB_SQUARES[king] ^ chess.BB_SQUARES[rook]) & path:
                yield chess.Move(king, king_to)

    def filtered(self, cands, us, safe_at_end):
        out = []
        for m in cands:
            if self.check == "last_move_only" and self.left > 1 and self.board.gives_check(m):
                continue
            u = self.push(m)
            if self.king_gone():
                ok = True
            elif self.board.turn == us:
                ok = not safe_at_end or bool(self.legal())
            else:
                horizon = self.quota(not us, self.turn) if self.check == "any" else 1
                ok = not self.capturable(us, horizon)
            self.pop(u)
            if ok:
                out.append(m)
        return out

    def perft(self, depth):
        moves = self.legal()
        if depth == 1:
            return len(moves)
        total = 0
        for m in moves:
            u = self.push(m)
            total += self.perft(depth - 1)
            self.pop(u)
        return total


KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R"

# (variant, description, python-chess FEN, moves left, turn index, depth)
POSITIONS = [
    ("twomove", "start position", None, None, None, 4),
    ("twomove", "Kiwipete, White's first move of two", KIWIPETE + " w KQkq - 0 1", 2, 1, 3),
    ("twomove", "Kiwipete, White's second move", KIWIPETE + " w KQkq - 0 1", 1, 1, 3),
    ("twomove", "rooks and kings: first-move checks end the turn", "4k3/8/8/8/8/8/8/R3K2R w K - 0 1", 2, 1, 3),
    ("twomove", "Black in check (Bb5+) escapes with its first move",
     "rnbqkbnr/ppp2ppp/8/1B1pp3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 2", 2, 1, 3),
    ("marseillais", "start position", None, None, None, 4),
    ("marseillais", "Kiwipete, White's first move of two", KIWIPETE + " w KQkq - 0 1", 2, 1, 3),
    ("marseillais", "Kiwipete, White's second move", KIWIPETE + " w KQkq - 0 1", 1, 1, 3),
    ("marseillais", "rooks and kings: no check with the first move", "4k3/8/8/8/8/8/8/R3K2R w K - 0 1", 2, 1, 3),
    ("marseillais", "Black in check (Bb5+) escapes with its first move",
     "rnbqkbnr/ppp2ppp/8/1B1pp3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 2", 2, 1, 3),
    ("doublemove", "start position", None, None, None, 4),
    ("doublemove", "Kiwipete, Black's first move of two (no check, kings captured)",
     KIWIPETE + " b KQkq - 0 2", 2, 4, 3),
    ("progressive", "start position", None, None, None, 4),
    ("progressive", "Kiwipete, White's turn of three moves", KIWIPETE + " w KQkq - 0 2", 3, 3, 3),
    ("progressive", "after 3.Bb5+: Black's turn of four starts in check",
     "rnbqkbnr/ppp2ppp/8/1B1pp3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 2", 4, 4, 3),
    ("monster", "start position", None, None, None, 4),
    ("monster", "Black's pawns among White's men, Black's first move of two",
     "8/8/8/7k/3B4/2pNpp2/4P3/3QK3 b - - 0 5", 2, 10, 3),
    ("twoforone", "start position", None, None, None, 4),
    ("twoforone", "queen against the pawns, White's first move", "4k3/8/8/8/3q4/2PPPP2/4K3/8 w - - 0 5", 2, 9, 3),
    ("twoforone", "queen against the pawns, White's second move", "4k3/8/8/8/3q4/2PPPP2/4K3/8 w - - 0 5", 1, 9, 3),
    ("twoforone", "Black to move with rooks", "r3k2r/8/8/8/8/2PPPP2/4K3/8 b kq - 0 5", 1, 10, 3),
]


HEADER = """# fairyzero perft reference data: {name}
# Generated by tools/multimove_perft.py. Do not edit by hand; rerun the script.
# Rules: {rules}
# Semantics: a move of a multi-move turn is one ply; the 50-move rule and repetition are ignored.
#   The turn field (last) is `<moves left>/<turn length>` (docs/reference-variants.md).
variant {name}
"""

RULES = {
    "twomove": "Two Move Chess (list #11), derived: python-chess's legal moves plus the turn rules (two moves a\n"
               "#   turn, a check with the first ends it), no engine plays it",
    "marseillais": "Marseillaise Chess (list #12), derived: python-chess's legal moves plus the turn rules (two\n"
                   "#   moves a turn, only the second may check), no engine plays it",
    "doublemove": "Double move chess (list #13), derived: python-chess's pseudo-legal moves plus the turn rules\n"
                  "#   (White opens with one move, then two a turn; kings are captured), no engine plays it",
    "progressive": "Scottish Progressive Chess (list #14), derived: python-chess's legal moves plus the turn rules\n"
                   "#   (turn n has n moves, a check ends the series); FSF-X plays the Italian rule, a different game",
    "twoforone": "Two for One (list #16), derived: python-chess's moves plus the turn rules (White two moves a\n"
                 "#   turn, its king safe only at the end; Black may not leave its king within White's reach)",
    "monster": "Monster Chess as the seed's post plays it (list #15), derived: python-chess's moves with Black's\n"
               "#   pawns capture-only (written (cp)), plus the turn rules (White one move, Black two, its king safe\n"
               "#   only at the end; White may not leave its king within Black's reach); d1-d3 also counted by hand",
}


def fairyzero_fen(g):
    """python-chess's FEN with the turn field appended, fullmove counting turns (Monster: Black's
    pawns written as capture-only pawns)."""
    fen = g.board.fen()
    if g.monster:
        board, rest = fen.split(" ", 1)
        fen = board.replace("p", "(cp)") + " " + rest
    return "%s %d/%d" % (fen, g.left, g.quota(g.board.turn, g.turn))


def write_all():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rules", "tests", "data")
    by_variant = {}
    for name, what, fen, left, turn, depth in POSITIONS:
        g = Game(name, fen, left, turn)
        lines = ["#", "# position: " + what, "fen " + fairyzero_fen(g)]
        for d in range(1, depth + 1):
            lines.append("perft %d %d" % (d, g.perft(d)))
        by_variant.setdefault(name, []).extend(lines)
        print(name, what, lines[-1], flush=True)
    for name, lines in by_variant.items():
        with open(os.path.join(root, name + ".perft"), "w") as f:
            f.write(HEADER.format(name=name, rules=RULES[name]))
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write_all()
        sys.exit(0)
    name, depth = sys.argv[1], int(sys.argv[2])
    fen = sys.argv[3] if len(sys.argv) > 3 else None
    left = int(sys.argv[4]) if len(sys.argv) > 4 else None
    turn = int(sys.argv[5]) if len(sys.argv) > 5 else None
    g = Game(name, fen, left, turn)
    for d in range(1, depth + 1):
        print(name, d, g.perft(d), flush=True)
