"""The player model: against a plain walk over the rules' moves (small boards, sliding-block
and Sokoban tables), its defaults and their fit on the shipped Fling! levels, on every kind;
calibration from a graded pack and from the workspace's playtests, refusal with too little
data, and the stored player checked on every read."""

from __future__ import annotations

import hashlib
import json
import math
import re
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
from curator.calibration import playtest_grades
from curator.common.difficulty import (
    ACROSS_SHARE,
    DEFAULT,
    LOOKAHEADS,
    WALKED_DEFAULT,
    Graded,
    Measure,
    Player,
    Terms,
    fit,
    grid,
    pairs,
    player_text,
    spearman,
)
from curator.common.files import PLAYER_FILE, canonical_json
from curator.export.pack import save_pack
from curator.layered.metrics import apply_move, measure, solve_position
from curator.layered.puzzle import Puzzle, load_puzzle, parse_puzzle
from curator.layered.search import Explorer
from curator.workspace_db import Play, PuzzleKey, WorkspaceDB

ROOT = Path(__file__).resolve().parent.parent
PUZZLES = ROOT / "puzzles"


# -- against a plain walk over the rules' moves -----------------------------------------------------


def plain_measure(puzzle, position, lookahead):
    """The model's measures by a plain walk along the reported solution over the rules' moves
    (no graph, no arrays): each wrong move's distinct positions behind it and the moves it
    lets a player make."""
    tables = puzzle.rules.tables()
    goal = puzzle.goal
    explorer = Explorer(puzzle)

    @cache
    def kids_of(here):
        if sum(1 for v in here if v) == goal.pieces:
            return ()
        return tuple(child for _, child in puzzle.rules.moves_from(here, tables))

    @cache
    def solvable(here):
        if sum(1 for v in here if v) == goal.pieces:
            return goal.reached(here)
        return any(solvable(kid) for kid in kids_of(here))

    @cache
    def knock_ons(here):
        """The fewest knock-ons of a solution from here: cells a move leaves empty, beyond two."""
        if not kids_of(here):
            return 0
        return min(max(sum(1 for a, b in zip(here, kid) if a and not b) - 2, 0) + knock_ons(kid)
                   for kid in kids_of(here) if solvable(kid))

    @cache
    def longest(here):
        return max((1 + longest(kid) for kid in kids_of(here)), default=0)

    def reach(here):
        seen, todo = {here}, [here]
        while todo:
            for kid in kids_of(todo.pop()):
                if kid not in seen:
                    seen.add(kid)
                    todo.append(kid)
        return len(seen)

    report = explorer.report(position)
    if not report.solvable or not report.solution:
        return None
    here, tried = tuple(position), 0.0
    for move in report.solution:
        kids = kids_of(here)
        safe = sum(1 for kid in kids if solvable(kid))
        tried += sum((1 - min(max(lookahead - longest(kid), 0), 1)) * reach(kid)
                     for kid in kids if not solvable(kid)) / (safe + 1)
        here = apply_move(explorer, here, move)
    moves = len(report.solution)
    return moves, moves + tried, math.log2(report.legal_moves), knock_ons(tuple(position))


