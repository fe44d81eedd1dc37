"""Level selection agrees with a brute-force filter, samples reproducibly, and reports metrics
that agree with the plain reference solver; shipped Fling! boards solve uniquely."""

from __future__ import annotations

import math
from collections import Counter
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import reference as ref
from sample_puzzles import CHESS_5_PIECES, FLING_5X3, TRIANGLE_APEX

from curator import options
from curator.common.difficulty import DEFAULT
from curator.layered import metrics
from curator.layered import select as sel
from curator.layered.analysis import analyze
from curator.layered.bits import PROPERTIES
from curator.layered.level import draw
from curator.layered.puzzle import load_puzzle, parse_drawing, parse_puzzle
from curator.layered.search import Explorer
from curator.layered.space import StateSpace
from curator.options import parse_counts

ROOT = Path(__file__).resolve().parent.parent
LEVELS = ROOT / "tests" / "data" / "fling_levels"


CHESS_SYMMETRIC = """
name = "chess3s"
[board]
art = '''
...
...
...
'''
[rules]
family = "capture"
[pieces]
Q = 1
R = 1
B = 1
N = 2
[goal]
pieces = 1
"""


TRIANGLE_DIRECTIONS = [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1)]


class Case:
    """An analyzed small puzzle, every stored position unranked once, and its oracle."""

    def __init__(self, puzzle, directory, max_pieces=None):
        self.puzzle = puzzle
        self.store = analyze(puzzle, directory, max_pieces)
        self.space = StateSpace(puzzle)
        self.rows = []  # (layer, rank, position, bits)
        self.ranks = {}  # position -> rank
        for record in sorted(self.store.records(), key=lambda r: (r.layer.pieces, r.layer.counts)):
            layer = record.layer
            bits = self.store.load(layer)
            for rank in range(layer.size):
                flags = bits.at(rank)
                position = self.space.unrank(layer, rank)
                self.rows.append((layer, rank, position, flags))
                self.ranks[position] = rank
        self.perms = [
            p for p in puzzle.rules.symmetries()
            if puzzle.goal.cells is None or {p[c] for c in puzzle.goal.cells} == set(puzzle.goal.cells)
        ]
        self.memo = {}
        self.symmetric = ref.Symmetric(puzzle)
        self.classes = {}
        self.orders = {}

    def members(self, position):
        """The class of `position` (symmetries and alike translations), by plain search."""
        if position not in self.classes:
            found = ref.position_class(self.symmetric, position)
            for member in found:
                self.classes[member] = found
        return self.classes[position]

    def shown_before(self, other, position):
        """Whether `canonical` shows a class by `other` rather than by `position`: more
        centred, or as centred with a smaller rank."""
        return self.order(other) < self.order(position)

    def order(self, position):
        """(centre offset, rank): the smaller is shown first; worked out once per position."""
        if position not in self.orders:
            self.orders[position] = (ref.centre_offset(self.puzzle, position), self.ranks[position])
        return self.orders[position]

    def children(self, state):
        cells = frozenset(self.puzzle.board.cells)
        family = self.puzzle.rules.family
        if family == "jump":
            return ref.jump_children(cells, TRIANGLE_DIRECTIONS, state)
        if family == "fling":
            return ref.fling_children(self.puzzle.board.rows, self.puzzle.board.cols, state)
        return ref.capture_children(cells, state)

    def state(self, position):
        cells = self.puzzle.board.cells
        if self.puzzle.typed:
            return frozenset((cells[i], self.puzzle.piece_types[v - 1]) for i, v in enumerate(position) if v)
        return frozenset(cells[i] for i, v in enumerate(position) if v)

    def oracle(self, state):
        goal = self.puzzle.goal
        is_goal = None
        if goal.cells is not None:
            allowed = {self.puzzle.board.cells[c] for c in goal.cells}
            is_goal = lambda p: all((x[0] if self.puzzle.typed else x) in allowed for x in p)  # noqa: E731
        return ref.analyze(self.children, state, goal.pieces, is_goal, goal.final_step_once, self.memo)

    def brute(self, f: sel.Filters):
        """Matches of `f` by plain Python over every stored position."""

        def cells_ok(position):
            return all(position[c] for c in f.include) and not any(position[c] for c in f.exclude)

        out = []
        for layer, rank, position, flags in self.rows:
            if any(getattr(f, p) is not None and flags[p] != getattr(f, p) for p in PROPERTIES):
                continue
            if f.pieces is not None and not f.pieces[0] <= layer.pieces <= f.pieces[1]:
                continue
            if any(not lo <= layer.counts[t] <= hi for t, (lo, hi) in f.counts.items()):
                continue
            if not cells_ok(position):
                continue
            members = self.members(position) if f.canonical else ()
            if any(self.shown_before(other, position) and cells_ok(other) for other in members):
                continue
            out.append((layer.key, rank))
        return out


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    base = tmp_path_factory.mktemp("stores")
    puzzles = {
        "triangle": load_puzzle(ROOT / "puzzles" / "triangle.toml"),
        "fling": parse_puzzle(FLING_5X3),
        "chess": parse_puzzle(CHESS_5_PIECES),
        "chess-symmetric": parse_puzzle(CHESS_SYMMETRIC),
        "triangle-apex": parse_puzzle(TRIANGLE_APEX),
    }
    return {name: Case(puzzle, base / name, min(puzzle.max_pieces, 8)) for name, puzzle in puzzles.items()}


