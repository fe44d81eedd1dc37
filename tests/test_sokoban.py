"""Sokoban tables against a plain breadth-first search on small rooms, for both metrics: a
forward search from every position gives its distance and number of shortest solutions, and
the moves give all_moves and the connected sets (tests/sokoban_reference.py, which reads the
XSB itself and shares nothing with curator's ranking or compiled moves)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import curator
from curator.sokoban import sweep
from curator.sokoban.puzzle import METRICS, parse_sokoban_puzzle
from curator.sokoban.tables import build_kernel, rank, room, unrank
from tests.sokoban_reference import Reference

ROOMS = {
    # Two boxes in an open room with a pillar.
    "pillar": """
######
#@   #
# $# #
# $. #
#   .#
######
""",
    # A corridor with a side pocket: pushes that cannot be undone.
    "pocket": """
#######
#.  $ #
# # # #
#@$  .#
###   #
  #####
""",
    # Two goals for one box: more than one solved placement.
    "spare": """
#####
#@ .#
# $ #
#.  #
#####
""",
    # Three boxes in a small room with a wall in the middle.
    "three": """
######
#.@  #
# $$ #
#.#$.#
#    #
######
""",
}

MICROBAN_1 = """
####
# .#
#  ###
#*@  #
#  $ #
#  ###
####
"""
"""Microban level 1 (David W. Skinner): published optimal solutions of 8 pushes and of 33
moves."""


def toml_text(xsb: str, metric: str) -> str:
    return f'name = "t"\n[board]\nxsb = """{xsb}"""\n[rules]\nfamily = "push"\nmetric = "{metric}"\n'


def swept(name: str, metric: str, folder):
    """The puzzle of a room and its three tables, analyzed by curator."""
    path = folder / f"{name}-{metric}.toml"
    path.write_text(toml_text(ROOMS[name], metric))
    results = curator.analyze(path, folder / f"{name}-{metric}", workers=1)
    return results.puzzle, results.distances, results.flags, results.clusters


def components(ref: Reference, positions: set) -> dict:
    """The size of each position's connected set, moves joining positions both ways."""
    linked: dict = {p: set() for p in positions}
    for p in positions:
        for child in ref.children(p):
            linked[p].add(child)
            linked[child].add(p)
    size: dict = {}
    for p in positions:
        if p in size:
            continue
        seen, todo = {p}, [p]
        while todo:
            for q in linked[todo.pop()]:
                if q not in seen:
                    seen.add(q)
                    todo.append(q)
        size.update(dict.fromkeys(seen, len(seen)))
    return size


def rank_of(puzzle, ref: Reference, position: tuple) -> int:
    boxes, where = position
    player = where if ref.metric == "moves" else min(where)
    index = puzzle.board.index
    return puzzle.rank((tuple(sorted(index[b] for b in boxes)), index[player]))


def check_against_reference(puzzle, tables, ref: Reference, search) -> None:
    """Every position's distance, unique and all_moves bits and connected set in `tables`
    (distances, flags, clusters) as the reference has them, `search(position)` giving its
    distance and number of shortest solutions as `Reference.search` does; and the room is not
    trivial: some positions are dead, some unique, some not."""
    distances, flags, clusters = tables
    everything = ref.positions()
    assert (distances != sweep.INVALID).sum() == len(everything)
    sizes = Counter(clusters[clusters != sweep.NO_CLUSTER].tolist())
    truth = components(ref, everything)
    seen = Counter()
    for position in everything:
        r = rank_of(puzzle, ref, position)
        distance, solutions = search(position)
        assert distances[r] == (sweep.UNSOLVABLE if distance is None else distance), position
        assert bool(flags[r] & sweep.UNIQUE) == (solutions == 1), position
        children = ref.children(position)
        every = (not ref.solved(position) and bool(children)
                 and all(search(c)[0] is not None for c in children))
        assert bool(flags[r] & sweep.ALL_MOVES) == every, position
        assert sizes[clusters[r]] == truth[position]
        seen.update(["dead" if distance is None else "unique" if solutions == 1 else "several"])
    assert seen["dead"] and seen["unique"] and seen["several"], seen


@pytest.mark.parametrize(("name", "metric"), [
    pytest.param(name, metric, marks=[pytest.mark.slow] if (name, metric) == ("three", "moves") else [])
    for name in ROOMS for metric in METRICS  # three boxes by moves: 12 s; three by pushes, and
])                                            # other rooms by moves, cover it
def test_sweep_matches_a_plain_search(name, metric, tmp_path):
    puzzle, *tables = swept(name, metric, tmp_path)
    ref = Reference(ROOMS[name], metric)
    check_against_reference(puzzle, tables, ref, ref.search)


@pytest.mark.parametrize("metric, expected", [("pushes", 8), ("moves", 33)])
def test_microban_1_takes_its_published_optimum(metric, expected, tmp_path):
    ref = Reference(MICROBAN_1, metric)
    assert ref.search(ref.start())[0] == expected
    path = tmp_path / "microban.toml"
    path.write_text(toml_text(MICROBAN_1, metric))
    results = curator.analyze(path, tmp_path / "out", workers=1)
    level = results.solve(results.puzzle.draw(results.puzzle.start))
    assert level.distance == len(level.solution) == expected
    boxes, pushes = ref.replay("".join(level.solution))
    assert boxes <= ref.goals
    if metric == "pushes":
        assert pushes == expected


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("name", ["pocket", "three"])
def test_python_moves_match_the_reference(name, metric):
    puzzle = parse_sokoban_puzzle(toml_text(ROOMS[name], metric))
    ref = Reference(ROOMS[name], metric)
    cells = puzzle.board.cells
    for position in sorted(ref.positions(), key=repr)[:60]:
        boxes, where = position
        player = where if metric == "moves" else min(where)
        mine = (tuple(sorted(puzzle.board.index[b] for b in boxes)), puzzle.board.index[player])
        got = set()
        for move in puzzle.moves(mine):
            after_boxes, after_player = move.child
            child = ref.state(frozenset(cells[b] for b in after_boxes), cells[after_player])
            got.add(child)
            # The move's letters replay to its child.
            state = (frozenset(boxes), cells[mine[1]])
            for letter in move.steps:
                state = ref.step(*state, letter)
            assert ref.state(*state) == child
        assert got == ref.children(position)


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(sorted(ROOMS)), metric=st.sampled_from(METRICS), data=st.data())
def test_compiled_ranks_match_python(name, metric, data):
    puzzle = parse_sokoban_puzzle(toml_text(ROOMS[name], metric))
    k = build_kernel(puzzle)
    pos = room(k)[0]
    r = data.draw(st.integers(0, puzzle.size - 1))
    expected = puzzle.unrank(r)
    boxes = unrank(k, r, pos)
    if expected is None:
        assert boxes == 0
    else:
        assert boxes == sum(1 << b for b in expected[0])
        assert tuple(pos) == (*expected[0], expected[1])
        assert rank(k, np.uint64(boxes), expected[1]) == r == puzzle.rank(expected)