SMALL = {"triangle": load_puzzle(PUZZLES / "triangle.toml"), "fling": parse_puzzle(FLING_5X3)}


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(sorted(SMALL)), data=st.data(), lookahead=st.sampled_from([0.0, 1.0, 1.5, 3.0]))
def test_measure_agrees_with_a_plain_walk(name, data, lookahead):
    puzzle = SMALL[name]
    size = puzzle.board.size
    pieces = data.draw(st.integers(2, min(8, size - 1)))
    cells = data.draw(st.lists(st.integers(0, size - 1), min_size=pieces, max_size=pieces, unique=True))
    position = tuple(1 if i in cells else 0 for i in range(size))
    expected = plain_measure(puzzle, position, lookahead)
    explorer = Explorer(puzzle)
    found = measure(explorer.graph(position, 10**6), puzzle.goal.pieces, explorer.report(position),
                    np.array([lookahead]))
    if expected is None:
        assert found is None or found[0, 0] == 0
        return
    assert found[0] == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_the_default_player_rates_a_level_by_its_search_first_moves_and_knock_ons():
    """The default player looks no move ahead: it tries what the backtracking search visits.
    A peg solitaire jump sets no other piece moving; on this shipped Fling! board (level 28,
    12 balls) every solution has a fling whose ball pushes a ball that pushes another."""
    fling = load_puzzle(PUZZLES / "fling.toml")
    balls = {(0, 0), (0, 1), (0, 2), (0, 4), (2, 2), (2, 5), (2, 6), (3, 0), (5, 3), (5, 4), (6, 4), (7, 4)}
    s, o, k = DEFAULT.search_share, DEFAULT.opening, DEFAULT.knock_on
    for puzzle, position, knock_ons in [
            (SMALL["triangle"], tuple(0 if i == 0 else 1 for i in range(15)), 0),
            (fling, tuple(1 if cell in balls else 0 for cell in fling.board.cells), 1)]:
        level = solve_position(puzzle, position, Explorer(puzzle))
        m = len(level.solution)
        assert m > 5 and level.search > m
        assert level.difficulty == pytest.approx(
            (1 - s) * m + s * math.log2(level.search) + o * math.log2(level.legal_moves) + k * knock_ons)
        assert ("1 forced knock-on" in level.difficulty_terms) == (knock_ons == 1)
        assert plain_measure(puzzle, position, 0.0)[3] == knock_ons


def test_the_defaults_are_the_fit_on_the_shipped_fling_levels():
    """What benchmarks/difficulty.py fits on every shipped Fling! board is the default player."""
    from reference import load_fling_levels

    puzzle = load_puzzle(PUZZLES / "fling.toml")
    explorer = Explorer(puzzle)
    measures, levels, balls = [], [], []
    for number, cells in load_fling_levels(ROOT / "tests" / "data" / "fling_levels"):
        position = tuple(1 if cell in cells else 0 for cell in puzzle.board.cells)
        graph = explorer.graph(position, 10**7)
        measures.append(measure(graph, puzzle.goal.pieces, explorer.report(position), grid()))
        levels.append(number)
        balls.append(len(cells))
    found = fit(Graded(np.array(measures), np.array(levels, dtype=float), np.array(balls)))
    assert found.to_json() == DEFAULT.to_json()


# -- every kind is rated on the one scale ----------------------------------------------------------


@pytest.fixture(scope="module")
def triangle(tmp_path_factory):
    return curator.analyze(PUZZLES / "triangle.toml", tmp_path_factory.mktemp("triangle"))


@pytest.fixture(scope="module")
def sokoban(tmp_path_factory):
    return curator.analyze(PUZZLES / "sokoban.toml", tmp_path_factory.mktemp("sokoban"))


@pytest.fixture(scope="module")
def lunar(tmp_path_factory):
    text = (PUZZLES / "lunar-lockout.toml").read_text()
    text = text.replace("....h\n..h..\n.h...\n", ".....\n..h..\n.....\n")  # two helpers
    path = tmp_path_factory.mktemp("lunar") / "lunar.toml"
    path.write_text(text)
    return curator.analyze(path, path.parent / "out")


def test_layered_levels_carry_difficulty_and_terms(triangle):
    (level,) = triangle.select(unique=True, pieces=7, sort="difficulty:desc", sample=30, seed=1, limit=1)
    # log2(tried) and the opening are never negative: the moves' share is a floor.
    assert level.difficulty >= (1 - DEFAULT.search_share) * len(level.solution)
    assert level.difficulty_terms.startswith(f"{len(level.solution)} moves")
    data = level.to_json()
    assert data["difficulty_terms"] == level.difficulty_terms and data["difficulty"] is not None


