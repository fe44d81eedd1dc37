"""Classes of equivalent positions (symmetries and translations), checked by brute force.

For every family, on full and holed boards: moving every piece by a vector under which the
board is alike (`Board.alike` with the family's margin) gives the same moves, moved, and
children that are alike under the same vector again, so the whole game is the same (the
stored bits and solution counts agree too); the margins cannot be dropped. Then the classes
`canonical=True` and `class_size` work with are compared with a plain closure
(`reference.position_class`) over every position of small puzzles. The default run analyses
some puzzles with fewer pieces (`SMALL`); `-m slow` runs them at full size too.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import numpy as np
import pytest
import reference as ref
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from curator.layered import classes
from curator.layered import select as sel
from curator.layered.analysis import analyze
from curator.layered.puzzle import load_puzzle, parse_puzzle
from curator.layered.search import Explorer
from curator.layered.space import StateSpace

ROOT = Path(__file__).resolve().parent.parent


def puzzle(family, art, *, grid="square", rules="", pieces="", goal="pieces = 1", name="t"):
    return parse_puzzle(f"""
name = "{name}"
[board]
grid = "{grid}"
art = '''
{art}
'''
[rules]
family = "{family}"
{rules}
{pieces}
[goal]
{goal}
""")


RECT = "....\n....\n...."
HOLED = "..#..\n.....\n.#...\n....."
CROSS = "#....#\n......\n......\n......"
TRIANGLE = "    .\n   . .\n  . . .\n . . . .\n. . . . ."
CHESS = "[pieces]\nQ = 1\nR = 1\nN = 1\nP = 2"

PUZZLES = {
    "fling": lambda: puzzle("fling", RECT),
    "fling-holed": lambda: puzzle("fling", HOLED),
    "capture": lambda: puzzle("capture", RECT, pieces=CHESS),
    "capture-holed": lambda: puzzle("capture", HOLED, pieces="[pieces]\nK = 1\nQ = 1\nN = 1\nP = 1",
                                    rules="king_safe = true"),
    "jump": lambda: puzzle("jump", "......\n......\n......"),
    "jump-holed-diagonal": lambda: puzzle("jump", CROSS, rules="diagonal = true"),
    "jump-triangular": lambda: puzzle("jump", TRIANGLE, grid="triangular"),
    "fling-goal-cells": lambda: puzzle("fling", RECT, goal="pieces = 1\ncells = [[1, 1], [1, 2]]"),
    "capture-goal-piece": lambda: puzzle("capture", RECT, pieces=CHESS, goal="pieces = 1\npiece = 'Q'"),
    "capture-goal-piece-qnpp": lambda: puzzle("capture", RECT, pieces="[pieces]\nQ = 1\nN = 1\nP = 2",
                                              goal="pieces = 1\npiece = 'Q'"),
}

DEPTH = {"fling": 5, "fling-holed": 5, "capture": 4, "capture-holed": 3, "jump": 5, "jump-holed-diagonal": 4,
         "jump-triangular": 6, "fling-goal-cells": 4, "capture-goal-piece": 3, "capture-goal-piece-qnpp": 3}
"""The most pieces each puzzle is analysed with in its full-size case."""
SMALL = {"fling-holed": ("fling-holed", 4), "capture": ("capture", 3), "jump": ("jump", 4),
         "jump-holed-diagonal": ("jump-holed-diagonal", 3), "jump-triangular": ("jump-triangular", 4),
         "capture-goal-piece": ("capture-goal-piece-qnpp", 3)}
"""The default run's form of the slowest cases (puzzle, pieces); the full size runs with -m slow.
The jump layers left out have no translations at all (the margin grows with the pegs: none with
4 or more pegs on the rectangle, 3 or more with holes and diagonals or on triangles), so the layers
kept still have both kinds; fling with holes keeps 150 positions of 4 balls with translations,
capture 6000 of 3 pieces; without the rook the goal piece still has three types, one twice."""


def cases(names, slow=()):
    """Parameters (puzzle, pieces): the default-run form of each name, and its full size
    as a slow case when that is larger (or the full size alone, slow, for the names in `slow`)."""
    out = []
    for name in names:
        if name in SMALL and name not in slow:
            out.append(pytest.param(*SMALL[name], id=f"{name}-small"))
        out.append(pytest.param(name, DEPTH[name], id=name,
                                marks=pytest.mark.slow if name in SMALL or name in slow else ()))
    return out


def positions(p, k):
    """Every position of `k` pieces (types up to the puzzle's limits)."""
    types = range(1, len(p.piece_types) + 1)
    for cells in itertools.combinations(range(p.board.size), k):
        for kinds in itertools.product(types, repeat=k):
            if any(kinds.count(t) > p.piece_limits[t - 1] for t in types):
                continue
            position = [0] * p.board.size
            for c, t in zip(cells, kinds):
                position[c] = t
            yield tuple(position)


def moved(board, position, vector):
    out = [0] * board.size
    for c, v in enumerate(position):
        if v:
            out[board.moved(c, vector)] = v
    return tuple(out)


def occupied(position):
    return [c for c, v in enumerate(position) if v]


def alike_vectors(p, position):
    """The vectors `Board.alike` allows for `position`, checked against the plain reference."""
    board = p.board
    cells = occupied(position)
    margin = p.translation_margin(len(cells))
    out = []
    for vector in board.translations():
        if any(board.moved(c, vector) is None for c in cells):
            continue
        ok = margin is not None and board.alike(cells, vector, margin)
        if margin is not None:
            plain = ref.board_alike(frozenset(board.cells), board.grid, [board.cells[c] for c in cells],
                                    vector, margin)
            assert ok == plain, (position, vector)
        if ok:
            out.append(vector)
    return out


def moves_moved(p, moves, vector):
    board = p.board
    return sorted(((board.moved(a, vector), board.moved(b, vector)), moved(board, child, vector))
                  for (a, b), child in moves)


# ---------------------------------------------------------------------------------------
# Translations give the same game
# ---------------------------------------------------------------------------------------


ALIKE = ["fling", "fling-holed", "capture", "capture-holed", "jump", "jump-holed-diagonal", "jump-triangular"]
ALIKE_SLOW = ("capture-holed",)
"""capture with holes (8 s in these two tests, 10 s in the closure): capture on the plain board,
and the other families with holes, cover it."""


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.slow if name in ALIKE_SLOW else ())
                                  for name in ALIKE])
