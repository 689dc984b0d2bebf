#!/usr/bin/env python3
"""Regenerate fairyzero's perft reference files from external oracles.

    python3 tools/gen_perft.py                 # all variants -> rules/tests/data/<variant>.perft
    python3 tools/gen_perft.py chess shatranj  # only these variants
    python3 tools/gen_perft.py --out /tmp/x    # write somewhere else
    python3 tools/gen_perft.py divide VARIANT "FEN" DEPTH   # per-move counts (debugging aid)

The numbers come only from oracles that run in a separate process or in a Python
extension. No oracle code is copied into fairyzero.

* FSF-CLI: the Fairy-Stockfish 11.1 binary (`/usr/games/fairy-stockfish`,
  Debian package `fairy-stockfish`) driven over UCI with `go perft N`. It is fast,
  so it supplies the deep numbers. It has no `berolina`. A custom variant
  (kinglet with N/B/R/Q promotion) is loaded through `setoption name VariantPath`.
* pyffish: the Fairy-Stockfish Python binding (PyPI `pyffish`, a newer engine
  version than the CLI). Perft is computed recursively from `legal_moves` and
  `get_fen`. It is slow, so it is used for the shallow cross-checks, and it is the
  only oracle for berolina.
* python-chess: PyPI `chess` (`chess.Board`, `chess.variant.AntichessBoard`).
  It cross-checks chess and antichess.
* Published numbers (cutechess `projects/lib/tests/chessboard/tst_board.cpp`,
  the chessprogramming wiki "Perft Results" page) are compared whenever a position has
  them. They are the only source of a number just for the variants that no oracle here
  plays (`"published_only"`: cutechess's `checkless`, `rifle` and `twokings`); those
  files say so in their header.

If two oracles disagree on any number, the script stops with an error and does not
write that variant's file.

Perft semantics (the same in every oracle used here, see docs/reference-variants.md):
perft(pos, 0) = 1; perft(pos, d) = sum of perft(child, d-1) over the legal moves.
A position that a variant rule has already ended (extinction, bare king, the opponent
has no pieces in antichess, no pawns left in kinglet) has no legal moves. Checkmate
and stalemate also have none. The 50-move (n-move) rule, repetition and insufficient
material are never applied.
"""

import argparse
import multiprocessing as mp
import os
import re
import subprocess
import sys
import tempfile
import time

try:  # python-chess: the pc oracles and the rule overlay (only the variants that use them need it)
    import chess
except ImportError:  # pragma: no cover
    chess = None

FSF_CLI = os.environ.get("FSF_CLI", "/usr/games/fairy-stockfish")

# Budgets (leaf counts) for the slow cross-check oracles.
# Override with the environment variables FZ_PYFFISH_BUDGET / FZ_PYCHESS_BUDGET for a deeper one-off check.
PYFFISH_BUDGET = int(os.environ.get("FZ_PYFFISH_BUDGET", 60_000))     # largest d with perft(d) <= this
PYCHESS_BUDGET = int(os.environ.get("FZ_PYCHESS_BUDGET", 2_500_000))

KINGLET_INI = """[kingletfile:kinglet]
promotionPieceTypes = nbrq
"""

# The dossier's Appendix A sections (shared/rules/variant-list.md) for the A-class rows that
# Fairy-Stockfish knows only as custom variants. One text for all of them, so that each oracle
# process loads it once. longleapers needs `customPiece`, which the 11.1 CLI lacks: pyffish only.
DOSSIER_INI = """[annihilation:chess]
extinctionValue = loss
extinctionPieceTypes = *
extinctionPieceCount = 1

[longleapers:chess]
knight = -
customPiece1 = n:C
promotionPieceTypes = qrbn

[faerychess:chess]
archbishop = a
startFen = rnaqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKANR w KQkq - 0 1

[englishstalemate:chess]
stalemateValue = win

[twinchess:chess]
king = -
commoner = k
castling = false
extinctionValue = loss
extinctionPseudoRoyal = true
extinctionPieceTypes = k
extinctionPieceCount = 1
startFen = rbkqqkbr/pppppppp/n6n/8/8/N6N/PPPPPPPP/RBKQQKBR w - - 0 1

[giraffe10:chess]
maxRank = 10
maxFile = j
archbishop = a
customPiece1 = g:QN
customPiece2 = s:fW
castling = false
doubleStep = false
promotionRegionWhite = *10
promotionRegionBlack = *1
promotionPieceTypes = q
startFen = rnbgkqabnr/ppppsspppp/4nn4/10/10/10/10/4NN4/PPPPSSPPPP/RNBAQKGBNR w - - 0 1

[doubleking:chess]
maxRank = 10
maxFile = j
king = -
commoner = k
castling = false
extinctionValue = loss
extinctionPseudoRoyal = true
extinctionPieceTypes = k
extinctionPieceCount = 1
promotionRegionWhite = *10
promotionRegionBlack = *1
doubleStepRegionWhite = *2
doubleStepRegionBlack = *9
tripleStepRegionWhite = *2
tripleStepRegionBlack = *9
startFen = rnbkqqkbnr/pppppppppp/10/10/10/10/10/10/PPPPPPPPPP/RNBKQQKBNR w - - 0 1

[giveawayking:antichess]
promotionPieceTypes = nbrq
extinctionValue = win
extinctionPieceTypes = k
extinctionPieceCount = 0
"""

# The rows that are orthodox chess from their own start array (FSF `chess` by FEN).
FEN_ONLY = ("reverso", "marchofthepawns", "wild5", "wild6", "wild7", "wild8",
            "pawnodds", "knightodds", "rookodds", "rookpawnodds", "rookknightodds", "queenodds",
            "randomized", "wild2", "wild3", "wild4", "pawnsforqueen", "pawnsforrook")

# Published numbers used as cross-checks only.
CC = "cutechess tst_board.cpp"
CPW = "CPW perft results"
DOSSIER = "the dossier's table (PC = FSF)"
JOCLY_TABLE = "Jocly (the dossier's table)"
JOCLY = "Jocly 0.9.13 (one move per from-to-promotion)"


def P(label, fen, depth, pub=None, src=None, oracle_fen=None):
    """One reference position. depth = deepest perft stored in the file. oracle_fen: the
    position the oracles are given when it differs from the stored one (its mirror image)."""
    return {"label": label, "fen": fen, "depth": depth, "pub": pub or {}, "pubsrc": src,
            "oracle_fen": oracle_fen or fen}


def mirror_files(fen):
    """The left-right mirror image of an 8-file chess FEN (files a..h reversed): castling K and
    Q swap, the en-passant file is mirrored. Chess moves are symmetric under it, and ICS wild 1's
    castling from a d-file king is the mirror of chess's from e1 (tests/wild1.rs)."""
    board, side, castling, ep, *rest = fen.split()
    rows = []
    for row in board.split("/"):
        cells = []
        for c in row:
            cells += ["."] * int(c) if c.isdigit() else [c]
        out, run = "", 0
        for c in reversed(cells):
            if c == ".":
                run += 1
                continue
            out += (str(run) if run else "") + c
            run = 0
        rows.append(out + (str(run) if run else ""))
    swap = {"K": "Q", "Q": "K", "k": "q", "q": "k"}
    rights = "".join(sorted((swap[c] for c in castling), key="KQkq".index)) if castling != "-" else "-"
    ep = ep if ep == "-" else "abcdefgh"[7 - "abcdefgh".index(ep[0])] + ep[1:]
    return " ".join(["/".join(rows), side, rights, ep] + rest)