def plain_walk(results, rank, lookahead):
    """The goal tables' model along the stored shortest solution, walked with the puzzle's
    Python moves as its metric counts them."""
    path = [rank, *results.graph.solutions(results.kernel, results.distances, np.array([rank]),
                                           int(results.store.manifest["max_distance"]))[0]]
    d0 = int(results.distances[rank])
    tried, first = float(d0), None
    for here in path[:-1]:
        d = int(results.distances[here])
        moves = results.puzzle.moves(results.puzzle.unrank(here))
        options = [(results.distance(m.child), m.cost) for m in moves]
        first = math.log2(len(options)) if first is None else first
        right = sum(1 for after, cost in options if after is not None and after + cost == d)
        missed = 1 - min(max(lookahead - (d - 1), 0), 1)
        for after, cost in options:
            if after is None:
                tried += missed / (right + 1)
            elif after + cost != d:
                tried += missed * (after + cost - d) / (right + 1)
    return d0, tried, first, 0  # a slide or push moves one piece: no knock-ons


@pytest.mark.parametrize("name", ["lunar", "sokoban"])
def test_goal_table_measure_agrees_with_a_plain_walk(name, request):
    results = request.getfixturevalue(name)
    ranks = np.flatnonzero((results.distances > 0) & (results.distances < 0xFFFE))
    picked = np.random.default_rng(3).choice(ranks, 12, replace=False)
    found = results.measures(picked)
    for i, rank in enumerate(picked.tolist()):
        for g, lookahead in enumerate(LOOKAHEADS):
            assert found[i, g] == pytest.approx(plain_walk(results, rank, lookahead), abs=1e-9)


