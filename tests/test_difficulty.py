"""The player model: by hand on a tiny graph, against plain recursion on small boards and a
plain walk on sliding-block tables, on every kind; calibration round trip, refusal with
too little data, and the stored player checked on every read."""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import error_line, invoke
from hypothesis import given, settings
from hypothesis import strategies as st
from sample_puzzles import FLING_5X3

import curator
from curator import catalogue
from curator.common.difficulty import (
    DEFAULT,
    PLAYER_FILE,
    Graded,
    Measure,
    Player,
    fit,
    grid,
    player_text,
    spearman,
)
from curator.export.pack import save_pack
from curator.layered.metrics import measure
from curator.layered.puzzle import load_puzzle, parse_puzzle
from curator.layered.search import Edges, Explorer, Graph

ROOT = Path(__file__).resolve().parent.parent
PUZZLES = ROOT / "puzzles"


# -- the model on a graph worked out by hand ---------------------------------------------------


def tiny_graph() -> Graph:
    """A root with three moves: into a, which one move takes to the goal; into b, stuck at
    once; into c, which has one move into a stuck position."""
    root = Edges(np.array([0, 0, 0]), np.array([0, 1, 2]), np.array([0, 1, 2]))
    below = Edges(np.array([0, 2]), np.array([0, 1]), np.array([0, 1]))
    frontiers = [np.zeros(1), np.zeros(3), np.zeros(2)]
    return Graph(3, frontiers, [root, below], np.array([True, False]))


@pytest.mark.parametrize(("lookahead", "notice", "wasted"), [
    (0, 8, 1 + 2),     # both dead ends tried: b is one position, c and its one line two
    (0, 0, 1 + 1),     # given up at once: one position each
    (1, 8, 0 + 2),     # b is seen one move ahead, c is not
    (1.5, 8, 0 + 1),   # c is half seen
    (2, 8, 0),         # both seen: within two moves of the goal the player plays perfectly
])
def test_tiny_graph_by_hand(lookahead, notice, wasted):
    found = measure(tiny_graph(), np.array([lookahead], dtype=float), np.array([notice], dtype=float))
    assert found.shape == (1, 3)
    moves, lost, choices = found[0]
    assert moves == 2 and lost == pytest.approx(wasted) and choices == pytest.approx(math.log2(3))
    player = Player(lookahead, notice, 0.5, 1.0)
    assert player.effort(Measure(*found[0])) == pytest.approx(2 + 0.5 * math.log2(1 + wasted) + math.log2(3))


# -- against plain recursion ---------------------------------------------------------------------


def plain_measure(puzzle, position, lookahead, notice):
    """The model's measures by plain recursion over the rules' moves (no graph, no arrays)."""
    tables = puzzle.rules.tables()
    goal = puzzle.goal

    @cache
    def kids_of(here):
        if sum(1 for v in here if v) == goal.pieces:
            return ()
        return tuple(child for _, child in puzzle.rules.moves_from(here, tables))

    @cache
    def tried(here, depth):
        return 1 + (sum(tried(kid, depth - 1) for kid in kids_of(here)) if depth else 0)

    @cache
    def node(here):
        if sum(1 for v in here if v) == goal.pieces:
            return goal.reached(here), 0, 0.0, 0.0, 0.0
        kids = [node(child) for child in kids_of(here)]
        longest = max((1 + kid[1] for kid in kids), default=0)
        safe = [kid for kid in kids if kid[0]]
        if not safe:
            return False, longest, 0.0, 0.0, 0.0
        wrong = sum((1 - min(max(lookahead - kid[1], 0), 1)) * tried(child, round(notice))
                    for child, kid in zip(kids_of(here), kids) if not kid[0])
        return (True, longest, sum(1 + kid[2] for kid in safe) / len(safe),
                (sum(kid[3] for kid in safe) + wrong) / len(safe),
                sum(kid[4] for kid in safe) / len(safe) + math.log2(len(kids)))

    return node(tuple(position))


SMALL = {"triangle": load_puzzle(PUZZLES / "triangle.toml"), "fling": parse_puzzle(FLING_5X3)}


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(sorted(SMALL)), data=st.data(),
       lookahead=st.sampled_from([0.0, 1.0, 1.5, 3.0]), notice=st.sampled_from([0.0, 2.0, 8.0]))
def test_measure_agrees_with_plain_recursion(name, data, lookahead, notice):
    puzzle = SMALL[name]
    size = puzzle.board.size
    pieces = data.draw(st.integers(2, min(8, size - 1)))
    cells = data.draw(st.lists(st.integers(0, size - 1), min_size=pieces, max_size=pieces, unique=True))
    position = tuple(1 if i in cells else 0 for i in range(size))
    expected = plain_measure(puzzle, position, lookahead, notice)
    graph = Explorer(puzzle).graph(position, 10**6)
    if not expected[0]:
        return
    found = measure(graph, np.array([lookahead]), np.array([notice]))[0]
    assert found == pytest.approx(expected[2:], rel=1e-9, abs=1e-9)