def _selected(store, f):
    return [(layer.key, int(r)) for layer, ranks in sel.matches(store, f) for r in ranks]


FILTERS = [
    sel.Filters(),
    sel.Filters(solvable=True),
    sel.Filters(solvable=False, pieces=(3, 5)),
    sel.Filters(unique=True, canonical=True),
    sel.Filters(solvable=True, unique=False, all_moves=False),
    sel.Filters(all_moves=True, pieces=(4, 5)),
    sel.Filters(canonical=True),
    sel.Filters(include=frozenset({0, 4}), exclude=frozenset({2})),
    sel.Filters(solvable=True, include=frozenset({1}), canonical=True),
    sel.Filters(unique=True, exclude=frozenset({0, 3}), canonical=True, pieces=(2, 4)),
]


@pytest.mark.parametrize("name", ["triangle", "fling", "chess", "chess-symmetric", "triangle-apex"])
@pytest.mark.parametrize("f", FILTERS, ids=range(len(FILTERS)))
def test_filters_match_brute_force(cases, name, f, monkeypatch):
    case = cases[name]
    expected = case.brute(f)
    assert _selected(case.store, f) == expected
    monkeypatch.setattr(sel, "BLOCK_WORDS", 3)
    assert _selected(case.store, f) == expected
    assert sum(n for _, n in sel.count_matches(case.store, f)) == len(expected)


@pytest.mark.parametrize("name", ["chess", "chess-symmetric"])
def test_per_type_counts_filter(cases, name):
    case = cases[name]
    types = case.puzzle.piece_types
    f = sel.Filters(solvable=True, counts={0: (1, 1), len(types) - 1: (0, 1)}, canonical=True)
    expected = case.brute(f)
    assert expected and _selected(case.store, f) == expected
    counts = parse_counts(f"{types[0]}=1,{types[-1]}=0..1", case.puzzle)
    f = sel.make_filters(case.puzzle, solvable=True, counts=counts, canonical=True)
    assert _selected(case.store, f) == expected


@pytest.mark.parametrize("name", ["triangle", "fling", "chess-symmetric"])
def test_canonical_keeps_the_centred_member_of_each_class(cases, name):
    case = cases[name]
    classes: dict[frozenset, list[tuple[str, int]]] = {}
    for layer, rank, position, _ in case.rows:
        orbit = frozenset(case.ranks[other] for other in case.members(position))
        key = (ref.centre_offset(case.puzzle, position), rank)
        classes.setdefault((layer.key, orbit), []).append((key, (layer.key, rank)))
    kept = _selected(case.store, sel.Filters(canonical=True))
    assert len(kept) == len(set(kept)) == len(classes)
    assert set(kept) == {min(members)[1] for members in classes.values()}
    # Where translations move the choice, some class is no longer shown by its smallest rank.
    smallest = {min(members, key=lambda m: m[1][1])[1] for members in classes.values()}
    assert set(kept) != smallest
    # Moving the pieces merges symmetry classes here: fewer classes than orbits.
    orbits = {frozenset(tuple(position[i] for i in perm) for perm in case.perms)
              for _, _, position, _ in case.rows}
    assert len(classes) < len(orbits)