def test_sliding_sokoban_and_distance_levels_carry_difficulty(lunar, sokoban, tmp_path):
    for results in (lunar, sokoban):
        level = results.select(hardest=True, limit=1)[0]
        assert level.difficulty == pytest.approx(
            WALKED_DEFAULT.effort(Measure(*results.measures(np.array([level.rank]))[0, 0])))
        assert level.difficulty_terms.startswith(f"{len(level.solution)} move")
        assert level.to_json()["difficulty"] == round(level.difficulty, 3)
    level = lunar.select(hardest=True, limit=1)[0]
    result = invoke("solve", lunar.directory.parent / "lunar.toml", "--board", "/".join(level.board),
                    "--results", lunar.directory, "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["difficulty"] == round(level.difficulty, 3)
    eight = curator.analyze(PUZZLES / "eight-puzzle.toml", tmp_path / "eight")
    (position,) = eight.select(distance=12, limit=1)
    assert position.difficulty == 12  # the defaults of walked levels weigh the moves alone
    assert position.to_json()["difficulty_terms"].startswith("12 moves")


# -- calibration ---------------------------------------------------------------------------------


TRUE_PLAYER = Player(lookahead=1.0, search_share=0.9, opening=1.5, knock_on=0.0)


def graded_pack(results, path, count, player=TRUE_PLAYER, seed=4):
    """A pack of `count` levels of `results` in the order `player` rates them (easy first)."""
    levels = results.select(solvable=True, canonical=True, pieces=(4, 10), sample=count, seed=seed)
    levels = [level for level in levels if level.solution]
    kind = catalogue.kind_for(results)
    found, ok, _ = kind.measures(results, [level.position for level in levels])
    graded = Graded(found, np.zeros(len(levels)), np.zeros(len(levels)))
    g = int(np.flatnonzero(grid() == player.lookahead)[0])
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
    # Another puzzle file's results written over these with --force take the player away with
    # the old results: it was fitted for them, and every command would refuse the folder.
    edited = tmp_path / "triangle.toml"
    edited.write_text((PUZZLES / "triangle.toml").read_text() + "\n# edited\n")
    assert invoke("analyze", edited, "-o", copy, "--force").exit_code == 0
    assert not (copy / PLAYER_FILE).exists()
    assert invoke("select", copy, "--unique", "--limit", "1").exit_code == 0


def test_a_fit_that_cannot_order_the_levels_better_is_not_stored(sokoban, tmp_path):
    """Sokoban levels graded the other way round from their distances: no player of the model
    follows that order, its best fit over them all is the player in use, and it is not stored
    (its cross-validated figure, from players fitted on folds, says nothing of it)."""
    pack = tmp_path / "pack.json"
    assert invoke("pack", sokoban.directory, "--size", "20", "-f", "json", "-o", pack).exit_code == 0
    data = json.loads(pack.read_text())
    data["levels"].reverse()
    pack.write_text(json.dumps(data))
    found = curator.calibrate(sokoban.directory, pack)
    assert found.before < -0.9 and not found.stored and found.player == found.previous == sokoban.player
    assert not (sokoban.directory / PLAYER_FILE).exists()
    result = invoke("calibrate", sokoban.directory, "--graded", pack)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[-1] == ("kept the player in use: fitted on all of these levels, the "
                                              "player orders them no better than it does; nothing stored")


def test_a_fit_that_orders_worse_than_the_player_in_use_is_not_stored(triangle, tmp_path, monkeypatch):
    """The levels graded as the player in use rates them, and a fit that, cross-validated,
    orders them backwards: the results keep their player and say so."""
    pack = tmp_path / "graded.json"
    graded_pack(triangle, pack, 30, player=triangle.player)
    monkeypatch.setattr(curator.calibration, "cross_validated", lambda graded: -graded.grades)
    found = curator.calibrate(triangle.directory, pack)
    assert not found.stored and found.player == found.previous == triangle.player
    assert found.before > 0.95 and found.after < -0.95
    assert not (triangle.directory / PLAYER_FILE).exists()
    result = invoke("calibrate", triangle.directory, "--graded", pack)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[-1] == ("kept the player in use: the fit orders these levels worse, "
                                              "cross-validated, than it does; nothing stored")
    assert not (triangle.directory / PLAYER_FILE).exists()


def test_too_little_data_is_refused_in_one_line(triangle, tmp_path):
    pack = tmp_path / "small.json"
    graded_pack(triangle, pack, 6)
    result = invoke("calibrate", triangle.directory, "--graded", pack)
    assert result.exit_code == 1
    line = error_line(result.stderr)
    assert "at least 10 solvable graded levels in at least 3 different grades; it has 6 in 6" in line
    assert not (triangle.directory / PLAYER_FILE).exists()


# -- calibration from the workspace's playtests -----------------------------------------------------


def record_playtests(db_path, results, levels, keys, seconds):
    """A workspace database at `db_path` holding, for each level, two plays of it solved in
    about `seconds` of it, and for the slowest third one give-up of three."""
    key = PuzzleKey(results.puzzle.name, results.puzzle.sha256)
    slow = np.quantile(seconds, 2 / 3)
    with WorkspaceDB(db_path) as db:
        for level, name, time in zip(levels, keys, seconds):
            moves = len(level.solution)
            db.record_play(key, Play(name, 0.9 * time, moves, moves, 0, 0, 0, True))
            db.record_play(key, Play(name, 1.1 * time, moves + 2, moves, 1, 0, 0, True))
            if time > slow:
                db.record_play(key, Play(name, 5.0, 1, 1, 0, 0, 0, False))


def pieces_key(level):
    return ",".join(str(v) for v in level.position)


def test_calibration_from_playtests_recovers_a_known_player(tmp_path):
    results = curator.analyze(PUZZLES / "triangle.toml", tmp_path / "out")
    levels = [level for level in results.select(solvable=True, canonical=True, pieces=(4, 10), sample=30,
                                                seed=4) if level.solution]
    found, _, _ = catalogue.kind_for(results).measures(results, [level.position for level in levels])
    g = int(np.flatnonzero(grid() == TRUE_PLAYER.lookahead)[0])
    truth = np.array([TRUE_PLAYER.effort(Measure(*row)) for row in found[:, g]])
    record_playtests(tmp_path / "plays.sqlite", results, levels, [pieces_key(level) for level in levels],
                     20 * truth)
    result = invoke("calibrate", results.directory, "--playtests", tmp_path / "plays.sqlite")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"calibrated on {len(levels)} playtested levels in {len(set(truth))} grades"
    assert lines[1].startswith("Spearman with the grades: before ") and "(cross-validated)" in lines[1]
    reopened = curator.open(results.directory)
    assert reopened.player.source == (f"calibrated for this puzzle on {len(levels)} playtested levels "
                                      f"({PLAYER_FILE})")
    rated = [reopened.solve(level.position).difficulty for level in levels]
    assert spearman(rated, truth) > 0.95
    stored = json.loads((results.directory / PLAYER_FILE).read_text())
    assert stored["fitted"]["playtests"] == "plays.sqlite" and stored["fitted"]["spearman_after"] > 0.9


def test_goal_table_levels_calibrate_from_playtests(tmp_path):
    text = (PUZZLES / "lunar-lockout.toml").read_text()
    path = tmp_path / "lunar.toml"
    path.write_text(text.replace("....h\n..h..\n", ".....\n..h..\n"))  # three helpers: 1 to 5 moves
    results = curator.analyze(path, tmp_path / "out")
    levels = results.select(sample=24, seed=2)
    truth = np.array([level.difficulty for level in levels])
    record_playtests(tmp_path / "plays.sqlite", results, levels, ["/".join(level.board) for level in levels],
                     10 * truth)
    found = curator.calibrate(results.directory, playtests=tmp_path / "plays.sqlite")
    assert found.noun == "playtested" and found.levels == len(levels)
    assert found.before > 0.95  # the grades came from the player in use


def test_too_few_playtests_are_refused_in_one_line(triangle, tmp_path):
    levels = [level for level in triangle.select(solvable=True, pieces=(5, 8), sample=6, seed=1)
              if level.solution]
    record_playtests(tmp_path / "plays.sqlite", triangle, levels, [pieces_key(level) for level in levels],
                     np.arange(1.0, len(levels) + 1))
    result = invoke("calibrate", triangle.directory, "--playtests", tmp_path / "plays.sqlite")
    assert result.exit_code == 1
    assert error_line(result.stderr).endswith(
        f"a calibration needs at least 10 solvable playtested levels in at least 3 different grades; "
        f"it has {len(levels)} in {len(levels)}")
    assert not (triangle.directory / PLAYER_FILE).exists()
    missing = invoke("calibrate", triangle.directory, "--playtests", tmp_path / "none.sqlite")
    assert missing.exit_code == 2 and error_line(missing.stderr) == (
        f"error: --playtests {tmp_path / 'none.sqlite'}: no workspace database here "
        "(the workspace, `curator serve`, makes one)")
    (tmp_path / "notes.txt").write_text("plain text, not SQLite " * 50)
    text = invoke("calibrate", triangle.directory, "--playtests", tmp_path / "notes.txt")
    assert text.exit_code == 1 and error_line(text.stderr) == (
        f"error: --playtests {tmp_path / 'notes.txt'}: not a workspace database (file is not a database)")
    WorkspaceDB(tmp_path / "empty.sqlite").close()
    empty = invoke("calibrate", triangle.directory, "--playtests", tmp_path / "empty.sqlite")
    assert empty.exit_code == 1 and error_line(empty.stderr).endswith("it has 0 in 0")
    record_playtests(tmp_path / "other.sqlite", triangle, levels[:1], ["garbage"], np.ones(1))
    other = invoke("calibrate", triangle.directory, "--playtests", tmp_path / "other.sqlite")
    assert other.exit_code == 1 and error_line(other.stderr) == (
        f"error: --playtests {tmp_path / 'other.sqlite'}: a play's level 'garbage': not a position's entries "
        "joined by commas (damaged workspace database)")


def test_calibrate_takes_one_source_of_grades(triangle, tmp_path):
    for options in ((), ("--graded", tmp_path / "a.json", "--playtests", tmp_path / "b.sqlite")):
        result = invoke("calibrate", triangle.directory, *options)
        assert result.exit_code == 2
        assert error_line(result.stderr).endswith("give --graded PACK.json or --playtests DB, one of them")


def test_playtest_grades_count_a_give_up_as_a_play_that_never_ends():
    plays = [Play("quick", 10, 3, 3, 0, 0, 0, True), Play("quick", 30, 3, 3, 0, 0, 0, True),
             Play("slow", 100, 3, 3, 0, 0, 0, True), Play("slow", 120, 3, 3, 0, 0, 0, True),
             Play("slow", 5, 1, 1, 0, 0, 0, False),
             Play("dropped", 5, 1, 1, 0, 0, 0, False), Play("dropped", 8, 3, 3, 0, 0, 0, True),
             Play("lost", 5, 1, 1, 0, 0, 0, False), Play("lost", 6, 1, 1, 0, 0, 0, False),
             Play("twin", 100, 3, 3, 0, 0, 0, True), Play("twin", 120, 3, 3, 0, 0, 0, True),
             Play("twin", 5, 1, 1, 0, 0, 0, False)]
    levels, grades = playtest_grades(plays)
    assert dict(zip(levels, grades.tolist())) == {
        "quick": 1.0, "slow": 2.5, "twin": 2.5, "dropped": 4.0, "lost": 5.0}


def test_a_graded_pack_may_not_list_a_level_twice_nor_grade_beyond_numbers(triangle, tmp_path):
    pack = tmp_path / "graded.json"
    graded_pack(triangle, pack, 12)
    data = json.loads(pack.read_text())
    pack.write_text(json.dumps({**data, "levels": [*data["levels"], data["levels"][3]]}))
    result = invoke("calibrate", triangle.directory, "--graded", pack)
    assert result.exit_code == 2
    said = "levels[12]: is the level of levels[3] again (a graded pack lists each level once)"
    assert error_line(result.stderr) == f"error: --graded {pack}: {said}"
    for number, level in enumerate(data["levels"]):
        level["grade"] = 1 + number % 3
    data["levels"][5]["grade"] = 10**400  # valid JSON, but no float holds it
    pack.write_text(json.dumps(data))
    result = invoke("calibrate", triangle.directory, "--graded", pack)
    assert result.exit_code == 2
    assert error_line(result.stderr) == (f"error: --graded {pack}: levels[5].grade: is a number of 401 "
                                         "digits, too large to compute with")
    assert not (triangle.directory / PLAYER_FILE).exists()


def test_a_pack_that_is_not_one_is_refused(triangle, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something else"}')
    result = invoke("calibrate", triangle.directory, "--graded", bad)
    assert result.exit_code == 2 and "not a level pack of curator" in error_line(result.stderr)
    missing = invoke("calibrate", triangle.directory, "--graded", tmp_path / "none.json")
    assert missing.exit_code == 2 and error_line(missing.stderr).startswith(
        f"error: --graded {tmp_path / 'none.json'}: file: cannot be read")


def test_variants_are_rated_by_the_calibrated_player_as_solve_rates_them(tmp_path):
    results = curator.analyze(PUZZLES / "triangle.toml", tmp_path / "out")
    stored = player_text(TRUE_PLAYER, results.puzzle.sha256, {"levels": 40})
    (results.directory / PLAYER_FILE).write_text(stored)
    calibrated = curator.open(results.directory)
    start = calibrated.select(unique=True, pieces=(6, 6), limit=1)[0]
    found = calibrated.variants(start.position, want="solvable", limit=3)
    assert found and all(v.item.difficulty == calibrated.solve(v.item.position).difficulty for v in found)
    defaults = [solve_position(calibrated.puzzle, v.item.position).difficulty for v in found]
    assert [v.item.difficulty for v in found] != defaults


def test_a_tampered_player_is_refused(triangle, tmp_path):
    results = curator.analyze(PUZZLES / "triangle.toml", tmp_path / "out")
    path = results.directory / PLAYER_FILE
    path.write_text(player_text(TRUE_PLAYER, results.puzzle.sha256, {"levels": 40}))
    assert curator.open(results.directory).player == TRUE_PLAYER
    data = json.loads(path.read_text())
    data["player"]["search_share"] = 0.0
    path.write_text(json.dumps(data))
    with pytest.raises(curator.StoreError, match="checksum does not match"):
        _ = curator.open(results.directory).player
    result = invoke("select", results.directory, "--unique", "--limit", "1")
    assert result.exit_code == 1 and "difficulty.json: checksum does not match" in error_line(result.stderr)


def test_a_player_of_the_first_format_is_read_with_its_parameters_renamed_and_no_knock_on_term(tmp_path):
    results = curator.analyze(PUZZLES / "triangle.toml", tmp_path / "out")
    data = {"format": "curator-player/1", "puzzle_sha256": results.puzzle.sha256,
            "player": {"lookahead": 1.0, "search": 0.9, "opening": 1.5}, "fitted": {"levels": 40}}
    data["sha256"] = hashlib.sha256(canonical_json(data)).hexdigest()
    (results.directory / PLAYER_FILE).write_text(json.dumps(data))
    assert curator.open(results.directory).player == TRUE_PLAYER


def test_fit_prefers_the_grid_point_that_made_the_grades():
    rng = np.random.default_rng(0)
    measures = rng.uniform(1, 2**10, size=(80, len(LOOKAHEADS), 4))
    measures[:, :, 0] = rng.integers(2, 9, size=80)[:, None]
    measures[:, :, 2] = rng.uniform(0, 4, size=80)[:, None]
    measures[:, :, 3] = rng.integers(0, 3, size=80)[:, None]
    truth = Player(lookahead=LOOKAHEADS[3], search_share=0.7, opening=0.5, knock_on=1.2)
    grades = np.array([truth.effort(Measure(*row)) for row in measures[:, 3]])
    player = fit(Graded(measures, grades, measures[:, 0, 0].astype(int)))
    assert player.lookahead == truth.lookahead
    assert player.search_share == pytest.approx(0.7, abs=0.1)
    assert player.opening == pytest.approx(0.5, rel=0.3)
    assert player.knock_on == pytest.approx(1.2, rel=0.3)


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 2)), min_size=2, max_size=30))
def test_pairs_across_groups_weigh_their_share_and_pairs_of_one_kind_alike(levels):
    grades = np.array([g for g, _ in levels], dtype=float)
    groups = np.array([k for _, k in levels])
    harder, easier, weight = pairs(grades, groups)
    expected = {(h, e) for h in range(len(levels)) for e in range(len(levels)) if grades[h] > grades[e]}
    assert set(zip(harder.tolist(), easier.tolist())) == expected
    if not expected:
        return
    assert weight.sum() == pytest.approx(1.0)
    same = groups[harder] == groups[easier]
    for kind in (same, ~same):
        assert np.allclose(weight[kind], weight[kind][:1])
    if same.any() and (~same).any():
        assert weight[~same].sum() == pytest.approx(ACROSS_SHARE)