def test_alike_translations_commute_with_moves(name):
    p = PUZZLES[name]()
    tables = p.rules.tables()
    checked = 0
    for k in range(p.goal.pieces + 1, 4):
        for position in positions(p, k):
            moves = p.rules.moves_from(position, tables)
            for vector in alike_vectors(p, position):
                there = sorted(p.rules.moves_from(moved(p.board, position, vector), tables))
                assert there == moves_moved(p, moves, vector), (position, vector)
                # The children are alike under the vector again: the next moves agree too.
                child_margin = p.translation_margin(k - 1)
                for _, child in moves:
                    assert p.board.alike(occupied(child), vector, child_margin)
                checked += 1
    assert checked > 0


def test_translations_need_the_margins():
    """Without the board check (fling, capture on holed boards) or with too small a margin
    (jump), moving the pieces changes the moves."""
    for name, margin in (("fling-holed", None), ("capture-holed", None), ("jump", 0),
                         ("jump-triangular", 0)):
        p = PUZZLES[name]()
        tables = p.rules.tables()
        differs = False
        for position in positions(p, 2):
            for vector in p.board.translations():
                cells = occupied(position)
                if any(p.board.moved(c, vector) is None for c in cells):
                    continue
                if margin is not None and not p.board.alike(cells, vector, margin):
                    continue
                there = sorted(p.rules.moves_from(moved(p.board, position, vector), tables))
                if there != moves_moved(p, p.rules.moves_from(position, tables), vector):
                    differs = True
                    break
            if differs:
                break
        assert differs, name


def test_goal_cells_rule_out_translations():
    p = PUZZLES["fling-goal-cells"]()
    assert p.translation_margin(2) is None and p.rules.translation_margin(2, 1) == 0
    assert classes.translations(p, 2) is None
    # And rightly: one ball on a goal cell is solved, the same ball moved is not.
    assert p.goal.reached(moved(p.board, (0,) * 5 + (1,) + (0,) * 6, (0, 0)))
    assert not p.goal.reached(moved(p.board, (0,) * 5 + (1,) + (0,) * 6, (1, 0)))


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """`stores(name, pieces)`: the puzzle and its analysis up to `pieces` pieces, made once
    for the tests that share them."""
    base = tmp_path_factory.mktemp("classes")
    made = {}

    def store(name, pieces):
        if (name, pieces) not in made:
            p = PUZZLES[name]()
            made[name, pieces] = (p, analyze(p, base / f"{name}-{pieces}", min(pieces, p.max_pieces)))
        return made[name, pieces]

    return store


def stored_positions(p, store):
    """{position: (layer, rank, bits)} over every stored position."""
    space = StateSpace(p)
    out = {}
    for record in store.records():
        bits = store.load(record.layer)
        for rank in range(record.layer.size):
            out[space.unrank(record.layer, rank)] = (record.layer, rank, bits.at(rank))
    return out