# -- every kind is rated on the one scale ----------------------------------------------------------


@pytest.fixture(scope="module")
def triangle(tmp_path_factory):
    return curator.analyze(PUZZLES / "triangle.toml", tmp_path_factory.mktemp("triangle"))


@pytest.fixture(scope="module")
def lunar(tmp_path_factory):
    text = (PUZZLES / "lunar-lockout.toml").read_text()
    text = text.replace("....h\n..h..\n.h...\n", ".....\n..h..\n.....\n")  # two helpers
    path = tmp_path_factory.mktemp("lunar") / "lunar.toml"
    path.write_text(text)
    return curator.analyze(path, path.parent / "out")


def test_layered_levels_carry_difficulty_and_terms(triangle):
    (level,) = triangle.select(unique=True, pieces=7, sort="difficulty:desc", sample=30, seed=1, limit=1)
    assert level.difficulty >= len(level.solution)
    assert level.difficulty_terms.startswith(f"{len(level.solution)} moves")
    data = level.to_json()
    assert data["difficulty_terms"] == level.difficulty_terms and data["difficulty"] is not None


def plain_walk(results, rank, lookahead, notice):
    """The sliding model along the stored shortest solution, walked with the Python moves."""
    puzzle = results.puzzle
    path = [rank, *_path(results, rank)]
    moves, wasted, choices = float(results.distances[rank]), 0.0, 0.0
    for here, there in zip(path, path[1:]):
        d = int(results.distances[here])
        options = puzzle.moves(puzzle.unrank(here))
        closer = [m for m in options if results.distance(m.child) is not None
                  and results.distance(m.child) + m.cost == d]
        assert puzzle.rank(next(m.child for m in options if puzzle.rank(m.child) == there)) == there
        missed = 1 - min(max(lookahead - (d - 1), 0), 1)
        for m in options:
            if m in closer:
                continue
            after = results.distance(m.child)
            cost = 1 + notice if after is None else after + m.cost - d
            wasted += missed * cost / len(closer)
        choices += math.log2(len(options))
    return moves, wasted, choices


def _path(results, rank):
    from curator.sliding.select import solutions

    longest = int(results.store.manifest["max_distance"])
    return solutions(results.kernel, results.distances, np.array([rank]), longest)[0]


def test_sliding_measure_agrees_with_a_plain_walk(lunar):
    ranks = np.flatnonzero((lunar.distances > 0) & (lunar.distances < 0xFFFE))
    picked = np.random.default_rng(3).choice(ranks, 12, replace=False)
    lookaheads, notices = grid()
    found = lunar.measures(picked)
    for i, rank in enumerate(picked.tolist()):
        for g in (0, 9, len(lookaheads) - 1):
            expected = plain_walk(lunar, rank, lookaheads[g], notices[g])
            assert found[i, g] == pytest.approx(expected, abs=1e-9)


