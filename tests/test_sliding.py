"""Sliding-block tables against a brute-force reference, for every move rule and metric."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from curator.sliding import sweep
from curator.sliding.puzzle import METRICS, MOVES, parse_sliding_puzzle
from curator.sliding.tables import build_kernel, rank, room, unrank
from tests import sliding_reference as ref

SPECS = {
    # A bar and two loose squares on 2 x 3.
    "loose": ref.Spec(
        cells=frozenset((r, c) for r in range(2) for c in range(3)),
        shapes={"A": (((0, 0), (0, 1)), "any"), "B": (((0, 0),), "any")},
        counts={("A", None): 1, ("B", None): 2},
        move="step", metric="step", goal_letter="A", goal_cells=frozenset({(1, 1), (1, 2)})),
    # Robots around a wall in the middle of 3 x 3.
    "robots": ref.Spec(
        cells=frozenset((r, c) for r in range(3) for c in range(3)) - {(1, 1)},
        shapes={"R": (((0, 0),), "any"), "H": (((0, 0),), "any")},
        counts={("R", None): 1, ("H", None): 2},
        move="step", metric="step", goal_letter="R", goal_cells=frozenset({(0, 1)})),
    # Cars that keep their lines, as in Rush Hour, on 4 x 4.
    "cars": ref.Spec(
        cells=frozenset((r, c) for r in range(4) for c in range(4)),
        shapes={"X": (((0, 0), (0, 1)), "row"), "Y": (((0, 0), (1, 0)), "column"),
                "Z": (((0, 0), (1, 0)), "column")},
        counts={("X", 1): 1, ("Y", 2): 1, ("Z", 0): 1},
        move="step", metric="step", goal_letter="X", goal_cells=frozenset({(1, 2), (1, 3)})),
    # An L and two squares on 3 x 3 with a wall in a corner.
    "ell": ref.Spec(
        cells=frozenset((r, c) for r in range(3) for c in range(3)) - {(0, 2)},
        shapes={"L": (((0, 0), (1, 0), (1, 1)), "any"), "B": (((0, 0),), "any")},
        counts={("L", None): 1, ("B", None): 2},
        move="step", metric="step", goal_letter="L", goal_cells=frozenset({(2, 1)})),
}


def toml_text(spec: ref.Spec, move: str, metric: str) -> str:
    start = ref.positions(spec)[0]
    pieces = "".join(
        f'[pieces.{letter}]\ncells = {[list(c) for c in shape]}\nalong = "{along}"\n\n'
        for letter, (shape, along) in spec.shapes.items())
    return (f'name = "t"\n[board]\nart = """\n{ref.draw(spec, start)}\n"""\n'
            f'[rules]\nfamily = "slide"\nmove = "{move}"\nmetric = "{metric}"\n\n{pieces}'
            f'[goal]\npiece = "{spec.goal_letter}"\ncells = {[list(c) for c in sorted(spec.goal_cells)]}\n')


def swept(puzzle):
    k = build_kernel(puzzle)
    distances, flags, solved = sweep.start(k, puzzle.size)
    for _ in sweep.expand(k, distances, flags, 0, solved):
        pass
    clusters = sweep.finish(k, distances, flags)
    return distances, flags, clusters


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("move", MOVES)
@pytest.mark.parametrize("name", SPECS)
def test_sweep_matches_brute_force(name, move, metric):
    spec = ref.Spec(**{**SPECS[name].__dict__, "move": move, "metric": metric})
    puzzle = parse_sliding_puzzle(toml_text(spec, move, metric))
    truth = ref.analyze(spec)
    distances, flags, clusters = swept(puzzle)
    everything = ref.positions(spec)
    assert (distances != sweep.INVALID).sum() == len(everything)
    sizes = Counter(clusters[clusters != sweep.NO_CLUSTER].tolist())
    for position in everything:
        r = puzzle.rank(puzzle.parse(ref.draw(spec, position)))
        expected = truth.distance.get(position, sweep.UNSOLVABLE)
        assert distances[r] == expected, ref.draw(spec, position)
        assert bool(flags[r] & sweep.UNIQUE) == (truth.solutions.get(position) == 1)
        assert bool(flags[r] & sweep.ALL_MOVES) == (position in truth.all_moves)
        assert sizes[clusters[r]] == truth.cluster[position]
    # The cases are not trivial: some positions are solvable, unique, or not solvable.
    assert 0 < len(truth.distance) and any(n == 1 for n in truth.solutions.values())


@pytest.mark.parametrize("name", SPECS)
def test_python_moves_match_the_reference(name):
    for move in MOVES:
        for metric in METRICS:
            spec = ref.Spec(**{**SPECS[name].__dict__, "move": move, "metric": metric})
            puzzle = parse_sliding_puzzle(toml_text(spec, move, metric))
            for position in ref.positions(spec)[:40]:
                mine = puzzle.parse(ref.draw(spec, position))
                got = {puzzle.draw(m.child): m.cost for m in puzzle.moves(mine)}
                want = {ref.draw(spec, c): cost for c, cost in ref.children(spec, position).items()}
                assert got == want


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(sorted(SPECS)), data=st.data())
def test_compiled_ranks_match_python(name, data):
    spec = SPECS[name]
    puzzle = parse_sliding_puzzle(toml_text(spec, "step", "step"))
    k = build_kernel(puzzle)
    pos = room(k)[0]
    r = data.draw(st.integers(0, puzzle.size - 1))
    expected = puzzle.unrank(r)
    occupied = unrank(k, r, pos)
    if expected is None:
        assert occupied == 0
    else:
        assert occupied != 0
        assert tuple(pos) == tuple(a for group in expected for a in group)
        assert rank(k, pos) == r == puzzle.rank(expected)
