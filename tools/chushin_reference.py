#!/usr/bin/env python3
"""An independent reference move generator for Chushin Shogi (issue 17).

    python3 tools/chushin_reference.py perft  "<position>" <depth>
    python3 tools/chushin_reference.py divide "<position>" <depth>   # as `fairyzero perft --divide` prints it
    python3 tools/chushin_reference.py moves  "<position>"           # the move list, dossier notation
    python3 tools/chushin_reference.py selftest                      # dossier §11, §12.1, §12.2

No other engine plays Chushin (Fairy-Stockfish has no such variant), so this script is the
cross-check of the Rust generator. It is written from the dossier's PROSE definitions
(shared/rules/chushin-shogi.md §7: LionPower(S), Slides, RangeCapture, Area(n), Pass(S), the Lion
Dog's per-line set, the Fire Demon's Stops + burn set, the Heavenly Tetrarch, the Horned Falcon
and Soaring Eagle patterns, the simple strings of §7.1, the pass/igui table §7.3), not from the
XBetza strings and not from the Rust code, so that the two implementations share no reading.

Conventions (dossier §8, §9.2, §14):
* a move is (from, to, victims, promote); victims = the locust/burn/igui squares other than
  `to`, sorted ascending; the capture on `to` is implicit; igui and pass have to == from;
* promotion (types #1-#44 only) is offered iff the move starts or ends in the mover's zone
  (6 far ranks); the pass never promotes; igui by a piece standing in its zone may promote;
* every pass-capable piece has its own pass; no pass right after a pass (the root of a perft
  counts as "previous move was not a pass");
* no king safety; a position where exactly one side has no royal (King, Crown Prince) is
  finished and has no moves.

Position strings are fairyzero's (docs/notation.md, dossier §14): ranks 18..1, tokens upper
case for Sente, `(..)` around tokens longer than one letter, side `w` = Sente to move.
"""

import argparse
import os
import sys
import time

FILES = 18
RANKS = 18
SQUARES = FILES * RANKS
FILE_LETTERS = "abcdefghijklmnopqr"
ZONE_RANKS = 6
PROMOTION_OFFSET = 50
LAST_PROMOTABLE = 44
ROYALS = (62, 95)  # Crown Prince (+DE), King

START = (
    "ln(fl)icsg(rt)(de)k(lt)gsci(fl)nl/(rv)1(cs)(rd)(cs)1(bt)(ld)(vg)(gg)(ff)(bt)1(cs)(rd)(cs)1(rv)/"
    "(sc)(vc)(hb)(hk)(fh)(fy)(vd)(ph)q(ln)(ky)(vd)(fy)(fh)(hk)(hb)(vc)(sc)/"
    "(ss)(vs)b(vf)(dh)(dk)(wb)(fd)(fe)(lh)(fd)(wb)(dk)(dh)(vf)b(vs)(ss)/"
    "(sm)(vm)r(ve)(hf)(se)(bg)(rg)(vh)(vh)(rg)(bg)(se)(hf)(ve)r(vm)(sm)/pppppppppppppppppp/5d6d5/"
    "18/18/18/18/5D6D5/PPPPPPPPPPPPPPPPPP/"
    "(SM)(VM)R(VE)(HF)(SE)(BG)(RG)(VH)(VH)(RG)(BG)(SE)(HF)(VE)R(VM)(SM)/"
    "(SS)(VS)B(VF)(DH)(DK)(WB)(FD)(LH)(FE)(FD)(WB)(DK)(DH)(VF)B(VS)(SS)/"
    "(SC)(VC)(HB)(HK)(FH)(FY)(VD)(KY)(LN)Q(PH)(VD)(FY)(FH)(HK)(HB)(VC)(SC)/"
    "(RV)1(CS)(RD)(CS)1(BT)(FF)(GG)(VG)(LD)(BT)1(CS)(RD)(CS)1(RV)/LN(FL)ICSG(LT)K(DE)(RT)GSCI(FL)NL w"
)

# ---------------------------------------------------------------------------------------------
# Directions, in the piece's own frame: (right, forward). Sente uses them as board vectors
# (file, rank); Gote rotates them by 180 degrees (dossier §2).
FWD, BACK, LEFT, RIGHT = (0, 1), (0, -1), (-1, 0), (1, 0)
FWD_LEFT, FWD_RIGHT, BACK_LEFT, BACK_RIGHT = (-1, 1), (1, 1), (-1, -1), (1, -1)
ORTH = (FWD, BACK, LEFT, RIGHT)
DIAG = (FWD_LEFT, FWD_RIGHT, BACK_LEFT, BACK_RIGHT)
K8 = ORTH + DIAG
KNIGHT = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
UNLIMITED = 99


def twice(dirs):
    return tuple((2 * x, 2 * y) for x, y in dirs)