@pytest.mark.parametrize("name, pieces", cases(ALIKE, slow=ALIKE_SLOW))
def test_alike_translations_keep_bits_and_solution_counts(stores, name, pieces):
    p, store = stores(name, pieces)
    table = stored_positions(p, store)
    explorer = Explorer(p, store.solvable_words())
    rng = random.Random(7)
    pairs = 0
    for position, (_, _, bits) in table.items():
        for vector in alike_vectors(p, position):
            other = moved(p.board, position, vector)
            assert table[other][2] == bits, (position, vector)
            pairs += 1
            if rng.random() < 0.02:
                here, there = explorer.report(position), explorer.report(other)
                assert (here.solutions, here.legal_moves, here.safe_moves) == \
                    (there.solutions, there.legal_moves, there.safe_moves)
    assert pairs > 0


# ---------------------------------------------------------------------------------------
# Classes: canonical selection and class sizes against a plain closure
# ---------------------------------------------------------------------------------------


def plain_classes(p, table):
    """{position: its class (frozenset)} by the plain closure of `reference`."""
    out = {}
    for position in table:
        if position not in out:
            found = frozenset(ref.position_class(p, position))
            for member in found:
                out[member] = found
    return out


def selected(store, f):
    return {(layer.key, int(r)) for layer, ranks in sel.matches(store, f) for r in ranks}