def test_sliding_and_distance_levels_carry_difficulty(lunar, tmp_path):
    level = lunar.select(hardest=True, limit=1)[0]
    assert level.difficulty >= level.distance
    assert level.difficulty_terms.startswith(f"{len(level.solution)} move")
    assert level.to_json()["difficulty"] == round(level.difficulty, 3)
    result = invoke("solve", lunar.directory.parent / "lunar.toml", "--board", "/".join(level.board),
                    "--results", lunar.directory, "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["difficulty"] == round(level.difficulty, 3)
    eight = curator.analyze(PUZZLES / "eight-puzzle.toml", tmp_path / "eight")
    (position,) = eight.select(distance=12, limit=1)
    assert position.difficulty >= 12 and position.to_json()["difficulty_terms"].startswith("12 moves")


# -- calibration ---------------------------------------------------------------------------------


TRUE_PLAYER = Player(lookahead=0.0, notice=2.0, search=1.5, reading=0.5)


def graded_pack(results, path, count, player=TRUE_PLAYER, seed=4):
    """A pack of `count` levels of `results` in the order `player` rates them (easy first)."""
    levels = results.select(solvable=True, canonical=True, pieces=(4, 10), sample=count, seed=seed)
    levels = [level for level in levels if level.solution]
    kind = catalogue.kind_for(results)
    found, ok, _ = kind.measures(results, [level.position for level in levels])
    graded = Graded(found, np.zeros(len(levels)), np.zeros(len(levels)))
    lookaheads, notices = grid()
    g = int(np.flatnonzero((lookaheads == player.lookahead) & (notices == player.notice))[0])
    efforts = np.array([player.effort(Measure(*found[i, g])) for i in range(len(levels))])
    order = np.argsort(efforts, kind="stable")
    save_pack(results.puzzle, [levels[i] for i in order], path)
    return graded, efforts[order]


def test_calibration_recovers_the_order_of_a_known_player(tmp_path):
    results = curator.analyze(PUZZLES / "triangle.toml", tmp_path / "out")
    pack = tmp_path / "graded.json"
    _, truth = graded_pack(results, pack, 40)
    found = curator.calibrate(results.directory, pack)
    assert found.levels == len(truth) and found.path == results.directory / PLAYER_FILE
    assert found.after > 0.9 and found.after >= found.before - 0.02
    reopened = curator.open(results.directory)
    assert reopened.player == found.player and "calibrated" in reopened.player.source
    _, levels = curator.export.pack.load_pack(pack)
    rated = [reopened.solve(level.position).difficulty for level in levels]
    assert spearman(rated, truth) > 0.95
    # Later commands say so, in one line.
    result = invoke("select", results.directory, "--unique", "--sample", "3", "--seed", "1")
    assert result.exit_code == 0
    assert [line for line in result.stderr.splitlines() if line.startswith("difficulty:")] == [
        f"difficulty: {found.player.source}"]


def test_calibrate_command_prints_before_and_after(triangle, tmp_path):
    pack = tmp_path / "graded.json"
    graded_pack(triangle, pack, 30)
    data = json.loads(pack.read_text())
    for number, level in enumerate(data["levels"]):
        level["grade"] = 1 + number // 10  # three grades of ten
    pack.write_text(json.dumps(data))
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("manifest.json", "puzzle.toml", *(p.name for p in triangle.directory.glob("*.bits"))):
        (copy / name).write_bytes((triangle.directory / name).read_bytes())
    result = invoke("calibrate", copy, "--graded", pack)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("calibrated on ") and " in 3 grades" in lines[0]
    assert lines[1].startswith("Spearman with the grades: before ") and "after" in lines[1]
    assert (copy / PLAYER_FILE).exists()


def test_too_little_data_is_refused_in_one_line(triangle, tmp_path):
    pack = tmp_path / "small.json"
    graded_pack(triangle, pack, 6)
    result = invoke("calibrate", triangle.directory, "--graded", pack)
    assert result.exit_code == 2
    line = error_line(result.stderr)
    assert "at least 10 solvable graded levels in at least 3 different grades" in line
    assert not (triangle.directory / PLAYER_FILE).exists()


def test_a_pack_that_is_not_one_is_refused(triangle, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something else"}')
    result = invoke("calibrate", triangle.directory, "--graded", bad)
    assert result.exit_code == 2 and "not a level pack of curator" in error_line(result.stderr)


def test_a_tampered_player_is_refused(triangle, tmp_path):
    results = curator.analyze(PUZZLES / "triangle.toml", tmp_path / "out")
    path = results.directory / PLAYER_FILE
    path.write_text(player_text(TRUE_PLAYER, results.puzzle.sha256, {"levels": 40}))
    assert curator.open(results.directory).player == TRUE_PLAYER
    data = json.loads(path.read_text())
    data["player"]["search"] = 0.0
    path.write_text(json.dumps(data))
    with pytest.raises(curator.StoreError, match="checksum does not match"):
        _ = curator.open(results.directory).player
    result = invoke("select", results.directory, "--unique", "--limit", "1")
    assert result.exit_code == 1 and "difficulty.json: checksum does not match" in error_line(result.stderr)


def test_fit_prefers_the_grid_point_that_made_the_grades():
    rng = np.random.default_rng(0)
    lookaheads, _ = grid()
    measures = rng.uniform(0, 10, size=(80, len(lookaheads), 3))
    measures[:, :, 0] = rng.integers(2, 9, size=80)[:, None]
    g = 7
    truth = measures[:, g, 0] + 2.0 * np.log2(1 + measures[:, g, 1]) + 0.5 * measures[:, g, 2]
    graded = Graded(measures, truth, measures[:, 0, 0].astype(int))
    player = fit(graded)
    assert (player.lookahead, player.notice) == (grid()[0][g], grid()[1][g])
    assert player.search == pytest.approx(2.0, rel=0.3) and player.reading == pytest.approx(0.5, rel=0.5)


def test_default_player_reads_in_one_line():
    assert DEFAULT.text().startswith("look-ahead ") and "Fling!" in DEFAULT.source


def test_terms_read_in_one_line():
    from curator.common.difficulty import Terms

    assert Terms(12, dead_ends=3, hidden=4, forced=1, choices=2.5).text() == (
        "12 moves; 3 tempting dead ends (hidden up to 4 moves); 1 forced step; 2.5 legal moves per step")
    assert Terms(5, dead_ends=1, detours=2, long_detours=1, choices=3).text() == (
        "5 moves; 1 tempting dead end; 2 tempting detours, 1 long; 3.0 legal moves per step")
    assert Terms(0).text() == "0 moves"