# Movement components (prose decodes of §7.1 / §7.2):
#   ("slide", dirs, n)   slide at most n squares (1 = a step; UNLIMITED = a rider)
#   ("jump", vectors)    leap to o+v, whatever lies between
#   ("lion", S)          LionPower(S): steps/jumps o+d, o+d+e; hit-and-run; igui; pass
#   ("liondog",)         the Lion Dog's per-line set on the 8 lines + pass
#   ("range", dirs)      RangeCapture(dirs): capture T2 or T3 over the pieces before it
#   ("area", n)          Area(n)
#   ("pass", S)          Pass(S)
#   ("tetrarch",)        skip-first queen slides + igui on every neighbour, no pass
#   ("falcon", dirs)     per line: step s1, jump s2, capture s1 then s2 or igui; pass if s1 empty
#   ("firedemon",)       Stops = Slides(K8) u Area(3), each with an optional burn; igui; pass
def slide(dirs, n=UNLIMITED):
    return ("slide", tuple(dirs), n)


def step(*dirs):
    return ("slide", tuple(dirs), 1)


ROOK, BISHOP = slide(ORTH), slide(DIAG)
QUEEN = slide(K8)
LION = ("lion", K8)
BISHOP_GENERAL = (BISHOP, ("range", DIAG))
ROOK_GENERAL = (ROOK, ("range", ORTH))
GREAT_GENERAL = (QUEEN, ("range", K8))
LION_DOG = (("liondog",),)
FURIOUS_FIEND = (LION, ("liondog",))
FREE_EAGLE = (QUEEN, ("jump", twice(K8)), ("lion", DIAG))
GOLDEN_BIRD = (QUEEN, ("jump", twice(ORTH)), ("lion", ORTH))
HORNED_FALCON = (BISHOP, slide((BACK, LEFT, RIGHT)), ("falcon", (FWD,)))
SOARING_EAGLE = (ROOK, slide((BACK_LEFT, BACK_RIGHT)), ("falcon", (FWD_LEFT, FWD_RIGHT)))
LION_HAWK = (BISHOP, LION)
GREAT_DRAGON = (ROOK, LION)
VIOLENT_HORSE = (slide(ORTH, 3),) + BISHOP_GENERAL
VIOLENT_DRAGON = (slide(DIAG, 3),) + ROOK_GENERAL
VICE_GENERAL = BISHOP_GENERAL + (("area", 3), ("pass", K8))
HORSE_MASTER = BISHOP_GENERAL + (("area", 2), ("pass", K8))
DRAGON_MASTER = ROOK_GENERAL + (("area", 2), ("pass", K8))
SHOGUN = (("area", 3), ("pass", K8))
FIRE_DEMON = (("firedemon",),)
TETRARCH = (("tetrarch",),)
KING = (step(*K8),)

SIDE_MOVER = (slide((LEFT, RIGHT)), step(FWD, BACK))
VERTICAL_MOVER = (slide((FWD, BACK)), step(LEFT, RIGHT))
SIDE_SOLDIER = (slide((LEFT, RIGHT)), slide((FWD,), 2), step(BACK))
VERTICAL_SOLDIER = (slide((FWD,)), slide((LEFT, RIGHT), 2), step(BACK))
DRAGON_HORSE = (BISHOP, step(*ORTH))
DRAGON_KING = (ROOK, step(*DIAG))
VIOLENT_FALCON = (BISHOP, ("jump", KNIGHT))
FIERCE_EAGLE = (ROOK, ("jump", KNIGHT))
CHARIOT_SOLDIER = (BISHOP, slide((FWD, BACK)), slide((LEFT, RIGHT), 2))
WATER_BUFFALO = (BISHOP, slide((LEFT, RIGHT)), slide((FWD, BACK), 2))
FREE_DEMON = (BISHOP, slide((LEFT, RIGHT)), slide((FWD, BACK), 5))
FREE_DREAM_EATER = (BISHOP, slide((FWD, BACK)), slide((LEFT, RIGHT), 5))
GOLD = (step(*ORTH), step(FWD_LEFT, FWD_RIGHT))