def test_fit_gives_no_weight_to_a_figure_no_level_has():
    """Sliding-block levels make no knock-ons: their fitted player has none either."""
    rng = np.random.default_rng(2)
    measures = rng.uniform(1, 2**10, size=(40, len(LOOKAHEADS), 4))
    measures[:, :, 0] = rng.integers(2, 9, size=40)[:, None]
    measures[:, :, 3] = 0.0
    grades = np.array([DEFAULT.effort(Measure(*row)) for row in measures[:, 0]])
    assert fit(Graded(measures, grades, np.zeros(40, dtype=int))).knock_on == 0.0


def test_fit_keeps_the_least_look_ahead_when_the_grades_do_not_tell():
    rng = np.random.default_rng(1)
    same = rng.uniform(1, 2**10, size=(40, 1, 4))
    same[:, :, 0] = rng.integers(2, 9, size=40)[:, None]
    measures = np.repeat(same, len(LOOKAHEADS), axis=1)
    grades = np.array([DEFAULT.effort(Measure(*row)) for row in measures[:, 0]])
    assert fit(Graded(measures, grades, np.zeros(40, dtype=int))).lookahead == LOOKAHEADS[0]


def test_default_player_reads_in_one_line():
    assert DEFAULT.text().startswith("look-ahead ") and "Fling!" in DEFAULT.source