def test_symmetries_keep_goal_cells_and_bits(cases):
    case = cases["triangle-apex"]
    perms = case.puzzle.symmetries()
    assert len(perms) == 2 and len(case.puzzle.rules.symmetries()) == 6
    flags = {(layer.key, rank): f for layer, rank, _, f in case.rows}
    for layer, rank, position, f in case.rows:
        image = [0] * len(position)
        for i, v in enumerate(position):
            image[perms[1][i]] = v
        assert flags[(layer.key, case.ranks[tuple(image)])] == f


def test_sampling_is_reproducible_and_independent_of_blocks(cases, monkeypatch):
    store = cases["triangle"].store
    f = sel.Filters(solvable=True)
    first, total = sel.pick(store, f, sample=12, seed=3)
    again, _ = sel.pick(store, f, sample=12, seed=3)
    other, _ = sel.pick(store, f, sample=12, seed=4)
    assert first == again and first != other and len(first) == 12
    assert total == len(cases["triangle"].brute(f))
    monkeypatch.setattr(sel, "BLOCK_WORDS", 1)
    assert sel.pick(store, f, sample=12, seed=3)[0] == first
    everything, _ = sel.pick(store, f, sample=10**6, seed=3)
    assert [(layer.key, rank) for layer, rank in everything] == cases["triangle"].brute(f)


def test_sampling_is_uniform(cases):
    store = cases["triangle"].store
    f = sel.Filters(unique=True, pieces=(4, 4), canonical=True)
    population = [rank for _, rank in cases["triangle"].brute(f)]
    m, draws, size = len(population), 600, 4
    assert 20 <= m <= 200
    seen = Counter()
    for seed in range(draws):
        picked, _ = sel.pick(store, f, sample=size, seed=seed)
        ranks = [rank for _, rank in picked]
        assert len(set(ranks)) == size and ranks == sorted(ranks)
        seen.update(ranks)
    assert set(seen) <= set(population)
    expected = draws * size / m
    chi2 = sum((seen[r] - expected) ** 2 / expected for r in population)
    df = m - 1
    assert chi2 < df + 5 * math.sqrt(2 * df), chi2


def test_limit_takes_the_first_matches(cases):
    case = cases["fling"]
    f = sel.Filters(unique=True, pieces=(4, 6))
    picked, matched = sel.pick(case.store, f, limit=7)
    assert [(layer.key, rank) for layer, rank in picked] == case.brute(f)[:7]
    assert matched is None
    _, matched = sel.pick(case.store, f, limit=10**6)
    assert matched == len(case.brute(f))


@pytest.mark.parametrize("name", ["triangle", "fling", "chess", "chess-symmetric", "triangle-apex"])
def test_metrics_match_the_oracle(cases, name):
    case = cases[name]
    # Rated by the Fling! defaults (look-ahead 0), whatever the family's own, as the oracle rates them.
    selection = sel.select(case.store, sel.Filters(pieces=(3, 5)), sample=25, seed=11, player=DEFAULT)
    assert len(selection.levels) == 25
    explorer = Explorer(case.puzzle)
    for level in selection.levels:
        state = case.state(level.position)
        expected = case.oracle(state)
        report = level.report
        assert (report.solvable, report.unique, report.all_moves) == (
            expected.solvable, expected.unique, expected.all_moves)
        assert report.solutions == expected.solutions
        kids = case.children(state)
        safe_kids = sum(case.oracle(k).solvable for k in kids)
        if case.puzzle.rules.family == "fling":
            # Two flings can leave the same position: moves are counted, not positions.
            assert report.legal_moves >= len(kids) and report.safe_moves >= safe_kids
            assert (report.safe_moves > 0) == (safe_kids > 0)
        else:
            assert report.legal_moves == len(kids) and report.safe_moves == safe_kids
            assert level.difficulty == pytest.approx(_difficulty_by_oracle(case, level))
            for name, value in _play_by_oracle(case, level).items():
                assert getattr(level, name) == pytest.approx(value), name
        if report.solvable:
            path = [level.position]
            for move in report.solution:
                path.append(metrics.apply_move(explorer, path[-1], move))
            assert case.oracle(case.state(path[-1])).solvable
            assert sum(1 for v in path[-1] if v) == case.puzzle.goal.pieces