# (diagram number, ID, name, components). Entry #i (1..44) promotes to #i+50.
TYPES = [
    (1, "P", "pawn", (step(FWD),)),
    (2, "D", "dog", (step(FWD, BACK_LEFT, BACK_RIGHT),)),
    (3, "N", "knight", (("jump", KNIGHT),)),
    (4, "I", "iron general", (step(FWD_LEFT, FWD_RIGHT, BACK),)),
    (5, "C", "copper general", (step(FWD_LEFT, FWD_RIGHT, FWD, BACK),)),
    (6, "S", "silver general", (step(*DIAG, FWD),)),
    (7, "BT", "blind tiger", (step(*DIAG, BACK, LEFT, RIGHT),)),
    (8, "FL", "ferocious leopard", (step(*DIAG, FWD, BACK),)),
    (9, "G", "gold general", GOLD),
    (10, "LT", "left general", (step(*DIAG, FWD, BACK, RIGHT),)),
    (11, "RT", "right general", (step(*DIAG, FWD, BACK, LEFT),)),
    (12, "DE", "drunk elephant", (step(*DIAG, FWD, LEFT, RIGHT),)),
    (13, "FH", "flying horse", (slide(DIAG, 2),)),
    (14, "FY", "flying dragon", (slide(ORTH, 2),)),
    (15, "RD", "roaring dog", (slide(K8, 3),)),
    (16, "RV", "reverse chariot", (slide((FWD, BACK)),)),
    (17, "L", "lance", (slide((FWD,)), slide((BACK,), 2))),
    (18, "KY", "kirin", (step(*DIAG), ("jump", twice(ORTH)))),
    (19, "PH", "phoenix", (step(*ORTH), ("jump", twice(DIAG)))),
    (20, "SM", "side mover", SIDE_MOVER),
    (21, "VM", "vertical mover", VERTICAL_MOVER),
    (22, "B", "bishop", (BISHOP,)),
    (23, "SS", "side soldier", SIDE_SOLDIER),
    (24, "VS", "vertical soldier", VERTICAL_SOLDIER),
    (25, "R", "rook", (ROOK,)),
    (26, "SC", "side chariot", (slide((LEFT, RIGHT)), slide((FWD, BACK), 2))),
    (27, "VC", "vertical chariot", (slide((FWD, BACK)), slide((LEFT, RIGHT), 2))),
    (28, "DH", "dragon horse", DRAGON_HORSE),
    (29, "DK", "dragon king", DRAGON_KING),
    (30, "VF", "violent falcon", VIOLENT_FALCON),
    (31, "VE", "fierce eagle", FIERCE_EAGLE),
    (32, "CS", "chariot soldier", CHARIOT_SOLDIER),
    (33, "HF", "horned falcon", HORNED_FALCON),
    (34, "SE", "soaring eagle", SOARING_EAGLE),
    (35, "LN", "lion", (LION,)),
    (36, "LD", "lion dog", LION_DOG),
    (37, "Q", "queen", (QUEEN,)),
    (38, "FE", "free eagle", FREE_EAGLE),
    (39, "LH", "lion hawk", LION_HAWK),
    (40, "BG", "bishop general", BISHOP_GENERAL),
    (41, "RG", "rook general", ROOK_GENERAL),
    (42, "VH", "violent horse", VIOLENT_HORSE),
    (43, "VD", "violent dragon", VIOLENT_DRAGON),
    (44, "WB", "water buffalo", WATER_BUFFALO),
    (45, "HK", "free demon", FREE_DEMON),
    (46, "HB", "free dream eater", FREE_DREAM_EATER),
    (47, "FF", "furious fiend", FURIOUS_FIEND),
    (48, "VG", "vice general", VICE_GENERAL),
    (49, "GG", "great general", GREAT_GENERAL),
    (50, "FD", "fire demon", FIRE_DEMON),
    (51, "+P", "tokin", GOLD),
    (52, "+D", "multi general", (slide((BACK_LEFT, BACK_RIGHT)), slide((FWD,)))),
    (53, "+N", "side soldier", SIDE_SOLDIER),
    (54, "+I", "vertical soldier", VERTICAL_SOLDIER),
    (55, "+C", "side mover", SIDE_MOVER),
    (56, "+S", "vertical mover", VERTICAL_MOVER),
    (57, "+BT", "flying stag", (step(*K8), slide((FWD, BACK)))),
    (58, "+FL", "bishop", (BISHOP,)),
    (59, "+G", "rook", (ROOK,)),
    (60, "+LT", "shogun", SHOGUN),
    (61, "+RT", "shogun", SHOGUN),
    (62, "+DE", "crown prince", KING),
    (63, "+FH", "violent falcon", VIOLENT_FALCON),
    (64, "+FY", "fierce eagle", FIERCE_EAGLE),
    (65, "+RD", "lion dog", LION_DOG),
    (66, "+RV", "whale", (slide((FWD, BACK)), slide((BACK_LEFT, BACK_RIGHT)))),
    (67, "+L", "white horse", (slide((FWD, BACK)), slide((FWD_LEFT, FWD_RIGHT)))),
    (68, "+KY", "lion", (LION,)),
    (69, "+PH", "queen", (QUEEN,)),
    (70, "+SM", "free boar", (BISHOP, slide((LEFT, RIGHT)))),
    (71, "+VM", "flying ox", (BISHOP, slide((FWD, BACK)))),
    (72, "+B", "dragon horse", DRAGON_HORSE),
    (73, "+SS", "water buffalo", WATER_BUFFALO),
    (74, "+VS", "chariot soldier", CHARIOT_SOLDIER),
    (75, "+R", "dragon king", DRAGON_KING),
    (76, "+SC", "free demon", FREE_DEMON),
    (77, "+VC", "free dream eater", FREE_DREAM_EATER),
    (78, "+DH", "horned falcon", HORNED_FALCON),
    (79, "+DK", "soaring eagle", SOARING_EAGLE),
    (80, "+VF", "violent horse", VIOLENT_HORSE),
    (81, "+VE", "violent dragon", VIOLENT_DRAGON),
    (82, "+CS", "heavenly tetrarch", TETRARCH),
    (83, "+HF", "bishop general", BISHOP_GENERAL),
    (84, "+SE", "rook general", ROOK_GENERAL),
    (85, "+LN", "lion hawk", LION_HAWK),
    (86, "+LD", "furious fiend", FURIOUS_FIEND),
    (87, "+Q", "free eagle", FREE_EAGLE),
    (88, "+FE", "golden bird", GOLDEN_BIRD),
    (89, "+LH", "great dragon", GREAT_DRAGON),
    (90, "+BG", "vice general", VICE_GENERAL),
    (91, "+RG", "great general", GREAT_GENERAL),
    (92, "+VH", "horse master", HORSE_MASTER),
    (93, "+VD", "dragon master", DRAGON_MASTER),
    (94, "+WB", "fire demon", FIRE_DEMON),
    (95, "K", "king", KING),
]
assert [t[0] for t in TYPES] == list(range(1, 96))
ID_OF = {num: ident for num, ident, _, _ in TYPES}
NAME_OF = {num: name for num, _, name, _ in TYPES}
NUMBER_OF_ID = {ident: num for num, ident, _, _ in TYPES}
assert len({i.lower() for i in NUMBER_OF_ID}) == 95, "tokens must be unique ignoring case"