@pytest.mark.parametrize("name, pieces", cases(
    [name for name in PUZZLES if name != "capture-goal-piece-qnpp"],
    slow=("capture", "capture-holed", "jump", "fling-holed"),
))  # capture: 11 s, and with holes 10 s; the same board with a goal piece covers them
# (and the other families with holes).
# jump on a plain rectangle: 8 s; jump on a holed board with diagonals, and on triangles, cover it.
# fling with holes: 6 s; fling on the rectangle (with and without goal cells), and the other
# families with holes, cover it
def test_classes_match_the_plain_closure(stores, name, pieces):
    p, store = stores(name, pieces)
    table = stored_positions(p, store)
    found = plain_classes(p, table)
    # Not trivial at the smaller sizes: several classes, some of them grown by translations
    # (none with goal cells), and positions both uniquely solvable and not.
    assert len(set(found.values())) > 10
    assert {bool(bits["unique"]) for _, _, bits in table.values()} == {False, True}
    if p.goal.cells is None:
        assert max(len(members) for members in found.values()) > len(p.symmetries())
    index = p.board.index
    middle = p.board.cells[p.board.size // 2]
    order = {position: (ref.centre_offset(p, position), table[position][1]) for position in table}
    for include, exclude in (((), ()), ((middle,), ()), ((), (p.board.cells[0],))):
        def passes(position, include=include, exclude=exclude):
            return all(position[index[c]] for c in include) and not any(position[index[c]] for c in exclude)

        shown_by = {}

        def shown(position, passes=passes, shown_by=shown_by):
            """The member a class is shown by: the most centred that passes, then the smallest rank
            (worked out once per class)."""
            members = found[position]
            if members not in shown_by:
                shown_by[members] = min(order[m] for m in members if passes(m))[1]
            return shown_by[members]

        for unique in (None, True):
            expected = set()
            for position, (layer, rank, bits) in table.items():
                if unique is not None and bits["unique"] != unique:
                    continue
                if passes(position) and rank == shown(position):
                    expected.add((layer.key, rank))
            f = sel.make_filters(p, unique=unique, must_include=include, must_exclude=exclude, canonical=True)
            assert selected(store, f) == expected, (include, exclude, unique)
            assert sum(n for _, n in sel.count_matches(store, f)) == len(expected)
    by_layer = {}
    for position, (layer, rank, _) in table.items():
        by_layer.setdefault(layer, []).append((rank, position))
    for layer, rows in by_layer.items():
        rows.sort()
        sizes = classes.class_sizes(p, layer, [rank for rank, _ in rows])
        assert list(sizes) == [len(found[position]) for _, position in rows], layer.key
    for position in list(table)[::11]:
        members = classes.members(p, position)
        assert set(members) == found[position]
        assert classes.class_size(p, position) == len(members)
        centred = min(members, key=order.__getitem__)
        assert classes.canonical_rank(p, position) == table[centred][1]
        assert classes.offset(p, centred) == 4 * ref.centre_offset(p, centred)
        assert classes.canonical_rank(p, position, must_exclude=p.board.cells) is None


def test_translations_merge_classes_of_each_family(stores):
    """Where moving pieces is allowed, classes are larger than symmetry orbits."""
    for name in ("fling", "fling-holed", "capture", "capture-holed", "jump", "jump-triangular"):
        p, store = stores(*SMALL.get(name, (name, DEPTH[name])))
        sizes = [int(classes.class_sizes(p, layer, np.arange(layer.size)).max())
                 for layer in (r.layer for r in store.records())]
        assert max(sizes) > len(p.symmetries()), name
    p, store = stores("fling-goal-cells", DEPTH["fling-goal-cells"])
    for record in store.records():
        sizes = classes.class_sizes(p, record.layer, np.arange(record.layer.size))
        assert sizes.max() <= len(p.symmetries())


def test_translations_of_the_bundled_boards():
    fling = puzzle("fling", "\n".join(["......."] * 8), goal="pieces = 1\nfinal_step_once = true")
    two = [0] * 56
    two[0] = two[2] = 1  # row 0: columns 0 and 2
    # 8 rows x 5 column offsets; the mirror images are translates of them.
    assert classes.class_size(fling, two) == 40
    # The class is shown centred: columns 2 and 4 of row 3 (rows 3 and 4 are as central;
    # row 3 has the smaller rank), not row 0 where the smallest rank is.
    centred = [0] * 56
    centred[3 * 7 + 2] = centred[3 * 7 + 4] = 1
    assert classes.canonical_rank(fling, two) == StateSpace(fling).rank(tuple(centred))[1]
    assert classes.offset(fling, centred) == 1 < classes.offset(fling, two)
    # Peg solitaire: two pegs side by side in the middle row of the English board move only
    # where the board one step around them looks the same: along the row (4 places), and
    # turned, along the middle column; 4 images under the symmetries alone.
    peg = load_puzzle(ROOT / "puzzles" / "peg.toml")
    pair = [0] * 33
    pair[peg.board.index[(3, 2)]] = pair[peg.board.index[(3, 3)]] = 1
    members = classes.members(peg, pair)
    assert len(members) == classes.class_size(peg, pair) == 8
    assert {tuple(sorted(peg.board.cells[c] for c in occupied(m))) for m in members} == (
        {((3, c), (3, c + 1)) for c in range(1, 5)} | {((r, 3), (r + 1, 3)) for r in range(1, 5)})
    # With more pegs the margin outgrows the board: no translations at all.
    assert classes.translations(peg, 2) is not None and classes.translations(peg, 3) is None


@pytest.mark.parametrize("pieces, count", [(2, 11), (3, 69)])
def test_fling_two_and_three_ball_classes(tmp_path, pieces, count):
    """On the 7 x 8 Fling! board, uniquely solvable 2-ball levels are a pair of balls in one
    row (2..6 apart) or one column (2..7 apart): 11 classes, not 84 symmetry orbits."""
    fling = puzzle("fling", "\n".join(["......."] * 8), goal="pieces = 1\nfinal_step_once = true",
                   name="fling")
    store = analyze(fling, tmp_path, pieces)
    f = sel.make_filters(fling, unique=True, pieces=pieces, canonical=True)
    assert [n for _, n in sel.count_matches(store, f)] == [count]


# ---------------------------------------------------------------------------------------
# Random boards
# ---------------------------------------------------------------------------------------


@st.composite
def holed_positions(draw):
    family = draw(st.sampled_from(["fling", "capture", "jump"]))
    rows = draw(st.integers(2, 4))
    cols = draw(st.integers(2, 5))
    cells = st.tuples(st.integers(0, rows - 1), st.integers(0, cols - 1))
    holes = draw(st.sets(cells, max_size=rows * cols // 3))
    art = "\n".join("".join("#" if (r, c) in holes else "." for c in range(cols)) for r in range(rows))
    pieces = "[pieces]\nQ = 1\nN = 1\nP = 2" if family == "capture" else ""
    try:
        p = puzzle(family, art, pieces=pieces)
    except Exception:
        p = None
    if p is None or p.board.size < 3:
        return None, None
    k = draw(st.integers(2, min(4, p.board.size)))
    cells = draw(st.permutations(range(p.board.size)))[:k]
    types = draw(st.lists(st.integers(1, len(p.piece_types)), min_size=k, max_size=k))
    if p.typed and any(types.count(t) > p.piece_limits[t - 1] for t in set(types)):
        types = [1] + [3] * (k - 1) if k <= 3 else [1, 2, 3, 3]
    position = [0] * p.board.size
    for c, t in zip(cells, types):
        position[c] = t
    return p, tuple(position)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(holed_positions())
def test_random_holed_boards(case):
    p, position = case
    if p is None:
        return
    tables = p.rules.tables()
    moves = p.rules.moves_from(position, tables)
    for vector in alike_vectors(p, position):
        there = sorted(p.rules.moves_from(moved(p.board, position, vector), tables))
        assert there == moves_moved(p, moves, vector)
    found = ref.position_class(p, position)
    assert classes.class_size(p, position) == len(found)
    assert set(classes.members(p, position)) == found