def _difficulty_by_oracle(case, level):
    """The documented player model (docs/metrics.md) with the default player, which looks no
    move ahead, from the oracle's figures (`_play_by_oracle`): its positions tried are the
    backtracking search."""
    if not level.report.solvable:
        return math.inf
    moves = len(level.report.solution)
    if not moves:
        return 0.0
    assert DEFAULT.lookahead == 0
    tried = _play_by_oracle(case, level)["search"]
    return ((1 - DEFAULT.search_share) * moves + DEFAULT.search_share * math.log2(tried)
            + DEFAULT.opening * math.log2(level.report.legal_moves))


def _play_by_oracle(case, level):
    """The player figures of docs/metrics.md by plain recursion over the oracle's children."""
    goal_pieces = case.puzzle.goal.pieces

    @cache
    def chance(state):
        if len(state) == goal_pieces:
            return 1.0 if case.oracle(state).solvable else 0.0
        kids = case.children(state)
        return sum(chance(k) for k in kids) / len(kids) if kids else 0.0

    @cache
    def reach(state):
        return frozenset([state]).union(*(reach(k) for k in case.children(state)))

    start = case.state(level.position)
    figures = {"win_chance": chance(start)}
    if not level.report.solvable or not level.report.solution:
        return figures
    explorer = Explorer(case.puzzle)
    position, steps = level.position, []
    for move in level.report.solution:
        kids = case.children(case.state(position))
        wrong = [k for k in kids if not case.oracle(k).solvable]
        steps.append((len(kids), len(kids) - len(wrong), len(set(kids)), wrong))
        position = metrics.apply_move(explorer, position, move)
    depths = [len(k) - min(len(r) for r in reach(k)) for *_, wrong in steps for k in wrong]
    return {
        **figures,
        "information": sum(math.log2(legal / safe) for legal, safe, _, _ in steps),
        "decisions": sum(1 for _, _, distinct, _ in steps if distinct > 1),
        "forced": sum(1 for _, _, distinct, _ in steps if distinct == 1),
        "mistake_depth": sum(depths) / len(depths) if depths else 0.0,
        "mistake_depth_max": max(depths, default=0),
        "search": len(steps) + sum(
            sum(len(reach(k)) for k in wrong) / (safe + 1) for _, safe, _, wrong in steps
        ),
    }


@pytest.mark.parametrize("name", ["triangle", "fling", "chess", "chess-symmetric"])
def test_unique_selection_has_one_solution_each(cases, name):
    case = cases[name]
    selection = sel.select(case.store, sel.Filters(unique=True, canonical=True, pieces=(3, 5)), sample=30)
    assert selection.levels
    for level in selection.levels:
        assert level.report.solutions == 1
        assert case.oracle(case.state(level.position)).solutions == 1


def test_sort_then_limit(cases):
    store = cases["triangle"].store
    f = sel.Filters(solvable=True, pieces=(5, 8))
    full = sel.select(store, f, sample=40, seed=2, sort=("difficulty", True))
    values = [level.difficulty for level in full.levels]
    assert values == sorted(values, reverse=True) and len(values) == 40
    top = sel.select(store, f, sample=40, seed=2, sort=("difficulty", True), limit=5)
    assert top.levels == full.levels[:5]
    mixed = sel.select(store, sel.Filters(pieces=(5, 8)), sample=40, seed=2, sort=("difficulty", True))
    dead = [math.isinf(level.difficulty) for level in mixed.levels]
    assert any(dead) and not all(dead)
    assert dead == sorted(dead)  # unsolvable levels (difficulty shown as null) last, not hardest
    by_solutions = sel.select(store, f, sample=40, seed=2, sort=("solutions", False))
    counts = [level.report.solutions for level in by_solutions.levels]
    assert counts == sorted(counts)
    with pytest.raises(sel.SelectionError, match="at most 10 get metrics"):
        sel.select(store, f, sort=("difficulty", False), limit=3, cap=10)
    with pytest.raises(sel.SelectionError, match="add --limit"):  # the command line's words
        sel.select(store, sel.Filters(solvable=True, pieces=(5, 8), name=options.option_name), cap=10)
    # a limit stops the scan: how many match in all is not known, and not guessed
    with pytest.raises(sel.SelectionError, match=r"^20 positions are asked for; at most 10 get metrics"):
        sel.select(store, f, limit=20, cap=10)