# ---------------------------------------------------------------------------------------------
# Geometry tables. A board piece is +n (Sente, diagram number n) or -n (Gote); 0 = empty.
def square_name(sq):
    return f"{FILE_LETTERS[sq % FILES]}{sq // FILES + 1}"


def parse_square(text):
    f = FILE_LETTERS.index(text[0])
    r = int(text[1:]) - 1
    if not (0 <= r < RANKS):
        raise ValueError(f"square {text!r} is off the board")
    return r * FILES + f


def _ray_table(vector):
    """ray[sq] = squares o+v, o+2v, ... on the board (board-frame vector)."""
    dx, dy = vector
    table = []
    for sq in range(SQUARES):
        f, r = sq % FILES, sq // FILES
        line = []
        f, r = f + dx, r + dy
        while 0 <= f < FILES and 0 <= r < RANKS:
            line.append(r * FILES + f)
            f, r = f + dx, r + dy
        table.append(tuple(line))
    return table


_RAYS = {}


def ray(vector):
    if vector not in _RAYS:
        _RAYS[vector] = _ray_table(vector)
    return _RAYS[vector]


def board_vector(colour, vector):
    """Piece-frame (right, forward) -> board (file, rank) for the owner `colour` (+1 / -1)."""
    return (vector[0] * colour, vector[1] * colour)


def target(sq, vector):
    """o + v on the board, or None (board-frame vector)."""
    f, r = sq % FILES + vector[0], sq // FILES + vector[1]
    if 0 <= f < FILES and 0 <= r < RANKS:
        return r * FILES + f
    return None


_TARGETS = {}


def targets(vector):
    """Table sq -> o + v or None (board-frame vector)."""
    if vector not in _TARGETS:
        _TARGETS[vector] = [target(sq, vector) for sq in range(SQUARES)]
    return _TARGETS[vector]


KING_STEPS = [tuple(t for t in (target(sq, v) for v in K8) if t is not None) for sq in range(SQUARES)]


def in_zone(colour, sq):
    r = sq // FILES
    return r >= RANKS - ZONE_RANKS if colour > 0 else r < ZONE_RANKS