def test_terms_read_in_one_line():
    assert Terms(12, dead_ends=3, hidden=4, forced=1, choices=2.5).text() == (
        "12 moves; 3 tempting dead ends (hidden up to 4 moves); 1 forced step; 2.5 legal moves per step")
    assert Terms(5, dead_ends=1, detours=2, long_detours=1, choices=3).text() == (
        "5 moves; 1 tempting dead end; 2 tempting detours, 1 long; 3.0 legal moves per step")
    assert Terms(0).text() == "0 moves"



def test_captures_make_no_knock_ons_on_boards_of_piece_types():
    """A capture leaves one cell empty: no piece is set moving (the plain walk agrees)."""
    puzzle = load_puzzle(PUZZLES / "solitaire-chess.toml")
    position = puzzle.parse("K.../.Q../..R./...N")
    explorer = Explorer(puzzle)
    found = measure(explorer.graph(position, 10**6), puzzle.goal.pieces, explorer.report(position), grid())
    assert found is not None and found[0, 0] == 3
    assert (found[:, 3] == 0).all() and plain_measure(puzzle, position, 0.0)[3] == 0


def graded_chess(name: str, grades: tuple[str, ...], per_grade: int, *rules: str
                 ) -> tuple[Puzzle, list[list[str]]]:
    """The bundled Solitaire Chess puzzle with its piece limit raised to the retail set's ten
    and the `rules` lines put in place of the defaults they name, and the rows of the graded
    set benchmarks/graded/`name`, checked to be numbered from 1 in `grades` of `per_grade`."""
    text = (PUZZLES / "solitaire-chess.toml").read_text().replace("max_pieces = 6", "max_pieces = 10")
    for line in rules:
        text = re.sub(rf"^{line.split(' = ')[0]} = .*\n", line, text, flags=re.M)
    lines = (ROOT / "benchmarks" / "graded" / name).read_text().splitlines()
    rows = [line.split() for line in lines if line and not line.startswith("#")]
    assert [int(row[0]) for row in rows] == list(range(1, len(grades) * per_grade + 1))
    assert [row[1] for row in rows] == [grade for grade in grades for _ in range(per_grade)]
    return parse_puzzle(text), rows