def test_parsers_accept_good_text_and_reject_bad():
    puzzle = load_puzzle(ROOT / "puzzles" / "peg.toml")
    assert options.parse_range("5..7", "--pieces") == (5, 7)
    assert options.parse_range("4", "--pieces") == (4, 4)
    for bad in ("7..5", "x", "3..", "-1"):
        with pytest.raises(sel.SelectionError):
            options.parse_range(bad, "--pieces")
    board = puzzle.board

    def cells(text):
        return sel.make_filters(puzzle, must_include=options.parse_cells(text)).include

    assert cells("3,3; 0,2 (2,0)") == {board.index[(3, 3)], board.index[(0, 2)], board.index[(2, 0)]}
    for bad in ("0,0", "3;3", "", "a,b"):
        with pytest.raises(sel.SelectionError):
            cells(bad)
    assert sel.parse_sort("difficulty:desc") == ("difficulty", True)
    assert sel.parse_sort("safe-moves") == ("safe_moves", False)
    for bad in ("hardness", "pieces:down"):
        with pytest.raises(sel.SelectionError):
            sel.parse_sort(bad)
    chess = parse_puzzle(CHESS_5_PIECES)
    with pytest.raises(sel.SelectionError, match="several piece types"):
        parse_counts("o=1", puzzle)
    with pytest.raises(sel.SelectionError, match="several piece types"):
        sel.make_filters(puzzle, counts={"o": 1})
    assert sel.make_filters(chess, counts=parse_counts("R=1, P=0..1", chess)).counts == {0: (1, 1), 3: (0, 1)}
    for bad in ("K=1", "R", "R=2", "R=1..0"):
        with pytest.raises(sel.SelectionError):
            sel.make_filters(chess, counts=parse_counts(bad, chess))
    assert options.parse_number("12", "--limit", 1) == 12
    for bad in ("0", "1.5", "ten"):
        with pytest.raises(sel.SelectionError):
            options.parse_number(bad, "--limit", 1)


@pytest.mark.parametrize("path", ["peg.toml", "triangle.toml", "fling.toml", "solitaire-chess.toml"])
def test_boards_round_trip_through_drawings(path):
    puzzle = load_puzzle(ROOT / "puzzles" / path)
    space = StateSpace(puzzle)
    rng = np.random.default_rng(5)
    for pieces in (1, 3, min(6, sum(puzzle.piece_limits))):
        for layer in space.layers_with(pieces)[:3]:
            for rank in rng.integers(0, layer.size, 5):
                position = space.unrank(layer, int(rank))
                text = draw(puzzle, position)
                assert parse_drawing(text, puzzle) == position
                assert parse_drawing("\n" + text + "\n\n", puzzle) == position
                assert parse_drawing(text.replace("\n", "/"), puzzle) == position