# ---------------------------------------------------------------------------------------------
# Effect generation. The mover's square is emptied for the whole generation (dossier §6, §10).
class Generator:
    """Effects (to, victims) of one piece; `board[o]` must already be 0."""

    def __init__(self, board, o, colour, passes_allowed):
        self.board = board
        self.o = o
        self.colour = colour
        self.passes_allowed = passes_allowed
        self.effects = set()

    def enemy(self, sq):
        return self.board[sq] * self.colour < 0

    def landable(self, sq):
        return self.board[sq] * self.colour <= 0

    def vec(self, v):
        return board_vector(self.colour, v)

    def add(self, to, victims=()):
        self.effects.add((to, tuple(sorted(victims))))

    def run(self, components):
        for comp in components:
            getattr(self, "gen_" + comp[0])(*comp[1:])
        return self.effects

    def slide_targets(self, dirs, n):
        """Slides(dirs) limited to n squares: stop at the first occupied square, take it if enemy."""
        board, colour = self.board, self.colour
        out = []
        for d in dirs:
            for t in ray(self.vec(d))[self.o][:n]:
                occupant = board[t]
                if occupant == 0:
                    out.append(t)
                    continue
                if occupant * colour < 0:
                    out.append(t)
                break
        return out

    def gen_slide(self, dirs, n):
        for t in self.slide_targets(dirs, n):
            self.add(t)

    def gen_jump(self, vectors):
        for v in vectors:
            t = targets(self.vec(v))[self.o]
            if t is not None and self.landable(t):
                self.add(t)

    def gen_lion(self, dirs):
        o = self.o
        steps = [targets(self.vec(d)) for d in dirs]
        for table_d in steps:
            a = table_d[o]
            if a is None:
                continue
            if self.landable(a):
                self.add(a)
            a_is_enemy = self.enemy(a)
            for table_e in steps:
                b = table_e[a]
                if b is None or b == o or not self.landable(b):
                    continue
                self.add(b)  # 1. jump to o+d+e, whatever stands on a
                if a_is_enemy:
                    self.add(b, (a,))  # 2. hit and run / double capture
            if a_is_enemy:
                self.add(o, (a,))  # 3. igui
        self.gen_pass(dirs)  # 4. pass

    def gen_pass(self, dirs):
        if not self.passes_allowed:
            return
        for d in dirs:
            t = targets(self.vec(d))[self.o]
            if t is not None and self.board[t] == 0:
                self.add(self.o)
                return

    def gen_liondog(self):
        o = self.o
        for d in K8:
            line = ray(self.vec(d))[o][:3]
            if not line:
                continue
            for s in line:  # plain steps and jumps to s1, s2, s3
                if self.landable(s):
                    self.add(s)
            s1 = line[0]
            e1 = self.enemy(s1)
            if e1:
                self.add(o, (s1,))  # igui
            if len(line) < 2:
                continue
            s2 = line[1]
            e2 = self.enemy(s2)
            if e1 and self.landable(s2):
                self.add(s2, (s1,))  # capture s1, go on to s2
            if e2 and self.landable(s1):
                self.add(s1, (s2,))  # two out, one in
            if len(line) < 3:
                continue
            s3 = line[2]
            if self.landable(s3):
                if e1:
                    self.add(s3, (s1,))
                if e2:
                    self.add(s3, (s2,))
                if e1 and e2:
                    self.add(s3, (s1, s2))
        self.gen_pass(K8)

    def gen_range(self, dirs):
        board, colour = self.board, self.colour
        for d in dirs:
            occupied = 0
            for t in ray(self.vec(d))[self.o]:
                if board[t] == 0:
                    continue
                occupied += 1
                # T1 is the ordinary slide's business; T2 and T3 are range captures.
                if occupied >= 2 and board[t] * colour < 0:
                    self.add(t)
                if occupied == 3:
                    break

    def area(self, n):
        """Area(n) destinations: BFS through empty squares (start counts as empty)."""
        board, colour = self.board, self.colour
        seen = {self.o}
        frontier = [self.o]
        out = []
        for _ in range(n):
            nxt = []
            for q in frontier:
                for t in KING_STEPS[q]:
                    if t in seen:
                        continue
                    seen.add(t)
                    occupant = board[t]
                    if occupant == 0:
                        out.append(t)
                        nxt.append(t)
                    elif occupant * colour < 0:
                        out.append(t)  # a destination, not expanded
            frontier = nxt
        return out

    def gen_area(self, n):
        for t in self.area(n):
            self.add(t)

    def gen_tetrarch(self):
        board, colour, o = self.board, self.colour, self.o
        for d in K8:
            line = ray(self.vec(d))[o]
            for t in line[1:]:  # the adjacent square is skipped, whatever it holds
                occupant = board[t]
                if occupant == 0:
                    self.add(t)
                    continue
                if occupant * colour < 0:
                    self.add(t)
                break
        for t in KING_STEPS[o]:
            if self.enemy(t):
                self.add(o, (t,))  # igui; never a pass

    def gen_falcon(self, dirs):
        o = self.o
        for d in dirs:
            line = ray(self.vec(d))[o][:2]
            if not line:
                continue
            s1 = line[0]
            s2 = line[1] if len(line) > 1 else None
            if self.landable(s1):
                self.add(s1)
            if s2 is not None and self.landable(s2):
                self.add(s2)  # jump
            if self.enemy(s1):
                self.add(o, (s1,))  # igui
                if s2 is not None and self.landable(s2):
                    self.add(s2, (s1,))
        self.gen_pass(dirs)

    def gen_firedemon(self):
        o = self.o
        stops = set(self.slide_targets(K8, UNLIMITED)) | set(self.area(3))
        for x in stops:
            self.add(x)
            for y in KING_STEPS[x]:
                if self.enemy(y):
                    self.add(x, (y,))  # burn one enemy next to where it stops
        for a in KING_STEPS[o]:
            if self.enemy(a):
                self.add(o, (a,))  # igui
        self.gen_pass(K8)


COMPONENTS = {num: comps for num, _, _, comps in TYPES}


def piece_effects(board, o, passes_allowed):
    """The set of (to, victims) effects of the piece on `o`."""
    piece = board[o]
    colour = 1 if piece > 0 else -1
    board[o] = 0
    try:
        return Generator(board, o, colour, passes_allowed).run(COMPONENTS[abs(piece)])
    finally:
        board[o] = piece