def test_the_capture_family_is_rated_by_the_fit_on_the_graded_solitaire_chess_challenges():
    """benchmarks/graded/solitaire-chess-levels.txt: 20 levels in 4 grades of 5, each a board of
    the bundled puzzle (its piece limit raised to the retail set's ten) that can be solved; what
    benchmarks/difficulty.py fits on them is the player of the capture family's levels."""
    grades = ("easy", "intermediate", "advanced", "expert")
    puzzle, rows = graded_chess("solitaire-chess-levels.txt", grades, 5)
    explorer = Explorer(puzzle)
    measures, pieces = [], []
    for _level, _grade, _page, board in rows:
        position = puzzle.parse(board)
        level = solve_position(puzzle, position, explorer)
        assert level.solution and 4 <= len(level.solution) + 1 <= 8
        pieces.append(len(level.solution) + 1)
        graph = explorer.graph(position, 10**6)
        measures.append(measure(graph, puzzle.goal.pieces, explorer.report(position), grid()))
    found = fit(Graded(np.array(measures), np.arange(1.0, 21.0), np.array(pieces)))
    assert puzzle.player.to_json() == found.to_json() != DEFAULT.to_json()
    assert curator.load(PUZZLES / "solitaire-chess.toml").player == puzzle.player


def test_the_capture_player_orders_an_independent_graded_set_better_than_the_piece_count():
    """benchmarks/graded/solitaire-chess-60.txt: 60 levels of another game in 4 grades of 15,
    where a king may not be captured, each a board that can be solved under that rule. The
    capture family's player, fitted on the 20 booklet challenges alone, orders them by level
    better than their piece count does (a check on levels the fit never saw)."""
    grades = ("beginner", "intermediate", "advanced", "expert")
    puzzle, rows = graded_chess("solitaire-chess-60.txt", grades, 15, "king_safe = true\n", "B = 3\n")
    explorer = Explorer(puzzle)
    levels = [solve_position(puzzle, puzzle.parse(board), explorer) for _level, _grade, board in rows]
    assert all(level.solution for level in levels)
    order = np.arange(1.0, 61.0)
    pieces = np.array([len(level.solution) + 1.0 for level in levels])
    difficulty = np.array([level.difficulty for level in levels])
    assert spearman(difficulty, order) > spearman(pieces, order) + 0.01