# ---------------------------------------------------------------------------
# Positions. fairyzero variant name -> spec
#   cli:     variant name for the FSF CLI (None = CLI cannot do it)
#   py:      variant name for pyffish
#   ini:     variant config loaded into both FSF oracles (or None)
#   pc:      python-chess board class name ("chess" / "antichess") or None
# ---------------------------------------------------------------------------
VARIANTS = {
    # Variants that no oracle here plays (FSF's `checkmateless` forbids every check; it has no
    # rifle capture and no royalty by position): cutechess's published numbers are stored as they
    # are, depths 4 to 6 from the test's comments (d6 is above the Rust tests' default budget).
    "checkless": {
        "cli": None, "py": None, "ini": None, "pc": None, "published_only": True,
        "rules": "cutechess `checkless` (list #4): a check is legal only if it mates.",
        "positions": [
            P("start position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6,
              {4: 196772, 5: 4835050, 6: 118060698}, CC),
        ],
    },
    "rifle": {
        "cli": None, "py": None, "ini": None, "pc": None, "published_only": True,
        "rules": "cutechess `rifle` (list #32): the capturer stays on its square, a capture never promotes.",
        "positions": [
            P("start position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6,
              {4: 197326, 5: 4866988, 6: 119235709}, CC),
        ],
    },
    "wild9": {
        "cli": None, "py": None, "ini": None, "pc": None, "published_only": True,
        "rules": "cutechess `twokings` (ICS wild 9, list #71): the first king from a1 by files is royal.",
        "positions": [
            P("start position", "rnbqkknr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKKNR w KQkq - 0 1", 6,
              {4: 192312, 5: 4629168, 6: 110762251}, CC),
            P("cutechess 'twokings endgame1' (White has two kings, Black one)", "8/8/p1k5/1p1r1K1p/1P5P/P1K5/8/8 b - - 0 121",
              4, {3: 3076, 4: 36828}, CC),
        ],
    },
    # Board rules (issue 21). No oracle here plays them: Grid Chess is cutechess `grid` (its test's
    # positions, depths from its comments); Cylindrical Chess is the dossier's Jocly
    # `cylinder-chess` start perft (the dossier's harness reproduced cutechess's numbers for
    # shatranj and amazon).
    "grid": {
        "cli": None, "py": None, "ini": None, "pc": None, "published_only": True,
        "rules": "cutechess `grid` (list #61): a move must end in another 2x2 cell than it started in.",
        "positions": [
            P("start position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6,
              {4: 173165, 5: 3814913, 6: 83288561}, CC),
            P("cutechess 'grid pos2' (Kiwipete: castling, e.p., promotions)",
              "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4, {4: 1853380}, CC),
            P("cutechess 'grid pos2a' (a promotion that would not leave its cell)",
              "r3k2r/p1pPqpb1/bn3np1/4N3/1p2P3/2N2Q2/PPPBBPpP/R3K2R b KQkq - 0 1", 1, {1: 4}, CC),
            P("cutechess 'grid pos3'", "8/3K4/2p5/p2b2r1/5k2/8/8/1q6 b - - 0 1", 2, {2: 142}, CC),
            P("cutechess 'grid pos4' (CPW position 3: e.p. and rank pins)",
              "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 6, {6: 1477948}, CC),
            P("cutechess 'grid pos5'", "r1bqkbnr/pppppppp/n7/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 1", 5,
              {3: 8768, 4: 177309, 5: 4069318}, CC),
        ],
    },
    # The other cylinder positions: Jocly 0.9.13 (npm `jocly`) driven by the dossier's Appendix B
    # harness, with each position reached by replaying its moves from the start (not by loading a
    # FEN), counting one move per (from, to, promotion): Jocly lists a
    # destination that a rider reaches both ways round twice, fairyzero once. The random ones
    # are seeded Jocly playouts of 40 plies (LCG seed 1-6, moves sorted by name).
    "cylinder": {
        "cli": None, "py": None, "ini": None, "pc": None, "published_only": True,
        "published_by": "Jocly `cylinder-chess`'s perft (the start: the dossier's table; the others: Jocly 0.9.13 "
                        "through the dossier's Appendix B harness, one move per from-to-promotion)",
        "rules": "Jocly `cylinder-chess` (list #60): the a- and h-files are adjacent.",
        "positions": [
            P("start position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4,
              {1: 20, 2: 392, 3: 9162, 4: 211036}, JOCLY_TABLE),
            P("a rook on an empty rank, its moves both ways round (1. a4 h6 2. Ra3 g6)",
              "rnbqkbnr/pppppp2/6pp/8/P7/R7/1PPPPPPP/1NBQKBNR w Kkq - 0 3", 4,
              {1: 29, 2: 580, 3: 17208, 4: 414851}, JOCLY),
            P("en passant round the edge: a5xh6 (1. a4 g6 2. a5 h5)",
              "rnbqkbnr/pppppp2/6p1/P6p/8/8/1PPPPPPP/RNBQKBNR w KQkq h6 0 3", 4,
              {1: 24, 2: 552, 3: 14543, 4: 379517}, JOCLY),
            P("castling short, the bishop on c4 takes h7 round the edge",
              "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4", 4,
              {1: 34, 2: 992, 3: 34280, 4: 1098944}, JOCLY),
            P("random middlegame (Jocly playout, seed 1)",
              "r3k2r/p2pp1p1/1Bn4p/2p1P2P/n1PP1p2/8/P4P1R/qN1bKB2 w q - 1 21", 4,
              {1: 21, 2: 939, 3: 19441, 4: 884589}, JOCLY),
            P("random middlegame (Jocly playout, seed 2)",
              "1nNkr3/1pNpb2p/r1p5/5pq1/PPP5/4p1RP/Q3PPP1/4KBR1 w - - 4 21", 4,
              {1: 36, 2: 1653, 3: 58785, 4: 2551149}, JOCLY),
            P("random middlegame (Jocly playout, seed 3)",
              "rn3b1r/1p3kp1/p4p2/2ppp2R/2PNP3/3K2P1/bP1P2nP/1NB2B1R w - - 1 21", 4,
              {1: 35, 2: 1396, 3: 40992, 4: 1577990}, JOCLY),
            P("random middlegame, in check (Jocly playout, seed 4)",
              "r1k2bn1/p4pp1/6B1/Nppp2P1/3qp3/2PPPPKr/1P5P/RNB4R w - - 2 21", 4,
              {1: 4, 2: 144, 3: 4922, 4: 172625}, JOCLY),
            P("random middlegame after an under-promotion (Jocly playout, seed 5)",
              "r1k2b1r/pp2p1pp/1n2b2n/3p1pB1/PP1PP3/6P1/3RB1Kn/6NR w - - 6 21", 4,
              {1: 45, 2: 1261, 3: 55369, 4: 1631671}, JOCLY),
            P("random middlegame (Jocly playout, seed 6)",
              "4nb1r/2p3pp/2ppk3/pr2p1P1/PP2P3/2NP4/R1PB1KP1/6NR w - - 1 21", 4,
              {1: 40, 2: 858, 3: 33030, 4: 742260}, JOCLY),
        ],
    },
    "chess": {
        "cli": "chess", "py": "chess", "ini": None, "pc": "chess",
        "positions": [
            P("start position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6,
              {1: 20, 2: 400, 3: 8902, 4: 197281, 5: 4865609, 6: 119060324}, CPW),
            P("CPW position 2 'Kiwipete' (castling, e.p., promotions, pins)",
              "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4,
              {1: 48, 2: 2039, 3: 97862, 4: 4085603}, CPW),
            P("CPW position 3 (e.p. discovered checks along the rank)",
              "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 6,
              {1: 14, 2: 191, 3: 2812, 4: 43238, 5: 674624, 6: 11030083}, CPW),
            P("CPW position 4 (promotion captures, under-promotion, castling rights)",
              "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 5,
              {1: 6, 2: 264, 3: 9467, 4: 422333, 5: 15833292}, CPW),
            P("CPW position 4 mirrored (black to move)",
              "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", 5,
              {1: 6, 2: 264, 3: 9467, 4: 422333, 5: 15833292}, CPW),
            P("CPW position 5 (promotion to check, castling through attacked squares)",
              "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 4,
              {1: 44, 2: 1486, 3: 62379, 4: 2103487}, CPW),
            P("CPW position 6 (middlegame)",
              "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 4,
              {1: 46, 2: 2079, 3: 89890, 4: 3894594}, CPW),
            P("e.p. capture that would expose the king along the rank (illegal)",
              "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 1", 6),
            P("e.p. by black with a bishop pin on the diagonal",
              "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1", 6),
            P("e.p. that evades a check by the double-stepped pawn",
              "8/5bk1/8/2Pp4/8/1K6/8/8 w - d6 0 1", 6),
            P("castling with attacked transit squares (both sides)",
              "r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1", 4),
            P("castling, black to move, queens cover castling squares",
              "r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1", 4),
            P("promotions with capture and under-promotion (both colours)",
              "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", 5),
            P("promotion with check / capture on the back rank",
              "2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1", 5),
            P("lone pawn vs king: stalemates and promotions deep in the tree",
              "K1k5/8/P7/8/8/8/8/8 w - - 0 1", 6),
            P("stalemate at the root (no legal moves)", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 2),
            P("checkmate at the root (no legal moves)", "R6k/6pp/8/8/8/8/8/6K1 b - - 0 1", 2),
            P("halfmove clock 100: the 50-move rule is NOT applied by perft",
              "8/k7/2K5/8/8/8/R7/8 b - - 100 80", 4),
        ],
    },
    "capablanca": {
        "cli": "capablanca", "py": "capablanca", "ini": None, "pc": None,
        "positions": [
            P("start position", "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1", 5),
            P("castling both ways, empty board between king and rooks",
              "r4k3r/pppppppppp/10/10/10/10/PPPPPPPPPP/R4K3R w KQkq - 0 1", 4),
            P("castling: archbishop a4 covers e8 (black O-O-O illegal), archbishop h3 covers g1/i1 (white O-O illegal)",
              "r4k3r/pp4pppp/10/10/A9/7a2/PPPP2PPPP/R4K3R w KQkq - 0 1", 4),
            P("promotions to A/C/Q/R/B/N incl. promotion captures",
              "r1n1k5/1P6P1/10/10/10/10/1p6p1/R1N1K5 w - - 0 1", 4),
            P("en passant on a 10-file board",
              "rnabqkbcnr/pp1ppppppp/10/10/2pP6/10/PPP1PPPPPP/RNABQKBCNR b KQkq d3 0 3", 4),
            P("cutechess 'goth2' (gothic setup played under capablanca rules)",
              "r1b1c2rk1/p4a1ppp/1ppq2pn2/3p1p4/3A1Pn3/1PN3PN2/P1PQP1BPPP/3RC2RK1 w - - 0 1", 4,
              {4: 7917813}, CC),
            P("cutechess 'goth3'",
              "r1b2k2nr/p1ppq1ppbp/n1Pcpa2p1/5p4/5P4/1p1PBCPN2/PP1QP1BPPP/RN3KA2R w KQkq - 0 1", 4,
              {4: 4869569}, CC),
            P("random middlegame (seeded playout)",
              "rna1qk3r/Bppp1pn1pp/6pc2/4p1bpQb/5P4/NA7N/PPPPP1PPP1/R2B1K1C1R w KQkq - 5 9", 4),
        ],
    },
    "grand": {
        "cli": "grand", "py": "grand", "ini": None, "pc": None,
        "positions": [
            P("start position (d5 = 959883584 is left out: too deep for a unit test)",
              "r8r/1nbqkcabn1/pppppppppp/10/10/10/10/PPPPPPPPPP/1NBQKCABN1/R8R w - - 0 1", 4,
              {3: 259514, 4: 15921643, 5: 959883584}, CC),
            P("cutechess 'grand endgame1' (optional promotion on rank 8/9, no pieces captured yet)",
              "10/4k5/6P3/10/10/10/10/10/1p2K5/10 w - - 0 1", 5,
              {1: 15, 2: 165, 3: 2446}, CC),
            P("promotion limited to captured types; pawn on rank 9 with R/N available",
              "r3k4r/1P2cab3/7P2/2n1P5/10/10/10/6p3/2p5K1/R1BQCABN2 w - - 0 1", 4),
            P("same, black to move (mandatory promotion on rank 1 only to q/b/n)",
              "r3k4r/1P2cab3/7P2/2n1P5/10/10/10/6p3/2p5K1/R1BQCABN2 b - - 0 1", 4),
            P("all promotion types exhausted: pawn on rank 9 is frozen, rank 8 pawn may not promote",
              "r3k4r/1nbq1cabnP/6P3/10/10/10/10/10/1NBQKCABN1/R8R w - - 0 1", 3),
            P("double step only from rank 3, e.p. capture available (e4)",
              "r8r/1nbqkcabn1/ppppp1pppp/10/10/4Pp4/10/PPPP1PPPPP/1NBQKCABN1/R8R b - e4 0 3", 4),
            P("random middlegame (seeded playout)",
              "rb2r5/2q1kcab2/pp1p1ppppp/n9/2p1pP1n2/10/3P6/PPP1P1PPPP/1NBQ1C2N1/2R2K1ABR w - - 1 11", 3),
        ],
    },
    "shatranj": {
        "cli": "shatranj", "py": "shatranj", "ini": None, "pc": None,
        "positions": [
            P("start position", "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1", 6,
              {4: 68122, 5: 1164248, 6: 19864709}, CC),
            P("random middlegame (seeded playout)",
              "r1bkqr2/pppN1ppp/4p1nb/1N3n2/8/2P1B1P1/PP1PPP1P/R2KQB1R w - - 5 13", 5),
            P("random middlegame 2 (seeded playout)",
              "rnb1q1r1/ppp1kppp/1n1p2Pb/4p3/4N2P/2P4R/PP1PPP2/R1BKQBN1 w - - 1 13", 5),
            P("promotion to ferz only (both colours), incl. promotion capture",
              "r2k4/1P6/8/8/8/8/6p1/3K3R w - - 0 1", 5),
            P("bare king to move, opponent K+R: king can capture the rook (game goes on)",
              "8/4k3/5R2/8/4K3/8/8/8 b - - 0 1", 5),
            P("bare king NOT to move, opponent K+R to move: game over (0 moves)",
              "8/4k3/5R2/8/4K3/8/8/8 w - - 0 1", 3),
            P("bare king to move, cannot capture: every reply ends the game (perft 2 = 0)",
              "8/3k4/5R2/8/4K3/8/8/8 b - - 0 1", 3),
            P("bare king to move, opponent has K+2: game over (0 moves)",
              "8/4k3/5R2/8/4K3/2P5/8/8 b - - 0 1", 3),
            P("both kings bare: no rule ends it, perft continues",
              "8/8/5k2/8/4K3/8/8/8 w - - 0 1", 5),
            P("capturing the last black man bares the king against K+R+P",
              "4k3/8/8/8/8/8/3q1R1P/3K4 w - - 0 1", 5),
            P("stalemate at the root", "8/8/8/8/8/8/5KQk/8 b - - 0 1", 2),
        ],
    },
    "courier": {
        "cli": "courier", "py": "courier", "ini": None, "pc": None,
        "positions": [
            P("start position (FSF traditional setup)",
              "rnebmk1wbenr/1ppppp1pppp1/6f5/p5p4p/P5P4P/6F5/1PPPPP1PPPP1/RNEBMK1WBENR w - - 0 1", 5,
              {4: 500337, 5: 14144849}, CC),
            P("cutechess 'courier startpos' (all pawns on rank 2)",
              "rnebmkfwbenr/pppppppppppp/12/12/12/12/PPPPPPPPPPPP/RNEBMKFWBENR w - - 0 1", 5,
              {4: 180571, 5: 4139349}, CC),
            P("random middlegame (seeded playout)",
              "rnebm1kwben1/1p2pp1pppp1/2p9/p2prP5p/P5p4P/N3EPF5/1PPPP2PPPPR/R2BMK1WBEN1 w - - 2 13", 4),
            P("random middlegame 2 (seeded playout)",
              "2eb1k1wb1nr/1ppmpp1pp1p1/r2p3e1p2/p4fp4p/Pn3PP4P/1PN3FP3N/2PPPK2PPP1/R1EBM2WBE2 w - - 1 13", 4),
            P("promotion to fers only, incl. promotion capture",
              "r4k6/1P10/12/12/12/12/10p1/5K5R w - - 0 1", 5),
            P("bare black king to move vs K+W (cutechess 'ongoing')",
              "12/4k7/5W6/12/4K7/12/12/12 b - - 0 1", 5),
            P("bare black king, white to move: game over",
              "12/4k7/5W6/12/4K7/12/12/12 w - - 0 1", 3),
            P("bare black king to move vs K+W+E: game over",
              "12/4k7/5W6/12/4K7/11E/12/12 b - - 0 1", 3),
        ],
    },
    "antichess": {
        "cli": "antichess", "py": "antichess", "ini": None, "pc": "antichess",
        "positions": [
            P("start position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", 6,
              {4: 153299, 5: 2732672, 6: 46264162}, CC),
            P("cutechess 'suicide endgame1' (same move rules)", "8/2b5/8/3B4/8/8/2P5/8 b - - 0 1", 6,
              {5: 116051, 6: 1218696}, CC),
            P("cutechess 'suicide endgame2': all lines end by extinction (perft 4 = 0)",
              "8/1kKP4/8/8/8/8/8/6n1 b - - 0 1", 5, {3: 5, 4: 0}, CC),
            P("cutechess 'suicide endgame3'", "8/k1KP4/8/8/8/8/8/6n1 b - - 0 1", 7,
              {7: 2891980}, CC),
            P("forced capture with promotion to K/Q/R/B/N", "1n6/P7/8/8/8/8/7p/6N1 w - - 0 1", 6),
            P("forced en passant capture", "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b - e3 0 1", 5),
            P("opponent (side not to move) has no pieces: game over, 0 moves",
              "8/8/8/8/8/8/P7/8 w - - 0 1", 2),
            P("side to move has no legal move (blocked pawn): 0 moves",
              "8/8/8/8/8/p7/P7/8 w - - 0 1", 2),
            P("symmetrical opening position, forced captures",
              "r1bqkb1r/pp1p1ppp/2n2n2/2p1p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R w - - 0 1", 5),
        ],
    },
    "losalamos": {
        "cli": "losalamos", "py": "losalamos", "ini": None, "pc": None,
        "positions": [
            P("start position", "rnqknr/pppppp/6/6/PPPPPP/RNQKNR w - - 0 1", 6,
              {4: 14332, 5: 191846, 6: 2549164}, CC),
            P("cutechess 'losalamos promotion'", "6/2P3/6/1K1k2/6/6 w - - 0 1", 6,
              {4: 3117, 5: 39171, 6: 187431}, CC),
            P("promotion (Q/R/N only) with capture, both colours", "rn1k2/1P4/6/6/4p1/2K1NR w - - 0 1", 5),
            P("random middlegame (seeded playout)", "1n2nr/ppqp1p/1Npkp1/P5/1PPPPP/RNQK1R w - - 3 8", 5),
            P("random middlegame 2 (seeded playout)", "r2kn1/pqppp1/np3r/4PP/PPPP2/RQ1K1R w - - 2 8", 5),
        ],
    },
    "gardner": {
        "cli": "gardner", "py": "gardner", "ini": None, "pc": None,
        "positions": [
            P("start position", "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1", 7),
            P("promotion to Q/R/B/N, both colours", "2k2/P4/5/4p/2K2 w - - 0 1", 6),
            P("random middlegame (seeded playout)", "r2qk/2pbp/p1p1B/PPP2/RN1QK w - - 1 6", 5),
            P("random middlegame 2 (seeded playout)", "rnb1k/pp3/2Np1/PPP1P/R1BQK w - - 0 6", 5),
        ],
    },
    "berolina": {
        "cli": None, "py": "berolina", "ini": None, "pc": None,
        "positions": [
            P("start position (pyffish only; cutechess publishes d4 882717, d5 29119802)",
              "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4,
              {4: 882717, 5: 29119802}, CC),
            P("cutechess 'berolina1'", "3k1r2/1pp3p1/3P2p1/PR4p1/6p1/2P2Pn1/b3r1BP/3KN3 b - - 1 26", 3,
              {4: 909365}, CC),
            P("diagonal double steps past an enemy pawn: e.p. arises inside the tree",
              "rnbqkbnr/pppp1ppp/8/8/3p4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 3),
            P("promotion: diagonal non-capturing step or straight capture onto the last rank",
              "1n2k3/1P6/8/8/8/8/6p1/4K1N1 w - - 0 1", 4),
            P("random middlegame, white in check (seeded playout)",
              "rnbq1b1r/pp1k1ppp/2pp1p2/3Q4/P1P5/4PnPP/1P2P2P/RNB1KBR1 w Q - 0 9", 4),
            P("random middlegame (seeded playout)",
              "rn1qkbnr/p3ppp1/p2pp1p1/3P4/b1P2P2/N5PP/1P1PP3/R1BQKBNR w KQkq - 0 9", 3),
        ],
    },
    "kinglet": {
        # The seed's kinglet: FSF `kinglet` but promotion to N/B/R/Q (not to king).
        "cli": "kingletfile", "py": "kingletfile", "ini": KINGLET_INI, "pc": None,
        "positions": [
            P("start position (identical to FSF built-in kinglet until a promotion can occur)",
              "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 5,
              {4: 197742, 5: 4897256}, CC + " (built-in kinglet; no promotion is reachable by ply 5)"),
            P("promoting the last pawn ends the game (the promoter loses): no replies",
              "4k3/1P5p/8/8/8/8/8/4K3 w - - 0 1", 5),
            P("capturing the last enemy pawn ends the game",
              "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", 5),
            P("no kings at all (cutechess 'kinglet two'): single line until white promotes its last pawn at ply 9, "
              "which ends the game (perft 10 = 0)",
              "8/8/6p1/8/8/4P3/8/8 w - - 0 1", 10),
            P("promotion to N/B/R/Q while another pawn remains (built-in FSF kinglet would promote to K only)",
              "4k3/1P5p/8/8/8/8/P7/4K3 w - - 0 1", 5),
            P("white has no pawns: game over at the root", "2k5/1pp3R1/6p1/r7/8/4K3/8/8 w - - 0 1", 2),
            P("black has no men at all: game over at the root", "8/8/4P3/2Q5/1P6/1P6/8/8 b - - 0 1", 2),
            P("non-royal king castles out of, through and into attack; kings can be captured",
              "r3k2r/p1pp1ppp/8/8/8/8/P1PP1PpP/R3K2R w KQkq - 0 1", 4),
            P("random middlegame (seeded playout)",
              "rn2kbnr/ppp1p1p1/5p2/3p3p/P7/N1P1PPPb/1P1Pq2P/R1B1K1NR w kq - 1 11", 4),
        ],
    },
    "pocketknight": {
        "cli": "pocketknight", "py": "pocketknight", "ini": None, "pc": None,
        "positions": [
            P("start position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Nn] w KQkq - 0 1", 5,
              {4: 3071267, 5: 99614985, 6: 3228439195}, CC),
            P("check blocked by a knight drop", "4k3/8/8/8/8/8/8/4R1K1[n] b - - 0 1", 5),
            P("only white holds a knight", "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR[N] w KQkq - 0 2", 4),
            P("e.p. with both knights in hand", "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR[Nn] w KQkq f6 0 3", 4),
            P("castling with drops possible on the transit squares",
              "r3k2r/pppq1ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPPQ1PPP/R3K2R[Nn] w KQkq - 0 1", 3),
            P("promotions with knights in hand (captures do not go to hand)",
              "r3k3/1P6/8/8/8/8/6p1/4K2R[Nn] w - - 0 1", 4),
            P("empty pockets written as []",
              "r1bqkb1r/p1pp2pp/2nn1n2/1p2Np2/6Q1/2N1P1P1/PPPP1P1P/R1B1KBNR[] w KQkq - 0 8", 4),
            P("back-rank check that only a knight drop parries (not mate)", "R5k1/5ppp/8/8/8/8/8/6K1[n] b - - 0 1", 5),
            # Seeded pyffish playouts, random.Random(seed).choice(sorted(legal_moves)), board moves
            # only for the first 24 plies (seeds 1-4: both knights still in hand), or the first 27 of
            # 30 (seeds 5-6: one knight or none left).
            P("random middlegame, both knights in hand (seeded playout 1)",
              "rn2k1nr/ppp2p2/q4bp1/4p2Q/1P5P/P1PPNP1b/3P2P1/1RB1KBNR[Nn] w Kkq - 1 13", 4),
            P("random middlegame, both knights in hand (seeded playout 2)",
              "r1b1kbnr/p1p5/n4q2/Pp1p1pNp/3P2p1/1P4PP/2P1PP2/RNBQKB1R[Nn] w KQkq - 1 13", 4),
            P("random middlegame, both knights in hand (seeded playout 3)",
              "r1b2bn1/p2ppkp1/3r1p2/qpp4p/1nPPP3/8/PPQNNPPP/1RB1KB1R[Nn] w K - 2 13", 4),
            P("random middlegame, both knights in hand (seeded playout 4)",
              "rnq1kb1r/p1p2pp1/bN1Q4/4p2p/2P1P1n1/1p4PN/PP1P1P1P/R1B1KB1R[Nn] w KQkq - 1 13", 4),
            P("random middlegame, only black's knight in hand (seeded playout 5)",
              "rn2k1nr/pp3p2/4bbp1/N1p1p2Q/qP5P/P1PPNP2/R2P2P1/2B1KBNR[n] w Kkq - 0 16", 4),
            P("random middlegame, only white's knight in hand (seeded playout 6)",
              "r1b1kbnr/p1p5/3q4/Ppnp1p1p/1n1P2pP/1P4PN/2PKPP2/RNBQ1B1R[N] w kq - 2 16", 4),
        ],
    },
    "prechess": {
        # List #35 (Pre-chess): FSF built-in `placement` (CLI and pyffish). The placement positions
        # are seeded pyffish playouts (random.Random(seed).choice(sorted(legal_moves)), 6 or 11 plies)
        # and hand-made placements that decide castling rights.
        "cli": "placement", "py": "placement", "ini": None, "pc": None,
        "positions": [
            P("start position (the players place their pieces on the first rank)",
              "8/pppppppp/8/8/8/8/PPPPPPPP/8[KQRRBBNNkqrrbbnn] w - - 0 1", 4,
              {3: 50560, 4: 1597696}, CC),
            P("placing (seeded playout 1, 6 plies)",
              "k3rb2/pppppppp/8/8/8/8/PPPPPPPP/K2N3R[QRBBNqrbnn] w - - 0 4", 4),
            P("placing (seeded playout 3, 6 plies)",
              "1kr2r2/pppppppp/8/8/8/8/PPPPPPPP/3Q2NK[RRBBNqbbnn] w - - 0 4", 4),
            P("placing, black to move (seeded playout 2, 11 plies)",
              "n1b2bqk/pppppppp/8/8/8/8/PPPPPPPP/QKNBN2R[RBrrn] b - - 0 6", 5),
            P("placing, black to move (seeded playout 4, 11 plies)",
              "kr1n1qb1/pppppppp/8/8/8/8/PPPPPPPP/N1BBR1QK[RNrbn] b - - 0 6", 5),
            P("a bishop on each colour still to place: no other piece may take the last light square",
              "8/pppppppp/8/8/8/8/PPPPPPPP/1K1Q1R2[RBBNkqrrbbnn] w - - 0 1", 4),
            P("king on e1, rooks to come: castling rights are granted as they are placed",
              "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3[QRRBBNNqrrbbnn] w - - 0 2", 4),
            P("placement done with K on e and rooks in the corners (KQkq), then chess",
              "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 9", 4),
            P("random game after placement (seeded playout 1, 40 plies)",
              "1q2rbnn/1ppr1p2/1k2b3/3pp1pp/1p2P1PP/P3NN2/1KPP1P2/1RQ1B2R[] w - - 0 21", 4),
        ],
    },
    "amazon": {
        # List #19 (Knighted Queen): FSF built-in `amazon` (queen -> amazon `a`, promotion a/r/b/n).
        "cli": "amazon", "py": "amazon", "ini": None, "pc": None,
        "positions": [
            P("start position", "rnbakbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBAKBNR w KQkq - 0 1", 5,
              {4: 318185, 5: 9319911}, CC),
            P("promotions to A/R/B/N incl. promotion captures, castling rights on one side each",
              "r3k3/1P6/8/8/8/8/6p1/4K2R w Kq - 0 1", 4),
            P("castling: amazon b6 leaps to c8 (black O-O-O illegal), amazon h3 covers f1 (white O-O illegal)",
              "r3k2r/8/1A6/8/8/7a/8/R3K2R w KQkq - 0 1", 4),
            P("random middlegame (seeded playout)",
              "rn1akb1r/1pp4n/5ppp/p2pN3/8/PPA4b/2PPPPPP/R1B1KB1R w KQkq - 0 10", 4),
        ],
    },
    "faerychess": {
        # List #20: the light-square bishops (f1, c8) are archbishops; promotion to Q/R/B/N.
        "cli": "faerychess", "py": "faerychess", "ini": DOSSIER_INI, "pc": None,
        "positions": [
            P("start position", "rnaqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKANR w KQkq - 0 1", 5),
            P("promotions (to Q/R/B/N only) with archbishops on the board",
              "r3k3/1P6/8/3a4/8/8/6p1/4KA1R w Kq - 0 1", 4),
            P("random middlegame (seeded playout)",
              "r2q1bnr/p1pkp2p/1a1p1pp1/Pp6/n4P2/6PP/1PPPP2A/RNBQ1KNR w - - 5 10", 4),
        ],
    },
    "longleapers": {
        # List #21: knights are camels (3,1). pyffish only (the 11.1 CLI has no customPiece).
        "cli": None, "py": "longleapers", "ini": DOSSIER_INI, "pc": None,
        "positions": [
            P("start position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4),
            P("promotion to the long leaper among Q/R/B, and its (3,1) check",
              "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1", 4),
            P("random middlegame (seeded playout)",
              "r1bqkbn1/p2ppp1r/1p6/n1p3p1/2PP4/PP2P1pP/4KP2/RNBQ1BNR w q - 0 9", 3),
        ],
    },
    "annihilation": {
        # List #27: orthodox chess, and a side reduced to a bare king loses at once (no claim).
        "cli": "annihilation", "py": "annihilation", "ini": DOSSIER_INI, "pc": None,
        "positions": [
            P("start position (orthodox numbers: no king can be bared by ply 5)",
              "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 5,
              {1: 20, 2: 400, 3: 8902, 4: 197281, 5: 4865609}, CPW + " (orthodox chess)"),
            P("Rxd5+ bares black: the game ends although Kxd5 would bare white in reply",
              "8/8/3k4/3r4/8/8/8/3RK3 w - - 0 1", 5),
            P("black is already bare: game over at the root", "4k3/8/8/8/8/8/8/Q3K3 b - - 0 1", 2),
            P("captures that bare either side deep in the tree",
              "4k3/8/2n5/8/4B3/8/2p5/4K3 w - - 0 1", 5),
            P("random middlegame (seeded playout)",
              "5r2/p1p1N1k1/7q/1b2p2r/2PPP1n1/Pp3PpN/1P2K1BP/R1B1Q2R w - - 5 31", 4),
        ],
    },
    "englishstalemate": {
        # List #78: the stalemated side wins. Moves (and so perft) are orthodox; the numbers check
        # that the variant file changes nothing else.
        "cli": "englishstalemate", "py": "englishstalemate", "ini": DOSSIER_INI, "pc": "chess",
        "positions": [
            P("start position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 5,
              {1: 20, 2: 400, 3: 8902, 4: 197281, 5: 4865609}, CPW + " (orthodox chess)"),
            P("stalemate at the root (no legal moves; the side to move has won)",
              "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 2),
            P("lone pawn vs king: stalemates and promotions deep in the tree",
              "K1k5/8/P7/8/8/8/8/8 w - - 0 1", 6),
            P("random middlegame (seeded playout)",
              "rn1qk2r/pppbpp1p/5b2/1B1p2pn/P5PP/1P6/2PP1PR1/1NBQK1NR w Kkq - 1 11", 4),
        ],
    },
    "giveawayking": {
        # List #2: antichess, but the side whose king is captured wins; promotion to N/B/R/Q.
        "cli": "giveawayking", "py": "giveawayking", "ini": DOSSIER_INI, "pc": None,
        "positions": [
            P("start position (antichess numbers until a king falls)",
              "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", 5,
              {4: 153299, 5: 2732672}, CC + " (antichess)"),
            P("the forced Rxe8 captures the black king: black has won, no replies",
              "4k3/8/8/8/8/8/4R3/4K3 w - - 0 1", 3),
            P("promotion to Q/R/B/N only (no promotion to king), kings in play",
              "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", 5),
            P("white has no king: game over at the root", "4k3/8/8/8/8/8/P7/8 b - - 0 1", 2),
            P("random middlegame (seeded playout)",
              "1nq1kbnr/2pppppp/8/8/8/P5PP/2PPPP2/2BQKBNb w - - 1 8", 5),
        ],
    },
    "reverso": {
        # List #62: chess with knights and bishops swapped in the array.
        "cli": "chess", "py": "chess", "ini": None, "pc": "chess",
        "positions": [
            P("start position", "rbnqknbr/pppppppp/8/8/8/8/PPPPPPPP/RBNQKNBR w KQkq - 0 1", 5),
            P("random middlegame (seeded playout)",
              "r1nqknbr/3p1ppQ/p2bp3/1pp5/1P6/1N2P3/P1PP1PPP/RB2KNBR w kq - 0 8", 4),
        ],
    },
    "marchofthepawns": {
        # List #24: kings and eight pawns a side, orthodox rules.
        "cli": "chess", "py": "chess", "ini": None, "pc": "chess",
        "positions": [
            P("start position", "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1", 6),
            P("random middlegame (seeded playout)",
              "3k4/3p1ppp/p7/4p3/1pp1P2P/PP3P2/2PP2P1/3K4 w - - 2 8", 6),
        ],
    },
    "wild5": {
        # List #67: the armies swapped (each side's pawns one step from promotion, blocked by its own pieces).
        "cli": "chess", "py": "chess", "ini": None, "pc": "chess",
        "positions": [
            P("start position", "RNBKQBNR/PPPPPPPP/8/8/8/8/pppppppp/rnbkqbnr w - - 0 1", 6),
            P("random middlegame (seeded playout)",
              "QRBKQB1R/1PPPPPPP/5N2/5n2/3n4/8/pp1ppp1p/N1bkqbnr w - - 1 8", 4),
        ],
    },
    "wild8": {
        # List #70: pawns start face to face on the 4th and 5th ranks.
        "cli": "chess", "py": "chess", "ini": None, "pc": "chess",
        "positions": [
            P("start position", "rnbqkbnr/8/8/pppppppp/PPPPPPPP/8/8/RNBQKBNR w KQkq - 0 1", 4),
            P("random middlegame (seeded playout)",
              "rn2kbn1/1b6/1q4r1/pp1pp1PP/PPPpp2P/8/R3K1B1/1NBQ2NR w q - 1 8", 4),
        ],
    },
    "wild6": {
        # List #68: knights and rooks on the a-d files, a column of enemy pawns on the g-file (White's
        # g7 pawn one step from promotion, blocked by Black's king), no castling.
        "cli": "chess", "py": "chess", "ini": None, "pc": "chess",
        "positions": [
            P("start position", "nnrr2k1/pppp2P1/6PB/6P1/6p1/6pb/PPPP2p1/NNRR2K1 w - - 0 1", 5),
            P("random middlegame (seeded playout)",
              "nnr3k1/p3r1P1/1ppp2PB/2R3P1/1P4p1/1N4pb/P1PP2p1/1NR3K1 w - - 2 8", 4),
        ],
    },
    "wild7": {
        # List #69: rooks on the 2nd rank, pawns in the corners (on the owner's first rank: one-step
        # moves only, as FSF). python-chess is left out: from the first rank it also allows a
        # two-square step (a1-a3), which no double-step rule gives.
        "cli": "chess", "py": "chess", "ini": None, "pc": None,
        "positions": [
            P("start position", "pnbqkbnp/1pprrpp1/3pp3/8/8/3PP3/1PPRRPP1/PNBQKBNP w - - 0 1", 5),
            P("random middlegame (seeded playout)",
              "b2qkbnp/p1prrp2/2np4/1p2p1p1/N7/BP1PP1PB/P1PRRP2/3QK1NP w - - 2 8", 4),
        ],
    },
    "pawnodds": {
        # List #22 (odds games): White starts without the king's bishop pawn.
        "cli": "chess", "py": "chess", "ini": None, "pc": "chess",
        "positions": [
            P("start position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPP1PP/RNBQKBNR w KQkq - 0 1", 5),
            P("random middlegame (seeded playout)",
              "rnb1kbnr/1pp1pp1p/p7/3p2p1/P2q4/1P4PB/2PKP2P/RNBQ2NR w kq - 0 8", 4),
        ],
    },
    "knightodds": {
        # List #22 (odds games): White starts without the queen's knight.
        "cli": "chess", "py": "chess", "ini": None, "pc": "chess",
        "positions": [
            P("start position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/R1BQKBNR w KQkq - 0 1", 5),
            P("random middlegame (seeded playout)",
              "r1b1kbnr/1pp1pp1p/pn5q/3P2p1/1P4P1/8/P2PPPBP/R1BQK1NR w KQkq - 0 8", 4),
        ],
    },
    "rookodds": {
        # List #22 (odds games): White starts without the queen's rook (no White long castling).
        "cli": "chess", "py": "chess", "ini": None, "pc": "chess",
        "positions": [
            P("start position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NBQKBNR w Kkq - 0 1", 5),
            P("random middlegame (seeded playout)",
              "r1bqkbnr/1p1pp3/p4p2/2p1n1pp/Q1P1P3/N4P1P/PP1PB1P1/2B1K1NR w Kkq - 2 8", 4),
        ],
    },
    "rookpawnodds": {
        # List #22 (odds games): White starts without the queen's rook and the king's bishop pawn.
        "cli": "chess", "py": "chess", "ini": None, "pc": "chess",
        "positions": [
            P("start position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPP1PP/1NBQKBNR w Kkq - 0 1", 5),
            P("random middlegame (seeded playout)",
              "rnb1kb1r/p1qpnppp/1p6/2P1p3/7P/6P1/P1PPPN2/2BQKBNR w Kkq - 3 8", 4),
        ],
    },
    "rookknightodds": {
        # List #22 (odds games): White starts without the queen's rook and the queen's knight.
        "cli": "chess", "py": "chess", "ini": None, "pc": "chess",
        "positions": [
            P("start position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/2BQKBNR w Kkq - 0 1", 5),
            P("random middlegame (seeded playout)",
              "r1bqk1n1/ppp1b1pr/2np4/Q3pp1p/5NP1/2P5/PP1PPP1P/2B1KB1R w Kq - 2 8", 4),
        ],
    },
    "queenodds": {
        # List #22 (odds games): White starts without the queen.
        "cli": "chess", "py": "chess", "ini": None, "pc": "chess",
        "positions": [
            P("start position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1", 5,
              {1: 21, 2: 420, 3: 9402}, DOSSIER),
            P("random middlegame (seeded playout)",
              "rnbq1b1r/1p3kpp/5p1n/p1ppp3/8/2P1P1P1/PP1P1PBP/RNBK2NR w - - 1 8", 4),
        ],
    },
    "randomized": {
        # List #5: the orthodox first rank shuffled, Black mirroring White, no castling.
        # The arrays of seeds 0, 1 and 2 of fairyzero's start generator, in that order (the rules
        # crate's test `perft_references_hold_the_arrays_of_seeds_0_to_2` prints them after a change).
        "cli": "chess", "py": "chess", "ini": None, "pc": "chess",
        "positions": [
            P("array of seed 0", "nbnbkrqr/pppppppp/8/8/8/8/PPPPPPPP/NBNBKRQR w - - 0 1", 5),
            P("array of seed 1", "rqrnbnbk/pppppppp/8/8/8/8/PPPPPPPP/RQRNBNBK w - - 0 1", 4),
            P("array of seed 2", "rbrnnqbk/pppppppp/8/8/8/8/PPPPPPPP/RBRNNQBK w - - 0 1", 4),
        ],
    },
    "wild2": {
        # List #64: the rules of randomized (#5), so the same arrays.
        # The arrays of seeds 0, 1 and 2 of fairyzero's start generator, in that order (the rules
        # crate's test `perft_references_hold_the_arrays_of_seeds_0_to_2` prints them after a change).
        "cli": "chess", "py": "chess", "ini": None, "pc": "chess",
        "positions": [
            P("array of seed 0", "nbnbkrqr/pppppppp/8/8/8/8/PPPPPPPP/NBNBKRQR w - - 0 1", 5),
            P("array of seed 1", "rqrnbnbk/pppppppp/8/8/8/8/PPPPPPPP/RQRNBNBK w - - 0 1", 4),
            P("array of seed 2", "rbrnnqbk/pppppppp/8/8/8/8/PPPPPPPP/RBRNNQBK w - - 0 1", 4),
        ],
    },
    "wild3": {
        # List #65: a king and seven men drawn from Q, R, B, N, Black mirroring White, no castling.
        # The arrays of seeds 0, 1 and 2 of fairyzero's start generator, in that order (the rules
        # crate's test `perft_references_hold_the_arrays_of_seeds_0_to_2` prints them after a change).
        "cli": "chess", "py": "chess", "ini": None, "pc": "chess",
        "positions": [
            P("array of seed 0", "krnqqqnr/pppppppp/8/8/8/8/PPPPPPPP/KRNQQQNR w - - 0 1", 5),
            P("array of seed 1", "knnrbnbr/pppppppp/8/8/8/8/PPPPPPPP/KNNRBNBR w - - 0 1", 4),
            P("array of seed 2", "bkbbrnbr/pppppppp/8/8/8/8/PPPPPPPP/BKBBRNBR w - - 0 1", 4),
        ],
    },
    "wild4": {
        # List #66: one drawn set placed independently for each side, bishops balanced, no castling.
        # The arrays of seeds 0, 1 and 2 of fairyzero's start generator, in that order (the rules
        # crate's test `perft_references_hold_the_arrays_of_seeds_0_to_2` prints them after a change).
        "cli": "chess", "py": "chess", "ini": None, "pc": "chess",
        "positions": [
            P("array of seed 0", "qrrknnqq/pppppppp/8/8/8/8/PPPPPPPP/KRNQQQNR w - - 0 1", 5),
            P("array of seed 1", "rbbqqkqr/pppppppp/8/8/8/8/PPPPPPPP/RBQQRQBK w - - 0 1", 4),
            P("array of seed 2", "kbnqbbrq/pppppppp/8/8/8/8/PPPPPPPP/NQBQBBKR w - - 0 1", 4),
        ],
    },
    "pawnsforqueen": {
        # List #23 (Pawns Game): White gives its queen for eight extra pawns on the 3rd rank. The
        # playouts: python-chess, random.Random(seed).choice(moves sorted by UCI), seed 1 16 plies,
        # seed 2 30 plies.
        "cli": "chess", "py": "chess", "ini": None, "pc": "chess",
        "positions": [
            P("start position", "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/PPPPPPPP/RNB1KBNR w KQkq - 0 1", 5),
            P("random middlegame (seeded playout 1)",
              "rnb1kb1r/ppp3p1/3qp2n/2N2p1p/2P2P1P/PP1PP1P1/PPP1PPPP/1RB1KBNR w Kkq f6 0 9", 4),
            P("random middlegame (seeded playout 2)",
              "rnbqr3/p1p4k/PP2ppp1/b2pP2p/P3PPnP/1PPP2P1/RP1P1PPP/1NBK1BNR w - - 1 16", 4),
        ],
    },
    "pawnsforrook": {
        # List #23 (Pawns Game): White gives its queen's rook for four extra pawns on c3-f3.
        # Playouts as for pawnsforqueen.
        "cli": "chess", "py": "chess", "ini": None, "pc": "chess",
        "positions": [
            P("start position", "rnbqkbnr/pppppppp/8/8/8/2PPPP2/PPPPPPPP/1NBQKBNR w Kkq - 0 1", 5),
            P("random middlegame (seeded playout 1)",
              "r1bqk1n1/p1pp2pr/8/1pb1pp1p/1P1n1P1P/2PPPP2/PBPPPKP1/1N1Q1BNR w q - 2 9", 4),
            P("random middlegame (seeded playout 2)",
              "r1bq1r2/2pk2bp/1P1p1pp1/4pP2/pn1PP1PP/4K3/1PPPP1P1/2BQ1BNR w - - 0 16", 4),
        ],
    },
    "wild1": {
        # List #63: the arrays of seeds 0, 1 and 2 of fairyzero's start generator, in that order
        # (tests/wild1.rs checks them). The oracles castle from e1/e8 as ICS wild 1 does; a d-file
        # king castles as the mirror image, so its rights are either dropped or the whole position
        # is given to the oracles mirrored (a<->h), which has the same perft.
        "cli": "chess", "py": "chess", "ini": None, "pc": "chess",
        "positions": [
            P("array of seed 0 (both kings on e: chess's castling)",
              "rnbbknqr/pppppppp/8/8/8/8/PPPPPPPP/RNBBKNQR w KQkq - 0 1", 5),
            P("array of seed 1 (both kings on d), given to the oracles mirrored",
              "rnnkbbqr/pppppppp/8/8/8/8/PPPPPPPP/RBBKQNNR w KQkq - 0 1", 5,
              oracle_fen=mirror_files("rnnkbbqr/pppppppp/8/8/8/8/PPPPPPPP/RBBKQNNR w KQkq - 0 1")),
            P("array of seed 2 (White's king on d: its rights dropped; Black's on e)",
              "rnbnkbqr/pppppppp/8/8/8/8/PPPPPPPP/RNQKNBBR w kq - 0 1", 4),
            P("d-file kings with the back ranks open: both castlings each side, given mirrored",
              "r2k3r/pppppppp/8/8/8/8/PPPPPPPP/R2K3R w KQkq - 0 1", 4,
              oracle_fen=mirror_files("r2k3r/pppppppp/8/8/8/8/PPPPPPPP/R2K3R w KQkq - 0 1")),
            P("d-file kings, castling through attacked squares (bishops and knights in play), mirrored",
              "r2k3r/p1pp1ppp/bpn2n2/4p3/2B1P3/1PN2N2/P1PP1PPP/R2K3R w KQkq - 0 1", 4,
              oracle_fen=mirror_files("r2k3r/p1pp1ppp/bpn2n2/4p3/2B1P3/1PN2N2/P1PP1PPP/R2K3R w KQkq - 0 1")),
        ],
    },
    "twinchess": {
        # List #25: two royal kings a side (FSF pseudo-royal commoners), no castling. pyffish only:
        # the 11.1 CLI's pseudo-royal rule differs (start d3 5316, pyffish 5312).
        "cli": None, "py": "twinchess", "ini": DOSSIER_INI, "pc": None,
        "no_cli": "pyffish only: the FSF 11.1 CLI's pseudo-royal rule differs, start d3 5316 against 5312).",
        "positions": [
            P("start position", "rbkqqkbr/pppppppp/n6n/8/8/N6N/PPPPPPPP/RBKQQKBR w - - 0 1", 4),
            P("the dossier's spot check: the rook checks Kf1, which cannot leave rank 1 without exposing Kc1: mate",
              "2k2k2/8/8/8/8/8/8/2K2K1r w - - 0 1", 2),
            P("a check on either king must be met; mates on one king end the game",
              "2k2k2/8/8/8/8/8/3q4/2K2K2 w - - 0 1", 4),
            P("random middlegame (seeded playout)",
              "rbq1qkbr/ppkppp1p/6p1/1p1B1n2/4P3/4BP1N/1PPP2PP/R1KQQK1R w - - 3 9", 3),
        ],
    },
    "giraffe10": {
        # List #54 (first setup): 10x10, archbishop, giraffe (QN), soldier (fW, the dossier's
        # reading), single-step pawns promoting to Q only. pyffish only (customPiece).
        "cli": None, "py": "giraffe10", "ini": DOSSIER_INI, "pc": None,
        "positions": [
            P("start position",
              "rnbgkqabnr/ppppsspppp/4nn4/10/10/10/10/4NN4/PPPPSSPPPP/RNBAQKGBNR w - - 0 1", 4),
            P("promotion to Q only; soldiers capture straight ahead and stop (no promotion) on the last rank",
              "9k/1P2S5/10/10/4s5/4S5/10/10/6p3/4K5 w - - 0 1", 4),
            P("random middlegame (seeded playout)",
              "rnbgkqabnr/pp1pss2p1/2p4p1p/5npn2/8N1/10/5S4/3PN1G1PP/PPP1SAPP2/RNB1QK1BNR w - - 0 11", 3),
        ],
    },
    "atomic": {
        # Modern atomic chess (not on the list; it validates the explosion hook of list #17,
        # dossier §3.1 "Explosion"): FSF built-in `atomic` (pyffish only, the 11.1 CLI has none)
        # and python-chess `AtomicBoard`. The random positions are python-chess playouts with
        # random.Random(seed).choice(sorted(legal moves by UCI)), seeds 1-5.
        "cli": None, "py": "atomic", "ini": None, "pc": "atomic",
        "positions": [
            P("start position (python-chess d5 4 864 979, run once by root move, = fairyzero; the dossier quotes cutechess d5 4 865 037)",
              "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4),
            P("adjacent kings: neither is in check, and the rook cannot take a king next to its own",
              "8/8/8/3kK3/8/8/8/R7 w - - 0 1", 4),
            P("castling through and onto squares next to the enemy king (not attacked for the king)",
              "r6r/8/8/8/8/8/6k1/R3K2R w KQ - 0 1", 3),
            P("en passant explodes on d6, the capturing pawn's arrival square (Nc7 and Be7 go)",
              "4k3/2n1B3/8/3pP3/8/8/8/4K3 w - d6 0 2", 4),
            P("in check, Qxb3 blows up the black king and is legal; Kxd2 would blow up its own king",
              "4r3/8/8/8/8/Qnk5/3n4/4K3 w - - 0 1", 4),
            P("kings side by side, a rook on their rank: no check, and the white king may not step away into it",
              "8/8/8/8/8/3k4/3K3r/8 w - - 0 1", 4),
            P("a capture that promotes explodes (the new queen dies with the rook)",
              "1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", 4),
            P("random middlegame (seeded playout 1, 20 plies)",
              "rn1qkb1r/1pp1n3/5pp1/p3p2p/5P1P/1PBP3b/P1P3P1/2RQKBNR w Kkq - 0 11", 3),
            P("random middlegame (seeded playout 2, 30 plies)",
              "rn2k2r/p1p2p2/5n2/Ppbp4/2P5/8/1P1PPP2/RNBQK2R w kq - 0 16", 3),
            P("random middlegame (seeded playout 3, 30 plies)",
              "1rb2bn1/p1qppkp1/4rp2/1pp4p/1nPPPN2/PN6/1PQ2PPP/1RB1KB1R w K - 3 16", 3),
            P("random middlegame (seeded playout 4, 50 plies)",
              "r1k2Nr1/p1p3p1/3bn3/2P1pn1p/2bB3P/3P2P1/1P3P2/3K1B1R w - - 3 26", 3),
            P("random endgame-ish (seeded playout 5, 60 plies)",
              "2R4r/pp1k1p1p/8/P6P/3pp1P1/q7/1P1P4/2B2K2 w - - 10 31", 4),
        ],
    },
    "doubleking": {
        # List #40 (first setup): two royal kings a side (FSF pseudo-royal commoners), pawns
        # stepping 2 or 3 from their first rank with en passant on every square passed. The
        # dossier's section has castling off, so every position here has no castling rights;
        # castling is pinned by rules/tests/doubleking.rs. Playouts: pyffish with
        # random.Random(seed).choice(sorted(legal_moves)), seeds 1-3 (30 plies), 4-5 (50 plies).
        "cli": None, "py": "doubleking", "ini": DOSSIER_INI, "pc": None,
        "no_cli": "pyffish only: the FSF 11.1 CLI's pseudo-royal rule differs, as for twinchess).",
        "positions": [
            P("start position without castling rights",
              "rnbkqqkbnr/pppppppppp/10/10/10/10/10/10/PPPPPPPPPP/RNBKQQKBNR w - - 0 1", 4,
              {1: 34, 2: 1156, 3: 42422}, DOSSIER),
            P("after a triple step e2e5: en passant on e3 (from d4) and on e4 (from f5)",
              "3k2k3/10/10/10/10/4Pp4/3p6/10/10/3K2K3 b - e3e4 0 1", 4),
            P("a check on either king must be met (the g-king is checked down the g-file)",
              "3k2k3/6r3/10/10/10/10/10/10/10/R2K2K2R w - - 0 1", 3),
            P("random middlegame (seeded playout 1)",
              "1rbkqk2nr/p1ppp4p/9b/1p8/5pqpp1/1n3B4/P4P4/1KP5PN/1P1PP1PP1P/RNB2QKR2 w - - 3 16", 3),
            P("random middlegame (seeded playout 2)",
              "rnb1k1kbn1/2Q2qp1p1/p2p1p4/9q/1p7p/1N3p4/rP1P6/6PN2/P1P1PQ1PPP/R1BK2KBR1 w - - 3 16", 3),
            P("random middlegame (seeded playout 3)",
              "2b1qq1bn1/1r1pkpp1p1/1p5pkr/3n4B1/p1p1p4p/7PN1/2P1P3P1/3P1PK2B/PP4P2P/RN1KQQ1R2 w - - 1 16", 3),
            P("random middlegame (seeded playout 4)",
              "1r1k1qkbn1/p2p4p1/bp3p4/2p2q1pr1/2P1p1p3/1P7p/P2Pn2P1P/N5Q3/4KPPKPR/BR3Q1BN1 w - - 1 26", 3),
            P("random middlegame (seeded playout 5)",
              "2b1k2q1r/rq1p2bppp/n4k4/pBp1p2n2/1p8/1PP1P1p3/3P6/P5Q1PN/5P1PKP/RN1KB4R w - - 0 26", 3),
        ],
    },
    # No engine plays Explosion Chess (#17) or Circe Chess (#29): the oracle is RuleOverlay below, a
    # second implementation of fairyzero's reading of the rules on top of python-chess. The
    # hand-derived counts and rulings in rules/tests/explosion.rs and circe.rs are the ground truth
    # for the reading itself. Random positions: overlay playouts with
    # random.Random(seed).choice(sorted(legal moves by UCI)).
    "explosion": {
        "cli": None, "py": None, "ini": None, "pc": "explosion",
        "rules": "list #17, configs/variants/explosion.toml: a capture also removes the captured side's men on the "
                 "eight squares round the captured man; the capturer survives; blowing up the king wins.",
        "positions": [
            P("start position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4),
            P("Kxe2 is legal: the blast removes its protector d3 (hand-checked d1 5, d2 52)",
              "4k3/8/8/8/8/3p4/4n3/4K3 w - - 0 1", 4),
            P("Rxd8 blows up the king e8 (hand-checked d1 14, d2 120)", "3nk3/7p/8/8/8/8/8/3RK3 w - - 0 1", 4),
            P("en passant blasts round the passed pawn", "4k3/2np4/8/4P3/2n5/8/8/4K3 b - - 0 1", 4),
            P("in check, Qxd7 blows up the king and is legal", "3rk3/3n4/8/8/8/8/8/3QK2r w - - 0 1", 4),
            P("Bxf2 blows up the castling king; Bxg2-style blasts take a rook's right",
              "4k3/8/1b6/8/8/8/5N2/R3K2R b KQ - 0 1", 3),
            P("random middlegame (seeded playout 1, 20 plies)",
              "rnb1k1nr/ppp2p2/3q1bp1/4p2Q/1P5P/P2PN3/2PP1PP1/1RB1KBNR w Kkq - 1 11", 3),
            P("random middlegame (seeded playout 5, 30 plies)",
              "rn3rk1/pp2ppnp/1q2bb2/P1pp2p1/5PPP/BP6/2PPB1R1/1N1QK1NR w K - 3 16", 3),
            P("random middlegame (seeded playout 3, 40 plies)",
              "r1b2bn1/3qp3/P3kp2/3p3p/3PPPpP/1r1B2P1/8/3K2NR w - - 1 21", 3),
            P("random endgame-ish (seeded playout 4, 60 plies)",
              "r2bk2r/8/BN3n2/p6p/5PnP/Pp4P1/1P1K4/R1B4R w - - 7 31", 3),
        ],
    },
    "circe": {
        "cli": None, "py": None, "ini": None, "pc": "circe",
        "rules": "list #29, configs/variants/circe.toml: a captured man is reborn on its home square if empty "
                 "(R/B/N by the capture square's colour, pawns on their 2nd rank, Q on d1/d8), otherwise lost.",
        "positions": [
            P("start position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4),
            P("Rxc4 is illegal: the bishop reborn on f1 would check g2 (hand-checked d1 17; chess 18)",
              "2r5/8/8/7K/2B5/8/6k1/8 b - - 0 1", 4),
            P("rebirth squares taken or free: the rook's a1/h1, the queen's d1, pawns' 2nd rank",
              "r3k3/1P6/8/3q4/2RpP3/8/8/4K2N b q e3 0 1", 3),
            P("Rxd1+: the queen's rebirth square d1 holds the capturer, so the queen is lost",
              "3rk3/8/8/8/8/8/8/3QK3 b - - 0 1", 4),
            P("random middlegame (seeded playout 1, 20 plies)",
              "rnbqkb1r/pp1p2p1/5n2/2p1p2p/1PN3PP/3P1p1N/P1PP1P2/1RBQKBR1 w kq - 1 11", 3),
            P("random middlegame (seeded playout 2, 30 plies)",
              "1rb1kbnr/p1p4N/3q4/Ppnp1p1p/3P2pP/1P4P1/2PKPP2/RNBQ1B1R w k - 3 16", 3),
            P("random middlegame (seeded playout 3, 40 plies)",
              "rrb3n1/2q1p1b1/p3kp2/1ppp2pp/1nPPP3/PN2B3/1PQ2PPP/1R2KB1R w - - 0 21", 3),
            P("random endgame-ish (seeded playout 4, 60 plies)",
              "3r4/p1k1b1r1/8/2p1p3/2b1P1P1/PpPPQ2N/1P2B2R/1RB1K1N1 w - - 3 31", 3),
        ],
    },
    "xiangqi": {
        # List #79: FSF built-in `xiangqi` (CLI and pyffish); the random positions are pyffish
        # playouts with random.Random(seed).choice(sorted(legal_moves)), seeds 1-5 (30 plies for
        # 1-3, 60 for 4-5).
        "cli": "xiangqi", "py": "xiangqi", "ini": None, "pc": None,
        "positions": [
            P("start position", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1", 5,
              {1: 44, 2: 1920, 3: 79666, 4: 3290240, 5: 133312995}, DOSSIER),
            P("flying general: the horse on e5 is pinned between the generals",
              "4k4/9/9/9/9/4N4/9/9/9/4K4 w - - 0 1", 5),
            P("flying general: the general may not step onto the open d-file",
              "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1", 5),
            P("stalemate: the soldier across the river takes e10 and d9 (no move, a loss)",
              "3k5/4P4/9/9/9/9/9/9/9/5K3 b - - 0 1", 1),
            P("in check from the chariot on rank 1; cannons with screens, soldiers across",
              "2bak4/4a4/4b4/2P1P1P2/p1C3c1p/2n6/9/4B4/4A4/3AK1r2 w - - 0 1", 4),
            P("random middlegame (seeded playout 1)",
              "3ak1bnr/1r1na4/c3b4/p1p1p1p1p/4c4/4P4/P1P1N1P1P/4B3R/RC6C/2BAKA1N1 w - - 30 16", 4),
            P("random middlegame (seeded playout 2)",
              "rn2kab1r/2c1a4/c4Cn1b/2p6/p5p1p/P3p1P2/2P1P3P/4B4/8R/RNBAKA1N1 w - - 18 16", 3),
            P("random middlegame (seeded playout 3)",
              "1nbakab1r/9/C8/2p1p1pnp/p7c/6B2/P1P1P1P1P/5C3/R8/RNBAKA1N1 w - - 1 16", 3),
            P("random endgame-ish (seeded playout 4)",
              "r3kab2/4a4/1C6C/2p5p/p4np2/2c1p4/2P3PrP/6NR1/3N1K3/3A1AB1R w - - 8 31", 3),
            P("random endgame-ish, a black soldier across the river (seeded playout 5)",
              "3k1a1n1/8r/r1n1ba2b/p3p1p1p/9/P2pP1C1P/4c4/RRNA5/9/4KABN1 w - - 8 31", 4),
        ],
    },
}


# ---------------------------------------------------------------------------
# Oracle: Fairy-Stockfish CLI
# ---------------------------------------------------------------------------
class CliError(RuntimeError):
    pass


def cli_run(variant, fen, depths, ini_path=None):
    """Run `go perft d` for each d in depths in one engine process.

    Returns ([nodes for each depth], {move: count} of the last depth)."""
    cmds = ["uci"]
    if ini_path:
        cmds += [f"setoption name VariantPath value {ini_path}", "uci"]
    cmds += [f"setoption name UCI_Variant value {variant}", f"position fen {fen}"]
    cmds += [f"go perft {d}" for d in depths]
    proc = subprocess.run([FSF_CLI], input="\n".join(cmds) + "\n",
                          capture_output=True, text=True, timeout=3600)
    out = proc.stdout
    combos = [l for l in out.splitlines() if l.startswith("option name UCI_Variant")]
    if not combos or f" var {variant} " not in combos[-1] + " ":
        raise CliError(f"FSF CLI does not know variant {variant!r}")
    totals = [int(x) for x in re.findall(r"^Nodes searched: (\d+)", out, re.M)]
    if len(totals) != len(depths):
        raise CliError(f"FSF CLI output incomplete for {variant} {fen}:\n{out[-2000:]}\n{proc.stderr}")
    # divide (per-move counts) of the last `go perft`: the lines between the last two totals
    segments = re.split(r"^Nodes searched: \d+$", out, flags=re.M)
    divide = {}
    for line in segments[-2].splitlines():
        m = re.match(r"^(\S+): (\d+)$", line)
        if m:
            divide[m.group(1)] = int(m.group(2))
    return totals, divide


# ---------------------------------------------------------------------------
# Oracle: pyffish
# ---------------------------------------------------------------------------
_PY_STATE = {}


def _py_init(ini):
    import pyffish as sf
    # Each distinct config once per process: several variants use different ini texts.
    loaded = _PY_STATE.setdefault("inis_loaded", set())
    if ini and ini not in loaded:
        sf.load_variant_config(ini)
        loaded.add(ini)
    _PY_STATE["sf"] = sf


def _py_perft(variant, fen, depth):
    sf = _PY_STATE["sf"]
    if depth == 0:
        return 1
    moves = sf.legal_moves(variant, fen, [])
    if depth == 1:
        return len(moves)
    if depth == 2:
        return sum(len(sf.legal_moves(variant, fen, [m])) for m in moves)
    return sum(_py_perft(variant, sf.get_fen(variant, fen, [m]), depth - 1) for m in moves)


def _py_child(args):
    variant, fen, move, depth, ini = args
    _py_init(ini)
    sf = _PY_STATE["sf"]
    if depth == 1:
        return move, len(sf.legal_moves(variant, fen, [move]))
    return move, _py_perft(variant, sf.get_fen(variant, fen, [move]), depth)


def py_divide(variant, fen, depth, ini=None, pool=None):
    """pyffish perft split by root move: {move: perft(child, depth-1)}."""
    _py_init(ini)
    sf = _PY_STATE["sf"]
    moves = sf.legal_moves(variant, fen, [])
    if depth == 1:
        return {m: 1 for m in moves}
    jobs = [(variant, fen, m, depth - 1, ini) for m in moves]
    if pool is not None and depth >= 4:
        return dict(pool.map(_py_child, jobs, chunksize=1))
    return dict(map(_py_child, jobs))


def py_perft(variant, fen, depth, ini=None, pool=None):
    if depth == 0:
        return 1
    return sum(py_divide(variant, fen, depth, ini, pool).values())


# ---------------------------------------------------------------------------
# Oracle: python-chess
# ---------------------------------------------------------------------------
def pc_board(kind, fen):
    import chess
    import chess.variant
    if kind == "chess":
        return chess.Board(fen)
    if kind == "antichess":
        return chess.variant.AntichessBoard(fen)
    if kind == "atomic":
        return chess.variant.AtomicBoard(fen)
    raise ValueError(kind)


class RuleOverlay:
    """A rule overlay on python-chess for the list's Explosion Chess (#17) and Circe Chess (#29),
    which no engine here plays. It is not an external engine: it is a second implementation of
    fairyzero's reading of those rules (configs/variants/explosion.toml and circe.toml), written
    independently of the Rust one on top of python-chess's orthodox move generation, so that
    perft catches implementation slips (make/unmake, castling rights, en passant, legality).

    Legal moves: python-chess's pseudo-legal moves (castling already refused out of, through or
    into an attacked square), each made with the rule's side effect and kept if the mover's king
    is then not attacked. Explosion: a capture removes the captured side's men on the eight
    squares round the captured man (en passant: round the passed pawn), with the castling rights
    they carried; a move that removes the enemy king is legal and ends the game (a side without
    a king has no moves). Circe: the captured man is put on its rebirth square if that is empty
    (pawn: its second rank on the capture file; Q: d1/d8; R, B, N: the home square of the
    capture square's colour); no castling right comes back."""

    def __init__(self, rule, fen):
        self.rule = rule
        self.b = chess.Board(fen)

    def _victim(self, m):
        b = self.b
        if b.is_en_passant(m):
            sq = m.to_square + (-8 if b.turn == chess.WHITE else 8)
            return sq, b.piece_at(sq)
        if b.is_castling(m):
            return None
        p = b.piece_at(m.to_square)
        return (m.to_square, p) if p is not None and p.color != b.turn else None

    def push(self, m):
        b = self.b
        us = b.turn
        victim = self._victim(m)
        b.push(m)  # pop() restores the whole board state, these edits included
        # BaseBoard's editors: Board's own would clear the move stack that pop() needs.
        if victim is None:
            return
        sq, piece = victim
        if self.rule == "explosion":
            for s in chess.SquareSet(chess.BB_KING_ATTACKS[sq]):
                p = b.piece_at(s)
                if p is not None and p.color != us:
                    chess.BaseBoard.remove_piece_at(b, s)
                    b.castling_rights &= ~chess.BB_SQUARES[s]
                    if p.piece_type == chess.KING:
                        b.castling_rights &= ~(chess.BB_RANK_1 if p.color == chess.WHITE else chess.BB_RANK_8)
        else:
            home = self.rebirth_square(piece, sq)
            if home is not None and b.piece_at(home) is None:
                chess.BaseBoard.set_piece_at(b, home, piece)

    @staticmethod
    def rebirth_square(piece, sq):
        """White's home squares, mirrored to rank 8 for Black; of two, the one whose colour is the
        capture square's."""
        if piece.piece_type == chess.PAWN:
            homes = [chess.square(chess.square_file(sq), 1)]
        else:
            homes = {chess.ROOK: [chess.A1, chess.H1], chess.BISHOP: [chess.C1, chess.F1],
                     chess.KNIGHT: [chess.B1, chess.G1], chess.QUEEN: [chess.D1]}[piece.piece_type]
        if piece.color == chess.BLACK:
            homes = [chess.square_mirror(h) for h in homes]
        light = bool(chess.BB_LIGHT_SQUARES & chess.BB_SQUARES[sq])
        return next((h for h in homes if bool(chess.BB_LIGHT_SQUARES & chess.BB_SQUARES[h]) == light), homes[0])

    def pop(self):
        self.b.pop()

    def legal(self):
        b = self.b
        us = b.turn
        if b.king(us) is None or b.king(not us) is None:
            return []
        out = []
        for m in list(b.generate_pseudo_legal_moves()):
            self.push(m)
            if b.king(not us) is None:
                ok = True  # blew up the enemy king: over before any check matters
            else:
                ok = b.king(us) is not None and not b.is_attacked_by(not us, b.king(us))
            self.pop()
            if ok:
                out.append(m)
        return out


def _ov_perft(board, depth):
    moves = board.legal()
    if depth == 1:
        return len(moves)
    n = 0
    for m in moves:
        board.push(m)
        n += _ov_perft(board, depth - 1)
        board.pop()
    return n


def _pc_perft(board, depth):
    if depth == 0:
        return 1
    if depth == 1:
        return board.legal_moves.count()
    n = 0
    for m in list(board.legal_moves):
        board.push(m)
        n += _pc_perft(board, depth - 1)
        board.pop()
    return n


def pc_perft(kind, fen, depth):
    if kind in ("explosion", "circe"):
        return 1 if depth == 0 else _ov_perft(RuleOverlay(kind, fen), depth)
    return _pc_perft(pc_board(kind, fen), depth)


# How the python-chess based oracles are named in the files.
PC_NAME = {"explosion": "python-chess+overlay", "circe": "python-chess+overlay"}


# ---------------------------------------------------------------------------
def versions():
    v = {}
    try:
        out = subprocess.run([FSF_CLI], input="quit\n", capture_output=True, text=True).stdout
        v["FSF-CLI"] = out.splitlines()[0].strip()
    except Exception as e:  # pragma: no cover
        v["FSF-CLI"] = f"unavailable ({e})"
    try:
        import pyffish as sf
        v["pyffish"] = "pyffish " + ".".join(map(str, sf.version()))
    except Exception as e:  # pragma: no cover
        v["pyffish"] = f"unavailable ({e})"
    try:
        import chess
        v["python-chess"] = "python-chess " + chess.__version__
    except Exception as e:  # pragma: no cover
        v["python-chess"] = f"unavailable ({e})"
    return v


class Disagreement(RuntimeError):
    pass


def compute_variant(name, spec, pool, log):
    ini_path = None
    if spec["ini"]:
        fd, ini_path = tempfile.mkstemp(suffix=".ini", prefix="fz_perft_")
        with os.fdopen(fd, "w") as f:
            f.write(spec["ini"])
    results = []
    try:
        for pos in spec["positions"]:
            t0 = time.time()
            if spec.get("published_only"):
                per = {d: {pos["pubsrc"]: n} for d, n in sorted(pos["pub"].items())}
                primary = {d: (pos["pubsrc"], n) for d, n in pos["pub"].items()}
                results.append((pos, per, primary, {}))
                log(f"  {name:12s} published only: {pos['label'][:60]}")
                continue
            fen, D = pos["oracle_fen"], pos["depth"]
            depths = list(range(1, D + 1))
            per = {d: {} for d in depths}      # depth -> {oracle: value}
            primary = {}
            if spec["cli"]:
                totals, _ = cli_run(spec["cli"], fen, depths, ini_path)
                for d, n in zip(depths, totals):
                    per[d]["FSF-CLI"] = n
                    primary[d] = ("FSF-CLI", n)
            # pyffish
            for d in depths if spec["py"] else []:
                if spec["cli"] and (primary[d][1] > PYFFISH_BUDGET and d > 1):
                    break
                n = py_perft(spec["py"], fen, d, spec["ini"], pool)
                per[d]["pyffish"] = n
                if d not in primary:
                    primary[d] = ("pyffish", n)
            # python-chess
            if spec["pc"]:
                for d in depths:
                    if d in primary and primary[d][1] > PYCHESS_BUDGET and d > 1:
                        break
                    n = pc_perft(spec["pc"], fen, d)
                    per[d][PC_NAME.get(spec["pc"], "python-chess")] = n
                    if d not in primary:
                        primary[d] = (PC_NAME.get(spec["pc"], "python-chess"), n)
            # published numbers
            for d, n in pos["pub"].items():
                if d in per:
                    per[d][pos["pubsrc"]] = n
            # agreement
            for d in depths:
                vals = set(per[d].values())
                if len(vals) != 1:
                    raise Disagreement(f"{name}: {fen} depth {d}: {per[d]}")
            extra_pub = {d: n for d, n in pos["pub"].items() if d not in per}
            results.append((pos, per, primary, extra_pub))
            log(f"  {name:12s} d{D} {primary[D][1]:>12,d}  {time.time() - t0:6.1f}s  {pos['label'][:60]}")
    finally:
        if ini_path:
            os.unlink(ini_path)
    return results


def write_variant(name, spec, results, outdir, vers):
    lines = []
    lines.append(f"# fairyzero perft reference data: {name}")
    lines.append("# Generated by tools/gen_perft.py from external oracles. Do not edit by hand; rerun the script.")
    if spec.get("published_only"):
        lines.append(f"# Rules: {spec['rules']} No oracle here plays it: the numbers are")
        lines.append("#   " + spec.get("published_by", f"{CC}'s published ones (its test and the comments beside it)")
                     + ", stored as they are.")
    elif name == "kinglet":
        lines.append("# Rules: Fairy-Stockfish `kinglet` with `promotionPieceTypes = nbrq` (the `kingletfile` section of")
        lines.append("#   shared/rules/variant-list.md Appendix A). FSF's built-in kinglet promotes to king only and differs.")
    elif spec["ini"] is DOSSIER_INI:
        lines.append(f"# Rules: the Fairy-Stockfish `{spec['py']}` section of shared/rules/variant-list.md Appendix A"
                     " (a custom variant;")
        lines.append("#   " + (spec.get("no_cli", "pyffish only: the FSF 11.1 CLI has no customPiece).") if not spec["cli"]
                             else "loaded into the FSF CLI with `VariantPath` and into pyffish)."))
    elif name == "wild1":
        lines.append("# Rules: orthodox chess (Fairy-Stockfish `chess`, python-chess) from ICS wild 1 arrays; a position")
        lines.append("#   with d-file kings is given to the oracles as its mirror image (tools/gen_perft.py mirror_files).")
    elif name in FEN_ONLY:
        lines.append("# Rules: orthodox chess (Fairy-Stockfish `chess`, python-chess) from this variant's own start array.")
    elif spec["pc"] in PC_NAME:
        lines.append(f"# Rules: {spec['rules']}")
        lines.append("#   No engine plays it: the oracle is tools/gen_perft.py's RuleOverlay on python-chess, a second")
        lines.append("#   implementation of the same reading (the hand-checked rulings are in rules/tests/).")
    elif name == "berolina":
        lines.append("# Rules: Fairy-Stockfish `berolina` (pyffish only: the FSF 11.1 CLI has no berolina).")
    else:
        lines.append(f"# Rules: Fairy-Stockfish built-in `{spec['cli'] or spec['py']}`.")
    lines.append("# Oracles: " + "; ".join(f"{k} = {v}" for k, v in vers.items()))
    lines.append("#   FSF-CLI: `go perft N`; pyffish: recursive perft over legal_moves/get_fen;")
    lines.append("#   python-chess: push/pop perft; 'cutechess'/'CPW': published numbers, compared only.")
    lines.append("# Each 'perft' line is preceded by a comment naming the oracle that produced it ('from')")
    lines.append("#   and the oracles that reproduced it ('= ...'). All oracles that were run agreed.")
    lines.append("# Semantics: positions ended by a variant rule (extinction, bare king, no pawns left) have no moves;")
    lines.append("#   the 50-move rule and repetition are ignored. See docs/reference-variants.md.")
    lines.append(f"variant {name}")
    total = 0
    for pos, per, primary, extra_pub in results:
        lines.append("#")
        lines.append(f"# position: {pos['label']}")
        lines.append(f"fen {pos['fen']}")
        for d in sorted(per):
            src, n = primary[d]
            others = [k for k in per[d] if k != src]
            c = f"# d{d} from {src}"
            if others:
                c += " = " + " = ".join(others)
            lines.append(c)
            lines.append(f"perft {d} {n}")
            total += 1
        for d, n in sorted(extra_pub.items()):
            lines.append(f"# (not stored) {pos['pubsrc']} publishes perft {d} = {n}")
    path = os.path.join(outdir, f"{name}.perft")
    # Variants the engine does not support yet are parked in <out>/pending/ (not read by the
    # Rust tests); keep a parked file parked.
    pending = os.path.join(outdir, "pending", f"{name}.perft")
    if os.path.exists(pending) and not os.path.exists(path):
        path = pending
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path, len(results), total


def cmd_divide(args):
    variant, fen, depth = args.variant, args.fen, args.depth
    spec = VARIANTS.get(variant, {"cli": variant, "py": variant, "ini": None})
    depth = int(depth)
    if spec["cli"]:
        ini_path = None
        if spec["ini"]:
            fd, ini_path = tempfile.mkstemp(suffix=".ini")
            with os.fdopen(fd, "w") as f:
                f.write(spec["ini"])
        totals, div = cli_run(spec["cli"], fen, [depth], ini_path)
        if ini_path:
            os.unlink(ini_path)
        src = "FSF-CLI"
    else:
        div = py_divide(spec["py"], fen, depth, spec["ini"])
        totals = [sum(div.values())]
        src = "pyffish"
    for m in sorted(div):
        print(f"{m}: {div[m]}")
    print(f"total {totals[0]} ({src})")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "divide":
        ap = argparse.ArgumentParser(prog="gen_perft.py divide")
        ap.add_argument("cmd")
        ap.add_argument("variant")
        ap.add_argument("fen")
        ap.add_argument("depth")
        cmd_divide(ap.parse_args())
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("variants", nargs="*", help="subset of: " + " ".join(VARIANTS))
    ap.add_argument("--out", default=os.path.join(here, "..", "rules", "tests", "data"))
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    args = ap.parse_args()
    names = args.variants or list(VARIANTS)
    for n in names:
        if n not in VARIANTS:
            ap.error(f"unknown variant {n}")
    os.makedirs(args.out, exist_ok=True)
    vers = versions()
    t_start = time.time()
    ctx = mp.get_context("fork")
    failures = []
    summary = []
    with ctx.Pool(args.jobs) as pool:
        for n in names:
            t0 = time.time()
            try:
                res = compute_variant(n, VARIANTS[n], pool, lambda s: print(s, flush=True))
            except (Disagreement, CliError) as e:
                print(f"ERROR {e}", file=sys.stderr, flush=True)
                failures.append(n)
                continue
            path, npos, nlines = write_variant(n, VARIANTS[n], res, args.out, vers)
            summary.append((n, npos, nlines, time.time() - t0, path))
    print()
    for n, npos, nlines, dt, path in summary:
        print(f"{n:12s} {npos:3d} positions {nlines:4d} perft lines {dt:7.1f}s  {os.path.relpath(path)}")
    print(f"total {time.time() - t_start:.1f}s")
    if failures:
        print("FAILED (oracles disagree or CLI error): " + ", ".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