# ---------------------------------------------------------------------------------------------
class Position:
    def __init__(self, board, side, last_was_pass=False):
        self.board = board  # list of 324 ints
        self.side = side  # +1 Sente, -1 Gote
        self.last_was_pass = last_was_pass

    @classmethod
    def parse(cls, text):
        fields = text.split()
        if len(fields) != 2:
            raise ValueError(f"position {text!r}: expected '<board> <side>'")
        rows = fields[0].split("/")
        if len(rows) != RANKS:
            raise ValueError(f"position {text!r}: {len(rows)} ranks, the board has {RANKS}")
        board = [0] * SQUARES
        for i, row in enumerate(rows):
            r = RANKS - 1 - i
            f = 0
            j = 0
            while j < len(row):
                ch = row[j]
                if ch.isdigit():
                    k = j
                    while k < len(row) and row[k].isdigit():
                        k += 1
                    f += int(row[j:k])
                    j = k
                    continue
                if ch == "(":
                    k = row.index(")", j)
                    token = row[j + 1 : k]
                    j = k + 1
                else:
                    token = ch
                    j += 1
                letters = token.lstrip("+")
                if not letters or not (letters.isupper() or letters.islower()):
                    raise ValueError(f"rank {r + 1}: bad token {token!r}")
                num = NUMBER_OF_ID.get(token.upper())
                if num is None or (len(token) > 1 and ch != "("):
                    raise ValueError(f"rank {r + 1}: unknown piece token {token!r}")
                if f >= FILES:
                    raise ValueError(f"rank {r + 1} describes more than {FILES} files")
                board[r * FILES + f] = num if letters.isupper() else -num
                f += 1
            if f != FILES:
                raise ValueError(f"rank {r + 1} describes {f} files, the board has {FILES}")
        if fields[1] not in ("w", "b"):
            raise ValueError(f"position {text!r}: side must be 'w' or 'b'")
        return cls(board, 1 if fields[1] == "w" else -1)

    def fen(self):
        rows = []
        for r in range(RANKS - 1, -1, -1):
            out, empty = "", 0
            for f in range(FILES):
                p = self.board[r * FILES + f]
                if p == 0:
                    empty += 1
                    continue
                if empty:
                    out += str(empty)
                    empty = 0
                token = ID_OF[abs(p)]
                token = token if p > 0 else token.lower()
                out += token if len(token) == 1 else f"({token})"
            if empty:
                out += str(empty)
            rows.append(out)
        return "/".join(rows) + (" w" if self.side > 0 else " b")

    def finished(self):
        board = self.board
        sente = any(r in board for r in ROYALS)
        gote = any(-r in board for r in ROYALS)
        return sente != gote

    def moves(self):
        """Every legal move (from, to, victims, promote)."""
        if self.finished():
            return []
        out = []
        for o in range(SQUARES):
            if self.board[o] * self.side > 0:
                out += self.piece_moves(o)
        return out

    def piece_moves(self, o):
        """The moves of the piece on `o`, whether or not the game is over (§12.2 mobility)."""
        piece = self.board[o]
        colour = 1 if piece > 0 else -1
        promotable = abs(piece) <= LAST_PROMOTABLE
        o_in_zone = in_zone(colour, o)
        out = []
        for to, victims in piece_effects(self.board, o, not self.last_was_pass):
            out.append((o, to, victims, False))
            is_pass = to == o and not victims
            if promotable and not is_pass and (o_in_zone or in_zone(colour, to)):
                out.append((o, to, victims, True))
        return out

    def make(self, move):
        o, to, victims, promote = move
        board = self.board
        piece = board[o]
        undo = (o, to, piece, [(v, board[v]) for v in victims], board[to], self.last_was_pass)
        board[o] = 0
        for v in victims:
            board[v] = 0
        board[to] = (piece + PROMOTION_OFFSET if piece > 0 else piece - PROMOTION_OFFSET) if promote else piece
        self.side = -self.side
        self.last_was_pass = to == o and not victims
        return undo

    def unmake(self, undo):
        o, to, piece, removed, on_to, last_was_pass = undo
        board = self.board
        board[to] = on_to
        for v, p in removed:
            board[v] = p
        board[o] = piece
        self.side = -self.side
        self.last_was_pass = last_was_pass


def perft(pos, depth):
    if depth == 0:
        return 1
    moves = pos.moves()
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        undo = pos.make(m)
        total += perft(pos, depth - 1)
        pos.unmake(undo)
    return total


# ---------------------------------------------------------------------------------------------
# Notation.
def dossier_notation(move):
    """§9.3: FROM, x+victim..., -TO, + if promoting."""
    o, to, victims, promote = move
    return (
        square_name(o)
        + "".join("x" + square_name(v) for v in victims)
        + "-"
        + square_name(to)
        + ("+" if promote else "")
    )


def fairyzero_notation(move):
    """docs/notation.md: <from><to> then x<sq>... ascending, then '+'. A pass is <sq><sq>."""
    o, to, victims, promote = move
    return (
        square_name(o) + square_name(to) + "".join("x" + square_name(v) for v in victims) + ("+" if promote else "")
    )


# ---------------------------------------------------------------------------------------------
# Self-test against the dossier.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "rules", "tests", "data", "chushin", "examples.txt")

