#!/usr/bin/env python3
"""Drive `fairyzero uci` with python-chess's `chess.engine` through short games.

Usage: tools/uci_python_chess.py [--plies N] -- ENGINE_COMMAND...
e.g.   tools/uci_python_chess.py -- target/debug/fairyzero uci --player alphabeta:2

Plays one game of chess and one of antichess (python-chess's AntichessBoard, which sends
`setoption name UCI_Variant value antichess`), the engine playing both sides, each move
checked legal by python-chess's own rules; then analyses a position and checks the info
(score, pv, depth). Exits 0 when every check holds, 1 with the reason otherwise, 3 when
python-chess is missing (the Rust test decides whether that is a failure).
"""

import argparse
import sys

try:
    import chess
    import chess.engine
    import chess.variant
except ImportError as e:  # the caller decides: skip, or fail under CI
    print(f"python-chess is missing: {e}", file=sys.stderr)
    sys.exit(3)


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def play_game(engine, board, plies, limit):
    """Engine against itself for `plies` plies or to the end; every move must be legal."""
    played = []
    while len(played) < plies and not board.is_game_over():
        result = engine.play(board, limit, info=chess.engine.INFO_ALL)
        move = result.move
        if move is None:
            fail(f"{board.uci_variant}: no move in {board.fen()} (not over for python-chess)")
        if move not in board.legal_moves:
            fail(f"{board.uci_variant}: illegal move {move.uci()} in {board.fen()}")
        info = result.info
        if "score" not in info or "pv" not in info:
            fail(f"{board.uci_variant}: the last info lacks score or pv: {info}")
        if info["pv"][0] != move:
            fail(f"{board.uci_variant}: pv {info['pv']} does not start with the best move {move}")
        board.push(move)
        played.append(move.uci())
    return played


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=16, help="plies per game (default 16)")
    parser.add_argument("--depth", type=int, default=2, help="search depth per move (default 2)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the engine command after --")
    args = parser.parse_args()
    command = [c for c in args.command if c != "--"] if args.command[:1] == ["--"] else args.command
    if not command:
        fail("no engine command given (after --)")

    limit = chess.engine.Limit(depth=args.depth)
    with chess.engine.SimpleEngine.popen_uci(command) as engine:
        if not engine.id.get("name", "").startswith("fairyzero"):
            fail(f"unexpected engine name {engine.id}")
        variants = engine.options["UCI_Variant"].var
        for needed in ("chess", "antichess"):
            if needed not in variants:
                fail(f"UCI_Variant does not list {needed}: {variants}")

        chess_moves = play_game(engine, chess.Board(), args.plies, limit)
        anti = chess.variant.AntichessBoard()
        anti_moves = play_game(engine, anti, args.plies, limit)
        # Antichess's compulsory captures: python-chess accepted every move, so the engine
        # played by the same rules.
        print(f"chess: {' '.join(chess_moves)}")
        print(f"antichess: {' '.join(anti_moves)}")

        # Analysis of a mate in one: the engine must see it.
        board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
        info = engine.analyse(board, chess.engine.Limit(depth=2))
        score = info["score"].white()
        if not score.is_mate() or score.mate() != 1:
            fail(f"mate in one not reported as mate 1: {info}")
        if info["pv"][0] != chess.Move.from_uci("a1a8"):
            fail(f"mate in one: pv {info['pv']}")
        print(f"mate in one: {score}, pv {info['pv'][0]}")
    print("ok")


if __name__ == "__main__":
    main()
