"""Sliding-block tables against a brute-force reference, for every move rule and metric."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from curator.common.errors import PuzzleError
from curator.sliding import sweep
from curator.sliding.puzzle import METRICS, MOVES, parse_sliding_puzzle
from curator.sliding.tables import build_kernel, rank, room, unrank
from tests import sliding_reference as ref

ROOT = Path(__file__).resolve().parent.parent

SLIDES = tuple(m for m in MOVES if m != "tilt")
"""The move rules that move one piece (tilt moves are checked below)."""

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
    edge = f'edge = "{spec.edge}"\n' if move == "until_blocked" else ""
    start = ref.positions(spec)[0]
    pieces = "".join(
        f'[pieces.{letter}]\ncells = {[list(c) for c in shape]}\nalong = "{along}"\n\n'
        for letter, (shape, along) in spec.shapes.items())
    return (f'name = "t"\n[board]\nart = """\n{ref.draw(spec, start)}\n"""\n'
            f'[rules]\nfamily = "slide"\nmove = "{move}"\nmetric = "{metric}"\n{edge}\n{pieces}'
            f'[goal]\npiece = "{spec.goal_letter}"\ncells = {[list(c) for c in sorted(spec.goal_cells)]}\n')


def swept(puzzle):
    k = build_kernel(puzzle)
    distances, flags, solved = sweep.start(k, puzzle.size)
    for _ in sweep.expand(k, distances, flags, 0, solved):
        pass
    clusters = sweep.finish(k, distances, flags)
    return distances, flags, clusters


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("move", SLIDES)
@pytest.mark.parametrize("name", SPECS)
def test_sweep_matches_brute_force(name, move, metric):
    spec = ref.Spec(**{**SPECS[name].__dict__, "move": move, "metric": metric})
    truth = check_against_reference(parse_sliding_puzzle(toml_text(spec, move, metric)), spec)
    # The cases are not trivial: some positions are solvable, unique, or not solvable.
    assert 0 < len(truth.distance) and any(n == 1 for n in truth.solutions.values())


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("name", SPECS)
def test_robots_that_would_fly_off_match_brute_force(name, metric):
    # edge = "falls": a slide that nothing stops is not a move (Lunar Lockout).
    spec = ref.Spec(**{**SPECS[name].__dict__, "move": "until_blocked", "metric": metric, "edge": "falls"})
    puzzle = parse_sliding_puzzle(toml_text(spec, "until_blocked", metric))
    assert puzzle.edge == "falls"
    check_against_reference(puzzle, spec)


def check_against_reference(puzzle, spec):
    truth = ref.analyze(spec)
    distances, flags, clusters = swept(puzzle)
    sizes = Counter(clusters[clusters != sweep.NO_CLUSTER].tolist())
    everything = ref.positions(spec)
    assert (distances != sweep.INVALID).sum() == len(everything)
    for position in everything:
        r = puzzle.rank(puzzle.parse(ref.draw(spec, position)))
        assert distances[r] == truth.distance.get(position, sweep.UNSOLVABLE), ref.draw(spec, position)
        assert bool(flags[r] & sweep.UNIQUE) == (truth.solutions.get(position) == 1)
        assert bool(flags[r] & sweep.ALL_MOVES) == (position in truth.all_moves)
        assert sizes[clusters[r]] == truth.cluster[position]
    return truth


@pytest.mark.parametrize("name", SPECS)
def test_python_moves_match_the_reference(name):
    for move, edge in [(move, "stops") for move in SLIDES] + [("until_blocked", "falls")]:
        for metric in METRICS:
            spec = ref.Spec(**{**SPECS[name].__dict__, "move": move, "metric": metric, "edge": edge})
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


SHAPES = {"dot": ((0, 0),), "bar": ((0, 0), (0, 1)), "post": ((0, 0), (1, 0)),
          "ell": ((0, 0), (1, 0), (1, 1))}


@st.composite
def small_puzzles(draw):
    """A random small puzzle: board with walls, up to three kinds of pieces, rules, goal."""
    rows, cols = draw(st.integers(2, 4)), draw(st.integers(2, 4))
    cells = {(r, c) for r in range(rows) for c in range(cols)}
    walls = draw(st.sets(st.sampled_from(sorted(cells)), max_size=2))
    cells = frozenset(cells - walls)
    if min(r for r, _ in cells) or min(c for _, c in cells):
        return None  # the file's coordinates start at the first row and column with a cell
    shapes, counts = {}, {}
    for letter in "ABC"[: draw(st.integers(1, 3))]:
        shape = SHAPES[draw(st.sampled_from(sorted(SHAPES)))]
        along = draw(st.sampled_from(["any", "any", "row", "column"]))
        shapes[letter] = (shape, along)
        if along == "any":
            counts[(letter, None)] = draw(st.integers(1, 2))
        else:
            axis = 0 if along == "row" else 1
            counts[(letter, draw(st.sampled_from(sorted({cell[axis] for cell in cells}))))] = 1
    move, metric = draw(st.sampled_from(SLIDES)), draw(st.sampled_from(METRICS))
    edge = draw(st.sampled_from(["stops", "falls"])) if move == "until_blocked" else "stops"
    spec = ref.Spec(cells, shapes, counts, move, metric, "A", frozenset(), edge)
    places = spec.placements("A", next(line for letter, line in counts if letter == "A"))
    if not places:
        return None
    goal = draw(st.sampled_from(sorted(sorted(p) for p in places)))
    covered = frozenset(goal[: draw(st.integers(1, len(goal)))])
    return ref.Spec(cells, shapes, counts, move, metric, "A", covered, edge)


@settings(max_examples=40, deadline=None)
@given(spec=small_puzzles())
def test_random_small_puzzles_match_brute_force(spec):
    if spec is None or not ref.positions(spec) or len(ref.positions(spec)) > 3000:
        return
    check_against_reference(parse_sliding_puzzle(toml_text(spec, spec.move, spec.metric)), spec)


# -- tilt moves: every piece slides at once, dropping out through the exits ---------------------

def _grid(rows: int, cols: int, walls=()) -> frozenset:
    return frozenset((r, c) for r in range(rows) for c in range(cols)) - set(walls)


TILT_SPECS = {
    # Tilt itself, small: two greens out through the middle, the blue kept.
    "middle": ref.Spec(
        cells=_grid(3, 3), shapes={"G": (((0, 0),), "any"), "B": (((0, 0),), "any")},
        counts={("G", None): 2, ("B", None): 1}, move="tilt", metric="line", goal_letter="",
        goal_cells=frozenset(), exits=frozenset({(1, 1)}), out=("G",), keep=("B",)),
    # A blocker (wall), two exits in the corners, and pieces that may drop or not.
    "corners": ref.Spec(
        cells=_grid(3, 4, [(1, 1)]), shapes={"G": (((0, 0),), "any"), "R": (((0, 0),), "any")},
        counts={("G", None): 2, ("R", None): 2}, move="tilt", metric="line", goal_letter="",
        goal_cells=frozenset(), exits=frozenset({(0, 3), (2, 0)}), out=("G",)),
    # A tilt maze: bring the ball to a cell; the other balls and the hole get in the way.
    "maze": ref.Spec(
        cells=_grid(4, 4, [(1, 1), (2, 3)]), shapes={"A": (((0, 0),), "any"), "B": (((0, 0),), "any")},
        counts={("A", None): 1, ("B", None): 2}, move="tilt", metric="line", goal_letter="A",
        goal_cells=frozenset({(3, 3)}), exits=frozenset({(0, 2)}), keep=("A",)),
    # No exit: nothing drops, the goal is a cell.
    "closed": ref.Spec(
        cells=_grid(3, 4, [(0, 1)]), shapes={"A": (((0, 0),), "any"), "B": (((0, 0),), "any")},
        counts={("A", None): 1, ("B", None): 2}, move="tilt", metric="line", goal_letter="A",
        goal_cells=frozenset({(2, 2)})),
}


def tilt_toml(spec: ref.Spec) -> str:
    start = max(ref.positions(spec), key=len)
    pieces = "".join(f"[pieces.{letter}]\n" for letter in spec.shapes)
    exits = f"exits = {[list(c) for c in sorted(spec.exits)]}\n" if spec.exits else ""
    goal = "".join(f"{key} = {list(value)}\n".replace("'", '"')
                   for key, value in (("out", spec.out), ("keep", spec.keep)) if value)
    if spec.goal_letter:
        goal += f'piece = "{spec.goal_letter}"\ncells = {[list(c) for c in sorted(spec.goal_cells)]}\n'
    return (f'name = "t"\n[board]\nart = """\n{ref.draw(spec, start)}\n"""\n{exits}'
            f'[rules]\nfamily = "slide"\nmove = "tilt"\n{pieces}[goal]\n{goal}')


@pytest.mark.parametrize("name", TILT_SPECS)
def test_tilt_matches_brute_force(name):
    spec = TILT_SPECS[name]
    puzzle = parse_sliding_puzzle(tilt_toml(spec))
    truth = check_against_reference(puzzle, spec)
    assert puzzle.size == len(ref.positions(spec))  # no rank is left over: pieces never overlap
    assert any(n == 1 for n in truth.solutions.values()) and max(truth.distance.values()) > 2
    if spec.keep:  # a kept piece can be trapped
        assert len(truth.distance) < len(ref.positions(spec))
    for position in ref.positions(spec)[::7]:
        mine = puzzle.parse(ref.draw(spec, position))
        got = {puzzle.draw(m.child): m.cost for m in puzzle.moves(mine)}
        assert got == {ref.draw(spec, c): cost for c, cost in ref.children(spec, position).items()}


@pytest.mark.parametrize("name", TILT_SPECS)
def test_compiled_ranks_of_dropped_pieces_match_python(name):
    puzzle = parse_sliding_puzzle(tilt_toml(TILT_SPECS[name]))
    k = build_kernel(puzzle)
    pos = room(k)[0]
    for r in range(puzzle.size):
        expected = puzzle.unrank(r)
        assert unrank(k, r, pos) != 0
        dropped = [(-1,) * (g.count - len(anchors)) + anchors for g, anchors in zip(puzzle.groups, expected)]
        assert tuple(pos) == tuple(a for group in dropped for a in group)
        assert rank(k, pos) == r == puzzle.rank(expected)


@st.composite
def small_tilts(draw):
    """A random small tilt puzzle: board with walls and exits, up to three letters, a goal."""
    rows, cols = draw(st.integers(2, 4)), draw(st.integers(2, 4))
    cells = _grid(rows, cols, draw(st.sets(st.sampled_from(sorted(_grid(rows, cols))), max_size=2)))
    if min(r for r, _ in cells) or min(c for _, c in cells):
        return None
    exits = frozenset(draw(st.sets(st.sampled_from(sorted(cells)), max_size=2)))
    letters = "ABC"[: draw(st.integers(1, 3))]
    counts = {(letter, None): draw(st.integers(1, 2)) for letter in letters}
    out = tuple(sorted(draw(st.sets(st.sampled_from(letters), max_size=2)))) if exits else ()
    others = [x for x in letters if x not in out]
    keep = tuple(sorted(draw(st.sets(st.sampled_from(others), max_size=1)))) if others else ()
    goal_letter, goal_cells = "", frozenset()
    if len(cells - exits) <= sum(counts.values()):
        return None
    if not out:
        goal_letter, goal_cells = "A", frozenset({draw(st.sampled_from(sorted(cells - exits)))})
    return ref.Spec(cells, {x: (((0, 0),), "any") for x in letters}, counts, "tilt", "line", goal_letter,
                    goal_cells, exits=exits, out=out, keep=keep)


@settings(max_examples=30, deadline=None)
@given(spec=small_tilts())
def test_random_small_tilts_match_brute_force(spec):
    if spec is None or len(ref.positions(spec)) > 3000:
        return
    check_against_reference(parse_sliding_puzzle(tilt_toml(spec)), spec)


# -- a range of counts: every number of pieces of a letter, each a set of positions of its own -----

@pytest.mark.parametrize("move", ["until_blocked", "step"])
def test_a_count_range_covers_each_count_as_its_own_puzzle(move):
    check_count_range(move)  # the wide code: tests/test_sliding_wide.py


def check_count_range(move: str) -> None:
    """Robots with 0 to 2 helpers as one puzzle: each count's positions as the reference's."""
    base = SPECS["robots"]
    text = toml_text(ref.Spec(**{**base.__dict__, "move": move}), move, "line")
    text = text.replace("[pieces.H]\n", '[pieces.H]\ncount = "0..2"\n')
    puzzle = parse_sliding_puzzle(text)
    assert puzzle.least == (1, 0) or puzzle.least == (0, 1)
    distances, flags, clusters = swept(puzzle)
    sizes = Counter(clusters[clusters != sweep.NO_CLUSTER].tolist())
    seen = 0
    for helpers in range(3):
        spec = ref.Spec(**{**base.__dict__, "move": move, "metric": "line",
                           "counts": {("R", None): 1, ("H", None): helpers}})
        truth = ref.analyze(spec)
        for position in ref.positions(spec):
            r = puzzle.rank(puzzle.parse(ref.draw(spec, position)))
            assert distances[r] == truth.distance.get(position, sweep.UNSOLVABLE), ref.draw(spec, position)
            assert bool(flags[r] & sweep.UNIQUE) == (truth.solutions.get(position) == 1)
            assert bool(flags[r] & sweep.ALL_MOVES) == (position in truth.all_moves)
            assert sizes[clusters[r]] == truth.cluster[position]
            seen += 1
    assert seen == (distances != sweep.INVALID).sum() == puzzle.size


@pytest.mark.parametrize(("count", "message"), [
    ('"2..1"', 'must run from A to B with 0 <= A <= B'),
    ('"0..x"', 'must be a whole number or a range such as "0..3"'),
    ('"0..3"', r"is 0\.\.3, but board.art draws 4"),
])
def test_a_count_range_is_checked(count, message):
    robots = (ROOT / "puzzles" / "robots.toml").read_text()
    text = robots.replace("[pieces.h]\n", f"[pieces.h]\ncount = {count}\n")
    with pytest.raises(PuzzleError, match=f"pieces.h.count: {message}"):
        parse_sliding_puzzle(text, "robots")


def test_all_moves_counts_each_slide_under_the_piece_metric():
    # Every single slide from "....|..BB|A...|..CC" keeps it solvable, but a run of two slides
    # of one piece (one move of the piece metric's distance) does not: all_moves is about slides.
    spec = ref.Spec(
        cells=_grid(4, 4), shapes={"A": (((0, 0),), "any"), "B": (((0, 0), (0, 1)), "any"),
                                   "C": (((0, 0), (0, 1)), "any")},
        counts={("A", None): 1, ("B", None): 1, ("C", None): 1}, move="until_blocked", metric="piece",
        goal_letter="A", goal_cells=frozenset({(2, 1)}), edge="falls")
    puzzle = parse_sliding_puzzle(toml_text(spec, spec.move, spec.metric))
    truth = check_against_reference(puzzle, spec)
    position = next(p for p in ref.positions(spec) if ref.draw(spec, p) == "....\n..BB\nA...\n..CC")
    assert position in truth.all_moves
    assert not all(c in truth.distance for c in ref.children(spec, position))