# §12.2, every entry: ID -> (h9 effects, h9 moves, a1 effects, a1 moves) of a lone Sente piece.
MOBILITY = {
    "P": (1, 1, 1, 1), "D": (3, 3, 1, 1), "N": (8, 8, 2, 2), "I": (3, 3, 1, 1), "C": (4, 4, 2, 2),
    "S": (5, 5, 2, 2), "BT": (7, 7, 2, 2), "FL": (6, 6, 2, 2), "G": (6, 6, 3, 3), "LT": (7, 7, 3, 3),
    "RT": (7, 7, 2, 2), "DE": (7, 7, 3, 3), "FH": (8, 8, 2, 2), "FY": (8, 8, 4, 4),
    "RD": (24, 24, 9, 9), "RV": (17, 23, 17, 23), "L": (11, 17, 17, 23), "KY": (8, 8, 3, 3),
    "PH": (8, 8, 3, 3), "SM": (19, 19, 18, 18), "VM": (19, 25, 18, 24), "B": (31, 41, 17, 23),
    "SS": (20, 20, 19, 19), "VS": (14, 20, 19, 25), "R": (34, 40, 34, 40), "SC": (21, 21, 19, 19),
    "VC": (21, 27, 19, 25), "DH": (35, 45, 19, 25), "DK": (38, 44, 35, 41), "VF": (39, 49, 19, 25),
    "VE": (42, 48, 36, 42), "CS": (52, 68, 36, 48), "HF": (59, 69, 37, 43), "SE": (54, 60, 37, 43),
    "LN": (25, 25, 9, 9), "LD": (25, 25, 10, 10), "Q": (65, 81, 51, 63), "FE": (66, 82, 52, 64),
    "LH": (48, 58, 24, 30), "BG": (31, 41, 17, 23), "RG": (34, 40, 34, 40), "VH": (43, 53, 23, 29),
    "VD": (46, 52, 37, 43), "WB": (52, 62, 36, 42), "HK": (58, 58, 39, 39), "HB": (58, 58, 39, 39),
    "FF": (33, 33, 12, 12), "VG": (68, 68, 30, 30), "GG": (65, 65, 51, 51), "FD": (90, 90, 58, 58),
    "+P": (6, 6, 3, 3), "+D": (24, 24, 17, 17), "+N": (20, 20, 19, 19), "+I": (14, 14, 19, 19),
    "+C": (19, 19, 18, 18), "+S": (19, 19, 18, 18), "+BT": (23, 23, 19, 19), "+FL": (31, 31, 17, 17),
    "+G": (34, 34, 34, 34), "+LT": (49, 49, 16, 16), "+RT": (49, 49, 16, 16), "+DE": (8, 8, 3, 3),
    "+FH": (39, 39, 19, 19), "+FY": (42, 42, 36, 36), "+RD": (25, 25, 10, 10), "+RV": (32, 32, 17, 17),
    "+L": (33, 33, 34, 34), "+KY": (25, 25, 9, 9), "+PH": (65, 65, 51, 51), "+SM": (48, 48, 34, 34),
    "+VM": (48, 48, 34, 34), "+B": (35, 35, 19, 19), "+SS": (52, 52, 36, 36), "+VS": (52, 52, 36, 36),
    "+R": (38, 38, 35, 35), "+SC": (58, 58, 39, 39), "+VC": (58, 58, 39, 39), "+DH": (59, 59, 37, 37),
    "+DK": (54, 54, 37, 37), "+VF": (43, 43, 23, 23), "+VE": (46, 46, 37, 37), "+CS": (57, 57, 48, 48),
    "+HF": (31, 31, 17, 17), "+SE": (34, 34, 34, 34), "+LN": (48, 48, 24, 24), "+LD": (33, 33, 12, 12),
    "+Q": (66, 66, 52, 52), "+FE": (66, 66, 52, 52), "+LH": (51, 51, 39, 39), "+BG": (68, 68, 30, 30),
    "+RG": (65, 65, 51, 51), "+VH": (48, 48, 24, 24), "+VD": (51, 51, 39, 39), "+WB": (90, 90, 58, 58),
    "K": (8, 8, 3, 3),
}

START_PLY1 = (
    "c1-b2, e1-f2, f1-f2, g1-f2, l1-m2, m1-m2, n1-m2, p1-q2, c2-b2, e2-f2, g2-f2, h2-f2, k2-m2, "
    "l2-m2, n2-m2, p2-q2, b3-b2, c3-b2, e3-f2, f3-f2, g3-f2, l3-m2, m3-m2, n3-m2, p3-q2, q3-q2, "
    "d5-c7, d5-e7, e5-e7, f5-d7, f5-h7, g5-o13, g5-o13+, g5-p14, g5-p14+, h5-h13, h5-h13+, h5-h14, "
    "h5-h14+, i5-a13, i5-a13+, i5-q13, i5-q13+, i5-r14, i5-r14+, j5-b13, j5-b13+, j5-r13, j5-r13+, "
    "j5-a14, j5-a14+, k5-k13, k5-k13+, k5-k14, k5-k14+, l5-d13, l5-d13+, l5-c14, l5-c14+, m5-k7, "
    "m5-o7, n5-n7, o5-n7, o5-p7, a6-a7, b6-b7, c6-c7, d6-d7, e6-e7, g6-g7, h6-h7, i6-i7, j6-j7, "
    "k6-k7, l6-l7, n6-n7, o6-o7, p6-p7, q6-q7, r6-r7, f7-f8, m7-m8"
)