def test_bad_drawings_are_refused(tmp_path):
    peg = load_puzzle(ROOT / "puzzles" / "peg.toml")
    chess = load_puzzle(ROOT / "puzzles" / "solitaire-chess.toml")
    with pytest.raises(sel.SelectionError, match="shape"):
        parse_drawing(".......\n" * 7, peg)
    with pytest.raises(sel.SelectionError, match="unexpected 'x'"):
        parse_drawing("x...\n....\n....\n....", chess)
    with pytest.raises(sel.SelectionError, match="pieces 'K'"):
        parse_drawing("KK..\n....\n....\n....", chess)
    with pytest.raises(sel.SelectionError, match="no file"):
        options.read_board("boards/missing.txt", chess)
    drawn = tmp_path / "board.txt"
    drawn.write_text("K...\n.Q..\n....\n...P\n")
    assert options.read_board(str(drawn), chess) == parse_drawing("K.../.Q../..../...P", chess)
    drawn.write_text("KK..\n....\n....\n....\n")
    with pytest.raises(sel.SelectionError) as caught:
        options.read_board(str(drawn), chess)
    assert str(caught.value) == f"--board {drawn}: 2 pieces 'K', the puzzle has 1"
    with pytest.raises(sel.SelectionError) as caught:
        options.read_board("x.../....", chess)
    assert str(caught.value) == ("--board: no file 'x.../....', and as a drawing: unexpected 'x' at line 1, "
                                 "column 1 (use '.', 'K', 'Q', 'R', 'B', 'N', 'P')")


def test_spearman_with_ties():
    assert metrics.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert metrics.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # Ranks with ties averaged: x -> (1, 2.5, 2.5, 4), y -> (1, 2, 3, 4).
    x, y = np.array([1, 2.5, 2.5, 4]), np.array([1, 2, 3, 4])
    expected = np.corrcoef(x, y)[0, 1]
    assert metrics.spearman([5, 7, 7, 9], [1, 2, 3, 4]) == pytest.approx(expected)


@pytest.fixture(scope="module")
def shipped():
    puzzle = load_puzzle(ROOT / "puzzles" / "fling.toml")
    out = []
    for number, balls in ref.load_fling_levels(LEVELS):
        text = "\n".join(
            "".join("o" if (r, c) in balls else "." for c in range(ref.FLING_COLS))
            for r in range(ref.FLING_ROWS)
        )
        position = parse_drawing(text, puzzle)
        out.append((number, balls, metrics.solve_position(puzzle, position)))
    return out


def test_every_shipped_fling_level_solves_uniquely(shipped):
    assert len(shipped) == 248
    for number, balls, level in shipped:
        assert level.report.solutions == 1, (number, sorted(balls))
        assert level.report.unique and len(level.solution) == len(balls) - 1


SPEARMAN_FLOOR = 0.9
"""Measured with the default player: see the README, "Difficulty" (pieces alone: 0.932)."""


def test_difficulty_orders_shipped_levels_like_the_game(shipped):
    numbers = [number for number, _, _ in shipped]
    scores = [level.difficulty for _, _, level in shipped]
    rho = metrics.spearman(scores, numbers)
    print(f"Spearman rank correlation of difficulty with the Fling! level number: {rho:.4f}")
    assert rho > SPEARMAN_FLOOR
    # The formula is more than a piece count: it separates boards with equal piece counts.
    fourteen = [(n, level.difficulty) for n, balls, level in shipped if len(balls) == 14]
    assert len({d for _, d in fourteen}) > 10
    assert metrics.spearman([d for _, d in fourteen], [n for n, _ in fourteen]) > 0.1


def test_a_tier_an_analysis_left_unfinished_is_not_selected_from(tmp_path):
    from curator.common.errors import SelectionError as Refused
    from curator.layered.store import LayerStore

    puzzle = parse_puzzle(CHESS_5_PIECES)
    analyze(puzzle, tmp_path / "chess", max_pieces=4, workers=1)
    store = LayerStore.open(tmp_path / "chess")
    tiers = {k: [e for e in store.manifest["layers"] if e["pieces"] == k] for k in (3, 4)}
    assert len(tiers[4]) > 1
    # As a run stopped after the first of the 4-piece layers leaves it:
    store.manifest["layers"] = [e for e in store.manifest["layers"] if e["key"] != tiers[4][-1]["key"]]
    store.manifest["complete"] = False
    store.write_manifest()
    partial = LayerStore.open(tmp_path / "chess")
    assert {layer.pieces for layer in sel.selected_layers(partial, puzzle, sel.Filters())} == {1, 2, 3}
    assert len(sel.selected_layers(partial, puzzle, sel.Filters(pieces=(3, 3)))) == len(tiers[3])
    with pytest.raises(Refused, match="pieces 4: .* holds layers with 1..3 pieces"):
        sel.selected_layers(partial, puzzle, sel.Filters(pieces=(4, 4)))