def read_examples(path):
    blocks, block, listing = [], None, None
    with open(path) as fh:
        for raw in fh:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            key, _, rest = line.partition(" ")
            if key == "example":
                block, listing = {"title": rest, "moves": []}, None
            elif key == "pieces":
                block["pieces"] = rest.split()
            elif key == "side":
                block["side"] = 1 if rest == "sente" else -1
            elif key == "from":
                block["from"] = parse_square(rest)
            elif key == "moves":
                block["count"] = int(rest)
                listing = block["moves"]
            elif key == "end":
                blocks.append(block)
                block, listing = None, None
            elif key == "arrival":
                pass
            elif listing is not None:
                listing.extend(m.strip() for m in line.split(",") if m.strip())
            else:
                raise ValueError(f"{path}: unexpected line {line!r}")
    return blocks


def position_from_pieces(pieces, side):
    board = [0] * SQUARES
    for item in pieces:
        colour = 1 if item[0] == "S" else -1
        ident, _, sq = item[1:].partition("@")
        board[parse_square(sq)] = colour * NUMBER_OF_ID[ident]
    return Position(board, side)


def count_pass_leaves(pos, depth):
    """How many of perft(depth)'s leaves are reached by a pass (checks "no pass after a pass")."""
    moves = pos.moves()
    if depth == 1:
        return sum(1 for o, to, victims, _ in moves if o == to and not victims)
    total = 0
    for m in moves:
        undo = pos.make(m)
        total += count_pass_leaves(pos, depth - 1)
        pos.unmake(undo)
    return total


def selftest():
    failures = 0

    def check(label, got, want):
        nonlocal failures
        status = "ok" if got == want else "FAIL"
        if got != want:
            failures += 1
        print(f"{status:4} {label}: {got}" + ("" if got == want else f" (dossier {want})"))

    # §11 worked examples: the complete move list of one piece.
    if os.path.exists(EXAMPLES):
        for ex in read_examples(EXAMPLES):
            pos = position_from_pieces(ex["pieces"], ex["side"])
            mine = sorted(m for m in pos.moves() if m[0] == ex["from"])
            got = [dossier_notation(m) for m in mine]
            check(f"§{ex['title']}: count", len(got), ex["count"])
            if got != ex["moves"]:
                failures += 1
                print(f"FAIL §{ex['title']}: list differs")
                print("   extra:  ", sorted(set(got) - set(ex["moves"])))
                print("   missing:", sorted(set(ex["moves"]) - set(got)))
    else:
        print(f"skip §11 examples: {EXAMPLES} not found")

    # §12.2 lone-piece mobility on h9 and a1.
    for ident, want in MOBILITY.items():
        got = []
        for sq in ("h9", "a1"):
            pos = position_from_pieces([f"S{ident}@{sq}"], 1)
            moves = pos.piece_moves(parse_square(sq))
            got += [len({(m[1], m[2]) for m in moves}), len(moves)]
        check(f"§12.2 {ident}", tuple(got), want)

    # §12.1 start position.
    start = Position.parse(START)
    check("§12.1 round trip", start.fen(), START)
    got = ", ".join(dossier_notation(m) for m in sorted(start.moves()))
    check("§12.1 ply-1 list", got, START_PLY1)
    check("§12.1 perft 1", perft(start, 1), 82)
    check("§12.1 perft 2", perft(start, 2), 6772)
    t = time.time()
    check("§12.1 perft 3", perft(start, 3), 640934)
    print(f"     (perft 3 took {time.time() - t:.1f} s)")
    check("§12.1 pass moves among the depth-3 leaves", count_pass_leaves(start, 3), 6842)
    print("selftest:", "all ok" if failures == 0 else f"{failures} failure(s)")
    return failures == 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("perft", "divide"):
        p = sub.add_parser(name)
        p.add_argument("position")
        p.add_argument("depth", type=int)
    p = sub.add_parser("moves")
    p.add_argument("position")
    sub.add_parser("selftest")
    args = parser.parse_args()

    if args.command == "selftest":
        sys.exit(0 if selftest() else 1)
    pos = Position.parse(args.position)
    if args.command == "moves":
        for m in sorted(pos.moves()):
            print(dossier_notation(m))
    elif args.command == "perft":
        print(perft(pos, args.depth))
    else:
        # The layout of `fairyzero perft --divide` (sorted text, `MOVE: N`, `nodes N`), so that
        # the two outputs compare with diff.
        rows = []
        for m in pos.moves():
            undo = pos.make(m)
            rows.append((fairyzero_notation(m), perft(pos, args.depth - 1)))
            pos.unmake(undo)
        for text, n in sorted(rows):
            print(f"{text}: {n}")
        print(f"nodes {sum(n for _, n in rows)}")


if __name__ == "__main__":
    main()
